/* A design point: which chip and model presets, which workload, and the
 * knobs turned on top of them. The CLI flags, sweep axes and TUI knob panel
 * all go through the one knob table here, so a knob has one name, one unit
 * and one range everywhere. */
#ifndef ELK_POINT_H
#define ELK_POINT_H

#include <stddef.h>
#include <stdio.h>

#include "elk_chip.h"
#include "elk_graph.h"
#include "elk_model.h"
#include "elk_status.h"

/* Every knob, in the order the TUI's panel and --help list them:
 * X(enum suffix, flag name without --, label, unit, min, max, kind, resource)
 * with kind 0 a real, 1 an integer, 2 a word (topology, model, ...), and
 * resource 1 for a knob of which more is a resource a compiler may leave
 * unused (a bandwidth, SRAM, compute): a series of sweep points along it
 * carries Elk-Full's schedules (docs/SWEEPS.md). Adding one is
 * a row here, its field in elk_point with its get/set cases in elk_point.c,
 * and where the chip or model takes it (elk_point_resolve); the CLI flag,
 * sweep axis, saved points and the TUI panel read this table. */
#define ELK_KNOBS(X)                                                                                       \
    X(HBM_TBPS, "hbm-tbps", "HBM bandwidth", "TB/s", 0.001, 1000, 0, 1)                               \
    X(NOC_TBPS, "noc-tbps", "NoC bandwidth", "TB/s", 0.001, 100000, 0, 1)                             \
    X(NOC_SCALE, "noc-scale", "NoC scale", "x", 0.01, 100, 0, 1)                                      \
    X(LINK_GBPS, "link-gbps", "Link bandwidth", "GB/s", 0.01, 100000, 0, 1)                           \
    X(CORES, "cores", "Cores", "", 1, 4194304, 1, 0)                                                  \
    X(TOPOLOGY, "topology", "Topology", "", 0, 0, 2, 0)                                               \
    X(SRAM_KIB, "sram-kib", "SRAM per core", "KiB", 16, 1048576, 0, 1)                                \
    X(COMPUTE_SCALE, "compute-scale", "Compute scale", "x", 0.01, 100, 0, 1)                          \
    X(HBM_CONTROLLERS, "hbm-controllers", "HBM controllers", "", 1, 4096, 1, 0)                       \
    X(HBM_BROADCAST, "hbm-broadcast", "HBM broadcast", "", 0, 1, 1, 0)                                \
    X(HBM_GBPS_PER_CORE, "hbm-gbps-per-core", "HBM per core", "GB/s", 0.0001, 10000, 0, 1)            \
    X(BATCH, "batch", "Batch", "", 1, 1048576, 1, 0)                                                  \
    X(SEQ, "seq", "Sequence", "tokens", 1, 16777216, 1, 0)                                            \
    X(LAYERS, "layers", "Layers", "", 0, 10000, 1, 0)                                                 \
    X(MODEL, "model", "Model", "", 0, 0, 2, 0)                                                        \
    X(CHIP, "chip", "Chip", "", 0, 0, 2, 0)                                                           \
    X(WORKLOAD, "workload", "Workload", "", 0, 0, 2, 0)                                               \
    X(PROFILE, "profile", "Cost profile", "", 0, 0, 2, 0)                                             \
    X(MOE_PRELOAD, "moe-preload", "MoE preload", "", 0, 0, 2, 0)

typedef enum {
#define ELK_KNOB_ENUM(id, name, label, unit, lo, hi, kind, res) ELK_KNOB_##id,
    ELK_KNOBS(ELK_KNOB_ENUM)
#undef ELK_KNOB_ENUM
    ELK_KNOB_COUNT
} elk_knob;

/* Static description of a knob: flag name (without --), label, unit. */
typedef struct {
    const char *name;
    const char *label;
    const char *unit;
    double min, max;
    int is_int;   /* 1 integer, 2 word (topology, model, ...) */
    int resource; /* 1: more of it never has to hurt (ELK_KNOBS) */
} elk_knob_info;

extern const elk_knob_info elk_knobs[ELK_KNOB_COUNT];

/* Owns nothing. A value of NAN (doubles) or -1 (ints) means "as the preset". */
typedef struct {
    char chip_path[1024];
    char model_path[1024];
    elk_workload workload;
    int batch, seq, layers;
    double hbm_tbps, noc_tbps, noc_scale, link_gbps, sram_kib, compute_scale, hbm_gbps_per_core;
    int cores, topology, hbm_controllers, hbm_broadcast;
    char profile[96];      /* cost profile spec (elk_profile_parse); "" = the chip preset's */
    int moe_preload;       /* elk_moe_preload, -1 = the model preset's */
} elk_point;

/* The product's default design point: IPU-POD4, 16 TB/s, Llama2-13B decode,
 * batch 32, seq 2048. */
void elk_point_defaults(elk_point *p);
/* Find a knob by flag name ("hbm-tbps"); -1 if none. */
int elk_knob_find(const char *name);
/* Set a knob from text, range-checked. */
elk_status elk_point_set(elk_point *p, elk_knob k, const char *value, elk_error *err);
/* Set a numeric knob. */
elk_status elk_point_set_num(elk_point *p, elk_knob k, double v, elk_error *err);
/* Current value as text (preset values resolved through chip/model). */
void elk_point_format(const elk_point *p, const elk_chip *c, const elk_model *m, elk_knob k, char *buf, size_t n);

/* Load the presets and apply the knobs. */
elk_status elk_point_resolve(const elk_point *p, elk_chip *c, elk_model *m, elk_error *err);
/* The two halves of elk_point_resolve, for callers that resolve many points
 * naming the same presets (elk_sweep_load): load one preset (a missing bare
 * name lists the known ones), then apply the point's chip knobs to a copy of
 * the loaded chip. elk_point_resolve(p) == load both, then apply. */
elk_status elk_point_load_chip(const char *path, elk_chip *c, elk_error *err);
elk_status elk_point_load_model(const char *path, elk_model *m, elk_error *err);
/* The knobs that belong to the model (moe-preload) applied to m. */
void elk_point_apply_model(const elk_point *p, elk_model *m);
elk_status elk_point_apply(const elk_point *p, elk_chip *c, elk_error *err);

/* Point files: one design point as libconfig,
 *   point = { chip = "ipu-mk2"; model = "tiny"; hbm-tbps = 8.0; ... };
 * with the knobs' flag names (the same group a sweep's base takes).
 * elk_point_write writes every knob, resolved through c and m (presets by
 * name when they live under DATADIR/presets, else by absolute path; cores
 * and topology only when overridden, since setting them re-shapes a mesh).
 * elk_point_save writes it atomically (core/elk_file). elk_point_load
 * applies a file's knobs onto p (unset knobs keep p's values) and checks
 * that the point resolves; every error names file:line. */
void elk_point_write(FILE *fp, const elk_point *p, const elk_chip *c, const elk_model *m);
elk_status elk_point_save(const char *path, const elk_point *p, const elk_chip *c, const elk_model *m, elk_error *err);
elk_status elk_point_load(const char *path, elk_point *p, elk_error *err);

/* Where presets/, plots/ and sweeps/ live: $ELK_DATADIR, else the source
 * tree the binary was built from, else ".". */
const char *elk_datadir(void);
/* Resolve a preset argument: an existing path, or a bare name looked up as
 * DATADIR/presets/<kind>s/<name>.cfg. */
void elk_preset_path(const char *kind, const char *arg, char *out, size_t n);

/* Knob values from a libconfig group, each error naming file:line and the
 * field's path: a number checked against its knob's range (and integer
 * knobs against fractions); a word (model, chip, topology, workload,
 * profile) applied to p, presets found and loaded (*model, if not NULL,
 * gets the model preset a model knob names); and a whole group ({
 * hbm-tbps = 8.0; model = "tiny"; ... }, the flag names) applied to p: a
 * point file's point, a sweep's base. */
struct config_setting_t;
elk_status elk_point_check_num(const char *file, elk_error *err, int line, const char *path, elk_knob k, double v);
elk_status elk_point_set_word(const char *file, elk_error *err, int line, const char *path, elk_point *p, elk_knob k,
                              const char *v, elk_model *model);
elk_status elk_point_apply_cfg(const char *file, elk_error *err, const struct config_setting_t *g, const char *prefix,
                               elk_point *p);

#endif
