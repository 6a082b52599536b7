/* Sweeps: a libconfig file naming a base design point and axes of knob
 * values, expanded into numbered design points, run on N threads that share
 * one plan cache, and written as one tidy CSV (docs/SWEEPS.md).
 *
 *   sweep = {
 *     name = "fig19"; description = "...";
 *     base = { model = "llama2-13b"; hbm-tbps = 16.0; };
 *     axes = ( { knob = "topology"; values = ["all-to-all", "mesh"]; },
 *              { knob = "hbm-tbps"; from = 4.0; to = 16.0; step = 1.0; } );
 *     mode = "cross";                      # or "zip"
 *     parts = ( { name = "dit"; base = {...}; axes = (...); }, ... );  # optional
 *     policies = ["basic", "static", "elk-dyn", "elk-full", "ideal"];
 *     outputs = ["noc_tbps"];              # optional extra columns
 *     figure = { kind = "lines"; x = "hbm_tbps"; col = "model"; row = "topology"; };
 *   };
 *
 * Point numbering: parts in file order; inside a part the top-level axes
 * vary slowest, then the part's own; in "cross" mode the first axis listed
 * varies slowest, in "zip" mode every axis steps together. Point i of a
 * sweep is the same design point on every machine, which is what --shard
 * and elk merge rely on.
 *
 * CSV: two '#' lines (identity, figure hints), a header, then one row per
 * (point, policy), points ascending, policies in the order basic, static,
 * elk-dyn, elk-full, ideal. Numbers via elk_csv_fmt, so the bytes do not
 * depend on --jobs or on sharding. */
#ifndef ELK_SWEEP_H
#define ELK_SWEEP_H

#include <stdio.h>

#include "elk_plan.h"
#include "elk_point.h"
#include "elk_sched.h"
#include "elk_status.h"

#define ELK_SWEEP_MAX_AXES 8
#define ELK_SWEEP_MAX_PARTS 8
#define ELK_SWEEP_MAX_OUTPUTS 32
#define ELK_SWEEP_MAX_COLS 80
/* The most design points one sweep (or a merged CSV's identity line) may
 * have: bounds the memory a sweep or a merge allocates up front. */
#define ELK_SWEEP_MAX_POINTS 10000000L

typedef enum {
    ELK_FIG_LINES,     /* y against a knob, one line per series, faceted */
    ELK_FIG_BARS,      /* grouped bars: clusters x series, faceted */
    ELK_FIG_BREAKDOWN, /* stacked latency breakdown per series, faceted */
    ELK_FIG_UTIL,      /* HBM utilisation, NoC utilisation and TFLOPS bars */
    ELK_FIG_ROOFLINE,  /* achieved TFLOPS against operational intensity, with roofs */
    ELK_FIG_PARETO,    /* points in (x, y) and their lower-left front */
    ELK_FIG_COUNT
} elk_fig_kind;
extern const char *const elk_fig_kind_names[]; /* "lines", "bars", ... NULL-terminated */

/* Figure hints carried from the sweep file into the CSV (and on to
 * `elk plot`). Column lists (row, col, cluster) are space-separated names.
 * kind is -1 when the file has no figure group. */
typedef struct {
    int kind;
    char x[64], y[64], series[64];
    char row[128], col[128], cluster[128];
    char title[160], xlabel[96], ylabel[96];
    int logx, logy;
} elk_sweep_figure;

/* One axis: a knob and its values. Owns num or word.
 * Invariant: exactly one of num (numeric knobs) and word (word knobs) is set,
 * with n entries, each already range-checked. */
typedef struct {
    elk_knob knob;
    int n;
    double *num;
    char **word;
    int line;          /* where it is defined, for messages */
} elk_sweep_axis;

/* Axes expanded together: crossed (first slowest) or zipped (same length).
 * Invariant: count = product of lengths (cross), common length (zip), 1 if
 * there are no axes. */
typedef struct {
    int naxes;
    elk_sweep_axis axis[ELK_SWEEP_MAX_AXES];
    int zip;
    long count;
} elk_sweep_block;

/* A part: the sweep's base with overrides, and its own axes, crossed with
 * the top-level axes. Points [first, first + count). */
typedef struct {
    char name[64];
    elk_point base;
    elk_sweep_block block;
    long first, count;
} elk_sweep_part;

/* One CSV column. */
typedef enum { ELK_COL_POINT, ELK_COL_PART, ELK_COL_KNOB, ELK_COL_POLICY, ELK_COL_STATUS, ELK_COL_METRIC } elk_col_kind;
typedef struct {
    elk_col_kind kind;
    int id;            /* knob or metric index */
    char name[48];
} elk_sweep_col;

/* A loaded sweep. Owns its axes' values (elk_sweep_free).
 * Invariants: nparts >= 1 (a file without parts has one unnamed part);
 * npoints = sum of part counts; policy_mask is non-empty; cols[] is the CSV
 * column order; id fingerprints the expanded points, policies and columns. */
typedef struct {
    char path[1024];
    char name[64];
    char description[512];
    elk_point base;
    elk_sweep_block top;
    int nparts;
    int named_parts;   /* 1 when the file has parts (adds a part column) */
    elk_sweep_part part[ELK_SWEEP_MAX_PARTS];
    unsigned policy_mask; /* bit per elk_policy */
    int nout;
    int out_col[ELK_SWEEP_MAX_OUTPUTS];
    elk_sweep_figure fig;
    long npoints;
    int carried;       /* Elk-Full carried along each series' resource axes (docs/SWEEPS.md, Carried
                        * schedules): adds the pointwise_ms and carried_from columns, and shards
                        * hold whole series */
    int ncols;
    elk_sweep_col cols[ELK_SWEEP_MAX_COLS];
    unsigned long long id;
} elk_sweep;

/* Load and check a sweep file: every problem is reported with file:line and
 * the field path (sweep.axes.[1].values), unknown fields are rejected, every
 * value is range-checked and every point must resolve (its presets load and
 * its chip is valid). */
elk_status elk_sweep_load(const char *path, elk_sweep *s, elk_error *err);
void elk_sweep_free(elk_sweep *s);
/* Run the sweep pointwise (elk sweep --pointwise): Elk-Full's own schedule
 * at every point, without the carried columns; the id is recomputed. */
elk_status elk_sweep_set_pointwise(elk_sweep *s, elk_error *err);
/* Set knob k to value at every point (elk reproduce --profile): in the base
 * and every part, refused if an axis varies k; the id is recomputed, so the
 * CSV says it is another sweep. */
elk_status elk_sweep_override(elk_sweep *s, elk_knob k, const char *value, elk_error *err);

/* Design point idx (0 <= idx < npoints); part_out (may be NULL) gets its part. */
elk_status elk_sweep_point(const elk_sweep *s, long idx, elk_point *p, int *part_out, elk_error *err);

/* Metric columns: the ten written always, then those `outputs` may add
 * (besides any knob name, which adds its resolved value). */
typedef struct {
    const char *name;
    const char *doc;   /* unit and meaning, for docs and --help */
    int always;
} elk_sweep_metric_info;
extern const elk_sweep_metric_info elk_sweep_metrics[];
extern const int elk_sweep_nmetrics;

/* Results of points shared across sweeps run in one process (elk
 * reproduce): a point already computed with the same policies is not run
 * again. Thread-safe. */
typedef struct elk_sweep_memo elk_sweep_memo;
elk_sweep_memo *elk_sweep_memo_alloc(void);
void elk_sweep_memo_free(elk_sweep_memo *m);

/* How to run a sweep. */
typedef struct {
    int jobs;                  /* worker threads (>= 1) */
    int shard, nshards;        /* run points with idx % nshards == shard */
    elk_sched_opts sched;      /* policy knobs; its cancel field is ignored */
    atomic_int *cancel;        /* polled: non-zero stops the sweep (ELK_ECANCEL); may be
                                * set from a signal handler (atomic_int is lock-free) */
    elk_plan_cache *cache;     /* shared plan cache, or NULL for a private one */
    elk_sweep_memo *memo;      /* or NULL */
    /* called from the calling thread about every 100 ms and at the end */
    void (*progress)(void *ctx, long done, long total, double elapsed_s);
    void *ctx;
} elk_sweep_opts;
void elk_sweep_opts_default(elk_sweep_opts *o);

/* What a run did. */
typedef struct {
    long points;       /* points of this shard */
    long done;         /* points finished (rows written) */
    long infeasible;   /* points written with status no-plan */
    char first_infeasible[512];
    double seconds;
    long cache_hits, cache_misses;
    long memo_hits;    /* points taken from elk_sweep_opts.memo */
} elk_sweep_stats;

/* Run the sweep and write its CSV to out, rows in point order as they
 * finish. On cancel every finished point is still written (the file stays
 * a valid CSV, possibly with gaps) and ELK_ECANCEL is returned. A point
 * whose operators fit no plan is written with status "no-plan" and empty
 * metrics; any other failure stops the sweep. */
elk_status elk_sweep_run(const elk_sweep *s, const elk_sweep_opts *o, FILE *out, elk_sweep_stats *st,
                         elk_error *err);

/* The two '#' lines and the header row of this sweep's CSV (each line ends
 * with a newline). */
void elk_sweep_csv_head(const elk_sweep *s, int shard, int nshards, char *buf, size_t n);

/* Parse a sweep CSV's identity line "# elk-sweep ...". carried: the
 * line ends " carried" (a carried sweep's shards hold whole series, not
 * every N-th point). */
typedef struct {
    char name[64];
    unsigned long long id;
    long points;
    int shard, nshards;
    int carried;
} elk_sweep_ident;
elk_status elk_sweep_ident_parse(const char *line, elk_sweep_ident *id, elk_error *err);

/* Parse the figure hints line "# figure: ..." (fills f; kind -1 if absent). */
void elk_sweep_figure_parse(const char *line, elk_sweep_figure *f);

/* Merge shard CSVs into one: checks they are shards of the same sweep
 * (same name, id, header and shard count), that together they hold every
 * point exactly once, and writes the rows in point order with the header of
 * an unsharded run, so merging gives the bytes of the unsharded CSV. */
elk_status elk_sweep_merge(const char *const *inputs, int n, FILE *out, elk_error *err);

#endif
