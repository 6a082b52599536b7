/* Operator graphs: one decode step (or training forward pass) of a model as
 * a linear sequence of tensor operators, each an iteration space over dims
 * with tensors indexed by subsets of those dims (T10's view). Execution is in program order; the planner gives every
 * operator partition plans and the scheduler overlaps HBM preloads. */
#ifndef ELK_GRAPH_H
#define ELK_GRAPH_H

#include "elk_chip.h"
#include "elk_model.h"
#include "elk_status.h"

#define ELK_MAX_DIMS 6
#define ELK_MAX_TENSORS 4

typedef enum {
    ELK_OP_MATMUL,   /* dims: [batch..., m, n, k]; t0=out, t1=A[..m,k], t2=B[..k,n] */
    ELK_OP_ELEMWISE, /* binary elementwise, all tensors over all dims */
    ELK_OP_UNARY,    /* activation family (relu, silu, gelu, exp) */
    ELK_OP_REDUCE,   /* out over a prefix of dims, input over all */
    ELK_OP_KIND_COUNT
} elk_op_kind;

typedef enum {
    ELK_TR_ACT,    /* activation: produced and consumed on chip */
    ELK_TR_OUT,    /* the operator's output (tensor 0) */
    ELK_TR_WEIGHT, /* read from HBM every step */
    ELK_TR_KV,     /* KV cache, read from HBM every step */
    ELK_TR_ROLE_COUNT
} elk_tensor_role;

typedef enum { ELK_WL_DECODE, ELK_WL_TRAIN_FWD, ELK_WL_PREFILL, ELK_WL_COUNT } elk_workload;
extern const char *const elk_workload_names[];
extern const char *const elk_op_kind_names[];

/* A tensor of an operator: which dims index it, in order.
 * Invariant: 0 < naxes <= op.ndims, axes are distinct dim indices. */
typedef struct {
    elk_tensor_role role;
    int naxes;
    int axis[ELK_MAX_DIMS];
} elk_tensor;

/* One operator. Owns nothing (fixed-size arrays).
 * Invariants: t[0] is the output; hbm_bytes == sum of the real (unpadded)
 * bytes of WEIGHT and KV tensors; shape_id is equal for two operators iff
 * their kind, dims and tensors are identical (they share plans). */
typedef struct {
    char name[32];
    elk_op_kind kind;
    int ndims;
    long dim[ELK_MAX_DIMS];
    char dimname[ELK_MAX_DIMS][4];
    int ntensors;
    elk_tensor t[ELK_MAX_TENSORS];
    double flops;
    double weight_bytes;
    double kv_bytes;
    double hbm_bytes;
    double hbm_pad;       /* of hbm_bytes, the padding of the least preload layout the
                             artifact's tables charge (paper's plantables; else 0):
                             Ideal, a bound, preloads without it */
    int layer;       /* -1: before the first layer; nlayers: after the last */
    int layer_pos;   /* index within its layer */
    int shape_id;
    int dtype_bytes;
    /* The Elk artifact's graph is unfused (docs/ARTIFACT.md): beyond this
     * operator it has unf_elem elementwise operators over its iteration
     * space, unf_row over its output and unf_slice slices of half of it.
     * unf_cold: one of those parts reads a small tensor the artifact
     * preloads from HBM (a residual, a norm's epsilon, RoPE's tables, the
     * mask), which ends Basic's look-ahead there (docs/ARTIFACT.md); 2:
     * its last parts read one too (RoPE's K-half multiply by sin and add,
     * SwiGLU's last multiply by the up slice, an activation from three
     * operators back: docs/ARTIFACT.md), so under Basic the
     * operator itself overlaps no later preload. Charged only by the paper
     * profile's "unfused" switch. */
    int unf_elem, unf_row, unf_slice, unf_cold;
    /* MoE decode under moe_preload "routed": 1 on a router, whose end gates
     * the preloads of the routed experts after it; 2 on those experts. */
    int route;
    /* 1 on a later piece (or an add) of an operator split_large cut, so the
     * ops from the previous 0 on are the pieces of one operator: Ideal
     * treats them as that one operator (elk_sched_run_ideal). */
    int cut_cont;
} elk_op;

/* The whole step. Owns ops (malloc'd).
 * Invariant: ops of layer L occupy [head + L*per_layer, head + (L+1)*per_layer). */
typedef struct {
    elk_op *ops;
    int nops;
    int cap;
    int nlayers;
    int per_layer;
    int head;        /* ops before layer 0 */
    int nshapes;     /* distinct shape_ids */
    elk_workload workload;
    int unfused;     /* shapes tell unf_* counts apart (elk_graph_apply_profile) */
    int batch, seq;
    double weight_bytes, kv_bytes, flops;
    int dtype_bytes;
} elk_graph;

/* Build the graph; layers > 0 keeps only the first `layers` layers. */
elk_status elk_graph_build(const elk_model *m, elk_workload wl, int batch, int seq,
                           int layers, elk_graph *g, elk_error *err);
void elk_graph_free(elk_graph *g);
/* Make the graph the one a cost profile (elk_chip.profile) plans: with
 * "unfused", operators that differ only in their unf_* counts get shapes
 * of their own (the counts are charged); with "softmax1", a decode step's
 * softmax operators get one key instead of the KV length (the Elk
 * artifact's parser bug, docs/ARTIFACT.md section 3,
 * reproduced on purpose). */
void elk_graph_apply_profile(elk_graph *g, unsigned profile);

/* How an operator that outgrows SRAM is cut into pieces. */
typedef enum {
    ELK_SPLIT_PARALLEL, /* along a dim the output indexes: pieces write disjoint slices */
    ELK_SPLIT_REDUCED,  /* along a dim the output does not index (P.V's KV length, a
                           matmul's k): every piece writes a full-size partial output and
                           pieces-1 elementwise adds combine them */
    ELK_SPLIT_KIND_COUNT
} elk_split_kind;
extern const char *const elk_split_kind_names[];

/* One way to split an operator: `pieces` pieces along dim `dim`. Owns nothing.
 * Invariants: 2 <= pieces <= min(op.dim[dim], ELK_SPLIT_MAX_PIECES); every HBM
 * tensor of the op indexes `dim`, so the pieces' HBM bytes sum exactly to the
 * op's; piece p spans elk_split_len(op.dim[dim], pieces, p) of the dim.
 * piece_bytes is the largest piece's tensor bytes (what must fit the cap);
 * volume_bytes is the rule-of-thumb score of elk_split_options: every piece's
 * tensor bytes (a tensor the split does not cut counts once per piece) plus,
 * for a reduced split, the adds' three operands each. */
typedef struct {
    elk_split_kind kind;
    int dim;
    int pieces;
    int fits;            /* piece_bytes <= the cap (and a reduced split's add's too) */
    double piece_bytes;
    double volume_bytes;
} elk_split;

/* Most pieces one operator is cut into: a sanity bound on the graph's size
 * for absurd caps (a piece that still does not fit is left to the planner). */
#define ELK_SPLIT_MAX_PIECES 4096

/* The ways to split op so that its pieces fit cap_bytes, one per dim that
 * can be cut, best first by the rule (the comment opening
 * the split section of elk_graph.c says why): splits whose pieces fit before
 * those that do not, then the least volume_bytes (on-chip data the pieces
 * and adds touch in all), then a parallel split before a reduced one, then
 * the larger dim. Each option uses the fewest pieces that fit (or, when none
 * fits, ceil(op bytes / cap)).
 * Returns how many were written to opt (at most ELK_MAX_DIMS); 0 when the op
 * fits, cap_bytes is not positive, or no dim can be split. */
int elk_split_options(const elk_op *op, double cap_bytes, elk_split opt[ELK_MAX_DIMS]);

/* Every cut the timed chooser of elk_graph_split_large_ladder may take: the
 * op whole (pieces 1) if it fits, and for each dim that can be cut, the
 * powers of two of pieces from the fewest that fit up to
 * ELK_SPLIT_LADDER_MAX (or the dim's extent), and from it on the fewest and
 * twice them. Powers of two nest: with a larger cap the fewest that fit can
 * only halve, so every cut offered at a smaller cap is still offered while
 * the fewest stay below ELK_SPLIT_LADDER_MAX (past it, a halved fewest keeps
 * the fewest it had but loses twice them), and there a chooser that keeps
 * the fastest can only get faster as SRAM grows. An op that fits but is within
 * ELK_SPLIT_LADDER_MARGIN of the cap is offered its cuts too: a whole op that
 * only just fits has few plans left and can be far slower than its pieces
 * (Llama2-13B prefill's QKV on 192 cores: 5.2 ms whole at 1987 KiB, 3.0 ms in
 * four pieces at 1590). Returns how many were written (at most max), the
 * whole op first, then dims in order, pieces ascending within a dim; 0 when
 * the op is well inside the cap. */
#define ELK_SPLIT_LADDER_MAX 64
#define ELK_SPLIT_LADDER_MARGIN 2
#define ELK_SPLIT_LADDER_OPTS (ELK_MAX_DIMS * 8 + 1)
int elk_split_ladder(const elk_op *op, double cap_bytes, elk_split *opt, int max);
/* The same at any size: an op well inside the cap is offered its cuts too
 * (the whole op first). Whether a cut of an op that fits pays is the
 * chooser's to time: its pieces are preloaded one by one, so each piece's
 * plans may hold more of SRAM than the whole op's can (OPT-30B training's
 * FFN on a 1536-core tt-mesh torus: fc1 whole 199 us at 1875 KiB, 8 pieces
 * 145 us in all at 1500). */
int elk_split_ladder_any(const elk_op *op, double cap_bytes, elk_split *opt, int max);
/* The same with every power of two of pieces from the fewest that fit up to
 * the dim's extent (or ELK_SPLIT_MAX_PIECES): nothing offered at one cap is
 * missing at a larger one, past ELK_SPLIT_LADDER_MAX too (Ideal's cuts,
 * elk_problem.c). At most ELK_SPLIT_LADDER_FULL_OPTS. */
#define ELK_SPLIT_LADDER_FULL_OPTS (ELK_MAX_DIMS * 13 + 1)
int elk_split_ladder_full(const elk_op *op, double cap_bytes, elk_split *opt, int max);

/* Extent of piece p of a dim of extent D cut into k pieces: the first D % k
 * pieces get one more, so the pieces cover D exactly and never overshoot. */
long elk_split_len(long D, int k, int p);

/* Piece p (0 <= p < s->pieces) of op as an operator of its own: the dim cut,
 * FLOPs and HBM bytes recomputed from the piece's extents, name "op#p". */
void elk_split_piece(const elk_op *op, const elk_split *s, int p, elk_op *piece);

/* The elementwise add that combines two partial outputs of a reduced split
 * of op (out = acc + partial p, 1 FLOP per output element), name "op+p". For
 * a reduce op's max the combine is a max, which costs the same. */
void elk_split_add(const elk_op *op, int p, elk_op *add);

/* A caller's choice among elk_split_options (best first): the index of the
 * option to apply, or -1 to leave the op whole. Called once per distinct
 * operator shape that needs a split, so a chooser may time the options
 * (pieces x piece time + adds x add time) with the chip's cost model. */
typedef int (*elk_split_pick_fn)(const elk_op *op, const elk_split *opt, int nopt, void *ctx);

/* Split every operator whose tensors together exceed cap_bytes, as the
 * artifact's parser does for KV-cache matmuls that outgrow a chip. pick
 * chooses among the options (NULL: the rule's first). A reduced split's
 * pieces are followed by adds, interleaved (p0 p1 +1 p2 +2 ...) so one
 * partial sum is live at a time. Every layer position is split the same way
 * (decided on its largest op across layers), so identical layers stay
 * identical and the layers keep equal op counts. Graph totals stay the sums
 * over the operators: weight and KV bytes unchanged, FLOPs grown by exactly
 * the adds'. Returns the number of ops split; -1, graph untouched, when the
 * cut graph would hold more than ELK_GRAPH_MAX_OPS operators or memory runs
 * out (an input-sized allocation: a model at import-hf's own limits asked
 * for 72 GB). */
#define ELK_GRAPH_MAX_OPS (1 << 20)
int elk_graph_split_large_by(elk_graph *g, double cap_bytes, elk_split_pick_fn pick, void *ctx);
/* The same with pick choosing among elk_split_ladder's cuts (pick required). */
int elk_graph_split_large_ladder(elk_graph *g, double cap_bytes, elk_split_pick_fn pick, void *ctx);
/* The same, and every op is offered its ladder at any size
 * (elk_split_ladder_any): the chooser decides which ops to time (the
 * graph's last HBM op must keep its cuts as SRAM grows, since no later
 * preload overlaps it; elk_problem's cut_shop). */
int elk_graph_split_large_ladder_any(elk_graph *g, double cap_bytes, elk_split_pick_fn pick, void *ctx);
int elk_graph_split_large(elk_graph *g, double cap_bytes);

/* Elements of tensor ti of op (real, unpadded). */
double elk_op_tensor_elems(const elk_op *op, int ti);
/* Find an operator by index ("17") or name ("L0.qkv"); -1 if none. */
int elk_graph_find(const elk_graph *g, const char *key);

#endif
