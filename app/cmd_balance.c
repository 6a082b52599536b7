/* elk balance: on a design point and one knob, where more of it stops
 * paying (the knee: latency within p% of its plateau) and which resource
 * bounds the step on either side (core/elk_balance). One command instead of
 * a sweep read by eye. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elk_balance.h"
#include "elk_cli.h"
#include "elk_sched.h"

int elk_cmd_balance(int argc, char **argv)
{
    elk_point p;
    elk_point_defaults(&p);
    const char *knob_s = NULL, *pol_s = "elk-full", *within_s = "5", *range_s = NULL;
    int want_help = 0, verbose = 0;
    elk_opt opts[] = {
        {"knob", 1, &knob_s, NULL,
         "K\thbm-tbps, noc-tbps, noc-scale, link-gbps, cores, sram-kib, compute-scale, hbm-controllers, "
         "hbm-gbps-per-core, batch, seq"},
        {"within", 1, &within_s, NULL, "P\tplateau tolerance, percent (default 5)"},
        {"range", 1, &range_s, NULL,
         "LO:HI\tsearch range in the knob's unit (default: the current value / 16 to x 16; x 4 for cores)"},
        {"policy", 1, &pol_s, NULL, "P\twhose latency (default elk-full)"},
        {"verbose", 0, NULL, &verbose, "every point evaluated"},
        {"help", 0, NULL, &want_help, NULL},
        {NULL, 0, NULL, NULL, NULL},
    };
    const char *pos[1];
    int npos;
    int rc = elk_cli_parse(argc, argv, 2, &p, opts, pos, 0, &npos, "balance");
    if (rc) return rc;
    if (want_help) {
        printf("usage: elk balance --knob K [--within P] [--range LO:HI] [--policy P] [--verbose]\n"
               "                   [design-point options]\n\n"
               "Where more of one resource stops paying, at a design point: the knee, the least\n"
               "value of knob K from which the policy's latency stays within P%% of its plateau\n"
               "(its latency at the top of the range), bracketed on a log grid and bisected to\n"
               "1%%; and which resource bounds the step on either side (the largest of its\n"
               "execution, HBM-streaming and NoC-delivery demands), with the values where that\n"
               "flips. E.g. elk balance --chip ipu-pod4-mesh --model llama2-70b --knob noc-tbps\n\n");
        elk_cli_opts_help(stdout, opts);
        printf("\n");
        elk_cli_knob_help(stdout);
        return 0;
    }
    if (!knob_s) {
        elk_cli_error("balance: give the knob with --knob K (see elk balance --help)");
        return ELK_EXIT_USAGE;
    }
    elk_balance_opts o;
    elk_balance_opts_default(&o);
    int k = elk_knob_find(knob_s);
    if (k < 0) {
        elk_cli_error("balance: --knob %s: not a knob (see elk balance --help)", knob_s);
        return ELK_EXIT_USAGE;
    }
    o.knob = (elk_knob)k;
    if ((rc = elk_cli_policy("balance", pol_s, &o.pol))) return rc;
    double within;
    if ((rc = elk_cli_double("balance", "within", within_s, 0, 100, &within))) return rc;
    o.p = within / 100;
    if (range_s) {
        char a[64], b[64];
        const char *colon = strchr(range_s, ':');
        if (!colon || (size_t)(colon - range_s) >= sizeof a || strlen(colon + 1) >= sizeof b) {
            elk_cli_error("balance: --range %s: expected LO:HI", range_s);
            return ELK_EXIT_USAGE;
        }
        memcpy(a, range_s, (size_t)(colon - range_s));
        a[colon - range_s] = '\0';
        snprintf(b, sizeof b, "%s", colon + 1);
        const elk_knob_info *ki = &elk_knobs[o.knob];
        if ((rc = elk_cli_double("balance", "range", a, ki->min, ki->max, &o.lo))) return rc;
        if ((rc = elk_cli_double("balance", "range", b, ki->min, ki->max, &o.hi))) return rc;
        if (!(o.hi > o.lo)) {
            elk_cli_error("balance: --range %s: LO must be below HI", range_s);
            return ELK_EXIT_USAGE;
        }
    }
    elk_chip c;
    elk_model m;
    elk_error err;
    if ((rc = elk_cli_resolve(&p, &c, &m))) return rc;
    elk_balance_result r;
    if (elk_balance_run(&p, &o, &r, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        return err.code == ELK_EINVAL ? ELK_EXIT_USAGE : ELK_EXIT_FAIL;
    }
    const elk_knob_info *ki = &elk_knobs[o.knob];
    const char *unit = ki->unit[0] ? ki->unit : "";
    char prof[96];
    elk_profile_format(c.profile, prof, sizeof prof);
    const elk_knee *kn = &r.knee;
    double lo = kn->pts[0].x, hi = kn->pts[kn->npts - 1].x;
    printf("%s on %s (%s, %s cost profile): %s latency against %s, %g .. %g %s\n", m.name, c.name,
           elk_topology_names[c.topology], prof, elk_policy_labels[o.pol], ki->name, lo, hi, unit);
    printf("plateau   %.4f ms at %g %s\n", kn->plateau, hi, unit);
    if (isnan(kn->knee))
        printf("knee      none in range: within %g%% of the plateau already at %g %s (%.4f ms)\n", within, lo, unit,
               kn->pts[0].y);
    else
        printf("knee      %.4g %s: from here on within %g%% of the plateau (%.4f ms or less)\n", kn->knee, unit,
               within, kn->threshold);
    printf("now       %g %s: %.4f ms, %+.1f%% over the plateau%s\n", r.current, unit, r.current_ms,
           100 * (r.current_ms / kn->plateau - 1),
           isnan(kn->knee) ? "" : r.current >= kn->knee ? " (past the knee: more does not pay)"
                                                        : " (below the knee: more pays)");
    printf("bound     %s at %g %s", elk_bound_names[r.bound_lo], lo, unit);
    for (int i = 0; i < r.nflips; i++) printf(", %s from %.4g %s", elk_bound_names[r.flip_to[i]], r.flip[i], unit);
    printf("%s\n", r.nflips ? "" : ", all the way");
    if (r.carried)
        printf("carried   %d of %d evaluations run the schedule of a smaller value, re-timed (faster than the "
               "search there; docs/SWEEPS.md)\n",
               r.carried, kn->npts);
    printf("proof    ");
    /* the points either side of the knee, and the ends */
    for (int i = 0; i < kn->npts; i++) {
        int show = verbose || i == 0 || i == kn->npts - 1;
        if (!isnan(kn->knee) && !show)
            show = (i + 1 < kn->npts && kn->pts[i + 1].x >= kn->knee && kn->pts[i].x < kn->knee) ||
                   kn->pts[i].x == kn->knee;
        if (show) printf(" %.4g: %.4f ms%s", kn->pts[i].x, kn->pts[i].y, i + 1 < kn->npts ? "," : "");
    }
    printf("\n");
    return 0;
}
