/* elk bench: time each stage of the pipeline on one design point, cold and
 * with a warm plan cache after an HBM or NoC bandwidth change; or, with
 * --cores-scan, a cold solve at each of a list of core counts, each in a
 * child process of its own so that its peak RSS is its own. Wall-clock; the
 * numbers in docs/PERFORMANCE.md come from here. */
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/* One cold solve in a child: returns 0 and its wall time, CPU time and
 * peak RSS, or -1 (its error on stderr). */
static int scan_point(const elk_point *p, double *wall, double *cpu, double *rss_mb, double *plans_ms)
{
    int fd[2];
    if (pipe(fd)) return -1;
    fflush(stdout);
    double t0 = now_ms();
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        close(fd[0]);
        elk_plan_cache *pc = elk_plan_cache_alloc();
        elk_error err;
        double tp, pol[ELK_POL_COUNT];
        int bad = !pc || solve(p, pc, &tp, pol, &err);
        if (bad && pc) fprintf(stderr, "elk: bench: %d cores: %s\n", p->cores, err.msg);
        elk_plan_cache_free(pc);
        if (!bad && write(fd[1], &tp, sizeof tp) != (ssize_t)sizeof tp) bad = 1;
        _exit(bad);
    }
    close(fd[1]);
    double tp = NAN;
    ssize_t got = read(fd[0], &tp, sizeof tp);
    close(fd[0]);
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) || got != (ssize_t)sizeof tp)
        return -1;
    *wall = now_ms() - t0;
    *cpu = ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3 + ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3;
    *rss_mb = ru.ru_maxrss / 1024.0;
    *plans_ms = tp;
    return 0;
}

/* The core-count scan: cold solves from 1k to 1M cores (or the list given),
 * medians of repeat runs, and the cost per 1k cores, which stays flat or
 * falls if the cost grows no faster than linearly. */
static int cores_scan(const elk_point *p0, const char *list, int repeat)
{
    static const char *deflt = "1000,2000,5000,10000,20000,50000,100000,200000,500000,1000000";
    if (!list) list = deflt;
    long cores[64];
    int n = 0;
    for (const char *s = list; *s && n < 64;) {
        char buf[32];
        size_t len = strcspn(s, ",");
        if (len == 0 || len >= sizeof buf) {
            elk_cli_error("bench: --scan-cores: expected a comma-separated list of core counts");
            return ELK_EXIT_USAGE;
        }
        memcpy(buf, s, len);
        buf[len] = 0;
        int rc = elk_cli_long("bench", "scan-cores", buf, 1, ELK_CHIP_CORES_MAX, &cores[n]);
        if (rc) return rc;
        n++;
        s += len;
        if (*s == ',') s++;
    }
    printf("elk bench --cores-scan: cold solve (plans, menus, five policies) in a fresh process, median of %d\n",
           repeat);
    printf("%10s %10s %10s %10s %10s %14s\n", "cores", "wall ms", "cpu ms", "plans ms", "peak MB", "wall ms/1k");
    double *w = calloc((size_t)repeat, sizeof *w), *cp = calloc((size_t)repeat, sizeof *cp),
           *r = calloc((size_t)repeat, sizeof *r), *pl = calloc((size_t)repeat, sizeof *pl);
    int rc = (w && cp && r && pl) ? 0 : ELK_EXIT_FAIL;
    for (int i = 0; i < n && !rc; i++) {
        elk_point q = *p0;
        q.cores = (int)cores[i];
        for (int k = 0; k < repeat && !rc; k++)
            if (scan_point(&q, &w[k], &cp[k], &r[k], &pl[k])) rc = ELK_EXIT_FAIL;
        if (rc) break;
        double mw = median(w, repeat);
        printf("%10ld %10.1f %10.1f %10.1f %10.1f %14.3f\n", cores[i], mw, median(cp, repeat), median(pl, repeat),
               median(r, repeat), mw / (cores[i] / 1000.0));
        fflush(stdout);
    }
    if (rc && w && cp && r && pl) elk_cli_error("bench: --cores-scan failed");
    free(w);
    free(cp);
    free(r);
    free(pl);
    return rc;
}

int elk_cmd_bench(int argc, char **argv)
{
    elk_point p;
    elk_point_defaults(&p);
    const char *repeat_s = NULL, *scan_list = NULL;
    int want_help = 0, scan = 0;
    elk_opt opts[] = {
        {"repeat", 1, &repeat_s, NULL, "N\trepeats to take the medians over (default 5; 1 with --cores-scan)"},
        {"cores-scan", 0, NULL, &scan, "cold solves at each core count of --scan-cores, each in its own process"},
        {"scan-cores", 1, &scan_list, NULL, "LIST\tcore counts for --cores-scan (default 1000,2000,...,1000000)"},
        {"help", 0, NULL, &want_help, NULL},
        {NULL, 0, NULL, NULL, NULL},
    };
    const char *pos[1];
    int npos;
    int rc = elk_cli_parse(argc, argv, 2, &p, opts, pos, 0, &npos, "bench");
    if (rc) return rc;
    if (want_help) {
        printf("usage: elk bench [--repeat N] [design-point options]\n"
               "       elk bench --cores-scan [--scan-cores LIST] [--repeat N] [design-point options]\n\n"
               "Times the pipeline on one design point: a cold start (empty plan cache:\n"
               "presets, graph, plan enumeration, menus, then each policy), and warm\n"
               "re-plans after an HBM-only and a NoC-only change (plan cache kept).\n"
               "Medians over N repeats (default 5); peak RSS of the process.\n\n"
               "--cores-scan: a cold solve at each core count of LIST (default 1000 to\n"
               "1000000), each in a process of its own: wall and CPU time, time in plan\n"
               "enumeration, peak RSS, and wall time per 1000 cores (flat or falling when\n"
               "the cost grows no faster than linearly). Medians over N repeats (default 1).\n\n");
        elk_cli_opts_help(stdout, opts);
        printf("\n");
        elk_cli_knob_help(stdout);
        return 0;
    }
    long repeat_l;
    if ((rc = elk_cli_long("bench", "repeat", repeat_s ? repeat_s : scan ? "1" : "5", 1, 1000, &repeat_l)))
        return rc;
    int repeat = (int)repeat_l;
    if (scan_list && !scan) {
        elk_cli_error("bench: --scan-cores needs --cores-scan");
        return ELK_EXIT_USAGE;
    }
    if (scan) return cores_scan(&p, scan_list, repeat);
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
