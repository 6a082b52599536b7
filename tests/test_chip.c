/* core/elk_chip (and the schema loader in core/elk_cfg under it): every
 * shipped preset loads; the reference chip's derived rates; core-count
 * overrides; which chips have every resource another has; the artifact's
 * mesh scalar; and a table of
 * bad presets, each of which must fail naming the
 * exact file:line and the field. */
#include <glob.h>
#include <math.h>

#include "elk_chip.h"
#include "elk_model.h"
#include "elk_test.h"

static void load_chip(const char *name, elk_chip *c)
{
    char rel[256], path[1024];
    elk_error err;
    snprintf(rel, sizeof rel, "presets/chips/%s.cfg", name);
    ck_assert_msg(elk_chip_load(src_path(path, sizeof path, rel), c, &err) == ELK_OK, "%s", err.msg);
}

/* Globbed, so a preset added later is covered without touching this file. */
START_TEST(every_preset_loads)
{
    char pattern[1024];
    glob_t gl;
    size_t chips = 0, models = 0;
    ck_assert_int_eq(glob(src_path(pattern, sizeof pattern, "presets/chips/*.cfg"), 0, NULL, &gl), 0);
    for (size_t i = 0; i < gl.gl_pathc; i++, chips++) {
        elk_chip c;
        elk_error err;
        ck_assert_msg(elk_chip_load(gl.gl_pathv[i], &c, &err) == ELK_OK, "%s", err.msg);
        ck_assert_msg(c.name[0] != '\0', "%s: empty name", gl.gl_pathv[i]);
        ck_assert_msg(elk_chip_validate(&c, &err) == ELK_OK, "%s: %s", gl.gl_pathv[i], err.msg);
        ck_assert_int_eq(c.cores, c.chips * c.cores_per_chip);
        ck_assert(elk_chip_sram_bytes(&c) > 0);
        if (c.topology == ELK_TOPO_MESH || c.topology == ELK_TOPO_TORUS)
            ck_assert_int_eq(c.mesh_rows * c.mesh_cols, c.cores);
    }
    globfree(&gl);
    ck_assert_int_eq(glob(src_path(pattern, sizeof pattern, "presets/models/*.cfg"), 0, NULL, &gl), 0);
    for (size_t i = 0; i < gl.gl_pathc; i++, models++) {
        elk_model m;
        elk_error err;
        ck_assert_msg(elk_model_load(gl.gl_pathv[i], &m, &err) == ELK_OK, "%s", err.msg);
        ck_assert_msg(elk_model_check(&m, &err) == ELK_OK, "%s: %s", gl.gl_pathv[i], err.msg);
    }
    globfree(&gl);
    /* the required presets: 3 IPU chips + 2 what-ifs; 5 paper models + 2 */
    ck_assert_uint_ge(chips, 5);
    ck_assert_uint_ge(models, 7);
}
END_TEST

/* IPU-POD4 (docs/PRESETS.md). */
START_TEST(ipu_pod4_rates)
{
    elk_chip c;
    load_chip("ipu-pod4", &c);
    ck_assert_int_eq(c.cores, 5888);
    ck_assert_int_eq(c.topology, ELK_TOPO_ALL2ALL);
    /* the paper profile's "nobuffer" counts all of it, as the artifact */
    ck_assert_double_eq(elk_chip_sram_bytes(&c), 624.0 * 1024);
    c.profile &= ~(1u << ELK_PSW_NOBUFFER);
    ck_assert_double_eq(elk_chip_sram_bytes(&c), (624.0 - 8.0) * 1024);
    /* 2 x 64 MAC x 5888 cores x 1.325 GHz = 998.6 TFLOPS ("~1000") */
    ck_assert_double_eq_tol(elk_chip_peak_matmul_flops(&c), 2.0 * 64 * 5888 * 1.325e9, 1e3);
    /* 2 x 2 x 5888 x 1.325 GHz = 31.2 TFLOPS */
    ck_assert_double_eq_tol(elk_chip_peak_vector_flops(&c) / 1e12, 31.2, 0.05);
    /* 16 TB/s = 12075 B/cycle at 1.325 GHz */
    ck_assert_double_eq_tol(elk_chip_hbm_bytes_per_cycle(&c), 16e12 / 1.325e9, 1e-6);
    /* 5.5 GB/s per core, 32.4 TB/s for the pod */
    ck_assert_double_eq_tol(elk_chip_noc_bytes_per_cycle(&c) * 1.325e9 / 1e12, 32.384, 1e-6);
    ck_assert_int_eq(elk_chip_multi(&c), 4);
}
END_TEST

/* --cores: chips spanned and mesh shape follow; HBM controllers never
 * outnumber cores. */
static const struct {
    const char *chip;
    int cores, chips;
} core_cases[] = {
    {"ipu-pod4", 2944, 2}, {"ipu-pod4", 1472, 1}, {"ipu-pod4", 5152, 4},
    {"ipu-pod4-mesh", 2208, 2}, {"ipu-pod4-mesh", 5888, 4}, {"ipu-pod4-mesh", 97, 1},
    {"ipu-pod4", 8, 1},
};

START_TEST(set_cores)
{
    elk_chip c;
    elk_error err;
    load_chip(core_cases[_i].chip, &c);
    ck_assert_int_eq(elk_chip_set_cores(&c, core_cases[_i].cores, &err), ELK_OK);
    ck_assert_int_eq(elk_chip_validate(&c, &err), ELK_OK);
    ck_assert_int_eq(c.cores, core_cases[_i].cores);
    ck_assert_int_eq(elk_chip_multi(&c), core_cases[_i].chips);
    ck_assert_int_le(c.hbm_controllers, c.cores);
    if (c.topology == ELK_TOPO_MESH) {
        ck_assert_int_eq(c.mesh_rows * c.mesh_cols, c.cores);
        ck_assert_int_le(c.mesh_rows, c.mesh_cols);
    }
}
END_TEST

START_TEST(set_cores_rejects)
{
    elk_chip c;
    elk_error err;
    load_chip("ipu-pod4", &c);
    ck_assert_int_eq(elk_chip_set_cores(&c, 0, &err), ELK_ERANGE);
    ck_assert_contains(err.msg, "--cores 0");
    c.sram_kib = c.reserved_kib;
    ck_assert_int_eq(elk_chip_validate(&c, &err), ELK_ERANGE);
    ck_assert_contains(err.msg, "reserved");
}
END_TEST

/* Bad presets under tests/data/bad/: the loader must fail with the exact
 * line of the offending setting (or of its group, for a missing field) and
 * name the field by its dotted path. */
static const struct {
    const char *file;
    int model; /* load as a model rather than a chip */
    elk_status status;
    int line;
    const char *field;
} bad[] = {
    {"chip-typo-field", 0, ELK_EUNKNOWN, 6, "'chip.sram_kb'"},
    {"chip-missing-field", 0, ELK_EMISSING, 2, "'chip.clock_ghz'"},
    {"chip-out-of-range", 0, ELK_ERANGE, 8, "'chip.clock_ghz'"},
    {"chip-wrong-type", 0, ELK_EFIELD, 4, "'chip.chips'"},
    {"chip-int-as-float", 0, ELK_EFIELD, 5, "'chip.cores_per_chip'"},
    {"chip-bad-enum", 0, ELK_ERANGE, 12, "'chip.noc.topology'"},
    {"chip-mesh-mismatch", 0, ELK_ERANGE, 13, "'chip.noc.mesh_rows'"},
    {"chip-mesh-missing-rows", 0, ELK_EMISSING, 11, "'chip.noc.mesh_rows'"},
    {"chip-mesh-on-all2all", 0, ELK_EFIELD, 13, "'chip.noc.mesh_rows'"},
    {"chip-reserved-ge-sram", 0, ELK_ERANGE, 7, "'chip.reserved_kib'"},
    {"chip-syntax-error", 0, ELK_EPARSE, 8, "syntax error"},
    {"chip-duplicate-field", 0, ELK_EPARSE, 9, "duplicate setting"},
    {"chip-no-group", 0, ELK_EMISSING, 1, "'chip = { ... };'"},
    {"chip-extra-group", 0, ELK_EUNKNOWN, 26, "'extra'"},
    {"chip-root-not-group", 0, ELK_EFIELD, 2, "'chip' must be a group"},
    {"chip-group-as-number", 0, ELK_EFIELD, 11, "'chip.noc'"},
    {"chip-missing-nested", 0, ELK_EMISSING, 18, "'chip.hbm.tbps'"},
    {"chip-string-too-long", 0, ELK_ERANGE, 3, "'chip.name'"},
    {"chip-negative-bandwidth", 0, ELK_ERANGE, 13, "'chip.noc.link_gbps'"},
    {"chip-controllers-gt-cores", 0, ELK_ERANGE, 20, "'chip.hbm.controllers'"},
    {"chip-bool-as-int", 0, ELK_EFIELD, 21, "'chip.hbm.broadcast'"},
    {"chip-bad-cost-kind", 0, ELK_ERANGE, 23, "'chip.cost.kind'"},
    {"chip-too-many-cores", 0, ELK_ERANGE, 6, "'chip.cores_per_chip': chips x cores_per_chip = 1024 x 1048576 = 1073741824 cores, above the limit of 4194304"},
    {"model-heads-kv", 1, ELK_ERANGE, 8, "'model.kv_heads'"},
    {"model-typo-field", 1, ELK_EUNKNOWN, 6, "'model.hiden'"},
    {"model-missing-vocab", 1, ELK_EMISSING, 2, "'model.vocab'"},
    {"model-bad-enum", 1, ELK_ERANGE, 10, "'model.ffn_kind'"},
    {"model-hidden-not-divisible", 1, ELK_ERANGE, 6, "'model.hidden'"},
    {"model-experts-per-token", 1, ELK_ERANGE, 14, "'model.experts_per_token'"},
    {"model-layers-float", 1, ELK_EFIELD, 5, "'model.layers'"},
    {"model-zero-layers", 1, ELK_ERANGE, 5, "'model.layers'"},
    {"model-wrong-group", 1, ELK_EUNKNOWN, 2, "'chip'"},
};

START_TEST(bad_preset)
{
    char rel[256], path[1024], where[1100];
    elk_error err;
    elk_error_clear(&err);
    snprintf(rel, sizeof rel, "tests/data/bad/%s.cfg", bad[_i].file);
    src_path(path, sizeof path, rel);
    elk_status st;
    if (bad[_i].model) {
        elk_model m;
        st = elk_model_load(path, &m, &err);
    } else {
        elk_chip c;
        st = elk_chip_load(path, &c, &err);
    }
    ck_assert_msg(st != ELK_OK, "%s loaded", bad[_i].file);
    ck_assert_msg(st == bad[_i].status, "%s: status %s, want %s (%s)", bad[_i].file, elk_status_str(st),
                  elk_status_str(bad[_i].status), err.msg);
    snprintf(where, sizeof where, "%s:%d: ", path, bad[_i].line);
    ck_assert_msg(strncmp(err.msg, where, strlen(where)) == 0, "message \"%s\" does not start with \"%s\"",
                  err.msg, where);
    ck_assert_contains(err.msg, bad[_i].field);
}
END_TEST

START_TEST(missing_file)
{
    elk_chip c;
    elk_error err;
    ck_assert_int_eq(elk_chip_load("/nonexistent/chip.cfg", &c, &err), ELK_EIO);
    ck_assert_contains(err.msg, "/nonexistent/chip.cfg");
}
END_TEST

/* elk_chip_dominates: each resource raised alone dominates, lowered does
 * not; any other field changed is another machine (a pair must differ in
 * resources only for a carried schedule to hold its timeline there). */
static const struct {
    const char *what;
    int field; /* 0..6 resources, 7.. others */
    double by;
    int dominates;
} dom_cases[] = {
    {"same", 0, 1.0, 1},          {"hbm up", 0, 1.25, 1},        {"hbm down", 0, 0.8, 0},
    {"noc up", 1, 1.25, 1},       {"link up", 2, 1.25, 1},       {"mesh link up", 3, 1.25, 1},
    {"interchip up", 4, 1.25, 1}, {"sram up", 5, 1.25, 1},       {"sram down", 5, 0.8, 0},
    {"compute up", 6, 1.25, 1},   {"compute down", 6, 0.8, 0},   {"cores", 7, 2, 0},
    {"controllers", 8, 2, 0},     {"topology", 9, 0, 0},         {"profile", 10, 0, 0},
};

START_TEST(dominates)
{
    elk_chip lo, hi;
    load_chip("ipu-pod4", &lo);
    hi = lo;
    double *res[] = {&hi.hbm_tbps, &hi.noc_scale, &hi.link_gbps, &hi.mesh_link_gbps, &hi.interchip_gbps,
                     &hi.sram_kib, &hi.compute_scale};
    int f = dom_cases[_i].field;
    if (f < 7) *res[f] = *res[f] > 0 ? *res[f] * dom_cases[_i].by : dom_cases[_i].by - 1; /* 0: all-to-all's grid link */
    else if (f == 7) hi.cores = lo.cores / 2;
    else if (f == 8) hi.hbm_controllers *= 2;
    else if (f == 9) hi.topology = ELK_TOPO_MESH;
    else hi.profile ^= 1u;
    ck_assert_msg(elk_chip_dominates(&hi, &lo) == dom_cases[_i].dominates, "%s", dom_cases[_i].what);
    /* every resource at least as large: the converse only where equal */
    if (f < 7 && dom_cases[_i].by != 1.0) ck_assert_int_eq(elk_chip_dominates(&lo, &hi), !dom_cases[_i].dominates);
}
END_TEST

/* elk_chip_mesh_scalar: the artifact's MESH, 16000 MiB/ms over the HBM
 * bandwidth at 5888 cores (Figs. 19 and 21: 1 at its 16000, 4 at 4000),
 * sqrt(5888 / cores) where HBM is 2.7 GB/s per core (Fig. 23), linear in
 * the NoC scale; 0 off a mesh or with the switch off. */
static const struct {
    const char *what;
    double hbm_tbps, noc_scale;
    int cores, topology, off;
    double want;
} scalar_cases[] = {
    {"16000", 16.777216, 1.0, 5888, ELK_TOPO_MESH, 0, 1.0},
    {"4000", 4.194304, 1.0, 5888, ELK_TOPO_MESH, 0, 4.0},
    {"18000", 18.874368, 1.0, 5888, ELK_TOPO_MESH, 0, 16.0 / 18.0},
    {"fig 23, 2208 cores at 6000", 6.291456, 1.0, 2208, ELK_TOPO_MESH, 0, 1.6329932}, /* sqrt(5888/2208) */
    {"noc 1.5", 16.777216, 1.5, 5888, ELK_TOPO_MESH, 0, 1.5},
    {"switch off", 16.777216, 1.0, 5888, ELK_TOPO_MESH, 1, 0},
    {"torus", 16.777216, 1.0, 5888, ELK_TOPO_TORUS, 0, 0},
    {"all-to-all", 16.777216, 1.0, 5888, ELK_TOPO_ALL2ALL, 0, 0},
};

START_TEST(mesh_scalar)
{
    elk_chip c;
    elk_error err;
    load_chip("ipu-pod4-mesh", &c);
    ck_assert_int_eq(elk_chip_set_cores(&c, scalar_cases[_i].cores, &err), ELK_OK);
    c.hbm_tbps = scalar_cases[_i].hbm_tbps;
    c.noc_scale = scalar_cases[_i].noc_scale;
    c.topology = scalar_cases[_i].topology;
    if (scalar_cases[_i].off) c.profile &= ~(1u << ELK_PSW_MESHSCALAR);
    double got = elk_chip_mesh_scalar(&c);
    ck_assert_msg(fabs(got - scalar_cases[_i].want) <= 1e-6, "%s: %.9g, want %.9g", scalar_cases[_i].what, got,
                  scalar_cases[_i].want);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("chip");
    TCase *tc = tcase_create("presets");
    tcase_add_test(tc, every_preset_loads);
    tcase_add_test(tc, ipu_pod4_rates);
    tcase_add_loop_test(tc, set_cores, 0, sizeof core_cases / sizeof core_cases[0]);
    tcase_add_test(tc, set_cores_rejects);
    tcase_add_loop_test(tc, dominates, 0, sizeof dom_cases / sizeof dom_cases[0]);
    tcase_add_loop_test(tc, mesh_scalar, 0, sizeof scalar_cases / sizeof scalar_cases[0]);
    suite_add_tcase(s, tc);
    tc = tcase_create("bad");
    tcase_add_loop_test(tc, bad_preset, 0, sizeof bad / sizeof bad[0]);
    tcase_add_test(tc, missing_file);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
