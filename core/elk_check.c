#include "elk_check.h"

#include <assert.h>
#include <dirent.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elk_cost.h"
#include "elk_retime.h"
#include "elk_sim.h"

#define ELK_CHECK_ROW_(id, name, desc) [ELK_CHECK_##id] = {name, desc},
const elk_check_info elk_check_invariants[ELK_CHECK_COUNT] = {ELK_CHECK_LIST(ELK_CHECK_ROW_)};
#undef ELK_CHECK_ROW_

/* ------------------------------------------------------------------ */
/* the space of presets */

static int cmp_name(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

static int list_presets(const char *kind, char names[][64], int max)
{
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/presets/%ss", elk_datadir(), kind);
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < max) {
        size_t l = strlen(de->d_name);
        if (l < 5 || l > 60 || strcmp(de->d_name + l - 4, ".cfg")) continue;
        snprintf(names[n++], 64, "%.*s", (int)(l - 4), de->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, 64, cmp_name);
    return n;
}

elk_status elk_check_space_init(elk_check_space *sp, elk_error *err)
{
    memset(sp, 0, sizeof *sp);
    sp->nchips = list_presets("chip", sp->chip_names, ELK_CHECK_MAX_PRESETS);
    sp->nmodels = list_presets("model", sp->model_names, ELK_CHECK_MAX_PRESETS);
    if (!sp->nchips || !sp->nmodels)
        return elk_fail(err, ELK_EIO, "%s/presets: no chip or no model presets found", elk_datadir());
    char path[1200];
    for (int i = 0; i < sp->nchips; i++) {
        elk_preset_path("chip", sp->chip_names[i], path, sizeof path);
        ELK_TRY(elk_chip_load(path, &sp->chips[i], err));
    }
    for (int i = 0; i < sp->nmodels; i++) {
        elk_preset_path("model", sp->model_names[i], path, sizeof path);
        ELK_TRY(elk_model_load(path, &sp->models[i], err));
    }
    /* Planning time grows about linearly with the core count (all five
     * policies: about 0.1 s at 1024 cores, 0.3 s at 4096, 0.6-1 s at 8192,
     * mostly plan enumeration, and a point plans five or so partners from
     * scratch). Up to 8192 a point took 0.5 s of CPU on average, 2000
     * points 8 minutes on two cores; 4096 halves the mean and still spans
     * several chips of every preset (1472 cores per IPU, 80 per tt-mesh
     * chip). Below 32 cores most large models fit no plan. */
    sp->cores_min = 32;
    sp->cores_max = 4096;
    return ELK_OK;
}

/* ------------------------------------------------------------------ */
/* flags */

void elk_check_args_set(elk_check_args *a, elk_knob k, const char *val)
{
    for (int i = 0; i < a->nargs; i++)
        if (a->knob[i] == k) {
            snprintf(a->val[i], sizeof a->val[i], "%s", val);
            return;
        }
    if (a->nargs >= ELK_CHECK_MAX_ARGS) return;
    a->knob[a->nargs] = k;
    snprintf(a->val[a->nargs], sizeof a->val[0], "%s", val);
    a->nargs++;
}

const char *elk_check_args_get(const elk_check_args *a, elk_knob k)
{
    for (int i = 0; i < a->nargs; i++)
        if (a->knob[i] == k) return a->val[i];
    return NULL;
}

elk_status elk_check_args_point(const elk_check_args *a, elk_point *p, elk_error *err)
{
    elk_point_defaults(p);
    for (int i = 0; i < a->nargs; i++) ELK_TRY(elk_point_set(p, a->knob[i], a->val[i], err));
    return ELK_OK;
}

void elk_check_args_line(const elk_check_args *a, char *buf, size_t n)
{
    size_t len = (size_t)snprintf(buf, n, "elk run");
    for (int i = 0; i < a->nargs && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, " --%s %s", elk_knobs[a->knob[i]].name, a->val[i]);
}

/* ------------------------------------------------------------------ */
/* drawing */

/* splitmix64: a seed for point k that depends on (seed, k) alone */
static unsigned long point_seed(unsigned long seed, int k)
{
    uint64_t z = (uint64_t)seed * 0x9E3779B97F4A7C15ull + (uint64_t)(unsigned)k + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    unsigned long s = (unsigned long)(z & 0xffffffffu);
    return s ? s : 1;
}

static double log_uniform(gsl_rng *r, double lo, double hi)
{
    return exp(log(lo) + gsl_rng_uniform(r) * (log(hi) - log(lo)));
}

/* v to d significant digits, as short plain text ("7.31", "1230") */
static void fmt_sig(char *buf, size_t n, double v, int d)
{
    int e = (int)floor(log10(v));
    int dec = d - 1 - e;
    if (dec >= 0) {
        snprintf(buf, n, "%.*f", dec, v);
    } else {
        double q = pow(10, -dec);
        snprintf(buf, n, "%.0f", round(v / q) * q);
    }
}

static int sig_int(double v, int d)
{
    char b[40];
    fmt_sig(b, sizeof b, v, d);
    int x = (int)strtod(b, NULL);
    return x < 1 ? 1 : x;
}

static void set_int(elk_check_args *a, elk_knob k, int v)
{
    char b[40];
    snprintf(b, sizeof b, "%d", v);
    elk_check_args_set(a, k, b);
}

static void set_sig(elk_check_args *a, elk_knob k, double v, int d)
{
    char b[40];
    fmt_sig(b, sizeof b, v, d);
    elk_check_args_set(a, k, b);
}

/* The nearest 2^a or 3 x 2^a: core counts with awkward factors (130, 4400)
 * leave some small operators with no plan that meets the planner's
 * utilisation and padding thresholds, which would only add skips. */
static int nice_cores(double x)
{
    int best = 1;
    for (int c = 1; c <= (1 << 22); c *= 2) {
        const int cand[2] = {c, 3 * c};
        for (int q = 0; q < 2; q++)
            if (fabs(log(cand[q] / x)) < fabs(log(best / x))) best = cand[q];
    }
    return best;
}

void elk_check_draw(const elk_check_space *sp, unsigned long seed, int k, elk_check_args *a)
{
    memset(a, 0, sizeof *a);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r) return;
    gsl_rng_set(r, point_seed(seed, k));
    int ci = (int)gsl_rng_uniform_int(r, (unsigned long)sp->nchips);
    int mi = (int)gsl_rng_uniform_int(r, (unsigned long)sp->nmodels);
    const elk_chip *c = &sp->chips[ci];
    const elk_model *m = &sp->models[mi];
    static const elk_workload wls[] = {ELK_WL_DECODE, ELK_WL_PREFILL, ELK_WL_TRAIN_FWD};
    elk_workload wl = wls[gsl_rng_uniform_int(r, 3)];
    int topo = (int)gsl_rng_uniform_int(r, ELK_TOPO_COUNT);
    int maxl = m->layers < 4 ? m->layers : 4;
    int layers = 1 + (int)gsl_rng_uniform_int(r, (unsigned long)maxl);
    int cores = nice_cores(log_uniform(r, sp->cores_min, sp->cores_max));
    int batch, seq;
    if (wl == ELK_WL_DECODE) {
        batch = sig_int(log_uniform(r, 1, 64), 2);
        seq = sig_int(log_uniform(r, 128, 4096), 2);
    } else {
        batch = sig_int(log_uniform(r, 1, 8), 1);
        seq = sig_int(log_uniform(r, 32, 1024), 2);
    }
    double hbm = c->hbm_tbps * log_uniform(r, 0.25, 4);
    double noc = log_uniform(r, 0.25, 4);
    double sram_lo = c->reserved_kib * 1.5 + 16;
    double sram = c->sram_kib * log_uniform(r, 0.5, 2);
    if (sram < sram_lo) sram = sram_lo;
    double comp = log_uniform(r, 0.5, 2);
    double link = gsl_rng_uniform(r) < 0.5 ? c->link_gbps * log_uniform(r, 0.5, 2) : 0;
    int ctrl = gsl_rng_uniform(r) < 0.5 ? 1 << gsl_rng_uniform_int(r, 6) : 0;
    gsl_rng_free(r);

    elk_check_args_set(a, ELK_KNOB_CHIP, sp->chip_names[ci]);
    elk_check_args_set(a, ELK_KNOB_MODEL, sp->model_names[mi]);
    elk_check_args_set(a, ELK_KNOB_WORKLOAD, elk_workload_names[wl]);
    set_int(a, ELK_KNOB_BATCH, batch);
    set_int(a, ELK_KNOB_SEQ, seq);
    set_int(a, ELK_KNOB_LAYERS, layers);
    set_int(a, ELK_KNOB_CORES, cores);
    elk_check_args_set(a, ELK_KNOB_TOPOLOGY, elk_topology_names[topo]);
    set_sig(a, ELK_KNOB_HBM_TBPS, hbm, 3);
    set_sig(a, ELK_KNOB_NOC_SCALE, noc, 3);
    if (link > 0) set_sig(a, ELK_KNOB_LINK_GBPS, link, 3);
    set_sig(a, ELK_KNOB_SRAM_KIB, sram, 3);
    set_sig(a, ELK_KNOB_COMPUTE_SCALE, comp, 3);
    if (ctrl) set_int(a, ELK_KNOB_HBM_CONTROLLERS, ctrl);
}

/* ------------------------------------------------------------------ */
/* results */

void elk_check_result_free(elk_check_result *r)
{
    free(r->viol);
    r->viol = NULL;
    r->nviol = r->cap = 0;
}

static void result_init(elk_check_result *r, const elk_check_args *a, int index)
{
    memset(r, 0, sizeof *r);
    r->index = index;
    r->args = *a;
    for (int p = 0; p < ELK_POL_COUNT; p++) r->sim_err[p] = NAN;
}

/* Returns the violation added, or NULL when it could not be stored. */
__attribute__((format(printf, 6, 7))) static elk_check_violation *add(elk_check_result *r, elk_check_inv inv,
                                                                      int policy, int warning,
                                                                      const elk_check_args *b, const char *fmt, ...)
{
    if (r->nviol == r->cap) {
        int cap = r->cap ? 2 * r->cap : 8;
        elk_check_violation *v = realloc(r->viol, (size_t)cap * sizeof *v);
        if (!v) return NULL; /* out of memory: the violation is lost, the count below is not */
        r->viol = v;
        r->cap = cap;
    }
    elk_check_violation *v = &r->viol[r->nviol++];
    memset(v, 0, sizeof *v);
    v->inv = inv;
    v->policy = policy;
    v->warning = warning;
    v->rule = -1;
    v->cause = -1;
    v->klass = -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->msg, sizeof v->msg, fmt, ap);
    va_end(ap);
    elk_check_args_line(&r->args, v->repro[0], sizeof v->repro[0]);
    if (b) elk_check_args_line(b, v->repro[1], sizeof v->repro[1]);
    return v;
}

#define LBL(p) elk_policy_labels[p]

const char *const elk_check_class_names[ELK_CHECK_CLASS_COUNT] = {
#define ELK_CK_NAME(id, name, help) name,
    ELK_CHECK_CLASSES(ELK_CK_NAME)
#undef ELK_CK_NAME
};
const char *const elk_check_class_help[ELK_CHECK_CLASS_COUNT] = {
#define ELK_CK_HELP(id, name, help) help,
    ELK_CHECK_CLASSES(ELK_CK_HELP)
#undef ELK_CK_HELP
};

int elk_check_is_violation(const elk_check_violation *v) { return !v->warning && v->rule < 0 && v->klass < 0; }

const char *const elk_check_cause_names[ELK_CHECK_CAUSE_COUNT] = {
#define ELK_CC_NAME(id, name, help) name,
    ELK_CHECK_CAUSES(ELK_CC_NAME)
#undef ELK_CC_NAME
};

/* ------------------------------------------------------------------ */
/* per-schedule invariants */

int elk_check_sram(const elk_sched_op *ops, int nops, double sram, double *used)
{
    for (int i = 0; i < nops; i++) {
        double u = ops[i].hot;
        for (int j = i + 1; j < nops; j++)
            if (ops[j].pre_end > ops[j].pre_start && ops[j].pre_start < ops[i].exe_end - 1e-6) u += ops[j].cold;
        if (!(u <= sram + 1e-6)) {
            if (used) *used = u;
            return i;
        }
    }
    return -1;
}

static int frac_ok(double v) { return v >= 0 && v <= 1 + ELK_CHECK_TOL; }

static void check_fractions(const elk_result *res, int p, elk_check_result *r)
{
    const elk_schedule *s = &res->pol[p];
    r->checks[ELK_CHECK_FRACTIONS]++;
    if (!(s->latency > 0 && isfinite(s->latency))) {
        add(r, ELK_CHECK_FRACTIONS, p, 0, NULL, "%s: latency %.6g cycles is not a positive number", LBL(p), s->latency);
        return;
    }
    const struct {
        const char *name;
        double v;
    } u[] = {{"hbm_util", s->hbm_util}, {"noc_util", s->noc_util}, {"noc_pre_util", s->noc_pre_util},
             {"noc_exe_util", s->noc_exe_util}};
    for (size_t k = 0; k < sizeof u / sizeof u[0]; k++)
        if (!frac_ok(u[k].v))
            add(r, ELK_CHECK_FRACTIONS, p, 0, NULL, "%s: %s = %.9g outside [0, 1]", LBL(p), u[k].name, u[k].v);
    if (res->have[ELK_POL_IDEAL]) {
        double pct = res->pct_ideal[p];
        if (!(pct > 0 && pct <= 100 * (1 + ELK_CHECK_TOL)))
            add(r, ELK_CHECK_FRACTIONS, p, 0, NULL, "%s: %% of Ideal = %.9g outside (0, 100]", LBL(p), pct);
    }
    double sum = 0;
    for (int k = 0; k < ELK_BRK_COUNT; k++) {
        sum += s->brk[k];
        if (!(s->brk[k] >= -ELK_CHECK_TOL * s->latency))
            add(r, ELK_CHECK_FRACTIONS, p, 0, NULL, "%s: breakdown part '%s' = %.6g cycles is negative", LBL(p),
                elk_brk_names[k], s->brk[k]);
    }
    if (!(fabs(sum - s->latency) <= ELK_CHECK_TOL_BRK * s->latency))
        add(r, ELK_CHECK_FRACTIONS, p, 0, NULL, "%s: breakdown sums to %.9g cycles, latency %.9g (rel diff %.3g)",
            LBL(p), sum, s->latency, (sum - s->latency) / s->latency);
    if (!(s->tflops >= 0 && isfinite(s->tflops)))
        add(r, ELK_CHECK_FRACTIONS, p, 0, NULL, "%s: TFLOPS = %.6g", LBL(p), s->tflops);
}

static void check_bytes(const elk_problem *pr, const elk_schedule *s, int p, elk_check_result *r)
{
    const elk_graph *g = &pr->graph;
    r->checks[ELK_CHECK_HBM_BYTES]++;
    if (s->nops != g->nops) {
        add(r, ELK_CHECK_HBM_BYTES, p, 0, NULL, "%s: schedule has %d ops, graph %d", LBL(p), s->nops, g->nops);
        return;
    }
    /* Ideal, a bound, preloads the tensors' bytes without the padding */
    double pad = 0;
    for (int i = 0; p != ELK_POL_IDEAL && i < g->nops; i++) pad += g->ops[i].hbm_pad;
    double pre = 0, want = g->weight_bytes + g->kv_bytes + pad;
    int bad = 0, first = -1;
    double tol = ELK_CHECK_TOL * s->latency + 1e-6;
    for (int i = 0; i < g->nops; i++) {
        const elk_sched_op *o = &s->ops[i];
        if (o->pre_end > o->pre_start) pre += g->ops[i].hbm_bytes - (p == ELK_POL_IDEAL ? g->ops[i].hbm_pad : 0);
        /* Ideal (the fluid bound) may stream an op's own preload while it
         * runs, but not end before it */
        double by = p == ELK_POL_IDEAL ? o->exe_end : o->exe_start;
        if (g->ops[i].hbm_bytes > 0 && !(o->pre_end > o->pre_start && o->pre_end <= by + tol)) {
            if (!bad++) first = i;
        }
    }
    if (!(fabs(pre - want) <= ELK_CHECK_TOL * want + 1e-6))
        add(r, ELK_CHECK_HBM_BYTES, p, 0, NULL,
            "%s: preloads carry %.17g B, the graph reads %.17g B from HBM (%.17g B of it padding)", LBL(p), pre, want,
            pad);
    if (bad) {
        const elk_sched_op *o = &s->ops[first];
        add(r, ELK_CHECK_HBM_BYTES, p, 0, NULL,
            "%s: %d op(s) with HBM bytes lack a preload ending by their execution; first %s (%.0f B): preload "
            "[%.6f, %.6f], executes from %.6f cycles",
            LBL(p), bad, g->ops[first].name, g->ops[first].hbm_bytes, o->pre_start, o->pre_end, o->exe_start);
    }
}

static void check_order(const elk_problem *pr, const elk_schedule *s, int p, elk_check_result *r)
{
    r->checks[ELK_CHECK_ORDER]++;
    int n = s->nops;
    double tol = ELK_CHECK_TOL * s->latency + 1e-6;
    int bad = 0, first = -1;
    for (int i = 0; i < n; i++) {
        const elk_sched_op *o = &s->ops[i];
        int ok = o->exe_end >= o->exe_start && (i == 0 || o->exe_start >= s->ops[i - 1].exe_end - tol);
        if (!ok && !bad++) first = i;
    }
    if (bad)
        add(r, ELK_CHECK_ORDER, p, 0, NULL,
            "%s: %d execution(s) out of program order or overlapping; first %s runs [%.6f, %.6f] after [%.6f, %.6f]",
            LBL(p), bad, pr->graph.ops[first].name, s->ops[first].exe_start, s->ops[first].exe_end,
            first ? s->ops[first - 1].exe_start : 0, first ? s->ops[first - 1].exe_end : 0);
    if (!s->order) return;
    char *seen = calloc((size_t)n + 1, 1);
    if (!seen) return;
    int perm = 1;
    for (int q = 0; q < n; q++) {
        int i = s->order[q];
        if (i < 0 || i >= n || seen[i]) perm = 0;
        else seen[i] = 1;
    }
    free(seen);
    if (!perm) {
        add(r, ELK_CHECK_ORDER, p, 0, NULL, "%s: the preload order is not a permutation of the %d ops", LBL(p), n);
        return;
    }
    int prev = -1, over = 0, fa = -1, fb = -1;
    for (int q = 0; q < n; q++) {
        int i = s->order[q];
        if (!(s->ops[i].pre_end > s->ops[i].pre_start)) continue;
        if (prev >= 0 && s->ops[i].pre_start < s->ops[prev].pre_end - tol && !over++) {
            fa = prev;
            fb = i;
        }
        prev = i;
    }
    if (over)
        add(r, ELK_CHECK_ORDER, p, 0, NULL,
            "%s: %d preload(s) overlap the one before in preload order; first %s [%.6f, %.6f] then %s [%.6f, %.6f]",
            LBL(p), over, pr->graph.ops[fa].name, s->ops[fa].pre_start, s->ops[fa].pre_end, pr->graph.ops[fb].name,
            s->ops[fb].pre_start, s->ops[fb].pre_end);
}

void elk_check_schedule(const elk_problem *pr, const elk_result *res, elk_check_result *r)
{
    const elk_graph *g = &pr->graph;
    r->checks[ELK_CHECK_FLOPS]++;
    double fl = 0;
    for (int i = 0; i < g->nops; i++) fl += g->ops[i].flops;
    if (!(fabs(fl - g->flops) <= ELK_CHECK_TOL * fabs(g->flops)))
        add(r, ELK_CHECK_FLOPS, -1, 0, NULL, "the operators' FLOPs sum to %.17g, the graph's total is %.17g", fl,
            g->flops);

    int hi = res->have[ELK_POL_IDEAL];
    double ideal = hi ? res->pol[ELK_POL_IDEAL].latency : 0;
    for (int p = 0; p < ELK_POL_COUNT; p++) {
        if (!res->have[p]) continue;
        const elk_schedule *s = &res->pol[p];
        if (hi && p != ELK_POL_IDEAL) {
            r->checks[ELK_CHECK_IDEAL_BOUND]++;
            if (!(s->latency >= ideal * (1 - ELK_CHECK_TOL)))
                add(r, ELK_CHECK_IDEAL_BOUND, p, 0, NULL, "%s %.9g cycles < Ideal %.9g cycles (ratio %.6f)", LBL(p),
                    s->latency, ideal, s->latency / ideal);
        }
        if (res->have[ELK_POL_FULL] && p != ELK_POL_FULL && p != ELK_POL_IDEAL) {
            double full = res->pol[ELK_POL_FULL].latency;
            r->checks[ELK_CHECK_FULL_BEST]++;
            if (!(full <= s->latency * (1 + ELK_CHECK_TOL)))
                add(r, ELK_CHECK_FULL_BEST, p, 0, NULL, "Elk-Full %.9g cycles > %s %.9g cycles (ratio %.6f)", full,
                    LBL(p), s->latency, full / s->latency);
        }
        check_fractions(res, p, r);
        if (p != ELK_POL_IDEAL) {
            r->checks[ELK_CHECK_SRAM]++;
            double used = 0;
            int i = elk_check_sram(s->ops, s->nops, pr->sram, &used);
            if (i >= 0)
                add(r, ELK_CHECK_SRAM, p, 0, NULL, "%s: %s runs with %.0f B resident > %.0f B usable SRAM per core",
                    LBL(p), g->ops[i].name, used, pr->sram);
        }
        check_bytes(pr, s, p, r);
        check_order(pr, s, p, r);
    }
}

/* Plan the point the flags a make with policies mask: on ELK_OK the caller
 * owns pr and res; on failure neither is left to free. */
static elk_status plan_point(const elk_check_args *a, elk_plan_cache *pc, const elk_sched_opts *so, unsigned mask,
                             elk_problem *pr, elk_result *res, elk_error *err)
{
    elk_point pt;
    elk_status st = elk_check_args_point(a, &pt, err);
    if (st == ELK_OK) st = elk_problem_init(pr, &pt, pc, err);
    if (st == ELK_OK) {
        st = elk_result_run(pr, so, mask, res, err);
        if (st != ELK_OK) elk_problem_free(pr);
    }
    return st;
}

/* a with artifact rule k of profile turned off, everything else as drawn */
static elk_check_args without_rule(const elk_check_args *a, unsigned profile, int k)
{
    char spec[96];
    elk_profile_format(profile & ~(1u << k), spec, sizeof spec);
    elk_check_args b = *a;
    elk_check_args_set(&b, ELK_KNOB_PROFILE, spec);
    return b;
}

/* ------------------------------------------------------------------ */
/* simulation */


/* Whether policy p's schedule at a point passes the simulation invariant
 * inv (sim-estimate or sim-ideal): -1 when it cannot be planned or
 * simulated. */
/* The first of a simulation's utilisations outside [0, 1], by name (its
 * value in *v), or NULL. */
static const char *sim_bad_fraction(const elk_sim_result *sr, double *v)
{
    const struct {
        const char *name;
        double v;
    } u[] = {{"hbm_util", sr->hbm_util},   {"noc_util", sr->noc_util}, {"noc_pre_util", sr->noc_pre_util},
             {"noc_exe_util", sr->noc_exe_util}, {"link_max", sr->link_max}, {"link_mean", sr->link_mean}};
    for (size_t k = 0; k < sizeof u / sizeof u[0]; k++)
        if (!frac_ok(u[k].v)) {
            *v = u[k].v;
            return u[k].name;
        }
    return NULL;
}

static int sim_holds(const elk_problem *pr, const elk_result *res, int p, elk_check_inv inv, double *est_out,
                     double *sim_out, const char **bad, double *bad_v, elk_error *err)
{
    elk_sim_opts so;
    elk_sim_opts_default(&so);
    elk_sim_result sr;
    memset(&sr, 0, sizeof sr);
    if (elk_sim_run(pr, &res->pol[p], &so, &sr, err) != ELK_OK) {
        elk_sim_result_free(&sr);
        return -1;
    }
    double est = res->pol[p].latency, sim = sr.latency;
    if (bad) *bad = sim_bad_fraction(&sr, bad_v);
    elk_sim_result_free(&sr);
    if (est_out) *est_out = est;
    if (sim_out) *sim_out = sim;
    if (inv == ELK_CHECK_SIM_ESTIMATE) return fabs((est - sim) / sim) <= ELK_CHECK_SIM_TOL;
    double ideal = res->have[ELK_POL_IDEAL] ? res->pol[ELK_POL_IDEAL].latency : 0;
    return !(ideal > 0) || sim >= ideal * (1 - ELK_CHECK_SIM_IDEAL_TOL);
}

/* The one artifact rule whose removal alone makes policy p's simulation at
 * the point pass inv (the rule is a cost charge the simulator does not
 * replay: the estimate is the artifact's number, docs/VALIDATION.md), or -1. */
static int sim_rule_behind(const elk_check_args *a, unsigned profile, int p, elk_check_inv inv, elk_plan_cache *pc,
                           const elk_sched_opts *so)
{
    unsigned mask = (1u << p) | (inv == ELK_CHECK_SIM_IDEAL ? 1u << ELK_POL_IDEAL : 0);
    for (int k = 0; k < ELK_PSW_COUNT; k++) {
        if (!(profile & (1u << k))) continue;
        elk_check_args b = without_rule(a, profile, k);
        elk_error err;
        elk_problem pr;
        elk_result res;
        if (plan_point(&b, pc, so, mask, &pr, &res, &err) != ELK_OK) continue;
        int ok = sim_holds(&pr, &res, p, inv, NULL, NULL, NULL, NULL, &err);
        elk_result_free(&res);
        elk_problem_free(&pr);
        if (ok == 1) return k;
    }
    return -1;
}

/* replay: Elk-Dyn's and Elk-Full's schedules replayed at their own point
 * (elk_schedule_replay) take the cycles they report. Elk-Full's schedule
 * adopted from Static or Basic is theirs, timed by their rules, and is not
 * replayed. */
static void check_replay(const elk_problem *pr, const elk_result *res, const elk_sched_opts *so, elk_check_result *r)
{
    static const elk_policy pols[] = {ELK_POL_DYN, ELK_POL_FULL};
    for (size_t k = 0; k < sizeof pols / sizeof pols[0]; k++) {
        elk_policy p = pols[k];
        const elk_schedule *s = &res->pol[p];
        if (!res->have[p] || !s->ops) continue;
        if (p == ELK_POL_FULL && s->adopted >= 0 && s->adopted != ELK_POL_DYN) continue;
        r->checks[ELK_CHECK_REPLAY]++;
        elk_schedule rs;
        elk_error err;
        if (elk_schedule_replay(pr, s, elk_retime_policy(s, p), so, &rs, &err) != ELK_OK) {
            add(r, ELK_CHECK_RUNS, p, 0, NULL, "%s: replaying its schedule fails: %s", LBL(p), err.msg);
            continue;
        }
        if (!rs.ops)
            add(r, ELK_CHECK_REPLAY, p, 0, NULL, "%s: its schedule's decisions, replayed, fit no schedule", LBL(p));
        else if (fabs(rs.latency - s->latency) > ELK_CHECK_TOL * s->latency)
            add(r, ELK_CHECK_REPLAY, p, 0, NULL, "%s: latency %.9g cycles, its schedule replayed %.9g (ratio %.6f)",
                LBL(p), s->latency, rs.latency, rs.latency / s->latency);
        elk_schedule_free(&rs);
    }
}

static void check_sim(const elk_problem *pr, const elk_result *res, elk_plan_cache *pc, const elk_sched_opts *so,
                      elk_check_result *r)
{
    double ideal = res->have[ELK_POL_IDEAL] ? res->pol[ELK_POL_IDEAL].latency : 0;
    unsigned prof = pr->chip.profile;
    /* the artifact's scalar mesh is no network: the simulator replays the
     * links the estimate does not have, so a miss is that rule's */
    int scalar = elk_chip_mesh_scalar(&pr->chip) > 0;
    for (int p = 0; p < ELK_POL_COUNT; p++) {
        if (!res->have[p]) continue;
        r->checks[ELK_CHECK_SIM_ESTIMATE]++;
        double est = 0, sim = 0, bad_v = 0;
        const char *bad = NULL;
        elk_error err;
        int held = sim_holds(pr, res, p, ELK_CHECK_SIM_ESTIMATE, &est, &sim, &bad, &bad_v, &err);
        if (held < 0) {
            add(r, ELK_CHECK_SIM_ESTIMATE, p, 0, NULL, "%s: the simulation failed: %s", LBL(p), err.msg);
            continue;
        }
        /* the simulator's utilisations are fractions too (the TUI and
         * `elk run --sim` print them) */
        r->checks[ELK_CHECK_FRACTIONS]++;
        if (bad) add(r, ELK_CHECK_FRACTIONS, p, 0, NULL, "%s: simulated %s = %.9g outside [0, 1]", LBL(p), bad, bad_v);
        double e = (est - sim) / sim;
        if (p != ELK_POL_IDEAL) r->sim_err[p] = e;
        /* Ideal is a bound, not a schedule the machine runs: its replay may
         * only be slower (sim-ideal below), not close */
        if (p != ELK_POL_IDEAL && !held) {
            elk_check_violation *v =
                add(r, ELK_CHECK_SIM_ESTIMATE, p, 0, NULL,
                    "%s: estimate %.6g cycles, simulated %.6g cycles: error %+.2f%% beyond +-%.0f%%", LBL(p), est, sim,
                    100 * e, 100 * ELK_CHECK_SIM_TOL);
            if (v && scalar) v->rule = ELK_PSW_MESHSCALAR;
            else if (v && prof) v->rule = sim_rule_behind(&r->args, prof, p, ELK_CHECK_SIM_ESTIMATE, pc, so);
        }
        if (ideal > 0) {
            r->checks[ELK_CHECK_SIM_IDEAL]++;
            if (!(sim >= ideal * (1 - ELK_CHECK_SIM_IDEAL_TOL))) {
                elk_check_violation *v =
                    add(r, ELK_CHECK_SIM_IDEAL, p, 0, NULL,
                        "%s: simulated %.6g cycles < Ideal's estimate %.6g cycles x (1 - %g) (ratio %.4f)", LBL(p), sim,
                        ideal, ELK_CHECK_SIM_IDEAL_TOL, sim / ideal);
                if (v && scalar) v->rule = ELK_PSW_MESHSCALAR;
                else if (v && prof) v->rule = sim_rule_behind(&r->args, prof, p, ELK_CHECK_SIM_IDEAL, pc, so);
            }
        }
    }
}

/* ------------------------------------------------------------------ */
/* pairs */

/* Plan a partner point: 1 planned, 0 skipped (no plan fits), -1 failed
 * (a RUNS violation has been added). */
static int plan_pair(const elk_check_args *b, elk_plan_cache *pc, const elk_sched_opts *so, unsigned mask,
                     elk_check_result *r, elk_problem *pr, elk_result *res)
{
    elk_error err;
    r->checks[ELK_CHECK_RUNS]++;
    elk_status st = plan_point(b, pc, so, mask, pr, res, &err);
    if (st == ELK_OK) {
        r->pairs_run++;
        return 1;
    }
    if (st == ELK_ENOPLAN) {
        r->pairs_skipped++;
        return 0;
    }
    add(r, ELK_CHECK_RUNS, -1, 0, b, "the partner point fails: %s", err.msg);
    return -1;
}

/* Latency of policy p at a point, or -1 when it cannot be planned. */
static double plan_latency(const elk_check_args *a, elk_plan_cache *pc, const elk_sched_opts *so, int p)
{
    elk_error err;
    elk_problem pr;
    elk_result res;
    if (plan_point(a, pc, so, 1u << p, &pr, &res, &err) != ELK_OK) return -1;
    double lat = res.pol[p].latency;
    elk_result_free(&res);
    elk_problem_free(&pr);
    return lat;
}

/* The one artifact rule of the profile whose removal alone makes Ideal at
 * the doubled batch (hi) no faster than at lo: an elk_profile_switch, or -1
 * when no single rule explains the inversion. Both points are re-planned
 * with the rule off, everything else as drawn. Only the batch pair asks: a
 * resource pair of Ideal or Elk-Full is classified alike in both profiles. */
static int rule_behind(const elk_check_args *lo, const elk_check_args *hi, unsigned profile, elk_plan_cache *pc,
                       const elk_sched_opts *so)
{
    for (int k = 0; k < ELK_PSW_COUNT; k++) {
        if (!(profile & (1u << k))) continue;
        elk_check_args l = without_rule(lo, profile, k), h = without_rule(hi, profile, k);
        double a = plan_latency(&l, pc, so, ELK_POL_IDEAL), c = a > 0 ? plan_latency(&h, pc, so, ELK_POL_IDEAL) : -1;
        if (a <= 0 || c <= 0) continue;
        if (c >= a * (1 - ELK_CHECK_TOL)) return k;
    }
    return -1;
}

/* The context of a metamorphic pair: the two points' flags (lo has less of
 * the resource), the partner's (b, for the reproducer line), the base
 * point's cost profile, and the cache and options to re-plan them with. */
typedef struct {
    const elk_check_args *lo, *hi, *b;
    unsigned profile;
    elk_plan_cache *pc;
    const elk_sched_opts *so;
    double retimed; /* Elk-Full's schedule at lo re-timed at hi (check_retime), NAN: not replayed */
    double carry_tol; /* ELK_CHECK_CARRY_TOL_* of hi's topology */
    int hi_fixed;     /* hi's network or plan space is fixed by its core count: a mesh, torus or
                       * ring, or the artifact's plan tables (plantables), whose plans span
                       * every core */
    int held;         /* hi has every resource lo has (elk_chip_dominates): it runs lo's
                       * timeline exactly, which a carried series counts (elk_retime_full) */
} pair_ctx;

static int fixed_by_cores(const elk_chip *c)
{
    return c->topology != ELK_TOPO_ALL2ALL || (c->profile & (1u << ELK_PSW_PLANTABLES));
}

static double carry_tol(const elk_chip *hi)
{
    return hi->topology == ELK_TOPO_ALL2ALL ? ELK_CHECK_CARRY_TOL_A2A : ELK_CHECK_CARRY_TOL_GRID;
}

int elk_check_cause_of(elk_policy p, const elk_schedule *lo, const elk_schedule *hi)
{
    if (p != ELK_POL_FULL) return -1;
    if (lo->nops != hi->nops) return ELK_CHECK_CAUSE_GRAPH;
    return hi->adopted >= 0 ? ELK_CHECK_CAUSE_ADOPTED : ELK_CHECK_CAUSE_SEARCH;
}

/* The one artifact rule whose removal alone makes policy p's schedule at
 * x->lo, re-planned with the rule off, re-time no slower on chip hi with the
 * rule off too; -1 when no single rule explains it (as rule_behind, for
 * check_retime). */
static int retime_rule(const pair_ctx *x, const elk_chip *hi, elk_policy p)
{
    for (int k = 0; k < ELK_PSW_COUNT; k++) {
        if (!(x->profile & (1u << k))) continue;
        elk_check_args l = without_rule(x->lo, x->profile, k);
        elk_problem pr;
        elk_result res;
        elk_error err;
        if (plan_point(&l, x->pc, x->so, (1u << ELK_POL_COUNT) - 1, &pr, &res, &err) != ELK_OK) continue;
        const elk_schedule *s = &res.pol[p];
        elk_chip h = *hi;
        h.profile = pr.chip.profile;
        double a, b;
        double *tl = NULL;
        int ok = res.have[p] && elk_retime(&pr, s, elk_retime_policy(s, p), &pr.chip, x->so, NULL, &a, &tl, NULL, &err) == ELK_OK &&
                 elk_retime(&pr, s, elk_retime_policy(s, p), &h, x->so, tl, &b, NULL, NULL, &err) == ELK_OK &&
                 !isnan(a) && !isnan(b) && b <= a * (1 + ELK_CHECK_TOL);
        free(tl);
        elk_result_free(&res);
        elk_problem_free(&pr);
        if (ok) return k;
    }
    return -1;
}

/* lo's schedules replayed at lo itself, per policy: the cycles (NAN: not
 * yet replayed) and the timeline the replay ran (timeline_of), which the
 * re-timing at hi holds. */
typedef struct {
    double lat[ELK_POL_COUNT];
    double *tl[ELK_POL_COUNT];
} retime_home;

static void retime_home_init(retime_home *h)
{
    for (int p = 0; p < ELK_POL_COUNT; p++) {
        h->lat[p] = NAN;
        h->tl[p] = NULL;
    }
}

static void retime_home_free(retime_home *h)
{
    for (int p = 0; p < ELK_POL_COUNT; p++) free(h->tl[p]);
    retime_home_init(h);
}

/* retime-monotone: the schedules of the point with fewer resources (lo),
 * every policy's but Ideal's, re-timed with more (chip hi) on lo's graph,
 * take no longer than the same replay at lo itself. The cost model's side
 * of the pairs, which must hold exactly; the pair invariants add the
 * search's (and the fixed algorithms' rules). Elk-Full's schedule adopted
 * from another policy is that one's and is counted once. The timeline the
 * re-timing may hold is the replay's at lo, the one that ran the cycles it
 * is held to: a compiler at hi can hold it too. The plan's was held
 * before, which loses both ways: where the replay beats its plan (point
 * 302: Elk-Dyn's by 1.8 k cycles), held to the plan's the re-timing could
 * only match the plan; where the plan beats its replay (point 432, a ring:
 * the plan times an op beside a waiting op's layout its commit later
 * changes, the replay sees the final one), the plan's timeline is one the
 * replay cannot run at either point. home, when not NULL, keeps the
 * replays at lo across the pairs that share lo. Returns Elk-Full's
 * re-timed latency as the carried invariant counts it (the faster of its
 * decisions' replays, elk_retime_full; NAN when none fits). */
static double check_retime(elk_check_result *r, const elk_problem *lo, const elk_result *lres, const elk_chip *hi,
                           const pair_ctx *x, const char *lo_name, const char *hi_name, retime_home *home)
{
    const elk_sched_opts *so = x->so;
    static const elk_policy pols[] = {ELK_POL_BASIC, ELK_POL_STATIC, ELK_POL_DYN, ELK_POL_FULL};
    double hi_of[ELK_POL_COUNT];
    for (int p = 0; p < ELK_POL_COUNT; p++) hi_of[p] = NAN;
    double full_at = NAN;
    retime_home mine;
    retime_home_init(&mine);
    if (!home) home = &mine;
    for (size_t k = 0; k < sizeof pols / sizeof pols[0]; k++) {
        elk_policy p = pols[k];
        if (!lres->have[p]) continue;
        const elk_schedule *s = &lres->pol[p];
        if (p == ELK_POL_FULL && s->adopted >= 0 && lres->have[s->adopted]) {
            full_at = hi_of[s->adopted];
            continue;
        }
        elk_policy as = elk_retime_policy(s, p);
        double at_hi;
        elk_error err;
        elk_status st = ELK_OK;
        if (isnan(home->lat[p])) {
            st = elk_retime(lo, s, as, &lo->chip, so, NULL, &home->lat[p], &home->tl[p], NULL, &err);
        }
        double at_lo = home->lat[p];
        if (st != ELK_OK || elk_retime(lo, s, as, hi, so, home->tl[p], &at_hi, NULL, NULL, &err) != ELK_OK) {
            add(r, ELK_CHECK_RUNS, p, 0, x->b, "%s: re-timing %s's schedule at %s fails: %s", LBL(p), lo_name,
                hi_name, err.msg);
            continue;
        }
        if (isnan(at_lo)) continue; /* the replay does not reproduce it at all */
        r->checks[ELK_CHECK_RETIME_MONOTONE]++;
        hi_of[p] = at_hi;
        if (p == ELK_POL_FULL) full_at = at_hi;
        if (!isnan(at_hi) && at_hi <= at_lo * (1 + ELK_CHECK_TOL)) continue;
        elk_check_violation *v = add(r, ELK_CHECK_RETIME_MONOTONE, p, 0, x->b,
            "%s: its schedule at %s (replayed: %.9g cycles, planned %.9g) re-timed at %s takes %.9g cycles (ratio "
            "%.6f)",
            LBL(p), lo_name, at_lo, s->latency, hi_name, at_hi, at_hi / at_lo);
        if (v && lo->chip.profile && p != ELK_POL_FULL) v->rule = retime_rule(x, hi, p);
    }
    /* Elk-Full at hi may run Elk-Dyn's decisions it kept under its own
     * rules too (elk_retime_full), which the carried invariant counts */
    const elk_schedule *fs = &lres->pol[ELK_POL_FULL];
    if (lres->have[ELK_POL_FULL] && elk_retime_policy(fs, ELK_POL_FULL) == ELK_POL_DYN) {
        double t;
        elk_error err;
        if (elk_retime(lo, fs, ELK_POL_FULL, hi, so, NULL, &t, NULL, NULL, &err) == ELK_OK && t < full_at) full_at = t;
    }
    retime_home_free(&mine);
    return full_at;
}

/* hi (more of a resource) must not be slower than lo. Ideal is a bound, so
 * any inversion is a violation. Elk-Full's gated invariant is the carried
 * one: the faster of its own schedule at hi and lo's re-timed there
 * (x->retimed) within x->carry_tol of lo's; a pointwise inversion that
 * holds it is classified (elk_check_class), one that does not is a
 * violation. The fixed algorithms' inversions are warnings. Both cost
 * profiles are treated alike: no artifact rule excuses Ideal or Elk-Full. */
static void compare_pair(elk_check_result *r, elk_check_inv inv, const char *lo_name, const char *hi_name,
                         const elk_result *lo, const elk_result *hi, const pair_ctx *x)
{
    for (int p = 0; p < ELK_POL_COUNT; p++) {
        if (!lo->have[p] || !hi->have[p]) continue;
        int strict = p == ELK_POL_IDEAL || p == ELK_POL_FULL;
        double a = lo->pol[p].latency, c = hi->pol[p].latency;
        if (strict) r->checks[inv]++;
        if (c <= a * (1 + ELK_CHECK_TOL)) continue;
        const elk_schedule *sl = &lo->pol[p], *sh = &hi->pol[p];
        int cause = elk_check_cause_of((elk_policy)p, sl, sh);
        int klass = -1;
        if (inv == ELK_CHECK_CORES_MONOTONE && (p == ELK_POL_FULL || x->hi_fixed)) {
            klass = ELK_CHECK_CLASS_CORES;
        } else if (p == ELK_POL_FULL) {
            double t = x->retimed;
            if (!isnan(t) && t <= a * (1 + ELK_CHECK_TOL)) klass = ELK_CHECK_CLASS_MISSED;
            else if (x->held || (!isnan(t) && t <= a * (1 + x->carry_tol))) klass = ELK_CHECK_CLASS_RETIME;
        }
        char why[240] = "";
        size_t u = 0;
        if (cause == ELK_CHECK_CAUSE_GRAPH)
            u = (size_t)snprintf(why, sizeof why, "; cause: graph, %d operators against %d", sh->nops, sl->nops);
        else if (cause == ELK_CHECK_CAUSE_ADOPTED)
            u = (size_t)snprintf(why, sizeof why, "; cause: adopted, %s's schedule", LBL(sh->adopted));
        else if (cause == ELK_CHECK_CAUSE_SEARCH)
            u = (size_t)snprintf(why, sizeof why, "; cause: search");
        if (p == ELK_POL_FULL && inv != ELK_CHECK_CORES_MONOTONE && u < sizeof why) {
            if (x->held && !(x->retimed <= a * (1 + ELK_CHECK_TOL)))
                snprintf(why + u, sizeof why - u,
                         "; %s's schedule re-timed here: %.9g cycles (ratio %.6f), held to its own timeline: %.9g",
                         lo_name, x->retimed, x->retimed / a, a);
            else if (x->held)
                snprintf(why + u, sizeof why - u, "; %s's schedule re-timed here: %.9g cycles (ratio %.6f)", lo_name,
                         x->retimed, x->retimed / a);
            else
                snprintf(why + u, sizeof why - u, "; %s's schedule re-timed here: %.9g cycles (ratio %.6f, tolerance %g)",
                         lo_name, x->retimed, x->retimed / a, x->carry_tol);
        }
        const char *pre = !strict ? "not a violation: fixed algorithm; " : klass >= 0 ? "not a violation: " : "";
        elk_check_violation *v =
            add(r, inv, p, !strict, x->b, "%s%s: %s takes %.9g cycles, slower than %s's %.9g cycles (ratio %.6f)%s",
                pre, LBL(p), hi_name, c, lo_name, a, c / a, why);
        if (v) {
            v->cause = cause;
            v->klass = klass;
            v->ratio = c / a;
        }
    }
}

static void knob_value(const elk_check_args *a, const elk_problem *pr, elk_knob k, char *buf, size_t n)
{
    const char *t = elk_check_args_get(a, k);
    double v;
    if (t) v = strtod(t, NULL);
    else if (k == ELK_KNOB_LINK_GBPS) v = pr->chip.link_gbps;
    else if (k == ELK_KNOB_HBM_TBPS) v = pr->chip.hbm_tbps;
    else if (k == ELK_KNOB_NOC_SCALE) v = pr->chip.noc_scale;
    else if (k == ELK_KNOB_SRAM_KIB) v = pr->chip.sram_kib;
    else v = pr->chip.compute_scale;
    snprintf(buf, n, "%.6g", v * ELK_CHECK_RAISE);
}

static void check_pairs(const elk_check_space *sp, const elk_problem *base, const elk_result *res,
                        elk_plan_cache *pc, const elk_sched_opts *so, elk_check_result *r)
{
    (void)sp;
    const elk_check_args *a = &r->args;
    const unsigned all = (1u << ELK_POL_COUNT) - 1;
    static const elk_knob raise[] = {ELK_KNOB_HBM_TBPS, ELK_KNOB_NOC_SCALE, ELK_KNOB_LINK_GBPS, ELK_KNOB_SRAM_KIB,
                                     ELK_KNOB_COMPUTE_SCALE};
    retime_home home; /* the base point's schedules replayed at home (check_retime) */
    retime_home_init(&home);
    for (size_t k = 0; k < sizeof raise / sizeof raise[0]; k++) {
        elk_check_args b = *a;
        char v[40], lo[80], hi[80];
        knob_value(a, base, raise[k], v, sizeof v);
        elk_check_args_set(&b, raise[k], v);
        elk_problem pr;
        elk_result rb;
        if (plan_pair(&b, pc, so, all, r, &pr, &rb) != 1) continue;
        const char *t = elk_check_args_get(a, raise[k]);
        snprintf(lo, sizeof lo, "--%s %s", elk_knobs[raise[k]].name, t ? t : "(preset)");
        snprintf(hi, sizeof hi, "--%s %s", elk_knobs[raise[k]].name, v);
        pair_ctx x = {a, &b, &b, base->chip.profile, pc, so, NAN, carry_tol(&pr.chip), fixed_by_cores(&pr.chip),
                      elk_chip_dominates(&pr.chip, &base->chip)};
        x.retimed = check_retime(r, base, res, &pr.chip, &x, lo, hi, &home);
        compare_pair(r, ELK_CHECK_KNOB_MONOTONE, lo, hi, res, &rb, &x);
        elk_result_free(&rb);
        elk_problem_free(&pr);
    }

    /* topologies with more links: (fewer, more) */
    int topo = base->chip.topology;
    int partners[2], more[2], np = 0;
    if (topo == ELK_TOPO_MESH) {
        partners[np] = ELK_TOPO_TORUS, more[np++] = 1;
        partners[np] = ELK_TOPO_ALL2ALL, more[np++] = 1;
    } else if (topo == ELK_TOPO_TORUS || topo == ELK_TOPO_ALL2ALL) {
        partners[np] = ELK_TOPO_MESH, more[np++] = 0;
    }
    /* every pair has a mesh, which under the paper profile's "meshscalar"
     * is the artifact's scalar rule, not a network with fewer links than
     * the other side: the two are different models, not a resource apart */
    if (base->chip.profile & (1u << ELK_PSW_MESHSCALAR)) np = 0;
    for (int t = 0; t < np; t++) {
        elk_check_args b = *a;
        elk_check_args_set(&b, ELK_KNOB_TOPOLOGY, elk_topology_names[partners[t]]);
        elk_problem pr;
        elk_result rb;
        if (plan_pair(&b, pc, so, all, r, &pr, &rb) != 1) continue;
        const char *pn = elk_topology_names[partners[t]], *bn = elk_topology_names[topo];
        const elk_chip *hic = more[t] ? &pr.chip : &base->chip;
        pair_ctx x = {more[t] ? a : &b, more[t] ? &b : a, &b, base->chip.profile, pc, so, NAN, carry_tol(hic),
                      fixed_by_cores(hic), 0};
        x.retimed = more[t] ? check_retime(r, base, res, &pr.chip, &x, bn, pn, &home)
                            : check_retime(r, &pr, &rb, &base->chip, &x, pn, bn, NULL);
        if (more[t]) compare_pair(r, ELK_CHECK_TOPO_MONOTONE, bn, pn, res, &rb, &x);
        else compare_pair(r, ELK_CHECK_TOPO_MONOTONE, pn, bn, &rb, res, &x);
        elk_result_free(&rb);
        elk_problem_free(&pr);
    }

    retime_home_free(&home);

    /* cores raised 25% (the chips they fill: docs/PRESETS.md, Cores). No
     * re-timing: a plan partitions an operator over the point's own cores. */
    {
        long hc = lround(base->chip.cores * ELK_CHECK_RAISE);
        if (hc == base->chip.cores) hc++;
        if (hc <= ELK_CHIP_CORES_MAX) {
            elk_check_args b = *a;
            char v[40], lo[80], hi[80];
            snprintf(v, sizeof v, "%ld", hc);
            elk_check_args_set(&b, ELK_KNOB_CORES, v);
            elk_problem pr;
            elk_result rb;
            if (plan_pair(&b, pc, so, all, r, &pr, &rb) == 1) {
                snprintf(lo, sizeof lo, "--cores %d", base->chip.cores);
                snprintf(hi, sizeof hi, "--cores %ld", hc);
                pair_ctx x = {a, &b, &b, base->chip.profile, pc, so, NAN, carry_tol(&pr.chip), fixed_by_cores(&pr.chip),
                              0};
                compare_pair(r, ELK_CHECK_CORES_MONOTONE, lo, hi, res, &rb, &x);
                elk_result_free(&rb);
                elk_problem_free(&pr);
            }
        }
    }

    /* batch doubled: Ideal's step takes no less time */
    {
        elk_check_args b = *a;
        char v[40];
        snprintf(v, sizeof v, "%d", 2 * base->graph.batch);
        elk_check_args_set(&b, ELK_KNOB_BATCH, v);
        elk_problem pr;
        elk_result rb;
        if (plan_pair(&b, pc, so, 1u << ELK_POL_IDEAL, r, &pr, &rb) == 1) {
            double l1 = res->pol[ELK_POL_IDEAL].latency, l2 = rb.pol[ELK_POL_IDEAL].latency;
            r->checks[ELK_CHECK_BATCH_MONOTONE]++;
            if (!(l2 >= l1 * (1 - ELK_CHECK_TOL))) {
                elk_check_violation *v = add(r, ELK_CHECK_BATCH_MONOTONE, ELK_POL_IDEAL, 0, &b,
                                             "Ideal: batch %d takes %.9g cycles, batch %d %.9g cycles (ratio %.6f)",
                                             2 * base->graph.batch, l2, base->graph.batch, l1, l2 / l1);
                if (v && base->chip.profile)
                    v->rule = rule_behind(a, &b, base->chip.profile, pc, so);
            }
            elk_result_free(&rb);
            elk_problem_free(&pr);
        }
    }

    /* layers doubled: between 1x and 2.2x */
    int L = base->graph.nlayers;
    if (2 * L <= base->model.layers) {
        elk_check_args b = *a;
        char v[40];
        snprintf(v, sizeof v, "%d", 2 * L);
        elk_check_args_set(&b, ELK_KNOB_LAYERS, v);
        elk_problem pr;
        elk_result rb;
        if (plan_pair(&b, pc, so, (1u << ELK_POL_IDEAL) | (1u << ELK_POL_FULL), r, &pr, &rb) == 1) {
            const int pols[] = {ELK_POL_IDEAL, ELK_POL_FULL};
            for (int q = 0; q < 2; q++) {
                int p = pols[q];
                double ratio = rb.pol[p].latency / res->pol[p].latency;
                r->checks[ELK_CHECK_LAYERS_RATIO]++;
                if (!(ratio >= 1 - ELK_CHECK_TOL && ratio <= ELK_CHECK_LAYERS_MAX))
                    add(r, ELK_CHECK_LAYERS_RATIO, p, 0, &b,
                        "%s: %d layers take %.9g cycles, %d layers %.9g cycles: ratio %.6f outside [1, %g]", LBL(p),
                        2 * L, rb.pol[p].latency, L, res->pol[p].latency, ratio, ELK_CHECK_LAYERS_MAX);
            }
            elk_result_free(&rb);
            elk_problem_free(&pr);
        }
    } else {
        r->pairs_skipped++;
    }
}

/* ------------------------------------------------------------------ */

elk_status elk_check_eval(const elk_check_space *sp, const elk_check_args *a, int index, elk_check_result *r)
{
    result_init(r, a, index);
    elk_plan_cache *pc = elk_plan_cache_alloc();
    if (!pc) return ELK_ENOMEM;
    elk_error err;
    elk_problem pr;
    elk_result res;
    elk_sched_opts so;
    elk_sched_opts_default(&so);
    r->checks[ELK_CHECK_RUNS]++;
    elk_status st = plan_point(a, pc, &so, (1u << ELK_POL_COUNT) - 1, &pr, &res, &err);
    if (st == ELK_ENOPLAN) {
        r->skipped = 1;
        snprintf(r->skip_reason, sizeof r->skip_reason, "fits no plan: %s", err.msg);
    } else if (st != ELK_OK) {
        add(r, ELK_CHECK_RUNS, -1, 0, NULL, "the point fails: %s", err.msg);
    } else {
        r->nops = pr.graph.nops;
        r->ideal_ms = res.pol[ELK_POL_IDEAL].latency_ms;
        r->full_ms = res.pol[ELK_POL_FULL].latency_ms;
        elk_check_schedule(&pr, &res, r);
        check_replay(&pr, &res, &so, r);
        check_sim(&pr, &res, pc, &so, r);
        check_pairs(sp, &pr, &res, pc, &so, r);
        elk_result_free(&res);
        elk_problem_free(&pr);
    }
    elk_plan_cache_free(pc);
    return ELK_OK;
}
