/* elk controllers: "one broadcasting core is not a real HBM; what do N
 * controllers change?" (issue 14, item 3; a reviewer's question). For each
 * topology and HBM bandwidth: the paper's emulated HBM (one controller that
 * broadcasts) against 4, 8 and 16 independent controllers on the grid's
 * edges; the policy planned for each and its schedule replayed in the event
 * simulator, which models the controllers' queues and the links their
 * traffic crosses. The planner's estimate is printed beside it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elk_cli.h"
#include "elk_csv.h"
#include "elk_file.h"
#include "elk_sched.h"
#include "elk_sim.h"

#define MAXV 8

static int parse_list(const char *cmd, const char *opt, const char *s, double lo, double hi, double *v, int *n)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    *n = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (*n == MAXV) {
            elk_cli_error("%s: --%s: at most %d values", cmd, opt, MAXV);
            return ELK_EXIT_USAGE;
        }
        int rc = elk_cli_double(cmd, opt, t, lo, hi, &v[*n]);
        if (rc) return rc;
        (*n)++;
    }
    if (!*n) {
        elk_cli_error("%s: --%s %s: expected a comma list", cmd, opt, s);
        return ELK_EXIT_USAGE;
    }
    return 0;
}

/* One row: the table's (with its header before the first) or the CSV's.
 * base is the first controller count's simulated latency. */
static void print_row(FILE *fp, int csv, int first, const elk_problem *pr, elk_policy pol, double hbm, int n,
                      const elk_schedule *s, const elk_sim_result *r, double base)
{
    char prof[96];
    elk_profile_format(pr->chip.profile, prof, sizeof prof);
    if (csv) {
        if (first)
            fprintf(fp, "model,chip,profile,policy,topology,hbm_tbps,controllers,broadcast,"
                        "estimate_ms,simulated_ms,vs_first,noc_util,link_max\n");
        char line[512];
        size_t len = 0;
        elk_csv_cat(line, sizeof line, &len, 1, pr->model.name);
        elk_csv_cat(line, sizeof line, &len, 0, pr->chip.name);
        elk_csv_cat(line, sizeof line, &len, 0, prof);
        elk_csv_cat(line, sizeof line, &len, 0, elk_policy_names[pol]);
        elk_csv_cat(line, sizeof line, &len, 0, elk_topology_names[pr->chip.topology]);
        elk_csv_cat_num(line, sizeof line, &len, 0, hbm);
        elk_csv_cat_num(line, sizeof line, &len, 0, n);
        elk_csv_cat_num(line, sizeof line, &len, 0, n == 1);
        elk_csv_cat_num(line, sizeof line, &len, 0, s->latency_ms);
        elk_csv_cat_num(line, sizeof line, &len, 0, r->latency_ms);
        elk_csv_cat_num(line, sizeof line, &len, 0, r->latency_ms / base);
        elk_csv_cat_num(line, sizeof line, &len, 0, r->noc_util);
        elk_csv_cat_num(line, sizeof line, &len, 0, r->grid ? r->link_max : NAN);
        fprintf(fp, "%s\n", line);
        return;
    }
    if (first)
        fprintf(fp, "%s on %s (%s cost profile), %s: 1 = one broadcasting controller\n\n"
                    "%-10s %6s %5s %11s %12s %9s %7s %9s\n",
                pr->model.name, pr->chip.name, prof, elk_policy_labels[pol], "topology", "HBM", "ctrl", "estimate",
                "simulated", "vs 1", "NoC%", "hot link");
    char hl[16] = "-";
    if (r->grid) snprintf(hl, sizeof hl, "%.1f%%", 100 * r->link_max);
    fprintf(fp, "%-10s %6g %5d %8.3f ms %9.3f ms %+8.1f%% %6.1f%% %9s\n", elk_topology_names[pr->chip.topology], hbm,
            n, s->latency_ms, r->latency_ms, 100 * (r->latency_ms / base - 1), 100 * r->noc_util, hl);
}

/* The point on topology topo with HBM bandwidth hbm and n controllers (1:
 * one broadcasting), planned, replayed and printed; the first count of the
 * list (is_base) sets *base. */
static int one_point(FILE *fp, elk_plan_cache *pc, const elk_point *p, const char *topo, double hbm, int n,
                     int is_base, elk_policy pol, int csv, int *first, double *base)
{
    elk_error err;
    elk_point q = *p;
    char nb[16];
    snprintf(nb, sizeof nb, "%d", n);
    if (elk_point_set(&q, ELK_KNOB_TOPOLOGY, topo, &err) != ELK_OK ||
        elk_point_set_num(&q, ELK_KNOB_HBM_TBPS, hbm, &err) != ELK_OK ||
        elk_point_set(&q, ELK_KNOB_HBM_CONTROLLERS, nb, &err) != ELK_OK ||
        elk_point_set(&q, ELK_KNOB_HBM_BROADCAST, n == 1 ? "1" : "0", &err) != ELK_OK) {
        elk_cli_error("controllers: %s", err.msg);
        return ELK_EXIT_USAGE;
    }
    elk_problem pr;
    if (elk_problem_init(&pr, &q, pc, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        return ELK_EXIT_FAIL;
    }
    int rc = 0;
    elk_sched_opts so;
    elk_sched_opts_default(&so);
    elk_schedule s;
    elk_sim_result r;
    elk_sim_opts sim;
    elk_sim_opts_default(&sim);
    sim.hbm_broadcast = n == 1;
    if (elk_schedule_run(&pr, pol, &so, &s, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        rc = ELK_EXIT_FAIL;
    } else {
        if (elk_sim_run(&pr, &s, &sim, &r, &err) != ELK_OK) {
            elk_cli_error("%s", err.msg);
            rc = ELK_EXIT_FAIL;
        } else {
            if (is_base) *base = r.latency_ms;
            print_row(fp, csv, *first, &pr, pol, hbm, n, &s, &r, *base);
            *first = 0;
            elk_sim_result_free(&r);
        }
        elk_schedule_free(&s);
    }
    elk_problem_free(&pr);
    return rc;
}

int elk_cmd_controllers(int argc, char **argv)
{
    elk_point p;
    elk_point_defaults(&p);
    const char *topo_s = "all-to-all,mesh,torus", *hbm_s = "4,8,16", *ctrl_s = "1,4,8,16", *pol_s = "elk-full",
               *fmt = "table", *out = NULL;
    int want_help = 0;
    elk_opt opts[] = {
        {"topologies", 1, &topo_s, NULL, "LIST\tdefault all-to-all,mesh,torus"},
        {"hbm", 1, &hbm_s, NULL, "LIST\tHBM bandwidths, TB/s (default 4,8,16)"},
        {"controllers", 1, &ctrl_s, NULL, "LIST\t1 means one broadcasting controller (default 1,4,8,16)"},
        {"policy", 1, &pol_s, NULL, "P\tdefault elk-full"},
        {"format", 1, &fmt, NULL, "F\ttable (default) or csv"},
        {"output", 1, &out, NULL, "FILE\twrite there (atomically) instead of standard output"},
        {"help", 0, NULL, &want_help, NULL},
        {NULL, 0, NULL, NULL, NULL},
    };
    const char *pos[1];
    int npos;
    int rc = elk_cli_parse(argc, argv, 2, &p, opts, pos, 0, &npos, "controllers");
    if (rc) return rc;
    if (want_help) {
        printf("usage: elk controllers [--topologies LIST] [--hbm LIST] [--controllers LIST] [--policy P]\n"
               "                       [--format table|csv] [-o FILE] [design-point options]\n\n"
               "What do N HBM controllers change against the paper's one broadcasting HBM? For\n"
               "each topology and HBM bandwidth (TB/s), the policy is planned with 1\n"
               "broadcasting controller and with N independent ones on the grid's edges, and\n"
               "its schedule is replayed in the event simulator (controller queues, shared\n"
               "links): simulated latency, NoC utilisation and the busiest grid link, beside\n"
               "the planner's estimate.\n\n");
        elk_cli_opts_help(stdout, opts);
        printf("\n");
        elk_cli_knob_help(stdout);
        return 0;
    }
    elk_policy pol;
    int csv;
    if ((rc = elk_cli_policy("controllers", pol_s, &pol)) || (rc = elk_cli_table_or_csv("controllers", fmt, &csv)))
        return rc;
    double hbm[MAXV], ctrl[MAXV];
    int nh, nc;
    if ((rc = parse_list("controllers", "hbm", hbm_s, 0.001, 1000, hbm, &nh))) return rc;
    if ((rc = parse_list("controllers", "controllers", ctrl_s, 1, 4096, ctrl, &nc))) return rc;
    char topos[MAXV][32];
    int nt = 0;
    {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", topo_s);
        char *save = NULL;
        for (char *t = strtok_r(buf, ",", &save); t && nt < MAXV; t = strtok_r(NULL, ",", &save))
            snprintf(topos[nt++], sizeof topos[0], "%s", t);
    }
    elk_file f;
    if ((rc = elk_cli_out_open(&f, out))) return rc;
    FILE *fp = f.fp;
    elk_plan_cache *pc = elk_plan_cache_alloc();
    if (!pc) {
        elk_file_abort(&f);
        elk_cli_error("out of memory");
        return ELK_EXIT_FAIL;
    }
    int first = 1;
    for (int t = 0; t < nt && !rc; t++)
        for (int h = 0; h < nh && !rc; h++) {
            double base = NAN;
            for (int k = 0; k < nc && !rc; k++)
                rc = one_point(fp, pc, &p, topos[t], hbm[h], (int)ctrl[k], k == 0, pol, csv, &first, &base);
        }
    elk_plan_cache_free(pc);
    return elk_cli_out_close(&f, rc);
}
