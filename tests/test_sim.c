/* core/elk_flow, elk_noc, elk_sim, elk_trace: the event simulator.
 * Closed-form cases computed by hand and matched exactly (max-min sharing,
 * a broadcast across a 4x4 mesh from an edge controller, a 3-operator
 * schedule with known overlap and breakdown), conservation of bytes, SRAM
 * occupancy, agreement of the fast and detailed modes, agreement with the
 * planner where its closed form is exact, and the trace file. */
#include <glob.h>
#include <jansson.h>
#include <math.h>

#include "elk_cost.h"
#include "elk_flow.h"
#include "elk_noc.h"
#include "elk_point.h"
#include "elk_sched.h"
#include "elk_sim.h"
#include "elk_test.h"
#include "elk_trace.h"
#include "elk_tree.h"

static void rel_eq(double a, double b, double tol, const char *what, int line)
{
    ck_assert_msg(fabs(a - b) <= tol * fmax(1.0, fabs(b)), "line %d: %s = %.12g, expected %.12g", line, what, a, b);
}
#define REL_EQ(a, b, tol) rel_eq((double)(a), (double)(b), (tol), #a, __LINE__)

/* ------------------------------------------------------------------ */
/* elk_flow: max-min fair sharing, by hand                              */

typedef struct {
    const char *name;
    int nlinks;
    double cap[4];
    int nflows;
    struct {
        double weight, size;
        int nu;
        int link[3];
        double cmax[3];
        double end; /* expected completion, cycles */
        double cap; /* its template's rate cap (0: none) */
    } f[4];
} flow_case;

static const flow_case flow_cases[] = {
    /* 100 B at 4 B/cycle */
    {"one flow, one link", 1, {4}, 1, {{1, 100, 1, {0}, {1}, 25, 0}}},
    /* each gets 5; the first ends at 6 with the other's 20 B left at 10 B/cycle */
    {"two flows share a link", 1, {10}, 2, {{1, 30, 1, {0}, {1}, 6, 0}, {1, 50, 1, {0}, {1}, 8, 0}}},
    /* the second is held to 2 by link 1; max-min gives the first the other 8.
     * At 10 the first has 20 B left at the full 10 B/cycle */
    {"max-min with a second bottleneck", 2, {10, 2}, 2,
     {{1, 100, 1, {0}, {1}, 12, 0}, {1, 20, 2, {0, 1}, {1, 1}, 10, 0}}},
    /* weights 1:3 on 8 B/cycle: rates 2 and 6 */
    {"weighted shares", 1, {8}, 2, {{1, 10, 1, {0}, {1}, 5, 0}, {3, 30, 1, {0}, {1}, 5, 0}}},
    /* a multicast tree puts 3 copies on one link: rate 6/3 */
    {"multicast load on one link", 1, {6}, 1, {{1, 10, 1, {0}, {3}, 5, 0}}},
    /* three flows, one link each pair: a triangle, all at 5 */
    {"triangle", 3, {10, 10, 10}, 3,
     {{1, 50, 2, {0, 1}, {1, 1}, 10, 0}, {1, 50, 2, {1, 2}, {1, 1}, 10, 0}, {1, 50, 2, {2, 0}, {1, 1}, 10, 0}}},
    /* a flow capped at 3 leaves the other 7 of 10 B/cycle: the capped one's
     * 30 B end at 10, when the other has 70 of its 91 B and takes the
     * whole link for the last 21 (12.1) */
    {"a capped flow leaves the rest", 1, {10}, 2, {{1, 30, 1, {0}, {1}, 10, 3}, {1, 91, 1, {0}, {1}, 12.1, 0}}},
    /* a cap above the fair share does not bind: 5 each */
    {"a cap above its share", 1, {10}, 2, {{1, 50, 1, {0}, {1}, 10, 6}, {1, 50, 1, {0}, {1}, 10, 0}}},
    /* a template that loads no link runs at its cap: 20 B at 4 */
    {"a cap alone", 1, {10}, 1, {{1, 20, 0, {0}, {0}, 5, 4}}},
};

START_TEST(flow_closed_form)
{
    const flow_case *fc = &flow_cases[_i];
    elk_net *n = elk_net_new();
    ck_assert_ptr_nonnull(n);
    for (int l = 0; l < fc->nlinks; l++) ck_assert_int_eq(elk_net_link(n, ELK_LK_MESH, fc->cap[l], 1, 0), l);
    for (int f = 0; f < fc->nflows; f++) {
        elk_net_tmpl_begin(n, ELK_XF_EXEC, fc->f[f].weight, 1, 1);
        for (int u = 0; u < fc->f[f].nu; u++) elk_net_tmpl_use(n, fc->f[f].link[u], fc->f[f].cmax[u], fc->f[f].cmax[u]);
        if (fc->f[f].cap > 0) elk_net_tmpl_cap(n, fc->f[f].cap);
        int t = elk_net_tmpl_end(n);
        if (fc->f[f].cap > 0) ck_assert(elk_net_tmpls(n)[t].solo_rate <= fc->f[f].cap);
        ck_assert_int_eq(elk_net_start(n, t, fc->f[f].size, f, 0), f);
    }
    double now = 0;
    while (elk_net_nactive(n) > 0) {
        elk_net_solve(n);
        double dt = elk_net_next(n);
        ck_assert_msg(dt < INFINITY, "%s: stuck", fc->name);
        elk_net_advance(n, dt, now);
        now += dt;
    }
    const elk_flow *fl = elk_net_flows(n);
    for (int f = 0; f < fc->nflows; f++) {
        ck_assert_msg(fabs(fl[f].end - fc->f[f].end) <= 1e-9 * fc->f[f].end, "%s: flow %d ends at %.12g, expected %g",
                      fc->name, f, fl[f].end, fc->f[f].end);
        ck_assert_double_eq(fl[f].rem, 0);
    }
    /* conservation: every link carried exactly size x load per flow */
    double sum[4];
    elk_net_link_totals(n, -1, sum, NULL);
    for (int l = 0; l < fc->nlinks; l++) {
        double want = 0;
        for (int f = 0; f < fc->nflows; f++)
            for (int u = 0; u < fc->f[f].nu; u++)
                if (fc->f[f].link[u] == l) want += fc->f[f].size * fc->f[f].cmax[u];
        REL_EQ(sum[l], want, 1e-12);
    }
    elk_net_free(n);
}
END_TEST

/* The memo returns the same rates as a fresh solve. */
START_TEST(flow_memo)
{
    elk_net *n = elk_net_new();
    int a = elk_net_link(n, ELK_LK_MESH, 10, 1, 0), b = elk_net_link(n, ELK_LK_MESH, 2, 1, 0);
    elk_net_tmpl_begin(n, ELK_XF_EXEC, 1, 1, 1);
    elk_net_tmpl_use(n, a, 1, 1);
    int t0 = elk_net_tmpl_end(n);
    elk_net_tmpl_begin(n, ELK_XF_EXEC, 1, 1, 1);
    elk_net_tmpl_use(n, a, 1, 1);
    elk_net_tmpl_use(n, b, 1, 1);
    int t1 = elk_net_tmpl_end(n);
    for (int rep = 0; rep < 3; rep++) {
        int f0 = elk_net_start(n, t0, 100, 0, 0), f1 = elk_net_start(n, t1, 100, 0, 0);
        elk_net_solve(n);
        REL_EQ(elk_net_flows(n)[f0].rate, 8, 1e-12);
        REL_EQ(elk_net_flows(n)[f1].rate, 2, 1e-12);
        elk_net_advance(n, 1e9, 0);
    }
    long solves, hits;
    elk_net_stats(n, &solves, &hits);
    ck_assert_int_eq(solves, 3);
    ck_assert_int_eq(hits, 2);
    elk_net_free(n);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Hand-built chips                                                     */

/* A single chip at 1 GHz, so bytes/cycle = GB/s; parametric costs (the
 * exchange engine runs at the port rate), no sync cost, no SRAM pausing. */
static elk_chip small_chip(elk_topology topo, int rows, int cols, double port_gbps, double mesh_gbps, double hbm_gbps,
                           int ctrls, int broadcast)
{
    elk_chip c;
    elk_chip_defaults(&c);
    c.chips = 1;
    c.cores = rows * cols;
    c.cores_per_chip = c.cores;
    c.clock_ghz = 1;
    c.topology = topo;
    c.mesh_rows = topo == ELK_TOPO_MESH || topo == ELK_TOPO_TORUS ? rows : 0;
    c.mesh_cols = topo == ELK_TOPO_MESH || topo == ELK_TOPO_TORUS ? cols : 0;
    c.link_gbps = port_gbps;
    c.mesh_link_gbps = mesh_gbps;
    c.hbm_tbps = hbm_gbps / 1000.0;
    c.hbm_controllers = ctrls;
    c.hbm_broadcast = broadcast;
    c.sync_cycles = 0;
    c.remote_access_pauses = 0;
    c.cost.kind = ELK_COSTK_PARAMETRIC;
    return c;
}

/* Run every active flow of the network to completion. */
static double drain(elk_net *n)
{
    double now = 0;
    while (elk_net_nactive(n) > 0) {
        elk_net_solve(n);
        double dt = elk_net_next(n);
        ck_assert(dt < INFINITY);
        elk_net_advance(n, dt, now);
        now += dt;
    }
    return now;
}

/* A broadcast from the one broadcasting controller, attached to the west
 * edge router (2,0) of a 4x4 mesh, XY routing. Ports 100 B/cycle, mesh
 * links 2 B/cycle, HBM 1000 B/cycle: the links bind.
 * r = 16 (every core gets the same 1000 B): the tree is row 2 eastwards (3
 * links) plus every column from row 2 up to rows 1, 0 and down to row 3
 * (4 x 3 links): 15 links, each carrying each byte once, so 1000 B at
 * 2 B/cycle = 500 cycles, 15000 link-bytes, 1000 B read from HBM.
 * r = 1 (1000 B of its own for every core): the first link east of (2,0)
 * carries the data of columns 1..3 (12 cores), so 2/12 B/cycle per core:
 * 6000 cycles; link-bytes = 1000 x the total hop count (24 + 16 = 40). */
static const struct {
    double r, t, link_bytes, hbm_bytes, max_link, links_used;
} bcast_cases[] = {
    {16, 500, 15000, 1000, 1000, 15},
    {1, 6000, 40000, 16000, 12000, 15},
};

START_TEST(mesh_broadcast_4x4)
{
    elk_chip c = small_chip(ELK_TOPO_MESH, 4, 4, 100, 2, 1000, 1, 1);
    elk_noc nc;
    elk_error err;
    ck_assert_msg(elk_noc_build(&nc, &c, ELK_SIM_DETAILED, 0, 1, &err) == ELK_OK, "%s", err.msg);
    ck_assert_int_eq(nc.nctrl, 1);
    ck_assert_int_eq(nc.att[nc.att0[0]], 2 * 4 + 0);
    int t = elk_noc_preload(&nc, 0, bcast_cases[_i].r, 0);
    ck_assert_int_ge(t, 0);
    elk_net_start(nc.net, t, 1000, 0, 0);
    double end = drain(nc.net);
    REL_EQ(end, bcast_cases[_i].t, 1e-12);
    int nl = elk_net_nlinks(nc.net);
    double *sum = calloc((size_t)nl, sizeof *sum), *mx = calloc((size_t)nl, sizeof *mx);
    elk_net_link_totals(nc.net, -1, sum, mx);
    double mesh = 0, hbm = 0, in = 0, most = 0;
    int used = 0;
    for (int l = 0; l < nl; l++) {
        const elk_link *lk = &elk_net_links(nc.net)[l];
        if (lk->kind == ELK_LK_MESH) {
            mesh += sum[l];
            most = fmax(most, mx[l]);
            used += sum[l] > 0;
        }
        if (lk->kind == ELK_LK_HBM) hbm += sum[l];
        if (lk->kind == ELK_LK_PORT_IN) in += sum[l];
    }
    REL_EQ(mesh, bcast_cases[_i].link_bytes, 1e-12);
    REL_EQ(hbm, bcast_cases[_i].hbm_bytes, 1e-12);
    REL_EQ(in, 16 * 1000, 1e-12); /* every core received its 1000 B */
    REL_EQ(most, bcast_cases[_i].max_link, 1e-12);
    if (bcast_cases[_i].r > 1) ck_assert_int_eq(used, bcast_cases[_i].links_used);
    free(sum);
    free(mx);
    elk_noc_free(&nc);
}
END_TEST

/* Striped preloads on a ring of N routers, links 1 B/cycle, ports and HBM
 * ample: K controllers at routers N*k/K each send 1/K of U = 6400 unique
 * bytes to every replica group (tiles of r consecutive cores), all at once
 * (one transfer, ctrl = -1), so the preload ends when its busiest link has
 * carried its load: end = that load in cycles.
 * - N = 16, K = 1, r = 1: the link leaving the controller clockwise carries
 *   the bytes of the cores 1..7 and half of core 8 (the tie): 7.5/16 x U =
 *   3000.
 * - N = 16, K = 4, r = 1: that link carries its controller's 7.5 cores and
 *   3.5 cores' (5, 6, 7 and half of 8 positions on) of the controller 4
 *   behind, each core U/64: 11 x 100 = 1100.
 * - N = 32, K = 16, r = 8 (issue 9): a controller inside its tile, off the
 *   tile's centre (router 2 of 0..7), reaches each member the shorter way;
 *   it used to send the member on the far side of it all the way round the
 *   ring. The busiest link then carried 2000 B; 1800 now (the routing
 *   counted link by link, as tree_way and steps in elk_noc.c do). */
static const struct {
    int n, k;
    double r, end;
} ring_stripe_cases[] = {
    {16, 1, 1, 3000},
    {16, 4, 1, 1100},
    {32, 16, 8, 1800},
};

START_TEST(ring_striped_preload)
{
    int n = ring_stripe_cases[_i].n;
    elk_chip c = small_chip(ELK_TOPO_RING, 1, n, 1000, 1, 1e6, ring_stripe_cases[_i].k, 0);
    elk_noc nc;
    elk_error err;
    ck_assert_msg(elk_noc_build(&nc, &c, ELK_SIM_DETAILED, 0, 1, &err) == ELK_OK, "%s", err.msg);
    int t = elk_noc_preload(&nc, -1, ring_stripe_cases[_i].r, 0);
    ck_assert_int_ge(t, 0);
    elk_net_start(nc.net, t, 6400.0 * ring_stripe_cases[_i].r / n, 0, 0); /* bytes into each core */
    REL_EQ(drain(nc.net), ring_stripe_cases[_i].end, 1e-12);
    elk_noc_free(&nc);
}
END_TEST

/* A partly used last chip of an all-to-all pod (`--cores` not a whole
 * number of chips). Each chip's controllers serve only its own cores, and
 * a chip's share of the HBM bandwidth is its share of the cores
 * (elk_noc's build_hbm), so a preload striped over every core reads at the
 * whole bandwidth, as the estimate prices it. By hand, HBM 100 B/cycle,
 * ports that never bind, 6000 unique bytes at r = 1: 60 cycles on every
 * row. An equal share per chip made the full chips bind: 96 cores on chips
 * of 80 took 6000 / (100 x 96 / 160) = 100 cycles, so adding 16 cores to
 * 80 cut the usable HBM by 40%. */
static const struct {
    int cores, per_chip, ctrls;
} partial_chip_cases[] = {
    {96, 80, 16}, /* 2 chips, 80 + 16 cores */
    {9, 4, 3},    /* 3 chips, 4 + 4 + 1, one controller each */
    {160, 80, 16},
    {48, 80, 4},
};

START_TEST(partial_chip_reads_whole_hbm)
{
    int n = partial_chip_cases[_i].cores;
    elk_chip c = small_chip(ELK_TOPO_ALL2ALL, 1, n, 1e6, 1e6, 100, partial_chip_cases[_i].ctrls, 0);
    c.cores_per_chip = partial_chip_cases[_i].per_chip;
    c.chips = elk_chip_multi(&c);
    elk_noc nc;
    elk_error err;
    ck_assert_msg(elk_noc_build(&nc, &c, ELK_SIM_DETAILED, 0, 1, &err) == ELK_OK, "%s", err.msg);
    int kc = nc.nctrl / nc.nchips;
    for (int k = 0; k < nc.nctrl; k++) {
        int t = elk_noc_preload(&nc, k, 1, 0);
        ck_assert_int_ge(t, 0);
        elk_net_start(nc.net, t, 6000.0 / n / kc, 0, 0); /* bytes into each of its chip's cores */
    }
    REL_EQ(drain(nc.net), 60, 1e-12);
    elk_noc_free(&nc);
}
END_TEST

/* The planner's replicated preload rate (elk_cost_preload_rate) against a
 * solo preload in the detailed simulation, every controller at once: equal
 * where the trees are summed exactly (<= ELK_GRID_TREE_MAX routers). The
 * entry bound of the r = 1 routes used to cap them too, though a tile
 * shape's trees may route otherwise: each row fell 0.5-0.86x short
 * (issue 9: Basic on a 3072-core tt-galaxy torus 22.5% above its replay). */
static const struct {
    elk_topology topo;
    int rows, cols, ctrls;
    double r;
} tree_rate_cases[] = {
    {ELK_TOPO_MESH, 8, 12, 1, 3},  /* 0.50x before */
    {ELK_TOPO_MESH, 6, 8, 2, 3},   /* 0.67x */
    {ELK_TOPO_MESH, 16, 16, 8, 3}, /* 0.86x */
    {ELK_TOPO_MESH, 12, 16, 1, 16},/* 0.80x */
    {ELK_TOPO_TORUS, 4, 4, 2, 3},  /* 0.73x */
    {ELK_TOPO_TORUS, 8, 12, 1, 3}, /* 0.86x */
};

START_TEST(preload_rate_trees_exact)
{
    elk_chip c = small_chip(tree_rate_cases[_i].topo, tree_rate_cases[_i].rows, tree_rate_cases[_i].cols, 1000, 16,
                            1e6, tree_rate_cases[_i].ctrls, 0);
    c.hbm_placement = ELK_HBM_EDGES;
    double r = tree_rate_cases[_i].r, per = 1e4; /* bytes into each core */
    elk_noc nc;
    elk_error err;
    ck_assert_msg(elk_noc_build(&nc, &c, ELK_SIM_DETAILED, 0, 1, &err) == ELK_OK, "%s", err.msg);
    int t = elk_noc_preload(&nc, -1, r, 0);
    ck_assert_int_ge(t, 0);
    elk_net_start(nc.net, t, per, 0, 0);
    double sim = per * c.cores / r / drain(nc.net); /* unique bytes a cycle */
    double est = fmin(elk_cost_preload_rate(&c, r), elk_chip_hbm_bytes_per_cycle(&c));
    ck_assert_msg(fabs(est / sim - 1) <= 1e-9, "%dx%d %s, %d controllers, r %g: estimate %.6g, simulated %.6g B/cycle",
                  c.mesh_rows, c.mesh_cols, elk_topology_names[c.topology], c.hbm_controllers, r, est, sim);
    elk_noc_free(&nc);
}
END_TEST

/* ------------------------------------------------------------------ */
/* A 3-operator schedule with known overlap                             */

/* 4 cores, all-to-all, 1 B/cycle ports, 4 B/cycle HBM (one controller).
 * op0: preload 400 B (100 per core), compute 50.
 * op1: no HBM data; compute 100, then a ring shift of 50 B per core.
 * op2: preload 800 B (200 per core), allowed once op0 has ended; compute 30.
 * Timeline: preload0 0..100 (port and HBM both saturated); op0 100..150;
 * preload2 from 150 at 1 B/cycle while op1 computes (100 B by 250); op1's
 * shift shares the ingress ports with it 250..350 (0.5 B/cycle each: the
 * shift takes 100 cycles, the preload gets 50 B); the preload finishes its
 * last 50 B alone 350..400; op2 runs 400..430.
 * Breakdown: preload only 100 + 50; execute only 50 + 25 + 30;
 * overlapped 100 + 25 (half rate x half the HBM); interconnect 50. */
static void three_op_job(elk_sim_job *j, double sram)
{
    elk_error err;
    ck_assert(elk_sim_job_alloc(j, 3, &err) == ELK_OK);
    elk_sim_jop *o = j->ops;
    o[0] = (elk_sim_jop){.name = "op0", .comp = 50, .hbm_bytes = 400, .deliv = 400, .hot = 100, .cold = 100, .dep = -1};
    o[1] = (elk_sim_jop){.name = "op1", .comp = 100, .shift_bytes = 50, .hot = 300, .dep = -1};
    o[2] = (elk_sim_jop){.name = "op2", .comp = 30, .hbm_bytes = 800, .deliv = 800, .hot = 250, .cold = 200, .dep = 0};
    for (int i = 0; i < 3; i++) o[i].rs_group = o[i].rd_group = o[i].dist_group = 1;
    j->sram = sram;
    j->check_sram = 1;
    j->est_latency = 430;
}

START_TEST(three_op_overlap)
{
    elk_chip c = small_chip(ELK_TOPO_ALL2ALL, 1, 4, 1, 0, 4, 1, 0);
    elk_sim_job j;
    three_op_job(&j, 512);
    elk_sim_opts o;
    elk_sim_opts_default(&o);
    o.record = 1;
    elk_sim_result r;
    elk_error err;
    ck_assert_msg(elk_sim_run_job(&c, &j, &o, &r, &err) == ELK_OK, "%s", err.msg);
    static const double want[3][4] = {{100, 150, 0, 100}, {150, 350, 0, 0}, {400, 430, 150, 400}};
    for (int i = 0; i < 3; i++) {
        REL_EQ(r.ops[i].exe_start, want[i][0], 1e-12);
        REL_EQ(r.ops[i].exe_end, want[i][1], 1e-12);
        if (i != 1) {
            REL_EQ(r.ops[i].pre_start, want[i][2], 1e-12);
            REL_EQ(r.ops[i].pre_end, want[i][3], 1e-12);
        }
    }
    REL_EQ(r.ops[1].nominal, 150, 1e-12);
    REL_EQ(r.ops[1].stall, 50, 1e-9);
    REL_EQ(r.latency, 430, 1e-12);
    REL_EQ(r.brk[ELK_BRK_PRELOAD], 150, 1e-9);
    REL_EQ(r.brk[ELK_BRK_EXEC], 105, 1e-9);
    REL_EQ(r.brk[ELK_BRK_OVERLAP], 125, 1e-9);
    REL_EQ(r.brk[ELK_BRK_NOC], 50, 1e-9);
    REL_EQ(r.brk[ELK_BRK_DIST], 0, 1e-9);
    REL_EQ(r.err, 0, 1e-12);
    /* HBM: 1200 B at 4 B/cycle = 300 of 430 cycles */
    REL_EQ(r.hbm_util, 300.0 / 430.0, 1e-12);
    /* ports: 1200 B preloaded + 200 B shifted into 4 ports of 1 B/cycle */
    REL_EQ(r.noc_util, 1400.0 / (4 * 430.0), 1e-12);
    /* SRAM: op1 (300) runs while op2's 200 B preload space is held */
    REL_EQ(r.peak_resident, 500, 1e-12);
    ck_assert_int_eq(r.sram_violations, 0);
    /* phases: 1 preload slice each for op0 and op2, 3 computes, 1 shift */
    ck_assert_int_eq(r.nphases, 6);
    elk_sim_result_free(&r);
    elk_sim_job_free(&j);
}
END_TEST

/* The same job in 400 B of SRAM overflows while op1 runs: counted. */
START_TEST(sram_overflow_detected)
{
    elk_chip c = small_chip(ELK_TOPO_ALL2ALL, 1, 4, 1, 0, 4, 1, 0);
    elk_sim_job j;
    three_op_job(&j, 400);
    elk_sim_result r;
    elk_error err;
    ck_assert(elk_sim_run_job(&c, &j, NULL, &r, &err) == ELK_OK);
    ck_assert_int_gt(r.sram_violations, 0);
    elk_sim_result_free(&r);
    elk_sim_job_free(&j);
}
END_TEST

/* A preload that waits for an execution that waits for it: reported. */
START_TEST(deadlock_reported)
{
    elk_chip c = small_chip(ELK_TOPO_ALL2ALL, 1, 4, 1, 0, 4, 1, 0);
    elk_sim_job j;
    three_op_job(&j, 512);
    j.ops[2].dep = 2;
    elk_sim_result r;
    elk_error err;
    ck_assert_int_eq(elk_sim_run_job(&c, &j, NULL, &r, &err), ELK_EINVAL);
    ck_assert_contains(err.msg, "deadlock");
    elk_sim_job_free(&j);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Throttled preloads (the paper profile's noccap and int55)            */

/* One op on 4 cores, all-to-all, ports 1 B/cycle: the planner's preload
 * rate (elk_cost_preload_rate) is 4 / r unique B/cycle. Its preload of 400
 * unique bytes (replication r) is held to theta x that rate; it then
 * computes 50 cycles. With the cap binding, the preload lasts
 * bytes / (theta x rate), the time the planner's estimate gives it
 * (elk_sched_preload_dur): theta 0.7 at r = 1, 400 / 2.8 = 142.857; at
 * r = 2 over 2 controllers (each slice 200 B held to 0.7 B/cycle),
 * 400 / 1.4 = 285.714. A cap above what HBM allows does not bind: HBM at
 * 1 B/cycle takes 400 against 400 / (0.5 x 4) = 200. No cap: the ports
 * bind, 400 / 4 = 100. */
static const struct {
    double theta, r;
    int ctrls;
    double hbm_gbps, pre_end;
} throttle_cases[] = {
    {1, 1, 1, 4, 100},
    {0.7, 1, 1, 4, 400 / 2.8},
    {0.7, 2, 2, 4, 400 / 1.4},
    {0.5, 1, 1, 1, 400},
    {0.25, 4, 1, 16, 400 / 0.25},
};

START_TEST(throttled_preload)
{
    elk_chip c = small_chip(ELK_TOPO_ALL2ALL, 1, 4, 1, 0, throttle_cases[_i].hbm_gbps, throttle_cases[_i].ctrls, 0);
    double r = throttle_cases[_i].r, theta = throttle_cases[_i].theta;
    REL_EQ(elk_cost_preload_rate(&c, r), 4 / r, 1e-12);
    elk_sim_job j;
    elk_error err;
    ck_assert(elk_sim_job_alloc(&j, 1, &err) == ELK_OK);
    j.ops[0] = (elk_sim_jop){.name = "op0", .comp = 50, .hbm_bytes = 400, .deliv = 400 * r, .hot = 10, .cold = 10,
                             .dep = -1, .rs_group = 1, .rd_group = 1, .dist_group = 1};
    if (theta < 1) j.ops[0].pre_cap = theta * 4 / r;
    j.sram = 1e9;
    elk_sim_result res;
    ck_assert_msg(elk_sim_run_job(&c, &j, NULL, &res, &err) == ELK_OK, "%s", err.msg);
    REL_EQ(res.ops[0].pre_start, 0, 1e-12);
    REL_EQ(res.ops[0].pre_end, throttle_cases[_i].pre_end, 1e-12);
    REL_EQ(res.latency, throttle_cases[_i].pre_end + 50, 1e-12);
    REL_EQ(res.hbm_bytes, 400, 1e-12);
    elk_sim_result_free(&res);
    elk_sim_job_free(&j);
}
END_TEST

/* A throttled preload leaves the port to the exchange running beside it:
 * three_op_job with op2's preload held to 1 unique B/cycle (0.25 B/cycle
 * into each core). It runs from 150 while op1 computes; op1's shift of
 * 50 B then gets the port's other 0.75 B/cycle (half of it unthrottled),
 * 250..316.667; the preload's 200 B per core take 800 cycles, to 950; op2
 * runs 950..980. */
START_TEST(throttled_preload_leaves_port)
{
    elk_chip c = small_chip(ELK_TOPO_ALL2ALL, 1, 4, 1, 0, 4, 1, 0);
    elk_sim_job j;
    three_op_job(&j, 512);
    j.ops[2].pre_cap = 1;
    j.est_latency = 980;
    elk_sim_result r;
    elk_error err;
    ck_assert_msg(elk_sim_run_job(&c, &j, NULL, &r, &err) == ELK_OK, "%s", err.msg);
    REL_EQ(r.ops[1].exe_end, 250 + 50 / 0.75, 1e-12);
    REL_EQ(r.ops[2].pre_start, 150, 1e-12);
    REL_EQ(r.ops[2].pre_end, 950, 1e-12);
    REL_EQ(r.ops[2].exe_start, 950, 1e-12);
    REL_EQ(r.latency, 980, 1e-12);
    REL_EQ(r.err, 0, 1e-12);
    double sum = 0;
    for (int b = 0; b < ELK_BRK_COUNT; b++) sum += r.brk[b];
    REL_EQ(sum, r.latency, 1e-9);
    elk_sim_result_free(&r);
    elk_sim_job_free(&j);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Conservation and fast/detailed agreement on synthetic jobs           */

/* A mix of preloads (replication 1..all), exchanges in groups of 16..all
 * cores, shifts and distributions, overlapping each other. */
static void mixed_job(elk_sim_job *j, int cores)
{
    elk_error err;
    ck_assert(elk_sim_job_alloc(j, 8, &err) == ELK_OK);
    static const double rep[8] = {1, 4, 16, 1, 64, 256, 2, 1};
    static const double grp[8] = {16, 64, 256, 32, 4, 256, 128, 8};
    for (int i = 0; i < 8; i++) {
        elk_sim_jop *o = &j->ops[i];
        snprintf(o->name, sizeof o->name, "op%d", i);
        o->comp = 2000 + 500 * (i % 3);
        o->hbm_bytes = 64.0 * 1024 * (1 + i % 4);
        o->deliv = o->hbm_bytes * fmin(rep[i], cores);
        o->cold = o->deliv / cores;
        o->hot = 1000;
        o->shift_bytes = 3000 * (i % 2);
        o->rs_bytes = 2000;
        o->rs_group = grp[i];
        o->rd_bytes = 1000;
        o->rd_group = cores;
        o->dist_bytes = i % 3 == 0 ? 800 : 0;
        o->dist_group = 16;
        o->dist_syncs = 1;
        o->syncs = 2;
        o->dep = i >= 3 ? i - 3 : -1;
    }
    j->sram = 1e12;
}

static void check_conservation(const elk_sim_result *r, const elk_sim_job *j)
{
    REL_EQ(r->recv, r->expect_recv, 1e-9);
    REL_EQ(r->sent, r->recv, 1e-9);
    double hbm = 0, deliv = 0;
    for (int i = 0; i < j->nops; i++) {
        hbm += j->ops[i].hbm_bytes;
        deliv += j->ops[i].deliv;
    }
    REL_EQ(r->hbm_bytes, hbm, 1e-9);
    REL_EQ(r->pre_bytes, deliv, 1e-9);
    double sum = 0;
    for (int b = 0; b < ELK_BRK_COUNT; b++) sum += r->brk[b];
    REL_EQ(sum, r->latency, 1e-9);
}

static const struct {
    const char *name;
    elk_topology topo;
    int rows, cols, chips, ctrls;
    double mesh_gbps;
    double tol; /* allowed |fast - detailed| / detailed */
} agree_cases[] = {
    /* all-to-all classes are exact */
    {"all-to-all, 2 chips", ELK_TOPO_ALL2ALL, 16, 16, 2, 8, 0, 1e-9},
    /* grids, links about as fast as ports: the links bind often */
    {"mesh 16x16, slow links", ELK_TOPO_MESH, 16, 16, 1, 8, 6, 0.02},
    {"torus 16x16, slow links", ELK_TOPO_TORUS, 16, 16, 1, 8, 6, 0.02},
    {"ring 64, slow links", ELK_TOPO_RING, 1, 64, 1, 4, 24, 0.02},
    /* one controller: its routers' links bind (before elk_tree fast mode
     * was 9.3% and 10.7% fast here) */
    {"mesh 16x16, slow links, 1 controller", ELK_TOPO_MESH, 16, 16, 1, 1, 6, 0.02},
    {"torus 16x16, slow links, 1 controller", ELK_TOPO_TORUS, 16, 16, 1, 1, 6, 0.02},
    /* links 4x the port (ipu-pod4-mesh has 23x) */
    {"mesh 16x16", ELK_TOPO_MESH, 16, 16, 1, 8, 16, 0.02},
    {"torus 16x16", ELK_TOPO_TORUS, 16, 16, 1, 8, 16, 0.02},
    {"mesh 8x32", ELK_TOPO_MESH, 8, 32, 1, 16, 16, 0.02},
};

START_TEST(fast_matches_detailed)
{
    elk_chip c = small_chip(agree_cases[_i].topo, agree_cases[_i].rows, agree_cases[_i].cols, 4,
                            agree_cases[_i].mesh_gbps, 200, agree_cases[_i].ctrls, 0);
    if (c.topology == ELK_TOPO_ALL2ALL) c.mesh_link_gbps = 0;
    c.chips = agree_cases[_i].chips;
    c.cores_per_chip = c.cores / c.chips;
    c.interchip_gbps = 50;
    elk_sim_job j;
    mixed_job(&j, c.cores);
    elk_sim_result d, f;
    elk_sim_opts o;
    elk_error err;
    elk_sim_opts_default(&o);
    o.mode = ELK_SIM_DETAILED;
    ck_assert_msg(elk_sim_run_job(&c, &j, &o, &d, &err) == ELK_OK, "%s", err.msg);
    o.mode = ELK_SIM_FAST;
    o.block = 4;
    ck_assert_msg(elk_sim_run_job(&c, &j, &o, &f, &err) == ELK_OK, "%s", err.msg);
    ck_assert(d.mode_detailed && !f.mode_detailed);
    check_conservation(&d, &j);
    check_conservation(&f, &j);
    double rel = fabs(f.latency - d.latency) / d.latency;
    /* a preload's span (first slice's start to last one's end) and its end:
     * in detailed mode a controller whose slices finish early starts the
     * next preload early, which stretches that preload's span though it
     * ends no later; fast mode's one transfer for all controllers has no
     * such spread */
    double worst = 0, worst_end = 0;
    for (int i = 0; i < j.nops; i++) {
        double dp = d.ops[i].pre_end - d.ops[i].pre_start, fp = f.ops[i].pre_end - f.ops[i].pre_start;
        worst = fmax(worst, fabs(fp - dp) / dp);
        worst_end = fmax(worst_end, fabs(f.ops[i].pre_end - d.ops[i].pre_end) / d.latency);
    }
    printf("fast vs detailed, %s: latency %.0f vs %.0f cycles (%.2f%%), worst preload span %.2f%%, end %.2f%% of the "
           "latency, links %d vs %d\n",
           agree_cases[_i].name, f.latency, d.latency, 100 * rel, 100 * worst, 100 * worst_end, f.nlinks, d.nlinks);
    ck_assert_msg(rel <= agree_cases[_i].tol, "%s: fast %.0f vs detailed %.0f", agree_cases[_i].name, f.latency,
                  d.latency);
    elk_sim_result_free(&d);
    elk_sim_result_free(&f);
    elk_sim_job_free(&j);
}
END_TEST

/* A job of one operator: 1 cycle of compute after a preload of hbm unique
 * bytes delivering deliv (none when hbm = 0), SRAM unbounded. */
static void one_op_job(elk_sim_job *j, double hbm, double deliv, int cores)
{
    elk_error err;
    ck_assert(elk_sim_job_alloc(j, 1, &err) == ELK_OK);
    elk_sim_jop *o = &j->ops[0];
    snprintf(o->name, sizeof o->name, "x");
    o->comp = 1;
    o->dep = -1;
    o->hot = 1;
    o->hbm_bytes = hbm;
    o->deliv = deliv;
    o->cold = deliv / cores;
    j->sram = 1e15;
}

/* Fast mode on a ring of 288 (auto blocks of 24 routers: 12 blocks), ports
 * 64 B/cycle, links 16: one transfer alone, in both modes. Hand-checked
 * detailed values (want > 0):
 * - preload, r = 1, one controller at router 0: its east link carries the
 *   bytes of cores 1..143 and half of 144's (a tie, split both ways),
 *   143.5 / 288 x 1e8 B at 16 B/cycle = 3114149.3 cycles;
 * - exchange in pairs: each core's 1e6 B cross one link, 62500 cycles
 *   (+1 of compute);
 * - exchange in groups of 8 on a line: the middle link carries 4 x 4 / 7
 *   per unit, 1e6 x 16/7 / 16 = 142857.1 (+1).
 * Before issue 9's fix fast mode gave 0.92x the preloads (it did not charge
 * a controller's first hops to the cores of its own block, and split the
 * block opposite a controller's block both ways round) and 4.3x and 1.9x
 * the exchanges (every pair inside a block was charged the block's mean
 * distance, 8 hops, and a group straddling two blocks both blocks' whole
 * extents). */
static const struct {
    const char *name;
    int preload, ctrls;
    double v, want, tol;
} ring_fast_cases[] = {
    {"preload r=1, 1 controller", 1, 1, 1, 3114149.3055555555, 0.01},
    {"preload r=1, 2 controllers", 1, 2, 1, 0, 0.01},
    {"preload r=8, 2 controllers", 1, 2, 8, 0, 0.01},
    {"exchange in pairs", 0, 2, 2, 62501, 1e-9},
    {"exchange in groups of 8", 0, 2, 8, 142857.142857 + 1, 1e-9},
    {"exchange in groups of 48", 0, 2, 48, 0, 0.01},
    {"exchange of the whole ring", 0, 2, 288, 0, 0.02},
};

START_TEST(ring_fast_mode)
{
    elk_chip c = small_chip(ELK_TOPO_RING, 1, 288, 64, 16, 9216, ring_fast_cases[_i].ctrls, 0);
    double t[2];
    for (int m = 0; m < 2; m++) {
        elk_sim_job j;
        elk_error err;
        int pre = ring_fast_cases[_i].preload;
        one_op_job(&j, pre ? 1e8 : 0, pre ? 1e8 * ring_fast_cases[_i].v : 0, c.cores);
        elk_sim_jop *o = &j.ops[0];
        if (!pre) {
            o->rs_bytes = 1e6;
            o->rs_group = ring_fast_cases[_i].v;
        }
        elk_sim_opts so;
        elk_sim_opts_default(&so);
        so.mode = m ? ELK_SIM_DETAILED : ELK_SIM_FAST;
        elk_sim_result r;
        ck_assert_msg(elk_sim_run_job(&c, &j, &so, &r, &err) == ELK_OK, "%s", err.msg);
        ck_assert(r.mode_detailed == m);
        t[m] = ring_fast_cases[_i].preload ? r.ops[0].pre_end - r.ops[0].pre_start : r.ops[0].exe_end - r.ops[0].exe_start;
        elk_sim_result_free(&r);
        elk_sim_job_free(&j);
    }
    if (ring_fast_cases[_i].want > 0) REL_EQ(t[1], ring_fast_cases[_i].want, 1e-9);
    ck_assert_msg(fabs(t[0] - t[1]) <= ring_fast_cases[_i].tol * t[1], "%s: fast %.1f vs detailed %.1f cycles",
                  ring_fast_cases[_i].name, t[0], t[1]);
}
END_TEST

/* Issue 9: one preload (r = 1) from `edges` controllers where the grid's
 * links bind (ports and HBM far faster), in detailed mode, against the
 * planner's rate, which is the busiest link of these routes exactly
 * (elk_cost.c grid_entry_busiest; hand-checked cases in test_cost's
 * issue9_edges_busiest_link). The torus rows: its preloads take the mesh's
 * routes where those load the busiest link less (choose_preload_routes):
 * with 16 or 192 controllers on 16 x 16 its own shortest routes delivered
 * 2259.9 and 2811.2 B/cycle against the mesh's 2570.0 and 2880.7. */
static const struct {
    elk_topology topo;
    int rows, cols, ctrls;
    double flat; /* 1: the torus routes like the mesh (-1: not a torus) */
} edges_exact_cases[] = {
    {ELK_TOPO_MESH, 16, 16, 192, -1}, {ELK_TOPO_TORUS, 16, 16, 192, 1}, {ELK_TOPO_MESH, 16, 16, 16, -1},
    {ELK_TOPO_TORUS, 16, 16, 16, 1},  {ELK_TOPO_MESH, 16, 16, 61, -1},  {ELK_TOPO_TORUS, 16, 16, 61, 0},
    {ELK_TOPO_MESH, 16, 16, 1, -1},   {ELK_TOPO_TORUS, 16, 16, 1, 0},   {ELK_TOPO_MESH, 8, 16, 128, -1},
    {ELK_TOPO_MESH, 4, 8, 4, -1},     {ELK_TOPO_TORUS, 4, 4, 12, 0},
};

START_TEST(edges_preload_exact)
{
    elk_chip c = small_chip(edges_exact_cases[_i].topo, edges_exact_cases[_i].rows, edges_exact_cases[_i].cols, 1e6, 64,
                            1e9, edges_exact_cases[_i].ctrls, 0);
    elk_sim_job j;
    elk_error err;
    one_op_job(&j, 1e8, 1e8, c.cores);
    elk_sim_opts so;
    elk_sim_opts_default(&so);
    so.mode = ELK_SIM_DETAILED;
    elk_sim_result r;
    ck_assert_msg(elk_sim_run_job(&c, &j, &so, &r, &err) == ELK_OK, "%s", err.msg);
    double sim = 1e8 / (r.ops[0].pre_end - r.ops[0].pre_start), est = elk_cost_preload_rate(&c, 1);
    ck_assert_msg(fabs(sim - est) <= 1e-6 * est, "%dx%d %s, %d controllers: simulated %.4f B/cycle, planner %.4f",
                  c.mesh_rows, c.mesh_cols, elk_topology_names[c.topology], c.hbm_controllers, sim, est);
    if (edges_exact_cases[_i].flat >= 0) {
        elk_noc nc;
        ck_assert(elk_noc_build(&nc, &c, ELK_SIM_DETAILED, 0, 1, &err) == ELK_OK);
        ck_assert_int_eq(nc.pre_flat, (int)edges_exact_cases[_i].flat);
        elk_noc_free(&nc);
    }
    elk_sim_result_free(&r);
    elk_sim_job_free(&j);
}
END_TEST

/* elk_tree routes the preloads' trees router by router as the detailed
 * mode does. On a detailed network (blocks of one router, every link its
 * own class) its loads must be the detailed mode's own, link by link: every
 * topology, placement, a broadcasting controller, replication 1 to the
 * whole grid, each controller alone and all of them at once, the Ideal
 * policy's second plane. */
static const struct {
    elk_topology topo;
    int rows, cols, ctrls;
    elk_hbm_placement place;
    int broadcast;
} tree_cases[] = {
    {ELK_TOPO_MESH, 16, 24, 4, ELK_HBM_EDGES, 0},   {ELK_TOPO_MESH, 16, 16, 1, ELK_HBM_EDGES, 0},
    {ELK_TOPO_MESH, 8, 12, 2, ELK_HBM_CORNERS, 0},  {ELK_TOPO_MESH, 12, 8, 5, ELK_HBM_WEST, 0},
    {ELK_TOPO_MESH, 9, 13, 1, ELK_HBM_EDGES, 1},    {ELK_TOPO_MESH, 8, 16, 128, ELK_HBM_EDGES, 0},
    {ELK_TOPO_TORUS, 16, 16, 1, ELK_HBM_EDGES, 0},  {ELK_TOPO_TORUS, 16, 16, 16, ELK_HBM_EDGES, 0},
    {ELK_TOPO_TORUS, 9, 12, 3, ELK_HBM_CORNERS, 0}, {ELK_TOPO_TORUS, 10, 7, 4, ELK_HBM_WEST, 0},
    {ELK_TOPO_TORUS, 8, 8, 1, ELK_HBM_EDGES, 1},    {ELK_TOPO_RING, 1, 96, 1, ELK_HBM_EDGES, 0},
    {ELK_TOPO_RING, 1, 97, 4, ELK_HBM_EDGES, 0},    {ELK_TOPO_RING, 1, 64, 6, ELK_HBM_EDGES, 0},
};

/* A template's uses as dense per-link arrays. */
static void tmpl_dense(const elk_noc *nc, int t, double *cmax, double *csum)
{
    const elk_tmpl *tp = &elk_net_tmpls(nc->net)[t];
    const elk_use *u = elk_net_uses(nc->net);
    for (int i = tp->u0; i < tp->u0 + tp->nu; i++) {
        cmax[u[i].link] += u[i].cmax;
        csum[u[i].link] += u[i].csum;
    }
}

START_TEST(tree_loads_detailed)
{
    elk_chip c = small_chip(tree_cases[_i].topo, tree_cases[_i].rows, tree_cases[_i].cols, 4, 16, 200,
                            tree_cases[_i].ctrls, tree_cases[_i].broadcast);
    c.hbm_placement = tree_cases[_i].place;
    elk_noc nc;
    elk_error err;
    ck_assert_msg(elk_noc_build(&nc, &c, ELK_SIM_DETAILED, 0, 2, &err) == ELK_OK, "%s", err.msg);
    elk_tree tree;
    elk_tree_init(&tree);
    int nl = elk_net_nlinks(nc.net);
    double *a = calloc((size_t)nl * 4, sizeof *a);
    ck_assert(a);
    static const double reps[] = {1, 2, 3, 4, 6, 8, 16, 24, 64, 1e9};
    int compared = 0;
    for (int ri = 0; ri < (int)(sizeof reps / sizeof reps[0]); ri++)
        for (int k = -1; k < nc.nctrl; k += k < 0 || nc.nctrl < 4 ? 1 : nc.nctrl - 1)
            for (int plane = 0; plane < 2; plane++) {
                double r = fmin(reps[ri], c.cores);
                int t0 = elk_noc_preload(&nc, k, r, plane), t1 = elk_tree_preload(&tree, &nc, k, r, plane, INFINITY);
                ck_assert(t0 >= 0 && t1 >= 0 && t0 != t1);
                const elk_tmpl *p0 = &elk_net_tmpls(nc.net)[t0], *p1 = &elk_net_tmpls(nc.net)[t1];
                REL_EQ(p1->weight, p0->weight, 1e-12);
                REL_EQ(p1->ndest, p0->ndest, 1e-12);
                REL_EQ(p1->src_ratio, p0->src_ratio, 1e-12);
                REL_EQ(p1->solo_rate, p0->solo_rate, 1e-9);
                memset(a, 0, (size_t)nl * 4 * sizeof *a);
                tmpl_dense(&nc, t0, a, a + nl);
                tmpl_dense(&nc, t1, a + 2 * nl, a + 3 * nl);
                for (int l = 0; l < nl; l++) {
                    ck_assert_msg(fabs(a[2 * nl + l] - a[l]) <= 1e-9 * fmax(1, a[l]) &&
                                      fabs(a[3 * nl + l] - a[nl + l]) <= 1e-9 * fmax(1, a[nl + l]),
                                  "%dx%d %s, r %g, controller %d, plane %d: link %d (%s) tree %g/%g, detailed %g/%g",
                                  c.mesh_rows, c.mesh_cols, elk_topology_names[c.topology], r, k, plane, l,
                                  elk_link_kind_names[elk_net_links(nc.net)[l].kind], a[2 * nl + l], a[3 * nl + l],
                                  a[l], a[nl + l]);
                    compared += a[l] > 0;
                }
                /* a second request is the cached template */
                ck_assert_int_eq(elk_tree_preload(&tree, &nc, k, r, plane, INFINITY), t1);
            }
    ck_assert(compared > 0);
    free(a);
    elk_tree_free(&tree);
    elk_noc_free(&nc);
}
END_TEST

/* Issue 9: one preload alone where one link binds (ports and HBM far
 * faster, links 64 B/cycle) with few controllers: the fast mode (auto
 * blocks: 2 x 2 routers on these grids, 128 on the ring) must give the
 * detailed mode's time, which is hand-checked where want > 0. 1e8 unique
 * bytes:
 * - one controller at the corner (0, 0) of R x C (corners): X first, the
 *   east link out of (0, 0) carries every core's bytes in columns 1..C-1,
 *   so x <= 64 / (R (C - 1)) per core and the preload lasts
 *   1e8 (C - 1) / (64 C): 16 x 24, 1497395.83 cycles; two controllers at
 *   (0, 0) and (0, C - 1) half each (the second leaves by the west links);
 * - r = 2 (tiles of 1 x 2): every tile's tree crosses that link once, RC/2
 *   tiles of 1 B per unit: 1e8 / 64 = 1562500;
 * - the 16 x 16 torus, one corner controller: the east link out of (0, 0)
 *   carries columns 1..7 and half of column 8 (a tie), 7.5 x 16 of 256
 *   cores: 1e8 x 120 / 256 / 64 = 732421.875.
 * Before the trees were summed router by router (elk_tree) fast mode was
 * off by the ratio in `before` (fast / detailed time): its bundles spread
 * the rows a controller's routers feed over the bundle's members. */
static const struct {
    const char *name;
    elk_topology topo;
    int rows, cols, ctrls;
    elk_hbm_placement place;
    double r, want, before;
} fast_tree_cases[] = {
    {"mesh 16x24, 1 corner controller", ELK_TOPO_MESH, 16, 24, 1, ELK_HBM_CORNERS, 1, 1497395.8333333333, 0.962},
    {"mesh 16x24, 2 corner controllers", ELK_TOPO_MESH, 16, 24, 2, ELK_HBM_CORNERS, 1, 748697.91666666667, 0.962},
    {"mesh 16x24, 1 corner controller, r 2", ELK_TOPO_MESH, 16, 24, 1, ELK_HBM_CORNERS, 2, 1562500, 0.922},
    {"torus 16x16, 1 corner controller", ELK_TOPO_TORUS, 16, 16, 1, ELK_HBM_CORNERS, 1, 732421.875, 1.067},
    {"mesh 16x16, 1 edges controller", ELK_TOPO_MESH, 16, 16, 1, ELK_HBM_EDGES, 1, 0, 0.846},
    {"torus 16x16, 1 edges controller", ELK_TOPO_TORUS, 16, 16, 1, ELK_HBM_EDGES, 1, 0, 0.727},
    {"mesh 16x24, 4 edges controllers", ELK_TOPO_MESH, 16, 24, 4, ELK_HBM_EDGES, 1, 0, 0.829},
    {"mesh 16x24, 4 edges controllers, r 8", ELK_TOPO_MESH, 16, 24, 4, ELK_HBM_EDGES, 8, 0, 0.917},
    {"torus 24x32, 4 edges controllers, r 4", ELK_TOPO_TORUS, 24, 32, 4, ELK_HBM_EDGES, 4, 0, 0.641},
    {"ring 1536, 8 controllers", ELK_TOPO_RING, 1, 1536, 8, ELK_HBM_EDGES, 1, 0, 0.934},
};

START_TEST(fast_tree_exact)
{
    elk_chip c = small_chip(fast_tree_cases[_i].topo, fast_tree_cases[_i].rows, fast_tree_cases[_i].cols, 1e6, 64, 1e9,
                            fast_tree_cases[_i].ctrls, 0);
    c.hbm_placement = fast_tree_cases[_i].place;
    double t[2];
    for (int m = 0; m < 2; m++) {
        elk_sim_job j;
        elk_error err;
        one_op_job(&j, 1e8, 1e8 * fast_tree_cases[_i].r, c.cores);
        elk_sim_opts so;
        elk_sim_opts_default(&so);
        so.mode = m ? ELK_SIM_DETAILED : ELK_SIM_FAST;
        elk_sim_result r;
        ck_assert_msg(elk_sim_run_job(&c, &j, &so, &r, &err) == ELK_OK, "%s", err.msg);
        ck_assert(r.mode_detailed == m && (m || r.block > 1 || c.topology == ELK_TOPO_RING));
        t[m] = r.ops[0].pre_end - r.ops[0].pre_start;
        elk_sim_result_free(&r);
        elk_sim_job_free(&j);
    }
    if (fast_tree_cases[_i].want > 0) REL_EQ(t[1], fast_tree_cases[_i].want, 1e-9);
    printf("fast tree, %s: fast %.1f, detailed %.1f cycles (%.4f; before elk_tree %.3f)\n", fast_tree_cases[_i].name,
           t[0], t[1], t[0] / t[1], fast_tree_cases[_i].before);
    ck_assert_msg(fabs(t[0] - t[1]) <= 1e-9 * t[1], "%s: fast %.1f vs detailed %.1f cycles", fast_tree_cases[_i].name,
                  t[0], t[1]);
}
END_TEST

/* One broadcasting controller versus several with queues, on the same job:
 * on a mesh the single entry router is the bottleneck. */
START_TEST(broadcast_vs_controllers)
{
    elk_chip c = small_chip(ELK_TOPO_MESH, 16, 16, 4, 6, 200, 8, 0);
    elk_sim_job j;
    mixed_job(&j, c.cores);
    elk_sim_result a, b;
    elk_sim_opts o;
    elk_error err;
    elk_sim_opts_default(&o);
    ck_assert(elk_sim_run_job(&c, &j, &o, &a, &err) == ELK_OK);
    o.hbm_broadcast = 1;
    ck_assert(elk_sim_run_job(&c, &j, &o, &b, &err) == ELK_OK);
    ck_assert_int_eq(a.nctrl, 8);
    ck_assert_int_eq(b.nctrl, 1);
    ck_assert_msg(b.latency > a.latency, "broadcast %.0f vs controllers %.0f", b.latency, a.latency);
    check_conservation(&b, &j);
    elk_sim_result_free(&a);
    elk_sim_result_free(&b);
    elk_sim_job_free(&j);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Real schedules                                                       */

static const struct {
    const char *chip;
    int cores;
} real_cases[] = {
    {"ipu-mk2", 4},
    {"ipu-mk2", 64},
    {"tt-mesh", 16},
};

static void tiny_problem_prof(const char *chip, int cores, const char *profile, elk_plan_cache *pc, elk_problem *pr)
{
    elk_point p;
    elk_point_defaults(&p);
    snprintf(p.profile, sizeof p.profile, "%s", profile);
    char path[1024];
    snprintf(p.chip_path, sizeof p.chip_path, "%s/presets/chips/%s.cfg", ELK_SRC_DIR, chip);
    snprintf(p.model_path, sizeof p.model_path, "%s", src_path(path, sizeof path, "presets/models/tiny.cfg"));
    p.layers = 1;
    p.batch = 1;
    p.seq = 64;
    p.cores = cores;
    elk_error err;
    ck_assert_msg(elk_problem_init(pr, &p, pc, &err) == ELK_OK, "%s", err.msg);
}

static void tiny_problem(const char *chip, int cores, elk_plan_cache *pc, elk_problem *pr)
{
    tiny_problem_prof(chip, cores, "", pc, pr);
}

/* Every policy's schedule replays: SRAM never exceeded, program order kept,
 * every execution after its preload, bytes conserved; Ideal (no contention,
 * no distribution) matches the planner exactly on all-to-all, where the
 * closed form is exact. */
START_TEST(real_schedules)
{
    elk_plan_cache *pc = elk_plan_cache_alloc();
    elk_problem pr;
    tiny_problem(real_cases[_i].chip, real_cases[_i].cores, pc, &pr);
    elk_sched_opts so;
    elk_sched_opts_default(&so);
    for (int pol = 0; pol < ELK_POL_COUNT; pol++) {
        elk_schedule s;
        elk_error err;
        ck_assert_msg(elk_schedule_run(&pr, (elk_policy)pol, &so, &s, &err) == ELK_OK, "%s", err.msg);
        elk_sim_result r;
        ck_assert_msg(elk_sim_run(&pr, &s, NULL, &r, &err) == ELK_OK, "%s", err.msg);
        ck_assert_int_eq(r.nops, s.nops);
        ck_assert_int_eq(r.sram_violations, 0);
        ck_assert(r.peak_resident <= pr.sram || pol == ELK_POL_IDEAL);
        /* utilisations are fractions of every plane's capacity (Ideal's
         * separate preload NoC included) */
        ck_assert_msg(r.noc_util >= 0 && r.noc_util <= 1 + 1e-9, "%s: noc_util %g", elk_policy_labels[pol], r.noc_util);
        ck_assert_msg(r.hbm_util >= 0 && r.hbm_util <= 1 + 1e-9, "%s: hbm_util %g", elk_policy_labels[pol], r.hbm_util);
        ck_assert_msg(r.link_mean >= 0 && r.link_mean <= 1 + 1e-9, "%s: link_mean %g", elk_policy_labels[pol],
                      r.link_mean);
        for (int i = 0; i < r.nops; i++) {
            if (i > 0) ck_assert(r.ops[i].exe_start >= r.ops[i - 1].exe_end - 1e-9);
            if (pr.graph.ops[i].hbm_bytes > 0) ck_assert(r.ops[i].pre_end <= r.ops[i].exe_start + 1e-9);
            ck_assert(r.ops[i].stall >= -1e-6 * r.ops[i].nominal);
        }
        elk_sim_job j;
        ck_assert(elk_sim_job_from_schedule(&pr, &s, &j, &err) == ELK_OK);
        check_conservation(&r, &j);
        elk_sim_job_free(&j);
        if (pol != ELK_POL_IDEAL)
            ck_assert_msg(fabs(r.err) < 0.25, "%s: estimate %.0f vs simulated %.0f", elk_policy_labels[pol],
                          r.est_latency, r.latency);
        /* Ideal lets an op stream its own preload, which a replay cannot:
         * the simulator is never faster, and on all-to-all (no contention
         * between its two networks) only by the ops that waited */
        if (pol == ELK_POL_IDEAL)
            ck_assert_msg(r.latency >= s.latency * (1 - 1e-9), "Ideal: simulated %.1f below the estimate %.1f",
                          r.latency, s.latency);
        if (pol == ELK_POL_IDEAL && pr.chip.topology == ELK_TOPO_ALL2ALL) {
            double wait = 0;
            for (int i = 0; i < s.nops; i++) wait += fmax(0.0, s.ops[i].pre_end - s.ops[i].exe_start);
            ck_assert_msg(r.latency <= s.latency + wait + 1e-6 * s.latency, "Ideal replay %.1f > %.1f + %.1f",
                          r.latency, s.latency, wait);
        }
        /* the network summary (the TUI's network view): every link's load
         * within its capacity; the controllers' mean is hbm_util (each has
         * 1/nctrl of the bandwidth); a grid has its links in the summary */
        const elk_sim_net *n = &r.net;
        ck_assert_int_eq(n->nctrl, r.nctrl);
        ck_assert(n->ctrl && n->port_in);
        double cm = 0;
        for (int k = 0; k < n->nctrl; k++) {
            ck_assert(n->ctrl[k] >= 0 && n->ctrl[k] <= 1 + 1e-9);
            cm += n->ctrl[k] / n->nctrl;
        }
        ck_assert_msg(fabs(cm - r.hbm_util) <= 1e-9 * fmax(1, r.hbm_util), "controllers %g vs hbm_util %g", cm, r.hbm_util);
        for (int i = 0; i < n->ncell; i++) ck_assert(n->port_in[i] >= 0 && n->port_in[i] <= 1 + 1e-9);
        ck_assert_int_eq(n->grid, r.grid);
        if (n->grid) {
            ck_assert(n->mesh && n->br0 && n->bc0 && n->nbr >= 1 && n->nbc >= 1);
            ck_assert_int_eq(n->br0[n->nbr], n->R);
            ck_assert_int_eq(n->bc0[n->nbc], n->C);
            int links = 0;
            for (int b = 0; b < n->nbr * n->nbc * 4; b++) {
                ck_assert(n->mesh[b] <= 1 + 1e-9);
                links += n->mesh[b] >= 0;
            }
            ck_assert(links > 0);
        }
        elk_sim_result_free(&r);
        elk_schedule_free(&s);
    }
    elk_problem_free(&pr);
    elk_plan_cache_free(pc);
}
END_TEST

/* The schedule carries the preload throttle it was planned with and the
 * replay holds every preload to it. ipu-mk2 (its preset's paper profile):
 * Basic and Static at theta 0.7, Elk-Dyn at its run's theta (0.9, 0.7 or
 * 0.5), all three times int55's int(5.5 / 1.048576) / (5.5 / 1.048576) =
 * 5 / 5.2452; Elk-Full at 0.99 or, when it keeps another policy's
 * schedule, that policy's; Ideal unthrottled. Each preload then lasts at
 * least its bytes / (share x the planner's rate). The physical profile
 * throttles nothing. */
static const struct {
    const char *profile;
    int cores;
} throttle_real_cases[] = {{"", 64}, {"", 4}, {"physical", 64}};

START_TEST(throttle_from_schedule)
{
    elk_plan_cache *pc = elk_plan_cache_alloc();
    elk_problem pr;
    tiny_problem_prof("ipu-mk2", throttle_real_cases[_i].cores, throttle_real_cases[_i].profile, pc, &pr);
    int paper = pr.chip.profile == ELK_PROFILE_PAPER;
    ck_assert_int_eq(paper, throttle_real_cases[_i].profile[0] == 0);
    double per = pr.chip.link_gbps * pr.chip.noc_scale / 1.048576, i55 = floor(per) / per;
    elk_sched_opts so;
    elk_sched_opts_default(&so);
    elk_result res;
    elk_error err;
    ck_assert_msg(elk_result_run(&pr, &so, (1u << ELK_POL_COUNT) - 1, &res, &err) == ELK_OK, "%s", err.msg);
    for (int pol = 0; pol < ELK_POL_COUNT; pol++) {
        const elk_schedule *s = &res.pol[pol];
        double want = 1;
        if (paper && (pol == ELK_POL_BASIC || pol == ELK_POL_STATIC)) want = 0.7 * i55;
        if (paper && pol == ELK_POL_DYN) want = (double[]){0.9, 0.7, 0.5}[s->run_variant / ELK_PRICES] * i55;
        if (paper && pol == ELK_POL_FULL) want = s->adopted >= 0 ? res.pol[s->adopted].pre_share : 0.99;
        REL_EQ(s->pre_share, want, 1e-15);
        elk_sim_job j;
        ck_assert(elk_sim_job_from_schedule(&pr, s, &j, &err) == ELK_OK);
        elk_sim_result r;
        ck_assert_msg(elk_sim_run(&pr, s, NULL, &r, &err) == ELK_OK, "%s", err.msg);
        int capped = 0;
        for (int i = 0; i < j.nops; i++) {
            const elk_sim_jop *o = &j.ops[i];
            if (o->hbm_bytes <= 0) continue;
            if (want == 1) {
                ck_assert_double_eq(o->pre_cap, 0);
                continue;
            }
            REL_EQ(o->pre_cap, want * elk_cost_preload_rate(&pr.chip, o->deliv / o->hbm_bytes), 1e-15);
            capped++;
            ck_assert_msg(r.ops[i].pre_end - r.ops[i].pre_start >= o->hbm_bytes / o->pre_cap * (1 - 1e-9),
                          "%s op %d: preload %.3f cycles, under its throttled %.3f", elk_policy_labels[pol], i,
                          r.ops[i].pre_end - r.ops[i].pre_start, o->hbm_bytes / o->pre_cap);
        }
        if (want < 1) ck_assert_int_gt(capped, 0);
        elk_sim_result_free(&r);
        elk_sim_job_free(&j);
    }
    elk_result_free(&res);
    elk_problem_free(&pr);
    elk_plan_cache_free(pc);
}
END_TEST

/* A set cancel flag abandons the replay with ELK_ECANCEL and leaves
 * nothing allocated. */
START_TEST(sim_cancel)
{
    elk_plan_cache *pc = elk_plan_cache_alloc();
    elk_problem pr;
    tiny_problem("ipu-mk2", 64, pc, &pr);
    elk_sched_opts so;
    elk_sched_opts_default(&so);
    elk_schedule s;
    elk_error err;
    ck_assert(elk_schedule_run(&pr, ELK_POL_FULL, &so, &s, &err) == ELK_OK);
    atomic_int stop = 1;
    elk_sim_opts o;
    elk_sim_opts_default(&o);
    o.cancel = &stop;
    elk_sim_result r;
    ck_assert_int_eq(elk_sim_run(&pr, &s, &o, &r, &err), ELK_ECANCEL);
    ck_assert(r.ops == NULL && r.net.ctrl == NULL);
    stop = 0;
    ck_assert(elk_sim_run(&pr, &s, &o, &r, &err) == ELK_OK);
    elk_sim_result_free(&r);
    elk_schedule_free(&s);
    elk_problem_free(&pr);
    elk_plan_cache_free(pc);
}
END_TEST

/* The trace parses as JSON and has one event per operator phase, on the
 * right tracks, plus one enclosing event per operator. */
START_TEST(trace_json)
{
    elk_plan_cache *pc = elk_plan_cache_alloc();
    elk_problem pr;
    tiny_problem("ipu-mk2", 64, pc, &pr);
    elk_sched_opts so;
    elk_sched_opts_default(&so);
    elk_schedule s;
    elk_error err;
    ck_assert(elk_schedule_run(&pr, ELK_POL_FULL, &so, &s, &err) == ELK_OK);
    elk_sim_opts o;
    elk_sim_opts_default(&o);
    o.record = 1;
    elk_sim_result r;
    ck_assert(elk_sim_run(&pr, &s, &o, &r, &err) == ELK_OK);
    /* every op computes; every op with HBM data has one slice per controller */
    int want = 0;
    for (int i = 0; i < r.nops; i++) {
        want += 1 + (pr.graph.ops[i].hbm_bytes > 0 ? r.nctrl : 0);
        ck_assert(r.ops[i].exe_end > r.ops[i].exe_start);
    }
    int counted = 0;
    for (int p = 0; p < r.nphases; p++)
        counted += r.phases[p].kind == ELK_PH_COMPUTE || r.phases[p].kind == ELK_PH_PRELOAD;
    ck_assert_int_eq(counted, want);

    char dir[512], path[600];
    scratch_new(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/trace.json", dir);
    ck_assert_msg(elk_trace_write(path, &r, &pr.graph, &pr.chip, "test", &err) == ELK_OK, "%s", err.msg);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    ck_assert_msg(root != NULL, "trace does not parse: %s at line %d", je.text, je.line);
    json_t *ev = json_object_get(root, "traceEvents");
    ck_assert(json_is_array(ev));
    int phases = 0, ops = 0, hbm_tracks = 0;
    int *per_kind = calloc(ELK_PH_COUNT, sizeof *per_kind);
    size_t k;
    json_t *e;
    json_array_foreach(ev, k, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        const char *cat = json_string_value(json_object_get(e, "cat"));
        ck_assert_ptr_nonnull(ph);
        if (!strcmp(ph, "M")) {
            const char *nm = json_string_value(json_object_get(json_object_get(e, "args"), "name"));
            if (nm && !strncmp(nm, "HBM controller", 14)) hbm_tracks++;
            continue;
        }
        if (strcmp(ph, "X")) continue;
        ck_assert(json_real_value(json_object_get(e, "dur")) >= 0);
        if (!strcmp(cat, "op")) ops++;
        if (!strcmp(cat, "phase")) {
            phases++;
            const char *kind = json_string_value(json_object_get(json_object_get(e, "args"), "phase"));
            for (int q = 0; q < ELK_PH_COUNT; q++)
                if (!strcmp(kind, elk_phase_names[q])) per_kind[q]++;
        }
    }
    ck_assert_int_eq(phases, r.nphases);
    ck_assert_int_eq(ops, r.nops);
    ck_assert_int_eq(hbm_tracks, r.nctrl);
    ck_assert_int_eq(per_kind[ELK_PH_COMPUTE] + per_kind[ELK_PH_PRELOAD], want);
    free(per_kind);
    json_decref(root);
    /* written through a temporary file: nothing else is left behind */
    char pattern[700];
    snprintf(pattern, sizeof pattern, "%s/*", dir);
    glob_t gl;
    ck_assert_int_eq(glob(pattern, 0, NULL, &gl), 0);
    ck_assert_uint_eq(gl.gl_pathc, 1);
    globfree(&gl);
    /* an unwritable path fails with the path in the message */
    snprintf(path, sizeof path, "%s/no/such/dir/trace.json", dir);
    ck_assert_int_eq(elk_trace_write(path, &r, &pr.graph, &pr.chip, "test", &err), ELK_EIO);
    ck_assert_contains(err.msg, "no/such/dir");
    scratch_free(dir);
    elk_sim_result_free(&r);
    elk_schedule_free(&s);
    elk_problem_free(&pr);
    elk_plan_cache_free(pc);
}
END_TEST

static Suite *sim_suite(void)
{
    Suite *s = suite_create("sim");
    TCase *tc = tcase_create("core");
    tcase_add_loop_test(tc, flow_closed_form, 0, (int)(sizeof flow_cases / sizeof flow_cases[0]));
    tcase_add_test(tc, flow_memo);
    tcase_add_loop_test(tc, mesh_broadcast_4x4, 0, (int)(sizeof bcast_cases / sizeof bcast_cases[0]));
    tcase_add_loop_test(tc, ring_striped_preload, 0, (int)(sizeof ring_stripe_cases / sizeof ring_stripe_cases[0]));
    tcase_add_loop_test(tc, preload_rate_trees_exact, 0, (int)(sizeof tree_rate_cases / sizeof tree_rate_cases[0]));
    tcase_add_loop_test(tc, partial_chip_reads_whole_hbm, 0,
                        (int)(sizeof partial_chip_cases / sizeof partial_chip_cases[0]));
    tcase_add_test(tc, three_op_overlap);
    tcase_add_test(tc, sram_overflow_detected);
    tcase_add_test(tc, deadlock_reported);
    tcase_add_loop_test(tc, throttled_preload, 0, (int)(sizeof throttle_cases / sizeof throttle_cases[0]));
    tcase_add_test(tc, throttled_preload_leaves_port);
    tcase_add_loop_test(tc, fast_matches_detailed, 0, (int)(sizeof agree_cases / sizeof agree_cases[0]));
    tcase_add_loop_test(tc, ring_fast_mode, 0, (int)(sizeof ring_fast_cases / sizeof ring_fast_cases[0]));
    tcase_add_loop_test(tc, edges_preload_exact, 0, (int)(sizeof edges_exact_cases / sizeof edges_exact_cases[0]));
    tcase_add_loop_test(tc, tree_loads_detailed, 0, (int)(sizeof tree_cases / sizeof tree_cases[0]));
    tcase_add_loop_test(tc, fast_tree_exact, 0, (int)(sizeof fast_tree_cases / sizeof fast_tree_cases[0]));
    tcase_add_test(tc, broadcast_vs_controllers);
    tcase_add_loop_test(tc, real_schedules, 0, (int)(sizeof real_cases / sizeof real_cases[0]));
    tcase_add_test(tc, trace_json);
    tcase_add_test(tc, sim_cancel);
    tcase_add_loop_test(tc, throttle_from_schedule, 0, (int)(sizeof throttle_real_cases / sizeof throttle_real_cases[0]));
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return run_suite(sim_suite()); }
