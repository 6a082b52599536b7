#include "view_sensitivity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tui_draw.h"
#include "tui_sens.h"

/* What the view keeps: the latest study it took from tui_sens and what it
 * last asked for (so a new point or focus asks again). */
typedef struct {
    tui_senssnap *sn;
    elk_point asked;
    int asked_pol;
    unsigned long id;
} sens_state;

static void request(sens_state *st, tui_ctx *cx)
{
    st->asked = *cx->point;
    st->asked_pol = cx->focus;
    tui_sens_request(cx->sens, cx->point, cx->focus, ++st->id);
}

/* A value in its knob's units, short. */
static void fmt_val(elk_knob k, double v, char *b, size_t n)
{
    if (elk_knobs[k].is_int == 1) snprintf(b, n, "%.0f", v);
    else snprintf(b, n, "%.4g", v);
}

/* One tornado row: the knob and its two values, then bars growing left
 * (faster) and right (slower) from the centre column, scaled to the
 * largest change shown. */
static void row(int y, int x, int w, const elk_sens *s, const elk_sens_row *r, double scale)
{
    const elk_knob_info *ki = &elk_knobs[r->knob];
    char lo[24] = "-", hi[24] = "-", cur[24];
    fmt_val(r->knob, r->value, cur, sizeof cur);
    if (r->have_down) fmt_val(r->knob, r->down, lo, sizeof lo);
    if (r->have_up) fmt_val(r->knob, r->up, hi, sizeof hi);
    int lw = 34;
    tui_printf(y, x, lw, A_NORMAL, "%-15.15s %s<%s>%s %s", ki->label, lo, cur, hi, ki->unit);
    int bx = x + lw, bw = w - lw - 16;
    if (bw < 10) return;
    int mid = bx + bw / 2, half = bw / 2;
    tui_puts(y, mid, 1, tui_attr(TC_DIM), tui_ascii() ? "|" : "\u2502");
    double dn = r->have_down ? 100.0 * (r->ms_down - s->base_ms) / s->base_ms : 0;
    double up = r->have_up ? 100.0 * (r->ms_up - s->base_ms) / s->base_ms : 0;
    /* each side's bar: negative changes (faster) left of the centre */
    double v[2] = {dn, up};
    for (int k = 0; k < 2; k++) {
        if (!(k ? r->have_up : r->have_down)) continue;
        int n = scale > 0 ? (int)lround(fmin(1.0, fabs(v[k]) / scale) * (half - 1)) : 0;
        attr_t a = v[k] > 0 ? tui_attr(TC_ERROR) : tui_attr(TC_POL_FULL);
        if (v[k] < 0) tui_fill(y, mid - n, n, a, k ? tui_g.bar : tui_g.bar_light);
        else tui_fill(y, mid + 1, n, a, k ? tui_g.bar : tui_g.bar_light);
    }
    tui_printf(y, bx + bw + 1, 15, A_NORMAL, "%+6.1f%% %+6.1f%%", dn, up);
}

static void draw(elk_view *v, const tui_rect *r0, tui_ctx *cx)
{
    sens_state *st = v->state;
    if (!cx->sens) return;
    tui_senssnap *got = tui_sens_take(cx->sens);
    if (got) {
        free(st->sn);
        st->sn = got;
    }
    int moved = !st->id || st->asked_pol != cx->focus || memcmp(&st->asked, cx->point, sizeof st->asked);
    int lost = st->id && !tui_sens_busy(cx->sens) && (!st->sn || st->sn->id != st->id);
    if ((moved || lost) && !cx->busy && !cx->stale) request(st, cx);
    int busy = tui_sens_busy(cx->sens) || !st->sn || st->sn->id != st->id;
    const tui_senssnap *sn = st->sn;
    char sub[200];
    if (sn && sn->status == ELK_OK)
        snprintf(sub, sizeof sub, "%s at %.4g ms, each knob a step down and up%s", elk_policy_labels[sn->policy],
                 sn->s.base_ms, busy ? "; studying the new point..." : "");
    else snprintf(sub, sizeof sub, "%s%s", elk_policy_labels[cx->focus], busy ? ": moving each knob a step..." : "");
    tui_rect r = tui_title(r0, "Sensitivity", sub);
    if (!sn) {
        tui_center(&r, tui_attr(TC_DIM), "moving each knob one step down and up (17 solves on the cached plans)...");
        return;
    }
    if (sn->status != ELK_OK) {
        char buf[700];
        snprintf(buf, sizeof buf, "The study failed:\n\n%s", sn->err.msg);
        tui_center(&r, tui_attr(TC_ERROR), buf);
        return;
    }
    const elk_sens *s = &sn->s;
    double scale = 0;
    for (int i = 0; i < s->n; i++) {
        const elk_sens_row *w = &s->row[i];
        if (w->have_down) scale = fmax(scale, fabs(100.0 * (w->ms_down - s->base_ms) / s->base_ms));
        if (w->have_up) scale = fmax(scale, fabs(100.0 * (w->ms_up - s->base_ms) / s->base_ms));
    }
    int y = r.y + 1;
    tui_printf(y++, r.x + 1, r.w - 2, tui_attr(TC_DIM), "%-34slatency change, faster left, slower right: %s a step down, %s up",
               "knob   down <now> up", tui_g.bar_light, tui_g.bar);
    for (int i = 0; i < s->n && y < r.y + r.h - 2; i++, y += 2) row(y, r.x + 1, r.w - 2, s, &s->row[i], scale);
    if (y < r.y + r.h)
        tui_printf(r.y + r.h - 1, r.x + 1, r.w - 2, tui_attr(TC_DIM),
                   "longest bar %.1f%%; ranked in %.1f s; on the command line: elk sensitivity", scale, sn->ms / 1e3);
}

static int csv(elk_view *v, FILE *fp, const tui_ctx *cx, char *msg, size_t n)
{
    (void)cx;
    const sens_state *st = v->state;
    if (!st->sn || st->sn->status != ELK_OK) {
        snprintf(msg, n, "no sensitivity study yet");
        return -1;
    }
    const elk_sens *s = &st->sn->s;
    fprintf(fp, "knob,value,down,down_ms,up,up_ms,base_ms\n");
    for (int i = 0; i < s->n; i++) {
        const elk_sens_row *w = &s->row[i];
        fprintf(fp, "%s,%.17g,", elk_knobs[w->knob].name, w->value);
        if (w->have_down) fprintf(fp, "%.17g,%.17g,", w->down, w->ms_down);
        else fprintf(fp, ",,");
        if (w->have_up) fprintf(fp, "%.17g,%.17g,", w->up, w->ms_up);
        else fprintf(fp, ",,");
        fprintf(fp, "%.17g\n", s->base_ms);
    }
    return 0;
}

static void destroy(elk_view *v)
{
    sens_state *st = v->state;
    if (st) free(st->sn);
    free(st);
}

elk_view *view_sensitivity_new(void)
{
    elk_view *v = calloc(1, sizeof *v);
    sens_state *st = calloc(1, sizeof *st);
    if (!v || !st) {
        free(v);
        free(st);
        return NULL;
    }
    v->state = st;
    v->name = "sensitivity";
    v->title = "Sensitivity";
    v->keys = "";
    v->help = "p/P=focus a policy (the one studied)";
    v->draw = draw;
    v->csv = csv;
    v->destroy = destroy;
    return v;
}
