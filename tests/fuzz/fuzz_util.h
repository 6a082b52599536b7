/* Shared helpers of the libFuzzer harnesses (docs/RELIABILITY.md says how
 * to build and run them). The loaders under test take a path, so the input is
 * written to an anonymous memory file (memfd) and handed over as
 * /proc/self/fd/N: nothing touches the disk and no file is left behind. */
#ifndef ELK_FUZZ_UTIL_H
#define ELK_FUZZ_UTIL_H

#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct {
    int fd;
    char path[64];
} fuzz_file;

/* Create (once) the memory file f and give it exactly data[0..size). */
static inline void fuzz_file_set(fuzz_file *f, const char *label, const uint8_t *data, size_t size)
{
    if (f->fd <= 0) {
        f->fd = memfd_create(label, 0);
        if (f->fd < 0) {
            perror("memfd_create");
            abort();
        }
        snprintf(f->path, sizeof f->path, "/proc/self/fd/%d", f->fd);
    }
    if (ftruncate(f->fd, 0) != 0) abort();
    size_t off = 0;
    while (off < size) {
        ssize_t w = pwrite(f->fd, data + off, size - off, (off_t)off);
        if (w <= 0) abort();
        off += (size_t)w;
    }
}

#endif
