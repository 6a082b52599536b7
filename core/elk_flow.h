/* A fluid (flow-level) network: links with capacities shared by concurrent
 * flows under weighted max-min fairness, computed by progressive filling.
 * The discrete-event simulator (elk_sim) drives it; it knows nothing about
 * chips. See docs/SIMULATOR.md.
 *
 * Vocabulary.
 * - A *link* is a resource with a capacity in bytes per cycle. It may stand
 *   for `count` identical member links (a class: all ingress ports of a chip,
 *   the parallel mesh links between two blocks); the capacity is per member.
 * - A *template* is the shape of one transfer: the links it loads and how
 *   much. A transfer progresses at a rate x, in bytes per cycle delivered to
 *   each of its destination cores; use (l, cmax, csum) says that at rate x the
 *   busiest member of link l carries cmax*x and all members together carry
 *   csum*x. Collectives (a multicast preload from one HBM controller, a ring
 *   shift on every core, a reduce-scatter) are one template each: all their
 *   cores progress at the same rate, as in a bulk-synchronous step.
 * - A *flow* is an active transfer: a template, a size (bytes per
 *   destination core) and what is left of it.
 *
 * Fairness: every active flow's rate grows in proportion to its template's
 * weight until one of its links is full or it reaches its template's rate
 * cap (weighted max-min). Identical flows
 * (same template) always get the same rate, so the solver works per template
 * with multiplicities, and it memoises the rates of every active set it has
 * seen: the rates depend only on which templates are active, never on bytes
 * left, and a schedule repeats the same few sets layer after layer. */
#ifndef ELK_FLOW_H
#define ELK_FLOW_H

#include <stddef.h>

/* What a link is, for accounting (utilisation) and the trace. */
typedef enum {
    ELK_LK_HBM,       /* an HBM controller's read bandwidth */
    ELK_LK_PORT_IN,   /* a core's network ingress (ejection) port */
    ELK_LK_PORT_OUT,  /* a core's network egress (injection) port */
    ELK_LK_ENGINE,    /* a core's exchange engine (caps execution-time traffic) */
    ELK_LK_MESH,      /* a mesh/ring/torus link between routers */
    ELK_LK_MESH_INT,  /* fast mode: the mesh links inside one block */
    ELK_LK_CHIP_OUT,  /* a chip's outbound chip-to-chip bandwidth */
    ELK_LK_CHIP_IN,   /* a chip's inbound chip-to-chip bandwidth */
    ELK_LK_KIND_COUNT
} elk_link_kind;
extern const char *const elk_link_kind_names[];

/* A link or a class of identical links. Owns nothing.
 * Invariant: cap > 0, count >= 1. */
typedef struct {
    elk_link_kind kind;
    double cap;    /* bytes per cycle, per member */
    double count;  /* member links */
    int plane;     /* 0: shared NoC; 1: the Ideal policy's separate preload NoC */
} elk_link;

/* One link a template loads (see the header comment). */
typedef struct {
    int link;
    double cmax;  /* load on the busiest member, per unit of rate */
    double csum;  /* load summed over members, per unit of rate */
} elk_use;

/* Transfer kinds, for accounting. */
typedef enum { ELK_XF_PRELOAD, ELK_XF_EXEC, ELK_XF_KIND_COUNT } elk_xfer_kind;

/* A transfer shape. uses[u0 .. u0+nu) in the network's use array.
 * Invariant: weight > 0; no link appears twice in its uses. */
typedef struct {
    int u0, nu;
    double weight;
    double ndest;     /* destination cores: bytes received = ndest * size */
    double src_ratio; /* bytes leaving sources (HBM reads, egress) per byte received */
    elk_xfer_kind kind;
    double units;     /* accumulated: sum over its flows of rate*time */
    double solo_rate; /* rate when alone on the network (at most rate_cap) */
    double rate_cap;  /* most rate each of its flows may take (INFINITY: none); a
                         sender's own throttle, e.g. a preload DMA held to the NoC
                         share its schedule was planned with */
} elk_tmpl;

/* An active (or finished) transfer. */
typedef struct {
    int tmpl;
    double size;   /* bytes per destination core */
    double rem;    /* bytes per destination core still to deliver */
    double rate;   /* current rate, bytes/cycle per destination core */
    double start, end; /* cycles; end < 0 while running */
    int tag;       /* caller's */
    int active;
} elk_flow;

/* The network. Owns every array and the memo. */
typedef struct elk_net elk_net;

elk_net *elk_net_new(void);
void elk_net_free(elk_net *n);

/* Building. Each returns an index, or -1 when out of memory. */
int elk_net_link(elk_net *n, elk_link_kind kind, double cap, double count, int plane);
/* Begin a template, add its uses (a repeated link is merged), end it.
 * elk_net_tmpl_end returns the template index. */
void elk_net_tmpl_begin(elk_net *n, elk_xfer_kind kind, double weight, double ndest, double src_ratio);
void elk_net_tmpl_use(elk_net *n, int link, double cmax, double csum);
/* As elk_net_tmpl_use for a link the template does not use yet (no merge). */
void elk_net_tmpl_add(elk_net *n, int link, double cmax, double csum);
/* Cap the rate of the template being built (bytes/cycle per destination
 * core; INFINITY, the default, for none). A capped flow stops growing at its
 * cap in the progressive filling and leaves the rest to the others. */
void elk_net_tmpl_cap(elk_net *n, double cap);
/* The byte-fair normaliser of the template being built: its load per unit
 * of rate on its most loaded port or NoC link. By default elk_net_tmpl_end takes it
 * from the template's own ports and NoC links; a transfer split over
 * several templates (a preload's controllers) gives them all the whole
 * transfer's, so that they keep one pace. */
void elk_net_tmpl_norm(elk_net *n, double m);
int elk_net_tmpl_end(elk_net *n);

/* Running. now is the current time (cycles). */
int elk_net_start(elk_net *n, int tmpl, double size, int tag, double now);
/* Recompute the rates of the active flows (memoised). */
void elk_net_solve(elk_net *n);
/* Cycles until the first active flow completes (INFINITY if none). */
double elk_net_next(const elk_net *n);
/* Progress every active flow by dt cycles at its current rate; flows that
 * complete get end = now + dt and become inactive. Returns how many
 * completed. The caller solves again afterwards. */
int elk_net_advance(elk_net *n, double dt, double now);

/* Access. */
int elk_net_nlinks(const elk_net *n);
const elk_link *elk_net_links(const elk_net *n);
int elk_net_ntmpl(const elk_net *n);
const elk_tmpl *elk_net_tmpls(const elk_net *n);
const elk_use *elk_net_uses(const elk_net *n);
int elk_net_nflows(const elk_net *n);
const elk_flow *elk_net_flows(const elk_net *n);
int elk_net_nactive(const elk_net *n);
/* Bytes moved so far on every link (arrays of elk_net_nlinks entries):
 * sum[l] over its members (exact) and max[l] on its busiest member (exact
 * for a single link, an upper bound for a class), counting only transfers of
 * one kind (kind < 0: all). Either array may be NULL. */
void elk_net_link_totals(const elk_net *n, int kind, double *sum, double *max);
/* Solver statistics. */
void elk_net_stats(const elk_net *n, long *solves, long *memo_hits);
/* 1 if building or running ran out of memory. */
int elk_net_oom(const elk_net *n);

#endif
