#include "elk_sweep.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "elk_cfg.h"
#include "elk_csv.h"
#include "elk_thread.h"

const char *const elk_fig_kind_names[] = {"lines", "bars", "breakdown", "util", "roofline", "pareto", NULL};

/* Metric indices; the first ten are always written (in this order). */
enum {
    M_LATENCY, M_PCT_IDEAL, M_EXEC, M_OVERLAP, M_PRELOAD, M_NOC, M_DIST, M_HBM_UTIL, M_NOC_UTIL, M_TFLOPS,
    M_NOC_PRE_UTIL, M_NOC_EXE_UTIL, M_LATENCY_CYCLES, M_PEAK_RESIDENT, M_STATIC_EXEC, M_STATIC_VARIANT,
    M_ORDERS_TRIED, M_AVG_EDIT, M_OPS, M_GFLOP, M_HBM_GB, M_WEIGHT_GB, M_KV_GB, M_INTENSITY, M_PEAK_MM,
    M_PEAK_VEC, M_NOC_DEMAND, M_ADOPTED, M_COUNT
};

const elk_sweep_metric_info elk_sweep_metrics[] = {
    [M_LATENCY] = {"latency_ms", "per-token (per-step) latency, ms", 1},
    [M_PCT_IDEAL] = {"pct_ideal", "Ideal latency / latency, percent", 1},
    [M_EXEC] = {"exec_ms", "breakdown: cores execute, HBM idle, ms", 1},
    [M_OVERLAP] = {"overlap_ms", "breakdown: execution overlapped with HBM streaming, ms", 1},
    [M_PRELOAD] = {"preload_ms", "breakdown: cores wait on HBM, ms", 1},
    [M_NOC] = {"noc_stall_ms", "breakdown: cores wait on the interconnect, ms", 1},
    [M_DIST] = {"dist_ms", "breakdown: data distribution, ms", 1},
    [M_HBM_UTIL] = {"hbm_util", "time HBM streams at full rate / latency, fraction 0..1", 1},
    [M_NOC_UTIL] = {"noc_util", "bytes the NoC ports carry / (port capacity x latency), fraction 0..1", 1},
    [M_TFLOPS] = {"tflops", "model FLOPs / latency, TFLOP/s (1e12)", 1},
    [M_NOC_PRE_UTIL] = {"noc_pre_util", "preload part of noc_util, fraction", 0},
    [M_NOC_EXE_UTIL] = {"noc_exe_util", "execution part of noc_util, fraction", 0},
    [M_LATENCY_CYCLES] = {"latency_cycles", "latency in chip cycles", 0},
    [M_PEAK_RESIDENT] = {"peak_resident_kib", "most SRAM per core in use at once, KiB", 0},
    [M_STATIC_EXEC] = {"static_exec_kib", "Static: chosen execution region, KiB (empty for others)", 0},
    [M_STATIC_VARIANT] = {"static_variant", "Basic/Static: 0 distributed, 1 replicated preloads", 0},
    [M_ORDERS_TRIED] = {"orders_tried", "Elk-Full: preload orders scheduled", 0},
    [M_AVG_EDIT] = {"avg_edit_dist", "Elk-Full: mean displacement of the winning order, ops", 0},
    [M_OPS] = {"ops", "operators in the graph", 0},
    [M_GFLOP] = {"gflop", "model FLOPs per step, GFLOP (1e9)", 0},
    [M_HBM_GB] = {"hbm_gb", "bytes read from HBM per step (weights + KV), GB (1e9)", 0},
    [M_WEIGHT_GB] = {"weight_gb", "weight bytes per step, GB", 0},
    [M_KV_GB] = {"kv_gb", "KV-cache bytes per step, GB", 0},
    [M_INTENSITY] = {"intensity_flop_per_byte", "FLOPs per HBM byte", 0},
    [M_PEAK_MM] = {"peak_matmul_tflops", "chip MatMul peak after compute-scale, TFLOP/s", 0},
    [M_PEAK_VEC] = {"peak_vector_tflops", "chip vector peak after compute-scale, TFLOP/s", 0},
    [M_NOC_DEMAND] = {"noc_demand", "bytes asked of the NoC ports / (capacity x latency); above 1 the estimate is optimistic", 0},
    [M_ADOPTED] = {"adopted", "Elk-Full: policy whose schedule it kept (-1: its own order search)", 0},
};
const int elk_sweep_nmetrics = M_COUNT;

/* ------------------------------------------------------------------ */
/* Loading                                                              */

typedef struct {
    const char *file;
    elk_error *err;
} ctx_t;

static const char *type_name(int t)
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

static int line_of(const config_setting_t *s) { return config_setting_source_line(s); }

static elk_status unknown(ctx_t *c, const config_setting_t *s, const char *path, const char *const *known)
{
    char k[512] = "";
    size_t l = 0;
    for (int i = 0; known[i]; i++) {
        int w = snprintf(k + l, sizeof k - l, "%s%s", i ? ", " : "", known[i]);
        if (w < 0 || (size_t)w >= sizeof k - l) break;
        l += (size_t)w;
    }
    return elk_fail(c->err, ELK_EUNKNOWN, "%s:%d: unknown field '%s' (known fields: %s)", c->file, line_of(s), path, k);
}

static elk_status expect_type(ctx_t *c, const config_setting_t *s, const char *path, int t1, int t2, const char *what)
{
    int t = config_setting_type(s);
    if (t == t1 || t == t2) return ELK_OK;
    return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s': expected %s, found %s", c->file, line_of(s), path, what,
                    type_name(t));
}

static int is_num(const config_setting_t *s)
{
    int t = config_setting_type(s);
    return t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64 || t == CONFIG_TYPE_FLOAT;
}

static double num_of(const config_setting_t *s)
{
    switch (config_setting_type(s)) {
    case CONFIG_TYPE_INT: return config_setting_get_int(s);
    case CONFIG_TYPE_INT64: return (double)config_setting_get_int64(s);
    default: return config_setting_get_float(s);
    }
}

static void fmt_g(char *b, size_t n, double v)
{
    if (v == floor(v) && fabs(v) < 1e15) snprintf(b, n, "%.0f", v);
    else snprintf(b, n, "%g", v);
}

/* Check a numeric value for a knob; message names file:line and the path. */
static elk_status check_knob_num(ctx_t *c, int line, const char *path, elk_knob k, double v)
{
    const elk_knob_info *ki = &elk_knobs[k];
    if (!(v >= ki->min && v <= ki->max)) {
        char a[32], lo[32], hi[32];
        fmt_g(a, sizeof a, v);
        fmt_g(lo, sizeof lo, ki->min);
        fmt_g(hi, sizeof hi, ki->max);
        return elk_fail(c->err, ELK_ERANGE, "%s:%d: field '%s': value %s out of range for %s (allowed %s .. %s%s%s)",
                        c->file, line, path, a, ki->name, lo, hi, *ki->unit ? " " : "", ki->unit);
    }
    if (ki->is_int == 1 && v != floor(v))
        return elk_fail(c->err, ELK_ERANGE, "%s:%d: field '%s': %s takes an integer, not %g", c->file, line, path,
                        ki->name, v);
    return ELK_OK;
}

/* Apply a word value (model, chip, topology, workload) with a located error;
 * presets must exist and load. */
static elk_status set_word(ctx_t *c, int line, const char *path, elk_point *p, elk_knob k, const char *v)
{
    elk_error e;
    if (elk_point_set(p, k, v, &e) != ELK_OK)
        return elk_fail(c->err, ELK_ERANGE, "%s:%d: field '%s': %s", c->file, line, path, e.msg);
    if (k == ELK_KNOB_MODEL || k == ELK_KNOB_CHIP) {
        const char *fp = k == ELK_KNOB_MODEL ? p->model_path : p->chip_path;
        FILE *f = fopen(fp, "r");
        if (!f)
            return elk_fail(c->err, ELK_EIO, "%s:%d: field '%s': %s preset \"%s\" not found (looked for %s)", c->file,
                            line, path, elk_knobs[k].name, v, fp);
        fclose(f);
        elk_status st;
        if (k == ELK_KNOB_MODEL) {
            elk_model m;
            st = elk_model_load(fp, &m, &e);
        } else {
            elk_chip ch;
            st = elk_chip_load(fp, &ch, &e);
        }
        if (st != ELK_OK)
            return elk_fail(c->err, st, "%s:%d: field '%s': %s preset \"%s\" is invalid: %s", c->file, line, path,
                            elk_knobs[k].name, v, e.msg);
    }
    return ELK_OK;
}

/* base = { knob = value; ... } applied onto p. */
static elk_status parse_base(ctx_t *c, const config_setting_t *g, const char *prefix, elk_point *p)
{
    ELK_TRY(expect_type(c, g, prefix, CONFIG_TYPE_GROUP, CONFIG_TYPE_GROUP, "a group { knob = value; ... }"));
    int n = config_setting_length(g);
    int seen_hbm = 0, seen_hbmpc = 0, seen_noc = 0, seen_nocs = 0;
    for (int i = 0; i < n; i++) {
        const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
        const char *name = config_setting_name(s);
        char path[256];
        snprintf(path, sizeof path, "%s.%s", prefix, name);
        int k = elk_knob_find(name);
        if (k < 0) {
            return elk_fail(c->err, ELK_EUNKNOWN, "%s:%d: unknown knob '%s' in '%s' (knobs: %s%s)", c->file,
                            line_of(s), name, prefix, "hbm-tbps, noc-tbps, noc-scale, link-gbps, cores, topology, ",
                            "sram-kib, compute-scale, hbm-controllers, hbm-broadcast, hbm-gbps-per-core, batch, seq, "
                            "layers, model, chip, workload, profile");
        }
        const elk_knob_info *ki = &elk_knobs[k];
        if (ki->is_int == 2) {
            ELK_TRY(expect_type(c, s, path, CONFIG_TYPE_STRING, CONFIG_TYPE_STRING, "a string"));
            ELK_TRY(set_word(c, line_of(s), path, p, (elk_knob)k, config_setting_get_string(s)));
            continue;
        }
        double v;
        if (k == ELK_KNOB_HBM_BROADCAST && config_setting_type(s) == CONFIG_TYPE_BOOL) {
            v = config_setting_get_bool(s);
        } else {
            if (!is_num(s))
                return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s': expected a number%s%s, found %s", c->file,
                                line_of(s), path, *ki->unit ? " in " : "", ki->unit, type_name(config_setting_type(s)));
            v = num_of(s);
        }
        ELK_TRY(check_knob_num(c, line_of(s), path, (elk_knob)k, v));
        elk_error e;
        if (elk_point_set_num(p, (elk_knob)k, v, &e) != ELK_OK)
            return elk_fail(c->err, ELK_ERANGE, "%s:%d: field '%s': %s", c->file, line_of(s), path, e.msg);
        seen_hbm |= k == ELK_KNOB_HBM_TBPS;
        seen_hbmpc |= k == ELK_KNOB_HBM_GBPS_PER_CORE;
        seen_noc |= k == ELK_KNOB_NOC_TBPS;
        seen_nocs |= k == ELK_KNOB_NOC_SCALE;
        if ((seen_hbm && seen_hbmpc) || (seen_noc && seen_nocs))
            return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s': set only one of %s", c->file, line_of(s), path,
                            seen_hbm && seen_hbmpc ? "hbm-tbps and hbm-gbps-per-core" : "noc-tbps and noc-scale");
    }
    return ELK_OK;
}

static void axis_free(elk_sweep_axis *a)
{
    if (a->word)
        for (int i = 0; i < a->n; i++) free(a->word[i]);
    free(a->word);
    free(a->num);
    memset(a, 0, sizeof *a);
}

static void block_free(elk_sweep_block *b)
{
    for (int i = 0; i < b->naxes; i++) axis_free(&b->axis[i]);
    b->naxes = 0;
}

/* One axis group: { knob = "..."; values = [...]; } or from/to/step. */
static elk_status parse_axis(ctx_t *c, const config_setting_t *g, const char *prefix, elk_sweep_axis *a)
{
    static const char *const known[] = {"knob", "values", "from", "to", "step", NULL};
    ELK_TRY(expect_type(c, g, prefix, CONFIG_TYPE_GROUP, CONFIG_TYPE_GROUP,
                        "a group { knob = \"...\"; values = [...]; }"));
    memset(a, 0, sizeof *a);
    a->line = line_of(g);
    const config_setting_t *knob = NULL, *values = NULL, *from = NULL, *to = NULL, *step = NULL;
    int n = config_setting_length(g);
    for (int i = 0; i < n; i++) {
        const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
        const char *name = config_setting_name(s);
        char path[256];
        snprintf(path, sizeof path, "%s.%s", prefix, name);
        if (!strcmp(name, "knob")) knob = s;
        else if (!strcmp(name, "values")) values = s;
        else if (!strcmp(name, "from")) from = s;
        else if (!strcmp(name, "to")) to = s;
        else if (!strcmp(name, "step")) step = s;
        else return unknown(c, s, path, known);
    }
    char path[256];
    if (!knob)
        return elk_fail(c->err, ELK_EMISSING, "%s:%d: missing required field '%s.knob' (a string)", c->file, a->line,
                        prefix);
    snprintf(path, sizeof path, "%s.knob", prefix);
    ELK_TRY(expect_type(c, knob, path, CONFIG_TYPE_STRING, CONFIG_TYPE_STRING, "a string"));
    int k = elk_knob_find(config_setting_get_string(knob));
    if (k < 0)
        return elk_fail(c->err, ELK_ERANGE,
                        "%s:%d: field '%s': \"%s\" is not a knob (knobs: hbm-tbps, noc-tbps, noc-scale, link-gbps, "
                        "cores, topology, sram-kib, compute-scale, hbm-controllers, hbm-broadcast, hbm-gbps-per-core, "
                        "batch, seq, layers, model, chip, workload)",
                        c->file, line_of(knob), path, config_setting_get_string(knob));
    a->knob = (elk_knob)k;
    a->line = line_of(knob);
    const elk_knob_info *ki = &elk_knobs[k];
    int range = from || to || step;
    if (values && range)
        return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s': give either 'values' or 'from'/'to'/'step', not both",
                        c->file, line_of(values), prefix);
    if (!values && !range)
        return elk_fail(c->err, ELK_EMISSING,
                        "%s:%d: missing required field '%s.values' (an array, or 'from', 'to' and 'step')", c->file,
                        a->line, prefix);
    if (range) {
        if (ki->is_int == 2)
            return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s': %s takes words; list them in 'values'", c->file,
                            a->line, prefix, ki->name);
        const config_setting_t *r[3] = {from, to, step};
        const char *rn[3] = {"from", "to", "step"};
        double rv[3];
        for (int i = 0; i < 3; i++) {
            snprintf(path, sizeof path, "%s.%s", prefix, rn[i]);
            if (!r[i])
                return elk_fail(c->err, ELK_EMISSING, "%s:%d: missing required field '%s' (a number)", c->file,
                                a->line, path);
            if (!is_num(r[i]))
                return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s': expected a number, found %s", c->file,
                                line_of(r[i]), path, type_name(config_setting_type(r[i])));
            rv[i] = num_of(r[i]);
        }
        snprintf(path, sizeof path, "%s.step", prefix);
        if (!(rv[2] > 0))
            return elk_fail(c->err, ELK_ERANGE, "%s:%d: field '%s': step must be positive", c->file, line_of(step),
                            path);
        snprintf(path, sizeof path, "%s.to", prefix);
        if (rv[1] < rv[0])
            return elk_fail(c->err, ELK_ERANGE, "%s:%d: field '%s': 'to' (%g) is below 'from' (%g)", c->file,
                            line_of(to), path, rv[1], rv[0]);
        double cnt = floor((rv[1] - rv[0]) / rv[2] + 1e-9) + 1;
        if (cnt > 100000)
            return elk_fail(c->err, ELK_ERANGE, "%s:%d: field '%s': %g values is too many (at most 100000)", c->file,
                            line_of(step), prefix, cnt);
        a->n = (int)cnt;
        a->num = malloc(sizeof *a->num * (size_t)a->n);
        if (!a->num) return elk_fail(c->err, ELK_ENOMEM, "out of memory");
        for (int i = 0; i < a->n; i++) {
            double v = rv[0] + i * rv[2];
            /* 0.1-style steps: the double nearest the 12-digit decimal, so
             * values equal the ones typed in a values list */
            char dec[40];
            snprintf(dec, sizeof dec, "%.12g", v);
            v = strtod(dec, NULL);
            a->num[i] = v;
            ELK_TRY(check_knob_num(c, line_of(from), prefix, a->knob, v));
        }
        return ELK_OK;
    }
    snprintf(path, sizeof path, "%s.values", prefix);
    int t = config_setting_type(values);
    if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
        return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s': expected an array [ ... ], found %s", c->file,
                        line_of(values), path, type_name(t));
    a->n = config_setting_length(values);
    if (a->n == 0)
        return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s': empty; give at least one value", c->file,
                        line_of(values), path);
    if (ki->is_int == 2) a->word = calloc((size_t)a->n, sizeof *a->word);
    else a->num = malloc(sizeof *a->num * (size_t)a->n);
    if (!a->word && !a->num) return elk_fail(c->err, ELK_ENOMEM, "out of memory");
    for (int i = 0; i < a->n; i++) {
        const config_setting_t *v = config_setting_get_elem(values, (unsigned)i);
        char ep[288];
        snprintf(ep, sizeof ep, "%s.[%d]", path, i);
        int line = line_of(v) ? line_of(v) : line_of(values);
        if (ki->is_int == 2) {
            if (config_setting_type(v) != CONFIG_TYPE_STRING)
                return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s': %s takes words (strings), found %s", c->file,
                                line, ep, ki->name, type_name(config_setting_type(v)));
            elk_point scratch;
            elk_point_defaults(&scratch);
            ELK_TRY(set_word(c, line, ep, &scratch, a->knob, config_setting_get_string(v)));
            a->word[i] = strdup(config_setting_get_string(v));
            if (!a->word[i]) return elk_fail(c->err, ELK_ENOMEM, "out of memory");
        } else {
            double x;
            if (a->knob == ELK_KNOB_HBM_BROADCAST && config_setting_type(v) == CONFIG_TYPE_BOOL)
                x = config_setting_get_bool(v);
            else if (is_num(v))
                x = num_of(v);
            else
                return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s': expected a number%s%s, found %s", c->file,
                                line, ep, *ki->unit ? " in " : "", ki->unit, type_name(config_setting_type(v)));
            ELK_TRY(check_knob_num(c, line, ep, a->knob, x));
            a->num[i] = x;
        }
    }
    return ELK_OK;
}

static elk_status parse_axes(ctx_t *c, const config_setting_t *l, const char *prefix, elk_sweep_block *b)
{
    ELK_TRY(expect_type(c, l, prefix, CONFIG_TYPE_LIST, CONFIG_TYPE_LIST, "a list ( { knob = ...; }, ... )"));
    int n = config_setting_length(l);
    if (n > ELK_SWEEP_MAX_AXES)
        return elk_fail(c->err, ELK_ERANGE, "%s:%d: field '%s': %d axes, at most %d", c->file, line_of(l), prefix, n,
                        ELK_SWEEP_MAX_AXES);
    for (int i = 0; i < n; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s.[%d]", prefix, i);
        b->naxes++; /* counted first, so a half-parsed axis is freed too */
        ELK_TRY(parse_axis(c, config_setting_get_elem(l, (unsigned)i), path, &b->axis[b->naxes - 1]));
        for (int j = 0; j < b->naxes - 1; j++)
            if (b->axis[j].knob == b->axis[b->naxes - 1].knob)
                return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s.knob': %s is already an axis (line %d)", c->file,
                                b->axis[b->naxes - 1].line, path, elk_knobs[b->axis[j].knob].name, b->axis[j].line);
    }
    return ELK_OK;
}

static elk_status block_count(ctx_t *c, elk_sweep_block *b, const char *prefix)
{
    b->count = 1;
    if (b->zip && b->naxes > 0) {
        b->count = b->axis[0].n;
        for (int i = 1; i < b->naxes; i++)
            if (b->axis[i].n != b->axis[0].n)
                return elk_fail(c->err, ELK_EFIELD,
                                "%s:%d: field '%s.[%d]': mode \"zip\" needs axes of equal length; %s has %d values, "
                                "%s has %d",
                                c->file, b->axis[i].line, prefix, i, elk_knobs[b->axis[0].knob].name, b->axis[0].n,
                                elk_knobs[b->axis[i].knob].name, b->axis[i].n);
        return ELK_OK;
    }
    for (int i = 0; i < b->naxes; i++) {
        b->count *= b->axis[i].n;
        if (b->count > 10000000)
            return elk_fail(c->err, ELK_ERANGE, "%s:%d: field '%s': more than 10 million points", c->file,
                            b->axis[i].line, prefix);
    }
    return ELK_OK;
}

static elk_status parse_mode(ctx_t *c, const config_setting_t *s, const char *path, int *zip)
{
    ELK_TRY(expect_type(c, s, path, CONFIG_TYPE_STRING, CONFIG_TYPE_STRING, "\"cross\" or \"zip\""));
    const char *v = config_setting_get_string(s);
    if (!strcmp(v, "cross")) *zip = 0;
    else if (!strcmp(v, "zip")) *zip = 1;
    else
        return elk_fail(c->err, ELK_ERANGE, "%s:%d: field '%s': \"%s\" is not one of \"cross\", \"zip\"", c->file,
                        line_of(s), path, v);
    return ELK_OK;
}

static elk_status get_string(ctx_t *c, const config_setting_t *s, const char *path, char *dst, size_t n)
{
    ELK_TRY(expect_type(c, s, path, CONFIG_TYPE_STRING, CONFIG_TYPE_STRING, "a string"));
    const char *v = config_setting_get_string(s);
    if (strlen(v) >= n)
        return elk_fail(c->err, ELK_ERANGE, "%s:%d: field '%s': longer than %zu characters", c->file, line_of(s), path,
                        n - 1);
    memcpy(dst, v, strlen(v) + 1);
    return ELK_OK;
}

static elk_status check_name(ctx_t *c, const config_setting_t *s, const char *path, const char *v)
{
    if (!*v) return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s': empty", c->file, line_of(s), path);
    for (const char *p = v; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' ||
              *p == '_' || *p == '.'))
            return elk_fail(c->err, ELK_EFIELD,
                            "%s:%d: field '%s': \"%s\" may hold only letters, digits, '-', '_' and '.'", c->file,
                            line_of(s), path, v);
    return ELK_OK;
}

/* parts = ( { name; base; axes; mode; }, ... ) */
static elk_status parse_part(ctx_t *c, const config_setting_t *g, const char *prefix, elk_sweep *s, int pi)
{
    static const char *const known[] = {"name", "base", "axes", "mode", NULL};
    ELK_TRY(expect_type(c, g, prefix, CONFIG_TYPE_GROUP, CONFIG_TYPE_GROUP, "a group { name = ...; axes = ...; }"));
    elk_sweep_part *p = &s->part[pi];
    p->base = s->base;
    snprintf(p->name, sizeof p->name, "part%d", pi);
    const config_setting_t *name = NULL, *base = NULL, *axes = NULL, *mode = NULL;
    int n = config_setting_length(g);
    for (int i = 0; i < n; i++) {
        const config_setting_t *e = config_setting_get_elem(g, (unsigned)i);
        const char *nm = config_setting_name(e);
        char path[256];
        snprintf(path, sizeof path, "%s.%s", prefix, nm);
        if (!strcmp(nm, "name")) name = e;
        else if (!strcmp(nm, "base")) base = e;
        else if (!strcmp(nm, "axes")) axes = e;
        else if (!strcmp(nm, "mode")) mode = e;
        else return unknown(c, e, path, known);
    }
    char path[256];
    if (name) {
        snprintf(path, sizeof path, "%s.name", prefix);
        ELK_TRY(get_string(c, name, path, p->name, sizeof p->name));
        ELK_TRY(check_name(c, name, path, p->name));
        for (int j = 0; j < pi; j++)
            if (!strcmp(s->part[j].name, p->name))
                return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s': part \"%s\" is defined twice", c->file,
                                line_of(name), path, p->name);
    }
    if (base) {
        snprintf(path, sizeof path, "%s.base", prefix);
        ELK_TRY(parse_base(c, base, path, &p->base));
        for (int i = 0; i < config_setting_length(base); i++) {
            const config_setting_t *e = config_setting_get_elem(base, (unsigned)i);
            int k = elk_knob_find(config_setting_name(e));
            for (int a = 0; a < s->top.naxes; a++)
                if ((int)s->top.axis[a].knob == k)
                    return elk_fail(c->err, ELK_EFIELD,
                                    "%s:%d: field '%s.%s': %s is a top-level axis (line %d); a part cannot fix it",
                                    c->file, line_of(e), path, elk_knobs[k].name, elk_knobs[k].name,
                                    s->top.axis[a].line);
        }
    }
    if (mode) {
        snprintf(path, sizeof path, "%s.mode", prefix);
        ELK_TRY(parse_mode(c, mode, path, &p->block.zip));
    }
    if (axes) {
        snprintf(path, sizeof path, "%s.axes", prefix);
        ELK_TRY(parse_axes(c, axes, path, &p->block));
        for (int i = 0; i < p->block.naxes; i++)
            for (int a = 0; a < s->top.naxes; a++)
                if (s->top.axis[a].knob == p->block.axis[i].knob)
                    return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s.[%d].knob': %s is already a top-level axis",
                                    c->file, p->block.axis[i].line, path, i, elk_knobs[p->block.axis[i].knob].name);
        ELK_TRY(block_count(c, &p->block, path));
    } else {
        p->block.count = 1;
    }
    return ELK_OK;
}

static int knob_col_name(elk_knob k, char *buf, size_t n)
{
    snprintf(buf, n, "%s", elk_knobs[k].name);
    for (char *p = buf; *p; p++)
        if (*p == '-') *p = '_';
    return 0;
}

static int find_col(const elk_sweep *s, const char *name)
{
    for (int i = 0; i < s->ncols; i++)
        if (!strcmp(s->cols[i].name, name)) return i;
    return -1;
}

static int add_col(elk_sweep *s, elk_col_kind kind, int id, const char *name)
{
    if (find_col(s, name) >= 0 || s->ncols >= ELK_SWEEP_MAX_COLS) return -1;
    elk_sweep_col *c = &s->cols[s->ncols++];
    c->kind = kind;
    c->id = id;
    snprintf(c->name, sizeof c->name, "%s", name);
    return 0;
}

static void add_knob_col(elk_sweep *s, elk_knob k)
{
    char nm[48];
    knob_col_name(k, nm, sizeof nm);
    add_col(s, ELK_COL_KNOB, k, nm);
}

static void build_columns(elk_sweep *s)
{
    s->ncols = 0;
    add_col(s, ELK_COL_POINT, 0, "point");
    if (s->named_parts) add_col(s, ELK_COL_PART, 0, "part");
    for (int a = 0; a < s->top.naxes; a++) add_knob_col(s, s->top.axis[a].knob);
    for (int p = 0; p < s->nparts; p++)
        for (int a = 0; a < s->part[p].block.naxes; a++) add_knob_col(s, s->part[p].block.axis[a].knob);
    static const elk_knob ctx[] = {ELK_KNOB_MODEL,   ELK_KNOB_CHIP,  ELK_KNOB_TOPOLOGY, ELK_KNOB_CORES,
                                   ELK_KNOB_BATCH,   ELK_KNOB_SEQ,   ELK_KNOB_PROFILE};
    for (size_t i = 0; i < sizeof ctx / sizeof ctx[0]; i++) add_knob_col(s, ctx[i]);
    add_col(s, ELK_COL_POLICY, 0, "policy");
    add_col(s, ELK_COL_STATUS, 0, "status");
    for (int m = 0; m < M_COUNT; m++)
        if (elk_sweep_metrics[m].always) add_col(s, ELK_COL_METRIC, m, elk_sweep_metrics[m].name);
}

/* Resolve an output name to a column; returns 0, or -1 unknown, -2 duplicate. */
static int add_output(elk_sweep *s, const char *name)
{
    for (int m = 0; m < M_COUNT; m++)
        if (!strcmp(elk_sweep_metrics[m].name, name)) return add_col(s, ELK_COL_METRIC, m, name) ? -2 : 0;
    char nm[64];
    snprintf(nm, sizeof nm, "%s", name);
    for (char *p = nm; *p; p++)
        if (*p == '_') *p = '-';
    int k = elk_knob_find(nm);
    if (k < 0) return -1;
    char cn[48];
    knob_col_name((elk_knob)k, cn, sizeof cn);
    return add_col(s, ELK_COL_KNOB, k, cn) ? -2 : 0;
}

static const elk_field fig_schema[] = {
    {"kind", ELK_F_ENUM, 1, 0, 0, offsetof(elk_sweep_figure, kind), 0, elk_fig_kind_names, NULL, NULL},
    {"x", ELK_F_STRING, 0, 0, 0, offsetof(elk_sweep_figure, x), sizeof(((elk_sweep_figure *)0)->x), NULL, NULL, NULL},
    {"y", ELK_F_STRING, 0, 0, 0, offsetof(elk_sweep_figure, y), sizeof(((elk_sweep_figure *)0)->y), NULL, NULL, NULL},
    {"series", ELK_F_STRING, 0, 0, 0, offsetof(elk_sweep_figure, series), sizeof(((elk_sweep_figure *)0)->series),
     NULL, NULL, NULL},
    {"row", ELK_F_STRING, 0, 0, 0, offsetof(elk_sweep_figure, row), sizeof(((elk_sweep_figure *)0)->row), NULL, NULL,
     NULL},
    {"col", ELK_F_STRING, 0, 0, 0, offsetof(elk_sweep_figure, col), sizeof(((elk_sweep_figure *)0)->col), NULL, NULL,
     NULL},
    {"cluster", ELK_F_STRING, 0, 0, 0, offsetof(elk_sweep_figure, cluster), sizeof(((elk_sweep_figure *)0)->cluster),
     NULL, NULL, NULL},
    {"title", ELK_F_STRING, 0, 0, 0, offsetof(elk_sweep_figure, title), sizeof(((elk_sweep_figure *)0)->title), NULL,
     NULL, NULL},
    {"xlabel", ELK_F_STRING, 0, 0, 0, offsetof(elk_sweep_figure, xlabel), sizeof(((elk_sweep_figure *)0)->xlabel),
     NULL, NULL, NULL},
    {"ylabel", ELK_F_STRING, 0, 0, 0, offsetof(elk_sweep_figure, ylabel), sizeof(((elk_sweep_figure *)0)->ylabel),
     NULL, NULL, NULL},
    {"logx", ELK_F_BOOL, 0, 0, 0, offsetof(elk_sweep_figure, logx), 0, NULL, NULL, NULL},
    {"logy", ELK_F_BOOL, 0, 0, 0, offsetof(elk_sweep_figure, logy), 0, NULL, NULL, NULL},
    ELK_FIELD_END,
};

/* Every column a figure field names must exist. */
static elk_status check_fig_cols(ctx_t *c, elk_sweep *s, const config_setting_t *fig)
{
    struct {
        const char *field;
        char *v;
    } f[] = {{"x", s->fig.x}, {"y", s->fig.y}, {"series", s->fig.series}, {"row", s->fig.row},
             {"col", s->fig.col}, {"cluster", s->fig.cluster}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        char tmp[160];
        snprintf(tmp, sizeof tmp, "%s", f[i].v);
        for (char *sv = NULL, *tok = strtok_r(tmp, " ", &sv); tok; tok = strtok_r(NULL, " ", &sv)) {
            if (find_col(s, tok) >= 0) continue;
            char cols[1024] = "";
            size_t l = 0;
            for (int j = 0; j < s->ncols; j++) {
                int w = snprintf(cols + l, sizeof cols - l, "%s%s", j ? ", " : "", s->cols[j].name);
                if (w < 0 || (size_t)w >= sizeof cols - l) break;
                l += (size_t)w;
            }
            char path[64];
            snprintf(path, sizeof path, "figure.%s", f[i].field);
            return elk_fail(c->err, ELK_EFIELD, "%s:%d: field 'sweep.%s': no column '%s' in this sweep (columns: %s)",
                            c->file, fig ? elk_cfg_line(fig, f[i].field) : 1, path, tok, cols);
        }
    }
    const char *txt[] = {s->fig.title, s->fig.xlabel, s->fig.ylabel};
    const char *tn[] = {"title", "xlabel", "ylabel"};
    for (int i = 0; i < 3; i++)
        if (strpbrk(txt[i], ";\n'\""))
            return elk_fail(c->err, ELK_EFIELD, "%s:%d: field 'sweep.figure.%s': may not contain ';' or quotes",
                            c->file, fig ? elk_cfg_line(fig, tn[i]) : 1, tn[i]);
    return ELK_OK;
}

static void default_figure(elk_sweep *s)
{
    elk_sweep_figure *f = &s->fig;
    if (f->kind < 0) f->kind = ELK_FIG_LINES;
    if (!f->series[0]) snprintf(f->series, sizeof f->series, "policy");
    if (!f->x[0]) {
        /* the innermost numeric axis of the first part, else the point index */
        const elk_sweep_block *b[2] = {&s->part[0].block, &s->top};
        for (int k = 0; k < 2 && !f->x[0]; k++)
            for (int a = b[k]->naxes - 1; a >= 0 && !f->x[0]; a--)
                if (elk_knobs[b[k]->axis[a].knob].is_int != 2) knob_col_name(b[k]->axis[a].knob, f->x, sizeof f->x);
        if (!f->x[0]) snprintf(f->x, sizeof f->x, "point");
    }
    if (!f->y[0]) snprintf(f->y, sizeof f->y, "%s", f->kind == ELK_FIG_ROOFLINE ? "tflops" : "latency_ms");
}

/* A point's knobs as canonical text: the fingerprint of a sweep and the key
 * of the memo. full=0 keeps preset base names only (shards on machines with
 * different install paths still agree). */
static void point_key(const elk_point *p, int full, char *buf, size_t n)
{
    const char *cp = p->chip_path, *mp = p->model_path;
    if (!full) {
        const char *s;
        if ((s = strrchr(cp, '/'))) cp = s + 1;
        if ((s = strrchr(mp, '/'))) mp = s + 1;
    }
    snprintf(buf, n, "%s|%s|%d|%d|%d|%d|%.17g|%.17g|%.17g|%.17g|%.17g|%.17g|%.17g|%d|%d|%d|%d", cp, mp, (int)p->workload,
             p->batch, p->seq, p->layers, p->hbm_tbps, p->noc_tbps, p->noc_scale, p->link_gbps, p->sram_kib,
             p->compute_scale, p->hbm_gbps_per_core, p->cores, p->topology, p->hbm_controllers, p->hbm_broadcast);
}

static unsigned long long fnv(unsigned long long h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h ^ 0xff;
}

static elk_status apply_block(const elk_sweep_block *b, long i, elk_point *p, elk_error *err)
{
    for (int a = b->naxes - 1; a >= 0; a--) {
        const elk_sweep_axis *ax = &b->axis[a];
        assert((ax->num != NULL) != (ax->word != NULL) && ax->n >= 1); /* elk_sweep_axis's invariant */
        long vi;
        if (b->zip) {
            vi = i;
        } else {
            vi = i % ax->n;
            i /= ax->n;
        }
        assert(vi >= 0 && vi < ax->n); /* i < count = the product (cross) or the common length (zip) */
        if (ax->word) ELK_TRY(elk_point_set(p, ax->knob, ax->word[vi], err));
        else ELK_TRY(elk_point_set_num(p, ax->knob, ax->num[vi], err));
    }
    return ELK_OK;
}

elk_status elk_sweep_point(const elk_sweep *s, long idx, elk_point *p, int *part_out, elk_error *err)
{
    if (idx < 0 || idx >= s->npoints)
        return elk_fail(err, ELK_ERANGE, "point %ld out of range (the sweep has %ld)", idx, s->npoints);
    int k = 0;
    while (k + 1 < s->nparts && idx >= s->part[k + 1].first) k++;
    const elk_sweep_part *pt = &s->part[k];
    long local = idx - pt->first;
    *p = pt->base;
    ELK_TRY(apply_block(&s->top, local / pt->block.count, p, err));
    ELK_TRY(apply_block(&pt->block, local % pt->block.count, p, err));
    if (part_out) *part_out = k;
    return ELK_OK;
}

static void describe_point(const elk_sweep *s, long idx, char *buf, size_t n)
{
    elk_point p;
    int part;
    size_t l = 0;
    buf[0] = '\0';
    if (elk_sweep_point(s, idx, &p, &part, NULL) != ELK_OK) return;
    const elk_sweep_block *b[2] = {&s->top, &s->part[part].block};
    for (int k = 0; k < 2; k++)
        for (int a = 0; a < b[k]->naxes; a++) {
            const elk_sweep_axis *ax = &b[k]->axis[a];
            /* recompute the value index the same way apply_block does */
            long local = idx - s->part[part].first;
            long i = k == 0 ? local / s->part[part].block.count : local % s->part[part].block.count;
            long vi = i;
            if (!b[k]->zip) {
                for (int z = b[k]->naxes - 1; z > a; z--) vi /= b[k]->axis[z].n;
                vi %= ax->n;
            }
            char v[64];
            if (ax->word) snprintf(v, sizeof v, "%s", ax->word[vi]);
            else snprintf(v, sizeof v, "%g", ax->num[vi]);
            int w = snprintf(buf + l, n > l ? n - l : 0, "%s%s=%s", l ? ", " : "", elk_knobs[ax->knob].name, v);
            if (w < 0 || l + (size_t)w >= n) return;
            l += (size_t)w;
        }
}

void elk_sweep_free(elk_sweep *s)
{
    block_free(&s->top);
    for (int i = 0; i < s->nparts; i++) block_free(&s->part[i].block);
    s->nparts = 0;
}

/* The presets a sweep's points name, each loaded once: validating a sweep
 * resolves every point, and a 10-million-point sweep names a handful of
 * chip and model files (issue 12: re-reading both per point took 25 min).
 * A failed load is kept too, so its error repeats without a re-read. Owns
 * its arrays; ent[i].path is unique within each array. */
typedef struct {
    char path[1024];
    elk_status st;
    elk_error err;
    elk_chip chip;   /* chips[] only */
    elk_model model; /* models[] only */
} preset_ent;
typedef struct {
    preset_ent *chips, *models;
    int nchips, nmodels;
} preset_cache;

static void preset_cache_free(preset_cache *pc)
{
    free(pc->chips);
    free(pc->models);
    memset(pc, 0, sizeof *pc);
}

/* The entry for path, loaded on first use; NULL when out of memory. */
static const preset_ent *preset_get(preset_ent **arr, int *n, const char *path, int chip)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp((*arr)[i].path, path)) return &(*arr)[i];
    preset_ent *g = realloc(*arr, sizeof **arr * (size_t)(*n + 1));
    if (!g) return NULL;
    *arr = g;
    preset_ent *e = &g[(*n)++];
    memset(e, 0, sizeof *e);
    snprintf(e->path, sizeof e->path, "%s", path);
    elk_error_clear(&e->err);
    e->st = chip ? elk_point_load_chip(path, &e->chip, &e->err) : elk_point_load_model(path, &e->model, &e->err);
    return e;
}

/* elk_point_resolve through the cache (the chip only: nothing else needs
 * the model's knobs applied). */
static elk_status preset_resolve(preset_cache *pc, const elk_point *p, elk_chip *c, elk_error *err)
{
    const preset_ent *ce = preset_get(&pc->chips, &pc->nchips, p->chip_path, 1);
    if (!ce) return elk_fail(err, ELK_ENOMEM, "out of memory");
    if (ce->st != ELK_OK) {
        if (err) *err = ce->err;
        return ce->st;
    }
    const preset_ent *me = preset_get(&pc->models, &pc->nmodels, p->model_path, 0);
    if (!me) return elk_fail(err, ELK_ENOMEM, "out of memory");
    if (me->st != ELK_OK) {
        if (err) *err = me->err;
        return me->st;
    }
    *c = ce->chip;
    return elk_point_apply(p, c, err);
}

static elk_status load_root(ctx_t *c, const config_setting_t *root, elk_sweep *s)
{
    static const char *const known[] = {"name", "description", "base", "axes", "mode", "parts",
                                        "policies", "outputs", "figure", NULL};
    const config_setting_t *f[9] = {0};
    int n = config_setting_length(root);
    for (int i = 0; i < n; i++) {
        const config_setting_t *e = config_setting_get_elem(root, (unsigned)i);
        const char *nm = config_setting_name(e);
        int k = -1;
        for (int j = 0; known[j]; j++)
            if (!strcmp(known[j], nm)) k = j;
        char path[128];
        snprintf(path, sizeof path, "sweep.%s", nm);
        if (k < 0) return unknown(c, e, path, known);
        f[k] = e;
    }
    const config_setting_t *name = f[0], *desc = f[1], *base = f[2], *axes = f[3], *mode = f[4], *parts = f[5],
                           *pols = f[6], *outs = f[7], *fig = f[8];
    if (!name)
        return elk_fail(c->err, ELK_EMISSING, "%s:%d: missing required field 'sweep.name' (a string)", c->file,
                        line_of(root));
    ELK_TRY(get_string(c, name, "sweep.name", s->name, sizeof s->name));
    ELK_TRY(check_name(c, name, "sweep.name", s->name));
    if (desc) ELK_TRY(get_string(c, desc, "sweep.description", s->description, sizeof s->description));
    if (base) ELK_TRY(parse_base(c, base, "sweep.base", &s->base));
    if (mode) ELK_TRY(parse_mode(c, mode, "sweep.mode", &s->top.zip));
    if (axes) {
        ELK_TRY(parse_axes(c, axes, "sweep.axes", &s->top));
        ELK_TRY(block_count(c, &s->top, "sweep.axes"));
    } else {
        s->top.count = 1;
    }
    if (parts) {
        ELK_TRY(expect_type(c, parts, "sweep.parts", CONFIG_TYPE_LIST, CONFIG_TYPE_LIST, "a list ( { ... }, ... )"));
        int np = config_setting_length(parts);
        if (np < 1 || np > ELK_SWEEP_MAX_PARTS)
            return elk_fail(c->err, ELK_ERANGE, "%s:%d: field 'sweep.parts': %d parts (allowed 1 .. %d)", c->file,
                            line_of(parts), np, ELK_SWEEP_MAX_PARTS);
        for (int i = 0; i < np; i++) {
            char path[64];
            snprintf(path, sizeof path, "sweep.parts.[%d]", i);
            s->nparts = i + 1;
            ELK_TRY(parse_part(c, config_setting_get_elem(parts, (unsigned)i), path, s, i));
        }
        s->named_parts = 1;
    } else {
        s->nparts = 1;
        s->part[0].base = s->base;
        s->part[0].block.count = 1;
    }
    s->npoints = 0;
    for (int i = 0; i < s->nparts; i++) {
        s->part[i].first = s->npoints;
        s->part[i].count = s->top.count * s->part[i].block.count;
        s->npoints += s->part[i].count;
    }
    if (s->npoints > ELK_SWEEP_MAX_POINTS)
        return elk_fail(c->err, ELK_ERANGE, "%s:%d: the sweep has %ld points (at most %ld)", c->file,
                        line_of(root), s->npoints, ELK_SWEEP_MAX_POINTS);
    s->policy_mask = (1u << ELK_POL_COUNT) - 1;
    if (pols) {
        ELK_TRY(expect_type(c, pols, "sweep.policies", CONFIG_TYPE_ARRAY, CONFIG_TYPE_LIST,
                            "an array of policy names [\"basic\", ...]"));
        s->policy_mask = 0;
        int np = config_setting_length(pols);
        for (int i = 0; i < np; i++) {
            const config_setting_t *e = config_setting_get_elem(pols, (unsigned)i);
            char path[64];
            snprintf(path, sizeof path, "sweep.policies.[%d]", i);
            int line = line_of(e) ? line_of(e) : line_of(pols);
            if (config_setting_type(e) != CONFIG_TYPE_STRING)
                return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s': expected a policy name (string), found %s",
                                c->file, line, path, type_name(config_setting_type(e)));
            int p = elk_policy_find(config_setting_get_string(e));
            if (p < 0)
                return elk_fail(c->err, ELK_ERANGE,
                                "%s:%d: field '%s': \"%s\" is not a policy (basic, static, elk-dyn, elk-full, ideal)",
                                c->file, line, path, config_setting_get_string(e));
            if (s->policy_mask & (1u << p))
                return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s': policy \"%s\" listed twice", c->file, line,
                                path, elk_policy_names[p]);
            s->policy_mask |= 1u << p;
        }
        if (!s->policy_mask)
            return elk_fail(c->err, ELK_EFIELD, "%s:%d: field 'sweep.policies': empty; name at least one policy",
                            c->file, line_of(pols));
    }
    build_columns(s);
    if (outs) {
        ELK_TRY(expect_type(c, outs, "sweep.outputs", CONFIG_TYPE_ARRAY, CONFIG_TYPE_LIST,
                            "an array of column names [\"noc_tbps\", ...]"));
        int no = config_setting_length(outs);
        for (int i = 0; i < no; i++) {
            const config_setting_t *e = config_setting_get_elem(outs, (unsigned)i);
            char path[64];
            snprintf(path, sizeof path, "sweep.outputs.[%d]", i);
            int line = line_of(e) ? line_of(e) : line_of(outs);
            if (config_setting_type(e) != CONFIG_TYPE_STRING)
                return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s': expected a column name (string), found %s",
                                c->file, line, path, type_name(config_setting_type(e)));
            const char *on = config_setting_get_string(e);
            int r = add_output(s, on);
            if (r == -1) {
                char list[1024] = "";
                size_t l = 0;
                for (int m = 0; m < M_COUNT; m++) {
                    if (elk_sweep_metrics[m].always) continue;
                    int w = snprintf(list + l, sizeof list - l, "%s, ", elk_sweep_metrics[m].name);
                    if (w < 0 || (size_t)w >= sizeof list - l) break;
                    l += (size_t)w;
                }
                return elk_fail(c->err, ELK_ERANGE,
                                "%s:%d: field '%s': \"%s\" is not an output (outputs: %sor any knob, e.g. hbm_tbps)",
                                c->file, line, path, on, list);
            }
            if (r == -2)
                return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s': \"%s\" is already a column", c->file, line,
                                path, on);
        }
    }
    s->fig.kind = -1;
    if (fig) {
        ELK_TRY(expect_type(c, fig, "sweep.figure", CONFIG_TYPE_GROUP, CONFIG_TYPE_GROUP,
                            "a group { kind = \"lines\"; ... }"));
        ELK_TRY(elk_cfg_apply(fig, c->file, "sweep.figure", fig_schema, &s->fig, c->err));
    }
    default_figure(s);
    ELK_TRY(check_fig_cols(c, s, fig));

    /* every point must resolve (its presets load, its chip is valid); each
     * preset is read once, not once per point */
    preset_cache pc = {0};
    elk_status bad = ELK_OK;
    for (long i = 0; i < s->npoints && bad == ELK_OK; i++) {
        elk_point p;
        elk_chip ch;
        elk_error e;
        int part;
        elk_status st = elk_sweep_point(s, i, &p, &part, &e);
        if (st == ELK_OK) st = preset_resolve(&pc, &p, &ch, &e);
        if (st != ELK_OK) {
            char d[256];
            describe_point(s, i, d, sizeof d);
            int line = s->named_parts ? line_of(config_setting_get_elem(parts, (unsigned)part))
                                      : (axes ? line_of(axes) : line_of(root));
            bad = elk_fail(c->err, st, "%s:%d: point %ld%s%s%s: %s", c->file, line, i, d[0] ? " (" : "", d,
                           d[0] ? ")" : "", e.msg);
        }
    }
    preset_cache_free(&pc);
    return bad;
}

elk_status elk_sweep_load(const char *path, elk_sweep *s, elk_error *err)
{
    memset(s, 0, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", path);
    elk_point_defaults(&s->base);
    config_t cfg;
    ELK_TRY(elk_cfg_read(&cfg, path, err));
    ctx_t c = {path, err};
    elk_status st = ELK_OK;
    config_setting_t *top = config_root_setting(&cfg);
    config_setting_t *root = NULL;
    for (int i = 0; i < config_setting_length(top) && st == ELK_OK; i++) {
        config_setting_t *e = config_setting_get_elem(top, (unsigned)i);
        if (!strcmp(config_setting_name(e), "sweep")) root = e;
        else
            st = elk_fail(err, ELK_EUNKNOWN, "%s:%d: unknown top-level setting '%s' (expected 'sweep = { ... };')",
                          path, line_of(e), config_setting_name(e));
    }
    if (st == ELK_OK && !root)
        st = elk_fail(err, ELK_EMISSING, "%s:1: missing required group 'sweep = { ... };'", path);
    if (st == ELK_OK && config_setting_type(root) != CONFIG_TYPE_GROUP)
        st = elk_fail(err, ELK_EFIELD, "%s:%d: 'sweep' must be a group { ... }", path, line_of(root));
    if (st == ELK_OK) st = load_root(&c, root, s);
    config_destroy(&cfg);
    if (st != ELK_OK) {
        elk_sweep_free(s);
        return st;
    }
    /* fingerprint: name, columns, policies and every point */
    char head[4096];
    elk_sweep_csv_head(s, 0, 1, head, sizeof head);
    unsigned long long h = 1469598103934665603ULL;
    h = fnv(h, s->name);
    const char *hdr = strchr(head, '\n');
    h = fnv(h, hdr ? hdr : head); /* the figure and header lines */
    char pm[32];
    snprintf(pm, sizeof pm, "%u", s->policy_mask);
    h = fnv(h, pm);
    for (long i = 0; i < s->npoints; i++) {
        elk_point p;
        char k[2600];
        if (elk_sweep_point(s, i, &p, NULL, err) != ELK_OK) {
            elk_sweep_free(s);
            return err ? err->code : ELK_EINVAL;
        }
        point_key(&p, 0, k, sizeof k);
        h = fnv(h, k);
    }
    s->id = h;
    return ELK_OK;
}

/* ------------------------------------------------------------------ */
/* CSV text                                                             */

void elk_sweep_csv_head(const elk_sweep *s, int shard, int nshards, char *buf, size_t n)
{
    const elk_sweep_figure *f = &s->fig;
    size_t l = 0;
    int w = snprintf(buf, n, "# elk-sweep name=%s id=%016llx points=%ld shard=%d/%d\n"
                             "# figure: kind=%s; x=%s; y=%s; series=%s; row=%s; col=%s; cluster=%s; logx=%d; "
                             "logy=%d; title=%s; xlabel=%s; ylabel=%s\n",
                     s->name, s->id, s->npoints, shard, nshards,
                     f->kind >= 0 ? elk_fig_kind_names[f->kind] : "lines", f->x, f->y, f->series, f->row, f->col,
                     f->cluster, f->logx, f->logy, f->title, f->xlabel, f->ylabel);
    if (w < 0 || (size_t)w >= n) return;
    l = (size_t)w;
    for (int i = 0; i < s->ncols; i++) elk_csv_cat(buf, n, &l, i == 0, s->cols[i].name);
    if (l + 1 < n) {
        buf[l++] = '\n';
        buf[l] = '\0';
    }
}

elk_status elk_sweep_ident_parse(const char *line, elk_sweep_ident *id, elk_error *err)
{
    memset(id, 0, sizeof *id);
    char name[64];
    if (sscanf(line, "# elk-sweep name=%63s id=%llx points=%ld shard=%d/%d", name, &id->id, &id->points, &id->shard,
               &id->nshards) != 5 ||
        id->nshards < 1 || id->shard < 0 || id->shard >= id->nshards || id->points < 0)
        return elk_fail(err, ELK_EPARSE, "not an elk sweep CSV (its first line is not '# elk-sweep name=... id=... "
                                         "points=... shard=i/N')");
    /* sscanf's %ld does not report overflow: read the count again strictly */
    const char *pp = strstr(line, " points=");
    char *end;
    errno = 0;
    long pts = pp ? strtol(pp + 8, &end, 10) : -1;
    if (!pp || errno == ERANGE || pts != id->points || pts > ELK_SWEEP_MAX_POINTS)
        return elk_fail(err, ELK_ERANGE, "points=%.*s is more than a sweep may have (the limit is %ld points)",
                        pp ? (int)strspn(pp + 8, "0123456789") : 1, pp ? pp + 8 : "?", ELK_SWEEP_MAX_POINTS);
    snprintf(id->name, sizeof id->name, "%s", name);
    return ELK_OK;
}

void elk_sweep_figure_parse(const char *line, elk_sweep_figure *f)
{
    memset(f, 0, sizeof *f);
    f->kind = -1;
    const char *p = strstr(line ? line : "", "# figure:");
    if (!p) return;
    p += strlen("# figure:");
    while (*p) {
        while (*p == ' ') p++;
        const char *e = strstr(p, "; ");
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char kv[256];
        if (len >= sizeof kv) len = sizeof kv - 1;
        memcpy(kv, p, len);
        kv[len] = '\0';
        char *eq = strchr(kv, '=');
        if (eq) {
            *eq = '\0';
            const char *v = eq + 1;
            struct {
                const char *k;
                char *dst;
                size_t n;
            } t[] = {{"x", f->x, sizeof f->x},
                     {"y", f->y, sizeof f->y},
                     {"series", f->series, sizeof f->series},
                     {"row", f->row, sizeof f->row},
                     {"col", f->col, sizeof f->col},
                     {"cluster", f->cluster, sizeof f->cluster},
                     {"title", f->title, sizeof f->title},
                     {"xlabel", f->xlabel, sizeof f->xlabel},
                     {"ylabel", f->ylabel, sizeof f->ylabel}};
            for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
                if (!strcmp(kv, t[i].k)) snprintf(t[i].dst, t[i].n, "%s", v);
            if (!strcmp(kv, "kind"))
                for (int k = 0; elk_fig_kind_names[k]; k++)
                    if (!strcmp(v, elk_fig_kind_names[k])) f->kind = k;
            if (!strcmp(kv, "logx")) f->logx = atoi(v);
            if (!strcmp(kv, "logy")) f->logy = atoi(v);
        }
        if (!e) break;
        p = e + 2;
    }
}

/* ------------------------------------------------------------------ */
/* Running                                                              */

/* Everything a point contributes to its rows. */
typedef struct {
    int status[ELK_POL_COUNT];          /* 0 ok, 1 no-plan */
    char knob[ELK_KNOB_COUNT][48];      /* resolved values as CSV text */
    double m[ELK_POL_COUNT][M_COUNT];
    char note[192];                     /* why no-plan */
} point_rec;

struct elk_sweep_memo {
    pthread_mutex_t mu;
    char **keys;
    point_rec *recs;
    int n, cap;
};

elk_sweep_memo *elk_sweep_memo_alloc(void)
{
    elk_sweep_memo *m = calloc(1, sizeof *m);
    if (m) pthread_mutex_init(&m->mu, NULL);
    return m;
}

void elk_sweep_memo_free(elk_sweep_memo *m)
{
    if (!m) return;
    for (int i = 0; i < m->n; i++) free(m->keys[i]);
    free(m->keys);
    free(m->recs);
    pthread_mutex_destroy(&m->mu);
    free(m);
}

static int memo_get(elk_sweep_memo *m, const char *key, point_rec *r)
{
    if (!m) return 0;
    int found = 0;
    pthread_mutex_lock(&m->mu);
    for (int i = m->n - 1; i >= 0 && !found; i--)
        if (!strcmp(m->keys[i], key)) {
            *r = m->recs[i];
            found = 1;
        }
    pthread_mutex_unlock(&m->mu);
    return found;
}

static void memo_put(elk_sweep_memo *m, const char *key, const point_rec *r)
{
    if (!m) return;
    pthread_mutex_lock(&m->mu);
    if (m->n == m->cap) {
        int nc = m->cap ? m->cap * 2 : 64;
        char **nk = realloc(m->keys, sizeof *nk * (size_t)nc);
        if (nk) m->keys = nk;
        point_rec *nr = realloc(m->recs, sizeof *nr * (size_t)nc);
        if (nr) m->recs = nr;
        if (nk && nr) m->cap = nc;
    }
    if (m->n < m->cap) {
        m->keys[m->n] = strdup(key);
        if (m->keys[m->n]) m->recs[m->n++] = *r;
    }
    pthread_mutex_unlock(&m->mu);
}

static void knob_text(const elk_point *p, const elk_chip *c, const elk_model *m, elk_knob k, char *b, size_t n)
{
    switch (k) {
    case ELK_KNOB_HBM_TBPS: elk_csv_fmt(b, n, c->hbm_tbps); break;
    case ELK_KNOB_NOC_TBPS: elk_csv_fmt(b, n, elk_chip_noc_bytes_per_cycle(c) * c->clock_ghz / 1e3); break;
    case ELK_KNOB_NOC_SCALE: elk_csv_fmt(b, n, c->noc_scale); break;
    case ELK_KNOB_LINK_GBPS: elk_csv_fmt(b, n, c->link_gbps); break;
    case ELK_KNOB_SRAM_KIB: elk_csv_fmt(b, n, c->sram_kib); break;
    case ELK_KNOB_COMPUTE_SCALE: elk_csv_fmt(b, n, c->compute_scale); break;
    case ELK_KNOB_HBM_GBPS_PER_CORE: elk_csv_fmt(b, n, c->hbm_tbps * 1000.0 / c->cores); break;
    case ELK_KNOB_HBM_BROADCAST: snprintf(b, n, "%d", c->hbm_broadcast ? 1 : 0); break;
    default: elk_point_format(p, c, m, k, b, n); break;
    }
}

static double ms_of(const elk_chip *c, double cycles) { return cycles / (c->clock_ghz * 1e6); }

static void fill_point(const elk_problem *pr, double *m)
{
    const elk_chip *c = &pr->chip;
    const elk_graph *g = &pr->graph;
    for (int i = 0; i < M_COUNT; i++) m[i] = NAN;
    m[M_OPS] = g->nops;
    m[M_GFLOP] = g->flops / 1e9;
    m[M_HBM_GB] = (g->weight_bytes + g->kv_bytes) / 1e9;
    m[M_WEIGHT_GB] = g->weight_bytes / 1e9;
    m[M_KV_GB] = g->kv_bytes / 1e9;
    m[M_INTENSITY] = g->weight_bytes + g->kv_bytes > 0 ? g->flops / (g->weight_bytes + g->kv_bytes) : NAN;
    m[M_PEAK_MM] = elk_chip_peak_matmul_flops(c) / 1e12;
    m[M_PEAK_VEC] = elk_chip_peak_vector_flops(c) / 1e12;
}

static void fill_policy(const elk_problem *pr, const elk_schedule *s, int p, double pct, double *m)
{
    const elk_chip *c = &pr->chip;
    m[M_LATENCY] = s->latency_ms;
    m[M_PCT_IDEAL] = pct;
    m[M_EXEC] = ms_of(c, s->brk[ELK_BRK_EXEC]);
    m[M_OVERLAP] = ms_of(c, s->brk[ELK_BRK_OVERLAP]);
    m[M_PRELOAD] = ms_of(c, s->brk[ELK_BRK_PRELOAD]);
    m[M_NOC] = ms_of(c, s->brk[ELK_BRK_NOC]);
    m[M_DIST] = ms_of(c, s->brk[ELK_BRK_DIST]);
    m[M_HBM_UTIL] = s->hbm_util;
    m[M_NOC_UTIL] = s->noc_util;
    m[M_TFLOPS] = s->tflops;
    m[M_NOC_PRE_UTIL] = s->noc_pre_util;
    m[M_NOC_EXE_UTIL] = s->noc_exe_util;
    m[M_NOC_DEMAND] = s->noc_demand;
    m[M_ADOPTED] = p == ELK_POL_FULL ? s->adopted : NAN;
    m[M_LATENCY_CYCLES] = s->latency;
    m[M_PEAK_RESIDENT] = s->peak_resident / 1024.0;
    m[M_STATIC_EXEC] = p == ELK_POL_STATIC ? s->static_exec_kib : NAN;
    m[M_STATIC_VARIANT] = p == ELK_POL_STATIC || p == ELK_POL_BASIC ? s->static_variant : NAN;
    m[M_ORDERS_TRIED] = p == ELK_POL_FULL ? s->orders_tried : NAN;
    m[M_AVG_EDIT] = p == ELK_POL_FULL ? s->avg_edit_dist : NAN;
}

/* Run the policies of mask on pr into rec. When some policy fits no
 * schedule, the others are still run one by one and that policy's rows get
 * status no-plan. */
static elk_status run_policies(const elk_problem *pr, const elk_sched_opts *o, unsigned mask, point_rec *rec,
                               elk_error *err)
{
    for (int p = 0; p < ELK_POL_COUNT; p++) fill_point(pr, rec->m[p]);
    elk_result r;
    elk_status st = elk_result_run(pr, o, mask, &r, err);
    if (st == ELK_OK) {
        for (int p = 0; p < ELK_POL_COUNT; p++)
            if (r.have[p]) fill_policy(pr, &r.pol[p], p, r.have[ELK_POL_IDEAL] ? r.pct_ideal[p] : NAN, rec->m[p]);
        elk_result_free(&r);
        return ELK_OK;
    }
    if (st != ELK_ENOPLAN) return st;
    snprintf(rec->note, sizeof rec->note, "%.*s", (int)sizeof rec->note - 1, err->msg);
    double ideal = NAN;
    for (int p = ELK_POL_COUNT - 1; p >= 0; p--) { /* Ideal first, for % of Ideal */
        if (!(mask & (1u << p))) continue;
        elk_error e;
        st = elk_result_run(pr, o, 1u << p, &r, &e);
        if (st == ELK_ENOPLAN) {
            rec->status[p] = 1;
            continue;
        }
        if (st != ELK_OK) {
            *err = e;
            return st;
        }
        if (p == ELK_POL_IDEAL) ideal = r.pol[p].latency;
        fill_policy(pr, &r.pol[p], p, isnan(ideal) ? NAN : 100.0 * ideal / r.pol[p].latency, rec->m[p]);
        elk_result_free(&r);
    }
    return ELK_OK;
}

typedef struct {
    const elk_sweep *s;
    const elk_sweep_opts *o;
    elk_sched_opts sched;
    elk_plan_cache *cache;
    long *idx;          /* the shard's point indices */
    long n;
    point_rec *recs;
    char *done;
    long next, ndone;
    int running;
    atomic_int stop;    /* read by the scheduler unlocked (R.sched.cancel) */
    elk_status st;
    elk_error err;
    long infeasible, memo_hits;
    char first_infeasible[512];
    pthread_mutex_t mu;
    pthread_cond_t cv;
} runner;

static elk_status compute_point(runner *R, long idx, point_rec *rec, elk_error *err)
{
    const elk_sweep *s = R->s;
    elk_point p;
    ELK_TRY(elk_sweep_point(s, idx, &p, NULL, err));
    char key[2700];
    point_key(&p, 1, key, sizeof key);
    size_t kl = strlen(key);
    snprintf(key + kl, sizeof key - kl, "#%u", s->policy_mask | (1u << ELK_POL_IDEAL));
    if (memo_get(R->o->memo, key, rec)) {
        pthread_mutex_lock(&R->mu);
        R->memo_hits++;
        pthread_mutex_unlock(&R->mu);
        return ELK_OK;
    }
    memset(rec, 0, sizeof *rec);
    elk_chip c;
    elk_model m;
    ELK_TRY(elk_point_resolve(&p, &c, &m, err));
    for (int k = 0; k < ELK_KNOB_COUNT; k++) knob_text(&p, &c, &m, (elk_knob)k, rec->knob[k], sizeof rec->knob[k]);
    elk_problem pr;
    elk_error e;
    elk_error_clear(&e);
    elk_status st = elk_problem_init(&pr, &p, R->cache, &e);
    if (st == ELK_OK) {
        st = run_policies(&pr, &R->sched, s->policy_mask | (1u << ELK_POL_IDEAL), rec, &e);
        elk_problem_free(&pr);
    } else if (st == ELK_ENOPLAN) {
        /* no operator plan fits at all: every policy is no-plan */
        snprintf(rec->note, sizeof rec->note, "%.*s", (int)sizeof rec->note - 1, e.msg);
        for (int q = 0; q < ELK_POL_COUNT; q++) {
            rec->status[q] = 1;
            for (int i = 0; i < M_COUNT; i++) rec->m[q][i] = NAN;
        }
        st = ELK_OK;
    }
    if (st != ELK_OK) {
        if (err) *err = e;
        return st;
    }
    memo_put(R->o->memo, key, rec);
    return ELK_OK;
}

static void *worker(void *arg)
{
    runner *R = arg;
    pthread_mutex_lock(&R->mu);
    while (!R->stop && R->next < R->n) {
        long k = R->next++;
        pthread_mutex_unlock(&R->mu);
        point_rec rec;
        elk_error e;
        elk_error_clear(&e);
        elk_status st = compute_point(R, R->idx[k], &rec, &e);
        pthread_mutex_lock(&R->mu);
        if (st == ELK_OK) {
            R->recs[k] = rec;
            R->done[k] = 1;
            R->ndone++;
            int bad = 0;
            for (int q = 0; q < ELK_POL_COUNT; q++) bad |= rec.status[q] && (R->s->policy_mask & (1u << q));
            if (bad && R->infeasible++ == 0) {
                char d[160];
                describe_point(R->s, R->idx[k], d, sizeof d);
                snprintf(R->first_infeasible, sizeof R->first_infeasible, "point %ld%s%s%s: %.120s", R->idx[k],
                         d[0] ? " (" : "", d, d[0] ? ")" : "", rec.note);
            }
        } else if (st != ELK_ECANCEL && R->st == ELK_OK) {
            char d[160];
            describe_point(R->s, R->idx[k], d, sizeof d);
            R->st = st;
            elk_fail(&R->err, st, "%s: point %ld%s%s%s: %s", R->s->path, R->idx[k], d[0] ? " (" : "", d,
                     d[0] ? ")" : "", e.msg);
            R->stop = 1;
        }
        pthread_cond_broadcast(&R->cv);
    }
    R->running--;
    pthread_cond_broadcast(&R->cv);
    pthread_mutex_unlock(&R->mu);
    return NULL;
}

static int write_point(const elk_sweep *s, long idx, const point_rec *rec, FILE *out)
{
    int part = 0;
    elk_point p;
    if (elk_sweep_point(s, idx, &p, &part, NULL) != ELK_OK) return -1;
    for (int pol = 0; pol < ELK_POL_COUNT; pol++) {
        if (!(s->policy_mask & (1u << pol))) continue;
        char line[4096];
        size_t l = 0;
        line[0] = '\0';
        for (int i = 0; i < s->ncols; i++) {
            const elk_sweep_col *c = &s->cols[i];
            char v[64];
            switch (c->kind) {
            case ELK_COL_POINT: snprintf(v, sizeof v, "%ld", idx); elk_csv_cat(line, sizeof line, &l, i == 0, v); break;
            case ELK_COL_PART: elk_csv_cat(line, sizeof line, &l, i == 0, s->part[part].name); break;
            case ELK_COL_KNOB: elk_csv_cat(line, sizeof line, &l, i == 0, rec->knob[c->id]); break;
            case ELK_COL_POLICY: elk_csv_cat(line, sizeof line, &l, i == 0, elk_policy_names[pol]); break;
            case ELK_COL_STATUS: elk_csv_cat(line, sizeof line, &l, i == 0, rec->status[pol] ? "no-plan" : "ok"); break;
            case ELK_COL_METRIC: elk_csv_cat_num(line, sizeof line, &l, i == 0, rec->m[pol][c->id]); break;
            }
        }
        if (fprintf(out, "%s\n", line) < 0) return -1;
    }
    return 0;
}

void elk_sweep_opts_default(elk_sweep_opts *o)
{
    memset(o, 0, sizeof *o);
    o->jobs = 1;
    o->shard = 0;
    o->nshards = 1;
    elk_sched_opts_default(&o->sched);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

elk_status elk_sweep_run(const elk_sweep *s, const elk_sweep_opts *o, FILE *out, elk_sweep_stats *st,
                         elk_error *err)
{
    elk_sweep_stats dummy;
    if (!st) st = &dummy;
    memset(st, 0, sizeof *st);
    if (o->nshards < 1 || o->shard < 0 || o->shard >= o->nshards)
        return elk_fail(err, ELK_EINVAL, "shard %d/%d: expected 0 <= i < N", o->shard, o->nshards);
    double t0 = now_s();
    runner R;
    memset(&R, 0, sizeof R);
    R.s = s;
    R.o = o;
    R.sched = o->sched;
    R.sched.cancel = &R.stop;
    R.cache = o->cache ? o->cache : elk_plan_cache_alloc();
    long n = 0;
    for (long i = o->shard; i < s->npoints; i += o->nshards) n++;
    R.n = n;
    R.idx = malloc(sizeof *R.idx * (size_t)(n ? n : 1));
    R.recs = malloc(sizeof *R.recs * (size_t)(n ? n : 1));
    R.done = calloc((size_t)(n ? n : 1), 1);
    if (!R.cache || !R.idx || !R.recs || !R.done) {
        free(R.idx);
        free(R.recs);
        free(R.done);
        if (!o->cache) elk_plan_cache_free(R.cache);
        return elk_fail(err, ELK_ENOMEM, "out of memory for %ld points", n);
    }
    for (long i = o->shard, k = 0; i < s->npoints; i += o->nshards) R.idx[k++] = i;
    pthread_mutex_init(&R.mu, NULL);
    pthread_cond_init(&R.cv, NULL);

    char head[8192];
    elk_sweep_csv_head(s, o->shard, o->nshards, head, sizeof head);
    int io_bad = fputs(head, out) < 0;

    int jobs = o->jobs < 1 ? 1 : o->jobs;
    if (jobs > n) jobs = n ? (int)n : 1;
    pthread_t th[256];
    if (jobs > 256) jobs = 256;
    int started = 0;
    pthread_mutex_lock(&R.mu);
    for (int j = 0; j < jobs; j++) {
        if (elk_thread_start(&th[j], worker, &R) != 0) break;
        started++;
        R.running++;
    }
    long written = 0;
    double last_prog = 0;
    while (R.running > 0) {
        while (written < n && R.done[written]) {
            if (!io_bad && write_point(s, R.idx[written], &R.recs[written], out)) io_bad = 1;
            written++;
        }
        if (o->cancel && atomic_load(o->cancel)) R.stop = 1;
        if (io_bad && !R.stop) {
            R.stop = 1;
            if (R.st == ELK_OK) {
                R.st = ELK_EIO;
                elk_fail(&R.err, ELK_EIO, "cannot write the CSV: %s", strerror(errno));
            }
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100 * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&R.cv, &R.mu, &ts);
        double t = now_s();
        if (o->progress && t - last_prog >= 0.1) {
            long d = R.ndone;
            pthread_mutex_unlock(&R.mu);
            o->progress(o->ctx, d, n, t - t0);
            pthread_mutex_lock(&R.mu);
            last_prog = t;
        }
    }
    pthread_mutex_unlock(&R.mu);
    for (int j = 0; j < started; j++) pthread_join(th[j], NULL);
    if (started == 0 && n > 0 && R.st == ELK_OK) {
        R.st = ELK_ENOMEM;
        elk_fail(&R.err, ELK_ENOMEM, "cannot start worker threads");
    }
    /* every finished point, gaps and all (after a cancel) */
    for (; written < n; written++)
        if (R.done[written] && !io_bad && write_point(s, R.idx[written], &R.recs[written], out)) io_bad = 1;
    if (fflush(out) != 0) io_bad = 1;
    st->points = n;
    st->done = R.ndone;
    st->infeasible = R.infeasible;
    st->memo_hits = R.memo_hits;
    snprintf(st->first_infeasible, sizeof st->first_infeasible, "%s", R.first_infeasible);
    st->seconds = now_s() - t0;
    long entries;
    elk_plan_cache_stats(R.cache, &st->cache_hits, &st->cache_misses, &entries);
    if (o->progress) o->progress(o->ctx, R.ndone, n, st->seconds);
    elk_status ret = R.st;
    if (ret == ELK_OK && io_bad) ret = elk_fail(&R.err, ELK_EIO, "cannot write the CSV: %s", strerror(errno));
    if (ret == ELK_OK && R.ndone < n) ret = elk_fail(&R.err, ELK_ECANCEL, "interrupted");
    if (ret != ELK_OK && err) *err = R.err;
    pthread_mutex_destroy(&R.mu);
    pthread_cond_destroy(&R.cv);
    free(R.idx);
    free(R.recs);
    free(R.done);
    if (!o->cache) elk_plan_cache_free(R.cache);
    return ret;
}

/* ------------------------------------------------------------------ */
/* Merge                                                                */

typedef struct {
    long point;
    int file, row;
} mrow;

static int mrow_cmp(const void *a, const void *b)
{
    const mrow *x = a, *y = b;
    if (x->point != y->point) return x->point < y->point ? -1 : 1;
    if (x->file != y->file) return x->file - y->file;
    return x->row - y->row;
}

elk_status elk_sweep_merge(const char *const *inputs, int n, FILE *out, elk_error *err)
{
    if (n < 1) return elk_fail(err, ELK_EINVAL, "merge: no input files");
    elk_csv_table *t = calloc((size_t)n, sizeof *t);
    elk_sweep_ident *id = calloc((size_t)n, sizeof *id);
    mrow *rows = NULL;
    elk_status st = ELK_OK;
    long total = 0;
    if (!t || !id) {
        st = elk_fail(err, ELK_ENOMEM, "out of memory");
        goto done;
    }
    for (int i = 0; i < n && st == ELK_OK; i++) {
        st = elk_csv_read(inputs[i], &t[i], err);
        if (st != ELK_OK) break;
        elk_error e;
        if (t[i].ncomments < 1 || elk_sweep_ident_parse(t[i].comments[0], &id[i], &e) != ELK_OK) {
            st = elk_fail(err, ELK_EPARSE, "%s:1: %s", inputs[i],
                          t[i].ncomments < 1 ? "not an elk sweep CSV (no '# elk-sweep' line)" : e.msg);
            break;
        }
        if (elk_csv_col(&t[i], "point") != 0) {
            st = elk_fail(err, ELK_EPARSE, "%s: the first column is not 'point'", inputs[i]);
            break;
        }
        if (i == 0) continue;
        if (strcmp(id[i].name, id[0].name) || id[i].id != id[0].id || id[i].points != id[0].points) {
            st = elk_fail(err, ELK_EINVAL,
                          "%s is from sweep '%s' (id %016llx, %ld points) but %s is from '%s' (id %016llx, %ld points): "
                          "not shards of one sweep",
                          inputs[i], id[i].name, id[i].id, id[i].points, inputs[0], id[0].name, id[0].id, id[0].points);
            break;
        }
        if (id[i].nshards != id[0].nshards) {
            st = elk_fail(err, ELK_EINVAL, "%s is shard %d/%d but %s is shard %d/%d: shard counts differ", inputs[i],
                          id[i].shard, id[i].nshards, inputs[0], id[0].shard, id[0].nshards);
            break;
        }
        for (int j = 0; j < i && st == ELK_OK; j++)
            if (id[j].shard == id[i].shard)
                st = elk_fail(err, ELK_EINVAL, "%s and %s are both shard %d/%d", inputs[j], inputs[i], id[i].shard,
                              id[i].nshards);
        if (st != ELK_OK) break;
        int same = t[i].ncols == t[0].ncols && t[i].ncomments == t[0].ncomments;
        for (int c = 0; same && c < t[i].ncols; c++) same = !strcmp(t[i].cols[c], t[0].cols[c]);
        for (int c = 1; same && c < t[i].ncomments; c++) same = !strcmp(t[i].comments[c], t[0].comments[c]);
        if (!same) {
            st = elk_fail(err, ELK_EINVAL, "%s and %s have different headers", inputs[0], inputs[i]);
            break;
        }
    }
    /* every point of shard i/N is at least one row of its file: bound the
     * count by what the files hold before anything is sized by it */
    for (int i = 0; i < n && st == ELK_OK; i++) {
        long want = id[i].points > id[i].shard ? (id[i].points - id[i].shard + id[i].nshards - 1) / id[i].nshards : 0;
        if (want > t[i].nrows)
            st = elk_fail(err, ELK_ERANGE,
                          "%s:1: points=%ld, but shard %d/%d of it would need at least %ld rows and the file has %d "
                          "(not a complete shard, or a corrupt identity line)",
                          inputs[i], id[i].points, id[i].shard, id[i].nshards, want, t[i].nrows);
    }
    if (st != ELK_OK) goto done;
    for (int i = 0; i < n; i++) total += t[i].nrows;
    /* Nothing is sized by the identity line's point count: it is the
     * file's claim, and a 1 KB shard may claim 2^62 points. The rows are
     * checked, sorted by point and walked once for gaps and doubles. */
    rows = malloc(sizeof *rows * (size_t)(total ? total : 1));
    if (!rows) {
        st = elk_fail(err, ELK_ENOMEM, "out of memory");
        goto done;
    }
    long k = 0;
    for (int i = 0; i < n && st == ELK_OK; i++)
        for (int r = 0; r < t[i].nrows; r++) {
            char *end;
            errno = 0;
            long pt = strtol(t[i].cells[r][0], &end, 10);
            if (*end || end == t[i].cells[r][0] || errno || pt < 0 || pt >= id[0].points) {
                st = elk_fail(err, ELK_EPARSE, "%s: row %d: bad point index '%s'", inputs[i], r + 1,
                              t[i].cells[r][0]);
                break;
            }
            if (pt % id[i].nshards != id[i].shard) {
                st = elk_fail(err, ELK_EINVAL, "%s: point %ld does not belong to shard %d/%d", inputs[i], pt,
                              id[i].shard, id[i].nshards);
                break;
            }
            rows[k++] = (mrow){pt, i, r};
        }
    if (st != ELK_OK) goto done;
    qsort(rows, (size_t)k, sizeof *rows, mrow_cmp);
    {
        long want = 0; /* the next point that must appear */
        for (long r = 0; r <= k && st == ELK_OK; r++) {
            long pt = r < k ? rows[r].point : id[0].points;
            if (r > 0 && r < k && pt == rows[r - 1].point) {
                if (rows[r].file != rows[r - 1].file)
                    st = elk_fail(err, ELK_EINVAL, "point %ld is in both %s and %s", pt, inputs[rows[r - 1].file],
                                  inputs[rows[r].file]);
                continue;
            }
            if (pt > want) {
                int sh = (int)(want % id[0].nshards);
                const char *who = NULL;
                for (int i = 0; i < n; i++)
                    if (id[i].shard == sh) who = inputs[i];
                if (who)
                    st = elk_fail(err, ELK_EINVAL, "point %ld is missing from %s (shard %d/%d was interrupted?)",
                                  want, who, sh, id[0].nshards);
                else
                    st = elk_fail(err, ELK_EINVAL, "point %ld is missing: no file holds shard %d/%d", want, sh,
                                  id[0].nshards);
            }
            want = pt + 1;
        }
    }
    if (st != ELK_OK) goto done;
    fprintf(out, "# elk-sweep name=%s id=%016llx points=%ld shard=0/1\n", id[0].name, id[0].id, id[0].points);
    for (int c = 1; c < t[0].ncomments; c++) fprintf(out, "%s\n", t[0].comments[c]);
    {
        char line[8192];
        size_t l = 0;
        line[0] = '\0';
        for (int c = 0; c < t[0].ncols; c++) elk_csv_cat(line, sizeof line, &l, c == 0, t[0].cols[c]);
        fprintf(out, "%s\n", line);
    }
    for (long r = 0; r < k; r++) fprintf(out, "%s\n", t[rows[r].file].lines[rows[r].row]);
    if (fflush(out) != 0 || ferror(out)) st = elk_fail(err, ELK_EIO, "cannot write the merged CSV: %s", strerror(errno));
done:
    if (t)
        for (int i = 0; i < n; i++) elk_csv_free(&t[i]);
    free(t);
    free(id);
    free(rows);
    return st;
}
