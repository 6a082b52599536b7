/* A model preset: the hyperparameters an operator graph is built from
 * (docs/PRESETS.md). Loaded from presets/models/ or imported from a
 * Hugging Face config.json (elk_hf). */
#ifndef ELK_MODEL_H
#define ELK_MODEL_H

#include "elk_status.h"

typedef enum { ELK_FAM_LLAMA, ELK_FAM_MISTRAL, ELK_FAM_GEMMA2, ELK_FAM_OPT, ELK_FAM_MIXTRAL, ELK_FAM_DIT, ELK_FAM_COUNT } elk_family;
typedef enum { ELK_FFN_SWIGLU, ELK_FFN_GEGLU, ELK_FFN_RELU, ELK_FFN_GELU, ELK_FFN_COUNT } elk_ffn_kind;
typedef enum { ELK_NORM_RMS, ELK_NORM_LAYER, ELK_NORM_COUNT } elk_norm_kind;

/* How a decode step's expert weights reach SRAM (docs/VALIDATION.md,
 * Mixture-of-Experts): routed, the experts the batch is expected to route
 * to, each preloaded only once its layer's router has run (the routing is
 * not known before); oracle, the same experts preloaded as early as the
 * schedule likes (a bound: it knows the routing in advance); all, every
 * expert preloaded early, no routing needed, at E/expected times the bytes. */
typedef enum { ELK_MOE_ROUTED, ELK_MOE_ORACLE, ELK_MOE_ALL, ELK_MOE_COUNT } elk_moe_preload;
extern const char *const elk_moe_preload_names[];

extern const char *const elk_family_names[];
extern const char *const elk_ffn_names[];
extern const char *const elk_norm_names[];

/* Invariants (checked on load): heads % kv_heads == 0; all sizes > 0;
 * experts_per_token <= experts; DiT models have tokens > 0. */
typedef struct {
    char name[64];
    char source[256];        /* where the numbers come from */
    elk_family family;
    int layers;
    int hidden;
    int heads;
    int kv_heads;
    int head_dim;
    int ffn;                 /* intermediate size (per expert for MoE) */
    elk_ffn_kind ffn_kind;
    elk_norm_kind norm;
    int vocab;
    int tie_embeddings;
    int bias;                /* linear layers carry biases (OPT) */
    int max_positions;       /* learned position table rows (OPT), 0 if none */
    int post_norms;          /* extra norms after attention and FFN (Gemma2) */
    int sliding_window;      /* local-attention window on alternate layers, 0 if none */
    int experts;             /* MoE: experts per layer, 0 = dense */
    int experts_per_token;
    elk_moe_preload moe_preload; /* MoE decode: how expert weights are preloaded */
    int tokens;              /* DiT: image tokens per sample */
    int cond_dim;            /* DiT: adaLN conditioning width */
    int dtype_bytes;
} elk_model;

void elk_model_defaults(elk_model *m);
elk_status elk_model_load(const char *path, elk_model *m, elk_error *err);
elk_status elk_model_check(const elk_model *m, elk_error *err);
/* Write a model preset (used by import-hf) through elk_file: atomic for a
 * regular file, straight to stdout for "-". */
elk_status elk_model_save(const char *path, const elk_model *m, elk_error *err);

/* Parameter count, embedding included once when tied. */
double elk_model_params(const elk_model *m);

#endif
