/* elk ablate: is the complexity worth it? (issue 14, item 6; a reviewer's
 * question). The ladder from Basic to Elk-Full, one idea of the paper added
 * at each step, for each model at one design point:
 *   Basic                     one preload of look-ahead, the paper's baseline;
 *   + preload numbers         Elk-Dyn's inductive scheduler with the artifact's
 *                             memory charge (every waiting preload held fully
 *                             distributed: --allocator artifact);
 *   + cost-aware allocation   Elk-Dyn with the paper's allocator, which prices
 *                             replication, distribution and contention;
 *   Elk-Full, program order   Elk-Full held to program order: its rules
 *                             besides reordering (in the paper profile, the
 *                             artifact gives it its own NoC cap and contention
 *                             rule), so that the last step is reordering alone;
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

enum { STEP_BASIC, STEP_NUMBERS, STEP_ALLOC, STEP_FULLRULES, STEP_ORDER, STEP_IDEAL, NSTEPS };

/* max_disp -1: the default displacement bound. STEP_FULLRULES is Elk-Full
 * held to program order (displacement 0): what Elk-Full does besides
 * reordering (in the paper profile, its own NoC cap and contention rule),
 * so that the last step is the order search alone. */
static const struct {
    const char *name;  /* CSV */
    const char *label; /* table */
    elk_policy pol;
    elk_alloc_mode alloc;
    int max_disp;
} steps[NSTEPS] = {
    [STEP_BASIC] = {"basic", "Basic", ELK_POL_BASIC, ELK_ALLOC_PAPER, -1},
    [STEP_NUMBERS] = {"preload-numbers", "+ preload numbers", ELK_POL_DYN, ELK_ALLOC_ARTIFACT, -1},
    [STEP_ALLOC] = {"cost-aware-allocation", "+ cost-aware alloc.", ELK_POL_DYN, ELK_ALLOC_PAPER, -1},
    [STEP_FULLRULES] = {"full-program-order", "Elk-Full, prog. order", ELK_POL_FULL, ELK_ALLOC_PAPER, 0},
    [STEP_ORDER] = {"order-permutation", "+ order permutation", ELK_POL_FULL, ELK_ALLOC_PAPER, -1},
    [STEP_IDEAL] = {"ideal", "Ideal", ELK_POL_IDEAL, ELK_ALLOC_PAPER, -1},
};

/* One model's ladder. */
typedef struct {
    char model[64], chip[64], profile[96];
    double ms[NSTEPS];
    int adopted; /* Elk-Full: -1 its own order search, else the policy it kept */
} ladder;

/* The design point with model swapped in, prepared (or the error printed). */
static int model_problem(const elk_point *base, const char *model, elk_plan_cache **pc, elk_problem *pr)
{
    elk_point p = *base;
    elk_error err;
    if (elk_point_set(&p, ELK_KNOB_MODEL, model, &err) != ELK_OK) {
        elk_cli_error("ablate: --models %s: %s", model, err.msg);
        return ELK_EXIT_USAGE;
    }
    return elk_cli_problem(&p, pc, pr) ? ELK_EXIT_FAIL : 0;
}

static int run_model(const elk_point *base, const char *model, ladder *L)
{
    elk_error err;
    elk_plan_cache *pc;
    elk_problem pr;
    int rc0 = model_problem(base, model, &pc, &pr);
    if (rc0) return rc0;
    snprintf(L->model, sizeof L->model, "%s", pr.model.name);
    snprintf(L->chip, sizeof L->chip, "%s", pr.chip.name);
    elk_profile_format(pr.chip.profile, L->profile, sizeof L->profile);
    int rc = 0;
    for (int k = 0; k < NSTEPS && !rc; k++) {
        elk_sched_opts so;
        elk_sched_opts_default(&so);
        so.alloc = steps[k].alloc;
        if (steps[k].max_disp >= 0) so.max_disp = steps[k].max_disp;
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

/* --orders: the reviewers' "why reorder only HBM-heavy operators?" (issue
 * 14, item 4). Elk-Full's candidate orders come from grouping each layer at
 * its HBM-heavy operators (bytes above heavy_factor x the mean) and
 * permuting the groups with a displacement bound; both are swept here, with
 * the gain over Elk-Dyn (program order) and the time the search takes. */
static const int disp_vals[] = {0, 1, 2, 3, 4, 6};
static const double heavy_vals[] = {0.5, 1, 2, 4};
#define NDISP ((int)(sizeof disp_vals / sizeof disp_vals[0]))
#define NHEAVY ((int)(sizeof heavy_vals / sizeof heavy_vals[0]))

typedef struct {
    double ms, ms_dyn, solve_ms;
    int orders, kept;
} order_cell;

static int run_orders(const elk_point *base, const char *model, FILE *fp, int csv, int times, int first)
{
    elk_error err;
    elk_plan_cache *pc;
    elk_problem pr;
    int rc0 = model_problem(base, model, &pc, &pr);
    if (rc0) return rc0;
    char prof[96];
    elk_profile_format(pr.chip.profile, prof, sizeof prof);
    elk_sched_opts so;
    elk_sched_opts_default(&so);
    elk_schedule dyn;
    if (elk_schedule_run(&pr, ELK_POL_DYN, &so, &dyn, &err) != ELK_OK) {
        elk_cli_error("ablate: %s, Elk-Dyn: %s", pr.model.name, err.msg);
        elk_problem_free(&pr);
        elk_plan_cache_free(pc);
        return ELK_EXIT_FAIL;
    }
    order_cell cell[NDISP][NHEAVY];
    int rc = 0;
    for (int d = 0; d < NDISP && !rc; d++)
        for (int h = 0; h < NHEAVY && !rc; h++) {
            so.max_disp = disp_vals[d];
            so.heavy_factor = heavy_vals[h];
            elk_schedule s;
            if (elk_schedule_run(&pr, ELK_POL_FULL, &so, &s, &err) != ELK_OK) {
                elk_cli_error("ablate: %s, Elk-Full: %s", pr.model.name, err.msg);
                rc = ELK_EXIT_FAIL;
                break;
            }
            cell[d][h] = (order_cell){s.latency_ms, dyn.latency_ms, s.solve_ms, s.orders_tried, s.adopted};
            elk_schedule_free(&s);
        }
    if (!rc && csv) {
        if (first)
            fprintf(fp, "model,chip,profile,max_disp,heavy_factor,orders,latency_ms,dyn_latency_ms,gain_over_dyn,"
                        "full_kept%s\n", times ? ",solve_ms" : "");
        for (int d = 0; d < NDISP; d++)
            for (int h = 0; h < NHEAVY; h++) {
                const order_cell *c = &cell[d][h];
                char line[512];
                size_t len = 0;
                elk_csv_cat(line, sizeof line, &len, 1, pr.model.name);
                elk_csv_cat(line, sizeof line, &len, 0, pr.chip.name);
                elk_csv_cat(line, sizeof line, &len, 0, prof);
                elk_csv_cat_num(line, sizeof line, &len, 0, disp_vals[d]);
                elk_csv_cat_num(line, sizeof line, &len, 0, heavy_vals[h]);
                elk_csv_cat_num(line, sizeof line, &len, 0, c->orders);
                elk_csv_cat_num(line, sizeof line, &len, 0, c->ms);
                elk_csv_cat_num(line, sizeof line, &len, 0, c->ms_dyn);
                elk_csv_cat_num(line, sizeof line, &len, 0, c->ms_dyn / c->ms);
                elk_csv_cat(line, sizeof line, &len, 0, c->kept < 0 ? "order-search" : elk_policy_names[c->kept]);
                /* wall time: only when asked, so that the CSV is the same bytes every run */
                if (times) elk_csv_cat_num(line, sizeof line, &len, 0, c->solve_ms);
                fprintf(fp, "%s\n", line);
            }
    } else if (!rc) {
        fprintf(fp, "%s on %s (%s): Elk-Full against Elk-Dyn (%.3f ms), by displacement bound (rows) and\n"
                    "HBM-heavy threshold (columns, x the mean operator's bytes): gain, orders tried, search ms\n",
                pr.model.name, pr.chip.name, prof, dyn.latency_ms);
        fprintf(fp, "%6s", "disp");
        for (int h = 0; h < NHEAVY; h++) {
            char hd[32];
            snprintf(hd, sizeof hd, "heavy > %gx", heavy_vals[h]);
            fprintf(fp, "   %-24s", hd);
        }
        fprintf(fp, "\n");
        for (int d = 0; d < NDISP; d++) {
            fprintf(fp, "%6d", disp_vals[d]);
            for (int h = 0; h < NHEAVY; h++) {
                const order_cell *c = &cell[d][h];
                char t[64];
                snprintf(t, sizeof t, "%.3fx %4d %6.0f ms%s", c->ms_dyn / c->ms, c->orders, c->solve_ms,
                         c->kept >= 0 ? "*" : "");
                fprintf(fp, "   %-24s", t);
            }
            fprintf(fp, "\n");
        }
        fprintf(fp, "(* Elk-Full kept another policy's schedule)\n\n");
    }
    elk_schedule_free(&dyn);
    elk_problem_free(&pr);
    elk_plan_cache_free(pc);
    return rc;
}

static void write_table(FILE *fp, const ladder *L, int n)
{
    fprintf(fp, "Ablation ladder: latency per step, ms (gain over the step before)\n\n");
    fprintf(fp, "%-12s %9s", "model", "Basic");
    for (int k = STEP_NUMBERS; k <= STEP_ORDER; k++) fprintf(fp, "  %-21s", steps[k].label);
    fprintf(fp, " %9s %8s  %s\n", "Ideal", "Full/Bas", "Elk-Full kept");
    for (int i = 0; i < n; i++) {
        const double *m = L[i].ms;
        fprintf(fp, "%-12s %9.3f", L[i].model, m[STEP_BASIC]);
        for (int k = STEP_NUMBERS; k <= STEP_ORDER; k++) {
            char c[32];
            snprintf(c, sizeof c, "%.3f (%.2fx)", m[k], m[k - 1] / m[k]);
            fprintf(fp, "  %-21s", c);
        }
        fprintf(fp, " %9.3f %7.2fx  %s\n", m[STEP_IDEAL], m[STEP_BASIC] / m[STEP_ORDER],
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
    int want_help = 0, orders = 0, times = 0;
    elk_opt opts[] = {
        {"orders", 0, NULL, &orders, "sweep the order search's two parameters"},
        {"times", 0, NULL, &times, "with --orders --format csv: add the solve_ms column"},
        {"models", 1, &models, NULL, "LIST\tcomma-separated model presets (default the paper's four LLMs)"},
        {"format", 1, &fmt, NULL, "F\ttable (default) or csv"},
        {"output", 1, &out, NULL, "FILE\twrite there (atomically) instead of standard output"},
        {"help", 0, NULL, &want_help, NULL},
        {NULL, 0, NULL, NULL, NULL},
    };
    const char *pos[1];
    int npos;
    int rc = elk_cli_parse(argc, argv, 2, &p, opts, pos, 0, &npos, "ablate");
    if (rc) return rc;
    if (want_help) {
        printf("usage: elk ablate [--orders [--times]] [--models LIST] [--format table|csv] [-o FILE] [design-point options]\n\n"
               "Is Elk's complexity worth it? For each model, the ladder from Basic to Elk-Full\n"
               "with one of the paper's ideas added at each step: preload numbers (Elk-Dyn's\n"
               "inductive scheduler with the artifact's memory charge), cost-aware allocation\n"
               "(Elk-Dyn with the paper's allocator), Elk-Full held to program order (its rules\n"
               "besides reordering), preload-order permutation (Elk-Full).\n"
               "Each step's gain is over the step before; Ideal is the bound. Elk-Full keeps the\n"
               "best schedule it can evaluate, so the last column says whether its order search\n"
               "or another policy's schedule won. Run it under both cost profiles\n"
               "(--profile paper, --profile physical; docs/VALIDATION.md, Ablation).\n\n"
               "With --orders, the preload-order search instead: Elk-Full against Elk-Dyn for\n"
               "displacement bounds 0..6 and HBM-heavy thresholds of 0.5 to 4 times the mean\n"
               "operator's bytes, with the orders tried and Elk-Full's solve time (its\n"
               "candidates' included; the table shows it, the CSV only with --times, since wall\n"
               "time differs between runs).\n\n");
        elk_cli_opts_help(stdout, opts);
        printf("\n");
        elk_cli_knob_help(stdout);
        return 0;
    }
    int csv;
    if ((rc = elk_cli_table_or_csv("ablate", fmt, &csv))) return rc;
    if (orders) {
        elk_file f;
        if ((rc = elk_cli_out_open(&f, out))) return rc;
        char list[1024];
        snprintf(list, sizeof list, "%s", models);
        char *save = NULL;
        int k = 0;
        for (char *tok = strtok_r(list, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save), k++)
            rc = run_orders(&p, tok, f.fp, csv, times, k == 0);
        return elk_cli_out_close(&f, rc);
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
    if ((rc = elk_cli_out_open(&f, out))) return rc;
    if (csv) write_csv(f.fp, L, n);
    else write_table(f.fp, L, n);
    return elk_cli_out_close(&f, 0);
}
