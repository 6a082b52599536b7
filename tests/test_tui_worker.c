/* views/tui_worker: the workbench's two background threads, headless. The
 * point worker answers the latest request only, with exactly what
 * elk_result_run computes on the calling thread; a request that supersedes
 * one in flight cancels it; stopping joins a busy worker; the sweeper's
 * points equal one-point runs. This is the threaded test the
 * ThreadSanitizer build runs (docs/RELIABILITY.md), so it also hammers
 * requests and cancels from the test thread while the workers compute. */
#define _GNU_SOURCE /* pipe2 */
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <unistd.h>

#include "elk_sched.h"
#include "elk_test.h"
#include "tui_worker.h"

static elk_point tiny_point(int batch)
{
    elk_point p;
    elk_error err;
    elk_point_defaults(&p);
    ck_assert_msg(elk_point_set(&p, ELK_KNOB_MODEL, "tiny", &err) == ELK_OK, "%s", err.msg);
    ck_assert_msg(elk_point_set(&p, ELK_KNOB_CHIP, "ipu-mk2", &err) == ELK_OK, "%s", err.msg);
    ck_assert_msg(elk_point_set_num(&p, ELK_KNOB_BATCH, batch, &err) == ELK_OK, "%s", err.msg);
    return p;
}

/* Block on the wake pipe until busy() turns false: no time limit (ctest's
 * TIMEOUT catches a worker that never finishes). */
static void wait_idle(int fd, int (*busy)(void *), void *w)
{
    while (busy(w)) {
        struct pollfd pf = {fd, POLLIN, 0};
        if (poll(&pf, 1, 1000) > 0) {
            char buf[64];
            while (read(fd, buf, sizeof buf) > 0) {
            }
        }
    }
}
static int worker_busy(void *w) { return tui_worker_busy(w); }
static int sweeper_busy(void *s) { return tui_sweeper_busy(s); }

/* The latency of every policy of p, computed on this thread. */
static void direct(const elk_point *p, elk_plan_cache *pc, double lat[ELK_POL_COUNT])
{
    elk_problem pr;
    elk_result r;
    elk_sched_opts o;
    elk_error err;
    elk_sched_opts_default(&o);
    ck_assert_msg(elk_problem_init(&pr, p, pc, &err) == ELK_OK, "%s", err.msg);
    ck_assert_msg(elk_result_run(&pr, &o, (1u << ELK_POL_COUNT) - 1, &r, &err) == ELK_OK, "%s", err.msg);
    for (int k = 0; k < ELK_POL_COUNT; k++) {
        ck_assert(r.have[k]);
        lat[k] = r.pol[k].latency_ms;
    }
    elk_result_free(&r);
    elk_problem_free(&pr);
}

/* What each test starts from: a wake pipe, non-blocking as the TUI's is,
 * and a session plan cache. */
typedef struct {
    int fd[2];
    elk_plan_cache *pc;
} rig;

static void rig_open(rig *r)
{
    ck_assert_int_eq(pipe2(r->fd, O_NONBLOCK | O_CLOEXEC), 0);
    r->pc = elk_plan_cache_alloc();
    ck_assert_ptr_nonnull(r->pc);
}

static void rig_close(rig *r)
{
    elk_plan_cache_free(r->pc);
    close(r->fd[0]);
    close(r->fd[1]);
}

/* s answers request id for point p, with what elk_result_run gives. */
static void check_answer(tui_snap *s, unsigned long id, const elk_point *p, elk_plan_cache *pc)
{
    ck_assert_ptr_nonnull(s);
    ck_assert_msg(s->status == ELK_OK, "%s", s->err.msg);
    ck_assert_uint_eq(s->id, id);
    ck_assert(s->have_pr && s->have_res);
    double lat[ELK_POL_COUNT];
    direct(p, pc, lat);
    for (int k = 0; k < ELK_POL_COUNT; k++) ck_assert_double_eq(s->res.pol[k].latency_ms, lat[k]);
    tui_snap_free(s);
}

/* One request: one snapshot left, the answer to it, equal to
 * elk_result_run. Its plans were not cached, so a provisional answer (the
 * coarse plan space) was published before the complete one; the same point
 * again, its plans cached now, gets none. */
START_TEST(worker_one_point)
{
    rig g;
    rig_open(&g);
    tui_worker *w = tui_worker_start(g.pc, g.fd[1]);
    ck_assert_ptr_nonnull(w);
    elk_point p = tiny_point(4);
    for (unsigned long id = 7; id <= 8; id++) {
        tui_worker_request(w, &p, id);
        wait_idle(g.fd[0], worker_busy, w);
        ck_assert_int_eq(tui_worker_provisionals(w), 1);
        tui_snap *s = tui_worker_take(w);
        ck_assert_ptr_null(tui_worker_take(w)); /* taken once */
        ck_assert_ptr_nonnull(s);
        ck_assert_int_eq(s->provisional, 0);
        check_answer(s, id, &p, g.pc);
    }
    tui_worker_stop(w);
    rig_close(&g);
}
END_TEST

/* A burst of requests, each superseding the last while it may be running:
 * only the last one is ever published, and it is the last point's answer. */
START_TEST(worker_supersede)
{
    rig g;
    rig_open(&g);
    tui_worker *w = tui_worker_start(g.pc, g.fd[1]);
    ck_assert_ptr_nonnull(w);
    elk_point last = tiny_point(1);
    for (int i = 1; i <= 12; i++) {
        last = tiny_point(i);
        tui_worker_request(w, &last, (unsigned long)i);
        if (i % 3 == 0) usleep(2000); /* let some start before they are superseded */
        tui_snap *early = tui_worker_take(w);
        if (early) {
            /* a request that finished before the next came is fine; it must
             * answer the request it says it answers */
            ck_assert(early->id <= (unsigned long)i);
            ck_assert_int_eq(early->point.batch, (int)early->id);
            tui_snap_free(early);
        }
    }
    wait_idle(g.fd[0], worker_busy, w);
    check_answer(tui_worker_take(w), 12, &last, g.pc);
    tui_worker_stop(w);
    rig_close(&g);
}
END_TEST

/* Stopping a worker in the middle of a computation cancels and joins it
 * (and frees what it held: the sanitizer builds check that). */
START_TEST(worker_stop_busy)
{
    rig g;
    rig_open(&g);
    tui_worker *w = tui_worker_start(g.pc, g.fd[1]);
    ck_assert_ptr_nonnull(w);
    elk_point p = tiny_point(8);
    tui_worker_request(w, &p, 1);
    tui_worker_stop(w);
    rig_close(&g);
}
END_TEST

/* A sweep of batch 1, 2, 4: three finished points, each equal to a
 * one-point run; restarting a sweep while one runs replaces it. */
START_TEST(sweeper_points)
{
    rig g;
    rig_open(&g);
    tui_sweeper *sw = tui_sweeper_start(g.pc, g.fd[1]);
    ck_assert_ptr_nonnull(sw);
    elk_point base = tiny_point(4);
    const double junk[] = {16, 32, 64, 8, 2};
    tui_sweeper_run(sw, &base, ELK_KNOB_BATCH, junk, 5);
    const double xs[] = {1, 2, 4};
    tui_sweeper_run(sw, &base, ELK_KNOB_BATCH, xs, 3); /* replaces the first */
    wait_idle(g.fd[0], sweeper_busy, sw);
    tui_sweep_data d;
    ck_assert(tui_sweeper_get(sw, &d));
    ck_assert_int_eq(d.n, 3);
    ck_assert_int_eq(d.done, 3);
    ck_assert_int_eq(d.knob, ELK_KNOB_BATCH);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(d.pt[i].state, 2);
        ck_assert_double_eq(d.pt[i].x, xs[i]);
        elk_point p = tiny_point((int)xs[i]);
        double lat[ELK_POL_COUNT];
        direct(&p, g.pc, lat);
        for (int k = 0; k < ELK_POL_COUNT; k++) {
            ck_assert(d.pt[i].have[k]);
            ck_assert_double_eq(d.pt[i].lat_ms[k], lat[k]);
        }
    }
    /* cancel a running sweep: it stops, and what finished stays finished */
    tui_sweeper_run(sw, &base, ELK_KNOB_BATCH, junk, 5);
    tui_sweeper_cancel(sw);
    wait_idle(g.fd[0], sweeper_busy, sw);
    ck_assert(tui_sweeper_get(sw, &d));
    ck_assert_int_le(d.done, 5);
    for (int i = 0; i < d.n; i++) ck_assert(d.pt[i].state == 0 || d.pt[i].state == 2);
    tui_sweeper_stop(sw);
    rig_close(&g);
}
END_TEST

/* A sweep up a resource knob carries Elk-Full: ipu-mk2,
 * Llama2-13B on 2 layers at 16 TB/s, SRAM 416, 448, 480, 512 KiB. Its own
 * search is slower at 480 and 512 than at 448; the sweep keeps 448's
 * schedule there (carried), so the curve never rises. The other policies
 * are their own. */
START_TEST(sweeper_carries)
{
    rig g;
    rig_open(&g);
    tui_sweeper *sw = tui_sweeper_start(g.pc, g.fd[1]);
    ck_assert_ptr_nonnull(sw);
    elk_point base;
    elk_error err;
    elk_point_defaults(&base);
    ck_assert(elk_point_set(&base, ELK_KNOB_CHIP, "ipu-mk2", &err) == ELK_OK);
    ck_assert(elk_point_set(&base, ELK_KNOB_MODEL, "llama2-13b", &err) == ELK_OK);
    ck_assert(elk_point_set_num(&base, ELK_KNOB_HBM_TBPS, 16, &err) == ELK_OK);
    ck_assert(elk_point_set_num(&base, ELK_KNOB_LAYERS, 2, &err) == ELK_OK);
    const double xs[] = {416, 448, 480, 512};
    tui_sweeper_run(sw, &base, ELK_KNOB_SRAM_KIB, xs, 4);
    wait_idle(g.fd[0], sweeper_busy, sw);
    tui_sweep_data d;
    ck_assert(tui_sweeper_get(sw, &d));
    ck_assert_int_eq(d.done, 4);
    int carried = 0;
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(d.pt[i].state, 2);
        carried += d.pt[i].carried;
        if (i) ck_assert(d.pt[i].lat_ms[ELK_POL_FULL] <= d.pt[i - 1].lat_ms[ELK_POL_FULL] * (1 + 1e-9));
        elk_point p = base;
        ck_assert(elk_point_set_num(&p, ELK_KNOB_SRAM_KIB, xs[i], &err) == ELK_OK);
        double lat[ELK_POL_COUNT];
        direct(&p, g.pc, lat);
        ck_assert_double_eq(d.pt[i].lat_ms[ELK_POL_IDEAL], lat[ELK_POL_IDEAL]);
        if (d.pt[i].carried) ck_assert(d.pt[i].lat_ms[ELK_POL_FULL] < lat[ELK_POL_FULL]);
        else ck_assert_double_eq(d.pt[i].lat_ms[ELK_POL_FULL], lat[ELK_POL_FULL]);
    }
    ck_assert_int_ge(carried, 1);
    tui_sweeper_stop(sw);
    rig_close(&g);
}
END_TEST

/* The worker builds a point's plan sets on several threads
 * (elk_plan_opts.threads): the same sets, plan for plan, and the same
 * schedules as on one. */
START_TEST(prefetch_threads_same_sets)
{
    elk_point p = tiny_point(16);
    elk_problem pr[2];
    elk_plan_cache *pc[2];
    for (int k = 0; k < 2; k++) {
        pc[k] = elk_plan_cache_alloc();
        ck_assert_ptr_nonnull(pc[k]);
        elk_plan_opts po = {.threads = k ? 2 : 1, .coarse = 1};
        elk_error err;
        ck_assert_msg(elk_problem_init_opts(&pr[k], &p, pc[k], &po, &err) == ELK_OK, "%s", err.msg);
    }
    ck_assert_int_eq(pr[0].graph.nshapes, pr[1].graph.nshapes);
    for (int s = 0; s < pr[0].graph.nshapes; s++) {
        const elk_plan_set *a = pr[0].sets[s], *b = pr[1].sets[s];
        ck_assert_int_eq(a->nplans, b->nplans);
        for (int i = 0; i < a->nplans; i++) {
            ck_assert_double_eq(a->plans[i].hot, b->plans[i].hot);
            ck_assert_double_eq(a->plans[i].comp, b->plans[i].comp);
            ck_assert_double_eq(a->plans[i].syncs, b->plans[i].syncs);
        }
    }
    for (int k = 0; k < 2; k++) {
        elk_problem_free(&pr[k]);
        elk_plan_cache_free(pc[k]);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tui_worker");
    TCase *t = tcase_create("worker");
    tcase_add_test(t, worker_one_point);
    tcase_add_test(t, worker_supersede);
    tcase_add_test(t, worker_stop_busy);
    tcase_add_test(t, sweeper_points);
    tcase_add_test(t, sweeper_carries);
    tcase_add_test(t, prefetch_threads_same_sets);
    suite_add_tcase(s, t);
    return run_suite(s);
}
