/* core/elk_point: the knob table, setting knobs from text and numbers (range
 * checks, integers, words, the pairs that replace each other), preset
 * paths, resolving a point onto the shipped ipu-mk2 chip (values checked by
 * hand against presets/chips/ipu-mk2.cfg: 1472 cores, 5.5 GB/s ports,
 * 624 KiB SRAM with 8 reserved, 4 TB/s HBM, 1.325 GHz), and that the two
 * halves elk_sweep_load uses (load, then apply) equal elk_point_resolve. */
#include <math.h>

#include "elk_point.h"
#include "elk_test.h"

static elk_point mk2_tiny(void)
{
    elk_point p;
    elk_error err;
    elk_point_defaults(&p);
    ck_assert_msg(elk_point_set(&p, ELK_KNOB_CHIP, "ipu-mk2", &err) == ELK_OK, "%s", err.msg);
    ck_assert_msg(elk_point_set(&p, ELK_KNOB_MODEL, "tiny", &err) == ELK_OK, "%s", err.msg);
    return p;
}

static void setup(void) { setenv("ELK_DATADIR", ELK_SRC_DIR, 1); }

START_TEST(knob_table)
{
    /* every knob has a distinct name that finds it, and a sane range */
    for (int k = 0; k < ELK_KNOB_COUNT; k++) {
        ck_assert_ptr_nonnull(elk_knobs[k].name);
        ck_assert_int_eq(elk_knob_find(elk_knobs[k].name), k);
        if (elk_knobs[k].is_int != 2) ck_assert(elk_knobs[k].min <= elk_knobs[k].max);
    }
    ck_assert_int_eq(elk_knob_find("hbm_tbps"), -1); /* flag names use '-' */
    ck_assert_int_eq(elk_knob_find(""), -1);
    ck_assert_int_eq(elk_knobs[ELK_KNOB_CORES].max, 4194304); /* ELK_CHIP_CORES_MAX */
}
END_TEST

START_TEST(defaults)
{
    elk_point p;
    elk_point_defaults(&p);
    char want[1200];
    ck_assert_str_eq(p.chip_path, src_path(want, sizeof want, "presets/chips/ipu-pod4.cfg"));
    ck_assert_str_eq(p.model_path, src_path(want, sizeof want, "presets/models/llama2-13b.cfg"));
    ck_assert_int_eq(p.workload, ELK_WL_DECODE);
    ck_assert_int_eq(p.batch, 32);
    ck_assert_int_eq(p.seq, 2048);
    ck_assert(isnan(p.hbm_tbps) && isnan(p.noc_tbps) && isnan(p.sram_kib));
    ck_assert_int_eq(p.cores, -1);
    ck_assert_int_eq(p.topology, -1);
}
END_TEST

/* elk_point_set on text: one row per (knob, text, status, message part). */
static const struct {
    elk_knob k;
    const char *text;
    elk_status st;
    const char *msg;
} set_cases[] = {
    {ELK_KNOB_HBM_TBPS, "8", ELK_OK, ""},
    {ELK_KNOB_HBM_TBPS, "0", ELK_ERANGE, "--hbm-tbps 0 out of range (allowed 0.001 .. 1000 TB/s)"},
    {ELK_KNOB_HBM_TBPS, "8x", ELK_EINVAL, "--hbm-tbps \"8x\": expected a number in TB/s"},
    {ELK_KNOB_HBM_TBPS, "", ELK_EINVAL, "expected a number"},
    {ELK_KNOB_HBM_TBPS, "nan", ELK_ERANGE, "out of range"},
    {ELK_KNOB_CORES, "1.5", ELK_ERANGE, "--cores 1.5: expected an integer"},
    {ELK_KNOB_CORES, "4194305", ELK_ERANGE, "allowed 1 .. 4194304"},
    {ELK_KNOB_CORES, "4194304", ELK_OK, ""},
    {ELK_KNOB_TOPOLOGY, "mesh", ELK_OK, ""},
    {ELK_KNOB_TOPOLOGY, "hypercube", ELK_ERANGE, "expected all-to-all, mesh, ring or torus"},
    {ELK_KNOB_WORKLOAD, "prefill", ELK_OK, ""},
    {ELK_KNOB_WORKLOAD, "train", ELK_ERANGE, "expected decode, train-fwd or prefill"},
    {ELK_KNOB_HBM_BROADCAST, "true", ELK_OK, ""},
    {ELK_KNOB_HBM_BROADCAST, "2", ELK_ERANGE, "out of range"},
    {ELK_KNOB_PROFILE, "paper-gather", ELK_OK, ""},
    {ELK_KNOB_PROFILE, "sideways", ELK_ERANGE, ""},
    {ELK_KNOB_SEQ, "16777217", ELK_ERANGE, "allowed 1 .. 16777216"},
};

START_TEST(set_text)
{
    elk_point p;
    elk_point_defaults(&p);
    elk_error err;
    elk_error_clear(&err);
    elk_status st = elk_point_set(&p, set_cases[_i].k, set_cases[_i].text, &err);
    ck_assert_msg(st == set_cases[_i].st, "case %d: --%s %s: %s (%s)", _i, elk_knobs[set_cases[_i].k].name,
                  set_cases[_i].text, elk_status_str(st), err.msg);
    if (st != ELK_OK) ck_assert_contains(err.msg, set_cases[_i].msg);
}
END_TEST

START_TEST(set_values_and_pairs)
{
    elk_point p;
    elk_error err;
    elk_point_defaults(&p);
    ck_assert(elk_point_set(&p, ELK_KNOB_TOPOLOGY, "torus", &err) == ELK_OK);
    ck_assert_int_eq(p.topology, ELK_TOPO_TORUS);
    ck_assert(elk_point_set(&p, ELK_KNOB_HBM_BROADCAST, "false", &err) == ELK_OK);
    ck_assert_int_eq(p.hbm_broadcast, 0);
    ck_assert(elk_point_set(&p, ELK_KNOB_WORKLOAD, "train-fwd", &err) == ELK_OK);
    ck_assert_int_eq(p.workload, ELK_WL_TRAIN_FWD);
    /* the knobs that say the same thing replace each other */
    ck_assert(elk_point_set_num(&p, ELK_KNOB_HBM_TBPS, 8, &err) == ELK_OK);
    ck_assert(elk_point_set_num(&p, ELK_KNOB_HBM_GBPS_PER_CORE, 2, &err) == ELK_OK);
    ck_assert(isnan(p.hbm_tbps) && p.hbm_gbps_per_core == 2);
    ck_assert(elk_point_set_num(&p, ELK_KNOB_HBM_TBPS, 8, &err) == ELK_OK);
    ck_assert(p.hbm_tbps == 8 && isnan(p.hbm_gbps_per_core));
    ck_assert(elk_point_set_num(&p, ELK_KNOB_NOC_TBPS, 10, &err) == ELK_OK);
    ck_assert(elk_point_set_num(&p, ELK_KNOB_NOC_SCALE, 2, &err) == ELK_OK);
    ck_assert(isnan(p.noc_tbps) && p.noc_scale == 2);
    /* words are not numbers */
    ck_assert_int_eq(elk_point_set_num(&p, ELK_KNOB_MODEL, 1, &err), ELK_EINVAL);
    ck_assert_contains(err.msg, "--model takes a word");
    /* a preset word becomes a path under the data folder; a path stays */
    char want[1200];
    ck_assert(elk_point_set(&p, ELK_KNOB_MODEL, "tiny", &err) == ELK_OK);
    ck_assert_str_eq(p.model_path, src_path(want, sizeof want, "presets/models/tiny.cfg"));
    ck_assert(elk_point_set(&p, ELK_KNOB_CHIP, "./x/chip.cfg", &err) == ELK_OK);
    ck_assert_str_eq(p.chip_path, "./x/chip.cfg");
}
END_TEST

START_TEST(resolve_mk2)
{
    elk_point p = mk2_tiny();
    elk_chip c;
    elk_model m;
    elk_error err;
    ck_assert_msg(elk_point_resolve(&p, &c, &m, &err) == ELK_OK, "%s", err.msg);
    ck_assert_str_eq(c.name, "ipu-mk2");
    ck_assert_str_eq(m.name, "tiny");
    ck_assert_int_eq(c.cores, 1472);
    ck_assert_double_eq(c.hbm_tbps, 4.0);
    ck_assert_double_eq(c.sram_kib, 624.0);
    char b[64];
    elk_point_format(&p, &c, &m, ELK_KNOB_CORES, b, sizeof b);
    ck_assert_str_eq(b, "1472");
    elk_point_format(&p, &c, &m, ELK_KNOB_TOPOLOGY, b, sizeof b);
    ck_assert_str_eq(b, "all-to-all");
    /* NoC TB/s: 1472 ports x 5.5 GB/s = 8.096 TB/s */
    elk_point_format(&p, &c, &m, ELK_KNOB_NOC_TBPS, b, sizeof b);
    ck_assert_str_eq(b, "8.096");
    elk_point_format(&p, &c, &m, ELK_KNOB_HBM_GBPS_PER_CORE, b, sizeof b);
    ck_assert_str_eq(b, "2.717"); /* 4000 / 1472 */
}
END_TEST

START_TEST(resolve_overrides)
{
    elk_point p = mk2_tiny();
    elk_chip c;
    elk_model m;
    elk_error err;
    /* 16.192 TB/s of NoC on 1472 ports of 5.5 GB/s is a scale of 2 */
    ck_assert(elk_point_set_num(&p, ELK_KNOB_NOC_TBPS, 16.192, &err) == ELK_OK);
    /* 1 GB/s per core of HBM on 64 cores is 0.064 TB/s */
    ck_assert(elk_point_set_num(&p, ELK_KNOB_CORES, 64, &err) == ELK_OK);
    ck_assert(elk_point_set_num(&p, ELK_KNOB_HBM_GBPS_PER_CORE, 1, &err) == ELK_OK);
    ck_assert(elk_point_set(&p, ELK_KNOB_TOPOLOGY, "mesh", &err) == ELK_OK);
    ck_assert(elk_point_set_num(&p, ELK_KNOB_SRAM_KIB, 100, &err) == ELK_OK);
    ck_assert_msg(elk_point_resolve(&p, &c, &m, &err) == ELK_OK, "%s", err.msg);
    ck_assert_int_eq(c.cores, 64);
    ck_assert_int_eq(c.topology, ELK_TOPO_MESH);
    ck_assert_int_eq(c.mesh_rows * c.mesh_cols, 64);
    ck_assert_int_eq(c.mesh_rows, 8);
    ck_assert_double_eq_tol(c.hbm_tbps, 0.064, 1e-12);
    ck_assert_double_eq(c.sram_kib, 100);
    ck_assert_double_eq_tol(c.noc_scale, 16.192 / (64 * 5.5 / 1e3), 1e-12);
    /* the knob's floor (16 KiB) is above mk2's 8 reserved; a chip reserving
     * 100 KiB refuses 50, a value the knob allows */
    elk_point q = mk2_tiny();
    ck_assert(elk_point_set_num(&q, ELK_KNOB_SRAM_KIB, 16, &err) == ELK_OK);
    ck_assert_msg(elk_point_resolve(&q, &c, &m, &err) == ELK_OK, "%s", err.msg);
    ck_assert(elk_point_set_num(&q, ELK_KNOB_SRAM_KIB, 50, &err) == ELK_OK);
    ck_assert(elk_point_load_chip(q.chip_path, &c, &err) == ELK_OK);
    c.reserved_kib = 100;
    c.sram_kib = 624;
    ck_assert_int_eq(elk_point_apply(&q, &c, &err), ELK_ERANGE);
    ck_assert_str_eq(err.msg, "--sram-kib 50 must exceed the reserved 100 KiB");
}
END_TEST

START_TEST(resolve_errors)
{
    elk_point p = mk2_tiny();
    elk_chip c;
    elk_model m;
    elk_error err;
    ck_assert(elk_point_set(&p, ELK_KNOB_CHIP, "no-such-chip", &err) == ELK_OK);
    ck_assert_int_eq(elk_point_resolve(&p, &c, &m, &err), ELK_EIO);
    ck_assert_contains(err.msg, "no chip preset 'no-such-chip' (known: big-sram, ipu-mk2, ipu-pod4");
    p = mk2_tiny();
    ck_assert(elk_point_set(&p, ELK_KNOB_MODEL, "/nonexistent/m.cfg", &err) == ELK_OK);
    ck_assert_int_eq(elk_point_resolve(&p, &c, &m, &err), ELK_EIO);
    ck_assert_contains(err.msg, "/nonexistent/m.cfg: cannot open");
}
END_TEST

/* elk_point_resolve == load both + apply, on points that differ in every
 * chip knob. */
START_TEST(load_then_apply)
{
    elk_error err;
    elk_chip base;
    elk_model mbase;
    elk_point p0 = mk2_tiny();
    ck_assert(elk_point_load_chip(p0.chip_path, &base, &err) == ELK_OK);
    ck_assert(elk_point_load_model(p0.model_path, &mbase, &err) == ELK_OK);
    const char *knobs[][2] = {{"cores", "256"},        {"topology", "torus"},  {"sram-kib", "300"},
                              {"link-gbps", "7"},      {"noc-scale", "0.5"},  {"compute-scale", "2"},
                              {"hbm-tbps", "1"},       {"hbm-controllers", "2"}, {"hbm-broadcast", "true"},
                              {"profile", "physical"}, {"noc-tbps", "3"}};
    for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++) {
        elk_point p = mk2_tiny();
        ck_assert(elk_point_set(&p, (elk_knob)elk_knob_find(knobs[i][0]), knobs[i][1], &err) == ELK_OK);
        elk_chip a, b = base;
        elk_model m;
        ck_assert_msg(elk_point_resolve(&p, &a, &m, &err) == ELK_OK, "%s", err.msg);
        ck_assert_msg(elk_point_apply(&p, &b, &err) == ELK_OK, "%s", err.msg);
        ck_assert_msg(memcmp(&a, &b, sizeof a) == 0, "--%s %s: resolve and apply differ", knobs[i][0], knobs[i][1]);
    }
    ck_assert_int_eq(elk_point_load_chip("/nonexistent.cfg", &base, &err), ELK_EIO);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("point");
    TCase *t = tcase_create("point");
    tcase_add_unchecked_fixture(t, setup, NULL);
    tcase_add_test(t, knob_table);
    tcase_add_test(t, defaults);
    tcase_add_loop_test(t, set_text, 0, (int)(sizeof set_cases / sizeof set_cases[0]));
    tcase_add_test(t, set_values_and_pairs);
    tcase_add_test(t, resolve_mk2);
    tcase_add_test(t, resolve_overrides);
    tcase_add_test(t, resolve_errors);
    tcase_add_test(t, load_then_apply);
    suite_add_tcase(s, t);
    return run_suite(s);
}
