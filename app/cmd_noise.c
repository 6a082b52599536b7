/* elk noise: what if the cost model is 10-20% wrong? (issue 14, item 5).
 * core/elk_noise draws the errors, plans with them and times the plans with
 * the true costs; this command runs the trials and summarises them with GSL
 * statistics: per sigma, the mean of Elk-Full's speedups over Static and
 * Basic with a 95% confidence interval (Student's t), the 5% and 95%
 * quantiles, how often Elk-Full's plans change, and how far the noisy model's
 * own prediction of Elk-Full is from the truth. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics.h>

#include "elk_cli.h"
#include "elk_csv.h"
#include "elk_file.h"
#include "elk_noise.h"

typedef struct {
    double mean, lo, hi, q05, q95;
} summary;

static summary summarise(double *v, int n)
{
    summary s;
    gsl_sort(v, 1, (size_t)n);
    s.mean = gsl_stats_mean(v, 1, (size_t)n);
    double sd = n > 1 ? gsl_stats_sd_m(v, 1, (size_t)n, s.mean) : 0;
    double t = n > 1 ? gsl_cdf_tdist_Pinv(0.975, n - 1) : 0;
    s.lo = s.mean - t * sd / sqrt(n);
    s.hi = s.mean + t * sd / sqrt(n);
    s.q05 = gsl_stats_quantile_from_sorted_data(v, 1, (size_t)n, 0.05);
    s.q95 = gsl_stats_quantile_from_sorted_data(v, 1, (size_t)n, 0.95);
    return s;
}

/* --sigma LIST into sig[] (at most 16); prints the error. */
static int parse_sigmas(const char *sig_s, double *sig, int *nsig)
{
    int rc;
    char list[256];
    snprintf(list, sizeof list, "%s", sig_s);
    char *save = NULL;
    for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (*nsig == 16) {
            elk_cli_error("noise: --sigma: at most 16 values");
            return ELK_EXIT_USAGE;
        }
        if ((rc = elk_cli_double("noise", "sigma", tok, 0.0001, 2, &sig[*nsig]))) return rc;
        (*nsig)++;
    }
    if (!*nsig) {
        elk_cli_error("noise: --sigma %s: expected a comma list of numbers", sig_s);
        return ELK_EXIT_USAGE;
    }
    return 0;
}

/* One trial's CSV row. */
static void csv_row(FILE *fp, const elk_problem *pr, const char *prof, double sigma, long k,
                    const elk_noise_trial_result *r)
{
    double full = r->ms[ELK_POL_FULL];
    char line[1024];
    size_t len = 0;
    elk_csv_cat(line, sizeof line, &len, 1, pr->model.name);
    elk_csv_cat(line, sizeof line, &len, 0, pr->chip.name);
    elk_csv_cat(line, sizeof line, &len, 0, prof);
    elk_csv_cat_num(line, sizeof line, &len, 0, sigma);
    elk_csv_cat_num(line, sizeof line, &len, 0, (double)k);
    for (int q = 0; q < ELK_POL_COUNT; q++) elk_csv_cat_num(line, sizeof line, &len, 0, r->ms[q]);
    elk_csv_cat_num(line, sizeof line, &len, 0, r->noisy_ms[ELK_POL_FULL]);
    elk_csv_cat_num(line, sizeof line, &len, 0, r->ms[ELK_POL_STATIC] / full);
    elk_csv_cat_num(line, sizeof line, &len, 0, r->ms[ELK_POL_BASIC] / full);
    elk_csv_cat_num(line, sizeof line, &len, 0, r->plans_changed);
    elk_csv_cat_num(line, sizeof line, &len, 0, r->substituted);
    fprintf(fp, "%s\n", line);
}

/* The trials of one sigma: each a CSV row, or in the table one summary
 * line of the trials that fit. vs and vb hold trials entries. */
static int run_sigma(FILE *fp, elk_noise *w, const elk_problem *pr, const char *prof, double sigma, long trials,
                     long seed, int csv, double *vs, double *vb)
{
    elk_error err;
    int n = 0, nofit = 0;
    double changed = 0, pred = 0;
    for (long k = 0; k < trials; k++) {
        elk_noise_trial_result r;
        if (elk_noise_trial(w, sigma, (unsigned long)seed, (int)k, &r, &err) != ELK_OK) {
            elk_cli_error("noise: sigma %g, trial %ld: %s", sigma, k, err.msg);
            return ELK_EXIT_FAIL;
        }
        double full = r.ms[ELK_POL_FULL];
        if (csv) csv_row(fp, pr, prof, sigma, k, &r);
        if (isnan(full)) {
            nofit++; /* the noisy plan does not fit the true timing: counted, not averaged */
            continue;
        }
        vs[n] = r.ms[ELK_POL_STATIC] / full;
        vb[n] = r.ms[ELK_POL_BASIC] / full;
        changed += r.plans_changed;
        pred += fabs(r.noisy_ms[ELK_POL_FULL] / full - 1);
        n++;
    }
    if (csv) return 0;
    if (n < 2) {
        fprintf(fp, "%6.3f  fewer than two trials fit (%d of %ld)\n", sigma, n, trials);
        return 0;
    }
    summary a = summarise(vs, n), b = summarise(vb, n);
    char ca[64], cb[64];
    snprintf(ca, sizeof ca, "%.3f [%.3f, %.3f] (%.3f..%.3f)", a.mean, a.lo, a.hi, a.q05, a.q95);
    snprintf(cb, sizeof cb, "%.3f [%.3f, %.3f] (%.3f..%.3f)", b.mean, b.lo, b.hi, b.q05, b.q95);
    fprintf(fp, "%6.3f  %-36s %-36s %7.1f%% %8.1f%% %9d\n", sigma, ca, cb, 100 * changed / n, 100 * pred / n, nofit);
    return 0;
}

int elk_cmd_noise(int argc, char **argv)
{
    elk_point p;
    elk_point_defaults(&p);
    const char *sig_s = "0.05,0.1,0.2", *trials_s = "20", *seed_s = "1", *fmt = "table", *out = NULL;
    int want_help = 0;
    elk_opt opts[] = {
        {"sigma", 1, &sig_s, NULL, "LIST\tcomma-separated log-normal sigmas (default 0.05,0.1,0.2)"},
        {"trials", 1, &trials_s, NULL, "N\ttrials per sigma (default 20)"},
        {"seed", 1, &seed_s, NULL, "K\tseed of GSL's mt19937 (default 1)"},
        {"format", 1, &fmt, NULL, "F\ttable (default) or csv (one row per trial)"},
        {"output", 1, &out, NULL, "FILE\twrite there (atomically) instead of standard output"},
        {"help", 0, NULL, &want_help, NULL},
        {NULL, 0, NULL, NULL, NULL},
    };
    const char *pos[1];
    int npos;
    int rc = elk_cli_parse(argc, argv, 2, &p, opts, pos, 0, &npos, "noise");
    if (rc) return rc;
    if (want_help) {
        printf("usage: elk noise [--sigma LIST] [--trials N] [--seed K] [--format table|csv] [-o FILE]\n"
               "                 [design-point options]\n\n"
               "What if the cost model is wrong? Each operator's compute and exchange costs are\n"
               "multiplied by seeded log-normal errors (sigma on the log scale); Elk-Dyn and\n"
               "Elk-Full plan with the noisy costs and their plans are timed with the true\n"
               "ones (replayed through the scheduler). Basic and Static are planned with the\n"
               "true costs, which tilts the comparison against Elk. Per sigma: Elk-Full's\n"
               "speedup over Static and over Basic (mean, 95%% confidence interval, 5%% and\n"
               "95%% quantiles), the share of operators whose plan changed, and the noisy\n"
               "model's error in predicting Elk-Full. Trial k depends only on the seed and k.\n\n");
        elk_cli_opts_help(stdout, opts);
        printf("\n");
        elk_cli_knob_help(stdout);
        return 0;
    }
    long trials, seed;
    if ((rc = elk_cli_long("noise", "trials", trials_s, 2, 100000, &trials))) return rc;
    if ((rc = elk_cli_long("noise", "seed", seed_s, 0, 4294967295L, &seed))) return rc;
    int csv;
    if ((rc = elk_cli_table_or_csv("noise", fmt, &csv))) return rc;
    double sig[16];
    int nsig = 0;
    if ((rc = parse_sigmas(sig_s, sig, &nsig))) return rc;
    elk_plan_cache *pc;
    elk_problem pr;
    if (elk_cli_problem(&p, &pc, &pr)) return ELK_EXIT_FAIL;
    elk_sched_opts so;
    elk_sched_opts_default(&so);
    elk_noise w;
    elk_error err;
    if (elk_noise_init(&w, &pr, &so, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        elk_problem_free(&pr);
        elk_plan_cache_free(pc);
        return ELK_EXIT_FAIL;
    }
    elk_file f;
    if ((rc = elk_cli_out_open(&f, out))) {
        elk_noise_free(&w);
        elk_problem_free(&pr);
        elk_plan_cache_free(pc);
        return rc;
    }
    FILE *fp = f.fp;
    char prof[96];
    elk_profile_format(pr.chip.profile, prof, sizeof prof);
    double fs0 = w.truth[ELK_POL_STATIC].latency_ms / w.truth[ELK_POL_FULL].latency_ms;
    double fb0 = w.truth[ELK_POL_BASIC].latency_ms / w.truth[ELK_POL_FULL].latency_ms;
    if (csv)
        fprintf(fp, "model,chip,profile,sigma,trial,basic_ms,static_ms,dyn_ms,full_ms,ideal_ms,full_predicted_ms,"
                    "full_over_static,full_over_basic,plans_changed,substituted\n");
    else
        fprintf(fp,
                "%s on %s (%s cost profile), %ld trials per sigma, seed %ld\n"
                "without noise: Elk-Full %.3f ms, %.3fx over Static, %.3fx over Basic "
                "(replaying Elk-Dyn's own plan: %+.3f%%)\n\n"
                "%6s  %-36s %-36s %8s %9s %9s\n",
                pr.model.name, pr.chip.name, prof, trials, seed, w.truth[ELK_POL_FULL].latency_ms, fs0, fb0,
                100 * (w.replay_check - 1), "sigma", "Elk-Full / Static: mean [95% CI] (5%..95%)",
                "Elk-Full / Basic: mean [95% CI] (5%..95%)", "plans", "predict.", "no fit");
    double *vs = malloc((size_t)trials * sizeof *vs), *vb = malloc((size_t)trials * sizeof *vb);
    if (!vs || !vb) {
        elk_cli_error("out of memory");
        rc = ELK_EXIT_FAIL;
    }
    for (int si = 0; si < nsig && !rc; si++) rc = run_sigma(fp, &w, &pr, prof, sig[si], trials, seed, csv, vs, vb);
    if (!rc && !csv)
        fprintf(fp, "\nplans: operators whose Elk-Full plan differs from the noise-free one (mean); predict.: "
                    "|noisy estimate / true - 1| of Elk-Full (mean);\nno fit: trials whose noisy plan does not "
                    "fit the true timing (left out). Basic and Static are planned with the true costs.\n");
    free(vs);
    free(vb);
    elk_noise_free(&w);
    elk_problem_free(&pr);
    elk_plan_cache_free(pc);
    return elk_cli_out_close(&f, rc);
}
