/* elk reproduce: re-run the paper's Figures 17-24 (and the artifact's
 * reference points and the cost-profile study) from the sweep files in
 * DATADIR/sweeps, into CSVs, gnuplot scripts, PNGs and summary.md. One plan
 * cache serves every figure, bounded by its byte budget. */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "elk_cli.h"
#include "elk_file.h"
#include "elk_gnuplot.h"
#include "elk_sweep.h"
#include "elk_thread.h"
#include "repro_summary.h"
#include "sweep_io.h"

static int mkdir_p(const char *dir)
{
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0777) != 0 && errno != EEXIST) return -1;
            *p = '/';
        }
    if (mkdir(tmp, 0777) != 0 && errno != EEXIST) return -1;
    return 0;
}

static void reproduce_usage(FILE *fp, const elk_opt *opts)
{
    fprintf(fp,
            "usage: elk reproduce [--figure N|NAME|all] -o DIR [--profile P] [-j|--jobs N] [--no-plot]\n\n"
            "Re-runs the paper's evaluation (Figures 17 to 24) from the sweep files in\n"
            "DATADIR/sweeps/NAME.cfg: writes DIR/NAME.csv and DIR/NAME.gp, draws DIR/NAME.png\n"
            "(when gnuplot is installed), and writes DIR/summary.md with the paper's headline\n"
            "numbers beside ours, computed from the CSVs. One plan cache serves every figure.\n"
            "The figures show the model's own numbers (no clamps or jitter). Two more:\n"
            "'ref', the Elk artifact's five reference points (docs/ARTIFACT.md section 2) with\n"
            "its latencies beside ours, and 'profiles', what the conclusions depend on: each\n"
            "switch of the paper cost profile turned on alone, and all of them. And one not\n"
            "in 'all': 'reviews', the studies answering the paper's reviewers (ablation,\n"
            "order search, cost-model noise, HBM controllers, MoE, optimality gap, and the\n"
            "architects' sensitivity and balance), each the elk command it names, about a\n"
            "minute.\n\n"
            "The paper's chip presets open in the 'paper' cost profile, so by default the\n"
            "figures are the artifact's model; --profile physical runs them in ours\n"
            "(docs/VALIDATION.md, Cost profiles).\n\n");
    elk_cli_opts_help(fp, opts);

}

/* The figures drawn beside the sweeps: gnuplot runs on a thread of its own
 * while the next figure's points are planned, which also fills the core a
 * sweep's last points leave idle (drawing the ten figures one after the
 * other added about 2 s to reproduce's 14). Owns its queue of CSV paths;
 * queued figures are drawn in order, and failed is set (never cleared) when
 * one could not be. The lock guards every field but the thread. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char csv[ELK_REPRO_MAX][1200];
    int n, next, done, failed, draw;
    pthread_t th;
    int running;
} repro_drawer;

static void *drawer_main(void *arg)
{
    repro_drawer *d = arg;
    pthread_mutex_lock(&d->mu);
    for (;;) {
        while (d->next == d->n && !d->done) pthread_cond_wait(&d->cv, &d->mu);
        if (d->next == d->n) break;
        const char *csv = d->csv[d->next];
        int draw = d->draw;
        pthread_mutex_unlock(&d->mu);
        int bad = elk_sweepio_figure_beside(csv, draw, 1);
        pthread_mutex_lock(&d->mu);
        d->next++;
        if (bad) d->failed = 1;
    }
    pthread_mutex_unlock(&d->mu);
    return NULL;
}

/* Draws csv's figure now, on this thread, when the drawer could not start. */
static int drawer_queue(repro_drawer *d, const char *csv)
{
    if (!d->running) return elk_sweepio_figure_beside(csv, d->draw, 1);
    pthread_mutex_lock(&d->mu);
    assert(d->n < ELK_REPRO_MAX); /* each figure is queued once */
    snprintf(d->csv[d->n++], sizeof d->csv[0], "%s", csv);
    pthread_cond_signal(&d->cv);
    pthread_mutex_unlock(&d->mu);
    return 0;
}

/* Waits for every queued figure; non-zero when one failed. */
static int drawer_finish(repro_drawer *d)
{
    if (!d->running) return d->failed;
    pthread_mutex_lock(&d->mu);
    d->done = 1;
    pthread_cond_signal(&d->cv);
    pthread_mutex_unlock(&d->mu);
    pthread_join(d->th, NULL);
    d->running = 0;
    return d->failed;
}

/* One reproduce run: what was asked and what each figure took.
 * Owns cache and memo. One plan cache serves every figure: figures far
 * apart share design points (profiles' paper-rule points are Fig. 17's at
 * batch 32, seq 2048), and the cache's own budget (ELK_PLAN_CACHE_BUDGET,
 * least recently used sets evicted) bounds its memory, about 40 MB here. */
typedef struct {
    const char *dir, *profile;
    int jobs, quiet, draw;
    int want[ELK_REPRO_MAX];
    elk_plan_cache *cache;
    elk_sweep_memo *memo;
    repro_drawer *drawer;
    long hits, misses, entries;
    double secs[ELK_REPRO_MAX];
    long npts[ELK_REPRO_MAX], reused[ELK_REPRO_MAX];
    long total[ELK_REPRO_MAX]; /* the figure's points; npts the finished ones */
    int ran[ELK_REPRO_MAX];    /* 0 not run, 1 complete, 2 interrupted or failed */
} repro_run;

/* --figure LIST: every comma-separated item must be a figure (",", "17,"
 * and "" are errors). */
static int parse_figures(const char *figs, int *want)
{
    if (!figs || !strcmp(figs, "all")) {
        for (int f = 0; f < elk_repro_nfigs; f++) want[f] = elk_repro_in_all(f);
        return 0;
    }
    const char *tok = figs;
    for (;;) {
        const char *comma = strchr(tok, ',');
        size_t len = comma ? (size_t)(comma - tok) : strlen(tok);
        char item[16] = "";
        int f = -1;
        if (len < sizeof item) {
            memcpy(item, tok, len);
            f = elk_repro_find(item);
        }
        if (f < 0) {
            elk_cli_error("--figure %s: expected a figure from 17 to 24, ref, profiles, reviews, a comma list, or all",
                          figs);
            return ELK_EXIT_USAGE;
        }
        want[f] = 1;
        if (!comma) return 0;
        tok = comma + 1;
    }
}

static void take_stats(repro_run *r)
{
    long h, m, e;
    elk_plan_cache_stats(r->cache, &h, &m, &e);
    r->hits += h;
    r->misses += m;
    r->entries += e;
}

/* Run figure f's sweep into DIR/NAME.csv (or NAME.csv.partial when
 * interrupted) and its figure beside it. Returns 0 or the exit status. */
static int run_figure(repro_run *r, int f)
{
    const char *fname = elk_repro_name(f);
    if (!elk_repro_in_all(f)) {
        /* runs its own commands; --profile does not reach them */
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        int rc = elk_repro_run_own(f, r->dir, r->jobs, r->draw, r->quiet, &r->npts[f]);
        clock_gettime(CLOCK_MONOTONIC, &b);
        r->secs[f] = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
        r->total[f] = r->npts[f];
        r->ran[f] = rc ? 2 : 1;
        return rc;
    }
    char cfg[1200], csv[1200];
    snprintf(cfg, sizeof cfg, "%s/sweeps/%s.cfg", elk_datadir(), fname);
    snprintf(csv, sizeof csv, "%s/%s.csv", r->dir, fname);
    elk_sweep s;
    elk_error err;
    if (elk_sweep_load(cfg, &s, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        return ELK_EXIT_FAIL;
    }
    int status = 0;
    elk_file of;
    /* the profiles figure sweeps the profile itself */
    if (r->profile && strcmp(fname, "profiles") &&
        elk_sweep_override(&s, ELK_KNOB_PROFILE, r->profile, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        status = ELK_EXIT_FAIL;
    } else if (elk_sweepio_open(&of, csv)) {
        status = ELK_EXIT_FAIL;
    }
    if (status) {
        elk_sweep_free(&s);
        return status;
    }
    elk_sweep_opts o;
    elk_sweep_opts_default(&o);
    o.jobs = r->jobs;
    o.cancel = &elk_sweepio_interrupted;
    o.cache = r->cache;
    o.memo = r->memo;
    elk_sweepio_progress pc = {fname, isatty(2) && !r->quiet, 0};
    o.progress = elk_sweepio_progress_cb;
    o.ctx = &pc;
    elk_sweep_stats st;
    elk_status rs = elk_sweep_run(&s, &o, of.fp, &st, &err);
    elk_sweepio_progress_end(&pc);
    r->secs[f] = st.seconds;
    r->total[f] = st.points;
    r->npts[f] = rs == ELK_OK ? st.points : st.done;
    r->reused[f] = st.memo_hits;
    r->ran[f] = rs == ELK_OK ? 1 : 2;
    if (rs == ELK_OK) {
        if (elk_sweepio_commit(&of)) status = ELK_EXIT_FAIL;
    } else if (rs == ELK_ECANCEL) {
        char where[ELK_FILE_PATH_MAX + 16];
        if (elk_sweepio_commit_partial(&of, where, sizeof where)) status = ELK_EXIT_FAIL;
        elk_cli_error("reproduce: interrupted during %s (%s holds its %ld finished points)", fname, where, st.done);
        if (!status) status = 130;
    } else {
        elk_file_abort(&of);
        elk_cli_error("%s", err.msg);
        status = ELK_EXIT_FAIL;
    }
    if (st.infeasible > 0)
        elk_cli_error("warning: %s: %ld points fit no schedule in SRAM (no-plan); first: %s", fname, st.infeasible,
                      st.first_infeasible);
    if (!status && drawer_queue(r->drawer, csv)) status = ELK_EXIT_FAIL;
    if (!status && isatty(2) && !r->quiet)
        fprintf(stderr, "elk: %s: %ld points in %.1f s -> %s%s\n", fname, st.points, st.seconds, csv,
                r->draw ? " (+ .png)" : "");
    elk_sweep_free(&s);
    return status;
}

/* summary.md from the CSVs on disk (whatever ran, now or before) and this
 * run's table. */
static int write_summary(const repro_run *r, double total, const char *mdpath)
{
    elk_file om;
    if (elk_sweepio_open(&om, mdpath)) return ELK_EXIT_FAIL;
    FILE *md = om.fp;
    elk_repro_summary_write(md, r->dir);
    fprintf(md, "## This run\n\n| figure | points | of them computed by an earlier figure | seconds |\n"
                "|---|---:|---:|---:|\n");
    /* an interrupted run says so: the figures above are the CSVs on disk,
     * an interrupted figure's the complete one from before, if any */
    for (int f = 0; f < elk_repro_nfigs; f++) {
        if (!r->want[f]) continue;
        if (r->ran[f] == 1)
            fprintf(md, "| %s | %ld | %ld | %.1f |\n", elk_repro_name(f), r->npts[f], r->reused[f], r->secs[f]);
        else if (r->ran[f] == 2)
            fprintf(md, "| %s | stopped: %ld of %ld finished (%s.csv.partial) | %ld | %.1f |\n", elk_repro_name(f),
                    r->npts[f], r->total[f], elk_repro_name(f), r->reused[f], r->secs[f]);
        else
            fprintf(md, "| %s | not run (stopped before it) | | |\n", elk_repro_name(f));
    }
    fprintf(md, "| total | | | %.1f |\n\n%d threads; plan caches: %ld hits, %ld misses, %ld plan sets built.%s%s%s\n",
            total, r->jobs, r->hits, r->misses, r->entries, r->profile ? " Cost profile of every point: `" : "",
            r->profile ? r->profile : "", r->profile ? "` (--profile)." : "");
    return elk_sweepio_commit(&om) ? ELK_EXIT_FAIL : 0;
}

int elk_cmd_reproduce(int argc, char **argv)
{
    const char *figs = NULL, *dir = NULL, *jobs_s = NULL, *profile = NULL;
    int help = 0, noplot = 0, quiet = 0;
    elk_opt opts[] = {
        {"figure", 1, &figs, NULL,
         "LIST\tfigures 17..24, ref, profiles, reviews, a comma list (17,19,ref), or all (default: every one but "
         "reviews)"},
        {"output", 1, &dir, NULL, "DIR\tfolder for the results (created if needed)"},
        {"profile", 1, &profile, NULL, "P\tcost profile for every point (not 'profiles', which sweeps it)"},
        {"jobs", 1, &jobs_s, NULL, "N\tworker threads (default: the number of CPUs)"},
        {"no-plot", 0, NULL, &noplot, "CSVs, scripts and summary only"},
        {"quiet", 0, NULL, &quiet, "no progress lines"},
        {"help", 0, NULL, &help, NULL},
        {NULL, 0, NULL, NULL, NULL}};
    const char *pos[1];
    int npos;
    int rc = elk_cli_parse(argc, argv, 2, NULL, opts, pos, 0, &npos, "reproduce");
    if (rc) return rc;
    if (help) {
        reproduce_usage(stdout, opts);
        return 0;
    }
    if (!dir || elk_file_is_std(dir)) {
        elk_cli_error("reproduce: give the output folder with -o DIR%s", dir ? " ('-', stdout, cannot hold its files)" : "");
        return ELK_EXIT_USAGE;
    }
    static repro_run r; /* large (the domain lists): not on the stack */
    memset(&r, 0, sizeof r);
    r.dir = dir;
    r.profile = profile;
    r.quiet = quiet;
    if ((rc = parse_figures(figs, r.want))) return rc;
    if (profile) {
        unsigned mask;
        elk_error perr;
        if (elk_profile_parse(profile, &mask, &perr) != ELK_OK) {
            elk_cli_error("--profile %s: %s", profile, perr.msg);
            return ELK_EXIT_USAGE;
        }
    }
    if ((rc = elk_sweepio_jobs(jobs_s, &r.jobs))) return rc;
    if (mkdir_p(dir) != 0) {
        elk_cli_error("reproduce: %s: cannot create: %s", dir, strerror(errno));
        return ELK_EXIT_FAIL;
    }
    char gpath[8];
    int have_gp = elk_gp_find(gpath, sizeof gpath);
    if (!noplot && !have_gp)
        elk_cli_error("reproduce: gnuplot is not installed (no 'gnuplot' in PATH): writing CSVs, .gp scripts and "
                      "summary.md, but no PNGs (Debian/Ubuntu: apt-get install gnuplot-nox)");
    r.draw = !noplot && have_gp;
    r.cache = elk_plan_cache_alloc();
    r.memo = elk_sweep_memo_alloc();
    int status = 0;
    if (!r.cache || !r.memo) {
        elk_cli_error("reproduce: out of memory");
        status = ELK_EXIT_FAIL;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    static repro_drawer drawer;
    memset(&drawer, 0, sizeof drawer);
    drawer.draw = r.draw;
    r.drawer = &drawer;
    pthread_mutex_init(&drawer.mu, NULL);
    pthread_cond_init(&drawer.cv, NULL);
    drawer.running = elk_thread_start(&drawer.th, drawer_main, &drawer) == 0;
    elk_sweepio_trap_sigint();
    for (int f = 0; f < elk_repro_nfigs && !status; f++)
        if (r.want[f]) status = run_figure(&r, f);
    elk_sweepio_untrap_sigint();
    if (drawer_finish(&drawer) && !status) status = ELK_EXIT_FAIL;
    pthread_cond_destroy(&drawer.cv);
    pthread_mutex_destroy(&drawer.mu);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double total = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    if (r.cache) take_stats(&r);
    elk_plan_cache_free(r.cache);
    elk_sweep_memo_free(r.memo);
    if (!r.cache || !r.memo) return status;
    char mdpath[1200];
    snprintf(mdpath, sizeof mdpath, "%s/summary.md", dir);
    if (write_summary(&r, total, mdpath)) return ELK_EXIT_FAIL;
    if (!status && isatty(2) && !quiet) fprintf(stderr, "elk: reproduce: %.1f s; summary in %s\n", total, mdpath);
    return status;
}
