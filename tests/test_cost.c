/* core/elk_cost: every function on small shapes worked out by hand, for
 * both compute models and every topology. The chips are built field by
 * field at 1 GHz, so bytes per cycle equal GB/s and every number below can
 * be checked with pencil and paper against the formula in elk_cost.c (the
 * IPU coefficients are the artifact's, from elk_chip_defaults: matmul 24
 * per 6x16x16 block, 514 per (k,n) block, 113 per n block, 173 per call;
 * elementwise 0.75 n + 290 up to 16432 elements, capped at 8517, then
 * 0.5 n + 300; unary 0.5 n + 200; reduce 1.5 x + 175 capped at 295.25 up to
 * x = 480, then 0.25 x + 175; exchange 0.28 cycles per byte). */
#include <math.h>
#include <pthread.h>

#include "elk_cost.h"
#include "elk_grid.h"
#include "elk_noc.h"
#include "elk_tree.h"
#include "elk_test.h"

#define EPS 1e-9

/* 16 cores on one chip, all-to-all, 1 GHz, ports of 4 B/cycle, HBM 100
 * B/cycle, 64 MAC/cycle and 2 vector elements/cycle per core. */
static elk_chip small_chip(elk_cost_kind kind)
{
    elk_chip c;
    elk_chip_defaults(&c);
    c.chips = 1;
    c.cores_per_chip = 16;
    c.cores = 16;
    c.clock_ghz = 1.0;
    c.link_gbps = 4.0;
    c.mesh_link_gbps = 0;
    c.mesh_rows = c.mesh_cols = 0;
    c.noc_scale = 1.0;
    c.hbm_tbps = 0.1;
    c.hbm_controllers = 4;
    c.hbm_broadcast = 0;
    c.matmul_macs_per_cycle = 64;
    c.vector_elems_per_cycle = 2;
    c.cost.kind = kind;
    c.cost.op_overhead = 200;
    c.profile = ELK_PROFILE_PHYSICAL;
    return c;
}

static elk_chip grid_chip(elk_topology t, int rows, int cols, double mesh_gbps)
{
    elk_chip c = small_chip(ELK_COSTK_PARAMETRIC);
    c.topology = t;
    c.cores = c.cores_per_chip = rows * cols;
    c.mesh_rows = t == ELK_TOPO_RING ? 0 : rows;
    c.mesh_cols = t == ELK_TOPO_RING ? 0 : cols;
    c.mesh_link_gbps = mesh_gbps;
    return c;
}

/* An operator of the given kind over dims (the output indexes the first
 * nout dims). */
static elk_op make_op(elk_op_kind kind, int ndims, const long *dims, int nout)
{
    elk_op op;
    memset(&op, 0, sizeof op);
    op.kind = kind;
    op.ndims = ndims;
    for (int d = 0; d < ndims; d++) op.dim[d] = dims[d];
    op.ntensors = 1;
    op.t[0].role = ELK_TR_OUT;
    op.t[0].naxes = nout;
    for (int a = 0; a < nout; a++) op.t[0].axis[a] = a;
    op.dtype_bytes = 2;
    return op;
}

/* elk_cost_compute: one row per (model, kind, sub-tile). */
static const struct {
    elk_cost_kind model;
    elk_op_kind kind;
    int ndims, nout;
    long sub[4];
    double want;
    const char *why;
} compute_cases[] = {
    /* parametric: points / rate + overhead (unary: two passes) */
    {ELK_COSTK_PARAMETRIC, ELK_OP_MATMUL, 4, 3, {2, 8, 16, 32}, 8192 / 64.0 + 200, "2*8*16*32 MACs / 64 + 200"},
    {ELK_COSTK_PARAMETRIC, ELK_OP_ELEMWISE, 1, 1, {100}, 100 / 2.0 + 200, "100 / 2 + 200"},
    {ELK_COSTK_PARAMETRIC, ELK_OP_UNARY, 1, 1, {100}, 2 * 100 / 2.0 + 200, "2*100 / 2 + 200"},
    {ELK_COSTK_PARAMETRIC, ELK_OP_REDUCE, 2, 1, {4, 100}, 400 / 2.0 + 200, "400 / 2 + 200"},
    /* IPU matmul, the faster orientation: m=6 n=16 k=16 is one block:
     * 24 + 514 + 113 + 173 = 824; swapped, 3 blocks: 72 + 514 + 113 + 173 = 872 */
    {ELK_COSTK_IPU, ELK_OP_MATMUL, 3, 2, {6, 16, 16}, 824, "one 6x16x16 block"},
    {ELK_COSTK_IPU, ELK_OP_MATMUL, 4, 3, {2, 6, 16, 16}, 2 * 824, "batch 2 of one block"},
    /* m=100 n=20 k=40: 17*3*2 blocks: 2448 + 514*6 + 113*2 + 173 = 5931;
     * swapped (m=20 n=100): 4*3*7 = 84 blocks: 2016 + 10794 + 791 + 173 = 13774 */
    {ELK_COSTK_IPU, ELK_OP_MATMUL, 3, 2, {100, 20, 40}, 5931, "m=100 n=20 k=40"},
    {ELK_COSTK_IPU, ELK_OP_MATMUL, 3, 2, {20, 100, 40}, 5931, "m=20 n=100 k=40: the other orientation"},
    /* elementwise 0.75*1000 + 290; past the knee 0.5*20000 + 300; small: the cap never bites */
    {ELK_COSTK_IPU, ELK_OP_ELEMWISE, 1, 1, {1000}, 1040, "0.75*1000 + 290"},
    {ELK_COSTK_IPU, ELK_OP_ELEMWISE, 1, 1, {20000}, 10300, "0.5*20000 + 300"},
    {ELK_COSTK_IPU, ELK_OP_ELEMWISE, 1, 1, {16000}, 8517, "0.75*16000 + 290 = 12290, capped at 8517"},
    {ELK_COSTK_IPU, ELK_OP_UNARY, 1, 1, {1000}, 700, "0.5*1000 + 200"},
    /* reduce 4 rows of 100: outputs 4 (aligned 4), x = 4*100 = 400 <= 480:
     * min(295.25, 1.5*400 + 175) */
    {ELK_COSTK_IPU, ELK_OP_REDUCE, 2, 1, {4, 100}, 295.25, "x = 400, capped"},
    /* 10 rows of 100: aligned to 12, x = 1200 > 480: 0.25*1200 + 175 */
    {ELK_COSTK_IPU, ELK_OP_REDUCE, 2, 1, {10, 100}, 475, "x = 12*100 past the knee"},
    /* 50 rows of 4: 50 > 24 aligns to 48*ceil(50/48) = 96, x = 96*4 = 384: min(295.25, 751) */
    {ELK_COSTK_IPU, ELK_OP_REDUCE, 2, 1, {50, 4}, 295.25, "50 outputs align to 96"},
};

START_TEST(compute)
{
    elk_chip c = small_chip(compute_cases[_i].model);
    elk_op op = make_op(compute_cases[_i].kind, compute_cases[_i].ndims, compute_cases[_i].sub,
                        compute_cases[_i].nout);
    double got = elk_cost_compute(&c, &op, compute_cases[_i].sub);
    ck_assert_msg(fabs(got - compute_cases[_i].want) < EPS, "case %d (%s): %.6f cycles, want %.6f", _i,
                  compute_cases[_i].why, got, compute_cases[_i].want);
}
END_TEST

/* Vector throughput scales IPU times: 4 elements per cycle halves them. */
START_TEST(compute_vector_rate)
{
    elk_chip c = small_chip(ELK_COSTK_IPU);
    long sub[1] = {1000};
    elk_op op = make_op(ELK_OP_ELEMWISE, 1, sub, 1);
    c.vector_elems_per_cycle = 4;
    ck_assert_double_eq_tol(elk_cost_compute(&c, &op, sub), 520, EPS);
    /* a matmul unit twice as wide halves the block term only: 12 + 514 + 113 + 173 */
    long mm[3] = {6, 16, 16};
    elk_op m = make_op(ELK_OP_MATMUL, 3, mm, 2);
    c.matmul_macs_per_cycle = 128;
    ck_assert_double_eq_tol(elk_cost_compute(&c, &m, mm), 812, EPS);
}
END_TEST

START_TEST(vector_add_and_partial_reduce)
{
    elk_chip ipu = small_chip(ELK_COSTK_IPU), par = small_chip(ELK_COSTK_PARAMETRIC);
    ck_assert_double_eq(elk_cost_vector_add(&ipu, 0), 0);
    ck_assert_double_eq_tol(elk_cost_vector_add(&ipu, 1000), 1040, EPS);
    ck_assert_double_eq_tol(elk_cost_vector_add(&par, 1000), 1000 / 2.0 + 200, EPS);
    /* nothing to reduce */
    ck_assert_double_eq(elk_cost_partial_reduce(&ipu, 1, 1000), 0);
    ck_assert_double_eq(elk_cost_partial_reduce(&ipu, 4, 0), 0);
    /* two copies: one elementwise add of 1000/2 outputs: 0.75*500 + 290 */
    ck_assert_double_eq_tol(elk_cost_partial_reduce(&ipu, 2, 1000), 665, EPS);
    /* four copies: reduce 1000 inputs to 250 outputs: 250 aligns to 288,
     * x = 288*4 = 1152: 0.25*1152 + 175 */
    ck_assert_double_eq_tol(elk_cost_partial_reduce(&ipu, 4, 1000), 463, EPS);
    ck_assert_double_eq_tol(elk_cost_partial_reduce(&par, 4, 1000), 1000 / 2.0 + 200, EPS);
}
END_TEST

START_TEST(shift_cpb)
{
    elk_chip c = small_chip(ELK_COSTK_IPU);
    /* the fitted 0.28 is slower than the 4 B/cycle port (0.25) */
    ck_assert_double_eq_tol(elk_cost_shift_cpb(&c), 0.28, EPS);
    /* a 2 B/cycle port is slower than the fitted rate: the port wins */
    c.link_gbps = 2;
    ck_assert_double_eq_tol(elk_cost_shift_cpb(&c), 0.5, EPS);
    /* noc_scale 2 doubles both: 0.14 against 1/4 */
    c.noc_scale = 2;
    ck_assert_double_eq_tol(elk_cost_shift_cpb(&c), 0.25, EPS);
    elk_chip p = small_chip(ELK_COSTK_PARAMETRIC);
    ck_assert_double_eq_tol(elk_cost_shift_cpb(&p), 0.25, EPS);
    /* on a grid a 1 B/cycle mesh link is the bottleneck */
    elk_chip g = grid_chip(ELK_TOPO_MESH, 4, 4, 1.0);
    ck_assert_double_eq_tol(elk_cost_shift_cpb(&g), 1.0, EPS);
}
END_TEST

/* elk_cost_alltoall: 1000 bytes per core. */
static const struct {
    elk_topology topo;
    int rows, cols;
    double mesh_gbps, group, want;
    const char *why;
} a2a_cases[] = {
    {ELK_TOPO_ALL2ALL, 4, 4, 0, 16, 250, "1000 B at 0.25 cycle/B, no bisection"},
    {ELK_TOPO_ALL2ALL, 4, 4, 0, 1, 0, "a group of one moves nothing"},
    /* 8x8 mesh, 2 B/cycle links: port time 1000*0.5 = 500; the whole grid's
     * cut is 8 links: 1000*64/4 bytes cross it: 16000 / 8 / 2 = 1000 */
    {ELK_TOPO_MESH, 8, 8, 2, 64, 1000, "whole 8x8 mesh: bisection-bound"},
    /* a 2x2 sub-block: 2 links carry 2 x 2 members' pairs of 3 others:
     * 1000*4/3 / 2 / 2 = 333 < 500 */
    {ELK_TOPO_MESH, 8, 8, 2, 4, 500, "2x2 block of an 8x8 mesh: port-bound"},
    /* a group larger than the chip counts as the whole chip */
    {ELK_TOPO_MESH, 8, 8, 2, 1000, 1000, "group 1000 on 64 cores: the whole grid"},
    /* torus: the whole grid's cut doubles: 16000 / 16 / 2 = 500 */
    {ELK_TOPO_TORUS, 8, 8, 2, 64, 500, "whole 8x8 torus"},
    /* a sub-block of a torus cuts as a mesh's: the 4x4 tile's middle cut,
     * 4 links, carries 8 x 8 members' pairs of 15 others: 1000*64/15 / 4 / 1 */
    {ELK_TOPO_TORUS, 8, 8, 1, 16, 1000 * 64.0 / 15 / 4, "4x4 block of a torus, 1 B/cycle links"},
    /* a group of 8 is a 2x4 tile: the cut halving its long side is 2 links
     * for 4 x 4 members of 7 others: 1000*16/7 / 2 / 1 (sqrt(8) said 707) */
    {ELK_TOPO_MESH, 8, 8, 1, 8, 1000 * 16.0 / 7 / 2, "2x4 tile of an 8x8 mesh"},
    /* a prime group is a strip (as the simulator lays it out): 1x7, its
     * middle link carries 3 x 4 pairs of 6: 1000*12/6 / 1 / 1 (sqrt(7) said 661) */
    {ELK_TOPO_MESH, 8, 8, 1, 7, 1000 * 12.0 / 6, "a group of 7 on an 8x8 mesh: a 1x7 strip"},
    /* ring of 16: the whole ring's cut is two links: 1000*16/4 / 2 / 2 = 1000 */
    {ELK_TOPO_RING, 1, 16, 2, 16, 1000, "whole ring of 16"},
    /* consecutive cores of a ring are a line, cut by one link: 1000*8/4 / 1 / 2 = 1000 */
    {ELK_TOPO_RING, 1, 16, 2, 8, 1000, "8 consecutive cores of a ring"},
};

START_TEST(alltoall)
{
    elk_chip c = a2a_cases[_i].topo == ELK_TOPO_ALL2ALL
                     ? small_chip(ELK_COSTK_PARAMETRIC)
                     : grid_chip(a2a_cases[_i].topo, a2a_cases[_i].rows, a2a_cases[_i].cols, a2a_cases[_i].mesh_gbps);
    double got = elk_cost_alltoall(&c, 1000, a2a_cases[_i].group);
    ck_assert_msg(fabs(got - a2a_cases[_i].want) < EPS, "case %d (%s): %.6f cycles, want %.6f", _i,
                  a2a_cases[_i].why, got, a2a_cases[_i].want);
}
END_TEST

/* Groups spanning two chips: each chip's cores send the other chip's share
 * of their bytes over its link. */
START_TEST(alltoall_chips)
{
    elk_chip c = small_chip(ELK_COSTK_PARAMETRIC);
    c.chips = 2;
    c.cores_per_chip = 8;
    c.interchip_gbps = 4; /* 4 B/cycle each way per chip */
    /* 8 cores x 1000 x 8/16 = 4000 bytes at 4 B/cycle = 1000 > the port's 250 */
    ck_assert_double_eq_tol(elk_cost_alltoall(&c, 1000, 16), 1000, EPS);
    /* a partly used last chip: 8 + 4 cores, 8 x 4/12 = 4 x 8/12 = 8/3
     * core-units each way (the old rule said 12 x 1/2 over two links, 3) */
    c.cores = 12;
    ck_assert_double_eq_tol(elk_cost_chip_cross(&c), 8.0 / 3.0, EPS);
    ck_assert_double_eq_tol(elk_cost_alltoall(&c, 1000, 12), 1000 * 8.0 / 3.0 / 4, EPS);
    /* three chips of 8, 8 and 2: a full chip's 8 x 10/18 beats the last's 2 x 16/18 */
    c.cores = 18;
    ck_assert_double_eq_tol(elk_cost_chip_cross(&c), 8.0 * 10 / 18, EPS);
    c.cores = 16;
    /* a group inside one chip does not cross */
    ck_assert_double_eq_tol(elk_cost_alltoall(&c, 1000, 8), 250, EPS);
    /* the paper profile's flat factor stands for the chip links instead */
    c.profile |= 1u << ELK_PSW_MULTICHIP;
    ck_assert_double_eq_tol(elk_cost_alltoall(&c, 1000, 16), 250, EPS);
    ck_assert_double_eq(elk_cost_alltoall(&c, 0, 16), 0);
}
END_TEST

START_TEST(hbm_hops)
{
    elk_chip c = small_chip(ELK_COSTK_PARAMETRIC);
    ck_assert_double_eq(elk_cost_hbm_hops(&c), 1);
    elk_chip g = grid_chip(ELK_TOPO_MESH, 4, 8, 4);
    ck_assert_double_eq_tol(elk_cost_hbm_hops(&g), (4 + 8) / 4.0, EPS); /* edges */
    g.hbm_placement = ELK_HBM_CORNERS;
    ck_assert_double_eq_tol(elk_cost_hbm_hops(&g), (4 + 8) / 2.0, EPS);
    g.hbm_placement = ELK_HBM_WEST;
    ck_assert_double_eq_tol(elk_cost_hbm_hops(&g), 8 / 2.0 + 4 / 3.0, EPS);
    elk_chip t = grid_chip(ELK_TOPO_TORUS, 4, 8, 4);
    ck_assert_double_eq_tol(elk_cost_hbm_hops(&t), 0.5 * (4 + 8) / 4.0, EPS);
    /* a ring: every controller stripes over all cores, N/4 whatever K
     * (issue 9: it was N/4/K) */
    elk_chip r = grid_chip(ELK_TOPO_RING, 1, 16, 4);
    for (int k = 1; k <= 8; k *= 2) {
        r.hbm_controllers = k;
        ck_assert_double_eq_tol(elk_cost_hbm_hops(&r), 16 / 4.0, EPS);
    }
}
END_TEST

/* The grid busiest-link memo (per thread, hashed) serves a hundred tiles
 * of two grids asked in any order with each one's own value: a thread
 * of its own (an empty memo) computes every value first, and this thread
 * asks them interleaved, shuffled, twice. A wafer's prefill asks about a
 * hundred tiles; the list it replaced kept 32 and missed in cycles. */
enum { MEMO_RS = 150 };
typedef struct {
    elk_chip g[2];
    double ref[2][MEMO_RS + 1];
} memo_case;

static void *memo_ref_main(void *arg)
{
    memo_case *mc = arg;
    for (int k = 0; k < 2; k++)
        for (int r = 1; r <= MEMO_RS; r++) mc->ref[k][r] = elk_cost_preload_rate(&mc->g[k], r);
    return NULL;
}

START_TEST(preload_rate_memo_many_tiles)
{
    memo_case mc;
    mc.g[0] = grid_chip(ELK_TOPO_MESH, 32, 48, 4);
    mc.g[0].hbm_controllers = 8;
    mc.g[1] = grid_chip(ELK_TOPO_TORUS, 24, 40, 2);
    mc.g[1].hbm_controllers = 6;
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, memo_ref_main, &mc), 0);
    ck_assert_int_eq(pthread_join(th, NULL), 0);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < 2 * MEMO_RS; i++) {
            int k = i & 1, r = 1 + (int)((long)(i / 2) * 97 % MEMO_RS); /* 97 is prime to 150: each r once */
            double v = elk_cost_preload_rate(&mc.g[k], r);
            ck_assert_msg(v == mc.ref[k][r], "grid %d, r %d, pass %d: %.17g against %.17g", k, r, pass, v,
                          mc.ref[k][r]);
        }
}
END_TEST

START_TEST(preload_rate)
{
    /* all-to-all: 16 ports of 4 B/cycle, each replica lands in one */
    elk_chip c = small_chip(ELK_COSTK_PARAMETRIC);
    ck_assert_double_eq_tol(elk_cost_preload_rate(&c, 1), 64, EPS);
    ck_assert_double_eq_tol(elk_cost_preload_rate(&c, 2), 32, EPS);
    ck_assert_double_eq_tol(elk_cost_preload_rate(&c, 0.5), 64, EPS); /* replication below 1 is 1 */
    /* 4x4 mesh, 4 B/cycle links, edges: 48 links, 2 hops; 12 controllers,
     * one on each perimeter router, each sending 1/12 of the bytes to every
     * core (1/192 per core). The busiest link (issue9_edges_busiest_link)
     * is the south link out of (0, 1): its north router's 12 cores below it,
     * and the 3 each of column 1's routers X first from (0, 0) and (0, 3)
     * bring, 18/192 of the bytes: 4 x 192/18 = 128/3.
     * r = 1: min(64, 48*4/3 = 64, 128/3) */
    elk_chip g = grid_chip(ELK_TOPO_MESH, 4, 4, 4);
    g.hbm_controllers = 12;
    ck_assert_double_eq_tol(elk_cost_preload_rate(&g, 1), 128 / 3.0, EPS);
    /* r = 3: min(64/3, 192/5 = 38.4, 24): the ports */
    ck_assert_double_eq_tol(elk_cost_preload_rate(&g, 3), 64 / 3.0, EPS);
    /* one broadcasting controller at (2, 0), X first: its east link carries
     * the 12 cores of columns 1-3: 4 x 16/12 (issue 9: it was one link, 4) */
    g.hbm_broadcast = 1;
    ck_assert_double_eq_tol(elk_cost_preload_rate(&g, 1), 16 / 3.0, EPS);
    /* the same on a torus leaves both ways round: column 1 and half of the
     * tie, column 2, east: 6 cores of 16, 4 x 16/6 (it was 8) */
    elk_chip t = grid_chip(ELK_TOPO_TORUS, 4, 4, 4);
    t.hbm_broadcast = 1;
    ck_assert_double_eq_tol(elk_cost_preload_rate(&t, 1), 32 / 3.0, EPS);
    /* corners, links 1 B/cycle: each corner's controller sends its quarter
     * X first, the east link out of (0, 0) carrying columns 1-3, 12 of its
     * 16 cores: 1 x 64/12, against 48/3 = 16 and 64 (it was 8 entry links) */
    elk_chip k = grid_chip(ELK_TOPO_MESH, 4, 4, 1);
    k.hbm_placement = ELK_HBM_CORNERS;
    ck_assert_double_eq_tol(elk_cost_preload_rate(&k, 1), 16 / 3.0, EPS);
    /* one core on a mesh, ring or torus: no links, its controllers feed its
     * own router, so its 4 B/cycle port (it was 0: no schedule fit) */
    static const elk_topology one[] = {ELK_TOPO_MESH, ELK_TOPO_TORUS, ELK_TOPO_RING};
    for (size_t q = 0; q < sizeof one / sizeof one[0]; q++) {
        elk_chip o = grid_chip(one[q], 1, 1, 4);
        o.hbm_controllers = 1;
        ck_assert_double_eq_tol(elk_cost_preload_rate(&o, 1), 4, EPS);
    }
}
END_TEST

/* A ring of 16, links 4 B/cycle, ports 4 B/cycle x 16, K controllers
 * striping (issue 9). Unique bytes/cycle = min(ports 64, links 32 x 4 /
 * (r - 1 + 16/4) = 32 at r = 1, the links next to the controllers: 4 x K / S
 * with S = m (N - 1) / (2N) - m (m - 1) / (2K) = 15m/32 - m(m-1)/(2K),
 * m = ceil(K/2)):
 * K = 1: S = 15/32, 32/15 links, 128/15; K = 2: S = 15/32, 64/15 links,
 * 256/15; K = 4: S = 30/32 - 1/4 = 11/16, 64/11 links, 256/11 (test_sim's
 * ring_striped_preload simulates both: 3000 and 1100 cycles for 6400 B on
 * 1 B/cycle links); K = 8: S = 60/32 - 3/4 = 9/8, 64/9 links, 256/9. Before
 * the N - 1 (a controller's own core and the tie opposite it) S was m/2 -
 * m(m-1)/(2K): 8, 16, 21.33 and the links' 25.6, 6-11% slow. */
static const struct {
    int k;
    double rate;
} ring_rate_cases[] = {{1, 128 / 15.0}, {2, 256 / 15.0}, {4, 256 / 11.0}, {8, 256 / 9.0}};

START_TEST(ring_preload_rate)
{
    elk_chip r = grid_chip(ELK_TOPO_RING, 1, 16, 4);
    r.hbm_controllers = ring_rate_cases[_i].k;
    ck_assert_double_eq_tol(elk_cost_preload_rate(&r, 1), ring_rate_cases[_i].rate, EPS);
}
END_TEST

/* Issue 9: preloads from many `edges` controllers, where the entry term
 * 2(R + C) links (twice on a torus) was the planner's bound and the routes'
 * busiest link was not (16 x 16, 192 controllers: 4096 B/cycle estimated,
 * 2881 simulated on the mesh, 8192 against 2811 on the torus). Now the
 * busiest link of the simulator's routes, exactly. By hand where every
 * perimeter router has one controller (K = P = 2(R + C) - 4), each sending
 * 1/(K RC) of the bytes to every core, X first from the west and east
 * columns, Y first from the other north and south routers: the east link
 * after column x of a row carries its west router's traffic to the R(C - 1 -
 * x) cores beyond, and the C - 1 - x of the row beyond from each of the 2x
 * north and south routers of columns 1..x, (C - 1 - x)(R + 2x); the south
 * link after row y of an inner column (R - 1 - y)(C + 2(y + 1)) the same
 * way. Rate = link x K RC / max.
 * - 4 x 4: rows 12, columns 18 (y = 0): 4 x 12 x 16 / 18 = 128/3;
 * - 8 x 16, K = 44: rows (15 - x)(8 + 2x) = 180 at x = 5, columns 126:
 *   1 x 44 x 128 / 180;
 * - 16 x 16, K = 60: rows 264, columns 288 at y = 3: 64 x 60 x 256 / 288
 *   (the detailed simulator: 3413.3);
 * - the torus of 4 x 4 (test_topo): 12/192 on the south link out of (0, 1),
 *   4 x 16 = 64.
 * Not by hand, the simulator's own values (test_sim's edges_preload_exact
 * replays each): 16 x 16 with 192 controllers, 4 on 12 routers and 3 on
 * 48, 2880.70 (34,714 cycles per 100 MB, VALIDATION.md's hand analysis
 * bounded it at 2,700-3,400); its torus routes like the mesh (its own
 * shortest routes give 2811.2, 12% below the mesh at 16 controllers), so
 * the two are equal. */
static const struct {
    const char *name;
    elk_topology topo;
    int rows, cols, ctrls;
    double link, rate;
} edges_cases[] = {
    {"4x4 mesh, 12 controllers", ELK_TOPO_MESH, 4, 4, 12, 4, 128 / 3.0},
    {"4x4 torus, 12 controllers", ELK_TOPO_TORUS, 4, 4, 12, 4, 64},
    {"8x16 mesh, 44 controllers", ELK_TOPO_MESH, 8, 16, 44, 1, 44 * 128 / 180.0},
    {"16x16 mesh, 60 controllers", ELK_TOPO_MESH, 16, 16, 60, 64, 64 * 60 * 256 / 288.0},
    {"16x16 torus, 60 controllers", ELK_TOPO_TORUS, 16, 16, 60, 64, 64 * 60 * 256 / 288.0},
    {"16x16 mesh, 192 controllers", ELK_TOPO_MESH, 16, 16, 192, 64, 2880.7032967},
    {"16x16 torus, 192 controllers", ELK_TOPO_TORUS, 16, 16, 192, 64, 2880.7032967},
};

START_TEST(issue9_edges_busiest_link)
{
    elk_chip g = grid_chip(edges_cases[_i].topo, edges_cases[_i].rows, edges_cases[_i].cols, edges_cases[_i].link);
    g.link_gbps = 1e6; /* ports never bind */
    g.hbm_controllers = edges_cases[_i].ctrls;
    double rate = elk_cost_preload_rate(&g, 1);
    ck_assert_msg(fabs(rate - edges_cases[_i].rate) <= 1e-6 * edges_cases[_i].rate, "%s: %.9g, expected %.9g",
                  edges_cases[_i].name, rate, edges_cases[_i].rate);
    /* never above the old entry term, 2(R + C) links (twice on a torus) */
    double entry = 2.0 * (g.mesh_rows + g.mesh_cols) * (g.topology == ELK_TOPO_TORUS ? 2 : 1) * edges_cases[_i].link;
    ck_assert(rate <= entry * (1 + 1e-12));
    /* a torus never delivers less than the mesh of its size */
    if (g.topology == ELK_TOPO_TORUS) {
        elk_chip m = g;
        m.topology = ELK_TOPO_MESH;
        ck_assert(rate >= elk_cost_preload_rate(&m, 1) * (1 - 1e-12));
    }
}
END_TEST

/* elk_grid_beside on a 4 x 4 mesh whose mesh links never bind: an
 * exchange over all 16 cores and a preload share only the cores' ingress
 * ports (capacity P bytes per cycle each, 1 byte of each per byte
 * delivered), so the preload at its pace xp leaves the exchange P - xp
 * until both reach their shares of the port: P in the ratio of the
 * templates' byte-fair weights (elk_net_tmpl_end: each counted per byte on
 * its most loaded port or NoC link, which here is a mesh link that never
 * binds; the weights follow loads, not capacities, so that no bandwidth
 * knob flips them). */
START_TEST(grid_beside_ports)
{
    elk_chip g = grid_chip(ELK_TOPO_MESH, 4, 4, 1e6);
    g.hbm_tbps = 1e3; /* HBM never binds either */
    double P = elk_chip_link_bytes_per_cycle(&g), solo = 0, pre = 0;
    double f = elk_grid_beside(&g, 16, 1, P / 4, &pre, &solo);
    ck_assert_msg(solo > 0 && solo <= P * (1 + 1e-12), "solo %.9g, port %.9g", solo, P);
    double want = solo / fmin(solo, P - P / 4);
    ck_assert_msg(fabs(f - fmax(1, want)) <= 1e-9 * want, "f %.9g, expected %.9g", f, want);
    ck_assert(fabs(pre - P / 4) <= 1e-9 * P);
    ck_assert_msg(f > 1.2, "the port binds the exchange: f %.9g", f);
    /* above their shares the port splits in the weights' ratio */
    elk_noc nc;
    elk_error err;
    ck_assert(elk_noc_build(&nc, &g, ELK_SIM_AUTO, 0, 1, &err) == ELK_OK);
    elk_tree tr;
    elk_tree_init(&tr);
    int te = elk_noc_exchange(&nc, 16), tp = elk_tree_preload(&tr, &nc, -1, 1, 0, INFINITY);
    ck_assert(te >= 0 && tp >= 0);
    double we = elk_net_tmpls(nc.net)[te].weight, wp = elk_net_tmpls(nc.net)[tp].weight;
    elk_tree_free(&tr);
    elk_noc_free(&nc);
    double pshare = P * wp / (we + wp), eshare = P * we / (we + wp);
    f = elk_grid_beside(&g, 16, 1, P, &pre, &solo);
    ck_assert_msg(fabs(pre - pshare) <= 1e-9 * P, "pre %.9g, expected %.9g", pre, pshare);
    ck_assert(fabs(f - fmax(1, solo / eshare)) <= 1e-9 * f);
    /* a slower preload never slows the exchange more; at no pace, not at all */
    double last = 0;
    for (double x = 1e-9 * P; x <= 2 * P; x *= 2) {
        double fx = elk_grid_beside(&g, 16, 1, x, &pre, NULL);
        ck_assert(fx >= 1 && fx >= last * (1 - 1e-12) && pre <= x * (1 + 1e-12));
        if (x < 1e-6 * P) ck_assert(fx < 1 + 1e-5);
        last = fx;
    }
    /* not a grid, or no preload: 0 */
    elk_chip r = grid_chip(ELK_TOPO_RING, 4, 4, 1e6);
    ck_assert(elk_grid_beside(&r, 16, 1, P / 4, NULL, NULL) == 0);
    ck_assert(elk_grid_beside(&g, 16, 1, 0, NULL, NULL) == 0);
}
END_TEST

/* elk_grid_beside's per-thread memo once keyed a preload by its
 * replica tile alone, and two replications of one tile (3.6 and 4.4 both
 * replicate in 2 x 2 tiles) got whichever answer it had seen first: one
 * policy's estimate moved with the policies run before it on the same
 * thread. Each ask here runs on a fresh thread (fresh memos): the answer
 * at 4.4 must not depend on an ask at 3.6 before it. */
typedef struct {
    const elk_chip *c;
    double first_r, r, xp;
    double f, pre;
} beside_ask;

static void *beside_thread(void *v)
{
    beside_ask *a = v;
    if (a->first_r > 0) elk_grid_beside(a->c, 8, a->first_r, a->xp, NULL, NULL);
    a->f = elk_grid_beside(a->c, 8, a->r, a->xp, &a->pre, NULL);
    return NULL;
}

static beside_ask beside_on_thread(const elk_chip *c, double first_r, double r, double xp)
{
    beside_ask a = {c, first_r, r, xp, 0, 0};
    pthread_t t;
    ck_assert(pthread_create(&t, NULL, beside_thread, &a) == 0);
    ck_assert(pthread_join(t, NULL) == 0);
    return a;
}

START_TEST(grid_beside_history)
{
    elk_chip g = grid_chip(ELK_TOPO_MESH, 8, 8, 16);
    g.hbm_tbps = 1e3;   /* HBM never binds */
    g.link_gbps = 64.0; /* nor the ports: the mesh links do */
    double xp = 0.5 * elk_chip_mesh_link_bytes_per_cycle(&g);
    beside_ask alone = beside_on_thread(&g, 0, 4.4, xp), after = beside_on_thread(&g, 3.6, 4.4, xp);
    beside_ask other = beside_on_thread(&g, 0, 3.6, xp);
    ck_assert_msg(alone.f > 1, "the two transfers share links here: f %.9g", alone.f);
    ck_assert_msg(other.f != alone.f || other.pre != alone.pre, "3.6 and 4.4 are different asks");
    ck_assert_msg(after.f == alone.f && after.pre == alone.pre, "4.4 after 3.6: f %.17g pre %.17g, alone %.17g %.17g",
                  after.f, after.pre, alone.f, alone.pre);
}
END_TEST

/* The memo's key once left out the exchange engine's rate: under the IPU
 * cost kind it is noc_scale over the cost's cycles per byte, so --link-gbps
 * and --noc-scale each raised 25% give one port and two engines, and the
 * pair built for one chip answered for the other (elk check point 1555 of
 * --seed 1: Elk-Full at --link-gbps 6.875 moved by a cycle with the points
 * its thread had timed before). Each ask runs on a fresh thread: a chip's
 * answer after the other's must be its answer alone. */
typedef struct {
    const elk_chip *first, *c;
    double f, pre, solo;
} engine_ask;

static void *engine_thread(void *v)
{
    engine_ask *a = v;
    if (a->first) elk_grid_beside(a->first, 16, 1, 1.0, NULL, NULL);
    a->f = elk_grid_beside(a->c, 16, 1, 1.0, &a->pre, &a->solo);
    return NULL;
}

static engine_ask engine_on_thread(const elk_chip *first, const elk_chip *c)
{
    engine_ask a = {first, c, 0, 0, 0};
    pthread_t t;
    ck_assert(pthread_create(&t, NULL, engine_thread, &a) == 0);
    ck_assert(pthread_join(t, NULL) == 0);
    return a;
}

START_TEST(grid_beside_engine_key)
{
    /* 4 x 4, ports and mesh links (the port's rate: no mesh_link_gbps) of
     * 80 B/cycle either way (64 x 1.25 and 80 x 1); the engines, 12.5 and
     * 10 B/cycle (the scale over 0.1 cycles a byte), bind the exchange; HBM
     * never does */
    elk_chip a = grid_chip(ELK_TOPO_MESH, 4, 4, 0), b;
    a.cost.kind = ELK_COSTK_IPU;
    a.cost.xchg_cycles_per_byte = 0.1;
    a.hbm_tbps = 1e3;
    b = a;
    a.link_gbps = 64;
    a.noc_scale = 1.25;
    b.link_gbps = 80;
    b.noc_scale = 1.0;
    ck_assert(elk_chip_link_bytes_per_cycle(&a) == elk_chip_link_bytes_per_cycle(&b));
    engine_ask alone_a = engine_on_thread(NULL, &a), alone_b = engine_on_thread(NULL, &b);
    ck_assert_msg(fabs(alone_a.solo - 12.5) < 1e-9 && fabs(alone_b.solo - 10) < 1e-9, "solo %.9g and %.9g",
                  alone_a.solo, alone_b.solo);
    engine_ask b_after = engine_on_thread(&a, &b), a_after = engine_on_thread(&b, &a);
    ck_assert_msg(b_after.solo == alone_b.solo && b_after.f == alone_b.f && b_after.pre == alone_b.pre,
                  "b after a: solo %.17g f %.17g, alone %.17g %.17g", b_after.solo, b_after.f, alone_b.solo,
                  alone_b.f);
    ck_assert_msg(a_after.solo == alone_a.solo && a_after.f == alone_a.f && a_after.pre == alone_a.pre,
                  "a after b: solo %.17g f %.17g, alone %.17g %.17g", a_after.solo, a_after.f, alone_a.solo,
                  alone_a.f);
}
END_TEST

/* A torus holds every link of its mesh, so an exchange beside a preload
 * is never slower on it than on the mesh of the same size: where its own
 * (shortest, wrap-around) routes make the pair share more links, it takes
 * the mesh's (point 1997 of `elk check --seed 1`: big-sram with 2
 * controllers, Static 1.4% slower on the torus). Its time alone stays the
 * torus's. Per case: the grid, controllers, the exchange group g, the
 * replication r and the preload's pace as a fraction of a mesh link; case
 * 2 (16-core groups beside 4 replicas) fails on the torus's own routes:
 * 0.1267 cycles a byte beside the preload, the mesh 0.1222. The preload
 * beside the exchange is never slower either: routes chosen for the
 * exchange alone gave it the torus's faster exchange and a slower preload
 * (point 1509: Basic's mesh schedule 0.29% slower on the torus). */
static const struct {
    int rows, cols, ctrl;
    double g, r, pace;
} torus_pair_cases[] = {
    {8, 8, 1, 64, 1, 0.5}, {8, 8, 2, 64, 1, 0.9}, {8, 8, 2, 16, 4, 0.5}, {8, 8, 4, 4, 16, 0.3},
    {4, 8, 2, 32, 2, 0.8}, {6, 6, 2, 36, 1, 1.0}, {8, 8, 16, 8, 8, 0.6}, {4, 4, 1, 2, 1, 0.9},
};

START_TEST(grid_beside_torus_never_slower)
{
    int i = _i;
    elk_chip t = grid_chip(ELK_TOPO_TORUS, torus_pair_cases[i].rows, torus_pair_cases[i].cols, 16);
    t.hbm_tbps = 1e3;
    t.link_gbps = 64.0; /* the mesh links bind, not the ports */
    t.hbm_controllers = torus_pair_cases[i].ctrl;
    elk_chip m = t;
    m.topology = ELK_TOPO_MESH;
    double g = torus_pair_cases[i].g, r = torus_pair_cases[i].r;
    double xp = torus_pair_cases[i].pace * elk_chip_mesh_link_bytes_per_cycle(&t);
    double st = 0, sm = 0, pt = 0, pm = 0, s0 = 0;
    double ft = elk_grid_beside(&t, g, r, xp, &pt, &st), fm = elk_grid_beside(&m, g, r, xp, &pm, &sm);
    ck_assert(ft >= 1 && fm >= 1 && st > 0 && sm > 0);
    /* time per byte beside the preload: 1 / (solo / f) */
    ck_assert_msg(ft / st <= fm / sm * (1 + 1e-12), "case %d: torus %.9g cycles a byte beside, mesh %.9g", i, ft / st,
                  fm / sm);
    /* alone (a preload at no pace), the torus's own routes */
    elk_grid_beside(&t, g, r, 1e-12 * xp, NULL, &s0);
    ck_assert_msg(st == s0, "case %d: solo %.17g, alone %.17g", i, st, s0);
    ck_assert(pt > 0 && pt <= xp * (1 + 1e-12));
    /* nor the preload beside it: the pair takes the torus's routes only
     * where they are no worse for either */
    ck_assert_msg(pt >= pm * (1 - 1e-12), "case %d: preload beside %.9g on the torus, %.9g on the mesh", i, pt, pm);
}
END_TEST

START_TEST(preload_cycles)
{
    elk_chip c = small_chip(ELK_COSTK_PARAMETRIC);
    ck_assert_double_eq(elk_cost_preload_cycles(&c, 0, 100), 0);
    /* 1000 unique bytes: HBM 1000/100 = 10; the fabric 1000/64 = 15.625 */
    ck_assert_double_eq_tol(elk_cost_preload_cycles(&c, 1000, 1000), 15.625, EPS);
    /* delivered twice (r = 2): 1000/32 */
    ck_assert_double_eq_tol(elk_cost_preload_cycles(&c, 1000, 2000), 31.25, EPS);
    /* slow HBM (10 B/cycle) is the bound: 100 */
    c.hbm_tbps = 0.01;
    ck_assert_double_eq_tol(elk_cost_preload_cycles(&c, 1000, 1000), 100, EPS);
}
END_TEST

/* The paper profile's unfused charge: nothing without the switch or the
 * counts; with them, the floors of the parts. */
START_TEST(unfused)
{
    elk_chip c = small_chip(ELK_COSTK_IPU);
    long dims[2] = {16, 100}; /* 1600 points over 16 cores: 100 each; 16 rows: 1 each */
    elk_op op = make_op(ELK_OP_ELEMWISE, 2, dims, 1);
    op.unf_elem = 2;
    op.unf_row = 1;
    double comp, syncs, bytes;
    elk_cost_unfused(&c, &op, &comp, &syncs, &bytes);
    ck_assert(comp == 0 && syncs == 0 && bytes == 0); /* physical profile: no switch */
    c.profile |= 1u << ELK_PSW_UNFUSED;
    elk_cost_unfused(&c, &op, &comp, &syncs, &bytes);
    /* elementwise on 100: 0.75*100 + 290 = 365, twice; on one row: 290.75 */
    ck_assert_double_eq_tol(comp, 2 * 365 + 290.75, EPS);
    ck_assert_double_eq(syncs, 3);
    ck_assert_double_eq(bytes, 0);
    /* a slice of half the points (50 per core, 2 B each) at 0.28 cycle/B
     * plus a sync: 28 + 118; six syncs; 100 bytes through the port */
    op.unf_elem = op.unf_row = 0;
    op.unf_slice = 1;
    elk_cost_unfused(&c, &op, &comp, &syncs, &bytes);
    ck_assert_double_eq_tol(comp, 50 * 2 * 0.28 + 118, EPS);
    ck_assert_double_eq(syncs, 6);
    ck_assert_double_eq(bytes, 100);
}
END_TEST

/* Invariants on bigger shapes: more work never costs less. */
START_TEST(monotone)
{
    for (int kind = 0; kind < 2; kind++) {
        elk_chip c = small_chip(kind ? ELK_COSTK_PARAMETRIC : ELK_COSTK_IPU);
        double prev = 0;
        for (long m = 1; m <= 4096; m *= 2) {
            long sub[3] = {m, 512, 256};
            elk_op op = make_op(ELK_OP_MATMUL, 3, sub, 2);
            double t = elk_cost_compute(&c, &op, sub);
            ck_assert_msg(t >= prev && t > 0, "kind %d m %ld: %g after %g", kind, m, t, prev);
            prev = t;
        }
        prev = 0;
        for (double b = 1; b <= 1e6; b *= 10) {
            double t = elk_cost_preload_cycles(&c, b, 2 * b);
            ck_assert(t >= prev);
            prev = t;
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cost");
    TCase *t = tcase_create("cost");
    tcase_add_loop_test(t, compute, 0, (int)(sizeof compute_cases / sizeof compute_cases[0]));
    tcase_add_test(t, compute_vector_rate);
    tcase_add_test(t, vector_add_and_partial_reduce);
    tcase_add_test(t, shift_cpb);
    tcase_add_loop_test(t, alltoall, 0, (int)(sizeof a2a_cases / sizeof a2a_cases[0]));
    tcase_add_test(t, alltoall_chips);
    tcase_add_test(t, hbm_hops);
    tcase_add_test(t, preload_rate);
    tcase_add_loop_test(t, ring_preload_rate, 0, (int)(sizeof ring_rate_cases / sizeof ring_rate_cases[0]));
    tcase_add_loop_test(t, issue9_edges_busiest_link, 0, (int)(sizeof edges_cases / sizeof edges_cases[0]));
    tcase_add_test(t, grid_beside_ports);
    tcase_add_test(t, preload_rate_memo_many_tiles);
    tcase_add_test(t, grid_beside_history);
    tcase_add_test(t, grid_beside_engine_key);
    tcase_add_loop_test(t, grid_beside_torus_never_slower, 0,
                        (int)(sizeof torus_pair_cases / sizeof torus_pair_cases[0]));
    tcase_add_test(t, preload_cycles);
    tcase_add_test(t, unfused);
    tcase_add_test(t, monotone);
    suite_add_tcase(s, t);
    return run_suite(s);
}
