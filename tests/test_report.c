/* core/elk_report: the three forms of one design point's result. A real
 * point (tiny on ipu-mk2, batch 4) is planned, then every metric the
 * reports print is overwritten with hand-picked numbers, so each CSV field,
 * table cell and JSON member is checked against a value written here:
 * cycles at 1.325 GHz are 1.325e6 per ms. Then invariants on the unmodified
 * result: one row per policy in policy order, the same bytes twice, JSON
 * that parses and agrees with the CSV, and a per-operator table and array
 * of nops entries. */
#include <jansson.h>
#include <math.h>

#include "elk_csv.h"
#include "elk_report.h"
#include "elk_test.h"

typedef struct {
    elk_plan_cache *pc;
    elk_problem pr;
    elk_result r;
} fixture;

static void fx_init(fixture *f)
{
    setenv("ELK_DATADIR", ELK_SRC_DIR, 1);
    elk_point p;
    elk_error err;
    elk_point_defaults(&p);
    ck_assert(elk_point_set(&p, ELK_KNOB_CHIP, "ipu-mk2", &err) == ELK_OK);
    ck_assert(elk_point_set(&p, ELK_KNOB_MODEL, "tiny", &err) == ELK_OK);
    ck_assert(elk_point_set_num(&p, ELK_KNOB_BATCH, 4, &err) == ELK_OK);
    ck_assert(elk_point_set_num(&p, ELK_KNOB_SEQ, 256, &err) == ELK_OK);
    f->pc = elk_plan_cache_alloc();
    ck_assert_ptr_nonnull(f->pc);
    ck_assert_msg(elk_problem_init(&f->pr, &p, f->pc, &err) == ELK_OK, "%s", err.msg);
    elk_sched_opts o;
    elk_sched_opts_default(&o);
    ck_assert_msg(elk_result_run(&f->pr, &o, (1u << ELK_POL_COUNT) - 1, &f->r, &err) == ELK_OK, "%s", err.msg);
}

static void fx_free(fixture *f)
{
    elk_result_free(&f->r);
    elk_problem_free(&f->pr);
    elk_plan_cache_free(f->pc);
}

/* Policy p's metrics set to numbers whose printed forms are known. */
static void hand_values(fixture *f)
{
    const double cyc_per_ms = 1.325e6;
    for (int p = 0; p < ELK_POL_COUNT; p++) {
        elk_schedule *s = &f->r.pol[p];
        s->latency_ms = 1.25 * (p + 1);
        f->r.pct_ideal[p] = 100.0 / (p + 1);
        s->brk[ELK_BRK_EXEC] = 1.0 * cyc_per_ms;
        s->brk[ELK_BRK_OVERLAP] = 0.125 * cyc_per_ms;
        s->brk[ELK_BRK_PRELOAD] = 0.0625 * cyc_per_ms;
        s->brk[ELK_BRK_NOC] = 0.03125 * cyc_per_ms;
        s->brk[ELK_BRK_DIST] = 0;
        s->hbm_util = 0.5;
        s->noc_util = 0.25;
        s->tflops = 3.5;
        s->peak_resident = 2048;
    }
}

static char *capture(void (*fn)(FILE *, fixture *), fixture *f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(fp);
    fn(fp, f);
    ck_assert_int_eq(fclose(fp), 0);
    return buf;
}
static void do_csv(FILE *fp, fixture *f)
{
    elk_report_csv_header(fp);
    elk_report_csv_rows(fp, &f->pr, &f->r);
}
static void do_table(FILE *fp, fixture *f) { elk_report_table(fp, &f->pr, &f->r); }
static void do_json(FILE *fp, fixture *f) { ck_assert_int_eq(elk_report_json(fp, &f->pr, &f->r, 0), 0); }
static void do_json_ops(FILE *fp, fixture *f) { ck_assert_int_eq(elk_report_json(fp, &f->pr, &f->r, 1), 0); }
static void do_ops(FILE *fp, fixture *f) { elk_report_ops(fp, &f->pr, &f->r.pol[ELK_POL_DYN]); }

START_TEST(csv_hand)
{
    fixture f;
    fx_init(&f);
    hand_values(&f);
    char *out = capture(do_csv, &f);
    /* the point: 1472 cores x 5.5 GB/s = 8.096 TB/s of NoC; mk2 is paper-profile */
    const char *want =
        "model,chip,topology,cores,hbm_tbps,noc_tbps,sram_kib,workload,batch,seq,policy,latency_ms,pct_ideal,"
        "exec_ms,overlap_ms,preload_ms,noc_stall_ms,dist_ms,hbm_util,noc_util,tflops,profile\n"
        "tiny,ipu-mk2,all-to-all,1472,4,8.096,624,decode,4,256,basic,1.250000,100.0000,1.000000,0.125000,"
        "0.062500,0.031250,0.000000,0.500000,0.250000,3.500000,paper\n"
        "tiny,ipu-mk2,all-to-all,1472,4,8.096,624,decode,4,256,static,2.500000,50.0000,1.000000,0.125000,"
        "0.062500,0.031250,0.000000,0.500000,0.250000,3.500000,paper\n";
    ck_assert_msg(strncmp(out, want, strlen(want)) == 0, "got:\n%s", out);
    /* without Ideal there is no % of Ideal: nan */
    f.r.have[ELK_POL_IDEAL] = 0;
    free(out);
    out = capture(do_csv, &f);
    ck_assert_contains(out, ",basic,1.250000,nan,");
    f.r.have[ELK_POL_IDEAL] = 1;
    free(out);
    fx_free(&f);
}
END_TEST

START_TEST(table_hand)
{
    fixture f;
    fx_init(&f);
    hand_values(&f);
    char *out = capture(do_table, &f);
    ck_assert_contains(out, "tiny on ipu-mk2 (all-to-all, 1472 cores, 4 TB/s HBM, 8.096 TB/s NoC, 624 KiB SRAM/core; "
                            "paper cost profile)\n");
    ck_assert_contains(out, "decode, batch 4, seq 256: ");
    /* label, ms per step, tokens/s (batch 4 / step), % Ideal | the breakdown | HBM% NoC% TFLOPS */
    ck_assert_contains(out, "Basic         1.2500      3200  100.00% |   1.0000   0.1250   0.0625   0.0312   0.0000 |  "
                            "50.0%  25.0%     3.50\n");
    ck_assert_contains(out, "Elk-Dyn       3.7500      1067   33.33% |");
    free(out);
    fx_free(&f);
}
END_TEST

START_TEST(json_hand)
{
    fixture f;
    fx_init(&f);
    hand_values(&f);
    char *out = capture(do_json, &f);
    json_error_t je;
    json_t *root = json_loads(out, 0, &je);
    ck_assert_msg(root != NULL, "JSON does not parse: %s (line %d)", je.text, je.line);
    json_t *pt = json_object_get(root, "point");
    ck_assert_str_eq(json_string_value(json_object_get(pt, "model")), "tiny");
    ck_assert_int_eq(json_integer_value(json_object_get(pt, "cores")), 1472);
    ck_assert_int_eq(json_integer_value(json_object_get(pt, "batch")), 4);
    ck_assert_str_eq(json_string_value(json_object_get(pt, "profile")), "paper");
    json_t *pols = json_object_get(root, "policies");
    ck_assert_int_eq((int)json_array_size(pols), ELK_POL_COUNT);
    for (int p = 0; p < ELK_POL_COUNT; p++) {
        json_t *o = json_array_get(pols, (size_t)p);
        ck_assert_str_eq(json_string_value(json_object_get(o, "policy")), elk_policy_names[p]);
        ck_assert_double_eq_tol(json_real_value(json_object_get(o, "latency_ms")), 1.25 * (p + 1), 1e-12);
        ck_assert_double_eq_tol(json_real_value(json_object_get(o, "pct_ideal")), 100.0 / (p + 1), 1e-8); /* 10 digits */
        ck_assert_double_eq_tol(json_real_value(json_object_get(o, "peak_sram_kib")), 2, 1e-12);
        json_t *b = json_object_get(o, "breakdown_ms");
        ck_assert_double_eq_tol(json_real_value(json_object_get(b, elk_brk_names[ELK_BRK_OVERLAP])), 0.125, 1e-12);
        ck_assert_ptr_null(json_object_get(o, "ops")); /* per_op = 0 */
    }
    json_decref(root);
    free(out);
    fx_free(&f);
}
END_TEST

/* The unmodified result: one row per policy in order, agreeing with the
 * JSON; the same bytes twice; per-operator output of nops entries. */
START_TEST(invariants)
{
    fixture f;
    fx_init(&f);
    char *a = capture(do_csv, &f), *b = capture(do_csv, &f);
    ck_assert_str_eq(a, b);
    elk_csv_table t;
    elk_error err;
    ck_assert_msg(elk_csv_parse(a, "report", &t, &err) == ELK_OK, "%s", err.msg);
    ck_assert_int_eq(t.nrows, ELK_POL_COUNT);
    int pc = elk_csv_col(&t, "policy"), lc = elk_csv_col(&t, "latency_ms");
    ck_assert(pc >= 0 && lc >= 0);
    char *js = capture(do_json_ops, &f);
    json_t *root = json_loads(js, 0, NULL);
    ck_assert_ptr_nonnull(root);
    json_t *pols = json_object_get(root, "policies");
    for (int p = 0; p < ELK_POL_COUNT; p++) {
        ck_assert_str_eq(elk_csv_cell(&t, p, pc), elk_policy_names[p]);
        double csv_ms = elk_csv_num(&t, p, lc);
        /* %.6f in the CSV, 10 significant digits in the JSON */
        ck_assert_double_eq_tol(csv_ms, f.r.pol[p].latency_ms, 5e-7);
        json_t *o = json_array_get(pols, (size_t)p);
        ck_assert_double_eq_tol(json_real_value(json_object_get(o, "latency_ms")), f.r.pol[p].latency_ms,
                                1e-9 * f.r.pol[p].latency_ms);
        ck_assert_int_eq((int)json_array_size(json_object_get(o, "ops")), f.r.pol[p].nops);
    }
    json_decref(root);
    elk_csv_free(&t);
    char *ops = capture(do_ops, &f);
    int lines = 0;
    for (const char *s = ops; *s; s++) lines += *s == '\n';
    ck_assert_int_eq(lines, f.r.pol[ELK_POL_DYN].nops + 1);
    ck_assert_contains(ops, f.pr.graph.ops[0].name);
    free(ops);
    free(js);
    free(a);
    free(b);
    fx_free(&f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("report");
    TCase *t = tcase_create("report");
    tcase_add_test(t, csv_hand);
    tcase_add_test(t, table_hand);
    tcase_add_test(t, json_hand);
    tcase_add_test(t, invariants);
    suite_add_tcase(s, t);
    return run_suite(s);
}
