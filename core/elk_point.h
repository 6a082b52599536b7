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

typedef enum {
    ELK_KNOB_HBM_TBPS,
    ELK_KNOB_NOC_TBPS,
    ELK_KNOB_NOC_SCALE,
    ELK_KNOB_LINK_GBPS,
    ELK_KNOB_CORES,
    ELK_KNOB_TOPOLOGY,
    ELK_KNOB_SRAM_KIB,
    ELK_KNOB_COMPUTE_SCALE,
    ELK_KNOB_HBM_CONTROLLERS,
    ELK_KNOB_HBM_BROADCAST,
    ELK_KNOB_HBM_GBPS_PER_CORE,
    ELK_KNOB_BATCH,
    ELK_KNOB_SEQ,
    ELK_KNOB_LAYERS,
    ELK_KNOB_MODEL,
    ELK_KNOB_CHIP,
    ELK_KNOB_WORKLOAD,
    ELK_KNOB_PROFILE,
    ELK_KNOB_COUNT
} elk_knob;

/* Static description of a knob: flag name (without --), label, unit. */
typedef struct {
    const char *name;
    const char *label;
    const char *unit;
    double min, max;
    int is_int;   /* 1 integer, 2 word (topology, model, ...) */
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

#endif
