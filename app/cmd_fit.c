/* elk fit: fit a chip's cost-model coefficients to measured tiles with
 * GSL least squares and report the fit error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elk_cli.h"
#include "elk_file.h"
#include "elk_fit.h"

static void help(const elk_opt *opts)
{
    printf("usage: elk fit MEASUREMENTS.csv [design-point options]\n"
           "       elk fit --synthesize N [--sigma S] [--seed K] [-o OUT.csv] [design-point options]\n\n"
           "Fits the IPU-style cost model to tiles measured on one core: MatMul as\n"
           "  cycles = a*ceil(m/6)*ceil(k/16)*ceil(n/16) + b*ceil(k/16)*ceil(n/16) + c*ceil(n/16) + d\n"
           "and elementwise as cycles = slope*n + fixed, by weighted linear least squares\n"
           "(GSL; relative errors weighted equally). Prints the coefficients with their standard\n"
           "errors, R^2 and the relative fit error, and the lines to paste into a chip preset's\n"
           "cost group. The CSV header is kind,m,n,k,cycles (kind matmul or elemwise; m and k\n"
           "empty for elemwise).\n\n"
           "--synthesize N makes N measurements from the chip's own formulas with Gaussian\n"
           "noise of relative size S (default 0.05) and fits them, or with -o writes them to\n"
           "OUT.csv instead. The chip comes from --chip and the other design-point options.\n\n");
    elk_cli_opts_help(stdout, opts);
    printf("\n");
    elk_cli_knob_help(stdout);
}

int elk_cmd_fit(int argc, char **argv)
{
    elk_point p;
    elk_point_defaults(&p);
    const char *synth = NULL, *sigma_s = "0.05", *seed_s = "1", *outp = NULL;
    int want_help = 0;
    elk_opt opts[] = {
        {"synthesize", 1, &synth, NULL,
         "N\tmake N measurements (10 to 1e7) from the chip's own formulas with Gaussian noise, and fit them"},
        {"sigma", 1, &sigma_s, NULL, "S\tthe noise's relative size (at least 0 and below 1, default 0.05)"},
        {"seed", 1, &seed_s, NULL, "K\tthe random seed (default 1)"},
        {"output", 1, &outp, NULL, "OUT.csv\twith --synthesize: write the measurements there instead of fitting them"},
        {"help", 0, NULL, &want_help, NULL},
        {NULL, 0, NULL, NULL, NULL},
    };
    const char *pos[1];
    int npos;
    int rc = elk_cli_parse(argc, argv, 2, &p, opts, pos, 1, &npos, "fit");
    if (rc) return rc;
    if (want_help) {
        help(opts);
        return 0;
    }
    if (!npos && !synth) {
        elk_cli_error("fit: expected MEASUREMENTS.csv or --synthesize N (see 'elk fit --help')");
        return ELK_EXIT_USAGE;
    }
    if (npos && synth) {
        elk_cli_error("fit: give MEASUREMENTS.csv or --synthesize N, not both");
        return ELK_EXIT_USAGE;
    }
    long nsynth = 0;
    double sigma = 0;
    unsigned long seed = 0;
    if (synth && (rc = elk_cli_long("fit", "synthesize", synth, 10, 10000000, &nsynth))) return rc;
    if ((rc = elk_cli_double("fit", "sigma", sigma_s, 0, 1, &sigma))) return rc;
    if (sigma >= 1) { /* a relative noise of 100% would make negative cycles */
        elk_cli_error("fit: --sigma %s: expected a number from 0 to below 1", sigma_s);
        return ELK_EXIT_USAGE;
    }
    if ((rc = elk_cli_ulong("fit", "seed", seed_s, 0xffffffffUL, &seed))) return rc;
    elk_error err;
    elk_chip c;
    elk_model m;
    if (elk_point_resolve(&p, &c, &m, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        return ELK_EXIT_FAIL;
    }
    elk_fit_sample *s = NULL;
    int n = 0;
    if (synth) {
        if (elk_fit_synthesize(&c, (int)nsynth, sigma, seed, &s, &err) != ELK_OK) {
            elk_cli_error("%s", err.msg);
            return ELK_EXIT_FAIL;
        }
        n = (int)nsynth;
        if (outp) {
            elk_file of;
            if (elk_file_open(&of, outp, &err) != ELK_OK) {
                elk_cli_error("fit: %s", err.msg);
                free(s);
                return ELK_EXIT_FAIL;
            }
            fprintf(of.fp, "kind,m,n,k,cycles\n");
            for (int i = 0; i < n; i++) {
                if (s[i].kind == ELK_FIT_MATMUL)
                    fprintf(of.fp, "matmul,%.0f,%.0f,%.0f,%.3f\n", s[i].m, s[i].n, s[i].k, s[i].cycles);
                else
                    fprintf(of.fp, "elemwise,,%.0f,,%.3f\n", s[i].n, s[i].cycles);
            }
            int to_stdout = of.kind == ELK_FILE_STDOUT;
            if (elk_file_commit(&of, &err) != ELK_OK) {
                elk_cli_error("fit: %s", err.msg);
                free(s);
                return ELK_EXIT_FAIL;
            }
            fprintf(to_stdout ? stderr : stdout, "wrote %d measurements to %s\n", n, to_stdout ? "stdout" : outp);
            free(s);
            return 0;
        }
    } else if (elk_fit_read_csv(pos[0], &s, &n, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        return ELK_EXIT_FAIL;
    }
    elk_fit_result res[ELK_FIT_KINDS];
    if (elk_fit_run(s, n, res, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        free(s);
        return ELK_EXIT_FAIL;
    }
    static const char *const mm_names[] = {"mm_block", "mm_kn", "mm_n", "mm_fixed"};
    static const char *const el_names[] = {"elem_slope2", "elem_fixed2"};
    for (int k = 0; k < ELK_FIT_KINDS; k++) {
        const elk_fit_result *r = &res[k];
        if (!r->nsamples) continue;
        printf("%s: %d measurements, R^2 %.6f, relative error rms %.2f%%, max %.2f%%\n",
               k == ELK_FIT_MATMUL ? "matmul" : "elemwise", r->nsamples, r->r2, 100 * r->rms_rel, 100 * r->max_rel);
        for (int j = 0; j < r->ncoef; j++)
            printf("  %-12s %12.4f  +- %.4f\n", k == ELK_FIT_MATMUL ? mm_names[j] : el_names[j], r->coef[j],
                   r->stderr_[j]);
    }
    printf("\nfor the chip preset's cost group (kind = \"ipu\"):\n");
    for (int k = 0; k < ELK_FIT_KINDS; k++)
        for (int j = 0; j < res[k].ncoef; j++)
            printf("    %s = %.4f;\n", k == ELK_FIT_MATMUL ? mm_names[j] : el_names[j], res[k].coef[j]);
    free(s);
    return 0;
}
