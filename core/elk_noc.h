/* The chip's network as elk_flow links, and the traffic patterns of a
 * schedule as elk_flow templates (docs/SIMULATOR.md).
 *
 * Links. All-to-all: every core has an ingress port, an egress port (both
 * link_gbps) and an exchange engine that caps execution-time traffic at the
 * cost model's exchange rate; each HBM controller is a node with its share of
 * the HBM bandwidth; each chip has an outbound and an inbound chip-to-chip
 * link (interchip_gbps). Grids (mesh, torus, ring = a 1 x N torus): the same
 * ports and engines, plus a directed link per neighbour pair
 * (mesh_link_gbps), dimension-order routing, HBM controllers attached to
 * edge routers by placement.
 *
 * Modes. Detailed: one link per port and per mesh link, one route per core
 * pair (for chips up to a few hundred cores). Fast: symmetric classes. On
 * all-to-all a class is all the ports of one chip, which is exact because
 * every core carries the same traffic. On grids the routers are grouped into
 * B x B blocks; the parallel links between two blocks form one bundle and the
 * links inside a block one internal class, and routing is done between
 * blocks, which is approximate (load assumed even across a bundle).
 *
 * Patterns (templates, cached): the preload delivery from one HBM controller
 * with replication r (a multicast tree per replica group), ring shifts, and
 * uniform exchange within groups of g cores (reduce-scatter, re-layout, data
 * distribution). */
#ifndef ELK_NOC_H
#define ELK_NOC_H

#include "elk_chip.h"
#include "elk_flow.h"
#include "elk_status.h"

typedef enum { ELK_SIM_AUTO, ELK_SIM_FAST, ELK_SIM_DETAILED } elk_sim_mode;
extern const char *const elk_sim_mode_names[]; /* "auto", "fast", "detailed" */

/* Largest core count AUTO simulates in detailed mode. */
#define ELK_SIM_DETAILED_MAX 256
/* Largest core count detailed mode simulates at all: its cost grows faster
 * than the core count (every link and port a flow; Llama2-13B decode at
 * 65,536 cores takes about 2 s and 0.4 GB, tiny at 1,048,576 takes 38 s
 * and at 4,194,304 about 340 s and 4.4 GB). Fast mode covers the rest. */
#define ELK_SIM_DETAILED_LIMIT 65536

enum { ELK_DIR_E, ELK_DIR_W, ELK_DIR_S, ELK_DIR_N, ELK_DIR_COUNT };

typedef struct noc_cache_ent noc_cache_ent;
typedef struct noc_geom noc_geom;

/* The network of one chip. Owns net and every array.
 * Invariants: cells tile the cores (a2a: chips in fast mode, cores in
 * detailed mode; grids: blocks); cell_cores sums to chip.cores. */
typedef struct {
    elk_chip chip;
    elk_net *net;
    int detailed;
    int planes;          /* 2 when preloads get their own NoC (Ideal) */
    int grid;            /* mesh, torus or ring */
    int R, C, wrap;      /* grid shape (ring: 1 x cores, wrapped) */
    int pre_flat;        /* torus: preloads take the mesh's routes (chosen at build) */
    int nbr, nbc;        /* block grid */
    int *br0, *bc0;      /* block row/col starts, nbr+1 / nbc+1 entries */
    int ncell;
    int *cell_cores;
    int *cell_chip;      /* a2a: the chip a cell belongs to */
    int *port_in[2], *port_out, *engine;    /* per cell */
    int *lk[2][ELK_DIR_COUNT];              /* grid: per block, -1 at the edge */
    int *lint[2];                           /* grid fast mode: per block, -1 if none */
    double *lwidth;                         /* per link: parallel members (bundles) */
    int nctrl;
    int *hbm;            /* per controller: its read-bandwidth link */
    int *ctrl_chip;      /* a2a: the chip a controller serves (grids: -1, all) */
    int *att0, *natt;    /* grid: controller k's attachment routers att[att0[k] ..] */
    int *att;            /* router index y*C+x */
    int nchips;
    int *chip_cores;
    int *chip_out, *chip_in;
    double exch_bpc;     /* bytes/cycle of a core's exchange engine */
    /* template cache */
    noc_cache_ent *cache;
    int ncache, capcache;
    noc_geom *geom;      /* grid preload trees per (controller, tile shape) */
    int ngeom, capgeom;
    int *att_vert;       /* grid: controller k's routers run along a column (sorted by row) */
    /* scratch */
    double *amax, *asum; /* per link: load spread evenly over members, total */
    int *moff;           /* per link: offset of its members in mconc (-1: none) */
    double *mconc;       /* per bundle member: load concentrated on it */
    double *rconc;       /* fast mode, per router: load leaving it inside its block */
    int *rmark;          /* fast mode, per router: tree mark of its first hop */
    double *bconc;       /* fast mode, per block: busiest internal link of an exchange's groups inside it */
    int *mark, markv;
} elk_noc;

/* Build the network of chip c. planes = 2 gives preloads a separate copy of
 * every NoC link (ports, mesh links) but the same HBM controllers. block is
 * the fast-mode block side on grids (0 = automatic). */
elk_status elk_noc_build(elk_noc *nc, const elk_chip *c, elk_sim_mode mode, int block, int planes, elk_error *err);
/* The bytes per cycle of a core's exchange engine on chip c (exch_bpc): the
 * cost model's exchange rate under the IPU cost kind, the port's otherwise. */
double elk_noc_exch_bytes_per_cycle(const elk_chip *c);
void elk_noc_free(elk_noc *nc);

/* Templates (-1 when out of memory). */
/* Preload delivery from controller k with replication r (copies of each
 * unique byte); rate = bytes/cycle into each destination core. On grids,
 * ctrl = -1 is every controller at once, each with its share, as one
 * transfer (the fast mode's HBM: loads of different controllers on one
 * bundle member add up before the busiest member is taken). */
/* The byte-fair normaliser (elk_net_tmpl_norm) of a preload whose trees,
 * every controller's summed, load uses u[0..n) per unit of rate times
 * scale: its load on its most loaded port or NoC link. */
double elk_noc_preload_norm(const elk_noc *nc, const elk_use *u, int n, double scale);
int elk_noc_preload(elk_noc *nc, int ctrl, double r, int plane);
/* The same with its rate capped at cap bytes/cycle into each destination
 * core (elk_net_tmpl_cap; INFINITY or <= 0: none): a preload whose schedule
 * held it to a share of the NoC. */
int elk_noc_preload_capped(elk_noc *nc, int ctrl, double r, int plane, double cap);
/* Every core shifts to a ring neighbour (compute-shift rotations). */
int elk_noc_shift(elk_noc *nc);
/* Every core sends to the other members of its group of g cores, uniformly
 * (reduce-scatter, re-layout, data distribution). */
int elk_noc_exchange(elk_noc *nc, double g);

/* Hops of the route between routers a and b (index y * C + x) as the
 * simulator routes it: dimension order, the shorter way round each ring of
 * a torus or ring. 0 on all-to-all. */
int elk_noc_route_hops(const elk_noc *nc, int a, int b);

/* Cores a controller delivers to (its chip on all-to-all, all on grids). */
double elk_noc_ctrl_dests(const elk_noc *nc, int ctrl);
/* Directed NoC links (members) that carry traffic between routers or
 * through ports: what NoC utilisation is measured against. */
int elk_noc_is_fabric(const elk_noc *nc, int link);

#endif
