#include "tui_color.h"

#include <stdlib.h>

/* fg, bg (-1 = terminal default), attributes with colour, attributes alone. */
static const struct {
    short fg, bg;
    attr_t color_attr, mono_attr;
} table[TC_COUNT] = {
    [TC_NORMAL] = {-1, -1, A_NORMAL, A_NORMAL},
    [TC_TITLE] = {COLOR_CYAN, -1, A_BOLD, A_BOLD | A_UNDERLINE},
    [TC_TAB] = {-1, -1, A_NORMAL, A_NORMAL},
    [TC_TAB_ACTIVE] = {COLOR_BLACK, COLOR_CYAN, A_BOLD, A_REVERSE | A_BOLD},
    [TC_KNOB_LABEL] = {-1, -1, A_NORMAL, A_NORMAL},
    [TC_KNOB_VALUE] = {COLOR_CYAN, -1, A_BOLD, A_BOLD},
    [TC_KNOB_SEL] = {COLOR_BLACK, COLOR_YELLOW, A_NORMAL, A_REVERSE},
    [TC_STATUS] = {COLOR_WHITE, COLOR_BLUE, A_NORMAL, A_REVERSE},
    [TC_BUSY] = {COLOR_YELLOW, COLOR_BLUE, A_BOLD, A_REVERSE | A_BOLD},
    [TC_ERROR] = {COLOR_RED, -1, A_BOLD, A_BOLD | A_UNDERLINE},
    [TC_KEY] = {-1, -1, A_BOLD, A_BOLD},
    [TC_KEYLABEL] = {COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE},
    [TC_AXIS] = {-1, -1, A_NORMAL, A_NORMAL},
    [TC_DIM] = {-1, -1, A_DIM, A_DIM},
    [TC_HILITE] = {COLOR_YELLOW, -1, A_BOLD, A_BOLD | A_REVERSE},
    [TC_POL_BASIC] = {COLOR_RED, -1, A_NORMAL, A_DIM},
    [TC_POL_STATIC] = {COLOR_YELLOW, -1, A_NORMAL, A_NORMAL},
    [TC_POL_DYN] = {COLOR_BLUE, -1, A_BOLD, A_NORMAL},
    [TC_POL_FULL] = {COLOR_GREEN, -1, A_BOLD, A_BOLD},
    [TC_POL_IDEAL] = {COLOR_MAGENTA, -1, A_NORMAL, A_UNDERLINE},
    [TC_BRK_EXEC] = {COLOR_GREEN, -1, A_NORMAL, A_NORMAL},
    [TC_BRK_OVERLAP] = {COLOR_CYAN, -1, A_NORMAL, A_NORMAL},
    [TC_BRK_PRELOAD] = {COLOR_RED, -1, A_NORMAL, A_BOLD},
    [TC_BRK_NOC] = {COLOR_YELLOW, -1, A_NORMAL, A_NORMAL},
    [TC_BRK_DIST] = {COLOR_MAGENTA, -1, A_NORMAL, A_DIM},
    [TC_ROOF_COMPUTE] = {COLOR_RED, -1, A_BOLD, A_BOLD},
    [TC_ROOF_HBM] = {COLOR_YELLOW, -1, A_NORMAL, A_NORMAL},
    [TC_ROOF_NOC] = {COLOR_CYAN, -1, A_NORMAL, A_DIM},
    [TC_FRONT] = {COLOR_CYAN, -1, A_BOLD, A_BOLD},
    [TC_EXEC] = {COLOR_GREEN, -1, A_NORMAL, A_NORMAL},
    [TC_PRELOAD] = {COLOR_YELLOW, -1, A_NORMAL, A_DIM},
    [TC_HELP] = {COLOR_WHITE, COLOR_BLACK, A_NORMAL, A_NORMAL},
};

static int mono = 1;

void tui_color_init(int force_mono)
{
    const char *nc = getenv("NO_COLOR");
    mono = force_mono || (nc && *nc) || !has_colors();
    if (mono) return;
    start_color();
    int defaults = use_default_colors() == OK;
    for (int r = 1; r < TC_COUNT; r++) {
        short fg = table[r].fg, bg = table[r].bg;
        if (!defaults) {
            if (fg < 0) fg = COLOR_WHITE;
            if (bg < 0) bg = COLOR_BLACK;
        }
        init_pair((short)r, fg, bg);
    }
}

attr_t tui_attr(tui_role r)
{
    if (r < 0 || r >= TC_COUNT) r = TC_NORMAL;
    if (mono) return table[r].mono_attr;
    return (r ? COLOR_PAIR(r) : 0) | table[r].color_attr;
}

int tui_color_mono(void) { return mono; }
