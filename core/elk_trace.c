#include "elk_trace.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elk_file.h"

enum { TID_EXEC = 1, TID_NOC = 2, TID_HBM0 = 10 };

static int push(json_t *arr, json_t *ev)
{
    if (!ev) return -1;
    return json_array_append_new(arr, ev);
}

static json_t *meta(const char *what, int tid, const char *name)
{
    return json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "ph", "M", "name", what, "pid", 1, "tid", tid, "args", "name",
                     name);
}

static json_t *span(const char *name, const char *cat, int tid, double ts, double dur)
{
    return json_pack("{s:s, s:s, s:s, s:i, s:i, s:f, s:f}", "name", name, "cat", cat, "ph", "X", "pid", 1, "tid", tid,
                     "ts", ts, "dur", dur < 0 ? 0 : dur);
}

static const char *op_name(const elk_graph *g, int i, char *buf, size_t n)
{
    if (g && i >= 0 && i < g->nops) return g->ops[i].name;
    snprintf(buf, n, "op%d", i);
    return buf;
}

elk_status elk_trace_write(const char *path, const elk_sim_result *r, const elk_graph *g, const elk_chip *c,
                           const char *label, elk_error *err)
{
    double us = 1.0 / (c->clock_ghz * 1e3); /* microseconds per cycle */
    json_t *root = json_object(), *ev = json_array();
    if (!root || !ev) {
        json_decref(root);
        json_decref(ev);
        return elk_fail(err, ELK_ENOMEM, "out of memory writing the trace");
    }
    json_object_set_new(root, "traceEvents", ev);
    json_object_set_new(root, "displayTimeUnit", json_string("ns"));
    int bad = 0;
    bad |= push(ev, json_pack("{s:s, s:s, s:i, s:{s:s}}", "ph", "M", "name", "process_name", "pid", 1, "args", "name",
                              label ? label : "elk simulation"));
    bad |= push(ev, meta("thread_name", TID_EXEC, "execution"));
    bad |= push(ev, meta("thread_name", TID_NOC, "NoC"));
    for (int k = 0; k < r->nctrl; k++) {
        char nm[48];
        snprintf(nm, sizeof nm, "HBM controller %d", k);
        bad |= push(ev, meta("thread_name", TID_HBM0 + k, nm));
        bad |= push(ev, json_pack("{s:s, s:s, s:i, s:i, s:{s:i}}", "ph", "M", "name", "thread_sort_index", "pid", 1,
                                  "tid", TID_HBM0 + k, "args", "sort_index", TID_HBM0 + k));
    }
    char buf[48];
    /* operators: one enclosing event each on the execution track */
    for (int i = 0; i < r->nops && !bad; i++) {
        const elk_sim_op *o = &r->ops[i];
        json_t *e = span(op_name(g, i, buf, sizeof buf), "op", TID_EXEC, o->exe_start * us,
                         (o->exe_end - o->exe_start) * us);
        if (!e) {
            bad = 1;
            break;
        }
        json_object_set_new(e, "args",
                            json_pack("{s:i, s:f, s:f, s:f, s:f, s:f}", "op", i, "nominal_us", o->nominal * us,
                                      "stall_us", o->stall * us, "preload_start_us", o->pre_start * us,
                                      "preload_end_us", o->pre_end * us, "resident_kib", o->resident / 1024.0));
        bad |= push(ev, e);
    }
    /* phases */
    for (int p = 0; p < r->nphases && !bad; p++) {
        const elk_sim_phase *ph = &r->phases[p];
        int tid;
        switch (ph->kind) {
        case ELK_PH_PRELOAD: tid = TID_HBM0 + ph->ctrl; break;
        case ELK_PH_COMPUTE:
        case ELK_PH_SYNC: tid = TID_EXEC; break;
        default: tid = TID_NOC; break;
        }
        char nm[80];
        snprintf(nm, sizeof nm, "%s %s", op_name(g, ph->op, buf, sizeof buf), elk_phase_names[ph->kind]);
        json_t *e = span(nm, "phase", tid, ph->start * us, (ph->end - ph->start) * us);
        if (!e) {
            bad = 1;
            break;
        }
        json_object_set_new(e, "args", json_pack("{s:i, s:s, s:f}", "op", ph->op, "phase", elk_phase_names[ph->kind],
                                                 "bytes_per_core", ph->bytes));
        bad |= push(ev, e);
    }
    /* counters */
    for (int k = 0; k < r->nsamples && !bad; k++) {
        const elk_sim_sample *s = &r->samples[k];
        bad |= push(ev, json_pack("{s:s, s:s, s:i, s:i, s:f, s:{s:f}}", "name", "SRAM per core (KiB)", "ph", "C", "pid", 1,
                                  "tid", TID_EXEC, "ts", s->t * us, "args", "resident", s->sram / 1024.0));
        bad |= push(ev, json_pack("{s:s, s:s, s:i, s:i, s:f, s:{s:f}}", "name", "HBM read rate (%)", "ph", "C", "pid", 1,
                                  "tid", TID_EXEC, "ts", s->t * us, "args", "rate", 100.0 * s->hbm));
    }
    json_object_set_new(root, "otherData",
                        json_pack("{s:s, s:f, s:f, s:f, s:s}", "generator", "elk trace", "latency_ms", r->latency_ms,
                                  "estimate_ms", r->est_latency_ms, "error", r->err, "mode",
                                  r->mode_detailed ? "detailed" : "fast"));
    if (bad) {
        json_decref(root);
        return elk_fail(err, ELK_ENOMEM, "out of memory writing the trace");
    }
    elk_file out;
    elk_status st = elk_file_open(&out, path, err);
    if (st != ELK_OK) {
        json_decref(root);
        return st;
    }
    int ok = json_dumpf(root, out.fp, JSON_COMPACT) == 0;
    json_decref(root);
    if (!ok) {
        elk_file_abort(&out);
        return elk_fail(err, ELK_EIO, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
    }
    return elk_file_commit(&out, err);
}
