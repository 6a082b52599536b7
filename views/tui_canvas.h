/* A dot canvas for plots: Unicode braille (U+2800 block, 2x4 dots per cell)
 * or, under an ASCII locale, 1x2 dots per cell drawn with ' . :. Marks
 * (letters, symbols) sit on top of the dots, one per cell. A tui_plot wraps
 * a canvas with linear or log axes, ticks and labels. */
#ifndef TUI_CANVAS_H
#define TUI_CANVAS_H

#include "tui.h"
#include "tui_color.h"

typedef struct {
    int w, h;              /* cells */
    int dx, dy;            /* dots per cell */
    unsigned char *dots;   /* per cell: dot bits */
    unsigned char *role;   /* per cell: colour role of the last dot set */
    char *mark;            /* per cell: overlay character, 0 if none */
    unsigned char *mrole;
    double x0, x1, y0, y1; /* data range */
    int logx, logy;
} tui_canvas;

int cv_init(tui_canvas *cv, int w, int h, int ascii);
void cv_free(tui_canvas *cv);
void cv_range(tui_canvas *cv, double x0, double x1, int logx, double y0, double y1, int logy);
/* Data to dot coordinates; 0 if the value cannot be placed (NaN, <= 0 on log). */
int cv_map(const tui_canvas *cv, double x, double y, double *px, double *py);
/* Data to cell coordinates; 0 if outside the canvas. */
int cv_cell(const tui_canvas *cv, double x, double y, int *cx, int *cy);
void cv_dot(tui_canvas *cv, int px, int py, tui_role r);
void cv_point(tui_canvas *cv, double x, double y, tui_role r);
void cv_line(tui_canvas *cv, double xa, double ya, double xb, double yb, tui_role r);
/* A mark (one ASCII character) at a data point / at a cell. */
void cv_mark(tui_canvas *cv, double x, double y, char ch, tui_role r);
void cv_mark_cell(tui_canvas *cv, int cx, int cy, char ch, tui_role r);
/* Text on the canvas starting at a cell (clipped). */
void cv_text(tui_canvas *cv, int cx, int cy, const char *s, tui_role r);
void cv_blit(const tui_canvas *cv, int y, int x);

/* A canvas with axes inside a rectangle. */
typedef struct {
    tui_rect area;         /* the canvas cells */
    tui_rect outer;
    tui_canvas cv;
    int ok;
} tui_plot;

typedef void (*tui_tickfmt)(double v, char *buf, size_t n);

/* Lay out axes in r (tick labels left and below, axis titles); 0 if r is
 * too small. */
int tui_plot_begin(tui_plot *p, const tui_rect *r, double x0, double x1, int logx, double y0, double y1, int logy,
                   int ascii);
void tui_plot_axes(tui_plot *p, const char *xlabel, const char *ylabel, tui_tickfmt xf, tui_tickfmt yf);
void tui_plot_end(tui_plot *p);

/* Widen [lo, hi] to whole decades (log) or to nice numbers (linear). */
void tui_nice_range(double *lo, double *hi, int log);

/* A plot's ranges kept by f (fixed axes) from the draw where it was
 * pressed, in the view's state: frozen is 0 until then. */
typedef struct {
    int frozen;
    double x0, x1, y0, y1;
} tui_axes_keep;

/* With fixed, the first call keeps *x0..*y1 in k and later ones put the
 * kept ranges back; without, k forgets them. */
void tui_keep_axes(tui_axes_keep *k, int fixed, double *x0, double *x1, double *y0, double *y1);

#endif
