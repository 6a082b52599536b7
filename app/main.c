/* elk: git-style dispatcher for the workbench's subcommands. */
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <string.h>

#include "elk_cli.h"

#ifndef ELK_VERSION
#define ELK_VERSION "0.0.0"
#endif

typedef struct {
    const char *name;
    elk_cmd_fn fn;
    const char *summary;
} command;

static const command commands[] = {
    {"tui", elk_cmd_tui, "open the interactive workbench (the default with no arguments)"},
    {"run", elk_cmd_run, "plan one design point with every policy: latency, breakdown, utilisation"},
    {"plans", elk_cmd_plans, "one operator's partition plans and Pareto front (CSV)"},
    {"graph", elk_cmd_graph, "the operator graph of a model: per-operator table and totals"},
    {"validate", elk_cmd_validate, "check chip, model and sweep files; report problems with file:line"},
    {"import-hf", elk_cmd_import_hf, "turn a Hugging Face config.json into a model preset"},
    {"trace", elk_cmd_trace, "one policy's timeline as Chrome/Perfetto trace-event JSON"},
    {"sweep", elk_cmd_sweep, "run a sweep file over any knobs; tidy CSV out"},
    {"merge", elk_cmd_merge, "merge the CSV shards of a sweep"},
    {"plot", elk_cmd_plot, "draw a CSV with a gnuplot template (png, svg, pdf)"},
    {"reproduce", elk_cmd_reproduce, "re-run the paper's Figures 17-24 and write a summary"},
    {"gap", elk_cmd_gap, "the greedy scheduler's optimality gap against an exhaustive search (small graphs)"},
    {"check", elk_cmd_check, "check the model's invariants on seeded random design points"},
    {"fit", elk_cmd_fit, "fit a chip's cost-model coefficients to measured tiles (GSL least squares)"},
    {"bench", elk_cmd_bench, "time each stage of the pipeline on a design point"},
    {NULL, NULL, NULL},
};

static void usage(FILE *fp)
{
    fprintf(fp, "usage: elk [--help] [--version] <command> [options]\n\n");
    fprintf(fp, "Elk Workbench: design-space exploration for inter-core connected AI chips\n");
    fprintf(fp, "with HBM (the Elk compiler's planner, policies and simulator).\n\ncommands:\n");
    for (const command *c = commands; c->name; c++) fprintf(fp, "  %-10s %s\n", c->name, c->summary);
    fprintf(fp, "\nRun 'elk <command> --help' for a command's options.\n");
}

int main(int argc, char **argv)
{
    /* GSL's default error handler aborts the process; every GSL call in
     * core/ checks its status instead */
    gsl_set_error_handler_off();
    if (argc < 2) return elk_cmd_tui(argc, argv);
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        printf("elk %s\n", ELK_VERSION);
        return 0;
    }
    for (const command *c = commands; c->name; c++)
        if (!strcmp(c->name, cmd)) return c->fn(argc, argv);
    if (cmd[0] == '-') return elk_cmd_run(argc, argv);
    elk_cli_error("'%s' is not a command (see 'elk --help')", cmd);
    return ELK_EXIT_USAGE;
}
