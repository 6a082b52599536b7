#include "tui_app.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <panel.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "elk_file.h"
#include "tui.h"
#include "tui_color.h"
#include "tui_compare.h"
#include "tui_draw.h"
#include "tui_export.h"
#include "tui_help.h"
#include "tui_keybar.h"
#include "tui_knobs.h"
#include "tui_log.h"
#include "tui_statusline.h"
#include "tui_keys.h"
#include "tui_netsim.h"
#include "tui_sens.h"
#include "tui_worker.h"
#include "view_breakdown.h"
#include "view_network.h"
#include "view_pareto.h"
#include "view_sensitivity.h"
#include "view_roofline.h"
#include "view_sweep.h"
#include "view_timeline.h"

/* The views, in tab order (key 1 is the first): each is view_NAME.c with
 * view_NAME_new() returning its elk_view (tui.h). Adding a view is its
 * file pair and a row here; the tabs, number keys and help follow. */
#define TUI_VIEWS(X) X(breakdown) X(pareto) X(roofline) X(timeline) X(sweep) X(network) X(sensitivity)
#define TUI_VIEW_COUNT(name) +1
#define NVIEWS (0 TUI_VIEWS(TUI_VIEW_COUNT))
_Static_assert(NVIEWS <= 9, "views are chosen with the keys 1-9");

#define TUI_VIEW_NAME(name) #name,
static const char *const view_names[] = {TUI_VIEWS(TUI_VIEW_NAME) NULL};
#undef TUI_VIEW_NAME

int elk_tui_view_find(const char *v)
{
    if (v[0] >= '1' && v[0] < '1' + NVIEWS && !v[1]) return v[0] - '1';
    for (int i = 0; i < NVIEWS; i++)
        if (!strcmp(v, view_names[i])) return i;
    return -1;
}

void elk_tui_view_list(char *buf, size_t n)
{
    size_t l = (size_t)snprintf(buf, n, "1-%d", NVIEWS);
    for (int i = 0; i < NVIEWS && l < n; i++)
        l += (size_t)snprintf(buf + l, n - l, "%s%s", i == NVIEWS - 1 ? " or " : ", ", view_names[i]);
}
#define MIN_COLS 80
#define MIN_LINES 24

/* ---- terminal state, restored on every exit path ---- */

static volatile sig_atomic_t curses_on;
static int saved_stderr = -1;

static void term_restore(void)
{
    if (curses_on) {
        curses_on = 0;
        endwin();
    }
    if (saved_stderr >= 0) {
        fflush(stderr);
        dup2(saved_stderr, 2);
        close(saved_stderr);
        saved_stderr = -1;
    }
}

static void on_fatal(int sig)
{
    /* endwin is not async-signal-safe, but leaving the terminal raw is
     * worse; this is what htop and friends do */
    term_restore();
    elk_file_cleanup_temps(); /* no half-written export left behind */
    signal(sig, SIG_DFL);
    raise(sig);
}

/* SIGINT, SIGTERM and SIGHUP end the workbench from its event loop: the
 * handler only notes the signal and writes to the wake pipe (both
 * async-signal-safe; the worker threads block these signals, core/elk_thread,
 * so the handler runs on this thread), and the loop restores the terminal,
 * joins the workers and dies of the signal. A second one before the loop
 * gets there (a long export) takes the fatal path at once. */
static volatile sig_atomic_t g_stop_sig;
static volatile sig_atomic_t g_stop_fd = -1; /* the wake pipe, -1 once closed */

static void on_stop(int sig)
{
    if (g_stop_sig) {
        on_fatal(sig);
        return;
    }
    g_stop_sig = sig;
    if (g_stop_fd >= 0) {
        int saved = errno;
        char c = 's';
        ssize_t r = write(g_stop_fd, &c, 1);
        (void)r; /* a full pipe already wakes the loop */
        errno = saved;
    }
}

static void install_handlers(int wake_fd)
{
    static const int stops[] = {SIGINT, SIGTERM, SIGHUP};
    static const int sigs[] = {SIGQUIT, SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    g_stop_fd = wake_fd;
    sa.sa_handler = on_stop;
    for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++) sigaction(stops[i], &sa, NULL);
    sa.sa_handler = on_fatal;
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaction(sigs[i], &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    atexit(term_restore);
}

/* After the loop stopped for a signal: clean up as on_fatal does, then die
 * of it (exit status 128 + sig, as the shell expects). */
static void die_of_stop_signal(void)
{
    int sig = g_stop_sig;
    if (!sig) return;
    elk_file_cleanup_temps();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void redirect_stderr(const char *path)
{
    int fd = tui_log_open(path);
    if (fd < 0) fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (fd < 0) return;
    fflush(stderr);
    saved_stderr = fcntl(2, F_DUPFD_CLOEXEC, 10);
    dup2(fd, 2);
    close(fd);
    time_t t = time(NULL);
    char stamp[64];
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
    fprintf(stderr, "--- elk tui started %s (pid %d)\n", stamp, (int)getpid());
}

/* ---- the app ---- */

typedef struct {
    tui_opts o;
    tui_design design;
    tui_knobs knobs;
    elk_view *views[NVIEWS];
    int cur;
    tui_statusline status;
    tui_help *help;
    int help_on;
    elk_plan_cache *pc;
    tui_worker *worker;
    tui_sweeper *sweeper;
    tui_netsim *netsim;
    tui_sens *sens;
    tui_sweeper *pin_sweeper;
    int wake[2];
    tui_snap *snap;
    tui_snap *pin;      /* the pinned result (b); may be the same object as snap */
    int fixed_axes;
    /* undo / redo of knob changes: the points before each change */
#define TUI_UNDO_MAX 64
    elk_point undo[TUI_UNDO_MAX], redo[TUI_UNDO_MAX];
    int nundo, nredo;
    elk_point requested;
    unsigned long req_id;
    tui_ctx cx;
    int quit;
    int dirty;
    int idle_reads;     /* polls in a row that found input readable and no key */
    /* where the last draw put things, for mouse clicks */
    int tab_x0[NVIEWS], tab_x1[NVIEWS];
    tui_rect knob_rect;
    int policy_row[ELK_POL_COUNT];
    char log_path[1024];
    /* benchmark */
    int bench_i, bench_waiting;
    double bench_t0;
    double *bench_ms, *bench_compute; /* per change: change to complete result drawn, its compute */
    double *bench_first;              /* per change: change to its first result drawn (provisional or not) */
    int bench_nprov;                  /* changes whose first result was provisional */
    int bench_knobs[8], bench_nknobs;
} tui_app;

static void ctx_message(tui_ctx *cx, int error, const char *fmt, ...)
{
    tui_app *a = cx->app;
    va_list ap;
    va_start(ap, fmt);
    tui_status_message(&a->status, error, fmt, ap);
    va_end(ap);
    a->dirty = 1;
}

static void ctx_prompt(tui_ctx *cx, const char *label, const char *initial, tui_prompt_done done, void *obj)
{
    tui_app *a = cx->app;
    tui_status_prompt(&a->status, label, initial, done, obj);
    a->dirty = 1;
}

static void request(tui_app *a, int force)
{
    if (!force && a->req_id && !memcmp(&a->requested, &a->design.point, sizeof a->requested)) return;
    a->requested = a->design.point;
    a->req_id++;
    /* the network view simulates again once this result is in */
    if (a->netsim) tui_netsim_cancel(a->netsim);
    if (a->sens) tui_sens_cancel(a->sens);
    tui_worker_request(a->worker, &a->requested, a->req_id);
    a->dirty = 1;
}

static void build_ctx(tui_app *a)
{
    tui_ctx *cx = &a->cx;
    cx->snap = a->snap;
    cx->point = &a->design.point;
    cx->chip = &a->design.chip;
    cx->model = &a->design.model;
    cx->focus = a->design.focus;
    cx->ascii = tui_ascii();
    cx->busy = tui_worker_busy(a->worker);
    cx->stale = a->snap && a->snap->id != a->req_id;
    cx->sweeper = a->sweeper;
    cx->netsim = a->netsim;
    cx->sens = a->sens;
    cx->pin_sweeper = a->pin_sweeper;
    cx->pin = a->pin;
    cx->fixed_axes = a->fixed_axes;
    cx->message = ctx_message;
    cx->prompt = ctx_prompt;
    cx->app = a;
}

static void draw_tabs(tui_app *a, int y)
{
    tui_fill(y, 0, COLS, tui_attr(TC_TAB), " ");
    /* six tabs fit 80 columns only with the short title */
    int x = tui_puts(y, 1, COLS - 1, tui_attr(TC_TITLE), COLS >= 100 ? "Elk Workbench" : "Elk") + (COLS >= 100 ? 3 : 2);
    for (int i = 0; i < NVIEWS; i++) {
        char t[48];
        snprintf(t, sizeof t, " %d %s ", i + 1, a->views[i]->title);
        a->tab_x0[i] = x;
        x += tui_puts(y, x, COLS - x, i == a->cur ? tui_attr(TC_TAB_ACTIVE) : tui_attr(TC_TAB), t) + 1;
        a->tab_x1[i] = x - 1;
    }
    const char *ver = tui_ascii() ? "?=help" : "?=help";
    if (x + 8 < COLS) tui_puts(y, COLS - 7, 7, tui_attr(TC_DIM), ver);
    /* every view shows the provisional result: say so above them all */
    static const char prov[] = " PROVISIONAL ";
    int pw = (int)sizeof prov - 1;
    if (a->snap && a->snap->provisional && a->snap->id == a->req_id && x + pw + 9 < COLS)
        tui_puts(y, COLS - 8 - pw, pw, tui_attr(TC_BUSY) | A_REVERSE | A_BOLD, prov);
}

static void draw_all(tui_app *a)
{
    build_ctx(a);
    erase();
    if (COLS < MIN_COLS || LINES < MIN_LINES) {
        tui_rect r = {0, 0, LINES, COLS};
        char msg[256];
        snprintf(msg, sizeof msg, "Terminal too small: %dx%d\nThe workbench needs at least %dx%d.\nEnlarge the window, or press q to quit.",
                 COLS, LINES, MIN_COLS, MIN_LINES);
        tui_center(&r, tui_attr(TC_ERROR), msg);
        wnoutrefresh(stdscr);
        doupdate();
        return;
    }
    int y = 0;
    draw_tabs(a, y++);
    int kr = tui_knobs_rows(COLS);
    tui_rect kb = {y, 0, kr, COLS};
    a->knob_rect = kb;
    tui_knobs_draw(&a->knobs, &kb, &a->cx);
    y += kr;
    tui_fill(y++, 0, COLS, tui_attr(TC_DIM), tui_g.hline);
    tui_rect vr = {y, 0, LINES - 2 - y, COLS};
    elk_view *v = a->views[a->cur];
    for (int p = 0; p < ELK_POL_COUNT; p++) a->cx.policy_row[p] = -1;
    v->draw(v, &vr, &a->cx);
    memcpy(a->policy_row, a->cx.policy_row, sizeof a->policy_row);
    tui_rect sr = {LINES - 2, 0, 1, COLS};
    tui_status_draw(&a->status, &sr, &a->cx);
    tui_rect kbar = {LINES - 1, 0, 1, COLS};
    tui_keybar_draw(&kbar, v, NVIEWS);
    wnoutrefresh(stdscr);
    if (a->help_on) {
        if (!a->help) a->help = tui_help_open(a->views, NVIEWS, tui_ascii());
        tui_help_show(a->help);
    }
    doupdate();
}

static void do_export(tui_app *a, int plot)
{
    build_ctx(a);
    if (a->snap && a->snap->provisional) {
        ctx_message(&a->cx, 1, "the result shown is provisional (coarse plan space): export once the complete one is in");
        return;
    }
    elk_view *v = a->views[a->cur];
    char path[1100], msg[600];
    msg[0] = '\0';
    int rc = plot ? tui_export_plot(v, &a->cx, a->o.plot_format, path, sizeof path, msg, sizeof msg)
                  : tui_export_csv(v, &a->cx, path, sizeof path, msg, sizeof msg);
    if (rc == 0) ctx_message(&a->cx, 0, "wrote %s", path);
    else ctx_message(&a->cx, 1, "%s", msg);
}

/* ---- compare, undo, save and load ---- */

static void snap_drop(tui_app *a, tui_snap *s)
{
    if (s && s != a->pin && s != a->snap) tui_snap_free(s);
}

static void toggle_pin(tui_app *a)
{
    if (a->pin) {
        tui_snap *old = a->pin;
        a->pin = NULL;
        snap_drop(a, old);
        ctx_message(&a->cx, 0, "unpinned (b pins the current point)");
        return;
    }
    if (!tui_snap_ok(a->snap) || a->snap->id != a->req_id || a->snap->provisional) {
        ctx_message(&a->cx, 1, "nothing to pin yet: wait for the current point's complete result");
        return;
    }
    a->pin = a->snap;
    ctx_message(&a->cx, 0, "pinned this point: turn knobs to compare (b unpins)");
}

static void push_point(elk_point *stack, int *n, const elk_point *p)
{
    if (*n == TUI_UNDO_MAX) {
        memmove(stack, stack + 1, sizeof *stack * (TUI_UNDO_MAX - 1));
        (*n)--;
    }
    stack[(*n)++] = *p;
}

/* Move the design to the top of `from`, pushing the current point on `to`. */
static void undo_redo(tui_app *a, int redo)
{
    elk_point *from = redo ? a->redo : a->undo, *to = redo ? a->undo : a->redo;
    int *nf = redo ? &a->nredo : &a->nundo, *nt = redo ? &a->nundo : &a->nredo;
    const char *what = redo ? "redo" : "undo";
    if (*nf == 0) {
        ctx_message(&a->cx, 0, "nothing to %s", what);
        return;
    }
    tui_design old = a->design;
    elk_error err;
    if (tui_design_set(&a->design, &from[*nf - 1], &err) != ELK_OK) {
        ctx_message(&a->cx, 1, "%s: %s", what, err.msg);
        return;
    }
    (*nf)--;
    push_point(to, nt, &old.point);
    char d[400];
    tui_point_diff(&old.point, &old.chip, &old.model, &a->design.point, &a->design.chip, &a->design.model, d, sizeof d);
    ctx_message(&a->cx, 0, "%s: %s (%d more)", what, d[0] ? d : "no change", *nf);
}

static void save_done(void *obj, tui_ctx *cx, const char *text)
{
    tui_app *a = obj;
    if (!text || !*text) return;
    elk_error err;
    if (elk_point_save(text, &a->design.point, &a->design.chip, &a->design.model, &err) != ELK_OK)
        cx->message(cx, 1, "%s", err.msg);
    else cx->message(cx, 0, "saved the point to %s (elk run --point %s)", text, text);
}

static void load_done(void *obj, tui_ctx *cx, const char *text)
{
    tui_app *a = obj;
    if (!text || !*text) return;
    elk_point p;
    elk_point_defaults(&p);
    elk_error err;
    if (elk_point_load(text, &p, &err) != ELK_OK || tui_design_set(&a->design, &p, &err) != ELK_OK)
        cx->message(cx, 1, "%s", err.msg);
    else cx->message(cx, 0, "loaded the point from %s (u undoes)", text);
}

static void set_view(tui_app *a, int i)
{
    a->cur = i;
    a->dirty = 1;
}

/* '/': a knob by label or flag name, else an operator by name (shown in
 * the Pareto view). */
static void find_done(void *obj, tui_ctx *cx, const char *text)
{
    tui_app *a = obj;
    if (!text || !*text) return;
    int k = tui_knobs_find(text);
    if (k >= 0) {
        a->knobs.sel = k;
        cx->message(cx, 0, "knob %s (Left/Right step it, Enter types it)", tui_knobs_label(k));
        return;
    }
    if (tui_snap_ok(a->snap)) {
        const elk_graph *g = &a->snap->pr.graph;
        for (int pass = 0; pass < 2; pass++)
            for (int i = 0; i < g->nops; i++) {
                /* an exact name first (L1.qkv), then the first that contains it (qkv) */
                if (pass == 0 ? strcmp(g->ops[i].name, text) != 0 : strstr(g->ops[i].name, text) == NULL) continue;
                view_pareto_select(a->views[1], i);
                set_view(a, 1);
                cx->message(cx, 0, "operator %d %s (Pareto; [ ] and < > step from here)", i, g->ops[i].name);
                return;
            }
    }
    cx->message(cx, 1, "no knob or operator matches \"%s\"", text);
}

/* Mouse (htop's habits): a click on a tab shows that view, on a knob
 * selects it, on a policy's label focuses it; the wheel steps the selected
 * knob. */
static void mouse(tui_app *a)
{
    MEVENT ev;
    if (getmouse(&ev) != OK) return;
    int wheel = ev.bstate & BUTTON4_PRESSED ? 1 : ev.bstate & BUTTON5_PRESSED ? -1 : 0;
    if (wheel) {
        (void)tui_knobs_key(&a->knobs, wheel > 0 ? KEY_RIGHT : KEY_LEFT, &a->cx); /* the loop then asks the worker */
        return;
    }
    if (!(ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED))) return;
    if (ev.y == 0) {
        for (int i = 0; i < NVIEWS; i++)
            if (ev.x >= a->tab_x0[i] && ev.x < a->tab_x1[i]) set_view(a, i);
        return;
    }
    int k = tui_knobs_at(&a->knob_rect, ev.y, ev.x);
    if (k >= 0) {
        a->knobs.sel = k;
        a->dirty = 1;
        return;
    }
    for (int p = 0; p < ELK_POL_COUNT; p++)
        if (a->policy_row[p] == ev.y && ev.x < 12) {
            a->design.focus = p;
            ctx_message(&a->cx, 0, "focused %s", elk_policy_labels[p]);
        }
}

static void handle_key1(tui_app *a, int ch);

/* Every key goes through here: a key that changed the design point (a
 * step, a typed value, c, a loaded file) leaves the old point on the undo
 * stack. */
static void handle_key(tui_app *a, int ch)
{
    elk_point before = a->design.point;
    int undo_key = !a->status.prompting && !a->help_on && (ch == 'u' || ch == 'U');
    handle_key1(a, ch);
    if (!undo_key && memcmp(&before, &a->design.point, sizeof before)) {
        push_point(a->undo, &a->nundo, &before);
        a->nredo = 0;
    }
}

static void handle_key1(tui_app *a, int ch)
{
    build_ctx(a);
    a->dirty = 1;
    if (ch == KEY_RESIZE) {
        if (a->help) {
            tui_help_close(a->help);
            a->help = NULL;
        }
        return;
    }
    if (a->help_on) {
        if (tui_help_key(a->help, ch)) return;
        a->help_on = 0;
        tui_help_close(a->help);
        a->help = NULL;
        return;
    }
    if (a->status.prompting) {
        tui_status_prompt_key(&a->status, ch, &a->cx);
        return;
    }
    if (COLS < MIN_COLS || LINES < MIN_LINES) {
        if (ch == 'q' || ch == 'Q') a->quit = 1;
        return;
    }
    if (ch == KEY_MOUSE) {
        mouse(a);
        return;
    }
    elk_view *v = a->views[a->cur];
    unsigned bits = v->key ? v->key(v, ch, &a->cx) : 0;
    if (!(bits & ELK_VIEW_HANDLED)) bits = tui_knobs_key(&a->knobs, ch, &a->cx);
    if (bits & ELK_VIEW_HANDLED) {
        if (bits & ELK_VIEW_QUIT) a->quit = 1;
        if (bits & ELK_VIEW_HELP) a->help_on = 1;
        if (bits & ELK_VIEW_EXPORT_CSV) do_export(a, 0);
        if (bits & ELK_VIEW_EXPORT_PLOT) do_export(a, 1);
        if (bits & ELK_VIEW_RECOMPUTE) request(a, 0);
        return;
    }
    switch (tui_key_action(ch)) {
    case TUI_ACT_QUIT: a->quit = 1; break;
    case TUI_ACT_VIEW:
        if (ch - '1' < NVIEWS) set_view(a, ch - '1');
        break;
    case TUI_ACT_HELP: a->help_on = 1; break;
    case TUI_ACT_EXPORT: do_export(a, 0); break;
    case TUI_ACT_PLOT: do_export(a, 1); break;
    case TUI_ACT_FOCUS:
        a->design.focus = (a->design.focus + (ch == 'p' ? 1 : ELK_POL_COUNT - 1)) % ELK_POL_COUNT;
        break;
    case TUI_ACT_RECOMPUTE: request(a, 1); break;
    case TUI_ACT_PIN: toggle_pin(a); break;
    case TUI_ACT_UNDO: undo_redo(a, ch == 'U'); break;
    case TUI_ACT_AXES:
        a->fixed_axes = !a->fixed_axes;
        ctx_message(&a->cx, 0, a->fixed_axes ? "axes fixed: scales stay as they are now (f frees them)"
                                             : "axes free: scales follow each point again");
        break;
    case TUI_ACT_SAVE:
        if (ch == 'w') ctx_prompt(&a->cx, "Save the point to", "elk-point.cfg", save_done, a);
        else ctx_prompt(&a->cx, "Load a point from", "elk-point.cfg", load_done, a);
        break;
    case TUI_ACT_FIND: ctx_prompt(&a->cx, "Find a knob or operator", "", find_done, a); break;
    case TUI_ACT_REPAINT: clearok(curscr, TRUE); break;
    case TUI_ACT_PANEL: break; /* the panel had its chance above */
    case TUI_ACT_NONE:
        if (ch != 27) a->dirty = 0; /* Esc repaints (it may close a message) */
        break;
    }
}

/* ---- benchmark mode ---- */

static int bench_knob(const char *name)
{
    static const struct {
        const char *n;
        int k;
    } map[] = {{"hbm", TK_HBM},           {"hbm-ctrl", TK_HBM_CTRL}, {"hbm-model", TK_HBM_MODEL},
               {"noc", TK_NOC},           {"link", TK_LINK},         {"cores", TK_CORES},
               {"topology", TK_TOPOLOGY}, {"sram", TK_SRAM},         {"compute", TK_COMPUTE},
               {"chip", TK_CHIP},         {"model", TK_MODEL},       {"workload", TK_WORKLOAD},
               {"batch", TK_BATCH},       {"seq", TK_SEQ},           {"layers", TK_LAYERS},
               {"profile", TK_PROFILE}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(map[i].n, name)) return map[i].k;
    return -1;
}

static void bench_step(tui_app *a)
{
    if (!a->o.bench_knobs || a->bench_waiting || !a->snap || a->snap->id != a->req_id || a->snap->provisional) return;
    if (a->bench_i >= a->o.bench_knobs) {
        a->quit = 1;
        return;
    }
    int i = a->bench_i;
    /* walk each knob up for the first half of its changes, then back down,
     * so every change is a point not computed just before */
    int k = a->bench_knobs[i % a->bench_nknobs];
    int per = (a->o.bench_knobs + a->bench_nknobs - 1) / a->bench_nknobs;
    int dir = i / a->bench_nknobs < (per + 1) / 2 ? 1 : -1;
    elk_error err;
    if (tui_knobs_step(&a->knobs, k, dir, 0, &err) < 0) tui_knobs_step(&a->knobs, k, -dir, 0, &err);
    a->bench_t0 = tui_now_ms();
    a->bench_first[i] = NAN;
    a->bench_waiting = 1;
    request(a, 1);
}

static void bench_drawn(tui_app *a)
{
    if (!a->o.bench_knobs || !a->bench_waiting || !a->snap || a->snap->id != a->req_id) return;
    if (isnan(a->bench_first[a->bench_i])) {
        a->bench_first[a->bench_i] = tui_now_ms() - a->bench_t0;
        a->bench_nprov += a->snap->provisional;
    }
    if (a->snap->provisional) return; /* the complete result follows */
    a->bench_ms[a->bench_i] = tui_now_ms() - a->bench_t0;
    a->bench_compute[a->bench_i] = a->snap->ms;
    a->bench_i++;
    a->bench_waiting = 0;
}

static int cmpd(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static void bench_report(tui_app *a, double first_ms)
{
    int n = a->bench_i;
    elk_file out;
    elk_error err;
    FILE *fp = stdout;
    if (a->o.bench_out && elk_file_open(&out, a->o.bench_out, &err) == ELK_OK) fp = out.fp;
    double *t = a->bench_ms, *c = a->bench_compute, *f = a->bench_first;
    qsort(t, (size_t)n, sizeof *t, cmpd);
    qsort(c, (size_t)n, sizeof *c, cmpd);
    qsort(f, (size_t)n, sizeof *f, cmpd);
    fprintf(fp, "model=%s chip=%s cores=%d knobs=%s changes=%d\n", a->design.model.name, a->design.chip.name,
            a->design.chip.cores, a->o.bench_which ? a->o.bench_which : "hbm,noc", n);
    fprintf(fp, "first_result_ms=%.1f\n", first_ms);
    if (n) {
        fprintf(fp, "redraw_ms median=%.1f p90=%.1f min=%.1f max=%.1f\n", t[n / 2], t[(n * 9) / 10 < n ? (n * 9) / 10 : n - 1],
                t[0], t[n - 1]);
        fprintf(fp, "compute_ms median=%.1f min=%.1f max=%.1f\n", c[n / 2], c[0], c[n - 1]);
        /* the first result on screen after each change: provisional when
         * plans had to be enumerated, else the complete one */
        fprintf(fp, "first_shown_ms median=%.1f max=%.1f provisional=%d of %d\n", f[n / 2], f[n - 1],
                a->bench_nprov, n);
    }
    if (fp != stdout && elk_file_commit(&out, &err) != ELK_OK) fprintf(stderr, "elk: %s\n", err.msg);
}

/* ---- main ---- */

void tui_opts_default(tui_opts *o)
{
    memset(o, 0, sizeof *o);
    o->plot_format = "png";
    o->focus = ELK_POL_FULL;
}

static int utf8_locale(void)
{
    const char *cs = nl_langinfo(CODESET);
    return cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
}

static void app_free(tui_app *a)
{
    g_stop_fd = -1; /* the pipe closes below */
    if (a->help) tui_help_close(a->help);
    tui_sweeper_stop(a->sweeper);
    tui_sweeper_stop(a->pin_sweeper);
    tui_worker_stop(a->worker);
    tui_netsim_stop(a->netsim);
    tui_sens_stop(a->sens);
    if (a->pin != a->snap) tui_snap_free(a->pin);
    tui_snap_free(a->snap);
    for (int i = 0; i < NVIEWS; i++)
        if (a->views[i]) {
            if (a->views[i]->destroy) a->views[i]->destroy(a->views[i]);
            free(a->views[i]);
        }
    if (a->pc) elk_plan_cache_free(a->pc);
    if (a->wake[0] >= 0) close(a->wake[0]);
    if (a->wake[1] >= 0) close(a->wake[1]);
    free(a->bench_ms);
    free(a->bench_compute);
    free(a->bench_first);
    free(a);
}

/* --bench-which LIST into a->bench_knobs: 0, or the exit status. */
static int bench_parse(tui_app *a, const tui_opts *o)
{
    a->bench_ms = calloc((size_t)o->bench_knobs, sizeof *a->bench_ms);
    a->bench_compute = calloc((size_t)o->bench_knobs, sizeof *a->bench_compute);
    a->bench_first = calloc((size_t)o->bench_knobs, sizeof *a->bench_first);
    char list[256];
    snprintf(list, sizeof list, "%s", o->bench_which ? o->bench_which : "hbm,noc");
    for (char *save = NULL, *t = strtok_r(list, ",", &save); t && a->bench_nknobs < 8; t = strtok_r(NULL, ",", &save)) {
        int k = bench_knob(t);
        if (k < 0) {
            fprintf(stderr, "elk: --bench-which: unknown knob '%s' (hbm, hbm-ctrl, hbm-model, noc, link, cores, "
                            "topology, sram, compute, chip, model, workload, batch, seq, layers, profile)\n", t);
            return 2;
        }
        a->bench_knobs[a->bench_nknobs++] = k;
    }
    return !a->bench_ms || !a->bench_compute || !a->bench_first || !a->bench_nknobs;
}

/* The workbench's state, views, wake pipe and threads, before the
 * terminal is touched. NULL with *rc the exit status and the error printed. */
static tui_app *app_new(const elk_point *p, const tui_opts *o, int *rc)
{
    *rc = 1;
    tui_app *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->o = *o;
    a->wake[0] = a->wake[1] = -1;
    a->design.focus = o->focus;
    a->cur = o->start_view >= 0 && o->start_view < NVIEWS ? o->start_view : 0;
    elk_error err;
    if (tui_design_set(&a->design, p, &err) != ELK_OK) {
        fprintf(stderr, "elk: %s\n", err.msg);
        free(a);
        return NULL;
    }
    if (o->bench_knobs > 0 && (*rc = bench_parse(a, o)) != 0) {
        free(a->bench_ms);
        free(a->bench_compute);
        free(a->bench_first);
        free(a);
        return NULL;
    }
    *rc = 1;
    tui_knobs_init(&a->knobs, &a->design);
    int nv = 0;
#define TUI_VIEW_NEW(name) a->views[nv++] = view_##name##_new();
    TUI_VIEWS(TUI_VIEW_NEW)
#undef TUI_VIEW_NEW
    assert(nv == NVIEWS);
    a->pc = elk_plan_cache_alloc();
    if (pipe(a->wake) == 0) {
        for (int i = 0; i < 2; i++) {
            fcntl(a->wake[i], F_SETFL, fcntl(a->wake[i], F_GETFL) | O_NONBLOCK);
            fcntl(a->wake[i], F_SETFD, FD_CLOEXEC);
        }
    } else {
        a->wake[0] = a->wake[1] = -1;
    }
    for (int i = 0; i < NVIEWS; i++)
        if (!a->views[i]) {
            app_free(a);
            fprintf(stderr, "elk: out of memory\n");
            return NULL;
        }
    if (!a->pc || !(a->worker = tui_worker_start(a->pc, a->wake[1])) ||
        !(a->sweeper = tui_sweeper_start(a->pc, a->wake[1])) || !(a->netsim = tui_netsim_start(a->pc, a->wake[1])) ||
        !(a->sens = tui_sens_start(a->pc, a->wake[1])) ||
        !(a->pin_sweeper = tui_sweeper_start(a->pc, a->wake[1]))) {
        app_free(a);
        fprintf(stderr, "elk: cannot start the worker threads\n");
        return NULL;
    }
    *rc = 0;
    return a;
}

/* Take the terminal: the log for stderr, signal handlers, curses. 0, or -1
 * with the terminal restored and the error printed. */
static int screen_open(tui_app *a, const tui_opts *o)
{
    if (o->log_path) snprintf(a->log_path, sizeof a->log_path, "%s", o->log_path);
    else tui_log_default(a->log_path, sizeof a->log_path);
    tui_export_set_log(a->log_path);
    setlocale(LC_ALL, "");
    int ascii = o->ascii || !utf8_locale();
    tui_glyphs_init(ascii);
    install_handlers(a->wake[1]);
    redirect_stderr(a->log_path);
    /* newterm, not initscr: initscr exits by itself on an unknown TERM */
    SCREEN *scr = newterm(NULL, stdout, stdin);
    if (!scr) {
        term_restore();
        const char *term = getenv("TERM");
        fprintf(stderr, "elk: cannot use the terminal (TERM=%s); try 'elk run' for a table\n", term ? term : "");
        return -1;
    }
    set_term(scr);
    curses_on = 1;
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    /* presses, not clicks: no click-resolution delay */
    mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
    mouseinterval(0);
    tui_color_init(o->mono);
    return 0;
}

int elk_tui_run(const elk_point *p, const tui_opts *o)
{
    int rc;
    tui_app *a = app_new(p, o, &rc);
    if (!a) return rc;
    /* the first computation starts while the terminal is set up */
    request(a, 1);
    if (screen_open(a, o)) {
        app_free(a);
        return 1;
    }

    double t_start = tui_now_ms(), first_ms = NAN;
    a->dirty = 1;
    while (!a->quit && !g_stop_sig) {
        tui_snap *s = tui_worker_take(a->worker);
        if (s) {
            tui_snap *old = a->snap;
            a->snap = s;
            snap_drop(a, old);
            a->dirty = 1;
            if (isnan(first_ms)) first_ms = tui_now_ms() - t_start;
            if (s->status != ELK_OK && s->status != ELK_ECANCEL) {
                build_ctx(a);
                ctx_message(&a->cx, 1, "%s", s->err.msg);
            }
        }
        int busy = tui_worker_busy(a->worker) ||
                   (a->cur == 4 && (tui_sweeper_busy(a->sweeper) || tui_sweeper_busy(a->pin_sweeper))) ||
                   (a->cur == 5 && tui_netsim_busy(a->netsim)) || (a->cur == 6 && tui_sens_busy(a->sens));
        if (a->dirty || busy) {
            draw_all(a);
            a->dirty = 0;
            bench_drawn(a);
        }
        bench_step(a);
        if (a->quit) break;

        struct pollfd pf[2] = {{0, POLLIN, 0}, {a->wake[0], POLLIN, 0}};
        int timeout = busy ? 100 : tui_status_has_message(&a->status) ? 1000 : 5000;
        int pr = poll(pf, a->wake[0] >= 0 ? 2 : 1, timeout);
        if (pr < 0 && errno != EINTR) break;
        if (g_stop_sig) break;
        /* the terminal went away (its pty closed without a SIGHUP reaching
         * us): poll reports a hangup at once, forever, and the loop would
         * spin at full CPU on a screen no one sees */
        if (pr > 0 && (pf[0].revents & (POLLHUP | POLLERR | POLLNVAL))) break;
        if (a->wake[0] >= 0 && pr > 0 && (pf[1].revents & POLLIN)) {
            char buf[64];
            while (read(a->wake[0], buf, sizeof buf) > 0) {
            }
            a->dirty = 1;
        }
        if (pr == 0 && tui_status_has_message(&a->status) == 0 && a->status.msg[0]) {
            a->status.msg[0] = '\0';
            a->dirty = 1;
        }
        int ch, keys = 0;
        while (!a->quit && (ch = getch()) != ERR) {
            handle_key(a, ch);
            keys++;
            if (!a->status.prompting) request(a, 0);
        }
        /* readable but no key, again and again: end of file on the input
         * (a half-read escape sequence yields a key within ESCDELAY) */
        if (pr > 0 && (pf[0].revents & POLLIN) && keys == 0) {
            if (++a->idle_reads > 200) break;
        } else if (keys) {
            a->idle_reads = 0;
        }
        if (pr < 0) a->dirty = 1; /* EINTR: likely SIGWINCH */
    }
    term_restore();
    /* no delscreen: libpanel keeps its stdscr pseudo-panel hanging off the
     * screen and never frees it, so delscreen would turn it into a leak */
    if (a->o.bench_knobs && !g_stop_sig) bench_report(a, first_ms);
    app_free(a);
    die_of_stop_signal();
    return 0;
}
