#include "tui_export.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "elk_csv.h"
#include "elk_file.h"
#include "elk_gnuplot.h"
#include "elk_sweep.h"
#include "tui_log.h"

static char log_path[1024] = "/dev/null";

void tui_export_set_log(const char *path) { snprintf(log_path, sizeof log_path, "%s", path ? path : "/dev/null"); }

int tui_export_name(const char *view, const char *ext, char *out, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    struct stat st;
    for (int i = 1; i < 100; i++) {
        if (i == 1) snprintf(out, n, "elk-%s-%s.%s", view, stamp, ext);
        else snprintf(out, n, "elk-%s-%s-%d.%s", view, stamp, i, ext);
        if (stat(out, &st) != 0) return 0;
    }
    return -1;
}

int tui_export_csv(elk_view *v, const tui_ctx *cx, char *path, size_t pn, char *msg, size_t mn)
{
    if (!v->csv) {
        snprintf(msg, mn, "%s has no data to export", v->title);
        return -1;
    }
    if (tui_export_name(v->name, "csv", path, pn) != 0) {
        snprintf(msg, mn, "cannot find a free file name for the CSV");
        return -1;
    }
    elk_file out;
    elk_error err;
    if (elk_file_open(&out, path, &err) != ELK_OK) {
        snprintf(msg, mn, "%s", err.msg);
        return -1;
    }
    int rc = v->csv(v, out.fp, cx, msg, mn);
    if (rc) elk_file_abort(&out);
    else if (elk_file_commit(&out, &err) != ELK_OK) {
        snprintf(msg, mn, "%s", err.msg);
        rc = -1;
    }
    return rc;
}

int tui_gnuplot_available(void)
{
    char p[1024];
    return elk_gp_find(p, sizeof p);
}

void tui_gp_quote(char *out, size_t n, const char *s)
{
    /* gnuplot single-quoted strings: '' stands for ' */
    size_t j = 0;
    if (j + 1 < n) out[j++] = '\'';
    for (; *s && j + 3 < n; s++) {
        if (*s == '\'') out[j++] = '\'';
        out[j++] = *s;
    }
    if (j + 1 < n) out[j++] = '\'';
    out[j] = '\0';
}

int tui_figure_csv(const char *csv, const char *kind, const char *x, const char *y, const char *series, int logx,
                   const char *title, const char *output, char *msg, size_t n)
{
    elk_error err;
    elk_csv_table t;
    if (elk_csv_parse(csv, "view data", &t, &err) != ELK_OK) {
        snprintf(msg, n, "%s", err.msg);
        return -1;
    }
    elk_sweep_figure f;
    elk_sweep_figure_parse(NULL, &f);
    for (int k = 0; elk_fig_kind_names[k]; k++)
        if (!strcmp(elk_fig_kind_names[k], kind)) f.kind = k;
    snprintf(f.x, sizeof f.x, "%s", x ? x : "");
    snprintf(f.y, sizeof f.y, "%s", y ? y : "");
    snprintf(f.series, sizeof f.series, "%s", series ? series : "");
    f.logx = logx;
    elk_gp_job job;
    elk_gp_job_init(&job, kind, csv, output);
    int rc = 0;
    if (elk_gp_from_csv(&job, &t, &f, title, &err) != ELK_OK || elk_gp_render(&job, &err) != ELK_OK) {
        snprintf(msg, n, "%s", err.msg);
        rc = -1;
    }
    elk_csv_free(&t);
    return rc;
}

/* The figure through the shared templates (elk_gp_render writes it
 * atomically). */
static int export_figure(elk_view *v, const tui_ctx *cx, const char *path, char *msg, size_t mn)
{
    return v->figure(v, cx, path, msg, mn);
}

int tui_export_plot(elk_view *v, const tui_ctx *cx, const char *format, char *path, size_t pn, char *msg, size_t mn)
{
    char gp[1024];
    if (v->figure) {
        if (!elk_gp_find(gp, sizeof gp)) {
            snprintf(msg, mn, "gnuplot is not installed (not in PATH); 'e' still exports the CSV");
            return -1;
        }
        int svg = format && !strcmp(format, "svg");
        if (tui_export_name(v->name, svg ? "svg" : "png", path, pn) != 0) {
            snprintf(msg, mn, "cannot find a free file name for the figure");
            return -1;
        }
        return export_figure(v, cx, path, msg, mn);
    }
    if (!v->gnuplot) {
        snprintf(msg, mn, "%s has no figure to draw", v->title);
        return -1;
    }
    if (!elk_gp_find(gp, sizeof gp)) {
        snprintf(msg, mn, "gnuplot is not installed (not in PATH); 'e' still exports the CSV");
        return -1;
    }
    int svg = format && !strcmp(format, "svg");
    if (tui_export_name(v->name, svg ? "svg" : "png", path, pn) != 0) {
        snprintf(msg, mn, "cannot find a free file name for the figure");
        return -1;
    }
    elk_file fig;
    elk_error err;
    if (elk_file_open(&fig, path, &err) != ELK_OK) {
        snprintf(msg, mn, "%s", err.msg);
        return -1;
    }
    const char *tmp = elk_file_wpath(&fig);
    int logfd = tui_log_open(log_path);
    elk_gp_proc gpp;
    elk_status gs = elk_gp_start(&gpp, gp, logfd, &err);
    if (logfd >= 0) close(logfd);
    if (gs != ELK_OK) {
        snprintf(msg, mn, "%s", err.msg);
        elk_file_abort(&fig);
        return -1;
    }
    FILE *fp = gpp.fp;
    char q[1200];
    tui_gp_quote(q, sizeof q, tmp);
    fprintf(fp, "set encoding utf8\n");
    if (svg) fprintf(fp, "set terminal svg size 1280,800 dynamic enhanced font 'sans,12'\n");
    else
        fprintf(fp, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
                    "  set terminal pngcairo size 1280,800 enhanced font 'sans,11'\n"
                    "} else {\n  set terminal png size 1280,800\n}\n");
    fprintf(fp, "set output %s\n", q);
    int rc = v->gnuplot(v, fp, cx, msg, mn);
    fprintf(fp, "unset output\nexit\n");
    int status = elk_gp_finish(&gpp);
    struct stat st;
    if (!rc && (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || stat(tmp, &st) != 0 ||
                (S_ISREG(st.st_mode) && st.st_size == 0))) {
        snprintf(msg, mn, "gnuplot failed (exit %d); see %s", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                 log_path);
        rc = -1;
    }
    if (rc) elk_file_abort(&fig);
    else if (elk_file_commit(&fig, &err) != ELK_OK) {
        snprintf(msg, mn, "%s", err.msg);
        rc = -1;
    }
    return rc;
}
