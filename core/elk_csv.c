#include "elk_csv.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "elk_file.h"

void elk_csv_fmt(char *buf, size_t n, double v)
{
    if (isnan(v)) snprintf(buf, n, "%s", "");
    else if (isinf(v)) snprintf(buf, n, "%s", v > 0 ? "inf" : "-inf");
    else if (v == 0) snprintf(buf, n, "0");
    else snprintf(buf, n, "%.6g", v);
}

void elk_csv_cat(char *buf, size_t n, size_t *len, int first, const char *field)
{
    size_t l = *len;
    if (!first && l + 1 < n) buf[l++] = ',';
    int quote = strpbrk(field, ",\"\r\n") != NULL;
    if (quote && l + 1 < n) buf[l++] = '"';
    for (const char *s = field; *s && l + 2 < n; s++) {
        if (*s == '"') buf[l++] = '"';
        buf[l++] = *s;
    }
    if (quote && l + 1 < n) buf[l++] = '"';
    if (l < n) buf[l] = '\0';
    else if (n) buf[n - 1] = '\0';
    *len = l < n ? l : (n ? n - 1 : 0);
}

void elk_csv_cat_num(char *buf, size_t n, size_t *len, int first, double v)
{
    char f[64];
    elk_csv_fmt(f, sizeof f, v);
    elk_csv_cat(buf, n, len, first, f);
}

void elk_csv_free(elk_csv_table *t)
{
    for (int i = 0; i < t->ncomments; i++) free(t->comments[i]);
    for (int i = 0; i < t->ncols; i++) free(t->cols[i]);
    for (int r = 0; r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++) free(t->cells[r][c]);
        free(t->cells[r]);
        free(t->lines[r]);
    }
    free(t->comments);
    free(t->cols);
    free(t->cells);
    free(t->lines);
    memset(t, 0, sizeof *t);
}

/* Split one line into fields; returns the count or -1 on a quoting error.
 * fields[] receive malloc'd strings. */
static int split_line(const char *line, char ***fields_out)
{
    int cap = 16, nf = 0;
    char **fields = malloc(sizeof *fields * (size_t)cap);
    size_t len = strlen(line);
    char *cur = malloc(len + 1);
    if (!fields || !cur) {
        free(fields);
        free(cur);
        return -1;
    }
    const char *s = line;
    for (;;) {
        size_t k = 0;
        if (*s == '"') {
            s++;
            for (;;) {
                if (!*s) goto bad;
                if (*s == '"') {
                    if (s[1] == '"') {
                        cur[k++] = '"';
                        s += 2;
                        continue;
                    }
                    s++;
                    break;
                }
                cur[k++] = *s++;
            }
            if (*s && *s != ',') goto bad;
        } else {
            while (*s && *s != ',') {
                if (*s == '"') goto bad;
                cur[k++] = *s++;
            }
        }
        cur[k] = '\0';
        if (nf == cap) {
            cap *= 2;
            char **nfl = realloc(fields, sizeof *fields * (size_t)cap);
            if (!nfl) goto bad;
            fields = nfl;
        }
        fields[nf++] = strdup(cur);
        if (!*s) break;
        s++; /* the comma */
    }
    free(cur);
    *fields_out = fields;
    return nf;
bad:
    for (int i = 0; i < nf; i++) free(fields[i]);
    free(fields);
    free(cur);
    return -1;
}

static int push(char ***arr, int *n, int *cap, char *v)
{
    if (*n == *cap) {
        int nc = *cap ? *cap * 2 : 16;
        char **na = realloc(*arr, sizeof **arr * (size_t)nc);
        if (!na) return -1;
        *arr = na;
        *cap = nc;
    }
    (*arr)[(*n)++] = v;
    return 0;
}

elk_status elk_csv_parse(const char *text, const char *name, elk_csv_table *t, elk_error *err)
{
    memset(t, 0, sizeof *t);
    int ccap = 0, rcap = 0, lineno = 0;
    const char *p = text;
    elk_status st = ELK_OK;
    while (*p && st == ELK_OK) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        lineno++;
        char *line = malloc(len + 1);
        if (!line) return elk_fail(err, ELK_ENOMEM, "%s: out of memory", name);
        memcpy(line, p, len);
        line[len] = '\0';
        if (len && line[len - 1] == '\r') line[--len] = '\0';
        p = e ? e + 1 : p + strlen(p);
        if (!t->cols && line[0] == '#') {
            if (push(&t->comments, &t->ncomments, &ccap, line)) st = elk_fail(err, ELK_ENOMEM, "out of memory");
            continue;
        }
        if (len == 0) {
            free(line);
            continue;
        }
        char **f;
        int nf = split_line(line, &f);
        if (nf < 0) {
            free(line);
            st = elk_fail(err, ELK_EPARSE, "%s:%d: malformed CSV quoting", name, lineno);
            break;
        }
        if (!t->cols) {
            t->cols = f;
            t->ncols = nf;
            free(line);
            continue;
        }
        if (nf != t->ncols) {
            for (int i = 0; i < nf; i++) free(f[i]);
            free(f);
            free(line);
            st = elk_fail(err, ELK_EPARSE, "%s:%d: %d fields, but the header has %d", name, lineno, nf,
                          t->ncols);
            break;
        }
        if (t->nrows == rcap) {
            int nc = rcap ? rcap * 2 : 64;
            char **nl = realloc(t->lines, sizeof *nl * (size_t)nc);
            if (nl) t->lines = nl;
            char ***ncl = realloc(t->cells, sizeof *ncl * (size_t)nc);
            if (ncl) t->cells = ncl;
            if (!nl || !ncl) {
                st = elk_fail(err, ELK_ENOMEM, "out of memory");
                for (int i = 0; i < nf; i++) free(f[i]);
                free(f);
                free(line);
                break;
            }
            rcap = nc;
        }
        t->lines[t->nrows] = line;
        t->cells[t->nrows] = f;
        t->nrows++;
    }
    if (st == ELK_OK && !t->cols) st = elk_fail(err, ELK_EPARSE, "%s: no header row (empty CSV)", name);
    if (st != ELK_OK) elk_csv_free(t);
    return st;
}

elk_status elk_csv_slurp(const char *path, char **text, elk_error *err)
{
    size_t len;
    ELK_TRY(elk_file_read(path, 0, text, &len, err));
    const char *nul = memchr(*text, '\0', len);
    if (nul) {
        int line = 1;
        for (const char *c = *text; c < nul; c++) line += *c == '\n';
        free(*text);
        *text = NULL;
        return elk_fail(err, ELK_EPARSE, "%s:%d: NUL byte in the text (not a CSV, or a damaged one)",
                        elk_file_is_std(path) ? "<stdin>" : path, line);
    }
    return ELK_OK;
}

elk_status elk_csv_read(const char *path, elk_csv_table *t, elk_error *err)
{
    char *buf;
    memset(t, 0, sizeof *t);
    ELK_TRY(elk_csv_slurp(path, &buf, err));
    elk_status st = elk_csv_parse(buf, elk_file_is_std(path) ? "<stdin>" : path, t, err);
    free(buf);
    return st;
}

int elk_csv_col(const elk_csv_table *t, const char *name)
{
    for (int c = 0; c < t->ncols; c++)
        if (!strcmp(t->cols[c], name)) return c;
    return -1;
}

const char *elk_csv_cell(const elk_csv_table *t, int row, int col)
{
    if (col < 0 || col >= t->ncols || row < 0 || row >= t->nrows) return "";
    return t->cells[row][col];
}

double elk_csv_num(const elk_csv_table *t, int row, int col)
{
    const char *s = elk_csv_cell(t, row, col);
    if (!*s) return NAN;
    char *end;
    double v = strtod(s, &end);
    return *end ? NAN : v;
}

int elk_csv_distinct(const elk_csv_table *t, int col, char sep, char *buf, size_t n)
{
    int count = 0;
    size_t len = 0;
    if (n) buf[0] = '\0';
    if (col < 0) return 0;
    for (int r = 0; r < t->nrows; r++) {
        const char *v = t->cells[r][col];
        if (strchr(v, sep)) continue;
        int seen = 0;
        for (int q = 0; q < r && !seen; q++) seen = !strcmp(t->cells[q][col], v);
        if (seen) continue;
        int w = snprintf(buf + len, n > len ? n - len : 0, "%s%s", count ? (char[]){sep, 0} : "", v);
        if (w < 0 || len + (size_t)w >= n) break;
        len += (size_t)w;
        count++;
    }
    return count;
}
