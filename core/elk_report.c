#include "elk_report.h"

#include "elk_sim.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

static double ms(const elk_problem *pr, double cycles) { return cycles / (pr->chip.clock_ghz * 1e6); }

static double noc_tbps(const elk_chip *c) { return elk_chip_noc_bytes_per_cycle(c) * c->clock_ghz / 1e3; }

double elk_report_tokens_per_step(const elk_graph *g)
{
    return g->workload == ELK_WL_DECODE ? (double)g->batch : (double)g->batch * g->seq;
}

void elk_report_csv_header(FILE *fp)
{
    fprintf(fp, "model,chip,topology,cores,hbm_tbps,noc_tbps,sram_kib,workload,batch,seq,policy,latency_ms,"
                "pct_ideal,exec_ms,overlap_ms,preload_ms,noc_stall_ms,dist_ms,hbm_util,noc_util,tflops,profile\n");
}

void elk_report_csv_rows(FILE *fp, const elk_problem *pr, const elk_result *r)
{
    const elk_chip *c = &pr->chip;
    char prof[96];
    elk_profile_format(c->profile, prof, sizeof prof);
    for (int p = 0; p < ELK_POL_COUNT; p++) {
        if (!r->have[p]) continue;
        const elk_schedule *s = &r->pol[p];
        fprintf(fp, "%s,%s,%s,%d,%.6g,%.6g,%.6g,%s,%d,%d,%s,%.6f,%.4f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%s\n",
                pr->model.name, c->name, elk_topology_names[c->topology], c->cores, c->hbm_tbps, noc_tbps(c),
                c->sram_kib, elk_workload_names[pr->graph.workload], pr->graph.batch, pr->graph.seq,
                elk_policy_names[p], s->latency_ms, r->have[ELK_POL_IDEAL] ? r->pct_ideal[p] : NAN,
                ms(pr, s->brk[ELK_BRK_EXEC]), ms(pr, s->brk[ELK_BRK_OVERLAP]), ms(pr, s->brk[ELK_BRK_PRELOAD]),
                ms(pr, s->brk[ELK_BRK_NOC]), ms(pr, s->brk[ELK_BRK_DIST]), s->hbm_util, s->noc_util, s->tflops,
                prof);
    }
}

void elk_report_table(FILE *fp, const elk_problem *pr, const elk_result *r)
{
    const elk_chip *c = &pr->chip;
    char prof[96];
    elk_profile_format(c->profile, prof, sizeof prof);
    fprintf(fp, "%s on %s (%s, %d cores, %.4g TB/s HBM, %.4g TB/s NoC, %.0f KiB SRAM/core; %s cost profile)\n",
            pr->model.name, c->name, elk_topology_names[c->topology], c->cores, c->hbm_tbps, noc_tbps(c), c->sram_kib,
            prof);
    fprintf(fp, "%s, batch %d, seq %d: %d operators, %.2f GB from HBM per step\n\n",
            elk_workload_names[pr->graph.workload], pr->graph.batch, pr->graph.seq, pr->graph.nops,
            (pr->graph.weight_bytes + pr->graph.kv_bytes) / 1e9);
    fprintf(fp, "%-9s %10s %9s %8s | %8s %8s %8s %8s %8s | %6s %6s %8s\n", "policy", "ms/step", "tokens/s", "% Ideal",
            "execute", "overlap", "preload", "NoC", "distrib", "HBM%", "NoC%", "TFLOPS");
    double tokens = elk_report_tokens_per_step(&pr->graph);
    for (int p = 0; p < ELK_POL_COUNT; p++) {
        if (!r->have[p]) continue;
        const elk_schedule *s = &r->pol[p];
        char pct[16];
        if (r->have[ELK_POL_IDEAL]) snprintf(pct, sizeof pct, "%7.2f%%", r->pct_ideal[p]);
        else snprintf(pct, sizeof pct, "%8s", "-");
        fprintf(fp, "%-9s %10.4f %9.0f %8s | %8.4f %8.4f %8.4f %8.4f %8.4f | %5.1f%% %5.1f%% %8.2f\n", elk_policy_labels[p],
                s->latency_ms, tokens / (s->latency_ms / 1e3), pct, ms(pr, s->brk[ELK_BRK_EXEC]), ms(pr, s->brk[ELK_BRK_OVERLAP]),
                ms(pr, s->brk[ELK_BRK_PRELOAD]), ms(pr, s->brk[ELK_BRK_NOC]), ms(pr, s->brk[ELK_BRK_DIST]),
                100 * s->hbm_util, 100 * s->noc_util, s->tflops);
    }
    fprintf(fp, "\nbreakdown columns in ms per step (execute, overlapped, preload stall, interconnect stall, data distribution); tokens/s = %.0f tokens a step (%s) / step time; HBM%% = time HBM streams at full rate; NoC%% = bytes the ports "
                "carry / (port capacity x latency)\n", tokens, pr->graph.workload == ELK_WL_DECODE ? "batch" : "batch x seq");
    if (r->have[ELK_POL_STATIC])
        fprintf(fp, "Static: execution region %.0f KiB, preloads %s\n", r->pol[ELK_POL_STATIC].static_exec_kib,
                r->pol[ELK_POL_STATIC].static_variant ? "replicated" : "fully distributed");
    if (r->have[ELK_POL_FULL]) {
        const elk_schedule *f = &r->pol[ELK_POL_FULL];
        if (f->adopted >= 0)
            fprintf(fp, "Elk-Full: %d preload orders searched; kept %s's schedule, faster than all of them\n",
                    f->orders_tried, elk_policy_labels[f->adopted]);
        else
            fprintf(fp, "Elk-Full: %d preload orders searched, winning order's mean displacement %.2f ops\n",
                    f->orders_tried, f->avg_edit_dist);
    }
}

void elk_report_ops(FILE *fp, const elk_problem *pr, const elk_schedule *s)
{
    fprintf(fp, "%5s %-22s %8s %8s %4s %10s %10s %10s %10s %9s %9s\n", "op", "name", "hot_KiB", "cold_KiB", "pre#",
            "exe_start", "exe_us", "pre_start", "pre_us", "stall_us", "dist_us");
    double f = pr->chip.clock_ghz * 1e3;
    for (int i = 0; i < s->nops; i++) {
        const elk_sched_op *o = &s->ops[i];
        fprintf(fp, "%5d %-22s %8.1f %8.1f %4d %10.2f %10.3f %10.2f %10.3f %9.3f %9.3f\n", i, pr->graph.ops[i].name,
                o->hot / 1024, o->cold / 1024, o->preload_number, o->exe_start / f, (o->exe_end - o->exe_start) / f,
                o->pre_start / f, (o->pre_end - o->pre_start) / f, o->stall / f, o->dist / f);
    }
}

int elk_report_json(FILE *fp, const elk_problem *pr, const elk_result *r, int per_op)
{
    const elk_chip *c = &pr->chip;
    json_t *root = json_object();
    json_t *pt = json_pack("{s:s, s:s, s:s, s:i, s:f, s:f, s:f, s:s, s:i, s:i, s:i, s:f}", "model", pr->model.name,
                           "chip", c->name, "topology", elk_topology_names[c->topology], "cores", c->cores, "hbm_tbps",
                           c->hbm_tbps, "noc_tbps", noc_tbps(c), "sram_kib", c->sram_kib, "workload",
                           elk_workload_names[pr->graph.workload], "batch", pr->graph.batch, "seq", pr->graph.seq,
                           "operators", pr->graph.nops, "hbm_gb", (pr->graph.weight_bytes + pr->graph.kv_bytes) / 1e9);
    char prof[96];
    elk_profile_format(c->profile, prof, sizeof prof);
    json_object_set_new(pt, "profile", json_string(prof));
    json_object_set_new(root, "point", pt);
    json_t *pols = json_array();
    for (int p = 0; p < ELK_POL_COUNT; p++) {
        if (!r->have[p]) continue;
        const elk_schedule *s = &r->pol[p];
        json_t *o = json_pack("{s:s, s:f, s:f, s:f, s:f, s:f}", "policy", elk_policy_names[p], "latency_ms",
                              s->latency_ms, "hbm_util", s->hbm_util, "noc_util", s->noc_util, "tflops", s->tflops,
                              "peak_sram_kib", s->peak_resident / 1024);
        if (r->have[ELK_POL_IDEAL]) json_object_set_new(o, "pct_ideal", json_real(r->pct_ideal[p]));
        json_t *b = json_object();
        for (int k = 0; k < ELK_BRK_COUNT; k++) json_object_set_new(b, elk_brk_names[k], json_real(ms(pr, s->brk[k])));
        json_object_set_new(o, "breakdown_ms", b);
        if (per_op) {
            json_t *ops = json_array();
            for (int i = 0; i < s->nops; i++) {
                const elk_sched_op *so = &s->ops[i];
                json_array_append_new(
                    ops, json_pack("{s:s, s:f, s:f, s:i, s:f, s:f, s:f, s:f}", "name", pr->graph.ops[i].name, "hot",
                                   so->hot, "cold", so->cold, "preload_number", so->preload_number, "exe_start_us",
                                   so->exe_start / (c->clock_ghz * 1e3), "exe_end_us", so->exe_end / (c->clock_ghz * 1e3),
                                   "pre_start_us", so->pre_start / (c->clock_ghz * 1e3), "pre_end_us",
                                   so->pre_end / (c->clock_ghz * 1e3)));
            }
            json_object_set_new(o, "ops", ops);
        }
        json_array_append_new(pols, o);
    }
    json_object_set_new(root, "policies", pols);
    int rc = json_dumpf(root, fp, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    fputc('\n', fp);
    json_decref(root);
    return rc;
}

void elk_report_sim_table(FILE *fp, const elk_problem *pr, const elk_result *r, const struct elk_sim_result *sim)
{
    const elk_chip *c = &pr->chip;
    fprintf(fp, "%s on %s (%s, %d cores, %.4g TB/s HBM, %d HBM controller%s%s): planner estimate vs event simulation\n\n",
            pr->model.name, c->name, elk_topology_names[c->topology], c->cores, c->hbm_tbps, c->hbm_controllers,
            c->hbm_controllers == 1 ? "" : "s", c->hbm_broadcast ? ", one broadcasting" : "");
    int grid = c->topology != ELK_TOPO_ALL2ALL;
    fprintf(fp, "%-9s %10s %10s %8s | %8s %8s %8s %8s %8s | %6s %6s", "policy", "estimate", "simulated", "error",
            "execute", "overlap", "preload", "NoC", "distrib", "HBM%", "NoC%");
    if (grid) fprintf(fp, " %7s %7s", "linkmax", "linkavg");
    fprintf(fp, " %8s\n", "TFLOPS");
    for (int p = 0; p < ELK_POL_COUNT; p++) {
        if (!r->have[p]) continue;
        const elk_sim_result *m = &sim[p];
        fprintf(fp, "%-9s %10.4f %10.4f %7.2f%% | %8.4f %8.4f %8.4f %8.4f %8.4f | %5.1f%% %5.1f%%", elk_policy_labels[p],
                r->pol[p].latency_ms, m->latency_ms, 100 * m->err, ms(pr, m->brk[ELK_BRK_EXEC]),
                ms(pr, m->brk[ELK_BRK_OVERLAP]), ms(pr, m->brk[ELK_BRK_PRELOAD]), ms(pr, m->brk[ELK_BRK_NOC]),
                ms(pr, m->brk[ELK_BRK_DIST]), 100 * m->hbm_util, 100 * m->noc_util);
        if (grid) fprintf(fp, " %6.1f%% %6.1f%%", 100 * m->link_max, 100 * m->link_mean);
        fprintf(fp, " %8.2f\n", m->tflops);
    }
    fprintf(fp, "\nestimate and simulated in ms/token; error = (estimate - simulated) / simulated; breakdown is "
                "the simulated one\n");
}

void elk_report_sim_csv_header(FILE *fp)
{
    fprintf(fp, "model,chip,topology,cores,hbm_tbps,noc_tbps,hbm_controllers,hbm_broadcast,batch,seq,policy,"
                "estimate_ms,simulated_ms,error,exec_ms,overlap_ms,preload_ms,noc_stall_ms,dist_ms,hbm_util,noc_util,"
                "link_max,link_mean,tflops\n");
}

void elk_report_sim_csv_rows(FILE *fp, const elk_problem *pr, const elk_result *r, const struct elk_sim_result *sim)
{
    const elk_chip *c = &pr->chip;
    for (int p = 0; p < ELK_POL_COUNT; p++) {
        if (!r->have[p]) continue;
        const elk_sim_result *m = &sim[p];
        fprintf(fp, "%s,%s,%s,%d,%.6g,%.6g,%d,%d,%d,%d,%s,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f\n",
                pr->model.name, c->name, elk_topology_names[c->topology], c->cores, c->hbm_tbps, noc_tbps(c),
                c->hbm_controllers, c->hbm_broadcast, pr->graph.batch, pr->graph.seq, elk_policy_names[p],
                r->pol[p].latency_ms, m->latency_ms, m->err, ms(pr, m->brk[ELK_BRK_EXEC]),
                ms(pr, m->brk[ELK_BRK_OVERLAP]), ms(pr, m->brk[ELK_BRK_PRELOAD]), ms(pr, m->brk[ELK_BRK_NOC]),
                ms(pr, m->brk[ELK_BRK_DIST]), m->hbm_util, m->noc_util, m->link_max, m->link_mean, m->tflops);
    }
}
