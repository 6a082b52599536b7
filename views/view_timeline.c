#include "view_timeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tui_compare.h"
#include "tui_draw.h"

typedef struct {
    int step_mode;
    int layer;        /* -1: the middle layer */
    double zoom;      /* >= 1 */
    double pan;       /* 0..1: where the visible window sits */
    int scroll;       /* first op row shown (layer mode) */
    int frozen, frozen_key; /* f: the window kept for this mode and layer */
    double ff0, ff1;
} tl_state;

static int has_preload(const elk_sched_op *o) { return o->pre_end > o->pre_start; }

/* The ops [a, b) a layer covers (layer -1 = head, nlayers = tail). */
static void layer_ops(const elk_graph *g, int layer, int *a, int *b)
{
    if (layer < 0) {
        *a = 0;
        *b = g->head;
    } else if (layer >= g->nlayers) {
        *a = g->head + g->nlayers * g->per_layer;
        *b = g->nops;
    } else {
        *a = g->head + layer * g->per_layer;
        *b = *a + g->per_layer;
    }
    if (*b > g->nops) *b = g->nops;
}

static void clamp_layer(tl_state *st, const elk_graph *g)
{
    if (st->layer == -2 || st->layer > g->nlayers) st->layer = g->nlayers / 2;
    if (st->layer < -1) st->layer = -1;
}

/* Time window of what the mode shows, before zoom. */
static void full_window(const tl_state *st, const elk_graph *g, const elk_schedule *sc, double *t0, double *t1)
{
    if (st->step_mode) {
        *t0 = 0;
        *t1 = sc->latency;
        return;
    }
    int a, b;
    layer_ops(g, st->layer, &a, &b);
    *t0 = INFINITY;
    *t1 = 0;
    for (int i = a; i < b && i < sc->nops; i++) {
        const elk_sched_op *o = &sc->ops[i];
        double s = has_preload(o) ? fmin(o->pre_start, o->exe_start) : o->exe_start;
        if (s < *t0) *t0 = s;
        if (o->exe_end > *t1) *t1 = o->exe_end;
    }
    if (!(*t0 < *t1)) {
        *t0 = 0;
        *t1 = sc->latency > 0 ? sc->latency : 1;
    }
}

static void visible(const tl_state *st, double f0, double f1, double *v0, double *v1)
{
    double span = (f1 - f0) / st->zoom;
    *v0 = f0 + st->pan * ((f1 - f0) - span);
    *v1 = *v0 + span;
}

/* Fill columns [a, b) of a lane row for the interval [s, e) (cells of dt). */
static void bar(int y, int x, int w, double v0, double dt, double s, double e, attr_t a, const char *glyph)
{
    if (e <= v0 || s >= v0 + dt * w) return;
    int ca = (int)floor((s - v0) / dt), cb = (int)ceil((e - v0) / dt);
    if (cb <= ca) cb = ca + 1;
    if (ca < 0) ca = 0;
    if (cb > w) cb = w;
    tui_fill(y, x + ca, cb - ca, a, glyph);
}

static void time_axis(int y, int x, int w, double v0, double v1, const tui_snap *s)
{
    tui_fill(y, x, w, tui_attr(TC_AXIS), tui_g.hline);
    double ms0 = tui_cyc_ms(s, v0), ms1 = tui_cyc_ms(s, v1), span = ms1 - ms0;
    if (!(span > 0)) return;
    double step = pow(10, floor(log10(span / 4)));
    if (span / step > 8) step *= 2;
    if (span / step > 8) step *= 2.5;
    int last = -100;
    for (double t = ceil(ms0 / step) * step; t <= ms1; t += step) {
        int col = (int)((t - ms0) / span * (w - 1));
        char buf[32];
        tui_fmt_ms(t, buf, sizeof buf);
        int bw = tui_cols(buf);
        if (col - last < bw + 2 || col + bw > w) continue;
        tui_puts(y, x + col, 1, tui_attr(TC_AXIS), tui_ascii() ? "+" : "\u253c");
        tui_puts(y + 1, x + col, bw, tui_attr(TC_DIM), buf);
        last = col;
    }
}

/* The pinned point's schedule of the same policy when its graph has the
 * same operators (same count and names), else NULL: then its bars can be
 * drawn behind the live ones, operator by operator. */
static const elk_schedule *pinned_same_graph(const tui_snap *pn, const tui_snap *s, int pol)
{
    if (!pn || !pn->res.have[pol] || pn->pr.graph.nops != s->pr.graph.nops) return NULL;
    const elk_schedule *ps = &pn->res.pol[pol];
    if (ps->nops != s->res.pol[pol].nops) return NULL;
    for (int i = 0; i < s->pr.graph.nops; i++)
        if (strcmp(pn->pr.graph.ops[i].name, s->pr.graph.ops[i].name)) return NULL;
    return ps;
}

static void draw_layer(tl_state *st, const tui_rect *r, const tui_snap *s, const elk_schedule *sc, double v0,
                       double v1, const tui_snap *pn, const elk_schedule *ps)
{
    const elk_graph *g = &s->pr.graph;
    int a, b;
    layer_ops(g, st->layer, &a, &b);
    const int namew = 19;
    int x = r->x + 1 + namew, w = r->w - 2 - namew;
    int rows = r->h - 3;
    if (w < 10 || rows < 1) return;
    double dt = (v1 - v0) / w;
    if (st->scroll > b - a - rows) st->scroll = b - a - rows;
    if (st->scroll < 0) st->scroll = 0;
    int y = r->y;
    for (int i = a + st->scroll; i < b && y < r->y + rows; i++, y++) {
        const elk_sched_op *o = &sc->ops[i];
        tui_printf(y, r->x + 1, namew - 1, A_NORMAL, "%-*s", namew - 1, g->ops[i].name);
        /* the pinned point's execution behind (its cycles on its own clock) */
        if (ps) {
            double k = s->pr.chip.clock_ghz / pn->pr.chip.clock_ghz;
            bar(y, x, w, v0, dt, ps->ops[i].exe_start * k, ps->ops[i].exe_end * k, tui_attr(TC_DIM),
                tui_ascii() ? "-" : "\u2500");
        }
        if (has_preload(o)) bar(y, x, w, v0, dt, o->pre_start, o->pre_end, tui_attr(TC_PRELOAD), tui_g.bar_light);
        bar(y, x, w, v0, dt, o->exe_start, o->exe_end, tui_attr(TC_EXEC), tui_g.bar);
    }
    if (b - a > rows)
        tui_printf(r->y + rows - 1, r->x + 1, namew - 1, tui_attr(TC_DIM), "(j/k: %d more)", b - a - rows);
    time_axis(r->y + rows, x, w, v0, v1, s);
    int lx = r->x + 1;
    tui_fill(r->y + rows + 2, lx, 2, tui_attr(TC_EXEC), tui_g.bar);
    lx += 2 + tui_puts(r->y + rows + 2, lx + 2, 20, A_NORMAL, " execution  ");
    tui_fill(r->y + rows + 2, lx, 2, tui_attr(TC_PRELOAD), tui_g.bar_light);
    lx += 2 + tui_puts(r->y + rows + 2, lx + 2, r->w - lx, A_NORMAL, " HBM preload (time from step start)");
    if (ps) {
        tui_fill(r->y + rows + 2, lx + 2, 2, tui_attr(TC_DIM), tui_ascii() ? "-" : "\u2500");
        tui_puts(r->y + rows + 2, lx + 4, r->w - lx - 4, A_NORMAL, " pinned execution");
    }
}

static const char *shade(double f)
{
    if (tui_ascii()) return f >= 0.75 ? "#" : f >= 0.5 ? "=" : f >= 0.25 ? "-" : f > 0.0 ? "." : " ";
    return f >= 0.875 ? "\u2588" : f >= 0.625 ? "\u2593" : f >= 0.375 ? "\u2592" : f > 0.0 ? "\u2591" : " ";
}

static void draw_step(const tl_state *st, const tui_rect *r, const tui_snap *s, const elk_schedule *sc, double v0,
                      double v1)
{
    (void)st;
    const elk_graph *g = &s->pr.graph;
    const int namew = 12;
    int x = r->x + 1 + namew, w = r->w - 2 - namew;
    if (w < 10 || r->h < 8) return;
    double dt = (v1 - v0) / w;
    double *ex = calloc((size_t)w, sizeof *ex), *pre = calloc((size_t)w, sizeof *pre), *noc = calloc((size_t)w, sizeof *noc);
    if (!ex || !pre || !noc) {
        free(ex);
        free(pre);
        free(noc);
        return;
    }
    /* the NoC lane: bytes the ports carry (an op's execution traffic over
     * its execution, its preload's deliveries over the preload) against
     * the ports' capacity, as the planner has them */
    double cap = elk_chip_noc_bytes_per_cycle(&s->pr.chip) * dt;
    for (int i = 0; i < sc->nops; i++) {
        const elk_sched_op *o = &sc->ops[i];
        for (int k = 0; k < 2; k++) {
            double a = k ? o->pre_start : o->exe_start, b = k ? o->pre_end : o->exe_end;
            if (b <= a || b <= v0 || a >= v1) continue;
            int ca = (int)floor((a - v0) / dt), cb = (int)floor((b - v0) / dt);
            if (ca < 0) ca = 0;
            if (cb > w - 1) cb = w - 1;
            for (int c = ca; c <= cb; c++) {
                double lo = v0 + c * dt, hi = lo + dt;
                double ov = fmin(b, hi) - fmax(a, lo);
                if (ov > 0) (k ? pre : ex)[c] += ov / dt;
                double bytes = k ? o->deliv : o->exe_noc_bytes;
                if (ov > 0 && cap > 0) noc[c] += bytes * (ov / (b - a)) / cap;
            }
        }
    }
    int lane_h = (r->h - 5) / 4;
    if (lane_h < 1) lane_h = 1;
    if (lane_h > 3) lane_h = 3;
    static const char *lane_name[4] = {"execute", "HBM preload", "NoC", "cores idle"};
    static const tui_role lane_role[4] = {TC_EXEC, TC_PRELOAD, TC_ROOF_NOC, TC_BRK_PRELOAD};
    int y = r->y;
    /* layer boundaries */
    tui_puts(y, r->x + 1, namew - 1, tui_attr(TC_DIM), "layers");
    int last = -100;
    for (int L = 0; L < g->nlayers; L++) {
        int i = g->head + L * g->per_layer;
        if (i >= sc->nops) break;
        double t = sc->ops[i].exe_start;
        if (t < v0 || t >= v1) continue;
        int col = (int)((t - v0) / dt);
        char buf[16];
        snprintf(buf, sizeof buf, "|L%d", L);
        if (col - last < tui_cols(buf) + 1) continue;
        tui_puts(y, x + col, w - col, tui_attr(TC_DIM), buf);
        last = col;
    }
    y++;
    for (int lane = 0; lane < 4; lane++) {
        for (int k = 0; k < lane_h; k++, y++) {
            if (k == lane_h / 2) tui_puts(y, r->x + 1, namew - 1, A_NORMAL, lane_name[lane]);
            for (int c = 0; c < w; c++) {
                double f = lane == 0 ? ex[c] : lane == 1 ? pre[c] : lane == 2 ? noc[c] : 1 - ex[c];
                if (f > 1) f = 1;
                if (f < 0) f = 0;
                tui_puts(y, x + c, 1, tui_attr(lane_role[lane]), shade(f));
            }
        }
    }
    time_axis(y, x, w, v0, v1, s);
    tui_puts(y + 2, r->x + 1, r->w - 2, tui_attr(TC_DIM),
             tui_ascii() ? "shading: # >75%  = >50%  - >25%  . busy   (time from step start)"
                         : "shading: \u2588 >87%  \u2593 >62%  \u2592 >37%  \u2591 busy   (time from step start)");
    free(ex);
    free(pre);
    free(noc);
}

static void draw(elk_view *v, const tui_rect *r0, tui_ctx *cx)
{
    tl_state *st = v->state;
    const tui_snap *s = cx->snap;
    char sub[160] = "";
    if (tui_snap_ok(s)) {
        clamp_layer(st, &s->pr.graph);
        int pol = s->res.have[cx->focus] ? cx->focus : ELK_POL_IDEAL;
        if (st->step_mode)
            snprintf(sub, sizeof sub, "%s, whole step (%d layers), zoom x%g", elk_policy_labels[pol],
                     s->pr.graph.nlayers, st->zoom);
        else if (st->layer < 0) snprintf(sub, sizeof sub, "%s, before the first layer, zoom x%g", elk_policy_labels[pol], st->zoom);
        else if (st->layer >= s->pr.graph.nlayers) snprintf(sub, sizeof sub, "%s, after the last layer, zoom x%g", elk_policy_labels[pol], st->zoom);
        else
            snprintf(sub, sizeof sub, "%s, layer %d of %d, zoom x%g", elk_policy_labels[pol], st->layer,
                     s->pr.graph.nlayers, st->zoom);
    }
    tui_rect r = tui_title(r0, "Timeline", sub);
    if (tui_need_result(&r, cx)) return;
    int pol = s->res.have[cx->focus] ? cx->focus : ELK_POL_IDEAL;
    const elk_schedule *sc = &s->res.pol[pol];
    double f0, f1, v0, v1;
    full_window(st, &s->pr.graph, sc, &f0, &f1);
    int fkey = st->step_mode ? -1000 : st->layer;
    if (!cx->fixed_axes || st->frozen_key != fkey) st->frozen = 0;
    if (cx->fixed_axes && !st->frozen) {
        st->frozen = 1;
        st->frozen_key = fkey;
        st->ff0 = f0, st->ff1 = f1;
    } else if (cx->fixed_axes) {
        f0 = st->ff0, f1 = st->ff1;
    }
    visible(st, f0, f1, &v0, &v1);
    tui_rect body = {r.y + 1, r.x, r.h - 1, r.w};
    char a[32], b[32], c[32];
    tui_fmt_ms(sc->latency_ms, a, sizeof a);
    tui_fmt_ms(tui_cyc_ms(s, sc->brk[ELK_BRK_PRELOAD]), b, sizeof b);
    tui_fmt_ms(tui_cyc_ms(s, sc->brk[ELK_BRK_OVERLAP]), c, sizeof c);
    int n = tui_printf(r.y, r.x + 1, r.w - 2, tui_attr(TC_DIM), "step %s: %s overlapped, %s waiting on HBM; window %.4g..%.4g ms",
                       a, c, b, tui_cyc_ms(s, v0), tui_cyc_ms(s, v1));
    const tui_snap *pn = cx->pin;
    if (pn && pn->res.have[pol]) {
        char d[48], pa[32];
        tui_fmt_ms(pn->res.pol[pol].latency_ms, pa, sizeof pa);
        tui_fmt_delta(sc->latency_ms, pn->res.pol[pol].latency_ms, d, sizeof d);
        tui_printf(r.y, r.x + 1 + n, r.w - 2 - n, tui_attr(TC_HILITE), "; pinned %s (%s)", pa, d);
    }
    if (st->step_mode) draw_step(st, &body, s, sc, v0, v1);
    else draw_layer(st, &body, s, sc, v0, v1, cx->pin, pinned_same_graph(cx->pin, s, pol));
}

static unsigned key(elk_view *v, int ch, tui_ctx *cx)
{
    tl_state *st = v->state;
    const tui_snap *s = cx->snap;
    int nl = tui_snap_ok(s) ? s->pr.graph.nlayers : 0;
    double step = 0.25 / st->zoom;
    switch (ch) {
    case '+':
    case '=': st->zoom = fmin(st->zoom * 2, 4096); break;
    case '-':
    case '_': st->zoom = fmax(st->zoom / 2, 1); break;
    case '<':
    case ',':
    case 'h': st->pan = fmax(0, st->pan - (st->zoom > 1 ? step / (1 - 1 / st->zoom) : 0)); break;
    case '>':
    case '.':
    case 'l': st->pan = fmin(1, st->pan + (st->zoom > 1 ? step / (1 - 1 / st->zoom) : 0)); break;
    case '0':
        st->zoom = 1;
        st->pan = 0;
        break;
    case 't':
        st->step_mode = !st->step_mode;
        st->zoom = 1;
        st->pan = 0;
        break;
    case '[':
        if (nl) st->layer = st->layer <= -1 ? nl : st->layer - 1;
        st->scroll = 0;
        break;
    case ']':
        if (nl) st->layer = st->layer >= nl ? -1 : st->layer + 1;
        st->scroll = 0;
        break;
    case 'j': st->scroll++; break;
    case 'k':
        if (st->scroll > 0) st->scroll--;
        break;
    default: return ELK_VIEW_NONE;
    }
    return ELK_VIEW_HANDLED | ELK_VIEW_REDRAW;
}

static int csv(elk_view *v, FILE *fp, const tui_ctx *cx, char *msg, size_t n)
{
    (void)v;
    const tui_snap *s = cx->snap;
    if (!tui_snap_ok(s)) {
        snprintf(msg, n, "no result to export yet");
        return -1;
    }
    double f = s->pr.chip.clock_ghz * 1e3;
    fprintf(fp, "policy,op,name,layer,exe_start_us,exe_end_us,pre_start_us,pre_end_us,preload_number,preload_pos,"
                "hot_bytes,cold_bytes,stall_us,dist_us\n");
    for (int p = 0; p < ELK_POL_COUNT; p++) {
        if (!s->res.have[p]) continue;
        const elk_schedule *sc = &s->res.pol[p];
        for (int i = 0; i < sc->nops && i < s->pr.graph.nops; i++) {
            const elk_sched_op *o = &sc->ops[i];
            fprintf(fp, "%s,%d,%s,%d,%.4f,%.4f,%.4f,%.4f,%d,%d,%.0f,%.0f,%.4f,%.4f\n", elk_policy_names[p], i,
                    s->pr.graph.ops[i].name, s->pr.graph.ops[i].layer, o->exe_start / f, o->exe_end / f,
                    o->pre_start / f, o->pre_end / f, o->preload_number, o->preload_pos, o->hot, o->cold, o->stall / f,
                    o->dist / f);
        }
    }
    return 0;
}

static int gnuplot(elk_view *v, FILE *fp, const tui_ctx *cx, char *msg, size_t n)
{
    tl_state *st = v->state;
    const tui_snap *s = cx->snap;
    if (!tui_snap_ok(s)) {
        snprintf(msg, n, "no result to draw yet");
        return -1;
    }
    const elk_graph *g = &s->pr.graph;
    clamp_layer(st, g);
    int pol = s->res.have[cx->focus] ? cx->focus : ELK_POL_IDEAL;
    const elk_schedule *sc = &s->res.pol[pol];
    int a = 0, b = sc->nops;
    if (!st->step_mode) layer_ops(g, st->layer, &a, &b);
    double f = s->pr.chip.clock_ghz * 1e3;
    fprintf(fp, "$ops << EOD\n");
    for (int i = a; i < b && i < sc->nops; i++) {
        const elk_sched_op *o = &sc->ops[i];
        fprintf(fp, "%d \"%s\" %.4f %.4f %.4f %.4f\n", i - a, g->ops[i].name, o->exe_start / f, o->exe_end / f,
                o->pre_start / f, o->pre_end / f);
    }
    fprintf(fp, "EOD\n");
    fprintf(fp, "set title \"%s: %s on %s, %s\" noenhanced\nset xlabel 'time from step start (us)'\n"
                "set yrange [*:*] reverse\nset grid x\nset key outside right top\n",
            elk_policy_labels[pol], s->pr.model.name, s->pr.chip.name, st->step_mode ? "whole step" : "one layer");
    if (!st->step_mode) fprintf(fp, "set ytics nomirror noenhanced\n");
    else fprintf(fp, "set ylabel 'operator'\n");
    fprintf(fp, "plot $ops using 5:1:($6-$5):(0)%s with vectors nohead lw %d lc rgb '#E69F00' title 'HBM preload', "
                "$ops using 3:($1+0.25):($4-$3):(0) with vectors nohead lw %d lc rgb '#0072B2' title 'execution'\n",
            st->step_mode ? "" : ":ytic(2)", st->step_mode ? 1 : 6, st->step_mode ? 1 : 6);
    return 0;
}

static void destroy(elk_view *v) { free(v->state); }

elk_view *view_timeline_new(void)
{
    elk_view *v = calloc(1, sizeof *v);
    tl_state *st = calloc(1, sizeof *st);
    if (!v || !st) {
        free(v);
        free(st);
        return NULL;
    }
    st->layer = -2;
    st->zoom = 1;
    v->state = st;
    v->name = "timeline";
    v->title = "Timeline";
    v->keys = "+/-=Zoom  </>=Pan  [ ]=Layer  t=Layer/Step";
    v->help = "+ -=zoom in / out  < > (or h l)=pan  0=reset zoom  [ ]=previous / next layer  "
              "t=toggle one layer / whole step  j k=scroll operator rows  p/P=focus a policy (the one drawn)";
    v->draw = draw;
    v->key = key;
    v->csv = csv;
    v->gnuplot = gnuplot;
    v->destroy = destroy;
    return v;
}
