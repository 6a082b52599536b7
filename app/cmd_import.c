/* elk import-hf: placeholder wiring, implemented in elk_hf. */
#include "elk_cli.h"
int elk_cmd_import_hf(int argc, char **argv) { (void)argc; (void)argv; elk_cli_error("import-hf: not built yet"); return 1; }
