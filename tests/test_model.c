/* core/elk_model: presets load with the right derived fields, parameter
 * counts match the published sizes, invariants are enforced, and presets
 * survive a save/load round trip. */
#include <glob.h>
#include <math.h>

#include "elk_model.h"
#include "elk_test.h"

static void load(const char *name, elk_model *m)
{
    char rel[256], path[1024];
    elk_error err;
    snprintf(rel, sizeof rel, "presets/models/%s.cfg", name);
    elk_status st = elk_model_load(src_path(path, sizeof path, rel), m, &err);
    ck_assert_msg(st == ELK_OK, "%s: %s", name, err.msg);
}

/* Published sizes (docs/PRESETS.md and the model cards); 2% covers the
 * rounding of the published figure, not modelling slack. */
static const struct {
    const char *model;
    double params;
} sizes[] = {
    {"llama2-13b", 13.0e9},
    {"llama2-70b", 69.0e9},
    {"opt-30b", 30.0e9},
    {"gemma2-27b", 27.2e9},
    {"llama2-7b", 6.74e9},
};

START_TEST(params_published)
{
    elk_model m;
    load(sizes[_i].model, &m);
    double p = elk_model_params(&m), want = sizes[_i].params;
    ck_assert_msg(fabs(p - want) <= 0.02 * want, "%s: %.4g parameters, want %.4g +-2%%", sizes[_i].model, p,
                  want);
}
END_TEST

/* tiny, by hand (hidden 256, 4 heads of 64, 2 KV heads, ffn 688, vocab 1000):
 *   q 256*256 = 65536, k+v 2*256*128 = 65536, o 256*256 = 65536,
 *   SwiGLU 3*256*688 = 528384, two RMSNorm scales 2*256 = 512
 *   -> 725504 per layer, 1451008 for 2 layers;
 *   embedding and untied LM head 2*1000*256 = 512000; final norm 256.
 *   Total 1963264. */
START_TEST(params_tiny_exact)
{
    elk_model m;
    load("tiny", &m);
    ck_assert_double_eq(elk_model_params(&m), 1963264.0);
    /* Tying the LM head removes exactly one vocab x hidden table. */
    m.tie_embeddings = 1;
    ck_assert_double_eq(elk_model_params(&m), 1963264.0 - 256000.0);
}
END_TEST

/* Fields the loader derives or defaults. */
static const struct {
    const char *model;
    int layers, hidden, heads, kv_heads, head_dim, ffn;
    elk_family family;
    elk_ffn_kind ffn_kind;
    elk_norm_kind norm;
    int tie, bias, post_norms, window;
} fields[] = {
    {"llama2-13b", 40, 5120, 40, 40, 128, 13824, ELK_FAM_LLAMA, ELK_FFN_SWIGLU, ELK_NORM_RMS, 0, 0, 0, 0},
    {"llama2-70b", 80, 8192, 64, 8, 128, 28672, ELK_FAM_LLAMA, ELK_FFN_SWIGLU, ELK_NORM_RMS, 0, 0, 0, 0},
    {"gemma2-27b", 46, 4608, 32, 16, 128, 36864, ELK_FAM_GEMMA2, ELK_FFN_GEGLU, ELK_NORM_RMS, 1, 0, 1, 4096},
    {"opt-30b", 48, 7168, 56, 56, 128, 28672, ELK_FAM_OPT, ELK_FFN_RELU, ELK_NORM_LAYER, 1, 1, 0, 0},
    /* dit-xl gives neither kv_heads nor head_dim: kv_heads = heads, head_dim = 1152/16 */
    {"dit-xl", 28, 1152, 16, 16, 72, 4608, ELK_FAM_DIT, ELK_FFN_GELU, ELK_NORM_LAYER, 0, 0, 0, 0},
    {"tiny", 2, 256, 4, 2, 64, 688, ELK_FAM_LLAMA, ELK_FFN_SWIGLU, ELK_NORM_RMS, 0, 0, 0, 0},
};

START_TEST(preset_fields)
{
    elk_model m;
    load(fields[_i].model, &m);
    ck_assert_str_eq(m.name, fields[_i].model);
    ck_assert_int_eq(m.layers, fields[_i].layers);
    ck_assert_int_eq(m.hidden, fields[_i].hidden);
    ck_assert_int_eq(m.heads, fields[_i].heads);
    ck_assert_int_eq(m.kv_heads, fields[_i].kv_heads);
    ck_assert_int_eq(m.head_dim, fields[_i].head_dim);
    ck_assert_int_eq(m.ffn, fields[_i].ffn);
    ck_assert_int_eq(m.family, fields[_i].family);
    ck_assert_int_eq(m.ffn_kind, fields[_i].ffn_kind);
    ck_assert_int_eq(m.norm, fields[_i].norm);
    ck_assert_int_eq(m.tie_embeddings, fields[_i].tie);
    ck_assert_int_eq(m.bias, fields[_i].bias);
    ck_assert_int_eq(m.post_norms, fields[_i].post_norms);
    ck_assert_int_eq(m.sliding_window, fields[_i].window);
    ck_assert_int_eq(m.dtype_bytes, 2);
}
END_TEST

/* elk_model_check on models built in code, as import-hf and the TUI do. */
static const struct {
    const char *what;
    int heads, kv_heads, experts, per_token, vocab;
    elk_status want;
    const char *needle;
} checks[] = {
    {"valid", 8, 2, 0, 0, 100, ELK_OK, ""},
    {"kv heads do not divide heads", 8, 3, 0, 0, 100, ELK_ERANGE, "kv_heads"},
    {"more kv heads than heads", 8, 16, 0, 0, 100, ELK_ERANGE, "kv_heads"},
    /* built in code, kv_heads 0 must be an error, not a division by zero */
    {"no kv heads", 8, 0, 0, 0, 100, ELK_ERANGE, "kv_heads"},
    {"top-k above expert count", 8, 8, 4, 5, 100, ELK_ERANGE, "experts_per_token"},
    {"experts without top-k", 8, 8, 4, 0, 100, ELK_EMISSING, "experts_per_token"},
    {"valid MoE", 8, 8, 8, 2, 100, ELK_OK, ""},
    {"language model without vocab", 8, 8, 0, 0, 0, ELK_EMISSING, "vocab"},
};

START_TEST(check_invariants)
{
    elk_model m;
    load("tiny", &m);
    m.heads = checks[_i].heads;
    m.kv_heads = checks[_i].kv_heads;
    m.experts = checks[_i].experts;
    m.experts_per_token = checks[_i].per_token;
    m.vocab = checks[_i].vocab;
    elk_error err;
    elk_error_clear(&err);
    elk_status st = elk_model_check(&m, &err);
    ck_assert_msg(st == checks[_i].want, "%s: status %s, want %s (%s)", checks[_i].what, elk_status_str(st),
                  elk_status_str(checks[_i].want), err.msg);
    ck_assert_contains(err.msg, checks[_i].needle);
}
END_TEST

START_TEST(check_dit_needs_tokens)
{
    elk_model m;
    load("dit-xl", &m);
    elk_error err;
    ck_assert_int_eq(elk_model_check(&m, &err), ELK_OK);
    m.tokens = 0;
    ck_assert_int_eq(elk_model_check(&m, &err), ELK_EMISSING);
    ck_assert_contains(err.msg, "tokens");
}
END_TEST

static void assert_same_model(const elk_model *a, const elk_model *b, const char *what)
{
#define SAME(f) ck_assert_msg(a->f == b->f, "%s: " #f " %d != %d", what, (int)a->f, (int)b->f)
    ck_assert_str_eq(a->name, b->name);
    ck_assert_str_eq(a->source, b->source);
    SAME(family); SAME(layers); SAME(hidden); SAME(heads); SAME(kv_heads); SAME(head_dim);
    SAME(ffn); SAME(ffn_kind); SAME(norm); SAME(vocab); SAME(tie_embeddings); SAME(bias);
    SAME(max_positions); SAME(post_norms); SAME(sliding_window); SAME(experts);
    SAME(experts_per_token); SAME(tokens); SAME(cond_dim); SAME(dtype_bytes);
#undef SAME
}

/* Every preset, written by elk_model_save and read back, is the same model. */
START_TEST(save_load_roundtrip)
{
    char pattern[1024], dir[1024], out[1100];
    glob_t gl;
    ck_assert_int_eq(glob(src_path(pattern, sizeof pattern, "presets/models/*.cfg"), 0, NULL, &gl), 0);
    ck_assert_uint_ge(gl.gl_pathc, 7);
    scratch_new(dir, sizeof dir);
    snprintf(out, sizeof out, "%s/m.cfg", dir);
    for (size_t i = 0; i < gl.gl_pathc; i++) {
        elk_model a, b;
        elk_error err;
        ck_assert_msg(elk_model_load(gl.gl_pathv[i], &a, &err) == ELK_OK, "%s", err.msg);
        ck_assert_msg(elk_model_save(out, &a, &err) == ELK_OK, "%s", err.msg);
        ck_assert_msg(elk_model_load(out, &b, &err) == ELK_OK, "%s: %s", gl.gl_pathv[i], err.msg);
        assert_same_model(&a, &b, gl.gl_pathv[i]);
    }
    globfree(&gl);
    scratch_free(dir);
}
END_TEST

/* Strings that need escaping in libconfig, and a non-default dtype, survive. */
START_TEST(save_escapes_and_dtype)
{
    char dir[1024], out[1100];
    elk_model a, b;
    elk_error err;
    load("tiny", &a);
    snprintf(a.name, sizeof a.name, "a\"quoted\\name");
    snprintf(a.source, sizeof a.source, "C:\\models\\\"x\"");
    a.dtype_bytes = 4;
    scratch_new(dir, sizeof dir);
    snprintf(out, sizeof out, "%s/m.cfg", dir);
    ck_assert_msg(elk_model_save(out, &a, &err) == ELK_OK, "%s", err.msg);
    ck_assert_msg(elk_model_load(out, &b, &err) == ELK_OK, "%s", err.msg);
    assert_same_model(&a, &b, "escaped");
    scratch_free(dir);
}
END_TEST

START_TEST(save_unwritable)
{
    elk_model a;
    elk_error err;
    load("tiny", &a);
    ck_assert_int_eq(elk_model_save("/nonexistent-dir/m.cfg", &a, &err), ELK_EIO);
    ck_assert_contains(err.msg, "/nonexistent-dir/m.cfg");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("model");
    TCase *tc = tcase_create("params");
    tcase_add_loop_test(tc, params_published, 0, sizeof sizes / sizeof sizes[0]);
    tcase_add_test(tc, params_tiny_exact);
    suite_add_tcase(s, tc);
    tc = tcase_create("load");
    tcase_add_loop_test(tc, preset_fields, 0, sizeof fields / sizeof fields[0]);
    suite_add_tcase(s, tc);
    tc = tcase_create("check");
    tcase_add_loop_test(tc, check_invariants, 0, sizeof checks / sizeof checks[0]);
    tcase_add_test(tc, check_dit_needs_tokens);
    suite_add_tcase(s, tc);
    tc = tcase_create("save");
    tcase_add_test(tc, save_load_roundtrip);
    tcase_add_test(tc, save_escapes_and_dtype);
    tcase_add_test(tc, save_unwritable);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
