/* Where the workbench's log goes: standard error while the screen is
 * active, and gnuplot's messages from `g` exports (issue 12: it was one
 * fixed file in the shared /tmp, which another user could own or replace
 * with a symlink).
 *
 * The default is per user: $XDG_STATE_HOME/elk/tui.log, else
 * $HOME/.local/state/elk/tui.log (folders created 0700 as the XDG base
 * directory spec asks), else ${TMPDIR:-/tmp}/elk-UID/tui.log in a folder
 * that must be a real folder (not a symlink), owned by this user, mode 0700.
 * The log itself is opened without following a symlink and must be a
 * regular file (a FIFO would block, a device is not a log). */
#ifndef TUI_LOG_H
#define TUI_LOG_H

#include <stddef.h>

/* The default log path into buf; returns 0, or -1 when no safe folder
 * exists (buf then holds /dev/null). */
int tui_log_default(char *buf, size_t n);
/* Open path for appending (created 0600): O_NOFOLLOW, non-blocking open, a
 * regular file only. Returns the descriptor (close-on-exec) or -1 with errno
 * set (ELOOP: a symlink; EINVAL: not a regular file). /dev/null is allowed,
 * as the log of last resort. */
int tui_log_open(const char *path);

#endif
