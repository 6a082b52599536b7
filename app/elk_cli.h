/* Command-line plumbing shared by every subcommand: one option parser that
 * knows the design-point knobs (elk_point) plus each command's own options,
 * and the usage/error conventions (exit 2 for usage, 1 for failures). */
#ifndef ELK_CLI_H
#define ELK_CLI_H

#include <stdio.h>

#include "elk_file.h"
#include "elk_point.h"
#include "elk_sched.h"

#define ELK_EXIT_FAIL 1
#define ELK_EXIT_USAGE 2

/* A command's own option: name without "--", whether it takes a value, and
 * where the value goes (NULL-terminated string pointer) or a flag int.
 * help is its line in the command's --help (elk_cli_opts_help): for an
 * option with a value, the value's name, a tab, then the text
 * ("FILE\twrite there (atomically) instead of standard output"); for a flag,
 * the text alone. NULL leaves the option out of the list: only --help
 * itself, which every command has. */
typedef struct {
    const char *name;
    int has_arg;
    const char **value;
    int *flag;
    const char *help;
} elk_opt;

/* Parse argv[first..]: design-point knobs into p (if non-NULL), command
 * options from opts (terminated by a NULL name), positionals into pos.
 * Prints the error and returns non-zero on bad input. */
int elk_cli_parse(int argc, char **argv, int first, elk_point *p, const elk_opt *opts,
                  const char **pos, int max_pos, int *npos, const char *cmd);

/* The one strict number parser for option values: the whole of s must be
 * a number (no blanks, no trailing text, no overflow; doubles finite) within
 * [lo, hi]. Otherwise prints "CMD: --OPT S: expected ... from LO to HI" and
 * returns ELK_EXIT_USAGE; 0 on success. */
int elk_cli_long(const char *cmd, const char *opt, const char *s, long lo, long hi, long *out);
int elk_cli_ulong(const char *cmd, const char *opt, const char *s, unsigned long hi, unsigned long *out);
int elk_cli_double(const char *cmd, const char *opt, const char *s, double lo, double hi, double *out);
/* The same test without printing: 0 when s is an integer in [lo, hi]. */
int elk_parse_long(const char *s, long lo, long hi, long *out);

/* Print the knob flags for --help. */
void elk_cli_knob_help(FILE *fp);
/* Print a command's options for --help from its table, one per help field,
 * in table order: "  -o, --output FILE  text", with the short form where
 * elk_cli_parse maps one; the texts in one column, two blanks after the
 * widest flag but at most at column 26 (the knobs'; a wider flag puts its
 * text on the next line), word-wrapped to 79 columns. */
void elk_cli_opts_help(FILE *fp, const elk_opt *opts);

/* Prepare a design point for the policies: allocates *pc and fills *pr, or
 * prints the error and returns ELK_EXIT_FAIL (nothing left to free). */
int elk_cli_problem(const elk_point *p, elk_plan_cache **pc, elk_problem *pr);

/* The small pieces every reporting command shares (elk ablate, noise,
 * controllers, balance, sensitivity): each prints its own error and returns
 * an exit status, 0 on success. */
/* Output FILE, atomically, or standard output for NULL or "-". */
int elk_cli_out_open(elk_file *f, const char *path);
/* Commit it when rc is 0 (a write error becomes ELK_EXIT_FAIL), else drop
 * it; returns the command's exit status. */
int elk_cli_out_close(elk_file *f, int rc);
/* --policy S of command cmd. */
int elk_cli_policy(const char *cmd, const char *s, elk_policy *out);
/* --format S of a command that writes a table or a CSV: *csv = 1 for csv. */
int elk_cli_table_or_csv(const char *cmd, const char *s, int *csv);
/* The chip and model of a design point, or the error printed. */
int elk_cli_resolve(const elk_point *p, elk_chip *c, elk_model *m);

/* Error printing: "elk: message". */
void elk_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

typedef int (*elk_cmd_fn)(int argc, char **argv);
/* Every subcommand, in `elk --help` order: X(function suffix, name,
 * summary). Adding a command is app/cmd_NAME.c with elk_cmd_NAME and a row
 * here; main.c's table, the declarations and the shell completions (which
 * read `elk --help`) follow. */
#define ELK_COMMANDS(X)                                                                                              \
    X(tui, "tui", "open the interactive workbench (the default with no command, on a terminal)")                     \
    X(run, "run", "plan one design point with every policy: latency, breakdown, utilisation")                         \
    X(plans, "plans", "one operator's partition plans and Pareto front (CSV)")                                       \
    X(graph, "graph", "the operator graph of a model: per-operator table and totals")                                \
    X(validate, "validate", "check chip, model, sweep and point files; report problems with file:line")               \
    X(import_hf, "import-hf", "turn a Hugging Face config.json into a model preset")                                  \
    X(trace, "trace", "one policy's timeline as Chrome/Perfetto trace-event JSON")                                   \
    X(sweep, "sweep", "run a sweep file over any knobs; tidy CSV out")                                               \
    X(merge, "merge", "merge the CSV shards of a sweep")                                                             \
    X(plot, "plot", "draw a CSV with a gnuplot template (png, svg, pdf)")                                            \
    X(reproduce, "reproduce", "re-run the paper's Figures 17-24 and write a summary")                                \
    X(gap, "gap", "the greedy scheduler's optimality gap (small graphs); --bound: against a realisable bound")             \
    X(ablate, "ablate", "is the complexity worth it: Basic to Elk-Full one idea at a time, per model")               \
    X(noise, "noise", "what if the cost model is wrong: plan with seeded errors, time with the truth")               \
    X(balance, "balance", "where more of one resource stops paying: the knee and the bound")                         \
    X(sensitivity, "sensitivity", "which knob matters here: each one step down and up, ranked (tornado)")            \
    X(controllers, "controllers", "one broadcasting HBM against N controllers, by topology (simulated)")             \
    X(check, "check", "check the model's invariants on seeded random design points")                                 \
    X(fit, "fit", "fit a chip's cost-model coefficients to measured tiles (GSL least squares)")                      \
    X(bench, "bench", "time each stage of the pipeline on a design point")

#define ELK_CMD_DECL(fn, name, summary) int elk_cmd_##fn(int argc, char **argv);
ELK_COMMANDS(ELK_CMD_DECL)
#undef ELK_CMD_DECL

#endif
