/* core/elk_hf: Hugging Face config.json import. Good configs give the
 * published hyperparameters (Llama2-13B exactly the shipped preset); bad
 * ones fail naming the key and the file:line:col of its value. */
#include <math.h>

#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <stdio.h>
#include "elk_hf.h"
#include "elk_model.h"
#include "elk_test.h"

static elk_status import(const char *rel, const char *name, elk_model *m, elk_error *err, char *path, size_t n)
{
    elk_error_clear(err);
    return elk_hf_import(src_path(path, n, rel), name, m, err);
}

/* What each fixture must import as (from the public configs and papers). */
static const struct {
    const char *dir;
    const char *name;
    elk_family family;
    int layers, hidden, heads, kv_heads, head_dim, ffn;
    elk_ffn_kind ffn_kind;
    elk_norm_kind norm;
    int vocab, tie, bias, max_positions, post_norms, window, experts, per_token;
    double params; /* published size, checked within 2% */
} good[] = {
    {"llama2-13b", "Llama-2-13b-hf", ELK_FAM_LLAMA, 40, 5120, 40, 40, 128, 13824, ELK_FFN_SWIGLU, ELK_NORM_RMS,
     32000, 0, 0, 0, 0, 0, 0, 0, 13.0e9},
    /* no _name_or_path: the folder names it; its all-layer window is dropped */
    {"mistral-7b", "mistral-7b", ELK_FAM_MISTRAL, 32, 4096, 32, 8, 128, 14336, ELK_FFN_SWIGLU, ELK_NORM_RMS,
     32000, 0, 0, 0, 0, 0, 0, 0, 7.24e9},
    /* head_dim given (32 x 128 != 4608), tied, GeGLU, post norms, window */
    {"gemma2-27b", "gemma2-27b", ELK_FAM_GEMMA2, 46, 4608, 32, 16, 128, 36864, ELK_FFN_GEGLU, ELK_NORM_RMS,
     256000, 1, 0, 0, 1, 4096, 0, 0, 27.2e9},
    /* ffn_dim, LayerNorm, ReLU, biases, 2048 + 2 learned positions, tied */
    {"opt-30b", "opt-30b", ELK_FAM_OPT, 48, 7168, 56, 56, 128, 28672, ELK_FFN_RELU, ELK_NORM_LAYER, 50272, 1, 1,
     2050, 0, 0, 0, 0, 30.0e9},
    /* 8 experts, top-2; sliding_window null */
    {"mixtral-8x7b", "mixtral-8x7b", ELK_FAM_MIXTRAL, 32, 4096, 32, 8, 128, 14336, ELK_FFN_SWIGLU, ELK_NORM_RMS,
     32000, 0, 0, 0, 0, 0, 8, 2, 46.7e9},
    /* qwen3_moe: moe_intermediate_size, num_experts; 128 experts, top-8 */
    {"qwen3-30b-a3b", "qwen3-30b-a3b", ELK_FAM_MIXTRAL, 48, 2048, 32, 4, 128, 768, ELK_FFN_SWIGLU, ELK_NORM_RMS,
     151936, 0, 0, 0, 0, 0, 128, 8, 30.5e9},
};

START_TEST(good_import)
{
    char rel[256], path[1024];
    elk_model m;
    elk_error err;
    snprintf(rel, sizeof rel, "tests/data/hf/%s/config.json", good[_i].dir);
    ck_assert_msg(import(rel, NULL, &m, &err, path, sizeof path) == ELK_OK, "%s", err.msg);
    ck_assert_str_eq(m.name, good[_i].name);
    ck_assert_str_eq(m.source, path);
    ck_assert_int_eq(m.family, good[_i].family);
    ck_assert_int_eq(m.layers, good[_i].layers);
    ck_assert_int_eq(m.hidden, good[_i].hidden);
    ck_assert_int_eq(m.heads, good[_i].heads);
    ck_assert_int_eq(m.kv_heads, good[_i].kv_heads);
    ck_assert_int_eq(m.head_dim, good[_i].head_dim);
    ck_assert_int_eq(m.ffn, good[_i].ffn);
    ck_assert_int_eq(m.ffn_kind, good[_i].ffn_kind);
    ck_assert_int_eq(m.norm, good[_i].norm);
    ck_assert_int_eq(m.vocab, good[_i].vocab);
    ck_assert_int_eq(m.tie_embeddings, good[_i].tie);
    ck_assert_int_eq(m.bias, good[_i].bias);
    ck_assert_int_eq(m.max_positions, good[_i].max_positions);
    ck_assert_int_eq(m.post_norms, good[_i].post_norms);
    ck_assert_int_eq(m.sliding_window, good[_i].window);
    ck_assert_int_eq(m.experts, good[_i].experts);
    ck_assert_int_eq(m.experts_per_token, good[_i].per_token);
    ck_assert_int_eq(m.dtype_bytes, 2);
    double p = elk_model_params(&m);
    ck_assert_msg(fabs(p - good[_i].params) <= 0.02 * good[_i].params, "%s: %.4g parameters, want %.4g",
                  good[_i].dir, p, good[_i].params);
}
END_TEST

/* Import, save, load: the preset `elk --model` reads is the imported model. */
START_TEST(import_save_load)
{
    char rel[256], path[1024], dir[1024], out[1100];
    elk_model m, back;
    elk_error err;
    snprintf(rel, sizeof rel, "tests/data/hf/%s/config.json", good[_i].dir);
    ck_assert_msg(import(rel, NULL, &m, &err, path, sizeof path) == ELK_OK, "%s", err.msg);
    scratch_new(dir, sizeof dir);
    snprintf(out, sizeof out, "%s/m.cfg", dir);
    ck_assert_msg(elk_model_save(out, &m, &err) == ELK_OK, "%s", err.msg);
    ck_assert_msg(elk_model_load(out, &back, &err) == ELK_OK, "%s", err.msg);
    ck_assert_str_eq(back.name, m.name);
    ck_assert_str_eq(back.source, m.source);
    ck_assert_double_eq(elk_model_params(&back), elk_model_params(&m));
    ck_assert_int_eq(back.kv_heads, m.kv_heads);
    ck_assert_int_eq(back.experts_per_token, m.experts_per_token);
    ck_assert_int_eq(back.max_positions, m.max_positions);
    ck_assert_int_eq(back.sliding_window, m.sliding_window);
    scratch_free(dir);
}
END_TEST

/* The acceptance check: the imported Llama2-13B is the preset. */
START_TEST(llama13b_matches_preset)
{
    char path[1024];
    elk_model hf, preset;
    elk_error err;
    ck_assert_msg(import("tests/data/hf/llama2-13b/config.json", NULL, &hf, &err, path, sizeof path) == ELK_OK,
                  "%s", err.msg);
    ck_assert_msg(elk_model_load(src_path(path, sizeof path, "presets/models/llama2-13b.cfg"), &preset, &err) ==
                      ELK_OK, "%s", err.msg);
#define SAME(f) ck_assert_msg(hf.f == preset.f, #f ": import %d, preset %d", (int)hf.f, (int)preset.f)
    SAME(family); SAME(layers); SAME(hidden); SAME(heads); SAME(kv_heads); SAME(head_dim); SAME(ffn);
    SAME(ffn_kind); SAME(norm); SAME(vocab); SAME(tie_embeddings); SAME(bias); SAME(max_positions);
    SAME(post_norms); SAME(sliding_window); SAME(experts); SAME(experts_per_token); SAME(dtype_bytes);
#undef SAME
    ck_assert_double_eq(elk_model_params(&hf), elk_model_params(&preset));
}
END_TEST

/* A model folder stands for its config.json. */
START_TEST(folder_argument)
{
    char path[1024], want[1100];
    elk_model m;
    elk_error err;
    ck_assert_msg(import("tests/data/hf/mistral-7b/", NULL, &m, &err, path, sizeof path) == ELK_OK, "%s", err.msg);
    ck_assert_str_eq(m.name, "mistral-7b");
    ck_assert_int_eq(m.kv_heads, 8);
    snprintf(want, sizeof want, "%sconfig.json", path);
    ck_assert_str_eq(m.source, want);
    ck_assert_int_eq(import("tests/data/hf/bad", NULL, &m, &err, path, sizeof path), ELK_EIO);
    ck_assert_contains(err.msg, "tests/data/hf/bad: a folder, and no config.json in it");
}
END_TEST

/* What is not a config.json is named as such: a folder called config.json
 * holding none (it read as an empty document), a FIFO (blocked), a NUL
 * byte (it ended jansson's text, and the error named a key it hid). */
START_TEST(not_a_config)
{
    char dir[] = "/tmp/elk-hf-XXXXXX", p[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    elk_model m;
    elk_error err;
    snprintf(p, sizeof p, "%s/config.json", dir);
    ck_assert_int_eq(mkdir(p, 0700), 0);
    ck_assert_int_eq(elk_hf_import(p, NULL, &m, &err), ELK_EIO);
    ck_assert_contains(err.msg, "a folder, and no config.json in it");
    rmdir(p);
    snprintf(p, sizeof p, "%s/fifo", dir);
    ck_assert_int_eq(mkfifo(p, 0600), 0);
    ck_assert_int_eq(elk_hf_import(p, NULL, &m, &err), ELK_EIO);
    ck_assert_contains(err.msg, "not a regular file");
    unlink(p);
    snprintf(p, sizeof p, "%s/nul.json", dir);
    FILE *fp = fopen(p, "wb");
    ck_assert_ptr_nonnull(fp);
    fwrite("{\"model_type\": \"llama\",\n \0 \"hidden_size\": 4096}", 1, 46, fp);
    fclose(fp);
    ck_assert_int_eq(elk_hf_import(p, NULL, &m, &err), ELK_EPARSE);
    ck_assert_contains(err.msg, "nul.json:2:2: a NUL byte in the JSON text");
    unlink(p);
    rmdir(dir);
}
END_TEST

START_TEST(explicit_name)
{
    char path[1024];
    elk_model m;
    elk_error err;
    ck_assert_int_eq(import("tests/data/hf/opt-30b/config.json", "my-opt", &m, &err, path, sizeof path), ELK_OK);
    ck_assert_str_eq(m.name, "my-opt");
    ck_assert_int_eq(import("tests/data/hf/opt-30b/config.json", "", &m, &err, path, sizeof path), ELK_EINVAL);
    ck_assert_contains(err.msg, "model name");
    char longname[100];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    ck_assert_int_eq(import("tests/data/hf/opt-30b/config.json", longname, &m, &err, path, sizeof path),
                     ELK_EINVAL);
}
END_TEST

/* Configs written on the fly: name derivation and defaults per model_type. */
static elk_status import_text(const char *file, const char *json, elk_model *m, elk_error *err, char *dir,
                              size_t n)
{
    char path[1200];
    scratch_new(dir, n);
    snprintf(path, sizeof path, "%s/%s", dir, file);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    {
        char cmd[1300];
        snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
        ck_assert_int_eq(system(cmd), 0);
    }
    *slash = '/';
    FILE *fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    fputs(json, fp);
    fclose(fp);
    elk_error_clear(err);
    return elk_hf_import(path, NULL, m, err);
}

#define LLAMA_BODY                                                                                         \
    "\"model_type\": \"llama\", \"num_hidden_layers\": 2, \"hidden_size\": 256, \"num_attention_heads\": 4, " \
    "\"intermediate_size\": 688, \"vocab_size\": 1000"

static const struct {
    const char *file;
    const char *json;
    const char *name;
} names[] = {
    /* _name_or_path wins over the folder (HF cache folders are hashes) */
    {"snapshots/0123abcd/config.json", "{\"_name_or_path\": \"org/Cool-Model-1B\", " LLAMA_BODY "}",
     "Cool-Model-1B"},
    /* trailing slash and characters unsafe in file names */
    {"x/config.json", "{\"_name_or_path\": \"/ckpt/my model:v2/\", " LLAMA_BODY "}", "my-model-v2"},
    /* no _name_or_path: the folder */
    {"tiny-llama/config.json", "{" LLAMA_BODY "}", "tiny-llama"},
    /* a file not called config.json names itself */
    {"models/phi-ish.json", "{" LLAMA_BODY "}", "phi-ish"},
    /* empty _name_or_path is ignored */
    {"fallback/config.json", "{\"_name_or_path\": \"\", " LLAMA_BODY "}", "fallback"},
};

START_TEST(derived_name)
{
    char dir[1024];
    elk_model m;
    elk_error err;
    elk_status st = import_text(names[_i].file, names[_i].json, &m, &err, dir, sizeof dir);
    ck_assert_msg(st == ELK_OK, "%s", err.msg);
    ck_assert_str_eq(m.name, names[_i].name);
    /* llama defaults: MHA when num_key_value_heads is absent, untied, SwiGLU */
    ck_assert_int_eq(m.kv_heads, 4);
    ck_assert_int_eq(m.head_dim, 64);
    ck_assert_int_eq(m.tie_embeddings, 0);
    ck_assert_int_eq(m.ffn_kind, ELK_FFN_SWIGLU);
    scratch_free(dir);
}
END_TEST

/* Per-type defaults and alternatives the fixtures do not exercise. */
static const struct {
    const char *what;
    const char *json;
    elk_family family;
    elk_ffn_kind ffn_kind;
    int tie, window, bias, max_positions;
} variants[] = {
    {"gemma2 without hidden_activation uses hidden_act; window defaults to 4096; tied by default",
     "{\"model_type\": \"gemma2\", \"num_hidden_layers\": 2, \"hidden_size\": 256, \"num_attention_heads\": 4,"
     " \"head_dim\": 32, \"intermediate_size\": 512, \"vocab_size\": 100, \"hidden_act\": \"gelu\"}",
     ELK_FAM_GEMMA2, ELK_FFN_GEGLU, 1, 4096, 0, 0},
    {"gemma2 with sliding_window null has none; tie_word_embeddings false unties",
     "{\"model_type\": \"gemma2\", \"num_hidden_layers\": 2, \"hidden_size\": 256, \"num_attention_heads\": 4,"
     " \"intermediate_size\": 512, \"vocab_size\": 100, \"sliding_window\": null, \"tie_word_embeddings\": false}",
     ELK_FAM_GEMMA2, ELK_FFN_GEGLU, 0, 0, 0, 0},
    {"opt with gelu and enable_bias false; positions default to 2048 + 2",
     "{\"model_type\": \"opt\", \"num_hidden_layers\": 2, \"hidden_size\": 256, \"num_attention_heads\": 4,"
     " \"ffn_dim\": 1024, \"vocab_size\": 100, \"activation_function\": \"gelu\", \"enable_bias\": false}",
     ELK_FAM_OPT, ELK_FFN_GELU, 1, 0, 0, 2050},
    {"qwen2 imports as the llama family",
     "{\"model_type\": \"qwen2\", \"num_hidden_layers\": 28, \"hidden_size\": 3584, \"num_attention_heads\": 28,"
     " \"num_key_value_heads\": 4, \"intermediate_size\": 18944, \"vocab_size\": 152064,"
     " \"hidden_act\": \"silu\", \"tie_word_embeddings\": false, \"sliding_window\": 131072}",
     ELK_FAM_LLAMA, ELK_FFN_SWIGLU, 0, 0, 0, 0},
    {"llama with a gelu activation is GeGLU",
     "{" LLAMA_BODY ", \"hidden_act\": \"gelu_pytorch_tanh\", \"tie_word_embeddings\": true}",
     ELK_FAM_LLAMA, ELK_FFN_GEGLU, 1, 0, 0, 0},
};

START_TEST(type_variants)
{
    char dir[1024];
    elk_model m;
    elk_error err;
    elk_status st = import_text("v/config.json", variants[_i].json, &m, &err, dir, sizeof dir);
    ck_assert_msg(st == ELK_OK, "%s: %s", variants[_i].what, err.msg);
    ck_assert_int_eq(m.family, variants[_i].family);
    ck_assert_int_eq(m.ffn_kind, variants[_i].ffn_kind);
    ck_assert_int_eq(m.tie_embeddings, variants[_i].tie);
    ck_assert_int_eq(m.sliding_window, variants[_i].window);
    ck_assert_int_eq(m.bias, variants[_i].bias);
    ck_assert_int_eq(m.max_positions, variants[_i].max_positions);
    scratch_free(dir);
}
END_TEST

/* Bad configs under tests/data/hf/bad/: status, the exact file:line:col
 * (of the value, of jansson's parse error, or 1:1 for an absent key) and
 * the key. Columns count characters, as jansson does. */
static const struct {
    const char *file;
    elk_status status;
    int line, col;
    const char *key;
} bad[] = {
    {"syntax-trailing-comma", ELK_EPARSE, 25, 1, "JSON syntax error"},
    {"syntax-missing-comma", ELK_EPARSE, 10, 21, "'}' expected"},
    {"duplicate-key", ELK_EPARSE, 16, 21, "duplicate object key near '\"num_hidden_layers\"'"},
    {"empty", ELK_EPARSE, 1, 1, "JSON syntax error"},
    {"not-object", ELK_EFIELD, 2, 3, "found an array"},
    {"missing-hidden-size", ELK_EMISSING, 1, 1, "\"hidden_size\""},
    {"missing-model-type", ELK_EMISSING, 1, 1, "\"model_type\""},
    {"unknown-model-type", ELK_ERANGE, 13, 17, "\"model_type\": \"bert\""},
    {"wrong-type-string", ELK_EFIELD, 15, 24, "\"num_hidden_layers\": expected an integer, found a string"},
    {"wrong-type-bool", ELK_EFIELD, 20, 26, "\"tie_word_embeddings\": expected true or false"},
    {"wrong-type-real", ELK_EFIELD, 9, 18, "\"hidden_size\": expected an integer, found a real"},
    {"null-required", ELK_EMISSING, 24, 17, "\"vocab_size\": is null"},
    {"heads-not-dividing-hidden", ELK_ERANGE, 14, 26, "\"num_attention_heads\": 48 does not divide"},
    {"kv-not-dividing-heads", ELK_ERANGE, 16, 26, "\"num_key_value_heads\": 6 does not divide"},
    {"negative-layers", ELK_ERANGE, 15, 24, "\"num_hidden_layers\": value -1 out of range"},
    {"bad-activation", ELK_ERANGE, 8, 17, "\"hidden_act\": activation \"tanh\""},
    {"nested-decoy", ELK_EFIELD, 13, 18, "\"hidden_size\""},
    {"utf8-column", ELK_EFIELD, 2, 48, "\"vocab_size\""},
    {"experts-per-token", ELK_ERANGE, 15, 26, "\"num_experts_per_tok\": 4 exceeds the experts (2)"},
    {"missing-experts", ELK_EMISSING, 1, 1, "\"num_local_experts\""},
    {"opt-proj-dim", ELK_ERANGE, 28, 26, "\"word_embed_proj_dim\": 512"},
    {"qwen3-sparse-step", ELK_ERANGE, 8, 26, "\"decoder_sparse_step\": 2 (dense layers"},
    {"qwen3-dense-layers", ELK_ERANGE, 17, 22, "\"mlp_only_layers\": dense layers"},
};

START_TEST(bad_json)
{
    char rel[256], path[1024], where[1100];
    elk_model m;
    elk_error err;
    snprintf(rel, sizeof rel, "tests/data/hf/bad/%s.json", bad[_i].file);
    elk_status st = import(rel, NULL, &m, &err, path, sizeof path);
    ck_assert_msg(st == bad[_i].status, "%s: status %s, want %s (%s)", bad[_i].file, elk_status_str(st),
                  elk_status_str(bad[_i].status), err.msg);
    snprintf(where, sizeof where, "%s:%d:%d: ", path, bad[_i].line, bad[_i].col);
    ck_assert_msg(strncmp(err.msg, where, strlen(where)) == 0, "message \"%s\" does not start with \"%s\"",
                  err.msg, where);
    ck_assert_contains(err.msg, bad[_i].key);
}
END_TEST

START_TEST(missing_file)
{
    elk_model m;
    elk_error err;
    ck_assert_int_eq(elk_hf_import("/nonexistent/config.json", NULL, &m, &err), ELK_EIO);
    ck_assert_contains(err.msg, "/nonexistent/config.json: cannot open");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hf");
    TCase *tc = tcase_create("good");
    tcase_add_loop_test(tc, good_import, 0, sizeof good / sizeof good[0]);
    tcase_add_loop_test(tc, import_save_load, 0, sizeof good / sizeof good[0]);
    tcase_add_test(tc, llama13b_matches_preset);
    tcase_add_test(tc, explicit_name);
    tcase_add_test(tc, folder_argument);
    tcase_add_test(tc, not_a_config);
    tcase_add_loop_test(tc, derived_name, 0, sizeof names / sizeof names[0]);
    tcase_add_loop_test(tc, type_variants, 0, sizeof variants / sizeof variants[0]);
    suite_add_tcase(s, tc);
    tc = tcase_create("bad");
    tcase_add_loop_test(tc, bad_json, 0, sizeof bad / sizeof bad[0]);
    tcase_add_test(tc, missing_file);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
