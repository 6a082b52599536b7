/* Closed-form link loads of a mesh, torus or ring (core/elk_grid.c), in
 * the network unit: what the cost model and the network's routing ask of a
 * grid without running the event simulator. */
#ifndef ELK_GRID_H
#define ELK_GRID_H

#include "elk_chip.h"

/* Grids above this many routers keep the entry bound alone (building the
 * simulator's network to sum its trees costs O(R C) a miss). */
#define ELK_GRID_TREE_MAX 65536

/* The largest fraction of a preload's unique bytes on one directed link of
 * c's grid at replication r: from the edge routers' routes, and from the
 * simulator's multicast trees (0 when the network cannot be built or the
 * grid is above ELK_GRID_TREE_MAX). Remembered per thread. */
double elk_grid_entry_busiest(const elk_chip *c, double r);
double elk_grid_tree_busiest(const elk_chip *c, double r);
/* Links into a ring of n routers from k controllers spread over it that
 * carry its preload's unique bytes. */
double elk_grid_ring_entry_links(double k, double n);

/* 1 when c is a torus whose preloads, striped over its HBM controllers,
 * load their busiest link less on the mesh's routes (never a wrap-around
 * link) than the shorter way round, at r = 1; its preloads then take the
 * mesh's routes, in this closed form and in the simulator (elk_noc). The
 * loads are summed over every link exactly, as the simulator routes. */
int elk_grid_torus_flat(const elk_chip *c);

/* An execution transfer beside a preload on a mesh or torus, as the event
 * simulator shares them (weighted max-min over the links both load, the
 * simulator's own templates: elk_noc_exchange among groups of g cores, or
 * the ring shift when g is 0, and every controller's preload trees at
 * replication r, held to xp bytes per core per cycle, its pace as placed).
 * Returns the transfer's slowdown, its rate alone over its rate beside the
 * preload (>= 1), in *pre (if set) the preload's rate beside it and in
 * *solo (if set) the transfer's rate alone, bytes per core per cycle; 0 when
 * c is not such a grid, has more than ELK_GRID_TREE_MAX routers, or memory
 * runs out. Remembered per thread per grid, g and replica tile. On a
 * torus, the pair takes the mesh's routes instead (the torus holds the
 * mesh's links) unless its own leave both the transfer and the preload at
 * least the mesh's rates beside each other: the slowdown is then the
 * mesh's time beside over the torus's alone, *pre the mesh's. */
double elk_grid_beside(const elk_chip *c, double g, double r, double xp, double *pre, double *solo);

/* One (chip, g, r) of elk_grid_beside resolved once, for a caller that
 * asks it at many paces (the scheduler asks hundreds of millions of times
 * in an `elk check` run, and the thread's pair memo's key, hash and probe
 * were most of each ask). Owns nothing: the memo's entries are copied, so
 * no later ask can evict what it reads. A side whose E0 (the exchange's
 * rate alone) is not positive answers 0 at every pace; twin is set only on
 * a torus whose own side has one. */
enum { ELK_GRID_PAIR_LINES = 16 };
typedef struct {
    double tE, tP, sS, pE, E0, we, wp;
    int nl;
    double la[ELK_GRID_PAIR_LINES], lb[ELK_GRID_PAIR_LINES];
} elk_grid_side;
typedef struct {
    int twin;            /* a torus: side[1] is its mesh's */
    elk_grid_side side[2];
} elk_grid_pair;
void elk_grid_resolve(const elk_chip *c, double g, double r, elk_grid_pair *gp);
/* elk_grid_beside(c, g, r, xp, pre, solo) from gp = elk_grid_resolve(c, g, r): the
 * same answer, bit for bit. */
double elk_grid_pair_beside(const elk_grid_pair *gp, double xp, double *pre, double *solo);

#endif
