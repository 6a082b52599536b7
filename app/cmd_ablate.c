/* elk ablate: is the complexity worth it? (issue 14, item 6; a reviewer's
 * question). The ladder from Basic to Elk-Full, one idea of the paper added
 * at each step, for each model at one design point:
 *   Basic                     one preload of look-ahead, the paper's baseline;
 *   + preload numbers         Elk-Dyn's inductive scheduler with the artifact's
 *                             memory charge (every waiting preload held fully
 *                             distributed: --allocator artifact);
 *   + cost-aware allocation   Elk-Dyn with the paper's allocator, which prices
 *                             replication, distribution and contention;
 *   + order permutation       Elk-Full: preload orders searched on top.
 * Each step's gain is the previous step's latency over its own. Elk-Full
 * keeps the best schedule it can evaluate, other policies' included; the
 * last column names the one it kept, so a gain that comes from adopting
 * Static is not credited to the order search unnoticed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elk_cli.h"
#include "elk_csv.h"
#include "elk_file.h"
#include "elk_sched.h"

enum { STEP_BASIC, STEP_NUMBERS, STEP_ALLOC, STEP_ORDER, STEP_IDEAL, NSTEPS };

static const struct {
    const char *name;  /* CSV */
    const char *label; /* table */
    elk_policy pol;
    elk_alloc_mode alloc;
} steps[NSTEPS] = {
    [STEP_BASIC] = {"basic", "Basic", ELK_POL_BASIC, ELK_ALLOC_PAPER},
    [STEP_NUMBERS] = {"preload-numbers", "+ preload numbers", ELK_POL_DYN, ELK_ALLOC_ARTIFACT},
    [STEP_ALLOC] = {"cost-aware-allocation", "+ cost-aware alloc.", ELK_POL_DYN, ELK_ALLOC_PAPER},
    [STEP_ORDER] = {"order-permutation", "+ order permutation", ELK_POL_FULL, ELK_ALLOC_PAPER},
    [STEP_IDEAL] = {"ideal", "Ideal", ELK_POL_IDEAL, ELK_ALLOC_PAPER},
};

/* One model's ladder. */
typedef struct {
    char model[64], chip[64], profile[96];
    double ms[NSTEPS];
    int adopted; /* Elk-Full: -1 its own order search, else the policy it kept */
} ladder;

static int run_model(const elk_point *base, const char *model, ladder *L)
{
    elk_point p = *base;
    elk_error err;
    if (elk_point_set(&p, ELK_KNOB_MODEL, model, &err) != ELK_OK) {
        elk_cli_error("ablate: --models %s: %s", model, err.msg);
        return ELK_EXIT_USAGE;
    }
    elk_plan_cache *pc;
    elk_problem pr;
    if (elk_cli_problem(&p, &pc, &pr)) return ELK_EXIT_FAIL;
    snprintf(L->model, sizeof L->model, "%s", pr.model.name);
    snprintf(L->chip, sizeof L->chip, "%s", pr.chip.name);
    elk_profile_format(pr.chip.profile, L->profile, sizeof L->profile);
    int rc = 0;
    for (int k = 0; k < NSTEPS && !rc; k++) {
        elk_sched_opts so;
        elk_sched_opts_default(&so);
        so.alloc = steps[k].alloc;
        elk_schedule s;
        if (elk_schedule_run(&pr, steps[k].pol, &so, &s, &err) != ELK_OK) {
            elk_cli_error("ablate: %s, %s: %s", L->model, steps[k].label, err.msg);
            rc = ELK_EXIT_FAIL;
            break;
        }
        L->ms[k] = s.latency_ms;
        if (k == STEP_ORDER) L->adopted = s.adopted;
        elk_schedule_free(&s);
    }
    elk_problem_free(&pr);
    elk_plan_cache_free(pc);
    return rc;
}

static void write_table(FILE *fp, const ladder *L, int n)
{
    fprintf(fp, "Ablation ladder: latency per step, ms (gain over the step before)\n\n");
    fprintf(fp, "%-12s %9s  %-18s %-20s %-20s %9s %8s  %s\n", "model", "Basic", "+ preload numbers",
            "+ cost-aware alloc.", "+ order permutation", "Ideal", "Full/Bas", "Elk-Full kept");
    for (int i = 0; i < n; i++) {
        const double *m = L[i].ms;
        char c1[32], c2[32], c3[32];
        snprintf(c1, sizeof c1, "%.3f (%.2fx)", m[STEP_NUMBERS], m[STEP_BASIC] / m[STEP_NUMBERS]);
        snprintf(c2, sizeof c2, "%.3f (%.2fx)", m[STEP_ALLOC], m[STEP_NUMBERS] / m[STEP_ALLOC]);
        snprintf(c3, sizeof c3, "%.3f (%.2fx)", m[STEP_ORDER], m[STEP_ALLOC] / m[STEP_ORDER]);
        fprintf(fp, "%-12s %9.3f  %-18s %-20s %-20s %9.3f %7.2fx  %s\n", L[i].model, m[STEP_BASIC], c1, c2, c3,
                m[STEP_IDEAL], m[STEP_BASIC] / m[STEP_ORDER],
                L[i].adopted < 0 ? "its own order search" : elk_policy_labels[L[i].adopted]);
    }
    if (n) fprintf(fp, "\n%s, %s cost profile\n", L[0].chip, L[0].profile);
}

static void write_csv(FILE *fp, const ladder *L, int n)
{
    fprintf(fp, "model,chip,profile,step,latency_ms,gain,gain_over_basic,full_kept\n");
    for (int i = 0; i < n; i++)
        for (int k = 0; k < NSTEPS; k++) {
            char line[512];
            size_t len = 0;
            const double *m = L[i].ms;
            double gain = k == STEP_BASIC || k == STEP_IDEAL ? 1 : m[k - 1] / m[k];
            elk_csv_cat(line, sizeof line, &len, 1, L[i].model);
            elk_csv_cat(line, sizeof line, &len, 0, L[i].chip);
            elk_csv_cat(line, sizeof line, &len, 0, L[i].profile);
            elk_csv_cat(line, sizeof line, &len, 0, steps[k].name);
            elk_csv_cat_num(line, sizeof line, &len, 0, m[k]);
            elk_csv_cat_num(line, sizeof line, &len, 0, gain);
            elk_csv_cat_num(line, sizeof line, &len, 0, m[STEP_BASIC] / m[k]);
            elk_csv_cat(line, sizeof line, &len, 0,
                        k != STEP_ORDER ? "" : L[i].adopted < 0 ? "order-search" : elk_policy_names[L[i].adopted]);
            fprintf(fp, "%s\n", line);
        }
}

int elk_cmd_ablate(int argc, char **argv)
{
    elk_point p;
    elk_point_defaults(&p);
    const char *models = "llama2-13b,gemma2-27b,opt-30b,llama2-70b", *fmt = "table", *out = NULL;
    int want_help = 0;
    elk_opt opts[] = {
        {"models", 1, &models, NULL, NULL}, {"format", 1, &fmt, NULL, NULL},
        {"output", 1, &out, NULL, NULL},    {"help", 0, NULL, &want_help, NULL},
        {NULL, 0, NULL, NULL, NULL},
    };
    const char *pos[1];
    int npos;
    int rc = elk_cli_parse(argc, argv, 2, &p, opts, pos, 0, &npos, "ablate");
    if (rc) return rc;
    if (want_help) {
        printf("usage: elk ablate [--models LIST] [--format table|csv] [-o FILE] [design-point options]\n\n"
               "Is Elk's complexity worth it? For each model, the ladder from Basic to Elk-Full\n"
               "with one of the paper's ideas added at each step: preload numbers (Elk-Dyn's\n"
               "inductive scheduler with the artifact's memory charge), cost-aware allocation\n"
               "(Elk-Dyn with the paper's allocator), preload-order permutation (Elk-Full).\n"
               "Each step's gain is over the step before; Ideal is the bound. Elk-Full keeps the\n"
               "best schedule it can evaluate, so the last column says whether its order search\n"
               "or another policy's schedule won. Run it under both cost profiles\n"
               "(--profile paper, --profile physical; docs/VALIDATION.md, Ablation).\n\n"
               "  --models LIST     comma-separated model presets (default the paper's four LLMs)\n"
               "  --format F        table (default) or csv\n"
               "  -o, --output FILE write there (atomically) instead of standard output\n\n");
        elk_cli_knob_help(stdout);
        return 0;
    }
    int csv = !strcmp(fmt, "csv");
    if (!csv && strcmp(fmt, "table")) {
        elk_cli_error("ablate: --format %s: expected table or csv", fmt);
        return ELK_EXIT_USAGE;
    }
    ladder L[32];
    int n = 0;
    char list[1024];
    snprintf(list, sizeof list, "%s", models);
    char *save = NULL;
    for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n == (int)(sizeof L / sizeof L[0])) {
            elk_cli_error("ablate: --models: at most %d models", (int)(sizeof L / sizeof L[0]));
            return ELK_EXIT_USAGE;
        }
        memset(&L[n], 0, sizeof L[n]);
        if ((rc = run_model(&p, tok, &L[n]))) return rc;
        n++;
    }
    if (n == 0) {
        elk_cli_error("ablate: --models %s: no model named", models);
        return ELK_EXIT_USAGE;
    }
    elk_file f;
    elk_error err;
    if (elk_file_open(&f, out ? out : "-", &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        return ELK_EXIT_FAIL;
    }
    if (csv) write_csv(f.fp, L, n);
    else write_table(f.fp, L, n);
    if (elk_file_commit(&f, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        return ELK_EXIT_FAIL;
    }
    return 0;
}
