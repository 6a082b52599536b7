/* Drawing helpers shared by the widgets: clipped text, glyphs with an ASCII
 * fallback, and number formatting with units. Everything draws on stdscr. */
#ifndef TUI_DRAW_H
#define TUI_DRAW_H

#include <curses.h>
#include <stddef.h>

#include "tui.h"
#include "tui_color.h"

/* Glyphs, chosen once for the locale (UTF-8 or ASCII). */
typedef struct {
    const char *hline, *vline, *cross, *tee_up, *corner_bl;
    const char *brk[5];        /* breakdown segment fills, by elk_brk */
    const char *bar;           /* a solid bar (timeline execution) */
    const char *bar_light;     /* a light bar (timeline preload) */
    const char *spinner[10];
    int nspinner;
    const char *sel;           /* selection marker */
    const char *ellipsis;
    const char *dot;           /* separator in the status line */
} tui_glyphs;

extern tui_glyphs tui_g;
void tui_glyphs_init(int ascii);
int tui_ascii(void);

/* Display columns of a UTF-8 string (every glyph used is one column wide). */
int tui_cols(const char *s);
/* Draw s at (y, x), at most maxw columns; returns columns drawn. */
int tui_puts(int y, int x, int maxw, attr_t a, const char *s);
int tui_printf(int y, int x, int maxw, attr_t a, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Repeat a one-column glyph n times. */
void tui_fill(int y, int x, int n, attr_t a, const char *glyph);
void tui_clear(const tui_rect *r);
/* Word-wrap text to width columns into out; returns the line count. */
int tui_wrap(const char *text, int width, char *out, size_t n);
/* A centred message (several lines split on '\n') in r. */
void tui_center(const tui_rect *r, attr_t a, const char *text);
/* A title line at the top of a view's rect; returns the rect below it. */
tui_rect tui_title(const tui_rect *r, const char *title, const char *sub);
/* Shown in a view while there is no result to draw (computing or error). */
int tui_need_result(const tui_rect *r, const tui_ctx *cx);

/* 1.5K, 20M, 3.2G (powers of 1000); fixed width not guaranteed. */
void tui_fmt_si(double v, char *buf, size_t n);
/* Traffic and data sizes with SI units, as the CLI prints them (1 GB = 1e9
 * bytes): 70.6 MB, 79.4 GB. */
void tui_fmt_si_bytes(double b, char *buf, size_t n);
/* Per-core SRAM with binary units, as the sram-kib knob: 624 KiB, 1.2 MiB. */
void tui_fmt_bytes(double b, char *buf, size_t n);
/* A duration in ms as "12.3 ms" / "45.6 us" / "1.23 s". */
void tui_fmt_ms(double ms, char *buf, size_t n);

#endif
