/* core/elk_sweep and core/elk_csv: every shipped sweep loads with the
 * paper's grid sizes; a table of bad sweep files, each of which must fail
 * naming file:line and the field; axis expansion (cross, zip, ranges,
 * parts); CSV formatting and parsing; and runs on the tiny model: the same
 * bytes for 1 and 2 threads, shards merged back to the unsharded bytes,
 * infeasible points written as no-plan, and cancellation. */
#define _GNU_SOURCE
#include <glob.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>

#include "elk_csv.h"
#include "elk_sweep.h"
#include "elk_sweep_int.h" /* the series (elk_sweep_carry.c), tested here */
#include "elk_test.h"

static char scratch[1024];

static void setup(void) { scratch_new(scratch, sizeof scratch); }
static void teardown(void) { scratch_free(scratch); }

/* Write text to scratch/name; returns the path in a static buffer. */
static const char *write_file(const char *name, const char *text)
{
    static char path[1200];
    snprintf(path, sizeof path, "%s/%s", scratch, name);
    FILE *fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    fputs(text, fp);
    fclose(fp);
    return path;
}

static long points_of(const char *rel)
{
    char path[1024];
    elk_sweep s;
    elk_error err;
    ck_assert_msg(elk_sweep_load(src_path(path, sizeof path, rel), &s, &err) == ELK_OK, "%s", err.msg);
    long n = s.npoints;
    elk_sweep_free(&s);
    return n;
}

/* The grids of the paper's section 6 and docs/ARTIFACT.md. */
START_TEST(paper_sweeps_load)
{
    ck_assert_int_eq(points_of("sweeps/fig17.cfg"), 24);
    ck_assert_int_eq(points_of("sweeps/fig18.cfg"), 4);
    ck_assert_int_eq(points_of("sweeps/fig19.cfg"), 104);
    ck_assert_int_eq(points_of("sweeps/fig20.cfg"), 11);
    ck_assert_int_eq(points_of("sweeps/fig21.cfg"), 136);
    ck_assert_int_eq(points_of("sweeps/fig22.cfg"), 32);
    ck_assert_int_eq(points_of("sweeps/fig23.cfg"), 52);
    ck_assert_int_eq(points_of("sweeps/fig24.cfg"), 32);
}
END_TEST

/* Globbed: every sweep shipped (teaching demos included) loads. */
START_TEST(every_sweep_loads)
{
    char pattern[1024];
    glob_t gl;
    ck_assert_int_eq(glob(src_path(pattern, sizeof pattern, "sweeps/*.cfg"), 0, NULL, &gl), 0);
    ck_assert_uint_ge(gl.gl_pathc, 10);
    for (size_t i = 0; i < gl.gl_pathc; i++) {
        elk_sweep s;
        elk_error err;
        ck_assert_msg(elk_sweep_load(gl.gl_pathv[i], &s, &err) == ELK_OK, "%s", err.msg);
        ck_assert(s.npoints >= 1);
        ck_assert(s.fig.kind >= 0);
        elk_sweep_free(&s);
    }
    globfree(&gl);
}
END_TEST

/* Fig. 23's grid: LLM cores at 4000/1472 GB/s per core give 6..14 TB/s. */
START_TEST(fig23_points)
{
    char path[1024];
    elk_sweep s;
    elk_error err;
    ck_assert_msg(elk_sweep_load(src_path(path, sizeof path, "sweeps/fig23.cfg"), &s, &err) == ELK_OK, "%s",
                  err.msg);
    ck_assert_int_eq(s.nparts, 2);
    elk_point p;
    int part;
    ck_assert_int_eq(elk_sweep_point(&s, 0, &p, &part, &err), ELK_OK);
    ck_assert_int_eq(part, 0);
    ck_assert_int_eq(p.cores, 2208);
    ck_assert_double_eq_tol(p.hbm_gbps_per_core * p.cores / 1000.0, 6.0, 1e-9);
    ck_assert_int_eq(elk_sweep_point(&s, 19, &p, &part, &err), ELK_OK);
    ck_assert_int_eq(p.cores, 5152);
    ck_assert_double_eq_tol(p.hbm_gbps_per_core * p.cores / 1000.0, 14.0, 1e-9);
    ck_assert_int_eq(elk_sweep_point(&s, 40, &p, &part, &err), ELK_OK); /* DiT, all-to-all, 552 cores */
    ck_assert_int_eq(part, 1);
    ck_assert_int_eq(p.cores, 552);
    ck_assert_ptr_nonnull(strstr(p.model_path, "dit-xl"));
    ck_assert_ptr_nonnull(strstr(p.chip_path, "ipu-mk2"));
    ck_assert_int_eq(elk_sweep_point(&s, 51, &p, &part, &err), ELK_OK); /* DiT, mesh, 1472 cores */
    ck_assert_int_eq(p.cores, 1472);
    ck_assert_int_eq(p.topology, 1);
    elk_sweep_free(&s);
}
END_TEST

/* Each bad file must fail with its file:line and the field it names. */
static const struct {
    const char *name, *text, *where, *what;
} bad[] = {
    {"syntax", "sweep = {\n  name = \"x\";\n  base = { cores = ; };\n};\n", ":3: syntax error", ""},
    {"top", "sweep = { name = \"x\"; };\nsweeps = 1;\n", ":2: unknown top-level setting 'sweeps'", ""},
    {"unknown-field", "sweep = {\n  name = \"x\";\n  axis = ();\n};\n", ":3: unknown field 'sweep.axis'",
     "known fields: name"},
    {"no-name", "sweep = {\n  base = { cores = 64; };\n};\n", ":1: missing required field 'sweep.name'", ""},
    {"bad-name", "sweep = {\n  name = \"my sweep\";\n};\n", ":2: field 'sweep.name'", "letters, digits"},
    {"unknown-knob", "sweep = {\n  name = \"x\";\n  base = {\n    hbm-tbs = 4.0;\n  };\n};\n",
     ":4: unknown knob 'hbm-tbs' in 'sweep.base'", "hbm-tbps"},
    {"base-range", "sweep = {\n  name = \"x\";\n  base = { hbm-tbps = 2000.0; };\n};\n",
     ":3: field 'sweep.base.hbm-tbps': value 2000 out of range", "TB/s"},
    {"base-int", "sweep = {\n  name = \"x\";\n  base = { chip = \"ipu-mk2\"; model = \"tiny\";\n  batch = 3.5; };\n};\n",
     ":4: field 'sweep.base.batch'", "integer"},
    {"base-type", "sweep = {\n  name = \"x\";\n  base = { topology = 2; };\n};\n",
     ":3: field 'sweep.base.topology': expected a string", ""},
    {"bad-topology", "sweep = {\n  name = \"x\";\n  base = { topology = \"hypercube\"; };\n};\n",
     ":3: field 'sweep.base.topology'", "mesh"},
    {"no-model", "sweep = {\n  name = \"x\";\n\n  base = { model = \"llama9\"; };\n};\n",
     ":4: field 'sweep.base.model': model preset \"llama9\" not found", ""},
    {"both-hbm", "sweep = {\n  name = \"x\";\n  base = { hbm-tbps = 4.0;\n    hbm-gbps-per-core = 2.0; };\n};\n",
     ":4: field 'sweep.base.hbm-gbps-per-core': set only one", ""},
    {"axes-type", "sweep = {\n  name = \"x\";\n  axes = { knob = \"cores\"; };\n};\n",
     ":3: field 'sweep.axes': expected a list", ""},
    {"axis-knob", "sweep = {\n  name = \"x\";\n  axes = (\n    { knob = \"hbm\"; values = [1.0]; }\n  );\n};\n",
     ":4: field 'sweep.axes.[0].knob': \"hbm\" is not a knob", ""},
    {"axis-field",
     "sweep = {\n  name = \"x\";\n  axes = (\n    { knob = \"cores\";\n      value = [64]; }\n  );\n};\n",
     ":5: unknown field 'sweep.axes.[0].value'", "values"},
    {"axis-range",
     "sweep = {\n  name = \"x\";\n  axes = (\n    { knob = \"hbm-tbps\";\n      values = [4.0, -1.0]; }\n  );\n};\n",
     ":5: field 'sweep.axes.[0].values.[1]': value -1 out of range for hbm-tbps", ""},
    {"axis-missing", "sweep = {\n  name = \"x\";\n  axes = (\n    { knob = \"cores\"; }\n  );\n};\n",
     ":4: missing required field 'sweep.axes.[0].values'", ""},
    {"axis-both",
     "sweep = {\n  name = \"x\";\n  axes = (\n    { knob = \"cores\"; values = [64];\n      from = 1.0; to = 2.0; step = "
     "1.0; }\n  );\n};\n",
     ":4: field 'sweep.axes.[0]': give either 'values' or 'from'", ""},
    {"axis-step",
     "sweep = {\n  name = \"x\";\n  axes = (\n    { knob = \"hbm-tbps\"; from = 4.0; to = 8.0;\n      step = 0.0; }\n  "
     ");\n};\n",
     ":5: field 'sweep.axes.[0].step': step must be positive", ""},
    {"axis-words", "sweep = {\n  name = \"x\";\n  axes = (\n    { knob = \"model\";\n      values = [1, 2]; }\n  );\n};\n",
     ":5: field 'sweep.axes.[0].values.[0]': model takes words", ""},
    {"axis-dup",
     "sweep = {\n  name = \"x\";\n  axes = (\n    { knob = \"batch\"; values = [1]; },\n    { knob = \"batch\"; values = "
     "[2]; }\n  );\n};\n",
     ":5: field 'sweep.axes.[1].knob': batch is already an axis (line 4)", ""},
    {"zip",
     "sweep = {\n  name = \"x\";\n  mode = \"zip\";\n  axes = (\n    { knob = \"batch\"; values = [1, 2]; },\n    { knob = "
     "\"seq\"; values = [64, 128, 256]; }\n  );\n};\n",
     ":6: field 'sweep.axes.[1]': mode \"zip\" needs axes of equal length", ""},
    {"mode", "sweep = {\n  name = \"x\";\n  mode = \"grid\";\n};\n", ":3: field 'sweep.mode'", "\"zip\""},
    {"policy", "sweep = {\n  name = \"x\";\n  policies = [\"basic\",\n    \"elk-fast\"];\n};\n",
     ":4: field 'sweep.policies.[1]': \"elk-fast\" is not a policy", ""},
    {"output", "sweep = {\n  name = \"x\";\n  outputs = [\"latency_us\"];\n};\n",
     ":3: field 'sweep.outputs.[0]': \"latency_us\" is not an output", "peak_matmul_tflops"},
    {"fig-kind", "sweep = {\n  name = \"x\";\n  figure = {\n    kind = \"pie\"; };\n};\n",
     ":4: field 'sweep.figure.kind': \"pie\" is not one of", "\"lines\""},
    {"fig-field", "sweep = {\n  name = \"x\";\n  figure = { kind = \"lines\";\n    colour = \"red\"; };\n};\n",
     ":4: unknown field 'sweep.figure.colour'", ""},
    {"fig-col", "sweep = {\n  name = \"x\";\n  figure = { kind = \"lines\";\n    x = \"hbm_tbs\"; };\n};\n",
     ":4: field 'sweep.figure.x': no column 'hbm_tbs'", "latency_ms"},
    {"part-axis",
     "sweep = {\n  name = \"x\";\n  axes = ( { knob = \"cores\"; values = [64]; } );\n  parts = (\n    { name = \"a\"; "
     "axes = (\n      { knob = \"cores\"; values = [32]; } ); }\n  );\n};\n",
     ":6: field 'sweep.parts.[0].axes.[0].knob': cores is already a top-level axis", ""},
    {"part-base",
     "sweep = {\n  name = \"x\";\n  axes = ( { knob = \"cores\"; values = [64]; } );\n  parts = (\n    { name = \"a\";\n"
     "      base = { cores = 32; }; }\n  );\n};\n",
     ":6: field 'sweep.parts.[0].base.cores': cores is a top-level axis (line 3)", ""},
    {"part-name",
     "sweep = {\n  name = \"x\";\n  parts = ( { name = \"a\"; },\n    { name = \"a\"; } );\n};\n",
     ":4: field 'sweep.parts.[1].name': part \"a\" is defined twice", ""},
};

START_TEST(bad_sweeps)
{
    const char *path = write_file("bad.cfg", bad[_i].text);
    elk_sweep s;
    elk_error err;
    elk_status st = elk_sweep_load(path, &s, &err);
    ck_assert_msg(st != ELK_OK, "%s: loaded but should fail", bad[_i].name);
    ck_assert_msg(strstr(err.msg, path) == err.msg, "%s: message does not start with the file: %s", bad[_i].name,
                  err.msg);
    ck_assert_contains(err.msg, bad[_i].where);
    ck_assert_contains(err.msg, bad[_i].what);
}
END_TEST

static const char *tiny_sweep =
    "sweep = {\n"
    "  name = \"tiny\";\n"
    "  base = { chip = \"ipu-mk2\"; model = \"tiny\"; cores = 64; batch = 4; seq = 256; };\n"
    "  axes = (\n"
    "    { knob = \"noc-scale\"; values = [1.0, 2.0]; },\n"
    "    { knob = \"hbm-tbps\"; from = 0.05; to = 0.25; step = 0.1; }\n"
    "  );\n"
    "  outputs = [\"noc_tbps\", \"orders_tried\", \"gflop\"];\n"
    "  figure = { kind = \"lines\"; x = \"hbm_tbps\"; col = \"noc_scale\"; };\n"
    "};\n";

/* A sweep's series: the points that differ only along resource axes, in
 * increasing value order whatever order the file lists them in. batch (not
 * a resource) x hbm-tbps [0.2, 0.1, 0.05] x sram-kib [600, 500]: point idx
 * = batch_i x 6 + hbm_i x 2 + sram_i, so series 0 runs (hbm 0.05, sram 500)
 * = 5, 4, 3, 2, 1, 0 and series 1 the same plus 6. Position 3 (hbm 0.1,
 * sram 600): below it along hbm is position 1, along sram position 2. */
START_TEST(series_order)
{
    static const char *cfg = "sweep = {\n"
                             "  name = \"series\";\n"
                             "  base = { chip = \"ipu-mk2\"; model = \"tiny\"; cores = 64; seq = 256; };\n"
                             "  axes = (\n"
                             "    { knob = \"batch\"; values = [4, 8]; },\n"
                             "    { knob = \"hbm-tbps\"; values = [0.2, 0.1, 0.05]; },\n"
                             "    { knob = \"sram-kib\"; values = [600.0, 500.0]; }\n"
                             "  );\n"
                             "};\n";
    elk_sweep s;
    elk_error err;
    ck_assert_msg(elk_sweep_load(write_file("series.cfg", cfg), &s, &err) == ELK_OK, "%s", err.msg);
    ck_assert_int_eq(s.carried, 1);
    elk_sweep_series ss;
    ck_assert_int_eq(elk_sweep_series_build(&s, &ss, &err), ELK_OK);
    ck_assert_int_eq(ss.nseries, 2);
    static const long want[12] = {5, 4, 3, 2, 1, 0, 11, 10, 9, 8, 7, 6};
    for (int q = 0; q < 12; q++) ck_assert_int_eq(ss.pts[q], want[q]);
    ck_assert_int_eq(ss.first[1], 6);
    ck_assert_int_eq(elk_sweep_series_lower(&ss, 1, 3, 0), 1);
    ck_assert_int_eq(elk_sweep_series_lower(&ss, 1, 3, 1), 2);
    ck_assert_int_eq(elk_sweep_series_lower(&ss, 1, 0, 0), -1);
    elk_sweep_series_free(&ss);
    elk_sweep_free(&s);
}
END_TEST

/* Cross order: the first axis varies slowest; ranges print as typed. */
START_TEST(expand_cross)
{
    elk_sweep s;
    elk_error err;
    ck_assert_msg(elk_sweep_load(write_file("t.cfg", tiny_sweep), &s, &err) == ELK_OK, "%s", err.msg);
    ck_assert_int_eq(s.npoints, 6);
    double want[6][2] = {{1, 0.05}, {1, 0.15}, {1, 0.25}, {2, 0.05}, {2, 0.15}, {2, 0.25}};
    for (int i = 0; i < 6; i++) {
        elk_point p;
        ck_assert_int_eq(elk_sweep_point(&s, i, &p, NULL, &err), ELK_OK);
        ck_assert_double_eq(p.noc_scale, want[i][0]);
        ck_assert_double_eq(p.hbm_tbps, want[i][1]);
        ck_assert_int_eq(p.cores, 64);
    }
    char head[4096];
    elk_sweep_csv_head(&s, 0, 1, head, sizeof head);
    ck_assert_contains(head, "# elk-sweep name=tiny id=");
    /* two resource axes and Elk-Full: carried, one series of 6 */
    ck_assert_contains(head, "points=6 shard=0/1 carried\n# figure: kind=lines; x=hbm_tbps;");
    ck_assert_contains(head, "\npoint,noc_scale,hbm_tbps,model,chip,topology,cores,batch,seq,profile,policy,status,latency_ms,"
                             "pct_ideal,exec_ms,overlap_ms,preload_ms,noc_stall_ms,dist_ms,hbm_util,noc_util,tflops,"
                             "pointwise_ms,carried_from,noc_tbps,orders_tried,gflop\n");
    ck_assert_int_eq(s.carried, 1);
    elk_sweep_series ss;
    ck_assert_int_eq(elk_sweep_series_build(&s, &ss, &err), ELK_OK);
    ck_assert_int_eq(ss.nseries, 1);
    for (int q = 0; q < 6; q++) ck_assert_int_eq(ss.pts[q], q); /* noc-scale slowest, both ascending */
    ck_assert_int_eq(elk_sweep_series_lower(&ss, 0, 4, 0), 1);  /* noc-scale 2 -> 1 at hbm 0.15 */
    ck_assert_int_eq(elk_sweep_series_lower(&ss, 0, 4, 1), 3);  /* hbm 0.15 -> 0.05 at noc-scale 2 */
    ck_assert_int_eq(elk_sweep_series_lower(&ss, 0, 3, 1), -1);
    elk_sweep_series_free(&ss);
    ck_assert_int_eq(elk_sweep_set_pointwise(&s, &err), ELK_OK);
    elk_sweep_csv_head(&s, 0, 1, head, sizeof head);
    ck_assert_contains(head, "points=6 shard=0/1\n");
    ck_assert_contains(head, ",tflops,noc_tbps,orders_tried,gflop\n");
    elk_sweep_free(&s);
}
END_TEST

START_TEST(expand_zip_and_parts)
{
    const char *text = "sweep = {\n  name = \"z\";\n  base = { chip = \"ipu-mk2\"; model = \"tiny\"; };\n"
                       "  mode = \"zip\";\n"
                       "  axes = ( { knob = \"cores\"; values = [64, 128]; }, { knob = \"batch\"; values = [2, 4]; } );\n"
                       "  parts = ( { name = \"a\"; base = { seq = 128; }; },\n"
                       "            { name = \"b\"; base = { seq = 256; };\n"
                       "              axes = ( { knob = \"topology\"; values = [\"all-to-all\", \"mesh\"]; } ); } );\n"
                       "};\n";
    elk_sweep s;
    elk_error err;
    ck_assert_msg(elk_sweep_load(write_file("z.cfg", text), &s, &err) == ELK_OK, "%s", err.msg);
    ck_assert_int_eq(s.npoints, 2 + 4);
    struct {
        int cores, batch, seq, topo, part;
    } want[6] = {{64, 2, 128, -1, 0}, {128, 4, 128, -1, 0}, {64, 2, 256, 0, 1},
                 {64, 2, 256, 1, 1},  {128, 4, 256, 0, 1},  {128, 4, 256, 1, 1}};
    for (int i = 0; i < 6; i++) {
        elk_point p;
        int part;
        ck_assert_int_eq(elk_sweep_point(&s, i, &p, &part, &err), ELK_OK);
        ck_assert_int_eq(p.cores, want[i].cores);
        ck_assert_int_eq(p.batch, want[i].batch);
        ck_assert_int_eq(p.seq, want[i].seq);
        ck_assert_int_eq(p.topology, want[i].topo);
        ck_assert_int_eq(part, want[i].part);
    }
    ck_assert_int_ne(elk_sweep_point(&s, 6, &(elk_point){0}, NULL, &err), ELK_OK);
    char head[4096];
    elk_sweep_csv_head(&s, 0, 1, head, sizeof head);
    ck_assert_contains(head, "\npoint,part,cores,batch,topology,model,chip,seq,profile,policy,");
    elk_sweep_free(&s);
}
END_TEST

START_TEST(csv_format)
{
    char b[64];
    elk_csv_fmt(b, sizeof b, -0.0);
    ck_assert_str_eq(b, "0");
    elk_csv_fmt(b, sizeof b, NAN);
    ck_assert_str_eq(b, "");
    elk_csv_fmt(b, sizeof b, 1.0 / 3);
    ck_assert_str_eq(b, "0.333333");
    elk_csv_fmt(b, sizeof b, 2.5e-7);
    ck_assert_str_eq(b, "2.5e-07");
    elk_csv_fmt(b, sizeof b, 5888);
    ck_assert_str_eq(b, "5888");
    char line[256];
    size_t l = 0;
    elk_csv_cat(line, sizeof line, &l, 1, "a");
    elk_csv_cat(line, sizeof line, &l, 0, "b,c");
    elk_csv_cat(line, sizeof line, &l, 0, "say \"hi\"");
    elk_csv_cat_num(line, sizeof line, &l, 0, 0.5);
    ck_assert_str_eq(line, "a,\"b,c\",\"say \"\"hi\"\"\",0.5");
    char text[512];
    snprintf(text, sizeof text, "# one\n# two\nx,y,z,w\n%s\n1,,3,4\n", line);
    elk_csv_table t;
    elk_error err;
    ck_assert_msg(elk_csv_parse(text, "mem", &t, &err) == ELK_OK, "%s", err.msg);
    ck_assert_int_eq(t.ncomments, 2);
    ck_assert_int_eq(t.nrows, 2);
    ck_assert_str_eq(elk_csv_cell(&t, 0, 1), "b,c");
    ck_assert_str_eq(elk_csv_cell(&t, 0, 2), "say \"hi\"");
    ck_assert_str_eq(t.lines[0], line);
    ck_assert(isnan(elk_csv_num(&t, 1, 1)));
    ck_assert_double_eq(elk_csv_num(&t, 1, elk_csv_col(&t, "w")), 4);
    elk_csv_free(&t);
    ck_assert_int_eq(elk_csv_parse("a,b\n1,2,3\n", "mem", &t, &err), ELK_EPARSE);
    ck_assert_contains(err.msg, "mem:2: 3 fields, but the header has 2");
}
END_TEST

/* Run s into memory; returns malloc'd text. */
static char *run_to_text(const elk_sweep *s, int jobs, int shard, int nshards, elk_plan_cache *pc,
                         elk_sweep_stats *st)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(fp);
    elk_sweep_opts o;
    elk_sweep_opts_default(&o);
    o.jobs = jobs;
    o.shard = shard;
    o.nshards = nshards;
    o.cache = pc;
    elk_error err;
    ck_assert_msg(elk_sweep_run(s, &o, fp, st, &err) == ELK_OK, "%s", err.msg);
    fclose(fp);
    return buf;
}

START_TEST(run_deterministic_and_merge)
{
    elk_sweep s;
    elk_error err;
    ck_assert_msg(elk_sweep_load(write_file("t.cfg", tiny_sweep), &s, &err) == ELK_OK, "%s", err.msg);
    /* pointwise: shards take every third point (a carried sweep's shards
     * hold whole series, and this one is a single series: carried_shards) */
    ck_assert_msg(elk_sweep_set_pointwise(&s, &err) == ELK_OK, "%s", err.msg);
    elk_sweep_stats st;
    char *one = run_to_text(&s, 1, 0, 1, NULL, &st);
    ck_assert_int_eq(st.done, 6);
    ck_assert_int_eq(st.infeasible, 0);
    char *two = run_to_text(&s, 2, 0, 1, NULL, &st);
    ck_assert_str_eq(one, two);
    /* one row per (point, policy), in order */
    elk_csv_table t;
    ck_assert_msg(elk_csv_parse(one, "one", &t, &err) == ELK_OK, "%s", err.msg);
    ck_assert_int_eq(t.nrows, 6 * 5);
    for (int r = 0; r < t.nrows; r++) {
        ck_assert_int_eq(atoi(elk_csv_cell(&t, r, 0)), r / 5);
        ck_assert_str_eq(elk_csv_cell(&t, r, elk_csv_col(&t, "status")), "ok");
        ck_assert(elk_csv_num(&t, r, elk_csv_col(&t, "latency_ms")) > 0);
    }
    ck_assert_str_eq(elk_csv_cell(&t, 0, elk_csv_col(&t, "policy")), "basic");
    ck_assert_str_eq(elk_csv_cell(&t, 4, elk_csv_col(&t, "policy")), "ideal");
    ck_assert_str_eq(elk_csv_cell(&t, 4, elk_csv_col(&t, "pct_ideal")), "100");
    ck_assert_str_eq(elk_csv_cell(&t, 5, elk_csv_col(&t, "hbm_tbps")), "0.15");
    ck_assert_str_eq(elk_csv_cell(&t, 0, elk_csv_col(&t, "orders_tried")), "");
    ck_assert_str_ne(elk_csv_cell(&t, 3, elk_csv_col(&t, "orders_tried")), "");
    elk_csv_free(&t);

    /* shards, written to files, merged in any order */
    elk_plan_cache *pc = elk_plan_cache_alloc();
    const char *paths[3];
    char pbuf[3][1200];
    for (int i = 0; i < 3; i++) {
        char *sh = run_to_text(&s, 2, i, 3, pc, &st);
        char name[32];
        snprintf(name, sizeof name, "s%d.csv", i);
        snprintf(pbuf[i], sizeof pbuf[i], "%s", write_file(name, sh));
        free(sh);
    }
    paths[0] = pbuf[2];
    paths[1] = pbuf[0];
    paths[2] = pbuf[1];
    char *merged = NULL;
    size_t mlen = 0;
    FILE *mf = open_memstream(&merged, &mlen);
    ck_assert_msg(elk_sweep_merge(paths, 3, mf, &err) == ELK_OK, "%s", err.msg);
    fclose(mf);
    ck_assert_str_eq(merged, one);
    free(merged);
    /* a missing shard and a repeated one are refused */
    mf = open_memstream(&merged, &mlen);
    ck_assert_int_ne(elk_sweep_merge(paths, 2, mf, &err), ELK_OK);
    fclose(mf);
    free(merged);
    ck_assert_contains(err.msg, "is missing");
    const char *dup[2] = {pbuf[0], pbuf[0]};
    mf = open_memstream(&merged, &mlen);
    ck_assert_int_ne(elk_sweep_merge(dup, 2, mf, &err), ELK_OK);
    fclose(mf);
    free(merged);
    ck_assert_contains(err.msg, "are both shard 0/3");
    /* a shard of another sweep is refused */
    const char *other = write_file("o.csv", "# elk-sweep name=tiny id=0000000000000001 points=6 shard=1/3\npoint,policy\n");
    const char *mix[2] = {pbuf[0], other};
    mf = open_memstream(&merged, &mlen);
    ck_assert_int_ne(elk_sweep_merge(mix, 2, mf, &err), ELK_OK);
    fclose(mf);
    free(merged);
    ck_assert_contains(err.msg, "not shards of one sweep");
    elk_plan_cache_free(pc);
    free(one);
    free(two);
    elk_sweep_free(&s);
}
END_TEST

/* More points than the writer's ring holds (64 slots for one or two
 * jobs): rows still come out complete and in point order, the same bytes
 * for 1, 2 and 3 jobs and for a sharded run merged back. */
static const char *ring_sweep =
    "sweep = {\n"
    "  name = \"ring\";\n"
    "  base = { chip = \"ipu-mk2\"; model = \"tiny\"; cores = 64; batch = 4; seq = 256; };\n"
    "  axes = ( { knob = \"hbm-tbps\"; from = 0.02; to = 3.0; step = 0.02; } );\n"
    "  policies = [\"elk-dyn\", \"ideal\"];\n"
    "};\n";

START_TEST(run_past_the_ring)
{
    elk_sweep s;
    elk_error err;
    ck_assert_msg(elk_sweep_load(write_file("ring.cfg", ring_sweep), &s, &err) == ELK_OK, "%s", err.msg);
    ck_assert_int_eq(s.npoints, 150);
    elk_plan_cache *pc = elk_plan_cache_alloc();
    elk_sweep_stats st;
    char *one = run_to_text(&s, 1, 0, 1, pc, &st);
    ck_assert_int_eq(st.done, 150);
    char *two = run_to_text(&s, 2, 0, 1, pc, &st);
    char *three = run_to_text(&s, 3, 0, 1, pc, &st);
    ck_assert_str_eq(one, two);
    ck_assert_str_eq(one, three);
    elk_csv_table t;
    ck_assert_msg(elk_csv_parse(one, "ring", &t, &err) == ELK_OK, "%s", err.msg);
    ck_assert_int_eq(t.nrows, 150 * 2);
    for (int r = 0; r < t.nrows; r++) ck_assert_int_eq((int)elk_csv_num(&t, r, 0), r / 2);
    elk_csv_free(&t);
    free(one);
    free(two);
    free(three);
    elk_plan_cache_free(pc);
    elk_sweep_free(&s);
}
END_TEST

/* A point no plan fits is written with status no-plan and empty metrics. */
START_TEST(run_no_plan)
{
    const char *text = "sweep = {\n  name = \"np\";\n"
                       "  base = { chip = \"ipu-mk2\"; model = \"tiny\"; batch = 64; seq = 256; sram-kib = 16.0; };\n"
                       "  axes = ( { knob = \"cores\"; values = [1, 64]; } );\n"
                       "  policies = [\"basic\", \"elk-full\"];\n};\n";
    elk_sweep s;
    elk_error err;
    ck_assert_msg(elk_sweep_load(write_file("np.cfg", text), &s, &err) == ELK_OK, "%s", err.msg);
    elk_sweep_stats st;
    char *out = run_to_text(&s, 2, 0, 1, NULL, &st);
    ck_assert_int_eq(st.infeasible, 1);
    ck_assert_contains(st.first_infeasible, "point 0 (cores=1)");
    elk_csv_table t;
    ck_assert_msg(elk_csv_parse(out, "np", &t, &err) == ELK_OK, "%s", err.msg);
    ck_assert_int_eq(t.nrows, 4);
    int cs = elk_csv_col(&t, "status"), cl = elk_csv_col(&t, "latency_ms");
    ck_assert_str_eq(elk_csv_cell(&t, 0, cs), "no-plan");
    ck_assert_str_eq(elk_csv_cell(&t, 1, cs), "no-plan");
    ck_assert_str_eq(elk_csv_cell(&t, 0, cl), "");
    ck_assert_str_eq(elk_csv_cell(&t, 2, cs), "ok");
    ck_assert_str_eq(elk_csv_cell(&t, 3, elk_csv_col(&t, "policy")), "elk-full");
    elk_csv_free(&t);
    free(out);
    elk_sweep_free(&s);
}
END_TEST

/* 40 points of the tiny model: one job takes many progress periods to run
 * them, so a cancel after the first point lands mid-run. */
static const char *long_sweep =
    "sweep = {\n"
    "  name = \"long\";\n"
    "  base = { chip = \"ipu-mk2\"; model = \"tiny\"; cores = 64; batch = 4; seq = 256; };\n"
    "  axes = (\n"
    "    { knob = \"noc-scale\"; values = [1.0, 1.5, 2.0, 2.5, 3.0]; },\n"
    "    { knob = \"hbm-tbps\"; from = 0.05; to = 0.4; step = 0.05; }\n"
    "  );\n"
    "};\n";

typedef struct {
    atomic_int *stop;
    long cancelled_at; /* points done when the callback cancelled, or -1 */
    int calls;
} cancel_ctx;

/* Cancels the sweep once a point has finished, as Ctrl-C would. */
static void cancel_after_first(void *ctx, long done, long total, double elapsed_s)
{
    (void)total;
    (void)elapsed_s;
    cancel_ctx *c = ctx;
    c->calls++;
    if (done >= 1 && c->cancelled_at < 0) {
        c->cancelled_at = done;
        atomic_store(c->stop, 1);
    }
}

/* Cancelled mid-run: the points finished before the cancel (and the one or
 * two in flight) are written, the rest are not, the CSV is still valid and
 * the run says ELK_ECANCEL. A sweep that ignored the cancel would run all
 * 40 points and return ELK_OK. */
START_TEST(run_cancelled)
{
    elk_sweep s;
    elk_error err;
    ck_assert_msg(elk_sweep_load(write_file("long.cfg", long_sweep), &s, &err) == ELK_OK, "%s", err.msg);
    ck_assert_int_eq(s.npoints, 40);
    atomic_int stop = 0;
    cancel_ctx cc = {&stop, -1, 0};
    elk_sweep_opts o;
    elk_sweep_opts_default(&o);
    o.cancel = &stop;
    o.jobs = 1;
    o.progress = cancel_after_first;
    o.ctx = &cc;
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    elk_sweep_stats st;
    elk_status r = elk_sweep_run(&s, &o, fp, &st, &err);
    fclose(fp);
    ck_assert_msg(cc.cancelled_at >= 1, "the progress callback never saw a finished point");
    ck_assert_int_eq(r, ELK_ECANCEL);
    ck_assert_contains(err.msg, "interrupted");
    /* one job: at most the point in flight at the cancel finishes after it */
    ck_assert_msg(st.done >= cc.cancelled_at && st.done <= cc.cancelled_at + 1 && st.done < st.points, "done %ld of %ld, cancelled at %ld", st.done,
                  st.points, cc.cancelled_at);
    elk_csv_table t;
    ck_assert_msg(elk_csv_parse(buf, "cancel", &t, &err) == ELK_OK, "%s", err.msg);
    ck_assert_int_eq(t.nrows, (int)st.done * 5);
    elk_csv_free(&t);
    free(buf);
    elk_sweep_free(&s);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("sweep");
    TCase *tc = tcase_create("load");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, paper_sweeps_load);
    tcase_add_test(tc, every_sweep_loads);
    tcase_add_test(tc, fig23_points);
    tcase_add_loop_test(tc, bad_sweeps, 0, (int)(sizeof bad / sizeof bad[0]));
    tcase_add_test(tc, expand_cross);
    tcase_add_test(tc, series_order);
    tcase_add_test(tc, expand_zip_and_parts);
    tcase_add_test(tc, csv_format);
    suite_add_tcase(s, tc);
    TCase *run = tcase_create("run");
    tcase_add_checked_fixture(run, setup, teardown);
    tcase_set_timeout(run, 120);
    tcase_add_test(run, run_deterministic_and_merge);
    tcase_add_test(run, run_past_the_ring);
    tcase_add_test(run, run_no_plan);
    tcase_add_test(run, run_cancelled);
    suite_add_tcase(s, run);
    return s;
}

int main(void) { return run_suite(suite()); }
