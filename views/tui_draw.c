#include "tui_draw.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>

tui_glyphs tui_g;
static int ascii_mode;

static const tui_glyphs utf8_glyphs = {
    "\u2500", "\u2502", "\u253c", "\u2534", "\u2514",
    {"\u2588", "\u2593", "\u2592", "\u2591", "\u259e"},
    "\u2588", "\u2592",
    {"\u280b", "\u2819", "\u2839", "\u2838", "\u283c", "\u2834", "\u2826", "\u2827", "\u2807", "\u280f"}, 10,
    "\u25b6", "\u2026", " \u00b7 ",
};

static const tui_glyphs ascii_glyphs = {
    "-", "|", "+", "+", "+",
    {"#", "=", "-", "~", "%"},
    "#", "-",
    {"|", "/", "-", "\\"}, 4,
    ">", "~", " | ",
};

void tui_glyphs_init(int ascii)
{
    ascii_mode = ascii;
    tui_g = ascii ? ascii_glyphs : utf8_glyphs;
}

int tui_ascii(void) { return ascii_mode; }

int tui_cols(const char *s)
{
    int n = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80) n++;
    return n;
}

int tui_puts(int y, int x, int maxw, attr_t a, const char *s)
{
    if (maxw <= 0 || y < 0 || y >= LINES || x >= COLS) return 0;
    if (x + maxw > COLS) maxw = COLS - x;
    /* find the byte length of the first maxw columns */
    int cols = 0;
    const char *p = s;
    while (*p) {
        if (((unsigned char)*p & 0xC0) != 0x80) {
            if (cols == maxw) break;
            cols++;
        }
        p++;
    }
    attron(a);
    mvaddnstr(y, x, s, (int)(p - s));
    attroff(a);
    return cols;
}

int tui_printf(int y, int x, int maxw, attr_t a, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return tui_puts(y, x, maxw, a, buf);
}

void tui_fill(int y, int x, int n, attr_t a, const char *glyph)
{
    if (y < 0 || y >= LINES) return;
    if (x < 0) {
        n += x;
        x = 0;
    }
    if (x + n > COLS) n = COLS - x;
    if (n <= 0) return;
    attron(a);
    move(y, x);
    for (int i = 0; i < n; i++) addstr(glyph);
    attroff(a);
}

void tui_clear(const tui_rect *r)
{
    for (int y = r->y; y < r->y + r->h; y++) tui_fill(y, r->x, r->w, A_NORMAL, " ");
}

int tui_wrap(const char *text, int width, char *out, size_t n)
{
    /* greedy word wrap of each line of text; ASCII widths */
    size_t o = 0;
    int lines = 1, col = 0;
    if (width < 8) width = 8;
    for (const char *p = text; *p && o + 2 < n;) {
        if (*p == '\n') {
            out[o++] = *p++;
            lines++;
            col = 0;
            continue;
        }
        const char *e = p;
        while (*e && *e != ' ' && *e != '\n') e++;
        int wl = (int)(e - p);
        if (col > 0 && col + 1 + wl > width) {
            out[o++] = '\n';
            lines++;
            col = 0;
        } else if (col > 0) {
            out[o++] = ' ';
            col++;
        }
        while (p < e && o + 2 < n) {
            if (col == width) {
                out[o++] = '\n';
                lines++;
                col = 0;
            }
            out[o++] = *p++;
            col++;
        }
        while (*p == ' ') p++;
    }
    out[o] = '\0';
    return lines;
}

void tui_center(const tui_rect *r, attr_t a, const char *text0)
{
    char text[2048];
    tui_wrap(text0, r->w - 4, text, sizeof text);
    int lines = 1;
    for (const char *p = text; *p; p++) lines += *p == '\n';
    int y = r->y + (r->h - lines) / 2;
    const char *p = text;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char line[512];
        if (len >= sizeof line) len = sizeof line - 1;
        memcpy(line, p, len);
        line[len] = '\0';
        int w = tui_cols(line);
        int x = r->x + (r->w - w) / 2;
        if (x < r->x) x = r->x;
        tui_puts(y++, x, r->w, a, line);
        p += len;
        if (*p == '\n') p++;
    }
}

tui_rect tui_title(const tui_rect *r, const char *title, const char *sub)
{
    int n = tui_puts(r->y, r->x + 1, r->w - 1, tui_attr(TC_TITLE), title);
    if (sub && *sub) tui_puts(r->y, r->x + 1 + n + 2, r->w - n - 3, tui_attr(TC_DIM), sub);
    tui_rect b = {r->y + 1, r->x, r->h - 1, r->w};
    return b;
}

int tui_need_result(const tui_rect *r, const tui_ctx *cx)
{
    if (cx->snap && tui_snap_ok(cx->snap)) return 0;
    if (cx->snap && !cx->busy) {
        char buf[700];
        snprintf(buf, sizeof buf, "No schedule at this design point:\n\n%s\n\nTurn a knob to try another point.",
                 cx->snap->err.msg);
        tui_center(r, tui_attr(TC_ERROR), buf);
    } else {
        tui_center(r, tui_attr(TC_DIM), "computing the schedules...");
    }
    return 1;
}

void tui_fmt_si(double v, char *buf, size_t n)
{
    static const char *suf[] = {"", "K", "M", "G", "T", "P", "E"};
    double a = fabs(v);
    int i = 0;
    while (a >= 999.5 && i < 6) {
        a /= 1000;
        v /= 1000;
        i++;
    }
    if (a != 0 && a < 0.01) snprintf(buf, n, "%.0e", v);
    else if (a >= 99.5 || a == floor(a)) snprintf(buf, n, "%.0f%s", v, suf[i]);
    else if (a >= 9.95) snprintf(buf, n, "%.1f%s", v, suf[i]);
    else snprintf(buf, n, "%.2g%s", v, suf[i]);
}

void tui_fmt_si_bytes(double b, char *buf, size_t n)
{
    static const char *suf[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    int i = 0;
    while (fabs(b) >= 999.5 && i < 5) {
        b /= 1000;
        i++;
    }
    snprintf(buf, n, "%.3g %s", b, suf[i]);
}

void tui_fmt_bytes(double b, char *buf, size_t n)
{
    static const char *suf[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int i = 0;
    while (fabs(b) >= 1023.5 && i < 4) {
        b /= 1024;
        i++;
    }
    if (i == 0 || fabs(b) >= 99.5) snprintf(buf, n, "%.0f %s", b, suf[i]);
    else snprintf(buf, n, "%.3g %s", b, suf[i]);
}

void tui_fmt_ms(double ms, char *buf, size_t n)
{
    if (ms >= 1000) snprintf(buf, n, "%.3g s", ms / 1000);
    else if (ms >= 1) snprintf(buf, n, "%.3g ms", ms);
    else snprintf(buf, n, "%.3g us", ms * 1000);
}

double tui_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}


int tui_snap_ok(const tui_snap *s) { return s && s->status == ELK_OK && s->have_pr && s->have_res; }

double tui_cyc_ms(const tui_snap *s, double cycles) { return cycles / (s->pr.chip.clock_ghz * 1e6); }

void tui_snap_free(tui_snap *s)
{
    if (!s) return;
    if (s->have_res) elk_result_free(&s->res);
    if (s->have_pr) elk_problem_free(&s->pr);
    free(s);
}
