#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "elk_cli.h"

void elk_cli_error(const char *fmt, ...)
{
    va_list ap;
    fputs("elk: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int elk_parse_long(const char *s, long lo, long hi, long *out)
{
    if (!s || !*s || isspace((unsigned char)*s)) return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end || errno == ERANGE || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int elk_cli_long(const char *cmd, const char *opt, const char *s, long lo, long hi, long *out)
{
    if (elk_parse_long(s, lo, hi, out) == 0) return 0;
    elk_cli_error("%s: --%s %s: expected an integer from %ld to %ld", cmd, opt, s ? s : "", lo, hi);
    return ELK_EXIT_USAGE;
}

int elk_cli_ulong(const char *cmd, const char *opt, const char *s, unsigned long hi, unsigned long *out)
{
    if (s && *s && isdigit((unsigned char)*s)) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(s, &end, 10);
        if (!*end && errno != ERANGE && v <= hi) {
            *out = v;
            return 0;
        }
    }
    elk_cli_error("%s: --%s %s: expected an integer from 0 to %lu", cmd, opt, s ? s : "", hi);
    return ELK_EXIT_USAGE;
}

int elk_cli_double(const char *cmd, const char *opt, const char *s, double lo, double hi, double *out)
{
    if (s && *s && !isspace((unsigned char)*s)) {
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        if (!*end && errno != ERANGE && isfinite(v) && v >= lo && v <= hi) {
            *out = v;
            return 0;
        }
    }
    elk_cli_error("%s: --%s %s: expected a number from %g to %g", cmd, opt, s ? s : "", lo, hi);
    return ELK_EXIT_USAGE;
}

/* The short options users expect, each standing for its long form when
 * the command has that option: -o --output, -j --jobs, -n --name, -v
 * --verbose, and -h --help for every command. */
static const char *const short_map[][2] = {
    {"-o", "--output"}, {"-j", "--jobs"}, {"-n", "--name"}, {"-v", "--verbose"}, {"-h", "--help"}};

/* --help's option texts start at most at column 26 (the knobs', after "  "
 * and a 23-wide flag column) and wrap to 79 columns, to fit an 80-column
 * terminal. */
enum { HELP_COL = 26, HELP_WIDTH = 79 };

/* One --help entry: the flag, then text word-wrapped from column tcol; a
 * flag too wide for its column puts the text on the next line. */
static void help_entry(FILE *fp, int tcol, const char *flag, const char *text)
{
    int col = 2 + (int)strlen(flag);
    fprintf(fp, "  %s", flag);
    if (col >= tcol) {
        fputc('\n', fp);
        col = 0;
    }
    fprintf(fp, "%*s", tcol - col, "");
    col = tcol;
    const char *w = text + strspn(text, " ");
    while (*w) {
        int len = (int)strcspn(w, " ");
        if (col > tcol && col + 1 + len > HELP_WIDTH) {
            fprintf(fp, "\n%*s", tcol, "");
            col = tcol;
        } else if (col > tcol) {
            fputc(' ', fp);
            col++;
        }
        fwrite(w, 1, (size_t)len, fp);
        col += len;
        w += len + strspn(w + len, " ");
    }
    fputc('\n', fp);
}

void elk_cli_knob_help(FILE *fp)
{
    fprintf(fp, "Design point (override any preset value):\n");
    help_entry(fp, HELP_COL, "--chip FILE|NAME", "chip preset (default ipu-pod4)");
    help_entry(fp, HELP_COL, "--model FILE|NAME", "model preset (default llama2-13b)");
    help_entry(fp, HELP_COL, "--workload W", "decode | train-fwd | prefill (default decode)");
    help_entry(fp, HELP_COL, "--point FILE", "a saved design point (elk tui 'w'); later flags override it");
    for (int k = 0; k < ELK_KNOB_COUNT; k++) {
        const elk_knob_info *ki = &elk_knobs[k];
        if (k == ELK_KNOB_MODEL || k == ELK_KNOB_CHIP || k == ELK_KNOB_WORKLOAD) continue;
        if (k == ELK_KNOB_PROFILE) {
            /* the switch table's names */
            char text[512];
            size_t l = (size_t)snprintf(text, sizeof text,
                                        "cost profile: paper | physical, each optionally followed by +switch / -switch (");
            for (int w = 0; w < ELK_PSW_COUNT && l < sizeof text; w++)
                l += (size_t)snprintf(text + l, sizeof text - l, "%s%s", w ? ", " : "", elk_profile_switch_names[w]);
            if (l < sizeof text)
                snprintf(text + l, sizeof text - l, "); default: the chip preset's (docs/VALIDATION.md, Cost profiles)");
            help_entry(fp, HELP_COL, "--profile P", text);
            continue;
        }
        char flag[64], text[128];
        snprintf(flag, sizeof flag, "--%s %s", ki->name, ki->is_int == 2 ? "WORD" : ki->is_int ? "N" : "X");
        snprintf(text, sizeof text, "%s%s%s%s", ki->label, *ki->unit ? " (" : "", ki->unit, *ki->unit ? ")" : "");
        help_entry(fp, HELP_COL, flag, text);
    }
}

/* The flag column of an option: "-o, --output FILE", "--ops". */
static void opt_flag(const elk_opt *o, char *flag, size_t size, const char **text)
{
    const char *tab = o->help ? strchr(o->help, '\t') : NULL;
    /* a value without a name in help would print as a flag */
    assert(!o->has_arg == !tab);
    int n = 0;
    for (size_t k = 0; k < sizeof short_map / sizeof short_map[0]; k++)
        if (!strcmp(short_map[k][1] + 2, o->name)) n = snprintf(flag, size, "%s, ", short_map[k][0]);
    n += snprintf(flag + n, size - (size_t)n, "--%s", o->name);
    if (tab) snprintf(flag + n, size - (size_t)n, " %.*s", (int)(tab - o->help), o->help);
    *text = tab ? tab + 1 : o->help;
}

void elk_cli_opts_help(FILE *fp, const elk_opt *opts)
{
    char flag[96];
    const char *text;
    /* one text column for the table: two blanks after its widest flag that fits */
    int tcol = 0;
    for (const elk_opt *o = opts; o && o->name; o++) {
        if (!o->help) continue;
        opt_flag(o, flag, sizeof flag, &text);
        int w = 2 + (int)strlen(flag) + 2;
        if (w <= HELP_COL && w > tcol) tcol = w;
    }
    if (!tcol) tcol = HELP_COL;
    for (const elk_opt *o = opts; o && o->name; o++) {
        if (!o->help) continue;
        opt_flag(o, flag, sizeof flag, &text);
        help_entry(fp, tcol, flag, text);
    }
}

int elk_cli_problem(const elk_point *p, elk_plan_cache **pc, elk_problem *pr)
{
    elk_error err;
    *pc = elk_plan_cache_alloc();
    if (!*pc) {
        elk_cli_error("out of memory");
        return ELK_EXIT_FAIL;
    }
    if (elk_problem_init(pr, p, *pc, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        elk_plan_cache_free(*pc);
        *pc = NULL;
        return ELK_EXIT_FAIL;
    }
    return 0;
}

static const char *short_form(const char *a, const elk_opt *opts)
{
    for (size_t k = 0; k < sizeof short_map / sizeof short_map[0]; k++) {
        if (strcmp(a, short_map[k][0])) continue;
        if (!strcmp(short_map[k][1], "--help")) return short_map[k][1];
        for (int o = 0; opts && opts[o].name; o++)
            if (!strcmp(opts[o].name, short_map[k][1] + 2)) return short_map[k][1];
    }
    return a;
}

int elk_cli_parse(int argc, char **argv, int first, elk_point *p, const elk_opt *opts,
                  const char **pos, int max_pos, int *npos, const char *cmd)
{
    *npos = 0;
    for (int i = first; i < argc; i++) {
        const char *a = short_form(argv[i], opts), *attached = NULL;
        /* a short option with its value attached, as getopt takes it: -j2 */
        if (a == argv[i] && a[0] == '-' && a[1] && a[1] != '-' && a[2]) {
            char two[3] = {a[0], a[1], '\0'};
            const char *l = short_form(two, opts);
            if (l != two) {
                a = l;
                attached = argv[i] + 2;
            }
        }
        if (strncmp(a, "--", 2) != 0 || !a[2]) {
            if (*npos >= max_pos) {
                elk_cli_error("%s: unexpected argument '%s' (see 'elk %s --help')", cmd, a, cmd);
                return ELK_EXIT_USAGE;
            }
            pos[(*npos)++] = a;
            continue;
        }
        char name[64];
        const char *eq = strchr(a + 2, '=');
        size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        if (len >= sizeof name) len = sizeof name - 1;
        memcpy(name, a + 2, len);
        name[len] = '\0';
        const char *val = eq ? eq + 1 : attached;

        const elk_opt *o = NULL;
        for (int k = 0; opts && opts[k].name; k++)
            if (strcmp(opts[k].name, name) == 0) o = &opts[k];
        int knob = p ? elk_knob_find(name) : -1;
        int point_file = p && !o && !strcmp(name, "point");
        if (!o && knob < 0 && !point_file) {
            elk_cli_error("%s: unknown option '--%s' (see 'elk %s --help')", cmd, name, cmd);
            return ELK_EXIT_USAGE;
        }
        int needs = o ? o->has_arg : 1;
        if (needs && !val) {
            if (i + 1 >= argc) {
                elk_cli_error("%s: option '--%s' needs a value", cmd, name);
                return ELK_EXIT_USAGE;
            }
            val = argv[++i];
        }
        if (!needs && val) {
            elk_cli_error("%s: option '--%s' takes no value", cmd, name);
            return ELK_EXIT_USAGE;
        }
        if (o) {
            if (o->value) *o->value = val;
            if (o->flag) *o->flag = 1;
            continue;
        }
        elk_error err;
        if (point_file) {
            /* a saved design point; flags after it override its knobs */
            if (elk_point_load(val, p, &err) != ELK_OK) {
                elk_cli_error("%s", err.msg);
                return ELK_EXIT_FAIL;
            }
            continue;
        }
        if (elk_point_set(p, (elk_knob)knob, val, &err) != ELK_OK) {
            elk_cli_error("%s", err.msg);
            return ELK_EXIT_USAGE;
        }
    }
    /* a folder given as a preset would reach libconfig as "file I/O error" */
    struct stat st;
    if (p && stat(p->chip_path, &st) == 0 && S_ISDIR(st.st_mode)) {
        elk_cli_error("--chip %s: is a directory, not a chip preset", p->chip_path);
        return ELK_EXIT_FAIL;
    }
    if (p && stat(p->model_path, &st) == 0 && S_ISDIR(st.st_mode)) {
        elk_cli_error("--model %s: is a directory, not a model preset", p->model_path);
        return ELK_EXIT_FAIL;
    }
    return 0;
}

int elk_cli_out_open(elk_file *f, const char *path)
{
    elk_error err;
    if (elk_file_open(f, path ? path : "-", &err) == ELK_OK) return 0;
    elk_cli_error("%s", err.msg);
    return ELK_EXIT_FAIL;
}

int elk_cli_out_close(elk_file *f, int rc)
{
    if (rc) {
        elk_file_abort(f);
        return rc;
    }
    elk_error err;
    if (elk_file_commit(f, &err) == ELK_OK) return 0;
    elk_cli_error("%s", err.msg);
    return ELK_EXIT_FAIL;
}

int elk_cli_policy(const char *cmd, const char *s, elk_policy *out)
{
    int pol = elk_policy_find(s);
    if (pol >= 0) {
        *out = (elk_policy)pol;
        return 0;
    }
    elk_cli_error("%s: --policy %s: expected basic, static, elk-dyn, elk-full or ideal", cmd, s);
    return ELK_EXIT_USAGE;
}

int elk_cli_table_or_csv(const char *cmd, const char *s, int *csv)
{
    *csv = !strcmp(s, "csv");
    if (*csv || !strcmp(s, "table")) return 0;
    elk_cli_error("%s: --format %s: expected table or csv", cmd, s);
    return ELK_EXIT_USAGE;
}

int elk_cli_resolve(const elk_point *p, elk_chip *c, elk_model *m)
{
    elk_error err;
    if (elk_point_resolve(p, c, m, &err) == ELK_OK) return 0;
    elk_cli_error("%s", err.msg);
    return ELK_EXIT_FAIL;
}
