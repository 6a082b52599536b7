#include "elk_hf.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "elk_file.h"

const char elk_hf_supported[] = "llama, mistral, gemma2, opt, mixtral, qwen2, qwen3_moe";

/* How one model_type maps onto elk_model. Families whose differences are
 * more than a key name (OPT's learned positions and biases, Gemma2's post
 * norms and local attention, Mixtral's experts) are handled in code keyed
 * by family; this row holds what is uniform.
 * Invariant: act_keys[0] is the key HF's own modelling code reads first. */
typedef struct {
    const char *type;
    elk_family family;
    const char *ffn_key;
    const char *act_keys[2];
    const char *act_default;  /* what the HF config class assumes when absent */
    elk_norm_kind norm;
    int gated;                /* gate * up FFN (SwiGLU/GeGLU) rather than fc1 -> act -> fc2 */
    int tie_default;
} hf_kind;

/* Qwen2 maps to the llama family: same graph; its QKV-only biases are
 * ~0.01% of the parameters and elk_model's bias flag means every linear
 * layer (OPT), so they are left out. */
static const hf_kind kinds[] = {
    {"llama", ELK_FAM_LLAMA, "intermediate_size", {"hidden_act", NULL}, "silu", ELK_NORM_RMS, 1, 0},
    {"mistral", ELK_FAM_MISTRAL, "intermediate_size", {"hidden_act", NULL}, "silu", ELK_NORM_RMS, 1, 0},
    {"gemma2", ELK_FAM_GEMMA2, "intermediate_size", {"hidden_activation", "hidden_act"},
     "gelu_pytorch_tanh", ELK_NORM_RMS, 1, 1},
    {"opt", ELK_FAM_OPT, "ffn_dim", {"activation_function", NULL}, "relu", ELK_NORM_LAYER, 0, 1},
    {"mixtral", ELK_FAM_MIXTRAL, "intermediate_size", {"hidden_act", NULL}, "silu", ELK_NORM_RMS, 1, 0},
    {"qwen2", ELK_FAM_LLAMA, "intermediate_size", {"hidden_act", NULL}, "silu", ELK_NORM_RMS, 1, 0},
    /* Qwen3-MoE: Mixtral's graph (GQA, routed SwiGLU experts, no shared
     * expert); its per-head q/k norms are 0.001% of the weights */
    {"qwen3_moe", ELK_FAM_MIXTRAL, "moe_intermediate_size", {"hidden_act", NULL}, "silu", ELK_NORM_RMS, 1, 0},
};

/* One config being imported. Owns root (a jansson reference) and text (the
 * raw file hf_open parsed, kept for an error's key position, because json_t
 * keeps none). Invariant: root is a JSON object once hf_open succeeded. */
typedef struct {
    const char *path;
    json_t *root;
    char *text;
    size_t len;
    const char *type;
    elk_error *err;
} hf_doc;

/* 1-based line and column (in characters, as jansson counts them) of byte
 * offset off. */
static void offset_pos(const char *text, size_t off, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n') {
            ++*line;
            *col = 1;
        } else if ((c & 0xC0) != 0x80) {
            ++*col;
        }
    }
}

/* Where the value of top-level key `key` starts. Tracks nesting and string
 * literals, so a nested "hidden_size" (in a text_config { ... }, say) or a
 * string value spelled like a key never matches. Keys with escapes are
 * compared raw; HF keys have none. Returns 0 if not found. */
static int key_pos(hf_doc *d, const char *key, int *line, int *col)
{
    const char *t = d->text;
    size_t n = d->len, klen = strlen(key);
    int depth = 0;
    for (size_t i = 0; t && i < n; i++) {
        char c = t[i];
        if (c == '{' || c == '[') depth++;
        else if (c == '}' || c == ']') depth--;
        if (c != '"') continue;
        size_t start = ++i;
        while (i < n && t[i] != '"') i += t[i] == '\\' ? 2 : 1;
        if (i >= n) return 0;
        size_t end = i, j = i + 1;
        while (j < n && strchr(" \t\r\n", t[j])) j++;
        if (depth != 1 || j >= n || t[j] != ':') continue;
        if (end - start != klen || memcmp(t + start, key, klen) != 0) continue;
        j++;
        while (j < n && strchr(" \t\r\n", t[j])) j++;
        offset_pos(t, j, line, col);
        return 1;
    }
    return 0;
}

/* Fail naming key and the file:line:col of its value (1:1 when absent). */
static elk_status key_fail(hf_doc *d, const char *key, elk_status code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static elk_status key_fail(hf_doc *d, const char *key, elk_status code, const char *fmt, ...)
{
    int line = 1, col = 1;
    if (key) key_pos(d, key, &line, &col);
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return elk_fail(d->err, code, "%s:%d:%d: %s", d->path, line, col, what);
}

static const char *json_word(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE: return "true";
    case JSON_FALSE: return "false";
    default: return "null";
    }
}

/* A JSON null counts as absent: HF writes "sliding_window": null for "none". */
static const json_t *member(hf_doc *d, const char *key)
{
    const json_t *v = json_object_get(d->root, key);
    return v && !json_is_null(v) ? v : NULL;
}

static elk_status missing(hf_doc *d, const char *key, const char *what)
{
    if (json_object_get(d->root, key))
        return key_fail(d, key, ELK_EMISSING, "key \"%s\": is null; expected %s", key, what);
    return key_fail(d, NULL, ELK_EMISSING, "missing required key \"%s\" (%s) for model_type \"%s\"",
                    key, what, d->type);
}

/* Read an integer in [lo, hi]. *out is left alone when the key is absent
 * and not required, so callers preset their defaults. */
static elk_status get_int(hf_doc *d, const char *key, int required, long lo, long hi, int *out)
{
    const json_t *v = member(d, key);
    if (!v) return required ? missing(d, key, "an integer") : ELK_OK;
    if (!json_is_integer(v))
        return key_fail(d, key, ELK_EFIELD, "key \"%s\": expected an integer, found %s", key, json_word(v));
    json_int_t x = json_integer_value(v);
    if (x < lo || x > hi)
        return key_fail(d, key, ELK_ERANGE, "key \"%s\": value %lld out of range (allowed %ld .. %ld)",
                        key, (long long)x, lo, hi);
    *out = (int)x;
    return ELK_OK;
}

static elk_status get_bool(hf_doc *d, const char *key, int *out)
{
    const json_t *v = member(d, key);
    if (!v) return ELK_OK;
    if (!json_is_boolean(v))
        return key_fail(d, key, ELK_EFIELD, "key \"%s\": expected true or false, found %s", key, json_word(v));
    *out = json_is_true(v);
    return ELK_OK;
}

static elk_status get_str(hf_doc *d, const char *key, int required, const char **out)
{
    const json_t *v = member(d, key);
    if (!v) return required ? missing(d, key, "a string") : ELK_OK;
    if (!json_is_string(v))
        return key_fail(d, key, ELK_EFIELD, "key \"%s\": expected a string, found %s", key, json_word(v));
    *out = json_string_value(v);
    return ELK_OK;
}

static elk_status read_ffn_kind(hf_doc *d, const hf_kind *k, elk_model *m)
{
    const char *key = k->act_keys[0], *act = NULL;
    for (int i = 0; i < 2 && k->act_keys[i] && !act; i++) {
        ELK_TRY(get_str(d, k->act_keys[i], 0, &act));
        if (act) key = k->act_keys[i];
    }
    if (!act) act = k->act_default;
    int gelu = !strcmp(act, "gelu") || !strcmp(act, "gelu_new") || !strcmp(act, "gelu_pytorch_tanh") ||
               !strcmp(act, "gelu_fast");
    if (k->gated) {
        if (!strcmp(act, "silu") || !strcmp(act, "swish")) m->ffn_kind = ELK_FFN_SWIGLU;
        else if (gelu) m->ffn_kind = ELK_FFN_GEGLU;
        else
            return key_fail(d, key, ELK_ERANGE,
                            "key \"%s\": activation \"%s\" is not supported for %s (allowed: silu, gelu, "
                            "gelu_new, gelu_pytorch_tanh)", key, act, k->type);
    } else {
        if (!strcmp(act, "relu")) m->ffn_kind = ELK_FFN_RELU;
        else if (gelu) m->ffn_kind = ELK_FFN_GELU;
        else
            return key_fail(d, key, ELK_ERANGE,
                            "key \"%s\": activation \"%s\" is not supported for %s (allowed: relu, gelu)",
                            key, act, k->type);
    }
    return ELK_OK;
}

/* Attention shapes: head_dim explicit or hidden/heads; kv heads divide heads. */
static elk_status read_heads(hf_doc *d, elk_model *m)
{
    ELK_TRY(get_int(d, "num_attention_heads", 1, 1, 65536, &m->heads));
    m->kv_heads = m->heads;
    ELK_TRY(get_int(d, "num_key_value_heads", 0, 1, 65536, &m->kv_heads));
    m->head_dim = 0;
    ELK_TRY(get_int(d, "head_dim", 0, 1, 65536, &m->head_dim));
    if (!m->head_dim) {
        if (m->hidden % m->heads)
            return key_fail(d, "num_attention_heads", ELK_ERANGE,
                            "key \"num_attention_heads\": %d does not divide hidden_size (%d); "
                            "the config must give head_dim", m->heads, m->hidden);
        m->head_dim = m->hidden / m->heads;
    }
    if (m->kv_heads > m->heads || m->heads % m->kv_heads)
        return key_fail(d, "num_key_value_heads", ELK_ERANGE,
                        "key \"num_key_value_heads\": %d does not divide num_attention_heads (%d)",
                        m->kv_heads, m->heads);
    return ELK_OK;
}

static elk_status read_family(hf_doc *d, const hf_kind *k, elk_model *m)
{
    if (k->family == ELK_FAM_OPT) {
        /* A projection between embedding and hidden width (opt-350m) adds two
         * matrices elk_model cannot express; better refuse than mis-count. */
        int proj = m->hidden;
        ELK_TRY(get_int(d, "word_embed_proj_dim", 0, 1, 1 << 20, &proj));
        if (proj != m->hidden)
            return key_fail(d, "word_embed_proj_dim", ELK_ERANGE,
                            "key \"word_embed_proj_dim\": %d differs from hidden_size (%d); "
                            "embedding projections are not modelled", proj, m->hidden);
        /* Pre- or post-LN changes where the norms sit, not what is read or
         * computed per step, so the value is only type-checked. */
        int pre = 1;
        ELK_TRY(get_bool(d, "do_layer_norm_before", &pre));
        m->bias = 1;
        ELK_TRY(get_bool(d, "enable_bias", &m->bias));
        /* OPT's learned position table has 2 extra rows (its padding offset). */
        int pos = 2048;
        ELK_TRY(get_int(d, "max_position_embeddings", 0, 1, (1 << 24) - 2, &pos));
        m->max_positions = pos + 2;
    }
    if (k->family == ELK_FAM_GEMMA2) {
        m->post_norms = 1;
        m->sliding_window = 4096; /* Gemma2Config's default */
        if (json_object_get(d->root, "sliding_window") && !member(d, "sliding_window"))
            m->sliding_window = 0;
        ELK_TRY(get_int(d, "sliding_window", 0, 1, 1 << 24, &m->sliding_window));
    }
    /* Mistral's sliding_window applies to every layer, while elk_model's
     * means alternate layers (Gemma2); it is dropped rather than misread,
     * which overstates KV reads only beyond the window (4096 tokens). */
    if (k->family == ELK_FAM_MIXTRAL) {
        int qwen = !strcmp(k->type, "qwen3_moe");
        if (qwen) {
            /* every layer must be an MoE layer: dense ones among them are
             * not modelled */
            int step = 1;
            ELK_TRY(get_int(d, "decoder_sparse_step", 0, 1, 4096, &step));
            json_t *dense = json_object_get(d->root, "mlp_only_layers");
            if (step != 1)
                return key_fail(d, "decoder_sparse_step", ELK_ERANGE,
                                "key \"decoder_sparse_step\": %d (dense layers between MoE layers) is not supported; "
                                "only 1", step);
            if (dense && (!json_is_array(dense) || json_array_size(dense) > 0))
                return key_fail(d, "mlp_only_layers", ELK_ERANGE,
                                "key \"mlp_only_layers\": dense layers among MoE layers are not supported; only []");
        }
        ELK_TRY(get_int(d, qwen ? "num_experts" : "num_local_experts", 1, 1, 4096, &m->experts));
        ELK_TRY(get_int(d, "num_experts_per_tok", 1, 1, 4096, &m->experts_per_token));
        if (m->experts_per_token > m->experts)
            return key_fail(d, "num_experts_per_tok", ELK_ERANGE,
                            "key \"num_experts_per_tok\": %d exceeds the experts (%d)",
                            m->experts_per_token, m->experts);
    }
    return ELK_OK;
}

/* Keep names usable as file names and preset arguments. */
static void set_name(char *dst, size_t n, const char *src, size_t len)
{
    size_t j = 0;
    for (size_t i = 0; i < len && j + 1 < n; i++) {
        char c = src[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-' || c == '+';
        dst[j++] = ok ? c : '-';
    }
    dst[j] = '\0';
}

/* Last non-empty component of a slash-separated path: [*start, *start+len). */
static size_t last_component(const char *p, size_t len, const char **start)
{
    while (len && p[len - 1] == '/') len--;
    size_t b = len;
    while (b && p[b - 1] != '/') b--;
    *start = p + b;
    return len - b;
}

/* _name_or_path first: HF's cache keeps configs under snapshot hashes, so
 * the folder is the weaker hint; a file not called config.json was probably
 * named after its model. */
static void derive_name(hf_doc *d, elk_model *m)
{
    const char *s = NULL, *c;
    size_t l;
    if (get_str(d, "_name_or_path", 0, &s) == ELK_OK && s && (l = last_component(s, strlen(s), &c)) &&
        strcmp(c, ".") != 0) {
        set_name(m->name, sizeof m->name, c, l);
        return;
    }
    l = last_component(d->path, strlen(d->path), &c);
    if (l && strcmp(c, "config.json") != 0) {
        if (l > 5 && !memcmp(c + l - 5, ".json", 5)) l -= 5;
        set_name(m->name, sizeof m->name, c, l);
        return;
    }
    char real[PATH_MAX];
    if (realpath(d->path, real)) {
        size_t rl = strlen(real);
        const char *base;
        last_component(real, rl, &base);
        size_t dl = (size_t)(base - real);
        if ((l = last_component(real, dl, &c))) {
            set_name(m->name, sizeof m->name, c, l);
            return;
        }
    }
    snprintf(m->name, sizeof m->name, "model");
}

/* An HF config.json is a few KB; this bounds what a wrong file costs. */
#define HF_MAX_BYTES ((size_t)16 << 20)

static elk_status hf_open(hf_doc *d)
{
    /* stat first: fopen succeeds on a folder (a folder named config.json
     * then read as an empty document) and blocks on a FIFO */
    struct stat sb;
    if (stat(d->path, &sb) != 0) return elk_fail(d->err, ELK_EIO, "%s: cannot open: %s", d->path, strerror(errno));
    if (S_ISDIR(sb.st_mode)) return elk_fail(d->err, ELK_EIO, "%s: is a directory, not a config.json", d->path);
    if (!S_ISREG(sb.st_mode)) return elk_fail(d->err, ELK_EIO, "%s: not a regular file", d->path);
    char *text;
    size_t len;
    ELK_TRY(elk_file_read(d->path, HF_MAX_BYTES, &text, &len, d->err));
    d->text = text;
    d->len = len;
    /* a NUL ends the text for jansson's string parser: name it, not the
     * key it hid */
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        int line = 1, col = 1;
        offset_pos(text, (size_t)(nul - text), &line, &col);
        return elk_fail(d->err, ELK_EPARSE, "%s:%d:%d: a NUL byte in the JSON text", d->path, line, col);
    }
    json_error_t je;
    d->root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!d->root)
        return elk_fail(d->err, ELK_EPARSE, "%s:%d:%d: JSON syntax error: %s", d->path,
                        je.line > 0 ? je.line : 1, je.column > 0 ? je.column : 1, je.text);
    if (!json_is_object(d->root)) {
        /* The value starts at the first non-blank character. */
        size_t i = 0;
        while (d->text && i < d->len && strchr(" \t\r\n", d->text[i])) i++;
        int line = 1, col = 1;
        if (d->text) offset_pos(d->text, i, &line, &col);
        return elk_fail(d->err, ELK_EFIELD, "%s:%d:%d: expected a JSON object { ... } at top level, found %s",
                        d->path, line, col, json_word(d->root));
    }
    return ELK_OK;
}

static elk_status import(hf_doc *d, const char *name, elk_model *m)
{
    ELK_TRY(hf_open(d));
    if (!member(d, "model_type"))
        return key_fail(d, NULL, ELK_EMISSING, "missing required key \"model_type\" (a string: one of %s)",
                        elk_hf_supported);
    ELK_TRY(get_str(d, "model_type", 1, &d->type));
    const hf_kind *k = NULL;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(kinds[i].type, d->type)) k = &kinds[i];
    if (!k)
        return key_fail(d, "model_type", ELK_ERANGE, "key \"model_type\": \"%s\" is not supported (supported: %s)",
                        d->type, elk_hf_supported);

    elk_model_defaults(m);
    m->family = k->family;
    m->norm = k->norm;
    ELK_TRY(get_int(d, "num_hidden_layers", 1, 1, 10000, &m->layers));
    ELK_TRY(get_int(d, "hidden_size", 1, 1, 1 << 20, &m->hidden));
    ELK_TRY(read_heads(d, m));
    ELK_TRY(get_int(d, k->ffn_key, 1, 1, 1 << 22, &m->ffn));
    ELK_TRY(read_ffn_kind(d, k, m));
    ELK_TRY(get_int(d, "vocab_size", 1, 1, 1 << 24, &m->vocab));
    m->tie_embeddings = k->tie_default;
    ELK_TRY(get_bool(d, "tie_word_embeddings", &m->tie_embeddings));
    ELK_TRY(read_family(d, k, m));

    if (name) {
        if (!*name || strlen(name) >= sizeof m->name)
            return elk_fail(d->err, ELK_EINVAL, "model name \"%s\": must be 1 to %zu characters", name,
                            sizeof m->name - 1);
        snprintf(m->name, sizeof m->name, "%s", name);
    } else {
        derive_name(d, m);
    }
    snprintf(m->source, sizeof m->source, "%s", d->path);
    elk_error e2;
    if (elk_model_check(m, &e2) != ELK_OK)
        return elk_fail(d->err, e2.code, "%s:1:1: %s", d->path, e2.msg);
    return ELK_OK;
}

elk_status elk_hf_import(const char *json_path, const char *name, elk_model *out, elk_error *err)
{
    /* HF models ship as folders; take the folder's config.json. */
    char in_dir[4096];
    struct stat sb;
    if (stat(json_path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        size_t l = strlen(json_path);
        snprintf(in_dir, sizeof in_dir, "%s%sconfig.json", json_path, l && json_path[l - 1] == '/' ? "" : "/");
        if (stat(in_dir, &sb) != 0)
            return elk_fail(err, ELK_EIO, "%s: a folder, and no config.json in it (%s: %s)", json_path, in_dir,
                            strerror(errno));
        json_path = in_dir;
    }
    hf_doc d = {json_path, NULL, NULL, 0, "?", err};
    elk_status st = import(&d, name, out);
    json_decref(d.root);
    free(d.text);
    if (st == ELK_OK) elk_error_clear(err);
    return st;
}
