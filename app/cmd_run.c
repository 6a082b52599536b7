/* elk run: plan one design point with every policy (or one) and report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elk_cli.h"
#include "elk_report.h"
#include "elk_sched.h"
#include "elk_sim.h"

static void help(const elk_opt *opts)
{
    printf("usage: elk run [--policy P] [--format table|csv|json] [--ops] [--sim] [design-point options]\n\n"
           "Plans one design point with the five scheduling policies (Basic, Static, Elk-Dyn,\n"
           "Elk-Full, Ideal) and prints per-token latency, %% of Ideal, the latency breakdown,\n"
           "HBM and NoC utilisation and TFLOPS. --policy limits it to one policy (Ideal is\n"
           "always computed for %% of Ideal). --ops adds the per-operator schedule.\n"
           "--sim replays each policy's schedule in the event simulator (HBM controllers,\n"
           "NoC links, contention) and shows the planner's estimate beside the result.\n\n");
    elk_cli_opts_help(stdout, opts);
    printf("\n");
    elk_cli_knob_help(stdout);
}

/* --allocator, --max-disp and --heavy-factor into so; prints the error. */
static int policy_params(const char *alloc, const char *max_disp, const char *heavy, elk_sched_opts *so)
{
    if (alloc) {
        if (!strcmp(alloc, "paper")) so->alloc = ELK_ALLOC_PAPER;
        else if (!strcmp(alloc, "artifact")) so->alloc = ELK_ALLOC_ARTIFACT;
        else {
            elk_cli_error("run: --allocator %s: expected paper or artifact", alloc);
            return ELK_EXIT_USAGE;
        }
    }
    if (max_disp) {
        long v;
        if (elk_parse_long(max_disp, 0, 16, &v)) {
            elk_cli_error("run: --max-disp %s: expected an integer 0 .. 16", max_disp);
            return ELK_EXIT_USAGE;
        }
        so->max_disp = (int)v;
    }
    if (heavy) {
        char *end;
        double v = strtod(heavy, &end);
        if (!*heavy || *end || !(v >= 0 && v <= 1000)) {
            elk_cli_error("run: --heavy-factor %s: expected a number 0 .. 1000", heavy);
            return ELK_EXIT_USAGE;
        }
        so->heavy_factor = v;
    }
    return 0;
}

/* --sim: replay each policy's schedule and print the simulated beside the
 * estimate, as a table (fmt 0) or CSV. */
static int report_sim(const elk_problem *pr, const elk_result *res, int fmt)
{
    elk_error err;
    elk_sim_result simr[ELK_POL_COUNT];
    memset(simr, 0, sizeof simr);
    elk_sim_opts sop;
    elk_sim_opts_default(&sop);
    int bad = 0;
    for (int k = 0; k < ELK_POL_COUNT && !bad; k++)
        if (res->have[k] && elk_sim_run(pr, &res->pol[k], &sop, &simr[k], &err) != ELK_OK) bad = 1;
    if (bad) elk_cli_error("%s", err.msg);
    else if (fmt == 0) elk_report_sim_table(stdout, pr, res, simr);
    else {
        elk_report_sim_csv_header(stdout);
        elk_report_sim_csv_rows(stdout, pr, res, simr);
    }
    for (int k = 0; k < ELK_POL_COUNT; k++) elk_sim_result_free(&simr[k]);
    return bad ? ELK_EXIT_FAIL : 0;
}

/* The estimates as a table (fmt 0, with --ops each policy's operators),
 * CSV (1) or JSON (2). */
static void report(const elk_problem *pr, const elk_result *res, int fmt, int per_op)
{
    if (fmt == 0) {
        elk_report_table(stdout, pr, res);
        if (per_op)
            for (int k = 0; k < ELK_POL_COUNT; k++)
                if (res->have[k]) {
                    printf("\n%s:\n", elk_policy_labels[k]);
                    elk_report_ops(stdout, pr, &res->pol[k]);
                }
    } else if (fmt == 1) {
        elk_report_csv_header(stdout);
        elk_report_csv_rows(stdout, pr, res);
    } else {
        elk_report_json(stdout, pr, res, per_op);
    }
}

int elk_cmd_run(int argc, char **argv)
{
    elk_point p;
    elk_point_defaults(&p);
    const char *format = "table", *policy = NULL, *alloc = NULL, *max_disp = NULL, *heavy = NULL;
    int want_help = 0, per_op = 0, sim = 0;
    elk_opt opts[] = {
        {"policy", 1, &policy, NULL, "P\tonly policy P (Ideal is still computed, for % of Ideal)"},
        {"format", 1, &format, NULL, "F\ttable (default), csv or json"},
        {"ops", 0, NULL, &per_op, "add each policy's per-operator schedule (table and JSON)"},
        {"sim", 0, NULL, &sim, "replay each policy's schedule in the event simulator (table or CSV)"},
        {"allocator", 1, &alloc, NULL,
         "paper|artifact\tElk's memory allocation: the paper's cost-aware greedy (default) or the artifact's "
         "charge of preloads at their fully distributed size"},
        {"max-disp", 1, &max_disp, NULL, "N\tElk-Full: most layer groups a preload moves (default 4)"},
        {"heavy-factor", 1, &heavy, NULL,
         "X\tElk-Full: HBM-heavy = above X times the average operator's HBM bytes (default 1)"},
        {"help", 0, NULL, &want_help, NULL},
        {NULL, 0, NULL, NULL, NULL},
    };
    const char *pos[1];
    int npos;
    int first = argc >= 2 && !strcmp(argv[1], "run") ? 2 : 1;
    int rc = elk_cli_parse(argc, argv, first, &p, opts, pos, 0, &npos, "run");
    if (rc) return rc;
    if (want_help) {
        help(opts);
        return 0;
    }
    int fmt = !strcmp(format, "table") ? 0 : !strcmp(format, "csv") ? 1 : !strcmp(format, "json") ? 2 : -1;
    if (fmt < 0) {
        elk_cli_error("run: --format %s: expected table, csv or json", format);
        return ELK_EXIT_USAGE;
    }
    unsigned mask = (1u << ELK_POL_COUNT) - 1;
    int focus = -1;
    if (policy) {
        focus = elk_policy_find(policy);
        if (focus < 0) {
            elk_cli_error("run: --policy %s: expected basic, static, elk-dyn, elk-full or ideal", policy);
            return ELK_EXIT_USAGE;
        }
        mask = (1u << focus) | (1u << ELK_POL_IDEAL);
    }
    elk_error err;
    elk_plan_cache *pc;
    elk_problem pr;
    if (elk_cli_problem(&p, &pc, &pr)) return ELK_EXIT_FAIL;
    elk_sched_opts so;
    elk_sched_opts_default(&so);
    if ((rc = policy_params(alloc, max_disp, heavy, &so))) {
        elk_problem_free(&pr);
        elk_plan_cache_free(pc);
        return rc;
    }
    elk_result res;
    if (elk_result_run(&pr, &so, mask, &res, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        elk_problem_free(&pr);
        elk_plan_cache_free(pc);
        return ELK_EXIT_FAIL;
    }
    if (sim && fmt == 2) {
        elk_cli_error("run: --sim prints a table or CSV, not JSON (use elk trace for the timeline)");
        rc = ELK_EXIT_USAGE;
    } else if (sim) {
        rc = report_sim(&pr, &res, fmt);
    } else {
        if (focus >= 0 && focus != ELK_POL_IDEAL && fmt != 2) {
            /* show only the asked policy, but keep % of Ideal */
            elk_schedule_free(&res.pol[ELK_POL_IDEAL]);
            res.have[ELK_POL_IDEAL] = 0;
        }
        report(&pr, &res, fmt, per_op);
    }
    elk_result_free(&res);
    elk_problem_free(&pr);
    elk_plan_cache_free(pc);
    return rc;
}
