#include "elk_point.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <limits.h>
#include <pthread.h>

#include "elk_cfg.h"
#include "elk_file.h"

#ifndef ELK_DEFAULT_DATADIR
#define ELK_DEFAULT_DATADIR "."
#endif

const elk_knob_info elk_knobs[ELK_KNOB_COUNT] = {
#define ELK_KNOB_ROW(id, name, label, unit, lo, hi, kind, res) [ELK_KNOB_##id] = {name, label, unit, lo, hi, kind, res},
    ELK_KNOBS(ELK_KNOB_ROW)
#undef ELK_KNOB_ROW
};

/* An installed elk finds its data beside it (PREFIX/bin/elk ->
 * PREFIX/share/elk), so an install can be moved; a build-tree elk finds the
 * source tree it was built from. */
static int installed_datadir(char *out, size_t n)
{
    char exe[960];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) return 0;
    exe[len] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) return 0;
    *slash = '\0'; /* PREFIX/bin */
    slash = strrchr(exe, '/');
    if (!slash || strcmp(slash, "/bin")) return 0;
    *slash = '\0'; /* PREFIX */
    char presets[1100];
    snprintf(presets, sizeof presets, "%s/share/elk/presets", exe);
    struct stat st;
    if (stat(presets, &st) != 0 || !S_ISDIR(st.st_mode)) return 0;
    snprintf(out, n, "%s/share/elk", exe);
    return 1;
}

static char inst_dir[1024];
static int inst_found;
static pthread_once_t inst_once = PTHREAD_ONCE_INIT;
static void find_installed(void) { inst_found = installed_datadir(inst_dir, sizeof inst_dir); }

const char *elk_datadir(void)
{
    const char *e = getenv("ELK_DATADIR");
    if (e && *e) return e;
    pthread_once(&inst_once, find_installed); /* one answer for the process, thread-safe */
    if (inst_found) return inst_dir;
    struct stat st;
    if (stat(ELK_DEFAULT_DATADIR "/presets", &st) == 0) return ELK_DEFAULT_DATADIR;
    return ".";
}

void elk_preset_path(const char *kind, const char *arg, char *out, size_t n)
{
    struct stat st;
    if (strchr(arg, '/') || stat(arg, &st) == 0) {
        snprintf(out, n, "%s", arg);
        return;
    }
    snprintf(out, n, "%s/presets/%ss/%s.cfg", elk_datadir(), kind, arg);
}

void elk_point_defaults(elk_point *p)
{
    memset(p, 0, sizeof *p);
    elk_preset_path("chip", "ipu-pod4", p->chip_path, sizeof p->chip_path);
    elk_preset_path("model", "llama2-13b", p->model_path, sizeof p->model_path);
    p->workload = ELK_WL_DECODE;
    p->batch = 32;
    p->seq = 2048;
    p->layers = 0;
    p->hbm_tbps = p->noc_tbps = p->noc_scale = p->link_gbps = p->sram_kib = NAN;
    p->compute_scale = p->hbm_gbps_per_core = NAN;
    p->cores = p->topology = p->hbm_controllers = p->hbm_broadcast = -1;
    p->moe_preload = -1;
}

int elk_knob_find(const char *name)
{
    for (int k = 0; k < ELK_KNOB_COUNT; k++)
        if (strcmp(elk_knobs[k].name, name) == 0) return k;
    return -1;
}

static int word_index(const char *const *names, const char *v)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], v) == 0) return i;
    return -1;
}

elk_status elk_point_set_num(elk_point *p, elk_knob k, double v, elk_error *err)
{
    const elk_knob_info *ki = &elk_knobs[k];
    if (ki->is_int == 2) return elk_fail(err, ELK_EINVAL, "--%s takes a word, not a number", ki->name);
    if (!(v >= ki->min && v <= ki->max))
        return elk_fail(err, ELK_ERANGE, "--%s %.10g out of range (allowed %.10g .. %.10g%s%s)", ki->name, v,
                        ki->min, ki->max, *ki->unit ? " " : "", ki->unit);
    if (ki->is_int == 1 && v != floor(v))
        return elk_fail(err, ELK_ERANGE, "--%s %g: expected an integer", ki->name, v);
    switch (k) {
    case ELK_KNOB_HBM_TBPS: p->hbm_tbps = v; p->hbm_gbps_per_core = NAN; break;
    case ELK_KNOB_NOC_TBPS: p->noc_tbps = v; p->noc_scale = NAN; break;
    case ELK_KNOB_NOC_SCALE: p->noc_scale = v; p->noc_tbps = NAN; break;
    case ELK_KNOB_LINK_GBPS: p->link_gbps = v; break;
    case ELK_KNOB_CORES: p->cores = (int)v; break;
    case ELK_KNOB_SRAM_KIB: p->sram_kib = v; break;
    case ELK_KNOB_COMPUTE_SCALE: p->compute_scale = v; break;
    case ELK_KNOB_HBM_CONTROLLERS: p->hbm_controllers = (int)v; break;
    case ELK_KNOB_HBM_BROADCAST: p->hbm_broadcast = (int)v; break;
    case ELK_KNOB_HBM_GBPS_PER_CORE: p->hbm_gbps_per_core = v; p->hbm_tbps = NAN; break;
    case ELK_KNOB_BATCH: p->batch = (int)v; break;
    case ELK_KNOB_SEQ: p->seq = (int)v; break;
    case ELK_KNOB_LAYERS: p->layers = (int)v; break;
    default: return elk_fail(err, ELK_EINVAL, "--%s is not numeric", ki->name);
    }
    return ELK_OK;
}

elk_status elk_point_set(elk_point *p, elk_knob k, const char *value, elk_error *err)
{
    const elk_knob_info *ki = &elk_knobs[k];
    if (ki->is_int == 2) {
        int i;
        switch (k) {
        case ELK_KNOB_TOPOLOGY:
            if ((i = word_index(elk_topology_names, value)) < 0)
                return elk_fail(err, ELK_ERANGE, "--topology \"%s\": expected all-to-all, mesh, ring or torus", value);
            p->topology = i;
            return ELK_OK;
        case ELK_KNOB_WORKLOAD:
            if ((i = word_index(elk_workload_names, value)) < 0)
                return elk_fail(err, ELK_ERANGE, "--workload \"%s\": expected decode, train-fwd or prefill", value);
            p->workload = (elk_workload)i;
            return ELK_OK;
        case ELK_KNOB_MODEL:
            elk_preset_path("model", value, p->model_path, sizeof p->model_path);
            return ELK_OK;
        case ELK_KNOB_CHIP:
            elk_preset_path("chip", value, p->chip_path, sizeof p->chip_path);
            return ELK_OK;
        case ELK_KNOB_MOE_PRELOAD:
            if ((i = word_index(elk_moe_preload_names, value)) < 0)
                return elk_fail(err, ELK_ERANGE, "--moe-preload \"%s\": expected routed, oracle or all", value);
            p->moe_preload = i;
            return ELK_OK;
        case ELK_KNOB_PROFILE: {
            unsigned mask;
            if (strlen(value) >= sizeof p->profile)
                return elk_fail(err, ELK_ERANGE, "--profile: at most %zu characters", sizeof p->profile - 1);
            ELK_TRY(elk_profile_parse(value, &mask, err));
            snprintf(p->profile, sizeof p->profile, "%s", value);
            return ELK_OK;
        }
        default: break;
        }
    }
    if (k == ELK_KNOB_HBM_BROADCAST && (!strcmp(value, "true") || !strcmp(value, "false")))
        return elk_point_set_num(p, k, value[0] == 't', err);
    char *end;
    double v = strtod(value, &end);
    if (end == value || *end)
        return elk_fail(err, ELK_EINVAL, "--%s \"%s\": expected a number%s%s", ki->name, value,
                        *ki->unit ? " in " : "", ki->unit);
    return elk_point_set_num(p, k, v, err);
}

/* A missing preset named by a bare word: say which names exist. */
static elk_status check_preset(const char *kind, const char *path, elk_error *err)
{
    if (access(path, R_OK) == 0) return ELK_OK;
    char dir[1100], names[600] = "";
    snprintf(dir, sizeof dir, "%s/presets/%ss", elk_datadir(), kind);
    if (strncmp(path, dir, strlen(dir)) != 0)
        return elk_fail(err, ELK_EIO, "%s: cannot open: %s", path, strerror(errno));
    char list[64][64];
    int nl = 0;
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d)) && nl < 64) {
        size_t l = strlen(de->d_name);
        if (l < 5 || l > 60 || strcmp(de->d_name + l - 4, ".cfg")) continue;
        snprintf(list[nl++], sizeof list[0], "%.*s", (int)(l - 4), de->d_name);
    }
    if (d) closedir(d);
    qsort(list, (size_t)nl, sizeof list[0], (int (*)(const void *, const void *))strcmp);
    for (int k = 0; k < nl; k++) {
        size_t n = strlen(names);
        snprintf(names + n, sizeof names - n, "%s%s", k ? ", " : "", list[k]);
    }
    char want[256];
    snprintf(want, sizeof want, "%s", path + strlen(dir) + 1);
    if (strlen(want) > 4 && !strcmp(want + strlen(want) - 4, ".cfg")) want[strlen(want) - 4] = '\0';
    return elk_fail(err, ELK_EIO, "no %s preset '%s' (known: %s; or give a file path)", kind, want,
                    names[0] ? names : "none");
}

elk_status elk_point_load_chip(const char *path, elk_chip *c, elk_error *err)
{
    ELK_TRY(check_preset("chip", path, err));
    return elk_chip_load(path, c, err);
}

elk_status elk_point_load_model(const char *path, elk_model *m, elk_error *err)
{
    ELK_TRY(check_preset("model", path, err));
    return elk_model_load(path, m, err);
}

elk_status elk_point_resolve(const elk_point *p, elk_chip *c, elk_model *m, elk_error *err)
{
    ELK_TRY(check_preset("chip", p->chip_path, err));
    ELK_TRY(check_preset("model", p->model_path, err));
    ELK_TRY(elk_chip_load(p->chip_path, c, err));
    ELK_TRY(elk_model_load(p->model_path, m, err));
    elk_point_apply_model(p, m);
    return elk_point_apply(p, c, err);
}

void elk_point_apply_model(const elk_point *p, elk_model *m)
{
    if (p->moe_preload >= 0) m->moe_preload = (elk_moe_preload)p->moe_preload;
}

elk_status elk_point_apply(const elk_point *p, elk_chip *c, elk_error *err)
{
    if (p->topology >= 0) {
        c->topology = (elk_topology)p->topology;
        if (c->topology == ELK_TOPO_ALL2ALL || c->topology == ELK_TOPO_RING) c->mesh_rows = c->mesh_cols = 0;
    }
    if (p->cores > 0) ELK_TRY(elk_chip_set_cores(c, p->cores, err));
    else if (p->topology >= 0) ELK_TRY(elk_chip_set_cores(c, c->cores, err));
    if (!isnan(p->sram_kib)) {
        if (p->sram_kib <= c->reserved_kib)
            return elk_fail(err, ELK_ERANGE, "--sram-kib %g must exceed the reserved %g KiB", p->sram_kib, c->reserved_kib);
        c->sram_kib = p->sram_kib;
    }
    if (!isnan(p->link_gbps)) c->link_gbps = p->link_gbps;
    if (!isnan(p->noc_scale)) c->noc_scale = p->noc_scale;
    if (!isnan(p->compute_scale)) c->compute_scale = p->compute_scale;
    if (!isnan(p->hbm_tbps)) c->hbm_tbps = p->hbm_tbps;
    if (!isnan(p->hbm_gbps_per_core)) c->hbm_tbps = p->hbm_gbps_per_core * c->cores / 1000.0;
    if (p->hbm_controllers > 0) c->hbm_controllers = p->hbm_controllers;
    if (p->hbm_broadcast >= 0) c->hbm_broadcast = p->hbm_broadcast;
    if (p->profile[0]) ELK_TRY(elk_profile_parse(p->profile, &c->profile, err));
    ELK_TRY(elk_chip_validate(c, err));
    if (!isnan(p->noc_tbps)) {
        /* NoC TB/s names the aggregate injection bandwidth of the machine */
        double base = c->cores * c->link_gbps / 1e3;
        c->noc_scale = p->noc_tbps / base;
    }
    return ELK_OK;
}

void elk_point_format(const elk_point *p, const elk_chip *c, const elk_model *m, elk_knob k, char *buf, size_t n)
{
    switch (k) {
    case ELK_KNOB_HBM_TBPS: snprintf(buf, n, "%.4g", c->hbm_tbps); break;
    case ELK_KNOB_NOC_TBPS: snprintf(buf, n, "%.4g", elk_chip_noc_bytes_per_cycle(c) * c->clock_ghz / 1e3); break;
    case ELK_KNOB_NOC_SCALE: snprintf(buf, n, "%.4g", c->noc_scale); break;
    case ELK_KNOB_LINK_GBPS: snprintf(buf, n, "%.4g", c->link_gbps); break;
    case ELK_KNOB_CORES: snprintf(buf, n, "%d", c->cores); break;
    case ELK_KNOB_TOPOLOGY: snprintf(buf, n, "%s", elk_topology_names[c->topology]); break;
    case ELK_KNOB_SRAM_KIB: snprintf(buf, n, "%.4g", c->sram_kib); break;
    case ELK_KNOB_COMPUTE_SCALE: snprintf(buf, n, "%.4g", c->compute_scale); break;
    case ELK_KNOB_HBM_CONTROLLERS: snprintf(buf, n, "%d", c->hbm_controllers); break;
    case ELK_KNOB_HBM_BROADCAST: snprintf(buf, n, "%s", c->hbm_broadcast ? "true" : "false"); break;
    case ELK_KNOB_HBM_GBPS_PER_CORE: snprintf(buf, n, "%.4g", c->hbm_tbps * 1000.0 / c->cores); break;
    case ELK_KNOB_BATCH: snprintf(buf, n, "%d", p->batch); break;
    case ELK_KNOB_SEQ: snprintf(buf, n, "%d", p->seq); break;
    case ELK_KNOB_LAYERS: snprintf(buf, n, "%d", p->layers ? p->layers : m->layers); break;
    case ELK_KNOB_MODEL: snprintf(buf, n, "%s", m->name); break;
    case ELK_KNOB_CHIP: snprintf(buf, n, "%s", c->name); break;
    case ELK_KNOB_WORKLOAD: snprintf(buf, n, "%s", elk_workload_names[p->workload]); break;
    case ELK_KNOB_PROFILE: elk_profile_format(c->profile, buf, n); break;
    case ELK_KNOB_MOE_PRELOAD:
        snprintf(buf, n, "%s", p->moe_preload >= 0 ? elk_moe_preload_names[p->moe_preload] : elk_moe_preload_names[m->moe_preload]);
        break;
    default: snprintf(buf, n, "?"); break;
    }
}

/* ---- point files ---- */

/* The shortest decimal that reads back as v (so a saved point is exact). */
static void fmt_exact(double v, char *buf, size_t n)
{
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    /* libconfig reads "4" as an integer; every knob accepts one, but a
     * float literal says what the value is */
    if (!strpbrk(buf, ".eEn")) {
        size_t l = strlen(buf);
        if (l + 2 < n) memcpy(buf + l, ".0", 3);
    }
}

/* A preset by name when it is DATADIR/presets/<kind>s/<name>.cfg, so the
 * file works from another checkout; else by absolute path. */
static void preset_ref(const char *kind, const char *path, char *out, size_t n)
{
    char dir[1200], real[PATH_MAX], want[1600];
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(dir, sizeof dir, "%.1100s/presets/%.16ss", elk_datadir(), kind);
    size_t l = strlen(b);
    if (l > 4 && !strcmp(b + l - 4, ".cfg")) {
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(l - 4), b);
        snprintf(want, sizeof want, "%.1200s/%.255s.cfg", dir, name);
        char a[PATH_MAX], c[PATH_MAX];
        if (realpath(want, a) && realpath(path, c) && !strcmp(a, c)) {
            snprintf(out, n, "%s", name);
            return;
        }
    }
    if (realpath(path, real)) snprintf(out, n, "%s", real);
    else snprintf(out, n, "%s", path);
}

static void put_str(FILE *fp, const char *k, const char *v)
{
    fprintf(fp, "  %s = \"", k);
    for (const char *q = v; *q; q++) {
        if (*q == '"' || *q == '\\') fputc('\\', fp);
        fputc(*q, fp);
    }
    fprintf(fp, "\";\n");
}

void elk_point_write(FILE *fp, const elk_point *p, const elk_chip *c, const elk_model *m)
{
    char ref[PATH_MAX], v[64];
    fprintf(fp, "# An Elk Workbench design point: elk run --point FILE, elk tui --point FILE,\n"
                "# elk validate FILE. Knobs have the command-line flags' names and units.\n");
    fprintf(fp, "point = {\n");
    preset_ref("chip", p->chip_path, ref, sizeof ref);
    put_str(fp, "chip", ref);
    preset_ref("model", p->model_path, ref, sizeof ref);
    put_str(fp, "model", ref);
    put_str(fp, "workload", elk_workload_names[p->workload]);
    fprintf(fp, "  batch = %d;\n  seq = %d;\n  layers = %d;\n", p->batch, p->seq, p->layers ? p->layers : m->layers);
    fmt_exact(c->hbm_tbps, v, sizeof v);
    fprintf(fp, "  hbm-tbps = %s;\n", v);
    fprintf(fp, "  hbm-controllers = %d;\n  hbm-broadcast = %s;\n", c->hbm_controllers, c->hbm_broadcast ? "true" : "false");
    fmt_exact(c->link_gbps, v, sizeof v);
    fprintf(fp, "  link-gbps = %s;\n", v);
    fmt_exact(c->noc_scale, v, sizeof v);
    fprintf(fp, "  noc-scale = %s;\n", v);
    fmt_exact(c->sram_kib, v, sizeof v);
    fprintf(fp, "  sram-kib = %s;\n", v);
    fmt_exact(c->compute_scale, v, sizeof v);
    fprintf(fp, "  compute-scale = %s;\n", v);
    fprintf(fp, "  %scores = %d;%s\n", p->cores > 0 ? "" : "# ", c->cores, p->cores > 0 ? "" : "  (the chip preset's)");
    fprintf(fp, "  %stopology = \"%s\";%s\n", p->topology >= 0 ? "" : "# ", elk_topology_names[c->topology],
            p->topology >= 0 ? "" : "  (the chip preset's)");
    elk_profile_format(c->profile, v, sizeof v);
    put_str(fp, "profile", v);
    if (m->experts)
        put_str(fp, "moe-preload", elk_moe_preload_names[p->moe_preload >= 0 ? p->moe_preload : (int)m->moe_preload]);
    fprintf(fp, "};\n");
}

elk_status elk_point_save(const char *path, const elk_point *p, const elk_chip *c, const elk_model *m, elk_error *err)
{
    elk_file f;
    ELK_TRY(elk_file_open(&f, path, err));
    elk_point_write(f.fp, p, c, m);
    return elk_file_commit(&f, err);
}

/* ------------------------------------------------------------------ */
/* Knob values from a libconfig group (a point file's point, a sweep's   */
/* base and axes), each error naming file:line and the field             */

typedef struct {
    const char *file;
    elk_error *err;
} ctx_t;

static int line_of(const config_setting_t *s) { return config_setting_source_line(s); }

static void fmt_g(char *b, size_t n, double v)
{
    if (v == floor(v) && fabs(v) < 1e15) snprintf(b, n, "%.0f", v);
    else snprintf(b, n, "%g", v);
}

/* Check a numeric value for a knob; message names file:line and the path. */
static elk_status check_knob_num(ctx_t *c, int line, const char *path, elk_knob k, double v)
{
    const elk_knob_info *ki = &elk_knobs[k];
    if (!(v >= ki->min && v <= ki->max)) {
        char a[32], lo[32], hi[32];
        fmt_g(a, sizeof a, v);
        fmt_g(lo, sizeof lo, ki->min);
        fmt_g(hi, sizeof hi, ki->max);
        return elk_fail(c->err, ELK_ERANGE, "%s:%d: field '%s': value %s out of range for %s (allowed %s .. %s%s%s)",
                        c->file, line, path, a, ki->name, lo, hi, *ki->unit ? " " : "", ki->unit);
    }
    if (ki->is_int == 1 && v != floor(v))
        return elk_fail(c->err, ELK_ERANGE, "%s:%d: field '%s': %s takes an integer, not %g", c->file, line, path,
                        ki->name, v);
    return ELK_OK;
}

/* Apply a word value (model, chip, topology, workload) with a located error;
 * presets must exist and load. *model, if not NULL, gets the model preset
 * loaded for the model knob (untouched for the others). */
static elk_status set_word(ctx_t *c, int line, const char *path, elk_point *p, elk_knob k, const char *v,
                           elk_model *model)
{
    elk_error e;
    if (elk_point_set(p, k, v, &e) != ELK_OK)
        return elk_fail(c->err, ELK_ERANGE, "%s:%d: field '%s': %s", c->file, line, path, e.msg);
    if (k == ELK_KNOB_MODEL || k == ELK_KNOB_CHIP) {
        const char *fp = k == ELK_KNOB_MODEL ? p->model_path : p->chip_path;
        /* stat, not fopen: opening a FIFO blocks until a writer comes;
         * the loader's own check refuses what is not a regular file */
        struct stat sb;
        if (stat(fp, &sb) != 0)
            return elk_fail(c->err, ELK_EIO, "%s:%d: field '%s': %s preset \"%s\" not found (looked for %s)", c->file,
                            line, path, elk_knobs[k].name, v, fp);
        elk_status st;
        if (k == ELK_KNOB_MODEL) {
            elk_model m;
            st = elk_model_load(fp, &m, &e);
            if (st == ELK_OK && model) *model = m;
        } else {
            elk_chip ch;
            st = elk_chip_load(fp, &ch, &e);
        }
        if (st != ELK_OK)
            return elk_fail(c->err, st, "%s:%d: field '%s': %s preset \"%s\" is invalid: %s", c->file, line, path,
                            elk_knobs[k].name, v, e.msg);
    }
    return ELK_OK;
}

/* base = { knob = value; ... } applied onto p. */
static elk_status parse_base(ctx_t *c, const config_setting_t *g, const char *prefix, elk_point *p)
{
    ELK_TRY(elk_cfg_expect(c->file, c->err, g, prefix, CONFIG_TYPE_GROUP, CONFIG_TYPE_GROUP, "a group { knob = value; ... }"));
    int n = config_setting_length(g);
    int seen_hbm = 0, seen_hbmpc = 0, seen_noc = 0, seen_nocs = 0, layers_line = 0;
    elk_model model; /* the base's own model preset, if it names one */
    model.layers = 0;
    for (int i = 0; i < n; i++) {
        const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
        const char *name = config_setting_name(s);
        char path[256];
        snprintf(path, sizeof path, "%s.%s", prefix, name);
        int k = elk_knob_find(name);
        if (k < 0) {
            return elk_fail(c->err, ELK_EUNKNOWN, "%s:%d: unknown knob '%s' in '%s' (knobs: %s%s)", c->file,
                            line_of(s), name, prefix, "hbm-tbps, noc-tbps, noc-scale, link-gbps, cores, topology, ",
                            "sram-kib, compute-scale, hbm-controllers, hbm-broadcast, hbm-gbps-per-core, batch, seq, "
                            "layers, model, chip, workload, profile");
        }
        const elk_knob_info *ki = &elk_knobs[k];
        if (ki->is_int == 2) {
            ELK_TRY(elk_cfg_expect(c->file, c->err, s, path, CONFIG_TYPE_STRING, CONFIG_TYPE_STRING, "a string"));
            ELK_TRY(set_word(c, line_of(s), path, p, (elk_knob)k, config_setting_get_string(s), &model));
            continue;
        }
        double v;
        if (k == ELK_KNOB_HBM_BROADCAST && config_setting_type(s) == CONFIG_TYPE_BOOL) {
            v = config_setting_get_bool(s);
        } else {
            if (!elk_cfg_is_num(s))
                return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s': expected a number%s%s, found %s", c->file,
                                line_of(s), path, *ki->unit ? " in " : "", ki->unit, elk_cfg_type_name(config_setting_type(s)));
            v = elk_cfg_num(s);
        }
        ELK_TRY(check_knob_num(c, line_of(s), path, (elk_knob)k, v));
        elk_error e;
        if (elk_point_set_num(p, (elk_knob)k, v, &e) != ELK_OK)
            return elk_fail(c->err, ELK_ERANGE, "%s:%d: field '%s': %s", c->file, line_of(s), path, e.msg);
        if (k == ELK_KNOB_LAYERS) layers_line = line_of(s);
        seen_hbm |= k == ELK_KNOB_HBM_TBPS;
        seen_hbmpc |= k == ELK_KNOB_HBM_GBPS_PER_CORE;
        seen_noc |= k == ELK_KNOB_NOC_TBPS;
        seen_nocs |= k == ELK_KNOB_NOC_SCALE;
        if ((seen_hbm && seen_hbmpc) || (seen_noc && seen_nocs))
            return elk_fail(c->err, ELK_EFIELD, "%s:%d: field '%s': set only one of %s", c->file, line_of(s), path,
                            seen_hbm && seen_hbmpc ? "hbm-tbps and hbm-gbps-per-core" : "noc-tbps and noc-scale");
    }
    /* layers beyond the model's own count: every run of the point would
     * fail, without this file's line */
    if (layers_line && model.layers && p->layers > model.layers)
        return elk_fail(c->err, ELK_ERANGE, "%s:%d: field '%s.layers': %d out of range (1 .. %d for %s)", c->file,
                        layers_line, prefix, p->layers, model.layers, model.name);
    return ELK_OK;
}


elk_status elk_point_check_num(const char *file, elk_error *err, int line, const char *path, elk_knob k, double v)
{
    ctx_t c = {file, err};
    return check_knob_num(&c, line, path, k, v);
}

elk_status elk_point_set_word(const char *file, elk_error *err, int line, const char *path, elk_point *p, elk_knob k,
                              const char *v, elk_model *model)
{
    ctx_t c = {file, err};
    return set_word(&c, line, path, p, k, v, model);
}

elk_status elk_point_apply_cfg(const char *file, elk_error *err, const config_setting_t *g, const char *prefix,
                               elk_point *p)
{
    ctx_t c = {file, err};
    return parse_base(&c, g, prefix, p);
}

elk_status elk_point_load(const char *path, elk_point *p, elk_error *err)
{
    config_t cfg;
    ELK_TRY(elk_cfg_read(&cfg, path, err));
    config_setting_t *top = config_root_setting(&cfg), *root = NULL;
    elk_status st = ELK_OK;
    for (int i = 0; i < config_setting_length(top) && st == ELK_OK; i++) {
        config_setting_t *s = config_setting_get_elem(top, (unsigned)i);
        if (!strcmp(config_setting_name(s), "point")) root = s;
        else
            st = elk_fail(err, ELK_EUNKNOWN, "%s:%d: unknown top-level setting '%s' (expected 'point = { ... };')", path,
                          config_setting_source_line(s), config_setting_name(s));
    }
    if (st == ELK_OK && !root) st = elk_fail(err, ELK_EMISSING, "%s:1: missing required group 'point = { ... };'", path);
    elk_point q = *p;
    if (st == ELK_OK) st = elk_point_apply_cfg(path, err, root, "point", &q);
    if (st == ELK_OK) {
        /* the knobs together must make a machine (SRAM above the reserve,
         * a mesh that fits the cores, ...) */
        elk_chip c;
        elk_model m;
        elk_error e;
        if (elk_point_resolve(&q, &c, &m, &e) != ELK_OK)
            st = elk_fail(err, e.code, "%s:%d: the point does not resolve: %s", path, config_setting_source_line(root), e.msg);
    }
    config_destroy(&cfg);
    if (st == ELK_OK) *p = q;
    return st;
}
