#include "elk_chip.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "elk_cfg.h"

#define ELK_TOPO_NAME(id, name, grid) name,
const char *const elk_topology_names[] = {ELK_TOPOLOGIES(ELK_TOPO_NAME) NULL};
#undef ELK_TOPO_NAME

int elk_topology_is_grid(int topology)
{
#define ELK_TOPO_GRID(id, name, grid) grid,
    static const int g[] = {ELK_TOPOLOGIES(ELK_TOPO_GRID)};
#undef ELK_TOPO_GRID
    return topology >= 0 && topology < ELK_TOPO_COUNT && g[topology];
}
const char *const elk_hbm_placement_names[] = {"edges", "corners", "west", NULL};
const char *const elk_cost_kind_names[] = {"ipu", "parametric", NULL};
#define ELK_PSW_NAME(id, name, help) name,
#define ELK_PSW_HELP(id, name, help) help,
const char *const elk_profile_switch_names[] = {ELK_PROFILE_SWITCHES(ELK_PSW_NAME) NULL};
const char *const elk_profile_switch_help[] = {ELK_PROFILE_SWITCHES(ELK_PSW_HELP) NULL};
static const char *const profile_base_names[] = {"physical", "paper", NULL};

#define OFF(f) offsetof(elk_chip, f)
#define REQ_D(n, f, lo, hi, u) { n, ELK_F_DOUBLE, 1, lo, hi, OFF(f), 0, NULL, u, NULL }
#define OPT_D(n, f, lo, hi, u) { n, ELK_F_DOUBLE, 0, lo, hi, OFF(f), 0, NULL, u, NULL }
#define REQ_I(n, f, lo, hi, u) { n, ELK_F_INT, 1, lo, hi, OFF(f), 0, NULL, u, NULL }
#define OPT_I(n, f, lo, hi, u) { n, ELK_F_INT, 0, lo, hi, OFF(f), 0, NULL, u, NULL }

static const elk_field noc_schema[] = {
    { "topology", ELK_F_ENUM, 1, 0, 0, OFF(topology), 0, elk_topology_names, NULL, NULL },
    OPT_I("mesh_rows", mesh_rows, 1, 65536, NULL),
    OPT_I("mesh_cols", mesh_cols, 1, 65536, NULL),
    REQ_D("link_gbps", link_gbps, 0.01, 1e5, "GB/s"),
    OPT_D("mesh_link_gbps", mesh_link_gbps, 0.01, 1e6, "GB/s"),
    REQ_D("link_latency_cycles", link_latency_cycles, 0, 1e6, "cycles"),
    REQ_D("sync_cycles", sync_cycles, 0, 1e6, "cycles"),
    OPT_D("noc_scale", noc_scale, 0.01, 100, NULL),
    REQ_D("interchip_gbps", interchip_gbps, 0.01, 1e6, "GB/s"),
    ELK_FIELD_END
};

static const elk_field hbm_schema[] = {
    REQ_D("tbps", hbm_tbps, 0.001, 1000, "TB/s"),
    REQ_I("controllers", hbm_controllers, 1, 4096, NULL),
    { "placement", ELK_F_ENUM, 0, 0, 0, OFF(hbm_placement), 0, elk_hbm_placement_names, NULL, NULL },
    { "broadcast", ELK_F_BOOL, 0, 0, 0, OFF(hbm_broadcast), 0, NULL, NULL, NULL },
    ELK_FIELD_END
};

#define COST_D(n, f) { n, ELK_F_DOUBLE, 0, 0, 1e7, OFF(cost.f), 0, NULL, "cycles", NULL }
static const elk_field cost_schema[] = {
    { "kind", ELK_F_ENUM, 1, 0, 0, OFF(cost.kind), 0, elk_cost_kind_names, NULL, NULL },
    COST_D("mm_block", mm_block), COST_D("mm_kn", mm_kn), COST_D("mm_n", mm_n),
    COST_D("mm_fixed", mm_fixed),
    COST_D("elem_slope", elem_slope), COST_D("elem_fixed", elem_fixed),
    COST_D("elem_cap", elem_cap), COST_D("elem_knee", elem_knee),
    COST_D("elem_slope2", elem_slope2), COST_D("elem_fixed2", elem_fixed2),
    COST_D("unary_slope", unary_slope), COST_D("unary_fixed", unary_fixed),
    COST_D("red_slope", red_slope), COST_D("red_fixed", red_fixed),
    COST_D("red_cap", red_cap), COST_D("red_knee", red_knee),
    COST_D("red_slope2", red_slope2),
    { "xchg_cycles_per_byte", ELK_F_DOUBLE, 0, 0, 1e3, OFF(cost.xchg_cycles_per_byte), 0, NULL, "cycles/B", NULL },
    COST_D("op_overhead", op_overhead),
    ELK_FIELD_END
};

#define PSW_FIELD(id, name, help) { name, ELK_F_BOOL, 0, 0, 0, OFF(profile_set[ELK_PSW_##id]), 0, NULL, NULL, NULL },
static const elk_field profile_schema[] = {
    { "base", ELK_F_ENUM, 1, 0, 0, OFF(profile_base), 0, profile_base_names, NULL, NULL },
    ELK_PROFILE_SWITCHES(PSW_FIELD)
    ELK_FIELD_END
};

static const elk_field chip_schema[] = {
    { "name", ELK_F_STRING, 1, 0, 0, OFF(name), sizeof(((elk_chip *)0)->name), NULL, NULL, NULL },
    { "description", ELK_F_STRING, 0, 0, 0, OFF(description), sizeof(((elk_chip *)0)->description), NULL, NULL, NULL },
    REQ_I("chips", chips, 1, 1024, NULL),
    REQ_I("cores_per_chip", cores_per_chip, 1, 1 << 20, NULL),
    REQ_D("sram_kib", sram_kib, 1, 1 << 20, "KiB"),
    REQ_D("reserved_kib", reserved_kib, 0, 1 << 20, "KiB"),
    REQ_D("clock_ghz", clock_ghz, 0.01, 20, "GHz"),
    REQ_D("matmul_macs_per_cycle", matmul_macs_per_cycle, 0.01, 1e6, "MAC/cycle/core"),
    REQ_D("vector_elems_per_cycle", vector_elems_per_cycle, 0.01, 1e6, "elem/cycle/core"),
    OPT_D("compute_scale", compute_scale, 0.01, 100, NULL),
    OPT_D("sram_port_bytes_per_cycle", sram_port_bytes_per_cycle, 0.1, 1e5, "B/cycle"),
    { "remote_access_pauses", ELK_F_BOOL, 0, 0, 0, OFF(remote_access_pauses), 0, NULL, NULL, NULL },
    { "noc", ELK_F_GROUP, 1, 0, 0, 0, 0, NULL, NULL, noc_schema },
    { "hbm", ELK_F_GROUP, 1, 0, 0, 0, 0, NULL, NULL, hbm_schema },
    { "cost", ELK_F_GROUP, 1, 0, 0, 0, 0, NULL, NULL, cost_schema },
    { "profile", ELK_F_GROUP, 0, 0, 0, 0, 0, NULL, NULL, profile_schema },
    ELK_FIELD_END
};

static void cost_ipu_defaults(elk_cost_coef *k)
{
    k->kind = ELK_COSTK_IPU;
    k->mm_block = 24; k->mm_kn = 514; k->mm_n = 113; k->mm_fixed = 173;
    k->elem_slope = 0.75; k->elem_fixed = 290; k->elem_cap = 8517; k->elem_knee = 16432;
    k->elem_slope2 = 0.5; k->elem_fixed2 = 300;
    k->unary_slope = 0.5; k->unary_fixed = 200;
    k->red_slope = 1.5; k->red_fixed = 175; k->red_cap = 295.25; k->red_knee = 480;
    k->red_slope2 = 0.25;
    k->xchg_cycles_per_byte = 0.28;
    k->op_overhead = 200;
}

void elk_chip_defaults(elk_chip *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "ipu-pod4");
    c->chips = 4;
    c->cores_per_chip = 1472;
    c->cores = 5888;
    c->sram_kib = 624;
    c->reserved_kib = 8;
    c->clock_ghz = 1.325;
    c->matmul_macs_per_cycle = 64;
    c->vector_elems_per_cycle = 2;
    c->compute_scale = 1;
    c->sram_port_bytes_per_cycle = 16;
    c->remote_access_pauses = 1;
    c->topology = ELK_TOPO_ALL2ALL;
    c->link_gbps = 5.5;
    c->link_latency_cycles = 0;
    c->sync_cycles = 118;
    c->noc_scale = 1;
    c->interchip_gbps = 640;
    c->hbm_tbps = 16;
    c->hbm_controllers = 16;
    c->hbm_placement = ELK_HBM_EDGES;
    c->hbm_broadcast = 0;
    cost_ipu_defaults(&c->cost);
    c->profile = ELK_PROFILE_PHYSICAL;
    for (int k = 0; k < ELK_PSW_COUNT; k++) c->profile_set[k] = -1;
}

static void near_square(int n, int *rows, int *cols)
{
    int r = (int)floor(sqrt((double)n));
    while (r > 1 && n % r) r--;
    *rows = r;
    *cols = n / r;
}

static elk_status check_chip(const config_setting_t *root, const char *file, void *dst, elk_error *err)
{
    elk_chip *c = dst;
    if ((long)c->chips * c->cores_per_chip > ELK_CHIP_CORES_MAX)
        return elk_fail(err, ELK_ERANGE,
                        "%s:%d: field 'chip.cores_per_chip': chips x cores_per_chip = %d x %d = %ld cores, above "
                        "the limit of %d (the --cores range; more would take minutes and tens of GB per point)",
                        file, elk_cfg_line(root, "cores_per_chip"), c->chips, c->cores_per_chip,
                        (long)c->chips * c->cores_per_chip, ELK_CHIP_CORES_MAX);
    c->cores = c->chips * c->cores_per_chip;
    c->profile = c->profile_base ? ELK_PROFILE_PAPER : ELK_PROFILE_PHYSICAL;
    for (int k = 0; k < ELK_PSW_COUNT; k++) {
        if (c->profile_set[k] == 1) c->profile |= 1u << k;
        if (c->profile_set[k] == 0) c->profile &= ~(1u << k);
        c->profile_set[k] = -1;
    }
    if (c->reserved_kib >= c->sram_kib)
        return elk_fail(err, ELK_ERANGE,
                        "%s:%d: field 'chip.reserved_kib': %g KiB must be below sram_kib (%g KiB)",
                        file, elk_cfg_line(root, "reserved_kib"), c->reserved_kib, c->sram_kib);
    int grid = elk_topology_is_grid(c->topology);
    if (grid) {
        if (!c->mesh_rows || !c->mesh_cols)
            return elk_fail(err, ELK_EMISSING,
                            "%s:%d: missing required field 'chip.noc.%s' (an integer; needed for topology \"%s\")",
                            file, elk_cfg_line(root, "noc"), c->mesh_rows ? "mesh_cols" : "mesh_rows",
                            elk_topology_names[c->topology]);
        if ((long)c->mesh_rows * c->mesh_cols != c->cores)
            return elk_fail(err, ELK_ERANGE,
                            "%s:%d: field 'chip.noc.mesh_rows': %d x %d = %ld cores, but chips x cores_per_chip = %d",
                            file, elk_cfg_line(root, "noc.mesh_rows"), c->mesh_rows, c->mesh_cols,
                            (long)c->mesh_rows * c->mesh_cols, c->cores);
    } else if (c->topology == ELK_TOPO_ALL2ALL && c->mesh_link_gbps > 0) {
        return elk_fail(err, ELK_EFIELD,
                        "%s:%d: field 'chip.noc.mesh_link_gbps': only meaningful for topology \"mesh\", \"torus\" or \"ring\"",
                        file, elk_cfg_line(root, "noc.mesh_link_gbps"));
    } else if (c->mesh_rows || c->mesh_cols) {
        return elk_fail(err, ELK_EFIELD,
                        "%s:%d: field 'chip.noc.mesh_rows': only meaningful for topology \"mesh\" or \"torus\", not \"%s\"",
                        file, elk_cfg_line(root, c->mesh_rows ? "noc.mesh_rows" : "noc.mesh_cols"),
                        elk_topology_names[c->topology]);
    }
    if (c->topology != ELK_TOPO_ALL2ALL && c->mesh_link_gbps <= 0)
        return elk_fail(err, ELK_EMISSING,
                        "%s:%d: missing required field 'chip.noc.mesh_link_gbps' (a number; needed for topology \"%s\")",
                        file, elk_cfg_line(root, "noc"), elk_topology_names[c->topology]);
    if (c->hbm_controllers > c->cores)
        return elk_fail(err, ELK_ERANGE,
                        "%s:%d: field 'chip.hbm.controllers': %d controllers for %d cores (at most one per core)",
                        file, elk_cfg_line(root, "hbm.controllers"), c->hbm_controllers, c->cores);
    if (c->cost.kind == ELK_COSTK_IPU && c->cost.xchg_cycles_per_byte <= 0)
        return elk_fail(err, ELK_ERANGE,
                        "%s:%d: field 'chip.cost.xchg_cycles_per_byte': must be > 0 for kind \"ipu\"",
                        file, elk_cfg_line(root, "cost"));
    return ELK_OK;
}

elk_status elk_chip_load(const char *path, elk_chip *c, elk_error *err)
{
    elk_chip_defaults(c);
    c->name[0] = '\0';
    return elk_cfg_load(path, "chip", chip_schema, c, check_chip, err);
}

elk_status elk_chip_set_cores(elk_chip *c, int cores, elk_error *err)
{
    if (cores < 1 || cores > ELK_CHIP_CORES_MAX)
        return elk_fail(err, ELK_ERANGE, "--cores %d out of range (1 .. %d)", cores, ELK_CHIP_CORES_MAX);
    c->cores = cores;
    c->chips = (cores + c->cores_per_chip - 1) / c->cores_per_chip;
    if (elk_topology_is_grid(c->topology))
        near_square(cores, &c->mesh_rows, &c->mesh_cols);
    if (c->hbm_controllers > cores) c->hbm_controllers = cores;
    return ELK_OK;
}

elk_status elk_chip_validate(elk_chip *c, elk_error *err)
{
    if (c->cores < 1) return elk_fail(err, ELK_ERANGE, "chip: cores must be >= 1");
    if (c->sram_kib <= c->reserved_kib)
        return elk_fail(err, ELK_ERANGE, "chip: sram %.1f KiB must exceed reserved %.1f KiB",
                        c->sram_kib, c->reserved_kib);
    if (c->topology != ELK_TOPO_ALL2ALL && c->mesh_link_gbps <= 0) {
        /* An all-to-all preset switched to a grid: size links so the grid's
         * bisection carries the all-to-all pod's uniform traffic (as the
         * ipu-pod4-mesh preset does). */
        int r, k;
        near_square(c->cores, &r, &k);
        c->mesh_link_gbps = c->link_gbps * c->cores / (4.0 * (r < k ? r : k));
    }
    if (elk_topology_is_grid(c->topology)) {
        if ((long)c->mesh_rows * c->mesh_cols != c->cores) near_square(c->cores, &c->mesh_rows, &c->mesh_cols);
    } else {
        c->mesh_rows = c->mesh_cols = 0;
    }
    if (!(c->hbm_tbps > 0 && c->link_gbps > 0 && c->noc_scale > 0 && c->compute_scale > 0))
        return elk_fail(err, ELK_ERANGE, "chip: bandwidths and scales must be > 0");
    if (c->hbm_controllers > c->cores) c->hbm_controllers = c->cores;
    return ELK_OK;
}

double elk_chip_sram_bytes(const elk_chip *c)
{
    /* the artifact counts all 624 KB for data (the paper profile's "nobuffer") */
    double reserved = c->profile & (1u << ELK_PSW_NOBUFFER) ? 0 : c->reserved_kib;
    return (c->sram_kib - reserved) * 1024.0;
}

double elk_chip_link_bytes_per_cycle(const elk_chip *c)
{
    return c->link_gbps * c->noc_scale / c->clock_ghz;
}

double elk_chip_mesh_link_bytes_per_cycle(const elk_chip *c)
{
    double g = c->mesh_link_gbps > 0 ? c->mesh_link_gbps : c->link_gbps;
    return g * c->noc_scale / c->clock_ghz;
}

double elk_chip_hbm_bytes_per_cycle(const elk_chip *c) { return c->hbm_tbps * 1e3 / c->clock_ghz; }

double elk_chip_noc_bytes_per_cycle(const elk_chip *c) { return c->cores * elk_chip_link_bytes_per_cycle(c); }

double elk_chip_grid_links(const elk_chip *c)
{
    switch (c->topology) {
    case ELK_TOPO_MESH:
        return 2.0 * ((double)c->mesh_rows * (c->mesh_cols - 1) + (double)c->mesh_cols * (c->mesh_rows - 1));
    case ELK_TOPO_TORUS:
        /* every router has both ring neighbours in each dimension longer
         * than 1 (a side of 2 has its wrap link too, as the simulator builds) */
        return 2.0 * c->cores * ((c->mesh_cols > 1) + (c->mesh_rows > 1));
    case ELK_TOPO_RING: return c->cores > 1 ? 2.0 * c->cores : 0;
    default: return 0;
    }
}

double elk_chip_peak_matmul_flops(const elk_chip *c)
{
    return 2.0 * c->matmul_macs_per_cycle * c->compute_scale * c->cores * c->clock_ghz * 1e9;
}

double elk_chip_peak_vector_flops(const elk_chip *c)
{
    return 2.0 * c->vector_elems_per_cycle * c->compute_scale * c->cores * c->clock_ghz * 1e9;
}

double elk_chip_xfactor(const elk_chip *c)
{
    return (c->profile & (1u << ELK_PSW_MULTICHIP)) && c->cores > c->cores_per_chip ? 1.25 : 1.0;
}

double elk_chip_mesh_scalar(const elk_chip *c)
{
    if (!(c->profile & (1u << ELK_PSW_MESHSCALAR)) || c->topology != ELK_TOPO_MESH) return 0;
    /* the artifact's 16000 "GB/s" is MiB per ms: 16.777 TB/s, which its
     * Figs. 19 and 21 divide by the HBM bandwidth; Fig. 23 scales HBM with
     * the cores and takes sqrt(5888 / cores), the same ratio for a mesh
     * whose bandwidth grows as the square root of its cores */
    const double ref_tbps = 16000.0 * 1048576.0 * 1e3 / 1e12, ref_cores = 5888.0;
    return ref_tbps * sqrt(c->cores / ref_cores) * c->noc_scale / c->hbm_tbps;
}

/* "gather, multichip, ...": every switch name, in table order. */
static const char *switch_list(void)
{
#define PSW_NAME(id, name, help) name ", "
    static const char all[] = ELK_PROFILE_SWITCHES(PSW_NAME);
#undef PSW_NAME
    static _Thread_local char buf[sizeof all];
    snprintf(buf, sizeof buf, "%.*s", (int)(sizeof all - 3), all);
    return buf;
}

elk_status elk_profile_parse(const char *spec, unsigned *mask, elk_error *err)
{
    const char *p = spec;
    size_t n = strcspn(p, "+-");
    unsigned m;
    if (n == 5 && !strncmp(p, "paper", 5)) m = ELK_PROFILE_PAPER;
    else if (n == 8 && !strncmp(p, "physical", 8)) m = ELK_PROFILE_PHYSICAL;
    else
        return elk_fail(err, ELK_ERANGE, "profile \"%s\": expected paper or physical, optionally followed by "
                        "+switch or -switch (switches: %s)", spec, switch_list());
    p += n;
    while (*p) {
        char op = *p++;
        n = strcspn(p, "+-");
        int k = -1;
        for (int i = 0; i < ELK_PSW_COUNT; i++)
            if (strlen(elk_profile_switch_names[i]) == n && !strncmp(p, elk_profile_switch_names[i], n)) k = i;
        if (k < 0)
            return elk_fail(err, ELK_ERANGE, "profile \"%s\": no switch \"%.*s\" (switches: %s)", spec, (int)n, p,
                            switch_list());
        if (op == '+') m |= 1u << k;
        else m &= ~(1u << k);
        p += n;
    }
    *mask = m;
    return ELK_OK;
}

void elk_profile_format(unsigned mask, char *buf, size_t n)
{
    int on = 0;
    for (int k = 0; k < ELK_PSW_COUNT; k++) on += (mask >> k) & 1u;
    int paper = 2 * on > ELK_PSW_COUNT;
    size_t len = (size_t)snprintf(buf, n, "%s", paper ? "paper" : "physical");
    for (int k = 0; k < ELK_PSW_COUNT && len < n; k++)
        if ((int)((mask >> k) & 1u) != paper)
            len += (size_t)snprintf(buf + len, n - len, "%c%s", paper ? '-' : '+', elk_profile_switch_names[k]);
}

int elk_chip_dominates(const elk_chip *hi, const elk_chip *lo)
{
    const elk_chip *a = hi, *b = lo;
    return a->hbm_tbps >= b->hbm_tbps && a->noc_scale >= b->noc_scale && a->link_gbps >= b->link_gbps &&
           a->mesh_link_gbps >= b->mesh_link_gbps && a->interchip_gbps >= b->interchip_gbps &&
           a->sram_kib >= b->sram_kib && a->compute_scale >= b->compute_scale &&
           /* and the rest the same machine */
           a->chips == b->chips && a->cores_per_chip == b->cores_per_chip && a->cores == b->cores &&
           a->reserved_kib == b->reserved_kib && a->clock_ghz == b->clock_ghz &&
           a->matmul_macs_per_cycle == b->matmul_macs_per_cycle &&
           a->vector_elems_per_cycle == b->vector_elems_per_cycle &&
           a->sram_port_bytes_per_cycle == b->sram_port_bytes_per_cycle &&
           a->remote_access_pauses == b->remote_access_pauses && a->topology == b->topology &&
           a->mesh_rows == b->mesh_rows && a->mesh_cols == b->mesh_cols &&
           a->link_latency_cycles == b->link_latency_cycles && a->sync_cycles == b->sync_cycles &&
           a->hbm_controllers == b->hbm_controllers && a->hbm_placement == b->hbm_placement &&
           a->hbm_broadcast == b->hbm_broadcast && !memcmp(&a->cost, &b->cost, sizeof a->cost) &&
           a->profile == b->profile;
}

int elk_chip_multi(const elk_chip *c)
{
    return (c->cores + c->cores_per_chip - 1) / c->cores_per_chip;
}

void elk_chip_cores_split(const elk_chip *c, char *buf, size_t n)
{
    int chips = elk_chip_multi(c), full = c->cores / c->cores_per_chip, last = c->cores - full * c->cores_per_chip;
    if (chips <= 1) snprintf(buf, n, "%d", c->cores);
    else if (!last) snprintf(buf, n, "%dx%d", chips, c->cores_per_chip);
    else if (full == 1) snprintf(buf, n, "%d+%d", c->cores_per_chip, last);
    else snprintf(buf, n, "%dx%d+%d", full, c->cores_per_chip, last);
}
