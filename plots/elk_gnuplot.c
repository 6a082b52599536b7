#include "elk_gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "elk_file.h"
#include "elk_point.h"

void elk_gp_job_init(elk_gp_job *j, const char *kind, const char *data, const char *output)
{
    memset(j, 0, sizeof *j);
    snprintf(j->kind, sizeof j->kind, "%s", kind ? kind : "lines");
    j->data = data;
    snprintf(j->output, sizeof j->output, "%s", output ? output : "");
}

elk_status elk_gp_set(elk_gp_job *j, const char *name, const char *value, elk_error *err)
{
    int i;
    for (i = 0; i < j->nvars; i++)
        if (!strcmp(j->name[i], name)) break;
    if (i == j->nvars) {
        if (j->nvars >= ELK_GP_MAX_VARS) return elk_fail(err, ELK_ERANGE, "too many gnuplot variables");
        j->nvars++;
    }
    snprintf(j->name[i], sizeof j->name[i], "%s", name);
    if (strlen(value) >= sizeof j->value[i])
        return elk_fail(err, ELK_ERANGE, "gnuplot variable %s: value longer than %zu characters", name,
                        sizeof j->value[i] - 1);
    snprintf(j->value[i], sizeof j->value[i], "%s", value);
    return ELK_OK;
}

/* An axis label with its unit for a column name. */
static void col_label(const char *col, char *buf, size_t n)
{
    static const struct {
        const char *col, *label;
    } known[] = {
        {"latency_ms", "Latency per token (ms)"},
        {"pct_ideal", "% of Ideal"},
        {"hbm_util", "HBM utilisation (fraction)"},
        {"noc_util", "NoC utilisation (fraction)"},
        {"noc_pre_util", "NoC utilisation by preloads (fraction)"},
        {"noc_exe_util", "NoC utilisation by execution (fraction)"},
        {"tflops", "Achieved TFLOPS"},
        {"exec_ms", "Execute only (ms)"},
        {"overlap_ms", "Overlapped (ms)"},
        {"preload_ms", "Preload only (ms)"},
        {"noc_stall_ms", "Interconnect stall (ms)"},
        {"dist_ms", "Data distribution (ms)"},
        {"peak_matmul_tflops", "Available MatMul TFLOPS"},
        {"peak_vector_tflops", "Available vector TFLOPS"},
        {"intensity_flop_per_byte", "Operational intensity (FLOP per HBM byte)"},
        {"gflop", "Model GFLOP per step"},
        {"hbm_gb", "HBM bytes per step (GB)"},
        {"peak_resident_kib", "Peak SRAM in use per core (KiB)"},
        {"hot_bytes", "Execution space per core (bytes)"},
        {"time_us", "Time (us)"},
        {"exe_us", "Execution time (us)"},
        {"point", "Design point"},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(known[i].col, col)) {
            snprintf(buf, n, "%s", known[i].label);
            return;
        }
    char kn[64];
    snprintf(kn, sizeof kn, "%s", col);
    for (char *p = kn; *p; p++)
        if (*p == '_') *p = '-';
    int k = elk_knob_find(kn);
    if (k >= 0) {
        const elk_knob_info *ki = &elk_knobs[k];
        if (*ki->unit && strcmp(ki->unit, "x") != 0) snprintf(buf, n, "%s (%s)", ki->label, ki->unit);
        else if (*ki->unit) snprintf(buf, n, "%s (x)", ki->label);
        else snprintf(buf, n, "%s", ki->label);
        return;
    }
    snprintf(buf, n, "%s", col);
}

/* Check every space-separated column of list exists. */
static elk_status need_cols(const elk_csv_table *t, const char *what, const char *list, elk_error *err)
{
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", list);
    for (char *sv = NULL, *tok = strtok_r(tmp, " ", &sv); tok; tok = strtok_r(NULL, " ", &sv))
        if (elk_csv_col(t, tok) < 0) {
            char cols[1024] = "";
            size_t l = 0;
            for (int c = 0; c < t->ncols; c++) {
                int w = snprintf(cols + l, sizeof cols - l, "%s%s", c ? ", " : "", t->cols[c]);
                if (w < 0 || (size_t)w >= sizeof cols - l) break;
                l += (size_t)w;
            }
            return elk_fail(err, ELK_EINVAL, "%s column '%s' is not in the CSV (columns: %s)", what, tok, cols);
        }
    return ELK_OK;
}

/* Distinct values of the composite key of a column list, in order of first
 * appearance, as a gnuplot word list (values with spaces quoted). */
static int distinct_keys(const elk_csv_table *t, const char *list, char *out, size_t n)
{
    int cols[8], nc = 0;
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", list);
    for (char *sv = NULL, *tok = strtok_r(tmp, " ", &sv); tok && nc < 8; tok = strtok_r(NULL, " ", &sv)) cols[nc++] = elk_csv_col(t, tok);
    out[0] = '\0';
    if (nc == 0) return 0;
    char **seen = calloc((size_t)t->nrows + 1, sizeof *seen);
    int ns = 0;
    size_t l = 0;
    for (int r = 0; r < t->nrows && seen; r++) {
        char key[512];
        size_t kl = 0;
        key[0] = '\0';
        for (int c = 0; c < nc; c++) {
            int w = snprintf(key + kl, sizeof key - kl, "%s%s", c ? "|" : "", elk_csv_cell(t, r, cols[c]));
            if (w < 0 || (size_t)w >= sizeof key - kl) break;
            kl += (size_t)w;
        }
        if (strchr(key, '"') || strchr(key, '\'')) continue;
        int dup = 0;
        for (int i = 0; i < ns && !dup; i++) dup = !strcmp(seen[i], key);
        if (dup) continue;
        int quote = strchr(key, ' ') != NULL || !key[0];
        int w = snprintf(out + l, n - l, "%s%s%s%s", ns ? " " : "", quote ? "\"" : "", key, quote ? "\"" : "");
        if (w < 0 || (size_t)w >= n - l) {
            out[l] = '\0';
            break;
        }
        l += (size_t)w;
        seen[ns++] = strdup(key);
    }
    for (int i = 0; i < ns; i++) free(seen[i]);
    free(seen);
    return ns;
}

static double col_max(const elk_csv_table *t, const char *name)
{
    int c = elk_csv_col(t, name);
    double m = NAN;
    for (int r = 0; c >= 0 && r < t->nrows; r++) {
        double v = elk_csv_num(t, r, c);
        if (!isnan(v) && (isnan(m) || v > m)) m = v;
    }
    return m;
}

static int is_numeric_col(const elk_csv_table *t, int c)
{
    int any = 0;
    for (int r = 0; r < t->nrows; r++) {
        const char *s = elk_csv_cell(t, r, c);
        if (!*s) continue;
        if (isnan(elk_csv_num(t, r, c))) return 0;
        any = 1;
    }
    return any;
}

/* defaults for the kind, from the columns the CSV has */
static void figure_defaults(elk_sweep_figure *d, const elk_csv_table *t, const char *kind)
{
    if (!d->series[0]) {
        if (elk_csv_col(t, "policy") >= 0) snprintf(d->series, sizeof d->series, "policy");
        else if (elk_csv_col(t, "set") >= 0) snprintf(d->series, sizeof d->series, "set");
    }
    if (!d->y[0]) {
        const char *cand[] = {!strcmp(kind, "roofline") ? "tflops" : "latency_ms", "time_us", "exe_us", NULL};
        for (int i = 0; cand[i] && !d->y[0]; i++)
            if (elk_csv_col(t, cand[i]) >= 0) snprintf(d->y, sizeof d->y, "%s", cand[i]);
    }
    if (!d->x[0]) {
        if (!strcmp(kind, "roofline") && elk_csv_col(t, "intensity_flop_per_byte") >= 0)
            snprintf(d->x, sizeof d->x, "intensity_flop_per_byte");
        else if (elk_csv_col(t, "hot_bytes") >= 0)
            snprintf(d->x, sizeof d->x, "hot_bytes");
        else
            for (int c = 1; c < t->ncols && !d->x[0]; c++)
                if (strcmp(t->cols[c], d->y) && is_numeric_col(t, c)) snprintf(d->x, sizeof d->x, "%s", t->cols[c]);
    }
    if (!d->x[0] && t->ncols > 0) snprintf(d->x, sizeof d->x, "%s", t->cols[0]);
    if (!strcmp(kind, "util") && !d->cluster[0] && elk_csv_col(t, "model") >= 0)
        snprintf(d->cluster, sizeof d->cluster, "model");
    if ((!strcmp(kind, "bars") || !strcmp(kind, "breakdown")) && !d->cluster[0] && strcmp(d->x, "point"))
        snprintf(d->cluster, sizeof d->cluster, "%s", d->x);
    if (!strcmp(kind, "util")) d->row[0] = d->col[0] = '\0'; /* util lays out its own four panels */
}

/* Every column the figure and its kind name must be in the CSV. */
static elk_status figure_cols(const elk_sweep_figure *d, const elk_csv_table *t, const char *kind, elk_error *err)
{
    ELK_TRY(need_cols(t, "x", d->x, err));
    ELK_TRY(need_cols(t, "y", d->y, err));
    ELK_TRY(need_cols(t, "series", d->series, err));
    ELK_TRY(need_cols(t, "row", d->row, err));
    ELK_TRY(need_cols(t, "col", d->col, err));
    ELK_TRY(need_cols(t, "cluster", d->cluster, err));
    if (!strcmp(kind, "breakdown") || !strcmp(kind, "util"))
        ELK_TRY(need_cols(t, "breakdown", "latency_ms exec_ms overlap_ms preload_ms noc_stall_ms dist_ms", err));
    if (!strcmp(kind, "util")) ELK_TRY(need_cols(t, "utilisation", "hbm_util noc_util tflops", err));
    return ELK_OK;
}

/* The axes' labels: given, else the columns' (for bars, the clusters'). */
static elk_status figure_labels(elk_gp_job *j, const elk_sweep_figure *d, const char *kind, elk_error *err)
{
    char lab[160];
    if (d->xlabel[0]) snprintf(lab, sizeof lab, "%s", d->xlabel);
    else if (!strcmp(kind, "bars") || !strcmp(kind, "breakdown")) {
        size_t l = 0;
        lab[0] = '\0';
        char tmp[128];
        snprintf(tmp, sizeof tmp, "%s", d->cluster);
        for (char *sv = NULL, *tok = strtok_r(tmp, " ", &sv); tok; tok = strtok_r(NULL, " ", &sv)) {
            char one[96];
            col_label(tok, one, sizeof one);
            int w = snprintf(lab + l, sizeof lab - l, "%s%s", l ? " / " : "", one);
            if (w < 0 || (size_t)w >= sizeof lab - l) break;
            l += (size_t)w;
        }
    } else col_label(d->x, lab, sizeof lab);
    ELK_TRY(elk_gp_set(j, "xlabel", lab, err));
    if (d->ylabel[0]) snprintf(lab, sizeof lab, "%s", d->ylabel);
    else if (!strcmp(kind, "breakdown")) snprintf(lab, sizeof lab, "Latency per token (ms)");
    else col_label(d->y, lab, sizeof lab);
    ELK_TRY(elk_gp_set(j, "ylabel", lab, err));
    return ELK_OK;
}

/* size: enough room per panel and per bar; nr, nc, ns and ncl count the
 * rows', columns', series' and clusters' values. */
static void figure_size(elk_gp_job *j, const elk_sweep_figure *d, const char *kind, int nr, int nc, int ns, int ncl)
{
    if (nr < 1 || !d->row[0]) nr = 1;
    if (nc < 1 || !d->col[0]) nc = 1;
    if (ns < 1) ns = 1;
    int panel_w = 430, panel_h = 330;
    if (!strcmp(kind, "bars") || !strcmp(kind, "breakdown")) {
        int bars = ncl * ns;
        if (bars * 16 + 120 > panel_w) panel_w = bars * 16 + 120;
    }
    if (!d->row[0] && nc > 3) { /* the templates wrap a long single row */
        int lc = nc == 4 ? 2 : 3;
        nr = (nc + lc - 1) / lc;
        nc = lc;
    }
    if (!strcmp(kind, "util")) {
        nr = nc = 2;
        if (ncl * ns * 14 + 120 > panel_w) panel_w = ncl * ns * 14 + 120;
    }
    if (!strcmp(kind, "roofline") || !strcmp(kind, "pareto")) {
        panel_w = 900;
        panel_h = 620;
    }
    j->width = 120 + nc * panel_w;
    j->height = 90 + nr * panel_h;
    if (j->width < 900) j->width = 900;
    if (j->height < 560) j->height = 560;
    if (j->width > 4000) j->width = 4000;
    if (j->height > 4000) j->height = 4000;
}

elk_status elk_gp_from_csv(elk_gp_job *j, const elk_csv_table *t, const elk_sweep_figure *f, const char *title,
                           elk_error *err)
{
    elk_sweep_figure d;
    if (f) d = *f;
    else {
        memset(&d, 0, sizeof d);
        d.kind = -1;
    }
    const char *kind = j->kind;
    int has = 0;
    for (int k = 0; elk_fig_kind_names[k]; k++) has |= !strcmp(elk_fig_kind_names[k], kind);
    if (!has)
        return elk_fail(err, ELK_EINVAL,
                        "unknown figure kind '%s' (kinds: lines, bars, breakdown, util, roofline, pareto)", kind);
    figure_defaults(&d, t, kind);
    ELK_TRY(figure_cols(&d, t, kind, err));

    char buf[1024];
    ELK_TRY(elk_gp_set(j, "xcol", d.x, err));
    ELK_TRY(elk_gp_set(j, "ycol", d.y, err));
    ELK_TRY(elk_gp_set(j, "seriescol", d.series, err));
    ELK_TRY(elk_gp_set(j, "rowcols", d.row, err));
    ELK_TRY(elk_gp_set(j, "colcols", d.col, err));
    ELK_TRY(elk_gp_set(j, "clustercols", d.cluster, err));
    int ns = d.series[0] ? distinct_keys(t, d.series, buf, sizeof buf) : 0;
    if (!d.series[0]) snprintf(buf, sizeof buf, "%s", d.y);
    ELK_TRY(elk_gp_set(j, "series_values", buf, err));
    int nr = distinct_keys(t, d.row, buf, sizeof buf);
    ELK_TRY(elk_gp_set(j, "row_values", buf, err));
    int nc = distinct_keys(t, d.col, buf, sizeof buf);
    ELK_TRY(elk_gp_set(j, "col_values", buf, err));
    int ncl = distinct_keys(t, d.cluster, buf, sizeof buf);
    if (!d.cluster[0]) {
        snprintf(buf, sizeof buf, "\"\"");
        ncl = 1;
    }
    ELK_TRY(elk_gp_set(j, "cluster_values", buf, err));
    ELK_TRY(elk_gp_set(j, "plottitle", d.title[0] ? d.title : (title ? title : ""), err));
    ELK_TRY(figure_labels(j, &d, kind, err));
    ELK_TRY(elk_gp_set(j, "logx", d.logx || !strcmp(kind, "roofline") ? "1" : "0", err));
    ELK_TRY(elk_gp_set(j, "logy", d.logy || !strcmp(kind, "roofline") ? "1" : "0", err));
    double rc = col_max(t, "peak_matmul_tflops"), rb = col_max(t, "hbm_tbps");
    char num[64] = "";
    if (!isnan(rc)) snprintf(num, sizeof num, "%.6g", rc);
    ELK_TRY(elk_gp_set(j, "roof_compute", num, err));
    num[0] = '\0';
    if (!isnan(rb)) snprintf(num, sizeof num, "%.6g", rb);
    ELK_TRY(elk_gp_set(j, "roof_bw", num, err));

    figure_size(j, &d, kind, nr, nc, ns, ncl);
    return ELK_OK;
}

int elk_gp_find(char *path, size_t n)
{
    const char *p = getenv("PATH");
    if (!p || !*p) return 0;
    while (1) {
        const char *e = strchr(p, ':');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char cand[1024];
        if (len == 0) snprintf(cand, sizeof cand, "./gnuplot");
        else snprintf(cand, sizeof cand, "%.*s/gnuplot", (int)len, p);
        struct stat st;
        if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0) {
            snprintf(path, n, "%s", cand);
            return 1;
        }
        if (!e) return 0;
        p = e + 1;
    }
}

elk_status elk_gp_start(elk_gp_proc *p, const char *gp, int outfd, elk_error *err)
{
    int pfd[2];
    p->fp = NULL;
    p->pid = -1;
    if (pipe(pfd) != 0) return elk_fail(err, ELK_ETOOL, "cannot start gnuplot: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(pfd[0]);
        close(pfd[1]);
        return elk_fail(err, ELK_ETOOL, "cannot start gnuplot: %s", strerror(e));
    }
    if (pid == 0) {
        dup2(pfd[0], 0);
        int out = outfd >= 0 ? outfd : open("/dev/null", O_WRONLY);
        dup2(out, 1);
        dup2(out, 2);
        close(pfd[0]);
        close(pfd[1]);
        signal(SIGPIPE, SIG_DFL);
        execl(gp, "gnuplot", (char *)NULL);
        _exit(127);
    }
    close(pfd[0]);
    fcntl(pfd[1], F_SETFD, FD_CLOEXEC);
    p->fp = fdopen(pfd[1], "w");
    if (!p->fp) {
        int e = errno;
        close(pfd[1]);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
        }
        return elk_fail(err, ELK_ETOOL, "cannot talk to gnuplot: %s", strerror(e));
    }
    p->pid = pid;
    return ELK_OK;
}

int elk_gp_finish(elk_gp_proc *p)
{
    if (p->fp) fclose(p->fp);
    p->fp = NULL;
    int status = -1;
    if (p->pid > 0)
        while (waitpid(p->pid, &status, 0) < 0) {
            if (errno != EINTR) {
                status = -1;
                break;
            }
        }
    p->pid = -1;
    return status;
}

/* gnuplot single-quoted string: only ' needs doubling. */
static void put_sq(FILE *fp, const char *s)
{
    fputc('\'', fp);
    for (; *s; s++) {
        if (*s == '\'') fputc('\'', fp);
        if (*s == '\n') continue;
        fputc(*s, fp);
    }
    fputc('\'', fp);
}

static elk_status copy_file(FILE *fp, const char *path, elk_error *err)
{
    FILE *in = fopen(path, "r");
    if (!in) return elk_fail(err, ELK_EIO, "%s: cannot open the plot template: %s", path, strerror(errno));
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, fp) != n) break;
    fclose(in);
    return ELK_OK;
}

static const char *ext_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(path, '.');
    return dot && (!slash || dot > slash) ? dot + 1 : "";
}

elk_status elk_gp_script(const elk_gp_job *j, const char *script_output, FILE *fp, elk_error *err)
{
    char common[1200], tmpl[1200];
    snprintf(common, sizeof common, "%s/plots/common.gp", elk_datadir());
    snprintf(tmpl, sizeof tmpl, "%s/plots/%s.gp", elk_datadir(), j->kind);
    struct stat st;
    if (stat(tmpl, &st) != 0)
        return elk_fail(err, ELK_EIO, "%s: no such plot template (kind '%s'; is ELK_DATADIR right?)", tmpl, j->kind);
    const char *ext = ext_of(j->output);
    int w = j->width > 0 ? j->width : 1200, h = j->height > 0 ? j->height : 800;
    fprintf(fp, "# Elk Workbench figure (kind '%s'), drawn by gnuplot from the data embedded below.\n", j->kind);
    fprintf(fp, "# Regenerate it without elk: run gnuplot on this file (it writes ");
    put_sq(fp, script_output);
    fprintf(fp, " in the current directory\n# when that is a bare name). The drawing code is plots/common.gp, then plots/%s.gp.\n",
            j->kind);
    if (!strcasecmp(ext, "png"))
        fprintf(fp,
                "if (strstrt(GPVAL_TERMINALS, \" pngcairo \") > 0) {\n"
                "    set terminal pngcairo size %d,%d noenhanced font \"sans,10\" background rgb \"white\"\n"
                "} else {\n    set terminal png size %d,%d noenhanced background rgb \"white\"\n}\n",
                w, h, w, h);
    else if (!strcasecmp(ext, "svg"))
        fprintf(fp, "set terminal svg size %d,%d noenhanced font \"sans,10\" background rgb \"white\"\n", w, h);
    else if (!strcasecmp(ext, "pdf"))
        fprintf(fp, "set terminal pdfcairo size %.2fin,%.2fin noenhanced font \"sans,7\"\n", w / 100.0, h / 100.0);
    else
        return elk_fail(err, ELK_EINVAL, "%s: unknown figure format '.%s' (use .png, .svg or .pdf)", j->output, ext);
    fprintf(fp, "set output ");
    put_sq(fp, script_output);
    fputc('\n', fp);
    for (int i = 0; i < j->nvars; i++) {
        fprintf(fp, "%s = ", j->name[i]);
        put_sq(fp, j->value[i]);
        fputc('\n', fp);
    }
    fprintf(fp, "$data << EOD\n");
    const char *d = j->data ? j->data : "";
    while (*d) {
        const char *e = strchr(d, '\n');
        size_t len = e ? (size_t)(e - d) : strlen(d);
        if (!(len >= 3 && !strncmp(d, "EOD", 3))) {
            fwrite(d, 1, len, fp);
            fputc('\n', fp);
        }
        d += len + (e ? 1 : 0);
    }
    fprintf(fp, "EOD\n\n");
    ELK_TRY(copy_file(fp, common, err));
    fputc('\n', fp);
    ELK_TRY(copy_file(fp, tmpl, err));
    fprintf(fp, "\nunset output\n");
    if (ferror(fp)) return elk_fail(err, ELK_EIO, "cannot write the gnuplot script");
    return ELK_OK;
}

static elk_status draw(const elk_gp_job *j, const char *gp, const char *wpath, elk_error *err);

elk_status elk_gp_render(const elk_gp_job *j, elk_error *err)
{
    char gp[1024];
    if (!elk_gp_find(gp, sizeof gp))
        return elk_fail(err, ELK_ETOOL,
                        "gnuplot is not installed (no 'gnuplot' in PATH), so %s was not drawn; install it "
                        "(Debian/Ubuntu: apt-get install gnuplot-nox) or plot the CSV with another tool",
                        j->output);
    if (elk_file_is_std(j->output))
        return elk_fail(err, ELK_EINVAL, "a figure cannot go to stdout (-o -); name a .png, .svg or .pdf file");
    const char *ext = ext_of(j->output);
    if (strcasecmp(ext, "png") && strcasecmp(ext, "svg") && strcasecmp(ext, "pdf"))
        return elk_fail(err, ELK_EINVAL, "%s: unknown figure format '.%s' (use .png, .svg or .pdf)", j->output, ext);
    /* gnuplot draws into a temporary file beside the figure (or straight into
     * a device or FIFO), renamed over it only when gnuplot succeeded */
    elk_file fig;
    ELK_TRY(elk_file_open(&fig, j->output, err));
    const char *wpath = elk_file_wpath(&fig);
    elk_status st = draw(j, gp, wpath, err);
    if (st == ELK_OK) return elk_file_commit(&fig, err);
    elk_file_abort(&fig);
    return st;
}

/* Pipe the script into gnuplot with its output set to wpath and check it
 * drew something there. */
static elk_status draw(const elk_gp_job *j, const char *gp, const char *wpath, elk_error *err)
{
    const char *tmpdir = getenv("TMPDIR");
    char errpath[1024];
    snprintf(errpath, sizeof errpath, "%s/elk-gnuplot-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    int fd = mkstemp(errpath);
    if (fd < 0) return elk_fail(err, ELK_EIO, "cannot create a temporary file for gnuplot's messages: %s",
                                strerror(errno));
    close(fd);
    struct sigaction ign, old;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &old);
    int efd = open(errpath, O_WRONLY | O_TRUNC | O_CLOEXEC);
    elk_gp_proc gpp;
    elk_status st = efd < 0 ? elk_fail(err, ELK_EIO, "%s: %s", errpath, strerror(errno))
                            : elk_gp_start(&gpp, gp, efd, err);
    if (efd >= 0) close(efd);
    int rc = -1;
    if (st == ELK_OK) {
        elk_error serr;
        elk_status ss = elk_gp_script(j, wpath, gpp.fp, &serr);
        rc = elk_gp_finish(&gpp);
        if (ss != ELK_OK && !(ss == ELK_EIO && rc != 0)) st = elk_fail(err, ss, "%s", serr.msg);
    }
    sigaction(SIGPIPE, &old, NULL);
    /* gnuplot echoes the failing command, a caret, then "FILE" line N: what;
     * keep the last two meaningful lines */
    char all[8192] = "";
    FILE *ef = fopen(errpath, "r");
    if (ef) {
        size_t n = fread(all, 1, sizeof all - 1, ef);
        all[n] = '\0';
        fclose(ef);
    }
    unlink(errpath);
    if (st != ELK_OK) return st;
    char msg[700] = "";
    {
        const char *keep[2] = {NULL, NULL};
        size_t klen[2] = {0, 0};
        const char *p = all;
        while (*p) {
            const char *e = strchr(p, '\n');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            size_t k = 0;
            while (k < len && (p[k] == ' ' || p[k] == '\t' || p[k] == '^')) k++;
            if (k < len && strncmp(p, "more>", 5) != 0) {
                keep[0] = keep[1];
                klen[0] = klen[1];
                keep[1] = p + k;
                klen[1] = len - k;
            }
            p += len + (e ? 1 : 0);
        }
        for (int i = 0; i < 2; i++)
            if (keep[i]) {
                size_t l = strlen(msg);
                snprintf(msg + l, sizeof msg - l, "%s%.*s", l ? " | " : "", (int)(klen[i] > 300 ? 300 : klen[i]),
                         keep[i]);
            }
    }
    size_t ml = strlen(msg);
    if (rc == -1 || !WIFEXITED(rc))
        return elk_fail(err, ELK_ETOOL, "gnuplot did not finish drawing %s%s%s", j->output, ml ? ": " : "", msg);
    if (WEXITSTATUS(rc) == 127)
        return elk_fail(err, ELK_ETOOL, "cannot run %s%s%s", gp, ml ? ": " : "", msg);
    if (WEXITSTATUS(rc) != 0)
        return elk_fail(err, ELK_ETOOL, "gnuplot failed (exit status %d) drawing %s: %s", WEXITSTATUS(rc), j->output,
                        ml ? msg : "(no message)");
    struct stat sb;
    if (stat(wpath, &sb) != 0 || (S_ISREG(sb.st_mode) && sb.st_size == 0))
        return elk_fail(err, ELK_ETOOL, "gnuplot wrote nothing to %s%s%s", j->output, ml ? ": " : "", msg);
    return ELK_OK;
}
