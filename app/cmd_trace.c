/* elk trace: schedule one design point with one policy, replay the schedule
 * in the event simulator and write a Chrome trace-event JSON (Perfetto). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "elk_cli.h"
#include "elk_file.h"
#include "elk_sched.h"
#include "elk_sim.h"
#include "elk_trace.h"

/* the simulator's core limits, spelled out in --mode's help */
#define STR_(x) #x
#define STR(x) STR_(x)

static void help(const elk_opt *opts)
{
    printf("usage: elk trace --policy P [-o FILE] [--mode auto|fast|detailed] [--block N]\n"
           "                 [--hbm-model chip|broadcast|controllers] [--bench N] [design-point options]\n\n"
           "Schedules the design point with policy P (basic, static, elk-dyn, elk-full, ideal),\n"
           "replays the schedule in the event simulator (HBM controllers with queues, NoC links\n"
           "shared max-min fairly) and writes Chrome trace-event JSON that Perfetto or\n"
           "chrome://tracing opens: tracks for execution, the NoC and every HBM controller,\n"
           "one event per operator phase, counters for SRAM per core and the HBM rate.\n"
           "It prints the simulated latency beside the planner's estimate.\n\n");
    elk_cli_opts_help(stdout, opts);
    printf("\n");
    elk_cli_knob_help(stdout);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* --mode, --block, --hbm-model and --bench into the simulator's options
 * (recording the timeline unless benchmarking) and *reps; prints the error. */
static int sim_options(const char *mode, const char *block, const char *hbm_model, const char *bench,
                       elk_sim_opts *so, int *reps)
{
    int rc;
    elk_sim_opts_default(so);
    so->record = 1;
    int m = -1;
    for (int k = 0; elk_sim_mode_names[k]; k++)
        if (!strcmp(mode, elk_sim_mode_names[k])) m = k;
    if (m < 0) {
        elk_cli_error("trace: --mode %s: expected auto, fast or detailed", mode);
        return ELK_EXIT_USAGE;
    }
    so->mode = (elk_sim_mode)m;
    if (block) {
        long b;
        if ((rc = elk_cli_long("trace", "block", block, 1, 65536, &b))) return rc;
        so->block = (int)b;
    }
    if (!strcmp(hbm_model, "broadcast")) so->hbm_broadcast = 1;
    else if (!strcmp(hbm_model, "controllers")) so->hbm_broadcast = 0;
    else if (strcmp(hbm_model, "chip")) {
        elk_cli_error("trace: --hbm-model %s: expected chip, broadcast or controllers", hbm_model);
        return ELK_EXIT_USAGE;
    }
    if (bench) {
        long b;
        if ((rc = elk_cli_long("trace", "bench", bench, 1, 100000, &b))) return rc;
        *reps = (int)b;
        so->record = 0;
    }
    return 0;
}

/* --bench N: simulate reps times and print the time per simulation. */
static int bench_sim(const elk_problem *pr, const elk_schedule *s, const elk_sim_opts *so, int reps, int pol)
{
    elk_error err;
    elk_sim_result r;
    int ret = 0;
    double *t = malloc((size_t)reps * sizeof *t);
    if (!t) ret = ELK_EXIT_FAIL;
    for (int k = 0; k < reps && !ret; k++) {
        double t0 = now_ms();
        if (elk_sim_run(pr, s, so, &r, &err) != ELK_OK) {
            elk_cli_error("%s", err.msg);
            ret = ELK_EXIT_FAIL;
            break;
        }
        t[k] = now_ms() - t0;
        if (k + 1 < reps) elk_sim_result_free(&r);
    }
    if (!ret) {
        qsort(t, (size_t)reps, sizeof *t, cmp_d);
        printf("simulate %s %s on %s (%d cores, %s, %s mode): %d ops, %ld events, %ld flows\n",
               elk_policy_labels[pol], pr->model.name, pr->chip.name, pr->chip.cores,
               elk_topology_names[pr->chip.topology], r.mode_detailed ? "detailed" : "fast", r.nops, r.events,
               r.flows);
        printf("  %d runs: min %.2f ms, median %.2f ms, max %.2f ms per simulation\n", reps, t[0], t[reps / 2],
               t[reps - 1]);
        printf("  simulated %.4f ms, estimate %.4f ms (%+.2f%%)\n", r.latency_ms, r.est_latency_ms, 100 * r.err);
        elk_sim_result_free(&r);
    }
    free(t);
    return ret;
}

/* Simulate once, write the trace to out and print the summary. */
static int write_trace(const elk_problem *pr, const elk_schedule *s, const elk_sim_opts *so, int pol,
                       const char *out)
{
    elk_error err;
    elk_sim_result r;
    if (elk_sim_run(pr, s, so, &r, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        return ELK_EXIT_FAIL;
    }
    int ret = 0;
    char label[256];
    snprintf(label, sizeof label, "%s: %s on %s (simulated, %s mode)", elk_policy_labels[pol], pr->model.name,
             pr->chip.name, r.mode_detailed ? "detailed" : "fast");
    if (elk_trace_write(out, &r, &pr->graph, &pr->chip, label, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        ret = ELK_EXIT_FAIL;
    } else {
        /* with -o - the trace is stdout, so the summary goes to stderr */
        FILE *info = elk_file_is_std(out) ? stderr : stdout;
        fprintf(info, "%s: %d operators, %d phases; simulated %.4f ms, estimate %.4f ms (%+.2f%%)\n", out, r.nops,
                r.nphases, r.latency_ms, r.est_latency_ms, 100 * r.err);
        fprintf(info, "breakdown (ms):");
        for (int b = 0; b < ELK_BRK_COUNT; b++)
            fprintf(info, " %s %.4f", elk_brk_names[b], r.brk[b] / (pr->chip.clock_ghz * 1e6));
        fprintf(info, "\nHBM %.1f%%, NoC %.1f%%", 100 * r.hbm_util, 100 * r.noc_util);
        if (r.grid) fprintf(info, ", links max %.1f%% mean %.1f%%", 100 * r.link_max, 100 * r.link_mean);
        fprintf(info, ", %.2f TFLOPS, peak SRAM %.1f KiB/core\n", r.tflops, r.peak_resident / 1024.0);
    }
    elk_sim_result_free(&r);
    return ret;
}

int elk_cmd_trace(int argc, char **argv)
{
    elk_point p;
    elk_point_defaults(&p);
    const char *policy = NULL, *out = "trace.json", *mode = "auto", *block = NULL, *bench = NULL,
               *hbm_model = "chip";
    int want_help = 0;
    elk_opt opts[] = {
        {"policy", 1, &policy, NULL, "P\tthe policy (required)"},
        {"output", 1, &out, NULL, "FILE\ttrace file (default trace.json; - for stdout)"},
        {"mode", 1, &mode, NULL,
         "M\tdetailed: every link and port (at most " STR(ELK_SIM_DETAILED_LIMIT) " cores); fast: symmetric "
         "classes and mesh blocks; auto (default): detailed up to " STR(ELK_SIM_DETAILED_MAX) " cores"},
        {"block", 1, &block, NULL, "N\tfast mode on grids: block side in routers (default: auto)"},
        {"hbm-model", 1, &hbm_model, NULL,
         "M\tbroadcast: one broadcasting HBM controller (the paper's emulator); controllers: the chip's "
         "controllers with queues; chip (default): as the preset says"},
        {"bench", 1, &bench, NULL, "N\tsimulate N times and print the time per simulation (writes no trace)"},
        {"help", 0, NULL, &want_help, NULL},
        {NULL, 0, NULL, NULL, NULL},
    };
    const char *pos[1];
    int npos;
    int rc = elk_cli_parse(argc, argv, 2, &p, opts, pos, 0, &npos, "trace");
    if (rc) return rc;
    if (want_help) {
        help(opts);
        return 0;
    }
    if (!policy) {
        elk_cli_error("trace: --policy is required (basic, static, elk-dyn, elk-full or ideal)");
        return ELK_EXIT_USAGE;
    }
    int pol = elk_policy_find(policy);
    if (pol < 0) {
        elk_cli_error("trace: --policy %s: expected basic, static, elk-dyn, elk-full or ideal", policy);
        return ELK_EXIT_USAGE;
    }
    elk_sim_opts so;
    int reps = 0;
    if ((rc = sim_options(mode, block, hbm_model, bench, &so, &reps))) return rc;

    elk_error err;
    if (so.mode == ELK_SIM_DETAILED) {
        /* refused before planning, which alone takes seconds at millions of
         * cores (a point that does not resolve is reported below) */
        elk_chip c;
        elk_model mdl;
        if (elk_point_resolve(&p, &c, &mdl, &err) == ELK_OK && c.cores > ELK_SIM_DETAILED_LIMIT) {
            elk_cli_error("trace: --mode detailed: %d cores, at most %d (every link and port is simulated, and the "
                          "cost grows faster than the cores); use --mode fast or auto",
                          c.cores, ELK_SIM_DETAILED_LIMIT);
            return ELK_EXIT_USAGE;
        }
    }
    elk_plan_cache *pc;
    elk_problem pr;
    if (elk_cli_problem(&p, &pc, &pr)) return ELK_EXIT_FAIL;
    elk_sched_opts sco;
    elk_sched_opts_default(&sco);
    elk_schedule s;
    int ret = 0;
    if (elk_schedule_run(&pr, (elk_policy)pol, &sco, &s, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        elk_problem_free(&pr);
        elk_plan_cache_free(pc);
        return ELK_EXIT_FAIL;
    }
    if (reps > 0) ret = bench_sim(&pr, &s, &so, reps, pol);
    else ret = write_trace(&pr, &s, &so, pol, out);
    elk_schedule_free(&s);
    elk_problem_free(&pr);
    elk_plan_cache_free(pc);
    return ret;
}
