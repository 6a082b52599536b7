#include "elk_model.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elk_cfg.h"
#include "elk_file.h"

const char *const elk_family_names[] = {"llama", "mistral", "gemma2", "opt", "mixtral", "dit", NULL};
const char *const elk_moe_preload_names[] = {"routed", "oracle", "all", NULL};
const char *const elk_ffn_names[] = {"swiglu", "geglu", "relu", "gelu", NULL};
const char *const elk_norm_names[] = {"rmsnorm", "layernorm", NULL};

#define OFF(f) offsetof(elk_model, f)
#define REQ_I(n, f, lo, hi) { n, ELK_F_INT, 1, lo, hi, OFF(f), 0, NULL, NULL, NULL }
#define OPT_I(n, f, lo, hi) { n, ELK_F_INT, 0, lo, hi, OFF(f), 0, NULL, NULL, NULL }
#define OPT_B(n, f) { n, ELK_F_BOOL, 0, 0, 0, OFF(f), 0, NULL, NULL, NULL }

static const elk_field model_schema[] = {
    { "name", ELK_F_STRING, 1, 0, 0, OFF(name), sizeof(((elk_model *)0)->name), NULL, NULL, NULL },
    { "source", ELK_F_STRING, 0, 0, 0, OFF(source), sizeof(((elk_model *)0)->source), NULL, NULL, NULL },
    { "family", ELK_F_ENUM, 1, 0, 0, OFF(family), 0, elk_family_names, NULL, NULL },
    REQ_I("layers", layers, 1, 10000),
    REQ_I("hidden", hidden, 1, 1 << 20),
    REQ_I("heads", heads, 1, 65536),
    OPT_I("kv_heads", kv_heads, 1, 65536),
    OPT_I("head_dim", head_dim, 1, 65536),
    REQ_I("ffn", ffn, 1, 1 << 22),
    { "ffn_kind", ELK_F_ENUM, 1, 0, 0, OFF(ffn_kind), 0, elk_ffn_names, NULL, NULL },
    { "norm", ELK_F_ENUM, 1, 0, 0, OFF(norm), 0, elk_norm_names, NULL, NULL },
    OPT_I("vocab", vocab, 0, 1 << 24),
    OPT_B("tie_embeddings", tie_embeddings),
    OPT_B("bias", bias),
    OPT_I("max_positions", max_positions, 0, 1 << 24),
    OPT_B("post_norms", post_norms),
    OPT_I("sliding_window", sliding_window, 0, 1 << 24),
    OPT_I("experts", experts, 0, 4096),
    OPT_I("experts_per_token", experts_per_token, 0, 4096),
    { "moe_preload", ELK_F_ENUM, 0, 0, 0, OFF(moe_preload), 0, elk_moe_preload_names, NULL, NULL },
    OPT_I("tokens", tokens, 0, 1 << 24),
    OPT_I("cond_dim", cond_dim, 0, 1 << 20),
    OPT_I("dtype_bytes", dtype_bytes, 1, 8),
    ELK_FIELD_END
};

void elk_model_defaults(elk_model *m)
{
    memset(m, 0, sizeof *m);
    m->dtype_bytes = 2;
}

elk_status elk_model_check(const elk_model *m, elk_error *err)
{
    if (m->heads < 1 || m->kv_heads < 1)
        return elk_fail(err, ELK_ERANGE, "heads (%d) and kv_heads (%d) must be at least 1", m->heads, m->kv_heads);
    if (m->heads % m->kv_heads)
        return elk_fail(err, ELK_ERANGE, "heads (%d) must be a multiple of kv_heads (%d)", m->heads, m->kv_heads);
    if (m->experts_per_token > m->experts)
        return elk_fail(err, ELK_ERANGE, "experts_per_token (%d) exceeds experts (%d)", m->experts_per_token, m->experts);
    if (m->experts && !m->experts_per_token)
        return elk_fail(err, ELK_EMISSING, "experts_per_token is required when experts > 0");
    if (m->family == ELK_FAM_DIT && m->tokens <= 0)
        return elk_fail(err, ELK_EMISSING, "DiT models need tokens > 0");
    if (m->family != ELK_FAM_DIT && m->vocab <= 0)
        return elk_fail(err, ELK_EMISSING, "language models need vocab > 0");
    return ELK_OK;
}

static elk_status check_model(const config_setting_t *root, const char *file, void *dst, elk_error *err)
{
    elk_model *m = dst;
    if (!m->kv_heads) m->kv_heads = m->heads;
    if (!m->head_dim) {
        if (m->hidden % m->heads)
            return elk_fail(err, ELK_ERANGE, "%s:%d: field 'model.hidden': %d is not divisible by heads (%d); give head_dim",
                            file, elk_cfg_line(root, "hidden"), m->hidden, m->heads);
        m->head_dim = m->hidden / m->heads;
    }
    elk_error e2;
    if (elk_model_check(m, &e2) != ELK_OK) {
        const char *field = strstr(e2.msg, "kv_heads") ? "kv_heads"
                          : strstr(e2.msg, "experts") ? "experts_per_token"
                          : strstr(e2.msg, "tokens") ? "tokens" : "vocab";
        return elk_fail(err, e2.code, "%s:%d: field 'model.%s': %s", file,
                        elk_cfg_line(root, field), field, e2.msg);
    }
    return ELK_OK;
}

elk_status elk_model_load(const char *path, elk_model *m, elk_error *err)
{
    elk_model_defaults(m);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return elk_fail(err, ELK_EIO, "%s: is a directory, not a model preset", path);
    return elk_cfg_load(path, "model", model_schema, m, check_model, err);
}

/* A libconfig string literal: names and paths may hold quotes or backslashes. */
static void put_string(FILE *fp, const char *key, const char *s)
{
    fprintf(fp, "  %s = \"", key);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(fp, "\\%c", c);
        else if (c < 0x20) fprintf(fp, "\\x%02x", c);
        else fputc(c, fp);
    }
    fprintf(fp, "\";\n");
}

elk_status elk_model_save(const char *path, const elk_model *m, elk_error *err)
{
    elk_file out;
    ELK_TRY(elk_file_open(&out, path, err));
    FILE *fp = out.fp;
    fprintf(fp, "# Model preset written by `elk import-hf`.\n");
    fprintf(fp, "model = {\n");
    put_string(fp, "name", m->name);
    if (m->source[0]) put_string(fp, "source", m->source);
    fprintf(fp, "  family = \"%s\";\n", elk_family_names[m->family]);
    fprintf(fp, "  layers = %d;\n  hidden = %d;\n  heads = %d;\n  kv_heads = %d;\n  head_dim = %d;\n",
            m->layers, m->hidden, m->heads, m->kv_heads, m->head_dim);
    fprintf(fp, "  ffn = %d;\n  ffn_kind = \"%s\";\n  norm = \"%s\";\n", m->ffn,
            elk_ffn_names[m->ffn_kind], elk_norm_names[m->norm]);
    if (m->vocab) fprintf(fp, "  vocab = %d;\n", m->vocab);
    fprintf(fp, "  tie_embeddings = %s;\n", m->tie_embeddings ? "true" : "false");
    if (m->bias) fprintf(fp, "  bias = true;\n");
    if (m->max_positions) fprintf(fp, "  max_positions = %d;\n", m->max_positions);
    if (m->post_norms) fprintf(fp, "  post_norms = true;\n");
    if (m->sliding_window) fprintf(fp, "  sliding_window = %d;\n", m->sliding_window);
    if (m->experts) fprintf(fp, "  experts = %d;\n  experts_per_token = %d;\n", m->experts, m->experts_per_token);
    if (m->tokens) fprintf(fp, "  tokens = %d;\n", m->tokens);
    if (m->cond_dim) fprintf(fp, "  cond_dim = %d;\n", m->cond_dim);
    if (m->dtype_bytes != 2) fprintf(fp, "  dtype_bytes = %d;\n", m->dtype_bytes);
    fprintf(fp, "};\n");
    return elk_file_commit(&out, err);
}

double elk_model_params(const elk_model *m)
{
    double h = m->hidden, hd = m->head_dim;
    double q = h * m->heads * hd, kv = 2.0 * h * m->kv_heads * hd, o = m->heads * hd * h;
    double nffn = (m->ffn_kind == ELK_FFN_SWIGLU || m->ffn_kind == ELK_FFN_GEGLU) ? 3.0 : 2.0;
    double ffn = nffn * h * m->ffn;
    double norms = (m->post_norms ? 4.0 : 2.0) * h * (m->norm == ELK_NORM_LAYER ? 2 : 1);
    double bias = 0;
    if (m->bias) bias = (m->heads + 2.0 * m->kv_heads) * hd + h + (nffn - 1) * m->ffn + h;
    double per_layer;
    if (m->experts) per_layer = q + kv + o + m->experts * ffn + h * m->experts + norms + bias;
    else per_layer = q + kv + o + ffn + norms + bias;
    if (m->family == ELK_FAM_DIT) per_layer += (double)m->cond_dim * 6.0 * h + 6.0 * h;
    double total = per_layer * m->layers;
    if (m->family == ELK_FAM_DIT) {
        total += 2.0 * h * m->cond_dim; /* final adaLN modulation */
        return total;
    }
    double emb = (double)m->vocab * h;
    total += emb + h * (m->norm == ELK_NORM_LAYER ? 2 : 1);
    if (!m->tie_embeddings) total += emb;
    total += (double)m->max_positions * h;
    return total;
}
