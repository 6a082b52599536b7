#include "tui_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* mkdir -p of an absolute path, each new folder 0700 (existing ones are
 * left as they are). */
static int mkdirs(const char *path)
{
    char b[1024];
    if (snprintf(b, sizeof b, "%s", path) >= (int)sizeof b || b[0] != '/') return -1;
    for (char *s = b + 1;; s++) {
        if (*s != '/' && *s) continue;
        char c = *s;
        *s = '\0';
        if (mkdir(b, 0700) != 0 && errno != EEXIST) return -1;
        *s = c;
        if (!c) break;
    }
    struct stat st;
    return stat(b, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

/* A folder only this user can write in: not a symlink, owned by us, no
 * group or other access. */
static int private_dir(const char *path)
{
    if (mkdir(path, 0700) != 0 && errno != EEXIST) return -1;
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) return -1;
    if ((st.st_mode & 077) && chmod(path, 0700) != 0) return -1;
    return 0;
}

int tui_log_default(char *buf, size_t n)
{
    char dir[1024];
    const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    /* relative values are ignored, as the XDG spec says */
    if (xdg && xdg[0] == '/' && snprintf(dir, sizeof dir, "%s/elk", xdg) < (int)sizeof dir && mkdirs(dir) == 0) {
        snprintf(buf, n, "%s/tui.log", dir);
        return 0;
    }
    if (home && home[0] == '/' && snprintf(dir, sizeof dir, "%s/.local/state/elk", home) < (int)sizeof dir &&
        mkdirs(dir) == 0) {
        snprintf(buf, n, "%s/tui.log", dir);
        return 0;
    }
    const char *tmp = getenv("TMPDIR");
    if (!tmp || tmp[0] != '/') tmp = "/tmp";
    if (snprintf(dir, sizeof dir, "%s/elk-%ld", tmp, (long)geteuid()) < (int)sizeof dir && private_dir(dir) == 0) {
        snprintf(buf, n, "%s/tui.log", dir);
        return 0;
    }
    snprintf(buf, n, "/dev/null");
    return -1;
}

int tui_log_open(const char *path)
{
    if (!strcmp(path, "/dev/null")) return open(path, O_WRONLY | O_CLOEXEC);
    /* O_NONBLOCK: a FIFO planted under the name must not block the open */
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}
