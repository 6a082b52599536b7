#include "elk_retime.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

elk_policy elk_retime_policy(const elk_schedule *s, elk_policy p)
{
    return p == ELK_POL_DYN || (p == ELK_POL_FULL && s->adopted == ELK_POL_DYN) ? ELK_POL_DYN : ELK_POL_FULL;
}

double *elk_retime_timeline(const elk_schedule *s)
{
    int N = s->nops;
    double *t = malloc((size_t)(N > 0 ? 2 * N : 1) * sizeof *t);
    for (int i = 0; t && i < N; i++) {
        t[i] = s->ops[i].pre_dur;
        t[N + i] = s->ops[i].exe_end - s->ops[i].exe_start;
    }
    return t;
}

elk_status elk_retime(const elk_problem *lo, const elk_schedule *s, elk_policy pol, const elk_chip *c,
                      const elk_sched_opts *so, const double *tl, double *lat, double **keep, elk_schedule *out,
                      elk_error *err)
{
    assert(pol == ELK_POL_DYN || pol == ELK_POL_FULL);
    *lat = NAN;
    if (out) {
        memset(out, 0, sizeof *out);
        out->latency = out->latency_ms = NAN;
    }
    int N = lo->graph.nops;
    size_t N1 = (size_t)(N > 0 ? N : 1);
    elk_problem q = *lo; /* shallow: ideal_scale is lo's; graph ops, sets and menus our own */
    q.chip = *c;
    q.sram = elk_chip_sram_bytes(c);
    q.graph.ops = malloc(N1 * sizeof *q.graph.ops);
    q.menus = calloc(N1, sizeof *q.menus);          /* at most one pair per op */
    elk_plan_set *one = calloc(N1, sizeof *one);    /* pair k: its plan alone */
    const elk_plan_set **onep = calloc(N1, sizeof *onep);
    int *pair_op = malloc(N1 * sizeof *pair_op);     /* pair k's first op */
    int *entry = malloc(N1 * sizeof *entry), *window = malloc(N1 * sizeof *window), *copt = malloc(N1 * sizeof *copt);
    double *pace = malloc(N1 * sizeof *pace), *len = malloc(N1 * sizeof *len);
    elk_status st = ELK_OK;
    int np = 0;
    if (!q.graph.ops || !q.menus || !one || !onep || !pair_op || !entry || !window || !copt || !pace || !len)
        st = elk_fail(err, ELK_ENOMEM, "out of memory");
    for (int i = 0; i < N && st == ELK_OK; i++) {
        int sh = lo->graph.ops[i].shape_id, pl = s->ops[i].plan, k = 0;
        while (k < np && !(lo->graph.ops[pair_op[k]].shape_id == sh && s->ops[pair_op[k]].plan == pl)) k++;
        if (k == np) {
            pair_op[np++] = i;
            one[k] = *lo->sets[sh]; /* opts shared: the plan's opt0 indexes them as before */
            one[k].plans = (elk_plan *)&lo->sets[sh]->plans[pl];
            one[k].nplans = 1;
            onep[k] = &one[k];
            st = elk_menu_build(&q.chip, &lo->graph.ops[i], &one[k], &q.menus[k], err);
        }
        q.graph.ops[i] = lo->graph.ops[i];
        q.graph.ops[i].shape_id = k;
        entry[i] = 0;
        window[i] = s->ops[i].window;
        copt[i] = elk_schedule_rel_copt(lo, s, i);
        pace[i] = tl ? tl[i] : s->ops[i].pre_dur;
        len[i] = tl ? tl[N + i] : s->ops[i].exe_end - s->ops[i].exe_start;
    }
    q.graph.nshapes = np;
    q.sets = onep;
    /* twice: as fast as c lets it, and holding lo's timeline (tl or the
     * plan's: each preload no faster than its pace there, replay_pace; each
     * execution no shorter, replay_len): either is a way to run lo's decisions on c, so
     * the faster counts. Faster preloads and executions can each cost time
     * elsewhere (a shorter preload contends harder with the exchange
     * beside it, point 208; shorter executions crowd more exchanges beside
     * each preload, point 983), and holding back can cost too (mesh to
     * all-to-all, where a paced preload meets more of the exchanges, point
     * 1232). At lo itself the two are one. */
    for (int paced = 0; paced < 2 && st == ELK_OK; paced++) {
        if (paced && c == &lo->chip) break;
        elk_sched_opts o = *so;
        elk_sched_opts_replay(&o, s, entry, window, copt, paced ? pace : NULL, paced ? len : NULL);
        elk_schedule r;
        st = elk_schedule_run(&q, pol, &o, &r, err);
        if (st == ELK_OK) {
            int better = !(r.latency >= *lat); /* NAN: none yet */
            if (better) *lat = r.latency;
            if (keep && !paced && !(*keep = elk_retime_timeline(&r))) st = elk_fail(err, ELK_ENOMEM, "out of memory");
            if (better && out) {
                elk_schedule_free(out);
                *out = r;
            } else {
                elk_schedule_free(&r);
            }
        } else if (st == ELK_ENOPLAN) {
            st = ELK_OK;
        }
    }
    if (q.menus)
        for (int k = 0; k < np; k++) elk_menu_free(&q.menus[k]);
    free(q.graph.ops);
    free(q.menus);
    free(one);
    free(onep);
    free(pair_op);
    free(entry);
    free(window);
    free(copt);
    free(pace);
    free(len);
    return st;
}

elk_status elk_retime_full(const elk_problem *lo, const elk_schedule *s, const elk_chip *c, const elk_sched_opts *so,
                           double *lat, elk_schedule *out, elk_error *err)
{
    elk_policy as = elk_retime_policy(s, ELK_POL_FULL);
    ELK_TRY(elk_retime(lo, s, as, c, so, NULL, lat, NULL, out, err));
    if (as == ELK_POL_DYN) {
        double t;
        elk_schedule r;
        elk_status st = elk_retime(lo, s, ELK_POL_FULL, c, so, NULL, &t, NULL, out ? &r : NULL, err);
        if (st != ELK_OK) {
            if (out) elk_schedule_free(out);
            return st;
        }
        if (t < *lat || isnan(*lat)) {
            *lat = t;
            if (out) {
                elk_schedule_free(out);
                *out = r;
            }
        } else if (out) {
            elk_schedule_free(&r);
        }
    }
    /* held: lo's own timeline, which c runs exactly (elk_chip_dominates) */
    if (elk_chip_dominates(c, &lo->chip) && (s->latency < *lat || isnan(*lat))) {
        *lat = s->latency;
        if (out) {
            elk_schedule_free(out);
            if (elk_schedule_copy(out, s) != ELK_OK) {
                memset(out, 0, sizeof *out);
                return elk_fail(err, ELK_ENOMEM, "out of memory");
            }
            /* the same bytes in the same times, over c's capacities */
            double fh = elk_chip_hbm_bytes_per_cycle(&lo->chip) / elk_chip_hbm_bytes_per_cycle(c);
            double fn = elk_chip_noc_bytes_per_cycle(&lo->chip) / elk_chip_noc_bytes_per_cycle(c);
            out->hbm_util *= fh;
            out->noc_util *= fn;
            out->noc_pre_util *= fn;
            out->noc_exe_util *= fn;
            out->noc_demand *= fn;
        }
    }
    return ELK_OK;
}
