/* The status line: a spinner while the worker computes, the time the last
 * result took, the design point it answers, and messages (info or error,
 * shown for a few seconds). While a value is being typed it becomes the
 * prompt. */
#ifndef TUI_STATUSLINE_H
#define TUI_STATUSLINE_H

#include <stdarg.h>

#include "tui.h"

typedef struct {
    char msg[512];
    int error;
    double when;          /* tui_now_ms() of the message */
    int frame;            /* spinner frame */
    /* prompt */
    int prompting;
    char label[128];
    char text[256];
    int fresh;            /* text is the old value, shown selected: the first
                             character typed replaces it, as in a form field */
    tui_prompt_done done;
    void *obj;
} tui_statusline;

void tui_status_message(tui_statusline *s, int error, const char *fmt, va_list ap);
void tui_status_draw(tui_statusline *s, const tui_rect *r, const tui_ctx *cx);
/* Prompt handling: start, and feed keys (returns 1 when the prompt ended). */
void tui_status_prompt(tui_statusline *s, const char *label, const char *initial, tui_prompt_done done, void *obj);
int tui_status_prompt_key(tui_statusline *s, int ch, tui_ctx *cx);
/* A message is showing (the loop keeps redrawing until it expires). */
int tui_status_has_message(const tui_statusline *s);

#endif
