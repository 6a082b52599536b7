#include "elk_graph.h"

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

    snprintf(nm, sizeof nm, "%s.scale", name);
    op = op_new(b, nm, ELK_OP_ELEMWISE);
    if (!op) return;
    set_dims(op, "th", e);
    add_tensor(op, ELK_TR_OUT, "th");
    add_tensor(op, ELK_TR_ACT, "th");
    add_tensor(op, ELK_TR_WEIGHT, "h");
    if (b->m->norm == ELK_NORM_LAYER) add_tensor(op, ELK_TR_WEIGHT, "h");
    op_done(b, op, b->m->norm == ELK_NORM_LAYER ? 4.0 : 3.0);
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
        /* Router, then the experts the batch activates (expected count). */
        matmul(b, "router", T, m->experts, H, ELK_TR_WEIGHT);
        double k = m->experts_per_token, E = m->experts;
        long active = (long)ceil(E * (1.0 - pow(1.0 - k / E, (double)T)));
        if (active < 1) active = 1;
        long rows = (long)ceil((double)T * k / (double)active);
        elk_op *op = op_new(b, "experts.up", ELK_OP_MATMUL);
        if (!op) return;
        long e[] = {active, rows, (glu ? 2 : 1) * F, H};
        set_dims(op, "emnk", e);
        add_tensor(op, ELK_TR_OUT, "emn");
        add_tensor(op, ELK_TR_ACT, "emk");
        add_tensor(op, ELK_TR_WEIGHT, "ekn");
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
        op_done(b, op, 2.0);
        return;
    }
    if (glu) {
        matmul(b, "gate_up", T, 2 * F, H, ELK_TR_WEIGHT);
        eltwise2(b, "act", T, F, 5.0);
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
    }
    attention(b, B, qtok, S_eff, kvrole);
    matmul(b, "o", T, H, nq, ELK_TR_WEIGHT);
    if (m->post_norms) norm(b, "post_attn_norm", T, H);
    eltwise2(b, "attn_res", T, H, 1.0);
    norm(b, "ffn_norm", T, H);
    ffn(b, T);
    if (m->post_norms) norm(b, "post_ffn_norm", T, H);
    eltwise2(b, "ffn_res", T, H, 1.0);
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

static int same_shape(const elk_op *a, const elk_op *b)
{
    if (a->kind != b->kind || a->ndims != b->ndims || a->ntensors != b->ntensors ||
        a->dtype_bytes != b->dtype_bytes)
        return 0;
    for (int d = 0; d < a->ndims; d++)
        if (a->dim[d] != b->dim[d]) return 0;
    for (int t = 0; t < a->ntensors; t++) {
        if (a->t[t].role != b->t[t].role || a->t[t].naxes != b->t[t].naxes) return 0;
        for (int x = 0; x < a->t[t].naxes; x++)
            if (a->t[t].axis[x] != b->t[t].axis[x]) return 0;
    }
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
            if (same_shape(ref, op)) s = ref->shape_id;
        }
        for (int k = 0; s < 0 && k < g->nshapes; k++)
            if (same_shape(&g->ops[rep[k]], op)) s = k;
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
    return ELK_OK;
}

void elk_graph_free(elk_graph *g)
{
    free(g->ops);
    memset(g, 0, sizeof *g);
}

static double op_bytes(const elk_op *op)
{
    double b = 0;
    for (int t = 0; t < op->ntensors; t++) b += elk_op_tensor_elems(op, t) * op->dtype_bytes;
    return b;
}

/* The dim to split op along, or -1: the largest the output indexes that no
 * input reduces over and that every HBM tensor indexes. */
static int split_dim(const elk_op *op)
{
    int best = -1;
    for (int d = 0; d < op->ndims; d++) {
        int in_out = 0, ok = 1;
        for (int a = 0; a < op->t[0].naxes; a++) in_out |= op->t[0].axis[a] == d;
        for (int t = 1; t < op->ntensors && ok; t++) {
            if (op->t[t].role != ELK_TR_WEIGHT && op->t[t].role != ELK_TR_KV) continue;
            int has = 0;
            for (int a = 0; a < op->t[t].naxes; a++) has |= op->t[t].axis[a] == d;
            ok = has;
        }
        if (in_out && ok && op->dim[d] > 1 && (best < 0 || op->dim[d] > op->dim[best])) best = d;
    }
    return best;
}

int elk_graph_split_large(elk_graph *g, double cap_bytes)
{
    int extra = 0, nsplit = 0;
    int *pieces = calloc((size_t)g->nops, sizeof *pieces);
    if (!pieces) return 0;
    for (int i = 0; i < g->nops; i++) {
        double b = op_bytes(&g->ops[i]);
        pieces[i] = 1;
        if (b <= cap_bytes || split_dim(&g->ops[i]) < 0) continue;
        int k = (int)ceil(b / cap_bytes);
        long D = g->ops[i].dim[split_dim(&g->ops[i])];
        if (k > D) k = (int)D;
        /* equal pieces of ceil(D/k); fewer if that covers D sooner */
        long chunk = (D + k - 1) / k;
        k = (int)((D + chunk - 1) / chunk);
        pieces[i] = k;
        extra += k - 1;
        nsplit++;
    }
    if (!extra) {
        free(pieces);
        return 0;
    }
    elk_op *ops = malloc((size_t)(g->nops + extra) * sizeof *ops);
    if (!ops) {
        free(pieces);
        return 0;
    }
    int n = 0, head = 0, per = 0;
    for (int i = 0; i < g->nops; i++) {
        const elk_op *op = &g->ops[i];
        int k = pieces[i], d = k > 1 ? split_dim(op) : -1;
        long D = d >= 0 ? op->dim[d] : 0, chunk = d >= 0 ? (D + k - 1) / k : 0;
        for (int p = 0; p < k; p++) {
            elk_op *o = &ops[n++];
            *o = *op;
            if (k > 1) {
                long len = p < k - 1 ? chunk : D - chunk * (k - 1);
                double f = (double)len / (double)D;
                o->dim[d] = len;
                o->flops *= f;
                o->weight_bytes *= f;
                o->kv_bytes *= f;
                o->hbm_bytes *= f;
                snprintf(o->name, sizeof o->name, "%.24s#%d", op->name, p % 1000);
            }
        }
        if (i < g->head) head += k;
        else if (op->layer == 0) per += k;
    }
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
    assign_shapes(g);
    free(pieces);
    return nsplit;
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
