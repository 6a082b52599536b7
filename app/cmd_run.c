#include "elk_cli.h"
int elk_cmd_run(int argc, char **argv) { (void)argc; (void)argv; elk_cli_error("run: not built yet"); return 1; }

int elk_cmd_bench(int argc, char **argv) { (void)argc; (void)argv; return 1; }
