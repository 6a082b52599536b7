/* The help overlay (`?`): every key, global and per view, in a window on a
 * panel above the screen. Up/Down/PgUp/PgDn scroll when it does not fit;
 * any other key closes it. */
#ifndef TUI_HELP_H
#define TUI_HELP_H

#include "tui.h"

typedef struct tui_help tui_help;

/* Build the overlay for the current screen size (views: the five views). */
tui_help *tui_help_open(elk_view *const *views, int nviews, int ascii);
/* Show it above whatever stdscr holds (call after stdscr was refreshed). */
void tui_help_show(tui_help *h);
/* A key while the help shows: 1 if it scrolled (keep open), 0 to close. */
int tui_help_key(tui_help *h, int ch);
void tui_help_close(tui_help *h);

#endif
