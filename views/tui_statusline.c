#include "tui_statusline.h"

#include <stdio.h>
#include <string.h>

#include "tui_compare.h"
#include "tui_draw.h"

#define MESSAGE_MS 8000.0

void tui_status_message(tui_statusline *s, int error, const char *fmt, va_list ap)
{
    vsnprintf(s->msg, sizeof s->msg, fmt, ap);
    /* one line only */
    for (char *p = s->msg; *p; p++)
        if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
    s->error = error;
    s->when = tui_now_ms();
}

int tui_status_has_message(const tui_statusline *s) { return s->msg[0] && tui_now_ms() - s->when < MESSAGE_MS; }

static void point_summary(const tui_ctx *cx, char *buf, size_t n)
{
    const elk_point *p = cx->point;
    const elk_chip *c = cx->chip;
    snprintf(buf, n, "%s %s B%d S%d%son %s, %d cores, %s", cx->model->name, elk_workload_names[p->workload],
             p->batch, p->seq, tui_g.dot, c->name, c->cores, elk_topology_names[c->topology]);
}

void tui_status_draw(tui_statusline *s, const tui_rect *r, const tui_ctx *cx)
{
    attr_t a = tui_attr(TC_STATUS);
    tui_fill(r->y, r->x, r->w, a, " ");
    if (s->prompting) {
        static const char hint[] = "Enter: set  Esc: cancel";
        int hw = (int)sizeof hint - 1;
        int n = tui_printf(r->y, r->x + 1, r->w - 1, a | A_BOLD, "%s: ", s->label);
        int tw = r->w - 3 - n - (r->w - n > 2 * hw ? hw + 2 : 0);
        const char *t = s->text;
        int len = tui_cols(t);
        if (len > tw) t += len - tw; /* show the tail (ASCII input) */
        int m = tui_puts(r->y, r->x + 1 + n, tw, s->fresh ? a | A_REVERSE : a, t);
        tui_puts(r->y, r->x + 1 + n + m, 1, a | A_REVERSE, " ");
        if (r->x + 1 + n + m + 2 + hw < r->x + r->w) tui_puts(r->y, r->x + r->w - hw - 1, hw, a | A_DIM, hint);
        return;
    }
    int x = r->x + 1;
    char t[64];
    if (cx->snap && cx->snap->provisional && !cx->stale) {
        /* on screen until the complete result replaces it */
        s->frame = (s->frame + 1) % tui_g.nspinner;
        x += tui_printf(r->y, x, r->w - (x - r->x), tui_attr(TC_BUSY) | A_REVERSE | A_BOLD,
                        "%s PROVISIONAL: coarse plan space, complete result coming", tui_g.spinner[s->frame]);
    } else if (cx->busy) {
        s->frame = (s->frame + 1) % tui_g.nspinner;
        x += tui_printf(r->y, x, r->w - (x - r->x), tui_attr(TC_BUSY), "%s computing", tui_g.spinner[s->frame]);
    } else if (cx->snap) {
        tui_fmt_ms(cx->snap->ms, t, sizeof t);
        x += tui_printf(r->y, x, r->w - (x - r->x), a, "%s %s", cx->snap->status == ELK_OK ? "done in" : "failed after",
                        t);
    }
    x += tui_puts(r->y, x, r->w - (x - r->x), a, tui_g.dot);
    int room = r->w - (x - r->x) - 1;
    if (tui_status_has_message(s)) {
        tui_puts(r->y, x, room, s->error ? (tui_color_mono() ? a | A_BOLD : tui_attr(TC_ERROR) | A_REVERSE) : a | A_BOLD,
                 s->msg);
    } else if (cx->pin) {
        /* what differs from the pinned point, and what it does to the
         * focused policy */
        char d[400], buf[600], dl[64] = "";
        const tui_snap *pn = cx->pin;
        int nd = tui_point_diff(&pn->point, &pn->pr.chip, &pn->pr.model, cx->point, cx->chip, cx->model, d, sizeof d);
        int f = cx->focus;
        if (tui_snap_ok(cx->snap) && !cx->stale && cx->snap->res.have[f] && pn->res.have[f]) {
            char t[48];
            tui_fmt_delta(cx->snap->res.pol[f].latency_ms, pn->res.pol[f].latency_ms, t, sizeof t);
            snprintf(dl, sizeof dl, " (%s %s)", elk_policy_labels[f], t);
        }
        snprintf(buf, sizeof buf, "vs pinned%s: %s", dl, nd ? d : "same point");
        tui_puts(r->y, x, room, a | A_BOLD, buf);
    } else {
        char buf[512];
        point_summary(cx, buf, sizeof buf);
        tui_puts(r->y, x, room, a, buf);
    }
}

void tui_status_prompt(tui_statusline *s, const char *label, const char *initial, tui_prompt_done done, void *obj)
{
    s->prompting = 1;
    snprintf(s->label, sizeof s->label, "%s", label);
    snprintf(s->text, sizeof s->text, "%s", initial ? initial : "");
    s->fresh = s->text[0] != '\0';
    s->done = done;
    s->obj = obj;
}

int tui_status_prompt_key(tui_statusline *s, int ch, tui_ctx *cx)
{
    /* the old value is selected: typing replaces it, Backspace or ^U
     * clears it, Right or End keeps it for editing */
    int fresh = s->fresh;
    s->fresh = 0;
    if (fresh && ((ch >= 32 && ch < 127) || ch == KEY_BACKSPACE || ch == 127 || ch == 8)) s->text[0] = '\0';
    if (fresh && (ch == KEY_BACKSPACE || ch == 127 || ch == 8)) return 0;
    size_t len = strlen(s->text);
    switch (ch) {
    case KEY_RIGHT:
    case KEY_END:
    case KEY_LEFT:
    case KEY_HOME: return 0;
    case 27: /* Esc */
    case 7:  /* ^G */
        s->prompting = 0;
        if (s->done) s->done(s->obj, cx, NULL);
        return 1;
    case '\n':
    case '\r':
    case KEY_ENTER: {
        char text[256];
        snprintf(text, sizeof text, "%s", s->text);
        s->prompting = 0;
        if (s->done) s->done(s->obj, cx, text);
        return 1;
    }
    case KEY_BACKSPACE:
    case 127:
    case 8:
        if (len) s->text[len - 1] = '\0';
        return 0;
    case 21: /* ^U */
        s->text[0] = '\0';
        return 0;
    default:
        if (ch >= 32 && ch < 127 && len + 1 < sizeof s->text) {
            s->text[len] = (char)ch;
            s->text[len + 1] = '\0';
        }
        return 0;
    }
}
