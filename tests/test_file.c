/* core/elk_file: atomic output files (temporary file renamed over a regular
 * file or a missing one; devices and FIFOs written through; symlinks
 * followed), abort and commit-as, and whole-file reads (issue 12). */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "elk_file.h"
#include "elk_test.h"

static void put(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    fputs(text, fp);
    fclose(fp);
}

static char *get(const char *path)
{
    char *t;
    elk_error err;
    ck_assert_msg(elk_file_read(path, 0, &t, NULL, &err) == ELK_OK, "%s", err.msg);
    return t;
}

/* Entries in dir whose name contains needle. */
static int count_named(const char *dir, const char *needle)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, needle)) n++;
    closedir(d);
    return n;
}

START_TEST(commit_replaces_regular)
{
    char dir[256], path[512];
    scratch_new(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/out.csv", dir);
    put(path, "old\n");
    chmod(path, 0640);
    elk_file f;
    elk_error err;
    ck_assert_int_eq(elk_file_open(&f, path, &err), ELK_OK);
    ck_assert_int_eq(f.kind, ELK_FILE_RENAME);
    fputs("new\n", f.fp);
    char *t = get(path);
    ck_assert_str_eq(t, "old\n"); /* untouched until commit */
    free(t);
    ck_assert_int_eq(count_named(dir, ".tmp-"), 1);
    ck_assert_int_eq(elk_file_commit(&f, &err), ELK_OK);
    t = get(path);
    ck_assert_str_eq(t, "new\n");
    free(t);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0640); /* the old file's mode */
    ck_assert_int_eq(count_named(dir, ".tmp-"), 0);
    scratch_free(dir);
}
END_TEST

START_TEST(abort_keeps_old)
{
    char dir[256], path[512];
    scratch_new(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/out.csv", dir);
    put(path, "old\n");
    elk_file f;
    elk_error err;
    ck_assert_int_eq(elk_file_open(&f, path, &err), ELK_OK);
    fputs("partial", f.fp);
    elk_file_abort(&f);
    char *t = get(path);
    ck_assert_str_eq(t, "old\n");
    free(t);
    ck_assert_int_eq(count_named(dir, ".tmp-"), 0);
    elk_file_abort(&f); /* a zeroed struct is fine */
    scratch_free(dir);
}
END_TEST

START_TEST(commit_as_partial)
{
    char dir[256], path[512], part[600];
    scratch_new(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/out.csv", dir);
    snprintf(part, sizeof part, "%s.partial", path);
    put(path, "complete\n");
    elk_file f;
    elk_error err;
    ck_assert_int_eq(elk_file_open(&f, path, &err), ELK_OK);
    fputs("half\n", f.fp);
    ck_assert_int_eq(elk_file_commit_as(&f, part, &err), ELK_OK);
    char *t = get(path), *u = get(part);
    ck_assert_str_eq(t, "complete\n");
    ck_assert_str_eq(u, "half\n");
    free(t);
    free(u);
    scratch_free(dir);
}
END_TEST

START_TEST(dev_null_written_through)
{
    elk_file f;
    elk_error err;
    ck_assert_int_eq(elk_file_open(&f, "/dev/null", &err), ELK_OK);
    ck_assert_int_eq(f.kind, ELK_FILE_DIRECT);
    fputs("x\n", f.fp);
    ck_assert_int_eq(elk_file_commit(&f, &err), ELK_OK);
    struct stat st;
    ck_assert_int_eq(stat("/dev/null", &st), 0);
    ck_assert(S_ISCHR(st.st_mode));
}
END_TEST

START_TEST(dev_full_reports)
{
    elk_file f;
    elk_error err;
    ck_assert_int_eq(elk_file_open(&f, "/dev/full", &err), ELK_OK);
    for (int i = 0; i < 10000; i++) fputs("0123456789\n", f.fp);
    ck_assert_int_eq(elk_file_commit(&f, &err), ELK_EIO);
    ck_assert_contains(err.msg, "/dev/full");
    ck_assert_contains(err.msg, "No space left on device");
}
END_TEST

START_TEST(fifo_not_replaced)
{
    char dir[256], path[512];
    scratch_new(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/pipe", dir);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    pid_t pid = fork();
    if (pid == 0) { /* the reader */
        int fd = open(path, O_RDONLY);
        char b[64];
        ssize_t n = fd >= 0 ? read(fd, b, sizeof b) : -1;
        _exit(n == 6 && !memcmp(b, "hello\n", 6) ? 0 : 1);
    }
    elk_file f;
    elk_error err;
    ck_assert_int_eq(elk_file_open(&f, path, &err), ELK_OK);
    ck_assert_int_eq(f.kind, ELK_FILE_DIRECT);
    fputs("hello\n", f.fp);
    ck_assert_int_eq(elk_file_commit(&f, &err), ELK_OK);
    int status;
    waitpid(pid, &status, 0);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    struct stat st;
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert(S_ISFIFO(st.st_mode));
    scratch_free(dir);
}
END_TEST

START_TEST(symlink_followed)
{
    char dir[256], real[512], link[512], sub[512];
    scratch_new(dir, sizeof dir);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    mkdir(sub, 0755);
    snprintf(real, sizeof real, "%s/sub/real.csv", dir);
    snprintf(link, sizeof link, "%s/link.csv", dir);
    put(real, "old\n");
    ck_assert_int_eq(symlink("sub/real.csv", link), 0); /* relative to the link's folder */
    elk_file f;
    elk_error err;
    ck_assert_int_eq(elk_file_open(&f, link, &err), ELK_OK);
    fputs("new\n", f.fp);
    ck_assert_int_eq(elk_file_commit(&f, &err), ELK_OK);
    struct stat st;
    ck_assert_int_eq(lstat(link, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    char *t = get(real);
    ck_assert_str_eq(t, "new\n");
    free(t);
    /* a dangling link creates its target */
    unlink(real);
    ck_assert_int_eq(elk_file_open(&f, link, &err), ELK_OK);
    fputs("again\n", f.fp);
    ck_assert_int_eq(elk_file_commit(&f, &err), ELK_OK);
    ck_assert_int_eq(lstat(link, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    t = get(real);
    ck_assert_str_eq(t, "again\n");
    free(t);
    scratch_free(dir);
}
END_TEST

START_TEST(directory_refused)
{
    char dir[256];
    scratch_new(dir, sizeof dir);
    elk_file f;
    elk_error err;
    ck_assert_int_eq(elk_file_open(&f, dir, &err), ELK_EIO);
    ck_assert_contains(err.msg, "is a directory");
    char *t;
    ck_assert_int_eq(elk_file_read(dir, 0, &t, NULL, &err), ELK_EIO);
    ck_assert_contains(err.msg, "is a directory");
    ck_assert_int_eq(elk_file_open(&f, "/nonexistent-dir/x.csv", &err), ELK_EIO);
    ck_assert_contains(err.msg, "/nonexistent-dir/x.csv");
    scratch_free(dir);
}
END_TEST

START_TEST(cleanup_removes_temps)
{
    char dir[256], path[512];
    scratch_new(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/out.csv", dir);
    elk_file f;
    elk_error err;
    ck_assert_int_eq(elk_file_open(&f, path, &err), ELK_OK);
    fputs("x", f.fp);
    fflush(f.fp);
    ck_assert_int_eq(count_named(dir, ".tmp-"), 1);
    elk_file_cleanup_temps();
    ck_assert_int_eq(count_named(dir, ".tmp-"), 0);
    elk_file_abort(&f);
    scratch_free(dir);
}
END_TEST

START_TEST(read_with_nul_and_limit)
{
    char dir[256], path[512];
    scratch_new(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/bin", dir);
    FILE *fp = fopen(path, "wb");
    fwrite("ab\0cd", 1, 5, fp);
    fclose(fp);
    char *t;
    size_t n;
    elk_error err;
    ck_assert_int_eq(elk_file_read(path, 0, &t, &n, &err), ELK_OK);
    ck_assert_uint_eq(n, 5);
    ck_assert(!memcmp(t, "ab\0cd", 6));
    free(t);
    ck_assert_int_eq(elk_file_read(path, 4, &t, &n, &err), ELK_ERANGE);
    ck_assert_contains(err.msg, "limit");
    scratch_free(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("file");
    TCase *tc = tcase_create("write");
    tcase_add_test(tc, commit_replaces_regular);
    tcase_add_test(tc, abort_keeps_old);
    tcase_add_test(tc, commit_as_partial);
    tcase_add_test(tc, dev_null_written_through);
    tcase_add_test(tc, dev_full_reports);
    tcase_add_test(tc, fifo_not_replaced);
    tcase_add_test(tc, symlink_followed);
    tcase_add_test(tc, directory_refused);
    tcase_add_test(tc, cleanup_removes_temps);
    suite_add_tcase(s, tc);
    tc = tcase_create("read");
    tcase_add_test(tc, read_with_nul_and_limit);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
