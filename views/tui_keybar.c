#include "tui_keybar.h"

#include <stdio.h>

#include <string.h>

#include "tui_draw.h"

const char *tui_keyspec_next(const char *spec, char *key, size_t kn, char *label, size_t ln)
{
    while (spec && *spec == ' ') spec++;
    if (!spec || !*spec) return NULL;
    const char *end = strstr(spec, "  ");
    size_t len = end ? (size_t)(end - spec) : strlen(spec);
    const char *eq = memchr(spec, '=', len);
    size_t klen = eq ? (size_t)(eq - spec) : len;
    if (klen >= kn) klen = kn - 1;
    memcpy(key, spec, klen);
    key[klen] = '\0';
    label[0] = '\0';
    if (eq) {
        size_t l = len - klen - 1;
        if (l >= ln) l = ln - 1;
        memcpy(label, eq + 1, l);
        label[l] = '\0';
    }
    return spec + len;
}

static int item(int y, int x, int maxx, const char *key, const char *label)
{
    int need = tui_cols(key) + tui_cols(label) + 1;
    if (x + need > maxx) return -1;
    int n = tui_puts(y, x, maxx - x, tui_attr(TC_KEY), key);
    n += tui_puts(y, x + n, maxx - x - n, tui_attr(TC_KEYLABEL), label);
    return n + 1;
}

void tui_keybar_draw(const tui_rect *r, const elk_view *v, int nviews)
{
    int x = r->x, maxx = r->x + r->w;
    tui_fill(r->y, r->x, r->w, A_NORMAL, " ");
    static const char global_ascii[] = "=Views  Up/Dn=Knob  <-/->=Step  Enter=Type  e=CSV  g=Plot  ?=Help  q=Quit";
    static const char global_utf8[] =
        "=Views  \u2191\u2193=Knob  \u2190\u2192=Step  \u23ce=Type  e=CSV  g=Plot  ?=Help  q=Quit";
    char global[160];
    snprintf(global, sizeof global, "1-%d%s", nviews, tui_ascii() ? global_ascii : global_utf8);
    const char *specs[2] = {global, v ? v->keys : NULL};
    char key[32], label[64];
    for (int s = 0; s < 2; s++) {
        const char *p = specs[s];
        while ((p = tui_keyspec_next(p, key, sizeof key, label, sizeof label))) {
            int n = item(r->y, x, maxx, key, label);
            if (n < 0) return;
            x += n;
        }
    }
}
