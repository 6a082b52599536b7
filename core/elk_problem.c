#include "elk_sched_int.h"

#include <assert.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elk_cost.h"
#include "elk_plan_art.h"

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
 * SRAM grows, so more SRAM never raises the least total, and with it Ideal,
 * which sees a cut operator only through its pieces' summed execution. Ties
 * go to the earlier candidate: the whole op, then fewer pieces. */
typedef struct {
    const elk_chip *c;
    elk_plan_cache *pc;
    const elk_plan_opts *po;
} split_ctx;

static double fastest_exe(const split_ctx *sc, const elk_op *op)
{
    const elk_plan_set *set;
    elk_error err;
    elk_menu m;
    if (elk_plan_cache_get_opts(sc->pc, sc->c, op, sc->po, &set, &err) != ELK_OK) return INFINITY;
    elk_status st = elk_menu_build(sc->c, op, set, &m, &err);
    elk_plan_cache_release(sc->pc, set);
    if (st != ELK_OK) return INFINITY;
    double e = m.n > 0 ? m.e[m.n - 1].exe : INFINITY;
    elk_menu_free(&m);
    return e;
}

static int pick_split(const elk_op *op, const elk_split *opt, int n, void *ctx)
{
    const split_ctx *sc = ctx;
    int best = -1, dim = -1;
    if ((sc->c->profile & (1u << ELK_PSW_PLANTABLES)) && (best = elk_plan_art_pick_split(op, opt, n)) >= 0) return best;
    double bestT = INFINITY, lastT = INFINITY;
    for (int k = 0; k < n; k++) {
        if (!opt[k].fits) continue;
        /* along one dim the total falls, then rises once pieces get too
         * small for the cores: stop at the first rise */
        if (opt[k].pieces > 1 && opt[k].dim == dim && lastT == -INFINITY) continue;
        if (opt[k].pieces == 1 || opt[k].dim != dim) lastT = INFINITY;
        dim = opt[k].pieces > 1 ? opt[k].dim : -1;
        double E;
        if (opt[k].pieces == 1) {
            E = fastest_exe(sc, op);
        } else {
            long D = op->dim[opt[k].dim];
            int K = opt[k].pieces, nlong = (int)(D % K);
            elk_op piece;
            elk_split_piece(op, &opt[k], K - 1, &piece);
            E = (K - nlong) * fastest_exe(sc, &piece);
            elk_split_piece(op, &opt[k], 0, &piece); /* a longer one */
            if (nlong > 0 && isfinite(E)) E += nlong * fastest_exe(sc, &piece);
            if (opt[k].kind == ELK_SPLIT_REDUCED && isfinite(E)) {
                elk_op add;
                elk_split_add(op, 1, &add);
                E += (K - 1) * fastest_exe(sc, &add);
            }
        }
        if (E < bestT * (1 - 1e-12)) {
            bestT = E;
            best = k;
        }
        lastT = E > lastT ? -INFINITY : E;
    }
    if (best >= 0) return best;
    /* nothing fits: the finest cut, and the planner names what does not fit */
    for (int k = 0; k < n; k++)
        if (best < 0 || opt[k].pieces > opt[best].pieces) best = k;
    return best;
}

elk_status elk_problem_init_graph(elk_problem *pr, const elk_chip *c, const elk_model *m, elk_graph *g,
                                  elk_plan_cache *pc, elk_error *err)
{
    return elk_problem_init_graph_opts(pr, c, m, g, pc, NULL, err);
}

elk_status elk_problem_init_graph_opts(elk_problem *pr, const elk_chip *c, const elk_model *m, elk_graph *g,
                                       elk_plan_cache *pc, const elk_plan_opts *po, elk_error *err)
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
    split_ctx sc = {&pr->chip, pc, po};
    pr->split_ops = elk_graph_split_large_ladder(&pr->graph, 0.5 * pr->sram * pr->chip.cores, pick_split, &sc);
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
    for (int s = 0; s < ns && st == ELK_OK; s++)
        st = elk_plan_cache_get_opts(pc, &pr->chip, &pr->graph.ops[rep[s]], po, &pr->sets[s], err);
    double t1 = elk_sched_now_ms();
    for (int s = 0; s < ns && st == ELK_OK; s++)
        st = elk_menu_build(&pr->chip, &pr->graph.ops[rep[s]], pr->sets[s], &pr->menus[s], err);
    pr->plan_ms = t1 - t0;
    pr->menu_ms = elk_sched_now_ms() - t1;
    free(rep);
    if (st != ELK_OK) elk_problem_free(pr);
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
    elk_graph_free(&pr->graph);
    memset(pr, 0, sizeof *pr);
}
