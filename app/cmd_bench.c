/* elk bench: time each stage of the pipeline on one design point, cold and
 * with a warm plan cache after an HBM or NoC bandwidth change. Wall-clock,
 * single thread; the numbers in docs/PERFORMANCE.md come from here. */
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "elk_cli.h"
#include "elk_sched.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double median(double *v, int n)
{
    gsl_sort(v, 1, (size_t)n);
    return gsl_stats_median_from_sorted_data(v, 1, (size_t)n);
}

/* One full solve: problem (plans + menus) and all five policies. */
static int solve(const elk_point *p, elk_plan_cache *pc, double *t_problem, double *t_pol, elk_error *err)
{
    elk_problem pr;
    double t0 = now_ms();
    if (elk_problem_init(&pr, p, pc, err) != ELK_OK) return -1;
    *t_problem = now_ms() - t0;
    elk_sched_opts o;
    elk_sched_opts_default(&o);
    /* in elk_result_run's order, Elk-Full reusing Elk-Dyn's allocator price */
    static const elk_policy order[] = {ELK_POL_IDEAL, ELK_POL_BASIC, ELK_POL_STATIC, ELK_POL_DYN, ELK_POL_FULL};
    for (int k = 0; k < ELK_POL_COUNT; k++) {
        elk_schedule s;
        double t1 = now_ms();
        if (elk_schedule_run(&pr, order[k], &o, &s, err) != ELK_OK) {
            elk_problem_free(&pr);
            return -1;
        }
        t_pol[order[k]] = now_ms() - t1;
        if (order[k] == ELK_POL_DYN) o.price = s.static_variant;
        elk_schedule_free(&s);
    }
    elk_problem_free(&pr);
    return 0;
}

int elk_cmd_bench(int argc, char **argv)
{
    elk_point p;
    elk_point_defaults(&p);
    const char *repeat_s = "5";
    int want_help = 0;
    elk_opt opts[] = {
        {"repeat", 1, &repeat_s, NULL, "N\trepeats to take the medians over (default 5)"},
        {"help", 0, NULL, &want_help, NULL},
        {NULL, 0, NULL, NULL, NULL},
    };
    const char *pos[1];
    int npos;
    int rc = elk_cli_parse(argc, argv, 2, &p, opts, pos, 0, &npos, "bench");
    if (rc) return rc;
    if (want_help) {
        printf("usage: elk bench [--repeat N] [design-point options]\n\n"
               "Times the pipeline on one design point: a cold start (empty plan cache:\n"
               "presets, graph, plan enumeration, menus, then each policy), and warm\n"
               "re-plans after an HBM-only and a NoC-only change (plan cache kept).\n"
               "Medians over N repeats (default 5); peak RSS of the process.\n\n");
        elk_cli_opts_help(stdout, opts);
        printf("\n");
        elk_cli_knob_help(stdout);
        return 0;
    }
    long repeat_l;
    if ((rc = elk_cli_long("bench", "repeat", repeat_s, 1, 1000, &repeat_l))) return rc;
    int repeat = (int)repeat_l;
    elk_error err;
    elk_chip c;
    elk_model m;
    if (elk_point_resolve(&p, &c, &m, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        return ELK_EXIT_FAIL;
    }
    enum { COLD, WARM_HBM, WARM_NOC, NSC };
    static const char *names[NSC] = {"cold start", "warm, HBM changed", "warm, NoC changed"};
    double *tp[NSC], *tt[NSC], *tpol[NSC][ELK_POL_COUNT];
    for (int s = 0; s < NSC; s++) {
        tp[s] = calloc((size_t)repeat, sizeof(double));
        tt[s] = calloc((size_t)repeat, sizeof(double));
        for (int k = 0; k < ELK_POL_COUNT; k++) tpol[s][k] = calloc((size_t)repeat, sizeof(double));
    }
    int fail = 0;
    for (int r = 0; r < repeat && !fail; r++) {
        elk_plan_cache *pc = elk_plan_cache_alloc();
        for (int s = 0; s < NSC && !fail; s++) {
            elk_point q = p;
            if (s == WARM_HBM) q.hbm_tbps = c.hbm_tbps * 0.75;
            if (s == WARM_NOC) q.noc_scale = c.noc_scale * 1.25;
            double pol[ELK_POL_COUNT];
            double t0 = now_ms();
            if (solve(&q, pc, &tp[s][r], pol, &err)) fail = 1;
            tt[s][r] = now_ms() - t0;
            for (int k = 0; k < ELK_POL_COUNT; k++) tpol[s][k][r] = pol[k];
        }
        elk_plan_cache_free(pc);
    }
    if (fail) {
        elk_cli_error("%s", err.msg);
        return ELK_EXIT_FAIL;
    }
    printf("elk bench: %s on %s (%s, %d cores, %.4g TB/s HBM), %s B%d S%d, median of %d\n", m.name, c.name,
           elk_topology_names[c.topology], c.cores, c.hbm_tbps, elk_workload_names[p.workload], p.batch, p.seq,
           repeat);
    printf("%-20s %10s %10s", "scenario", "total ms", "plans ms");
    for (int k = 0; k < ELK_POL_COUNT; k++) printf(" %9s", elk_policy_labels[k]);
    printf("\n");
    for (int s = 0; s < NSC; s++) {
        printf("%-20s %10.1f %10.1f", names[s], median(tt[s], repeat), median(tp[s], repeat));
        for (int k = 0; k < ELK_POL_COUNT; k++) printf(" %9.1f", median(tpol[s][k], repeat));
        printf("\n");
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak RSS %.1f MB\n", ru.ru_maxrss / 1024.0);
    for (int s = 0; s < NSC; s++) {
        free(tp[s]);
        free(tt[s]);
        for (int k = 0; k < ELK_POL_COUNT; k++) free(tpol[s][k]);
    }
    return 0;
}
