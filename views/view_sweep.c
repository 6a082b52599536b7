#include "view_sweep.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tui_canvas.h"
#include "tui_draw.h"
#include "elk_balance.h"
#include "tui_export.h"
#include "tui_worker.h"

static const int sweep_knobs[] = {ELK_KNOB_HBM_TBPS, ELK_KNOB_NOC_TBPS, ELK_KNOB_CORES,
                                  ELK_KNOB_SRAM_KIB, ELK_KNOB_BATCH,    ELK_KNOB_SEQ};
#define NKNOBS ((int)(sizeof sweep_knobs / sizeof sweep_knobs[0]))

enum { M_LATENCY, M_PCT, M_TFLOPS, M_HBM, M_COUNT };
static const char *const metric_label[M_COUNT] = {"latency (ms/step)", "% of Ideal", "TFLOPS", "HBM utilisation (%)"};

typedef struct {
    int ki;                 /* index into sweep_knobs */
    int metric;
    int custom;             /* xs typed by the user */
    int n;
    double xs[TUI_SWEEP_MAX];
    elk_point base;         /* the point the running sweep is around */
    unsigned long started;  /* sweeper id we started, 0 = none */
    int dirty;              /* restart on next draw */
    tui_sweep_data data;    /* last copy from the sweeper */
    int have_data;
    /* the second curve: the same values swept around the pinned point */
    elk_point pin_base;
    unsigned long pin_started; /* pin sweeper id we started, 0 = none */
    tui_sweep_data pdata;
    tui_axes_keep keep;     /* f: the scales kept from when it was pressed */
} sweep_state;

static int knob_log(int knob) { return knob == ELK_KNOB_BATCH || knob == ELK_KNOB_SEQ; }

static void default_values(sweep_state *st, const tui_ctx *cx)
{
    int knob = sweep_knobs[st->ki];
    const elk_chip *c = cx->chip;
    int n = 0;
    switch (knob) {
    case ELK_KNOB_HBM_TBPS:
        for (int i = 1; i <= 10; i++) st->xs[n++] = 2.0 * i;
        break;
    case ELK_KNOB_NOC_TBPS: {
        double now = elk_chip_noc_bytes_per_cycle(c) * c->clock_ghz / 1e3;
        double base = now / c->noc_scale;
        for (int i = 2; i <= 8; i++) st->xs[n++] = round(base * 0.25 * i * 100) / 100;
        break;
    }
    case ELK_KNOB_CORES:
        for (int i = 1; i <= 10; i++) {
            double v = round(c->cores * i / 8.0);
            if (v >= 1 && (n == 0 || v != st->xs[n - 1])) st->xs[n++] = v;
        }
        break;
    case ELK_KNOB_SRAM_KIB:
        for (double v = 320; v <= 960; v += 64)
            if (v > c->reserved_kib) st->xs[n++] = v;
        break;
    case ELK_KNOB_BATCH:
        for (int v = 1; v <= 256; v *= 2) st->xs[n++] = v;
        break;
    case ELK_KNOB_SEQ:
        for (int v = 256; v <= 16384; v *= 2) st->xs[n++] = v;
        break;
    }
    st->n = n;
}

static void start(sweep_state *st, tui_ctx *cx)
{
    if (!st->custom) default_values(st, cx);
    st->base = *cx->point;
    tui_sweeper_run(cx->sweeper, cx->point, sweep_knobs[st->ki], st->xs, st->n);
    tui_sweep_data d;
    if (tui_sweeper_get(cx->sweeper, &d)) st->started = d.id;
    st->dirty = 0;
    st->pin_started = 0; /* the pinned curve follows the same values */
}

/* Keep the pinned point's sweep (same knob, same values) running or
 * stopped; returns 1 when its data (st->pdata) answers the pin. */
static int pin_sweep(sweep_state *st, tui_ctx *cx)
{
    if (!cx->pin_sweeper) return 0;
    if (!cx->pin) {
        if (st->pin_started) tui_sweeper_cancel(cx->pin_sweeper);
        st->pin_started = 0;
        return 0;
    }
    if (!st->pin_started || memcmp(&st->pin_base, &cx->pin->point, sizeof st->pin_base)) {
        st->pin_base = cx->pin->point;
        tui_sweeper_run(cx->pin_sweeper, &st->pin_base, sweep_knobs[st->ki], st->xs, st->n);
        tui_sweep_data d;
        st->pin_started = tui_sweeper_get(cx->pin_sweeper, &d) ? d.id : 0;
    }
    return tui_sweeper_get(cx->pin_sweeper, &st->pdata) && st->pdata.id == st->pin_started;
}

static double metric(const tui_sweep_pt *p, int pol, int m)
{
    switch (m) {
    case M_LATENCY: return p->lat_ms[pol];
    case M_PCT: return p->pct[pol];
    case M_TFLOPS: return p->tflops[pol];
    default: return 100 * p->hbm[pol];
    }
}

static double current_value(const tui_ctx *cx, int knob)
{
    char buf[64];
    elk_point_format(cx->point, cx->chip, cx->model, (elk_knob)knob, buf, sizeof buf);
    return atof(buf);
}

/* What one draw shows, worked out before any of it is drawn: the sweep and
 * the pinned point's sweep (copies owned by the state), the plot's ranges,
 * the pinned point and the knee (NAN when there is none). */
typedef struct {
    const tui_sweep_data *d, *pd;
    int have_pd;
    int knob;
    const elk_knob_info *ki;
    double px0, px1, y0, y1;
    double pin_x, pin_y;
    double knee;
} sweep_frame;

/* The x range of the points and the y range of their finished values (and
 * the pinned sweep's), padded: from 0, to 100 for percentages. */
static void frame_ranges(const sweep_state *st, const tui_ctx *cx, sweep_frame *fr)
{
    const tui_sweep_data *d = fr->d, *pd = fr->pd;
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    for (int i = 0; i < d->n; i++) {
        if (d->pt[i].x < x0) x0 = d->pt[i].x;
        if (d->pt[i].x > x1) x1 = d->pt[i].x;
        if (d->pt[i].state != 2) continue;
        for (int p = 0; p < ELK_POL_COUNT; p++) {
            if (!d->pt[i].have[p]) continue;
            double y = metric(&d->pt[i], p, st->metric);
            if (!isfinite(y)) continue;
            if (y < y0) y0 = y;
            if (y > y1) y1 = y;
        }
    }
    for (int i = 0; fr->have_pd && i < pd->n; i++) {
        if (pd->pt[i].state != 2 || !pd->pt[i].have[cx->focus]) continue;
        double y = metric(&pd->pt[i], cx->focus, st->metric);
        if (isfinite(y) && y > y1) y1 = y;
        if (isfinite(y) && y < y0) y0 = y;
    }
    if (!(x1 > x0)) {
        x0 = x0 < INFINITY ? x0 * 0.5 : 0;
        x1 = x0 * 4 + 1;
    }
    if (!(y1 >= y0)) {
        y0 = 0;
        y1 = 1;
    }
    if (st->metric == M_PCT || st->metric == M_HBM) {
        y0 = 0;
        if (y1 < 100) y1 = 100;
    } else {
        y0 = 0;
        y1 *= 1.05;
    }
    tui_nice_range(&y0, &y1, 0);
    if (knob_log(fr->knob)) {
        fr->px0 = x0 / 1.2;
        fr->px1 = x1 * 1.2;
    } else {
        double pad = (x1 - x0) * 0.03;
        fr->px0 = x0 - pad;
        fr->px1 = x1 + pad;
    }
    fr->y0 = y0;
    fr->y1 = y1;
}

/* the pinned point: its value of the swept knob and the focused
 * policy's metric there (a summary of its result) */
static void frame_pin(const sweep_state *st, const tui_ctx *cx, sweep_frame *fr)
{
    const tui_snap *pn = cx->pin;
    fr->pin_x = fr->pin_y = NAN;
    if (!pn || !pn->res.have[cx->focus]) return;
    char buf[64];
    elk_point_format(&pn->point, &pn->pr.chip, &pn->pr.model, (elk_knob)fr->knob, buf, sizeof buf);
    fr->pin_x = atof(buf);
    tui_sweep_pt pp;
    memset(&pp, 0, sizeof pp);
    int f = cx->focus;
    pp.lat_ms[f] = pn->res.pol[f].latency_ms;
    pp.pct[f] = pn->res.pct_ideal[f];
    pp.hbm[f] = pn->res.pol[f].hbm_util;
    pp.tflops[f] = pn->res.pol[f].tflops;
    fr->pin_y = metric(&pp, f, st->metric);
    if (fr->pin_y > fr->y1) {
        fr->y1 = fr->pin_y * 1.05;
        tui_nice_range(&fr->y0, &fr->y1, 0);
    }
}

/* where more stops paying (issue 14): the focused policy's latency
 * within 5% of the top of the range, from the finished samples; only
 * for knobs where more is more (not batch or sequence) */
static double frame_knee(const sweep_state *st, const tui_ctx *cx, const sweep_frame *fr)
{
    const tui_sweep_data *d = fr->d;
    if (st->metric != M_LATENCY || knob_log(fr->knob) || d->done != d->n || d->n < 2) return NAN;
    elk_knee_pt kp[TUI_SWEEP_MAX];
    int nk = 0;
    for (int i = 0; i < d->n; i++)
        if (d->pt[i].state == 2 && d->pt[i].have[cx->focus])
            kp[nk++] = (elk_knee_pt){d->pt[i].x, d->pt[i].lat_ms[cx->focus]};
    return elk_knee_of_samples(kp, nk, 0.05, NULL);
}

/* One policy's curve: lines between its finished points, then its marks. */
static void plot_policy(tui_plot *pl, const tui_sweep_data *d, int p, int metric_i, int color, char mark)
{
    int prev = -1;
    for (int i = 0; i < d->n; i++) {
        const tui_sweep_pt *pt = &d->pt[i];
        if (pt->state != 2 || !pt->have[p]) continue;
        double y = metric(pt, p, metric_i);
        if (prev >= 0) cv_line(&pl->cv, d->pt[prev].x, metric(&d->pt[prev], p, metric_i), pt->x, y, color);
        prev = i;
    }
    for (int i = 0; i < d->n; i++) {
        const tui_sweep_pt *pt = &d->pt[i];
        if (pt->state == 2 && pt->have[p]) cv_mark(&pl->cv, pt->x, metric(pt, p, metric_i), mark, color);
    }
}

/* The plot: the current value's and the knee's vertical lines, the pinned
 * sweep, every policy's curve (the focused one on top) and the points not
 * done along the bottom. */
static void draw_plot(const sweep_state *st, tui_ctx *cx, const sweep_frame *fr, const tui_rect *pr)
{
    const tui_sweep_data *d = fr->d;
    const elk_knob_info *ki = fr->ki;
    double px0 = fr->px0, px1 = fr->px1, y0 = fr->y0, y1 = fr->y1;
    tui_plot pl;
    char xl[96];
    snprintf(xl, sizeof xl, "%s%s%s%s", ki->label, *ki->unit ? " (" : "", ki->unit, *ki->unit ? ")" : "");
    if (!tui_plot_begin(&pl, pr, px0, px1, knob_log(fr->knob), y0, y1, 0, cx->ascii)) return;
    tui_plot_axes(&pl, xl, metric_label[st->metric], tui_fmt_si, tui_fmt_si);
    double cur = current_value(cx, fr->knob);
    if (cur >= px0 && cur <= px1) cv_line(&pl.cv, cur, y0, cur, y1, TC_DIM);
    if (isfinite(fr->knee) && fr->knee >= px0 && fr->knee <= px1) cv_line(&pl.cv, fr->knee, y0, fr->knee, y1, TC_HILITE);
    /* the pinned point behind the curves: the focused policy swept
     * around it (a dim curve, small letters), and @ where the pinned
     * point itself sits */
    if (fr->have_pd)
        plot_policy(&pl, fr->pd, cx->focus, st->metric, TC_DIM, (char)(tui_policy_mark[cx->focus] - 'A' + 'a'));
    if (isfinite(fr->pin_y) && fr->pin_y >= y0 && fr->pin_y <= y1 && fr->pin_x >= px0 && fr->pin_x <= px1)
        cv_mark(&pl.cv, fr->pin_x, fr->pin_y, '@', TC_HILITE);
    for (int k = 0; k <= ELK_POL_COUNT; k++) {
        int p = k < ELK_POL_COUNT ? k : cx->focus;
        if (k < ELK_POL_COUNT && p == cx->focus) continue;
        plot_policy(&pl, d, p, st->metric, TC_POL_BASIC + p, tui_policy_mark[p]);
    }
    /* pending and failed points along the bottom */
    for (int i = 0; i < d->n; i++) {
        const tui_sweep_pt *pt = &d->pt[i];
        if (pt->state == 2) continue;
        int ccx, ccy;
        if (cv_cell(&pl.cv, pt->x, y0, &ccx, &ccy))
            cv_mark_cell(&pl.cv, ccx, pl.cv.h - 1, pt->state == 3 ? 'x' : pt->state == 1 ? '*' : '.',
                         pt->state == 3 ? TC_ERROR : TC_DIM);
    }
    tui_plot_end(&pl);
}

/* The side panel's values at the current point and the points' state. */
static void draw_side(const sweep_state *st, tui_ctx *cx, const sweep_frame *fr, const tui_rect *r, int ly, int lx,
                      int lw)
{
    const tui_sweep_data *d = fr->d, *pd = fr->pd;
    const elk_knob_info *ki = fr->ki;
    tui_printf(ly++, lx, lw, A_BOLD, "%s", metric_label[st->metric]);
    /* the values where the vertical line is: the sweep point at the
     * current value, else the live result of the current point */
    double cur = current_value(cx, fr->knob);
    int at = -1;
    for (int i = 0; i < d->n; i++)
        if (d->pt[i].state == 2 && fabs(d->pt[i].x - cur) <= 1e-9 * fmax(1, fabs(cur))) at = i;
    tui_sweep_pt live;
    const tui_sweep_pt *show = at >= 0 ? &d->pt[at] : NULL;
    if (!show && tui_snap_ok(cx->snap) && !cx->stale) {
        memset(&live, 0, sizeof live);
        for (int p = 0; p < ELK_POL_COUNT; p++) {
            live.have[p] = cx->snap->res.have[p];
            live.lat_ms[p] = cx->snap->res.pol[p].latency_ms;
            live.pct[p] = cx->snap->res.pct_ideal[p];
            live.hbm[p] = cx->snap->res.pol[p].hbm_util;
            live.tflops[p] = cx->snap->res.pol[p].tflops;
        }
        show = &live;
    }
    if (show) tui_printf(ly++, lx, lw, tui_attr(TC_DIM), "at %s = %g (current):", ki->name, cur);
    for (int p = 0; p < ELK_POL_COUNT; p++) {
        int n = tui_printf(ly, lx, lw, tui_attr(TC_POL_BASIC + p) | (p == cx->focus ? A_REVERSE : 0), "%c %-8s",
                           tui_policy_mark[p], elk_policy_labels[p]);
        if (show && show->have[p]) tui_printf(ly, lx + n, lw - n, A_NORMAL, " %10.4g", metric(show, p, st->metric));
        ly++;
    }
    ly++;
    int failed = 0;
    for (int i = 0; i < d->n; i++) failed += d->pt[i].state == 3;
    tui_printf(ly++, lx, lw, tui_attr(TC_DIM), "%d/%d points%s", d->done, d->n,
               d->done < d->n ? (tui_sweeper_busy(cx->sweeper) ? ", running" : "") : "");
    int carried = 0;
    for (int i = 0; i < d->n; i++) carried += d->pt[i].state == 2 && d->pt[i].carried;
    if (carried) /* docs/SWEEPS.md, Carried schedules */
        tui_printf(ly++, lx, lw, tui_attr(TC_DIM), "Elk-Full: %d pts carried", carried);
    if (failed) {
        tui_printf(ly++, lx, lw, tui_attr(TC_ERROR), "%d failed (x), e.g.:", failed);
        for (int i = 0; i < d->n; i++)
            if (d->pt[i].state == 3) {
                char wrapped[512];
                tui_wrap(d->pt[i].err, lw, wrapped, sizeof wrapped);
                for (char *save = NULL, *l = strtok_r(wrapped, "\n", &save); l && ly < r->y + r->h - 2; l = strtok_r(NULL, "\n", &save))
                    tui_puts(ly++, lx, lw, tui_attr(TC_DIM), l);
                break;
            }
    }
    tui_puts(ly + 1, lx, lw, tui_attr(TC_DIM), "vertical line: current point");
    if (isfinite(fr->knee)) tui_printf(ly++ + 2, lx, lw, tui_attr(TC_HILITE), "knee (5%%): %.4g %s", fr->knee, ki->unit);
    if (isfinite(fr->pin_y)) {
        tui_printf(ly + 2, lx, lw, tui_attr(TC_HILITE), "@ pinned: %s %.4g", elk_policy_labels[cx->focus], fr->pin_y);
        tui_printf(ly + 3, lx, lw, tui_attr(TC_DIM), "%c: swept around the pin %d/%d",
                   tui_policy_mark[cx->focus] - 'A' + 'a', fr->have_pd ? pd->done : 0, fr->have_pd ? pd->n : st->n);
    }
}

static void draw(elk_view *v, const tui_rect *r0, tui_ctx *cx)
{
    sweep_state *st = v->state;
    if (!cx->sweeper) return;
    if (!st->started || st->dirty || memcmp(&st->base, cx->point, sizeof st->base) != 0) start(st, cx);
    st->have_data = tui_sweeper_get(cx->sweeper, &st->data);
    sweep_frame fr;
    fr.d = &st->data;
    fr.have_pd = pin_sweep(st, cx);
    fr.pd = &st->pdata;
    fr.knob = sweep_knobs[st->ki];
    fr.ki = &elk_knobs[fr.knob];
    const tui_sweep_data *d = fr.d;
    char sub[160];
    snprintf(sub, sizeof sub, "%s over %d points, %d done%s", fr.ki->label, d->n, d->done,
             d->done < d->n ? " (computing)" : "");
    tui_rect r = tui_title(r0, "Sweep", sub);
    frame_ranges(st, cx, &fr);
    frame_pin(st, cx, &fr);
    tui_keep_axes(&st->keep, cx->fixed_axes, &fr.px0, &fr.px1, &fr.y0, &fr.y1);
    fr.knee = frame_knee(st, cx, &fr);
    int side = r.w >= 96 ? 30 : 0;
    tui_rect pr = {r.y, r.x, r.h - (side ? 0 : 2), r.w - side};
    draw_plot(st, cx, &fr, &pr);
    int ly = side ? r.y + 1 : r.y + r.h - 2, lx = side ? r.x + r.w - side + 1 : r.x + 1;
    int lw = side ? side - 2 : r.w - 2;
    if (side) {
        draw_side(st, cx, &fr, &r, ly, lx, lw);
    } else {
        int x = lx;
        for (int p = 0; p < ELK_POL_COUNT; p++)
            x += tui_printf(ly, x, lx + lw - x, tui_attr(TC_POL_BASIC + p), "%c %s  ", tui_policy_mark[p],
                            elk_policy_labels[p]);
        tui_printf(ly, x, lx + lw - x, tui_attr(TC_DIM), "%d/%d points", d->done, d->n);
    }
}

static int parse_values(const char *text, double *xs, int max, char *err, size_t en)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    int n = 0;
    if (strchr(buf, ',')) {
        for (char *save = NULL, *tok = strtok_r(buf, ", ", &save); tok && n < max; tok = strtok_r(NULL, ", ", &save)) {
            char *e;
            double v = strtod(tok, &e);
            if (e == tok || *e) {
                snprintf(err, en, "'%s' is not a number", tok);
                return -1;
            }
            xs[n++] = v;
        }
        return n;
    }
    double a[3];
    int k = 0;
    for (char *save = NULL, *tok = strtok_r(buf, " :", &save); tok; tok = strtok_r(NULL, " :", &save)) {
        char *e;
        if (k == 3) {
            snprintf(err, en, "expected FROM TO [STEP] or a list a,b,c");
            return -1;
        }
        a[k] = strtod(tok, &e);
        if (e == tok || *e) {
            snprintf(err, en, "'%s' is not a number", tok);
            return -1;
        }
        k++;
    }
    if (k < 2 || !(a[1] > a[0])) {
        snprintf(err, en, "expected FROM TO [STEP] with FROM < TO, or a list a,b,c");
        return -1;
    }
    double step = k == 3 ? a[2] : (a[1] - a[0]) / 9;
    if (!(step > 0)) {
        snprintf(err, en, "the step must be positive");
        return -1;
    }
    for (double v = a[0]; v <= a[1] + step * 1e-9 && n < max; v += step) xs[n++] = v;
    return n;
}

static void range_done(void *obj, tui_ctx *cx, const char *text)
{
    elk_view *v = obj;
    sweep_state *st = v->state;
    if (!text) return;
    if (!*text) {
        st->custom = 0;
        st->dirty = 1;
        return;
    }
    char err[128];
    double xs[TUI_SWEEP_MAX];
    int n = parse_values(text, xs, TUI_SWEEP_MAX, err, sizeof err);
    if (n <= 0) {
        cx->message(cx, 1, "sweep values: %s", n == 0 ? "no values" : err);
        return;
    }
    const elk_knob_info *ki = &elk_knobs[sweep_knobs[st->ki]];
    for (int i = 0; i < n; i++)
        if (!(xs[i] >= ki->min && xs[i] <= ki->max) || (ki->is_int && xs[i] != floor(xs[i]))) {
            cx->message(cx, 1, "sweep values: %g is not a valid --%s (%g .. %g%s)", xs[i], ki->name, ki->min, ki->max,
                        ki->is_int ? ", integer" : "");
            return;
        }
    memcpy(st->xs, xs, sizeof xs[0] * (size_t)n);
    st->n = n;
    st->custom = 1;
    st->dirty = 1;
}

static unsigned key(elk_view *v, int ch, tui_ctx *cx)
{
    sweep_state *st = v->state;
    switch (ch) {
    case 'k':
    case 'K':
        st->ki = (st->ki + (ch == 'k' ? 1 : NKNOBS - 1)) % NKNOBS;
        st->custom = 0;
        st->dirty = 1;
        break;
    case 'm': st->metric = (st->metric + 1) % M_COUNT; break;
    case 'r': {
        char init[256] = "";
        size_t l = 0;
        for (int i = 0; i < st->n && l + 16 < sizeof init; i++)
            l += (size_t)snprintf(init + l, sizeof init - l, "%s%g", i ? "," : "", st->xs[i]);
        char label[96];
        snprintf(label, sizeof label, "%s values (a,b,c or FROM TO STEP; empty = default)",
                 elk_knobs[sweep_knobs[st->ki]].name);
        cx->prompt(cx, label, init, range_done, v);
        break;
    }
    case 's': st->dirty = 1; break;
    default: return ELK_VIEW_NONE;
    }
    return ELK_VIEW_HANDLED | ELK_VIEW_REDRAW;
}

static int csv(elk_view *v, FILE *fp, const tui_ctx *cx, char *msg, size_t n)
{
    sweep_state *st = v->state;
    tui_sweep_data d;
    if (!cx->sweeper || !tui_sweeper_get(cx->sweeper, &d) || d.done == 0) {
        snprintf(msg, n, "no sweep points finished yet");
        return -1;
    }
    (void)st;
    char col[64];
    snprintf(col, sizeof col, "%s", elk_knobs[d.knob].name);
    for (char *p = col; *p; p++)
        if (*p == '-') *p = '_';
    fprintf(fp, "%s,policy,latency_ms,pct_ideal,tflops,hbm_util,noc_util\n", col);
    for (int i = 0; i < d.n; i++) {
        const tui_sweep_pt *pt = &d.pt[i];
        if (pt->state != 2) continue;
        for (int p = 0; p < ELK_POL_COUNT; p++)
            if (pt->have[p])
                fprintf(fp, "%.6g,%s,%.6f,%.4f,%.6f,%.6f,%.6f\n", pt->x, elk_policy_names[p], pt->lat_ms[p], pt->pct[p],
                        pt->tflops[p], pt->hbm[p], pt->noc[p]);
    }
    return 0;
}

static const char *const metric_col[M_COUNT] = {"latency_ms", "pct_ideal", "tflops", "hbm_util"};

/* The sweep with the shared "lines" template, as `elk sweep` draws its CSV. */
static int figure(elk_view *v, const tui_ctx *cx, const char *output, char *msg, size_t n)
{
    sweep_state *st = v->state;
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    if (!fp) {
        snprintf(msg, n, "out of memory");
        return -1;
    }
    int rc = csv(v, fp, cx, msg, n);
    fclose(fp);
    if (!rc) {
        tui_sweep_data d;
        tui_sweeper_get(cx->sweeper, &d);
        char col[64], title[256];
        snprintf(col, sizeof col, "%s", elk_knobs[d.knob].name);
        for (char *p = col; *p; p++)
            if (*p == '-') *p = '_';
        snprintf(title, sizeof title, "%s around %s on %s", elk_knobs[d.knob].label, cx->model->name, cx->chip->name);
        rc = tui_figure_csv(buf, "lines", col, metric_col[st->metric], "policy", knob_log(d.knob), title, output, msg, n);
    }
    free(buf);
    return rc;
}

static void destroy(elk_view *v) { free(v->state); }

elk_view *view_sweep_new(void)
{
    elk_view *v = calloc(1, sizeof *v);
    sweep_state *st = calloc(1, sizeof *st);
    if (!v || !st) {
        free(v);
        free(st);
        return NULL;
    }
    v->state = st;
    v->name = "sweep";
    v->title = "Sweep";
    v->keys = "k=Knob  r=Range  m=Metric";
    v->help = "k K=next / previous knob to sweep (HBM, NoC, cores, SRAM, batch, seq)  "
              "r=type the values (a,b,c or FROM TO STEP)  m=metric: latency, % of Ideal, TFLOPS, HBM utilisation  "
              "s=restart the sweep";
    v->draw = draw;
    v->key = key;
    v->csv = csv;
    v->figure = figure;
    v->destroy = destroy;
    return v;
}
