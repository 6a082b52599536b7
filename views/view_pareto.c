#include "view_pareto.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tui_canvas.h"
#include "tui_draw.h"
#include "tui_export.h"

typedef struct {
    int op; /* selected operator index, -1 = choose a default */
    tui_axes_keep keep;         /* f: axes kept for this operator */
    int frozen_op;
} pareto_state;

/* The pinned point's execute-state plan of the focused policy for op i, if
 * the pinned graph has the same operator there: its (space, time). */
static int pinned_choice(const tui_ctx *cx, int i, double *hot, double *t)
{
    const tui_snap *pn = cx->pin;
    int p = cx->focus;
    if (!pn || !pn->res.have[p] || i >= pn->pr.graph.nops || i >= pn->res.pol[p].nops) return 0;
    if (strcmp(pn->pr.graph.ops[i].name, cx->snap->pr.graph.ops[i].name)) return 0;
    const elk_menu *m = &pn->pr.menus[pn->pr.graph.ops[i].shape_id];
    const elk_sched_op *so = &pn->res.pol[p].ops[i];
    if (so->entry < 0 || so->entry >= m->n) return 0;
    *hot = m->e[so->entry].hot;
    *t = m->e[so->entry].exe / (pn->pr.chip.clock_ghz * 1e3);
    return 1;
}

static double us(const tui_snap *s, double cyc) { return cyc / (s->pr.chip.clock_ghz * 1e3); }

static double plan_cycles(const elk_chip *c, const elk_plan *pl)
{
    return pl->comp / c->compute_scale + elk_plan_xcycles(c, pl) + pl->syncs * c->sync_cycles;
}

/* A sensible first operator: the heaviest HBM reader of the first layer. */
static int default_op(const elk_graph *g)
{
    int best = 0;
    for (int i = 0; i < g->nops; i++) {
        if (g->ops[i].layer > 0) break;
        if (g->ops[i].hbm_bytes > g->ops[best].hbm_bytes) best = i;
    }
    return best;
}

static void sync_sel(pareto_state *st, const tui_snap *s)
{
    if (st->op < 0 || st->op >= s->pr.graph.nops) st->op = default_op(&s->pr.graph);
}

/* First op index of each distinct shape, in program order. */
static int shape_reps(const elk_graph *g, int *reps, int max)
{
    int n = 0;
    char *seen = calloc((size_t)g->nshapes + 1, 1);
    if (!seen) return 0;
    for (int i = 0; i < g->nops && n < max; i++) {
        int sh = g->ops[i].shape_id;
        if (sh < 0 || sh > g->nshapes || seen[sh]) continue;
        seen[sh] = 1;
        reps[n++] = i;
    }
    free(seen);
    return n;
}

/* The line above the plot: the operator, its shape and instance among the
 * graph's, its HBM bytes and its plans. */
static void draw_header(const pareto_state *st, const tui_snap *s, const tui_rect *rr)
{
    const tui_rect r = *rr;
    const elk_graph *g = &s->pr.graph;
    const elk_op *op = &g->ops[st->op];
    const elk_menu *m = &s->pr.menus[op->shape_id];
    const elk_plan_set *set = s->pr.sets ? s->pr.sets[op->shape_id] : NULL;
    int reps[512], nrep = shape_reps(g, reps, 512), ri = 0, inst = 0, ninst = 0;
    for (int i = 0; i < nrep; i++)
        if (g->ops[reps[i]].shape_id == op->shape_id) ri = i;
    for (int i = 0; i < g->nops; i++)
        if (g->ops[i].shape_id == op->shape_id) {
            if (i == st->op) inst = ninst;
            ninst++;
        }
    char hb[32];
    tui_fmt_si_bytes(op->hbm_bytes, hb, sizeof hb);
    int hx = r.x + 1 + tui_printf(r.y, r.x + 1, r.w - 2, A_BOLD, "op %d %s  ", st->op, op->name);
    tui_printf(r.y, hx, r.x + r.w - 1 - hx, tui_attr(TC_DIM),
               "%s, shape %d/%d, instance %d/%d, %s from HBM, %d front plans, %d kept", elk_op_kind_names[op->kind],
               ri + 1, nrep, inst + 1, ninst, hb, m->n, set ? set->nplans : 0);

}

/* The plot: every plan evaluated, the front, the pinned point's choice
 * and each policy's. */
static void draw_plot(const pareto_state *st, const tui_ctx *cx, const tui_rect *pr, double x0, double x1, double y0,
                      double y1, int have_pin, double ph, double pt)
{
    const tui_snap *s = cx->snap;
    const elk_op *op = &s->pr.graph.ops[st->op];
    const elk_menu *m = &s->pr.menus[op->shape_id];
    const elk_plan_set *set = s->pr.sets ? s->pr.sets[op->shape_id] : NULL;
    const elk_chip *c = &s->pr.chip;
    tui_plot pl;
    if (tui_plot_begin(&pl, pr, x0, x1, 1, y0, y1, 1, cx->ascii)) {
        tui_plot_axes(&pl, "space per core (bytes): + front, . other plans, A chosen execute state, a preload state",
                      "time (us)", tui_fmt_si, tui_fmt_si);
        if (set)
            for (int i = 0; i < set->nplans; i++)
                cv_point(&pl.cv, set->plans[i].hot, us(s, plan_cycles(c, &set->plans[i])), TC_DIM);
        for (int i = 0; i + 1 < m->n; i++)
            cv_line(&pl.cv, m->e[i].hot, us(s, m->e[i].exe), m->e[i + 1].hot, us(s, m->e[i + 1].exe), TC_FRONT);
        for (int i = 0; i < m->n; i++) cv_mark(&pl.cv, m->e[i].hot, us(s, m->e[i].exe), '+', TC_FRONT);
        /* the pinned point's choice, behind the live ones */
        if (have_pin) cv_mark(&pl.cv, ph, pt, '@', TC_HILITE);
        /* choices: focused policy drawn last so it wins a shared cell */
        for (int k = 0; k <= ELK_POL_COUNT; k++) {
            int p = k < ELK_POL_COUNT ? k : cx->focus;
            if (k < ELK_POL_COUNT && p == cx->focus) continue;
            if (!s->res.have[p] || st->op >= s->res.pol[p].nops) continue;
            const elk_sched_op *so = &s->res.pol[p].ops[st->op];
            if (so->entry < 0 || so->entry >= m->n) continue;
            double t = us(s, m->e[so->entry].exe);
            if (so->copt >= 0 && so->copt < m->ncold)
                cv_mark(&pl.cv, m->cold[so->copt].cold, t, (char)tolower(tui_policy_mark[p]), TC_POL_BASIC + p);
            cv_mark(&pl.cv, m->e[so->entry].hot, t, tui_policy_mark[p], TC_POL_BASIC + p);
        }
        tui_plot_end(&pl);
    }
}

/* The table of each policy's choice for the operator (only_focus: the
 * focused policy's alone), from row y. */
static void draw_table(const pareto_state *st, const tui_ctx *cx, const tui_rect *rr, int plot_h, int only_focus)
{
    const tui_rect r = *rr;
    const tui_snap *s = cx->snap;
    const elk_op *op = &s->pr.graph.ops[st->op];
    const elk_menu *m = &s->pr.menus[op->shape_id];
    int y = r.y + 1 + plot_h, x = r.x + 1;
    tui_printf(y++, x, r.w - 2, tui_attr(TC_DIM), "%-11s %10s %10s %10s %10s %5s %10s", "policy", "hot/core", "exe",
               "cold/core", "distrib", "pre#", "stall");
    for (int p = 0; p < ELK_POL_COUNT; p++, y++) {
        if (only_focus && p != cx->focus) {
            y--;
            continue;
        }
        if (!s->res.have[p] || st->op >= s->res.pol[p].nops) continue;
        const elk_sched_op *so = &s->res.pol[p].ops[st->op];
        char h[32], cb[32];
        tui_fmt_bytes(so->hot, h, sizeof h);
        tui_fmt_bytes(so->cold, cb, sizeof cb);
        int n = tui_printf(y, x, 12, tui_attr(TC_POL_BASIC + p) | (p == cx->focus ? A_REVERSE : 0), "%c %-9s",
                           tui_policy_mark[p], elk_policy_labels[p]);
        double exe_us = so->entry >= 0 && so->entry < m->n ? us(s, m->e[so->entry].exe) : NAN;
        tui_printf(y, x + n, r.w - 2 - n, A_NORMAL, " %10s %7.2f us %10s %7.2f us %5d %7.2f us", h, exe_us, cb,
                   us(s, so->dist), so->preload_number, us(s, so->stall));
    }
}

static void draw(elk_view *v, const tui_rect *r0, tui_ctx *cx)
{
    pareto_state *st = v->state;
    tui_rect r = tui_title(r0, "Pareto", cx->pin ? "one operator's plans: execution space vs time; @ the pinned point's choice"
                                                  : "one operator's plans: execution space vs time");
    if (tui_need_result(&r, cx)) return;
    const tui_snap *s = cx->snap;
    sync_sel(st, s);
    const elk_graph *g = &s->pr.graph;
    const elk_op *op = &g->ops[st->op];
    const elk_menu *m = &s->pr.menus[op->shape_id];
    const elk_plan_set *set = s->pr.sets ? s->pr.sets[op->shape_id] : NULL;
    const elk_chip *c = &s->pr.chip;

    draw_header(st, s, &r);

    /* the table of choices: every policy, or only the focused one when
     * the plot would get too short */
    int table_h = ELK_POL_COUNT + 1, only_focus = 0;
    if (r.h - 1 - table_h < 12) {
        table_h = 2;
        only_focus = 1;
    }
    int plot_h = r.h - 1 - table_h;
    if (plot_h < 6) {
        table_h = 0;
        plot_h = r.h - 1;
    }
    /* ranges */
    double x0 = INFINITY, x1 = 0, y0 = INFINITY, y1 = 0;
#define GROW(xv, yv)                                                                                               \
    do {                                                                                                           \
        if ((xv) > 0 && (yv) > 0) {                                                                                \
            if ((xv) < x0) x0 = (xv);                                                                              \
            if ((xv) > x1) x1 = (xv);                                                                              \
            if ((yv) < y0) y0 = (yv);                                                                              \
            if ((yv) > y1) y1 = (yv);                                                                              \
        }                                                                                                          \
    } while (0)
    if (set)
        for (int i = 0; i < set->nplans; i++) GROW(set->plans[i].hot, us(s, plan_cycles(c, &set->plans[i])));
    for (int i = 0; i < m->n; i++) {
        GROW(m->e[i].hot, us(s, m->e[i].exe));
        for (int k = 0; k < m->e[i].nc; k++) GROW(m->cold[m->e[i].c0 + k].cold, us(s, m->e[i].exe));
    }
    if (!(x1 > 0)) {
        tui_center(&r, tui_attr(TC_DIM), "this operator has no plans");
        return;
    }
    double ph, pt;
    int have_pin = pinned_choice(cx, st->op, &ph, &pt);
    if (have_pin) GROW(ph, pt);
    tui_nice_range(&x0, &x1, 1);
    tui_nice_range(&y0, &y1, 1);
    /* f: the axes stay while the operator stays */
    if (st->frozen_op != st->op) st->keep.frozen = 0;
    tui_keep_axes(&st->keep, cx->fixed_axes, &x0, &x1, &y0, &y1);
    st->frozen_op = st->op;
    tui_rect pr = {r.y + 1, r.x, plot_h, r.w};
    draw_plot(st, cx, &pr, x0, x1, y0, y1, have_pin, ph, pt);
    if (!table_h) return;
    draw_table(st, cx, &r, plot_h, only_focus);
}

void view_pareto_select(elk_view *v, int op)
{
    pareto_state *st = v->state;
    st->op = op;
}

static unsigned key(elk_view *v, int ch, tui_ctx *cx)
{
    pareto_state *st = v->state;
    const tui_snap *s = cx->snap;
    if (!tui_snap_ok(s)) return ELK_VIEW_NONE;
    sync_sel(st, s);
    const elk_graph *g = &s->pr.graph;
    int reps[512], n = shape_reps(g, reps, 512);
    int sh = g->ops[st->op].shape_id;
    switch (ch) {
    case '[':
    case ']': {
        int i = 0;
        for (int k = 0; k < n; k++)
            if (g->ops[reps[k]].shape_id == sh) i = k;
        i = (i + (ch == ']' ? 1 : -1) + n) % n;
        st->op = reps[i];
        return ELK_VIEW_HANDLED | ELK_VIEW_REDRAW;
    }
    case '<':
    case '>':
    case ',':
    case '.': {
        int dir = (ch == '>' || ch == '.') ? 1 : -1;
        for (int k = 1; k <= g->nops; k++) {
            int i = ((st->op + dir * k) % g->nops + g->nops) % g->nops;
            if (g->ops[i].shape_id == sh) {
                st->op = i;
                break;
            }
        }
        return ELK_VIEW_HANDLED | ELK_VIEW_REDRAW;
    }
    default: return ELK_VIEW_NONE;
    }
}

static const char *chosen_by(const tui_snap *s, int op, int entry, int cold, char *buf, size_t n)
{
    buf[0] = '\0';
    for (int p = 0; p < ELK_POL_COUNT; p++) {
        if (!s->res.have[p] || op >= s->res.pol[p].nops) continue;
        const elk_sched_op *so = &s->res.pol[p].ops[op];
        if ((entry >= 0 && so->entry == entry) || (cold >= 0 && so->copt == cold)) {
            size_t l = strlen(buf);
            snprintf(buf + l, n - l, "%s%s", l ? ";" : "", elk_policy_names[p]);
        }
    }
    return buf;
}

static int csv(elk_view *v, FILE *fp, const tui_ctx *cx, char *msg, size_t n)
{
    pareto_state *st = v->state;
    const tui_snap *s = cx->snap;
    if (!tui_snap_ok(s)) {
        snprintf(msg, n, "no result to export yet");
        return -1;
    }
    sync_sel(st, s);
    const elk_op *op = &s->pr.graph.ops[st->op];
    const elk_menu *m = &s->pr.menus[op->shape_id];
    const elk_plan_set *set = s->pr.sets ? s->pr.sets[op->shape_id] : NULL;
    fprintf(fp, "op,name,kind,index,hot_bytes,time_us,cold_bytes,dist_us,chosen_by\n");
    char who[128];
    if (set)
        for (int i = 0; i < set->nplans; i++)
            fprintf(fp, "%d,%s,plan,%d,%.0f,%.4f,,,\n", st->op, op->name, i, set->plans[i].hot,
                    us(s, plan_cycles(&s->pr.chip, &set->plans[i])));
    for (int i = 0; i < m->n; i++)
        fprintf(fp, "%d,%s,front,%d,%.0f,%.4f,,,%s\n", st->op, op->name, i, m->e[i].hot, us(s, m->e[i].exe),
                chosen_by(s, st->op, i, -1, who, sizeof who));
    for (int i = 0; i < m->n; i++)
        for (int k = 0; k < m->e[i].nc; k++) {
            int ci = m->e[i].c0 + k;
            fprintf(fp, "%d,%s,cold,%d,%.0f,%.4f,%.0f,%.4f,%s\n", st->op, op->name, i, m->e[i].hot, us(s, m->e[i].exe),
                    m->cold[ci].cold, us(s, m->cold[ci].dist), chosen_by(s, st->op, -1, ci, who, sizeof who));
        }
    return 0;
}

static int gnuplot(elk_view *v, FILE *fp, const tui_ctx *cx, char *msg, size_t n)
{
    pareto_state *st = v->state;
    const tui_snap *s = cx->snap;
    if (!tui_snap_ok(s)) {
        snprintf(msg, n, "no result to draw yet");
        return -1;
    }
    sync_sel(st, s);
    const elk_op *op = &s->pr.graph.ops[st->op];
    const elk_menu *m = &s->pr.menus[op->shape_id];
    const elk_plan_set *set = s->pr.sets ? s->pr.sets[op->shape_id] : NULL;
    fprintf(fp, "$plans << EOD\n");
    if (set)
        for (int i = 0; i < set->nplans; i++)
            fprintf(fp, "%.0f %.6f\n", set->plans[i].hot, us(s, plan_cycles(&s->pr.chip, &set->plans[i])));
    fprintf(fp, "EOD\n$front << EOD\n");
    for (int i = 0; i < m->n; i++) fprintf(fp, "%.0f %.6f\n", m->e[i].hot, us(s, m->e[i].exe));
    fprintf(fp, "EOD\n$chosen << EOD\n");
    /* one row per distinct choice, labelled with every policy that made it */
    int done[ELK_POL_COUNT] = {0};
    for (int p = 0; p < ELK_POL_COUNT; p++) {
        if (done[p] || !s->res.have[p] || st->op >= s->res.pol[p].nops) continue;
        const elk_sched_op *so = &s->res.pol[p].ops[st->op];
        if (so->entry < 0 || so->entry >= m->n) continue;
        char label[128];
        snprintf(label, sizeof label, "%s", elk_policy_labels[p]);
        for (int q = p + 1; q < ELK_POL_COUNT; q++) {
            if (!s->res.have[q] || st->op >= s->res.pol[q].nops) continue;
            const elk_sched_op *sq = &s->res.pol[q].ops[st->op];
            if (sq->entry == so->entry && sq->copt == so->copt) {
                size_t l = strlen(label);
                snprintf(label + l, sizeof label - l, ", %s", elk_policy_labels[q]);
                done[q] = 1;
            }
        }
        double cold = so->copt >= 0 && so->copt < m->ncold ? m->cold[so->copt].cold : so->cold;
        fprintf(fp, "%.0f %.6f %.0f \"%s\"\n", m->e[so->entry].hot, us(s, m->e[so->entry].exe), cold, label);
    }
    fprintf(fp, "EOD\n");
    fprintf(fp, "set title \"%s: %s (op %d) on %s\" noenhanced\nset logscale xy\nset grid\n"
                "set xlabel 'space per core (bytes)'\nset ylabel 'execution time (us)'\nset key outside right top\n",
            s->pr.model.name, op->name, st->op, s->pr.chip.name);
    fprintf(fp, "plot $plans using 1:2 with points pt 7 ps 0.4 lc rgb '#999999' title 'kept plans', "
                "$front using 1:2 with linespoints pt 6 lw 2 lc rgb '#56B4E9' title 'Pareto front', "
                "$chosen using 1:2 with points pt 5 ps 1.5 lc rgb '#D55E00' title 'execute state chosen', "
                "$chosen using 1:2:4 with labels offset 1,1 notitle, "
                "$chosen using 3:2 with points pt 4 ps 1.5 lc rgb '#009E73' title 'preload state chosen'\n");
    return 0;
}

static void destroy(elk_view *v) { free(v->state); }

elk_view *view_pareto_new(void)
{
    elk_view *v = calloc(1, sizeof *v);
    pareto_state *st = calloc(1, sizeof *st);
    if (!v || !st) {
        free(v);
        free(st);
        return NULL;
    }
    st->op = -1;
    v->state = st;
    v->name = "pareto";
    v->title = "Pareto";
    v->keys = "[ ]=Operator  < >=Layer";
    v->help = "[ ]=previous / next operator shape  < >=previous / next instance (layer) of the shape  "
              "p/P=focus a policy (drawn on top)";
    v->draw = draw;
    v->key = key;
    v->csv = csv;
    v->gnuplot = gnuplot;
    v->destroy = destroy;
    return v;
}
