/* Shared helpers for the Check suites: paths into the source tree, message
 * assertions, a scratch folder and the runner. Header-only, every function
 * static, since each suite is its own executable. */
#ifndef ELK_TEST_H
#define ELK_TEST_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elk_status.h"

#ifndef ELK_SRC_DIR
#error "tests need ELK_SRC_DIR (set by tests/CMakeLists.txt)"
#endif

/* A path inside the source tree, e.g. src_path(buf, sizeof buf, "presets/models/tiny.cfg"). */
static inline const char *src_path(char *buf, size_t n, const char *rel)
{
    snprintf(buf, n, "%s/%s", ELK_SRC_DIR, rel);
    return buf;
}

/* Fail unless msg contains needle; shows both, which is what one needs when
 * a message changes. */
#define ck_assert_contains(msg, needle)                                                      \
    ck_assert_msg(strstr((msg), (needle)) != NULL, "message \"%s\" lacks \"%s\"", (msg), (needle))

/* A fresh scratch folder under $TMPDIR (or /tmp), removed by scratch_free. */
static inline void scratch_new(char *dir, size_t n)
{
    const char *t = getenv("TMPDIR");
    snprintf(dir, n, "%s/elk-test-XXXXXX", t && *t ? t : "/tmp");
    ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp %s failed", dir);
}

static inline void scratch_free(const char *dir)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* Run one suite; the exit status is the number of failed tests (capped). */
static inline int run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed > 125 ? 125 : failed;
}

/* How many rows of a table-driven loop test run: all of them, but under
 * the sanitizers (ctest sets ELK_SANITIZED) the first half, rounded up, of
 * the slowest tables: the Release run checks every row, the sanitizers look
 * for memory and undefined-behaviour errors on the same code paths. */
static inline int elk_test_rows(int n)
{
    return getenv("ELK_SANITIZED") ? (n + 1) / 2 : n;
}

#endif
