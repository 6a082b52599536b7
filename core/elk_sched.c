#include "elk_sched_int.h"

#include <assert.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elk_cost.h"
#include "elk_grid.h"

#define ELK_POL_NAME(id, name, label, mark) name,
#define ELK_POL_LABEL(id, name, label, mark) label,
#define ELK_POL_MARK(id, name, label, mark) mark,
const char *const elk_policy_names[] = {ELK_POLICIES(ELK_POL_NAME) NULL};
const char *const elk_policy_labels[] = {ELK_POLICIES(ELK_POL_LABEL) NULL};
const char elk_policy_marks[ELK_POL_COUNT] = {ELK_POLICIES(ELK_POL_MARK)};
const char *const elk_brk_names[] = {"execute", "overlapped", "preload", "interconnect", "distribution", NULL};

int elk_policy_find(const char *name)
{
    for (int p = 0; p < ELK_POL_COUNT; p++)
        if (!strcmp(name, elk_policy_names[p]) || !strcmp(name, elk_policy_labels[p])) return p;
    if (!strcmp(name, "dyn")) return ELK_POL_DYN;
    if (!strcmp(name, "full")) return ELK_POL_FULL;
    return -1;
}

void elk_sched_opts_default(elk_sched_opts *o)
{
    memset(o, 0, sizeof *o);
    o->max_disp = 4;
    o->heavy_factor = 1.0;
    o->screen_layers = 2;
    o->finalists = 4;
    o->alloc = ELK_ALLOC_PAPER;
    o->static_step_kib = 10;
    o->window = 0;
    o->price = -1;
    o->cancel = NULL;
}

/* Elk-Dyn's NoC shares under the paper profile's "noccap". */
const double elk_sched_dyn_theta[3] = {0.9, 0.7, 0.5};

/* ------------------------------------------------------------------ */
/* Schedule state                                                       */




static double pre_noc_cycles(const elk_chip *c, double hbm, double deliv)
{
    if (hbm <= 0) return 0;
    double r = fmax(1.0, deliv / hbm);
    return hbm / elk_cost_preload_rate(c, r);
}

/* Preload duration and NoC time of op i with cold option k. */
static void set_cold(elk_sctx *x, int i, int k)
{
    const elk_menu *m = menu_of(x, i);
    const elk_menu_entry *e = &m->e[x->entry[i]];
    double h = hbm_of(x, i);
    x->copt[i] = k;
    if (e->nc == 0 || h <= 0) {
        x->cold[i] = 0;
        x->dist[i] = 0;
        x->deliv[i] = 0;
        x->dur[i] = 0;
        x->pace[i] = 0;
        x->nocT[i] = 0;
        x->hbmT[i] = 0;
        return;
    }
    const elk_menu_cold *mc = &m->cold[e->c0 + k];
    x->cold[i] = mc->cold;
    x->dist[i] = x->pol == ELK_POL_IDEAL ? 0 : mc->dist;
    x->deliv[i] = mc->deliv;
    /* a pure function of the run's chip and these three: kept */
    uint64_t hb, db;
    memcpy(&hb, &h, sizeof hb);
    memcpy(&db, &mc->deliv, sizeof db);
    uint64_t key = (hb ^ (db * 0x9E3779B97F4A7C15ull)) * 0xFF51AFD7ED558CCDull;
    int sl = (int)(key >> 58);
    if (x->pmemo[sl].h != h || x->pmemo[sl].deliv != mc->deliv || x->pmemo[sl].share != x->noc_share) {
        x->pmemo[sl].h = h;
        x->pmemo[sl].deliv = mc->deliv;
        x->pmemo[sl].share = x->noc_share;
        x->pmemo[sl].hbmT = h / elk_chip_hbm_bytes_per_cycle(x->c);
        x->pmemo[sl].dur = elk_sched_preload_dur(x->c, x->noc_share, h, mc->deliv, &x->pmemo[sl].noc);
    }
    x->hbmT[i] = x->pmemo[sl].hbmT;
    x->dur[i] = x->pmemo[sl].dur;
    x->nocT[i] = x->pmemo[sl].noc / x->noc_int;
    x->pace[i] = 0;
    if (x->replay && x->o->replay_pace && x->o->replay_pace[i] > x->dur[i]) x->dur[i] = x->pace[i] = x->o->replay_pace[i];
}

/* The cold option an op starts with: cheapest distribution plus the time its
 * preload would run past the HBM time because of replication. */
static int initial_cold(const elk_sctx *x, int i, int entry)
{
    const elk_menu *m = menu_of(x, i);
    const elk_menu_entry *e = &m->e[entry];
    if (e->nc <= 1) return 0;
    if (x->replay && x->o->replay_copt && x->o->replay_copt[i] >= 0) {
        assert(x->o->replay_copt[i] < e->nc);
        return x->o->replay_copt[i];
    }
    if (x->pol == ELK_POL_BASIC || x->pol == ELK_POL_STATIC) return x->variant ? e->nc - 1 : 0;
    if (x->o->alloc == ELK_ALLOC_ARTIFACT) return 0; /* preloads charged fully distributed */
    return e->eopt[x->price];
}

/* The artifact's baseline_cold_hot (paper profile "mincold"; docs/ARTIFACT.md): Basic's and Static's distributed variant takes the operator's least
 * preload size exactly and the fastest plan with that layout that fits the
 * budget; the replicated variant the largest preload size any fitting plan
 * has. Ours otherwise take the fastest fitting plan and its own least (or
 * most) replicated layout, which at 1472 cores avoids the artifact's slow
 * exactly-least-size plans of the attention matmuls (464k cycles against
 * 41k). Returns the entry (-1 if none) and its cold option in *kout. */
static int baseline_scan(const elk_sctx *x, int i, double budget, int *kout)
{
    const elk_menu *m = menu_of(x, i);
    *kout = 0;
    if (hbm_of(x, i) <= 0) return elk_menu_best(m, budget);
    double want = m->min_cold;
    if (x->variant) {
        want = -1;
        for (int e = 0; e < m->n && m->e[e].hot <= budget; e++)
            for (int k = 0; k < m->e[e].nc; k++) want = fmax(want, m->cold[m->e[e].c0 + k].cold);
    }
    int best = -1;
    double bt = INFINITY;
    /* with the artifact's tables, its rule exactly: the largest hot that fits */
    int largest = (x->c->profile >> ELK_PSW_PLANTABLES) & 1u;
    for (int e = 0; e < m->n && m->e[e].hot <= budget; e++)
        for (int k = 0; k < m->e[e].nc; k++) {
            const elk_menu_cold *mc = &m->cold[m->e[e].c0 + k];
            if (mc->cold != want || (!largest && m->e[e].exe + mc->dist >= bt)) continue;
            bt = m->e[e].exe + mc->dist;
            best = e;
            *kout = k;
        }
    return best;
}

/* A pure function of (op, budget) within a run: memoised */
static int baseline_pick(elk_sctx *x, int i, double budget, int *kout)
{
    if (x->bp_i != i || x->bp_budget != budget) {
        x->bp_e = baseline_scan(x, i, budget, &x->bp_k);
        x->bp_i = i;
        x->bp_budget = budget;
        /* the entries it scanned: those with hot <= budget, a prefix */
        x->bp_nfit = elk_menu_best(menu_of(x, i), budget) + 1;
    }
    *kout = x->bp_k;
    return x->bp_e;
}

/* Execution length of op i ending at D, stretched by the preloads that
 * stream in its window (contended_len). Two effects (paper section 2.3):
 *  - interconnect: BSP exchange phases share the NoC with preload traffic
 *    (placed_extra on all-to-all, mesh and torus: each phase where the
 *    replay runs it, beside the preloads streaming then; shared_extra on
 *    rings);
 *  - SRAM port: on chips whose cores pause for remote accesses, every byte
 *    delivered into a core while it computes steals its share of the local
 *    port (where the phases are placed; elsewhere every byte in the
 *    window).
 * Preload intervals themselves are not stretched here; the event simulator
 * (elk_sim) shares links both ways and reports how far this estimate is off. */
/* fmin and fmax for the hot loops, inlined: they are libm calls otherwise
 * (NaN rules), and no NaN reaches them; a signed zero they may pick
 * differently only ever meets a "<= 0" test. */
static inline double min2(double a, double b) { return b < a ? b : a; }
static inline double max2(double a, double b) { return b > a ? b : a; }

/* NoC time the preloads placed at positions < q keep busy in [s, D], and
 * (if bytes) the bytes they deliver into cores meanwhile. */
static double window_noc(const elk_sctx *x, double s, double D, int q, double *bytes)
{
    double B = 0, by = 0;
    for (int r = q - 1; r >= x->placed_lo; r--) {
        if (x->pe[r] <= s) break;
        int j = x->order[r];
        double d = x->pe[r] - x->ps[r];
        if (d <= 0) continue;
        double ov = min2(x->pe[r], D) - max2(x->ps[r], s);
        if (ov <= 0) continue;
        B += x->nocT[j] * ov / d;
        by += x->deliv[j] * ov / d;
    }
    if (bytes) *bytes = by;
    return B;
}

/* Under the artifact's contention rule, whether op i waits for the NoC time
 * its preloads leave (delay_comp): always for Basic, Static and Elk-Dyn,
 * never for Elk-Full (it pushes the preloads earlier instead), and on the
 * artifact's mesh near MESH = 1 only every mesh_every-th op of Static and
 * Elk-Dyn (the others push their preloads, as Elk-Full). */
static int artifact_delays(const elk_sctx *x, int i)
{
    return x->pol != ELK_POL_FULL && i % x->mesh_every == 0;
}

/* The artifact's delay rule (paper profile, "contention"; docs/ARTIFACT.md
 * section 4): an op that waits (artifact_delays) fits its exchange and syncs
 * xc into the NoC time its candidate's preloads leave (their length less
 * their NoC time, pro-rated where one runs past D), walked from the latest;
 * what they cannot absorb runs before the earliest of them starts. Elk-Full
 * leaves the op alone and pushes the preloads earlier (push_preloads). */
static double artifact_len(const elk_sctx *x, int i, double own, double xc, double D, int q)
{
    if (!artifact_delays(x, i)) return own;
    double sh = xc, first = D;
    for (int r = q - 1; r > x->pmax[i]; r--) {
        double ls = x->ps[r], le = x->pe[r], d = le - ls;
        if (d <= 0) continue;
        double end = min2(le, D), a = d - x->nocT[x->order[r]];
        if (le > D) a *= (D - ls) / d;
        first = ls;
        if (a > 0 && sh <= a) return max2(own, D - (end - (end - ls) * sh / a));
        sh -= a;
    }
    return max2(own, D - (first - sh));
}

/* Elk-Full under the artifact's rules: the preload NoC time in op i's window
 * that its compute cannot hide moves those preloads, and every earlier one,
 * earlier by the excess. */
static void push_preloads(elk_sctx *x, int i, int q)
{
    double s = x->es[i], D = x->ee[i];
    double excess = window_noc(x, s, D, q, NULL) - menu_of(x, i)->e[x->entry[i]].comp;
    if (excess <= 0) return;
    for (int r = q - 1; r >= x->placed_lo; r--) {
        x->ps[r] -= excess;
        x->pe[r] -= excess;
    }
}

/* The rate, in bytes per core per cycle, of an exchange (r0 alone) beside
 * the preload of op j (lasting d), and in *pre (if set) the preload's rate
 * beside it, under max-min sharing of the resource both use (shared_extra
 * says which). The resource's capacity is 1, which the exchange fills alone
 * at rs and the preload at rp; the preload's own pace is xp. Below the
 * equal share the preload keeps its pace and the exchange has what it
 * leaves; above it both run at the equal share. */
static double beside_rate(const elk_sctx *x, int j, double d, double r0, double *pre)
{
    const elk_chip *c = x->c;
    double xp = x->deliv[j] / c->cores / d;
    double rs = r0, rp = x->deliv[j] / c->cores / x->nocT[j];
    if (c->topology == ELK_TOPO_ALL2ALL) rs = rp = max2(elk_chip_link_bytes_per_cycle(c), r0);
    /* Rings: the simulator shares a link by bytes (elk_net_tmpl_end), so
     * where both bind each has half of it, whatever it delivers into a
     * core; the exchange fills the link alone at r0 (its bytes over the
     * time it moves them, syncs left out: ring_slowdown's phases,
     * stretch_preloads' net_time_alone), the preload at rp. Per-core shares held an exchange to the pace of a preload
     * funnelled through its controllers' links (+15-34% on rings with few
     * controllers; issue 9, docs/VALIDATION.md session 16). On all-to-all
     * the resource is the ports, where per-core and per-byte are one. */
    if (c->topology == ELK_TOPO_RING) {
        if (pre) *pre = min2(xp, 0.5 * rp);
        return min2(r0, max2(rs * (1 - xp / rp), 0.5 * rs));
    }
    double eq = 1.0 / (1.0 / rs + 1.0 / rp);
    if (pre) *pre = min2(xp, eq);
    return min2(r0, max2(rs * (1 - xp / rp), eq));
}

/* beside_rate's result on all-to-all, where rs, rp and eq are the same for
 * every preload beside one exchange (a2a_rs, a2a_eq: beside_rate's own
 * expressions, so the same bits): shared_extra's loop without their
 * divisions. */
static inline double beside_rate_a2a(const elk_sctx *x, int j, double d, double r0, double a2a_rs, double a2a_eq)
{
    double xp = x->deliv[j] / x->c->cores / d;
    return min2(r0, max2(a2a_rs * (1 - xp / a2a_rs), a2a_eq));
}

/* How much longer an op's network phases (xc cycles alone, moving xb bytes
 * into each core) take beside the preloads at positions < q that overlap
 * its window [D - L, D], and (in *bytes) what those preloads deliver into
 * cores meanwhile. The network shares a resource both use max-min fairly,
 * each transfer's rate counted in bytes per destination core (elk_flow; a
 * preload's controllers together weigh as much as one execution transfer):
 * both rates grow alike until the resource is full, or until the preload
 * reaches its own pace (HBM-bound: it then uses a fraction rho = nocT / dur
 * of its NoC rate and leaves the rest). The resource is the cores' ingress
 * ports on all-to-all, where each byte either delivers crosses its core's
 * port once; on a ring the links of the preload's routes, which a
 * link-bound exchange fills at its own rate. So where the preload
 * moves few bytes per core for its link time (a ring's preload funnels
 * through the links next to its controllers) an exchange delivering as many
 * bytes per core as the preload does is held to the preload's slow pace,
 * up to 5-10x its time alone (issue 9: distributions on rings). A
 * preload's overlap with the window is charged to the op's network phases
 * first (the replay starts preloads as early as it can, beside an op's
 * distribution), and no preload delays them by more than its own NoC time
 * inside the window (the resource is work-conserving). The preloads are
 * slowed at commit (stretch_preloads). Used only where an op's phases are
 * not known: placed_extra places them on every topology (charged first,
 * an exchange after a long compute was slowed beside preloads the replay
 * had finished, issue 9; on rings too once links were shared by bytes,
 * docs/VALIDATION.md session 17). */
static double shared_extra(const elk_sctx *x, double L, double D, int q, double xc, double xb, double *bytes)
{
    double s = D - L, extra = 0, by = 0;
    double r0 = xc > 0 && xb > 0 ? xb / xc : 0; /* the exchange's rate alone, bytes per core per cycle */
    double left = xc;
    int a2a = x->c->topology == ELK_TOPO_ALL2ALL;
    double a2a_rs = max2(elk_chip_link_bytes_per_cycle(x->c), r0), a2a_eq = 1.0 / (1.0 / a2a_rs + 1.0 / a2a_rs);
    for (int r = q - 1; r >= x->placed_lo; r--) {
        if (x->pe[r] <= s) break;
        int j = x->order[r];
        double d = x->pe[r] - x->ps[r];
        if (d <= 0) continue;
        double ov = min2(x->pe[r], D) - max2(x->ps[r], s);
        if (ov <= 0) continue;
        by += x->deliv[j] * ov / d;
        if (left <= 0 || r0 <= 0 || x->nocT[j] <= 0 || x->deliv[j] <= 0) continue;
        double xe = a2a ? beside_rate_a2a(x, j, d, r0, a2a_rs, a2a_eq) : beside_rate(x, j, d, r0, NULL);
        if (xe <= 0) continue;
        double f = r0 / xe, part = min2(left, ov / f);
        extra += min2(part * (f - 1), x->nocT[j] * ov / d);
        left -= part;
    }
    if (bytes) *bytes = by;
    return extra;
}

/* The network phases of an op as the simulator runs them (elk_sim's
 * build_segs): bytes per core and the group each exchanges in (0: the ring
 * shift). The first nhead (0 or 1: the distribution) run before the
 * compute, the rest after it. */
typedef struct {
    int n, nhead;
    double bytes[4], g[4];
    /* on all-to-all, each phase's time alone, its rate and beside_rate's
     * port terms (a2a_slowdown's own expressions, priced once per op, not
     * once per preload beside it: the same bits) */
    double t[4], r0[4], rs[4], eq[4];
} net_phases;

/* A phase's time alone: an exchange in groups of g at the cost model's
 * time, the ring shift (g 0) at the shift's cycles per byte. */
static double phase_alone(const elk_chip *c, double bytes, double g)
{
    return g >= 1 ? elk_cost_alltoall(c, bytes, g) : bytes * elk_cost_shift_cpb(c);
}

/* Op i's phases with menu entry en and cold option k (relative to the
 * entry's; -1 or no distribution: none), their bytes and groups only; NULL
 * for a menu without its plan set (the tests' hand-built problems). */
static const net_phases *phase_list(const elk_sctx *x, int i, int en, int k, net_phases *ph)
{
    const elk_chip *c = x->c;
    const elk_problem *pr = x->pr;
    int sid = pr->graph.ops[i].shape_id;
    const elk_plan_set *set = pr->sets ? pr->sets[sid] : NULL;
    if (!set) return NULL;
    const elk_menu_entry *e = &pr->menus[sid].e[en];
    const elk_plan *pl = &set->plans[e->plan];
    ph->n = ph->nhead = 0;
    if (k >= 0 && k < e->nc && k < pl->nopt && hbm_of(x, i) > 0 && pr->menus[sid].cold[e->c0 + k].dist > 0) {
        const elk_cold_opt *co = &set->opts[pl->opt0 + k];
        if (co->dist_bytes > 0 && co->dist_group >= 2) {
            ph->bytes[ph->n] = co->dist_bytes;
            ph->g[ph->n++] = co->dist_group;
            ph->nhead = 1;
        }
    }
    if (pl->shift_bytes > 0) {
        ph->bytes[ph->n] = pl->shift_bytes;
        ph->g[ph->n++] = 0;
    }
    if (pl->rs_bytes > 0 && pl->rs_group > 1) {
        ph->bytes[ph->n] = pl->rs_bytes;
        ph->g[ph->n++] = pl->rs_group;
    }
    if (pl->rd_bytes > 0 && c->cores > 1) {
        ph->bytes[ph->n] = pl->rd_bytes;
        ph->g[ph->n++] = c->cores;
    }
    return ph;
}

/* Op i's phases as phase_list gives them, with (on rings and all-to-all)
 * each one's time alone and (on all-to-all) its port terms. NULL under the
 * paper profile's rules and without a plan set, which keep shared_extra's
 * whole-op rule. */
static const net_phases *op_phases(const elk_sctx *x, int i, int en, int k, net_phases *ph)
{
    const elk_chip *c = x->c;
    if (x->artifact_noc || !phase_list(x, i, en, k, ph)) return NULL;
    if (c->topology == ELK_TOPO_RING)
        for (int q = 0; q < ph->n; q++) ph->t[q] = phase_alone(c, ph->bytes[q], ph->g[q]);
    if (c->topology == ELK_TOPO_ALL2ALL)
        for (int q = 0; q < ph->n; q++) {
            double t = phase_alone(c, ph->bytes[q], ph->g[q]);
            ph->t[q] = t;
            if (!(t > 0)) continue;
            double r0 = ph->bytes[q] / t, rs = max2(elk_chip_link_bytes_per_cycle(c), r0);
            ph->r0[q] = r0;
            ph->rs[q] = rs;
            ph->eq[q] = 1.0 / (1.0 / rs + 1.0 / rs);
        }
    return ph;
}

/* op_phases is a pure function of (op, entry, cold option), and one op's
 * candidates mostly ask it of the same entry (the allocator's), then
 * commit of the one taken: elk_sctx_schedule_op keeps the last answer. */
typedef struct {
    int en, k;              /* en -1: none yet */
    const net_phases *p;    /* op_phases' answer: NULL or &ph */
    net_phases ph;
} phases_memo;

static const net_phases *op_phases_memo(const elk_sctx *x, int i, int en, int k, phases_memo *m)
{
    if (m->en != en || m->k != k) {
        m->en = en;
        m->k = k;
        m->p = op_phases(x, i, en, k, &m->ph);
    }
    return m->p;
}

/* elk_grid_resolve's answers for the run that asked them, by (g, r),
 * direct-mapped: a run's phases ask the same few groups and replications
 * at every preload beside them, hundreds of millions of times in an `elk
 * check` run, and the cost memo's key, hash and probe behind
 * elk_grid_beside were a sixth of its time. Per thread; an entry
 * answers only the run that filled it (x->gm_run, unique over threads:
 * a run's chip is fixed, another run's may differ). */
enum { GM_SLOTS = 32 };
_Static_assert(GM_SLOTS == 1 << 5, "grid_pair takes the hash's top five bits");
static _Thread_local struct {
    unsigned long run[GM_SLOTS];
    double g[GM_SLOTS], r[GM_SLOTS];
    elk_grid_pair gp[GM_SLOTS];
} gm;
static _Atomic unsigned long gm_runs;

/* elk_grid_beside(x->c, g, r, ...)'s pair, valid until the next call */
static const elk_grid_pair *grid_pair(const elk_sctx *x, double g, double r)
{
    uint64_t a, b;
    memcpy(&a, &g, sizeof a);
    memcpy(&b, &r, sizeof b);
    uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;
    int sl = (int)(h >> 59);
    if (gm.run[sl] != x->gm_run || gm.g[sl] != g || gm.r[sl] != r) {
        elk_grid_resolve(x->c, g, r, &gm.gp[sl]);
        gm.run[sl] = x->gm_run;
        gm.g[sl] = g;
        gm.r[sl] = r;
    }
    return &gm.gp[sl];
}

/* The slowdown of phases [k0, k1) of ph beside a preload of replication r
 * at pace xp (bytes per core per cycle): their time beside it over their
 * time alone (in *alone, cycles), each phase's rates from the simulator's
 * own templates (elk_grid_beside). 0 when the grid's templates are
 * not available. */
static double phases_slowdown(const elk_sctx *x, const net_phases *ph, int k0, int k1, double r, double xp,
                              double *alone)
{
    double a = 0, beside = 0;
    for (int k = k0; k < k1; k++) {
        double solo, f = elk_grid_pair_beside(grid_pair(x, ph->g[k], r), xp, NULL, &solo);
        if (!(f > 0)) return 0;
        a += ph->bytes[k] / solo;
        beside += ph->bytes[k] / solo * f;
    }
    *alone = a;
    return a > 0 ? beside / a : 1;
}

/* The slowdown of phases [k0, k1) of ph beside the preload of op j
 * (lasting d) on all-to-all: each phase alone at its cost-model time (the
 * plan's own terms, the simulator's solo rates) and beside the preload at
 * beside_rate's max-min share of the ingress ports. */
static double a2a_slowdown(const elk_sctx *x, int j, double d, const net_phases *ph, int k0, int k1,
                           double *alone)
{
    double a = 0, beside = 0;
    for (int k = k0; k < k1; k++) {
        double t = ph->t[k];
        if (!(t > 0)) continue;
        double r0 = ph->r0[k], xe = beside_rate_a2a(x, j, d, r0, ph->rs[k], ph->eq[k]);
        a += t;
        beside += xe > 0 ? t * r0 / xe : t;
    }
    *alone = a;
    return a > 0 ? beside / a : 1;
}

/* The same on a ring: each phase alone at its cost-model time and beside
 * the preload at beside_rate's byte-fair share of the links (its bytes
 * over that time as its rate alone). Placed, a ring op's exchanges after
 * a long compute meet only the preloads still streaming then (a 256-core
 * tt-mesh ring with 2 controllers: gate_up's pieces stalled 15.8 us each
 * in the estimate, 2.9 in the replay, every policy 16-23% above it). */
static double ring_slowdown(const elk_sctx *x, int j, double d, const net_phases *ph, int k0, int k1, double *alone)
{
    double a = 0, beside = 0;
    for (int k = k0; k < k1; k++) {
        double t = ph->t[k];
        if (!(t > 0) || !(ph->bytes[k] > 0)) continue;
        double r0 = ph->bytes[k] / t, xe = beside_rate(x, j, d, r0, NULL);
        a += t;
        beside += xe > 0 ? t * r0 / xe : t;
    }
    *alone = a;
    return a > 0 ? beside / a : 1;
}

/* A preload's slowdown of a phase group (and the group's time alone)
 * depends on the preload and the op's phases, not on the iterate's L:
 * contended_len's iterates ask for the same ones again, so each call keeps
 * those of the PX_KEEP positions below q it has met (bit q - 1 - r of
 * have[grp]); a preload further back is priced every time. */
enum { PX_KEEP = 64 };
typedef struct {
    uint64_t have[2];
    double f[2][PX_KEEP], alone[2][PX_KEEP];
    /* the last iterate's window start s and first position lo (q: none
     * yet): every pe over lo..q-1 is above s, so a window starting no
     * later goes on walking down from lo */
    double s;
    int lo;
    double cost[2]; /* the cost model's time alone of the head's and the rest's phases */
} px_memo;

/* shared_extra on a mesh, torus or all-to-all, placed as the simulator
 * runs it: the preloads overlapping op i's window [D - L, D] start as early
 * as they can, so they stream back to back from the window's start; the
 * distribution runs first, beside the first of them, and the exchanges
 * after the compute (own cycles alone), beside whatever still streams then.
 * Each phase group runs its time alone (the simulator's solo rates) at 1/f
 * of its pace while a preload streams beside it, and no
 * preload costs more than its own NoC time inside the window
 * (work-conserving). The simulator's point: a preload whose trees fill the
 * links near its controllers, or the cores' ports, holds a transfer that
 * crosses them to what it leaves (issue 9: a 256-core tt-mesh torus, a 6.8
 * us distribution took 74.7 us beside the next piece's preload, where the
 * window_noc rule's doubling said 13.6), and an exchange after a long
 * compute meets none (big-sram as a 768-core mesh with 2 controllers: fc1's
 * reduce-scatter after 334 us of compute, its preloads done by then; and
 * on all-to-all, issue 9's 2048-core big-sram pod, Mixtral's expert
 * pieces: a 32.7 us reduce-scatter after 251 us of compute, the next
 * piece's 78 us preload long done, which shared_extra's charge of the
 * window's preloads to the phases first slowed by 28.5 us a piece, the
 * estimate 5.9% above the replay and the pod slower than the mesh of the
 * same cores). The slowdown beside a preload is the grid's templates'
 * (phases_slowdown) or all-to-all's port sharing (a2a_slowdown). Syncs
 * keep their time. The compute lasts own - xc plus pause (its SRAM-port
 * pauses, contended_len's last iterate), and *bytes are what the preloads
 * deliver while it runs: the replay pauses the compute for those alone
 * (the default point, --profile physical: qkv's estimated stall 3.19 us
 * with every byte of the window charged, simulated 2.72, now 2.71).
 * Returns -1 when the grid's templates are not available. */
static double placed_extra(const elk_sctx *x, double L, double D, int q, double own, double xc, double pause,
                           const net_phases *ph, px_memo *pm, double *bytes)
{
    const elk_chip *c = x->c;
    double s = D - L;
    int lo = pm->lo < q && s <= pm->s ? pm->lo : q;
    for (int r = lo - 1; r >= x->placed_lo && x->pe[r] > s; r--) lo = r;
    pm->s = s;
    pm->lo = lo;
    double extra = 0, t = 0, head = 0; /* t: the op's clock from s; head: the distribution alone, charged */
    double c0 = 0, c1 = 0;              /* where the compute starts and ends on that clock */
    /* the bytes the preloads deliver while the op computes: the replay
     * pauses its compute for them (rho) but not its transfers or syncs.
     * They are summed in the exchanges' walk while it lasts (the same
     * stream from s, so the same cum and the same sum in the same order)
     * and on from where it stopped (rb, with bcum): one walk, not two */
    double by = 0, bcum = 0;
    int rb = lo;
    for (int grp = 0; grp < 2; grp++) {
        int k0 = grp ? ph->nhead : 0, k1 = grp ? ph->n : ph->nhead;
        if (grp) {
            c0 = t;
            c1 = c0 + max2(0, own - xc) + pause;
        }
        if (k0 == k1) continue;
        /* the exchanges end the op: they start xc - head before its end,
         * after the compute stretched by its port pauses */
        if (grp) t = max2(t, own - max2(0, xc - head) + extra + pause);
        double left = -1, cum = 0; /* cum: the preloads' stream, back to back from s */
        double k = 1; /* the group's cost-model time over its templates' time alone (below) */
        int r = lo;
        for (; r < q && left != 0; r++) {
            int j = x->order[r];
            double d = x->pe[r] - x->ps[r], ov = min2(x->pe[r], D) - max2(x->ps[r], s);
            if (d <= 0 || ov <= 0) continue;
            double a = cum, b = cum + ov;
            cum = b;
            if (grp && a < c1) {
                double in = min2(b, c1) - max2(a, c0);
                if (in > 0) by += x->deliv[j] * in / d;
            }
            if (b <= t || x->nocT[j] <= 0 || x->deliv[j] <= 0 || hbm_of(x, j) <= 0) continue;
            int slot = q - 1 - r;
            uint64_t bit = slot < PX_KEEP ? (uint64_t)1 << slot : 0;
            double alone = 0, f;
            if (pm->have[grp] & bit) {
                f = pm->f[grp][slot];
                alone = pm->alone[grp][slot];
            } else {
                f = c->topology == ELK_TOPO_ALL2ALL ? a2a_slowdown(x, j, d, ph, k0, k1, &alone)
                    : c->topology == ELK_TOPO_RING  ? ring_slowdown(x, j, d, ph, k0, k1, &alone)
                                                    : phases_slowdown(x, ph, k0, k1, x->deliv[j] / hbm_of(x, j), x->deliv[j] / c->cores / d,
                                          &alone);
                if (bit) {
                    pm->f[grp][slot] = f;
                    pm->alone[grp][slot] = alone;
                    pm->have[grp] |= bit;
                }
            }
            if (!(f > 0)) return -1;
            /* own charges the phases the cost model's time, k per unit
             * of their time alone on the simulator's templates (a grid's
             * cost model holds a core to one mesh link, the templates to
             * its port: k > 1, a slack that absorbs a slowdown up to it).
             * left counts the templates' time, the op's clock t the time
             * charged: in one unit, a faster port, which shrinks the
             * templates' time alone, moved the exchanges earlier on the
             * clock and beside more of a preload (point 1369, fc2 +314
             * cycles with 25% more link bandwidth). k is not held to 1
             * where the templates are the slower: clamped, the
             * templates' excess went uncharged beside a preload at one
             * port and charged at a faster one (fc1 +0.5 cycles). On
             * rings and all-to-all the two times are one (k = 1). */
            if (left < 0) {
                k = alone > 0 && pm->cost[grp] > 0 ? pm->cost[grp] / alone : 1;
                left = grp ? min2(alone, max2(0, xc - head) / k) : min2(alone, xc / k);
                if (!grp) head = left * k;
            }
            if (a > t) { /* alone until this preload starts */
                double run = min2(left * k, a - t);
                left -= run / k;
                t += run;
                if (left <= 0) {
                    r++; /* this one's bytes are summed */
                    break;
                }
            }
            /* beside it each unit alone takes f, of which own charges k
             * (charged f - 1, a faster port, which only the templates
             * see, made an op beside the same preload longer: point 1370,
             * +55 cycles each, the step +0.31%) */
            double part = min2(left, (b - t) / max2(f, k));
            double ex = min2(max2(0, part * (f - k)), x->nocT[j] * ov / d);
            extra += ex;
            t += part * k + ex;
            left -= part;
        }
        if (left > 0) t += left * k;
        if (grp) {
            rb = r;
            bcum = cum;
        }
    }
    for (int r = rb; r < q && bcum < c1; r++) {
        double d = x->pe[r] - x->ps[r], ov = min2(x->pe[r], D) - max2(x->ps[r], s);
        if (d <= 0 || ov <= 0) continue;
        double in = min2(bcum + ov, c1) - max2(bcum, c0);
        if (in > 0) by += x->deliv[x->order[r]] * in / d;
        bcum += ov;
    }
    *bytes = by;
    return extra;
}

/* Never below own (candidate's bound relies on it): artifact_len takes a
 * max with own, and the extras added here are sums of non-negative terms
 * (placed_extra's only when it returns one >= 0). */
static double contended_len(const elk_sctx *x, int i, double own, double xc, double xb, double D, int q,
                            const net_phases *ph)
{
    if (x->artifact_noc) return artifact_len(x, i, own, xc, D, q);
    const elk_chip *c = x->c;
    double L = own;
    double port = c->remote_access_pauses ? 1.0 / (c->cores * c->sram_port_bytes_per_cycle) : 0;
    /* On a mesh or torus the preload's busiest links are the few next to
     * its controllers' routers, at the edge of the exchange's tiles, where
     * an exchange loads a link far less than on its own busiest cut (big-sram
     * as a 768-core mesh, 2 controllers: fc1's reduce-scatter stalls 12.6 us
     * of 414 in the simulation, where shared_extra says 150): there the
     * exchange keeps the fraction of the window the preloads leave the NoC
     * (at most doubling it). Finding the exchange's load on those links is
     * left open (docs/VALIDATION.md). */
    int grid2d = c->topology == ELK_TOPO_MESH || c->topology == ELK_TOPO_TORUS;
    double pause = 0; /* the compute's port pauses, the last iterate's */
    int placed = ph && ph->n > 0; /* every topology (op_phases: NULL under the paper profile) */
    px_memo pm;
    pm.have[0] = pm.have[1] = 0;
    pm.lo = q;
    pm.s = 0;
    pm.cost[0] = pm.cost[1] = 0;
    for (int k = 0; placed && k < ph->n; k++) pm.cost[k >= ph->nhead] += phase_alone(c, ph->bytes[k], ph->g[k]);
    for (int it = 0; it < 6; it++) {
        double bytes = 0, ex = 0;
        if (L > 0 && placed && (ex = placed_extra(x, L, D, q, own, xc, pause, ph, &pm, &bytes)) >= 0) {
            /* the phases placed as the replay runs them */
        } else if (L > 0 && grid2d) {
            ex = min2(1.0, window_noc(x, D - L, D, q, &bytes) / L) * xc;
        } else if (L > 0) {
            ex = shared_extra(x, L, D, q, xc, xb, &bytes);
        }
        double nl = own + ex + bytes * port;
        pause = bytes * port;
        if (fabs(nl - L) < 0.5) {
            L = nl;
            break;
        }
        L = nl;
    }
    return L;
}

/* ------------------------------------------------------------------ */
/* Cost-aware allocation (paper section 4.3)                            */

/* Working copy of a candidate group's choices. */
typedef struct {
    int entry;       /* executing op's front entry */
    int n;           /* waiting ops */
    int *w, *k;      /* waiting op ids and their cold option indices */
    double delta;    /* distribution time added to waiting ops */
    const double *total; /* the group's space before shrinking, if known (wsum_t) */
    int *mod, nmod;  /* indices j whose k[j] left its copt, each once */
} alloc_t;

/* What waiting op w adds to a group's space beyond x->cold[w] when it keeps
 * its cold option: set_cold's invariant (a positive cold is its option's
 * own) makes it exactly +0.0 unless cold is 0. */
static double cold_extra(const elk_sctx *x, int w)
{
    const elk_menu *m = menu_of(x, w);
    if (x->cold[w] > 0 || m->max_cold == 0) return 0;
    const elk_menu_entry *e = &m->e[x->entry[w]];
    return e->nc ? m->cold[e->c0 + x->copt[w]].cold - x->cold[w] : 0;
}

/* The space of op i's fastest effective plan plus the waiting preloads as
 * they are, summed as the candidate loop grows the group (allocate's own
 * sum, term for term, so the same bits: re-summing it per candidate made
 * the scheduler quadratic in the window). */
typedef struct {
    double total;
    int inexact; /* waiting ops whose cold_extra is not +0.0: re-sum */
} wsum_t;

/* Inline, with cold_extra's first test ahead of its call: the candidate
 * loop adds a waiting op per candidate, tens of millions of times a
 * figure, and a positive cold (the usual case) adds exactly +0.0. */
static inline void wsum_add(const elk_sctx *x, wsum_t *s, int w)
{
    double c = x->cold[w];
    s->total += c;
    if (!(c > 0) && cold_extra(x, w) != 0) s->inexact++;
}

/* Shrink the group until it fits: repeatedly take the step with the most
 * space saved per unit of time added. Returns 0 if nothing fits. */
static int allocate(const elk_sctx *x, int i, alloc_t *a)
{
    const elk_menu *mi = menu_of(x, i);
    const int *ef = mi->eff[x->price];
    double total;
    if (a->total) {
        total = *a->total;
    } else {
        total = mi->e[ef[a->entry]].hot;
        for (int j = 0; j < a->n; j++) total += x->cold[a->w[j]];
        /* the waiting ops' current colds were summed; a->k may differ from copt */
        for (int j = 0; j < a->n; j++) {
            int w = a->w[j];
            if (a->k[j] == x->copt[w] && x->cold[w] > 0) continue; /* exactly +0.0 (cold_extra) */
            const elk_menu *m = menu_of(x, w);
            const elk_menu_entry *e = &m->e[x->entry[w]];
            if (e->nc) total += m->cold[e->c0 + a->k[j]].cold - x->cold[w];
        }
    }
    a->delta = 0;
    while (total > x->pr->sram) {
        double best = -1;
        int who = -2;
        if (a->entry > 0) {
            double ds = mi->e[ef[a->entry]].hot - mi->e[ef[a->entry - 1]].hot;
            double dt = mi->e[ef[a->entry - 1]].ecost[x->price] - mi->e[ef[a->entry]].ecost[x->price];
            double r = dt <= 0 ? INFINITY : ds / dt;
            if (r > best) {
                best = r;
                who = -1;
            }
        }
        if (x->o->alloc == ELK_ALLOC_PAPER)
            for (int j = 0; j < a->n; j++) {
                int w = a->w[j];
                if (a->k[j] == 0) continue;
                const elk_menu *m = menu_of(x, w);
                const elk_menu_entry *e = &m->e[x->entry[w]];
                const elk_menu_cold *c1 = &m->cold[e->c0 + a->k[j]], *c0 = &m->cold[e->c0 + a->k[j] - 1];
                double ds = c1->cold - c0->cold, dt = c0->dist - c1->dist;
                double r = dt <= 0 ? INFINITY : ds / dt;
                if (r > best) {
                    best = r;
                    who = j;
                }
            }
        if (who == -2) return 0;
        if (who == -1) {
            total -= mi->e[ef[a->entry]].hot - mi->e[ef[a->entry - 1]].hot;
            a->entry--;
        } else {
            int w = a->w[who];
            const elk_menu *m = menu_of(x, w);
            const elk_menu_entry *e = &m->e[x->entry[w]];
            const elk_menu_cold *c1 = &m->cold[e->c0 + a->k[who]], *c0 = &m->cold[e->c0 + a->k[who] - 1];
            total -= c1->cold - c0->cold;
            a->delta += c0->dist - c1->dist;
            if (a->k[who] == x->copt[w]) a->mod[a->nmod++] = who;
            a->k[who]--;
        }
    }
    return 1;
}

/* Preloads at positions hi down to lo end no later than the next one
 * starts, each moved earlier whole where it overlaps. */
static void keep_serial(elk_sctx *x, int hi, int lo)
{
    for (int r = hi; r >= lo; r--)
        if (x->pe[r] > x->ps[r + 1]) {
            double sh = x->pe[r] - x->ps[r + 1];
            x->pe[r] -= sh;
            x->ps[r] -= sh;
        }
}

/* Move ops (i, j] earlier by d to make room for a longer distribution of
 * op j, keeping preloads serial. */
static void shift_earlier(elk_sctx *x, int i, int j, double d)
{
    if (d <= 0) return;
    for (int k = i + 1; k <= j; k++) {
        if (k < j) x->ee[k] -= d;
        x->es[k] -= d;
        int r = x->pos[k];
        if (r >= x->placed_lo) {
            x->ps[r] -= d;
            x->pe[r] -= d;
        }
    }
    keep_serial(x, x->N - 2, x->placed_lo);
}

/* ------------------------------------------------------------------ */
/* The backward pass                                                    */

static int grow_to(elk_sctx *x, int n)
{
    int cap = n * 2;
    int *a = realloc(x->W, (size_t)cap * sizeof *a), *b = realloc(x->Wc, (size_t)cap * sizeof *b);
    if (a) x->W = a;
    if (b) x->Wc = b;
    int *e2 = realloc(x->Wmod, (size_t)cap * sizeof *e2), *f2 = realloc(x->bmod_i, (size_t)cap * sizeof *f2);
    if (e2) x->Wmod = e2;
    if (f2) x->bmod_i = f2;
    int *g2 = realloc(x->bmod_v, (size_t)cap * sizeof *g2);
    if (g2) x->bmod_v = g2;
    if (!a || !b || !e2 || !f2 || !g2) return -1;
    x->wcap = cap;
    return 0;
}

/* The candidate loop asks for room once per candidate, and there is room
 * almost always: the test inline, the growing out of line. */
static inline int grow(elk_sctx *x, int n) { return n <= x->wcap ? 0 : grow_to(x, n); }

void elk_sctx_place_preloads(elk_sctx *x, int i)
{
    while (x->placed_lo > 0 && x->order[x->placed_lo - 1] >= i) {
        int r = --x->placed_lo;
        int op = x->order[r];
        double end = x->es[op];
        if (r + 1 < x->N && x->ps[r + 1] < end) end = x->ps[r + 1];
        x->pe[r] = end;
        x->ps[r] = end - x->dur[op];
    }
}

/* The latest a router may end: before the preloads it gates start. */
static double router_deadline(const elk_sctx *x, int i, double next)
{
    const elk_graph *g = &x->pr->graph;
    for (int j = i + 1; j < x->N && g->ops[j].route != 1; j++)
        if (x->gate[j] == i) {
            int r = x->pos[j];
            assert(r >= x->placed_lo); /* init_gates' order rule */
            if (hbm_of(x, j) > 0 && x->ps[r] < next) next = x->ps[r];
        }
    return next;
}

/* Basic preloads only up to the next operator that has HBM data: the
 * candidate position just past it. Op i itself, where the artifact's last
 * parts of it read such data (unf_cold 2), ends before the next preload:
 * there only those parts overlap it (docs/ARTIFACT.md). */
static int basic_target_of(const elk_sctx *x, int i, int qmin)
{
    int unf = (x->pr->chip.profile >> ELK_PSW_UNFUSED) & 1u;
    if (unf && x->pr->graph.ops[i].unf_cold == 2) return qmin;
    for (int r = qmin; r < x->N; r++)
        if (hbm_of(x, x->order[r]) > 0 || (unf && x->pr->graph.ops[x->order[r]].unf_cold)) return r + 1;
    return x->N;
}

/* Op i's execute-state entry and its length L ending at D beside the nw
 * preloads in x->W (their cold options chosen into x->Wc), under the
 * policy's rule. Returns 0 when nothing fits. beat: the start a candidate
 * must pass to be taken (-INFINITY: every length is wanted); a candidate
 * that cannot, since contention only lengthens it (contended_len >= own),
 * gets L = INFINITY without its contended length. */
/* The length of op i run at menu entry en with cold option k, its window
 * ending at D at preload position q, the allocator's distribution delta
 * added: its contended length. candidate() prices with it at once, or
 * defers it (dcand) and elk_sctx_schedule_op prices it later, so both
 * take the same expressions. */
static double cand_len(const elk_sctx *x, int i, int en, int k, double D, int q, double delta, phases_memo *pm)
{
    const elk_menu *mi = menu_of(x, i);
    const elk_menu_entry *e = &mi->e[en];
    double dist = e->nc && hbm_of(x, i) > 0 ? mi->cold[e->c0 + k].dist : 0;
    double db = e->nc && hbm_of(x, i) > 0 ? mi->cold[e->c0 + k].dist_bytes : 0;
    return contended_len(x, i, e->exe + dist, e->xcyc + dist, e->xbytes + db, D, q, op_phases_memo(x, i, en, k, pm)) +
           delta;
}

/* A latest-start candidate priced but for its contended length: its
 * window (q, D, nw waiting preloads), plan (entry, cold option k), the
 * allocator's added distribution delta, and ub = D - (own + delta), the
 * latest it can start (contended_len >= own); its allocator changes at
 * mod0 .. mod0 + nmod - 1 of dmod_i, dmod_v. */
typedef struct elk_dcand {
    int q, nw, entry, k, mod0, nmod;
    double D, delta, ub;
} dcand;

static int candidate(elk_sctx *x, int i, int q, int nw, double cold_sum, const wsum_t *ws, double D, double beat,
                     phases_memo *pm, int *entry, int *cand_k, double *L, dcand *dc)
{
    const elk_menu *mi = menu_of(x, i);
    double sram = x->pr->sram;
    x->nmod = 0;
    if (x->pol == ELK_POL_BASIC || x->pol == ELK_POL_STATIC) {
        double budget = x->pol == ELK_POL_STATIC ? x->xlimit : sram - cold_sum;
        if (x->pol == ELK_POL_STATIC && cold_sum > sram - x->xlimit) return 0;
        *entry = x->mincold ? baseline_pick(x, i, budget, cand_k) : elk_menu_best(mi, budget);
        if (x->pol == ELK_POL_STATIC) {
            /* X's comparisons, for the X sweep (xr_hot, xr_cold): the pick
             * saw the entries up to nfit, whose hot fits X */
            int nfit = x->mincold ? x->bp_nfit : *entry + 1;
            if (nfit < mi->n) x->xr_hot = min2(x->xr_hot, mi->e[nfit].hot);
            x->xr_cold = max2(x->xr_cold, cold_sum);
        }
        if (*entry < 0) return 0;
        /* Basic and Static pick their candidate by rule, not by start
         * time: the contended length is computed once, at commit */
        *L = mi->e[*entry].exe;
        return 1;
    }
    /* Elk-Dyn, Elk-Full */
    double delta = 0;
    if (x->force_e >= 0 && (x->replay || x->force_q == q)) {
        /* the exact search's pair: this plan, waiting preloads as they are */
        *entry = x->force_e;
        if (mi->e[*entry].hot + cold_sum > sram) return 0;
    } else {
        if (mi->neff[x->price] <= 0) return 0; /* no plan on this price's front (a NaN cost) */
        alloc_t a = {mi->neff[x->price] - 1, nw, x->W, x->Wc, 0, ws->inexact ? NULL : &ws->total, x->Wmod, 0};
        int ok = allocate(x, i, &a);
        x->nmod = a.nmod;
        if (!ok) return 0;
        *entry = mi->eff[x->price][a.entry];
        delta = a.delta;
    }
    int k = initial_cold(x, i, *entry);
    const elk_menu_entry *e = &mi->e[*entry];
    double dist = e->nc && hbm_of(x, i) > 0 ? mi->cold[e->c0 + k].dist : 0;
    if (dc) { /* priced later, if it can win (elk_sctx_schedule_op) */
        *dc = (dcand){q, nw, *entry, k, 0, 0, D, delta, D - (e->exe + dist + delta)};
        *L = INFINITY;
        return 1;
    }
    if (D - (e->exe + dist + delta) <= beat) {
        *L = INFINITY;
        return 1;
    }
    *L = cand_len(x, i, *entry, k, D, q, delta, pm);
    return 1;
}

/* The exact search's listing of candidate q (list_mode 2: every plan that
 * fits beside the waiting preloads as they are). */
static void list_plans(elk_sctx *x, int i, int q, double cold_sum)
{
    const elk_menu *mi = menu_of(x, i);
    double room = x->pr->sram - cold_sum;
    for (int k = mi->neff[x->price] - 1; k >= 0 && x->ncand < x->cand_cap; k--) {
        int en = mi->eff[x->price][k];
        if (mi->e[en].hot > room) continue;
        x->cand[x->ncand] = q;
        x->cand_e[x->ncand++] = en;
    }
}

/* The candidate an op takes: its preload window and plan. */
typedef struct {
    double start, L, D;
    int q, entry, k, nw;
} pick_t;

/* Wc back to copt after a candidate (its allocator's changes, Wmod). */
static void undo_mods(elk_sctx *x)
{
    for (int m = 0; m < x->nmod; m++) x->Wc[x->Wmod[m]] = x->copt[x->W[x->Wmod[m]]];
    x->nmod = 0;
}

/* The bytes per core op i's network phases move into each core: its
 * exchanges and, with a distribution, the distribution's. */
static double net_bytes(const elk_sctx *x, int i)
{
    const elk_menu *m = menu_of(x, i);
    const elk_menu_entry *e = &m->e[x->entry[i]];
    return e->xbytes + (x->dist[i] > 0 ? m->cold[e->c0 + x->copt[i]].dist_bytes : 0);
}

/* How much longer waiting op w gets when a later commit (an earlier op's
 * allocator) gives it a colder option: its distribution grew from old to
 * x->dist[w] cycles alone, but it runs at the start of w's window, beside
 * the preloads streaming there, which on a ring or with few controllers
 * hold it to their pace (issue 9: a 192-core wse2 ring with one
 * controller, where a 2.5 us distribution took 68 us in the simulation and
 * the estimate said 2.5). So w's length is recomputed under contention,
 * and it grows by at least the distribution's own growth. The interconnect
 * part of the growth is booked as w's stall. */
static double grown_dist(elk_sctx *x, int w, double old)
{
    double d = x->dist[w] - old;
    if (d <= 0 || x->artifact_noc) return d;
    const elk_menu *m = menu_of(x, w);
    const elk_menu_entry *e = &m->e[x->entry[w]];
    double own = e->exe + x->dist[w];
    double L = x->ee[w] - x->es[w];
    net_phases ph;
    double nl = contended_len(x, w, own, e->xcyc + x->dist[w], net_bytes(x, w), x->ee[w], x->win[w],
                              op_phases(x, w, x->entry[w], x->copt[w], &ph));
    double g = max2(d, nl - L);
    x->stall[w] += g - d;
    assert(x->stall[w] >= -1e-6 * (L + 1));
    return g;
}

/* The other half of shared_extra's sharing: while op i's network phases
 * hold a preload in its window below its pace (the equal share of the
 * resource both use), the preload's bytes there arrive at that share until
 * the exchange is done, the rest at its pace, and it and every preload
 * before it start that much earlier (issue 9: on a 3072-core ring with 4
 * controllers, a 650 us relayout held the preload beside it to a 13th of
 * its pace; the simulation's preload stall was 3.65 ms, the estimate's
 * 0.18). Rings only: on all-to-all the simulation's preloads keep
 * their pace beside the exchanges at the cores' ports (Static on a
 * 48-core wse2 at 0.188 TB/s: stretched, the estimate was 19.6% above the
 * simulation, and 1.9% below it unstretched); grids keep their window_noc
 * stretch, the paper profile its artifact rules. */
/* The time op i's network moves its bytes alone, without its syncs (a
 * sync waits, it moves nothing): its phases (phase_list) each at its time
 * alone, the distribution last. -1 without a plan set. */
static double net_time_alone(const elk_sctx *x, int i)
{
    net_phases ph;
    if (!phase_list(x, i, x->entry[i], x->copt[i], &ph)) return -1;
    double t = 0;
    for (int q = ph.nhead; q < ph.n; q++) t += phase_alone(x->c, ph.bytes[q], ph.g[q]);
    for (int q = 0; q < ph.nhead; q++) t += phase_alone(x->c, ph.bytes[q], ph.g[q]);
    return t;
}

/* On a mesh or torus, the rates of op i's phases ph (bx bytes per core in
 * all) beside the preload of op j at pace xp: the exchange's, bytes over
 * its phases' time beside the preload (each at elk_grid_beside's
 * slowdown), and in *pre the preload's mean rate over that time. 0 when
 * the grid's templates are not available. */
static double grid_beside_rates(const elk_sctx *x, const net_phases *ph, double bx, double r, double xp, double *pre)
{
    double T = 0, P = 0;
    for (int k = 0; k < ph->n; k++) {
        double solo, pk, f = elk_grid_pair_beside(grid_pair(x, ph->g[k], r), xp, &pk, &solo);
        if (!(f > 0) || !(solo > 0)) return 0;
        double t = ph->bytes[k] / solo * f;
        T += t;
        P += pk * t;
    }
    if (!(T > 0)) return 0;
    *pre = P / T;
    return bx / T;
}

static void stretch_preloads(elk_sctx *x, int i, int q, const net_phases *ph)
{
    const elk_chip *c = x->c;
    int grid2d = c->topology == ELK_TOPO_MESH || c->topology == ELK_TOPO_TORUS;
    if (x->artifact_noc || (c->topology != ELK_TOPO_RING && !grid2d)) return;
    double bx = 0, r0 = 0;
    if (grid2d) {
        /* each phase beside the preload at the grid's own templates' rates
         * (ph: commit's op_phases of the entry and cold option taken) */
        if (!ph || ph->n == 0) return;
        for (int k = 0; k < ph->n; k++) bx += ph->bytes[k];
    } else {
        const elk_menu_entry *e = &menu_of(x, i)->e[x->entry[i]];
        double xc = e->xcyc + x->dist[i];
        bx = net_bytes(x, i);
        if (xc <= 0 || bx <= 0) return;
        /* the exchange's rate is its bytes over the time it moves them: its
         * syncs wait and move nothing, and counting them made the exchange a
         * slow flow that held every preload beside it to its pace (a 32-core
         * wse2 ring, Gemma2-27B decode: gate_up pieces of 1.5 us compute and
         * 3.6 us of syncs, each preload beside one estimated 10.4 us against
         * 6.75 replayed, every policy +56%) */
        double t = net_time_alone(x, i);
        if (t > 0 && t < xc) xc = t;
        r0 = bx / xc;
    }
    double s = x->es[i], bx0 = bx;
    int moved = 0;
    for (int r = q - 1; r >= x->placed_lo && bx > 0; r--) {
        if (r + 1 < q) keep_serial(x, r, r); /* behind the ones already slowed */
        if (x->pe[r] <= s) break;
        int j = x->order[r];
        double d = x->pe[r] - x->ps[r];
        if (d <= 0 || x->nocT[j] <= 0 || x->deliv[j] <= 0 || (grid2d && hbm_of(x, j) <= 0)) continue;
        double xp = x->deliv[j] / c->cores / d, pre = xp; /* bytes per core per cycle as placed */
        /* the exchange's rate from all its bytes (bx0): bx is what is left
         * of them, and a rate of bx over the whole phases' time let a
         * residue of bx hold a preload for all of it (point 921: bx ~0
         * left, a preload stretched 13.6 k cycles; compute x1.25 made
         * Static 0.11% slower) */
        double xe = grid2d ? grid_beside_rates(x, ph, bx0, x->deliv[j] / hbm_of(x, j), xp, &pre)
                           : beside_rate(x, j, d, r0, &pre);
        if (xe <= 0 || pre >= xp) continue;
        double in = min2(x->pe[r], x->ee[i]) - max2(x->ps[r], s); /* its time inside the window */
        if (in <= 0) continue;
        double bin = xp * in, tsh = min2(bin / pre, bx / xe);
        double nin = tsh + (bin - pre * tsh) / xp;
        assert(nin >= in * (1 - 1e-9));
        x->ps[r] -= nin - in;
        bx -= xe * tsh;
        moved = 1;
    }
    if (moved) keep_serial(x, q - 2, x->placed_lo);
}

/* Fix op i's choice: its plan and cold layout, the cold options the
 * allocator chose for the preloads beside it (which may move their
 * preloads earlier and so its deadline), its interval and residency. */
static void commit(elk_sctx *x, int i, pick_t *b, phases_memo *pm)
{
    const elk_menu *mi = menu_of(x, i);
    x->entry[i] = b->entry;
    x->win[i] = b->q;
    const elk_menu_entry *e = &mi->e[b->entry];
    set_cold(x, i, x->mincold ? b->k : initial_cold(x, i, b->entry));
    double own = e->exe + x->dist[i];
    double xb = net_bytes(x, i);
    double D = b->D;
    const net_phases *php = op_phases_memo(x, i, b->entry, x->copt[i], pm);
    if (x->pol == ELK_POL_BASIC || x->pol == ELK_POL_STATIC) b->L = contended_len(x, i, own, e->xcyc + x->dist[i], xb, D, b->q, php);
    if (x->pol == ELK_POL_DYN || x->pol == ELK_POL_FULL) {
        int changed = 0;
        for (int k = 0; k < b->nw; k++) {
            int w = x->W[k];
            if (x->Wc[k] != x->copt[w]) {
                double old = x->dist[w];
                int r = x->pos[w];
                /* what stretch_preloads added to its preload stays */
                double ext = r >= x->placed_lo ? max2(0, x->pe[r] - x->ps[r] - x->dur[w]) : 0;
                set_cold(x, w, x->Wc[k]);
                shift_earlier(x, i, w, grown_dist(x, w, old));
                if (r >= x->placed_lo) x->ps[r] = x->pe[r] - x->dur[w] - ext;
                changed = 1;
            }
        }
        if (changed) {
            double next = i == x->N - 1 ? 0 : x->es[i + 1];
            D = (b->q >= x->N || x->ps[b->q] >= next) ? next : x->ps[b->q];
            b->L = contended_len(x, i, own, e->xcyc + x->dist[i], xb, D, b->q, php);
        }
    }
    /* a replay held to the execution lengths it had (replay_len): the
     * cores wait out the rest, as a static schedule's barrier would */
    if (x->replay && x->o->replay_len && x->o->replay_len[i] > b->L) b->L = x->o->replay_len[i];
    x->ee[i] = D;
    x->es[i] = D - b->L;
    x->stall[i] = b->L - own;
    int pn = 0;
    double res = e->hot;
    for (int k = 0; k < b->nw; k++) {
        pn += hbm_of(x, x->W[k]) > 0;
        res += x->cold[x->W[k]];
    }
    x->pnum[i] = pn;
    x->resident[i] = res;
    if (x->artifact_noc && !artifact_delays(x, i)) push_preloads(x, i, b->q);
    stretch_preloads(x, i, b->q, php);
    elk_sctx_place_preloads(x, i);
}

/* Room for n deferred candidates and nm of their allocator changes. */
static int dcand_grow(elk_sctx *x, int n, int nm)
{
    if (n > x->dccap) {
        int cap = 2 * n;
        dcand *v = realloc(x->dc, (size_t)cap * sizeof *v);
        if (v) x->dc = v;
        double *u = realloc(x->dub, (size_t)cap * sizeof *u);
        if (u) x->dub = u;
        if (!v || !u) return -1;
        x->dccap = cap;
    }
    if (nm > x->dmodcap) {
        int cap = 2 * nm;
        int *a = realloc(x->dmod_i, (size_t)cap * sizeof *a);
        if (a) x->dmod_i = a;
        int *b = realloc(x->dmod_v, (size_t)cap * sizeof *b);
        if (b) x->dmod_v = b;
        if (!a || !b) return -1;
        x->dmodcap = cap;
    }
    return 0;
}

/* Appends to W (and Wc) the ops after i whose preloads sit at positions
 * below qmin, latest position first, from node k of the held tree, which
 * covers positions [lo, hi). A preload the order search moved far ahead of
 * its op is held by every op from there on, so a scan of the lookback
 * below each op's first candidate was quadratic: 13,891 ops of OPT-30B
 * decode on a 96-core wse2 torus, half of Elk-Full's order search. The
 * tree visits only the subtrees that hold one. 0, or -1 out of memory. */
static int held_push(elk_sctx *x, int k, int lo, int hi, int qmin, int i, int *nw)
{
    if (lo >= qmin || x->held[k] <= i) return 0;
    if (hi - lo == 1) {
        if (grow(x, *nw + 1)) return -1;
        x->Wc[*nw] = x->copt[x->order[lo]];
        x->W[(*nw)++] = x->order[lo];
        return 0;
    }
    int mid = lo + (hi - lo) / 2;
    if (held_push(x, 2 * k + 1, mid, hi, qmin, i, nw)) return -1;
    return held_push(x, 2 * k, lo, mid, qmin, i, nw);
}

/* Schedule op i given the fixed schedule after it. Candidate q lets the
 * preloads at positions qmin..q-1 wait in SRAM (or stream) while it runs;
 * the policy's rule takes one. Returns -1 if nothing fits (the run is
 * infeasible). */
int elk_sctx_schedule_op(elk_sctx *x, int i)
{
    assert(x->pol != ELK_POL_IDEAL); /* Ideal is run_ideal's closed form */
    if (x->replay) {
        x->force_e = x->o->replay_entry[i];
        x->force_q = x->o->replay_window[i];
    }
    double next = i == x->N - 1 ? 0 : x->es[i + 1];
    if (x->gate && x->pr->graph.ops[i].route == 1) next = router_deadline(x, i, next);
    int qmin = x->pmax[i] + 1;
    int nw = 0;
    if (grow(x, x->window + 64)) return -1;
    /* preloads placed before qmin that op i must still hold */
    assert(qmin >= 1 && qmin <= x->N);
    if (x->held_pre[qmin - 1] > i && held_push(x, 1, 0, x->hleaf, qmin, i, &nw)) return -1;
#ifndef NDEBUG
    {
        int n = 0;
        for (int r = qmin - 1; r >= 0 && r >= qmin - x->lookback; r--)
            if (x->order[r] > i) assert(n < nw && x->W[n++] == x->order[r]);
        assert(n == nw);
    }
#endif
    int nforced = nw;
    double cold_sum = 0;
    for (int k = 0; k < nw; k++) cold_sum += x->cold[x->W[k]];
    wsum_t ws = {0, 1};
    if (x->pol == ELK_POL_DYN || x->pol == ELK_POL_FULL) {
        const elk_menu *mi = menu_of(x, i);
        ws.inexact = 0;
        ws.total = mi->neff[x->price] > 0 ? mi->e[mi->eff[x->price][mi->neff[x->price] - 1]].hot : 0;
        for (int k = 0; k < nw; k++) wsum_add(x, &ws, x->W[k]);
    }

    pick_t best = {-INFINITY, 0, 0, -1, -1, 0, 0};
    x->nbmod = 0;
    int cand_k = 0;
    int basic_target = x->pol == ELK_POL_BASIC ? basic_target_of(x, i, qmin) : -1;
    /* Elk-Dyn and Elk-Full by their own rule take the latest start */
    int by_start = (x->pol == ELK_POL_DYN || x->pol == ELK_POL_FULL) && !x->list_mode && !x->replay && x->force_q < 0;
    /* their contended lengths priced latest ub first (below), but where
     * the length is the op's own (Elk-Full under the artifact's rules,
     * artifact_len) pricing it costs no more than ub */
    int defer = by_start && !(x->artifact_noc && x->pol == ELK_POL_FULL);
    phases_memo phm;
    phm.en = -1;
    int ndc = 0, nmods = 0; /* defer: candidates in x->dc, their changes in x->dmod_i, dmod_v */
    for (int q = qmin;; q++) {
        if (q > qmin) {
            int j = x->order[q - 1];
            if (grow(x, nw + 1)) return -1;
            x->Wc[nw] = x->copt[j];
            x->W[nw++] = j;
            cold_sum += x->cold[j];
            if (x->pol == ELK_POL_DYN || x->pol == ELK_POL_FULL) wsum_add(x, &ws, j);
        }
        int last = q >= x->N || x->ps[q] >= next;
        double D = last ? next : x->ps[q];
        int entry = -1;
        double L = 0;
        if (defer && ndc == x->dccap && dcand_grow(x, ndc + 1, 0)) return -1;
        if (!candidate(x, i, q, nw, cold_sum, &ws, D, by_start ? best.start : -INFINITY, &phm, &entry, &cand_k, &L,
                       defer ? &x->dc[ndc] : NULL)) {
            if (x->pol == ELK_POL_BASIC && q < basic_target && best.q >= 0) break;
            if (q == qmin && nforced) return -1;
            break;
        }
        double start = D - L;
        if (x->list_mode) {
            undo_mods(x);
            if (x->list_mode == 1) {
                x->cand[x->ncand] = q;
                x->cand_e[x->ncand++] = -1;
            } else {
                list_plans(x, i, q, cold_sum);
            }
            if (last || nw >= x->window) break;
            continue;
        }
        if (defer) {
            dcand *c = &x->dc[ndc++];
            c->mod0 = nmods;
            c->nmod = x->nmod;
            if (x->nmod && nmods + x->nmod > x->dmodcap && dcand_grow(x, 0, nmods + x->nmod)) {
                undo_mods(x);
                return -1;
            }
            for (int m = 0; m < x->nmod; m++, nmods++) {
                x->dmod_i[nmods] = x->Wmod[m];
                x->dmod_v[nmods] = x->Wc[x->Wmod[m]];
            }
            undo_mods(x);
            if (last || nw >= x->window) break;
            continue;
        }
        int take;
        if (x->replay) take = q <= x->force_q; /* the furthest the times allow */
        else if (x->force_q >= 0) take = q == x->force_q;
        else if (x->pol == ELK_POL_BASIC) take = q <= basic_target; /* the furthest allowed candidate */
        else if (x->pol == ELK_POL_STATIC) take = 1;          /* as many preloads as fit */
        else take = start > best.start;
        if (take) {
            best = (pick_t){start, L, D, q, entry, cand_k, nw};
            x->nbmod = x->nmod;
            for (int m = 0; m < x->nmod; m++) {
                x->bmod_i[m] = x->Wmod[m];
                x->bmod_v[m] = x->Wc[x->Wmod[m]];
            }
        }
        undo_mods(x);
        if (last || nw >= x->window) break;
        if (x->pol == ELK_POL_BASIC && q >= basic_target) break;
        if (x->replay && q >= x->force_q) break;
    }
    if (x->list_mode) return 0;
    if (defer) {
        /* The latest start, ties to the first candidate: what taking each
         * one whose start passes the best so far, in window order, picks.
         * A candidate starts no later than its ub, so they are priced by
         * ub, the latest first (the first of equal ones), until none left
         * can pass the best or tie it from an earlier candidate: most of a
         * window's contended lengths were for candidates that lost. */
        double *ub = x->dub; /* the candidates' ub, -INFINITY once priced */
        for (int d = 0; d < ndc; d++) ub[d] = x->dc[d].ub;
        int bc = -1;
        for (int left = ndc; left > 0; left--) {
            int c = 0;
            for (int d = 1; d < ndc; d++)
                if (ub[d] > ub[c]) c = d;
            const dcand *dc = &x->dc[c];
            if (bc >= 0 && (dc->ub < best.start || (dc->ub == best.start && dc->q > best.q))) break;
            ub[c] = -INFINITY;
            double L = cand_len(x, i, dc->entry, dc->k, dc->D, dc->q, dc->delta, &phm), start = dc->D - L;
            if (start > best.start || (bc >= 0 && start == best.start && dc->q < best.q)) {
                best = (pick_t){start, L, dc->D, dc->q, dc->entry, cand_k, dc->nw};
                bc = c;
            }
        }
        if (bc >= 0) {
            x->nbmod = x->dc[bc].nmod;
            for (int m = 0; m < x->nbmod; m++) {
                x->bmod_i[m] = x->dmod_i[x->dc[bc].mod0 + m];
                x->bmod_v[m] = x->dmod_v[x->dc[bc].mod0 + m];
            }
        }
    }
    if (best.q < 0) return -1;
    /* the chosen group: a prefix of W, its options copt but for the mods
     * (a failed last candidate's changes undone first) */
    undo_mods(x);
    for (int m = 0; m < x->nbmod; m++) x->Wc[x->bmod_i[m]] = x->bmod_v[m];
    commit(x, i, &best, &phm);
    return 0;
}

void elk_sctx_free(elk_sctx *x)
{
    free(x->dc);
    free(x->dub);
    free(x->dmod_i);
    free(x->dmod_v);
    free(x->gate);
    free(x->cand);
    free(x->pos);
    free(x->pmax);
    free(x->held);
    free(x->es);
    free(x->entry);
    free(x->cold);
    free(x->W);
    free(x->Wc);
    free(x->lb_e);
    free(x->lb_p);
    free(x->lb_m);
    free(x->Wmod);
    free(x->bmod_i);
    free(x->bmod_v);
}

/* MoE under moe_preload "routed": each expert's preload waits for the end
 * of its layer's router. The backward pass enforces that when it schedules
 * the router, so every such preload must be placed by then: no op up to the
 * router may sit after it in the preload order (program order never does;
 * an Elk-Full order that does is infeasible). 0, or -1 out of memory. */
static int init_gates(elk_sctx *x)
{
    const elk_graph *g = &x->pr->graph;
    int N = x->N, any = 0;
    for (int i = 0; i < N && !any; i++) any = g->ops[i].route == 2;
    if (!any) return 0;
    x->gate = malloc((size_t)N * sizeof *x->gate);
    int *sufmin = malloc((size_t)N * sizeof *sufmin);
    if (!x->gate || !sufmin) {
        free(sufmin);
        return -1;
    }
    int router = -1;
    for (int i = 0; i < N; i++) {
        if (g->ops[i].route == 1) router = i;
        x->gate[i] = g->ops[i].route == 2 ? router : -1;
    }
    int mn = N;
    for (int r = N - 1; r >= 0; r--) sufmin[r] = mn = x->order[r] < mn ? x->order[r] : mn;
    for (int j = 0; j < N; j++)
        if (x->gate[j] >= 0 && sufmin[x->pos[j]] <= x->gate[j]) x->bad_order = 1;
    free(sufmin);
    return 0;
}

int elk_sctx_init(elk_sctx *x, const elk_problem *pr, const elk_sched_opts *o, elk_policy pol, const int *order, int N)
{
    memset(x, 0, sizeof *x);
    x->pr = pr;
    x->c = &pr->chip;
    x->o = o;
    x->pol = pol;
    x->N = N;
    x->order = order;
    x->window = o->window > 0 ? o->window : 2 * (pr->graph.per_layer ? pr->graph.per_layer : 16);
    x->abort_at = INFINITY;
    x->gm_run = atomic_fetch_add(&gm_runs, 1) + 1; /* 0: gm's empty slots */
    x->bp_i = -1;
    x->xr_hot = INFINITY;
    x->xr_cold = -INFINITY;
    x->pos = malloc((size_t)N * sizeof *x->pos);
    x->pmax = malloc((size_t)N * sizeof *x->pmax);
    x->es = malloc((size_t)N * 4 * sizeof *x->es);
    x->entry = malloc((size_t)N * 4 * sizeof *x->entry);
    x->cold = malloc((size_t)N * 9 * sizeof *x->cold);
    if (!x->pos || !x->pmax || !x->es || !x->entry || !x->cold) {
        elk_sctx_free(x);
        return -1;
    }
    x->ee = x->es + N;
    x->ps = x->es + 2 * N;
    x->pe = x->es + 3 * N;
    x->copt = x->entry + N;
    x->pnum = x->entry + 2 * N;
    x->win = x->entry + 3 * N;
    x->dist = x->cold + N;
    x->deliv = x->cold + 2 * N;
    x->dur = x->cold + 3 * N;
    x->nocT = x->cold + 4 * N;
    x->hbmT = x->cold + 5 * N;
    x->stall = x->cold + 6 * N;
    x->resident = x->cold + 7 * N;
    x->pace = x->cold + 8 * N;
    for (int r = 0; r < N; r++) x->pos[order[r]] = r;
    int m = -1;
    x->lookback = 1;
    for (int i = 0; i < N; i++) {
        if (x->pos[i] > m) m = x->pos[i];
        x->pmax[i] = m;
        /* a preload moved ahead of its op's neighbours is held by every op
         * from the one whose candidates pass it: the scan for such preloads
         * must reach back this far (a fixed 64 missed the pieces of cut
         * operators, and SRAM overflowed) */
        if (m + 1 - x->pos[i] > x->lookback) x->lookback = m + 1 - x->pos[i];
    }
    x->hleaf = 1;
    while (x->hleaf < N) x->hleaf *= 2;
    x->held = malloc(((size_t)2 * x->hleaf + (size_t)N) * sizeof *x->held);
    if (!x->held) {
        elk_sctx_free(x);
        return -1;
    }
    x->held_pre = x->held + 2 * x->hleaf;
    for (int r = 0; r < x->hleaf; r++) x->held[x->hleaf + r] = r < N ? order[r] : -1;
    for (int r = 0; r < N; r++) x->held_pre[r] = r > 0 && x->held_pre[r - 1] > order[r] ? x->held_pre[r - 1] : order[r];
    for (int k = x->hleaf - 1; k >= 1; k--) x->held[k] = x->held[2 * k] > x->held[2 * k + 1] ? x->held[2 * k] : x->held[2 * k + 1];
    x->placed_lo = N;
    if (init_gates(x)) {
        elk_sctx_free(x);
        return -1;
    }
    x->force_q = x->force_e = -1;
    x->replay = o->replay_entry && (pol == ELK_POL_DYN || pol == ELK_POL_FULL);
    unsigned prof = pr->chip.profile;
    x->artifact_noc = (prof >> ELK_PSW_CONTENTION) & 1u;
    /* the artifact's own constants: (op % int(10 // MESH**10)) == 0 for
     * Static, int(32 // MESH**13) for Elk-Dyn, when 1 <= MESH <= 1.15 */
    x->mesh_every = 1;
    double mesh = elk_chip_mesh_scalar(x->c);
    if (x->artifact_noc && mesh >= 1 && mesh <= 1.15 && (pol == ELK_POL_STATIC || pol == ELK_POL_DYN)) {
        double every = pol == ELK_POL_STATIC ? floor(10.0 / pow(mesh, 10)) : floor(32.0 / pow(mesh, 13));
        x->mesh_every = every >= 1 ? (int)every : 1;
    }
    x->mincold = ((prof >> ELK_PSW_MINCOLD) & 1u) && (pol == ELK_POL_BASIC || pol == ELK_POL_STATIC);
    x->noc_share = 1;
    x->noc_int = 1;
    if (prof & (1u << ELK_PSW_NOCCAP)) x->noc_share = pol == ELK_POL_FULL ? 0.99 : 0.7; /* Dyn: run_one */
    if ((prof & (1u << ELK_PSW_INT55)) && (pol == ELK_POL_BASIC || pol == ELK_POL_STATIC || pol == ELK_POL_DYN)) {
        /* the artifact's GBPS_PER_CORE, in its MiB/ms, truncated by int() */
        double per = pr->chip.link_gbps * pr->chip.noc_scale / 1.048576;
        if (per >= 1) x->noc_share *= floor(per) / per;
        /* and its NoC time too, which the delay walk's slack subtracts */
        if (per >= 1 && !(elk_chip_mesh_scalar(x->c) > 0)) x->noc_int = floor(per) / per;
    }
    return 0;
}


/* Run the backward pass; returns the makespan or INFINITY if infeasible. */
/* A lower bound on the makespan of every completion of the pass once op i
 * is scheduled. Ops run one at a time in program order, each at least its
 * fastest plan's execution, so ops 0..i-1 fill at least lb_e[i] before
 * es[i]; the preloads not yet placed run one at a time, each at least its
 * HBM time (elk_sched_preload_dur), before ps[placed_lo]; and scheduling
 * earlier ops only moves times earlier. The two chained: an op m < i that
 * reads HBM starts after its preload ends, so after every preload up to
 * its position (they run one at a time, in order), and ops m..i-1 follow
 * it: lb_p[pos[m] + 1] + lb_e[i] - lb_e[m] before es[i], whose most over m
 * is lb_m[i] (the flow shop's bound, which binds where neither the HBM nor
 * the execution alone does). */
static double pass_bound(const elk_sctx *x, int i)
{
    double lb = -x->es[i] + x->lb_e[i] + max2(0, x->lb_m[i]);
    if (x->placed_lo < x->N) lb = max2(lb, -x->ps[x->placed_lo] + x->lb_p[x->placed_lo]);
    return lb;
}

static int pass_bound_init(elk_sctx *x)
{
    int N = x->N;
    x->lb_e = malloc((size_t)(N + 1) * sizeof *x->lb_e);
    x->lb_p = malloc((size_t)(N + 1) * sizeof *x->lb_p);
    x->lb_m = malloc((size_t)(N + 1) * sizeof *x->lb_m);
    if (!x->lb_e || !x->lb_p || !x->lb_m) return -1;
    x->lb_e[0] = x->lb_p[0] = 0;
    double bw = elk_chip_hbm_bytes_per_cycle(x->c);
    for (int i = 0; i < N; i++) {
        const elk_menu *m = menu_of(x, i);
        x->lb_e[i + 1] = x->lb_e[i] + (m->n > 0 ? m->e[m->n - 1].exe : 0);
        double h = hbm_of(x, x->order[i]);
        x->lb_p[i + 1] = x->lb_p[i] + (h > 0 ? h / bw : 0);
    }
    x->lb_m[0] = -INFINITY;
    for (int m = 0; m < N; m++)
        x->lb_m[m + 1] = hbm_of(x, m) > 0 ? max2(x->lb_m[m], x->lb_p[x->pos[m] + 1] - x->lb_e[m]) : x->lb_m[m];
    return 0;
}

static double run_pass(elk_sctx *x)
{
    if (x->bad_order) return INFINITY;
    /* a run that cannot beat abort_at is abandoned as soon as its bound
     * shows it (the margin covers the bound's rounding), which leaves every
     * run that can as it was */
    int bound = isfinite(x->abort_at) && !pass_bound_init(x);
    for (int i = x->N - 1; i >= 0; i--) {
        if (x->o->cancel && atomic_load_explicit(x->o->cancel, memory_order_relaxed)) return NAN;
        if (elk_sctx_schedule_op(x, i)) return INFINITY;
        if (-x->es[i] > x->abort_at) return INFINITY;
        if (bound && pass_bound(x, i) * (1 - 1e-9) > x->abort_at) return INFINITY;
    }
    elk_sctx_place_preloads(x, 0);
    double t0 = x->es[0];
    for (int r = 0; r < x->N; r++)
        if (x->ps[r] < t0) t0 = x->ps[r];
    return -t0;
}

/* ------------------------------------------------------------------ */
/* Metrics                                                              */

/* Op i's record from the state, its times shifted by off (the step then
 * starts at 0); the peak residency is kept in s. */
static void fill_op(const elk_sctx *x, int i, double off, elk_schedule *s)
{
    const elk_chip *c = x->c;
    elk_sched_op *o = &s->ops[i];
    const elk_menu *m = menu_of(x, i);
    const elk_menu_entry *e = &m->e[x->entry[i]];
    int r = x->pos[i];
    o->exe_start = x->es[i] + off;
    o->exe_end = x->ee[i] + off;
    o->pre_start = x->ps[r] + off;
    o->pre_end = x->pe[r] + off;
    if (hbm_of(x, i) <= 0) o->pre_start = o->pre_end;
    o->entry = x->entry[i];
    o->copt = e->nc ? e->c0 + x->copt[i] : -1;
    o->hot = e->hot;
    o->cold = x->pol == ELK_POL_IDEAL ? m->min_cold * (hbm_of(x, i) > 0) : x->cold[i];
    o->preload_number = x->pnum[i];
    o->preload_pos = r;
    o->comp = e->comp;
    o->xcyc = e->xcyc;
    o->dist = x->dist[i];
    o->stall = x->stall[i] > 0 ? x->stall[i] : 0;
    o->hbm_cycles = x->hbmT[i];
    o->deliv = x->deliv[i];
    double db = o->copt >= 0 ? m->cold[o->copt].dist_bytes : 0;
    o->exe_noc_bytes = (e->xbytes + (x->pol == ELK_POL_IDEAL ? 0 : db)) * c->cores;
    o->resident = x->resident[i];
    if (o->resident > s->peak_resident) s->peak_resident = o->resident;
    o->plan = e->plan;
    o->window = x->pol == ELK_POL_IDEAL ? -1 : x->win[i];
    o->pre_dur = hbm_of(x, i) > 0 ? x->dur[i] : 0;
    o->pace = hbm_of(x, i) > 0 ? x->pace[i] : 0;
}

/* The latency breakdown: executions swept against the preloads. */
static void fill_breakdown(elk_schedule *s, double makespan)
{
    int N = s->nops;
    memset(s->brk, 0, sizeof s->brk);
    int ri = 0;
    double t = 0;
    int ei = 0;
    while (t < makespan - 1e-9) {
        while (ei < N && s->ops[ei].exe_end <= t + 1e-9) ei++;
        while (ri < N && s->ops[s->order[ri]].pre_end <= t + 1e-9) ri++;
        double nt = makespan;
        int ex = ei < N && s->ops[ei].exe_start <= t + 1e-9;
        nt = ex ? fmin(nt, s->ops[ei].exe_end) : (ei < N ? fmin(nt, s->ops[ei].exe_start) : nt);
        int pr_on = 0;
        double h = 0;
        if (ri < N) {
            const elk_sched_op *po = &s->ops[s->order[ri]];
            if (po->pre_start <= t + 1e-9 && po->pre_end > po->pre_start) {
                pr_on = 1;
                h = fmin(1.0, po->hbm_cycles / (po->pre_end - po->pre_start));
                nt = fmin(nt, po->pre_end);
            } else {
                nt = fmin(nt, po->pre_start > t ? po->pre_start : nt);
            }
        }
        if (nt <= t) nt = t + 1e-6;
        double dt = nt - t;
        if (ex) {
            const elk_sched_op *eo = &s->ops[ei];
            double len = eo->exe_end - eo->exe_start;
            /* at most the whole window: Ideal's pieces of a cut operator
             * share the operator's window, one may get less than its plan */
            double fw = len > 0 ? fmin(1.0, (eo->comp + eo->xcyc) / len) : 1;
            double fd = len > 0 ? fmin(1.0 - fw, eo->dist / len) : 0;
            double fs = fmax(0.0, 1.0 - fw - fd);
            if (!pr_on) h = 0;
            s->brk[ELK_BRK_OVERLAP] += fw * h * dt;
            s->brk[ELK_BRK_EXEC] += fw * (1 - h) * dt;
            s->brk[ELK_BRK_DIST] += fd * dt;
            s->brk[ELK_BRK_NOC] += fs * dt;
        } else if (pr_on) {
            s->brk[ELK_BRK_PRELOAD] += h * dt;
            s->brk[ELK_BRK_NOC] += (1 - h) * dt;
        } else {
            s->brk[ELK_BRK_PRELOAD] += dt; /* waiting for the preload pipeline */
        }
        t = nt;
    }
}

/* NoC utilisation: bytes the cores' ports carry over their capacity
 * times the latency, the same measure on every topology (grid link loads
 * come from the simulator). Each preload's bytes are spread evenly over
 * its interval; inside an operator's execution window the ports carry at
 * most the window's length, so where exchange and preload traffic ask
 * for more (the estimate's sharing rule is then optimistic, and the
 * simulator shows by how much) the excess is reported as demand
 * (noc_demand, which may exceed 1), not as utilisation. Ideal's preloads
 * travel on a second network of their own: twice the capacity. */
static int fill_utilisation(const elk_sctx *x, double makespan, elk_schedule *s)
{
    const elk_chip *c = x->c;
    int N = x->N;
    double hb = 0, pre_bytes = 0, exe_bytes = 0;
    double cap = elk_chip_noc_bytes_per_cycle(c);
    double scalar = elk_chip_mesh_scalar(c) > 0 ? elk_cost_preload_rate(c, 1) : 0;
    double *win = calloc((size_t)N, sizeof *win); /* preload port time inside each window */
    if (!win) return -1;
    double pre_gap = 0; /* preload port time outside every window */
    int w0 = 0;
    for (int r = 0; r < N; r++) {
        const elk_sched_op *po = &s->ops[s->order[r]];
        int j = s->order[r];
        hb += po->hbm_cycles;
        double bytes = hbm_of(x, j) > 0 ? po->deliv : 0;
        pre_bytes += bytes;
        double d = po->pre_end - po->pre_start;
        if (bytes <= 0 || d <= 0 || cap <= 0) continue;
        /* on the artifact's scalar mesh the NoC is busy for the preload's
         * NoC time there (the artifact's own measure), not its bytes over
         * the ports */
        double pt = scalar > 0 ? hbm_of(x, j) / scalar : bytes / cap, inside = 0;
        while (w0 < N && s->ops[w0].exe_end <= po->pre_start) w0++;
        for (int i = w0; i < N && s->ops[i].exe_start < po->pre_end; i++) {
            double ov = fmin(po->pre_end, s->ops[i].exe_end) - fmax(po->pre_start, s->ops[i].exe_start);
            if (ov <= 0) continue;
            win[i] += pt * ov / d;
            inside += ov;
        }
        pre_gap += pt * fmax(0.0, d - inside) / d;
    }
    double busy_pre = pre_gap, busy_exe = 0;
    for (int i = 0; i < N; i++) {
        double L = s->ops[i].exe_end - s->ops[i].exe_start;
        double xe = cap > 0 ? s->ops[i].exe_noc_bytes / cap : 0;
        exe_bytes += s->ops[i].exe_noc_bytes;
        double want = x->pol == ELK_POL_IDEAL ? xe : xe + win[i];
        double f = want > L && want > 0 ? L / want : 1.0;
        busy_exe += xe * f;
        busy_pre += x->pol == ELK_POL_IDEAL ? win[i] : win[i] * f;
    }
    free(win);
    double span = makespan * (x->pol == ELK_POL_IDEAL ? 2 : 1);
    s->hbm_util = makespan > 0 ? hb / makespan : 0;
    s->noc_pre_util = span > 0 ? busy_pre / span : 0;
    s->noc_exe_util = span > 0 ? busy_exe / span : 0;
    s->noc_util = s->noc_pre_util + s->noc_exe_util;
    s->noc_demand = span > 0 && cap > 0 ? (pre_bytes + exe_bytes) / cap / span : 0;
    assert(s->noc_util <= 1 + 1e-9 || makespan <= 0);
    return 0;
}

int elk_sctx_fill(const elk_sctx *x, double makespan, elk_schedule *s)
{
    const elk_problem *pr = x->pr;
    const elk_chip *c = x->c;
    int N = x->N;
    s->nops = N;
    s->ops = calloc((size_t)N, sizeof *s->ops);
    s->order = malloc((size_t)N * sizeof *s->order);
    if (!s->ops || !s->order) return -1;
    double off = makespan; /* times were negative, ending at 0 */
    memcpy(s->order, x->order, (size_t)N * sizeof *s->order);
#ifndef NDEBUG
    /* the state's invariants (elk_sctx): preloads serial in position order, each
     * ending before its op's execution starts; the order a permutation */
    if (x->pol != ELK_POL_IDEAL) {
        double tol = 1e-6 * (fabs(makespan) + 1);
        for (int r = x->placed_lo; r + 1 < N; r++) assert(x->pe[r] <= x->ps[r + 1] + tol);
        for (int r = x->placed_lo; r < N; r++)
            if (hbm_of(x, x->order[r]) > 0) assert(x->pe[r] <= x->es[x->order[r]] + tol);
    }
    for (int i = 0; i < N; i++) assert(x->order[x->pos[i]] == i);
#endif
    for (int i = 0; i < N; i++) fill_op(x, i, off, s);
    /* Ideal prices its preloads unthrottled (elk_sched_run_ideal) */
    s->pre_share = x->pol == ELK_POL_IDEAL ? 1 : x->noc_share;
    assert(s->pre_share > 0 && s->pre_share <= 1);
    s->latency = makespan;
    s->latency_ms = makespan / (c->clock_ghz * 1e6);

    fill_breakdown(s, makespan);
    if (fill_utilisation(x, makespan, s)) return -1;
    s->tflops = makespan > 0 ? pr->graph.flops / (makespan / (c->clock_ghz * 1e9)) / 1e12 : 0;
    return 0;
}

/* elk_sched_run_one, and (xr, if set) the run's xr_hot and xr_cold, and
 * (keep, if set) the run kept there when it is the fastest yet. */
static elk_status run_one(const elk_problem *pr, elk_policy pol, const elk_sched_opts *o, const int *order, int N,
                          int variant, double xlimit, double abort_at, double *makespan, elk_schedule *out,
                          double *xr, elk_sched_keep *keep, elk_error *err)
{
    elk_sctx x;
    if (elk_sctx_init(&x, pr, o, pol, order, N)) return elk_fail(err, ELK_ENOMEM, "out of memory");
    x.variant = variant;
    if (pol == ELK_POL_DYN || pol == ELK_POL_FULL) x.price = variant % ELK_PRICES;
    if (pol == ELK_POL_DYN && (pr->chip.profile & (1u << ELK_PSW_NOCCAP)))
        x.noc_share *= elk_sched_dyn_theta[variant / ELK_PRICES] / 0.7;
    x.xlimit = xlimit;
    x.abort_at = abort_at;
    double ms = run_pass(&x);
    elk_status st = ELK_OK;
    if (isnan(ms)) st = elk_fail(err, ELK_ECANCEL, "cancelled");
    *makespan = ms;
    if (st == ELK_OK && out && isfinite(ms)) {
        out->policy = pol;
        out->run_variant = variant;
        if (elk_sctx_fill(&x, ms, out)) st = elk_fail(err, ELK_ENOMEM, "out of memory");
    }
    if (xr) {
        xr[0] = x.xr_hot;
        xr[1] = x.xr_cold;
    }
    if (keep && st == ELK_OK && ms < keep->ms) {
        elk_sched_keep_free(keep);
        keep->x = x;
        keep->ms = ms;
        keep->variant = variant;
        return st;
    }
    elk_sctx_free(&x);
    return st;
}

void elk_sched_keep_free(elk_sched_keep *k)
{
    if (isfinite(k->ms)) elk_sctx_free(&k->x);
    k->ms = INFINITY;
}

elk_status elk_sched_run_kept(const elk_problem *pr, elk_policy pol, const elk_sched_opts *o, const int *order, int N,
                              int variant, double xlimit, double abort_at, double *makespan, elk_sched_keep *k,
                              elk_error *err)
{
    return run_one(pr, pol, o, order, N, variant, xlimit, abort_at, makespan, NULL, NULL, k, err);
}

elk_status elk_sched_keep_fill(const elk_sched_keep *k, elk_schedule *out, elk_error *err)
{
    assert(isfinite(k->ms));
    out->policy = k->x.pol;
    out->run_variant = k->variant;
    if (elk_sctx_fill(&k->x, k->ms, out)) return elk_fail(err, ELK_ENOMEM, "out of memory");
    return ELK_OK;
}

elk_status elk_sched_run_one(const elk_problem *pr, elk_policy pol, const elk_sched_opts *o, const int *order, int N,
                             int variant, double xlimit, double abort_at, double *makespan, elk_schedule *out,
                             elk_error *err)
{
    return run_one(pr, pol, o, order, N, variant, xlimit, abort_at, makespan, out, NULL, NULL, err);
}

elk_status elk_sched_run_static(const elk_problem *pr, const elk_sched_opts *o, const int *order, int N, int variant,
                                double xlimit, double abort_at, double *makespan, double *xr_hot, double *xr_cold,
                                elk_sched_keep *k, elk_error *err)
{
    double xr[2];
    elk_status st = run_one(pr, ELK_POL_STATIC, o, order, N, variant, xlimit, abort_at, makespan, NULL, xr, k, err);
    *xr_hot = xr[0];
    *xr_cold = xr[1];
    return st;
}

/* ------------------------------------------------------------------ */
/* Ideal: the relaxation every schedule is measured against             */

/* Every policy here runs operators one at a time in program order, runs
 * preloads one at a time, starts an operator only after its own preload, and
 * gives operator i at least E_i (its fastest plan's execution with no
 * contention and no data distribution) and its preload at least P_i (its
 * bytes at full HBM rate, or through the NoC with no replica and no padding,
 * whichever is slower). Drop SRAM capacity and the shared NoC, and let an
 * operator even stream its own preload while it runs (as if cut into
 * infinitely many pieces): what is left is a fluid two-stage flow shop.
 * Operators k+1.. cannot start before the preloads of ops 0..k are done, and
 * the last cannot end before every preload has, so
 *     makespan >= max_k (sum_{j<=k} P_j + sum_{j>k} E_j),  k = -1 .. N-1,
 * for every preload order and every schedule, and the forward schedule below
 * reaches exactly that. So Ideal is a lower bound by construction, and it
 * moves only with the E_i and P_i: more bandwidth, SRAM or compute can only
 * shorten them, P is additive in bytes, and how an operator that outgrows
 * SRAM is cut into pieces (pick_split, never slower with more SRAM) enters
 * only through the pieces' summed execution. It is the paper's Ideal made
 * exact: not a realisable machine, since its preloads sit in a buffer of
 * their own, travel on a network of their own and overlap their own
 * operator, so the simulator's replay of it is a little slower. */
/* Ideal's preload number and residency as its intervals show them: op i
 * holds every later preload that starts before it ends. Preloads start in
 * program order, so those are a run j = i+1 .. J(i)-1 with J nondecreasing;
 * with whole-byte sizes (exact sums in any order) the run's sums come from
 * prefix sums, else from the loop itself (Ideal on a training step holds
 * thousands of preloads at once, and the loop was quadratic). */
static int is_whole(double v) { return v == floor(v) && fabs(v) < 0x1p52; }

static int ideal_residency(elk_sctx *x)
{
    int N = x->N, whole = 1;
    for (int i = 0; i < N && whole; i++)
        whole = is_whole(menu_of(x, i)->e[x->entry[i]].hot) && is_whole(menu_of(x, i)->min_cold);
    double *sc = whole ? malloc((size_t)(N + 1) * sizeof *sc) : NULL;
    int *sn = whole ? malloc((size_t)(N + 1) * sizeof *sn) : NULL;
    if (whole && (!sc || !sn)) {
        free(sc);
        free(sn);
        return -1;
    }
    if (whole) {
        sc[0] = 0;
        sn[0] = 0;
        for (int j = 0; j < N; j++) {
            int held = x->dur[j] > 0;
            sc[j + 1] = sc[j] + (held ? menu_of(x, j)->min_cold : 0);
            sn[j + 1] = sn[j] + held;
        }
    }
    int J = 1;
    for (int i = 0; i < N; i++) {
        double res = menu_of(x, i)->e[x->entry[i]].hot;
        int pn = 0;
        if (whole) {
            if (J < i + 1) J = i + 1;
            while (J < N && x->ps[J] < x->ee[i]) J++;
            pn = sn[J] - sn[i + 1];
            res += sc[J] - sc[i + 1];
        } else {
            for (int j = i + 1; j < N && x->ps[j] < x->ee[i]; j++)
                if (x->dur[j] > 0) {
                    pn++;
                    res += menu_of(x, j)->min_cold;
                }
        }
        x->pnum[i] = pn;
        x->resident[i] = res;
    }
    free(sc);
    free(sn);
    return 0;
}

elk_status elk_sched_run_ideal(const elk_problem *pr, const elk_sched_opts *o, const int *ident, elk_schedule *out,
                            elk_error *err)
{
    int N = pr->graph.nops;
    elk_sctx x;
    if (elk_sctx_init(&x, pr, o, ELK_POL_IDEAL, ident, N)) return elk_fail(err, ELK_ENOMEM, "out of memory");
    const elk_chip *c = x.c;
    double cum = 0, t = 0;
    for (int i = 0, j; i < N; i = j) {
        /* the pieces [i, j) of one cut operator are that operator: their
         * preloads in a row, their fastest executions summed */
        for (j = i + 1; j < N && pr->graph.ops[j].cut_cont; j++) {}
        double prev = cum, Eg = 0;
        for (int k = i; k < j; k++) {
            const elk_menu *m = menu_of(&x, k);
            double h = hbm_of(&x, k) - pr->graph.ops[k].hbm_pad; /* the tensors' bytes alone */
            x.entry[k] = m->n - 1;
            set_cold(&x, k, 0);
            if (h > 0 && x.dur[k] > 0) {
                x.deliv[k] = h;
                x.hbmT[k] = h / elk_chip_hbm_bytes_per_cycle(c);
                x.dur[k] = elk_cost_preload_cycles(c, h, h);
                x.nocT[k] = pre_noc_cycles(c, h, h);
            }
            Eg += m->e[x.entry[k]].exe;
            x.ps[k] = cum;
            cum += x.dur[k];
            x.pe[k] = cum;
            x.stall[k] = 0;
            x.dist[k] = 0;
        }
        /* at the least execution of the cuts Ideal may take (ideal_scale) */
        double f = pr->ideal_scale ? pr->ideal_scale[i] : 1;
        Eg *= f;
        /* as early as the earlier preloads allow, ending no sooner than its own */
        double start = fmax(t, fmax(prev, cum - Eg)), end = start + Eg, A = 0;
        /* the pieces tile [start, end] in order, each ending no sooner
         * than its own preload (the last ends at end >= cum) */
        for (int k = i; k < j; k++) {
            A += f * menu_of(&x, k)->e[x.entry[k]].exe;
            x.es[k] = t > start ? t : start;
            t = x.ee[k] = k + 1 == j ? end : fmin(end, fmax(start + A, x.pe[k]));
        }
        t = end;
    }
    double T = t;
    assert(T >= cum - 1e-6);
    for (int i = 0; i < N; i++) {
        x.es[i] -= T;
        x.ee[i] -= T;
        x.ps[i] -= T;
        x.pe[i] -= T;
    }
    if (ideal_residency(&x)) {
        elk_sctx_free(&x);
        return elk_fail(err, ELK_ENOMEM, "out of memory");
    }
    x.placed_lo = 0;
    elk_status st = ELK_OK;
    out->policy = ELK_POL_IDEAL;
    if (elk_sctx_fill(&x, T, out)) st = elk_fail(err, ELK_ENOMEM, "out of memory");
    elk_sctx_free(&x);
    return st;
}
