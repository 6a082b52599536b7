#include "elk_sched_int.h"

#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elk_cost.h"
#include "elk_plan_art.h"
#include "elk_thread.h"

/* ------------------------------------------------------------------ */
/* Problem                                                              */

elk_status elk_problem_init(elk_problem *pr, const elk_point *p, elk_plan_cache *pc, elk_error *err)
{
    return elk_problem_init_opts(pr, p, pc, NULL, err);
}

elk_status elk_problem_init_opts(elk_problem *pr, const elk_point *p, elk_plan_cache *pc, const elk_plan_opts *po,
                                 elk_error *err)
{
    memset(pr, 0, sizeof *pr);
    elk_chip c;
    elk_model m;
    elk_graph g;
    ELK_TRY(elk_point_resolve(p, &c, &m, err));
    ELK_TRY(elk_graph_build(&m, p->workload, p->batch, p->seq, p->layers, &g, err));
    elk_graph_apply_profile(&g, c.profile);
    elk_status st = elk_problem_init_graph_opts(pr, &c, &m, &g, pc, po, err);
    pr->point = *p;
    return st;
}

/* Choosing the cut of an operator that outgrows SRAM: the least summed
 * execution of its pieces (and a reduced cut's adds), each at its fastest
 * plan. (Adding the largest piece's preload, which no schedule overlaps with
 * that piece, favoured cutting weights that fit whole, and the policies lost
 * up to 12% on Llama2-70B.) The plan sets are the cache's, so the chosen
 * cut's pieces are enumerated once. The candidates (elk_split_ladder) nest as
 * SRAM grows and every one is timed, so more SRAM never raises the least
 * total, which is what Ideal sees of a cut operator (ideal_cuts). Ties go to
 * the earlier candidate: the whole op, then fewer pieces. */
/* One cut the timed chooser may take, as the flow shop (cut_shop) sees it:
 * its pieces in order (the first nlong one longer), each with its fastest
 * execution and its preload, and a reduced cut's adds between them. */
typedef struct {
    int idx;                 /* index into the ladder's options */
    int dim;                 /* the dim cut (pieces 1: 0) */
    int pieces, nlong, reduced;
    double e_long, e_short, e_add, p_long, p_short;
    double b_long, b_short, b_add; /* the pieces' and an add's tensor bytes */
    double h_long, h_short;  /* the pieces' HBM bytes */
    double exe;              /* cut_exe */
} cut_cand;

/* The fitting cuts of one operator shape the timed chooser was asked about
 * (where none fits, the unfit ones that have plans), and the one it takes.
 * Invariant: 0 <= pick < n. */
typedef struct {
    int shape_id, layer_pos, in_layer;
    int n, pick, least;      /* least: the least summed execution's */
    cut_cand c[ELK_SPLIT_LADDER_OPTS];
} cut_rec;

typedef struct {
    const elk_chip *c;
    elk_plan_cache *pc;
    const elk_plan_opts *po;
    double *least; /* per pre-split shape_id: the least timed cut, NAN not yet (ideal_cuts) */
    int nshapes;
    int nlayers;
    double cap;    /* the split's cap, bytes */
    cut_rec *rec;  /* the timed choices, one per shape asked (cut_shop); NULL: not recorded */
    int nrec, reccap;
    int forced;    /* second split: take rec's picks */
    int tail_sid;  /* the shape of the graph's last op that reads HBM, -1 none */
} split_ctx;

static double preload_of(const split_ctx *sc, double h) { return h > 0 ? elk_cost_preload_cycles(sc->c, h, h) : 0; }

static double tensor_bytes(const elk_op *op)
{
    double b = 0;
    for (int t = 0; t < op->ntensors; t++) b += elk_op_tensor_elems(op, t) * op->dtype_bytes;
    return b;
}

/* The execution of op's fastest plan, and its space per core in *hot
 * (NULL: not wanted); INFINITY when op has no plan. */
static double fastest_plan(const split_ctx *sc, const elk_op *op, double *hot)
{
    elk_error err;
    double e, h;
    if (hot) *hot = INFINITY;
    /* the fastest menu entry of op's set, without the set when none is
     * cached (most candidate pieces are never planned in full) */
    if (elk_plan_cache_fastest(sc->pc, sc->c, op, sc->po, &e, &h, &err) != ELK_OK) return INFINITY;
    if (hot) *hot = h;
    return e;
}

static double fastest_exe(const split_ctx *sc, const elk_op *op) { return fastest_plan(sc, op, NULL); }

/* op's fastest execution if it is at most lim, else INFINITY (a search
 * told what it must beat prunes most of itself). */
static double fastest_below(const split_ctx *sc, const elk_op *op, double lim)
{
    elk_error err;
    double e, h;
    if (!(lim > 0)) return INFINITY;
    if (elk_plan_cache_fastest_below(sc->pc, sc->c, op, sc->po, lim, &e, &h, &err) != ELK_OK) return INFINITY;
    return e;
}

/* Whether an op well inside the split's cap (no cut offered by the margin
 * rule) is still worth timing its cuts: its fastest plan holds more than
 * 1/ELK_SPLIT_LADDER_MARGIN of a core's SRAM, so it is the space that stops
 * it going faster, and pieces preloaded one by one have more of it each. An
 * op whose fastest plan leaves most of SRAM free runs whole. *exe: the
 * whole op's fastest execution. */
static int space_bound(const split_ctx *sc, const elk_op *op, double *exe)
{
    double hot;
    *exe = fastest_plan(sc, op, &hot);
    return isfinite(*exe) && hot * ELK_SPLIT_LADDER_MARGIN > elk_chip_sram_bytes(sc->c);
}

/* The summed fastest execution of a cut's pieces and adds (pieces 1: the
 * op whole), if it is below lim, else INFINITY: each part's search is told
 * what the parts before it leave of lim (every part's execution is
 * non-negative), with room for the rounding of the shares. */
static double cut_exe(const split_ctx *sc, const elk_op *op, const elk_split *s, double lim, cut_cand *cc)
{
    const double slack = 1 + 1e-9;
    cut_cand t = {0};
    t.pieces = 1;
    t.p_long = preload_of(sc, op->hbm_bytes);
    t.b_long = tensor_bytes(op);
    t.h_long = op->hbm_bytes;
    if (s->pieces == 1) {
        t.exe = t.e_long = fastest_below(sc, op, lim * slack);
        if (cc) *cc = t;
        return t.exe;
    }
    long D = op->dim[s->dim];
    int K = s->pieces, nlong = (int)(D % K);
    elk_op piece;
    elk_split_piece(op, s, K - 1, &piece);
    t.pieces = K;
    t.nlong = nlong;
    t.e_short = fastest_below(sc, &piece, lim / (K - nlong) * slack);
    t.p_short = preload_of(sc, piece.hbm_bytes);
    t.b_short = tensor_bytes(&piece);
    t.h_short = piece.hbm_bytes;
    double E = (K - nlong) * t.e_short;
    elk_split_piece(op, s, 0, &piece); /* a longer one */
    t.p_long = preload_of(sc, piece.hbm_bytes);
    t.b_long = tensor_bytes(&piece);
    t.h_long = piece.hbm_bytes;
    if (nlong > 0 && isfinite(E)) E += nlong * (t.e_long = fastest_below(sc, &piece, (lim - E) / nlong * slack));
    if (s->kind == ELK_SPLIT_REDUCED && isfinite(E)) {
        elk_op add;
        elk_split_add(op, 1, &add);
        t.reduced = 1;
        t.b_add = tensor_bytes(&add);
        E += (K - 1) * (t.e_add = fastest_below(sc, &add, (lim - E) / (K - 1) * slack));
    }
    t.exe = E < lim ? E : INFINITY;
    if (cc) *cc = t;
    return t.exe;
}

/* The least cut_exe over the candidates whose fits is one of fits_mask's
 * bits (1: the unfit, 2: those that fit): every one is timed (an early stop
 * at the first rise along a dim made the choice, and with it Ideal, depend on
 * where the rise fell: Ideal 0.4% slower with 25% more link bandwidth on
 * tt-galaxy). *at: its index, -1 if none. */
static double least_cut(const split_ctx *sc, const elk_op *op, const elk_split *opt, int n, unsigned fits_mask,
                        int *at, cut_rec *rec)
{
    double bestT = INFINITY;
    *at = -1;
    for (int k = 0; k < n; k++) {
        if (!(fits_mask & (1u << (opt[k].fits != 0)))) continue;
        cut_cand cc;
        double E = cut_exe(sc, op, &opt[k], INFINITY, &cc);
        if (rec && isfinite(E)) {
            cc.idx = k;
            cc.dim = opt[k].dim;
            rec->c[rec->n++] = cc;
        }
        if (E < bestT * (1 - 1e-12)) {
            bestT = E;
            *at = k;
            if (rec) rec->least = rec->n - 1;
        }
    }
    return bestT;
}

/* The lesser of lim and the least cut_exe over opt (least_cut's least,
 * fit or not, where it is below lim), each candidate's searches bounded by
 * the least so far. */
static double least_cut_below(const split_ctx *sc, const elk_op *op, const elk_split *opt, int n, double lim)
{
    for (int k = 0; k < n; k++) {
        double E = cut_exe(sc, op, &opt[k], lim, NULL);
        if (E < lim) lim = E;
    }
    return lim;
}

static int pick_split(const elk_op *op, const elk_split *opt, int n, void *ctx)
{
    split_ctx *sc = ctx;
    int best = -1;
    if ((sc->c->profile & (1u << ELK_PSW_PLANTABLES)) && (best = elk_plan_art_pick_split(op, opt, n)) >= 0) return best;
    if (sc->po && sc->po->coarse) {
        /* a provisional answer: the fewest pieces that fit, untimed (timing
         * every cut's pieces was most of its plans' time; the complete
         * answer times them) */
        for (int k = 0; k < n; k++)
            if (opt[k].fits && (best < 0 || opt[k].pieces < opt[best].pieces)) best = k;
        if (best >= 0) return best;
    }
    if (sc->forced) {
        /* the second split (cut_shop): the same ops ask in the same order */
        for (int r = 0; r < sc->nrec; r++)
            if (sc->rec[r].shape_id == op->shape_id) return sc->rec[r].c[sc->rec[r].pick].idx;
    }
    cut_rec *rec = NULL;
    if (sc->rec && !sc->forced && op->shape_id >= 0) {
        if (sc->nrec == sc->reccap) {
            int cap = sc->reccap ? 2 * sc->reccap : 8;
            cut_rec *r2 = realloc(sc->rec, (size_t)cap * sizeof *r2);
            if (r2) {
                sc->rec = r2;
                sc->reccap = cap;
            }
        }
        if (sc->nrec < sc->reccap) {
            rec = &sc->rec[sc->nrec];
            rec->shape_id = op->shape_id;
            rec->layer_pos = op->layer_pos;
            rec->in_layer = op->layer >= 0 && op->layer < sc->nlayers;
            rec->n = rec->least = 0;
        }
    }
    /* an op well inside the cap (elk_graph_split_large_ladder_any) is
     * timed only where its space binds; else it runs whole, and the graph's
     * tail op's cuts are recorded for cut_shop all the same */
    int inside = opt[0].pieces == 1 && tensor_bytes(op) * ELK_SPLIT_LADDER_MARGIN <= sc->cap;
    double whole;
    int loose = inside && !space_bound(sc, op, &whole);
    if (loose && op->shape_id != sc->tail_sid) {
        if (op->shape_id >= 0 && op->shape_id < sc->nshapes) sc->least[op->shape_id] = whole;
        return 0;
    }
    double T = least_cut(sc, op, opt, n, 2, &best, rec);
    if (loose) {
        best = 0;
        for (int r = 0; rec && r < rec->n; r++)
            if (rec->c[r].idx == 0) rec->least = r;
    }
    if (rec && rec->n > 0) {
        rec->pick = rec->least;
        sc->nrec++;
    }
    if (op->shape_id >= 0 && op->shape_id < sc->nshapes) sc->least[op->shape_id] = T;
    if (best >= 0) return best;
    /* nothing fits the cap: the least summed execution of the cuts that do
     * not (their pieces are planned all the same, as Ideal's are). Taking
     * the finest, untimed, made more SRAM cost 20% (Llama2-70B training on
     * a 768-core wse2 ring: down's finest at 31.8 KiB was 256 pieces along
     * its reduced dim, 50.4 ms summed; at 39.75 KiB the first of the two
     * 128-piece cuts, along its output dim, 80.8 ms, where 64 along the
     * reduced dim took 28.9). Where no cut has a plan, the finest, and the
     * planner names what does not fit. */
    int at;
    assert(!rec || rec->n == 0); /* a fitting cut with a time returned above */
    double U = least_cut(sc, op, opt, n, 1, &at, rec);
    if (rec && rec->n > 0) {
        /* recorded like the fitting ones, so the walk can try the cut next
         * to the least sum (Qwen3-30B-A3B prefill on a 64-core wse2 ring:
         * the experts' up projection fits in no cut; at 82.5 KiB 512 pieces
         * sum less than 1024 but the step runs 0.7% slower than 1024's at
         * 66 KiB, where 512 had no plan) */
        rec->pick = rec->least;
        sc->nrec++;
    }
    if (isfinite(U) && at >= 0) return at;
    for (int k = 0; k < n; k++)
        if (best < 0 || opt[k].pieces > opt[best].pieces) best = k;
    return best;
}

/* Choosing the cuts together, by the schedule they allow: the fixed-order
 * two-stage flow shop of the whole graph (preloads one at a time, then
 * executions one at a time, each op after its own preload, each at its
 * fastest plan), where a preload also waits until the chip's SRAM can hold
 * it beside the data of the op then running and the preloads before it.
 * Summed execution alone ignores both: with more SRAM the least-sum cut is
 * coarser, and an HBM-bound step then ends on a longer last piece after
 * the last preload (Llama2-7B training on tt-galaxy: lm_head in 2 pieces
 * at 2225 KiB, 64.5 us after its preload, against 4 pieces and 33.6 us at
 * 1780, the step 1.0% slower), or a piece that fills most of SRAM leaves
 * the next preloads no room and its execution is exposed (Qwen3-30B-A3B
 * prefill on wse2, 5.2% slower at 37.75 KiB than at 30.2). For fixed cuts
 * the flow shop only shortens as SRAM, bandwidth or compute grow, and more
 * SRAM only adds cuts that fit, so its optimum never rises; the descent
 * below finds a local one. key[i]: op i's record in sc->rec, or -1 (whole:
 * whole[i]). w: scratch for the expanded ops. */
typedef struct {
    double p, e, b, h; /* preload and execution cycles, tensor and HBM bytes */
} shop_op;

static double cut_shop(const split_ctx *sc, int n0, const int *key, const shop_op *whole, shop_op *w)
{
    int n = 0;
    for (int i = 0; i < n0; i++) {
        if (key[i] < 0) {
            w[n++] = whole[i];
            continue;
        }
        const cut_rec *r = &sc->rec[key[i]];
        const cut_cand *c = &r->c[r->pick];
        for (int p = 0; p < c->pieces; p++) {
            int lng = c->pieces == 1 || p < c->nlong;
            w[n++] = lng ? (shop_op){c->p_long, c->e_long, c->b_long, c->h_long}
                         : (shop_op){c->p_short, c->e_short, c->b_short, c->h_short};
            if (c->reduced && p > 0) w[n++] = (shop_op){0, c->e_add, c->b_add, 0};
        }
    }
    /* op j's preload starts once the ops before k(j) are done, op k(j)
     * the first whose data and the preloads k(j)+1..j fit the chip's SRAM
     * together; executions wait for their own preload */
    double C = elk_chip_sram_bytes(sc->c) * sc->c->cores;
    double pre = 0, ex = 0, held = 0; /* held: HBM bytes of preloads k+1..j */
    int k = 0;
    for (int j = 0; j < n; j++) {
        if (j > k) held += w[j].h;
        while (k < j && w[k].b + held > C) {
            k++;
            held -= w[k].h;
        }
        double start = fmax(pre, k > 0 ? w[k - 1].e : 0);
        pre = start + w[j].p;
        ex = fmax(ex, pre) + w[j].e;
        w[j].e = ex; /* now op j's end, for the preloads that wait for it */
    }
    return ex;
}

/* Coordinate descent on cut_shop from the least-sum cuts: each shape's cut
 * in turn is set to the one that shortens the flow shop most, until none
 * does (a few rounds). Returns non-zero when some pick moved off the
 * least-sum cut; 0 as well when out of memory (the least-sum cuts stand). */
static int cut_descent(const split_ctx *sc, const elk_op *orig, int n0, int ns0)
{
    int any = 0;
    for (int r = 0; r < sc->nrec && !any; r++) any = sc->rec[r].n > 1;
    if (!any) return 0;
    int *key = malloc((size_t)n0 * sizeof *key);
    shop_op *whole = malloc((size_t)n0 * sizeof *whole), *w = NULL;
    double *memo = malloc((size_t)(ns0 > 0 ? ns0 : 1) * sizeof *memo);
    int moved = 0;
    if (!key || !whole || !memo) goto done;
    for (int s = 0; s < ns0; s++) memo[s] = NAN;
    size_t len = 0;
    for (int i = 0; i < n0; i++) {
        const elk_op *op = &orig[i];
        key[i] = -1;
        for (int r = 0; r < sc->nrec && key[i] < 0; r++)
            if (sc->rec[r].shape_id == op->shape_id) key[i] = r;
        /* a layer position is cut as its largest op across layers is */
        for (int r = 0; r < sc->nrec && key[i] < 0; r++)
            if (op->layer >= 0 && op->layer < sc->nlayers && sc->rec[r].in_layer && sc->rec[r].layer_pos == op->layer_pos)
                key[i] = r;
        if (key[i] >= 0) {
            int most = 1;
            for (int k = 0; k < sc->rec[key[i]].n; k++)
                if (sc->rec[key[i]].c[k].pieces > most) most = sc->rec[key[i]].c[k].pieces;
            len += 2 * (size_t)most;
            continue;
        }
        len++;
        int sid = op->shape_id >= 0 && op->shape_id < ns0 ? op->shape_id : -1;
        double e = sid >= 0 ? memo[sid] : NAN;
        if (isnan(e)) e = fastest_exe(sc, op);
        if (sid >= 0) memo[sid] = e;
        if (!isfinite(e)) goto done; /* an op with no plan: the planner reports it */
        whole[i] = (shop_op){preload_of(sc, op->hbm_bytes), e, tensor_bytes(op), op->hbm_bytes};
    }
    w = malloc(len * sizeof *w);
    if (!w) goto done;
    double best = cut_shop(sc, n0, key, whole, w);
    for (int round = 0; round < 4; round++) {
        int changed = 0;
        for (int r = 0; r < sc->nrec; r++) {
            cut_rec *rc = &sc->rec[r];
            int keep = rc->pick;
            for (int k = 0; k < rc->n; k++) {
                if (k == keep) continue;
                rc->pick = k;
                double t = cut_shop(sc, n0, key, whole, w);
                if (t < best * (1 - 1e-9)) {
                    best = t;
                    keep = k;
                    changed = 1;
                }
            }
            rc->pick = keep;
        }
        if (!changed) break;
    }
    for (int r = 0; r < sc->nrec; r++) moved |= sc->rec[r].pick != sc->rec[r].least;
done:
    free(key);
    free(whole);
    free(w);
    free(memo);
    return moved;
}

/* The dim the artifact's cut rule cuts: the largest, the first of equals. */
static int largest_dim(const elk_op *op)
{
    int big = 0;
    for (int d = 1; d < op->ndims; d++)
        if (op->dim[d] > op->dim[big]) big = d;
    return big;
}

/* The ladder's cuts along the dim the artifact cuts (its largest; the whole
 * op stays): its plan tables are costly, and along that dim are the cuts its
 * own rule takes. Compacts opt, returns the count. */
static int along_art_dim(const elk_op *op, elk_split *opt, int n)
{
    int big = largest_dim(op), m = 0;
    for (int k = 0; k < n; k++)
        if (opt[k].pieces == 1 || opt[k].dim == big) opt[m++] = opt[k];
    return m;
}

/* Whether the artifact's rule (elk_plan_art_pick_split) decides op's cut
 * at cap and at any smaller cap where it does not fit whole: it finds a
 * fitting cut here (or none is asked: op fits well inside cap) and its
 * largest dim is one every weight and KV tensor indexes. */
static int art_cuts(const elk_op *op, double cap)
{
    elk_split s[ELK_SPLIT_LADDER_FULL_OPTS];
    int n = elk_split_ladder(op, cap, s, ELK_SPLIT_LADDER_OPTS);
    if (n > 0 && elk_plan_art_pick_split(op, s, n) < 0) return 0;
    int big = largest_dim(op);
    n = elk_split_ladder_full(op, 1, s, ELK_SPLIT_LADDER_FULL_OPTS);
    for (int k = 0; k < n; k++)
        if (s[k].pieces > 1 && s[k].dim == big) return 1;
    return 0;
}

/* Ideal's cut of each operator (elk_sched_run_ideal): the least summed
 * execution over the graph's own cut and every cut of elk_split_ladder_full,
 * fitting or not (an unfit cut is planned all the same): every power of two
 * of pieces along every dim from the fewest that fit, for every op, however
 * far inside the cap. More SRAM only lowers the fewest that fit, so the set
 * only gains cuts as SRAM grows, and Ideal's execution of an operator never
 * rises with SRAM (nor with anything that only speeds plans up) even where
 * the graph's cut is a rule that can (the artifact's: Llama2-13B prefill's
 * QKV on ipu-mk2 runs 2 x 2703 us in two pieces at 524 KiB and 5480 us
 * whole at 655; or the timed chooser's, which stops past
 * ELK_SPLIT_LADDER_MAX and times an op well inside the cap only where its
 * space binds: Gemma2-27B training's lm_head on a 64-core torus, 256
 * pieces at 1970 KiB, offered 64 and 128 at 2462.5). Each cut is timed by
 * searches bounded by the least so far (cut_exe's lim), most of which end
 * at their first bound. Under plantables Ideal keeps the artifact's ladder
 * along its dim (its tables are costly and the bounded search is not
 * theirs), so an op within a factor 2 of the cap at one SRAM and not at
 * more leaves the ladder there. Still a bound: every policy runs the
 * graph's cut, no faster than its pieces' fastest plans. The timed chooser
 * (pick_split) already took the least over the fitting cuts it timed for
 * the layer's representative (memo), which bounds the searches from the
 * start. orig: the n0 ops before the split, in order: the graph's k-th
 * operator (a run of pieces) is orig[k]. Returns non-zero when out of
 * memory. */
static int ideal_cuts(elk_problem *pr, split_ctx *sc, const elk_op *orig, int n0, int ns0, double cap)
{
    const elk_graph *g = &pr->graph;
    /* what pick_split timed already, over the same ladder; under plantables
     * it times only where the artifact's rule finds no cut, over every dim */
    double *memo = sc->least;
    if (sc->c->profile & (1u << ELK_PSW_PLANTABLES))
        for (int s = 0; s < ns0; s++) memo[s] = NAN;
    char *done = calloc((size_t)(ns0 > 0 ? ns0 : 1), 1);
    if (!done) return -1;
    for (int i = 0; i < g->nops; i++) pr->ideal_scale[i] = INFINITY;
    for (int i = 0, j, k = 0; i < g->nops && k < n0; i = j, k++) {
        for (j = i + 1; j < g->nops && g->ops[j].cut_cont; j++) {}
        const elk_op *op = &orig[k];
        int sid = op->shape_id >= 0 && op->shape_id < ns0 ? op->shape_id : -1;
        double best = sid >= 0 ? memo[sid] : NAN;
        if (sid < 0 || !done[sid]) {
            elk_split opt[ELK_SPLIT_LADDER_FULL_OPTS];
            int art = (sc->c->profile & (1u << ELK_PSW_PLANTABLES)) != 0, at;
            if (art && !art_cuts(op, cap)) {
                /* the artifact's rule does not cut it here, or never does:
                 * where it does not fit whole, pick_split's timed chooser
                 * cuts it along any dim, so here every cut that chooser
                 * could take at this SRAM or less (DiT-XL training's
                 * attention output on a 64-core ipu-pod4-mesh: 8 pieces,
                 * 710 us at 332 KiB; whole, 860 us at 415, where it fits;
                 * Qwen3-30B-A3B training's expert down projection on a
                 * 48-core ring, 64 pieces at 7.68 GB/s per link, 128 at
                 * 9.6) */
                int n = elk_split_ladder_full(op, cap, opt, ELK_SPLIT_LADDER_FULL_OPTS);
                best = least_cut_below(sc, op, opt, n, INFINITY);
            } else if (art) {
                int n = along_art_dim(op, opt, elk_split_ladder(op, cap, opt, ELK_SPLIT_LADDER_OPTS));
                /* the unfit too (they are planned all the same): pick_split
                 * takes the finest when none fits, which can beat every cut
                 * that fits with more SRAM (DiT-XL's fc2 on wse2: 64 unfit
                 * pieces at 71.2 KiB, 8 that fit at 89 and 4.4% slower) */
                double unfit = n ? least_cut(sc, op, opt, n, 1, &at, NULL) : INFINITY;
                if (isnan(best)) best = n ? least_cut(sc, op, opt, n, 2, &at, NULL) : INFINITY;
                best = fmin(best, unfit);
            } else {
                /* every cut of the full ladder, fit or not, below what
                 * pick_split found (the whole op, for one it did not time) */
                int n = elk_split_ladder_full(op, cap, opt, ELK_SPLIT_LADDER_FULL_OPTS);
                best = least_cut_below(sc, op, opt, n, isnan(best) ? INFINITY : best);
            }
            if (sid >= 0) {
                memo[sid] = best;
                done[sid] = 1;
            }
        }
        pr->ideal_scale[i] = best; /* a time until ideal_scale_finish */
    }
    free(done);
    return 0;
}

/* ideal_cuts' least times over the graph's own, once the menus are built. */
static void ideal_scale_finish(elk_problem *pr)
{
    const elk_graph *g = &pr->graph;
    for (int i = 0, j; i < g->nops; i = j) {
        double Eg = 0, best = pr->ideal_scale[i];
        for (j = i + 1; j < g->nops && g->ops[j].cut_cont; j++) {}
        for (int q = i; q < j; q++) {
            const elk_menu *m = &pr->menus[g->ops[q].shape_id];
            Eg += m->e[m->n - 1].exe;
        }
        pr->ideal_scale[i] = best < Eg && Eg > 0 && isfinite(Eg) ? best / Eg : 1;
    }
}

/* A shape to prefetch: its representative op, and its dim count and the
 * product of its dims, a proxy for the cost of enumerating it (the tree of
 * temporal splits grows with the dims: at the default train-fwd point the
 * 5-dim attention products take 90% of the coarse space's time). */
typedef struct {
    int ndims;
    double extent;
    int op;
} shape_job;

static int cmp_job(const void *a, const void *b)
{
    const shape_job *x = a, *y = b;
    if (x->ndims != y->ndims) return y->ndims - x->ndims;
    if (x->extent != y->extent) return x->extent < y->extent ? 1 : -1;
    return (x->op > y->op) - (x->op < y->op);
}

/* The shapes of a problem shared by prefetch threads: each takes the next
 * shape not taken and builds its set into the cache (the cache makes a
 * thread that asks for a set another is building wait for it). Owns
 * nothing; next is the only field written after the threads start. */
typedef struct {
    const elk_problem *pr;
    elk_plan_cache *pc;
    const elk_plan_opts *po;
    const shape_job *jobs; /* costliest first */
    int ns;
    atomic_int next;
} prefetch;

static void *prefetch_main(void *arg)
{
    prefetch *f = arg;
    for (int s; (s = atomic_fetch_add(&f->next, 1)) < f->ns;) {
        if (f->po->cancel && atomic_load(f->po->cancel)) break;
        const elk_plan_set *set;
        elk_error err;
        /* a failure is met again, and reported, by the caller's own get */
        if (elk_plan_cache_get_opts(f->pc, &f->pr->chip, &f->pr->graph.ops[f->jobs[s].op], f->po, &set, &err) ==
            ELK_OK)
            elk_plan_cache_release(f->pc, set);
    }
    return NULL;
}

/* With po->threads > 1, build the problem's plan sets into the cache on
 * that many threads (this one included) before the caller takes them in
 * order. The costliest go first (shape_job), so that no thread is left
 * alone with a big one at the end. */
static void prefetch_sets(const elk_problem *pr, elk_plan_cache *pc, const elk_plan_opts *po, const int *rep, int ns)
{
    enum { MAX_PREFETCH = 8 };
    if (!po || po->threads < 2 || po->cached_only || ns < 2) return;
    shape_job *jobs = malloc((size_t)ns * sizeof *jobs);
    if (!jobs) return; /* the caller builds them one by one */
    for (int s = 0; s < ns; s++) {
        const elk_op *op = &pr->graph.ops[rep[s]];
        jobs[s].ndims = op->ndims;
        jobs[s].extent = 1;
        for (int d = 0; d < op->ndims; d++) jobs[s].extent *= (double)op->dim[d];
        jobs[s].op = rep[s];
    }
    qsort(jobs, (size_t)ns, sizeof *jobs, cmp_job);
    prefetch f = {pr, pc, po, jobs, ns, 0};
    pthread_t th[MAX_PREFETCH];
    int nt = 0;
    for (int i = 1; i < po->threads && i < MAX_PREFETCH && i < ns; i++)
        if (elk_thread_start(&th[nt], prefetch_main, &f) == 0) nt++;
    prefetch_main(&f);
    for (int i = 0; i < nt; i++) pthread_join(th[i], NULL);
    free(jobs);
}

elk_status elk_problem_init_graph(elk_problem *pr, const elk_chip *c, const elk_model *m, elk_graph *g,
                                  elk_plan_cache *pc, elk_error *err)
{
    return elk_problem_init_graph_opts(pr, c, m, g, pc, NULL, err);
}

/* The problem of one split of the graph: pr->graph holds the unsplit ops
 * (orig, n0 of them, ns0 shapes), sc the chooser (its picks forced or not).
 * Frees pr on failure. */
static elk_status problem_build(elk_problem *pr, elk_plan_cache *pc, const elk_plan_opts *po, split_ctx *sc,
                                const elk_op *orig, int n0, int ns0, double cap, elk_error *err)
{
    /* the tail op's cuts are for cut_shop, which neither the artifact's cut
     * rule (plantables) nor a provisional answer runs */
    int tail = !(pr->chip.profile & (1u << ELK_PSW_PLANTABLES)) && !(po && po->coarse);
    pr->split_ops = tail ? elk_graph_split_large_ladder_any(&pr->graph, cap, pick_split, sc)
                         : elk_graph_split_large_ladder(&pr->graph, cap, pick_split, sc);
    if (pr->split_ops < 0) {
        int nops = pr->graph.nops;
        elk_problem_free(pr);
        return elk_fail(err, ELK_ERANGE,
                        "cutting its %d operators to fit half the chip's SRAM (%.0f MiB) would make more than %d operators "
                        "(or memory ran out): fewer layers, a smaller model or more SRAM",
                        nops, cap / 1048576, ELK_GRAPH_MAX_OPS);
    }
    /* a provisional answer (the coarse space) keeps Ideal on the graph's
     * own cuts: timing every cut Ideal may take was most of its time, and
     * the complete answer follows */
    int quick = po && po->coarse;
    pr->ideal_scale =
        quick ? NULL : malloc((size_t)(pr->graph.nops > 0 ? pr->graph.nops : 1) * sizeof *pr->ideal_scale);
    if (!quick && (!pr->ideal_scale || ideal_cuts(pr, sc, orig, n0, ns0, cap))) {
        elk_problem_free(pr);
        return elk_fail(err, ELK_ENOMEM, "out of memory");
    }
    int ns = pr->graph.nshapes;
    pr->menus = calloc((size_t)ns, sizeof *pr->menus);
    pr->sets = calloc((size_t)ns, sizeof *pr->sets);
    int *rep = malloc((size_t)ns * sizeof *rep);
    if (!pr->menus || !pr->sets || !rep) {
        free(rep);
        elk_problem_free(pr);
        return elk_fail(err, ELK_ENOMEM, "out of memory");
    }
    for (int s = 0; s < ns; s++) rep[s] = -1;
    for (int i = 0; i < pr->graph.nops; i++)
        if (rep[pr->graph.ops[i].shape_id] < 0) rep[pr->graph.ops[i].shape_id] = i;
    double t0 = elk_sched_now_ms();
    elk_status st = ELK_OK;
    pr->cache = pc;
    prefetch_sets(pr, pc, po, rep, ns);
    for (int s = 0; s < ns && st == ELK_OK; s++)
        st = elk_plan_cache_get_opts(pc, &pr->chip, &pr->graph.ops[rep[s]], po, &pr->sets[s], err);
    double t1 = elk_sched_now_ms();
    for (int s = 0; s < ns && st == ELK_OK; s++)
        st = elk_menu_build(&pr->chip, &pr->graph.ops[rep[s]], pr->sets[s], &pr->menus[s], err);
    /* an operator preloads what its menu says (plantables pads it) */
    for (int i = 0; st == ELK_OK && i < pr->graph.nops; i++) {
        elk_op *op = &pr->graph.ops[i];
        if (op->hbm_bytes <= 0) continue;
        op->hbm_pad = pr->menus[op->shape_id].hbm_bytes - op->hbm_bytes;
        op->hbm_bytes = pr->menus[op->shape_id].hbm_bytes;
    }
    pr->plan_ms = t1 - t0;
    pr->menu_ms = elk_sched_now_ms() - t1;
    if (st == ELK_OK && pr->ideal_scale) ideal_scale_finish(pr);
    free(rep);
    if (st != ELK_OK) elk_problem_free(pr);
    return st;
}

/* The least latency of Basic, Static and Elk-Dyn on a problem, INFINITY
 * if none fits a schedule: the candidates Elk-Full starts from and keeps
 * (a graph on which Elk-Dyn gains a little and Static loses more made
 * Elk-Full 2.5% slower: Llama2-7B training on a 256-core tt-mesh). */
/* below: the latency to beat (INFINITY: none); each policy gives up on
 * runs that cannot beat it or the policies before it, so a graph that
 * loses costs less, and a graph that wins gets the same answer. */
static double graph_latency(const elk_problem *pr, double below)
{
    /* the usual order of their latencies, fastest first, so the bound is
     * tight early (the least does not depend on the order) */
    static const elk_policy pols[] = {ELK_POL_DYN, ELK_POL_STATIC, ELK_POL_BASIC};
    elk_sched_opts o;
    elk_sched_opts_default(&o);
    double best = below;
    for (size_t k = 0; k < sizeof pols / sizeof pols[0]; k++) {
        elk_schedule s;
        elk_error e;
        o.give_up_at = isfinite(best) ? best : 0;
        if (elk_schedule_run(pr, pols[k], &o, &s, &e) != ELK_OK) continue;
        best = fmin(best, s.latency);
        elk_schedule_free(&s);
    }
    return best;
}

/* The least-sum cuts made finer (finer 1) or coarser (0): each recorded
 * shape's pick set to the cut of twice (half) its pieces along the same dim
 * where the ladder has one (a whole op stays whole). Finer pieces leave room for the next preloads and give
 * their NoC traffic more executions to hide under, which neither the least
 * sum nor cut_shop sees (Gemma2-27B training on a 128-core tt-galaxy mesh:
 * down in 8 pieces at 1337.5 KiB runs 3.1 ms of executions but stalls 1.17
 * ms on the NoC; in 16, as at 1070 KiB, 0.27 ms). Coarser pieces preload
 * fewer, larger transfers (Llama2-70B training on 48 tt-mesh cores: gate_up
 * in 128 pieces sums less execution than in 64 and its step is 15% slower).
 * Returns non-zero when some pick moved. */
static int refine_picks(split_ctx *sc, int finer)
{
    int moved = 0;
    for (int r = 0; r < sc->nrec; r++) {
        cut_rec *rc = &sc->rec[r];
        const cut_cand *l = &rc->c[rc->least];
        rc->pick = rc->least;
        for (int k = 0; k < rc->n && l->pieces > 1; k++)
            if (rc->c[k].dim == l->dim && rc->c[k].reduced == l->reduced &&
                (finer ? rc->c[k].pieces == 2 * l->pieces : 2 * rc->c[k].pieces == l->pieces)) {
                rc->pick = k;
                moved = 1;
                break;
            }
    }
    return moved;
}

/* Each recorded shape's pick set to its recorded cut of the fewest pieces
 * (the whole op where it fits; ties to the ladder's first). Which cuts fit
 * depends on SRAM and the core count alone, so this graph is proposed at
 * every bandwidth and compute of a chip, where the least sum and the flow
 * shop move with the timings; the walk (cut_walk) starts from whichever
 * graph wins. Returns non-zero when some pick moved off the least-sum cut. */
static int fewest_picks(split_ctx *sc)
{
    int moved = 0;
    for (int r = 0; r < sc->nrec; r++) {
        cut_rec *rc = &sc->rec[r];
        rc->pick = 0;
        for (int k = 1; k < rc->n; k++)
            if (rc->c[k].pieces < rc->c[rc->pick].pieces) rc->pick = k;
        moved |= rc->pick != rc->least;
    }
    return moved;
}

/* The graph split again with sc's picks forced, from the n0 unsplit ops
 * orig; it replaces *pr if graph_latency finds it faster than *best (which
 * it then lowers). tmpl: the problem before its first split. */
static int try_picks(elk_problem *pr, double *best, const elk_problem *tmpl, elk_plan_cache *pc,
                     const elk_plan_opts *po, split_ctx *sc, const elk_op *orig, int n0, int ns0, double cap)
{
    elk_problem alt = *tmpl;
    int won = 0;
    alt.graph.ops = malloc((size_t)n0 * sizeof *alt.graph.ops);
    if (!alt.graph.ops) return 0;
    memcpy(alt.graph.ops, orig, (size_t)n0 * sizeof *alt.graph.ops);
    sc->forced = 1;
    elk_error e2;
    if (problem_build(&alt, pc, po, sc, orig, n0, ns0, cap, &e2) == ELK_OK) {
        double t = graph_latency(&alt, *best);
        if (t < *best) {
            elk_problem_free(pr);
            *pr = alt;
            *best = t;
            won = 1;
        } else {
            elk_problem_free(&alt);
        }
    }
    sc->forced = 0;
    return won;
}

/* The pick of record rc one step along the pieces ladder from pick k:
 * twice (finer) or half its pieces along the same dim and kind, a whole
 * op's two pieces along the dim of the first such option; -1 if the ladder
 * has no such cut. */
static int ladder_step(const cut_rec *rc, int k, int finer)
{
    const cut_cand *c = &rc->c[k];
    for (int j = 0; j < rc->n; j++) {
        const cut_cand *d = &rc->c[j];
        if (c->pieces == 1) {
            if (finer && d->pieces == 2) return j;
        } else if (d->pieces == 1) {
            if (!finer && c->pieces == 2) return j;
        } else if (d->dim == c->dim && d->reduced == c->reduced &&
                   (finer ? d->pieces == 2 * c->pieces : 2 * d->pieces == c->pieces)) {
            return j;
        }
    }
    return -1;
}

/* The search over the recorded shapes' cuts by the real objective
 * (graph_latency): the best graph so far is *pr at *best, with the picks
 * bestpick; seen holds every pick vector timed, so that no graph is built
 * and scheduled twice (the least-sum cuts made finer are also the walk's
 * first step). */
#define CUT_WALK_MAX 12

/* The walk's steps for nrec shapes: CUT_WALK_MAX, and three a shape where
 * there are more than four, up to twice as many (each round takes a step
 * of every shape: with five the 12 steps ran out one short of lm_head's
 * best cut, which four reached with the last, Mixtral decode on a 768-core
 * torus). */
static int cut_walk_max(int nrec)
{
    int m = nrec > CUT_WALK_MAX / 3 ? 3 * nrec : CUT_WALK_MAX;
    return m < 2 * CUT_WALK_MAX ? m : 2 * CUT_WALK_MAX;
}
typedef struct {
    elk_problem *pr;
    double best;
    const elk_problem *tmpl;
    elk_plan_cache *pc;
    const elk_plan_opts *po;
    split_ctx *sc;
    const elk_op *orig;
    int n0, ns0;
    double cap;
    int *bestpick, *seen; /* nrec ints; (cut_walk_max(nrec) + 7) x nrec */
    int nseen;
} cut_search;

/* Times sc's current picks unless seen; keeps the graph when it is faster.
 * Returns non-zero when it was timed. */
static int cut_try(cut_search *cs)
{
    const split_ctx *sc = cs->sc;
    size_t n = (size_t)sc->nrec;
    assert(cs->nseen < cut_walk_max(sc->nrec) + 7); /* the least-sum, five proposals, the walk's steps */
    int *v = cs->seen + (size_t)cs->nseen * n;
    for (size_t q = 0; q < n; q++) v[q] = sc->rec[q].pick;
    for (int t = 0; t < cs->nseen; t++)
        if (!memcmp(cs->seen + (size_t)t * n, v, n * sizeof *v)) return 0;
    cs->nseen++;
    if (try_picks(cs->pr, &cs->best, cs->tmpl, cs->pc, cs->po, cs->sc, cs->orig, cs->n0, cs->ns0, cs->cap))
        memcpy(cs->bestpick, v, n * sizeof *v);
    return 1;
}

/* Descent on the real objective: from the best graph found, each recorded
 * shape's cut moved one step finer or coarser along its ladder and the
 * graph kept when graph_latency finds it faster, until no step pays. The
 * flow shop and the least sum only propose; the scheduler judges
 * (Llama2-7B decode on a 3072-core big-sram torus: lm_head in 16 pieces,
 * 0.4416 ms at compute x1.77; at x2.21 the flow shop proposed 32, 0.4517
 * ms, and 16 was never timed). Each step is a graph build and three
 * policies, so the walk is bounded. */
static void cut_walk(cut_search *cs)
{
    split_ctx *sc = cs->sc;
    int steps = 0, moved = 1;
    int most = cut_walk_max(sc->nrec);
    while (moved && steps < most) {
        moved = 0;
        for (int r = 0; r < sc->nrec && steps < most; r++)
            for (int finer = 1; finer >= 0 && steps < most; finer--) {
                int from = cs->bestpick[r], k = ladder_step(&sc->rec[r], from, finer);
                if (k < 0) continue;
                for (int q = 0; q < sc->nrec; q++) sc->rec[q].pick = cs->bestpick[q];
                sc->rec[r].pick = k;
                if (!cut_try(cs)) continue;
                steps++;
                moved |= cs->bestpick[r] != from;
            }
    }
}

/* The cuts a graph search settled on, one per recorded shape, as the
 * ladder names them (so that a search on another chip, whose records may
 * list other cuts, can find them). */
typedef struct {
    int n;
    struct {
        int shape_id, dim, reduced, pieces;
    } v[64];
} cut_seed;

static elk_status init_graph(elk_problem *pr, const elk_chip *c, const elk_model *m, elk_graph *g, elk_plan_cache *pc,
                             const elk_plan_opts *po, cut_seed *out, elk_error *err);

/* A torus holds every link of the mesh of its size, so the graph the
 * mesh's search settles on is one the torus's compiler can evaluate: it is
 * proposed to the torus's walk too. The walk's local optima otherwise made
 * a torus slower than its own mesh (issue 9's topology pairs: a 3072-core
 * tt-galaxy torus +21%, the FFN's down projection in fewer pieces). Costs
 * the mesh's search at every torus point whose cuts are searched. */
static void mesh_seed(const elk_chip *c, const elk_model *m, const elk_problem *tmpl, const elk_op *orig, int n0,
                      elk_plan_cache *pc, const elk_plan_opts *po, cut_seed *seed)
{
    seed->n = 0;
    elk_chip mc = *c;
    mc.topology = ELK_TOPO_MESH;
    elk_graph g2 = tmpl->graph;
    g2.ops = malloc((size_t)(n0 > 0 ? n0 : 1) * sizeof *g2.ops);
    if (!g2.ops) return;
    memcpy(g2.ops, orig, (size_t)n0 * sizeof *g2.ops);
    g2.nops = g2.cap = n0;
    elk_problem pm;
    elk_error e2;
    if (init_graph(&pm, &mc, m, &g2, pc, po, seed, &e2) == ELK_OK) elk_problem_free(&pm);
    else seed->n = 0;
}

/* Each recorded shape's pick set to the seed's cut of it where its ladder
 * lists that cut, else to bestpick's. Returns non-zero when some pick
 * moved off bestpick. */
static int seed_picks(split_ctx *sc, const int *bestpick, const cut_seed *seed)
{
    int any = 0;
    for (int r = 0; r < sc->nrec; r++) {
        cut_rec *rc = &sc->rec[r];
        rc->pick = bestpick[r];
        for (int q = 0; q < seed->n; q++) {
            if (seed->v[q].shape_id != rc->shape_id) continue;
            for (int k = 0; k < rc->n; k++)
                if (rc->c[k].dim == seed->v[q].dim && rc->c[k].reduced == seed->v[q].reduced &&
                    rc->c[k].pieces == seed->v[q].pieces) {
                    any |= k != bestpick[r];
                    rc->pick = k;
                }
        }
    }
    return any;
}

elk_status elk_problem_init_graph_opts(elk_problem *pr, const elk_chip *c, const elk_model *m, elk_graph *g,
                                       elk_plan_cache *pc, const elk_plan_opts *po, elk_error *err)
{
    return init_graph(pr, c, m, g, pc, po, NULL, err);
}

static elk_status init_graph(elk_problem *pr, const elk_chip *c, const elk_model *m, elk_graph *g, elk_plan_cache *pc,
                             const elk_plan_opts *po, cut_seed *out, elk_error *err)
{
    memset(pr, 0, sizeof *pr);
    elk_point_defaults(&pr->point);
    pr->chip = *c;
    if (m) pr->model = *m;
    pr->graph = *g;
    memset(g, 0, sizeof *g);
    pr->sram = elk_chip_sram_bytes(&pr->chip);
    /* operators whose data cannot fit half the chip's SRAM are split, the cut
     * chosen by the pieces' own fastest times */
    double cap = 0.5 * pr->sram * pr->chip.cores;
    int n0 = pr->graph.nops, ns0 = pr->graph.nshapes;
    split_ctx sc = {&pr->chip, pc, po, malloc((size_t)(ns0 > 0 ? ns0 : 1) * sizeof(double)), ns0,
                    pr->graph.nlayers, cap, NULL, 0, 0, 0, -1};
    for (int i = n0 - 1; i >= 0 && sc.tail_sid < 0; i--)
        if (pr->graph.ops[i].hbm_bytes > 0) sc.tail_sid = pr->graph.ops[i].shape_id;
    elk_op *orig = n0 > 0 ? malloc((size_t)n0 * sizeof *orig) : NULL;
    if ((n0 > 0 && !orig) || !sc.least) {
        free(orig);
        free(sc.least);
        elk_problem_free(pr);
        return elk_fail(err, ELK_ENOMEM, "out of memory");
    }
    if (n0 > 0) memcpy(orig, pr->graph.ops, (size_t)n0 * sizeof *orig);
    for (int s = 0; s < ns0; s++) sc.least[s] = NAN;
    elk_problem tmpl = *pr; /* before the split, for the graphs split again */
    sc.rec = malloc(8 * sizeof *sc.rec);
    sc.reccap = sc.rec ? 8 : 0;
    elk_status st = problem_build(pr, pc, po, &sc, orig, n0, ns0, cap, err);
    /* other cuts, each kept if graph_latency finds it faster: those chosen
     * together by the flow shop (which knows no NoC and is not always
     * right: OPT-30B decode on ipu-pod4 at 5888 cores ran 2.2% slower with
     * its P.V in four pieces), the least-sum ones made finer and coarser,
     * the fewest pieces that fit, then the walk from the best of them */
    if (st == ELK_OK && sc.rec && sc.nrec > 0 && !(po && po->coarse)) {
        cut_search cs = {pr, graph_latency(pr, INFINITY), &tmpl, pc, po, &sc, orig, n0, ns0, cap,
                         malloc((size_t)sc.nrec * sizeof(int)),
                         malloc((size_t)(cut_walk_max(sc.nrec) + 7) * (size_t)sc.nrec * sizeof(int)), 0};
        if (cs.bestpick && cs.seen) {
            for (int r = 0; r < sc.nrec; r++) sc.rec[r].pick = cs.bestpick[r] = sc.rec[r].least;
            memcpy(cs.seen, cs.bestpick, (size_t)sc.nrec * sizeof(int));
            cs.nseen = 1;
            if (cut_descent(&sc, orig, n0, ns0)) cut_try(&cs);
            for (int finer = 1; finer >= 0; finer--)
                if (refine_picks(&sc, finer)) cut_try(&cs);
            if (fewest_picks(&sc)) cut_try(&cs);
            if (!out && pr->chip.topology == ELK_TOPO_TORUS) {
                cut_seed seed;
                mesh_seed(&pr->chip, m ? &pr->model : NULL, &tmpl, orig, n0, pc, po, &seed);
                if (seed_picks(&sc, cs.bestpick, &seed)) cut_try(&cs);
            }
            cut_walk(&cs);
            if (out) {
                out->n = 0;
                for (int r = 0; r < sc.nrec && out->n < (int)(sizeof out->v / sizeof out->v[0]); r++) {
                    const cut_cand *cc = &sc.rec[r].c[cs.bestpick[r]];
                    out->v[out->n].shape_id = sc.rec[r].shape_id;
                    out->v[out->n].dim = cc->dim;
                    out->v[out->n].reduced = cc->reduced;
                    out->v[out->n].pieces = cc->pieces;
                    out->n++;
                }
            }
        }
        free(cs.bestpick);
        free(cs.seen);
    }
    free(sc.rec);
    free(orig);
    free(sc.least);
    return st;
}

double elk_problem_exec_floor(const elk_problem *pr)
{
    double s = 0;
    for (int i = 0; i < pr->graph.nops; i++) {
        const elk_menu *m = &pr->menus[pr->graph.ops[i].shape_id];
        s += m->e[m->n - 1].exe;
    }
    return s;
}

void elk_problem_free(elk_problem *pr)
{
    if (pr->menus)
        for (int s = 0; s < pr->graph.nshapes; s++) elk_menu_free(&pr->menus[s]);
    free(pr->menus);
    if (pr->sets)
        for (int s = 0; s < pr->graph.nshapes; s++) elk_plan_cache_release(pr->cache, pr->sets[s]);
    free(pr->sets);
    free(pr->ideal_scale);
    elk_graph_free(&pr->graph);
    memset(pr, 0, sizeof *pr);
}
