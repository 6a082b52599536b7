/* elk sweep: arrives with its issue; owned by the engineer building it. */
#include "elk_cli.h"
int elk_cmd_sweep(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    elk_cli_error("sweep: this command is not available yet");
    return ELK_EXIT_FAIL;
}
int elk_cmd_merge(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    elk_cli_error("merge: this command is not available yet");
    return ELK_EXIT_FAIL;
}
int elk_cmd_reproduce(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    elk_cli_error("reproduce: this command is not available yet");
    return ELK_EXIT_FAIL;
}
