/* elk graph: print a model's operator graph for one workload. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "elk_cli.h"
#include "elk_graph.h"

static void help(const elk_opt *opts)
{
    printf("usage: elk graph [--model M] [--batch B] [--seq S] [--layers N] [--workload W]\n"
           "                 [--format table|csv] [--totals]\n\n"
           "Per-operator table (dims, FLOPs, weight and KV bytes read from HBM) and totals.\n\n");
    elk_cli_opts_help(stdout, opts);
    printf("\n");
    elk_cli_knob_help(stdout);
}

static void dims_str(const elk_op *op, char *buf, size_t n)
{
    buf[0] = '\0';
    for (int d = 0; d < op->ndims; d++) {
        size_t l = strlen(buf);
        snprintf(buf + l, n - l, "%s%s=%ld", d ? " " : "", op->dimname[d], op->dim[d]);
    }
}

int elk_cmd_graph(int argc, char **argv)
{
    elk_point p;
    elk_point_defaults(&p);
    const char *format = "table";
    int want_help = 0, totals_only = 0;
    elk_opt opts[] = {
        {"format", 1, &format, NULL, "F\ttable (default) or csv (one row per operator)"},
        {"totals", 0, NULL, &totals_only, "print only the totals"},
        {"help", 0, NULL, &want_help, NULL},
        {NULL, 0, NULL, NULL, NULL},
    };
    const char *pos[1];
    int npos;
    int rc = elk_cli_parse(argc, argv, 2, &p, opts, pos, 0, &npos, "graph");
    if (rc) return rc;
    if (want_help) {
        help(opts);
        return 0;
    }
    int csv = !strcmp(format, "csv");
    if (!csv && strcmp(format, "table")) {
        elk_cli_error("graph: --format %s: expected table or csv", format);
        return ELK_EXIT_USAGE;
    }
    elk_error err;
    elk_model m;
    if (elk_model_load(p.model_path, &m, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        return ELK_EXIT_FAIL;
    }
    elk_point_apply_model(&p, &m);
    elk_graph g;
    if (elk_graph_build(&m, p.workload, p.batch, p.seq, p.layers, &g, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        return ELK_EXIT_FAIL;
    }
    char dims[128];
    if (csv) {
        printf("op,name,kind,layer,shape_id,dims,flops,weight_bytes,kv_bytes\n");
        for (int i = 0; i < g.nops; i++) {
            const elk_op *op = &g.ops[i];
            dims_str(op, dims, sizeof dims);
            printf("%d,%s,%s,%d,%d,%s,%.0f,%.0f,%.0f\n", i, op->name, elk_op_kind_names[op->kind],
                   op->layer, op->shape_id, dims, op->flops, op->weight_bytes, op->kv_bytes);
        }
    } else if (!totals_only) {
        printf("%5s  %-22s %-9s %-36s %12s %12s %12s\n", "op", "name", "kind", "dims", "MFLOP", "weight MB", "KV MB");
        for (int i = 0; i < g.nops; i++) {
            const elk_op *op = &g.ops[i];
            dims_str(op, dims, sizeof dims);
            printf("%5d  %-22s %-9s %-36s %12.3f %12.3f %12.3f\n", i, op->name, elk_op_kind_names[op->kind],
                   dims, op->flops / 1e6, op->weight_bytes / 1e6, op->kv_bytes / 1e6);
        }
        printf("\n");
    }
    if (!csv) {
        printf("model %s, %s, batch %d, seq %d\n", m.name, elk_workload_names[g.workload], g.batch, g.seq);
        printf("layers              %d (%d ops per layer, %d identical-shape groups)\n", g.nlayers, g.per_layer, g.nshapes);
        printf("operators           %d\n", g.nops);
        printf("parameters          %.3f e9 (model, embedding counted once)\n", elk_model_params(&m) / 1e9);
        if (m.experts && g.workload == ELK_WL_DECODE) {
            /* what the experts.* operators read: the batch's expected distinct experts */
            double E = m.experts, k = m.experts_per_token;
            double want = E * (1.0 - pow(1.0 - k / E, (double)g.batch));
            int nread = 0;
            for (int i = 0; i < g.nops; i++)
                if (!strncmp(g.ops[i].name, "L0.experts.up", 13)) nread += (int)g.ops[i].dim[0];
            printf("experts/layer/step  %d of %d read (expected distinct %.2f for batch %d, top-%d); moe-preload %s\n",
                   nread, m.experts, want, g.batch, m.experts_per_token, elk_moe_preload_names[m.moe_preload]);
        }
        printf("weights read/step   %.2f GB\n", g.weight_bytes / 1e9);
        printf("KV cache read/step  %.2f GB\n", g.kv_bytes / 1e9);
        printf("HBM read/step       %.2f GB\n", (g.weight_bytes + g.kv_bytes) / 1e9);
        printf("FLOPs/step          %.4g (%.4g per token)\n", g.flops,
               g.flops / (g.workload == ELK_WL_DECODE ? g.batch : (double)g.batch * g.seq));
    }
    elk_graph_free(&g);
    return 0;
}
