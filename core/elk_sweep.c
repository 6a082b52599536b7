/* elk_sweep_load: a sweep file read and checked (every field with
 * file:line and its path), its sizes bounded before anything is expanded,
 * every point resolved through a preset cache, and the whole fingerprinted.
 * The metric table lives here too. Running is elk_sweep_run.c, the CSV's
 * comment lines and merging elk_sweep_csv.c (docs/ARCHITECTURE.md). */
#include "elk_sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "elk_cfg.h"
#include "elk_csv.h"
#include "elk_sweep_int.h"

const char *const elk_fig_kind_names[] = {"lines", "bars", "breakdown", "util", "roofline", "pareto", NULL};

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
    [M_POINTWISE] = {"pointwise_ms", "Elk-Full in a carried sweep: its own schedule's latency at the point, ms "
                                     "(latency_ms is the faster of it and the carried one; empty for others)", 0},
    [M_CARRIED_FROM] = {"carried_from", "Elk-Full in a carried sweep: the point whose schedule, re-timed here, "
                                        "gives latency_ms (empty: its own)", 0},
};
const int elk_sweep_nmetrics = M_COUNT;

/* ------------------------------------------------------------------ */
/* Loading                                                              */

typedef struct {
    const char *file;
    elk_error *err;
} ctx_t;

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

/* An axis given as from/to/step: its values counted before any is made
 * (at most 100000), then each rounded to its 12-digit decimal. */
static elk_status parse_axis_range(ctx_t *c, const char *prefix, elk_sweep_axis *a, const config_setting_t *from,
                                   const config_setting_t *to, const config_setting_t *step)
{
    const elk_knob_info *ki = &elk_knobs[a->knob];
    char path[320]; /* prefix (< 256) and a field name */
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
        if (!elk_cfg_is_num(r[i]))
            return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s': expected a number, found %s", c->file,
                            line_of(r[i]), path, elk_cfg_type_name(config_setting_type(r[i])));
        rv[i] = elk_cfg_num(r[i]);
        if (!isfinite(rv[i])) /* 1e309 reads as inf */
            return elk_fail(c->err, ELK_ERANGE, "%s:%d: field '%s': expected a finite number, found %g", c->file,
                            line_of(r[i]), path, rv[i]);
        if (i < 2) ELK_TRY(elk_point_check_num(c->file, c->err, line_of(r[i]), path, a->knob, rv[i]));
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
    if (!(cnt <= 100000))
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
        ELK_TRY(elk_point_check_num(c->file, c->err, line_of(from), prefix, a->knob, v));
    }
    return ELK_OK;
}

/* An axis given as a values list: numbers range-checked, words checked
 * by applying them to a scratch point. */
static elk_status parse_axis_values(ctx_t *c, const char *prefix, elk_sweep_axis *a, const config_setting_t *values)
{
    const elk_knob_info *ki = &elk_knobs[a->knob];
    char path[320]; /* prefix (< 256) and a field name */
    snprintf(path, sizeof path, "%s.values", prefix);
    int t = config_setting_type(values);
    if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
        return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s': expected an array [ ... ], found %s", c->file,
                        line_of(values), path, elk_cfg_type_name(t));
    a->n = config_setting_length(values);
    if (a->n == 0)
        return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s': empty; give at least one value", c->file,
                        line_of(values), path);
    if (ki->is_int == 2) a->word = calloc((size_t)a->n, sizeof *a->word);
    else a->num = malloc(sizeof *a->num * (size_t)a->n);
    if (!a->word && !a->num) return elk_fail(c->err, ELK_ENOMEM, "out of memory");
    for (int i = 0; i < a->n; i++) {
        const config_setting_t *v = config_setting_get_elem(values, (unsigned)i);
        char ep[340];
        snprintf(ep, sizeof ep, "%s.[%d]", path, i);
        int line = line_of(v) ? line_of(v) : line_of(values);
        if (ki->is_int == 2) {
            if (config_setting_type(v) != CONFIG_TYPE_STRING)
                return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s': %s takes words (strings), found %s", c->file,
                                line, ep, ki->name, elk_cfg_type_name(config_setting_type(v)));
            elk_point scratch;
            elk_point_defaults(&scratch);
            ELK_TRY(elk_point_set_word(c->file, c->err, line, ep, &scratch, a->knob, config_setting_get_string(v), NULL));
            a->word[i] = strdup(config_setting_get_string(v));
            if (!a->word[i]) return elk_fail(c->err, ELK_ENOMEM, "out of memory");
        } else {
            double x;
            if (a->knob == ELK_KNOB_HBM_BROADCAST && config_setting_type(v) == CONFIG_TYPE_BOOL)
                x = config_setting_get_bool(v);
            else if (elk_cfg_is_num(v))
                x = elk_cfg_num(v);
            else
                return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s': expected a number%s%s, found %s", c->file,
                                line, ep, *ki->unit ? " in " : "", ki->unit, elk_cfg_type_name(config_setting_type(v)));
            ELK_TRY(elk_point_check_num(c->file, c->err, line, ep, a->knob, x));
            a->num[i] = x;
        }
    }
    return ELK_OK;
}

/* One axis group: { knob = "..."; values = [...]; } or from/to/step. */
static elk_status parse_axis(ctx_t *c, const config_setting_t *g, const char *prefix, elk_sweep_axis *a)
{
    static const char *const known[] = {"knob", "values", "from", "to", "step", NULL};
    ELK_TRY(elk_cfg_expect(c->file, c->err, g, prefix, CONFIG_TYPE_GROUP, CONFIG_TYPE_GROUP,
                        "a group { knob = \"...\"; values = [...]; }"));
    memset(a, 0, sizeof *a);
    a->line = line_of(g);
    const config_setting_t *knob = NULL, *values = NULL, *from = NULL, *to = NULL, *step = NULL;
    int n = config_setting_length(g);
    for (int i = 0; i < n; i++) {
        const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
        const char *name = config_setting_name(s);
        char path[320]; /* prefix (< 256) and a field name */
        snprintf(path, sizeof path, "%s.%s", prefix, name);
        if (!strcmp(name, "knob")) knob = s;
        else if (!strcmp(name, "values")) values = s;
        else if (!strcmp(name, "from")) from = s;
        else if (!strcmp(name, "to")) to = s;
        else if (!strcmp(name, "step")) step = s;
        else return unknown(c, s, path, known);
    }
    char path[320]; /* prefix (< 256) and a field name */
    if (!knob)
        return elk_fail(c->err, ELK_EMISSING, "%s:%d: missing required field '%s.knob' (a string)", c->file, a->line,
                        prefix);
    snprintf(path, sizeof path, "%s.knob", prefix);
    ELK_TRY(elk_cfg_expect(c->file, c->err, knob, path, CONFIG_TYPE_STRING, CONFIG_TYPE_STRING, "a string"));
    int k = elk_knob_find(config_setting_get_string(knob));
    if (k < 0)
        return elk_fail(c->err, ELK_ERANGE,
                        "%s:%d: field '%s': \"%s\" is not a knob (knobs: hbm-tbps, noc-tbps, noc-scale, link-gbps, "
                        "cores, topology, sram-kib, compute-scale, hbm-controllers, hbm-broadcast, hbm-gbps-per-core, "
                        "batch, seq, layers, model, chip, workload)",
                        c->file, line_of(knob), path, config_setting_get_string(knob));
    a->knob = (elk_knob)k;
    a->line = line_of(knob);
    int range = from || to || step;
    if (values && range)
        return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s': give either 'values' or 'from'/'to'/'step', not both",
                        c->file, line_of(values), prefix);
    if (!values && !range)
        return elk_fail(c->err, ELK_EMISSING,
                        "%s:%d: missing required field '%s.values' (an array, or 'from', 'to' and 'step')", c->file,
                        a->line, prefix);
    if (range) return parse_axis_range(c, prefix, a, from, to, step);
    return parse_axis_values(c, prefix, a, values);
}

static elk_status parse_axes(ctx_t *c, const config_setting_t *l, const char *prefix, elk_sweep_block *b)
{
    ELK_TRY(elk_cfg_expect(c->file, c->err, l, prefix, CONFIG_TYPE_LIST, CONFIG_TYPE_LIST, "a list ( { knob = ...; }, ... )"));
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
    ELK_TRY(elk_cfg_expect(c->file, c->err, s, path, CONFIG_TYPE_STRING, CONFIG_TYPE_STRING, "\"cross\" or \"zip\""));
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
    ELK_TRY(elk_cfg_expect(c->file, c->err, s, path, CONFIG_TYPE_STRING, CONFIG_TYPE_STRING, "a string"));
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
    ELK_TRY(elk_cfg_expect(c->file, c->err, g, prefix, CONFIG_TYPE_GROUP, CONFIG_TYPE_GROUP, "a group { name = ...; axes = ...; }"));
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
        ELK_TRY(elk_point_apply_cfg(c->file, c->err, base, path, &p->base));
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
    if (s->carried) {
        add_col(s, ELK_COL_METRIC, M_POINTWISE, elk_sweep_metrics[M_POINTWISE].name);
        add_col(s, ELK_COL_METRIC, M_CARRIED_FROM, elk_sweep_metrics[M_CARRIED_FROM].name);
    }
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

static unsigned long long fnv(unsigned long long h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h ^ 0xff;
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

/* Element i of an array of strings: its text, its line (the array's when
 * libconfig gives none) and its path, or an error naming what was due. */
static elk_status string_elem(ctx_t *c, const config_setting_t *arr, int i, const char *prefix, const char *what,
                              const char **v, int *line, char *path, size_t pn)
{
    const config_setting_t *e = config_setting_get_elem(arr, (unsigned)i);
    snprintf(path, pn, "%s.[%d]", prefix, i);
    *line = line_of(e) ? line_of(e) : line_of(arr);
    if (config_setting_type(e) != CONFIG_TYPE_STRING)
        return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s': expected %s (string), found %s", c->file, *line, path,
                        what, elk_cfg_type_name(config_setting_type(e)));
    *v = config_setting_get_string(e);
    return ELK_OK;
}

/* sweep.policies: names, each once (default: all five). */
static elk_status parse_policies(ctx_t *c, const config_setting_t *pols, elk_sweep *s)
{
    s->policy_mask = (1u << ELK_POL_COUNT) - 1;
    if (!pols) return ELK_OK;
    ELK_TRY(elk_cfg_expect(c->file, c->err, pols, "sweep.policies", CONFIG_TYPE_ARRAY, CONFIG_TYPE_LIST,
                        "an array of policy names [\"basic\", ...]"));
    s->policy_mask = 0;
    int np = config_setting_length(pols);
    for (int i = 0; i < np; i++) {
        char path[64];
        const char *name = NULL;
        int line;
        ELK_TRY(string_elem(c, pols, i, "sweep.policies", "a policy name", &name, &line, path, sizeof path));
        int p = elk_policy_find(name);
        if (p < 0)
            return elk_fail(c->err, ELK_ERANGE,
                            "%s:%d: field '%s': \"%s\" is not a policy (basic, static, elk-dyn, elk-full, ideal)",
                            c->file, line, path, name);
        if (s->policy_mask & (1u << p))
            return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s': policy \"%s\" listed twice", c->file, line,
                            path, elk_policy_names[p]);
        s->policy_mask |= 1u << p;
    }
    if (!s->policy_mask)
        return elk_fail(c->err, ELK_EFIELD, "%s:%d: field 'sweep.policies': empty; name at least one policy",
                        c->file, line_of(pols));
    return ELK_OK;
}

/* sweep.outputs: extra columns after the columns build_columns made. */
static elk_status parse_outputs(ctx_t *c, const config_setting_t *outs, elk_sweep *s)
{
    if (!outs) return ELK_OK;
    ELK_TRY(elk_cfg_expect(c->file, c->err, outs, "sweep.outputs", CONFIG_TYPE_ARRAY, CONFIG_TYPE_LIST,
                        "an array of column names [\"noc_tbps\", ...]"));
    int no = config_setting_length(outs);
    for (int i = 0; i < no; i++) {
        char path[64];
        const char *on = NULL;
        int line;
        ELK_TRY(string_elem(c, outs, i, "sweep.outputs", "a column name", &on, &line, path, sizeof path));
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
    return ELK_OK;
}

/* sweep.parts (or the one unnamed part), then the point count, bounded
 * before anything is expanded. */
static elk_status parse_parts(ctx_t *c, const config_setting_t *root, const config_setting_t *parts, elk_sweep *s)
{
    if (parts) {
        ELK_TRY(elk_cfg_expect(c->file, c->err, parts, "sweep.parts", CONFIG_TYPE_LIST, CONFIG_TYPE_LIST, "a list ( { ... }, ... )"));
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
    return ELK_OK;
}

/* Every point must resolve (its presets load, its chip is valid); each
 * preset is read once, not once per point. An error names the line of the
 * point's part (or of the axes) and the point's knobs. */
static elk_status resolve_points(ctx_t *c, const config_setting_t *root, const config_setting_t *axes,
                                 const config_setting_t *parts, const elk_sweep *s)
{
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
            elk_sweep_describe_point(s, i, d, sizeof d);
            int line = s->named_parts ? line_of(config_setting_get_elem(parts, (unsigned)part))
                                      : (axes ? line_of(axes) : line_of(root));
            bad = elk_fail(c->err, st, "%s:%d: point %ld%s%s%s: %s", c->file, line, i, d[0] ? " (" : "", d,
                           d[0] ? ")" : "", e.msg);
        }
    }
    preset_cache_free(&pc);
    return bad;
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
    if (base) ELK_TRY(elk_point_apply_cfg(c->file, c->err, base, "sweep.base", &s->base));
    if (mode) ELK_TRY(parse_mode(c, mode, "sweep.mode", &s->top.zip));
    if (axes) {
        ELK_TRY(parse_axes(c, axes, "sweep.axes", &s->top));
        ELK_TRY(block_count(c, &s->top, "sweep.axes"));
    } else {
        s->top.count = 1;
    }
    ELK_TRY(parse_parts(c, root, parts, s));
    ELK_TRY(parse_policies(c, pols, s));
    s->carried = elk_sweep_carry_applies(s);
    build_columns(s);
    ELK_TRY(parse_outputs(c, outs, s));
    s->fig.kind = -1;
    if (fig) {
        ELK_TRY(elk_cfg_expect(c->file, c->err, fig, "sweep.figure", CONFIG_TYPE_GROUP, CONFIG_TYPE_GROUP,
                            "a group { kind = \"lines\"; ... }"));
        ELK_TRY(elk_cfg_apply(fig, c->file, "sweep.figure", fig_schema, &s->fig, c->err));
    }
    default_figure(s);
    ELK_TRY(check_fig_cols(c, s, fig));

    return resolve_points(c, root, axes, parts, s);
}

static elk_status fingerprint(elk_sweep *s, elk_error *err);

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
    if ((st = fingerprint(s, err)) != ELK_OK) elk_sweep_free(s);
    return st;
}

/* The sweep's id: its name, columns, policies and every point. */
static elk_status fingerprint(elk_sweep *s, elk_error *err)
{
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
        ELK_TRY(elk_sweep_point(s, i, &p, NULL, err));
        elk_sweep_point_key(&p, 0, k, sizeof k);
        h = fnv(h, k);
    }
    s->id = h;
    return ELK_OK;
}

static int block_has(const elk_sweep_block *b, elk_knob k)
{
    for (int a = 0; a < b->naxes; a++)
        if (b->axis[a].knob == k) return 1;
    return 0;
}

elk_status elk_sweep_set_pointwise(elk_sweep *s, elk_error *err)
{
    if (!s->carried) return ELK_OK;
    /* the columns without the carried pair, the outputs kept in order */
    elk_sweep_col keep[ELK_SWEEP_MAX_COLS];
    int nk = 0;
    for (int i = 0; i < s->ncols; i++)
        if (!(s->cols[i].kind == ELK_COL_METRIC && (s->cols[i].id == M_POINTWISE || s->cols[i].id == M_CARRIED_FROM)))
            keep[nk++] = s->cols[i];
    memcpy(s->cols, keep, (size_t)nk * sizeof *keep);
    s->ncols = nk;
    s->carried = 0;
    return fingerprint(s, err);
}

elk_status elk_sweep_override(elk_sweep *s, elk_knob k, const char *value, elk_error *err)
{
    if (block_has(&s->top, k))
        return elk_fail(err, ELK_EINVAL, "%s: the sweep has an axis of %s; it cannot be overridden", s->path,
                        elk_knobs[k].name);
    for (int i = 0; i < s->nparts; i++)
        if (block_has(&s->part[i].block, k))
            return elk_fail(err, ELK_EINVAL, "%s: part %s has an axis of %s; it cannot be overridden", s->path,
                            s->part[i].name, elk_knobs[k].name);
    ELK_TRY(elk_point_set(&s->base, k, value, err));
    for (int i = 0; i < s->nparts; i++) ELK_TRY(elk_point_set(&s->part[i].base, k, value, err));
    return fingerprint(s, err);
}
