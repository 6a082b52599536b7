/* elk gap: how far Elk-Dyn's greedy choice of preload numbers is from the
 * best choice an exhaustive search finds (small graphs). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "elk_cli.h"
#include "elk_sched.h"

int elk_cmd_gap(int argc, char **argv)
{
    elk_point p;
    elk_point_defaults(&p);
    elk_point_set(&p, ELK_KNOB_MODEL, "tiny", NULL);
    const char *nodes_s = "2000000", *orders_s = NULL;
    int want_help = 0, plans = 0;
    elk_opt opts[] = {
        {"plans", 0, NULL, &plans, "also search every execute-state plan that fits"},
        {"orders", 1, &orders_s, NULL,
         "N\tsearch the preload order too: each of up to N of Elk-Full's candidate orders"},
        {"max-nodes", 1, &nodes_s, NULL, "N\tcap the search (default 2000000; with --orders, per order)"},
        {"help", 0, NULL, &want_help, NULL},
        {NULL, 0, NULL, NULL, NULL},
    };
    const char *pos[1];
    int npos;
    int rc = elk_cli_parse(argc, argv, 2, &p, opts, pos, 0, &npos, "gap");
    if (rc) return rc;
    if (want_help) {
        printf("usage: elk gap [--plans] [--orders N] [--max-nodes N] [design-point options]\n\n"
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
               "then bounds each order's search.\n\n");
        elk_cli_opts_help(stdout, opts);
        printf("\n");
        elk_cli_knob_help(stdout);
        return 0;
    }
    long max_nodes;
    if ((rc = elk_cli_long("gap", "max-nodes", nodes_s, 1, LONG_MAX, &max_nodes))) return rc;
    long max_orders = 0;
    if (orders_s && (rc = elk_cli_long("gap", "orders", orders_s, 1, 100000, &max_orders))) return rc;
    elk_error err;
    elk_plan_cache *pc;
    elk_problem pr;
    if (elk_cli_problem(&p, &pc, &pr)) return ELK_EXIT_FAIL;
    elk_sched_opts so;
    elk_sched_opts_default(&so);
    if (max_orders) {
        elk_gap_orders go;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        elk_status st = elk_schedule_exact_orders(&pr, &so, (int)max_orders, max_nodes, plans, &go, &err);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (st != ELK_OK) {
            elk_cli_error("%s", err.msg);
            elk_problem_free(&pr);
            elk_plan_cache_free(pc);
            return ELK_EXIT_FAIL;
        }
        double f = pr.chip.clock_ghz * 1e6;
        double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        printf("%s on %s, %d operators (%s, batch %d, seq %d)\n", pr.model.name, pr.chip.name, pr.graph.nops,
               elk_workload_names[pr.graph.workload], pr.graph.batch, pr.graph.seq);
        const char *what = plans ? "orders, preload numbers and plans" : "orders and preload numbers";
        char lab[64];
        if (go.adopted < 0) snprintf(lab, sizeof lab, "Elk-Full (its own order search)");
        else snprintf(lab, sizeof lab, "Elk-Full (kept %s's schedule)", elk_policy_labels[go.adopted]);
        printf("%-42s %10.4f ms\n", lab, go.heuristic / f);
        printf("best %-37s %10.4f ms (%s; %d orders, %ld nodes)\n", what, go.exact / f,
               go.complete ? "exhaustive in each order" : "some searches cut short: best found", go.orders,
               go.nodes);
        printf("optimality gap %28s %10.3f%%\n", "", 100 * (go.heuristic / go.exact - 1));
        if (go.best_order >= 0)
            printf("\nthe best schedule uses candidate order %d (mean displacement %.2f ops)\n", go.best_order,
                   go.best_edit);
        else
            printf("\nno order's exhaustive search beats Elk-Full\n");
        /* wall time is informative, not part of the answer: stderr */
        fprintf(stderr, "elk gap: %.2f s\n", secs);
        elk_problem_free(&pr);
        elk_plan_cache_free(pc);
        return 0;
    }
    elk_gap g;
    elk_schedule s;
    if (elk_schedule_exact(&pr, &so, max_nodes, plans, &g, &s, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        elk_problem_free(&pr);
        elk_plan_cache_free(pc);
        return ELK_EXIT_FAIL;
    }
    double f = pr.chip.clock_ghz * 1e6;
    printf("%s on %s, %d operators (%s, batch %d, seq %d)\n", pr.model.name, pr.chip.name, pr.graph.nops,
           elk_workload_names[pr.graph.workload], pr.graph.batch, pr.graph.seq);
    const char *what = plans ? "preload numbers and plans" : "preload numbers";
    printf("Elk-Dyn, greedy %-26s %10.4f ms\n", what, g.greedy / f);
    printf("best %-37s %10.4f ms (%s, %ld nodes)\n", what, g.exact / f,
           g.complete ? "exhaustive" : "search cut short: best found", g.nodes);
    printf("optimality gap %28s %10.3f%%\n", "", 100 * (g.greedy / g.exact - 1));
    int diff = 0;
    elk_schedule gr;
    if (elk_schedule_run(&pr, ELK_POL_DYN, &so, &gr, &err) == ELK_OK) {
        for (int i = 0; i < s.nops; i++)
            if (s.ops[i].preload_number != gr.ops[i].preload_number) {
                if (!diff++) printf("\noperators whose preload number differs (greedy -> best):\n");
                if (diff <= 20)
                    printf("  %-22s %d -> %d\n", pr.graph.ops[i].name, gr.ops[i].preload_number, s.ops[i].preload_number);
            }
        elk_schedule_free(&gr);
    }
    if (!diff) printf("\nthe best sequence makes the greedy's choices\n");
    elk_schedule_free(&s);
    elk_problem_free(&pr);
    elk_plan_cache_free(pc);
    return 0;
}
