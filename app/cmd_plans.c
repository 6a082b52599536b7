/* elk plans: every partition plan of one operator and its Pareto front. */
#include <stdio.h>
#include <string.h>

#include "elk_cli.h"
#include "elk_cost.h"
#include "elk_plan.h"
#include "elk_plan_art.h"

typedef struct {
    const elk_chip *c;
    const elk_op *op;
    int all;
    long n;
} plans_ctx;

static void fmt_ints(char *buf, size_t n, const int *v, int k)
{
    buf[0] = '\0';
    for (int i = 0; i < k; i++) {
        size_t l = strlen(buf);
        snprintf(buf + l, n - l, "%s%d", i ? "x" : "", v[i]);
    }
}

static void fmt_rot(char *buf, size_t n, const elk_op *op, const elk_plan *pl)
{
    buf[0] = '\0';
    for (int v = 1; v < op->ntensors; v++) {
        size_t l = strlen(buf);
        if (pl->t[v] > 1) snprintf(buf + l, n - l, "%st%d=%d@%s", l ? " " : "", v, pl->t[v], op->dimname[pl->ax[v]]);
    }
    if (!buf[0]) snprintf(buf, n, "-");
}

static void print_row(const plans_ctx *x, const elk_plan *pl, const char *set)
{
    char sp[64], rt[96];
    fmt_ints(sp, sizeof sp, pl->p, x->op->ndims);
    fmt_rot(rt, sizeof rt, x->op, pl);
    double exe = pl->comp / x->c->compute_scale + elk_plan_xcycles(x->c, pl) + pl->syncs * x->c->sync_cycles;
    double us = exe / (x->c->clock_ghz * 1e3);
    printf("%s,%s,%s,%.0f,%.4f,%.0f,%.0f,%.0f,%.0f\n", set, sp, rt, pl->hot, us, pl->comp / x->c->compute_scale,
           elk_plan_xcycles(x->c, pl), pl->syncs, pl->shift_bytes + pl->rs_bytes + pl->rd_bytes);
}

static void all_cb(const elk_plan *pl, void *ctx)
{
    plans_ctx *x = ctx;
    x->n++;
    if (x->all) print_row(x, pl, "all");
}

int elk_cmd_plans(int argc, char **argv)
{
    elk_point p;
    elk_point_defaults(&p);
    const char *opname = NULL;
    int want_help = 0, all = 0, cold = 0, coarse = 0;
    elk_opt opts[] = {
        {"op", 1, &opname, NULL, "N|NAME\tthe operator, by index or by name such as L0.qkv (required; see elk graph)"},
        {"all", 0, NULL, &all, "also every plan evaluated ('all' rows; enumerates exhaustively)"},
        {"cold", 0, NULL, &cold, "instead, the preload-state options of each front plan"},
        {"coarse", 0, NULL, &coarse, "the coarser plan space of the workbench's provisional answers"},
        {"help", 0, NULL, &want_help, NULL},
        {NULL, 0, NULL, NULL, NULL},
    };
    const char *pos[1];
    int npos;
    int rc = elk_cli_parse(argc, argv, 2, &p, opts, pos, 0, &npos, "plans");
    if (rc) return rc;
    if (!want_help && !opname) {
        elk_cli_error("plans: --op N|NAME is required (see 'elk plans --help')");
        return ELK_EXIT_USAGE;
    }
    if (want_help) {
        printf("usage: elk plans --op N|NAME [--all] [--cold] [--coarse] [design-point options]\n\n"
               "CSV of one operator's partition plans: the Pareto front in (execution space,\n"
               "time) ('front' rows), the kept volume-optimal plans ('kept'), and with --all\n"
               "every plan evaluated ('all'). With --cold, the preload-state options of each\n"
               "front plan instead. With --coarse, the coarser plan space of the workbench's\n"
               "provisional answers (splits stepped geometrically). Units: bytes per core,\n"
               "microseconds, cycles.\n\n");
        elk_cli_opts_help(stdout, opts);
        printf("\n");
        elk_cli_knob_help(stdout);
        return 0;
    }
    elk_error err;
    elk_chip c;
    elk_model m;
    elk_graph g;
    if (elk_point_resolve(&p, &c, &m, &err) != ELK_OK ||
        elk_graph_build(&m, p.workload, p.batch, p.seq, p.layers, &g, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        return ELK_EXIT_FAIL;
    }
    int oi = elk_graph_find(&g, opname);
    if (oi < 0) {
        elk_cli_error("plans: no operator '%s' in %s (give an index 0..%d or a name such as %s)", opname, m.name,
                      g.nops - 1, g.ops[g.head + 1].name);
        elk_graph_free(&g);
        return ELK_EXIT_USAGE;
    }
    const elk_op *op = &g.ops[oi];
    plans_ctx x = {&c, op, all, 0};
    if (!cold) printf("set,spatial,rotation,hot_bytes,time_us,compute_cycles,exchange_cycles,syncs,noc_bytes\n");
    elk_plan_set set;
    /* --all wants every evaluated plan, so it enumerates exhaustively */
    elk_plan_opts po = {.all_cb = all ? all_cb : NULL, .ctx = &x, .coarse = coarse};
    if (elk_plan_art_set(&c, op, elk_chip_sram_bytes(&c), &set, &po, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        elk_graph_free(&g);
        return ELK_EXIT_FAIL;
    }
    elk_menu menu;
    if (elk_menu_build(&c, op, &set, &menu, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        elk_plan_set_free(&set);
        elk_graph_free(&g);
        return ELK_EXIT_FAIL;
    }
    if (cold) {
        printf("front_index,hot_bytes,exe_us,cold_bytes,dist_us,preload_bytes\n");
        for (int i = 0; i < menu.n; i++)
            for (int k = 0; k < menu.e[i].nc; k++) {
                const elk_menu_cold *mc = &menu.cold[menu.e[i].c0 + k];
                printf("%d,%.0f,%.4f,%.0f,%.4f,%.0f\n", i, menu.e[i].hot, menu.e[i].exe / (c.clock_ghz * 1e3), mc->cold,
                       mc->dist / (c.clock_ghz * 1e3), mc->deliv);
            }
    } else {
        for (int i = 0; i < set.nplans; i++) print_row(&x, &set.plans[i], "kept");
        for (int i = 0; i < menu.n; i++) print_row(&x, &set.plans[menu.e[i].plan], "front");
    }
    fprintf(stderr,
            "%s: %ld spatial plans (%ld skipped on their bound, %ld as twins), %ld plans evaluated (and %ld in the "
            "coarse space for the bounds' seeds), %d kept, %d on the front\n",
            op->name, set.spatial, set.bounded, set.twinned, set.enumerated, set.seeded, set.nplans, menu.n);
    elk_menu_free(&menu);
    elk_plan_set_free(&set);
    elk_graph_free(&g);
    return 0;
}
