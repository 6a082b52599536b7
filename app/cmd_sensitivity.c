/* elk sensitivity: which knob matters at this point? Each resource knob one
 * step down and up (core/elk_balance), ranked, as a table, a CSV, or a
 * tornado chart through gnuplot (plots/tornado.gp). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elk_balance.h"
#include "elk_cli.h"
#include "elk_csv.h"
#include "elk_file.h"
#include "elk_gnuplot.h"

static void fmt_val(char *b, size_t n, double v) { snprintf(b, n, "%.4g", v); }

int elk_cmd_sensitivity(int argc, char **argv)
{
    elk_point p;
    elk_point_defaults(&p);
    const char *pol_s = "elk-full", *fmt = "table", *out = NULL, *plot = NULL;
    int want_help = 0;
    elk_opt opts[] = {
        {"policy", 1, &pol_s, NULL, "P\twhose latency (default elk-full)"},
        {"format", 1, &fmt, NULL, "F\ttable (default) or csv"},
        {"output", 1, &out, NULL, "FILE\tthe table or CSV there (atomically) instead of stdout"},
        {"plot", 1, &plot, NULL, "FIG\talso draw the tornado chart (png, svg or pdf by extension)"},
        {"help", 0, NULL, &want_help, NULL},
        {NULL, 0, NULL, NULL, NULL},
    };
    const char *pos[1];
    int npos;
    int rc = elk_cli_parse(argc, argv, 2, &p, opts, pos, 0, &npos, "sensitivity");
    if (rc) return rc;
    if (want_help) {
        printf("usage: elk sensitivity [--policy P] [--format table|csv] [-o FILE] [--plot FIG.png|svg|pdf]\n"
               "                       [design-point options]\n\n"
               "Which knob matters here? Each resource knob moved one step down and up (the\n"
               "workbench's steps: HBM +-1 TB/s, NoC and compute scale +-0.25, link x/ 1.25,\n"
               "cores by one chip, SRAM +-64 KiB, batch and sequence x/ 2), the policy's latency\n"
               "at each, ranked by the larger change. --plot draws the ranking as a tornado\n"
               "chart with gnuplot.\n\n");
        elk_cli_opts_help(stdout, opts);
        printf("\n");
        elk_cli_knob_help(stdout);
        return 0;
    }
    elk_policy pol;
    int csv;
    if ((rc = elk_cli_policy("sensitivity", pol_s, &pol)) || (rc = elk_cli_table_or_csv("sensitivity", fmt, &csv)))
        return rc;
    elk_chip c;
    elk_model m;
    elk_error err;
    if ((rc = elk_cli_resolve(&p, &c, &m))) return rc;
    elk_plan_cache *pc = elk_plan_cache_alloc();
    elk_sens s;
    elk_status st = pc ? elk_sensitivity_run(&p, (elk_policy)pol, pc, &s, &err) : ELK_ENOMEM;
    elk_plan_cache_free(pc);
    if (st != ELK_OK) {
        elk_cli_error("%s", st == ELK_ENOMEM && !pc ? "out of memory" : err.msg);
        return ELK_EXIT_FAIL;
    }
    /* the tornado's data, also the CSV */
    char data[8192];
    size_t dl = 0;
    dl += (size_t)snprintf(data + dl, sizeof data - dl, "knob,label,value,down,down_ms,down_pct,up,up_ms,up_pct\n");
    char labels[1024] = "";
    for (int i = 0; i < s.n; i++) {
        const elk_sens_row *r = &s.row[i];
        const elk_knob_info *ki = &elk_knobs[r->knob];
        char line[512];
        size_t len = 0;
        elk_csv_cat(line, sizeof line, &len, 1, ki->name);
        elk_csv_cat(line, sizeof line, &len, 0, ki->label);
        elk_csv_cat_num(line, sizeof line, &len, 0, r->value);
        elk_csv_cat_num(line, sizeof line, &len, 0, r->have_down ? r->down : NAN);
        elk_csv_cat_num(line, sizeof line, &len, 0, r->have_down ? r->ms_down : NAN);
        elk_csv_cat_num(line, sizeof line, &len, 0, r->have_down ? 100 * (r->ms_down / s.base_ms - 1) : NAN);
        elk_csv_cat_num(line, sizeof line, &len, 0, r->have_up ? r->up : NAN);
        elk_csv_cat_num(line, sizeof line, &len, 0, r->have_up ? r->ms_up : NAN);
        elk_csv_cat_num(line, sizeof line, &len, 0, r->have_up ? 100 * (r->ms_up / s.base_ms - 1) : NAN);
        dl += (size_t)snprintf(data + dl, sizeof data - dl, "%s\n", line);
        size_t ll = strlen(labels);
        snprintf(labels + ll, sizeof labels - ll, "%s%s", i ? " " : "", ki->name);
    }
    elk_file f;
    if ((rc = elk_cli_out_open(&f, out))) return rc;
    char prof[96];
    elk_profile_format(c.profile, prof, sizeof prof);
    if (csv) {
        fputs(data, f.fp);
    } else {
        fprintf(f.fp, "%s on %s (%s cost profile): %s %.4f ms; each knob one step down and up, ranked\n\n",
                m.name, c.name, prof, elk_policy_labels[pol], s.base_ms);
        fprintf(f.fp, "%-16s %10s   %-26s %-26s\n", "knob", "now", "one step down", "one step up");
        for (int i = 0; i < s.n; i++) {
            const elk_sens_row *r = &s.row[i];
            char v[32], d[64] = "refused", u[64] = "refused", a[32];
            fmt_val(v, sizeof v, r->value);
            if (r->have_down) {
                fmt_val(a, sizeof a, r->down);
                snprintf(d, sizeof d, "%s: %.4f ms (%+.1f%%)", a, r->ms_down, 100 * (r->ms_down / s.base_ms - 1));
            }
            if (r->have_up) {
                fmt_val(a, sizeof a, r->up);
                snprintf(u, sizeof u, "%s: %.4f ms (%+.1f%%)%s", a, r->ms_up, 100 * (r->ms_up / s.base_ms - 1),
                         r->carried_up ? " *" : "");
            }
            fprintf(f.fp, "%-16s %10s   %-26s %-26s\n", elk_knobs[r->knob].name, v, d, u);
        }
        int carried = 0;
        for (int i = 0; i < s.n; i++) carried |= s.row[i].carried_up;
        if (carried)
            fprintf(f.fp, "\n* carried: this point's own schedule re-timed there, faster than the search found at "
                          "that point (docs/SWEEPS.md, Carried schedules)\n");
    }
    if ((rc = elk_cli_out_close(&f, 0))) return rc;
    if (plot) {
        elk_gp_job j;
        elk_gp_job_init(&j, "tornado", data, plot);
        j.width = 900;
        j.height = 120 + 40 * s.n;
        char title[512];
        snprintf(title, sizeof title, "Which knob matters: %s on %s, %s %.3f ms (%s)", m.name, c.name,
                 elk_policy_labels[pol], s.base_ms, prof);
        static const char *const empty[] = {"xcol", "ycol", "seriescol", "series_values", "rowcols", "colcols",
                                            "row_values", "col_values", "clustercols", "cluster_values", "ylabel",
                                            "logx", "logy", "roof_compute", "roof_bw"};
        st = ELK_OK;
        for (size_t i = 0; i < sizeof empty / sizeof empty[0] && st == ELK_OK; i++) st = elk_gp_set(&j, empty[i], "", &err);
        if (st == ELK_OK) st = elk_gp_set(&j, "plottitle", title, &err);
        if (st == ELK_OK) st = elk_gp_set(&j, "xlabel", "latency change, % (one knob step)", &err);
        if (st == ELK_OK) st = elk_gp_set(&j, "tornado_labels", labels, &err);
        if (st == ELK_OK) st = elk_gp_render(&j, &err);
        if (st != ELK_OK) {
            elk_cli_error("sensitivity: %s", err.msg);
            return ELK_EXIT_FAIL;
        }
    }
    return 0;
}
