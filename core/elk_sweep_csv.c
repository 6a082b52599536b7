/* The sweep CSV's two comment lines (identity, figure hints) and header,
 * written and read back, and elk_sweep_merge, which reassembles the
 * shards of one sweep into the unsharded bytes. */
#include "elk_sweep.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elk_csv.h"
#include "elk_sweep_int.h"

/* ------------------------------------------------------------------ */
/* CSV text                                                             */

void elk_sweep_csv_head(const elk_sweep *s, int shard, int nshards, char *buf, size_t n)
{
    const elk_sweep_figure *f = &s->fig;
    size_t l = 0;
    int w = snprintf(buf, n, "# elk-sweep name=%s id=%016llx points=%ld shard=%d/%d%s\n"
                             "# figure: kind=%s; x=%s; y=%s; series=%s; row=%s; col=%s; cluster=%s; logx=%d; "
                             "logy=%d; title=%s; xlabel=%s; ylabel=%s\n",
                     s->name, s->id, s->npoints, shard, nshards, s->carried ? " carried" : "",
                     f->kind >= 0 ? elk_fig_kind_names[f->kind] : "lines", f->x, f->y, f->series, f->row, f->col,
                     f->cluster, f->logx, f->logy, f->title, f->xlabel, f->ylabel);
    if (w < 0 || (size_t)w >= n) return;
    l = (size_t)w;
    for (int i = 0; i < s->ncols; i++) elk_csv_cat(buf, n, &l, i == 0, s->cols[i].name);
    if (l + 1 < n) {
        buf[l++] = '\n';
        buf[l] = '\0';
    }
}

elk_status elk_sweep_ident_parse(const char *line, elk_sweep_ident *id, elk_error *err)
{
    memset(id, 0, sizeof *id);
    char name[64];
    if (sscanf(line, "# elk-sweep name=%63s id=%llx points=%ld shard=%d/%d", name, &id->id, &id->points, &id->shard,
               &id->nshards) != 5 ||
        id->nshards < 1 || id->shard < 0 || id->shard >= id->nshards || id->points < 0)
        return elk_fail(err, ELK_EPARSE, "not an elk sweep CSV (its first line is not '# elk-sweep name=... id=... "
                                         "points=... shard=i/N')");
    /* sscanf's %ld does not report overflow: read the count again strictly */
    const char *pp = strstr(line, " points=");
    char *end;
    errno = 0;
    long pts = pp ? strtol(pp + 8, &end, 10) : -1;
    if (!pp || errno == ERANGE || pts != id->points || pts > ELK_SWEEP_MAX_POINTS)
        return elk_fail(err, ELK_ERANGE, "points=%.*s is more than a sweep may have (the limit is %ld points)",
                        pp ? (int)strspn(pp + 8, "0123456789") : 1, pp ? pp + 8 : "?", ELK_SWEEP_MAX_POINTS);
    snprintf(id->name, sizeof id->name, "%s", name);
    const char *eol = line + strcspn(line, "\n");
    id->carried = eol - line >= 8 && !strncmp(eol - 8, " carried", 8);
    return ELK_OK;
}

void elk_sweep_figure_parse(const char *line, elk_sweep_figure *f)
{
    memset(f, 0, sizeof *f);
    f->kind = -1;
    const char *p = strstr(line ? line : "", "# figure:");
    if (!p) return;
    p += strlen("# figure:");
    while (*p) {
        while (*p == ' ') p++;
        const char *e = strstr(p, "; ");
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char kv[256];
        if (len >= sizeof kv) len = sizeof kv - 1;
        memcpy(kv, p, len);
        kv[len] = '\0';
        char *eq = strchr(kv, '=');
        if (eq) {
            *eq = '\0';
            const char *v = eq + 1;
            struct {
                const char *k;
                char *dst;
                size_t n;
            } t[] = {{"x", f->x, sizeof f->x},
                     {"y", f->y, sizeof f->y},
                     {"series", f->series, sizeof f->series},
                     {"row", f->row, sizeof f->row},
                     {"col", f->col, sizeof f->col},
                     {"cluster", f->cluster, sizeof f->cluster},
                     {"title", f->title, sizeof f->title},
                     {"xlabel", f->xlabel, sizeof f->xlabel},
                     {"ylabel", f->ylabel, sizeof f->ylabel}};
            for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
                if (!strcmp(kv, t[i].k)) snprintf(t[i].dst, t[i].n, "%s", v);
            if (!strcmp(kv, "kind"))
                for (int k = 0; elk_fig_kind_names[k]; k++)
                    if (!strcmp(v, elk_fig_kind_names[k])) f->kind = k;
            if (!strcmp(kv, "logx")) f->logx = atoi(v);
            if (!strcmp(kv, "logy")) f->logy = atoi(v);
        }
        if (!e) break;
        p = e + 2;
    }
}

/* ------------------------------------------------------------------ */
/* Merge                                                                */

typedef struct {
    long point;
    int file, row;
} mrow;

static int mrow_cmp(const void *a, const void *b)
{
    const mrow *x = a, *y = b;
    if (x->point != y->point) return x->point < y->point ? -1 : 1;
    if (x->file != y->file) return x->file - y->file;
    return x->row - y->row;
}

/* Read every shard and check that they are shards of one sweep (same
 * name, id, point count, shard count and header; each shard once), and
 * that each holds at least the rows its share of the points needs, so that
 * nothing is sized by a count the identity line merely claims. */
static elk_status merge_read(const char *const *inputs, int n, elk_csv_table *t, elk_sweep_ident *id, elk_error *err)
{
    elk_status st = ELK_OK;
    for (int i = 0; i < n && st == ELK_OK; i++) {
        st = elk_csv_read(inputs[i], &t[i], err);
        if (st != ELK_OK) break;
        elk_error e;
        if (t[i].ncomments < 1 || elk_sweep_ident_parse(t[i].comments[0], &id[i], &e) != ELK_OK) {
            st = elk_fail(err, ELK_EPARSE, "%s:1: %s", inputs[i],
                          t[i].ncomments < 1 ? "not an elk sweep CSV (no '# elk-sweep' line)" : e.msg);
            break;
        }
        if (elk_csv_col(&t[i], "point") != 0) {
            st = elk_fail(err, ELK_EPARSE, "%s: the first column is not 'point'", inputs[i]);
            break;
        }
        if (i == 0) continue;
        if (strcmp(id[i].name, id[0].name) || id[i].id != id[0].id || id[i].points != id[0].points) {
            st = elk_fail(err, ELK_EINVAL,
                          "%s is from sweep '%s' (id %016llx, %ld points) but %s is from '%s' (id %016llx, %ld points): "
                          "not shards of one sweep",
                          inputs[i], id[i].name, id[i].id, id[i].points, inputs[0], id[0].name, id[0].id, id[0].points);
            break;
        }
        if (id[i].carried != id[0].carried) {
            st = elk_fail(err, ELK_EINVAL, "%s is a carried sweep's shard and %s is not", inputs[id[i].carried ? i : 0],
                          inputs[id[i].carried ? 0 : i]);
            break;
        }
        if (id[i].nshards != id[0].nshards) {
            st = elk_fail(err, ELK_EINVAL, "%s is shard %d/%d but %s is shard %d/%d: shard counts differ", inputs[i],
                          id[i].shard, id[i].nshards, inputs[0], id[0].shard, id[0].nshards);
            break;
        }
        for (int j = 0; j < i && st == ELK_OK; j++)
            if (id[j].shard == id[i].shard)
                st = elk_fail(err, ELK_EINVAL, "%s and %s are both shard %d/%d", inputs[j], inputs[i], id[i].shard,
                              id[i].nshards);
        if (st != ELK_OK) break;
        int same = t[i].ncols == t[0].ncols && t[i].ncomments == t[0].ncomments;
        for (int c = 0; same && c < t[i].ncols; c++) same = !strcmp(t[i].cols[c], t[0].cols[c]);
        for (int c = 1; same && c < t[i].ncomments; c++) same = !strcmp(t[i].comments[c], t[0].comments[c]);
        if (!same) {
            st = elk_fail(err, ELK_EINVAL, "%s and %s have different headers", inputs[0], inputs[i]);
            break;
        }
    }
    /* every point of shard i/N is at least one row of its file: bound the
     * count by what the files hold before anything is sized by it */
    for (int i = 0; i < n && st == ELK_OK; i++) {
        /* a carried sweep's shards hold whole series: bounded together, below */
        long want = id[i].carried && id[i].nshards > 1 ? 0
                    : id[i].points > id[i].shard ? (id[i].points - id[i].shard + id[i].nshards - 1) / id[i].nshards
                                                 : 0;
        if (want > t[i].nrows)
            st = elk_fail(err, ELK_ERANGE,
                          "%s:1: points=%ld, but shard %d/%d of it would need at least %ld rows and the file has %d "
                          "(not a complete shard, or a corrupt identity line)",
                          inputs[i], id[i].points, id[i].shard, id[i].nshards, want, t[i].nrows);
    }
    if (st == ELK_OK && id[0].carried && id[0].nshards > 1) {
        long rows = 0;
        for (int i = 0; i < n; i++) rows += t[i].nrows;
        if (rows < id[0].points)
            st = elk_fail(err, ELK_ERANGE,
                          "%s:1: points=%ld, but the %d shard file%s given hold %ld rows, fewer than one per point "
                          "(a shard missing or incomplete, or a corrupt identity line)",
                          inputs[0], id[0].points, n, n == 1 ? "" : "s", rows);
    }
    return st;
}

/* Every row of every shard as (point, file, row), its point index checked
 * against the sweep and the shard; returns the count in *k. */
static elk_status merge_rows(const char *const *inputs, int n, const elk_csv_table *t, const elk_sweep_ident *id,
                             mrow *rows, long *kout, elk_error *err)
{
    elk_status st = ELK_OK;
    long k = 0;
    for (int i = 0; i < n && st == ELK_OK; i++)
        for (int r = 0; r < t[i].nrows; r++) {
            char *end;
            errno = 0;
            long pt = strtol(t[i].cells[r][0], &end, 10);
            if (*end || end == t[i].cells[r][0] || errno || pt < 0 || pt >= id[0].points) {
                st = elk_fail(err, ELK_EPARSE, "%s: row %d: bad point index '%s'", inputs[i], r + 1,
                              t[i].cells[r][0]);
                break;
            }
            if (!id[i].carried && pt % id[i].nshards != id[i].shard) {
                st = elk_fail(err, ELK_EINVAL, "%s: point %ld does not belong to shard %d/%d", inputs[i], pt,
                              id[i].shard, id[i].nshards);
                break;
            }
            rows[k++] = (mrow){pt, i, r};
        }
    *kout = k;
    return st;
}

/* The rows sorted by point: every point of the sweep present (its rows
 * are its policies', all from one file: in two files it is an error). */
static elk_status merge_check(const char *const *inputs, int n, const elk_sweep_ident *id, const mrow *rows, long k,
                              elk_error *err)
{
    elk_status st = ELK_OK;
    long want = 0; /* the next point that must appear */
    for (long r = 0; r <= k && st == ELK_OK; r++) {
        long pt = r < k ? rows[r].point : id[0].points;
        if (r > 0 && r < k && pt == rows[r - 1].point) {
            if (rows[r].file != rows[r - 1].file)
                st = elk_fail(err, ELK_EINVAL, "point %ld is in both %s and %s", pt, inputs[rows[r - 1].file],
                              inputs[rows[r].file]);
            continue;
        }
        if (pt > want && id[0].carried) {
            st = elk_fail(err, ELK_EINVAL, "point %ld is missing (the shard holding its series was interrupted?)",
                          want);
        } else if (pt > want) {
            int sh = (int)(want % id[0].nshards);
            const char *who = NULL;
            for (int i = 0; i < n; i++)
                if (id[i].shard == sh) who = inputs[i];
            if (who)
                st = elk_fail(err, ELK_EINVAL, "point %ld is missing from %s (shard %d/%d was interrupted?)",
                              want, who, sh, id[0].nshards);
            else
                st = elk_fail(err, ELK_EINVAL, "point %ld is missing: no file holds shard %d/%d", want, sh,
                              id[0].nshards);
        }
        want = pt + 1;
    }
    return st;
}

elk_status elk_sweep_merge(const char *const *inputs, int n, FILE *out, elk_error *err)
{
    if (n < 1) return elk_fail(err, ELK_EINVAL, "merge: no input files");
    elk_csv_table *t = calloc((size_t)n, sizeof *t);
    elk_sweep_ident *id = calloc((size_t)n, sizeof *id);
    mrow *rows = NULL;
    elk_status st = ELK_OK;
    long total = 0, k = 0;
    if (!t || !id) {
        st = elk_fail(err, ELK_ENOMEM, "out of memory");
        goto done;
    }
    st = merge_read(inputs, n, t, id, err);
    if (st != ELK_OK) goto done;
    for (int i = 0; i < n; i++) total += t[i].nrows;
    /* Nothing is sized by the identity line's point count: it is the
     * file's claim, and a 1 KB shard may claim 2^62 points. The rows are
     * checked, sorted by point and walked once for gaps and doubles. */
    rows = malloc(sizeof *rows * (size_t)(total ? total : 1));
    if (!rows) {
        st = elk_fail(err, ELK_ENOMEM, "out of memory");
        goto done;
    }
    st = merge_rows(inputs, n, t, id, rows, &k, err);
    if (st != ELK_OK) goto done;
    qsort(rows, (size_t)k, sizeof *rows, mrow_cmp);
    st = merge_check(inputs, n, id, rows, k, err);
    if (st != ELK_OK) goto done;
    fprintf(out, "# elk-sweep name=%s id=%016llx points=%ld shard=0/1%s\n", id[0].name, id[0].id, id[0].points,
            id[0].carried ? " carried" : "");
    for (int c = 1; c < t[0].ncomments; c++) fprintf(out, "%s\n", t[0].comments[c]);
    {
        char line[8192];
        size_t l = 0;
        line[0] = '\0';
        for (int c = 0; c < t[0].ncols; c++) elk_csv_cat(line, sizeof line, &l, c == 0, t[0].cols[c]);
        fprintf(out, "%s\n", line);
    }
    for (long r = 0; r < k; r++) fprintf(out, "%s\n", t[rows[r].file].lines[rows[r].row]);
    if (fflush(out) != 0 || ferror(out)) st = elk_fail(err, ELK_EIO, "cannot write the merged CSV: %s", strerror(errno));
done:
    if (t)
        for (int i = 0; i < n; i++) elk_csv_free(&t[i]);
    free(t);
    free(id);
    free(rows);
    return st;
}
