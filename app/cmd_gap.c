/* elk gap: how far Elk-Dyn's greedy choice of preload numbers is from the
 * best choice an exhaustive search finds (small graphs), and with --bound
 * how far Elk-Full is from the realisable bound (core/elk_bound). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "elk_bound.h"
#include "elk_cli.h"
#include "elk_csv.h"
#include "elk_sched.h"

/* What one elk gap --bound report prints. Borrows everything; f converts
 * cycles to milliseconds. Invariant: r holds a bound (not ABOVE_CAP). */
typedef struct {
    const elk_problem *pr;
    const elk_bound_result *r;
    elk_bound_kind kind;
    double lf, ld; /* Elk-Full's and Elk-Dyn's latencies, cycles */
    double f;
    const char *prof;
    int times;
} bound_report;

static void bound_csv(FILE *fp, const bound_report *b)
{
    const elk_bound_result *r = b->r;
    double f = b->f;
    fprintf(fp, "model,chip,profile,ops,bound,status,pairs,rows,cols,binaries,ideal_ms,bound_ms,incumbent_ms,"
                "elk_full_ms,elk_dyn_ms,bound_over_ideal,full_over_ideal,full_over_bound,dyn_over_bound%s\n",
            b->times ? ",solve_s" : "");
    char line[2048];
    size_t len = 0;
    elk_csv_cat(line, sizeof line, &len, 1, b->pr->model.name);
    elk_csv_cat(line, sizeof line, &len, 0, b->pr->chip.name);
    elk_csv_cat(line, sizeof line, &len, 0, b->prof);
    elk_csv_cat_num(line, sizeof line, &len, 0, r->nops);
    elk_csv_cat(line, sizeof line, &len, 0, elk_bound_kind_names[b->kind]);
    elk_csv_cat(line, sizeof line, &len, 0, elk_bound_status_names[r->status]);
    elk_csv_cat_num(line, sizeof line, &len, 0, r->pairs);
    elk_csv_cat_num(line, sizeof line, &len, 0, r->rows);
    elk_csv_cat_num(line, sizeof line, &len, 0, r->cols);
    elk_csv_cat_num(line, sizeof line, &len, 0, r->ints);
    elk_csv_cat_num(line, sizeof line, &len, 0, r->ideal / f);
    elk_csv_cat_num(line, sizeof line, &len, 0, r->bound / f);
    if (isfinite(r->incumbent)) elk_csv_cat_num(line, sizeof line, &len, 0, r->incumbent / f);
    else elk_csv_cat(line, sizeof line, &len, 0, "");
    elk_csv_cat_num(line, sizeof line, &len, 0, b->lf / f);
    elk_csv_cat_num(line, sizeof line, &len, 0, b->ld / f);
    elk_csv_cat_num(line, sizeof line, &len, 0, r->bound / r->ideal);
    elk_csv_cat_num(line, sizeof line, &len, 0, b->lf / r->ideal);
    elk_csv_cat_num(line, sizeof line, &len, 0, b->lf / r->bound);
    elk_csv_cat_num(line, sizeof line, &len, 0, b->ld / r->bound);
    if (b->times) elk_csv_cat_num(line, sizeof line, &len, 0, r->solve_s);
    fprintf(fp, "%s\n", line);
}

/* The MILP's schedule, its first 40 operators: what the bound's model
 * would run, beside which Elk-Full's choices can be read. */
static void bound_schedule(FILE *fp, const bound_report *b)
{
    const elk_bound_result *r = b->r;
    fprintf(fp, "\nthe best schedule in the bound's model (cycles):\n");
    fprintf(fp, "  %-22s %12s %12s %12s %12s %5s %5s %4s\n", "operator", "pre_start", "pre_end", "exe_start",
            "exe_end", "plan", "cold", "pnum");
    for (int i = 0; i < r->nops && i < 40; i++) {
        const elk_bound_op *o = &r->ops[i];
        char ps[32] = "-", pe[32] = "-", co[16] = "-";
        if (o->pre_end > o->pre_start) {
            snprintf(ps, sizeof ps, "%.0f", o->pre_start);
            snprintf(pe, sizeof pe, "%.0f", o->pre_end);
        }
        if (o->copt >= 0) snprintf(co, sizeof co, "%d", o->copt);
        fprintf(fp, "  %-22s %12s %12s %12.0f %12.0f %5d %5s %4d\n", b->pr->graph.ops[i].name, ps, pe, o->exe_start,
                o->exe_end, o->entry, co, o->preload_number);
    }
    if (r->nops > 40) fprintf(fp, "  ... %d more\n", r->nops - 40);
}

static void bound_table(FILE *fp, const bound_report *b)
{
    const elk_problem *pr = b->pr;
    const elk_bound_result *r = b->r;
    elk_bound_kind kind = b->kind;
    double f = b->f, lf = b->lf, ld = b->ld;
    const char *kname = kind == ELK_BOUND_MILP ? "MILP" : kind == ELK_BOUND_LP ? "LP" : "Reach LP";
    fprintf(fp, "%s on %s, %d operators (%s, batch %d, seq %d), profile %s\n", pr->model.name, pr->chip.name,
            pr->graph.nops, elk_workload_names[pr->graph.workload], pr->graph.batch, pr->graph.seq, b->prof);
    fprintf(fp, "realisable bound: %s, %d plan/layout pairs, %d rows, %d columns (%d %s)\n\n", kname, r->pairs,
            r->rows, r->cols, r->ints, kind == ELK_BOUND_MILP ? "binary" : "relaxed");
    char lab[96];
    if (r->status == ELK_BOUND_OPTIMAL)
        snprintf(lab, sizeof lab, "%s bound (%s)", kname, kind == ELK_BOUND_MILP ? "optimum" : "relaxation");
    else snprintf(lab, sizeof lab, "%s bound (time limit: best proven)", kname);
    fprintf(fp, "%-36s %10s %9s %9s\n", "", "latency", "x Ideal", "x bound");
    fprintf(fp, "%-36s %7.4f ms %8.3fx\n", "Ideal (fluid flow shop)", r->ideal / f, 1.0);
    fprintf(fp, "%-36s %7.4f ms %8.3fx %8.3fx\n", lab, r->bound / f, r->bound / r->ideal, 1.0);
    if (kind == ELK_BOUND_MILP && r->status == ELK_BOUND_TIMELIMIT) {
        if (isfinite(r->incumbent))
            fprintf(fp, "%-36s %7.4f ms %8.3fx %8.3fx\n", "MILP best schedule found (time limit)", r->incumbent / f,
                    r->incumbent / r->ideal, r->incumbent / r->bound);
        else fprintf(fp, "%-36s %10s\n", "MILP best schedule found (time limit)", "none");
    }
    fprintf(fp, "%-36s %7.4f ms %8.3fx %8.3fx\n", "Elk-Full", lf / f, lf / r->ideal, lf / r->bound);
    fprintf(fp, "%-36s %7.4f ms %8.3fx %8.3fx\n", "Elk-Dyn", ld / f, ld / r->ideal, ld / r->bound);
    if (b->times) fprintf(fp, "\nGLPK solved it in %.2f s\n", r->solve_s);
    if (kind == ELK_BOUND_MILP && r->status == ELK_BOUND_OPTIMAL && r->ops) bound_schedule(fp, b);
}

/* elk gap --bound: Ideal, the bound, Elk-Full and Elk-Dyn with the ratios. */
static int run_bound(elk_problem *pr, const elk_sched_opts *so, elk_bound_kind kind, double tlim, int csv,
                     int times, const char *out)
{
    elk_error err;
    elk_schedule full, dyn;
    if (elk_schedule_run(pr, ELK_POL_FULL, so, &full, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        return ELK_EXIT_FAIL;
    }
    if (elk_schedule_run(pr, ELK_POL_DYN, so, &dyn, &err) != ELK_OK) {
        elk_schedule_free(&full);
        elk_cli_error("%s", err.msg);
        return ELK_EXIT_FAIL;
    }
    double lf = full.latency, ld = dyn.latency;
    elk_schedule_free(&full);
    elk_schedule_free(&dyn);
    elk_bound_opts bo;
    elk_bound_opts_default(&bo);
    bo.kind = kind;
    bo.time_limit_s = tlim;
    /* only schedules at least as fast as Elk-Full's matter: it tightens the
     * program, and Elk-Full's own schedule is one of the model's */
    bo.cap = lf * (1 + 1e-6) + 1;
    elk_bound_result r;
    if (elk_bound_solve(pr, so, &bo, &r, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        return ELK_EXIT_FAIL;
    }
    if (r.status == ELK_BOUND_ABOVE_CAP) {
        elk_cli_error("gap: the bound's model has no schedule as fast as Elk-Full's (%.0f cycles), which it "
                      "should contain: the model and the scheduler disagree",
                      lf);
        elk_bound_result_free(&r);
        return ELK_EXIT_FAIL;
    }
    char prof[128];
    elk_profile_format(pr->chip.profile, prof, sizeof prof);
    bound_report b = {pr, &r, kind, lf, ld, pr->chip.clock_ghz * 1e6, prof, times};
    elk_file fo;
    int rc = elk_cli_out_open(&fo, out);
    if (rc) {
        elk_bound_result_free(&r);
        return rc;
    }
    if (csv) bound_csv(fo.fp, &b);
    else bound_table(fo.fp, &b);
    elk_bound_result_free(&r);
    return elk_cli_out_close(&fo, 0);
}

static void gap_help(const elk_opt *opts)
{
    printf("usage: elk gap [--plans] [--orders N] [--max-nodes N] [design-point options]\n"
           "       elk gap --bound lp|milp|reach [--time-limit S] [--times] [--format table|csv] [-o FILE]\n"
           "               [design-point options]\n\n"
           "The optimality gap of Elk's inductive scheduling on a small graph: Elk-Dyn's\n"
           "greedy choice of each operator's preload number (latest start, backwards from\n"
           "the last operator) against the best sequence an exhaustive search finds, with\n"
           "every candidate timed and allocated exactly as Elk-Dyn does and pruned by a\n"
           "lower bound. With --plans the search also tries every execute-state plan that\n"
           "fits (the cost-aware allocator's choice), a much larger search.\n"
           "The default model is the teaching model 'tiny'; use --layers to\n"
           "keep larger models small. --max-nodes caps the search (default 2000000); the\n"
           "report says whether it was exhaustive.\n\n"
           "With --orders N the search covers the preload order too: for each of up to N of\n"
           "Elk-Full's candidate orders, the exhaustive search (of preload numbers, and with\n"
           "--plans of plans) in Elk-Full's model, against Elk-Full's own answer; --max-nodes\n"
           "then bounds each order's search.\n\n"
           "With --bound, Elk-Full and Elk-Dyn against Ideal and against a realisable bound:\n"
           "the best schedule under the real SRAM capacity, plan menus, preload layouts and\n"
           "serial preloads, as a mixed-integer program solved exactly by GLPK (milp; small\n"
           "graphs: a layer or two in a minute) or its LP relaxation (lp; the paper's\n"
           "models; reach: a smaller relaxation of it, with SRAM only through how far each\n"
           "operator can preload ahead, whole 70B models in seconds). The bound ignores\n"
           "the NoC's stretch of executions (docs/VALIDATION.md).\n"
           "--time-limit caps each GLPK solve (default 60 s); a MILP cut short reports its\n"
           "best proven bound and best schedule found, labelled so. --times adds GLPK's wall\n"
           "time (a line, or the CSV's solve_s column; it differs between runs).\n\n");
    elk_cli_opts_help(stdout, opts);
    printf("\n");
    elk_cli_knob_help(stdout);
}

/* elk gap's options, as typed and once checked. The strings point into
 * argv or at string literals; the checked fields are valid only after
 * gap_check returned 0. */
typedef struct {
    const char *nodes_s, *orders_s, *bound_s, *tlim_s, *fmt, *out;
    int want_help, plans, times;
    long max_nodes, max_orders; /* max_orders 0: no --orders */
    elk_bound_kind kind;
    double tlim;
    int csv;
} gap_args;

/* The options checked in the order their errors are reported; 0 or an
 * exit code. */
static int gap_check(gap_args *a)
{
    int rc;
    if ((rc = elk_cli_long("gap", "max-nodes", a->nodes_s, 1, LONG_MAX, &a->max_nodes))) return rc;
    a->max_orders = 0;
    if (a->orders_s && (rc = elk_cli_long("gap", "orders", a->orders_s, 1, 100000, &a->max_orders))) return rc;
    a->kind = ELK_BOUND_LP;
    a->tlim = 60;
    a->csv = 0;
    if (a->bound_s) {
        if (!strcmp(a->bound_s, "milp")) a->kind = ELK_BOUND_MILP;
        else if (!strcmp(a->bound_s, "reach")) a->kind = ELK_BOUND_REACH;
        else if (strcmp(a->bound_s, "lp")) {
            elk_cli_error("gap: --bound %s: expected lp, milp or reach", a->bound_s);
            return ELK_EXIT_USAGE;
        }
        if ((rc = elk_cli_double("gap", "time-limit", a->tlim_s, 0.001, 1e6, &a->tlim))) return rc;
        if ((rc = elk_cli_table_or_csv("gap", a->fmt, &a->csv))) return rc;
        if (a->plans || a->orders_s) {
            elk_cli_error("gap: --bound does not combine with --plans or --orders");
            return ELK_EXIT_USAGE;
        }
    } else if (strcmp(a->fmt, "table") || a->out || a->times) {
        elk_cli_error("gap: --format, --output and --times go with --bound");
        return ELK_EXIT_USAGE;
    }
    return 0;
}

/* elk gap --orders N: the exhaustive search in each of Elk-Full's
 * candidate orders against Elk-Full. */
static int run_orders(elk_problem *pr, const elk_sched_opts *so, const gap_args *a)
{
    elk_error err;
    elk_gap_orders go;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    elk_status st = elk_schedule_exact_orders(pr, so, (int)a->max_orders, a->max_nodes, a->plans, &go, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (st != ELK_OK) {
        elk_cli_error("%s", err.msg);
        return ELK_EXIT_FAIL;
    }
    double f = pr->chip.clock_ghz * 1e6;
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("%s on %s, %d operators (%s, batch %d, seq %d)\n", pr->model.name, pr->chip.name, pr->graph.nops,
           elk_workload_names[pr->graph.workload], pr->graph.batch, pr->graph.seq);
    const char *what = a->plans ? "orders, preload numbers and plans" : "orders and preload numbers";
    char lab[64];
    if (go.adopted < 0) snprintf(lab, sizeof lab, "Elk-Full (its own order search)");
    else snprintf(lab, sizeof lab, "Elk-Full (kept %s's schedule)", elk_policy_labels[go.adopted]);
    printf("%-42s %10.4f ms\n", lab, go.heuristic / f);
    printf("best %-37s %10.4f ms (%s; %d orders, %ld nodes)\n", what, go.exact / f,
           go.complete ? "exhaustive in each order" : "some searches cut short: best found", go.orders, go.nodes);
    printf("optimality gap %28s %10.3f%%\n", "", 100 * (go.heuristic / go.exact - 1));
    if (go.best_order >= 0)
        printf("\nthe best schedule uses candidate order %d (mean displacement %.2f ops)\n", go.best_order,
               go.best_edit);
    else
        printf("\nno order's exhaustive search beats Elk-Full\n");
    /* wall time is informative, not part of the answer: stderr */
    fprintf(stderr, "elk gap: %.2f s\n", secs);
    return 0;
}

/* elk gap: Elk-Dyn's greedy preload numbers against the exhaustive
 * search's, and the operators where they differ. */
static int run_exact(elk_problem *pr, const elk_sched_opts *so, const gap_args *a)
{
    elk_error err;
    elk_gap g;
    elk_schedule s;
    if (elk_schedule_exact(pr, so, a->max_nodes, a->plans, &g, &s, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        return ELK_EXIT_FAIL;
    }
    double f = pr->chip.clock_ghz * 1e6;
    printf("%s on %s, %d operators (%s, batch %d, seq %d)\n", pr->model.name, pr->chip.name, pr->graph.nops,
           elk_workload_names[pr->graph.workload], pr->graph.batch, pr->graph.seq);
    const char *what = a->plans ? "preload numbers and plans" : "preload numbers";
    printf("Elk-Dyn, greedy %-26s %10.4f ms\n", what, g.greedy / f);
    printf("best %-37s %10.4f ms (%s, %ld nodes)\n", what, g.exact / f,
           g.complete ? "exhaustive" : "search cut short: best found", g.nodes);
    printf("optimality gap %28s %10.3f%%\n", "", 100 * (g.greedy / g.exact - 1));
    int diff = 0;
    elk_schedule gr;
    if (elk_schedule_run(pr, ELK_POL_DYN, so, &gr, &err) == ELK_OK) {
        for (int i = 0; i < s.nops; i++)
            if (s.ops[i].preload_number != gr.ops[i].preload_number) {
                if (!diff++) printf("\noperators whose preload number differs (greedy -> best):\n");
                if (diff <= 20)
                    printf("  %-22s %d -> %d\n", pr->graph.ops[i].name, gr.ops[i].preload_number, s.ops[i].preload_number);
            }
        elk_schedule_free(&gr);
    }
    if (!diff) printf("\nthe best sequence makes the greedy's choices\n");
    elk_schedule_free(&s);
    return 0;
}

int elk_cmd_gap(int argc, char **argv)
{
    elk_point p;
    elk_point_defaults(&p);
    elk_point_set(&p, ELK_KNOB_MODEL, "tiny", NULL);
    gap_args a = {.nodes_s = "2000000", .tlim_s = "60", .fmt = "table"};
    elk_opt opts[] = {
        {"bound", 1, &a.bound_s, NULL, "KIND\tmilp, lp or reach: Elk-Full against a realisable bound"},
        {"times", 0, NULL, &a.times, "add GLPK's wall time (it differs between runs)"},
        {"time-limit", 1, &a.tlim_s, NULL, "S\tcap each GLPK solve (default 60 s)"},
        {"format", 1, &a.fmt, NULL, "F\ttable | csv (with --bound)"},
        {"output", 1, &a.out, NULL, "FILE\twrite there instead of stdout (with --bound)"},
        {"plans", 0, NULL, &a.plans, "also search every execute-state plan that fits"},
        {"orders", 1, &a.orders_s, NULL,
         "N\tsearch the preload order too: each of up to N of Elk-Full's candidate orders"},
        {"max-nodes", 1, &a.nodes_s, NULL, "N\tcap the search (default 2000000; with --orders, per order)"},
        {"help", 0, NULL, &a.want_help, NULL},
        {NULL, 0, NULL, NULL, NULL},
    };
    const char *pos[1];
    int npos;
    int rc = elk_cli_parse(argc, argv, 2, &p, opts, pos, 0, &npos, "gap");
    if (rc) return rc;
    if (a.want_help) {
        gap_help(opts);
        return 0;
    }
    if ((rc = gap_check(&a))) return rc;
    elk_plan_cache *pc;
    elk_problem pr;
    if (elk_cli_problem(&p, &pc, &pr)) return ELK_EXIT_FAIL;
    elk_sched_opts so;
    elk_sched_opts_default(&so);
    if (a.bound_s) rc = run_bound(&pr, &so, a.kind, a.tlim, a.csv, a.times, a.out);
    else if (a.max_orders) rc = run_orders(&pr, &so, &a);
    else rc = run_exact(&pr, &so, &a);
    elk_problem_free(&pr);
    elk_plan_cache_free(pc);
    return rc;
}
