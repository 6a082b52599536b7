#include "elk_file.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the cleanup registry: temporary files a signal handler removes ---- */

#define SLOTS 32
static char g_tmp[SLOTS][ELK_FILE_PATH_MAX];
static volatile sig_atomic_t g_busy[SLOTS];
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static int reg_add(const char *tmp)
{
    int slot = -1;
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < SLOTS && slot < 0; i++)
        if (!g_busy[i]) slot = i;
    if (slot >= 0) {
        memcpy(g_tmp[slot], tmp, strlen(tmp) + 1);
        g_busy[slot] = 1;
    }
    pthread_mutex_unlock(&g_lock);
    return slot;
}

static void reg_del(int slot)
{
    if (slot < 0) return;
    pthread_mutex_lock(&g_lock);
    g_busy[slot] = 0;
    pthread_mutex_unlock(&g_lock);
}

void elk_file_cleanup_temps(void)
{
    for (int i = 0; i < SLOTS; i++)
        if (g_busy[i]) unlink(g_tmp[i]);
}

/* ---- opening ---- */

int elk_file_is_std(const char *path) { return path && !strcmp(path, "-"); }

/* Follow symlinks from path (up to 40, like the kernel) into out: the file
 * a rename must replace. A dangling link yields its (missing) target. */
static elk_status resolve(const char *path, char *out, elk_error *err)
{
    char cur[ELK_FILE_PATH_MAX];
    if (strlen(path) >= sizeof cur) return elk_fail(err, ELK_EINVAL, "%s: path too long", path);
    memcpy(cur, path, strlen(path) + 1);
    for (int hop = 0; hop < 40; hop++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) {
            memcpy(out, cur, strlen(cur) + 1);
            return ELK_OK;
        }
        char link[ELK_FILE_PATH_MAX];
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n < 0) return elk_fail(err, ELK_EIO, "%s: cannot read the symlink: %s", path, strerror(errno));
        link[n] = '\0';
        char next[ELK_FILE_PATH_MAX];
        const char *slash = strrchr(cur, '/');
        int w;
        if (link[0] == '/' || !slash) w = snprintf(next, sizeof next, "%s", link);
        else w = snprintf(next, sizeof next, "%.*s/%s", (int)(slash - cur), cur, link);
        if (w < 0 || (size_t)w >= sizeof next) return elk_fail(err, ELK_EINVAL, "%s: path too long", path);
        memcpy(cur, next, (size_t)w + 1);
    }
    return elk_fail(err, ELK_EIO, "%s: too many levels of symbolic links", path);
}

/* A fresh temporary name: target.tmp-XXXXXX created with O_EXCL (mode 0666
 * less the umask, like any other output). */
static int create_tmp(const char *target, char *tmp, size_t n)
{
    static const char alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    static unsigned long counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long long seed = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)getpid() << 20) ^
                              ((unsigned long long)__atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED) << 40);
    for (int attempt = 0; attempt < 100; attempt++) {
        char suf[7];
        unsigned long long x = seed + (unsigned long long)attempt * 0x9E3779B97F4A7C15ull;
        for (int i = 0; i < 6; i++) {
            x ^= x >> 33;
            x *= 0xff51afd7ed558ccdull;
            x ^= x >> 29;
            suf[i] = alnum[x % (sizeof alnum - 1)];
        }
        suf[6] = '\0';
        int w = snprintf(tmp, n, "%s.tmp-%s", target, suf);
        if (w < 0 || (size_t)w >= n) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    errno = EEXIST;
    return -1;
}

elk_status elk_file_open(elk_file *f, const char *path, elk_error *err)
{
    memset(f, 0, sizeof *f);
    f->slot = -1;
    if (!path || !*path) return elk_fail(err, ELK_EINVAL, "no output file name");
    if (strlen(path) >= sizeof f->path) return elk_fail(err, ELK_EINVAL, "%s: path too long", path);
    memcpy(f->path, path, strlen(path) + 1);
    if (elk_file_is_std(path)) {
        f->kind = ELK_FILE_STDOUT;
        f->fp = stdout;
        snprintf(f->target, sizeof f->target, "<stdout>");
        return ELK_OK;
    }
    ELK_TRY(resolve(path, f->target, err));
    struct stat st;
    if (stat(f->target, &st) == 0) {
        if (S_ISDIR(st.st_mode)) return elk_fail(err, ELK_EIO, "%s: is a directory", path);
        if (!S_ISREG(st.st_mode)) {
            /* a device, FIFO or socket: write through, never replace it */
            f->kind = ELK_FILE_DIRECT;
            f->fp = fopen(f->target, "w");
            if (!f->fp) return elk_fail(err, ELK_EIO, "%s: cannot write: %s", path, strerror(errno));
            return ELK_OK;
        }
        f->keep_mode = 1;
        f->mode = (unsigned)(st.st_mode & 07777);
    }
    f->kind = ELK_FILE_RENAME;
    int fd = create_tmp(f->target, f->tmp, sizeof f->tmp);
    if (fd < 0) {
        int e = errno;
        f->tmp[0] = '\0';
        return elk_fail(err, ELK_EIO, "%s: cannot create: %s", path, strerror(e));
    }
    f->slot = reg_add(f->tmp);
    if (f->keep_mode) fchmod(fd, (mode_t)f->mode);
    f->fp = fdopen(fd, "w");
    if (!f->fp) {
        int e = errno;
        close(fd);
        elk_file_abort(f);
        return elk_fail(err, ELK_EIO, "%s: cannot create: %s", path, strerror(e));
    }
    return ELK_OK;
}

const char *elk_file_wpath(const elk_file *f)
{
    if (f->kind == ELK_FILE_STDOUT) return NULL;
    return f->kind == ELK_FILE_RENAME ? f->tmp : f->target;
}

void elk_file_abort(elk_file *f)
{
    if (f->fp && f->kind != ELK_FILE_STDOUT) fclose(f->fp);
    else if (f->fp) fflush(f->fp);
    if (f->kind == ELK_FILE_RENAME && f->tmp[0]) unlink(f->tmp);
    reg_del(f->slot);
    memset(f, 0, sizeof *f);
    f->slot = -1;
}

/* Flush and close fp, reporting the first error. */
static int finish(elk_file *f, int *e)
{
    FILE *fp = f->fp;
    f->fp = NULL;
    *e = 0;
    if (!fp) return 0;
    int bad = fflush(fp) != 0 || ferror(fp);
    if (bad) *e = errno ? errno : EIO;
    if (f->kind == ELK_FILE_RENAME && !bad && fsync(fileno(fp)) != 0 && errno != EINVAL && errno != EROFS) {
        bad = 1;
        *e = errno;
    }
    if (f->kind == ELK_FILE_STDOUT) {
        clearerr(fp);
        return bad ? -1 : 0;
    }
    errno = 0;
    if (fclose(fp) != 0 && !bad) {
        bad = 1;
        *e = errno ? errno : EIO;
    }
    return bad ? -1 : 0;
}

static elk_status commit_to(elk_file *f, const char *given, const char *target, elk_error *err)
{
    int e;
    if (finish(f, &e) != 0) {
        elk_file_abort(f);
        return elk_fail(err, ELK_EIO, "%s: write error: %s", given, strerror(e));
    }
    if (f->kind == ELK_FILE_RENAME && rename(f->tmp, target) != 0) {
        e = errno;
        elk_file_abort(f);
        return elk_fail(err, ELK_EIO, "%s: cannot write: %s", given, strerror(e));
    }
    reg_del(f->slot);
    memset(f, 0, sizeof *f);
    f->slot = -1;
    return ELK_OK;
}

elk_status elk_file_commit(elk_file *f, elk_error *err)
{
    char given[ELK_FILE_PATH_MAX], target[ELK_FILE_PATH_MAX];
    memcpy(given, f->path, sizeof given);
    memcpy(target, f->target, sizeof target);
    return commit_to(f, given, target, err);
}

elk_status elk_file_commit_as(elk_file *f, const char *path, elk_error *err)
{
    if (f->kind != ELK_FILE_RENAME) return elk_file_commit(f, err);
    char target[ELK_FILE_PATH_MAX], given[ELK_FILE_PATH_MAX];
    elk_status st = resolve(path, target, err);
    struct stat sb;
    if (st == ELK_OK && stat(target, &sb) == 0 && !S_ISREG(sb.st_mode))
        st = elk_fail(err, ELK_EIO, "%s: exists and is not a regular file", path);
    if (st != ELK_OK) {
        elk_file_abort(f);
        return st;
    }
    snprintf(given, sizeof given, "%s", path);
    return commit_to(f, given, target, err);
}

/* ---- reading ---- */

elk_status elk_file_read(const char *path, size_t max, char **text, size_t *len, elk_error *err)
{
    *text = NULL;
    if (len) *len = 0;
    if (!max) max = (size_t)1 << 30;
    int is_std = elk_file_is_std(path);
    int fd = is_std ? 0 : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return elk_fail(err, ELK_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (!is_std) close(fd);
        return elk_fail(err, ELK_EIO, "%s: is a directory, not a file", path);
    }
    const char *name = is_std ? "<stdin>" : path;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    elk_status s = buf ? ELK_OK : elk_fail(err, ELK_ENOMEM, "%s: out of memory", name);
    while (s == ELK_OK) {
        if (n + 1 >= cap) {
            if (cap > max) {
                s = elk_fail(err, ELK_ERANGE, "%s: larger than the limit of %zu bytes", name, max);
                break;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                s = elk_fail(err, ELK_ENOMEM, "%s: out of memory", name);
                break;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + n, cap - n - 1);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) s = elk_fail(err, ELK_EIO, "%s: read error: %s", name, strerror(errno));
        if (got <= 0) break;
        n += (size_t)got;
        if (n > max) s = elk_fail(err, ELK_ERANGE, "%s: larger than the limit of %zu bytes", name, max);
    }
    if (!is_std) close(fd);
    if (s != ELK_OK) {
        free(buf);
        return s;
    }
    buf[n] = '\0';
    *text = buf;
    if (len) *len = n;
    return ELK_OK;
}
