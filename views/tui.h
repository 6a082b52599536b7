/* The workbench's shared vocabulary: the result bitmask between the event
 * loop and the widgets, the View vtable every main view implements, and the
 * context a widget draws from.
 *
 * Threading: widgets run on the UI thread only. They read the finished,
 * immutable result (tui_snap) the loop adopted from the worker and never see
 * a result while it is being computed. */
#ifndef TUI_H
#define TUI_H

#include <stdio.h>

#include "elk_sched.h"

/* What a key handler asks of the loop (bits, combined with |). */
enum {
    ELK_VIEW_NONE = 0,
    ELK_VIEW_HANDLED = 1 << 0,   /* the key was consumed */
    ELK_VIEW_REDRAW = 1 << 1,    /* repaint */
    ELK_VIEW_RESIZE = 1 << 2,    /* re-lay out (terminal size changed) */
    ELK_VIEW_RECOMPUTE = 1 << 3, /* the design point changed: ask the worker */
    ELK_VIEW_QUIT = 1 << 4,
    ELK_VIEW_HELP = 1 << 5,      /* toggle the help overlay */
    ELK_VIEW_EXPORT_CSV = 1 << 6,
    ELK_VIEW_EXPORT_PLOT = 1 << 7,
};

/* A rectangle of the screen, in cells. */
typedef struct {
    int y, x, h, w;
} tui_rect;

/* One finished computation of a design point. Immutable once published;
 * owned by whoever holds the pointer (the worker until published, then the
 * UI loop). */
typedef struct tui_snap {
    unsigned long id;      /* the request it answers */
    elk_point point;       /* as requested */
    elk_status status;     /* ELK_OK: pr and res are valid */
    elk_error err;
    int have_pr, have_res;
    elk_problem pr;
    elk_result res;
    double ms;             /* wall time: problem + all policies */
    double plan_ms;        /* of which plan sets and menus */
    int provisional;       /* computed on the coarse plan space; the complete
                              result of the same request follows */
} tui_snap;

void tui_snap_free(tui_snap *s);

/* One point of a live sweep (plain data, copied to the UI under a lock). */
typedef struct {
    double x;
    int state;                      /* 0 pending, 1 running, 2 done, 3 failed */
    double lat_ms[ELK_POL_COUNT];
    double pct[ELK_POL_COUNT];
    double hbm[ELK_POL_COUNT], noc[ELK_POL_COUNT], tflops[ELK_POL_COUNT];
    int have[ELK_POL_COUNT];
    int carried;                    /* Elk-Full runs a lower point's schedule (tui_worker carry) */
    char err[160];
} tui_sweep_pt;

#define TUI_SWEEP_MAX 64

typedef struct {
    unsigned long id;               /* changes with every new sweep */
    int knob;                       /* elk_knob swept */
    int n;
    int done;                       /* points finished (done or failed) */
    elk_point base;
    tui_sweep_pt pt[TUI_SWEEP_MAX];
} tui_sweep_data;

struct tui_sweeper;
struct tui_ctx;

/* Ask the user for a line of text; done() gets it (NULL when cancelled). */
typedef void (*tui_prompt_done)(void *obj, struct tui_ctx *cx, const char *text);

/* What every widget sees. Owned by the loop; rebuilt before each draw. */
typedef struct tui_ctx {
    const tui_snap *snap;          /* latest finished result, NULL before the first */
    const elk_point *point;        /* the design point requested (knob panel) */
    const elk_chip *chip;          /* point resolved on the UI thread */
    const elk_model *model;
    int focus;                     /* focused policy */
    int ascii;                     /* no UTF-8: ASCII glyphs only */
    int busy;                      /* a computation is in flight */
    int stale;                     /* snap answers an older request */
    struct tui_sweeper *sweeper;
    struct tui_netsim *netsim;     /* the network view's simulator thread */
    struct tui_sens *sens;         /* the sensitivity view's thread */
    struct tui_sweeper *pin_sweeper; /* the Sweep view's second curve: the same sweep around the pin */
    const tui_snap *pin;           /* the pinned point (b), NULL when none; drawn beside
                                      or behind the live one */
    int fixed_axes;                /* f: views keep the scales they had when it was set */
    int policy_row[ELK_POL_COUNT]; /* screen row of each policy's label in the view drawn
                                      (-1: none), for mouse clicks; views fill it */
    /* services of the loop */
    void (*message)(struct tui_ctx *cx, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
    void (*prompt)(struct tui_ctx *cx, const char *label, const char *initial, tui_prompt_done done, void *obj);
    void *app;
} tui_ctx;

/* A main view (Breakdown, Pareto, ...): one number key each. */
typedef struct elk_view elk_view;
struct elk_view {
    const char *name;      /* file names: elk-<name>-DATE.csv */
    const char *title;
    const char *keys;      /* the view's own keys, for the key bar ("k=label  ...") */
    const char *help;      /* the same keys described for the help overlay */
    void (*draw)(elk_view *v, const tui_rect *r, tui_ctx *cx);
    unsigned (*key)(elk_view *v, int ch, tui_ctx *cx);
    /* Export the view's data; return 0 on success, else fill msg. */
    int (*csv)(elk_view *v, FILE *fp, const tui_ctx *cx, char *msg, size_t n);
    /* Write the body of a gnuplot script (datablocks, labels, plot); the
     * terminal and output are already set. */
    int (*gnuplot)(elk_view *v, FILE *fp, const tui_ctx *cx, char *msg, size_t n);
    /* Or draw the figure to output with the shared plots/ templates
     * (plots/elk_gnuplot.c, as `elk plot` does); used instead of gnuplot
     * when set. */
    int (*figure)(elk_view *v, const tui_ctx *cx, const char *output, char *msg, size_t n);
    void (*destroy)(elk_view *v);
    void *state;
};

/* Clock and milliseconds helpers shared by widgets. */
double tui_now_ms(void);
/* Cycles to milliseconds on the snapshot's chip. */
double tui_cyc_ms(const tui_snap *s, double cycles);
/* A one-letter mark per policy (B S D F I). */
#define tui_policy_mark elk_policy_marks /* core/elk_sched.h ELK_POLICIES */
/* The snapshot is usable for drawing results. */
int tui_snap_ok(const tui_snap *s);

#endif
