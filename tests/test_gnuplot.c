/* plots/elk_gnuplot: script generation without gnuplot (the variables a
 * CSV and figure hints give, quoting, the datablock, the terminal per
 * format, the errors), then, when gnuplot is installed, real drawing: a PNG
 * and an SVG that exist and start with their magic bytes, a failing script
 * that leaves no file, and gnuplot missing from PATH as a clear ETOOL. */
#include <sys/stat.h>
#include <unistd.h>

#include "elk_gnuplot.h"
#include "elk_test.h"

static const char *sweep_csv = "point,policy,hbm_tbps,model,latency_ms,tflops,peak_matmul_tflops\n"
                               "0,basic,4,tiny,2.5,1.0,100\n"
                               "0,elk-full,4,tiny,1.5,2.0,100\n"
                               "1,basic,8,tiny,2.0,1.5,100\n"
                               "1,elk-full,8,tiny,1.0,3.0,100\n";

static void setup(void) { setenv("ELK_DATADIR", ELK_SRC_DIR, 1); }

static const char *var(const elk_gp_job *j, const char *name)
{
    for (int i = 0; i < j->nvars; i++)
        if (!strcmp(j->name[i], name)) return j->value[i];
    return NULL;
}

static void table(const char *text, elk_csv_table *t)
{
    elk_error err;
    ck_assert_msg(elk_csv_parse(text, "t.csv", t, &err) == ELK_OK, "%s", err.msg);
}

START_TEST(vars_from_csv)
{
    elk_csv_table t;
    table(sweep_csv, &t);
    elk_gp_job j;
    elk_error err;
    elk_gp_job_init(&j, "lines", sweep_csv, "fig.png");
    ck_assert_msg(elk_gp_from_csv(&j, &t, NULL, "My title", &err) == ELK_OK, "%s", err.msg);
    /* defaults: series by policy, y latency, x the first numeric column after the first */
    ck_assert_str_eq(var(&j, "seriescol"), "policy");
    ck_assert_str_eq(var(&j, "ycol"), "latency_ms");
    ck_assert_str_eq(var(&j, "xcol"), "hbm_tbps");
    ck_assert_str_eq(var(&j, "series_values"), "basic elk-full"); /* in order of appearance */
    ck_assert_str_eq(var(&j, "plottitle"), "My title");
    ck_assert_str_eq(var(&j, "ylabel"), "Latency per token (ms)");
    ck_assert_str_eq(var(&j, "logx"), "0");
    ck_assert_str_eq(var(&j, "roof_compute"), "100");
    ck_assert_int_eq(j.width, 900);
    ck_assert_int_eq(j.height, 560);
    /* hints win over defaults; a column the CSV lacks is an error naming it */
    elk_sweep_figure f;
    memset(&f, 0, sizeof f);
    f.kind = ELK_FIG_LINES;
    snprintf(f.y, sizeof f.y, "tflops");
    snprintf(f.col, sizeof f.col, "model");
    f.logy = 1;
    elk_gp_job_init(&j, "lines", sweep_csv, "fig.png");
    ck_assert_msg(elk_gp_from_csv(&j, &t, &f, NULL, &err) == ELK_OK, "%s", err.msg);
    ck_assert_str_eq(var(&j, "ycol"), "tflops");
    ck_assert_str_eq(var(&j, "ylabel"), "Achieved TFLOPS");
    ck_assert_str_eq(var(&j, "colcols"), "model");
    ck_assert_str_eq(var(&j, "col_values"), "tiny");
    ck_assert_str_eq(var(&j, "logy"), "1");
    snprintf(f.row, sizeof f.row, "topology");
    elk_gp_job_init(&j, "lines", sweep_csv, "fig.png");
    ck_assert_int_eq(elk_gp_from_csv(&j, &t, &f, NULL, &err), ELK_EINVAL);
    ck_assert_contains(err.msg, "row column 'topology' is not in the CSV (columns: point, policy, hbm_tbps, model,");
    /* an unknown kind */
    elk_gp_job_init(&j, "pie", sweep_csv, "fig.png");
    ck_assert_int_eq(elk_gp_from_csv(&j, &t, NULL, NULL, &err), ELK_EINVAL);
    ck_assert_contains(err.msg, "unknown figure kind 'pie'");
    elk_csv_free(&t);
}
END_TEST

START_TEST(set_limits)
{
    elk_gp_job j;
    elk_error err;
    elk_gp_job_init(&j, NULL, "", NULL);
    ck_assert_str_eq(j.kind, "lines");
    ck_assert(elk_gp_set(&j, "a", "1", &err) == ELK_OK);
    ck_assert(elk_gp_set(&j, "a", "2", &err) == ELK_OK); /* replaced, not added */
    ck_assert_int_eq(j.nvars, 1);
    ck_assert_str_eq(var(&j, "a"), "2");
    char name[32];
    for (int i = 1; i < ELK_GP_MAX_VARS; i++) {
        snprintf(name, sizeof name, "v%d", i);
        ck_assert(elk_gp_set(&j, name, "x", &err) == ELK_OK);
    }
    ck_assert_int_eq(elk_gp_set(&j, "one_more", "x", &err), ELK_ERANGE);
    char big[1100];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    ck_assert_int_eq(elk_gp_set(&j, "a", big, &err), ELK_ERANGE);
    ck_assert_contains(err.msg, "longer than 1023 characters");
}
END_TEST

static char *script(const elk_gp_job *j, const char *out, elk_status *st, elk_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    *st = elk_gp_script(j, out, fp, err);
    fclose(fp);
    return buf;
}

START_TEST(script_text)
{
    elk_gp_job j;
    elk_error err;
    elk_status st;
    /* a datablock line "EOD" would end the block early: it is dropped */
    elk_gp_job_init(&j, "lines", "x,y\n1,2\nEOD\n3,4\n", "out.svg");
    j.width = 1000;
    j.height = 700;
    ck_assert(elk_gp_set(&j, "plottitle", "it's", &err) == ELK_OK);
    char *s = script(&j, "out.svg", &st, &err);
    ck_assert_msg(st == ELK_OK, "%s", err.msg);
    ck_assert_contains(s, "set terminal svg size 1000,700 noenhanced");
    ck_assert_contains(s, "set output 'out.svg'\n");
    ck_assert_contains(s, "plottitle = 'it''s'\n"); /* single quotes doubled */
    ck_assert_contains(s, "$data << EOD\nx,y\n1,2\n3,4\nEOD\n");
    /* common.gp, then the template, then the output closed */
    const char *c = strstr(s, "EOD\n\n");
    ck_assert_ptr_nonnull(c);
    size_t l = strlen(s);
    ck_assert(l > 14 && !strcmp(s + l - 14, "\nunset output\n"));
    free(s);
    /* the terminal follows the output's extension */
    snprintf(j.output, sizeof j.output, "fig.PNG");
    s = script(&j, "fig.PNG", &st, &err);
    ck_assert_int_eq(st, ELK_OK);
    ck_assert_contains(s, "set terminal pngcairo size 1000,700");
    free(s);
    snprintf(j.output, sizeof j.output, "fig.pdf");
    s = script(&j, "fig.pdf", &st, &err);
    ck_assert_int_eq(st, ELK_OK);
    ck_assert_contains(s, "set terminal pdfcairo size 10.00in,7.00in");
    free(s);
    snprintf(j.output, sizeof j.output, "fig.jpg");
    s = script(&j, "fig.jpg", &st, &err);
    ck_assert_int_eq(st, ELK_EINVAL);
    ck_assert_contains(err.msg, "unknown figure format '.jpg'");
    free(s);
    /* a kind without a template */
    elk_gp_job_init(&j, "nosuchkind", "", "a.png");
    s = script(&j, "a.png", &st, &err);
    ck_assert_int_eq(st, ELK_EIO);
    ck_assert_contains(err.msg, "no such plot template");
    free(s);
}
END_TEST

static int starts_with(const char *path, const char *magic, size_t n)
{
    char buf[16] = {0};
    FILE *fp = fopen(path, "rb");
    if (!fp) return 0;
    size_t got = fread(buf, 1, n, fp);
    fclose(fp);
    return got == n && !memcmp(buf, magic, n);
}

/* Real drawing (gnuplot-nox is in CI's packages); skipped without gnuplot. */
START_TEST(render)
{
    char gp[1024];
    if (!elk_gp_find(gp, sizeof gp)) return;
    char dir[512], png[600], svg[600];
    scratch_new(dir, sizeof dir);
    snprintf(png, sizeof png, "%s/fig.png", dir);
    snprintf(svg, sizeof svg, "%s/fig.svg", dir);
    elk_csv_table t;
    table(sweep_csv, &t);
    elk_error err;
    const char *outs[2] = {png, svg};
    for (int k = 0; k < 2; k++) {
        elk_gp_job j;
        elk_gp_job_init(&j, "lines", sweep_csv, outs[k]);
        ck_assert_msg(elk_gp_from_csv(&j, &t, NULL, "t", &err) == ELK_OK, "%s", err.msg);
        ck_assert_msg(elk_gp_render(&j, &err) == ELK_OK, "%s", err.msg);
    }
    ck_assert(starts_with(png, "\x89PNG", 4));
    ck_assert(starts_with(svg, "<?xml", 5));
    /* a template error: gnuplot fails, the figure is not written, no temporary left */
    elk_gp_job j;
    char bad[600];
    snprintf(bad, sizeof bad, "%s/bad.png", dir);
    elk_gp_job_init(&j, "lines", "x\n1\n", bad);
    ck_assert(elk_gp_set(&j, "xcol", "x", &err) == ELK_OK); /* the rest missing */
    ck_assert_int_eq(elk_gp_render(&j, &err), ELK_ETOOL);
    struct stat st;
    ck_assert_int_ne(stat(bad, &st), 0);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -q tmp-", dir);
    ck_assert_int_ne(system(cmd), 0);
    elk_csv_free(&t);
    scratch_free(dir);
}
END_TEST

START_TEST(render_without_gnuplot)
{
    elk_gp_job j;
    elk_error err;
    elk_gp_job_init(&j, "lines", "x\n1\n", "never.png");
    setenv("PATH", "/nonexistent", 1);
    ck_assert_int_eq(elk_gp_render(&j, &err), ELK_ETOOL);
    ck_assert_contains(err.msg, "gnuplot is not installed (no 'gnuplot' in PATH), so never.png was not drawn");
    ck_assert_int_ne(access("never.png", F_OK), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gnuplot");
    TCase *t = tcase_create("gnuplot");
    tcase_add_unchecked_fixture(t, setup, NULL);
    tcase_add_test(t, vars_from_csv);
    tcase_add_test(t, set_limits);
    tcase_add_test(t, script_text);
    tcase_add_test(t, render);
    tcase_add_test(t, render_without_gnuplot);
    suite_add_tcase(s, t);
    return run_suite(s);
}
