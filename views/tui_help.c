#include "tui_help.h"

#include <curses.h>
#include <panel.h>
#include <stdlib.h>
#include <string.h>

#include "tui_draw.h"
#include "tui_keybar.h"
#include "tui_keys.h"

#define MAX_LINES 96

typedef struct {
    char key[32];
    char what[160];
    int heading;
} line;

struct tui_help {
    WINDOW *win;
    PANEL *panel;
    int ascii;
    line lines[MAX_LINES];
    int n, top, rows;
};


static void add(tui_help *h, const char *key, const char *what, int heading)
{
    if (h->n >= MAX_LINES) return;
    line *l = &h->lines[h->n++];
    snprintf(l->key, sizeof l->key, "%s", key);
    snprintf(l->what, sizeof l->what, "%s", what);
    l->heading = heading;
}

static void put(WINDOW *w, int y, int x, int maxw, attr_t a, const char *s)
{
    int c = 0;
    const char *p = s;
    while (*p) {
        if (((unsigned char)*p & 0xC0) != 0x80) {
            if (c == maxw) break;
            c++;
        }
        p++;
    }
    wattron(w, a);
    mvwaddnstr(w, y, x, s, (int)(p - s));
    wattroff(w, a);
}

static void render(tui_help *h)
{
    WINDOW *win = h->win;
    int H, W;
    getmaxyx(win, H, W);
    werase(win);
    if (h->ascii) wborder(win, '|', '|', '-', '-', '+', '+', '+', '+');
    else box(win, 0, 0);
    put(win, 0, 2, W - 4, tui_attr(TC_TITLE), " Elk Workbench keys ");
    const int kw = 18;
    for (int r = 0; r < h->rows && h->top + r < h->n; r++) {
        const line *l = &h->lines[h->top + r];
        if (l->heading) {
            put(win, 1 + r, 2, W - 4, tui_attr(TC_TITLE), l->what);
        } else {
            put(win, 1 + r, 3, kw - 1, tui_attr(TC_KEY), l->key);
            put(win, 1 + r, 2 + kw, W - 4 - kw, A_NORMAL, l->what);
        }
    }
    const char *foot = h->top + h->rows < h->n ? " Up/Down: more, any other key closes "
                                               : " any key closes ";
    put(win, H - 1, W - 2 - (int)strlen(foot), (int)strlen(foot), tui_attr(TC_DIM), foot);
}

tui_help *tui_help_open(elk_view *const *views, int nviews, int ascii)
{
    tui_help *hp = calloc(1, sizeof *hp);
    if (!hp) return NULL;
    hp->ascii = ascii;
    add(hp, "", "Everywhere", 1);
    char key[32], label[160];
    for (int r = 0; r < tui_nkeys; r++) {
        if (tui_keys[r].act != TUI_ACT_VIEW) {
            add(hp, tui_keys[r].label, tui_keys[r].help, 0);
            continue;
        }
        /* the view keys are as many as the views: "1 2 3", "views: A, B, C" */
        size_t kl = 0, ll = (size_t)snprintf(label, sizeof label, "views:");
        key[0] = '\0';
        for (int i = 0; i < nviews && i < 9; i++) {
            kl += (size_t)snprintf(key + kl, kl < sizeof key ? sizeof key - kl : 0, "%s%d", i ? " " : "", i + 1);
            ll += (size_t)snprintf(label + ll, ll < sizeof label ? sizeof label - ll : 0, "%s %s", i ? "," : "",
                                   views[i]->title);
        }
        add(hp, key, label, 0);
    }
    for (int i = 0; i < nviews; i++) {
        char t[64];
        snprintf(t, sizeof t, "%d %s", i + 1, views[i]->title);
        add(hp, "", t, 1);
        const char *p = views[i]->help ? views[i]->help : views[i]->keys;
        while ((p = tui_keyspec_next(p, key, sizeof key, label, sizeof label))) add(hp, key, label, 0);
    }
    int h = hp->n + 2 < LINES - 2 ? hp->n + 2 : LINES - 2;
    int w = COLS - 4 < 90 ? COLS - 4 : 90;
    if (h < 5 || w < 30) {
        free(hp);
        return NULL;
    }
    hp->rows = h - 2;
    hp->win = newwin(h, w, (LINES - h) / 2, (COLS - w) / 2);
    if (!hp->win) {
        free(hp);
        return NULL;
    }
    wbkgd(hp->win, tui_attr(TC_HELP));
    render(hp);
    hp->panel = new_panel(hp->win);
    return hp;
}

int tui_help_key(tui_help *h, int ch)
{
    if (!h) return 0;
    int max = h->n - h->rows > 0 ? h->n - h->rows : 0;
    int top = h->top;
    switch (ch) {
    case KEY_DOWN:
    case 'j': top++; break;
    case KEY_UP:
    case 'k': top--; break;
    case KEY_NPAGE:
    case ' ': top += h->rows - 1; break;
    case KEY_PPAGE: top -= h->rows - 1; break;
    default: return 0;
    }
    if (max == 0) return 0;
    if (top > max) top = max;
    if (top < 0) top = 0;
    h->top = top;
    render(h);
    return 1;
}

void tui_help_show(tui_help *h)
{
    if (!h) return;
    touchwin(h->win);
    update_panels();
}

void tui_help_close(tui_help *h)
{
    if (!h) return;
    del_panel(h->panel);
    delwin(h->win);
    free(h);
}
