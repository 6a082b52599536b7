/* The knob panel: the design point's knobs (names, units and ranges from
 * the core knob table elk_knobs) plus the focused policy. Up/Down select a
 * knob, Left/Right step it, Shift+Left/Right take big steps, Enter types a
 * value. Every change is validated by resolving the point on the UI thread
 * (cheap: two preset files) before the worker is asked to compute it. */
#ifndef TUI_KNOBS_H
#define TUI_KNOBS_H

#include "tui.h"

typedef enum {
    TK_HBM,
    TK_HBM_CTRL,
    TK_HBM_MODEL,
    TK_NOC,
    TK_LINK,
    TK_CORES,
    TK_TOPOLOGY,
    TK_SRAM,
    TK_COMPUTE,
    TK_CHIP,
    TK_MODEL,
    TK_WORKLOAD,
    TK_BATCH,
    TK_SEQ,
    TK_LAYERS,
    TK_PROFILE,
    TK_POLICY,
    TK_COUNT
} tui_knob_id;

#define TUI_MAX_PRESETS 64

/* The design the panel edits: the requested point, resolved. */
typedef struct {
    elk_point point;
    elk_chip chip;
    elk_model model;
    int focus;   /* focused policy */
} tui_design;

typedef struct {
    int sel;
    int clamped;      /* the last step hit a limit: -1 its minimum, +1 its maximum */
    int nmodels, nchips;
    char models[TUI_MAX_PRESETS][1024];
    char chips[TUI_MAX_PRESETS][1024];
    tui_design *d;
} tui_knobs;

void tui_knobs_init(tui_knobs *k, tui_design *d);
/* Rows the panel needs at a width. */
int tui_knobs_rows(int width);
void tui_knobs_draw(tui_knobs *k, const tui_rect *r, tui_ctx *cx);
/* Arrow keys, Enter, and 'c' (flip the cost profile between paper and
 * physical, from any view); returns ELK_VIEW_* bits. */
unsigned tui_knobs_key(tui_knobs *k, int ch, tui_ctx *cx);
/* Step knob `which` by dir (+1/-1), big for coarse steps. A step past the
 * knob's range clamps to it (k->clamped says which end). Returns 1 if the
 * point changed, 0 if already at the limit, 2 for a display-only change
 * (policy), -1 with err filled if rejected. */
int tui_knobs_step(tui_knobs *k, int which, int dir, int big, elk_error *err);
/* Set knob `which` from text (as typed after Enter). */
int tui_knobs_set_text(tui_knobs *k, int which, const char *text, elk_error *err);
/* The knob drawn at screen cell (y, x) of panel r, -1 if none (mouse). */
int tui_knobs_at(const tui_rect *r, int y, int x);
/* The first knob whose label or flag name contains text (any case), -1 if none. */
int tui_knobs_find(const char *text);
/* The knob's current value with unit ("16 TB/s"). */
void tui_knobs_value(const tui_knobs *k, int which, char *buf, size_t n);
const char *tui_knobs_label(int which);
/* The core knob behind a panel knob, -1 for the policy. */
int tui_knobs_core(int which);
/* Resolve a point into d (validated); on failure d is unchanged. */
elk_status tui_design_set(tui_design *d, const elk_point *p, elk_error *err);

#endif
