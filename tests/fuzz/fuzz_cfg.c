/* libFuzzer harness: the libconfig loaders (core/elk_cfg.c and the chip,
 * model and sweep schemas, and saved design points), driven exactly as
 * `elk validate FILE` drives them: peek at the top-level group, then load it
 * as a chip, a model, a point or a sweep. A sweep resolves every point, so it also loads the shipped presets
 * that its chip and model knobs name. Every outcome but a crash, a leak or a
 * hang is fine: the loaders must only ever return an elk_status. */
#include "fuzz_util.h"

#include <string.h>

#include "elk_cfg.h"
#include "elk_chip.h"
#include "elk_model.h"
#include "elk_point.h"
#include "elk_sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fuzz_file f;
    fuzz_file_set(&f, "elk-fuzz-cfg", data, size);
    elk_error err;
    char kind[64];
    if (elk_cfg_peek_kind(f.path, kind, sizeof kind, &err) != ELK_OK) return 0;
    if (!strcmp(kind, "chip")) {
        elk_chip c;
        if (elk_chip_load(f.path, &c, &err) == ELK_OK) (void)elk_chip_sram_bytes(&c);
    } else if (!strcmp(kind, "model")) {
        elk_model m;
        if (elk_model_load(f.path, &m, &err) == ELK_OK) (void)elk_model_params(&m);
    } else if (!strcmp(kind, "point")) {
        elk_point p;
        elk_point_defaults(&p);
        (void)elk_point_load(f.path, &p, &err);
    } else if (!strcmp(kind, "sweep")) {
        elk_sweep *s = malloc(sizeof *s); /* large: keep it off the stack */
        if (!s) abort();
        if (elk_sweep_load(f.path, s, &err) == ELK_OK) {
            char head[4096];
            elk_sweep_csv_head(s, 0, 1, head, sizeof head);
            elk_sweep_free(s);
        }
        free(s);
    }
    return 0;
}
