/* The HBM preloads' multicast trees on a grid, summed router by router
 * (docs/SIMULATOR.md, "Modes").
 *
 * The fast mode groups a grid's routers into blocks, and its links into
 * bundles between blocks and one class inside each block. A class's load
 * is its busiest member's. elk_noc estimates that member from block-level
 * routes (load spread over a bundle, plus the rows a controller's traffic
 * leaves on), which hid the busiest link where links bind and the
 * controllers are few: a 16 x 24 mesh with 4 `edges` controllers preloaded
 * 1.21x faster in fast mode than in detailed mode, a 16 x 16 torus with one
 * controller 1.37x. The trees' loads are cheap to sum exactly instead: every
 * tree is a leg along the entry router's row (column) and one leg per
 * column (row) of its tile, each a run of consecutive links, so difference
 * arrays along every row and column take each leg in O(1) (the second legs
 * of a tile together in O(tile side)) and the whole grid in O(R C) per
 * tile shape, plus O(tiles x tile side) per controller for the legs. This module routes
 * the trees exactly as the detailed mode does (elk_noc.c: controller
 * placement, entry_idx, route_from, tree_way, the halves at torus ties, the
 * mesh's routes where elk_noc.pre_flat says) and reduces each class to its
 * busiest member and its sum. On a network of one-router blocks (the
 * detailed mode) the loads are the detailed mode's own (tests/test_sim.c
 * checks them link by link). */
#ifndef ELK_TREE_H
#define ELK_TREE_H

#include "elk_flow.h"
#include "elk_noc.h"

/* The replica tile of replication r on an R x C grid: tr x tc cores,
 * tr tc = round(r) when a factorisation fits (the most square), else whole
 * rows and then a block. The one definition: elk_noc's replays and
 * elk_cost's busiest-link price use it too. */
void elk_tree_tile(int R, int C, double r, int *tr, int *tc);

/* The load of controller k's trees (k = -1: every controller's, each with
 * its 1/K share) to replica tiles of tr x tc cores, per unit of bytes per
 * tile, on nc's mesh links of one plane: for each loaded link or class its
 * busiest member (cmax) and its sum (csum), written to out (room for
 * elk_net_nlinks entries) in link order. Returns the number of uses, -1
 * when out of memory. nc must be a grid. */
int elk_tree_loads(const elk_noc *nc, int k, int tr, int tc, int plane, elk_use *out);

/* Whether a torus's preloads to replica tiles of tr x tc cores take the
 * mesh's routes: those of the two whose every-controller trees load the
 * busiest link less (a torus holds the mesh's links, so it can always route
 * like it; an 8 x 8 torus with one controller loads its busiest link 4/3 of
 * the mesh's at r = 2 and 4 the shorter way round). The choice of the
 * network otherwise (nc->pre_flat) on a mesh, or when out of memory. */
int elk_tree_flat(const elk_noc *nc, int tr, int tc);

/* Templates built from exact trees, and the trees per tile shape, cached
 * for one network. Owns its arrays. */
typedef struct {
    struct elk_tree_geom *geom;
    int ngeom, capgeom;
    struct elk_tree_tmpl *tmpl;
    int ntmpl, captmpl;
} elk_tree;

void elk_tree_init(elk_tree *t);
void elk_tree_free(elk_tree *t);

/* The template of a preload from controller k (-1: every controller at once
 * as one transfer, each with its share) with replication r on plane plane,
 * its rate capped at cap bytes/cycle into each destination core (INFINITY
 * or <= 0: none): what elk_noc_preload_capped builds (HBM reads, ingress
 * ports, the same weight), with the mesh loads of elk_tree_loads. Cached;
 * -1 when out of memory or nc is not a grid. */
int elk_tree_preload(elk_tree *t, elk_noc *nc, int k, double r, int plane, double cap);

#endif
