#include "view_roofline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tui_canvas.h"
#include "tui_draw.h"

static double hbm_bps(const elk_chip *c) { return c->hbm_tbps * 1e12; }
static double noc_bps(const elk_chip *c) { return elk_chip_noc_bytes_per_cycle(c) * c->clock_ghz * 1e9; }

static double exec_seconds(const tui_snap *s, const elk_sched_op *so)
{
    return (so->exe_end - so->exe_start) / (s->pr.chip.clock_ghz * 1e9);
}

/* The time an operator is plotted at: the longer of its execution and its
 * HBM traffic at the full HBM bandwidth. Execution alone would put operators
 * whose weights were preloaded while others ran above the HBM roof (80 of
 * 322 Elk-Full operators on Llama2-13B); with this time FLOPs / time is at
 * most bandwidth x intensity, so the roof is a bound, and an operator on the
 * slope is one its HBM traffic limits. */
static double op_seconds(const tui_snap *s, const elk_op *op, const elk_sched_op *so)
{
    return fmax(exec_seconds(s, so), op->hbm_bytes / hbm_bps(&s->pr.chip));
}

/* f: the axes kept from when it was pressed. */
typedef struct {
    tui_axes_keep keep;
} roof_state;

static double step_intensity(const elk_graph *g)
{
    double b = g->weight_bytes + g->kv_bytes;
    return b > 0 ? g->flops / b : NAN;
}

/* What one draw shows: the focused policy's schedule (Ideal's when it has
 * none), the roofs, the step intensities (the live point's and the pinned
 * one's, NAN without a pin), the plot's ranges and the operators left out. */
typedef struct {
    const tui_snap *s, *pn;
    const elk_chip *c;
    const elk_graph *g;
    int pol;
    const elk_schedule *sc;
    double peak, vpeak, hb, nb, ridge_h, ridge_n;
    double soi, psoi;
    double x0, x1, y0, y1;
    int skipped;
} roof_frame;

/* The ranges: every operator reading HBM, the step's intensity, the
 * policies' throughput, the ridge points and the pinned point, each with
 * room, rounded to decades. */
static void roof_ranges(const tui_ctx *cx, roof_frame *fr)
{
    const tui_snap *s = fr->s;
    const elk_graph *g = fr->g;
    const elk_schedule *sc = fr->sc;
    double x0 = INFINITY, x1 = 0, y0 = INFINITY, y1 = fr->peak;
    fr->skipped = 0;
    for (int i = 0; i < g->nops && i < sc->nops; i++) {
        const elk_op *op = &g->ops[i];
        double t = op_seconds(s, op, &sc->ops[i]);
        if (!(op->hbm_bytes > 0) || !(t > 0) || !(op->flops > 0)) {
            fr->skipped++;
            continue;
        }
        double oi = op->flops / op->hbm_bytes, f = op->flops / t;
        if (oi < x0) x0 = oi;
        if (oi > x1) x1 = oi;
        if (f < y0) y0 = f;
        if (f > y1) y1 = f;
    }
    double soi = fr->soi;
    if (soi > 0) {
        if (soi < x0) x0 = soi;
        if (soi > x1) x1 = soi;
    }
    for (int p = 0; p < ELK_POL_COUNT; p++)
        if (s->res.have[p] && s->res.pol[p].tflops * 1e12 < y0) y0 = s->res.pol[p].tflops * 1e12;
    /* keep the ridge points in view */
    if (fr->ridge_h > x1) x1 = fr->ridge_h;
    if (fr->ridge_n > x1) x1 = fr->ridge_n;
    if (fr->ridge_n < x0) x0 = fr->ridge_n;
    if (!(x0 < INFINITY)) x0 = x1 / 100;
    if (!(y0 < INFINITY)) y0 = fr->peak / 1e4;
    x0 /= 2;
    x1 *= 2;
    y0 /= 2;
    y1 *= 2;
    const tui_snap *pn = cx->pin;
    double psoi = fr->psoi;
    if (pn) {
        if (psoi > 0 && psoi / 2 < x0) x0 = psoi / 2;
        if (psoi > 0 && psoi * 2 > x1) x1 = psoi * 2;
        for (int p = 0; p < ELK_POL_COUNT; p++)
            if (pn->res.have[p] && pn->res.pol[p].tflops * 1e12 / 2 < y0) y0 = pn->res.pol[p].tflops * 1e12 / 2;
    }
    tui_nice_range(&x0, &x1, 1);
    tui_nice_range(&y0, &y1, 1);
    fr->x0 = x0, fr->x1 = x1, fr->y0 = y0, fr->y1 = y1;
}

/* The plot: the roofs and their labels, the operators, and the policies'
 * step throughput (the pinned point's behind, the focused one on top). */
static void roof_plot(const tui_ctx *cx, const roof_frame *fr, const tui_rect *pr)
{
    const tui_snap *s = fr->s, *pn = fr->pn;
    const elk_graph *g = fr->g;
    const elk_schedule *sc = fr->sc;
    double x0 = fr->x0, x1 = fr->x1, y0 = fr->y0, peak = fr->peak, vpeak = fr->vpeak, hb = fr->hb, nb = fr->nb;
    tui_plot pl;
    if (!tui_plot_begin(&pl, pr, x0, x1, 1, y0, fr->y1, 1, cx->ascii)) return;
    tui_plot_axes(&pl, "operational intensity (FLOP per HBM byte)", "FLOP/s", tui_fmt_si, tui_fmt_si);
    tui_canvas *cv = &pl.cv;
    /* roofs, sampled along x in log space */
    int nseg = cv->w * cv->dx;
    double lx0 = log10(x0), lx1 = log10(x1);
    for (int i = 0; i < nseg; i++) {
        double xa = pow(10, lx0 + (lx1 - lx0) * i / nseg), xb = pow(10, lx0 + (lx1 - lx0) * (i + 1) / nseg);
        cv_line(cv, xa, fmin(vpeak, hb * xa), xb, fmin(vpeak, hb * xb), TC_DIM);
        cv_line(cv, xa, fmin(peak, nb * xa), xb, fmin(peak, nb * xb), TC_ROOF_NOC);
        cv_line(cv, xa, fmin(peak, hb * xa), xb, fmin(peak, hb * xb), TC_ROOF_HBM);
    }
    cv_line(cv, fr->ridge_h, peak, x1, peak, TC_ROOF_COMPUTE);
    int ccx, ccy;
    if (cv_cell(cv, x1, peak, &ccx, &ccy)) cv_text(cv, ccx - 12 > 0 ? ccx - 12 : 0, ccy + 1, "compute", TC_ROOF_COMPUTE);
    /* roof labels where each slope crosses a fraction of the plot */
    /* label each slope half way up to the compute roof, left of the line */
    double mid = sqrt(y0 * peak);
    if (cv_cell(cv, mid / hb, mid, &ccx, &ccy)) cv_text(cv, ccx - 4, ccy, "HBM", TC_ROOF_HBM);
    if (cv_cell(cv, mid / nb, mid, &ccx, &ccy)) cv_text(cv, ccx - 4, ccy, "NoC", TC_ROOF_NOC);
    for (int i = 0; i < g->nops && i < sc->nops; i++) {
        const elk_op *op = &g->ops[i];
        double t = op_seconds(s, op, &sc->ops[i]);
        if (!(op->hbm_bytes > 0) || !(t > 0) || !(op->flops > 0)) continue;
        cv_mark(cv, op->flops / op->hbm_bytes, op->flops / t, op->kind == ELK_OP_MATMUL ? '*' : 'o', TC_HILITE);
    }
    /* the pinned point's policies behind the live ones, small letters */
    for (int p = 0; pn && p < ELK_POL_COUNT; p++)
        if (pn->res.have[p])
            cv_mark(cv, fr->psoi, pn->res.pol[p].tflops * 1e12, (char)(tui_policy_mark[p] - 'A' + 'a'), TC_DIM);
    for (int k = 0; k <= ELK_POL_COUNT; k++) {
        int p = k < ELK_POL_COUNT ? k : cx->focus;
        if ((k < ELK_POL_COUNT && p == cx->focus) || !s->res.have[p]) continue;
        cv_mark(cv, fr->soi, s->res.pol[p].tflops * 1e12, tui_policy_mark[p], TC_POL_BASIC + p);
    }
    tui_plot_end(&pl);
}

/* legend: roofs and policies, in the side panel (side) or in below lines
 * under the plot (compact: roofs on one line, policies on another) */
static void roof_legend(const tui_ctx *cx, const roof_frame *fr, const tui_rect *r, int side, int below, int compact)
{
    const tui_snap *s = fr->s, *pn = fr->pn;
    int ly = side ? r->y + 1 : r->y + r->h - below, lx = side ? r->x + r->w - side + 1 : r->x + 1;
    int lw = side ? side - 2 : r->w - 2;
    char a[32], b[32], d[32];
    tui_fmt_si(fr->peak / 1e12, a, sizeof a);
    tui_fmt_si(fr->c->hbm_tbps, b, sizeof b);
    tui_fmt_si(fr->nb / 1e12, d, sizeof d);
    if (side) {
        tui_printf(ly++, lx, lw, tui_attr(TC_ROOF_COMPUTE), "compute %s TFLOPS", a);
        tui_printf(ly++, lx, lw, tui_attr(TC_ROOF_HBM), "HBM     %s TB/s (ridge %.0f)", b, fr->ridge_h);
        tui_printf(ly++, lx, lw, tui_attr(TC_ROOF_NOC), "NoC     %s TB/s (ridge %.0f)", d, fr->ridge_n);
        tui_printf(ly++, lx, lw, tui_attr(TC_DIM), "vector  %.3g TFLOPS", fr->vpeak / 1e12);
        tui_printf(ly++, lx, lw, tui_attr(TC_HILITE), "* matmul  o other op (%s)", elk_policy_labels[fr->pol]);
        tui_printf(ly++, lx, lw, tui_attr(TC_DIM), "op y: FLOPs / max(exec, HBM time)");
        if (fr->skipped) tui_printf(ly++, lx, lw, tui_attr(TC_DIM), "%d ops read no HBM (not shown)", fr->skipped);
        ly++;
        tui_printf(ly++, lx, lw, A_BOLD, "step at %.3g FLOP/B:", fr->soi);
    } else {
        tui_printf(ly++, lx, lw, tui_attr(TC_DIM), "roofs: compute %s TFLOPS, HBM %s TB/s, NoC %s TB/s; * matmul o other; step %.3g FLOP/B",
                   a, b, d, fr->soi);
    }
    if (compact) {
        int x = lx;
        x += tui_puts(ly, x, lw, A_NORMAL, "TFLOPS:");
        for (int p = 0; p < ELK_POL_COUNT; p++)
            if (s->res.have[p])
                x += tui_printf(ly, x, lx + lw - x, tui_attr(TC_POL_BASIC + p) | (p == cx->focus ? A_REVERSE : 0),
                                " %c %.4g", tui_policy_mark[p], s->res.pol[p].tflops);
        if (x + 24 < lx + lw) tui_puts(ly, x, lx + lw - x, tui_attr(TC_DIM), "  (letters: policies)");
        return;
    }
    for (int p = 0; p < ELK_POL_COUNT; p++) {
        if (!s->res.have[p]) continue;
        double tf = s->res.pol[p].tflops, ti = s->res.have[ELK_POL_IDEAL] ? s->res.pol[ELK_POL_IDEAL].tflops : NAN;
        int n = tui_printf(ly, lx, lw, tui_attr(TC_POL_BASIC + p) | (p == cx->focus ? A_REVERSE : 0), "%c %-8s",
                           tui_policy_mark[p], elk_policy_labels[p]);
        n += tui_printf(ly, lx + n, lw - n, A_NORMAL, " %7.2f TFLOPS %5.1f%%", tf, 100 * tf / ti);
        if (pn && pn->res.have[p] && pn->res.pol[p].tflops > 0)
            tui_printf(ly, lx + n, lw - n, tui_attr(TC_DIM), " %+.0f%%", 100 * (tf / pn->res.pol[p].tflops - 1));
        ly++;
    }
    if (side && ly < r->y + r->h) tui_printf(ly, lx, lw, tui_attr(TC_DIM), "(%% = of Ideal's TFLOPS)");
}

static void draw(elk_view *v, const tui_rect *r0, tui_ctx *cx)
{
    roof_state *rs = v->state;
    tui_rect r = tui_title(r0, "Roofline", cx->pin ? "operators of the focused policy; policies' step throughput (letters; pinned: b s d f i)"
                                                   : "operators of the focused policy; policies' step throughput (letters)");
    if (tui_need_result(&r, cx)) return;
    roof_frame fr;
    fr.s = cx->snap;
    fr.pn = cx->pin;
    fr.c = &fr.s->pr.chip;
    fr.g = &fr.s->pr.graph;
    fr.pol = cx->focus;
    if (!fr.s->res.have[fr.pol]) fr.pol = ELK_POL_IDEAL;
    fr.sc = &fr.s->res.pol[fr.pol];
    fr.peak = elk_chip_peak_matmul_flops(fr.c), fr.vpeak = elk_chip_peak_vector_flops(fr.c);
    fr.hb = hbm_bps(fr.c), fr.nb = noc_bps(fr.c);
    fr.ridge_h = fr.peak / fr.hb, fr.ridge_n = fr.peak / fr.nb;
    fr.soi = step_intensity(fr.g);
    fr.psoi = fr.pn ? step_intensity(&fr.pn->pr.graph) : NAN;
    roof_ranges(cx, &fr);
    tui_keep_axes(&rs->keep, cx->fixed_axes, &fr.x0, &fr.x1, &fr.y0, &fr.y1);

    int side = r.w >= 100 ? 38 : 0;
    int below = side ? 0 : ELK_POL_COUNT + 1;
    int compact = 0;
    if (below && r.h - below < 14) {
        below = 2; /* roofs on one line, policies on another */
        compact = 1;
    }
    if (r.h - below < 8) below = 0;
    tui_rect pr = {r.y, r.x, r.h - below, r.w - side};
    roof_plot(cx, &fr, &pr);
    if (side || below) roof_legend(cx, &fr, &r, side, below, compact);
}

static int csv(elk_view *v, FILE *fp, const tui_ctx *cx, char *msg, size_t n)
{
    (void)v;
    const tui_snap *s = cx->snap;
    if (!tui_snap_ok(s)) {
        snprintf(msg, n, "no result to export yet");
        return -1;
    }
    const elk_graph *g = &s->pr.graph;
    const elk_chip *c = &s->pr.chip;
    fprintf(fp, "policy,op,name,kind,flops,hbm_bytes,intensity_flop_per_byte,exec_us,hbm_us,achieved_tflops,"
                "peak_tflops,hbm_tbps,noc_tbps\n");
    for (int p = 0; p < ELK_POL_COUNT; p++) {
        if (!s->res.have[p]) continue;
        const elk_schedule *sc = &s->res.pol[p];
        for (int i = 0; i < g->nops && i < sc->nops; i++) {
            const elk_op *op = &g->ops[i];
            double t = op_seconds(s, op, &sc->ops[i]);
            fprintf(fp, "%s,%d,%s,%s,%.0f,%.0f,%.9g,%.4f,%.4f,%.9g,%.6g,%.6g,%.6g\n", elk_policy_names[p], i, op->name,
                    elk_op_kind_names[op->kind], op->flops, op->hbm_bytes,
                    op->hbm_bytes > 0 ? op->flops / op->hbm_bytes : NAN, exec_seconds(s, &sc->ops[i]) * 1e6,
                    op->hbm_bytes / hbm_bps(c) * 1e6, t > 0 ? op->flops / t / 1e12 : NAN,
                    elk_chip_peak_matmul_flops(c) / 1e12, c->hbm_tbps, noc_bps(c) / 1e12);
        }
    }
    return 0;
}

static int gnuplot(elk_view *v, FILE *fp, const tui_ctx *cx, char *msg, size_t n)
{
    (void)v;
    const tui_snap *s = cx->snap;
    if (!tui_snap_ok(s)) {
        snprintf(msg, n, "no result to draw yet");
        return -1;
    }
    const elk_graph *g = &s->pr.graph;
    const elk_chip *c = &s->pr.chip;
    int pol = s->res.have[cx->focus] ? cx->focus : ELK_POL_IDEAL;
    const elk_schedule *sc = &s->res.pol[pol];
    fprintf(fp, "$ops << EOD\n");
    for (int i = 0; i < g->nops && i < sc->nops; i++) {
        const elk_op *op = &g->ops[i];
        double t = op_seconds(s, op, &sc->ops[i]);
        if (op->hbm_bytes > 0 && t > 0 && op->flops > 0)
            fprintf(fp, "%.6g %.6g %d\n", op->flops / op->hbm_bytes, op->flops / t, op->kind == ELK_OP_MATMUL);
    }
    fprintf(fp, "EOD\n$pols << EOD\n");
    double soi = step_intensity(g);
    for (int p = 0; p < ELK_POL_COUNT; p++)
        if (s->res.have[p]) fprintf(fp, "%.6g %.6g \"%s\"\n", soi, s->res.pol[p].tflops * 1e12, elk_policy_labels[p]);
    fprintf(fp, "EOD\n");
    fprintf(fp, "peak = %.6g\nvpeak = %.6g\nhbm = %.6g\nnoc = %.6g\n", elk_chip_peak_matmul_flops(c),
            elk_chip_peak_vector_flops(c), hbm_bps(c), noc_bps(c));
    fprintf(fp, "set title \"Roofline: %s on %s (operators: %s)\" noenhanced\nset logscale xy\nset grid\n"
                "set xlabel 'operational intensity (FLOP per HBM byte)'\nset ylabel 'FLOP/s (FLOPs / max(execution, HBM time))'\n"
                "set key outside right top\nset samples 400\nset xrange [*:*]\n",
            s->pr.model.name, c->name, elk_policy_labels[pol]);
    fprintf(fp, "plot (x*hbm < peak ? x*hbm : peak) with lines lw 2 lc rgb '#E69F00' title 'HBM roof', "
                "(x*noc < peak ? x*noc : peak) with lines lw 2 lc rgb '#56B4E9' title 'NoC roof', "
                "(x*hbm < vpeak ? x*hbm : vpeak) with lines dt 2 lc rgb '#999999' title 'vector peak', "
                "$ops using 1:($3 > 0.5 ? $2 : 1/0) with points pt 3 lc rgb '#0072B2' title 'matmul ops', "
                "$ops using 1:($3 > 0.5 ? 1/0 : $2) with points pt 6 lc rgb '#CC79A7' title 'other ops', "
                "$pols using 1:2 with points pt 7 ps 1.5 lc rgb '#D55E00' title 'policies (step)', "
                "$pols using 1:2:3 with labels left offset 1,0 notitle\n");
    return 0;
}

static void destroy(elk_view *v) { free(v->state); }

elk_view *view_roofline_new(void)
{
    elk_view *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    if (!(v->state = calloc(1, sizeof(roof_state)))) {
        free(v);
        return NULL;
    }
    v->name = "roofline";
    v->title = "Roofline";
    v->keys = "";
    v->help = "p/P=focus a policy (its operators are plotted)";
    v->draw = draw;
    v->csv = csv;
    v->gnuplot = gnuplot;
    v->destroy = destroy;
    return v;
}
