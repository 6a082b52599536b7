#include "view_network.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "elk_noc.h"
#include "tui_draw.h"
#include "tui_netsim.h"

/* What the view keeps: the latest simulation it took from tui_netsim and
 * what it last asked for (so a new point or policy asks again). */
typedef struct {
    tui_netsnap *net;
    elk_point asked;
    int asked_pol;
    unsigned long id;
} net_state;

static const char *const dir_name[ELK_DIR_COUNT] = {"E", "W", "S", "N"};

/* Shade and role of a utilisation 0..1. */
static const char *shade(double u)
{
    if (u < 0) return " ";
    if (tui_ascii()) return u >= 0.75 ? "#" : u >= 0.5 ? "=" : u >= 0.25 ? "-" : u > 0.005 ? "." : " ";
    return u >= 0.75 ? "\u2588" : u >= 0.5 ? "\u2593" : u >= 0.25 ? "\u2592" : u > 0.005 ? "\u2591" : "\u00b7";
}
static attr_t level(double u)
{
    return u >= 0.75 ? tui_attr(TC_ERROR) : u >= 0.5 ? tui_attr(TC_HILITE) : u >= 0.25 ? A_NORMAL : tui_attr(TC_DIM);
}

/* label [#####     ] 42%  in w columns */
static void ubar(int y, int x, int w, const char *label, double u)
{
    int n = tui_printf(y, x, w, A_NORMAL, "%-12s", label);
    int bw = w - n - 6;
    if (bw < 4) return;
    int f = (int)lround(fmin(1, fmax(0, u)) * bw);
    tui_fill(y, x + n, f, level(u), tui_g.bar);
    tui_fill(y, x + n + f, bw - f, tui_attr(TC_DIM), tui_ascii() ? "." : "\u00b7");
    tui_printf(y, x + n + bw, 6, A_NORMAL, " %3.0f%%", 100 * u);
}

/* One entry of the hottest-links list (kept sorted, busiest first). */
typedef struct {
    double u;
    char name[64];
} hot_link;

static void hot_add(hot_link *h, int n, double u, const char *name)
{
    if (!(u > h[n - 1].u)) return;
    int i = n - 1;
    while (i > 0 && u > h[i - 1].u) {
        h[i] = h[i - 1];
        i--;
    }
    h[i].u = u;
    snprintf(h[i].name, sizeof h[i].name, "%s", name);
}

static void block_name(const elk_sim_net *n, int i, int j, char *buf, size_t len)
{
    int r0 = n->br0[i], r1 = n->br0[i + 1] - 1, c0 = n->bc0[j], c1 = n->bc0[j + 1] - 1;
    if (r0 == r1 && c0 == c1) snprintf(buf, len, "router (%d,%d)", r0, c0);
    else snprintf(buf, len, "rows %d-%d cols %d-%d", r0, r1, c0, c1);
}

/* The grid: blocks as nodes (shaded by their ingress ports), the links
 * between them shaded by the busier direction. Several blocks share a
 * cell when the grid is wider than the room (the cell shows the busiest). */
static void draw_grid(const elk_sim_net *n, const tui_rect *r)
{
    int sx = 1, sy = 1;
    while (sx < 4 && (n->nbc * (sx + 1)) <= r->w) sx++;
    while (sy < 2 && (n->nbr * (sy + 1)) <= r->h) sy++;
    int gc = (n->nbc * sx + r->w - 1) / r->w, gr = (n->nbr * sy + r->h - 1) / r->h; /* blocks per cell */
    if (gc < 1) gc = 1;
    if (gr < 1) gr = 1;
    int cols = (n->nbc + gc - 1) / gc, rows = (n->nbr + gr - 1) / gr;
    for (int ci = 0; ci < rows; ci++)
        for (int cj = 0; cj < cols; cj++) {
            double node = -1, east = -1, south = -1;
            for (int i = ci * gr; i < (ci + 1) * gr && i < n->nbr; i++)
                for (int j = cj * gc; j < (cj + 1) * gc && j < n->nbc; j++) {
                    int b = i * n->nbc + j;
                    node = fmax(node, n->port_in ? n->port_in[b] : -1);
                    /* the link to the next cell: this block's E and the next one's W */
                    if (j == (cj + 1) * gc - 1 && j + 1 < n->nbc)
                        east = fmax(east, fmax(n->mesh[b * 4 + ELK_DIR_E], n->mesh[(b + 1) * 4 + ELK_DIR_W]));
                    if (i == (ci + 1) * gr - 1 && i + 1 < n->nbr)
                        south = fmax(south, fmax(n->mesh[b * 4 + ELK_DIR_S], n->mesh[(b + n->nbc) * 4 + ELK_DIR_N]));
                    /* a torus's wrap-around links leave the last column and
                     * row (a mesh has none there: -1), drawn past the edge */
                    if (j == n->nbc - 1 && n->nbc > 1 && n->mesh[b * 4 + ELK_DIR_E] >= 0)
                        east = fmax(east, fmax(n->mesh[b * 4 + ELK_DIR_E], n->mesh[(b - j) * 4 + ELK_DIR_W]));
                    if (i == n->nbr - 1 && n->nbr > 1 && n->mesh[b * 4 + ELK_DIR_S] >= 0)
                        south = fmax(south, fmax(n->mesh[b * 4 + ELK_DIR_S], n->mesh[j * 4 + ELK_DIR_N]));
                }
            int y = r->y + ci * sy, x = r->x + cj * sx;
            if (y >= r->y + r->h || x >= r->x + r->w) continue;
            tui_puts(y, x, 1, level(node) | A_BOLD, tui_ascii() ? "o" : "\u25cf");
            if (east >= 0)
                for (int k = 1; k < sx && x + k < r->x + r->w; k++) tui_puts(y, x + k, 1, level(east), shade(east));
            if (south >= 0 && sy > 1 && y + 1 < r->y + r->h) tui_puts(y + 1, x, 1, level(south), shade(south));
        }
}

static void request(net_state *st, tui_ctx *cx)
{
    st->asked = *cx->point;
    st->asked_pol = cx->focus;
    tui_netsim_request(cx->netsim, cx->point, cx->focus, ++st->id);
}

static void draw(elk_view *v, const tui_rect *r0, tui_ctx *cx)
{
    net_state *st = v->state;
    if (!cx->netsim) return;
    /* ask once the worker has the new point's schedules: the simulation
     * then never competes with the knob change's own computation */
    tui_netsnap *got = tui_netsim_take(cx->netsim);
    if (got) {
        tui_netsnap_free(st->net);
        st->net = got;
    }
    /* (re)ask when the point or focus moved, or when the last request was
     * cancelled by a knob change (tui_app cancels the simulation then) */
    int moved = !st->id || st->asked_pol != cx->focus || memcmp(&st->asked, cx->point, sizeof st->asked);
    int lost = st->id && !tui_netsim_busy(cx->netsim) && (!st->net || st->net->id != st->id);
    if ((moved || lost) && !cx->busy && !cx->stale) request(st, cx);
    int busy = tui_netsim_busy(cx->netsim) || !st->net || st->net->id != st->id || st->asked_pol != cx->focus ||
               memcmp(&st->asked, cx->point, sizeof st->asked);
    const tui_netsnap *ns = st->net;
    char sub[200] = "";
    if (ns && ns->status == ELK_OK)
        snprintf(sub, sizeof sub, "event simulation of %s: %.4g ms simulated, planner %.4g ms (%+.1f%%)%s",
                 elk_policy_labels[ns->policy], ns->sim.latency_ms, ns->est_ms, 100 * ns->sim.err,
                 busy ? "; simulating the new point..." : "");
    else snprintf(sub, sizeof sub, "event simulation of %s%s", elk_policy_labels[cx->focus], busy ? ": simulating..." : "");
    tui_rect r = tui_title(r0, "Network", sub);
    if (!ns) {
        tui_center(&r, tui_attr(TC_DIM), "simulating the focused policy on this point...");
        return;
    }
    if (ns->status != ELK_OK) {
        char buf[700];
        snprintf(buf, sizeof buf, "The simulation failed:\n\n%s", ns->err.msg);
        tui_center(&r, tui_attr(TC_ERROR), buf);
        return;
    }
    const elk_sim_net *n = &ns->sim.net;
    const elk_sim_result *sr = &ns->sim;
    int side = r.w >= 100 ? 44 : r.w >= 80 ? 38 : 0;
    tui_rect left = {r.y, r.x + 1, r.h, r.w - side - 2};
    int lx = r.x + r.w - side, lw = side - 1, ly = r.y;

    /* hottest links over the step */
    hot_link hot[5];
    for (int i = 0; i < 5; i++) hot[i].u = -1, hot[i].name[0] = '\0';
    char nm[64], bn[48];
    if (n->grid && n->mesh) {
        for (int i = 0; i < n->nbr; i++)
            for (int j = 0; j < n->nbc; j++)
                for (int d = 0; d < ELK_DIR_COUNT; d++) {
                    block_name(n, i, j, bn, sizeof bn);
                    snprintf(nm, sizeof nm, "%s %s", bn, dir_name[d]);
                    hot_add(hot, 5, n->mesh[(i * n->nbc + j) * 4 + d], nm);
                }
    }
    for (int k = 0; k < n->nchips; k++) {
        snprintf(nm, sizeof nm, "chip %d out", k);
        hot_add(hot, 5, n->chip_out[k], nm);
        snprintf(nm, sizeof nm, "chip %d in", k);
        hot_add(hot, 5, n->chip_in[k], nm);
    }
    for (int k = 0; k < n->nctrl; k++) {
        snprintf(nm, sizeof nm, "HBM controller %d", k);
        hot_add(hot, 5, n->ctrl[k], nm);
    }

    /* left: the grid, or the all-to-all ports */
    if (n->grid && n->mesh) {
        tui_printf(left.y, left.x, left.w, A_BOLD, "%s links (%dx%d routers%s), utilisation over the step",
                   elk_topology_names[ns->chip.topology], n->R, n->C,
                   n->nbr == n->R && n->nbc == n->C ? "" : ", drawn by block");
        tui_rect g = {left.y + 2, left.x, left.h - 5, left.w};
        draw_grid(n, &g);
        int y = left.y + left.h - 2;
        tui_printf(y, left.x, left.w, tui_attr(TC_DIM), "%s node: its ingress ports   links: %s <25%% %s <50%% %s <75%% %s >=75%%",
                   tui_ascii() ? "o" : "\u25cf", shade(0.1), shade(0.3), shade(0.6), shade(0.9));
        tui_printf(y + 1, left.x, left.w, tui_attr(TC_DIM), "busiest link %.0f%%, mean %.0f%% (elk run --sim linkmax, linkavg)%s",
                   100 * sr->link_max, 100 * sr->link_mean,
                   ns->chip.topology == ELK_TOPO_TORUS ? "; links past the edge: the wrap" : "");
    } else {
        tui_printf(left.y, left.x, left.w, A_BOLD, "all-to-all: ingress ports and chip-to-chip links, utilisation over the step");
        int y = left.y + 2;
        double mean = 0, mx = 0;
        for (int i = 0; i < n->ncell; i++) {
            mean += n->port_in[i] / n->ncell;
            mx = fmax(mx, n->port_in[i]);
        }
        ubar(y++, left.x, left.w, "ports mean", mean);
        ubar(y++, left.x, left.w, "ports max", mx);
        y++;
        for (int k = 0; k < n->nchips && y < left.y + left.h - 1; k++) {
            snprintf(nm, sizeof nm, "chip %d out", k);
            ubar(y++, left.x, left.w, nm, n->chip_out[k]);
            snprintf(nm, sizeof nm, "chip %d in", k);
            ubar(y++, left.x, left.w, nm, n->chip_in[k]);
        }
        if (n->nchips <= 1 && y < left.y + left.h) tui_puts(y, left.x, left.w, tui_attr(TC_DIM), "one chip: no chip-to-chip links");
    }
    if (!side) return;
    /* right: HBM controllers, hottest links, totals */
    tui_printf(ly++, lx, lw, A_BOLD, "HBM controllers (%d), busy", n->nctrl);
    int shown = 0;
    for (int k = 0; k < n->nctrl && ly < r.y + r.h - 10; k++, shown++) {
        snprintf(nm, sizeof nm, "ctrl %d", k);
        ubar(ly++, lx, lw, nm, n->ctrl[k]);
    }
    if (shown < n->nctrl) tui_printf(ly++, lx, lw, tui_attr(TC_DIM), "(%d more; HBM %.0f%% busy in all)", n->nctrl - shown, 100 * sr->hbm_util);
    ly++;
    tui_printf(ly++, lx, lw, A_BOLD, "hottest links");
    for (int i = 0; i < 5 && hot[i].u >= 0 && ly < r.y + r.h - 3; i++)
        tui_printf(ly++, lx, lw, level(hot[i].u), "%4.0f%%  %s", 100 * hot[i].u, hot[i].name);
    ly++;
    if (ly < r.y + r.h)
        tui_printf(ly++, lx, lw, tui_attr(TC_DIM), "HBM %.0f%%  NoC %.0f%%  %ld events", 100 * sr->hbm_util, 100 * sr->noc_util,
                   sr->events);
    if (ly < r.y + r.h)
        tui_printf(ly++, lx, lw, tui_attr(TC_DIM), "%s mode, simulated in %.0f ms", sr->mode_detailed ? "detailed" : "fast",
                   ns->ms);
}

static int csv(elk_view *v, FILE *fp, const tui_ctx *cx, char *msg, size_t n)
{
    (void)cx;
    net_state *st = v->state;
    const tui_netsnap *ns = st->net;
    if (!ns || ns->status != ELK_OK) {
        snprintf(msg, n, "no simulation to export yet");
        return -1;
    }
    const elk_sim_net *w = &ns->sim.net;
    fprintf(fp, "policy,link,row0,row1,col0,col1,dir,utilisation\n");
    const char *pol = elk_policy_names[ns->policy];
    for (int k = 0; k < w->nctrl; k++) fprintf(fp, "%s,hbm,,,,,%d,%.6f\n", pol, k, w->ctrl[k]);
    for (int k = 0; k < w->nchips; k++) {
        fprintf(fp, "%s,chip_out,,,,,%d,%.6f\n", pol, k, w->chip_out[k]);
        fprintf(fp, "%s,chip_in,,,,,%d,%.6f\n", pol, k, w->chip_in[k]);
    }
    if (w->grid && w->mesh)
        for (int i = 0; i < w->nbr; i++)
            for (int j = 0; j < w->nbc; j++) {
                for (int d = 0; d < ELK_DIR_COUNT; d++)
                    if (w->mesh[(i * w->nbc + j) * 4 + d] >= 0)
                        fprintf(fp, "%s,mesh,%d,%d,%d,%d,%s,%.6f\n", pol, w->br0[i], w->br0[i + 1] - 1, w->bc0[j],
                                w->bc0[j + 1] - 1, dir_name[d], w->mesh[(i * w->nbc + j) * 4 + d]);
                fprintf(fp, "%s,port_in,%d,%d,%d,%d,,%.6f\n", pol, w->br0[i], w->br0[i + 1] - 1, w->bc0[j],
                        w->bc0[j + 1] - 1, w->port_in[i * w->nbc + j]);
            }
    else
        for (int i = 0; i < w->ncell; i++) fprintf(fp, "%s,port_in,,,,,%d,%.6f\n", pol, i, w->port_in[i]);
    return 0;
}

static unsigned key(elk_view *v, int ch, tui_ctx *cx)
{
    net_state *st = v->state;
    if (ch == 's' && cx->netsim) {
        request(st, cx);
        return ELK_VIEW_HANDLED | ELK_VIEW_REDRAW;
    }
    return ELK_VIEW_NONE;
}

static void destroy(elk_view *v)
{
    net_state *st = v->state;
    if (st) tui_netsnap_free(st->net);
    free(st);
}

elk_view *view_network_new(void)
{
    elk_view *v = calloc(1, sizeof *v);
    net_state *st = calloc(1, sizeof *st);
    if (!v || !st) {
        free(v);
        free(st);
        return NULL;
    }
    v->state = st;
    v->name = "network";
    v->title = "Network";
    v->keys = "s=Simulate";
    v->help = "p/P=focus a policy (the one simulated)  s=simulate again  e=CSV of every link's utilisation";
    v->draw = draw;
    v->key = key;
    v->csv = csv;
    v->destroy = destroy;
    return v;
}
