/* elk tui (and `elk` with no arguments): the interactive workbench.
 * When stdin or stdout is not a terminal (scripts, CI, pipes) it prints
 * `elk run`'s table for the same design point instead, so nothing hangs. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elk_cli.h"
#include "elk_sched.h"
#include "tui_app.h"

static void usage(FILE *fp, const elk_opt *opts)
{
    fprintf(fp, "usage: elk tui [--view N] [--policy P] [--ascii] [--mono] [--plot-format png|svg]\n"
                "               [--log FILE] [--point FILE] [design-point options]\n\n"
                "The interactive workbench: a knob panel, seven views (1 Breakdown, 2 Pareto,\n"
                "3 Roofline, 4 Timeline, 5 Sweep, 6 Network, 7 Sensitivity), live recomputation\n"
                "as knobs turn, compare (b), undo (u), save and load points (w, o), CSV and\n"
                "gnuplot export. Press ? inside for every key. `elk` with no arguments opens it.\n"
                "When stdin or stdout is not a terminal it prints `elk run`'s table instead.\n\n");
    elk_cli_opts_help(fp, opts);
    fprintf(fp, "\n");
    elk_cli_knob_help(fp);
}

/* Not a terminal: `elk run` with the same design-point options (the
 * workbench's own options dropped). */
static int fallback_run(int argc, char **argv, int first, const elk_opt *opts)
{
    char **args = calloc((size_t)argc + 2, sizeof *args);
    if (!args) return ELK_EXIT_FAIL;
    int n = 0;
    args[n++] = argv[0];
    args[n++] = "run";
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        const elk_opt *o = NULL;
        if (!strncmp(a, "--", 2))
            for (int k = 0; opts[k].name; k++) {
                size_t l = strlen(opts[k].name);
                if (!strncmp(a + 2, opts[k].name, l) && (a[2 + l] == '\0' || a[2 + l] == '=')) o = &opts[k];
            }
        if (!o) {
            args[n++] = argv[i];
            continue;
        }
        if (o->has_arg && !strchr(a, '=')) i++;
    }
    args[n] = NULL;
    int rc = elk_cmd_run(n, args);
    free(args);
    return rc;
}

int elk_cmd_tui(int argc, char **argv)
{
    elk_point p;
    elk_point_defaults(&p);
    tui_opts o;
    tui_opts_default(&o);
    const char *view = NULL, *policy = NULL, *fmt = NULL, *log = NULL, *bench = NULL, *bench_which = NULL,
               *bench_out = NULL;
    int help = 0, ascii = 0, mono = 0;
    elk_opt opts[] = {
        {"view", 1, &view, NULL, "N\tstart on view N (its number or its name)"},
        {"policy", 1, &policy, NULL, "P\tfocused policy (basic, static, elk-dyn, elk-full, ideal)"},
        {"ascii", 0, NULL, &ascii, "ASCII drawing only (automatic when the locale is not UTF-8)"},
        {"mono", 0, NULL, &mono, "no colours (attributes only; also NO_COLOR=1)"},
        {"plot-format", 1, &fmt, NULL, "F\tfigure format for 'g': png (default) or svg"},
        {"log", 1, &log, NULL,
         "FILE\twhere stderr goes while the screen is active (default $XDG_STATE_HOME/elk/tui.log, else "
         "~/.local/state/elk/tui.log); never a symlink"},
        {"bench-knobs", 1, &bench, NULL,
         "N\tbenchmark (tests/bench_tui.sh): make N knob changes, timing each to the redraw that shows it"},
        {"bench-which", 1, &bench_which, NULL,
         "LIST\tthe knobs the benchmark cycles (comma list of hbm, hbm-ctrl, hbm-model, noc, link, cores, topology, "
         "sram, compute, chip, model, workload, batch, seq, layers, profile)"},
        {"bench-out", 1, &bench_out, NULL,
         "FILE\twhere the benchmark's timings go (default: standard output, after the terminal is restored)"},
        {"help", 0, NULL, &help, NULL},
        {NULL, 0, NULL, NULL, NULL},
    };
    const char *pos[1];
    int npos;
    /* `elk` alone arrives with argc 1; `elk tui ...` parses from argv[2] */
    int first = argc >= 2 && !strcmp(argv[1], "tui") ? 2 : 1;
    int rc = elk_cli_parse(argc, argv, first, &p, opts, pos, 0, &npos, "tui");
    if (rc) return rc;
    if (help) {
        usage(stdout, opts);
        return 0;
    }
    o.ascii = ascii;
    o.mono = mono;
    o.log_path = log;
    if (view && (o.start_view = elk_tui_view_find(view)) < 0) {
        char names[256];
        elk_tui_view_list(names, sizeof names);
        elk_cli_error("tui: --view \"%s\": expected %s", view, names);
        return ELK_EXIT_USAGE;
    }
    if (policy && (o.focus = elk_policy_find(policy)) < 0) {
        elk_cli_error("tui: --policy \"%s\": expected basic, static, elk-dyn, elk-full or ideal", policy);
        return ELK_EXIT_USAGE;
    }
    if (fmt) {
        if (strcmp(fmt, "png") && strcmp(fmt, "svg")) {
            elk_cli_error("tui: --plot-format \"%s\": expected png or svg", fmt);
            return ELK_EXIT_USAGE;
        }
        o.plot_format = fmt;
    }
    if (bench) {
        long n;
        if (elk_parse_long(bench, 1, 100000, &n)) {
            elk_cli_error("tui: --bench-knobs \"%s\": expected a count", bench);
            return ELK_EXIT_USAGE;
        }
        o.bench_knobs = (int)n;
        o.bench_which = bench_which;
        o.bench_out = bench_out;
    }
    /* the workbench's own options are checked first: a typo is an error
     * with or without a terminal */
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) return fallback_run(argc, argv, first, opts);
    return elk_tui_run(&p, &o);
}
