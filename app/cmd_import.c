/* elk import-hf: turn a Hugging Face config.json into a model preset. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "elk_cli.h"
#include "elk_file.h"
#include "elk_hf.h"
#include "elk_model.h"

static void help(const elk_opt *opts)
{
    printf("usage: elk import-hf CONFIG.json|MODEL_DIR [-o|--output OUT.cfg] [-n|--name NAME]\n\n"
           "Reads a Hugging Face model config (model_type %s)\n"
           "and writes a model preset for `elk --model OUT.cfg`.\n\n",
           elk_hf_supported);
    elk_cli_opts_help(stdout, opts);
    printf("\nErrors name the JSON key and its file:line:col.\n");
}


int elk_cmd_import_hf(int argc, char **argv)
{
    const char *out = NULL, *name = NULL;
    int want_help = 0;
    elk_opt opts[] = {
        {"output", 1, &out, NULL, "FILE\twhere to write (default: NAME.cfg in the current folder; - for stdout)"},
        {"name", 1, &name, NULL, "NAME\tmodel name (default: the config's _name_or_path, else its folder)"},
        {"help", 0, NULL, &want_help, NULL},
        {NULL, 0, NULL, NULL, NULL},
    };
    const char *pos[1];
    int npos;
    int rc = elk_cli_parse(argc, argv, 2, NULL, opts, pos, 1, &npos, "import-hf");
    if (rc) return rc;
    if (want_help) {
        help(opts);
        return 0;
    }
    if (npos != 1) {
        elk_cli_error("import-hf: expected one CONFIG.json (see 'elk import-hf --help')");
        return ELK_EXIT_USAGE;
    }

    elk_error err;
    elk_model m;
    if (elk_hf_import(pos[0], name, &m, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        return ELK_EXIT_FAIL;
    }
    char def[80];
    if (!out) {
        snprintf(def, sizeof def, "%s.cfg", m.name);
        out = def;
    }
    if (elk_model_save(out, &m, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        return ELK_EXIT_FAIL;
    }
    struct stat sb;
    int direct = elk_file_is_std(out) || (stat(out, &sb) == 0 && !S_ISREG(sb.st_mode));
    if (direct) { /* -o - or a device: the preset went through it, the summary goes to stderr */
        fprintf(stderr, "%s: %s (%s, %d layers, hidden %d, %d/%d heads, %.3f e9 parameters)\n",
                elk_file_is_std(out) ? "stdout" : out, m.name,
                elk_family_names[m.family], m.layers, m.hidden, m.heads, m.kv_heads, elk_model_params(&m) / 1e9);
        return 0;
    }
    /* The preset must load exactly as `elk --model` will read it. */
    elk_model back;
    if (elk_model_load(out, &back, &err) != ELK_OK) {
        elk_cli_error("import-hf: wrote %s but it does not load back: %s", out, err.msg);
        return ELK_EXIT_FAIL;
    }
    printf("%s: %s (%s, %d layers, hidden %d, %d/%d heads, %.3f e9 parameters)\n", out, back.name,
           elk_family_names[back.family], back.layers, back.hidden, back.heads, back.kv_heads,
           elk_model_params(&back) / 1e9);
    return 0;
}
