#include "tui_knobs.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tui_draw.h"

static const int core_knob[TK_COUNT] = {
    [TK_HBM] = ELK_KNOB_HBM_TBPS,          [TK_HBM_CTRL] = ELK_KNOB_HBM_CONTROLLERS,
    [TK_HBM_MODEL] = ELK_KNOB_HBM_BROADCAST, [TK_NOC] = ELK_KNOB_NOC_TBPS,
    [TK_LINK] = ELK_KNOB_LINK_GBPS,        [TK_CORES] = ELK_KNOB_CORES,
    [TK_TOPOLOGY] = ELK_KNOB_TOPOLOGY,     [TK_SRAM] = ELK_KNOB_SRAM_KIB,
    [TK_COMPUTE] = ELK_KNOB_COMPUTE_SCALE, [TK_CHIP] = ELK_KNOB_CHIP,
    [TK_MODEL] = ELK_KNOB_MODEL,           [TK_WORKLOAD] = ELK_KNOB_WORKLOAD,
    [TK_BATCH] = ELK_KNOB_BATCH,           [TK_SEQ] = ELK_KNOB_SEQ,
    [TK_LAYERS] = ELK_KNOB_LAYERS,         [TK_PROFILE] = ELK_KNOB_PROFILE,
    [TK_POLICY] = -1,
};

int tui_knobs_core(int which) { return core_knob[which]; }

const char *tui_knobs_label(int which)
{
    if (which == TK_POLICY) return "Policy";
    return elk_knobs[core_knob[which]].label;
}

static int cmpstr(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

static int scan(const char *kind, char out[][1024], int max)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%.480s/presets/%ss", elk_datadir(), kind);
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".cfg")) continue;
        if (strlen(dir) + l + 2 > 1024) continue;
        snprintf(out[n++], 1024, "%.511s/%.511s", dir, e->d_name);
    }
    closedir(d);
    qsort(out, (size_t)n, 1024, cmpstr);
    return n;
}

void tui_knobs_init(tui_knobs *k, tui_design *d)
{
    memset(k, 0, sizeof *k);
    k->d = d;
    k->nmodels = scan("model", k->models, TUI_MAX_PRESETS);
    k->nchips = scan("chip", k->chips, TUI_MAX_PRESETS);
}

elk_status tui_design_set(tui_design *d, const elk_point *p, elk_error *err)
{
    elk_chip c;
    elk_model m;
    ELK_TRY(elk_point_resolve(p, &c, &m, err));
    d->point = *p;
    d->chip = c;
    d->model = m;
    return ELK_OK;
}

#define CELL_W 26

int tui_knobs_rows(int width)
{
    int ncols = width / CELL_W;
    if (ncols < 1) ncols = 1;
    return (TK_COUNT + ncols - 1) / ncols;
}

void tui_knobs_value(const tui_knobs *k, int which, char *buf, size_t n)
{
    const tui_design *d = k->d;
    if (which == TK_POLICY) {
        snprintf(buf, n, "%s", elk_policy_labels[d->focus]);
        return;
    }
    int ck = core_knob[which];
    char v[1024];
    if (which == TK_CHIP || which == TK_MODEL) {
        /* the preset's file name: what --chip/--model take */
        const char *path = which == TK_CHIP ? d->point.chip_path : d->point.model_path;
        const char *b = strrchr(path, '/');
        snprintf(v, sizeof v, "%s", b ? b + 1 : path);
        size_t l = strlen(v);
        if (l > 4 && !strcmp(v + l - 4, ".cfg")) v[l - 4] = '\0';
    } else {
        elk_point_format(&d->point, &d->chip, &d->model, (elk_knob)ck, v, sizeof v);
        if (which == TK_NOC) snprintf(v, sizeof v, "%.3g", atof(v)); /* 32.4, not 32.38 */
    }
    const char *unit = elk_knobs[ck].unit;
    if (which == TK_SEQ) unit = "";
    snprintf(buf, n, "%.100s%s%s", v, *unit && strcmp(unit, "x") ? " " : "", unit); /* 1.5x, 8 TB/s */
}

int tui_knobs_at(const tui_rect *r, int y, int x)
{
    int ncols = r->w / CELL_W;
    if (ncols < 1) ncols = 1;
    int rows = (TK_COUNT + ncols - 1) / ncols, cw = r->w / ncols;
    if (y < r->y || y >= r->y + r->h || y - r->y >= rows || x < r->x) return -1;
    int i = (x - r->x) / cw * rows + (y - r->y);
    return i < TK_COUNT ? i : -1;
}

/* s contains t, ignoring ASCII case */
static int contains_nocase(const char *s, const char *t)
{
    size_t n = strlen(t);
    for (; *s; s++) {
        size_t i = 0;
        while (i < n && s[i] && tolower((unsigned char)s[i]) == tolower((unsigned char)t[i])) i++;
        if (i == n) return 1;
    }
    return 0;
}

int tui_knobs_find(const char *text)
{
    if (!*text) return -1;
    for (int i = 0; i < TK_COUNT; i++) {
        if (contains_nocase(tui_knobs_label(i), text)) return i;
        if (core_knob[i] >= 0 && contains_nocase(elk_knobs[core_knob[i]].name, text)) return i;
    }
    return -1;
}

void tui_knobs_draw(tui_knobs *k, const tui_rect *r, tui_ctx *cx)
{
    (void)cx;
    int ncols = r->w / CELL_W;
    if (ncols < 1) ncols = 1;
    int rows = (TK_COUNT + ncols - 1) / ncols;
    int cw = r->w / ncols;
    for (int i = 0; i < TK_COUNT; i++) {
        int col = i / rows, row = i % rows;
        if (row >= r->h) continue;
        int y = r->y + row, x = r->x + col * cw;
        char val[160];
        tui_knobs_value(k, i, val, sizeof val);
        if (i == TK_CORES && elk_chip_multi(&k->d->chip) > 1) {
            /* what the knob built: "1840 (1472+368)", "5888 (4x1472)" */
            char split[64];
            elk_chip_cores_split(&k->d->chip, split, sizeof split);
            size_t l = strlen(val);
            snprintf(val + l, sizeof val - l, " (%s)", split);
        }
        int sel = i == k->sel;
        attr_t base = sel ? tui_attr(TC_KNOB_SEL) : tui_attr(TC_KNOB_LABEL);
        if (sel) tui_fill(y, x, cw - 1, base, " ");
        tui_puts(y, x, 1, base, sel ? tui_g.sel : " ");
        int vw = tui_cols(val);
        if (vw > cw - 8) vw = cw - 8;
        tui_puts(y, x + 1, cw - 4 - vw, base, tui_knobs_label(i));
        tui_puts(y, x + cw - 2 - vw, vw, sel ? base | A_BOLD : tui_attr(TC_KNOB_VALUE), val);
    }
}

/* ---- stepping ---- */

static double step_hbm(double v, int dir, int big)
{
    if (big) return dir > 0 ? v * 2 : v / 2;
    if (dir > 0) {
        if (v < 2) return floor(v * 4 + 1e-9) / 4 + 0.25;
        if (v < 32) return floor(v + 1e-9) + 1;
        return v * 2;
    }
    if (v <= 2 + 1e-9) return v > 0.25 + 1e-9 ? ceil(v * 4 - 1e-9) / 4 - 0.25 : v / 2;
    if (v <= 32 + 1e-9) return ceil(v - 1e-9) - 1;
    return v / 2;
}

static int find_path(char list[][1024], int n, const char *path)
{
    char a[PATH_MAX], b[PATH_MAX];
    if (!realpath(path, a)) snprintf(a, sizeof a, "%s", path);
    for (int i = 0; i < n; i++) {
        if (!realpath(list[i], b)) snprintf(b, sizeof b, "%s", list[i]);
        if (!strcmp(a, b)) return i;
    }
    return -1;
}

/* Overrides that belong to the chip preset; cleared when the chip changes. */
static void clear_chip_knobs(elk_point *p)
{
    p->hbm_tbps = p->noc_tbps = p->noc_scale = p->link_gbps = p->sram_kib = NAN;
    p->compute_scale = p->hbm_gbps_per_core = NAN;
    p->cores = p->topology = p->hbm_controllers = p->hbm_broadcast = -1;
    p->profile[0] = '\0';
}

static int commit(tui_knobs *k, const elk_point *p, elk_error *err)
{
    if (!memcmp(p, &k->d->point, sizeof *p)) return 0;
    if (tui_design_set(k->d, p, err) != ELK_OK) return -1;
    return 1;
}

/* Clamp a stepped value into the knob's range [lo, hi]; note which end. */
static double clamp(tui_knobs *k, double v, double lo, double hi)
{
    if (v < lo) {
        k->clamped = -1;
        return lo;
    }
    if (v > hi) {
        k->clamped = 1;
        return hi;
    }
    return v;
}

int tui_knobs_step(tui_knobs *k, int which, int dir, int big, elk_error *err)
{
    tui_design *d = k->d;
    elk_point p = d->point;
    const elk_chip *c = &d->chip;
    elk_status st = ELK_OK;
    k->clamped = 0;
    int ck = which == TK_POLICY ? -1 : core_knob[which];
    double lo = ck >= 0 ? elk_knobs[ck].min : 0, hi = ck >= 0 ? elk_knobs[ck].max : 0;
    switch (which) {
    case TK_POLICY:
        d->focus = (d->focus + dir + ELK_POL_COUNT) % ELK_POL_COUNT;
        return 2; /* a display change, no recompute */
    case TK_HBM: {
        double v = clamp(k, step_hbm(c->hbm_tbps, dir, big), lo, hi);
        st = elk_point_set_num(&p, ELK_KNOB_HBM_TBPS, v, err);
        break;
    }
    case TK_NOC: {
        /* quarter steps of the preset's NoC (the paper's 0.75, 1, 1.25, 1.5) */
        double s = c->noc_scale;
        double v = big ? (dir > 0 ? s * 2 : s / 2) : (dir > 0 ? floor(s * 4 + 1e-6) + 1 : ceil(s * 4 - 1e-6) - 1) / 4;
        if (v < 0.25 - 1e-9 && !big) v = s / 2;
        v = clamp(k, v, elk_knobs[ELK_KNOB_NOC_SCALE].min, elk_knobs[ELK_KNOB_NOC_SCALE].max);
        st = elk_point_set_num(&p, ELK_KNOB_NOC_SCALE, v, err);
        break;
    }
    case TK_LINK: {
        /* half a GB/s per step (the IPU's port is 5.5), x2 for big */
        double s = c->link_gbps;
        double v = big ? (dir > 0 ? s * 2 : s / 2) : (dir > 0 ? floor(s * 2 + 1e-6) + 1 : ceil(s * 2 - 1e-6) - 1) / 2;
        if (!big && v <= 0) v = s / 2;
        st = elk_point_set_num(&p, ELK_KNOB_LINK_GBPS, clamp(k, v, lo, hi), err);
        break;
    }
    case TK_COMPUTE: {
        double s = c->compute_scale;
        double v = big ? (dir > 0 ? s * 2 : s / 2) : (dir > 0 ? floor(s * 4 + 1e-6) + 1 : ceil(s * 4 - 1e-6) - 1) / 4;
        if (!big && v <= 0) v = s / 2;
        st = elk_point_set_num(&p, ELK_KNOB_COMPUTE_SCALE, clamp(k, v, lo, hi), err);
        break;
    }
    case TK_HBM_CTRL: {
        int cur = c->hbm_controllers;
        double v = big ? (dir > 0 ? cur * 2.0 : floor(cur / 2.0)) : cur + dir;
        st = elk_point_set_num(&p, ELK_KNOB_HBM_CONTROLLERS, clamp(k, v, lo, hi), err);
        break;
    }
    case TK_HBM_MODEL:
        st = elk_point_set_num(&p, ELK_KNOB_HBM_BROADCAST, !c->hbm_broadcast, err);
        break;
    case TK_CORES: {
        int cur = c->cores, cpc = c->cores_per_chip > 0 ? c->cores_per_chip : cur;
        double v;
        if (dir > 0) v = cur < cpc ? (cur * 2 < cpc ? cur * 2 : cpc) : (cur / cpc + 1.0) * cpc;
        else v = cur > cpc ? ((cur - 1) / cpc) * (double)cpc : floor(cur / 2.0);
        if (big) v = dir > 0 ? cur * 2.0 : floor(cur / 2.0);
        st = elk_point_set_num(&p, ELK_KNOB_CORES, clamp(k, v, lo, hi), err);
        break;
    }
    case TK_TOPOLOGY: {
        int t = ((int)c->topology + dir + ELK_TOPO_COUNT) % ELK_TOPO_COUNT;
        st = elk_point_set(&p, ELK_KNOB_TOPOLOGY, elk_topology_names[t], err);
        break;
    }
    case TK_WORKLOAD: {
        int n = 0;
        while (elk_workload_names[n]) n++;
        st = elk_point_set(&p, ELK_KNOB_WORKLOAD, elk_workload_names[((int)p.workload + dir + n) % n], err);
        break;
    }
    case TK_PROFILE:
        /* paper <-> physical; a mixed profile (typed) steps to physical */
        st = elk_point_set(&p, ELK_KNOB_PROFILE, c->profile == ELK_PROFILE_PHYSICAL ? "paper" : "physical", err);
        break;
    case TK_SRAM: {
        double s = c->sram_kib, step = big ? 256 : 64;
        double v = dir > 0 ? floor(s / step + 1e-9) * step + step : ceil(s / step - 1e-9) * step - step;
        /* the floor: one step above the transfer reserve */
        double floor_kib = fmax(lo, (floor(c->reserved_kib / 64) + 1) * 64);
        st = elk_point_set_num(&p, ELK_KNOB_SRAM_KIB, clamp(k, v, floor_kib, hi), err);
        break;
    }
    case TK_CHIP:
    case TK_MODEL: {
        char(*list)[1024] = which == TK_CHIP ? k->chips : k->models;
        int n = which == TK_CHIP ? k->nchips : k->nmodels;
        if (n == 0) return elk_fail(err, ELK_EIO, "no presets found under %s/presets", elk_datadir()), -1;
        int i = find_path(list, n, which == TK_CHIP ? p.chip_path : p.model_path);
        i = i < 0 ? (dir > 0 ? 0 : n - 1) : (i + dir + n) % n;
        if (which == TK_CHIP) {
            clear_chip_knobs(&p);
            snprintf(p.chip_path, sizeof p.chip_path, "%s", list[i]);
        } else {
            snprintf(p.model_path, sizeof p.model_path, "%s", list[i]);
        }
        break;
    }
    case TK_BATCH:
    case TK_SEQ: {
        int cur = which == TK_BATCH ? p.batch : p.seq;
        int f = big ? 4 : 2;
        double v = dir > 0 ? (double)cur * f : floor((double)cur / f);
        st = elk_point_set_num(&p, (elk_knob)core_knob[which], clamp(k, v, lo, hi), err);
        break;
    }
    case TK_LAYERS: {
        int cur = p.layers ? p.layers : d->model.layers;
        double v = big ? (dir > 0 ? cur * 2.0 : floor(cur / 2.0)) : cur + dir;
        st = elk_point_set_num(&p, ELK_KNOB_LAYERS, clamp(k, v, 1, hi), err);
        break;
    }
    default: return 0;
    }
    if (st != ELK_OK) return -1;
    return commit(k, &p, err);
}

int tui_knobs_set_text(tui_knobs *k, int which, const char *text, elk_error *err)
{
    while (*text == ' ') text++;
    if (!*text) return 0;
    if (which == TK_POLICY) {
        int pol = elk_policy_find(text);
        if (pol < 0) return elk_fail(err, ELK_EINVAL, "policy \"%s\": expected basic, static, elk-dyn, elk-full or ideal", text), -1;
        k->d->focus = pol;
        return 2;
    }
    elk_point p = k->d->point;
    if (which == TK_CHIP) clear_chip_knobs(&p);
    if (elk_point_set(&p, (elk_knob)core_knob[which], text, err) != ELK_OK) return -1;
    return commit(k, &p, err);
}

typedef struct {
    tui_knobs *k;
    int which;
} typed_ctx;

static typed_ctx typed;

static void typed_done(void *obj, tui_ctx *cx, const char *text)
{
    typed_ctx *t = obj;
    if (!text) return;
    elk_error err;
    int r = tui_knobs_set_text(t->k, t->which, text, &err);
    if (r < 0) cx->message(cx, 1, "%s", err.msg);
    else if (r == 1 && t->which == TK_CORES && elk_chip_multi(&t->k->d->chip) > 1) {
        char split[64];
        elk_chip_cores_split(&t->k->d->chip, split, sizeof split);
        cx->message(cx, 0, "Cores set to %s: %d chips, %s cores, HBM split in proportion to each chip's cores", text,
                    elk_chip_multi(&t->k->d->chip), split);
    } else if (r == 1) cx->message(cx, 0, "%s set to %s", tui_knobs_label(t->which), text);
}

unsigned tui_knobs_key(tui_knobs *k, int ch, tui_ctx *cx)
{
    int dir = 0, big = 0;
    switch (ch) {
    case KEY_UP: k->sel = (k->sel + TK_COUNT - 1) % TK_COUNT; return ELK_VIEW_HANDLED | ELK_VIEW_REDRAW;
    case KEY_DOWN:
    case '\t': k->sel = (k->sel + 1) % TK_COUNT; return ELK_VIEW_HANDLED | ELK_VIEW_REDRAW;
    case KEY_BTAB: k->sel = (k->sel + TK_COUNT - 1) % TK_COUNT; return ELK_VIEW_HANDLED | ELK_VIEW_REDRAW;
    case KEY_LEFT: dir = -1; break;
    case KEY_RIGHT: dir = 1; break;
    case KEY_SLEFT: dir = -1; big = 1; break;
    case KEY_SRIGHT: dir = 1; big = 1; break;
    case '\n':
    case '\r':
    case KEY_ENTER: {
        char label[128], val[160];
        tui_knobs_value(k, k->sel, val, sizeof val);
        /* the editable part: the value without its unit */
        int ck = core_knob[k->sel];
        const char *unit = ck >= 0 ? elk_knobs[ck].unit : "";
        if (ck >= 0 && *unit) {
            char *sp = strrchr(val, ' ');
            if (sp && !strcmp(sp + 1, unit)) *sp = '\0';
        }
        if (ck >= 0 && *unit) snprintf(label, sizeof label, "%s (%s)", tui_knobs_label(k->sel), unit);
        else snprintf(label, sizeof label, "%s", tui_knobs_label(k->sel));
        typed.k = k;
        typed.which = k->sel;
        cx->prompt(cx, label, val, typed_done, &typed);
        return ELK_VIEW_HANDLED | ELK_VIEW_REDRAW;
    }
    case 'c': {
        elk_error err;
        int r = tui_knobs_step(k, TK_PROFILE, 1, 0, &err);
        if (r < 0) {
            cx->message(cx, 1, "%s", err.msg);
            return ELK_VIEW_HANDLED | ELK_VIEW_REDRAW;
        }
        char v[96];
        elk_profile_format(k->d->chip.profile, v, sizeof v);
        cx->message(cx, 0, "cost profile: %s (c flips it)", v);
        return ELK_VIEW_HANDLED | ELK_VIEW_REDRAW | ELK_VIEW_RECOMPUTE;
    }
    default: return ELK_VIEW_NONE;
    }
    elk_error err;
    int r = tui_knobs_step(k, k->sel, dir, big, &err);
    if (r < 0) {
        cx->message(cx, 1, "%s", err.msg);
        return ELK_VIEW_HANDLED | ELK_VIEW_REDRAW;
    }
    if (k->clamped) {
        char v[160];
        tui_knobs_value(k, k->sel, v, sizeof v);
        if (r == 0) cx->message(cx, 0, "%s: already at its %s, %s", tui_knobs_label(k->sel), k->clamped < 0 ? "minimum" : "maximum", v);
        else cx->message(cx, 0, "%s: clamped to its %s, %s", tui_knobs_label(k->sel), k->clamped < 0 ? "minimum" : "maximum", v);
    }
    if (r == 0) {
        if (!k->clamped) cx->message(cx, 0, "%s: at its limit", tui_knobs_label(k->sel));
        return ELK_VIEW_HANDLED | ELK_VIEW_REDRAW;
    }
    if (k->sel == TK_CORES && !k->clamped) {
        int chips = elk_chip_multi(&k->d->chip);
        char split[64];
        elk_chip_cores_split(&k->d->chip, split, sizeof split);
        if (chips > 1)
            cx->message(cx, 0, "Cores %d: %d chips, %s cores, HBM split in proportion to each chip's cores",
                        k->d->chip.cores, chips, split);
        else
            cx->message(cx, 0, "Cores %d: one chip", k->d->chip.cores);
    }
    return ELK_VIEW_HANDLED | ELK_VIEW_REDRAW | (r == 1 ? ELK_VIEW_RECOMPUTE : 0);
}
