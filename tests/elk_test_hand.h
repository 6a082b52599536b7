/* The hand-worked 3-operator problem that test_sched.c (the five policies)
 * and test_bound.c (the realisable bound) both check by hand. A 4-core chip
 * at 1 GHz: HBM 1 B/cycle, each core port 1 B/cycle (preloads HBM-bound),
 * 700 B of SRAM per core, no exchange inside operators, no SRAM-port pauses.
 * Each operator has one preload-state layout (cold bytes per core, delivered
 * to all 4 cores):
 *
 *   op  HBM bytes  preload  cold/core  plans (hot bytes -> cycles)
 *   0      200       200        50     300 -> 1000
 *   1      400       400       100     300 -> 400,  600 -> 200
 *   2      800       800       200     500 -> 100
 *
 * Header-only, every function static, like elk_test.h. */
#ifndef ELK_TEST_HAND_H
#define ELK_TEST_HAND_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elk_sched.h"

typedef struct {
    double hot, exe;
} hand_plan;

static void hand_menu(elk_menu *m, double hbm, double cold, const hand_plan *pl, int n)
{
    memset(m, 0, sizeof *m);
    m->e = calloc((size_t)n, sizeof *m->e);
    m->cold = calloc((size_t)n, sizeof *m->cold);
    m->n = n;
    m->hbm_bytes = hbm;
    m->min_cold = m->max_cold = cold;
    for (int i = 0; i < n; i++) {
        m->e[i].hot = pl[i].hot;
        m->e[i].exe = pl[i].exe;
        m->e[i].comp = pl[i].exe;
        m->e[i].plan = i;
        m->e[i].c0 = i;
        m->e[i].nc = 1;
        m->cold[i] = (elk_menu_cold){cold, 0, 0, cold * 4};
    }
    m->ncold = n;
}

static void hand_problem(elk_problem *pr)
{
    memset(pr, 0, sizeof *pr);
    elk_point_defaults(&pr->point);
    elk_chip *c = &pr->chip;
    elk_chip_defaults(c);
    c->chips = 1;
    c->cores_per_chip = c->cores = 4;
    c->sram_kib = 700.0 / 1024.0;
    c->reserved_kib = 0;
    c->clock_ghz = 1;
    c->link_gbps = 1;
    c->hbm_tbps = 0.001;
    c->hbm_controllers = 1;
    c->remote_access_pauses = 0;
    c->sync_cycles = 0;
    pr->sram = 700;
    elk_graph *g = &pr->graph;
    g->nops = g->cap = 3;
    g->ops = calloc(3, sizeof *g->ops);
    g->nshapes = 3;
    static const double hbm[3] = {200, 400, 800};
    for (int i = 0; i < 3; i++) {
        snprintf(g->ops[i].name, sizeof g->ops[i].name, "op%d", i);
        g->ops[i].shape_id = i;
        g->ops[i].hbm_bytes = g->ops[i].weight_bytes = hbm[i];
        g->ops[i].flops = 1e6;
        g->ops[i].layer = -1;
        g->weight_bytes += hbm[i];
        g->flops += 1e6;
    }
    pr->menus = calloc(3, sizeof *pr->menus);
    pr->sets = calloc(3, sizeof *pr->sets);
    hand_plan p0[] = {{300, 1000}}, p1[] = {{300, 400}, {600, 200}}, p2[] = {{500, 100}};
    hand_menu(&pr->menus[0], 200, 50, p0, 1);
    hand_menu(&pr->menus[1], 400, 100, p1, 2);
    hand_menu(&pr->menus[2], 800, 200, p2, 1);
    for (int s = 0; s < 3; s++)
        for (int k = 0; k < ELK_PRICES; k++) {
            pr->menus[s].eff[k] = malloc((size_t)pr->menus[s].n * sizeof(int));
            elk_menu_reprice(c, &pr->menus[s], k ? 1.0 : 0.0, 1.0, k);
        }
}

#endif
