/* core/elk_bound: the realisable bound on the hand-worked 3-operator problem
 * (tests/elk_test_hand.h) solved by hand, where it also equals the
 * exhaustive search of `elk gap`; and on small real graphs the chain
 * Ideal <= LP <= MILP <= Elk-Full (and <= Elk-Dyn, and <= the exhaustive
 * search's best) and Ideal <= reach <= LP, with the MILP's schedule checked
 * against the model from its intervals alone. */
#include <math.h>

#include "elk_bound.h"
#include "elk_test.h"
#include "elk_test_hand.h"

/* ---------------------------------------------------------------------
 * The MILP by hand (times from the start of the step; preload durations
 * 200, 400, 800; Ideal is 1400 in every case, test_sched.c):
 *
 * SRAM 700, window 32. op0 (300 B) can hold pre1 and pre2 (300+100+200 =
 * 600). op1 with its 600 B plan cannot hold pre2 (800 B), which then starts
 * after op1 ends: op0 [200,1200], op1 [1200,1400], pre2 [1400,2200], op2
 * [2200,2300]. With its 300 B plan it holds pre2: pre2 runs [600,1400] and
 * the executions chain from pre0's end: op0 [200,1200], op1 [1200,1600], op2
 * [1600,1700]. Optimum 1700, as Elk-Dyn and the exhaustive search find.
 *
 * SRAM 550. op0 cannot hold both (600 > 550) and holding pre1 alone is the
 * better: pre2 starts when op0 ends, [1200,2000]; op1 (only the 300 B plan
 * fits) [1200,1600]; op2 [2000,2100]. Optimum 2100.
 *
 * SRAM 700, window 1. op0 may hold one preload, pre1; pre2 starts at 1200
 * as above: 2100 (op1's 600 B plan would make pre2 wait for 1400: 2300).
 * ------------------------------------------------------------------- */

typedef struct {
    double sram;
    int window;
    double milp;
    int entry1;
    int pnum[3];
    double exe[3][2];
    double pre2[2];
} bound_case;

static const bound_case bound_cases[] = {
    {700, 0, 1700, 0, {2, 1, 0}, {{200, 1200}, {1200, 1600}, {1600, 1700}}, {600, 1400}},
    {550, 0, 2100, 0, {1, 1, 0}, {{200, 1200}, {1200, 1600}, {2000, 2100}}, {1200, 2000}},
    {700, 1, 2100, 0, {1, 1, 0}, {{200, 1200}, {1200, 1600}, {2000, 2100}}, {1200, 2000}},
};

static double solve(const elk_problem *pr, const elk_sched_opts *so, elk_bound_kind kind, elk_bound_result *r)
{
    elk_bound_opts bo;
    elk_bound_opts_default(&bo);
    bo.kind = kind;
    elk_error err;
    ck_assert_msg(elk_bound_solve(pr, so, &bo, r, &err) == ELK_OK, "%s", err.msg);
    return r->bound;
}

START_TEST(hand_worked_bound)
{
    const bound_case *bc = &bound_cases[_i];
    elk_problem pr;
    hand_problem(&pr);
    pr.sram = bc->sram;
    pr.chip.sram_kib = bc->sram / 1024.0;
    elk_sched_opts so;
    elk_sched_opts_default(&so);
    so.window = bc->window;
    elk_bound_result lp, mi, re;
    double lpv = solve(&pr, &so, ELK_BOUND_LP, &lp), miv = solve(&pr, &so, ELK_BOUND_MILP, &mi);
    double rev = solve(&pr, &so, ELK_BOUND_REACH, &re);
    ck_assert_msg(mi.ideal <= rev + 1e-6 && rev <= lpv + 1e-6, "Ideal %g, reach %g, LP %g", mi.ideal, rev, lpv);
    ck_assert_int_eq(mi.status, ELK_BOUND_OPTIMAL);
    ck_assert_msg(fabs(miv - bc->milp) < 1e-6, "MILP %g, expected %g", miv, bc->milp);
    ck_assert_double_eq_tol(mi.incumbent, bc->milp, 1e-6);
    ck_assert_double_eq_tol(mi.ideal, 1400, 1e-6);
    ck_assert_msg(mi.ideal <= lpv + 1e-6 && lpv <= miv + 1e-6, "Ideal %g, LP %g, MILP %g", mi.ideal, lpv, miv);
    ck_assert(lp.ops == NULL && !isfinite(lp.incumbent));
    ck_assert_int_eq(mi.ops[1].entry, bc->entry1);
    for (int i = 0; i < 3; i++) {
        ck_assert_msg(fabs(mi.ops[i].exe_start - bc->exe[i][0]) < 1e-6 && fabs(mi.ops[i].exe_end - bc->exe[i][1]) < 1e-6,
                      "op%d runs [%g,%g], expected [%g,%g]", i, mi.ops[i].exe_start, mi.ops[i].exe_end, bc->exe[i][0],
                      bc->exe[i][1]);
        ck_assert_msg(mi.ops[i].preload_number == bc->pnum[i], "op%d preload number %d, expected %d", i,
                      mi.ops[i].preload_number, bc->pnum[i]);
    }
    ck_assert_double_eq_tol(mi.ops[0].pre_start, 0, 1e-6);
    ck_assert_double_eq_tol(mi.ops[0].pre_end, 200, 1e-6);
    ck_assert_double_eq_tol(mi.ops[2].pre_start, bc->pre2[0], 1e-6);
    ck_assert_double_eq_tol(mi.ops[2].pre_end, bc->pre2[1], 1e-6);
    /* the models coincide here (no exchange, one layout per plan): the
     * exhaustive search over preload numbers and plans finds the same */
    elk_gap g;
    elk_schedule s, full;
    elk_error err;
    ck_assert_msg(elk_schedule_exact(&pr, &so, 100000, 1, &g, &s, &err) == ELK_OK, "%s", err.msg);
    ck_assert(g.complete);
    ck_assert_msg(fabs(g.exact - miv) < 1e-6, "exhaustive %g, MILP %g", g.exact, miv);
    elk_schedule_free(&s);
    ck_assert(elk_schedule_run(&pr, ELK_POL_FULL, &so, &full, &err) == ELK_OK);
    ck_assert(miv <= full.latency + 1e-6);
    elk_schedule_free(&full);
    elk_bound_result_free(&lp);
    elk_bound_result_free(&mi);
    elk_bound_result_free(&re);
    elk_problem_free(&pr);
}
END_TEST

/* The MILP's schedule read back against the model, from its intervals:
 * executions one at a time in program order, each as long as its pair;
 * preloads one at a time in the preload order, each before its operator;
 * every execution's plan plus every later preload already started fits. */
static void check_schedule(const elk_problem *pr, const elk_bound_result *r, const int *order)
{
    int N = r->nops;
    double tol = 1e-6 * (r->incumbent + 1);
    double end = 0;
    for (int i = 0; i < N; i++) {
        const elk_bound_op *o = &r->ops[i];
        const elk_menu *m = &pr->menus[pr->graph.ops[i].shape_id];
        ck_assert_int_ge(o->entry, 0);
        ck_assert_int_lt(o->entry, m->n);
        double dist = o->copt >= 0 ? m->cold[o->copt].dist : 0;
        ck_assert_msg(o->exe_end - o->exe_start >= m->e[o->entry].exe + dist - tol, "op%d too short", i);
        if (i) ck_assert_msg(o->exe_start >= r->ops[i - 1].exe_end - tol, "op%d overlaps op%d", i, i - 1);
        ck_assert_msg(o->pre_end <= o->exe_start + tol, "op%d starts before its preload ends", i);
        end = fmax(end, o->exe_end);
        double used = m->e[o->entry].hot;
        for (int j = i + 1; j < N; j++) {
            const elk_bound_op *p = &r->ops[j];
            if (p->copt < 0 || p->pre_start >= o->exe_end - tol) continue;
            used += pr->menus[pr->graph.ops[j].shape_id].cold[p->copt].cold;
        }
        ck_assert_msg(used <= pr->sram * (1 + 1e-9), "op%d holds %.0f B > %.0f B", i, used, pr->sram);
    }
    ck_assert_double_eq_tol(end, r->incumbent, tol);
    double prev = 0;
    for (int k = 0; k < N; k++) {
        const elk_bound_op *p = &r->ops[order ? order[k] : k];
        if (p->pre_end <= p->pre_start) continue;
        ck_assert_msg(p->pre_start >= prev - tol, "preload at position %d overlaps the one before", k);
        prev = p->pre_end;
    }
}

/* Small real graphs in both cost profiles: the chain of bounds, against the
 * policies and the exhaustive search (whose best is a schedule, so above the
 * MILP however far it got). */
typedef struct {
    const char *model, *profile;
    int layers;
} real_case;

static const real_case real_cases[] = {
    {"presets/models/tiny.cfg", "paper", 1},
    {"presets/models/llama2-13b.cfg", "physical", 1},
    {"presets/models/llama2-70b.cfg", "paper", 1},
};

START_TEST(real_graph_chain)
{
    const real_case *rc = &real_cases[_i];
    elk_point p;
    elk_point_defaults(&p);
    char path[1024];
    snprintf(p.model_path, sizeof p.model_path, "%s", src_path(path, sizeof path, rc->model));
    p.layers = rc->layers;
    elk_error err;
    ck_assert(elk_point_set(&p, ELK_KNOB_PROFILE, rc->profile, &err) == ELK_OK);
    elk_plan_cache *pc = elk_plan_cache_alloc();
    elk_problem pr;
    ck_assert_msg(elk_problem_init(&pr, &p, pc, &err) == ELK_OK, "%s", err.msg);
    elk_sched_opts so;
    elk_sched_opts_default(&so);
    elk_bound_result lp, mi, re;
    double lpv = solve(&pr, &so, ELK_BOUND_LP, &lp), miv = solve(&pr, &so, ELK_BOUND_MILP, &mi);
    double rev = solve(&pr, &so, ELK_BOUND_REACH, &re);
    ck_assert_msg(mi.ideal <= rev * (1 + 1e-9) && rev <= lpv * (1 + 1e-9), "Ideal %g, reach %g, LP %g", mi.ideal,
                  rev, lpv);
    ck_assert_int_lt(re.rows, lp.rows);
    ck_assert_int_eq(mi.status, ELK_BOUND_OPTIMAL);
    ck_assert_msg(mi.ideal <= lpv * (1 + 1e-9) && lpv <= miv * (1 + 1e-9), "Ideal %g, LP %g, MILP %g", mi.ideal, lpv,
                  miv);
    ck_assert_int_gt(mi.ints, 0);
    ck_assert_int_eq(lp.ints, 0);
    check_schedule(&pr, &mi, NULL);
    for (int pol = ELK_POL_BASIC; pol <= ELK_POL_FULL; pol++) {
        elk_schedule s;
        ck_assert(elk_schedule_run(&pr, pol, &so, &s, &err) == ELK_OK);
        ck_assert_msg(miv <= s.latency * (1 + 1e-9), "MILP %g above %s %g", miv, elk_policy_labels[pol], s.latency);
        elk_schedule_free(&s);
    }
    elk_gap g;
    elk_schedule s;
    ck_assert(elk_schedule_exact(&pr, &so, 5000, 0, &g, &s, &err) == ELK_OK);
    ck_assert_msg(miv <= g.exact * (1 + 1e-9), "MILP %g above the exhaustive search's %g", miv, g.exact);
    elk_schedule_free(&s);

    /* a time limit too short to finish still gives a valid bound, labelled */
    elk_bound_opts bo;
    elk_bound_opts_default(&bo);
    bo.kind = ELK_BOUND_MILP;
    bo.time_limit_s = 0.001;
    elk_bound_result t;
    elk_status st = elk_bound_solve(&pr, &so, &bo, &t, &err);
    if (st == ELK_OK) { /* or the LP itself ran out of time: an error, said so */
        ck_assert(t.status == ELK_BOUND_OPTIMAL || t.status == ELK_BOUND_TIMELIMIT);
        ck_assert(t.bound <= miv * (1 + 1e-9) && t.bound >= t.ideal * (1 - 1e-9));
        if (isfinite(t.incumbent)) ck_assert(t.bound <= t.incumbent * (1 + 1e-9));
        elk_bound_result_free(&t);
    } else {
        ck_assert_int_eq(st, ELK_ERANGE);
        ck_assert_contains(err.msg, "time-limit");
    }

    /* another preload order: the last two preloads swapped */
    int N = pr.graph.nops, *ord = malloc((size_t)N * sizeof *ord), a = -1, b = -1;
    for (int k = 0; k < N; k++) ord[k] = k;
    for (int k = N - 1; k >= 0 && b < 0; k--)
        if (pr.graph.ops[k].hbm_bytes > 0) {
            if (a < 0) a = k;
            else b = k;
        }
    ck_assert(b >= 0);
    ord[a] = b;
    ord[b] = a;
    bo.order = ord;
    bo.time_limit_s = 60;
    elk_bound_result o2;
    ck_assert_msg(elk_bound_solve(&pr, &so, &bo, &o2, &err) == ELK_OK, "%s", err.msg);
    ck_assert_int_eq(o2.status, ELK_BOUND_OPTIMAL);
    ck_assert(o2.bound >= o2.ideal * (1 - 1e-9));
    check_schedule(&pr, &o2, ord);
    elk_bound_result_free(&o2);
    /* not a permutation */
    ord[a] = ord[b];
    ck_assert_int_eq(elk_bound_solve(&pr, &so, &bo, &o2, &err), ELK_EINVAL);
    ck_assert_contains(err.msg, "permutation");
    free(ord);

    elk_bound_result_free(&lp);
    elk_bound_result_free(&mi);
    elk_bound_result_free(&re);
    elk_problem_free(&pr);
    elk_plan_cache_free(pc);
}
END_TEST

/* SRAM below every plan of an operator: a clear error, nothing solved. */
START_TEST(no_plan_fits)
{
    elk_problem pr;
    hand_problem(&pr);
    pr.sram = 400; /* op2's only plan needs 500 B */
    elk_sched_opts so;
    elk_sched_opts_default(&so);
    elk_bound_opts bo;
    elk_bound_opts_default(&bo);
    elk_bound_result r;
    elk_error err;
    ck_assert_int_eq(elk_bound_solve(&pr, &so, &bo, &r, &err), ELK_ENOPLAN);
    ck_assert_contains(err.msg, "op2");
    ck_assert(r.ops == NULL);
    elk_problem_free(&pr);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("bound");
    TCase *tc = tcase_create("core");
    tcase_add_loop_test(tc, hand_worked_bound, 0, (int)(sizeof bound_cases / sizeof bound_cases[0]));
    tcase_add_loop_test(tc, real_graph_chain, 0, (int)(sizeof real_cases / sizeof real_cases[0]));
    tcase_add_test(tc, no_plan_fits);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(suite());
}
