/* elk sweep and elk merge: run a sweep file (core/elk_sweep) into a tidy
 * CSV, and reassemble the shards of a cluster run.
 *
 * Files are written through core/elk_file (temporary file in the same
 * folder, renamed at the end); Ctrl-C stops a sweep and keeps the rows of
 * finished points in OUT.partial, never over OUT. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elk_cli.h"
#include "elk_csv.h"
#include "elk_file.h"
#include "elk_sweep.h"
#include "sweep_io.h"

static void sweep_usage(FILE *fp, const elk_opt *opts)
{
    fprintf(fp,
            "usage: elk sweep SWEEP.cfg [-o OUT.csv] [-j|--jobs N] [--shard i/N] [--pointwise] [--plot] [--quiet]\n\n"
            "Runs every design point of a sweep file with its policies and writes one tidy CSV:\n"
            "one row per (point, policy), points in order, the same bytes whatever --jobs is.\n"
            "Threads share one plan cache. With -o the CSV is written atomically and OUT.gp is\n"
            "written beside it: a gnuplot script that redraws the figure without elk (--plot\n"
            "also draws OUT.png). Without -o the CSV goes to stdout. A progress bar with ETA is\n"
            "shown on stderr when it is a terminal. Ctrl-C stops and keeps the finished rows in\n"
            "OUT.csv.partial (OUT.csv, if any, is left as it was). -o - is stdout; a device or\n"
            "FIFO (-o /dev/null) is written in place, with no figure beside it.\n\n"
            "Carried schedules: where the sweep has Elk-Full and a numeric resource axis\n"
            "(hbm-tbps, hbm-gbps-per-core, noc-tbps, noc-scale, link-gbps, sram-kib,\n"
            "compute-scale) in a crossed block, each series (the points that differ only\n"
            "along those axes) is run in increasing order and Elk-Full at a point is the\n"
            "faster of its own schedule and its lower neighbours' carried schedules re-timed\n"
            "there, so more of a resource never makes it slower (beyond what re-timing\n"
            "loses: elk check's carried invariant). Its own latency is kept in pointwise_ms\n"
            "and the point whose schedule won in carried_from. A value can then beat\n"
            "'elk run' at the same point. Shards hold whole series (--shard i/N takes the\n"
            "series with index %% N == i). --pointwise turns this off.\n\n");
    elk_cli_opts_help(fp, opts);
    fprintf(fp,
            "\nSweep file format and CSV columns: docs/SWEEPS.md. Exit status: 0 done, 1 error,\n"
            "2 usage, 130 interrupted (OUT.csv.partial then holds the finished points).\n");
}

int elk_cmd_sweep(int argc, char **argv)
{
    const char *output = NULL, *jobs_s = NULL, *shard_s = NULL;
    int help = 0, plot = 0, quiet = 0, pointwise = 0;
    elk_opt opts[] = {{"output", 1, &output, NULL, "OUT.csv\twhere the CSV goes (default stdout)"},
                      {"jobs", 1, &jobs_s, NULL, "N\tworker threads (default: the number of CPUs)"},
                      {"shard", 1, &shard_s, NULL,
                       "i/N\trun only points with index % N == i (0 <= i < N; in a carried sweep, whole series); "
                       "'elk merge' reassembles the shards"},
                      {"pointwise", 0, NULL, &pointwise,
                       "Elk-Full's own schedule at every point: no carried schedules, no pointwise_ms and "
                       "carried_from columns"},
                      {"plot", 0, NULL, &plot, "also draw OUT.png with gnuplot"},
                      {"quiet", 0, NULL, &quiet, "no progress bar or summary"},
                      {"help", 0, NULL, &help, NULL},
                      {NULL, 0, NULL, NULL, NULL}};
    const char *pos[2];
    int npos;
    int rc = elk_cli_parse(argc, argv, 2, NULL, opts, pos, 1, &npos, "sweep");
    if (rc) return rc;
    if (help) {
        sweep_usage(stdout, opts);
        return 0;
    }
    if (npos != 1) {
        sweep_usage(stderr, opts);
        return ELK_EXIT_USAGE;
    }
    int jobs, shard = 0, nshards = 1;
    if ((rc = elk_sweepio_jobs(jobs_s, &jobs))) return rc;
    if (shard_s) {
        char is[32] = "";
        const char *slash = strchr(shard_s, '/');
        long i = -1, n = -1;
        if (slash && (size_t)(slash - shard_s) < sizeof is) {
            memcpy(is, shard_s, (size_t)(slash - shard_s));
            is[slash - shard_s] = '\0';
        }
        if (!slash || elk_parse_long(is, 0, 999999, &i) || elk_parse_long(slash + 1, 1, 1000000, &n) || i >= n) {
            elk_cli_error("--shard %s: expected i/N with 0 <= i < N (e.g. --shard 0/4)", shard_s);
            return ELK_EXIT_USAGE;
        }
        shard = (int)i;
        nshards = (int)n;
    }
    if (output && elk_file_is_std(output)) output = NULL; /* -o - is stdout */
    if (plot && !output) {
        elk_cli_error("sweep: --plot needs -o OUT.csv (the figure goes beside it)");
        return ELK_EXIT_USAGE;
    }
    elk_sweep s;
    elk_error err;
    if (elk_sweep_load(pos[0], &s, &err) != ELK_OK || (pointwise && elk_sweep_set_pointwise(&s, &err) != ELK_OK)) {
        elk_cli_error("%s", err.msg);
        return ELK_EXIT_FAIL;
    }
    elk_file of = {0};
    FILE *out = stdout;
    if (output) {
        if (elk_sweepio_open(&of, output)) {
            elk_sweep_free(&s);
            return ELK_EXIT_FAIL;
        }
        out = of.fp;
    }
    elk_sweep_opts o;
    elk_sweep_opts_default(&o);
    o.jobs = jobs;
    o.shard = shard;
    o.nshards = nshards;
    o.cancel = &elk_sweepio_interrupted;
    elk_sweepio_progress pc = {s.name, isatty(2) && !quiet, 0};
    o.progress = elk_sweepio_progress_cb;
    o.ctx = &pc;
    elk_sweep_stats st;
    elk_sweepio_trap_sigint();
    elk_status r = elk_sweep_run(&s, &o, out, &st, &err);
    elk_sweepio_untrap_sigint();
    elk_sweepio_progress_end(&pc);
    int status = 0;
    int direct = output && of.kind != ELK_FILE_RENAME; /* a device or FIFO: no figure beside it */
    if (r == ELK_OK) {
        if (output && elk_sweepio_commit(&of)) status = ELK_EXIT_FAIL;
    } else if (r == ELK_ECANCEL) {
        char where[ELK_FILE_PATH_MAX + 16] = "stdout";
        int renamed = output && of.kind == ELK_FILE_RENAME;
        if (output && elk_sweepio_commit_partial(&of, where, sizeof where)) status = ELK_EXIT_FAIL;
        elk_cli_error("sweep: interrupted: %s holds the %ld of %ld points that finished%s%s%s", where, st.done,
                      st.points, renamed ? " (" : "", renamed ? output : "", renamed ? " is untouched)" : "");
        if (!status) status = 130;
    } else {
        if (output) elk_file_abort(&of);
        elk_cli_error("%s", err.msg);
        status = ELK_EXIT_FAIL;
    }
    if (st.infeasible > 0)
        elk_cli_error("warning: %ld of %ld points fit no schedule in SRAM (status no-plan, empty metrics); first: %s",
                      st.infeasible, st.points, st.first_infeasible);
    if (status == 0 && output && !direct) {
        if (elk_sweepio_figure_beside(output, plot, 0)) status = ELK_EXIT_FAIL;
    }
    if (status == 0 && isatty(2) && !quiet) {
        int npol = 0;
        for (int p = 0; p < ELK_POL_COUNT; p++) npol += (s.policy_mask >> p) & 1;
        fprintf(stderr, "elk: %s: %ld points x %d policies in %.1f s (%d threads, plan cache %ld hits / %ld misses)%s%s\n",
                s.name, st.points, npol, st.seconds, jobs, st.cache_hits, st.cache_misses, output ? " -> " : "",
                output ? output : "");
    }
    elk_sweep_free(&s);
    return status;
}

/* ------------------------------------------------------------------ */

int elk_cmd_merge(int argc, char **argv)
{
    const char *output = NULL;
    int help = 0;
    elk_opt opts[] = {{"output", 1, &output, NULL, "OUT.csv\twhere the merged CSV goes (default stdout)"},
                      {"help", 0, NULL, &help, NULL},
                      {NULL, 0, NULL, NULL, NULL}};
    const char *pos[4096];
    int npos;
    int rc = elk_cli_parse(argc, argv, 2, NULL, opts, pos, 4096, &npos, "merge");
    if (rc) return rc;
    if (help || npos < 1) {
        fprintf(help ? stdout : stderr,
                "usage: elk merge SHARD.csv... [-o OUT.csv]\n\n"
                "Reassembles the CSVs of 'elk sweep --shard i/N' runs into the CSV the unsharded run\n"
                "writes (byte for byte). Checks that the files are shards of one sweep (same sweep\n"
                "name, fingerprint, columns and shard count) and that every point is there once.\n"
                "With -o the result is written atomically with OUT.gp beside it; else to stdout.\n\n");
        elk_cli_opts_help(help ? stdout : stderr, opts);
        return help ? 0 : ELK_EXIT_USAGE;
    }
    elk_file of = {0};
    FILE *out = stdout;
    if (output && elk_file_is_std(output)) output = NULL; /* -o - is stdout */
    if (output) {
        if (elk_sweepio_open(&of, output)) return ELK_EXIT_FAIL;
        out = of.fp;
    }
    int direct = output && of.kind != ELK_FILE_RENAME;
    elk_error err;
    if (elk_sweep_merge(pos, npos, out, &err) != ELK_OK) {
        if (output) elk_file_abort(&of);
        elk_cli_error("merge: %s", err.msg);
        return ELK_EXIT_FAIL;
    }
    if (output) {
        if (elk_sweepio_commit(&of)) return ELK_EXIT_FAIL;
        if (!direct && elk_sweepio_figure_beside(output, 0, 0)) return ELK_EXIT_FAIL;
    }
    return 0;
}
