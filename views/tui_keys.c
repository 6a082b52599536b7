#include "tui_keys.h"

#define TUI_KEY_ROW(act, label, help, ...) {TUI_ACT_##act, label, help, {__VA_ARGS__}},
const tui_key_row tui_keys[] = {TUI_KEYS(TUI_KEY_ROW)};
#undef TUI_KEY_ROW
const int tui_nkeys = (int)(sizeof tui_keys / sizeof tui_keys[0]);

tui_action tui_key_action(int ch)
{
    if (ch == 0) return TUI_ACT_NONE;
    for (int r = 0; r < tui_nkeys; r++)
        for (int k = 0; k < TUI_KEYS_MAX && tui_keys[r].keys[k]; k++)
            if (tui_keys[r].keys[k] == ch) return tui_keys[r].act;
    return TUI_ACT_NONE;
}
