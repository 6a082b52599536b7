#include "tui_canvas.h"

#include <curses.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tui_draw.h"

int cv_init(tui_canvas *cv, int w, int h, int ascii)
{
    memset(cv, 0, sizeof *cv);
    if (w < 1 || h < 1) return -1;
    cv->w = w;
    cv->h = h;
    cv->dx = ascii ? 1 : 2;
    cv->dy = ascii ? 2 : 4;
    size_t n = (size_t)w * (size_t)h;
    cv->dots = calloc(n, 1);
    cv->role = calloc(n, 1);
    cv->mark = calloc(n, 1);
    cv->mrole = calloc(n, 1);
    if (!cv->dots || !cv->role || !cv->mark || !cv->mrole) {
        cv_free(cv);
        return -1;
    }
    cv->x0 = cv->y0 = 0;
    cv->x1 = cv->y1 = 1;
    return 0;
}

void cv_free(tui_canvas *cv)
{
    free(cv->dots);
    free(cv->role);
    free(cv->mark);
    free(cv->mrole);
    cv->dots = cv->role = cv->mrole = NULL;
    cv->mark = NULL;
}

void cv_range(tui_canvas *cv, double x0, double x1, int logx, double y0, double y1, int logy)
{
    cv->x0 = x0;
    cv->x1 = x1;
    cv->y0 = y0;
    cv->y1 = y1;
    cv->logx = logx;
    cv->logy = logy;
}

static int tr(double v, int log, double *out)
{
    if (isnan(v)) return 0;
    if (log) {
        if (!(v > 0)) return 0;
        *out = log10(v);
    } else {
        *out = v;
    }
    return isfinite(*out);
}

int cv_map(const tui_canvas *cv, double x, double y, double *px, double *py)
{
    double tx, ty, a0, a1, b0, b1;
    if (!tr(x, cv->logx, &tx) || !tr(y, cv->logy, &ty)) return 0;
    if (!tr(cv->x0, cv->logx, &a0) || !tr(cv->x1, cv->logx, &a1)) return 0;
    if (!tr(cv->y0, cv->logy, &b0) || !tr(cv->y1, cv->logy, &b1)) return 0;
    if (a1 == a0 || b1 == b0) return 0;
    double W = cv->w * cv->dx - 1, H = cv->h * cv->dy - 1;
    *px = (tx - a0) / (a1 - a0) * W;
    *py = H - (ty - b0) / (b1 - b0) * H;
    return 1;
}

int cv_cell(const tui_canvas *cv, double x, double y, int *cx, int *cy)
{
    double px, py;
    if (!cv_map(cv, x, y, &px, &py)) return 0;
    int ix = (int)lround(px), iy = (int)lround(py);
    if (ix < 0 || iy < 0 || ix >= cv->w * cv->dx || iy >= cv->h * cv->dy) return 0;
    *cx = ix / cv->dx;
    *cy = iy / cv->dy;
    return 1;
}

static const unsigned char braille_bit[4][2] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}};

void cv_dot(tui_canvas *cv, int px, int py, tui_role r)
{
    if (px < 0 || py < 0 || px >= cv->w * cv->dx || py >= cv->h * cv->dy) return;
    int cx = px / cv->dx, cy = py / cv->dy;
    size_t i = (size_t)cy * cv->w + cx;
    if (cv->dx == 2) cv->dots[i] |= braille_bit[py % 4][px % 2];
    else cv->dots[i] |= (unsigned char)(1u << (py % 2));
    cv->role[i] = (unsigned char)r;
}

void cv_point(tui_canvas *cv, double x, double y, tui_role r)
{
    double px, py;
    if (cv_map(cv, x, y, &px, &py)) cv_dot(cv, (int)lround(px), (int)lround(py), r);
}

/* Liang-Barsky clip of a segment to [0, W] x [0, H]. */
static int clip(double *xa, double *ya, double *xb, double *yb, double W, double H)
{
    double t0 = 0, t1 = 1, dx = *xb - *xa, dy = *yb - *ya;
    double p[4] = {-dx, dx, -dy, dy}, q[4] = {*xa, W - *xa, *ya, H - *ya};
    for (int i = 0; i < 4; i++) {
        if (p[i] == 0) {
            if (q[i] < 0) return 0;
            continue;
        }
        double t = q[i] / p[i];
        if (p[i] < 0) {
            if (t > t1) return 0;
            if (t > t0) t0 = t;
        } else {
            if (t < t0) return 0;
            if (t < t1) t1 = t;
        }
    }
    double nxa = *xa + t0 * dx, nya = *ya + t0 * dy;
    *xb = *xa + t1 * dx;
    *yb = *ya + t1 * dy;
    *xa = nxa;
    *ya = nya;
    return 1;
}

void cv_line(tui_canvas *cv, double xa, double ya, double xb, double yb, tui_role r)
{
    double pa, qa, pb, qb;
    if (!cv_map(cv, xa, ya, &pa, &qa) || !cv_map(cv, xb, yb, &pb, &qb)) return;
    if (!clip(&pa, &qa, &pb, &qb, cv->w * cv->dx - 1, cv->h * cv->dy - 1)) return;
    int x0 = (int)lround(pa), y0 = (int)lround(qa), x1 = (int)lround(pb), y1 = (int)lround(qb);
    int dx = abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
    int dy = -abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
    int e = dx + dy;
    for (;;) {
        cv_dot(cv, x0, y0, r);
        if (x0 == x1 && y0 == y1) break;
        int e2 = 2 * e;
        if (e2 >= dy) {
            e += dy;
            x0 += sx;
        }
        if (e2 <= dx) {
            e += dx;
            y0 += sy;
        }
    }
}

void cv_mark_cell(tui_canvas *cv, int cx, int cy, char ch, tui_role r)
{
    if (cx < 0 || cy < 0 || cx >= cv->w || cy >= cv->h) return;
    size_t i = (size_t)cy * cv->w + cx;
    cv->mark[i] = ch;
    cv->mrole[i] = (unsigned char)r;
}

void cv_mark(tui_canvas *cv, double x, double y, char ch, tui_role r)
{
    int cx, cy;
    if (cv_cell(cv, x, y, &cx, &cy)) cv_mark_cell(cv, cx, cy, ch, r);
}

void cv_text(tui_canvas *cv, int cx, int cy, const char *s, tui_role r)
{
    for (; *s; s++, cx++) cv_mark_cell(cv, cx, cy, *s, r);
}

void cv_blit(const tui_canvas *cv, int y, int x)
{
    static const char ascii_dot[4] = {' ', '\'', '.', ':'};
    for (int cy = 0; cy < cv->h; cy++) {
        for (int cx = 0; cx < cv->w; cx++) {
            size_t i = (size_t)cy * cv->w + cx;
            if (cv->mark[i]) {
                char s[2] = {cv->mark[i], 0};
                tui_puts(y + cy, x + cx, 1, tui_attr(cv->mrole[i]), s);
            } else if (cv->dots[i]) {
                char s[4];
                if (cv->dx == 2) {
                    unsigned m = cv->dots[i];
                    s[0] = (char)0xE2;
                    s[1] = (char)(0xA0 | (m >> 6));
                    s[2] = (char)(0x80 | (m & 0x3F));
                    s[3] = 0;
                } else {
                    s[0] = ascii_dot[cv->dots[i] & 3];
                    s[1] = 0;
                }
                tui_puts(y + cy, x + cx, 1, tui_attr(cv->role[i]), s);
            }
        }
    }
}

void tui_keep_axes(tui_axes_keep *k, int fixed, double *x0, double *x1, double *y0, double *y1)
{
    if (!fixed) k->frozen = 0;
    else if (!k->frozen) {
        k->frozen = 1;
        k->x0 = *x0, k->x1 = *x1, k->y0 = *y0, k->y1 = *y1;
    } else {
        *x0 = k->x0, *x1 = k->x1, *y0 = k->y0, *y1 = k->y1;
    }
}

void tui_nice_range(double *lo, double *hi, int log)
{
    if (log) {
        if (!(*lo > 0)) *lo = *hi > 0 ? *hi / 10 : 1;
        if (!(*hi > *lo)) *hi = *lo * 10;
        *lo = pow(10, floor(log10(*lo) + 1e-9));
        *hi = pow(10, ceil(log10(*hi) - 1e-9));
        if (*hi <= *lo) *hi = *lo * 10;
        return;
    }
    if (!(*hi > *lo)) {
        double d = fabs(*lo) > 0 ? fabs(*lo) * 0.1 : 1;
        *lo -= d;
        *hi += d;
    }
    double span = *hi - *lo;
    double step = pow(10, floor(log10(span / 5)));
    if (span / step > 10) step *= 2;
    if (span / step > 10) step *= 2.5;
    *lo = floor(*lo / step + 1e-9) * step;
    *hi = ceil(*hi / step - 1e-9) * step;
}

int tui_plot_begin(tui_plot *p, const tui_rect *r, double x0, double x1, int logx, double y0, double y1, int logy,
                   int ascii)
{
    memset(p, 0, sizeof *p);
    p->outer = *r;
    p->area.y = r->y + 1;       /* row 0: y axis title */
    p->area.x = r->x + 8;       /* 7 columns of y tick labels + axis */
    p->area.h = r->h - 4;       /* axis row, x tick labels, x title */
    p->area.w = r->w - 9;
    if (p->area.h < 3 || p->area.w < 10) return 0;
    if (cv_init(&p->cv, p->area.w, p->area.h, ascii) != 0) return 0;
    cv_range(&p->cv, x0, x1, logx, y0, y1, logy);
    p->ok = 1;
    return 1;
}

/* Tick values of an axis: decades (and 2, 5 when few) or nice linear steps. */
static int ticks(double lo, double hi, int log, double *t, int max)
{
    int n = 0;
    if (log) {
        if (!(lo > 0) || !(hi > lo)) return 0;
        int k0 = (int)floor(log10(lo) - 1e-9), k1 = (int)ceil(log10(hi) + 1e-9);
        int dec = k1 - k0;
        static const double sub[3] = {1, 2, 5};
        int nsub = dec <= 2 ? 3 : 1;
        int every = dec > 8 ? 2 : 1;
        for (int k = k0; k <= k1 && n < max; k++) {
            if (nsub == 1 && (k - k0) % every) continue;
            for (int s = 0; s < nsub && n < max; s++) {
                double v = sub[s] * pow(10, k);
                if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) t[n++] = v;
            }
        }
        return n;
    }
    if (!(hi > lo)) return 0;
    double span = hi - lo;
    double step = pow(10, floor(log10(span / 4)));
    if (span / step > 8) step *= 2;
    if (span / step > 8) step *= 2.5;
    for (double v = ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9 && n < max; v += step)
        t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
    return n;
}

void tui_plot_axes(tui_plot *p, const char *xlabel, const char *ylabel, tui_tickfmt xf, tui_tickfmt yf)
{
    if (!p->ok) return;
    const tui_rect *a = &p->area;
    attr_t ax = tui_attr(TC_AXIS), dim = tui_attr(TC_DIM);
    int ybase = a->y + a->h;    /* the x axis row */
    for (int y = a->y; y < ybase; y++) tui_puts(y, a->x - 1, 1, ax, tui_g.vline);
    tui_puts(ybase, a->x - 1, 1, ax, tui_g.corner_bl);
    tui_fill(ybase, a->x, a->w, ax, tui_g.hline);
    double t[32];
    char buf[32];
    /* y ticks */
    int n = ticks(p->cv.y0, p->cv.y1, p->cv.logy, t, 32);
    for (int i = 0; i < n; i++) {
        double px, py;
        if (!cv_map(&p->cv, p->cv.x0, t[i], &px, &py)) continue;
        int row = a->y + (int)lround(py) / p->cv.dy;
        if (row < a->y || row >= ybase) continue;
        yf(t[i], buf, sizeof buf);
        int w = tui_cols(buf);
        if (w > 6) w = 6;
        tui_puts(row, a->x - 2 - w, w, dim, buf);
        tui_puts(row, a->x - 1, 1, ax, tui_ascii() ? "+" : "\u2524");
    }
    /* x ticks */
    n = ticks(p->cv.x0, p->cv.x1, p->cv.logx, t, 32);
    int last_end = -1;
    for (int i = 0; i < n; i++) {
        double px, py;
        if (!cv_map(&p->cv, t[i], p->cv.y0, &px, &py)) continue;
        int col = a->x + (int)lround(px) / p->cv.dx;
        if (col < a->x || col >= a->x + a->w) continue;
        tui_puts(ybase, col, 1, ax, tui_ascii() ? "+" : "\u252c");
        xf(t[i], buf, sizeof buf);
        int w = tui_cols(buf);
        int x = col - w / 2;
        if (x + w > p->outer.x + p->outer.w) x = p->outer.x + p->outer.w - w;
        if (x <= last_end) continue;
        tui_puts(ybase + 1, x, w, dim, buf);
        last_end = x + w;
    }
    if (xlabel) {
        int w = tui_cols(xlabel);
        int x = w < a->w ? a->x + (a->w - w) / 2 : p->outer.x;
        tui_puts(ybase + 2, x, p->outer.x + p->outer.w - x, ax, xlabel);
    }
    if (ylabel) tui_puts(p->outer.y, p->outer.x, p->outer.w, ax, ylabel);
}

void tui_plot_end(tui_plot *p)
{
    if (!p->ok) return;
    cv_blit(&p->cv, p->area.y, p->area.x);
    cv_free(&p->cv);
    p->ok = 0;
}
