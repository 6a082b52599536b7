/* Import a Hugging Face config.json into a model preset (elk import-hf).
 *
 * Reads the hyperparameters of a decoder-only LLM config (model_type llama,
 * mistral, gemma2, opt, mixtral, qwen2) with jansson and fills an elk_model.
 * Every error names the JSON key and the file:line:col of its value (or of
 * the parse error), so a user can open the file at the right place. */
#ifndef ELK_HF_H
#define ELK_HF_H

#include "elk_model.h"
#include "elk_status.h"

/* Comma-separated model_type values the importer understands (for messages). */
extern const char elk_hf_supported[];

/* Parse json_path (or, if it is a folder, its config.json) into *out.
 * name may be NULL; the name then comes from the config's _name_or_path
 * (its last component), else from the file's name unless that is
 * config.json, else from the folder holding it. source is the JSON file's
 * path. On error *out is unspecified and err names file:line:col and key. */
elk_status elk_hf_import(const char *json_path, const char *name, elk_model *out,
                         elk_error *err);

#endif
