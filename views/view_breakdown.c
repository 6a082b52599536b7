#include "view_breakdown.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "elk_report.h"
#include "tui_compare.h"
#include "tui_draw.h"
#include "tui_export.h"

static const char *const seg_label[ELK_BRK_COUNT] = {"execute", "overlapped", "preload stall", "interconnect stall",
                                                     "data distribution"};

/* What the view keeps between draws: the bar scale frozen by f. */
typedef struct {
    int frozen;
    double maxlat;
} brk_state;

/* The bar of one schedule, scaled so maxlat fills barw cells. */
static void draw_bar(int y, int x, int barw, const elk_schedule *sc, double maxlat, int ghost)
{
    double cum = 0, lat = sc->latency > 0 ? sc->latency : 1;
    int start = 0;
    for (int k = 0; k < ELK_BRK_COUNT; k++) {
        cum += sc->brk[k];
        int end = (int)lround(cum / lat * sc->latency_ms / maxlat * barw);
        if (end > barw) end = barw;
        if (end > start)
            tui_fill(y, x + start, end - start, ghost ? tui_attr(TC_DIM) : tui_attr(TC_BRK_EXEC + k),
                     ghost ? tui_g.bar_light : tui_g.brk[k]);
        if (end > start) start = end;
    }
}

/* The segments' legend on one line, as many as fit. */
static void draw_legend(int y, int x, int w)
{
    int lx = x;
    for (int k = 0; k < ELK_BRK_COUNT; k++) {
        char item[64];
        snprintf(item, sizeof item, " %s  ", seg_label[k]);
        if (lx + 2 + tui_cols(item) > x + w) break;
        tui_puts(y, lx, 1, tui_attr(TC_BRK_EXEC + k), tui_g.brk[k]);
        tui_puts(y, lx + 1, 1, tui_attr(TC_BRK_EXEC + k), tui_g.brk[k]);
        lx += 2 + tui_puts(y, lx + 2, x + w - lx - 2, A_NORMAL, item);
    }
}

/* Where the bars go: labels, then barw cells scaled to maxlat, then the
 * numbers from nx (wide: every column), bar_gap rows per policy. */
typedef struct {
    int x, w, labw, barw, nx, wide, bar_gap;
    double maxlat;
} brk_layout;

/* One policy's row: its bar (the pinned one below it, or its end marked),
 * its numbers and the difference to the pinned point. */
static void draw_policy_row(tui_ctx *cx, const brk_layout *L, const tui_rect *r, int y, int p, double tokens)
{
    const elk_result *res = &cx->snap->res;
    const tui_snap *pin = cx->pin;
    int x = L->x, w = L->w, labw = L->labw, barw = L->barw, nx = L->nx;
    int focus = p == cx->focus;
    attr_t pa = tui_attr(TC_POL_BASIC + p) | (focus ? A_REVERSE : 0);
    tui_printf(y, x, labw, pa, "%-9s", elk_policy_labels[p]);
    cx->policy_row[p] = y;
    int have_pin = pin && pin->res.have[p];
    /* the pinned bar: on the row below when there is one, else its end
     * marked on the live bar */
    if (have_pin && L->bar_gap == 2 && y + 1 < r->y + r->h)
        draw_bar(y + 1, x + labw, barw, &pin->res.pol[p], L->maxlat, 1);
    if (!res->have[p]) {
        tui_puts(y, x + labw, barw, tui_attr(TC_DIM), "(not computed)");
        return;
    }
    const elk_schedule *sc = &res->pol[p];
    draw_bar(y, x + labw, barw, sc, L->maxlat, 0);
    if (have_pin && L->bar_gap == 1) {
        int e = (int)lround(pin->res.pol[p].latency_ms / L->maxlat * barw);
        if (e >= 1 && e <= barw) tui_puts(y, x + labw + e - 1, 1, tui_attr(TC_HILITE), tui_g.vline);
    }
    char pct[16];
    if (res->have[ELK_POL_IDEAL]) snprintf(pct, sizeof pct, "%7.2f%%", res->pct_ideal[p]);
    else snprintf(pct, sizeof pct, "%8s", "-");
    char tps[24];
    snprintf(tps, sizeof tps, "%.0f", tokens / (sc->latency_ms / 1e3)); /* as elk run prints it */
    int cx0 = nx;
    if (L->wide)
        cx0 += tui_printf(y, nx, x + w - nx, focus ? A_BOLD : A_NORMAL, "%9.4g %8s %8s %5.1f%% %5.1f%% %8.2f",
                          sc->latency_ms, tps, pct, 100 * sc->hbm_util, 100 * sc->noc_util, sc->tflops);
    else
        cx0 += tui_printf(y, nx, x + w - nx, focus ? A_BOLD : A_NORMAL, "%9.4g %8s %4.0f%% %4.0f%%", sc->latency_ms,
                          pct, 100 * sc->hbm_util, 100 * sc->noc_util);
    if (have_pin) {
        char d[48];
        tui_fmt_delta(sc->latency_ms, pin->res.pol[p].latency_ms, d, sizeof d);
        tui_printf(y, cx0, x + w - cx0, sc->latency_ms <= pin->res.pol[p].latency_ms ? A_BOLD : tui_attr(TC_ERROR),
                   " %18s", d);
    }
}

/* the breakdown in ms, and how each policy used SRAM; then the policies'
 * own knobs and the graph's size, while there is room */
static void draw_table(const tui_snap *s, const tui_rect *r, int y, int x, int w)
{
    const elk_result *res = &s->res;
    tui_printf(y++, x, w, tui_attr(TC_DIM), "%-9s %10s %10s %10s %10s %10s  %13s", "ms/step", "execute", "overlap",
               "preload", "NoC stall", "distrib", w >= 90 ? "peak SRAM/core" : "");
    for (int p = 0; p < ELK_POL_COUNT; p++, y++) {
        if (!res->have[p]) continue;
        const elk_schedule *sc = &res->pol[p];
        int cx0 = x;
        cx0 += tui_printf(y, cx0, 10, tui_attr(TC_POL_BASIC + p), "%-9s ", elk_policy_labels[p]);
        for (int k = 0; k < ELK_BRK_COUNT; k++)
            cx0 += tui_printf(y, cx0, x + w - cx0, A_NORMAL, "%10.4f ", tui_cyc_ms(s, sc->brk[k]));
        char b[32];
        tui_fmt_bytes(sc->peak_resident, b, sizeof b);
        if (w >= 90) tui_printf(y, cx0, x + w - cx0, A_NORMAL, " %13s", b);
    }
    /* the policies' own knobs, when there is room */
    y++;
    if (y < r->y + r->h && res->have[ELK_POL_STATIC])
        tui_printf(y++, x, w, tui_attr(TC_DIM), "Static: execution region %.0f KiB of %.0f, preloads %s",
                   res->pol[ELK_POL_STATIC].static_exec_kib, s->pr.chip.sram_kib,
                   res->pol[ELK_POL_STATIC].static_variant ? "replicated" : "fully distributed");
    if (y < r->y + r->h && res->have[ELK_POL_FULL]) {
        const elk_schedule *f = &res->pol[ELK_POL_FULL];
        if (f->adopted >= 0)
            tui_printf(y++, x, w, tui_attr(TC_DIM), "Elk-Full: %d preload orders searched; kept %s's schedule, faster than all of them",
                       f->orders_tried, elk_policy_labels[f->adopted]);
        else
            tui_printf(y++, x, w, tui_attr(TC_DIM), "Elk-Full: %d preload orders searched, winning order's mean displacement %.2f ops",
                       f->orders_tried, f->avg_edit_dist);
    }
    if (y < r->y + r->h) {
        char hb[32];
        /* SI, as `elk run` prints it */
        snprintf(hb, sizeof hb, "%.2f GB", (s->pr.graph.weight_bytes + s->pr.graph.kv_bytes) / 1e9);
        tui_printf(y++, x, w, tui_attr(TC_DIM), "%d operators, %s read from HBM per step, %.3g GFLOP per step",
                   s->pr.graph.nops, hb, s->pr.graph.flops / 1e9);
    }
}

static void draw(elk_view *v, const tui_rect *r0, tui_ctx *cx)
{
    brk_state *bs = v->state;
    char sub[96];
    snprintf(sub, sizeof sub, "latency of one %s step by policy%s", elk_workload_names[cx->point->workload],
             cx->pin ? "; pinned point as light bars" : "");
    tui_rect r = tui_title(r0, "Breakdown", sub);
    if (tui_need_result(&r, cx)) return;
    const tui_snap *s = cx->snap;
    const elk_result *res = &s->res;
    const tui_snap *pin = cx->pin;
    int y = r.y, x = r.x + 1, w = r.w - 2;

    draw_legend(y, x, w);
    y += 2;

    double maxlat = 0;
    for (int p = 0; p < ELK_POL_COUNT; p++) {
        if (res->have[p] && res->pol[p].latency_ms > maxlat) maxlat = res->pol[p].latency_ms;
        if (pin && pin->res.have[p] && pin->res.pol[p].latency_ms > maxlat) maxlat = pin->res.pol[p].latency_ms;
    }
    /* f: keep the scale, so a faster point visibly shortens the bars (a bar
     * longer than the frozen scale is cut at the edge) */
    if (!cx->fixed_axes) bs->frozen = 0;
    else if (!bs->frozen) {
        bs->frozen = 1;
        bs->maxlat = maxlat;
    } else maxlat = bs->maxlat;

    int avail = r.y + r.h - y;
    int table_rows = ELK_POL_COUNT + 1;
    brk_layout L;
    L.x = x, L.w = w, L.maxlat = maxlat;
    L.bar_gap = avail >= 2 * ELK_POL_COUNT + table_rows + 2 ? 2 : 1;
    int show_table = avail >= L.bar_gap * ELK_POL_COUNT + table_rows + 1;
    L.wide = w >= 100;

    L.labw = 10;
    const int dw = pin ? 19 : 0; /* " -1.8 ms, -27%" */
    const int numw = (L.wide ? 57 : 38) + dw;
    L.barw = w - L.labw - numw - 1;
    if (L.barw < 10) L.barw = 10;
    int nx = L.nx = x + L.labw + L.barw + 1;
    double tokens = elk_report_tokens_per_step(&s->pr.graph);

    /* column header */
    int hx = nx;
    if (L.wide)
        hx += tui_printf(y - 1, nx, x + w - nx, tui_attr(TC_DIM), "%9s %8s %8s %6s %6s %8s", "ms/step", "tok/s", "% Ideal",
                         "HBM", "NoC", "TFLOPS");
    else hx += tui_printf(y - 1, nx, x + w - nx, tui_attr(TC_DIM), "%9s %8s %5s %5s", "ms/step", "% Ideal", "HBM", "NoC");
    if (pin) tui_printf(y - 1, hx, x + w - hx, tui_attr(TC_DIM), " %18s", "vs pinned");

    for (int p = 0; p < ELK_POL_COUNT; p++, y += L.bar_gap) {
        if (y >= r.y + r.h) break;
        draw_policy_row(cx, &L, &r, y, p, tokens);
    }
    if (L.bar_gap == 2 && !pin) y--;

    /* the story in one line */
    if (y < r.y + r.h && res->have[ELK_POL_FULL] && res->have[ELK_POL_BASIC] && res->have[ELK_POL_STATIC]) {
        const elk_schedule *f = &res->pol[ELK_POL_FULL];
        tui_printf(y, x, w, tui_attr(TC_DIM), "Elk-Full: %.2fx faster than Basic, %.2fx than Static, %.1f%% of Ideal",
                   res->pol[ELK_POL_BASIC].latency_ms / f->latency_ms, res->pol[ELK_POL_STATIC].latency_ms / f->latency_ms,
                   res->have[ELK_POL_IDEAL] ? res->pct_ideal[ELK_POL_FULL] : NAN);
        y += 2;
    }
    if (!show_table || y + table_rows > r.y + r.h) return;
    draw_table(s, &r, y, x, w);
}

static int csv(elk_view *v, FILE *fp, const tui_ctx *cx, char *msg, size_t n)
{
    (void)v;
    if (!tui_snap_ok(cx->snap)) {
        snprintf(msg, n, "no result to export yet");
        return -1;
    }
    elk_report_csv_header(fp);
    elk_report_csv_rows(fp, &cx->snap->pr, &cx->snap->res);
    return 0;
}

/* The paper's Fig. 18 layout (breakdown, HBM and NoC utilisation, TFLOPS)
 * from exactly the exported CSV, with the shared "util" template. */
static int figure(elk_view *v, const tui_ctx *cx, const char *output, char *msg, size_t n)
{
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
        const tui_snap *s = cx->snap;
        char title[256];
        snprintf(title, sizeof title, "%s on %s: %s B%d S%d, %.4g TB/s HBM, %d cores", s->pr.model.name,
                 s->pr.chip.name, elk_workload_names[s->pr.graph.workload], s->pr.graph.batch, s->pr.graph.seq,
                 s->pr.chip.hbm_tbps, s->pr.chip.cores);
        rc = tui_figure_csv(buf, "util", NULL, NULL, "policy", 0, title, output, msg, n);
    }
    free(buf);
    return rc;
}

static void destroy(elk_view *v) { free(v->state); }

elk_view *view_breakdown_new(void)
{
    elk_view *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    v->state = calloc(1, sizeof(brk_state));
    if (!v->state) {
        free(v);
        return NULL;
    }
    v->name = "breakdown";
    v->title = "Breakdown";
    v->keys = "";
    v->help = "p/P=focus a policy (highlighted row)";
    v->draw = draw;
    v->csv = csv;
    v->figure = figure;
    v->destroy = destroy;
    return v;
}
