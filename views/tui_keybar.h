/* The key bar (bottom line, htop style): the global keys, then the shown
 * view's own keys. Key specs are "key=label" tokens separated by two
 * spaces, e.g. "[ ]=operator  t=table". */
#ifndef TUI_KEYBAR_H
#define TUI_KEYBAR_H

#include "tui.h"

void tui_keybar_draw(const tui_rect *r, const elk_view *v, int nviews);
/* Iterate over a key spec: fills key/label, returns the rest or NULL. */
const char *tui_keyspec_next(const char *spec, char *key, size_t kn, char *label, size_t ln);

#endif
