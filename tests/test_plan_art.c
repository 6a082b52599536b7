/* core/elk_plan_art: the artifact's plan tables (paper switch "plantables")
 * on a matmul small enough to check by hand, C[m,n] = A[m,k] B[k,n] with
 * m = n = k = 8 on 4 cores (B the weight): the temporal sort bug, the
 * cold->hot pairing and its warm-up, the set's invariants, the cache key,
 * Static's floor, and the profile parser's list of switches. */
#include <math.h>
#include <string.h>

#include "elk_plan.h"
#include "elk_plan_art.h"
#include "elk_plan_cache.h"
#include "elk_test.h"

#define MD ELK_MAX_DIMS
#define MT ELK_MAX_TENSORS

static void op_mm8(elk_op *op)
{
    memset(op, 0, sizeof *op);
    snprintf(op->name, sizeof op->name, "mm8");
    op->kind = ELK_OP_MATMUL;
    op->ndims = 3;
    const char *nm = "mnk";
    for (int i = 0; i < 3; i++) {
        op->dim[i] = 8;
        op->dimname[i][0] = nm[i];
    }
    op->ntensors = 3;
    op->t[0] = (elk_tensor){ELK_TR_OUT, 2, {0, 1}};
    op->t[1] = (elk_tensor){ELK_TR_ACT, 2, {0, 2}};
    op->t[2] = (elk_tensor){ELK_TR_WEIGHT, 2, {2, 1}};
    op->dtype_bytes = 2;
    op->weight_bytes = op->hbm_bytes = 8 * 8 * 2;
}

/* An IPU-rate chip of 4 cores in the paper profile. */
static void chip4_paper(elk_chip *c)
{
    elk_chip_defaults(c);
    c->chips = 1;
    c->cores_per_chip = 4;
    c->cores = 4;
    c->sram_kib = 4;
    c->reserved_kib = 0;
    c->link_gbps = 5.767;
    c->profile = ELK_PROFILE_PAPER;
}

/* The thresholds of 8x8x8 on 4 cores are tiny (0.9 x 24/220): every plan of
 * at most 4 cores is valid. With p = (1,1,4) only the output is replicated
 * (4 partial sums), so only it can rotate: along m or n (the dims it
 * indexes), (t_out, t_A, t_B) in {(1,1,1), (2,1,1), (4,1,1)} each, and along
 * k not at all. Sorting the per-dim lists puts k's one-tuple list first, so
 * the tree draws m's rotations from it and k's from n's list: the output
 * rotates along k, which it does not index. The 6 leaves are the pairs
 * (t, t') with t t' dividing 4, either way. With p = (4,1,1) only B is
 * replicated; the lists of n and k are equal and the sort changes nothing. */
START_TEST(temporal_sort_bug)
{
    static const struct {
        int p[3];
        int sortbug;
        long count;
        int out_rot_m, out_rot_k, b_rot_n, b_rot_k; /* some leaf rotates (1) or none does (0) */
    } cases[] = {
        {{1, 1, 4}, 1, 6, 0, 1, 0, 0},
        {{1, 1, 4}, 0, 6, 1, 0, 0, 0},
        {{4, 1, 1}, 1, 6, 0, 0, 1, 1},
        {{4, 1, 1}, 0, 6, 0, 0, 1, 1},
    };
    elk_op op;
    op_mm8(&op);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int tm[16][MD * MT];
        long n = elk_plan_art_temporal(&op, 4, cases[i].p, cases[i].sortbug, &tm[0][0], 16);
        ck_assert_int_eq(n, cases[i].count);
        int om = 0, ok = 0, bn = 0, bk = 0;
        for (long j = 0; j < n; j++) {
            long r0 = 1, r2 = 1;
            for (int d = 0; d < 3; d++) {
                r0 *= tm[j][d * MT + 0];
                r2 *= tm[j][d * MT + 2];
                ck_assert_int_eq(tm[j][d * MT + 1], 1); /* A is never replicated */
            }
            /* the product of a tensor's slices divides its replicas */
            ck_assert_int_eq((cases[i].p[2] % r0), 0);
            ck_assert_int_eq((cases[i].p[0] % r2), 0);
            om |= tm[j][0 * MT + 0] > 1;
            ok |= tm[j][2 * MT + 0] > 1;
            bn |= tm[j][1 * MT + 2] > 1;
            bk |= tm[j][2 * MT + 2] > 1;
        }
        ck_assert_msg(om == cases[i].out_rot_m && ok == cases[i].out_rot_k && bn == cases[i].b_rot_n &&
                          bk == cases[i].b_rot_k,
                      "case %zu: out rotates along m %d, k %d; B along n %d, k %d", i, om, ok, bn, bk);
        /* the first leaf is the one without rotation */
        for (int d = 0; d < 3; d++)
            for (int v = 0; v < 3; v++) ck_assert_int_eq(tm[0][d * MT + v], 1);
    }
    /* not a valid spatial plan: 8 cores on a 4-core chip */
    int p8[3] = {2, 2, 2};
    ck_assert_int_eq(elk_plan_art_temporal(&op, 4, p8, 1, NULL, 0), -1);
}
END_TEST

/* Pairing on p = (4,1,1): per core m is 2 long, n and k 8, so B's slice is
 * 64 / (t_k t_n) elements. A preload layout feeds an execution layout if
 * its every split is a multiple of the other's; the warm-up shifts m cold
 * slices of B (m = the ratio of their splits) and syncs m times. */
START_TEST(pairing_by_hand)
{
    static const struct {
        int cold_n, cold_k, hot_n, hot_k; /* B's splits along n and k */
        int ok;
        double warm_bytes;
        int syncs;
    } cases[] = {
        {2, 1, 1, 1, 1, 2 * 32 * 2, 2}, /* slice 8x4 = 32 elements, twice */
        {4, 1, 2, 1, 1, 2 * 16 * 2, 2}, /* 8x2 = 16, ratio 2 */
        {2, 1, 4, 1, 0, 0, 0},          /* 2 is no multiple of 4 */
        {2, 2, 2, 1, 1, 2 * 16 * 2, 2}, /* 4x4 = 16, ratio 1 x 2 */
        {1, 4, 1, 4, 1, 0, 0},          /* the same layout: no warm-up */
        {1, 2, 2, 1, 0, 0, 0},          /* split along another dim */
        {4, 1, 1, 1, 1, 4 * 16 * 2, 4},
    };
    elk_op op;
    op_mm8(&op);
    int p[3] = {4, 1, 1};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int c[MD * MT], h[MD * MT];
        for (int k = 0; k < MD * MT; k++) c[k] = h[k] = 1;
        c[1 * MT + 2] = cases[i].cold_n;
        c[2 * MT + 2] = cases[i].cold_k;
        h[1 * MT + 2] = cases[i].hot_n;
        h[2 * MT + 2] = cases[i].hot_k;
        double wb = -1;
        int sy = -1;
        int ok = elk_plan_art_pair(&op, p, c, h, &wb, &sy);
        ck_assert_msg(ok == cases[i].ok, "case %zu: compatible %d", i, ok);
        if (!ok) continue;
        ck_assert_msg(wb == cases[i].warm_bytes && sy == cases[i].syncs, "case %zu: warm-up %g B, %d syncs", i, wb,
                      sy);
    }
}
END_TEST

/* The whole set: a front sorted by space, every plan with at least one
 * preload option, options by preload size, none larger than its plan's
 * execution space; the least preload size is B fully distributed (128 B
 * over 4 cores) and the menu sees it. */
START_TEST(set_invariants)
{
    elk_chip c;
    chip4_paper(&c);
    elk_op op;
    op_mm8(&op);
    elk_plan_set set;
    elk_error err;
    ck_assert_msg(elk_plan_art_set(&c, &op, elk_chip_sram_bytes(&c), &set, NULL, &err) == ELK_OK, "%s",
                  err.msg);
    ck_assert_int_gt(set.nplans, 0);
    ck_assert_int_gt(set.enumerated, set.nplans);
    double least = INFINITY;
    for (int i = 0; i < set.nplans; i++) {
        const elk_plan *pl = &set.plans[i];
        if (i) ck_assert(pl->hot >= set.plans[i - 1].hot);
        ck_assert_int_ge(pl->nopt, 1);
        for (int k = 0; k < pl->nopt; k++) {
            const elk_cold_opt *o = &set.opts[pl->opt0 + k];
            if (k) ck_assert(o->cold >= set.opts[pl->opt0 + k - 1].cold);
            ck_assert(o->cold <= pl->hot);
            ck_assert(o->dist_bytes == o->warm_bytes);
            least = fmin(least, o->cold);
        }
    }
    ck_assert_double_eq(least, 32);
    elk_menu m;
    ck_assert_int_eq(elk_menu_build(&c, &op, &set, &m, &err), ELK_OK);
    ck_assert_double_eq(m.min_cold, 32);
    ck_assert_int_le(m.n, set.nplans);
    elk_menu_free(&m);
    elk_plan_set_free(&set);
}
END_TEST

/* The enumeration's bounds (a spatial plan skipped whole, a temporal
 * subtree skipped, a plan not evaluated) keep the table exhaustive
 * enumeration builds, plan for plan and option for option, with the same
 * spatial count, on hand-sized shapes: a weight matmul, a decode
 * attention batched matmul (KV input), an elementwise op with a weight;
 * 4 to 4096 cores; the paper profile and the profiles without the switches
 * the bound reads (rotsync, gather, relayout, multichip). Some case must
 * skip spatial plans on the bound, or the test would not test it. */
static void op_matmul(elk_op *op, long m, long n, long k)
{
    op_mm8(op);
    snprintf(op->name, sizeof op->name, "mm%ldx%ldx%ld", m, n, k);
    op->dim[0] = m;
    op->dim[1] = n;
    op->dim[2] = k;
    op->weight_bytes = op->hbm_bytes = (double)k * n * 2;
}

static void op_attn(elk_op *op)
{
    memset(op, 0, sizeof *op);
    snprintf(op->name, sizeof op->name, "qk");
    op->kind = ELK_OP_MATMUL;
    op->ndims = 5;
    const long dim[5] = {4, 8, 1, 64, 16};
    const char *nm = "bgqsd";
    for (int i = 0; i < 5; i++) {
        op->dim[i] = dim[i];
        op->dimname[i][0] = nm[i];
    }
    op->ntensors = 3;
    op->t[0] = (elk_tensor){ELK_TR_OUT, 4, {0, 1, 2, 3}};
    op->t[1] = (elk_tensor){ELK_TR_ACT, 4, {0, 1, 2, 4}};
    op->t[2] = (elk_tensor){ELK_TR_KV, 4, {0, 1, 3, 4}};
    op->dtype_bytes = 2;
    op->kv_bytes = op->hbm_bytes = 4.0 * 8 * 64 * 16 * 2;
}

static void op_scale_w(elk_op *op)
{
    memset(op, 0, sizeof *op);
    snprintf(op->name, sizeof op->name, "scale");
    op->kind = ELK_OP_ELEMWISE;
    op->ndims = 2;
    op->dim[0] = 32;
    op->dim[1] = 640;
    op->dimname[0][0] = 't';
    op->dimname[1][0] = 'h';
    op->ntensors = 3;
    op->t[0] = (elk_tensor){ELK_TR_OUT, 2, {0, 1}};
    op->t[1] = (elk_tensor){ELK_TR_ACT, 2, {0, 1}};
    op->t[2] = (elk_tensor){ELK_TR_WEIGHT, 1, {1}};
    op->dtype_bytes = 2;
    op->weight_bytes = op->hbm_bytes = 640 * 2;
}

START_TEST(bounds_keep_exhaustive_table)
{
    static const int cores[] = {4, 64, 1000, 4096};
    static const unsigned off[] = {0, 1u << ELK_PSW_ROTSYNC, 1u << ELK_PSW_GATHER,
                                   (1u << ELK_PSW_RELAYOUT) | (1u << ELK_PSW_MULTICHIP)};
    long skipped = 0;
    for (int shape = 0; shape < 5; shape++)
        for (size_t ci = 0; ci < sizeof cores / sizeof cores[0]; ci++)
            for (size_t pi = 0; pi < sizeof off / sizeof off[0]; pi++) {
                elk_chip c;
                chip4_paper(&c);
                c.cores_per_chip = cores[ci] < 1472 ? cores[ci] : 1472;
                c.chips = (cores[ci] + c.cores_per_chip - 1) / c.cores_per_chip;
                c.cores = cores[ci];
                c.sram_kib = 64;
                c.profile = ELK_PROFILE_PAPER & ~off[pi];
                elk_op op;
                if (shape == 0) op_matmul(&op, 8, 8, 8);
                else if (shape == 1) op_matmul(&op, 32, 96, 64);
                else if (shape == 2) op_matmul(&op, 16, 512, 384);
                else if (shape == 3) op_attn(&op);
                else op_scale_w(&op);
                elk_plan_set a, b;
                elk_error err;
                elk_plan_opts ex = {.exhaustive = 1};
                elk_status sa = elk_plan_art_set(&c, &op, elk_chip_sram_bytes(&c), &a, &ex, &err);
                elk_status sb = elk_plan_art_set(&c, &op, elk_chip_sram_bytes(&c), &b, NULL, &err);
                ck_assert_int_eq(sa, sb);
                if (sa != ELK_OK) continue;
                ck_assert_msg(a.nplans == b.nplans && a.nopts == b.nopts,
                              "%s on %d cores, profile %#x: %d plans %d options exhaustive, %d %d bounded", op.name,
                              c.cores, c.profile, a.nplans, a.nopts, b.nplans, b.nopts);
                ck_assert_int_eq(a.spatial, b.spatial);
                ck_assert_int_eq(a.bounded, 0);
                ck_assert_int_le(b.enumerated, a.enumerated);
                for (int i = 0; i < a.nplans; i++)
                    ck_assert_msg(memcmp(&a.plans[i], &b.plans[i], sizeof a.plans[i]) == 0,
                                  "%s on %d cores, profile %#x: plan %d differs", op.name, c.cores, c.profile, i);
                for (int i = 0; i < a.nopts; i++) {
                    /* field by field: elk_cold_opt has padding after factor */
                    const elk_cold_opt *x = &a.opts[i], *y = &b.opts[i];
                    ck_assert(x->cold == y->cold && x->dist_bytes == y->dist_bytes && x->dist_group == y->dist_group &&
                              x->deliv == y->deliv && x->factor == y->factor && x->warm_bytes == y->warm_bytes);
                }
                skipped += b.bounded;
                elk_plan_set_free(&a);
                elk_plan_set_free(&b);
            }
    ck_assert_int_gt(skipped, 0);
}
END_TEST

/* A set built with the switch is not handed out without it. */
START_TEST(cache_key_has_switch)
{
    elk_chip a, b;
    chip4_paper(&a);
    b = a;
    b.profile &= ~(1u << ELK_PSW_PLANTABLES);
    elk_op op;
    op_mm8(&op);
    elk_plan_cache *pc = elk_plan_cache_alloc();
    const elk_plan_set *sa, *sb;
    elk_error err;
    ck_assert_int_eq(elk_plan_cache_get(pc, &a, &op, &sa, &err), ELK_OK);
    ck_assert_int_eq(elk_plan_cache_get(pc, &b, &op, &sb, &err), ELK_OK);
    ck_assert_ptr_ne(sa, sb);
    long hits, misses, entries;
    elk_plan_cache_stats(pc, &hits, &misses, &entries);
    ck_assert_int_eq(misses, 2);
    elk_plan_cache_release(pc, sa);
    elk_plan_cache_release(pc, sb);
    elk_plan_cache_free(pc);
}
END_TEST

/* launch.py's min_exec_kb: per menu the smallest execution space with an
 * option at the least preload size, the largest over menus, in whole KiB. */
START_TEST(static_floor_by_hand)
{
    elk_menu_entry e1[2] = {{.hot = 100, .c0 = 0, .nc = 1}, {.hot = 2000, .c0 = 1, .nc = 1}};
    elk_menu_cold c1[2] = {{.cold = 50}, {.cold = 40}};
    elk_menu_entry e2[1] = {{.hot = 1500, .c0 = 0, .nc = 1}};
    elk_menu_cold c2[1] = {{.cold = 10}};
    elk_menu m[2];
    memset(m, 0, sizeof m);
    m[0].e = e1;
    m[0].n = 2;
    m[0].cold = c1;
    m[0].ncold = 2;
    m[0].min_cold = 40; /* only the 2000-byte plan has it */
    m[1].e = e2;
    m[1].n = 1;
    m[1].cold = c2;
    m[1].ncold = 1;
    m[1].min_cold = 10;
    ck_assert_double_eq(elk_plan_art_static_floor(m, 2), 2048);
    ck_assert_double_eq(elk_plan_art_static_floor(m + 1, 1), 2048); /* 1500 B: 2 KiB */
    m[0].min_cold = 50;
    ck_assert_double_eq(elk_plan_art_static_floor(m, 1), 1024);
}
END_TEST

/* The parser's errors name every switch of the table, the new one too. */
START_TEST(parse_lists_every_switch)
{
    unsigned mask;
    elk_error err;
    ck_assert_int_eq(elk_profile_parse("paper-plantables", &mask, &err), ELK_OK);
    ck_assert_uint_eq(mask, ELK_PROFILE_PAPER & ~(1u << ELK_PSW_PLANTABLES));
    ck_assert_int_ne(elk_profile_parse("paper+nosuch", &mask, &err), ELK_OK);
    for (int k = 0; k < ELK_PSW_COUNT; k++) ck_assert_ptr_nonnull(strstr(err.msg, elk_profile_switch_names[k]));
    ck_assert_ptr_nonnull(strstr(err.msg, "(switches: gather, "));
    ck_assert_ptr_nonnull(strstr(err.msg, "nobuffer, meshscalar)"));
    ck_assert_int_ne(elk_profile_parse("neither", &mask, &err), ELK_OK);
    ck_assert_ptr_nonnull(strstr(err.msg, "meshscalar)"));
}
END_TEST

static Suite *plan_art_suite(void)
{
    Suite *s = suite_create("plan_art");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, temporal_sort_bug);
    tcase_add_test(tc, pairing_by_hand);
    tcase_add_test(tc, set_invariants);
    tcase_add_test(tc, bounds_keep_exhaustive_table);
    tcase_add_test(tc, cache_key_has_switch);
    tcase_add_test(tc, static_floor_by_hand);
    tcase_add_test(tc, parse_lists_every_switch);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return run_suite(plan_art_suite()); }
