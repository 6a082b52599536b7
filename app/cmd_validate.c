/* elk validate: check preset, sweep and point files; every problem with file:line. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "elk_cfg.h"
#include "elk_chip.h"
#include "elk_cli.h"
#include "elk_model.h"
#include "elk_sweep.h"

int elk_cmd_validate(int argc, char **argv)
{
    int want_help = 0;
    elk_opt opts[] = {{"help", 0, NULL, &want_help, NULL}, {NULL, 0, NULL, NULL, NULL}};
    const char *pos[256];
    int npos;
    int rc = elk_cli_parse(argc, argv, 2, NULL, opts, pos, 256, &npos, "validate");
    if (rc) return rc;
    if (want_help) {
        printf("usage: elk validate FILE...\n\nChecks chip and model presets, sweeps and saved design points (elk tui 'w');\nprints 'FILE: ok' "
               "or the first problem of each file with file:line. Exit status 1 if any file is bad.\n");
        elk_cli_opts_help(stdout, opts); /* none but --help today */
        return 0;
    }
    if (npos == 0) {
        elk_cli_error("validate: expected one or more FILEs to check (see 'elk validate --help')");
        return ELK_EXIT_USAGE;
    }
    int bad = 0;
    for (int i = 0; i < npos; i++) {
        elk_error err;
        char kind[64];
        struct stat sb;
        elk_status st = stat(pos[i], &sb) == 0 && S_ISDIR(sb.st_mode)
                            ? elk_fail(&err, ELK_EIO, "%s: is a directory, not a preset or sweep file", pos[i])
                            : elk_cfg_peek_kind(pos[i], kind, sizeof kind, &err);
        if (st == ELK_OK) {
            if (!strcmp(kind, "chip")) {
                elk_chip c;
                st = elk_chip_load(pos[i], &c, &err);
            } else if (!strcmp(kind, "model")) {
                elk_model m;
                st = elk_model_load(pos[i], &m, &err);
            } else if (!strcmp(kind, "point")) {
                elk_point pt;
                elk_point_defaults(&pt);
                st = elk_point_load(pos[i], &pt, &err);
            } else if (!strcmp(kind, "sweep")) {
                elk_sweep sw;
                st = elk_sweep_load(pos[i], &sw, &err);
                if (st == ELK_OK) elk_sweep_free(&sw);
            } else {
                st = elk_fail(&err, ELK_EUNKNOWN, "%s:1: unknown top-level setting '%s' (expected chip, model, point or sweep)",
                              pos[i], kind);
            }
        }
        if (st == ELK_OK) {
            printf("%s: ok (%s)\n", pos[i], kind);
        } else {
            fprintf(stderr, "%s\n", err.msg);
            bad = 1;
        }
    }
    return bad ? ELK_EXIT_FAIL : 0;
}
