/* Internals shared by the scheduler's units (elk_sched.c: the backward list
 * scheduler and Ideal; elk_sched_exact.c: the exact search over preload
 * numbers; elk_sched_run.c: the policy drivers and Elk-Full's order search;
 * elk_problem.c: design point to plan menus). Not part of libelkcore's API. */
#ifndef ELK_SCHED_INT_H
#define ELK_SCHED_INT_H

#include <math.h>
#include <time.h>

#include "elk_cost.h"
#include "elk_sched.h"

/* The backward list scheduler's working state for one run. Times are
 * cycles, negative, with the last execution ending at 0.
 * Invariants: positions >= placed_lo have their preload placed; preloads are
 * serial in position order (pe[r] <= ps[r+1]); an op's preload ends before
 * its execution starts. */
typedef struct {
    const elk_problem *pr;
    const elk_chip *c;
    const elk_sched_opts *o;
    elk_policy pol;
    int N;              /* ops scheduled (a prefix when screening) */
    int window;
    int variant;        /* Basic/Static: 0 fully distributed, 1 replicated;
                           Elk: the allocator's price slot */
    double xlimit;      /* Static: execution region, bytes; Dyn: execution ceiling */
    int price;          /* Elk: which allocator price slot (elk_menu eff) */
    int force_q;        /* exact search: take only this candidate (-1: the policy's rule) */
    int force_e;        /* exact search: with this execute-state entry (-1: the allocator's) */
    int replay;         /* o->replay_*: force_e at every candidate, the furthest up to force_q */
    int list_mode;      /* exact search: list feasible candidates (1) or (candidate, plan) pairs (2) */
    int *cand, *cand_e; /* exact search: the listed pairs */
    int ncand, cand_cap;
    double abort_at;    /* give up once the makespan exceeds this */
    double noc_share;   /* paper profile: the share of the preload NoC rate this policy may use
                           (theta, and int(5.5)/5.5), else 1 */
    double noc_int;     /* a preload's NoC time is its time at the link rate over
                           this: int(5.5) / 5.5 under "int55" for Basic, Static
                           and Elk-Dyn, else 1 */
    int artifact_noc;   /* paper profile's "contention" switch */
    int mesh_every;     /* under it, Static and Elk-Dyn on the artifact's mesh
                           delay only ops whose index is a multiple (else 1) */
    int mincold;        /* paper profile's "mincold" switch, Basic and Static only */
    int *gate;          /* op -> the router whose end its preload must wait for, -1; NULL
                           when nothing is routed (moe_preload "routed") */
    int bad_order;      /* a routed expert's preload sits before an op the router precedes */
    const int *order;   /* position -> op */
    int *pos;           /* op -> position */
    int *pmax;          /* max position over ops 0..i */
    double *es, *ee, *ps, *pe;
    int *entry, *copt, *pnum, *win;
    double *cold, *dist, *deliv, *dur, *nocT, *hbmT, *stall, *resident;
    double *pace;       /* the replay's throttle behind dur (replay_pace), else 0 */
    int placed_lo;
    int lookback;       /* max over ops j of pmax[j] + 1 - pos[j]: how far before an op's first
                           candidate position a preload it must hold can sit (debug builds scan
                           that far to check held_push) */
    int *held;          /* a max tree over the order (held_push): node k >= hleaf is position
                           k - hleaf's op (-1 past N), node k < hleaf the larger of 2k, 2k + 1 */
    int hleaf;          /* its leaves: the least power of two >= N */
    int *held_pre;      /* held_pre[r]: the largest op at positions 0..r (in held's block) */
    /* scratch */
    int *W, *Wc;
    /* Between candidates Wc[k] is copt[W[k]]; the allocator's changes to it
     * are listed in Wmod (nmod) and undone, and the chosen candidate's kept
     * as (bmod_i, bmod_v) pairs (nbmod), so no candidate copies the window.
     * The chosen group is then W[0..nw) with those changes put back in Wc. */
    int *Wmod, *bmod_i, *bmod_v;
    int nmod, nbmod;
    int wcap;
    /* baseline_pick's last answer: Static asks it at every candidate with
     * one budget (bp_i -1: none) */
    int bp_i, bp_e, bp_k, bp_nfit;
    double bp_budget;
    /* Static: what the run's decisions compared X (xlimit) with, so that
     * the X sweep can skip an X every such comparison gives the same answer
     * (elk_sched_run_static): the least menu hot above X of the menus it
     * asked (INFINITY: none), and the largest cold_sum that passed the
     * window test (-INFINITY: none). Owned by the run; valid at its end. */
    double xr_hot, xr_cold;
    /* run_pass's bound on the makespan of a run it may abandon (abort_at
     * finite): lb_e[i] sums ops 0..i-1's fastest execution, lb_p[r] the HBM
     * time of the preloads at positions 0..r-1 */
    double *lb_e, *lb_p;
    /* lb_m[i]: the most, over ops m < i that read HBM, of lb_p[pos[m] + 1]
     * - lb_e[m] (-INFINITY: none), for pass_bound */
    double *lb_m;
    /* Elk-Dyn's and Elk-Full's candidates of the op being scheduled, priced
     * but for their contended length (elk_sctx_schedule_op), and each one's
     * allocator changes (dmod_i, dmod_v from its dcand's mod0, nmod of
     * them); dub: scratch for their ub */
    struct elk_dcand *dc;
    double *dub;
    int dccap;
    int *dmod_i, *dmod_v;
    int dmodcap;
    /* set_cold's preload pricing by (h, deliv, share), direct-mapped (h 0:
     * an empty slot, never priced here): a run prices the same few layer
     * shapes' options again and again, and on a grid each price asks the
     * multicast trees' busiest links */
    struct {
        double h, deliv, share, hbmT, dur, noc;
    } pmemo[64];
    unsigned long gm_run; /* this run's key in elk_sched.c's grid pair cache (gm), never 0 */
} elk_sctx;

static inline const elk_menu *menu_of(const elk_sctx *x, int i) { return &x->pr->menus[x->pr->graph.ops[i].shape_id]; }
static inline double hbm_of(const elk_sctx *x, int i) { return x->pr->graph.ops[i].hbm_bytes; }


/* How the scheduler prices one preload of h HBM bytes delivering deliv
 * bytes into cores, when its policy may use a share (<= 1) of the preload
 * NoC rate: *noc gets its NoC time at the full rate, and the result is its
 * duration (the HBM time or the NoC-bound delivery, whichever is longer).
 * set_cold and the realisable bound (elk_bound) both price preloads here. */
static inline double elk_sched_preload_dur(const elk_chip *c, double share, double h, double deliv, double *noc)
{
    if (h <= 0) {
        *noc = 0;
        return 0;
    }
    *noc = h / elk_cost_preload_rate(c, fmax(1.0, deliv / h));
    double hbm = h / elk_chip_hbm_bytes_per_cycle(c);
    /* The artifact's mesh (meshscalar) has no theta: a load takes its HBM
     * time and keeps the NoC busy for that over MESH. Below MESH = 1 the
     * artifact still ends it at its HBM time and books the difference as
     * negative slack beside it; here it lasts its NoC time, so no resource
     * is busy more than all the time. */
    if (elk_chip_mesh_scalar(c) > 0) share = 1;
    /* at full share, elk_cost_preload_cycles(c, h, deliv): the same two
     * terms by the same expressions, so its bits without pricing the
     * preload rate twice (on grids, a multicast tree's busiest link) */
    return share < 1 ? fmax(hbm, *noc / share) : fmax(hbm, *noc);
}

/* Elk-Dyn's NoC shares under the paper profile's "noccap" (the artifact
 * runs it at each and keeps the fastest). */
extern const double elk_sched_dyn_theta[3];
#define DYN_THETAS(pr) (((pr)->chip.profile & (1u << ELK_PSW_NOCCAP)) && !(elk_chip_mesh_scalar(&(pr)->chip) > 0) ? 3 : 1)

static inline double elk_sched_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Allocate the state for scheduling order[0..N) under policy pol; 0 or -1 (out of memory). */
int elk_sctx_init(elk_sctx *x, const elk_problem *pr, const elk_sched_opts *o, elk_policy pol, const int *order, int N);
void elk_sctx_free(elk_sctx *x);
/* Schedule op i given the fixed schedule after it; -1 if nothing fits. */
int elk_sctx_schedule_op(elk_sctx *x, int i);
/* Place the preloads op i's choice made resident. */
void elk_sctx_place_preloads(elk_sctx *x, int i);
/* Turn a finished pass into a schedule with its metrics; 0 or -1 (out of memory). */
int elk_sctx_fill(const elk_sctx *x, double makespan, elk_schedule *s);
/* One pass of policy pol over order (variant: Basic/Static layout or Elk's
 * price slot; xlimit: Static's execution region); gives up above abort_at. */
elk_status elk_sched_run_one(const elk_problem *pr, elk_policy pol, const elk_sched_opts *o, const int *order, int N,
                             int variant, double xlimit, double abort_at, double *makespan, elk_schedule *out,
                             elk_error *err);
/* The state of the fastest finished run a search has made so far (ms
 * INFINITY: none), kept so that the search's schedule is filled from it
 * rather than from the same run made again: a run that finishes does the
 * same whatever its abort_at. Owns x while ms is finite; free with
 * elk_sched_keep_free. */
typedef struct {
    elk_sctx x;
    double ms;
    int variant;
} elk_sched_keep;

static inline void elk_sched_keep_init(elk_sched_keep *k) { k->ms = INFINITY; }
void elk_sched_keep_free(elk_sched_keep *k);
/* elk_sched_run_one without a schedule out, the run kept in *k when it
 * finishes faster than k's (and k's freed). */
elk_status elk_sched_run_kept(const elk_problem *pr, elk_policy pol, const elk_sched_opts *o, const int *order, int N,
                              int variant, double xlimit, double abort_at, double *makespan, elk_sched_keep *k,
                              elk_error *err);
/* The kept run's schedule into *out (its order must still be alive). */
elk_status elk_sched_keep_fill(const elk_sched_keep *k, elk_schedule *out, elk_error *err);

/* elk_sched_run_one for Static (no schedule out), and what its decisions
 * compared X with (xr_hot, xr_cold: elk_sctx). A run at X' > X whose
 * comparisons all come out as at X (X' < *xr_hot and not *xr_cold >
 * sram - X') makes the same decisions, so it is the same run: the same
 * makespan, or abandoned no later at any abort_at no larger. */
elk_status elk_sched_run_static(const elk_problem *pr, const elk_sched_opts *o, const int *order, int N, int variant,
                                double xlimit, double abort_at, double *makespan, double *xr_hot, double *xr_cold,
                                elk_sched_keep *k, elk_error *err);
/* The fluid flow-shop bound (Ideal). */
elk_status elk_sched_run_ideal(const elk_problem *pr, const elk_sched_opts *o, const int *ident, elk_schedule *out,
                               elk_error *err);

#endif
