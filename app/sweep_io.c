/* The pieces elk sweep, elk merge and elk reproduce share (sweep_io.h). */
#include "sweep_io.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elk_cli.h"
#include "elk_csv.h"
#include "elk_gnuplot.h"
#include "elk_sweep.h"

/* Set by the SIGINT handler, read by the sweep's threads: a lock-free
 * atomic is both async-signal-safe (C11 7.14.1.1) and race-free, which a
 * volatile sig_atomic_t is not across threads. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the SIGINT flag must be a lock-free atomic");
atomic_int elk_sweepio_interrupted;
static struct sigaction g_old_int;

static void on_sigint(int sig)
{
    (void)sig;
    atomic_store(&elk_sweepio_interrupted, 1);
    /* a second Ctrl-C kills as usual (through main's handler, which removes
     * temporary files) */
    sigaction(SIGINT, &g_old_int, NULL);
}

void elk_sweepio_trap_sigint(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    atomic_store(&elk_sweepio_interrupted, 0);
    sigaction(SIGINT, &sa, &g_old_int);
}

void elk_sweepio_untrap_sigint(void) { sigaction(SIGINT, &g_old_int, NULL); }


static int default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

int elk_sweepio_jobs(const char *s, int *jobs)
{
    if (!s) {
        *jobs = default_jobs();
        return 0;
    }
    long v;
    if (elk_parse_long(s, 1, 256, &v)) {
        elk_cli_error("--jobs %s: expected a number of threads from 1 to 256", s);
        return ELK_EXIT_USAGE;
    }
    *jobs = (int)v;
    return 0;
}

/* Output files go through core/elk_file (atomic, devices written through);
 * these wrappers print the error. */

int elk_sweepio_open(elk_file *o, const char *path)
{
    elk_error err;
    if (elk_file_open(o, path, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        return -1;
    }
    return 0;
}

int elk_sweepio_commit(elk_file *o)
{
    elk_error err;
    if (elk_file_commit(o, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        return -1;
    }
    return 0;
}


int elk_sweepio_commit_partial(elk_file *o, char *where, size_t n)
{
    elk_error err;
    if (o->kind != ELK_FILE_RENAME) {
        snprintf(where, n, "%s", o->path);
        return elk_sweepio_commit(o);
    }
    snprintf(where, n, "%s.partial", o->target);
    if (elk_file_commit_as(o, where, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        return -1;
    }
    return 0;
}

/* NAME.csv -> NAME.EXT */
static void swap_ext(const char *path, const char *ext, char *out, size_t n)
{
    snprintf(out, n, "%s", path);
    char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
    if (dot && (!slash || dot > slash) && !strcmp(dot, ".csv")) *dot = '\0';
    size_t l = strlen(out);
    snprintf(out + l, n > l ? n - l : 0, ".%s", ext);
}


int elk_sweepio_figure_beside(const char *csv, int draw, int quiet_missing)
{
    char gp[1100], png[1100];
    swap_ext(csv, "gp", gp, sizeof gp);
    swap_ext(csv, "png", png, sizeof png);
    char *text;
    elk_csv_table t;
    elk_error err;
    if (elk_csv_slurp(csv, &text, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        return 1;
    }
    int rc = 0;
    if (elk_csv_parse(text, csv, &t, &err) != ELK_OK) {
        elk_cli_error("%s", err.msg);
        free(text);
        return 1;
    }
    elk_sweep_figure f;
    elk_sweep_figure_parse(t.ncomments > 1 ? t.comments[1] : NULL, &f);
    elk_sweep_ident id;
    const char *name = t.ncomments > 0 && elk_sweep_ident_parse(t.comments[0], &id, NULL) == ELK_OK ? id.name : csv;
    elk_gp_job job;
    elk_gp_job_init(&job, f.kind >= 0 ? elk_fig_kind_names[f.kind] : "lines", text, png);
    if (elk_gp_from_csv(&job, &t, &f, name, &err) != ELK_OK) {
        elk_cli_error("%s: figure: %s", csv, err.msg);
        rc = 1;
    } else {
        elk_file o;
        const char *base = strrchr(png, '/') ? strrchr(png, '/') + 1 : png;
        if (elk_sweepio_open(&o, gp) == 0) {
            if (elk_gp_script(&job, base, o.fp, &err) != ELK_OK) {
                elk_cli_error("%s: %s", gp, err.msg);
                elk_file_abort(&o);
                rc = 1;
            } else if (elk_sweepio_commit(&o) != 0) {
                rc = 1;
            }
        } else {
            rc = 1;
        }
        if (!rc && draw) {
            char path[8];
            if (!elk_gp_find(path, sizeof path) && quiet_missing) {
                /* reported once by the caller */
            } else if (elk_gp_render(&job, &err) != ELK_OK) {
                elk_cli_error("%s", err.msg);
                rc = 1;
            }
        }
    }
    elk_csv_free(&t);
    free(text);
    return rc;
}


static void fmt_dur(double s, char *b, size_t n)
{
    if (!(s >= 0) || s > 359999) s = 0;
    long t = (long)(s + 0.5);
    if (t >= 3600) snprintf(b, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else snprintf(b, n, "%ld:%02ld", t / 60, t % 60);
}

void elk_sweepio_progress_cb(void *ctx, long done, long total, double elapsed)
{
    elk_sweepio_progress *p = ctx;
    if (!p->tty) return;
    int width = 30;
    int fill = total > 0 ? (int)(width * done / total) : width;
    char bar[64];
    for (int i = 0; i < width; i++) bar[i] = i < fill ? '#' : '.';
    bar[width] = '\0';
    char el[32], eta[32] = "--:--";
    fmt_dur(elapsed, el, sizeof el);
    if (done > 0 && done < total) fmt_dur(elapsed * (double)(total - done) / (double)done, eta, sizeof eta);
    else if (done >= total) snprintf(eta, sizeof eta, "0:00");
    fprintf(stderr, "\r%s [%s] %ld/%ld points  %s elapsed  ETA %s ", p->label, bar, done, total, el, eta);
    fflush(stderr);
    p->drawn = 1;
}

void elk_sweepio_progress_end(elk_sweepio_progress *p)
{
    if (p->tty && p->drawn) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
    p->drawn = 0;
}
