/* The machine: an ICCA chip (or a pod of them) as loaded from a preset.
 *
 * Every number the planner and simulator use about hardware lives here and
 * comes from presets/chips/ (one .cfg per chip) (docs/PRESETS.md); nothing about the IPU
 * is hard-coded elsewhere. Bandwidths are SI (1 GB/s = 1e9 B/s). */
#ifndef ELK_CHIP_H
#define ELK_CHIP_H

#include <stddef.h>

#include "elk_status.h"

/* The interconnects: X(enum suffix, preset/CLI name, laid out on a 2-D grid
 * of mesh_rows x mesh_cols). Adding one is a row here, its cases in
 * elk_cost.c (hops, bisection) and elk_noc.c (links and routes). */
#define ELK_TOPOLOGIES(X)                                                                                 \
    X(ALL2ALL, "all-to-all", 0)                                                                           \
    X(MESH, "mesh", 1)                                                                                    \
    X(RING, "ring", 0)                                                                                    \
    X(TORUS, "torus", 1)

typedef enum {
#define ELK_TOPO_ENUM(id, name, grid) ELK_TOPO_##id,
    ELK_TOPOLOGIES(ELK_TOPO_ENUM)
#undef ELK_TOPO_ENUM
    ELK_TOPO_COUNT
} elk_topology;
/* 1 for a topology laid out on the mesh_rows x mesh_cols grid. */
int elk_topology_is_grid(int topology);
typedef enum { ELK_HBM_EDGES, ELK_HBM_CORNERS, ELK_HBM_WEST, ELK_HBM_COUNT } elk_hbm_placement;
typedef enum { ELK_COSTK_IPU, ELK_COSTK_PARAMETRIC, ELK_COSTK_COUNT } elk_cost_kind;

extern const char *const elk_topology_names[];
extern const char *const elk_hbm_placement_names[];
extern const char *const elk_cost_kind_names[];

/* Cost-model coefficients, in cycles. The IPU kind uses all of them (their
 * defaults are the artifact's fitted constants, docs/PRESETS.md); the
 * parametric kind uses the rates in elk_chip plus op_overhead. */
typedef struct {
    elk_cost_kind kind;
    double mm_block;      /* cycles per 6x16x16 MAC block (24) */
    double mm_kn;         /* per ceil(k/16)*ceil(n/16) (514) */
    double mm_n;          /* per ceil(n/16) (113) */
    double mm_fixed;      /* per matmul call (173) */
    double elem_slope;    /* elementwise, n <= elem_knee: slope (0.75) */
    double elem_fixed;    /* (290) */
    double elem_cap;      /* (8517) */
    double elem_knee;     /* (16432) */
    double elem_slope2;   /* n > knee (0.5) */
    double elem_fixed2;   /* (300) */
    double unary_slope;   /* (0.5) */
    double unary_fixed;   /* (200) */
    double red_slope;     /* (1.5) */
    double red_fixed;     /* (175) */
    double red_cap;       /* (295.25) */
    double red_knee;      /* (480) */
    double red_slope2;    /* (0.25) */
    double xchg_cycles_per_byte; /* exchange: 0.56 cycles per fp16 element = 0.28 */
    double op_overhead;   /* parametric: fixed cycles per op */
} elk_cost_coef;

/* Cost profiles (docs/VALIDATION.md, "Cost profiles"). "physical" is the
 * workbench's own model; "paper" turns on every switch below, each a rule
 * of the Elk artifact that our model does not share (docs/ARTIFACT.md
 * section 3). A switch marked QUIRK reproduces what the
 * artifact's notes call a quirk or a bug. X(enum suffix, name, help). */
#define ELK_PROFILE_SWITCHES(X)                                                                          \
    X(GATHER, "gather", "a reduction gathers its partial sums serially, one sync per copy (QUIRK, b1)")  \
    X(MULTICHIP, "multichip", "flat x1.25 on every exchange and sync above one chip's cores (a)")        \
    X(RELAYOUT, "relayout", "6 syncs and a port-rate shift of the output after a matmul or reduction (b2)") \
    X(ROTSYNC, "rotsync", "two syncs per rotating tensor per shift step (the artifact's sync_shift)")    \
    X(UNFUSED, "unfused", "every fused operator also pays the floors of the artifact's unfused parts (b3)") \
    X(SOFTMAX1, "softmax1", "decode scale, mask and softmax over one key (QUIRK, parser bug e1)")        \
    X(NOCCAP, "noccap", "a preload may use a fraction theta of the NoC: 0.7 Basic/Static, best of 0.9/0.7/0.5 Elk-Dyn, 0.99 Elk-Full") \
    X(INT55, "int55", "Basic, Static and Elk-Dyn see the per-core NoC rate truncated to an integer (QUIRK, int(5.5))") \
    X(MINCOLD, "mincold", "Basic's and Static's distributed variant keeps only plans at the operator's least preload size, their replicated one the largest that fits")  \
    X(WARMUP, "warmup", "a coarser preload layout's warm-up shifts the whole execute-state slice through the port, one sync per step")  \
    X(CONTENTION, "contention", "an op's exchange takes the NoC time its preloads leave; Elk-Full pushes preloads earlier instead; no SRAM-port pauses") \
    X(PLANTABLES, "plantables", "each operator's plans and preload layouts are the artifact's tables: its plan space with the temporal-split sort bug, 2-D front and cold-to-hot pairing (QUIRK, docs/ARTIFACT.md)") \
    X(NOBUFFER, "nobuffer", "the whole SRAM holds plans and preloads: no transfer buffer is reserved (the artifact's 624 KB per core)") \
    X(MESHSCALAR, "meshscalar", "a mesh is the artifact's scalar MESH: a preload holds the NoC for its HBM time / MESH, no theta, and Static and Elk-Dyn delay only some ops for their exchange (docs/ARTIFACT.md section 4)")

typedef enum {
#define ELK_PSW_ENUM(id, name, help) ELK_PSW_##id,
    ELK_PROFILE_SWITCHES(ELK_PSW_ENUM)
#undef ELK_PSW_ENUM
    ELK_PSW_COUNT
} elk_profile_switch;
#define ELK_PROFILE_PHYSICAL 0u
#define ELK_PROFILE_PAPER ((1u << ELK_PSW_COUNT) - 1u)
extern const char *const elk_profile_switch_names[];
extern const char *const elk_profile_switch_help[];
/* Parse "paper", "physical", or either followed by +switch / -switch
 * (e.g. "paper-gather", "physical+gather+multichip") into a switch mask. */
elk_status elk_profile_parse(const char *spec, unsigned *mask, elk_error *err);
/* The shortest spelling of a mask in that grammar. */
void elk_profile_format(unsigned mask, char *buf, size_t n);

/* The most cores a design point may have (a preset's chips x cores_per_chip
 * or --cores): 2048 x 2048. Plan enumeration, the NoC model and the
 * simulator size arrays by it, and above it a point costs minutes and tens
 * of GB before anything could fail. */
#define ELK_CHIP_CORES_MAX (1 << 22)

/* A chip preset plus the knobs the user turned.
 * Invariants (enforced by elk_chip_validate): cores = chips*cores_per_chip
 * <= ELK_CHIP_CORES_MAX
 * unless overridden by --cores; for a mesh/torus, mesh_rows*mesh_cols == cores;
 * reserved_kib < sram_kib; every rate > 0. */
typedef struct {
    char name[64];
    char description[256];
    int chips;
    int cores_per_chip;
    int cores;                 /* total cores used (derived, or --cores) */
    double sram_kib;           /* per core */
    double reserved_kib;       /* per core, transfer buffers */
    double clock_ghz;
    double matmul_macs_per_cycle; /* per core */
    double vector_elems_per_cycle;/* per core */
    double compute_scale;      /* knob: multiplies compute throughput */
    double sram_port_bytes_per_cycle; /* local SRAM port width */
    int remote_access_pauses;  /* 1: incoming remote writes steal SRAM-port cycles */

    elk_topology topology;
    int mesh_rows, mesh_cols;  /* whole machine, mesh/torus only */
    double link_gbps;          /* per-core network port, each direction */
    double mesh_link_gbps;     /* per mesh/ring link, each direction (mesh, torus, ring) */
    double link_latency_cycles;
    double sync_cycles;        /* one bulk-synchronous exchange step */
    double noc_scale;          /* knob: multiplies link bandwidth */
    double interchip_gbps;     /* per chip, each direction */

    double hbm_tbps;           /* total */
    int hbm_controllers;       /* total */
    elk_hbm_placement hbm_placement;
    int hbm_broadcast;         /* 1: model HBM as one broadcasting controller */

    elk_cost_coef cost;
    unsigned profile;          /* ELK_PSW_* bits: the cost profile */
    int profile_base;          /* loading only: 0 physical, 1 paper */
    int profile_set[ELK_PSW_COUNT]; /* loading only: a preset's explicit switch (-1 = as its base) */
} elk_chip;

/* Fill every field with the IPU-POD4 reference values (docs/PRESETS.md). */
void elk_chip_defaults(elk_chip *c);
elk_status elk_chip_load(const char *path, elk_chip *c, elk_error *err);
/* Re-derive dependent fields and check invariants after overrides. */
elk_status elk_chip_validate(elk_chip *c, elk_error *err);
/* Set a new total core count and re-shape the mesh to a near-square grid. */
elk_status elk_chip_set_cores(elk_chip *c, int cores, elk_error *err);

double elk_chip_sram_bytes(const elk_chip *c);        /* usable: sram - reserved */
double elk_chip_link_bytes_per_cycle(const elk_chip *c); /* after noc_scale */
double elk_chip_hbm_bytes_per_cycle(const elk_chip *c);
double elk_chip_mesh_link_bytes_per_cycle(const elk_chip *c); /* after noc_scale */
/* Aggregate injection bandwidth of the cores' network ports: what "NoC
 * bandwidth" means in knobs, CSV and utilisation for every topology (32.4
 * TB/s on IPU-POD4). Grid links are counted by elk_chip_grid_links. */
double elk_chip_noc_bytes_per_cycle(const elk_chip *c);
double elk_chip_grid_links(const elk_chip *c); /* directed links of a mesh/torus/ring */
double elk_chip_peak_matmul_flops(const elk_chip *c);    /* FLOP/s */
double elk_chip_peak_vector_flops(const elk_chip *c);
int elk_chip_multi(const elk_chip *c);  /* number of chips actually spanned */
/* How the cores fill the chips, compactly: "1472" (one chip), "4x1472"
 * (whole chips), "1472+368" or "2x1472+736" (the last chip partly used,
 * built with HBM in proportion to its cores: elk_noc's build_hbm). */
void elk_chip_cores_split(const elk_chip *c, char *buf, size_t n);
/* Whether hi has at least every resource lo has and is otherwise the same
 * machine: equal but for HBM bandwidth, NoC scale, port, grid-link and
 * chip-to-chip bandwidth, SRAM and compute scale, each no smaller in hi
 * (names and descriptions aside). Such a hi can run lo's timeline exactly:
 * every transfer capped at the rate it had on lo (lo's rates fit hi's
 * capacities, so max-min sharing gives each capped flow its cap), every
 * execution padded to its length there, every buffer where it was. */
int elk_chip_dominates(const elk_chip *hi, const elk_chip *lo);
/* The paper profile's flat inter-chip factor on exchange and syncs (1.25
 * above one chip's cores, the artifact's INTER_CHIP_OVERHEAD), else 1. */
double elk_chip_xfactor(const elk_chip *c);
/* The paper profile's "meshscalar" on a mesh: the artifact's MESH, the
 * ratio of the mesh's preload bandwidth to the HBM's, as its Figs. 19, 21
 * and 23 set it (16,000 MiB/ms at 5,888 cores, growing as the square root
 * of the cores and with the NoC scale); 0 where the rule does not apply
 * (another topology, or the switch off). */
double elk_chip_mesh_scalar(const elk_chip *c);

#endif
