#include "elk_noise.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

static void free_menus(elk_noise *w)
{
    if (!w->menus) return;
    for (int s = 0; s < w->pr->graph.nshapes; s++) elk_menu_free(&w->menus[s]);
    free(w->menus);
    w->menus = NULL;
}

/* The problem as the noisy model sees it: the true one with w->menus. A
 * shallow view, never freed: graph, plan sets and chip are the true ones. */
static elk_problem noisy_view(const elk_noise *w)
{
    elk_problem np = *w->pr;
    np.menus = w->menus;
    return np;
}

/* Entry of the true menu that runs plan p of shape s: the same plan if it
 * is on the true front, else the true front's fastest plan in no more SRAM
 * (*sub set), which is never slower in the true model. */
static int true_entry(const elk_problem *pr, int s, int p, int *sub)
{
    const elk_menu *m = &pr->menus[s];
    for (int e = 0; e < m->n; e++)
        if (m->e[e].plan == p) return e;
    *sub = 1;
    double hot = pr->sets[s]->plans[p].hot;
    int best = 0;
    for (int e = 0; e < m->n && m->e[e].hot <= hot; e++) best = e;
    return best;
}

/* Time schedule s's decisions (planned on menus of view v) with the true
 * costs: replay through policy pol. Returns the true latency in ms, or NAN
 * if the decisions do not fit the true timing at all. */
static double replay(elk_noise *w, const elk_schedule *s, elk_policy pol, int *nsub, elk_error *err,
                     elk_status *st)
{
    const elk_problem *pr = w->pr;
    int N = pr->graph.nops;
    for (int i = 0; i < N; i++) {
        int sub = 0;
        w->entry[i] = true_entry(pr, pr->graph.ops[i].shape_id, s->ops[i].plan, &sub);
        w->window[i] = s->ops[i].window;
        *nsub += sub;
    }
    elk_sched_opts o = w->opts;
    o.replay_order = s->order;
    o.replay_entry = w->entry;
    o.replay_window = w->window;
    o.replay_variant = s->run_variant;
    elk_schedule r;
    *st = elk_schedule_run(pr, pol, &o, &r, err);
    if (*st == ELK_ENOPLAN) {
        *st = ELK_OK;
        return NAN;
    }
    if (*st != ELK_OK) return NAN;
    double ms = r.latency_ms;
    elk_schedule_free(&r);
    return ms;
}

elk_status elk_noise_init(elk_noise *w, const elk_problem *pr, const elk_sched_opts *o, elk_error *err)
{
    memset(w, 0, sizeof *w);
    w->pr = pr;
    w->opts = *o;
    int N = pr->graph.nops;
    w->entry = malloc((size_t)N * sizeof *w->entry);
    w->window = malloc((size_t)N * sizeof *w->window);
    if (!w->entry || !w->window) {
        elk_noise_free(w);
        return elk_fail(err, ELK_ENOMEM, "out of memory");
    }
    elk_status st = ELK_OK;
    for (int p = 0; p < ELK_POL_COUNT && st == ELK_OK; p++) st = elk_schedule_run(pr, (elk_policy)p, o, &w->truth[p], err);
    if (st != ELK_OK) {
        elk_noise_free(w);
        return st;
    }
    /* fidelity of the replay itself: Elk-Dyn's own schedule, replayed on its
     * own costs, should take what it took */
    int nsub = 0;
    double ms = replay(w, &w->truth[ELK_POL_DYN], ELK_POL_DYN, &nsub, err, &st);
    if (st != ELK_OK) {
        elk_noise_free(w);
        return st;
    }
    assert(nsub == 0);
    w->replay_check = ms / w->truth[ELK_POL_DYN].latency_ms;
    return ELK_OK;
}

elk_status elk_noise_trial(elk_noise *w, double sigma, unsigned long seed, int k, elk_noise_trial_result *r,
                           elk_error *err)
{
    const elk_problem *pr = w->pr;
    int ns = pr->graph.nshapes, N = pr->graph.nops;
    memset(r, 0, sizeof *r);
    free_menus(w);
    w->menus = calloc((size_t)ns, sizeof *w->menus);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!w->menus || !rng) {
        gsl_rng_free(rng);
        return elk_fail(err, ELK_ENOMEM, "out of memory");
    }
    /* the draws of trial k depend on (seed, k) only */
    gsl_rng_set(rng, seed * 1000003UL + (unsigned long)k * 7919UL + 1);
    int *rep = malloc((size_t)ns * sizeof *rep);
    if (!rep) {
        gsl_rng_free(rng);
        return elk_fail(err, ELK_ENOMEM, "out of memory");
    }
    for (int s = 0; s < ns; s++) rep[s] = -1;
    for (int i = 0; i < N; i++)
        if (rep[pr->graph.ops[i].shape_id] < 0) rep[pr->graph.ops[i].shape_id] = i;
    elk_status st = ELK_OK;
    for (int s = 0; s < ns && st == ELK_OK; s++) {
        double fc = exp(gsl_ran_gaussian(rng, sigma)), fx = exp(gsl_ran_gaussian(rng, sigma));
        st = elk_menu_build_scaled(&pr->chip, &pr->graph.ops[rep[s]], pr->sets[s], fc, fx, &w->menus[s], err);
    }
    free(rep);
    gsl_rng_free(rng);
    if (st != ELK_OK) return st;

    elk_problem np = noisy_view(w);
    for (int p = 0; p < ELK_POL_COUNT; p++) r->ms[p] = w->truth[p].latency_ms;
    /* Elk-Dyn and Elk-Full plan with the noisy model */
    elk_schedule dyn, full;
    ELK_TRY(elk_schedule_run(&np, ELK_POL_DYN, &w->opts, &dyn, err));
    st = elk_schedule_run(&np, ELK_POL_FULL, &w->opts, &full, err);
    if (st != ELK_OK) {
        elk_schedule_free(&dyn);
        return st;
    }
    r->noisy_ms[ELK_POL_DYN] = dyn.latency_ms;
    r->noisy_ms[ELK_POL_FULL] = full.latency_ms;
    int nsub = 0;
    r->ms[ELK_POL_DYN] = replay(w, &dyn, ELK_POL_DYN, &nsub, err, &st);
    if (st == ELK_OK) {
        /* Elk-Full picked among its candidates by the noisy estimate; its own
         * search and Elk-Dyn's schedule are replayed as themselves, Static's
         * or Basic's (rule-based) are timed as those policies' true plans */
        if (full.adopted < 0) r->ms[ELK_POL_FULL] = replay(w, &full, ELK_POL_FULL, &nsub, err, &st);
        else if (full.adopted == ELK_POL_DYN) r->ms[ELK_POL_FULL] = r->ms[ELK_POL_DYN];
        else r->ms[ELK_POL_FULL] = w->truth[full.adopted].latency_ms;
    }
    if (st == ELK_OK) {
        int changed = 0;
        for (int i = 0; i < N; i++) changed += full.ops[i].plan != w->truth[ELK_POL_FULL].ops[i].plan;
        r->plans_changed = (double)changed / N;
        r->substituted = (double)nsub / (2.0 * N);
    }
    elk_schedule_free(&dyn);
    elk_schedule_free(&full);
    return st;
}

void elk_noise_free(elk_noise *w)
{
    if (w->pr) free_menus(w);
    for (int p = 0; p < ELK_POL_COUNT; p++) elk_schedule_free(&w->truth[p]);
    free(w->entry);
    free(w->window);
    memset(w, 0, sizeof *w);
}
