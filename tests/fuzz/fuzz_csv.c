/* libFuzzer harness: the CSV reader (core/elk_csv.c) and the shard merge
 * (elk_sweep_merge in core/elk_sweep.c).
 *
 * The whole input is first parsed as one CSV in memory and every accessor is
 * run over the table. It is then cut at form feeds ('\f') into up to four
 * shard files, which are merged as `elk merge A B ...` would merge them,
 * into /dev/null. The seeds in corpus/csv/ are real shards of a sweep joined
 * by form feeds, so the fuzzer starts from merges that succeed. */
#include "fuzz_util.h"

#include <string.h>

#include "elk_csv.h"
#include "elk_sweep.h"

#define MAX_SHARDS 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk_table(const elk_csv_table *t)
{
    char buf[1024];
    for (int c = 0; c < t->ncomments; c++) {
        elk_sweep_ident id;
        elk_sweep_figure fig;
        elk_error e;
        (void)elk_sweep_ident_parse(t->comments[c], &id, &e);
        elk_sweep_figure_parse(t->comments[c], &fig);
    }
    for (int c = 0; c < t->ncols; c++) {
        (void)elk_csv_col(t, t->cols[c]);
        (void)elk_csv_distinct(t, c, ',', buf, sizeof buf);
        for (int r = 0; r < t->nrows; r++) {
            (void)elk_csv_num(t, r, c);
            (void)elk_csv_cell(t, r, c);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fuzz_file f[MAX_SHARDS];
    static FILE *devnull;
    if (!devnull) devnull = fopen("/dev/null", "w");
    if (!devnull) abort();

    char *text = malloc(size + 1);
    if (!text) abort();
    memcpy(text, data, size);
    text[size] = '\0';
    elk_csv_table t;
    elk_error err;
    if (elk_csv_parse(text, "fuzz.csv", &t, &err) == ELK_OK) {
        walk_table(&t);
        elk_csv_free(&t);
    }
    free(text);

    const char *paths[MAX_SHARDS];
    int n = 0;
    size_t start = 0;
    for (size_t i = 0; i < size && n < MAX_SHARDS - 1; i++)
        if (data[i] == '\f') {
            fuzz_file_set(&f[n], "elk-fuzz-shard.csv", data + start, i - start);
            paths[n] = f[n].path;
            n++;
            start = i + 1;
        }
    /* the last shard takes the rest, form feeds and all */
    fuzz_file_set(&f[n], "elk-fuzz-shard.csv", data + start, size - start);
    paths[n] = f[n].path;
    n++;
    (void)elk_sweep_merge(paths, n, devnull, &err);
    return 0;
}
