/* The workbench's global keys as one table (tig's way): the event loop
 * dispatches through it and the help window lists it, so a key and its help
 * line cannot drift apart. Views' own keys live in their elk_view (keys and
 * help strings); the knob panel's in tui_knobs.
 *
 * X(action, keys as the help shows them, help, key codes...). A row whose
 * action is PANEL is handled by the knob panel before the table is
 * consulted and is listed here for the help only. Adding a global key is a
 * row here and its case in tui_app.c's run_action. */
#ifndef TUI_KEYS_H
#define TUI_KEYS_H

#include <curses.h>

#define TUI_KEYS(X)                                                                                           \
    X(VIEW, "1 2 ...", "views (below, each with its own keys)", '1', '2', '3', '4', '5', '6', '7', '8', '9')  \
    X(PANEL, "Up Down Tab", "select a knob")                                                                  \
    X(PANEL, "Left Right", "step it: HBM 1 TB/s, NoC 25%, cores by chip, batch/seq x2; a limit clamps")      \
    X(PANEL, "Shift+Left/Right", "big step (x2, /2)")                                                         \
    X(PANEL, "Enter", "type the knob's value: typing replaces it (Right keeps it to edit, Esc cancels)")     \
    X(PIN, "b", "pin this point; every view compares the live one with it (b unpins)", 'b')                  \
    X(UNDO, "u U", "undo / redo a change of the design point", 'u', 'U')                                     \
    X(SAVE, "w o", "save / load the design point (a point file: elk run --point FILE)", 'w', 'o')            \
    X(AXES, "f", "fix the axes (scales stop following each point; f frees them)", 'f')                        \
    X(FIND, "/", "find a knob, or an operator by name (shown in Pareto)", '/')                               \
    X(PANEL, "mouse", "click a tab, a knob or a policy; the wheel steps the knob")                            \
    X(FOCUS, "p P", "focus the next / previous policy", 'p', 'P')                                             \
    X(PANEL, "c", "flip the cost profile: paper (the artifact's rules) / physical")                          \
    X(EXPORT, "e", "export the view's data as CSV (current directory)", 'e')                                 \
    X(PLOT, "g", "draw the view's figure with gnuplot (png or svg)", 'g')                                    \
    X(RECOMPUTE, "r", "recompute the design point", 'r')                                                      \
    X(REPAINT, "Ctrl-L", "repaint the screen", 12)                                                            \
    X(HELP, "?", "this help", '?', 'h', KEY_F(1))                                                             \
    X(QUIT, "q", "quit (Ctrl-C too)", 'q', 'Q')

/* What a global key does; several rows may share one (PANEL). */
typedef enum {
    TUI_ACT_NONE,
    TUI_ACT_VIEW,
    TUI_ACT_PANEL,
    TUI_ACT_PIN,
    TUI_ACT_UNDO,
    TUI_ACT_SAVE,
    TUI_ACT_AXES,
    TUI_ACT_FIND,
    TUI_ACT_FOCUS,
    TUI_ACT_EXPORT,
    TUI_ACT_PLOT,
    TUI_ACT_RECOMPUTE,
    TUI_ACT_REPAINT,
    TUI_ACT_HELP,
    TUI_ACT_QUIT,
} tui_action;

#define TUI_KEYS_MAX 10 /* key codes per row */
typedef struct {
    tui_action act;
    const char *label;
    const char *help;
    int keys[TUI_KEYS_MAX]; /* 0-terminated unless full */
} tui_key_row;

extern const tui_key_row tui_keys[];
extern const int tui_nkeys;
/* The action of global key ch (TUI_ACT_NONE if none). */
tui_action tui_key_action(int ch);

#endif
