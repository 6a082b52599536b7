/* The discrete-event simulator: replays a schedule on the chip's network
 * (the paper's sections 4 and 5, docs/SIMULATOR.md).
 *
 * The planner (elk_sched) estimates each operator's times in closed form;
 * the simulator executes the same decisions - the chosen plans, preload
 * layouts and preload order - on HBM controllers with FIFO queues and on the
 * NoC's links, shared by every concurrent transfer under max-min fairness
 * (elk_flow), and reports what the schedule really achieves.
 *
 * Rules replayed (the paper's section 4):
 * - execution in program order, one operator at a time on all cores; an
 *   operator executes once its preload has arrived, first its data
 *   distribution, then compute, ring shifts, syncs, the reduce-scatter of
 *   partial sums and the output re-layout;
 * - preloads are issued one after another in the preload order; each is
 *   striped over the HBM controllers, whose queues serve slices first come
 *   first served; preload j is issued only once the execution the planner
 *   made it wait for (the last one ending before its planned start: the op
 *   whose SRAM it reuses) has ended.
 *
 * Two layers: elk_sim_run_job replays a plain job (volumes per operator),
 * which tests build by hand; elk_sim_run builds the job from a problem and
 * one policy's schedule and replays it. */
#ifndef ELK_SIM_H
#define ELK_SIM_H

#include "elk_chip.h"
#include "elk_noc.h"
#include "elk_sched.h"
#include "elk_status.h"

/* One operator of a job: everything the replay needs, in volumes.
 * Bytes are per core unless noted; groups are core counts. */
typedef struct {
    char name[32];
    double comp;              /* compute cycles (after compute_scale) */
    double syncs;             /* bulk-synchronous steps of its execution */
    double shift_bytes;       /* ring-shift bytes */
    double rs_bytes, rs_group;/* reduce-scatter of partial sums */
    double rd_bytes, rd_group;/* output re-layout for the consumer */
    double dist_bytes, dist_group, dist_syncs; /* data distribution */
    double hbm_bytes;         /* unique bytes read from HBM (whole chip) */
    double deliv;             /* bytes its preload delivers into cores (whole chip, replicas included) */
    double pre_cap;           /* most unique bytes per cycle its preload may take (whole chip,
                                 all controllers together; 0: no cap): the rate the schedule
                                 throttled it to (elk_schedule.pre_share) */
    double hot, cold;         /* SRAM per core: execution space, preload space */
    int dep;                  /* its preload waits for this op's execution to end (-1: none) */
    double flops;
    double est_exe_start, est_exe_end, est_pre_start, est_pre_end; /* the planner's, cycles */
} elk_sim_jop;

/* A job. Owns ops and order.
 * Invariants: order is a permutation of 0..nops-1; dep of the op at
 * position p is below every op at positions >= p (no deadlock). */
typedef struct {
    int nops;
    elk_sim_jop *ops;
    int *order;               /* preload order: op at each position */
    int separate_noc;         /* Ideal: preloads ride their own copy of the NoC */
    int check_sram;           /* count SRAM overflows (not for Ideal) */
    double sram;              /* usable bytes per core */
    double est_latency;       /* the planner's makespan, cycles (0 = none) */
    double est_brk[ELK_BRK_COUNT];
} elk_sim_job;

void elk_sim_job_free(elk_sim_job *j);
/* Allocate a zeroed job of n ops with the identity order and no deps. */
elk_status elk_sim_job_alloc(elk_sim_job *j, int n, elk_error *err);
/* Build the job of one policy's schedule. */
elk_status elk_sim_job_from_schedule(const elk_problem *pr, const elk_schedule *s, elk_sim_job *j, elk_error *err);

typedef struct {
    elk_sim_mode mode;        /* AUTO: detailed up to ELK_SIM_DETAILED_MAX cores */
    int block;                /* fast mode, grids: block side in routers (0 = auto) */
    int port_pause;           /* -1: as chip.remote_access_pauses; 0/1 override */
    int hbm_broadcast;        /* -1: as chip.hbm_broadcast; 0/1 override */
    int record;               /* keep the phase log (for traces) */
    atomic_int *cancel;       /* set non-zero (from any thread) to abandon the replay: ELK_ECANCEL */
} elk_sim_opts;
void elk_sim_opts_default(elk_sim_opts *o);

/* One operator as simulated. Cycles from the start of the step. */
typedef struct {
    double exe_start, exe_end; /* execution, its data distribution included */
    double pre_start, pre_end; /* first slice starts .. last slice ends (equal: no HBM data) */
    double dist;               /* cycles of data distribution */
    double nominal;            /* its execution alone on an idle chip */
    double stall;              /* exe_end - exe_start - nominal: lost to contention */
    double resident;           /* most SRAM per core while it executed */
} elk_sim_op;

typedef enum {
    ELK_PH_PRELOAD,   /* one HBM controller's slice of a preload */
    ELK_PH_DIST,      /* data distribution (exchange) */
    ELK_PH_COMPUTE,
    ELK_PH_SHIFT,     /* compute-shift ring rotations */
    ELK_PH_SYNC,      /* bulk-synchronous barriers */
    ELK_PH_REDUCE,    /* reduce-scatter of partial sums */
    ELK_PH_RELAYOUT,  /* output re-layout */
    ELK_PH_COUNT
} elk_phase_kind;
extern const char *const elk_phase_names[];

/* One phase of one operator, for traces. */
typedef struct {
    int op;
    elk_phase_kind kind;
    int ctrl;           /* ELK_PH_PRELOAD: the controller; else -1 */
    double start, end;  /* cycles */
    double bytes;       /* per destination core (transfers) */
} elk_sim_phase;

/* A counter sample (SRAM occupancy, HBM rate), for traces. */
typedef struct {
    double t;
    double sram;        /* bytes per core resident */
    double hbm;         /* HBM read rate, fraction of full */
} elk_sim_sample;

/* Where the step's traffic went (the workbench's network view): each
 * link's bytes over the step divided by what it could carry in that time
 * (capacity x members x latency), 0..1, on the shared NoC (plane 0). A
 * class of links (a block's parallel mesh links, a chip's ports) is its
 * members' mean. Owns its arrays; NULL where the machine has no such link.
 * Invariant: mesh has nbr*nbc*4 entries, br0/bc0 nbr+1 / nbc+1. */
typedef struct {
    int grid;                 /* 1: mesh, torus or ring */
    int R, C;                 /* grids: routers */
    int nbr, nbc;             /* grids: the blocks of routers links join (detailed: one router each) */
    int *br0, *bc0;           /* grids: first router row / column of each block */
    double *mesh;             /* grids: [(i*nbc + j)*4 + dir] the link leaving block (i,j) E W S N; -1: none */
    double *mesh_int;         /* grids, fast mode: the links inside each block; -1: none */
    int ncell;
    double *port_in;          /* per cell (all-to-all: a core or a chip; grid: a block): ingress ports */
    int nctrl;
    double *ctrl;             /* per HBM controller: its read bandwidth */
    int nchips;
    double *chip_out, *chip_in; /* per chip when there are several: chip-to-chip bandwidth */
} elk_sim_net;

/* The outcome. Owns ops, phases, samples, net. */
typedef struct elk_sim_result {
    int nops;
    elk_sim_op *ops;
    double latency, latency_ms;      /* simulated makespan */
    double est_latency, est_latency_ms;
    double err;                      /* (estimate - simulated) / simulated */
    double brk[ELK_BRK_COUNT];       /* cycles, summing to latency */
    double hbm_util;                 /* HBM bytes at full rate / latency */
    double noc_util, noc_pre_util, noc_exe_util; /* port bytes / (port capacity x latency) */
    int grid;
    double link_max, link_mean;      /* grids: busiest and mean link load over the step */
    double tflops;
    double peak_resident;            /* bytes per core */
    int sram_violations;             /* instants where resident > usable SRAM */
    double hbm_bytes, pre_bytes, exe_bytes; /* read from HBM; delivered by preloads; moved by execution */
    double sent, recv;               /* bytes leaving sources and reaching cores: conservation */
    double expect_recv;              /* what the transfers' sizes promise */
    long events, solves, memo_hits, flows;
    int mode_detailed, block, nctrl, nlinks;
    double wall_ms;
    int nphases;
    elk_sim_phase *phases;
    int nsamples;
    elk_sim_sample *samples;
    elk_sim_net net;
} elk_sim_result;

elk_status elk_sim_run_job(const elk_chip *c, const elk_sim_job *j, const elk_sim_opts *o, elk_sim_result *r,
                           elk_error *err);
/* Replay one policy's schedule of problem pr. */
elk_status elk_sim_run(const elk_problem *pr, const elk_schedule *s, const elk_sim_opts *o, elk_sim_result *r,
                       elk_error *err);
void elk_sim_result_free(elk_sim_result *r);
void elk_sim_net_free(elk_sim_net *n);

#endif
