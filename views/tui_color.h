/* One semantic colour table for the whole workbench. Widgets ask for a role
 * (what the thing is), never a colour; each role also carries attributes
 * (bold, reverse, dim) so the screen reads in monochrome and under NO_COLOR. */
#ifndef TUI_COLOR_H
#define TUI_COLOR_H

#include <curses.h>

typedef enum {
    TC_NORMAL,
    TC_TITLE,        /* view titles */
    TC_TAB,          /* inactive view tab */
    TC_TAB_ACTIVE,   /* the view shown */
    TC_KNOB_LABEL,
    TC_KNOB_VALUE,
    TC_KNOB_SEL,     /* the knob the arrows act on */
    TC_STATUS,       /* status line */
    TC_BUSY,         /* spinner */
    TC_ERROR,
    TC_KEY,          /* a key in the key bar */
    TC_KEYLABEL,     /* its label */
    TC_AXIS,
    TC_DIM,          /* secondary text, grid, other plans */
    TC_HILITE,       /* the selected item */
    TC_POL_BASIC,    /* policies: TC_POL_BASIC + elk_policy */
    TC_POL_STATIC,
    TC_POL_DYN,
    TC_POL_FULL,
    TC_POL_IDEAL,
    TC_BRK_EXEC,     /* breakdown segments: TC_BRK_EXEC + elk_brk */
    TC_BRK_OVERLAP,
    TC_BRK_PRELOAD,
    TC_BRK_NOC,
    TC_BRK_DIST,
    TC_ROOF_COMPUTE,
    TC_ROOF_HBM,
    TC_ROOF_NOC,
    TC_FRONT,        /* a Pareto front line */
    TC_EXEC,         /* timeline: execution bars */
    TC_PRELOAD,      /* timeline: preload bars */
    TC_HELP,         /* help overlay body */
    TC_COUNT
} tui_role;

/* The palette's hex colours (Okabe-Ito) for gnuplot scripts: by policy
 * and by breakdown part (elk_brk order). plots/common.gp uses the same. */
#include "elk_sched.h"
extern const char *const tui_policy_hex[ELK_POL_COUNT];
extern const char *const tui_brk_hex[ELK_BRK_COUNT];

/* Set up colour pairs (after initscr). mono forces attributes only. */
void tui_color_init(int mono);
/* The attributes to draw a role with. */
attr_t tui_attr(tui_role r);
int tui_color_mono(void);

#endif
