/* elk plot: draw a CSV (a sweep's, a merge's, elk plans') with a gnuplot
 * template from plots/, to png, svg or pdf (the terminal follows the
 * extension). The figure hints a sweep writes into its CSV pick the columns;
 * options override them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "elk_cli.h"
#include "elk_csv.h"
#include "elk_file.h"
#include "elk_gnuplot.h"
#include "elk_sweep.h"



static void usage(FILE *fp, const elk_opt *opts)
{
    fprintf(fp,
            "usage: elk plot CSV [--kind K] [-o FIG.png|svg|pdf] [--script FILE.gp]\n"
            "                [--x COL] [--y COL] [--series COL] [--row COLS] [--col COLS]\n"
            "                [--cluster COLS] [--title T] [--xlabel T] [--ylabel T] [--logx] [--logy]\n\n"
            "Draws a CSV with the gnuplot template plots/K.gp. The data go to gnuplot as an inline\n"
            "datablock through a pipe; the output format follows the extension (png: pngcairo or png,\n"
            "svg, pdf: pdfcairo). A sweep's CSV carries figure hints (kind, columns, facets); options\n"
            "override them. COLS is a space-separated list of columns ('hbm_tbps noc_scale').\n\n"
            "kinds: lines (y against a knob, one line per policy), bars (grouped bars),\n"
            "       breakdown (stacked latency breakdown), util (breakdown, HBM, NoC, TFLOPS),\n"
            "       roofline (TFLOPS against FLOP per HBM byte), pareto (elk plans' fronts)\n\n");
    elk_cli_opts_help(fp, opts);
    fprintf(fp, "\nExit status 1 when gnuplot is missing or fails (its message is shown).\n");
}

/* The options of elk plot, where its elk_opt table puts them. */
typedef struct {
    const char *kind, *output, *script, *x, *y, *series, *row, *col, *cluster, *title, *xlabel, *ylabel;
    int help, logx, logy, nodraw;
} plot_args;

/* Without -o: the CSV's name with .png, which must not exist yet. */
static int default_output(const char *csv, int nodraw, char *outbuf, size_t n)
{
    if (!strcmp(csv, "-")) {
        elk_cli_error("plot: reading stdin: give the figure with -o FIG.png");
        return ELK_EXIT_USAGE;
    }
    snprintf(outbuf, n, "%s", csv);
    char *dot = strrchr(outbuf, '.'), *slash = strrchr(outbuf, '/');
    if (dot && (!slash || dot > slash)) *dot = '\0';
    size_t l = strlen(outbuf);
    snprintf(outbuf + l, n - l, ".png");
    /* a name the user did not give: never replace a figure silently */
    struct stat sb;
    if (!nodraw && stat(outbuf, &sb) == 0) {
        elk_cli_error("plot: %s exists; give -o %s to replace it, or -o another name", outbuf, outbuf);
        return ELK_EXIT_FAIL;
    }
    return 0;
}

/* The figure: the CSV's hints (its second comment line), overridden by the
 * options; *name is the sweep's name from its first comment line (in *id),
 * or NULL. */
static void figure_from(const plot_args *a, const elk_csv_table *t, const char *csv, elk_sweep_figure *f,
                        elk_sweep_ident *id, const char **name)
{
    elk_sweep_figure_parse(t->ncomments > 1 ? t->comments[1] : NULL, f);
    *name = NULL;
    if (t->ncomments > 0 && elk_sweep_ident_parse(t->comments[0], id, NULL) == ELK_OK) *name = id->name;
    if (a->kind && f->kind >= 0 && strcmp(a->kind, elk_fig_kind_names[f->kind]) != 0) {
        /* another kind than the sweep's: keep its facets and series, not its axes */
        f->x[0] = f->y[0] = f->cluster[0] = f->xlabel[0] = f->ylabel[0] = '\0';
    }
    struct {
        const char *v;
        char *dst;
        size_t n;
    } ov[] = {{a->x, f->x, sizeof f->x},
              {a->y, f->y, sizeof f->y},
              {a->series, f->series, sizeof f->series},
              {a->row, f->row, sizeof f->row},
              {a->col, f->col, sizeof f->col},
              {a->cluster, f->cluster, sizeof f->cluster},
              {a->title, f->title, sizeof f->title},
              {a->xlabel, f->xlabel, sizeof f->xlabel},
              {a->ylabel, f->ylabel, sizeof f->ylabel}};
    /* another y than the figure's: its title and y label described the old
     * one, so they go (unless given), and the title says what is drawn */
    char hint_y[sizeof f->y];
    snprintf(hint_y, sizeof hint_y, "%s", f->y);
    int y_changed = a->y && strcmp(a->y, hint_y) != 0;
    for (size_t i = 0; i < sizeof ov / sizeof ov[0]; i++)
        if (ov[i].v) snprintf(ov[i].dst, ov[i].n, "%s", ov[i].v);
    if (y_changed) {
        if (!a->ylabel) f->ylabel[0] = '\0';
        if (!a->title) {
            const char *what = a->y;
            for (int m = 0; m < elk_sweep_nmetrics; m++)
                if (!strcmp(elk_sweep_metrics[m].name, a->y)) what = elk_sweep_metrics[m].doc;
            const char *of = *name ? *name : csv;
            snprintf(f->title, sizeof f->title, "%.90s (%.60s)", what, of);
        }
    }
    if (a->logx) f->logx = 1;
    if (a->logy) f->logy = 1;
}

/* --script FILE.gp: the self-contained script, atomically. */
static int write_script(const elk_gp_job *job, const char *output, const char *script)
{
    elk_error err;
    elk_file sf;
    const char *base = strrchr(output, '/') ? strrchr(output, '/') + 1 : output;
    if (elk_file_open(&sf, script, &err) != ELK_OK) {
        elk_cli_error("plot: %s", err.msg);
        return ELK_EXIT_FAIL;
    }
    if (elk_gp_script(job, base, sf.fp, &err) != ELK_OK) {
        elk_cli_error("plot: %s: %s", script, err.msg);
        elk_file_abort(&sf);
        return ELK_EXIT_FAIL;
    }
    if (elk_file_commit(&sf, &err) != ELK_OK) {
        elk_cli_error("plot: %s", err.msg);
        return ELK_EXIT_FAIL;
    }
    return 0;
}

int elk_cmd_plot(int argc, char **argv)
{
    plot_args a;
    memset(&a, 0, sizeof a);
    elk_opt opts[] = {
        {"kind", 1, &a.kind, NULL, "K\tthe template, one of the kinds above"},
        {"output", 1, &a.output, NULL,
         "FIG\tfigure to write (default: the CSV's name with .png, which must not exist yet: only a name "
         "given with -o is replaced)"},
        {"script", 1, &a.script, NULL,
         "FILE.gp\talso write the self-contained gnuplot script (with --no-draw: only the script; gnuplot "
         "not needed)"},
        {"no-draw", 0, NULL, &a.nodraw, "do not run gnuplot"},
        {"x", 1, &a.x, NULL, "COL\tthe column for the x axis"},
        {"y", 1, &a.y, NULL, "COL\tthe column for the y axis"},
        {"series", 1, &a.series, NULL, "COL\tthe column of the series (default policy)"},
        {"row", 1, &a.row, NULL, "COLS\tfacet rows"},
        {"col", 1, &a.col, NULL, "COLS\tfacet columns"},
        {"cluster", 1, &a.cluster, NULL, "COLS\tbar clusters"},
        {"title", 1, &a.title, NULL, "T\tthe title"},
        {"xlabel", 1, &a.xlabel, NULL, "T\tthe x axis' label (default: the column with its unit)"},
        {"ylabel", 1, &a.ylabel, NULL, "T\tthe y axis' label (default: the column with its unit)"},
        {"logx", 0, NULL, &a.logx, "logarithmic x axis"},
        {"logy", 0, NULL, &a.logy, "logarithmic y axis"},
        {"help", 0, NULL, &a.help, NULL},
        {NULL, 0, NULL, NULL, NULL},
    };
    const char *pos[2];
    int npos;
    int rc = elk_cli_parse(argc, argv, 2, NULL, opts, pos, 1, &npos, "plot");
    if (rc) return rc;
    if (a.help) {
        usage(stdout, opts);
        return 0;
    }
    if (npos != 1) {
        usage(stderr, opts);
        return ELK_EXIT_USAGE;
    }
    const char *csv = pos[0];
    char outbuf[1024];
    const char *output = a.output;
    int defaulted = 0;
    if (!output) {
        if ((rc = default_output(csv, a.nodraw, outbuf, sizeof outbuf))) return rc;
        output = outbuf;
        defaulted = 1;
    }
    char *text;
    elk_csv_table t;
    elk_error err;
    if (elk_csv_slurp(csv, &text, &err) != ELK_OK) {
        elk_cli_error("plot: %s", err.msg);
        return ELK_EXIT_FAIL;
    }
    if (elk_csv_parse(text, csv, &t, &err) != ELK_OK) {
        elk_cli_error("plot: %s", err.msg);
        free(text);
        return ELK_EXIT_FAIL;
    }
    elk_sweep_figure f;
    elk_sweep_ident id;
    const char *name;
    figure_from(&a, &t, csv, &f, &id, &name);
    const char *kind = a.kind ? a.kind : f.kind >= 0 ? elk_fig_kind_names[f.kind] : "lines";
    elk_gp_job job;
    elk_gp_job_init(&job, kind, text, output);
    int status = 0;
    if (elk_gp_from_csv(&job, &t, &f, name ? name : csv, &err) != ELK_OK) {
        elk_cli_error("plot: %s: %s", csv, err.msg);
        status = ELK_EXIT_FAIL;
    }
    if (!status && a.script) status = write_script(&job, output, a.script);
    if (!status && !a.nodraw && elk_gp_render(&job, &err) != ELK_OK) {
        elk_cli_error("plot: %s", err.msg);
        status = ELK_EXIT_FAIL;
    }
    if (!status && !a.nodraw && defaulted) fprintf(stderr, "elk: plot: wrote %s\n", output);
    elk_csv_free(&t);
    free(text);
    return status;
}
