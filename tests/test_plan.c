/* core/elk_plan and core/elk_cost: plan volumes on a hand-checked 4-core
 * case, Pareto-front invariants, the plan cache, and the error for an SRAM
 * too small for any plan. */
#include <math.h>

#include "elk_cost.h"
#include "elk_plan.h"
#include "elk_plan_cache.h"
#include "elk_plan_art.h"
#include "elk_test.h"

/* A 4-core all-to-all chip with the parametric cost model and round
 * numbers: 1 GHz, 1 B/cycle per core port, 1 element/cycle vector rate,
 * 4 MAC/cycle, no per-op overhead, 10-cycle syncs. */
static void chip4(elk_chip *c)
{
    elk_chip_defaults(c);
    c->chips = 1;
    c->cores_per_chip = 4;
    c->cores = 4;
    c->sram_kib = 4;
    c->reserved_kib = 0;
    c->clock_ghz = 1;
    c->matmul_macs_per_cycle = 4;
    c->vector_elems_per_cycle = 1;
    c->link_gbps = 1;
    c->sync_cycles = 10;
    c->hbm_tbps = 0.001;
    c->hbm_controllers = 1;
    c->remote_access_pauses = 0;
    c->cost.kind = ELK_COSTK_PARAMETRIC;
    c->cost.op_overhead = 0;
}

/* out[h] = x[h] * w[h] over h = 1024: the only plan that uses >= 90% of the
 * cores without padding is p = 4 (every tensor indexes h, so nothing is
 * replicated or rotated). Per core: 256 elements of each tensor. */
static void op_scale(elk_op *op)
{
    memset(op, 0, sizeof *op);
    snprintf(op->name, sizeof op->name, "scale");
    op->kind = ELK_OP_ELEMWISE;
    op->ndims = 1;
    op->dim[0] = 1024;
    op->dimname[0][0] = 'h';
    op->ntensors = 3;
    for (int t = 0; t < 3; t++) {
        op->t[t].naxes = 1;
        op->t[t].axis[0] = 0;
    }
    op->t[0].role = ELK_TR_OUT;
    op->t[1].role = ELK_TR_ACT;
    op->t[2].role = ELK_TR_WEIGHT;
    op->dtype_bytes = 2;
    op->weight_bytes = op->hbm_bytes = 2048;
}

/* A small matmul C[m,n] = A[m,k] B[k,n] with B a weight: m=8, n=32, k=16. */
static void op_mm(elk_op *op)
{
    memset(op, 0, sizeof *op);
    snprintf(op->name, sizeof op->name, "mm");
    op->kind = ELK_OP_MATMUL;
    op->ndims = 3;
    long d[3] = {8, 32, 16};
    const char *nm = "mnk";
    for (int i = 0; i < 3; i++) {
        op->dim[i] = d[i];
        op->dimname[i][0] = nm[i];
    }
    op->ntensors = 3;
    op->t[0] = (elk_tensor){ELK_TR_OUT, 2, {0, 1}};
    op->t[1] = (elk_tensor){ELK_TR_ACT, 2, {0, 2}};
    op->t[2] = (elk_tensor){ELK_TR_WEIGHT, 2, {2, 1}};
    op->dtype_bytes = 2;
    op->weight_bytes = op->hbm_bytes = 16 * 32 * 2;
}

/* out[m] = sum_k x[m, k], k = 64: a norm's statistics at batch m. */
static void op_red(elk_op *op, long m)
{
    memset(op, 0, sizeof *op);
    snprintf(op->name, sizeof op->name, "stat");
    op->kind = ELK_OP_REDUCE;
    op->ndims = 2;
    op->dim[0] = m;
    op->dim[1] = 64;
    op->dimname[0][0] = 'm';
    op->dimname[1][0] = 'k';
    op->ntensors = 2;
    op->t[0] = (elk_tensor){ELK_TR_OUT, 1, {0}};
    op->t[1] = (elk_tensor){ELK_TR_ACT, 2, {0, 1}};
    op->dtype_bytes = 2;
}

static int whole_k_seen;
static long whole_k_m;
static void note_whole_k(const elk_plan *pl, void *ctx)
{
    (void)ctx;
    whole_k_seen |= pl->p[1] == 1 && pl->p[0] == whole_k_m;
}

/* The reduce op_red(m) on c: every plan of its space passed to cb before
 * dominance pruning, then its menu's fastest execution. */
static double red_fastest(const elk_chip *c, long m, elk_plan_cb cb)
{
    elk_op op;
    op_red(&op, m);
    elk_plan_set set;
    elk_error err;
    elk_plan_opts all = {.all_cb = cb};
    ck_assert_msg(elk_plan_art_set(c, &op, elk_chip_sram_bytes(c), &set, &all, &err) == ELK_OK, "%s", err.msg);
    elk_plan_set_free(&set);
    ck_assert(elk_plan_art_set(c, &op, elk_chip_sram_bytes(c), &set, NULL, &err) == ELK_OK);
    elk_menu mn;
    ck_assert(elk_menu_build(c, &op, &set, &mn, &err) == ELK_OK);
    double f = mn.e[mn.n - 1].exe;
    elk_menu_free(&mn);
    elk_plan_set_free(&set);
    return f;
}

/* The utilisation floor is a share of the cores a split of the output's
 * dims can use, not of every core. On 4 cores the floor was ceil(0.52 x 4)
 * = 3 cores at m = 1 and ceil(0.85 x 4) = 4 at m = 2, so both had to split
 * the reduced k and pay a partial sum; now it is 1 and 2 cores, each m
 * has a plan that splits only m, and the fastest execution does not get
 * faster when m doubles (elk check's batch-monotone: the tiny model on
 * wse2 at batch 7 took 0.127 ms, at batch 14 0.110). */
START_TEST(floor_from_output_parallelism)
{
    elk_chip c;
    chip4(&c);
    double fastest[3] = {0};
    for (long m = 1; m <= 2; m++) {
        whole_k_seen = 0;
        whole_k_m = m;
        fastest[m] = red_fastest(&c, m, note_whole_k);
        ck_assert_msg(whole_k_seen, "m = %ld: no plan that leaves k whole", m);
    }
    ck_assert_double_le(fastest[1], fastest[2]);
}
END_TEST

static int whole_k_p0;
static void note_whole_k_p0(const elk_plan *pl, void *ctx)
{
    (void)ctx;
    if (pl->p[1] == 1 && pl->p[0] > whole_k_p0) whole_k_p0 = pl->p[0];
}

/* On a grid the output's reach is what fits the mesh's axes: a 2 x 2 mesh
 * lays m out on one axis, so a plan that leaves k whole uses 2 cores, not
 * 4. The floor was ceil(0.52 x 4) = 3 cores at m = 4 (4 cores of m do not
 * fit an axis), so every plan split k; now it is 2, and m = 4 and m = 8
 * both run k whole on 2 cores (elk check --points 2000 --seed 1, point
 * 1354: the tiny model's decode Q.K^T on a 128-core 8 x 16 mesh split its
 * reduced dim 4 ways at batch 1, 4.32 us, and ran it whole at batch 2,
 * 2.33 us). */
START_TEST(floor_from_output_parallelism_on_grid)
{
    elk_chip c;
    chip4(&c);
    c.topology = ELK_TOPO_MESH;
    c.mesh_rows = c.mesh_cols = 2;
    double fastest[2] = {0};
    for (int k = 0; k < 2; k++) {
        whole_k_p0 = 0;
        fastest[k] = red_fastest(&c, 4L << k, note_whole_k_p0);
        ck_assert_int_eq(whole_k_p0, 2);
    }
    ck_assert_double_le(fastest[0], fastest[1]);
}
END_TEST

START_TEST(scale_plan_by_hand)
{
    elk_chip c;
    chip4(&c);
    elk_op op;
    op_scale(&op);
    elk_plan_set set;
    elk_error err;
    ck_assert_msg(elk_plan_art_set(&c, &op, elk_chip_sram_bytes(&c), &set, NULL, &err) == ELK_OK, "%s", err.msg);
    ck_assert_int_eq(set.nplans, 1);
    const elk_plan *p = &set.plans[0];
    ck_assert_int_eq(p->p[0], 4);
    /* 3 tensors x 256 elements x 2 bytes */
    ck_assert_double_eq(p->hot, 1536);
    /* parametric elementwise: n / rate = 256 cycles */
    ck_assert_double_eq(p->comp, 256);
    /* the output slice (512 B) is re-laid out for the consumer, one sync */
    ck_assert_double_eq(p->rd_bytes, 512);
    ck_assert_double_eq(p->rs_bytes, 0);
    ck_assert_double_eq(p->shift_bytes, 0);
    ck_assert_double_eq(p->syncs, 1);
    /* all-to-all: 512 B through a 1 B/cycle port */
    ck_assert_double_eq(elk_plan_xcycles(&c, p), 512);
    /* one preload-state layout: the weight's 256 elements, delivered to 4 cores */
    ck_assert_int_eq(p->nopt, 1);
    ck_assert_double_eq(set.opts[p->opt0].cold, 512);
    ck_assert_double_eq(set.opts[p->opt0].deliv, 2048);
    ck_assert_double_eq(set.opts[p->opt0].dist_bytes, 0);

    elk_menu m;
    ck_assert(elk_menu_build(&c, &op, &set, &m, &err) == ELK_OK);
    ck_assert_int_eq(m.n, 1);
    ck_assert_double_eq(m.e[0].exe, 256 + 512 + 10);
    ck_assert_double_eq(m.min_cold, 512);
    elk_menu_free(&m);
    elk_plan_set_free(&set);
}
END_TEST

/* The matmul's front: strictly more space for strictly less time, every
 * kept plan inside SRAM, and its cold options ordered. */
START_TEST(matmul_front_invariants)
{
    elk_chip c;
    chip4(&c);
    elk_op op;
    op_mm(&op);
    elk_plan_set set;
    elk_error err;
    ck_assert(elk_plan_art_set(&c, &op, elk_chip_sram_bytes(&c), &set, NULL, &err) == ELK_OK);
    ck_assert_int_gt(set.nplans, 1);
    elk_menu m;
    ck_assert(elk_menu_build(&c, &op, &set, &m, &err) == ELK_OK);
    ck_assert_int_gt(m.n, 1);
    for (int i = 0; i < m.n; i++) {
        ck_assert(m.e[i].hot <= elk_chip_sram_bytes(&c));
        if (i) {
            ck_assert(m.e[i].hot > m.e[i - 1].hot);
            ck_assert(m.e[i].exe < m.e[i - 1].exe);
        }
        for (int k = 1; k < m.e[i].nc; k++) {
            ck_assert(m.cold[m.e[i].c0 + k].cold > m.cold[m.e[i].c0 + k - 1].cold);
            ck_assert(m.cold[m.e[i].c0 + k].dist < m.cold[m.e[i].c0 + k - 1].dist);
        }
    }
    /* fully distributed preload: the 1 KiB weight over 4 cores */
    ck_assert_double_eq(m.min_cold, 256);
    /* the fastest plan does every MAC in parallel: 8*32*16/4 cores/4 MAC */
    ck_assert(m.e[m.n - 1].comp >= 8.0 * 32 * 16 / 4 / 4);
    /* every evaluated plan is either kept or dominated by a kept plan */
    for (int i = 0; i < set.nplans; i++)
        for (int j = 0; j < set.nplans; j++) {
            if (i == j) continue;
            const elk_plan *a = &set.plans[i], *b = &set.plans[j];
            int dom = a->hot <= b->hot && a->comp + a->syncs * 10 <= b->comp + b->syncs * 10 && a->xcyc <= b->xcyc &&
                      (a->hot < b->hot || a->comp + a->syncs * 10 < b->comp + b->syncs * 10 || a->xcyc < b->xcyc);
            ck_assert_msg(!dom, "kept plan %d dominates kept plan %d", i, j);
        }
    elk_menu_free(&m);
    elk_plan_set_free(&set);
}
END_TEST

/* The reference design point's first layer: Llama2-13B decode B32 S2048
 * on IPU-POD4. */
static void llama_layer(elk_chip *c, elk_graph *g)
{
    elk_model md;
    elk_error err;
    char path[1024];
    ck_assert(elk_chip_load(src_path(path, sizeof path, "presets/chips/ipu-pod4.cfg"), c, &err) == ELK_OK);
    ck_assert(elk_model_load(src_path(path, sizeof path, "presets/models/llama2-13b.cfg"), &md, &err) == ELK_OK);
    ck_assert(elk_graph_build(&md, ELK_WL_DECODE, 32, 2048, 1, g, &err) == ELK_OK);
}

/* Real operators on the reference chip: fronts stay strictly monotone. */
START_TEST(llama_fronts_monotone)
{
    elk_chip c;
    elk_graph g;
    elk_error err;
    llama_layer(&c, &g);
    elk_plan_cache *pc = elk_plan_cache_alloc();
    for (int i = 0; i < g.nops; i++) {
        const elk_plan_set *set;
        ck_assert_msg(elk_plan_cache_get(pc, &c, &g.ops[i], &set, &err) == ELK_OK, "%s", err.msg);
        elk_menu m;
        ck_assert(elk_menu_build(&c, &g.ops[i], set, &m, &err) == ELK_OK);
        for (int k = 1; k < m.n; k++) {
            ck_assert(m.e[k].hot > m.e[k - 1].hot);
            ck_assert(m.e[k].exe < m.e[k - 1].exe);
        }
        for (int s = 0; s < ELK_PRICES; s++)
            for (int k = 1; k < m.neff[s]; k++) {
                ck_assert(m.e[m.eff[s][k]].hot > m.e[m.eff[s][k - 1]].hot);
                ck_assert(m.e[m.eff[s][k]].ecost[s] < m.e[m.eff[s][k - 1]].ecost[s]);
            }
        elk_menu_free(&m);
        elk_plan_cache_release(pc, set);
    }
    /* a second pass is served from the cache */
    long hits, misses, entries;
    elk_plan_cache_stats(pc, &hits, &misses, &entries);
    for (int i = 0; i < g.nops; i++) {
        const elk_plan_set *set;
        ck_assert(elk_plan_cache_get(pc, &c, &g.ops[i], &set, &err) == ELK_OK);
        elk_plan_cache_release(pc, set);
    }
    long h2, m2, e2;
    elk_plan_cache_stats(pc, &h2, &m2, &e2);
    ck_assert_int_eq(m2, misses);
    ck_assert_int_eq(e2, entries);
    ck_assert_int_eq(h2, hits + g.nops);
    /* a bandwidth change does not miss; a core-count change does */
    c.hbm_tbps = 8;
    c.noc_scale = 1.5;
    const elk_plan_set *set;
    ck_assert(elk_plan_cache_get(pc, &c, &g.ops[g.head + 2], &set, &err) == ELK_OK);
    elk_plan_cache_release(pc, set);
    elk_plan_cache_stats(pc, &h2, &m2, &e2);
    ck_assert_int_eq(m2, misses);
    ck_assert(elk_chip_set_cores(&c, 2944, &err) == ELK_OK);
    ck_assert(elk_plan_cache_get(pc, &c, &g.ops[g.head + 2], &set, &err) == ELK_OK);
    elk_plan_cache_release(pc, set);
    elk_plan_cache_stats(pc, &h2, &m2, &e2);
    ck_assert_int_eq(m2, misses + 1);
    elk_plan_cache_free(pc);
    elk_graph_free(&g);
}
END_TEST

/* The byte budget: released sets beyond it go, least recently used first;
 * held sets stay valid whatever the budget; an evicted set comes back
 * identical (enumeration is deterministic). */
START_TEST(cache_budget_evicts_lru)
{
    elk_chip c;
    elk_model md;
    elk_graph g;
    elk_error err;
    char path[1024];
    ck_assert(elk_chip_load(src_path(path, sizeof path, "presets/chips/ipu-mk2.cfg"), &c, &err) == ELK_OK);
    ck_assert(elk_model_load(src_path(path, sizeof path, "presets/models/tiny.cfg"), &md, &err) == ELK_OK);
    ck_assert(elk_graph_build(&md, ELK_WL_DECODE, 8, 128, 1, &g, &err) == ELK_OK);
    ck_assert_int_ge(g.nshapes, 3);
    int rep[3], nrep = 0;
    for (int i = 0; i < g.nops && nrep < 3; i++) {
        int seen = 0;
        for (int k = 0; k < nrep; k++) seen |= g.ops[rep[k]].shape_id == g.ops[i].shape_id;
        if (!seen) rep[nrep++] = i;
    }
    elk_plan_cache *pc = elk_plan_cache_alloc();
    elk_plan_cache_set_budget(pc, 1); /* nothing unheld survives a release */
    const elk_plan_set *a, *b, *b2;
    ck_assert(elk_plan_cache_get(pc, &c, &g.ops[rep[0]], &a, &err) == ELK_OK);
    ck_assert(elk_plan_cache_get(pc, &c, &g.ops[rep[1]], &b, &err) == ELK_OK);
    int na = a->nplans;
    double hot0 = a->plans[0].hot;
    elk_plan_cache_release(pc, b); /* b goes; a is held */
    size_t bytes, peak;
    long ev;
    elk_plan_cache_usage(pc, &bytes, &peak, &ev);
    ck_assert_int_eq(ev, 1);
    ck_assert_uint_gt(bytes, 1); /* a, held, is over the budget and stays */
    ck_assert_int_eq(a->nplans, na);
    ck_assert(a->plans[0].hot == hot0);
    long h, m, e;
    elk_plan_cache_stats(pc, &h, &m, &e);
    ck_assert(elk_plan_cache_get(pc, &c, &g.ops[rep[1]], &b2, &err) == ELK_OK); /* enumerated again */
    long h2, m2, e2;
    elk_plan_cache_stats(pc, &h2, &m2, &e2);
    ck_assert_int_eq(m2, m + 1);
    elk_plan_cache_release(pc, b2);
    elk_plan_cache_release(pc, a);
    elk_plan_cache_usage(pc, &bytes, &peak, &ev);
    ck_assert_int_eq(ev, 3);
    ck_assert_uint_eq(bytes, 0);
    ck_assert_uint_gt(peak, 0);
    /* unbounded: nothing goes, the least recently used order does not matter */
    elk_plan_cache_set_budget(pc, 0);
    for (int k = 0; k < nrep; k++) {
        ck_assert(elk_plan_cache_get(pc, &c, &g.ops[rep[k]], &a, &err) == ELK_OK);
        elk_plan_cache_release(pc, a);
    }
    elk_plan_cache_usage(pc, &bytes, &peak, &ev);
    ck_assert_int_eq(ev, 3);
    /* a budget between one and all sets keeps the most recently used */
    elk_plan_cache_set_budget(pc, bytes - 1);
    ck_assert(elk_plan_cache_get(pc, &c, &g.ops[rep[0]], &a, &err) == ELK_OK); /* rep[0] now the newest */
    elk_plan_cache_release(pc, a);
    elk_plan_cache_usage(pc, &bytes, &peak, &ev);
    ck_assert_int_eq(ev, 4);
    elk_plan_cache_stats(pc, &h, &m, &e);
    ck_assert(elk_plan_cache_get(pc, &c, &g.ops[rep[0]], &a, &err) == ELK_OK);
    elk_plan_cache_release(pc, a);
    elk_plan_cache_stats(pc, &h2, &m2, &e2);
    ck_assert_int_eq(m2, m); /* still cached */
    elk_plan_cache_free(pc);
    elk_graph_free(&g);
}
END_TEST

/* The fastest-only entries (a searched fastest, or only a bound) are in the
 * byte budget too: each counts from its ask, the least recently asked go
 * once the cache is over it, and an evicted one answers the same when asked
 * again (searched again). Before, they were never counted nor evicted, and
 * a long session kept every one. */
START_TEST(cache_budget_bounds_fastest_entries)
{
    elk_chip c;
    elk_model md;
    elk_graph g;
    elk_error err;
    char path[1024];
    ck_assert(elk_chip_load(src_path(path, sizeof path, "presets/chips/tt-mesh.cfg"), &c, &err) == ELK_OK);
    c.profile = ELK_PROFILE_PHYSICAL;
    ck_assert(elk_model_load(src_path(path, sizeof path, "presets/models/tiny.cfg"), &md, &err) == ELK_OK);
    ck_assert(elk_graph_build(&md, ELK_WL_DECODE, 8, 128, 1, &g, &err) == ELK_OK);
    int rep[4], nrep = 0;
    for (int i = 0; i < g.nops && nrep < 4; i++) {
        int seen = 0;
        for (int k = 0; k < nrep; k++) seen |= g.ops[rep[k]].shape_id == g.ops[i].shape_id;
        if (!seen) rep[nrep++] = i;
    }
    ck_assert_int_ge(nrep, 3);
    elk_plan_cache *pc = elk_plan_cache_alloc();
    ck_assert_ptr_nonnull(pc);
    elk_plan_cache_set_budget(pc, 0);
    double e0[4], h0[4], e1, h1;
    size_t bytes = 0, prev = 0, one = 0, peak;
    long ev;
    for (int k = 0; k < nrep; k++) {
        ck_assert_int_eq(elk_plan_cache_fastest(pc, &c, &g.ops[rep[k]], NULL, &e0[k], &h0[k], &err), ELK_OK);
        elk_plan_cache_usage(pc, &bytes, &peak, &ev);
        ck_assert_uint_gt(bytes, prev); /* counted from the ask */
        if (!one) one = bytes;
        prev = bytes;
    }
    long h, m, e;
    elk_plan_cache_stats(pc, &h, &m, &e);
    ck_assert_int_eq(m, 0); /* no set was built: every entry is fastest-only */
    /* room for two: the next search leaves the two most recently asked */
    elk_plan_cache_set_budget(pc, 2 * one);
    ck_assert_int_eq(elk_plan_cache_fastest_below(pc, &c, &g.ops[rep[0]], NULL, e0[0] * 0.5, &e1, &h1, &err), ELK_OK);
    ck_assert(e1 == INFINITY);
    elk_plan_cache_usage(pc, &bytes, &peak, &ev);
    ck_assert_uint_le(bytes, 2 * one);
    ck_assert_int_eq(ev, nrep - 2);
    ck_assert_uint_ge(peak, prev);
    /* every answer the same, whether kept or searched again */
    for (int k = nrep - 1; k >= 0; k--) {
        ck_assert_int_eq(elk_plan_cache_fastest(pc, &c, &g.ops[rep[k]], NULL, &e1, &h1, &err), ELK_OK);
        ck_assert(e1 == e0[k] && h1 == h0[k]);
        elk_plan_cache_usage(pc, &bytes, &peak, &ev);
        ck_assert_uint_le(bytes, 2 * one);
    }
    elk_plan_cache_free(pc);
    elk_graph_free(&g);
}
END_TEST

START_TEST(sram_too_small_names_operator)
{
    elk_chip c;
    chip4(&c);
    c.sram_kib = 1; /* 1 KiB: the scale op needs 1.5 KiB per core */
    elk_op op;
    op_scale(&op);
    elk_plan_set set;
    elk_error err;
    elk_status st = elk_plan_art_set(&c, &op, elk_chip_sram_bytes(&c), &set, NULL, &err);
    ck_assert_int_eq(st, ELK_ENOPLAN);
    ck_assert_contains(err.msg, "scale");
    ck_assert_contains(err.msg, "1.0 KiB of usable SRAM");
    ck_assert_contains(err.msg, "smallest plan needs 1.5 KiB per core");
    ck_assert_contains(err.msg, "KiB per core");
}
END_TEST

/* Costs by hand: the IPU matmul formula takes the faster orientation. */
START_TEST(ipu_matmul_orientation)
{
    elk_chip c;
    elk_chip_defaults(&c);
    elk_op op;
    op_mm(&op);
    /* tile m=1, n=2048, k=128: as written 24*1*8*128 + 514*8*128 + 113*128 + 173
     * = 24576 + 526336 + 14464 + 173 = 565549; swapped (m=2048, n=1):
     * 24*342*8*1 + 514*8*1 + 113 + 173 = 65664 + 4112 + 286 = 70062 */
    long sub[3] = {1, 2048, 128};
    ck_assert_double_eq(elk_cost_compute(&c, &op, sub), 70062);
    /* elementwise, n = 100 elements at the IPU's 2 elem/cycle: 0.75n + 290 */
    elk_op e;
    op_scale(&e);
    long s1[1] = {100};
    ck_assert_double_eq(elk_cost_compute(&c, &e, s1), 365);
}
END_TEST


/* Dominance pruning during enumeration keeps exactly the set exhaustive
 * enumeration keeps, plan for plan (volumes, layout, cold options), on
 * every operator shape of each case: hand-made small ops, the paper's
 * chips, a mesh, both cost profiles, several core counts. */
typedef struct {
    const char *chip, *model;
    elk_workload wl;
    int batch, seq, cores;
    unsigned profile;
} prune_case;

/* Field by field: elk_cold_opt has padding after factor, whose bytes
 * memcmp would compare too (indeterminate, they differ with the heap's
 * history under a Debug build). */
static int same_opt(const elk_cold_opt *x, const elk_cold_opt *y)
{
    return x->cold == y->cold && x->dist_bytes == y->dist_bytes && x->dist_group == y->dist_group &&
           x->deliv == y->deliv && x->factor == y->factor && x->warm_bytes == y->warm_bytes;
}

/* plans the artifact's walks evaluated in the coarse space for their seeds
 * (elk_plan_set.seeded), over check_same_set's calls */
static long seeded_total;

static void check_same_set(const elk_chip *c, const elk_op *op)
{
    elk_plan_set a, b;
    elk_error err;
    elk_plan_opts ex = {.exhaustive = 1};
    elk_status sa = elk_plan_art_set(c, op, elk_chip_sram_bytes(c), &a, &ex, &err);
    elk_status sb = elk_plan_art_set(c, op, elk_chip_sram_bytes(c), &b, NULL, &err);
    ck_assert_int_eq(sa, sb);
    if (sa != ELK_OK) return;
    ck_assert_msg(a.nplans == b.nplans, "%s on %d cores: %d plans exhaustive, %d pruned", op->name, c->cores, a.nplans,
                  b.nplans);
    ck_assert_int_eq(a.nopts, b.nopts);
    ck_assert_int_eq(a.spatial, b.spatial);
    ck_assert_int_le(b.enumerated, a.enumerated);
    ck_assert_int_eq(a.bounded, 0);
    ck_assert_int_eq(a.seeded, 0);
    seeded_total += b.seeded;
    for (int i = 0; i < a.nplans; i++)
        ck_assert_msg(memcmp(&a.plans[i], &b.plans[i], sizeof a.plans[i]) == 0, "%s: plan %d differs", op->name, i);
    for (int i = 0; i < a.nopts; i++)
        ck_assert_msg(same_opt(&a.opts[i], &b.opts[i]), "%s: option %d differs: cold %g %g dist %g %g group %g %g deliv %g %g "
                      "factor %d %d warm %g %g", op->name, i, a.opts[i].cold, b.opts[i].cold, a.opts[i].dist_bytes,
                      b.opts[i].dist_bytes, a.opts[i].dist_group, b.opts[i].dist_group, a.opts[i].deliv, b.opts[i].deliv,
                      a.opts[i].factor, b.opts[i].factor, a.opts[i].warm_bytes, b.opts[i].warm_bytes);
    elk_plan_set_free(&a);
    elk_plan_set_free(&b);
}

/* fn on one op of every shape of case pc's graph (its chip and model
 * presets, one layer). */
static void case_shapes(const prune_case *pc, void (*fn)(const elk_chip *, const elk_op *))
{
    elk_chip c;
    elk_model md;
    elk_graph g;
    elk_error err;
    char path[1024], rel[256];
    snprintf(rel, sizeof rel, "presets/chips/%s.cfg", pc->chip);
    ck_assert_msg(elk_chip_load(src_path(path, sizeof path, rel), &c, &err) == ELK_OK, "%s", err.msg);
    snprintf(rel, sizeof rel, "presets/models/%s.cfg", pc->model);
    ck_assert_msg(elk_model_load(src_path(path, sizeof path, rel), &md, &err) == ELK_OK, "%s", err.msg);
    if (pc->cores) ck_assert(elk_chip_set_cores(&c, pc->cores, &err) == ELK_OK);
    c.profile = pc->profile;
    ck_assert(elk_graph_build(&md, pc->wl, pc->batch, pc->seq, 1, &g, &err) == ELK_OK);
    elk_graph_apply_profile(&g, c.profile);
    for (int s = 0; s < g.nshapes; s++)
        for (int i = 0; i < g.nops; i++)
            if (g.ops[i].shape_id == s) {
                fn(&c, &g.ops[i]);
                break;
            }
    elk_graph_free(&g);
}

START_TEST(pruning_keeps_exhaustive_set)
{
    static const prune_case cases[] = {
        {"ipu-mk2", "tiny", ELK_WL_DECODE, 8, 128, 0, ELK_PROFILE_PAPER},
        {"ipu-mk2", "tiny", ELK_WL_PREFILL, 4, 256, 0, ELK_PROFILE_PHYSICAL},
        {"ipu-pod4", "llama2-13b", ELK_WL_DECODE, 32, 2048, 1472, ELK_PROFILE_PAPER},
        {"ipu-pod4", "llama2-13b", ELK_WL_DECODE, 32, 2048, 5888, ELK_PROFILE_PAPER},
        {"ipu-pod4", "llama2-13b", ELK_WL_DECODE, 16, 1024, 5888, ELK_PROFILE_PHYSICAL},
        {"ipu-pod4", "llama2-7b", ELK_WL_PREFILL, 1, 512, 2944, ELK_PROFILE_PAPER},
        {"ipu-pod4-mesh", "llama2-13b", ELK_WL_DECODE, 32, 2048, 0, ELK_PROFILE_PAPER},
        {"tt-mesh", "llama2-7b", ELK_WL_DECODE, 8, 1024, 0, ELK_PROFILE_PHYSICAL},
        /* big enough for enumeration to split over threads (ENUM_THREADS_CORES) */
        {"ipu-pod4", "tiny", ELK_WL_DECODE, 8, 128, 65536, ELK_PROFILE_PAPER},
    };
    /* the hand-made ops on the 4-core chip */
    elk_chip c4;
    chip4(&c4);
    elk_op op;
    op_scale(&op);
    check_same_set(&c4, &op);
    op_mm(&op);
    check_same_set(&c4, &op);
    seeded_total = 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) case_shapes(&cases[k], check_same_set);
    /* the paper cases at 1472 cores and more walk their tables seeded: the
     * sets above are the seeded ones */
    ck_assert_int_gt(seeded_total, 0);
}
END_TEST


/* The fastest menu entry of op's set (elk_menu_build at c of the set
 * elk_plan_enumerate builds for c), INFINITY both when there is none. */
static elk_status menu_fastest(const elk_chip *c, const elk_chip *menu_chip, const elk_op *op, double *exe, double *hot)
{
    elk_plan_set set;
    elk_menu m;
    elk_error err;
    *exe = *hot = INFINITY;
    elk_status st = elk_plan_art_set(c, op, elk_chip_sram_bytes(c), &set, NULL, &err);
    if (st != ELK_OK) return st;
    ck_assert(elk_menu_build(menu_chip, op, &set, &m, &err) == ELK_OK);
    *exe = m.e[m.n - 1].exe;
    *hot = m.e[m.n - 1].hot;
    elk_menu_free(&m);
    elk_plan_set_free(&set);
    return ELK_OK;
}

/* elk_plan_cache_fastest against the set and its menu, bit for bit: on a
 * fresh cache (the fastest search), again (its memo), from a chip with
 * another NoC bandwidth (the menu of the first chip's set), and the set a
 * get builds afterwards is the first chip's. */
static void check_fastest(const elk_chip *c, const elk_op *op)
{
    elk_chip c2 = *c;
    c2.noc_scale *= 2.5;
    elk_chip c3 = *c;
    c3.hbm_tbps *= 0.5;
    double e0, h0, e1, h1, e2, h2;
    elk_error err;
    elk_status s0 = menu_fastest(c, c, op, &e0, &h0);
    elk_plan_cache *pc = elk_plan_cache_alloc();
    ck_assert_ptr_nonnull(pc);
    elk_status s1 = elk_plan_cache_fastest(pc, c, op, NULL, &e1, &h1, &err);
    ck_assert_msg(s0 == s1, "%s on %d cores: status %d, fastest search %d", op->name, c->cores, s0, s1);
    ck_assert_msg(e0 == e1 && h0 == h1, "%s on %d cores: fastest %.17g at %.17g, search %.17g at %.17g", op->name,
                  c->cores, e0, h0, e1, h1);
    for (int k = 0; k < 2; k++) {
        /* the memo (the same chip, or one that differs only in HBM) */
        ck_assert_int_eq(elk_plan_cache_fastest(pc, k ? &c3 : c, op, NULL, &e1, &h1, &err), s0);
        ck_assert(e0 == e1 && h0 == h1);
    }
    elk_status s2 = menu_fastest(c, &c2, op, &e2, &h2);
    ck_assert_int_eq(elk_plan_cache_fastest(pc, &c2, op, NULL, &e1, &h1, &err), s2);
    ck_assert_msg(e2 == e1 && h2 == h1, "%s at another NoC bandwidth: %.17g, %.17g", op->name, e2, e1);
    if (s0 == ELK_OK) {
        const elk_plan_set *got;
        elk_plan_set ref;
        ck_assert(elk_plan_cache_get(pc, &c2, op, &got, &err) == ELK_OK);
        ck_assert(elk_plan_art_set(c, op, elk_chip_sram_bytes(c), &ref, NULL, &err) == ELK_OK);
        ck_assert_int_eq(got->nplans, ref.nplans);
        ck_assert_int_eq(got->nopts, ref.nopts);
        for (int i = 0; i < ref.nplans; i++) ck_assert(memcmp(&got->plans[i], &ref.plans[i], sizeof ref.plans[i]) == 0);
        elk_plan_cache_release(pc, got);
        elk_plan_set_free(&ref);
        /* from the set now, each chip its own menu's (the menu's fastest
         * kept with the set is the last chip's), bounded asks compared */
        for (int k = 0; k < 4; k++) {
            const elk_chip *ck = k & 1 ? &c2 : c;
            double want = k & 1 ? e2 : e0, wh = k & 1 ? h2 : h0;
            ck_assert_int_eq(elk_plan_cache_fastest(pc, ck, op, NULL, &e1, &h1, &err), ELK_OK);
            ck_assert(e1 == want && h1 == wh);
            ck_assert_int_eq(elk_plan_cache_fastest_below(pc, ck, op, NULL, want, &e1, &h1, &err), ELK_OK);
            ck_assert(e1 == want && h1 == wh);
            ck_assert_int_eq(elk_plan_cache_fastest_below(pc, ck, op, NULL, want * (1 - 1e-6), &e1, &h1, &err),
                             ELK_OK);
            ck_assert(e1 == INFINITY && h1 == INFINITY);
        }
    }
    elk_plan_cache_free(pc);
    if (s0 != ELK_OK || !(e0 > 0)) return;
    /* a bounded search: nothing below the fastest, then the fastest exactly
     * once the bound admits it (searched again: only the bound was kept),
     * and from the answer kept, above and below */
    static const double f[] = {1 - 1e-6, 0.5, 1, 3, 1 - 1e-6, 0.25};
    static const int found[] = {0, 0, 1, 1, 0, 0};
    pc = elk_plan_cache_alloc();
    ck_assert_ptr_nonnull(pc);
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
        ck_assert_int_eq(elk_plan_cache_fastest_below(pc, c, op, NULL, e0 * f[k], &e1, &h1, &err), ELK_OK);
        ck_assert_msg(found[k] ? e1 == e0 && h1 == h0 : e1 == INFINITY && h1 == INFINITY,
                      "%s on %d cores, below %g x the fastest %.17g: %.17g", op->name, c->cores, f[k], e0, e1);
    }
    ck_assert_int_eq(elk_plan_cache_fastest(pc, c, op, NULL, &e1, &h1, &err), ELK_OK);
    ck_assert(e1 == e0 && h1 == h0);
    elk_plan_cache_free(pc);
    /* a bound kept, then the unbounded ask searches in full */
    pc = elk_plan_cache_alloc();
    ck_assert_ptr_nonnull(pc);
    ck_assert_int_eq(elk_plan_cache_fastest_below(pc, c, op, NULL, e0 * 0.9, &e1, &h1, &err), ELK_OK);
    ck_assert(e1 == INFINITY);
    ck_assert_int_eq(elk_plan_cache_fastest(pc, c, op, NULL, &e1, &h1, &err), ELK_OK);
    ck_assert(e1 == e0 && h1 == h0);
    elk_plan_cache_free(pc);
}

/* The fastest plan of op and of the first cut pieces the cut choice times. */
static void fastest_and_pieces(const elk_chip *c, const elk_op *o)
{
    check_fastest(c, o);
    elk_split opt[ELK_SPLIT_LADDER_OPTS];
    int n = elk_split_ladder_any(o, elk_chip_sram_bytes(c) * c->cores / 8, opt, ELK_SPLIT_LADDER_OPTS);
    for (int q = 0; q < n && q < 3; q++) {
        if (opt[q].pieces == 1) continue;
        elk_op piece;
        elk_split_piece(o, &opt[q], 0, &piece);
        check_fastest(c, &piece);
    }
}


START_TEST(fastest_matches_menu)
{
    static const prune_case cases[] = {
        {"ipu-mk2", "tiny", ELK_WL_PREFILL, 4, 256, 0, ELK_PROFILE_PHYSICAL},
        {"ipu-pod4", "llama2-13b", ELK_WL_DECODE, 32, 2048, 0, ELK_PROFILE_PHYSICAL},
        {"ipu-pod4", "llama2-13b", ELK_WL_DECODE, 32, 2048, 0,
         (1u << ELK_PSW_GATHER) | (1u << ELK_PSW_RELAYOUT) | (1u << ELK_PSW_ROTSYNC)},
        {"ipu-pod4", "llama2-7b", ELK_WL_PREFILL, 1, 512, 2944, (1u << ELK_PSW_MULTICHIP) | (1u << ELK_PSW_UNFUSED)},
        {"tt-mesh", "llama2-7b", ELK_WL_DECODE, 8, 1024, 0, ELK_PROFILE_PHYSICAL},
        {"ipu-pod4", "tiny", ELK_WL_DECODE, 8, 128, 65536, ELK_PROFILE_PHYSICAL},
    };
    elk_chip c4;
    chip4(&c4);
    elk_op op;
    op_scale(&op);
    check_fastest(&c4, &op);
    op_mm(&op);
    check_fastest(&c4, &op);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) case_shapes(&cases[k], fastest_and_pieces);
}
END_TEST

/* A cancel flag already set stops enumeration with ELK_ECANCEL, and a
 * cancelled cache get caches nothing (the next get enumerates); a
 * cached_only get of a set not cached fails and counts the miss, and of a
 * cached one succeeds. */
START_TEST(cancel_and_cached_only)
{
    elk_chip c;
    elk_graph g;
    elk_error err;
    llama_layer(&c, &g);
    const elk_op *op = &g.ops[g.head + 3]; /* the QKV matmul: thousands of spatial plans */
    atomic_int cancel = 1;
    elk_plan_opts o = {.cancel = &cancel};
    elk_plan_set set;
    ck_assert_int_eq(elk_plan_art_set(&c, op, elk_chip_sram_bytes(&c), &set, &o, &err), ELK_ECANCEL);
    elk_plan_cache *pc = elk_plan_cache_alloc();
    const elk_plan_set *cs;
    ck_assert_int_eq(elk_plan_cache_get_opts(pc, &c, op, &o, &cs, &err), ELK_ECANCEL);
    ck_assert(!elk_plan_cache_ready(pc, &c, op));
    int missed = 0;
    elk_plan_opts probe = {.cached_only = 1, .missed = &missed};
    ck_assert_int_eq(elk_plan_cache_get_opts(pc, &c, op, &probe, &cs, &err), ELK_ECANCEL);
    ck_assert_int_eq(missed, 1);
    ck_assert(elk_plan_cache_get(pc, &c, op, &cs, &err) == ELK_OK);
    elk_plan_cache_release(pc, cs);
    ck_assert(elk_plan_cache_ready(pc, &c, op));
    ck_assert(elk_plan_cache_get_opts(pc, &c, op, &probe, &cs, &err) == ELK_OK);
    ck_assert_int_eq(missed, 1);
    elk_plan_cache_release(pc, cs);
    elk_plan_cache_free(pc);
    elk_graph_free(&g);
}
END_TEST

/* The coarse plan space (the TUI's provisional answers) is a subset of the
 * full one: every plan it keeps is a plan of the full space, so the full
 * set has one no worse in all of (hot, C, X), or, for the artifact's
 * tables (a 2-D front in space and time), in (hot, C + X); and it
 * evaluates fewer. */
START_TEST(coarse_is_a_subset)
{
    static const unsigned profiles[] = {ELK_PROFILE_PAPER, ELK_PROFILE_PHYSICAL};
    elk_chip c;
    elk_graph g;
    elk_error err;
    llama_layer(&c, &g);
    c.profile = profiles[_i];
    double sync = c.sync_cycles * elk_chip_xfactor(&c);
    for (int i = g.head; i < g.head + 12 && i < g.nops; i++) {
        elk_plan_set full, co;
        elk_plan_opts o = {.coarse = 1};
        ck_assert(elk_plan_art_set(&c, &g.ops[i], elk_chip_sram_bytes(&c), &full, NULL, &err) == ELK_OK);
        ck_assert(elk_plan_art_set(&c, &g.ops[i], elk_chip_sram_bytes(&c), &co, &o, &err) == ELK_OK);
        /* the full set's work includes its seeds' walk of the coarse space */
        ck_assert_int_le(co.enumerated, full.enumerated + full.seeded);
        for (int k = 0; k < co.nplans; k++) {
            const elk_plan *a = &co.plans[k];
            int covered = 0;
            for (int j = 0; j < full.nplans && !covered; j++) {
                const elk_plan *b = &full.plans[j];
                double cb = b->comp / c.compute_scale + b->syncs * sync, ca = a->comp / c.compute_scale + a->syncs * sync;
                if (c.profile & (1u << ELK_PSW_PLANTABLES))
                    covered = b->hot <= a->hot && cb + b->xcyc <= (ca + a->xcyc) * (1 + 1e-12);
                else
                    covered = b->hot <= a->hot && cb <= ca && b->xcyc <= a->xcyc;
            }
            ck_assert_msg(covered, "%s: coarse plan %d beats the full set", g.ops[i].name, k);
        }
        elk_plan_set_free(&full);
        elk_plan_set_free(&co);
    }
    elk_graph_free(&g);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("plan");
    TCase *tc = tcase_create("plan");
    tcase_add_test(tc, scale_plan_by_hand);
    tcase_add_test(tc, floor_from_output_parallelism);
    tcase_add_test(tc, floor_from_output_parallelism_on_grid);
    tcase_add_test(tc, matmul_front_invariants);
    tcase_add_test(tc, llama_fronts_monotone);
    tcase_add_test(tc, cache_budget_evicts_lru);
    tcase_add_test(tc, cache_budget_bounds_fastest_entries);
    tcase_add_test(tc, sram_too_small_names_operator);
    tcase_add_test(tc, ipu_matmul_orientation);
    tcase_add_test(tc, cancel_and_cached_only);
    tcase_add_loop_test(tc, coarse_is_a_subset, 0, 2);
    /* exhaustive enumeration of every shape of several design points */
    TCase *tp = tcase_create("pruning");
    tcase_set_timeout(tp, 120);
    tcase_add_test(tp, pruning_keeps_exhaustive_set);
    tcase_add_test(tp, fastest_matches_menu);
    suite_add_tcase(s, tp);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return run_suite(suite()); }
