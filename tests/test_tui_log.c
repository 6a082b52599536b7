/* views/tui_log: the workbench's log is per user and never follows a
 * symlink (issue 12). The default path in each of its three places
 * ($XDG_STATE_HOME, $HOME, a private folder under $TMPDIR) and the folders
 * it creates; a symlink, a FIFO and a folder under the log's name are
 * refused (and the FIFO does not block); a shared or foreign folder under
 * $TMPDIR is made private or refused. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elk_test.h"
#include "tui_log.h"

static char dir[512];

static void setup(void)
{
    scratch_new(dir, sizeof dir);
    unsetenv("XDG_STATE_HOME");
    unsetenv("HOME");
    setenv("TMPDIR", dir, 1);
}

static void teardown(void) { scratch_free(dir); }

static int mode_of(const char *path)
{
    struct stat st;
    ck_assert_msg(lstat(path, &st) == 0, "%s: %s", path, strerror(errno));
    return (int)(st.st_mode & 07777);
}

START_TEST(default_xdg)
{
    char x[600], want[700], got[1024];
    snprintf(x, sizeof x, "%s/state", dir);
    setenv("XDG_STATE_HOME", x, 1);
    setenv("HOME", dir, 1);
    ck_assert_int_eq(tui_log_default(got, sizeof got), 0);
    snprintf(want, sizeof want, "%s/state/elk/tui.log", dir);
    ck_assert_str_eq(got, want);
    snprintf(want, sizeof want, "%s/state/elk", dir);
    ck_assert_int_eq(mode_of(want), 0700);
    ck_assert_int_eq(mode_of(x), 0700); /* created too */
}
END_TEST

START_TEST(default_home)
{
    char want[700], got[1024];
    setenv("XDG_STATE_HOME", "relative/state", 1); /* ignored, as the spec says */
    setenv("HOME", dir, 1);
    ck_assert_int_eq(tui_log_default(got, sizeof got), 0);
    snprintf(want, sizeof want, "%s/.local/state/elk/tui.log", dir);
    ck_assert_str_eq(got, want);
    snprintf(want, sizeof want, "%s/.local/state/elk", dir);
    ck_assert_int_eq(mode_of(want), 0700);
}
END_TEST

START_TEST(default_tmp)
{
    char want[700], got[1024], d[600];
    ck_assert_int_eq(tui_log_default(got, sizeof got), 0);
    snprintf(d, sizeof d, "%s/elk-%ld", dir, (long)geteuid());
    snprintf(want, sizeof want, "%s/tui.log", d);
    ck_assert_str_eq(got, want);
    ck_assert_int_eq(mode_of(d), 0700);
    /* a folder of ours that others may enter is made private again */
    ck_assert_int_eq(chmod(d, 0777), 0);
    ck_assert_int_eq(tui_log_default(got, sizeof got), 0);
    ck_assert_int_eq(mode_of(d), 0700);
    /* a symlink planted under the folder's name is refused */
    ck_assert_int_eq(rmdir(d), 0);
    char target[600];
    snprintf(target, sizeof target, "%s/elsewhere", dir);
    ck_assert_int_eq(mkdir(target, 0700), 0);
    ck_assert_int_eq(symlink(target, d), 0);
    ck_assert_int_eq(tui_log_default(got, sizeof got), -1);
    ck_assert_str_eq(got, "/dev/null");
}
END_TEST

START_TEST(open_refuses)
{
    char p[600];
    /* a regular file: created 0600, appended to */
    snprintf(p, sizeof p, "%s/log", dir);
    int fd = tui_log_open(p);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "a\n", 2), 2);
    close(fd);
    fd = tui_log_open(p);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "b\n", 2), 2);
    close(fd);
    ck_assert_int_eq(mode_of(p), 0600);
    struct stat st;
    ck_assert_int_eq(stat(p, &st), 0);
    ck_assert_int_eq(st.st_size, 4);
    /* a symlink, even to a file we could write */
    char l[600];
    snprintf(l, sizeof l, "%s/link", dir);
    ck_assert_int_eq(symlink(p, l), 0);
    errno = 0;
    ck_assert_int_eq(tui_log_open(l), -1);
    ck_assert_int_eq(errno, ELOOP);
    /* a FIFO: refused at once, not blocked on */
    snprintf(l, sizeof l, "%s/fifo", dir);
    ck_assert_int_eq(mkfifo(l, 0600), 0);
    ck_assert_int_eq(tui_log_open(l), -1);
    /* a folder */
    snprintf(l, sizeof l, "%s/sub", dir);
    ck_assert_int_eq(mkdir(l, 0700), 0);
    ck_assert_int_eq(tui_log_open(l), -1);
    /* the log of last resort */
    fd = tui_log_open("/dev/null");
    ck_assert_int_ge(fd, 0);
    close(fd);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tui_log");
    TCase *t = tcase_create("log");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, default_xdg);
    tcase_add_test(t, default_home);
    tcase_add_test(t, default_tmp);
    tcase_add_test(t, open_refuses);
    suite_add_tcase(s, t);
    return run_suite(s);
}
