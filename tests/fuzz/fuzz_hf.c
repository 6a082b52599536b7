/* libFuzzer harness: the Hugging Face config.json importer (core/elk_hf.c,
 * jansson underneath), as `elk import-hf CONFIG.json` calls it, once with
 * the name taken from the config and once with a name given. */
#include "fuzz_util.h"

#include "elk_hf.h"
#include "elk_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fuzz_file f;
    fuzz_file_set(&f, "elk-fuzz-hf.json", data, size);
    elk_model m;
    elk_error err;
    if (elk_hf_import(f.path, NULL, &m, &err) == ELK_OK) {
        (void)elk_model_params(&m);
        (void)elk_model_check(&m, &err);
    }
    (void)elk_hf_import(f.path, "fuzz", &m, &err);
    return 0;
}
