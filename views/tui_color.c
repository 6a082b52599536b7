#include "tui_color.h"

#include <stdlib.h>

/* The palette is Okabe-Ito (colour-blind safe), the same hexes as
 * plots/common.gp and the views' own gnuplot scripts (tui_policy_hex,
 * tui_brk_hex). On a 256-colour terminal each role uses the nearest xterm
 * index (fg256); with 8 colours the nearest basic one (fg).
 *   vermillion #D55E00 (166)  orange #E69F00 (214)  sky blue #56B4E9 (74)
 *   bluish green #009E73 (36)  reddish purple #CC79A7 (175)  blue #0072B2 (25)
 *   yellow #F0E442 (221)  grey #999999 (246) */
enum { OI_VERMILLION = 166, OI_ORANGE = 214, OI_SKY = 74, OI_GREEN = 36, OI_PURPLE = 175, OI_BLUE = 25 };

const char *const tui_policy_hex[ELK_POL_COUNT] = {"#D55E00", "#E69F00", "#56B4E9", "#009E73", "#CC79A7"};
const char *const tui_brk_hex[ELK_BRK_COUNT] = {"#0072B2", "#56B4E9", "#E69F00", "#D55E00", "#CC79A7"};

/* fg, bg (-1 = terminal default), attributes with colour, attributes alone,
 * fg on 256 colours (0 = as fg). */
static const struct {
    short fg, bg;
    attr_t color_attr, mono_attr;
    short fg256;
} table[TC_COUNT] = {
    [TC_NORMAL] = {-1, -1, A_NORMAL, A_NORMAL, 0},
    [TC_TITLE] = {COLOR_CYAN, -1, A_BOLD, A_BOLD | A_UNDERLINE, 0},
    [TC_TAB] = {-1, -1, A_NORMAL, A_NORMAL, 0},
    [TC_TAB_ACTIVE] = {COLOR_BLACK, COLOR_CYAN, A_BOLD, A_REVERSE | A_BOLD, 0},
    [TC_KNOB_LABEL] = {-1, -1, A_NORMAL, A_NORMAL, 0},
    [TC_KNOB_VALUE] = {COLOR_CYAN, -1, A_BOLD, A_BOLD, 0},
    [TC_KNOB_SEL] = {COLOR_BLACK, COLOR_YELLOW, A_NORMAL, A_REVERSE, 0},
    [TC_STATUS] = {COLOR_WHITE, COLOR_BLUE, A_NORMAL, A_REVERSE, 0},
    [TC_BUSY] = {COLOR_YELLOW, COLOR_BLUE, A_BOLD, A_REVERSE | A_BOLD, 0},
    [TC_ERROR] = {COLOR_RED, -1, A_BOLD, A_BOLD | A_UNDERLINE, OI_VERMILLION},
    [TC_KEY] = {-1, -1, A_BOLD, A_BOLD, 0},
    [TC_KEYLABEL] = {COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE, 0},
    [TC_AXIS] = {-1, -1, A_NORMAL, A_NORMAL, 0},
    [TC_DIM] = {-1, -1, A_DIM, A_DIM, 0},
    [TC_HILITE] = {COLOR_YELLOW, -1, A_BOLD, A_BOLD | A_REVERSE, 221},
    /* policies, as plots/common.gp linetypes 1-5 */
    [TC_POL_BASIC] = {COLOR_RED, -1, A_NORMAL, A_DIM, OI_VERMILLION},
    [TC_POL_STATIC] = {COLOR_YELLOW, -1, A_NORMAL, A_NORMAL, OI_ORANGE},
    [TC_POL_DYN] = {COLOR_CYAN, -1, A_BOLD, A_NORMAL, OI_SKY},
    [TC_POL_FULL] = {COLOR_GREEN, -1, A_BOLD, A_BOLD, OI_GREEN},
    [TC_POL_IDEAL] = {COLOR_MAGENTA, -1, A_NORMAL, A_UNDERLINE, OI_PURPLE},
    /* breakdown parts, as comp_color in plots/common.gp */
    [TC_BRK_EXEC] = {COLOR_BLUE, -1, A_NORMAL, A_NORMAL, OI_BLUE},
    [TC_BRK_OVERLAP] = {COLOR_CYAN, -1, A_NORMAL, A_NORMAL, OI_SKY},
    [TC_BRK_PRELOAD] = {COLOR_YELLOW, -1, A_NORMAL, A_BOLD, OI_ORANGE},
    [TC_BRK_NOC] = {COLOR_RED, -1, A_NORMAL, A_NORMAL, OI_VERMILLION},
    [TC_BRK_DIST] = {COLOR_MAGENTA, -1, A_NORMAL, A_DIM, OI_PURPLE},
    [TC_ROOF_COMPUTE] = {-1, -1, A_BOLD, A_BOLD, 0},
    [TC_ROOF_HBM] = {COLOR_YELLOW, -1, A_NORMAL, A_NORMAL, OI_ORANGE},
    [TC_ROOF_NOC] = {COLOR_CYAN, -1, A_NORMAL, A_DIM, OI_SKY},
    [TC_FRONT] = {COLOR_CYAN, -1, A_BOLD, A_BOLD, OI_SKY},
    [TC_EXEC] = {COLOR_BLUE, -1, A_NORMAL, A_NORMAL, OI_BLUE},
    [TC_PRELOAD] = {COLOR_YELLOW, -1, A_NORMAL, A_DIM, OI_ORANGE},
    [TC_HELP] = {COLOR_WHITE, COLOR_BLACK, A_NORMAL, A_NORMAL, 0},
};

static int mono = 1;

void tui_color_init(int force_mono)
{
    const char *nc = getenv("NO_COLOR");
    mono = force_mono || (nc && *nc) || !has_colors();
    if (mono) return;
    start_color();
    int defaults = use_default_colors() == OK;
    int c256 = COLORS >= 256;
    for (int r = 1; r < TC_COUNT; r++) {
        short fg = c256 && table[r].fg256 > 0 ? table[r].fg256 : table[r].fg, bg = table[r].bg;
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
