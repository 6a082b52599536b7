#include "elk_flow.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *const elk_link_kind_names[] = {"hbm", "port-in", "port-out", "engine", "mesh", "mesh-internal",
                                           "chip-out", "chip-in", NULL};

/* One memoised solution: the active set as (template, count) pairs and the
 * rate of each template. */
typedef struct {
    uint64_t hash;
    int off, len; /* into memo_keys (2 ints per pair) and memo_rates */
} memo_ent;

struct elk_net {
    elk_link *links;
    int nlinks, caplinks;
    elk_use *uses;
    int nuses, capuses;
    elk_tmpl *tmpls;
    int ntmpl, captmpl;
    elk_flow *flows;
    int nflows, capflows;
    int *act; /* active flow ids */
    int nact, capact;
    int building; /* template under construction, or -1 */
    double norm;  /* its byte-fair normaliser, if set (elk_net_tmpl_norm) */

    /* solver scratch, sized to links / templates */
    double *resid, *acc;
    int *stamp, stamp_now;
    int *tcount, *tlist, *frozen;
    double *trate;
    int scratch_links, scratch_tmpl;

    /* memo */
    memo_ent *memo;
    int memo_cap, memo_n;
    int *memo_keys;
    long memo_keys_n, memo_keys_cap;
    double *memo_rates;
    long memo_rates_n, memo_rates_cap;

    long solves, hits;
    int oom;
};

#define GROW(ptr, n, cap, init)                                                  \
    do {                                                                         \
        if ((n) >= (cap)) {                                                      \
            long nc_ = (cap) ? (long)(cap) * 2 : (init);                         \
            while (nc_ <= (long)(n)) nc_ *= 2;                                   \
            void *np_ = realloc((ptr), (size_t)nc_ * sizeof *(ptr));             \
            if (!np_) {                                                          \
                net->oom = 1;                                                    \
                return -1;                                                       \
            }                                                                    \
            (ptr) = np_;                                                         \
            (cap) = nc_;                                                         \
        }                                                                        \
    } while (0)

elk_net *elk_net_new(void)
{
    elk_net *n = calloc(1, sizeof *n);
    if (n) n->building = -1;
    return n;
}

void elk_net_free(elk_net *n)
{
    if (!n) return;
    free(n->links);
    free(n->uses);
    free(n->tmpls);
    free(n->flows);
    free(n->act);
    free(n->resid);
    free(n->acc);
    free(n->stamp);
    free(n->tcount);
    free(n->tlist);
    free(n->frozen);
    free(n->trate);
    free(n->memo);
    free(n->memo_keys);
    free(n->memo_rates);
    free(n);
}

int elk_net_link(elk_net *net, elk_link_kind kind, double cap, double count, int plane)
{
    GROW(net->links, net->nlinks, net->caplinks, 64);
    elk_link *l = &net->links[net->nlinks];
    l->kind = kind;
    l->cap = cap > 0 ? cap : 1e-30;
    l->count = count >= 1 ? count : 1;
    l->plane = plane;
    return net->nlinks++;
}

static int tmpl_push(elk_net *net)
{
    GROW(net->tmpls, net->ntmpl, net->captmpl, 32);
    return net->ntmpl++;
}

void elk_net_tmpl_begin(elk_net *net, elk_xfer_kind kind, double weight, double ndest, double src_ratio)
{
    assert(net->building < 0); /* templates are built one at a time: begin, use/add..., end */
    int t = tmpl_push(net);
    if (t < 0) {
        net->building = -1;
        return;
    }
    elk_tmpl *tp = &net->tmpls[t];
    memset(tp, 0, sizeof *tp);
    tp->u0 = net->nuses;
    tp->weight = weight > 0 ? weight : 1;
    tp->ndest = ndest;
    tp->src_ratio = src_ratio;
    tp->kind = kind;
    tp->rate_cap = INFINITY;
    net->building = t;
    net->norm = 0;
}

static int use_push(elk_net *net)
{
    GROW(net->uses, net->nuses, net->capuses, 256);
    return net->nuses++;
}

void elk_net_tmpl_use(elk_net *net, int link, double cmax, double csum)
{
    if (net->building < 0 || link < 0 || link >= net->nlinks) return;
    if (cmax <= 0 && csum <= 0) return;
    elk_tmpl *tp = &net->tmpls[net->building];
    for (int u = tp->u0; u < tp->u0 + tp->nu; u++)
        if (net->uses[u].link == link) {
            net->uses[u].cmax += cmax;
            net->uses[u].csum += csum;
            return;
        }
    int u = use_push(net);
    if (u < 0) return;
    tp = &net->tmpls[net->building];
    net->uses[u] = (elk_use){link, cmax, csum};
    tp->nu++;
}

void elk_net_tmpl_add(elk_net *net, int link, double cmax, double csum)
{
    if (net->building < 0 || link < 0 || link >= net->nlinks) return;
    if (cmax <= 0 && csum <= 0) return;
    int u = use_push(net);
    if (u < 0) return;
    net->uses[u] = (elk_use){link, cmax, csum};
    net->tmpls[net->building].nu++;
}

void elk_net_tmpl_norm(elk_net *net, double m)
{
    if (net->building >= 0 && m > 0) net->norm = m;
}

void elk_net_tmpl_cap(elk_net *net, double cap)
{
    if (net->building < 0 || !(cap > 0)) return;
    net->tmpls[net->building].rate_cap = cap;
}

int elk_net_tmpl_end(elk_net *net)
{
    int t = net->building;
    net->building = -1;
    if (t < 0) return -1;
    elk_tmpl *tp = &net->tmpls[t];
    double solo = INFINITY;
    for (int u = tp->u0; u < tp->u0 + tp->nu; u++) {
        const elk_use *us = &net->uses[u];
        if (us->cmax > 0) solo = fmin(solo, net->links[us->link].cap / us->cmax);
    }
    tp->solo_rate = fmin(solo, tp->rate_cap);
    /* Byte-fair sharing: a router's arbiter shares a link between the
     * transfers crossing it by bytes, not by the rate each delivers into a
     * core, so a template's weight is counted per byte on its most loaded
     * port or NoC link (a port takes a core's bytes once per unit: there
     * per-byte and per-core are one). With per-core rates equalised, a
     * group-of-3 distribution beside a multicast preload (whose tree link
     * carries a hundred cores' bytes per unit) crawled at the preload's
     * pace, 36-69 us against 3 alone on a tt-galaxy mesh (issue 9). The
     * load, not the load over the capacity: a weight that followed
     * whichever link binds alone flipped as a bandwidth knob crossed
     * another's, and a faster port could slow a transfer. Chip links and
     * HBM are left out: a transfer's bytes there are not what its arbiters
     * see. */
    double m = 0;
    for (int u = tp->u0; u < tp->u0 + tp->nu; u++) {
        const elk_use *us = &net->uses[u];
        elk_link_kind k = net->links[us->link].kind;
        if (k == ELK_LK_PORT_IN || k == ELK_LK_PORT_OUT || k == ELK_LK_MESH || k == ELK_LK_MESH_INT)
            m = fmax(m, us->cmax);
    }
    if (net->norm > 0) m = net->norm;
    if (m > 0) tp->weight /= m;
    return t;
}

int elk_net_start(elk_net *net, int tmpl, double size, int tag, double now)
{
    if (tmpl < 0 || tmpl >= net->ntmpl) return -1;
    GROW(net->flows, net->nflows, net->capflows, 64);
    GROW(net->act, net->nact, net->capact, 16);
    elk_flow *f = &net->flows[net->nflows];
    f->tmpl = tmpl;
    f->size = size;
    f->rem = size;
    f->rate = 0;
    f->start = now;
    f->end = -1;
    f->tag = tag;
    f->active = 1;
    net->act[net->nact++] = net->nflows;
    return net->nflows++;
}

static int ensure_scratch(elk_net *net)
{
    if (net->scratch_links < net->nlinks) {
        int n = net->nlinks;
        double *r = realloc(net->resid, (size_t)n * sizeof *r);
        if (r) net->resid = r;
        double *a = realloc(net->acc, (size_t)n * sizeof *a);
        if (a) net->acc = a;
        int *s = realloc(net->stamp, (size_t)n * sizeof *s);
        if (s) net->stamp = s;
        if (!r || !a || !s) return -1;
        for (int i = net->scratch_links; i < n; i++) net->stamp[i] = 0;
        net->scratch_links = n;
    }
    if (net->scratch_tmpl < net->ntmpl) {
        int n = net->ntmpl;
        int *c = realloc(net->tcount, (size_t)n * sizeof *c);
        if (c) net->tcount = c;
        int *l = realloc(net->tlist, (size_t)n * sizeof *l);
        if (l) net->tlist = l;
        int *fz = realloc(net->frozen, (size_t)n * sizeof *fz);
        if (fz) net->frozen = fz;
        double *tr = realloc(net->trate, (size_t)n * sizeof *tr);
        if (tr) net->trate = tr;
        if (!c || !l || !fz || !tr) return -1;
        for (int i = net->scratch_tmpl; i < n; i++) net->tcount[i] = 0;
        net->scratch_tmpl = n;
    }
    return 0;
}

static uint64_t hash_key(const int *tl, const int *cnt, int k)
{
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < k; i++) {
        h = (h ^ (uint64_t)(unsigned)tl[i]) * 1099511628211ULL;
        h = (h ^ (uint64_t)(unsigned)cnt[tl[i]]) * 1099511628211ULL;
    }
    return h ? h : 1;
}

static int memo_find(const elk_net *net, uint64_t h, const int *tl, const int *cnt, int k)
{
    if (!net->memo_cap) return -1;
    int mask = net->memo_cap - 1;
    for (int i = (int)(h & (uint64_t)mask);; i = (i + 1) & mask) {
        const memo_ent *e = &net->memo[i];
        if (!e->hash) return -1;
        if (e->hash != h || e->len != k) continue;
        const int *key = &net->memo_keys[e->off];
        int same = 1;
        for (int j = 0; j < k && same; j++)
            if (key[2 * j] != tl[j] || key[2 * j + 1] != cnt[tl[j]]) same = 0;
        if (same) return i;
    }
}

static void memo_insert_slot(memo_ent *tab, int cap, memo_ent e)
{
    int mask = cap - 1;
    int i = (int)(e.hash & (uint64_t)mask);
    while (tab[i].hash) i = (i + 1) & mask;
    tab[i] = e;
}

static int memo_add(elk_net *net, uint64_t h, const int *tl, const int *cnt, int k, const double *rates)
{
    if ((net->memo_n + 1) * 2 > net->memo_cap) {
        int nc = net->memo_cap ? net->memo_cap * 2 : 256;
        memo_ent *tab = calloc((size_t)nc, sizeof *tab);
        if (!tab) return -1;
        for (int i = 0; i < net->memo_cap; i++)
            if (net->memo[i].hash) memo_insert_slot(tab, nc, net->memo[i]);
        free(net->memo);
        net->memo = tab;
        net->memo_cap = nc;
    }
    long need_k = net->memo_keys_n + 2L * k, need_r = net->memo_rates_n + k;
    if (need_k > net->memo_keys_cap) {
        long nc = net->memo_keys_cap ? net->memo_keys_cap * 2 : 1024;
        while (nc < need_k) nc *= 2;
        int *p = realloc(net->memo_keys, (size_t)nc * sizeof *p);
        if (!p) return -1;
        net->memo_keys = p;
        net->memo_keys_cap = nc;
    }
    if (need_r > net->memo_rates_cap) {
        long nc = net->memo_rates_cap ? net->memo_rates_cap * 2 : 512;
        while (nc < need_r) nc *= 2;
        double *p = realloc(net->memo_rates, (size_t)nc * sizeof *p);
        if (!p) return -1;
        net->memo_rates = p;
        net->memo_rates_cap = nc;
    }
    memo_ent e = {h, (int)net->memo_keys_n, k};
    for (int j = 0; j < k; j++) {
        net->memo_keys[net->memo_keys_n++] = tl[j];
        net->memo_keys[net->memo_keys_n++] = cnt[tl[j]];
        net->memo_rates[net->memo_rates_n++] = rates[tl[j]];
    }
    /* rates are stored at off/2 */
    memo_insert_slot(net->memo, net->memo_cap, e);
    net->memo_n++;
    return 0;
}

/* Weighted progressive filling over the active templates tl[0..k). */
static void fill(elk_net *net, const int *tl, int k)
{
    const int *cnt = net->tcount;
    double *rate = net->trate;
    int *frozen = net->frozen;
    int stamp = ++net->stamp_now;
    if (stamp == 0x7fffffff) {
        for (int i = 0; i < net->scratch_links; i++) net->stamp[i] = 0;
        net->stamp_now = stamp = 1;
    }
    for (int i = 0; i < k; i++) {
        int t = tl[i];
        rate[t] = 0;
        frozen[t] = 0;
        const elk_tmpl *tp = &net->tmpls[t];
        int constrained = 0;
        for (int u = tp->u0; u < tp->u0 + tp->nu; u++) {
            int l = net->uses[u].link;
            if (net->uses[u].cmax > 0) constrained = 1;
            if (net->stamp[l] != stamp) {
                net->stamp[l] = stamp;
                net->resid[l] = net->links[l].cap;
            }
        }
        if (!constrained) {
            rate[t] = tp->rate_cap;
            frozen[t] = 1;
        }
    }
    int left = 0;
    for (int i = 0; i < k; i++) left += !frozen[tl[i]];
    while (left > 0) {
        /* demand per unit of fill level on every touched link */
        for (int i = 0; i < k; i++) {
            const elk_tmpl *tp = &net->tmpls[tl[i]];
            for (int u = tp->u0; u < tp->u0 + tp->nu; u++) net->acc[net->uses[u].link] = 0;
        }
        for (int i = 0; i < k; i++) {
            int t = tl[i];
            if (frozen[t]) continue;
            const elk_tmpl *tp = &net->tmpls[t];
            double w = tp->weight * cnt[t];
            for (int u = tp->u0; u < tp->u0 + tp->nu; u++)
                net->acc[net->uses[u].link] += w * net->uses[u].cmax;
        }
        double delta = INFINITY;
        for (int i = 0; i < k; i++) {
            int t = tl[i];
            if (frozen[t]) continue;
            const elk_tmpl *tp = &net->tmpls[t];
            for (int u = tp->u0; u < tp->u0 + tp->nu; u++) {
                int l = net->uses[u].link;
                if (net->acc[l] > 0) delta = fmin(delta, net->resid[l] / net->acc[l]);
            }
            /* a capped template binds delta itself when it reaches its cap first */
            if (tp->rate_cap < INFINITY) delta = fmin(delta, (tp->rate_cap - rate[t]) / tp->weight);
        }
        if (!(delta < INFINITY)) break; /* cannot happen: unfrozen templates are constrained */
        if (delta < 0) delta = 0;
        for (int i = 0; i < k; i++) {
            int t = tl[i];
            if (!frozen[t]) rate[t] += net->tmpls[t].weight * delta;
        }
        /* consume capacity once per link; a link is full when it bound delta */
        for (int i = 0; i < k; i++) {
            const elk_tmpl *tp = &net->tmpls[tl[i]];
            for (int u = tp->u0; u < tp->u0 + tp->nu; u++) {
                int l = net->uses[u].link;
                double a = net->acc[l];
                if (a > 0) {
                    double r = net->resid[l] - delta * a;
                    if (r <= 1e-12 * net->links[l].cap || net->resid[l] / a <= delta * (1 + 1e-12)) r = 0;
                    net->resid[l] = r;
                    net->acc[l] = -1; /* consumed */
                }
            }
        }
        for (int i = 0; i < k; i++) {
            int t = tl[i];
            if (frozen[t]) continue;
            const elk_tmpl *tp = &net->tmpls[t];
            if (rate[t] >= tp->rate_cap * (1 - 1e-12)) {
                rate[t] = tp->rate_cap;
                frozen[t] = 1;
                left--;
                continue;
            }
            for (int u = tp->u0; u < tp->u0 + tp->nu; u++)
                if (net->uses[u].cmax > 0 && net->resid[net->uses[u].link] <= 0) {
                    frozen[t] = 1;
                    left--;
                    break;
                }
        }
    }
}

void elk_net_solve(elk_net *net)
{
    if (net->nact == 0) return;
    if (ensure_scratch(net)) {
        net->oom = 1;
        return;
    }
    int k = 0;
    for (int i = 0; i < net->nact; i++) {
        int t = net->flows[net->act[i]].tmpl;
        if (net->tcount[t]++ == 0) net->tlist[k++] = t;
    }
    /* sort the (small) template list */
    for (int i = 1; i < k; i++)
        for (int j = i; j > 0 && net->tlist[j] < net->tlist[j - 1]; j--) {
            int x = net->tlist[j];
            net->tlist[j] = net->tlist[j - 1];
            net->tlist[j - 1] = x;
        }
    uint64_t h = hash_key(net->tlist, net->tcount, k);
    net->solves++;
    int slot = memo_find(net, h, net->tlist, net->tcount, k);
    if (slot >= 0) {
        net->hits++;
        const double *r = &net->memo_rates[net->memo[slot].off / 2];
        for (int j = 0; j < k; j++) net->trate[net->tlist[j]] = r[j];
    } else {
        fill(net, net->tlist, k);
        if (memo_add(net, h, net->tlist, net->tcount, k, net->trate)) net->oom = 1;
    }
    for (int i = 0; i < net->nact; i++) {
        elk_flow *f = &net->flows[net->act[i]];
        f->rate = net->trate[f->tmpl];
    }
    for (int j = 0; j < k; j++) net->tcount[net->tlist[j]] = 0;
}

double elk_net_next(const elk_net *net)
{
    double best = INFINITY;
    for (int i = 0; i < net->nact; i++) {
        const elk_flow *f = &net->flows[net->act[i]];
        double dt = f->rate > 0 ? f->rem / f->rate : INFINITY;
        if (f->rem <= 0) dt = 0;
        if (dt < best) best = dt;
    }
    return best;
}

int elk_net_advance(elk_net *net, double dt, double now)
{
    int done = 0, keep = 0;
    for (int i = 0; i < net->nact; i++) {
        int id = net->act[i];
        elk_flow *f = &net->flows[id];
        double d = isinf(f->rate) ? f->rem : f->rate * dt;
        if (d > f->rem) d = f->rem;
        f->rem -= d;
        net->tmpls[f->tmpl].units += d;
        if (f->rem <= 1e-9 * f->size + 1e-12 || isinf(f->rate)) {
            net->tmpls[f->tmpl].units += f->rem;
            f->rem = 0;
            f->end = now + dt;
            f->active = 0;
            done++;
        } else {
            net->act[keep++] = id;
        }
    }
    net->nact = keep;
    return done;
}

int elk_net_nlinks(const elk_net *n) { return n->nlinks; }
const elk_link *elk_net_links(const elk_net *n) { return n->links; }
int elk_net_ntmpl(const elk_net *n) { return n->ntmpl; }
const elk_tmpl *elk_net_tmpls(const elk_net *n) { return n->tmpls; }
const elk_use *elk_net_uses(const elk_net *n) { return n->uses; }
int elk_net_nflows(const elk_net *n) { return n->nflows; }
const elk_flow *elk_net_flows(const elk_net *n) { return n->flows; }
int elk_net_nactive(const elk_net *n) { return n->nact; }
int elk_net_oom(const elk_net *n) { return n->oom; }

void elk_net_link_totals(const elk_net *net, int kind, double *sum, double *max)
{
    for (int l = 0; l < net->nlinks; l++) {
        if (sum) sum[l] = 0;
        if (max) max[l] = 0;
    }
    for (int t = 0; t < net->ntmpl; t++) {
        const elk_tmpl *tp = &net->tmpls[t];
        if (kind >= 0 && (int)tp->kind != kind) continue;
        if (tp->units <= 0) continue;
        for (int u = tp->u0; u < tp->u0 + tp->nu; u++) {
            const elk_use *us = &net->uses[u];
            if (sum) sum[us->link] += tp->units * us->csum;
            if (max) max[us->link] += tp->units * us->cmax;
        }
    }
}

void elk_net_stats(const elk_net *n, long *solves, long *memo_hits)
{
    if (solves) *solves = n->solves;
    if (memo_hits) *memo_hits = n->hits;
}
