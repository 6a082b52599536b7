/* elk tui: arrives with its issue; owned by the engineer building it. */
#include "elk_cli.h"
int elk_cmd_tui(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    elk_cli_error("tui: this command is not available yet");
    return ELK_EXIT_FAIL;
}
