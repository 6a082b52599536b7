/* app/elk_cli: the --help option list generated from a command's elk_opt
 * table (hand-checked layouts: the short forms, one text column two blanks
 * after the widest flag that fits, wrapping at 79 columns, a too-wide flag's
 * text on the next line, options without help left out) and the short
 * options the parser maps (-o -j -n -v only where the command has the long
 * form). */
#include "elk_cli.h"
#include "elk_test.h"

/* What elk_cli_opts_help prints for opts. */
static char *help_of(const elk_opt *opts)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&buf, &n);
    ck_assert_ptr_nonnull(fp);
    elk_cli_opts_help(fp, opts);
    fclose(fp);
    return buf;
}

START_TEST(short_forms_and_column)
{
    const char *out = NULL;
    int flag = 0;
    elk_opt opts[] = {
        {"output", 1, &out, NULL, "FILE\twrite there"},
        {"ops", 0, NULL, &flag, "add the ops"},
        {"verbose", 0, NULL, &flag, "every point"},
        {"help", 0, NULL, &flag, NULL},
        {NULL, 0, NULL, NULL, NULL},
    };
    char *h = help_of(opts);
    /* widest flag "-o, --output FILE" (17): texts from column 2 + 17 + 2 */
    ck_assert_str_eq(h, "  -o, --output FILE  write there\n"
                        "  --ops              add the ops\n"
                        "  -v, --verbose      every point\n");
    free(h);
}
END_TEST

START_TEST(wrap_and_wide_flag)
{
    const char *v = NULL;
    elk_opt opts[] = {
        {"allocator", 1, &v, NULL, "paper|artifact\tone two"},
        {"seed", 1, &v, NULL,
         "K\taaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo pppp"},
        {NULL, 0, NULL, NULL, NULL},
    };
    char *h = help_of(opts);
    /* "--allocator paper|artifact" (26) does not fit: its text goes below, at
     * the column of "--seed K" (8): 12; words wrap before column 79 */
    ck_assert_str_eq(h, "  --allocator paper|artifact\n"
                        "            one two\n"
                        "  --seed K  aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm\n"
                        "            nnnn oooo pppp\n");
    for (char *l = h, *e; *l; l = e + 1) {
        e = strchr(l, '\n');
        ck_assert_ptr_nonnull(e);
        ck_assert_int_le(e - l, 79);
    }
    free(h);
}
END_TEST

START_TEST(only_wide_flags)
{
    const char *v = NULL;
    elk_opt opts[] = {{"a-very-long-option-name", 1, &v, NULL, "VALUE\ttext"}, {NULL, 0, NULL, NULL, NULL}};
    char *h = help_of(opts);
    /* no flag fits: the texts stand at column 26, the knobs' */
    ck_assert_str_eq(h, "  --a-very-long-option-name VALUE\n                          text\n");
    free(h);
}
END_TEST

START_TEST(short_options_parse)
{
    int verbose = 0;
    const char *jobs = NULL;
    elk_opt with[] = {{"verbose", 0, NULL, &verbose, "v"}, {"jobs", 1, &jobs, NULL, "J\tj"}, {NULL, 0, NULL, NULL, NULL}};
    char *argv[] = {"elk", "x", "-v", "-j", "3", NULL};
    const char *pos[1];
    int npos;
    ck_assert_int_eq(elk_cli_parse(5, argv, 2, NULL, with, pos, 0, &npos, "x"), 0);
    ck_assert_int_eq(verbose, 1);
    ck_assert_str_eq(jobs, "3");
    /* without --verbose in the table, -v is a loose argument */
    elk_opt without[] = {{"jobs", 1, &jobs, NULL, "J\tj"}, {NULL, 0, NULL, NULL, NULL}};
    char *argv2[] = {"elk", "x", "-v", NULL};
    ck_assert_int_eq(elk_cli_parse(3, argv2, 2, NULL, without, pos, 1, &npos, "x"), 0);
    ck_assert_int_eq(npos, 1);
    ck_assert_str_eq(pos[0], "-v");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cli");
    TCase *t = tcase_create("cli");
    tcase_add_test(t, short_forms_and_column);
    tcase_add_test(t, wrap_and_wide_flag);
    tcase_add_test(t, only_wide_flags);
    tcase_add_test(t, short_options_parse);
    suite_add_tcase(s, t);
    return run_suite(s);
}
