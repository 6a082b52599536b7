/* elk check: draw seeded random design points, check every invariant of the
 * model on each (core/elk_check.c) and print each violation with the elk
 * run line(s) that reproduce it. Points are evaluated on --jobs threads and
 * printed in point order, so stdout is the same for any number of threads;
 * the wall time goes to stderr. */
#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "elk_check.h"
#include "elk_cli.h"
#include "elk_thread.h"

/* The work shared by the threads: the read-only space and seed, the next
 * point to take and the results, each written by the one thread that
 * evaluates it. Owns results (n entries) and done. Guarded by mu. */
typedef struct {
    const elk_check_space *sp;
    unsigned long seed;
    const char *profile;      /* --profile: forced on every point, or NULL */
    int first;                /* --first: the index of results[0]'s point */
    int n;
    int next;
    int failed;               /* a point could not be evaluated (out of memory) */
    elk_check_result *results;
    char *done;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} work;

static void *worker(void *arg)
{
    work *w = arg;
    for (;;) {
        pthread_mutex_lock(&w->mu);
        int k = w->next < w->n ? w->next++ : -1;
        pthread_mutex_unlock(&w->mu);
        if (k < 0) return NULL;
        elk_check_args a;
        elk_check_draw(w->sp, w->seed, w->first + k, &a);
        if (w->profile) elk_check_args_set(&a, ELK_KNOB_PROFILE, w->profile);
        elk_status st = elk_check_eval(w->sp, &a, w->first + k, &w->results[k]);
        pthread_mutex_lock(&w->mu);
        if (st != ELK_OK) w->failed = 1;
        w->done[k] = 1;
        pthread_cond_broadcast(&w->cv);
        pthread_mutex_unlock(&w->mu);
    }
}

static void help(const elk_opt *opts)
{
    printf("usage: elk check [--points N] [--first K] [--seed S] [--jobs J] [--profile P] [--gate LIST] [--strict] "
           "[-v|--verbose]\n\n"
           "Draws N random design points (every chip and model preset, every topology,\n"
           "decode, prefill and train-fwd, and the knobs over their ranges; point k depends\n"
           "only on the seed and k) and checks every invariant of the model on each: the\n"
           "policies' estimates, their intervals, the event simulation and metamorphic\n"
           "pairs (a resource or the core count raised by 25%%, more links, batch or\n"
           "layers doubled). Each violation is printed with the elk run line(s) that\n"
           "reproduce it. A point some operator of which has no partition plan\n"
           "(ELK_ENOPLAN) is skipped and counted. Output is the same for any --jobs; the\n"
           "wall time goes to stderr.\n\n"
           "Pairs. Ideal is a bound: slower with more of a resource is a violation. For\n"
           "Elk-Full the gated invariant is the carried one, what a series that carries\n"
           "its schedules gives (elk sweep): the fastest of its own schedule at the\n"
           "larger point, the smaller point's schedule re-timed there and, where the\n"
           "larger point has more of every resource, the smaller point's timeline held\n"
           "(each transfer capped at its rate there: re-timing freely can itself lose in\n"
           "the flow model, docs/VALIDATION.md) must be no slower than the smaller\n"
           "point; across topologies, where no timeline is held, within %g%% on meshes,\n"
           "tori and rings and %g%% on all-to-all. A pointwise Elk-Full inversion that\n"
           "holds it is not a violation but is printed and counted by class:\n",
           100 * ELK_CHECK_CARRY_TOL_GRID, 100 * ELK_CHECK_CARRY_TOL_A2A);
    for (int k = 0; k < ELK_CHECK_CLASS_COUNT; k++)
        printf("  %-7s %s\n", elk_check_class_names[k], elk_check_class_help[k]);
    printf("and by cause: 'graph' (the cut search chose another operator graph at the\n"
           "slower point), 'adopted' (Elk-Full kept a fixed algorithm's schedule there)\n"
           "or 'search' (its own order search). --strict fails on those classes too. The\n"
           "fixed algorithms' inversions are warnings. Both cost profiles are classified\n"
           "alike; at a paper-profile point only a fixed algorithm's re-timing, a\n"
           "simulation invariant's violation or the batch pair that one artifact rule,\n"
           "turned off alone, undoes is printed as an EXCEPTION naming the rule\n"
           "(docs/VALIDATION.md).\n\n");
    elk_cli_opts_help(stdout, opts);
    printf("\nExit status: 0 no violation (of the gated invariants), 1 a violation (or an\n"
           "error), 2 bad usage.\n\n"
           "invariants:\n");
    for (int i = 0; i < ELK_CHECK_COUNT; i++)
        printf("  %-18s %s\n", elk_check_invariants[i].name, elk_check_invariants[i].desc);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The counts over every point, summed in point order as the points come. */
typedef struct {
    long viol[ELK_CHECK_COUNT], checks[ELK_CHECK_COUNT];
    long warn[ELK_CHECK_COUNT][ELK_POL_COUNT];
    long exc[ELK_CHECK_COUNT][ELK_PSW_COUNT]; /* violations an artifact rule explains */
    long cause[ELK_CHECK_CAUSE_COUNT];         /* Elk-Full pointwise inversions by cause */
    long klass[ELK_CHECK_CLASS_COUNT];         /* classified Elk-Full inversions */
    double klass_max[ELK_CHECK_CLASS_COUNT];   /* their largest ratio */
    long ideal_cores;                          /* classified Ideal inversions (cores only) */
    double ideal_cores_max;
    long unclassified;                         /* Elk-Full pair inversions that are violations */
    long skipped, bad_points, pairs_run, pairs_skipped;
} tally;

static void print_point(const elk_check_result *r, int verbose, tally *t)
{
    char line[400];
    elk_check_args_line(&r->args, line, sizeof line);
    int nv = 0;
    for (int i = 0; i < r->nviol; i++) {
        const elk_check_violation *v = &r->viol[i];
        if (v->warning) {
            if (v->policy >= 0) t->warn[v->inv][v->policy]++;
            if (verbose) printf("  warning %s point %d: %s\n", elk_check_invariants[v->inv].name, r->index, v->msg);
            continue;
        }
        if (v->cause >= 0) t->cause[v->cause]++;
        if (v->klass >= 0 && v->policy != ELK_POL_FULL) {
            /* Ideal on a chip whose plans are fixed by its cores */
            t->ideal_cores++;
            if (v->ratio > t->ideal_cores_max) t->ideal_cores_max = v->ratio;
            continue;
        }
        if (v->klass >= 0) {
            t->klass[v->klass]++;
            if (v->ratio > t->klass_max[v->klass]) t->klass_max[v->klass] = v->ratio;
            continue;
        }
        if (v->rule >= 0) {
            t->exc[v->inv][v->rule]++;
            continue;
        }
        nv++;
        t->viol[v->inv]++;
        if (v->cause >= 0) t->unclassified++;
    }
    if (verbose) {
        if (r->skipped) printf("point %d: skipped (%s)\n  %s\n", r->index, r->skip_reason, line);
        else printf("point %d: %d ops, Ideal %.4f ms, Elk-Full %.4f ms, %d violation%s\n  %s\n", r->index, r->nops,
                    r->ideal_ms, r->full_ms, nv, nv == 1 ? "" : "s", line);
    }
    for (int i = 0; i < r->nviol; i++) {
        const elk_check_violation *v = &r->viol[i];
        if (v->warning) continue;
        if (v->klass >= 0) {
            char tag[16]; /* the class's name in capitals: MISSED, RETIME, CORES */
            snprintf(tag, sizeof tag, "%s", elk_check_class_names[v->klass]);
            for (char *c = tag; *c; c++) *c = (char)toupper((unsigned char)*c);
            printf("%s %s, point %d: %s\n  %s\n", tag, elk_check_invariants[v->inv].name, r->index, v->msg,
                   v->repro[0]);
        }
        else if (v->rule >= 0)
            printf("EXCEPTION %s (artifact rule '%s' of the cost profile; %s), point %d: %s\n  %s\n",
                   elk_check_invariants[v->inv].name, elk_profile_switch_names[v->rule],
                   v->rule == ELK_PSW_MESHSCALAR ? "a scalar, not the network the simulator replays" : "gone with it off",
                   r->index, v->msg, v->repro[0]);
        else
            printf("VIOLATION %s, point %d: %s\n  %s\n", elk_check_invariants[v->inv].name, r->index, v->msg,
                   v->repro[0]);
        if (v->repro[1][0]) printf("  %s\n", v->repro[1]);
    }
}

/* --gate LIST into gated[] (all when NULL); prints the error. */
static int parse_gate(const char *gate_s, int *gated)
{
    for (int i = 0; i < ELK_CHECK_COUNT; i++) gated[i] = gate_s == NULL && !(ELK_CHECK_UNGATED_DEFAULT & (1u << i));
    if (!gate_s) return 0;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", gate_s);
    if (strspn(buf, ",") == strlen(buf)) {
        elk_cli_error("check: --gate '%s': expected a comma-separated list of invariants (see elk check --help)",
                      gate_s);
        return ELK_EXIT_USAGE;
    }
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int found = -1;
        for (int i = 0; i < ELK_CHECK_COUNT; i++)
            if (!strcmp(tok, elk_check_invariants[i].name)) found = i;
        if (found < 0) {
            elk_cli_error("check: --gate: '%s' is not an invariant (see elk check --help)", tok);
            return ELK_EXIT_USAGE;
        }
        gated[found] = 1;
    }
    return 0;
}


/* Print each point as soon as it and every point before it are done. */
static void collect(work *w, int verbose, tally *t)
{
    for (int k = 0; k < w->n; k++) {
        pthread_mutex_lock(&w->mu);
        while (!w->done[k]) pthread_cond_wait(&w->cv, &w->mu);
        pthread_mutex_unlock(&w->mu);
        elk_check_result *r = &w->results[k];
        long before = 0;
        for (int i = 0; i < ELK_CHECK_COUNT; i++) before += t->viol[i];
        print_point(r, verbose, t);
        long after = 0;
        for (int i = 0; i < ELK_CHECK_COUNT; i++) {
            after += t->viol[i];
            t->checks[i] += r->checks[i];
        }
        if (after > before) t->bad_points++;
        t->skipped += r->skipped;
        t->pairs_run += r->pairs_run;
        t->pairs_skipped += r->pairs_skipped;
        fflush(stdout);
    }
}

/* estimate against simulation: the distribution of |error| */
static void print_sim_errors(const work *w)
{
    double *errs = malloc((size_t)w->n * ELK_POL_COUNT * sizeof *errs);
    int ne = 0;
    for (int k = 0; errs && k < w->n; k++)
        for (int p = 0; p < ELK_POL_COUNT; p++)
            if (!isnan(w->results[k].sim_err[p])) errs[ne++] = fabs(w->results[k].sim_err[p]);
    if (ne) {
        qsort(errs, (size_t)ne, sizeof *errs, cmp_double);
        printf("estimate vs simulation, |error| over %d schedules: median %.2f%%, p90 %.2f%%, p99 %.2f%%, max %.2f%% "
               "(tolerance %.0f%%)\n",
               ne, 100 * errs[ne / 2], 100 * errs[(int)(0.9 * (ne - 1))], 100 * errs[(int)(0.99 * (ne - 1))],
               100 * errs[ne - 1], 100 * ELK_CHECK_SIM_TOL);
    }
    free(errs);
}

/* The summary: counts per invariant, the warnings per policy, the
 * simulation's errors and the result line; returns the gated violations. */
static long print_summary(const work *w, const tally *t, const int *gated, int gate_given, int strict)
{
    long total = 0, total_warn = 0, total_gated = 0;
    for (int i = 0; i < ELK_CHECK_COUNT; i++) {
        total += t->viol[i];
        if (gated[i]) total_gated += t->viol[i];
    }
    printf("\nsummary\n");
    printf("points: %d drawn, %ld checked, %ld skipped (fits no plan: an operator has no partition plan that fits "
           "SRAM or meets the planner's thresholds)\n",
           w->n, w->n - t->skipped, t->skipped);
    printf("pairs: %ld planned, %ld skipped (the partner fits no plan, or the model has too few layers to double)\n",
           t->pairs_run, t->pairs_skipped);
    printf("%-18s %9s %10s\n", "invariant", "checks", "violations");
    for (int i = 0; i < ELK_CHECK_COUNT; i++)
        printf("%-18s %9ld %10ld%s\n", elk_check_invariants[i].name, t->checks[i], t->viol[i],
               gated[i] ? "" : "  (not gated)");
    for (int i = 0; i < ELK_CHECK_COUNT; i++)
        for (int p = 0; p < ELK_POL_COUNT; p++) total_warn += t->warn[i][p];
    printf("fixed-algorithm inversions (warnings, not violations): %ld", total_warn);
    for (int i = 0; i < ELK_CHECK_COUNT; i++) {
        long n = 0;
        for (int p = 0; p < ELK_POL_COUNT; p++) n += t->warn[i][p];
        if (!n) continue;
        printf("\n  %s:", elk_check_invariants[i].name);
        for (int p = 0; p < ELK_POL_COUNT; p++)
            if (t->warn[i][p]) printf(" %s %ld", elk_policy_labels[p], t->warn[i][p]);
    }
    printf("\n");
    long total_exc = 0;
    for (int i = 0; i < ELK_CHECK_COUNT; i++)
        for (int k = 0; k < ELK_PSW_COUNT; k++) total_exc += t->exc[i][k];
    printf("artifact-rule exceptions (a fixed algorithm's re-timing, a simulation invariant or the batch pair at a "
           "paper-profile point, undone by one switch of the cost profile turned off alone; docs/VALIDATION.md, not "
           "violations): %ld",
           total_exc);
    for (int i = 0; i < ELK_CHECK_COUNT; i++) {
        long n = 0;
        for (int k = 0; k < ELK_PSW_COUNT; k++) n += t->exc[i][k];
        if (!n) continue;
        printf("\n  %s:", elk_check_invariants[i].name);
        for (int k = 0; k < ELK_PSW_COUNT; k++)
            if (t->exc[i][k]) printf(" %s %ld", elk_profile_switch_names[k], t->exc[i][k]);
    }
    printf("\n");
    long ncause = 0;
    for (int k = 0; k < ELK_CHECK_CAUSE_COUNT; k++) ncause += t->cause[k];
    printf("Elk-Full pointwise inversions (slower with more of a resource; docs/VALIDATION.md): %ld, by cause:",
           ncause);
    for (int k = 0; k < ELK_CHECK_CAUSE_COUNT; k++) printf(" %s %ld", elk_check_cause_names[k], t->cause[k]);
    printf("\n");
    for (int k = 0; k < ELK_CHECK_CLASS_COUNT; k++)
        printf("  %-12s %5ld, largest ratio %.6f  (%s)\n", elk_check_class_names[k], t->klass[k], t->klass[k] ? t->klass_max[k] : 1.0,
               elk_check_class_help[k]);
    printf("  %-12s %5ld  (violations of the carried invariant, counted above)\n", "unclassified", t->unclassified);
    printf("Ideal pointwise inversions with more cores: %ld, largest ratio %.6f  (%s)\n", t->ideal_cores,
           t->ideal_cores ? t->ideal_cores_max : 1.0, elk_check_class_help[ELK_CHECK_CLASS_CORES]);
    print_sim_errors(w);
    printf("result: %ld violation%s in %ld point%s", total, total == 1 ? "" : "s", t->bad_points,
           t->bad_points == 1 ? "" : "s");
    if (gate_given || total_gated != total) printf("; %ld in the gated invariants", total_gated);
    if (strict) {
        long n = 0;
        for (int k = 0; k < ELK_CHECK_CLASS_COUNT; k++) n += t->klass[k];
        n += t->ideal_cores;
        printf("; --strict: %ld classified inversion%s", n, n == 1 ? "" : "s");
        total_gated += n;
    }
    printf("\n");
    return total_gated;
}

static void work_free(work *w, pthread_t *th)
{
    free(w->results);
    free(w->done);
    free(th);
}

int elk_cmd_check(int argc, char **argv)
{
    const char *points_s = "200", *first_s = "0", *seed_s = "1", *jobs_s = "1", *gate_s = NULL, *profile = NULL;
    int want_help = 0, verbose = 0, strict = 0;
    elk_opt opts[] = {
        {"points", 1, &points_s, NULL, "N\tpoints to draw (default 200)"},
        {"first", 1, &first_s, NULL,
         "K\tstart at point K: points K .. K+N-1 of the seed's sequence, each as a full run draws it "
         "(default 0), so one violation's point is re-checked alone"},
        {"seed", 1, &seed_s, NULL, "S\tseed of GSL's mt19937 (default 1)"},
        {"jobs", 1, &jobs_s, NULL, "J\tthreads (default 1)"},
        {"profile", 1, &profile, NULL,
         "P\tcost profile of every point (paper, physical, +/-switch); default: each chip preset's "
         "(docs/VALIDATION.md, Cost profiles)"},
        {"gate", 1, &gate_s, NULL,
         "LIST\tcomma-separated invariants whose violations set the exit status (default: all but "
         "retime-monotone); the others are still checked and printed"},
        {"strict", 0, NULL, &strict,
         "also exit 1 on a classified inversion (Elk-Full's missed, retime or cores, Ideal's with more "
         "cores): pointwise monotone, not only carried"},
        {"verbose", 0, NULL, &verbose, "list every point and the fixed algorithms' inversions"},
        {"help", 0, NULL, &want_help, NULL},
        {NULL, 0, NULL, NULL, NULL},
    };
    const char *pos[1];
    int npos;
    int rc = elk_cli_parse(argc, argv, 2, NULL, opts, pos, 0, &npos, "check");
    if (rc) return rc;
    if (want_help) {
        help(opts);
        return 0;
    }
    long npoints, first, seed, jobs;
    elk_error err;
    if (elk_parse_long(points_s, 1, 10000000, &npoints)) {
        elk_cli_error("check: --points %s: expected an integer 1 .. 10000000", points_s);
        return ELK_EXIT_USAGE;
    }
    if (elk_parse_long(first_s, 0, 10000000 - npoints, &first)) {
        elk_cli_error("check: --first %s: expected an integer 0 .. %ld", first_s, 10000000 - npoints);
        return ELK_EXIT_USAGE;
    }
    if (elk_parse_long(seed_s, 0, 4294967295L, &seed)) {
        elk_cli_error("check: --seed %s: expected an integer 0 .. 4294967295", seed_s);
        return ELK_EXIT_USAGE;
    }
    if (elk_parse_long(jobs_s, 1, 256, &jobs)) {
        elk_cli_error("check: --jobs %s: expected an integer 1 .. 256", jobs_s);
        return ELK_EXIT_USAGE;
    }

    if (profile) {
        unsigned mask;
        if (strlen(profile) >= sizeof ((elk_check_args *)0)->val[0] ||
            elk_profile_parse(profile, &mask, &err) != ELK_OK) {
            elk_cli_error("check: --profile %s: %s", profile,
                          strlen(profile) >= sizeof ((elk_check_args *)0)->val[0] ? "too long" : err.msg);
            return ELK_EXIT_USAGE;
        }
    }
    int gated[ELK_CHECK_COUNT];
    if ((rc = parse_gate(gate_s, gated))) return rc;

    static elk_check_space sp;
    if (elk_check_space_init(&sp, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        return ELK_EXIT_FAIL;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);

    work w;
    memset(&w, 0, sizeof w);
    w.sp = &sp;
    w.seed = (unsigned long)seed;
    w.profile = profile;
    w.first = (int)first;
    w.n = (int)npoints;
    w.results = calloc((size_t)w.n, sizeof *w.results);
    w.done = calloc((size_t)w.n, 1);
    pthread_t *th = calloc((size_t)jobs, sizeof *th);
    if (!w.results || !w.done || !th) {
        elk_cli_error("out of memory");
        work_free(&w, th);
        return ELK_EXIT_FAIL;
    }
    pthread_mutex_init(&w.mu, NULL);
    pthread_cond_init(&w.cv, NULL);
    int started = 0;
    for (long j = 0; j < jobs; j++)
        if (elk_thread_start(&th[j], worker, &w) == 0) started++;
    if (!started) {
        elk_cli_error("check: cannot start a thread");
        work_free(&w, th);
        return ELK_EXIT_FAIL;
    }

    if (w.first > 0)
        printf("elk check: %d point%s from point %d, seed %ld, %d invariants\n", w.n, w.n == 1 ? "" : "s", w.first, seed,
               ELK_CHECK_COUNT);
    else
        printf("elk check: %d point%s, seed %ld, %d invariants\n", w.n, w.n == 1 ? "" : "s", seed, ELK_CHECK_COUNT);
    tally t;
    memset(&t, 0, sizeof t);
    collect(&w, verbose, &t);
    for (int j = 0; j < started; j++) pthread_join(th[j], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long total_gated = print_summary(&w, &t, gated, gate_s != NULL, strict);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    fprintf(stderr, "elk check: %d point%s in %.1f s on %d thread%s\n", w.n, w.n == 1 ? "" : "s", wall, started,
            started == 1 ? "" : "s");

    int failed = w.failed;
    for (int k = 0; k < w.n; k++) elk_check_result_free(&w.results[k]);
    work_free(&w, th);
    pthread_mutex_destroy(&w.mu);
    pthread_cond_destroy(&w.cv);
    if (failed) {
        elk_cli_error("check: out of memory evaluating a point");
        return ELK_EXIT_FAIL;
    }
    return total_gated ? ELK_EXIT_FAIL : 0;
}
