/* Output files that are never half-written, and whole-file reads.
 *
 * Every file the workbench writes goes through elk_file_open: the bytes go
 * to a temporary file beside the target (TARGET.tmp-XXXXXX) and
 * elk_file_commit renames it over the target, so a reader sees the old file
 * or the new one, never a mix. The rename happens only over a regular file
 * or a missing one:
 *
 *  - "-" means standard output (written straight, flushed and checked);
 *  - a character device, FIFO or socket (-o /dev/null, a named pipe) is
 *    written straight through and never replaced;
 *  - a symlink is followed to its target, which the rename replaces (the
 *    link stays);
 *  - a folder is an error.
 *
 * Temporary files are registered so that a fatal signal handler can remove
 * them (elk_file_cleanup_temps, async-signal-safe). */
#ifndef ELK_FILE_H
#define ELK_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "elk_status.h"

#define ELK_FILE_PATH_MAX 4096

typedef enum {
    ELK_FILE_RENAME, /* temporary file renamed over the target at commit */
    ELK_FILE_DIRECT, /* device or FIFO: written in place */
    ELK_FILE_STDOUT  /* "-" */
} elk_file_kind;

/* One output file being written. Owns fp (except for stdout) and the
 * temporary file until commit or abort; both leave a zeroed struct (fp NULL)
 * behind, and abort accepts a zeroed struct. */
typedef struct {
    FILE *fp;                       /* write the contents here */
    elk_file_kind kind;
    char path[ELK_FILE_PATH_MAX];   /* the name given, for messages */
    char target[ELK_FILE_PATH_MAX]; /* where the bytes end up: path with symlinks followed */
    char tmp[ELK_FILE_PATH_MAX];    /* the temporary file (ELK_FILE_RENAME), else "" */
    int slot;                       /* cleanup-registry slot of tmp, -1 when none */
    int keep_mode;                  /* the target existed: give the new file its mode */
    unsigned mode;                  /* that mode (permission bits) */
} elk_file;

/* Open path for writing as described above. Errors name the path. */
elk_status elk_file_open(elk_file *f, const char *path, elk_error *err);

/* The name a tool that opens files by name (gnuplot's `set output`) should
 * write: the temporary file, or the target itself for devices and FIFOs.
 * NULL for stdout. */
const char *elk_file_wpath(const elk_file *f);

/* Flush, close and rename over the target (fsync first). On failure the
 * target is untouched, the temporary file removed and err names the path. */
elk_status elk_file_commit(elk_file *f, elk_error *err);

/* Commit under another name instead (e.g. OUT.partial for an interrupted
 * run), with the same rules for that name. Only for ELK_FILE_RENAME files;
 * a device, FIFO or stdout is simply committed. */
elk_status elk_file_commit_as(elk_file *f, const char *path, elk_error *err);

/* Close and remove the temporary file; the target is untouched. */
void elk_file_abort(elk_file *f);

/* Remove every registered temporary file. Async-signal-safe: for the
 * handlers of the signals that end the process (app/main.c). */
void elk_file_cleanup_temps(void);

/* Read a whole file ("-": standard input) into a NUL-terminated buffer the
 * caller frees; *len (if non-NULL) is the byte count, which may hold NUL
 * bytes. A folder is an error that says so. At most max bytes (0: 1 GiB). */
elk_status elk_file_read(const char *path, size_t max, char **text, size_t *len, elk_error *err);

/* Whether path names standard input/output ("-"). */
int elk_file_is_std(const char *path);

#endif
