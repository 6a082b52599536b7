#include "tui_compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tui_draw.h"

/* In the knob panel's order; the NoC scale and HBM per core are the NoC and
 * HBM bandwidths in other units, so they are not listed twice. */
static const elk_knob diff_knobs[] = {
    ELK_KNOB_HBM_TBPS, ELK_KNOB_HBM_CONTROLLERS, ELK_KNOB_HBM_BROADCAST, ELK_KNOB_NOC_TBPS, ELK_KNOB_LINK_GBPS,
    ELK_KNOB_CORES,    ELK_KNOB_TOPOLOGY,        ELK_KNOB_SRAM_KIB,      ELK_KNOB_COMPUTE_SCALE, ELK_KNOB_CHIP,
    ELK_KNOB_MODEL,    ELK_KNOB_WORKLOAD,        ELK_KNOB_BATCH,         ELK_KNOB_SEQ,           ELK_KNOB_LAYERS,
    ELK_KNOB_PROFILE,
};

int tui_point_diff(const elk_point *a, const elk_chip *ca, const elk_model *ma, const elk_point *b,
                   const elk_chip *cb, const elk_model *mb, char *buf, size_t n)
{
    int count = 0;
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof diff_knobs / sizeof diff_knobs[0]; i++) {
        elk_knob k = diff_knobs[i];
        char va[96], vb[96];
        elk_point_format(a, ca, ma, k, va, sizeof va);
        elk_point_format(b, cb, mb, k, vb, sizeof vb);
        if (!strcmp(va, vb)) continue;
        const char *unit = elk_knobs[k].unit;
        int w = snprintf(buf + len, n - len, "%s%s %s -> %s%s%s", count ? ", " : "", elk_knobs[k].label, va, vb,
                         *unit ? " " : "", unit);
        count++;
        if (w < 0 || (size_t)w >= n - len) {
            len = n - 1;
            continue;
        }
        len += (size_t)w;
    }
    return count;
}

void tui_fmt_delta(double now_ms, double then_ms, char *buf, size_t n)
{
    double d = now_ms - then_ms;
    char t[32];
    tui_fmt_ms(fabs(d), t, sizeof t);
    if (!(then_ms > 0) || !isfinite(d)) {
        snprintf(buf, n, "-");
        return;
    }
    double pct = 100 * d / then_ms;
    if (fabs(pct) < 0.05) snprintf(buf, n, "+0 ms, 0%%");
    else if (fabs(pct) < 10) snprintf(buf, n, "%s%s, %+.1f%%", d < 0 ? "-" : "+", t, pct);
    else snprintf(buf, n, "%s%s, %+.0f%%", d < 0 ? "-" : "+", t, pct);
}
