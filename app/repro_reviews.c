/* elk reproduce --figure reviews: the studies that answer the paper's
 * reviewers (issue 14), each an elk command run as a child process into
 * DIR/reviews-NAME.csv (or .txt), its figure drawn by `elk plot` (or by the
 * command itself), and one summary.md section with the headline numbers
 * computed from those files. A child process, not a call: every study is
 * then exactly the command a user would type (the summary prints it). */
#include "repro_reviews.h"

#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "elk_cli.h"
#include "elk_csv.h"
#include "elk_file.h"

extern char **environ;

/* One study: who asks it, the command (DIR and DATADIR
 * are substituted; the output file is appended as -o, or stdout is
 * captured for text), and the `elk plot` options of its figure (NULL: none,
 * or the command draws its own). */
typedef struct {
    const char *name;
    const char *item;
    const char *what;
    const char *args;
    int text;          /* stdout is the result (no -o) */
    const char *plot;
} study;

static const study studies[] = {
    {"ablation", "reviewers", "is the complexity worth it: Basic to Elk-Full one idea at a time, 4 LLMs",
     "ablate --format csv", 0,
     "--kind bars --x model --y gain_over_basic --series step --title 'Ablation: speedup over Basic, one idea at a time'"},
    {"orders", "reviewers", "why reorder only HBM-heavy operators: the heavy threshold and the displacement bound",
     "ablate --orders --format csv", 0,
     "--kind lines --x heavy_factor --y gain_over_dyn --series max_disp --col model --logx "
     "--title 'Order search: gain over Elk-Dyn against the heavy-operator threshold'"},
    {"noise", "reviewers", "what if the cost model is 5-20% wrong: plan with seeded errors, time with the truth",
     "noise --format csv", 0, NULL},
    {"controllers", "reviewers", "one broadcasting HBM against 4/8/16 controllers, by topology (simulated)",
     "controllers --format csv", 0,
     "--kind lines --x hbm_tbps --y simulated_ms --series controllers --col topology --logy "
     "--title 'HBM controllers: simulated step time against HBM bandwidth'"},
    {"moe", "reviewers", "Mixture-of-Experts: expert preloads after the router, with an oracle, or all",
     "sweep DATADIR/sweeps/reviews-moe.cfg --quiet", 0, ""},
    {"gap", "reviewers", "is Elk optimal: the greedy against an exhaustive search (preload numbers, plans, orders)",
     "gap --plans --orders 6", 1, NULL},
    {"sensitivity", "architects", "which knob matters at the default point (tornado)", "sensitivity --format csv", 0,
     "SELF"},
    {"balance", "architects", "Llama2-70B on IPU-POD4 (mesh) at 16 TB/s: what NoC bandwidth?",
     "balance --knob noc-tbps --model llama2-70b --chip ipu-pod4-mesh --hbm-tbps 16", 1, NULL},
};
#define NSTUDIES ((int)(sizeof studies / sizeof studies[0]))

/* Split a command line on spaces, keeping 'quoted words' whole; a word
 * starting with DATADIR/ gets the data folder (which may hold spaces).
 * Returns argc; the words live in buf. */
static int split_args(const char *line, char *buf, size_t bn, char **argv, int max)
{
    int argc = 0;
    size_t b = 0;
    for (const char *p = line; *p && argc < max - 1 && b + 1 < bn;) {
        while (*p == ' ') p++;
        if (!*p) break;
        argv[argc++] = buf + b;
        if (!strncmp(p, "DATADIR/", 8)) {
            b += (size_t)snprintf(buf + b, bn - b, "%s/", elk_datadir());
            if (b >= bn) b = bn - 1;
            p += 8;
        }
        int q = *p == '\'';
        if (q) p++;
        while (*p && (q ? *p != '\'' : *p != ' ') && b + 1 < bn) buf[b++] = *p++;
        if (q && *p) p++;
        buf[b++] = '\0';
    }
    argv[argc] = NULL;
    return argc;
}

/* Run this elk with argv[1..] (argv[0] is replaced), stdout to fd out (-1:
 * inherited). Returns the exit status, or -1. */
static int run_elk(char **argv, int out)
{
    char self[1024];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return -1;
    self[n] = '\0';
    argv[0] = self;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (out >= 0) posix_spawn_file_actions_adddup2(&fa, out, 1);
    pid_t pid;
    int rc = posix_spawn(&pid, self, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return -1;
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void out_path(const char *dir, const study *s, const char *ext, char *out, size_t n)
{
    snprintf(out, n, "%s/reviews-%s.%s", dir, s->name, ext);
}

/* One study: its result file and figure. 0, or the exit status. */
static int run_study(const study *s, const char *dir, int jobs, int draw, int quiet)
{
    char res[1200], png[1200], buf[4096], *argv[64];
    out_path(dir, s, s->text ? "txt" : "csv", res, sizeof res);
    out_path(dir, s, "png", png, sizeof png);
    int argc = split_args(s->args, buf, sizeof buf, argv + 1, 48) + 1;
    char jb[16];
    snprintf(jb, sizeof jb, "%d", jobs);
    if (!strncmp(s->args, "sweep ", 6)) {
        argv[argc++] = "-j";
        argv[argc++] = jb;
        if (draw) argv[argc++] = "--plot";
    }
    if (s->plot && !strcmp(s->plot, "SELF") && draw) {
        argv[argc++] = "--plot";
        argv[argc++] = png;
    }
    int rc;
    if (s->text) {
        argv[argc] = NULL;
        elk_file f;
        elk_error err;
        if (elk_file_open(&f, res, &err) != ELK_OK) {
            elk_cli_error("%s", err.msg);
            return ELK_EXIT_FAIL;
        }
        fflush(f.fp);
        rc = run_elk(argv, fileno(f.fp));
        if (rc == 0 && elk_file_commit(&f, &err) != ELK_OK) {
            elk_cli_error("%s", err.msg);
            rc = ELK_EXIT_FAIL;
        } else if (rc != 0) {
            elk_file_abort(&f);
        }
    } else {
        argv[argc++] = "-o";
        argv[argc++] = res;
        argv[argc] = NULL;
        rc = run_elk(argv, -1);
    }
    if (rc != 0) {
        elk_cli_error("reproduce: reviews: '%s' failed (exit %d)", s->args, rc);
        return ELK_EXIT_FAIL;
    }
    if (draw && s->plot && s->plot[0] && strcmp(s->plot, "SELF")) {
        char pbuf[4096], *pargv[64] = {NULL, "plot", res, "-o", png};
        split_args(s->plot, pbuf, sizeof pbuf, pargv + 5, 56);
        if (run_elk(pargv, -1) != 0) {
            elk_cli_error("reproduce: reviews: drawing %s failed", png);
            return ELK_EXIT_FAIL;
        }
    }
    if (isatty(2) && !quiet) fprintf(stderr, "elk: reviews: %s -> %s\n", s->name, res);
    return 0;
}

int elk_repro_reviews_run(const char *dir, int jobs, int draw, int quiet, long *points)
{
    *points = 0;
    for (int i = 0; i < NSTUDIES; i++) {
        int rc = run_study(&studies[i], dir, jobs, draw, quiet);
        if (rc) return rc;
        (*points)++;
    }
    return 0;
}

/* ---- summary ---- */

static int load(const char *dir, const study *s, elk_csv_table *t)
{
    char p[1200];
    out_path(dir, s, "csv", p, sizeof p);
    elk_error err;
    struct stat sb;
    if (stat(p, &sb) != 0) return -1;
    if (elk_csv_read(p, t, &err) != ELK_OK) {
        elk_cli_error("reproduce: summary: leaving out %s: %s", p, err.msg);
        return -1;
    }
    return 0;
}

static const study *find(const char *name)
{
    for (int i = 0; i < NSTUDIES; i++)
        if (!strcmp(studies[i].name, name)) return &studies[i];
    return NULL;
}

static double cell_d(const elk_csv_table *t, int r, const char *col)
{
    int c = elk_csv_col(t, col);
    return c < 0 ? NAN : atof(elk_csv_cell(t, r, c));
}

static const char *cell_s(const elk_csv_table *t, int r, const char *col)
{
    int c = elk_csv_col(t, col);
    return c < 0 ? "" : elk_csv_cell(t, r, c);
}

static void sum_ablation(FILE *md, const char *dir)
{
    elk_csv_table t;
    if (load(dir, find("ablation"), &t)) return;
    fprintf(md, "Ablation, speedup over Basic after each idea:\n\n| model | profile | step | over Basic |\n|---|---|---|---:|\n");
    for (int r = 0; r < t.nrows; r++)
        if (strcmp(cell_s(&t, r, "step"), "basic"))
            fprintf(md, "| %s | %s | %s | %.2fx |\n", cell_s(&t, r, "model"), cell_s(&t, r, "profile"),
                    cell_s(&t, r, "step"), cell_d(&t, r, "gain_over_basic"));
    fprintf(md, "\n");
    elk_csv_free(&t);
}

/* Mean and 95% confidence half-width (Student t) of column col over the
 * rows of one sigma. */
static void sum_noise(FILE *md, const char *dir)
{
    elk_csv_table t;
    if (load(dir, find("noise"), &t)) return;
    fprintf(md, "Cost-model noise: Elk-Full's speedups planned with log-normal errors of sigma on\n"
                "every operator's compute and exchange, timed with the true model; mean and 95%% confidence\n"
                "interval over the trials:\n\n| model | sigma | trials | Full/Static | Full/Basic | plans changed |\n"
                "|---|---:|---:|---|---|---:|\n");
    double *a = malloc(sizeof *a * (size_t)(t.nrows + 1)), *b = malloc(sizeof *b * (size_t)(t.nrows + 1)),
           *c = malloc(sizeof *c * (size_t)(t.nrows + 1));
    for (int r0 = 0; a && b && c && r0 < t.nrows;) {
        int r1 = r0;
        int n = 0;
        while (r1 < t.nrows && !strcmp(cell_s(&t, r1, "sigma"), cell_s(&t, r0, "sigma")) &&
               !strcmp(cell_s(&t, r1, "model"), cell_s(&t, r0, "model"))) {
            a[n] = cell_d(&t, r1, "full_over_static");
            b[n] = cell_d(&t, r1, "full_over_basic");
            c[n] = cell_d(&t, r1, "plans_changed");
            n++;
            r1++;
        }
        double q = n > 1 ? gsl_cdf_tdist_Pinv(0.975, n - 1.0) : 0;
        double ma = gsl_stats_mean(a, 1, (size_t)n), mb = gsl_stats_mean(b, 1, (size_t)n);
        double ha = n > 1 ? q * gsl_stats_sd(a, 1, (size_t)n) / sqrt(n) : 0;
        double hb = n > 1 ? q * gsl_stats_sd(b, 1, (size_t)n) / sqrt(n) : 0;
        fprintf(md, "| %s | %s | %d | %.3fx +- %.3f | %.3fx +- %.3f | %.0f%% |\n", cell_s(&t, r0, "model"),
                cell_s(&t, r0, "sigma"), n, ma, ha, mb, hb, 100 * gsl_stats_mean(c, 1, (size_t)n));
        r0 = r1;
    }
    free(a);
    free(b);
    free(c);
    fprintf(md, "\n");
    elk_csv_free(&t);
}

static void sum_controllers(FILE *md, const char *dir)
{
    elk_csv_table t;
    if (load(dir, find("controllers"), &t)) return;
    fprintf(md, "HBM controllers, simulated step time against one broadcasting controller:\n\n"
                "| topology | HBM TB/s | controllers | simulated ms | vs the first row |\n|---|---:|---:|---:|---:|\n");
    for (int r = 0; r < t.nrows; r++)
        fprintf(md, "| %s | %s | %s%s | %.3f | %.2fx |\n", cell_s(&t, r, "topology"), cell_s(&t, r, "hbm_tbps"),
                cell_s(&t, r, "controllers"), atoi(cell_s(&t, r, "broadcast")) ? " (broadcast)" : "",
                cell_d(&t, r, "simulated_ms"), cell_d(&t, r, "vs_first"));
    fprintf(md, "\n");
    elk_csv_free(&t);
}

static void sum_orders(FILE *md, const char *dir)
{
    elk_csv_table t;
    if (load(dir, find("orders"), &t)) return;
    /* the best setting per model, and program order's (max_disp 0) */
    fprintf(md, "Order search: Elk-Full's gain over Elk-Dyn for each heavy-operator threshold and\n"
                "displacement bound; per model, the best setting and the number of orders it searched:\n\n"
                "| model | best max_disp | heavy_factor | orders | gain over Elk-Dyn |\n|---|---:|---:|---:|---:|\n");
    for (int r0 = 0; r0 < t.nrows;) {
        int best = r0, r1 = r0;
        while (r1 < t.nrows && !strcmp(cell_s(&t, r1, "model"), cell_s(&t, r0, "model"))) {
            if (cell_d(&t, r1, "gain_over_dyn") > cell_d(&t, best, "gain_over_dyn")) best = r1;
            r1++;
        }
        fprintf(md, "| %s | %s | %s | %s | %.3fx |\n", cell_s(&t, best, "model"), cell_s(&t, best, "max_disp"),
                cell_s(&t, best, "heavy_factor"), cell_s(&t, best, "orders"), cell_d(&t, best, "gain_over_dyn"));
        r0 = r1;
    }
    fprintf(md, "\n");
    elk_csv_free(&t);
}

static void sum_moe(FILE *md, const char *dir)
{
    elk_csv_table t;
    if (load(dir, find("moe"), &t)) return;
    fprintf(md, "Mixture-of-Experts, Elk-Full ms per step:\n\n| model | profile | batch | routed | oracle | all |\n"
                "|---|---|---:|---:|---:|---:|\n");
    for (int r = 0; r < t.nrows; r++) {
        if (strcmp(cell_s(&t, r, "policy"), "elk-full") || strcmp(cell_s(&t, r, "moe_preload"), "routed")) continue;
        double v[3] = {NAN, NAN, NAN};
        for (int q = 0; q < t.nrows; q++) {
            if (strcmp(cell_s(&t, q, "policy"), "elk-full") || strcmp(cell_s(&t, q, "model"), cell_s(&t, r, "model")) ||
                strcmp(cell_s(&t, q, "profile"), cell_s(&t, r, "profile")) ||
                strcmp(cell_s(&t, q, "batch"), cell_s(&t, r, "batch")))
                continue;
            const char *m = cell_s(&t, q, "moe_preload");
            int k = !strcmp(m, "routed") ? 0 : !strcmp(m, "oracle") ? 1 : 2;
            v[k] = cell_d(&t, q, "latency_ms");
        }
        fprintf(md, "| %s | %s | %s | %.3f | %.3f | %.3f |\n", cell_s(&t, r, "model"), cell_s(&t, r, "profile"),
                cell_s(&t, r, "batch"), v[0], v[1], v[2]);
    }
    fprintf(md, "\n");
    elk_csv_free(&t);
}

static void sum_text(FILE *md, const char *dir, const char *name)
{
    const study *s = find(name);
    char p[1200];
    out_path(dir, s, "txt", p, sizeof p);
    FILE *f = fopen(p, "r");
    if (!f) return;
    fprintf(md, "`elk %s` (%s):\n\n```\n", s->args, s->what);
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f) && n++ < 60) fputs(line, md);
    fclose(f);
    fprintf(md, "```\n\n");
}

void elk_repro_reviews_summary(FILE *md, const char *dir)
{
    char p[1200];
    out_path(dir, find("ablation"), "csv", p, sizeof p);
    struct stat sb;
    if (stat(p, &sb) != 0) return;
    fprintf(md, "## The reviewers' questions\n\n"
                "Each study is one elk command (run again with it; docs/VALIDATION.md has the discussion):\n\n"
                "| asked by | question | command | data | figure |\n|---|---|---|---|---|\n");
    for (int i = 0; i < NSTUDIES; i++) {
        const study *s = &studies[i];
        char cmd[600];
        snprintf(cmd, sizeof cmd, "%s", s->args);
        for (char *d = strstr(cmd, "DATADIR/"); d; d = strstr(d, "DATADIR/")) memmove(d, d + 8, strlen(d + 8) + 1);
        fprintf(md, "| %s | %s | `elk %s` | reviews-%s.%s | %s%s%s |\n", s->item, s->what, cmd, s->name,
                s->text ? "txt" : "csv", s->plot ? "reviews-" : "", s->plot ? s->name : "", s->plot ? ".png" : "");
    }
    fprintf(md, "\n");
    sum_ablation(md, dir);
    sum_orders(md, dir);
    sum_noise(md, dir);
    sum_controllers(md, dir);
    sum_moe(md, dir);
    sum_text(md, dir, "gap");
    sum_text(md, dir, "balance");
}
