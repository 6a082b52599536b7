#include "elk_cfg.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *type_word(elk_field_type t)
{
    switch (t) {
    case ELK_F_INT: return "an integer";
    case ELK_F_DOUBLE: return "a number";
    case ELK_F_BOOL: return "true or false";
    case ELK_F_STRING: return "a string";
    case ELK_F_ENUM: return "a string";
    case ELK_F_GROUP: return "a group { ... }";
    default: return "?";
    }
}

static void enum_list(const char *const *names, char *buf, size_t n)
{
    buf[0] = '\0';
    for (int i = 0; names[i]; i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "%s\"%s\"", i ? ", " : "", names[i]);
    }
}

static const elk_field *find_field(const elk_field *schema, const char *name)
{
    for (const elk_field *f = schema; f->type != ELK_F_END; f++)
        if (strcmp(f->name, name) == 0) return f;
    return NULL;
}

static void fmt_num(char *buf, size_t n, double v)
{
    if (v == floor(v) && fabs(v) < 1e15) snprintf(buf, n, "%.0f", v);
    else snprintf(buf, n, "%g", v);
}

static elk_status apply_one(const config_setting_t *s, const char *file,
                            const char *path, const elk_field *f, void *dst,
                            elk_error *err)
{
    int line = config_setting_source_line(s);
    int t = config_setting_type(s);
    char *base = (char *)dst + f->offset;

    switch (f->type) {
    case ELK_F_INT:
    case ELK_F_DOUBLE: {
        double v;
        if (t == CONFIG_TYPE_INT) v = config_setting_get_int(s);
        else if (t == CONFIG_TYPE_INT64) v = (double)config_setting_get_int64(s);
        else if (t == CONFIG_TYPE_FLOAT && f->type == ELK_F_DOUBLE)
            v = config_setting_get_float(s);
        else
            return elk_fail(err, ELK_EFIELD, "%s:%d: field '%s': expected %s",
                            file, line, path, type_word(f->type));
        if (!(v >= f->min && v <= f->max)) {
            char a[32], lo[32], hi[32];
            fmt_num(a, sizeof a, v);
            fmt_num(lo, sizeof lo, f->min);
            fmt_num(hi, sizeof hi, f->max);
            return elk_fail(err, ELK_ERANGE,
                            "%s:%d: field '%s': value %s out of range (allowed %s .. %s%s%s)",
                            file, line, path, a, lo, hi, f->unit ? " " : "",
                            f->unit ? f->unit : "");
        }
        if (f->type == ELK_F_INT) *(int *)base = (int)v;
        else *(double *)base = v;
        return ELK_OK;
    }
    case ELK_F_BOOL:
        if (t != CONFIG_TYPE_BOOL)
            return elk_fail(err, ELK_EFIELD, "%s:%d: field '%s': expected true or false",
                            file, line, path);
        *(int *)base = config_setting_get_bool(s);
        return ELK_OK;
    case ELK_F_STRING: {
        if (t != CONFIG_TYPE_STRING)
            return elk_fail(err, ELK_EFIELD, "%s:%d: field '%s': expected a string",
                            file, line, path);
        const char *v = config_setting_get_string(s);
        if (strlen(v) >= f->size)
            return elk_fail(err, ELK_ERANGE, "%s:%d: field '%s': string longer than %zu characters",
                            file, line, path, f->size - 1);
        memcpy(base, v, strlen(v) + 1);
        return ELK_OK;
    }
    case ELK_F_ENUM: {
        char allowed[256];
        enum_list(f->names, allowed, sizeof allowed);
        if (t != CONFIG_TYPE_STRING)
            return elk_fail(err, ELK_EFIELD, "%s:%d: field '%s': expected one of %s",
                            file, line, path, allowed);
        const char *v = config_setting_get_string(s);
        for (int i = 0; f->names[i]; i++)
            if (strcmp(v, f->names[i]) == 0) {
                *(int *)base = i;
                return ELK_OK;
            }
        return elk_fail(err, ELK_ERANGE, "%s:%d: field '%s': \"%s\" is not one of %s",
                        file, line, path, v, allowed);
    }
    case ELK_F_GROUP:
        if (t != CONFIG_TYPE_GROUP)
            return elk_fail(err, ELK_EFIELD, "%s:%d: field '%s': expected a group { ... }",
                            file, line, path);
        return elk_cfg_apply(s, file, path, f->sub, dst, err);
    default:
        return elk_fail(err, ELK_EINVAL, "bad schema");
    }
}

elk_status elk_cfg_apply(const config_setting_t *group, const char *file,
                         const char *prefix, const elk_field *schema,
                         void *dst, elk_error *err)
{
    int n = config_setting_length(group);
    for (int i = 0; i < n; i++) {
        const config_setting_t *s = config_setting_get_elem(group, (unsigned)i);
        const char *name = config_setting_name(s);
        char path[256];
        snprintf(path, sizeof path, "%s.%s", prefix, name ? name : "?");
        const elk_field *f = name ? find_field(schema, name) : NULL;
        if (!f) {
            char known[1024];
            known[0] = '\0';
            for (const elk_field *k = schema; k->type != ELK_F_END; k++) {
                size_t len = strlen(known);
                snprintf(known + len, sizeof known - len, "%s%s", len ? ", " : "", k->name);
            }
            return elk_fail(err, ELK_EUNKNOWN, "%s:%d: unknown field '%s' (known fields: %s)",
                            file, config_setting_source_line(s), path, known);
        }
        ELK_TRY(apply_one(s, file, path, f, dst, err));
    }
    for (const elk_field *f = schema; f->type != ELK_F_END; f++) {
        if (!f->required) continue;
        if (!config_setting_get_member(group, f->name)) {
            char path[256];
            snprintf(path, sizeof path, "%s.%s", prefix, f->name);
            return elk_fail(err, ELK_EMISSING, "%s:%d: missing required field '%s' (%s)",
                            file, config_setting_source_line(group), path,
                            type_word(f->type));
        }
    }
    return ELK_OK;
}

int elk_cfg_line(const config_setting_t *root, const char *path)
{
    const config_setting_t *s = config_setting_lookup((config_setting_t *)root, path);
    return config_setting_source_line(s ? s : root);
}

/* ------------------------------------------------------------------ */
/* Reading a file: @include targets are checked before libconfig opens them */

/* libconfig 1.5's MAX_INCLUDE_DEPTH: deeper @includes are its own error. */
#define CFG_INCLUDE_DEPTH 10
/* The most bytes read for one file with its @includes, and the most
 * settings ('=' or ':') in them. The biggest shipped sweep or preset is
 * under 2 KB with 40 settings. libconfig 1.5 parses in time quadratic in a
 * comment's length and in a group's settings (1 MiB of comment 1.2 s, 5,000
 * settings in a group 0.4 s, 20,000 6 s, on the reference machine), so the
 * bounds bound the time too (docs/RELIABILITY.md); they also keep
 * /proc/kcore (a "regular" file of 128 TB) out. */
#define CFG_MAX_BYTES (1L << 20)
#define CFG_MAX_SETTINGS 5000

/* What one read has used of those bounds, over its @includes. */
typedef struct {
    long bytes, settings;
} cfg_budget;

/* A file libconfig may open: it exists, is readable and is a regular file
 * (libconfig 1.5's flex scanner exit(2)s the process on a directory, and a
 * FIFO or a device would block or never end). where is "FILE:LINE: @include
 * \"x\"" for an include, or the path itself. */
static elk_status check_regular(const char *path, const char *where, elk_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return elk_fail(err, ELK_EIO, "%s: cannot open: %s", where, strerror(errno));
    if (S_ISDIR(st.st_mode)) return elk_fail(err, ELK_EIO, "%s: is a directory", where);
    if (!S_ISREG(st.st_mode)) return elk_fail(err, ELK_EIO, "%s: not a regular file", where);
    if (st.st_size > CFG_MAX_BYTES)
        return elk_fail(err, ELK_ERANGE, "%s: %lld bytes, larger than the %ld MiB a preset or sweep may be", where,
                        (long long)st.st_size, CFG_MAX_BYTES >> 20);
    if (access(path, R_OK) != 0)
        return elk_fail(err, ELK_EIO, "%s: cannot open: %s", where, strerror(errno));
    return ELK_OK;
}

/* The whole file, NULs and all (flex reads through them); *len its size.
 * NULL with errno set if it cannot be read to the end: a read error (EIO
 * from /proc/self/mem, say) would make flex exit(2) the process as well. */
static char *slurp_text(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n - 1, fp);
        n += got;
        if (got == 0) break;
        if (n > (size_t)CFG_MAX_BYTES) { /* a /proc file that grows as it is read */
            free(buf);
            fclose(fp);
            errno = EFBIG;
            return NULL;
        }
        if (cap - n - 1 == 0) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    int bad = ferror(fp), saved = errno;
    fclose(fp);
    if (buf && bad) {
        free(buf);
        errno = saved ? saved : EIO;
        return NULL;
    }
    if (buf) buf[n] = '\0';
    *len = n;
    return buf;
}

/* Check one @include target named in file at line, then scan it in turn. */
static elk_status scan_includes(const char *file, const char *where, const char *include_dir, int depth,
                                cfg_budget *b, elk_error *err);
static elk_status check_include(const char *file, int line, const char *name, const char *include_dir, int depth,
                                cfg_budget *b, elk_error *err)
{
    char *full = (char *)name;
    if (include_dir) {
        full = malloc(strlen(include_dir) + strlen(name) + 2);
        if (!full) return elk_fail(err, ELK_ENOMEM, "out of memory");
        sprintf(full, "%s/%s", include_dir, name);
    }
    char where[1200];
    if (full != name)
        snprintf(where, sizeof where, "%s:%d: @include \"%.400s\" (%.400s)", file, line, name, full);
    else
        snprintf(where, sizeof where, "%s:%d: @include \"%.400s\"", file, line, name);
    elk_status st = check_regular(full, where, err);
    if (st == ELK_OK && depth + 1 < CFG_INCLUDE_DEPTH) st = scan_includes(full, where, include_dir, depth + 1, b, err);
    if (full != name) free(full);
    return st;
}

static int word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '*' ||
           c == '.';
}

/* The number token at *p (a digit that starts a token), advanced past.
 * libconfig 1.5 reads an integer literal without the L suffix modulo 2^32
 * (4294967297 is 1, 2147483648 is -2147483648), so a file would silently
 * mean another number: such a literal is refused here, and one with L that
 * does not fit in 64 bits too. Floats (a '.', or an exponent) pass. */
static elk_status check_integer(const char *file, int line, const char *text, const char **pp, const char *end,
                                elk_error *err)
{
    const char *p = *pp, *q = p;
    int hex = end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    if (hex) q += 2;
    while (q < end && ((*q >= '0' && *q <= '9') || (hex && ((*q >= 'a' && *q <= 'f') || (*q >= 'A' && *q <= 'F')))))
        q++;
    *pp = q;
    if (!hex && q < end && (*q == '.' || *q == 'e' || *q == 'E')) { /* a float: past its digits */
        while (*pp < end && word_char(**pp)) (*pp)++;
        return ELK_OK;
    }
    int neg = p > text && p[-1] == '-', wide = q < end && *q == 'L';
    char digits[40];
    size_t n = (size_t)(q - p);
    if (n >= sizeof digits) n = sizeof digits - 1; /* still too large for 64 bits */
    memcpy(digits, p, n);
    digits[n] = '\0';
    errno = 0;
    unsigned long long v = strtoull(digits, NULL, hex ? 16 : 10);
    int big64 = errno == ERANGE || (size_t)(q - p) >= sizeof digits || v > (neg ? 9223372036854775808ull : 9223372036854775807ull);
    int big32 = big64 || v > (neg ? 2147483648ull : 2147483647ull);
    if (wide ? !big64 : !big32) return ELK_OK;
    int show = (int)(q - p) > 30 ? 30 : (int)(q - p);
    return elk_fail(err, ELK_ERANGE,
                    wide ? "%s:%d: integer %s%.*s%s does not fit in 64 bits"
                         : "%s:%d: integer %s%.*s%s does not fit in 32 bits (the config reader would take it modulo "
                           "2^32; no field takes so large a value)",
                    file, line, neg ? "-" : "", show, p, show < (int)(q - p) ? "..." : "");
}

/* Scan file (already checked) for @include lines the way libconfig 1.5's
 * flex scanner finds them: "^[ \t]*@include[ \t]+\"" at the start of a line
 * outside comments and strings. The name runs to the next unescaped quote;
 * \\ and \" are escapes, a stray backslash is dropped (flex's default rule),
 * and, as libconfig appends each run of plain characters with strlen, a NUL
 * ends its run. It is resolved against the include dir when one is set and
 * against the working directory otherwise, as libconfig does. Each target is
 * checked, then scanned in turn. The whole file is scanned byte by byte, NULs
 * included, as flex reads it (a NUL in a comment once hid an @include from
 * a NUL-terminated scan; found by fuzz_cfg). An unterminated name and
 * nesting too deep are left to libconfig, which reports them well. where
 * names the @include that led here (NULL for the top file), for a read
 * error. */
static elk_status scan_includes(const char *file, const char *where, const char *include_dir, int depth,
                                cfg_budget *b, elk_error *err)
{
    size_t len = 0;
    char *text = slurp_text(file, &len);
    if (!text) return elk_fail(err, ELK_EIO, "%s: cannot read: %s", where ? where : file, strerror(errno));
    b->bytes += (long)len;
    if (b->bytes > CFG_MAX_BYTES) {
        free(text);
        return elk_fail(err, ELK_ERANGE, "%s: more than %ld KiB to read with its @includes (a preset or sweep is a "
                        "few KB)", where ? where : file, CFG_MAX_BYTES >> 10);
    }
    elk_status st = ELK_OK;
    int line = 1, bol = 1;
    const char *p = text, *end = text + len;
    size_t cap = 256;
    char *name = malloc(cap);
    if (!name) {
        free(text);
        return elk_fail(err, ELK_ENOMEM, "out of memory");
    }
    while (p < end && st == ELK_OK) {
        if (bol) {
            bol = 0;
            const char *q = p;
            while (q < end && (*q == ' ' || *q == '\t')) q++;
            if (end - q > 8 && !memcmp(q, "@include", 8) && (q[8] == ' ' || q[8] == '\t')) {
                q += 8;
                while (q < end && (*q == ' ' || *q == '\t')) q++;
                if (q < end && *q == '"') {
                    int at = line, dropping = 0;
                    size_t n = 0;
                    for (q++; q < end && *q != '"'; q++) {
                        char ch = *q;
                        if (ch == '\\') {
                            dropping = 0; /* an escape ends a run */
                            if (q + 1 < end && (q[1] == '\\' || q[1] == '"')) ch = *++q;
                            else continue; /* a stray backslash: flex echoes it */
                        } else {
                            if (ch == '\n') line++;
                            if (ch == '\0') dropping = 1;
                            if (dropping) continue;
                        }
                        if (n + 2 > cap) {
                            char *nn = realloc(name, cap * 2);
                            if (!nn) {
                                st = elk_fail(err, ELK_ENOMEM, "out of memory");
                                break;
                            }
                            name = nn;
                            cap *= 2;
                        }
                        name[n++] = ch;
                    }
                    if (st != ELK_OK || q >= end) break; /* unterminated: libconfig's syntax error */
                    name[n] = '\0';
                    p = q + 1;
                    st = check_include(file, at, name, include_dir, depth, b, err);
                    continue;
                }
            }
        }
        if (*p == '"') { /* a string: may span lines, \ escapes one char */
            for (p++; p < end && *p != '"'; p++) {
                if (*p == '\\' && p + 1 < end) p++;
                if (*p == '\n') line++;
            }
            if (p < end) p++;
        } else if (*p == '/' && p + 1 < end && p[1] == '*') {
            for (p += 2; p < end && !(*p == '*' && p + 1 < end && p[1] == '/'); p++)
                if (*p == '\n') line++;
            p = p < end ? p + 2 : end;
        } else if (*p == '#' || (*p == '/' && p + 1 < end && p[1] == '/')) {
            while (p < end && *p != '\n') p++;
        } else if (*p >= '0' && *p <= '9' && (p == text || !word_char(p[-1]))) {
            st = check_integer(file, line, text, &p, end, err);
        } else if ((*p == '=' || *p == ':') && ++b->settings > CFG_MAX_SETTINGS) {
            st = elk_fail(err, ELK_ERANGE, "%s:%d: more than %d settings with its @includes (a preset or sweep has "
                          "tens)", file, line, CFG_MAX_SETTINGS);
        } else {
            if (*p == '\n') {
                line++;
                bol = 1;
            }
            p++;
        }
    }
    free(name);
    free(text);
    return st;
}

elk_status elk_cfg_read(config_t *cfg, const char *path, elk_error *err)
{
    config_init(cfg);
    elk_status st = check_regular(path, path, err);
    cfg_budget b = {0, 0};
    if (st == ELK_OK) st = scan_includes(path, NULL, config_get_include_dir(cfg), 0, &b, err);
    if (st == ELK_OK && !config_read_file(cfg, path)) {
        const char *in = config_error_file(cfg);
        st = elk_fail(err, ELK_EPARSE, "%s:%d: syntax error: %s", in ? in : path, config_error_line(cfg),
                      config_error_text(cfg));
    }
    if (st != ELK_OK) config_destroy(cfg);
    return st;
}

static elk_status open_cfg(config_t *cfg, const char *path, elk_error *err)
{
    return elk_cfg_read(cfg, path, err);
}

elk_status elk_cfg_load(const char *path, const char *root_name,
                        const elk_field *schema, void *dst,
                        elk_cfg_check_fn check, elk_error *err)
{
    config_t cfg;
    ELK_TRY(open_cfg(&cfg, path, err));
    elk_status st = ELK_OK;
    config_setting_t *top = config_root_setting(&cfg);
    int n = config_setting_length(top);
    config_setting_t *root = NULL;
    for (int i = 0; i < n && st == ELK_OK; i++) {
        config_setting_t *s = config_setting_get_elem(top, (unsigned)i);
        if (strcmp(config_setting_name(s), root_name) == 0) root = s;
        else
            st = elk_fail(err, ELK_EUNKNOWN, "%s:%d: unknown top-level setting '%s' (expected '%s = { ... };')",
                          path, config_setting_source_line(s), config_setting_name(s), root_name);
    }
    if (st == ELK_OK && !root)
        st = elk_fail(err, ELK_EMISSING, "%s:1: missing required group '%s = { ... };'",
                      path, root_name);
    if (st == ELK_OK && config_setting_type(root) != CONFIG_TYPE_GROUP)
        st = elk_fail(err, ELK_EFIELD, "%s:%d: '%s' must be a group { ... }", path,
                      config_setting_source_line(root), root_name);
    if (st == ELK_OK) st = elk_cfg_apply(root, path, root_name, schema, dst, err);
    if (st == ELK_OK && check) st = check(root, path, dst, err);
    config_destroy(&cfg);
    return st;
}

elk_status elk_cfg_peek_kind(const char *path, char *kind, size_t n, elk_error *err)
{
    config_t cfg;
    ELK_TRY(open_cfg(&cfg, path, err));
    config_setting_t *top = config_root_setting(&cfg);
    elk_status st = ELK_OK;
    if (config_setting_length(top) < 1) {
        st = elk_fail(err, ELK_EMISSING, "%s:1: empty file: expected 'chip', 'model' or 'sweep' group", path);
    } else {
        config_setting_t *s = config_setting_get_elem(top, 0);
        snprintf(kind, n, "%s", config_setting_name(s));
    }
    config_destroy(&cfg);
    return st;
}

/* ------------------------------------------------------------------ */
/* Small helpers for loaders that walk a group themselves (sweeps, point */
/* files)                                                               */

const char *elk_cfg_type_name(int t)
{
    switch (t) {
    case CONFIG_TYPE_GROUP: return "a group { ... }";
    case CONFIG_TYPE_INT:
    case CONFIG_TYPE_INT64: return "an integer";
    case CONFIG_TYPE_FLOAT: return "a number";
    case CONFIG_TYPE_STRING: return "a string";
    case CONFIG_TYPE_BOOL: return "true or false";
    case CONFIG_TYPE_ARRAY: return "an array [ ... ]";
    case CONFIG_TYPE_LIST: return "a list ( ... )";
    default: return "something else";
    }
}

int elk_cfg_is_num(const config_setting_t *s)
{
    int t = config_setting_type(s);
    return t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64 || t == CONFIG_TYPE_FLOAT;
}

double elk_cfg_num(const config_setting_t *s)
{
    switch (config_setting_type(s)) {
    case CONFIG_TYPE_INT: return config_setting_get_int(s);
    case CONFIG_TYPE_INT64: return (double)config_setting_get_int64(s);
    default: return config_setting_get_float(s);
    }
}

elk_status elk_cfg_expect(const char *file, elk_error *err, const config_setting_t *s, const char *path, int t1, int t2,
                          const char *what)
{
    int t = config_setting_type(s);
    if (t == t1 || t == t2) return ELK_OK;
    return elk_fail(err, ELK_EFIELD, "%s:%d: field '%s': expected %s, found %s", file, config_setting_source_line(s), path,
                    what, elk_cfg_type_name(t));
}

