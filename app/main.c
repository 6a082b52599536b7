/* elk: git-style dispatcher for the workbench's subcommands. */
#include <errno.h>
#include <gsl/gsl_errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "elk_cli.h"
#include "elk_file.h"

#ifndef ELK_VERSION
#define ELK_VERSION "0.0.0"
#endif

typedef struct {
    const char *name;
    elk_cmd_fn fn;
    const char *summary;
} command;

static const command commands[] = {
#define ELK_CMD_ROW(fn, name, summary) {name, elk_cmd_##fn, summary},
    ELK_COMMANDS(ELK_CMD_ROW)
#undef ELK_CMD_ROW
    {NULL, NULL, NULL},
};

static void usage(FILE *fp)
{
    fprintf(fp, "usage: elk [--help] [--version] [--datadir] <command> [options]\n\n");
    fprintf(fp, "Elk Workbench: design-space exploration for inter-core connected AI chips\n");
    fprintf(fp, "with HBM (the Elk compiler's planner, policies and simulator).\n\ncommands:\n");
    for (const command *c = commands; c->name; c++) fprintf(fp, "  %-10s %s\n", c->name, c->summary);
    fprintf(fp, "\nRun 'elk <command> --help' for a command's options.\n");
}

/* A fatal signal removes the temporary files of outputs being written (an
 * interrupted `elk sweep -o OUT.csv` leaves no OUT.csv.tmp-XXXXXX), then
 * dies of the signal as usual. Commands that handle a signal themselves (the
 * sweep's Ctrl-C, the TUI) install their own handlers over this one. */
static void on_fatal(int sig)
{
    elk_file_cleanup_temps();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_cleanup(void)
{
    /* every signal whose default action ends the process, except the
     * core-dumping faults (the temporaries of a crash are evidence) */
    static const int sigs[] = {SIGINT,  SIGTERM,   SIGHUP,  SIGQUIT, SIGUSR1, SIGUSR2,
                               SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGPIPE};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        /* keep an inherited SIG_IGN (nohup, background jobs) */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaction(sigs[i], &sa, NULL);
    }
}

/* `elk --model tiny` on a terminal opens the workbench on that point, as
 * `elk` alone does; with one of `elk run`'s own options, or without a
 * terminal, it is `elk run`. */
static int wants_run(int argc, char **argv)
{
    static const char *const run_only[] = {"--format", "--ops", "--sim", "--allocator", "--max-disp", "--heavy-factor", NULL};
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) return 1;
    for (int i = 1; i < argc; i++)
        for (int k = 0; run_only[k]; k++) {
            size_t l = strlen(run_only[k]);
            if (!strncmp(argv[i], run_only[k], l) && (argv[i][l] == '\0' || argv[i][l] == '=')) return 1;
        }
    return 0;
}

static int dispatch(int argc, char **argv)
{
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
    if (!strcmp(cmd, "--datadir")) { /* where presets, sweeps and plots are read from */
        printf("%s\n", elk_datadir());
        return 0;
    }
    for (const command *c = commands; c->name; c++)
        if (!strcmp(c->name, cmd)) return c->fn(argc, argv);
    if (cmd[0] == '-') return wants_run(argc, argv) ? elk_cmd_run(argc, argv) : elk_cmd_tui(argc, argv);
    elk_cli_error("'%s' is not a command (see 'elk --help')", cmd);
    return ELK_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    /* GSL's default error handler aborts the process; every GSL call in
     * core/ checks its status instead */
    gsl_set_error_handler_off();
    install_cleanup();
    int rc = dispatch(argc, argv);
    /* Every command's standard output is checked once, here: a full disk or
     * a closed pipe must not pass for success with the output cut short. */
    errno = 0;
    if (fflush(stdout) != 0) {
        elk_cli_error("write error: %s", strerror(errno ? errno : EIO));
        if (rc == 0) rc = ELK_EXIT_FAIL;
    } else if (ferror(stdout) && rc == 0) {
        /* an earlier write failed and nobody said so (a failed command
         * has already printed its error) */
        elk_cli_error("write error on standard output");
        rc = ELK_EXIT_FAIL;
    }
    return rc;
}
