/* elk trace: arrives with its issue; owned by the engineer building it. */
#include "elk_cli.h"
int elk_cmd_trace(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    elk_cli_error("trace: this command is not available yet");
    return ELK_EXIT_FAIL;
}
