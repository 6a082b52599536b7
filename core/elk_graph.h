/* Operator graphs: one decode step (or training forward pass) of a model as
 * a linear sequence of tensor operators, each an iteration space over dims
 * with tensors indexed by subsets of those dims (T10's view, METHOD.md
 * sections 2 and 3). Execution is in program order; the planner gives every
 * operator partition plans and the scheduler overlaps HBM preloads. */
#ifndef ELK_GRAPH_H
#define ELK_GRAPH_H

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
    int layer;       /* -1: before the first layer; nlayers: after the last */
    int layer_pos;   /* index within its layer */
    int shape_id;
    int dtype_bytes;
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
    int batch, seq;
    double weight_bytes, kv_bytes, flops;
    int dtype_bytes;
} elk_graph;

/* Build the graph; layers > 0 keeps only the first `layers` layers. */
elk_status elk_graph_build(const elk_model *m, elk_workload wl, int batch, int seq,
                           int layers, elk_graph *g, elk_error *err);
void elk_graph_free(elk_graph *g);

/* Split operators whose tensors together exceed cap_bytes into equal
 * pieces along their largest parallel dim (one the output indexes and, if
 * they read HBM, their HBM tensors index too), as the artifact's parser does
 * for KV-cache matmuls that outgrow a chip. Every layer is split the same
 * way, so identical layers stay identical. Returns the number of ops split. */
int elk_graph_split_large(elk_graph *g, double cap_bytes);

/* Elements of tensor ti of op (real, unpadded). */
double elk_op_tensor_elems(const elk_op *op, int ti);
/* Find an operator by index ("17") or name ("L0.qkv"); -1 if none. */
int elk_graph_find(const elk_graph *g, const char *key);

#endif
