/* core/elk_graph: the decode step's HBM traffic (weights, KV cache) and
 * FLOPs against hand-computed values, --layers, shape sharing between
 * identical layers, and exact GQA shapes. */
#include <math.h>

#include "elk_graph.h"
#include "elk_test.h"

static void load(const char *name, elk_model *m)
{
    char rel[256], path[1024];
    elk_error err;
    snprintf(rel, sizeof rel, "presets/models/%s.cfg", name);
    ck_assert_msg(elk_model_load(src_path(path, sizeof path, rel), m, &err) == ELK_OK, "%s", err.msg);
}

static void build(const char *name, elk_workload wl, int B, int S, int layers, elk_model *m, elk_graph *g)
{
    elk_error err;
    load(name, m);
    ck_assert_msg(elk_graph_build(m, wl, B, S, layers, g, &err) == ELK_OK, "%s: %s", name, err.msg);
}

static int find(const elk_graph *g, const char *name)
{
    int i = elk_graph_find(g, name);
    ck_assert_msg(i >= 0, "no operator %s", name);
    return i;
}

/* Index of the tensor of op with the given role (the first), -1 if none. */
static int tensor_of(const elk_op *op, elk_tensor_role role)
{
    for (int t = 0; t < op->ntensors; t++)
        if (op->t[t].role == role) return t;
    return -1;
}

/* KV cache read per decode step = 2 (K and V) x layers x B x kv_heads x
 * head_dim x S x 2 bytes (fp16), exactly. Gemma2 is included only up to its
 * 4096-token window, where the window changes nothing. */
static const struct {
    const char *model;
    int B, S;
} kv_cases[] = {
    {"llama2-13b", 32, 2048}, {"llama2-13b", 16, 4096}, {"llama2-13b", 64, 2048},
    {"llama2-70b", 32, 2048}, {"llama2-70b", 1, 128},   {"gemma2-27b", 32, 2048},
    {"gemma2-27b", 16, 4096}, {"opt-30b", 16, 2048},    {"llama2-7b", 8, 1000},
    {"tiny", 2, 16},
};

START_TEST(kv_bytes_exact)
{
    elk_model m;
    elk_graph g;
    build(kv_cases[_i].model, ELK_WL_DECODE, kv_cases[_i].B, kv_cases[_i].S, 0, &m, &g);
    double want = 2.0 * m.layers * kv_cases[_i].B * m.kv_heads * m.head_dim * (double)kv_cases[_i].S * 2.0;
    ck_assert_msg(g.kv_bytes == want, "%s B%d S%d: KV %.0f bytes, want %.0f", kv_cases[_i].model,
                  kv_cases[_i].B, kv_cases[_i].S, g.kv_bytes, want);
    /* The totals are the sum over operators. */
    double w = 0, kv = 0, f = 0;
    for (int i = 0; i < g.nops; i++) {
        w += g.ops[i].weight_bytes;
        kv += g.ops[i].kv_bytes;
        f += g.ops[i].flops;
        ck_assert_double_eq(g.ops[i].hbm_bytes, g.ops[i].weight_bytes + g.ops[i].kv_bytes);
    }
    ck_assert_double_eq(w, g.weight_bytes);
    ck_assert_double_eq(kv, g.kv_bytes);
    ck_assert_double_eq_tol(f, g.flops, 1e-9 * g.flops);
    elk_graph_free(&g);
}
END_TEST

/* The acceptance numbers: Llama2-13B, B32, S2048. */
START_TEST(llama13b_reference_point)
{
    elk_model m;
    elk_graph g;
    build("llama2-13b", ELK_WL_DECODE, 32, 2048, 0, &m, &g);
    ck_assert_int_eq(g.nlayers, 40);
    ck_assert_msg(fabs(g.weight_bytes / 1e9 - 25.70) <= 0.05, "weights %.3f GB, want 25.70", g.weight_bytes / 1e9);
    /* 2 x 40 x 32 x 40 x 128 x 2048 x 2 = 53687091200 */
    ck_assert_double_eq(g.kv_bytes, 53687091200.0);
    /* The embedding table is gathered (32 rows), not read in full. */
    const elk_op *emb = &g.ops[find(&g, "embed")];
    ck_assert_double_eq(emb->weight_bytes, 32.0 * 5120 * 2);
    elk_graph_free(&g);
}
END_TEST

/* Decode FLOPs per token ~= 2 x parameters read (one multiply-add per
 * weight), when S is small enough that attention is negligible. */
static const struct {
    const char *model;
    int B, S;
} flop_cases[] = {
    {"llama2-13b", 1, 16}, {"llama2-13b", 32, 128}, {"llama2-70b", 8, 64}, {"opt-30b", 4, 32},
};

START_TEST(decode_flops_per_token)
{
    elk_model m;
    elk_graph g;
    build(flop_cases[_i].model, ELK_WL_DECODE, flop_cases[_i].B, flop_cases[_i].S, 0, &m, &g);
    double per_token = g.flops / flop_cases[_i].B;
    double params_read = g.weight_bytes / m.dtype_bytes;
    ck_assert_msg(fabs(per_token / (2.0 * params_read) - 1.0) < 0.05, "%s: %.4g FLOP/token vs 2 x %.4g params",
                  flop_cases[_i].model, per_token, params_read);
    elk_graph_free(&g);
}
END_TEST

/* tiny at B=2, S=16, by hand from the graph builder's conventions
 * (T = B = 2 tokens, H = 256, 4 query heads in G = 2 groups over Hkv = 2 KV
 * heads, D = 64, F = 688, vocab 1000). FLOPs per op:
 *   attn_norm   RMS statistic 2/elem + scale 3/elem: 5*T*H        =    2560
 *   qkv         2*T*(256 + 2*128)*H = 2*2*512*256                 =  524288
 *   rope        3 per element of q and k: 3*T*(256 + 128)         =    2304
 *   qk          2*B*Hkv*G*S*D = 2*2*2*2*16*64                     =   16384
 *   softmax     max 1 + exp 3 + sum 1 + div 1 = 6*B*Hkv*G*S       =     768
 *   pv          2*B*Hkv*G*D*S                                     =   16384
 *   o           2*T*H*256                                         =  262144
 *   attn_res    T*H                                               =     512
 *   ffn_norm    5*T*H                                             =    2560
 *   gate_up     2*T*(2*F)*H = 2*2*1376*256                        = 1409024
 *   act         SwiGLU 5 per element: 5*T*F                       =    6880
 *   down        2*T*H*F                                           =  704512
 *   ffn_res     T*H                                               =     512
 *   per layer                                                     = 2948832
 * Two layers 5897664; final_norm 5*T*H = 2560; lm_head 2*B*1000*H = 1024000;
 * embed is a gather (0). Total 6924224 FLOPs, 3462112 per token.
 * Weights read: embed rows T*H = 512; per layer 2 norm scales 2*256, qkv
 * 512*256, o 256*256, gate_up 1376*256, down 688*256 = 725504; final norm
 * 256; lm_head 1000*256 = 256000. Total 1707776 elements, x 2 bytes. */
START_TEST(tiny_by_hand)
{
    elk_model m;
    elk_graph g;
    build("tiny", ELK_WL_DECODE, 2, 16, 0, &m, &g);
    ck_assert_int_eq(g.nops, 40); /* embed + 2 x 18 + final_norm (2) + lm_head */
    ck_assert_int_eq(g.per_layer, 18);
    ck_assert_double_eq(g.ops[find(&g, "L0.qk")].flops, 16384.0);
    ck_assert_double_eq(g.ops[find(&g, "L1.gate_up")].flops, 1409024.0);
    ck_assert_double_eq(g.ops[find(&g, "lm_head")].flops, 1024000.0);
    ck_assert_double_eq(g.flops, 6924224.0);
    ck_assert_double_eq(g.weight_bytes, 1707776.0 * 2);
    /* KV: 2 x 2 layers x B2 x 2 heads x 64 x S16 x 2 bytes */
    ck_assert_double_eq(g.kv_bytes, 32768.0);
    elk_graph_free(&g);
}
END_TEST

/* --layers N keeps the first N layers and the head and tail around them. */
static const struct {
    const char *model;
    int layers;
} layer_cases[] = {{"llama2-13b", 1}, {"llama2-13b", 10}, {"llama2-70b", 3}, {"gemma2-27b", 5}, {"tiny", 1}};

START_TEST(layers_option)
{
    elk_model m;
    elk_graph full, cut;
    build(layer_cases[_i].model, ELK_WL_DECODE, 8, 512, 0, &m, &full);
    build(layer_cases[_i].model, ELK_WL_DECODE, 8, 512, layer_cases[_i].layers, &m, &cut);
    int n = layer_cases[_i].layers, tail = full.nops - full.head - m.layers * full.per_layer;
    ck_assert_int_eq(cut.nlayers, n);
    ck_assert_int_eq(cut.per_layer, full.per_layer);
    ck_assert_int_eq(cut.nops, full.head + n * full.per_layer + tail);
    ck_assert_double_eq(cut.kv_bytes, full.kv_bytes * n / m.layers);
    /* every kept op is the full graph's op of the same index; the tail follows */
    for (int i = 0; i < full.head + n * full.per_layer; i++) {
        ck_assert_str_eq(cut.ops[i].name, full.ops[i].name);
        ck_assert_double_eq(cut.ops[i].hbm_bytes, full.ops[i].hbm_bytes);
    }
    ck_assert_int_eq(cut.ops[cut.nops - 1].layer, n);
    ck_assert_str_eq(cut.ops[cut.nops - 1].name, "lm_head");
    elk_graph_free(&full);
    elk_graph_free(&cut);
}
END_TEST

START_TEST(layers_out_of_range)
{
    elk_model m;
    elk_graph g;
    elk_error err;
    load("tiny", &m);
    ck_assert_int_eq(elk_graph_build(&m, ELK_WL_DECODE, 1, 16, 3, &g, &err), ELK_ERANGE);
    ck_assert_contains(err.msg, "--layers 3");
    ck_assert_int_eq(elk_graph_build(&m, ELK_WL_DECODE, 0, 16, 0, &g, &err), ELK_ERANGE);
    ck_assert_contains(err.msg, "batch");
    ck_assert_int_eq(elk_graph_build(&m, ELK_WL_DECODE, 1, 0, 0, &g, &err), ELK_ERANGE);
    ck_assert_contains(err.msg, "seq");
}
END_TEST

/* Identical layers share shape ids position by position; different ops in
 * one layer do not. */
static const char *const shared_models[] = {"llama2-13b", "llama2-70b", "opt-30b", "tiny", "dit-xl"};

START_TEST(identical_layers_share_shapes)
{
    elk_model m;
    elk_graph g;
    build(shared_models[_i], ELK_WL_DECODE, 4, 256, 0, &m, &g);
    for (int l = 1; l < g.nlayers; l++)
        for (int k = 0; k < g.per_layer; k++) {
            const elk_op *a = &g.ops[g.head + k], *b = &g.ops[g.head + l * g.per_layer + k];
            ck_assert_int_eq(b->layer, l);
            ck_assert_int_eq(b->layer_pos, k);
            ck_assert_msg(a->shape_id == b->shape_id, "%s: %s shape %d vs %s shape %d", shared_models[_i],
                          a->name, a->shape_id, b->name, b->shape_id);
        }
    /* distinct shapes are few: a layer's worth plus head and tail */
    ck_assert_int_le(g.nshapes, g.per_layer + g.head + 4);
    ck_assert_int_ne(g.ops[find(&g, "L0.qk")].shape_id, g.ops[find(&g, "L0.o")].shape_id);
    elk_graph_free(&g);
}
END_TEST

/* Gemma2 beyond its window: even (local) layers read 4096 keys, odd layers
 * all S, so layers alternate between two shapes. */
START_TEST(gemma2_sliding_window)
{
    elk_model m;
    elk_graph g;
    build("gemma2-27b", ELK_WL_DECODE, 2, 8192, 0, &m, &g);
    double per_key = 2.0 * 2 * m.kv_heads * m.head_dim * 2.0; /* K+V, B=2, fp16 */
    ck_assert_double_eq(g.kv_bytes, per_key * (23.0 * 4096 + 23.0 * 8192));
    const elk_op *q0 = &g.ops[find(&g, "L0.qk")], *q1 = &g.ops[find(&g, "L1.qk")], *q2 = &g.ops[find(&g, "L2.qk")];
    ck_assert_int_ne(q0->shape_id, q1->shape_id);
    ck_assert_int_eq(q0->shape_id, q2->shape_id);
    ck_assert_double_eq(q0->kv_bytes * 2, q1->kv_bytes);
    elk_graph_free(&g);
}
END_TEST

/* GQA is exact: K and V are indexed by KV heads only, the query side by all
 * heads; FLOPs are those of all 64 query heads. */
START_TEST(gqa_shapes)
{
    elk_model m;
    elk_graph g;
    const long B = 4, S = 512;
    build("llama2-70b", ELK_WL_DECODE, (int)B, (int)S, 0, &m, &g);
    for (int which = 0; which < 2; which++) {
        const elk_op *op = &g.ops[find(&g, which ? "L0.pv" : "L0.qk")];
        int kv = tensor_of(op, ELK_TR_KV);
        ck_assert_int_ge(kv, 0);
        ck_assert_double_eq(elk_op_tensor_elems(op, kv), (double)B * 8 * 128 * S);
        ck_assert_double_eq(op->kv_bytes, (double)B * 8 * 128 * S * 2);
        ck_assert_double_eq(op->flops, 2.0 * B * 64 * 128 * S);
    }
    const elk_op *qk = &g.ops[find(&g, "L0.qk")];
    ck_assert_double_eq(elk_op_tensor_elems(qk, 1), (double)B * 64 * 128); /* queries: all heads */
    ck_assert_double_eq(elk_op_tensor_elems(qk, 0), (double)B * 64 * S);   /* scores */
    /* the QKV projection is GQA-sized: 64 + 2 x 8 heads of 128 */
    ck_assert_double_eq(g.ops[find(&g, "L0.qkv")].weight_bytes, 8192.0 * (64 + 16) * 128 * 2);
    elk_graph_free(&g);
}
END_TEST

/* The training forward pass keeps K and V on chip and computes logits for
 * every token. */
START_TEST(train_forward)
{
    elk_model m;
    elk_graph g;
    build("llama2-13b", ELK_WL_TRAIN_FWD, 2, 2048, 0, &m, &g);
    ck_assert_double_eq(g.kv_bytes, 0.0);
    const elk_op *lm = &g.ops[find(&g, "lm_head")];
    ck_assert_double_eq(lm->flops, 2.0 * 2 * 2048 * 32000 * 5120);
    elk_graph_free(&g);
}
END_TEST

START_TEST(find_by_index_and_name)
{
    elk_model m;
    elk_graph g;
    build("tiny", ELK_WL_DECODE, 1, 8, 0, &m, &g);
    ck_assert_int_eq(elk_graph_find(&g, "0"), 0);
    ck_assert_int_eq(elk_graph_find(&g, "39"), 39);
    ck_assert_int_eq(elk_graph_find(&g, "40"), -1);
    ck_assert_int_eq(elk_graph_find(&g, "-1"), -1);
    ck_assert_int_eq(elk_graph_find(&g, "L1.o"), g.head + g.per_layer + g.ops[find(&g, "L0.o")].layer_pos);
    ck_assert_int_eq(elk_graph_find(&g, "L9.o"), -1);
    elk_graph_free(&g);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("graph");
    TCase *tc = tcase_create("hbm");
    tcase_add_loop_test(tc, kv_bytes_exact, 0, sizeof kv_cases / sizeof kv_cases[0]);
    tcase_add_test(tc, llama13b_reference_point);
    tcase_add_test(tc, gemma2_sliding_window);
    tcase_add_test(tc, train_forward);
    suite_add_tcase(s, tc);
    tc = tcase_create("flops");
    tcase_add_loop_test(tc, decode_flops_per_token, 0, sizeof flop_cases / sizeof flop_cases[0]);
    tcase_add_test(tc, tiny_by_hand);
    suite_add_tcase(s, tc);
    tc = tcase_create("structure");
    tcase_add_loop_test(tc, layers_option, 0, sizeof layer_cases / sizeof layer_cases[0]);
    tcase_add_test(tc, layers_out_of_range);
    tcase_add_loop_test(tc, identical_layers_share_shapes, 0, sizeof shared_models / sizeof shared_models[0]);
    tcase_add_test(tc, gqa_shapes);
    tcase_add_test(tc, find_by_index_and_name);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
