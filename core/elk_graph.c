#include "elk_graph.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const elk_workload_names[] = {"decode", "train-fwd", "prefill", NULL};
const char *const elk_op_kind_names[] = {"matmul", "elemwise", "unary", "reduce", NULL};

/* Builder state: the graph being filled and the op being described. */
typedef struct {
    elk_graph *g;
    const elk_model *m;
    int layer;
    int pos;
    elk_status st;
    elk_error *err;
} builder;

static elk_op *op_new(builder *b, const char *name, elk_op_kind kind)
{
    elk_graph *g = b->g;
    if (g->nops == g->cap) {
        int cap = g->cap ? 2 * g->cap : 256;
        elk_op *ops = realloc(g->ops, (size_t)cap * sizeof *ops);
        if (!ops) {
            b->st = elk_fail(b->err, ELK_ENOMEM, "out of memory building the graph");
            return NULL;
        }
        g->ops = ops;
        g->cap = cap;
    }
    elk_op *op = &g->ops[g->nops++];
    memset(op, 0, sizeof *op);
    if (b->layer >= 0 && b->layer < g->nlayers)
        snprintf(op->name, sizeof op->name, "L%d.%s", b->layer, name);
    else
        snprintf(op->name, sizeof op->name, "%s", name);
    op->kind = kind;
    op->layer = b->layer;
    op->layer_pos = b->pos++;
    op->dtype_bytes = b->m->dtype_bytes;
    return op;
}

/* dims given as a string of one-letter names and an array of extents */
static void set_dims(elk_op *op, const char *names, const long *ext)
{
    op->ndims = (int)strlen(names);
    for (int d = 0; d < op->ndims; d++) {
        op->dim[d] = ext[d];
        op->dimname[d][0] = names[d];
        op->dimname[d][1] = '\0';
    }
}

/* a tensor over the dims named in `axes` (letters of the op's dim names) */
static void add_tensor(elk_op *op, elk_tensor_role role, const char *axes)
{
    elk_tensor *t = &op->t[op->ntensors++];
    t->role = role;
    t->naxes = (int)strlen(axes);
    for (int a = 0; a < t->naxes; a++)
        for (int d = 0; d < op->ndims; d++)
            if (op->dimname[d][0] == axes[a]) t->axis[a] = d;
}

double elk_op_tensor_elems(const elk_op *op, int ti)
{
    double e = 1;
    for (int a = 0; a < op->t[ti].naxes; a++) e *= (double)op->dim[op->t[ti].axis[a]];
    return e;
}

static double op_points(const elk_op *op)
{
    double p = 1;
    for (int d = 0; d < op->ndims; d++) p *= (double)op->dim[d];
    return p;
}

/* finish: FLOPs and HBM bytes */
static void op_done(builder *b, elk_op *op, double flops_per_point)
{
    op->flops = op_points(op) * flops_per_point;
    int bytes = b->m->dtype_bytes;
    for (int i = 1; i < op->ntensors; i++) {
        double v = elk_op_tensor_elems(op, i) * bytes;
        if (op->t[i].role == ELK_TR_WEIGHT) op->weight_bytes += v;
        if (op->t[i].role == ELK_TR_KV) op->kv_bytes += v;
    }
    op->hbm_bytes = op->weight_bytes + op->kv_bytes;
}

static void matmul(builder *b, const char *name, long m, long n, long k, elk_tensor_role wrole)
{
    elk_op *op = op_new(b, name, ELK_OP_MATMUL);
    if (!op) return;
    long e[] = {m, n, k};
    set_dims(op, "mnk", e);
    add_tensor(op, ELK_TR_OUT, "mn");
    add_tensor(op, ELK_TR_ACT, "mk");
    add_tensor(op, wrole, "kn");
    op_done(b, op, 2.0);
}

/* x[T,H] -> out[T,H] with optional per-channel weights (norm scale). */
static void norm(builder *b, const char *name, long T, long H)
{
    char nm[32];
    snprintf(nm, sizeof nm, "%s.stat", name);
    elk_op *op = op_new(b, nm, ELK_OP_REDUCE);
    if (!op) return;
    long e[] = {T, H};
    set_dims(op, "th", e);
    add_tensor(op, ELK_TR_OUT, "t");
    add_tensor(op, ELK_TR_ACT, "th");
    op_done(b, op, b->m->norm == ELK_NORM_LAYER ? 3.0 : 2.0);
    /* the artifact's RMSNorm: x*x, sum, /n, +eps, sqrt (x - mean and its
     * square on top for LayerNorm), then x/rms and *gamma */
    op->unf_elem = b->m->norm == ELK_NORM_LAYER ? 3 : 1;
    op->unf_row = b->m->norm == ELK_NORM_LAYER ? 4 : 3;
    op->unf_cold = 1; /* epsilon, and x itself re-read as a residual */

    snprintf(nm, sizeof nm, "%s.scale", name);
    op = op_new(b, nm, ELK_OP_ELEMWISE);
    if (!op) return;
    set_dims(op, "th", e);
    add_tensor(op, ELK_TR_OUT, "th");
    add_tensor(op, ELK_TR_ACT, "th");
    add_tensor(op, ELK_TR_WEIGHT, "h");
    if (b->m->norm == ELK_NORM_LAYER) add_tensor(op, ELK_TR_WEIGHT, "h");
    op_done(b, op, b->m->norm == ELK_NORM_LAYER ? 4.0 : 3.0);
    op->unf_elem = b->m->norm == ELK_NORM_LAYER ? 2 : 1;
}

static void eltwise2(builder *b, const char *name, long T, long H, double fpp)
{
    elk_op *op = op_new(b, name, ELK_OP_ELEMWISE);
    if (!op) return;
    long e[] = {T, H};
    set_dims(op, "th", e);
    add_tensor(op, ELK_TR_OUT, "th");
    add_tensor(op, ELK_TR_ACT, "th");
    add_tensor(op, ELK_TR_ACT, "th");
    op_done(b, op, fpp);
}

static void unary(builder *b, const char *name, long T, long H, double fpp)
{
    elk_op *op = op_new(b, name, ELK_OP_UNARY);
    if (!op) return;
    long e[] = {T, H};
    set_dims(op, "th", e);
    add_tensor(op, ELK_TR_OUT, "th");
    add_tensor(op, ELK_TR_ACT, "th");
    op_done(b, op, fpp);
}

/* Attention core for one layer. Dims: b (batch), g (KV-head groups),
 * q (query rows per group: heads/kv_heads * query tokens), s (keys),
 * d (head dim). GQA is exact: K and V are indexed by kv heads only. */
static void attention(builder *b, long B, long qtok, long S, elk_tensor_role kvrole)
{
    const elk_model *m = b->m;
    long Hkv = m->kv_heads, G = (long)(m->heads / m->kv_heads) * qtok, D = m->head_dim;

    elk_op *op = op_new(b, "qk", ELK_OP_MATMUL);
    if (!op) return;
    long e1[] = {B, Hkv, G, S, D};
    set_dims(op, "bgqsd", e1);
    add_tensor(op, ELK_TR_OUT, "bgqs");
    add_tensor(op, ELK_TR_ACT, "bgqd");
    add_tensor(op, kvrole, "bgds");
    op_done(b, op, 2.0);

    long e2[] = {B, Hkv, G, S};
    const char *sm[] = {"softmax.max", "softmax.exp", "softmax.sum", "softmax.div"};
    for (int i = 0; i < 4; i++) {
        op = op_new(b, sm[i], i % 2 == 0 ? ELK_OP_REDUCE : ELK_OP_ELEMWISE);
        if (!op) return;
        set_dims(op, "bgqs", e2);
        if (i % 2 == 0) {
            add_tensor(op, ELK_TR_OUT, "bgq");
            add_tensor(op, ELK_TR_ACT, "bgqs");
        } else {
            add_tensor(op, ELK_TR_OUT, "bgqs");
            add_tensor(op, ELK_TR_ACT, "bgqs");
            add_tensor(op, ELK_TR_ACT, "bgq");
        }
        op_done(b, op, i == 1 ? 3.0 : 1.0);
        if (i == 0) {
            op->unf_elem = 2; /* the artifact's scale and mask before softmax */
            op->unf_cold = 1; /* the mask */
        }
    }

    op = op_new(b, "pv", ELK_OP_MATMUL);
    if (!op) return;
    long e3[] = {B, Hkv, G, D, S};
    set_dims(op, "bgqds", e3);
    add_tensor(op, ELK_TR_OUT, "bgqd");
    add_tensor(op, ELK_TR_ACT, "bgqs");
    add_tensor(op, kvrole, "bgsd");
    op_done(b, op, 2.0);
}

static void ffn(builder *b, long T)
{
    const elk_model *m = b->m;
    long H = m->hidden, F = m->ffn;
    int glu = m->ffn_kind == ELK_FFN_SWIGLU || m->ffn_kind == ELK_FFN_GEGLU;
    if (m->experts) {
        /* Router, then the experts the batch activates (expected count),
         * or every expert when all are preloaded */
        int gated = m->moe_preload == ELK_MOE_ROUTED;
        matmul(b, "router", T, m->experts, H, ELK_TR_WEIGHT);
        if (gated && b->g->nops > 0) b->g->ops[b->g->nops - 1].route = 1;
        double k = m->experts_per_token, E = m->experts;
        long active = (long)ceil(E * (1.0 - pow(1.0 - k / E, (double)T)));
        if (active < 1) active = 1;
        if (m->moe_preload == ELK_MOE_ALL) active = m->experts;
        long rows = (long)ceil((double)T * k / (double)active);
        elk_op *op = op_new(b, "experts.up", ELK_OP_MATMUL);
        if (!op) return;
        long e[] = {active, rows, (glu ? 2 : 1) * F, H};
        set_dims(op, "emnk", e);
        add_tensor(op, ELK_TR_OUT, "emn");
        add_tensor(op, ELK_TR_ACT, "emk");
        add_tensor(op, ELK_TR_WEIGHT, "ekn");
        op->route = 2 * gated;
        op_done(b, op, 2.0);
        if (glu) eltwise2(b, "experts.act", active * rows, F, 5.0);
        else unary(b, "experts.act", active * rows, F, 1.0);
        op = op_new(b, "experts.down", ELK_OP_MATMUL);
        if (!op) return;
        long e2[] = {active, rows, H, F};
        set_dims(op, "emnk", e2);
        add_tensor(op, ELK_TR_OUT, "emn");
        add_tensor(op, ELK_TR_ACT, "emk");
        add_tensor(op, ELK_TR_WEIGHT, "ekn");
        op->route = 2 * gated;
        op_done(b, op, 2.0);
        return;
    }
    if (glu) {
        matmul(b, "gate_up", T, 2 * F, H, ELK_TR_WEIGHT);
        eltwise2(b, "act", T, F, 5.0);
        /* the artifact's SwiGLU: two slices of gate_up, sigmoid, two muls */
        b->g->ops[b->g->nops - 1].unf_slice = 2;
        b->g->ops[b->g->nops - 1].unf_elem = 2;
        b->g->ops[b->g->nops - 1].unf_cold = 2; /* the slices, re-read by the sigmoid and the last mul */
    } else {
        matmul(b, "fc1", T, F, H, ELK_TR_WEIGHT);
        unary(b, "act", T, F, m->ffn_kind == ELK_FFN_RELU ? 1.0 : 8.0);
    }
    matmul(b, "down", T, H, F, ELK_TR_WEIGHT);
}

static void llm_layer(builder *b, int layer, long B, long qtok, long S, elk_tensor_role kvrole)
{
    const elk_model *m = b->m;
    long T = B * qtok, H = m->hidden;
    long nq = (long)m->heads * m->head_dim, nkv = (long)m->kv_heads * m->head_dim;
    long S_eff = S;
    /* Gemma2-style local attention on even layers reads at most the window. */
    if (m->sliding_window && layer % 2 == 0 && S > m->sliding_window && kvrole == ELK_TR_KV)
        S_eff = m->sliding_window;
    b->layer = layer;
    b->pos = 0;
    norm(b, "attn_norm", T, H);
    matmul(b, "qkv", T, nq + 2 * nkv, H, ELK_TR_WEIGHT);
    if (m->family != ELK_FAM_OPT) {
        elk_op *op = op_new(b, "rope", ELK_OP_ELEMWISE);
        if (!op) return;
        long e[] = {T, nq + nkv};
        set_dims(op, "th", e);
        add_tensor(op, ELK_TR_OUT, "th");
        add_tensor(op, ELK_TR_ACT, "th");
        op_done(b, op, 3.0);
        /* the artifact's RoPE on Q and K: 7 slices, 2 x (mul, neg, mul, add) */
        op->unf_slice = 7;
        op->unf_elem = 7;
        op->unf_cold = 2; /* the cos and sin tables, read up to its last part */
    }
    attention(b, B, qtok, S_eff, kvrole);
    matmul(b, "o", T, H, nq, ELK_TR_WEIGHT);
    if (m->post_norms) norm(b, "post_attn_norm", T, H);
    eltwise2(b, "attn_res", T, H, 1.0);
    b->g->ops[b->g->nops - 1].unf_cold = 1; /* the residual, which the artifact preloads */
    norm(b, "ffn_norm", T, H);
    ffn(b, T);
    if (m->post_norms) norm(b, "post_ffn_norm", T, H);
    eltwise2(b, "ffn_res", T, H, 1.0);
    b->g->ops[b->g->nops - 1].unf_cold = 1;
}

static void dit_layer(builder *b, int layer, long B)
{
    const elk_model *m = b->m;
    long N = m->tokens, T = B * N, H = m->hidden;
    b->layer = layer;
    b->pos = 0;
    matmul(b, "adaln", B, 6 * H, m->cond_dim, ELK_TR_WEIGHT);
    const char *stage[2] = {"attn", "mlp"};
    for (int s = 0; s < 2; s++) {
        char nm[32];
        snprintf(nm, sizeof nm, "%s_norm.stat", stage[s]);
        elk_op *op = op_new(b, nm, ELK_OP_REDUCE);
        if (!op) return;
        long e[] = {B, N, H};
        set_dims(op, "bth", e);
        add_tensor(op, ELK_TR_OUT, "bt");
        add_tensor(op, ELK_TR_ACT, "bth");
        op_done(b, op, 3.0);
        snprintf(nm, sizeof nm, "%s_norm.mod", stage[s]);
        op = op_new(b, nm, ELK_OP_ELEMWISE);
        if (!op) return;
        set_dims(op, "bth", e);
        add_tensor(op, ELK_TR_OUT, "bth");
        add_tensor(op, ELK_TR_ACT, "bth");
        add_tensor(op, ELK_TR_ACT, "bh");
        op_done(b, op, 4.0);
        if (s == 0) {
            matmul(b, "qkv", T, 3 * H, H, ELK_TR_WEIGHT);
            attention(b, B, N, N, ELK_TR_ACT);
            matmul(b, "o", T, H, H, ELK_TR_WEIGHT);
        } else {
            matmul(b, "fc1", T, m->ffn, H, ELK_TR_WEIGHT);
            unary(b, "act", T, m->ffn, 8.0);
            matmul(b, "fc2", T, H, m->ffn, ELK_TR_WEIGHT);
        }
        snprintf(nm, sizeof nm, "%s_res", stage[s]);
        op = op_new(b, nm, ELK_OP_ELEMWISE);
        if (!op) return;
        set_dims(op, "bth", e);
        add_tensor(op, ELK_TR_OUT, "bth");
        add_tensor(op, ELK_TR_ACT, "bth");
        add_tensor(op, ELK_TR_ACT, "bh");
        op_done(b, op, 2.0);
    }
}

/* Same kind, dtype and tensors (roles and axes); extents may differ. */
static int same_structure(const elk_op *a, const elk_op *b)
{
    if (a->kind != b->kind || a->ndims != b->ndims || a->ntensors != b->ntensors ||
        a->dtype_bytes != b->dtype_bytes)
        return 0;
    for (int t = 0; t < a->ntensors; t++) {
        if (a->t[t].role != b->t[t].role || a->t[t].naxes != b->t[t].naxes) return 0;
        for (int x = 0; x < a->t[t].naxes; x++)
            if (a->t[t].axis[x] != b->t[t].axis[x]) return 0;
    }
    return 1;
}

/* Ops that only the unfused charge tells apart (elk_graph.unfused) */
static int same_unfused(const elk_op *a, const elk_op *b)
{
    return a->unf_elem == b->unf_elem && a->unf_row == b->unf_row && a->unf_slice == b->unf_slice &&
           a->unf_cold == b->unf_cold;
}

static int same_shape(const elk_op *a, const elk_op *b)
{
    if (!same_structure(a, b)) return 0;
    for (int d = 0; d < a->ndims; d++)
        if (a->dim[d] != b->dim[d]) return 0;
    return 1;
}

static void assign_shapes(elk_graph *g)
{
    int *rep = malloc((size_t)g->nops * sizeof *rep); /* first op of each shape */
    g->nshapes = 0;
    for (int i = 0; i < g->nops; i++) {
        int s = -1;
        /* identical layers: compare with the same position in layer 0 first */
        elk_op *op = &g->ops[i];
        if (op->layer > 0 && op->layer < g->nlayers) {
            elk_op *ref = &g->ops[g->head + op->layer_pos];
            if (same_shape(ref, op) && (!g->unfused || same_unfused(ref, op))) s = ref->shape_id;
        }
        for (int k = 0; s < 0 && k < g->nshapes; k++)
            if (same_shape(&g->ops[rep[k]], op) && (!g->unfused || same_unfused(&g->ops[rep[k]], op))) s = k;
        if (s < 0) {
            s = g->nshapes;
            if (rep) rep[g->nshapes++] = i;
        }
        op->shape_id = s;
    }
    free(rep);
}

elk_status elk_graph_build(const elk_model *m, elk_workload wl, int batch, int seq,
                           int layers, elk_graph *g, elk_error *err)
{
    memset(g, 0, sizeof *g);
    ELK_TRY(elk_model_check(m, err));
    if (batch < 1 || batch > (1 << 20)) return elk_fail(err, ELK_ERANGE, "batch %d out of range (1 .. 1048576)", batch);
    if (seq < 1 || seq > (1 << 24)) return elk_fail(err, ELK_ERANGE, "seq %d out of range (1 .. 16777216)", seq);
    if (layers < 0 || layers > m->layers)
        return elk_fail(err, ELK_ERANGE, "--layers %d out of range (1 .. %d for %s)", layers, m->layers, m->name);
    g->nlayers = layers ? layers : m->layers;
    g->workload = wl;
    g->batch = batch;
    g->seq = seq;
    g->dtype_bytes = m->dtype_bytes;
    builder b = {g, m, -1, 0, ELK_OK, err};
    long B = batch, H = m->hidden;

    if (m->family == ELK_FAM_DIT) {
        long T = B * m->tokens;
        matmul(&b, "t_embed", B, m->cond_dim, 256, ELK_TR_WEIGHT);
        matmul(&b, "patch_embed", T, H, 16, ELK_TR_WEIGHT);
        g->head = g->nops;
        for (int l = 0; l < g->nlayers && b.st == ELK_OK; l++) dit_layer(&b, l, B);
        g->per_layer = g->nlayers ? (g->nops - g->head) / g->nlayers : 0;
        b.layer = g->nlayers;
        b.pos = 0;
        matmul(&b, "final_adaln", B, 2 * H, m->cond_dim, ELK_TR_WEIGHT);
        matmul(&b, "final_linear", T, 32, H, ELK_TR_WEIGHT);
    } else {
        long qtok = wl == ELK_WL_DECODE ? 1 : seq;
        long S = seq;
        long T = B * qtok;
        /* The embedding table is not read in full: only the T rows gathered. */
        elk_op *op = op_new(&b, "embed", ELK_OP_ELEMWISE);
        if (op) {
            long e[] = {T, H};
            set_dims(op, "th", e);
            add_tensor(op, ELK_TR_OUT, "th");
            add_tensor(op, ELK_TR_WEIGHT, "th");
            op_done(&b, op, 0.0);
        }
        g->head = g->nops;
        elk_tensor_role kvrole = wl == ELK_WL_DECODE ? ELK_TR_KV : ELK_TR_ACT;
        for (int l = 0; l < g->nlayers && b.st == ELK_OK; l++) llm_layer(&b, l, B, qtok, S, kvrole);
        g->per_layer = g->nlayers ? (g->nops - g->head) / g->nlayers : 0;
        b.layer = g->nlayers;
        b.pos = 0;
        norm(&b, "final_norm", T, H);
        /* prefill and decode need logits only for each sequence's last token */
        long lmrows = wl == ELK_WL_TRAIN_FWD ? T : B;
        matmul(&b, "lm_head", lmrows, m->vocab, H, ELK_TR_WEIGHT);
    }
    if (b.st != ELK_OK) {
        elk_graph_free(g);
        return b.st;
    }
    for (int i = 0; i < g->nops; i++) {
        g->weight_bytes += g->ops[i].weight_bytes;
        g->kv_bytes += g->ops[i].kv_bytes;
        g->flops += g->ops[i].flops;
    }
    assign_shapes(g);
#ifndef NDEBUG
    /* elk_graph's and elk_op's stated invariants: layer L's ops occupy
     * [head + L*per_layer, head + (L+1)*per_layer), ops before are layer
     * -1 and ops after are layer nlayers; every tensor has 1..ndims axes;
     * hbm_bytes is the WEIGHT and KV bytes */
    for (int i = 0; i < g->nops; i++) {
        const elk_op *op = &g->ops[i];
        int end = g->head + g->nlayers * g->per_layer;
        int want = i < g->head ? -1 : i >= end ? g->nlayers : (i - g->head) / g->per_layer;
        assert(op->layer == want);
        assert(op->ntensors >= 1 && op->ntensors <= ELK_MAX_TENSORS);
        for (int t = 0; t < op->ntensors; t++) assert(op->t[t].naxes > 0 && op->t[t].naxes <= op->ndims);
        assert(op->hbm_bytes == op->weight_bytes + op->kv_bytes);
    }
#endif
    return ELK_OK;
}

void elk_graph_free(elk_graph *g)
{
    free(g->ops);
    memset(g, 0, sizeof *g);
}

/* ------------------------------------------------------------------ */
/* Splitting operators that outgrow SRAM                                */

/* An operator whose tensors exceed the cap (the caller's share of the chip's
 * SRAM) runs as k pieces in sequence. Two kinds of cut conserve HBM bytes
 * (every HBM tensor must index the dim, or each piece would read it whole):
 *  - parallel, along a dim the output indexes: the pieces write disjoint
 *    output slices; an input that does not index the dim is held whole by
 *    every piece (P.V cut along its head dim d holds all the scores twice);
 *  - reduced, along a dim the output does not (P.V's KV length s, a matmul's
 *    k): each piece reads 1/k of its inputs and writes a full-size partial
 *    output, and k-1 elementwise adds sum the partials.
 * The rule picks the cut that moves the least data on chip: volume_bytes =
 * the tensor bytes of all pieces (replicated inputs once per piece) plus, for
 * a reduced cut, the adds' 3 x output bytes each. That is the replication a
 * parallel cut pays against the partial outputs a reduced one pays, which is
 * what separates their execution times: the planner's time for one piece
 * grows with the bytes it must shift and broadcast, while the FLOPs are the
 * same. It is the (b) rule of thumb made exact: the reduced cut wins when
 * the parallel one's replicated input outweighs the partial outputs, i.e.
 * when the parallel cut leaves each piece's output small next to what it
 * must hold. Measured against the planner's own times (pieces x time +
 * adds x time) at 1472 cores on Llama2-13B/70B, Gemma2-27B, OPT-30B decode,
 * training and prefill, it picks the fastest cut for Q.K and P.V in every
 * case but one (70B B1 S1M, where S is 1% faster for P.V and 6% for Q.K),
 * and for weight matmuls it is within 3% of the fastest. Callers that want the fastest exactly pass a chooser to
 * elk_graph_split_large_by. On the case (Llama2-13B decode B32 S2048,
 * ipu-mk2) P.V is cut across its 40 KV heads, which replicates nothing and
 * needs no add: 48.9 us per half, against 50.9 + 0.4 us along S and 73.1 us
 * along d (the old rule's largest output dim). The S cut is taken when the
 * heads cannot give enough pieces (long contexts, few KV heads). */

const char *const elk_split_kind_names[] = {"parallel", "reduced", NULL};

static double op_bytes(const elk_op *op)
{
    double b = 0;
    for (int t = 0; t < op->ntensors; t++) b += elk_op_tensor_elems(op, t) * op->dtype_bytes;
    return b;
}

static int tensor_has(const elk_tensor *t, int d)
{
    for (int a = 0; a < t->naxes; a++)
        if (t->axis[a] == d) return 1;
    return 0;
}

long elk_split_len(long D, int k, int p)
{
    if (k < 1) return p == 0 ? D : 0;
    if (p < 0 || p >= k) return 0;
    return D / k + (p < D % k ? 1 : 0);
}

/* The option of cutting op along dim d, or 0 if d cannot be cut: a dim of
 * extent 1, or one some HBM tensor does not index (every piece would read
 * that tensor whole, and HBM bytes would no longer be conserved).
 * Bytes are split into per_unit (tensors indexing d, per unit of d) and
 * fixed (tensors a piece holds whole), so a piece of extent len holds
 * per_unit * len + fixed bytes: exact integers, no rounding. */
static int split_option(const elk_op *op, int d, double cap, elk_split *s)
{
    long D = op->dim[d];
    if (D < 2) return 0;
    double per_unit = 0, fixed = 0, out_bytes = elk_op_tensor_elems(op, 0) * op->dtype_bytes;
    for (int t = 0; t < op->ntensors; t++) {
        int has = tensor_has(&op->t[t], d);
        if (!has && (op->t[t].role == ELK_TR_WEIGHT || op->t[t].role == ELK_TR_KV)) return 0;
        double b = elk_op_tensor_elems(op, t) * op->dtype_bytes;
        if (has) per_unit += b / (double)D;
        else fixed += b;
    }
    if (per_unit <= 0) return 0;
    s->kind = tensor_has(&op->t[0], d) ? ELK_SPLIT_PARALLEL : ELK_SPLIT_REDUCED;
    s->dim = d;
    /* the fewest pieces whose longest, ceil(D/k), fits: ceil(D/k) <= c iff k >= D/c */
    double c = floor((cap - fixed) / per_unit), k;
    if (c >= 1) k = ceil((double)D / c);
    else k = ceil((per_unit * (double)D + fixed) / cap); /* cannot fit: as fine as the bytes say */
    double kmax = D < ELK_SPLIT_MAX_PIECES ? (double)D : ELK_SPLIT_MAX_PIECES;
    if (!(k >= 2)) k = 2; /* also NaN */
    if (k > kmax) k = kmax;
    s->pieces = (int)k;
    s->piece_bytes = per_unit * (double)elk_split_len(D, s->pieces, 0) + fixed;
    s->fits = s->piece_bytes <= cap;
    s->volume_bytes = per_unit * (double)D + k * fixed;
    if (s->kind == ELK_SPLIT_REDUCED) {
        /* the adds hold two partial outputs and the sum: they must fit too */
        s->volume_bytes += (k - 1) * 3 * out_bytes;
        if (3 * out_bytes > cap) s->fits = 0;
    }
    return 1;
}

/* split_option with a given number of pieces (the fit and score recomputed). */
static void split_with_pieces(const elk_op *op, double cap, int k, elk_split *s)
{
    long D = op->dim[s->dim];
    double per_unit = 0, fixed = 0, out_bytes = elk_op_tensor_elems(op, 0) * op->dtype_bytes;
    for (int t = 0; t < op->ntensors; t++) {
        double b = elk_op_tensor_elems(op, t) * op->dtype_bytes;
        if (tensor_has(&op->t[t], s->dim)) per_unit += b / (double)D;
        else fixed += b;
    }
    s->pieces = k;
    s->piece_bytes = per_unit * (double)elk_split_len(D, k, 0) + fixed;
    s->fits = s->piece_bytes <= cap;
    s->volume_bytes = per_unit * (double)D + k * fixed;
    if (s->kind == ELK_SPLIT_REDUCED) {
        s->volume_bytes += (k - 1) * 3 * out_bytes;
        if (3 * out_bytes > cap) s->fits = 0;
    }
}

static int split_ladder_m(const elk_op *op, double cap_bytes, double margin, int full, elk_split *opt, int max);

int elk_split_ladder(const elk_op *op, double cap_bytes, elk_split *opt, int max)
{
    return split_ladder_m(op, cap_bytes, ELK_SPLIT_LADDER_MARGIN, 0, opt, max);
}

int elk_split_ladder_any(const elk_op *op, double cap_bytes, elk_split *opt, int max)
{
    return split_ladder_m(op, cap_bytes, INFINITY, 0, opt, max);
}

int elk_split_ladder_full(const elk_op *op, double cap_bytes, elk_split *opt, int max)
{
    return split_ladder_m(op, cap_bytes, INFINITY, 1, opt, max);
}

static int split_ladder_m(const elk_op *op, double cap_bytes, double margin, int full, elk_split *opt, int max)
{
    if (!(cap_bytes > 0) || op_bytes(op) * margin <= cap_bytes) return 0;
    int n = 0;
    if (op_bytes(op) <= cap_bytes && n < max) /* whole, as one candidate among the cuts */
        opt[n++] = (elk_split){ELK_SPLIT_PARALLEL, 0, 1, 1, op_bytes(op), op_bytes(op)};
    for (int d = 0; d < op->ndims && d < ELK_MAX_DIMS; d++) {
        elk_split s;
        if (!split_option(op, d, cap_bytes, &s)) continue;
        long D = op->dim[d];
        long k = 2;
        while (k < s.pieces) k *= 2;
        if (k > D || k > ELK_SPLIT_MAX_PIECES) { /* as fine as the dim allows */
            if (n < max) opt[n++] = s;
            continue;
        }
        /* past ELK_SPLIT_LADDER_MAX, the fewest and twice them: a larger cap
         * can halve the fewest, and the fewest it had is then still offered,
         * but not twice that (elk check --seed 1 point 1918: lm_head's 128
         * pieces, offered at 49.7 KiB where 64 fit, are gone at 62.125 KiB
         * where 32 fit; Elk-Full 5% slower). Only a top that does not move
         * with the cap nests; every power of two to the dim's extent (full)
         * made that point 9x slower to plan, and a top set by 4 KiB per core
         * moved as many inversions as it fixed (docs/VALIDATION.md, session
         * 26) */
        for (long k0 = k; n < max; k *= 2) {
            if (k > D || k > ELK_SPLIT_MAX_PIECES) break;
            split_with_pieces(op, cap_bytes, (int)k, &s);
            opt[n++] = s;
            if (!full && k >= ELK_SPLIT_LADDER_MAX && k >= 2 * k0) break;
        }
    }
    return n;
}

/* The rule's order: fitting first, least volume, parallel, larger dim. */
static int split_better(const elk_op *op, const elk_split *a, const elk_split *b)
{
    if (a->fits != b->fits) return a->fits;
    if (a->volume_bytes != b->volume_bytes) return a->volume_bytes < b->volume_bytes;
    if (a->kind != b->kind) return a->kind == ELK_SPLIT_PARALLEL;
    if (op->dim[a->dim] != op->dim[b->dim]) return op->dim[a->dim] > op->dim[b->dim];
    return a->dim < b->dim;
}

int elk_split_options(const elk_op *op, double cap_bytes, elk_split opt[ELK_MAX_DIMS])
{
    if (!(cap_bytes > 0) || op_bytes(op) <= cap_bytes) return 0;
    int n = 0;
    for (int d = 0; d < op->ndims && d < ELK_MAX_DIMS; d++) {
        elk_split s;
        if (!split_option(op, d, cap_bytes, &s)) continue;
        int at = n++;
        while (at > 0 && split_better(op, &s, &opt[at - 1])) {
            opt[at] = opt[at - 1];
            at--;
        }
        opt[at] = s;
    }
    return n;
}

/* FLOPs and HBM bytes from the op's extents, as op_done computes them. */
static void op_recount(elk_op *op, double flops_per_point)
{
    op->flops = op_points(op) * flops_per_point;
    op->weight_bytes = op->kv_bytes = 0;
    for (int i = 1; i < op->ntensors; i++) {
        double v = elk_op_tensor_elems(op, i) * op->dtype_bytes;
        if (op->t[i].role == ELK_TR_WEIGHT) op->weight_bytes += v;
        if (op->t[i].role == ELK_TR_KV) op->kv_bytes += v;
    }
    op->hbm_bytes = op->weight_bytes + op->kv_bytes;
}

void elk_graph_apply_profile(elk_graph *g, unsigned profile)
{
    int unfused = (profile >> ELK_PSW_UNFUSED) & 1u;
    int changed = unfused != g->unfused;
    g->unfused = unfused;
    for (int i = 0; i < g->nops && (profile & (1u << ELK_PSW_SOFTMAX1)) && g->workload == ELK_WL_DECODE; i++) {
        elk_op *op = &g->ops[i];
        if (!strstr(op->name, "softmax.") || op->ndims != 4 || op->dim[3] == 1) continue;
        double fpp = op->flops / op_points(op);
        g->flops -= op->flops;
        op->dim[3] = 1;
        op_recount(op, fpp);
        g->flops += op->flops;
        changed = 1;
    }
    if (changed) assign_shapes(g);
}

/* dst = the first 24 characters of src, sep and the decimal of v, as
 * snprintf's "%.24s#%d" would write them (dst holds 32: they fit). The
 * cut searches name a piece for every cut they time, and snprintf was a
 * few tenths of a percent of reproduce. */
static void piece_name(char *dst, const char *src, char sep, int v)
{
    int n = 0;
    while (n < 24 && src[n]) {
        dst[n] = src[n];
        n++;
    }
    dst[n++] = sep;
    char b[12];
    int m = 0;
    unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
    do {
        b[m++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) b[m++] = '-';
    while (m) dst[n++] = b[--m];
    dst[n] = '\0';
}

void elk_split_piece(const elk_op *op, const elk_split *s, int p, elk_op *piece)
{
    double pts = op_points(op);
    /* FLOPs per point is one of the builder's small integers, so this
     * quotient is exact and the pieces' FLOPs sum exactly to the op's */
    double fpp = pts > 0 ? op->flops / pts : 0;
    *piece = *op;
    piece->dim[s->dim] = elk_split_len(op->dim[s->dim], s->pieces, p);
    op_recount(piece, fpp);
    _Static_assert(sizeof piece->name >= 24 + 1 + 5 + 1, "piece_name's longest name fits");
    piece_name(piece->name, op->name, '#', p % 10000);
}

void elk_split_add(const elk_op *op, int p, elk_op *add)
{
    const elk_tensor *out = &op->t[0];
    memset(add, 0, sizeof *add);
    piece_name(add->name, op->name, '+', p % 10000);
    add->kind = ELK_OP_ELEMWISE;
    add->ndims = out->naxes;
    for (int a = 0; a < out->naxes; a++) {
        add->dim[a] = op->dim[out->axis[a]];
        memcpy(add->dimname[a], op->dimname[out->axis[a]], sizeof add->dimname[a]);
    }
    add->ntensors = 3;
    for (int t = 0; t < 3; t++) {
        add->t[t].role = t ? ELK_TR_ACT : ELK_TR_OUT;
        add->t[t].naxes = add->ndims;
        for (int a = 0; a < add->ndims; a++) add->t[t].axis[a] = a;
    }
    add->layer = op->layer;
    add->layer_pos = op->layer_pos;
    add->shape_id = op->shape_id;
    add->dtype_bytes = op->dtype_bytes;
    op_recount(add, 1.0);
}

/* Split state: the cap, the caller's chooser and its answers per shape. */
typedef struct {
    double cap;
    elk_split_pick_fn pick;
    void *ctx;
    int nshapes;
    int ladder;  /* 0: elk_split_options' cuts; 1: elk_split_ladder's; 2: every
                  * op's at any size (elk_split_ladder_any) */
    int *picked; /* per pre-split shape_id: option index, -1 none, -2 not asked */
} splitter;

/* The split to apply to op (pieces 1: none). */
static elk_split split_decide(splitter *sp, const elk_op *op)
{
    elk_split none = {ELK_SPLIT_PARALLEL, 0, 1, 1, 0, 0}, opt[ELK_SPLIT_LADDER_OPTS];
    int n = !sp->ladder ? elk_split_options(op, sp->cap, opt)
            : split_ladder_m(op, sp->cap, sp->ladder == 2 ? INFINITY : ELK_SPLIT_LADDER_MARGIN, 0, opt,
                             ELK_SPLIT_LADDER_OPTS);
    if (!n) return none;
    int idx = 0;
    if (sp->pick) {
        int known = op->shape_id >= 0 && op->shape_id < sp->nshapes;
        if (known && sp->picked[op->shape_id] != -2) idx = sp->picked[op->shape_id];
        else {
            idx = sp->pick(op, opt, n, sp->ctx);
            if (idx < -1 || idx >= n) idx = -1;
            if (known) sp->picked[op->shape_id] = idx;
        }
    }
    return idx >= 0 ? opt[idx] : none;
}

/* Whether the ops at layer position pos have the same kind and tensors in
 * every layer (they do for every graph elk_graph_build makes). */
static int position_uniform(const elk_graph *g, int pos)
{
    const elk_op *ref = &g->ops[g->head + pos];
    for (int L = 0; L < g->nlayers; L++) {
        const elk_op *op = &g->ops[g->head + L * g->per_layer + pos];
        if (op->layer != L || op->layer_pos != pos || !same_structure(ref, op)) return 0;
    }
    return 1;
}

static int split_large(elk_graph *g, double cap_bytes, elk_split_pick_fn pick, void *ctx, int ladder)
{
    if (!(cap_bytes > 0) || g->nops == 0) return 0;
    splitter sp = {cap_bytes, pick, ctx, g->nshapes, ladder, NULL};
    elk_split *ch = malloc((size_t)g->nops * sizeof *ch);
    sp.picked = malloc((size_t)(g->nshapes > 0 ? g->nshapes : 1) * sizeof *sp.picked);
    if (!ch || !sp.picked) {
        free(ch);
        free(sp.picked);
        return -1;
    }
    for (int s = 0; s < g->nshapes; s++) sp.picked[s] = -2;
    int layered = g->nlayers > 0 && g->per_layer > 0 && g->head + g->nlayers * g->per_layer <= g->nops;
    for (int i = 0; i < g->nops; i++) {
        const elk_op *op = &g->ops[i];
        if (layered && i >= g->head && i < g->head + g->nlayers * g->per_layer) continue;
        ch[i] = split_decide(&sp, op);
    }
    /* A layer position is decided once, on its largest op across layers
     * (Gemma2's global layers read more KV than its local ones), and
     * applied to every layer with the pieces every layer's dim allows. */
    for (int pos = 0; layered && pos < g->per_layer; pos++) {
        int uniform = position_uniform(g, pos), rep = g->head + pos;
        if (!uniform) {
            for (int L = 0; L < g->nlayers; L++) {
                int i = g->head + L * g->per_layer + pos;
                ch[i] = split_decide(&sp, &g->ops[i]);
            }
            continue;
        }
        for (int L = 1; L < g->nlayers; L++) {
            int i = g->head + L * g->per_layer + pos;
            if (op_bytes(&g->ops[i]) > op_bytes(&g->ops[rep])) rep = i;
        }
        elk_split s = split_decide(&sp, &g->ops[rep]);
        for (int L = 0; L < g->nlayers && s.pieces > 1; L++) {
            long D = g->ops[g->head + L * g->per_layer + pos].dim[s.dim];
            if (D < s.pieces) s.pieces = (int)D;
        }
        if (s.pieces < 2) s.pieces = 1;
        for (int L = 0; L < g->nlayers; L++) ch[g->head + L * g->per_layer + pos] = s;
    }
    long n_new = 0;
    int nsplit = 0;
    for (int i = 0; i < g->nops; i++) {
        n_new += ch[i].pieces;
        if (ch[i].pieces > 1) {
            nsplit++;
            if (ch[i].kind == ELK_SPLIT_REDUCED) n_new += ch[i].pieces - 1;
        }
    }
    free(sp.picked);
    if (!nsplit) {
        free(ch);
        return 0;
    }
    elk_op *ops = n_new <= ELK_GRAPH_MAX_OPS ? malloc((size_t)n_new * sizeof *ops) : NULL;
    if (!ops) {
        free(ch);
        return -1;
    }
    int n = 0, head = 0, per = 0;
    for (int i = 0; i < g->nops; i++) {
        const elk_op *op = &g->ops[i];
        int n0 = n;
        if (ch[i].pieces < 2) ops[n++] = *op;
        for (int p = 0; p < ch[i].pieces && ch[i].pieces > 1; p++) {
            elk_split_piece(op, &ch[i], p, &ops[n]);
            ops[n++].cut_cont = p > 0;
            if (p > 0 && ch[i].kind == ELK_SPLIT_REDUCED) {
                elk_split_add(op, p, &ops[n]);
                ops[n++].cut_cont = 1;
            }
        }
        if (i < g->head) head += n - n0;
        else if (op->layer == 0) per += n - n0;
    }
    free(ch);
    /* renumber positions within layers */
    int pos = 0, layer = -2;
    for (int i = 0; i < n; i++) {
        if (ops[i].layer != layer) {
            layer = ops[i].layer;
            pos = 0;
        }
        ops[i].layer_pos = pos++;
    }
    free(g->ops);
    g->ops = ops;
    g->nops = g->cap = n;
    g->head = head;
    if (g->nlayers) g->per_layer = per;
    /* the totals stay the sums over the operators: integers well below
     * 2^53, so exact, and FLOPs now include the adds' */
    g->weight_bytes = g->kv_bytes = g->flops = 0;
    for (int i = 0; i < n; i++) {
        g->weight_bytes += ops[i].weight_bytes;
        g->kv_bytes += ops[i].kv_bytes;
        g->flops += ops[i].flops;
    }
    assign_shapes(g);
    return nsplit;
}

int elk_graph_split_large_by(elk_graph *g, double cap_bytes, elk_split_pick_fn pick, void *ctx)
{
    return split_large(g, cap_bytes, pick, ctx, 0);
}

int elk_graph_split_large_ladder(elk_graph *g, double cap_bytes, elk_split_pick_fn pick, void *ctx)
{
    return pick ? split_large(g, cap_bytes, pick, ctx, 1) : split_large(g, cap_bytes, NULL, NULL, 0);
}

int elk_graph_split_large_ladder_any(elk_graph *g, double cap_bytes, elk_split_pick_fn pick, void *ctx)
{
    return pick ? split_large(g, cap_bytes, pick, ctx, 2) : split_large(g, cap_bytes, NULL, NULL, 0);
}

int elk_graph_split_large(elk_graph *g, double cap_bytes)
{
    return elk_graph_split_large_by(g, cap_bytes, NULL, NULL);
}

int elk_graph_find(const elk_graph *g, const char *key)
{
    char *end;
    long v = strtol(key, &end, 10);
    if (*key && !*end) return (v >= 0 && v < g->nops) ? (int)v : -1;
    for (int i = 0; i < g->nops; i++)
        if (strcmp(g->ops[i].name, key) == 0) return i;
    return -1;
}
