/* The plan cache: plan sets shared by every point, thread and figure of a
 * run, keyed by the operator's shape and what of the chip its plans depend
 * on, bounded in bytes, with fastest-only answers for the cut searches.
 * Sets come from elk_plan_art_set (the artifact's tables under the paper
 * profile's "plantables", else elk_plan_enumerate). */
#include "elk_plan_cache.h"

#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elk_plan_art.h"

/* ------------------------------------------------------------------ */
/* Cache                                                                */

/* One cached set. state: 0 being enumerated by one thread (others wait on
 * the cache's condition variable), 1 ready, 2 failed (status and error kept
 * so waiters report the same error), 3 no set yet, only the fastest plan
 * (elk_plan_cache_fastest; busy: being searched, others wait). refs counts
 * the holders (problems, pick_split) of a ready set; bytes is what the entry
 * holds, counted in the cache's bytes from its link (a new entry being
 * enumerated counts 0 until published, a promoted one what it counted as
 * state 3); used orders entries for eviction (the cache's clock at the last
 * get, ask or release). */
typedef struct cache_ent {
    char key[512];
    uint64_t hash;
    int state;
    elk_status st;
    elk_error err;
    elk_plan_set set;
    /* state 3: the chip that asked first, which the set is enumerated for
     * when one is wanted (as it would have been had that first ask built
     * it), and the answer for it (st, err) */
    elk_chip chip;
    int busy;
    /* state 3, once searched: f_known, the fastest (st, err, f_exe, f_hot);
     * else only that no plan's execution is at or below f_lb (-INFINITY:
     * nothing known) */
    int f_known;
    double f_exe, f_hot, f_lb;
    /* state 1: the fastest of the last menu built from the set (m_known),
     * and the chip it was built at (names apart) */
    int m_known;
    elk_chip *m_chip; /* owned; allocated with the first menu kept */
    double m_exe, m_hot;
    int refs;
    size_t bytes;
    unsigned long long used;
    struct cache_ent *next;  /* every entry, newest first */
    struct cache_ent *hnext; /* the other entries of its bucket of tab */
} cache_ent;

/* Owns every entry. Invariants: an entry's set never changes once its state
 * is 1, and a set with refs > 0 is never evicted, so a pointer handed out
 * stays valid until it is released; bytes is the sum of the entries' bytes,
 * the fastest-only entries (state 3) and failed ones (2) included; after a
 * release or a fastest ask, bytes <= budget unless every entry over it is
 * held or being worked on (budget 0: unbounded). */
struct elk_plan_cache {
    pthread_mutex_t mu;
    pthread_cond_t done;
    cache_ent *head;
    /* the entries again by key hash (tab[hash & mask]): a run asks for tens
     * of thousands of piece shapes, and walking the list for each was a
     * tenth of its time. ntab entries linked; mask + 1 buckets, a power of
     * two */
    cache_ent **tab;
    size_t mask, ntab;
    long hits, misses, entries, evicted;
    size_t bytes, budget, peak;
    unsigned long long clock;
};

static size_t set_bytes(const elk_plan_set *s)
{
    return sizeof(cache_ent) + (size_t)s->nplans * sizeof *s->plans + (size_t)s->nopts * sizeof *s->opts;
}

#define CACHE_TAB0 1024

elk_plan_cache *elk_plan_cache_alloc(void)
{
    elk_plan_cache *pc = calloc(1, sizeof *pc);
    if (!pc) return NULL;
    pc->tab = calloc(CACHE_TAB0, sizeof *pc->tab);
    if (!pc->tab) {
        free(pc);
        return NULL;
    }
    pc->mask = CACHE_TAB0 - 1;
    pthread_mutex_init(&pc->mu, NULL);
    pthread_cond_init(&pc->done, NULL);
    pc->budget = ELK_PLAN_CACHE_BUDGET;
    return pc;
}

/* The first entry of key hash h's bucket (pc->mu held). */
static cache_ent *bucket(const elk_plan_cache *pc, uint64_t h) { return pc->tab[h & pc->mask]; }

/* Link a new entry first in the list and its bucket (pc->mu held); the
 * table doubles past one entry a bucket, and stays as it is when it
 * cannot (longer chains, the same answers). A key is linked at most once,
 * so a bucket's order does not matter. */
static void cache_link(elk_plan_cache *pc, cache_ent *ne)
{
    if (++pc->ntab > pc->mask + 1) {
        size_t nb = 2 * (pc->mask + 1);
        cache_ent **t = calloc(nb, sizeof *t);
        if (t) {
            for (cache_ent *e = pc->head; e; e = e->next) {
                e->hnext = t[e->hash & (nb - 1)];
                t[e->hash & (nb - 1)] = e;
            }
            free(pc->tab);
            pc->tab = t;
            pc->mask = nb - 1;
        }
    }
    ne->next = pc->head;
    pc->head = ne;
    ne->hnext = pc->tab[ne->hash & pc->mask];
    pc->tab[ne->hash & pc->mask] = ne;
}

/* Unlink an entry from its bucket and the list (pc->mu held). */
static void cache_unlink(elk_plan_cache *pc, cache_ent *ne)
{
    for (cache_ent **pe = &pc->tab[ne->hash & pc->mask]; *pe; pe = &(*pe)->hnext)
        if (*pe == ne) {
            *pe = ne->hnext;
            break;
        }
    for (cache_ent **pe = &pc->head; *pe; pe = &(*pe)->next)
        if (*pe == ne) {
            *pe = ne->next;
            break;
        }
    assert(pc->ntab > 0);
    pc->ntab--;
}

void elk_plan_cache_set_budget(elk_plan_cache *pc, size_t bytes)
{
    pthread_mutex_lock(&pc->mu);
    pc->budget = bytes;
    pthread_mutex_unlock(&pc->mu);
}

/* Free an entry and what it owns (unlinked, or the cache going). */
static void ent_free(cache_ent *e)
{
    elk_plan_set_free(&e->set);
    free(e->m_chip);
    free(e);
}

void elk_plan_cache_free(elk_plan_cache *pc)
{
    if (!pc) return;
    for (cache_ent *e = pc->head; e;) {
        cache_ent *n = e->next;
        assert(e->refs == 0); /* every problem is freed before its cache */
        ent_free(e);
        e = n;
    }
    free(pc->tab);
    pthread_cond_destroy(&pc->done);
    pthread_mutex_destroy(&pc->mu);
    free(pc);
}

/* Set what entry e counts in the cache's bytes (pc->mu held). */
static void account(elk_plan_cache *pc, cache_ent *e, size_t nb)
{
    assert(pc->bytes >= e->bytes);
    pc->bytes = pc->bytes - e->bytes + nb;
    e->bytes = nb;
    if (pc->bytes > pc->peak) pc->peak = pc->bytes;
}

/* An entry eviction may take: a ready set nobody holds, a failure, or a
 * fastest-only entry not being searched (what it knew is searched again on
 * the next ask, with the same answer). */
static int evictable(const cache_ent *e)
{
    return (e->state == 1 && e->refs == 0) || e->state == 2 || (e->state == 3 && !e->busy);
}

/* Free least recently used entries (evictable) until the cache fits its
 * budget. Called with the lock held. */
static void evict(elk_plan_cache *pc)
{
    while (pc->budget && pc->bytes > pc->budget) {
        cache_ent *victim = NULL;
        for (cache_ent *e = pc->head; e; e = e->next)
            if (evictable(e) && (!victim || e->used < victim->used)) victim = e;
        if (!victim) return;
        cache_unlink(pc, victim);
        account(pc, victim, 0);
        pc->evicted++;
        ent_free(victim);
    }
}

void elk_plan_cache_release(elk_plan_cache *pc, const elk_plan_set *set)
{
    if (!pc || !set) return;
    cache_ent *e = (cache_ent *)((char *)set - offsetof(cache_ent, set));
    pthread_mutex_lock(&pc->mu);
    assert(e->state == 1 && e->refs > 0);
    e->refs--;
    e->used = ++pc->clock;
    evict(pc);
    pthread_mutex_unlock(&pc->mu);
}

static uint64_t fnv(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* Everything enumeration and the 3-D pruning depend on. Bandwidths are left
 * out on purpose (a bandwidth change re-times the kept plans): the pruning
 * compared exchange cycles at one NoC speed, and a NoC change scales every
 * plan's exchange alike, except the inter-chip term, which does not scale
 * with noc_scale; the mesh-to-port link ratio is in the key. */
/* Append the decimal of v and then the character sep (0: none) at k[len],
 * as snprintf's "%ld" would: the key is built for every fastest ask of
 * the cut searches, and snprintf's calls were most of it. Returns the new
 * length. */
static int put_long(char *k, int len, size_t n, long v, char sep)
{
    char b[24];
    int m = 0;
    unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
    do {
        b[m++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) b[m++] = '-';
    (void)n;
    assert((size_t)len + (size_t)m + 2 < n); /* ELK_MAX_DIMS dims and a few tensors fit the key */
    while (m) k[len++] = b[--m];
    if (sep) k[len++] = sep;
    k[len] = 0;
    return len;
}

/* Append the lowercase hex of v (snprintf's "%x") at k[len]. */
static int put_hex(char *k, int len, size_t n, unsigned v)
{
    char b[8];
    int m = 0;
    do {
        b[m++] = "0123456789abcdef"[v & 15u];
        v >>= 4;
    } while (v);
    (void)n;
    assert((size_t)len + (size_t)m + 1 < n);
    while (m) k[len++] = b[--m];
    k[len] = 0;
    return len;
}

/* The chip's part of the key, as it was formatted: what the key's text
 * depends on, each double by its bits (%.6g of equal bits is the same
 * text). */
typedef struct {
    int cores, topo, rows, cols, cores_per_chip, link;
    double sram, cscale, sync, macs, vec;
    elk_cost_coef cost;
} key_chip;

static void make_key(const elk_chip *c, const elk_op *op, char *k, size_t n)
{
    int len = put_long(k, 0, n, op->kind, ':');
    len = put_long(k, len, n, op->ndims, ':');
    len = put_long(k, len, n, op->dtype_bytes, '|');
    for (int d = 0; d < op->ndims; d++) len = put_long(k, len, n, op->dim[d], ',');
    for (int t = 0; t < op->ntensors; t++) {
        k[len++] = '|';
        len = put_long(k, len, n, op->t[t].role == ELK_TR_KV ? ELK_TR_WEIGHT : op->t[t].role, ':');
        for (int a = 0; a < op->t[t].naxes; a++) len = put_long(k, len, n, op->t[t].axis[a], 0);
    }
    if (c->profile & (1u << ELK_PSW_UNFUSED)) {
        k[len++] = '|';
        k[len++] = 'u';
        len = put_long(k, len, n, op->unf_elem, ',');
        len = put_long(k, len, n, op->unf_row, ',');
        len = put_long(k, len, n, op->unf_slice, 0);
    }
    /* the switches enumeration sees (the others act on menus or schedules) */
    unsigned plan_sw = (1u << ELK_PSW_GATHER) | (1u << ELK_PSW_MULTICHIP) | (1u << ELK_PSW_RELAYOUT) |
                       (1u << ELK_PSW_ROTSYNC) | (1u << ELK_PSW_UNFUSED) | (1u << ELK_PSW_PLANTABLES);
    k[len++] = '|';
    k[len++] = 'p';
    len = put_hex(k, len, n, c->profile & plan_sw);
    /* the artifact's tables rank plans at its fixed exchange rate whatever
     * the topology (elk_plan_art.h), so one set serves every topology */
    int topo_free = (c->profile & (1u << ELK_PSW_PLANTABLES)) != 0;
    key_chip kc;
    memset(&kc, 0, sizeof kc); /* padding too: compared bytewise */
    kc.cores = c->cores;
    kc.topo = topo_free ? -1 : (int)c->topology;
    kc.rows = topo_free ? 0 : c->mesh_rows;
    kc.cols = topo_free ? 0 : c->mesh_cols;
    kc.sram = elk_chip_sram_bytes(c);
    kc.cscale = c->compute_scale;
    kc.sync = c->sync_cycles;
    kc.macs = c->matmul_macs_per_cycle;
    kc.vec = c->vector_elems_per_cycle;
    kc.cores_per_chip = c->cores_per_chip;
    kc.link = topo_free || c->topology == ELK_TOPO_ALL2ALL ? 0 : (int)(c->mesh_link_gbps / c->link_gbps * 1000);
    kc.cost = c->cost;
    /* the chip's text, kept per thread for the last chip: a run asks keys
     * of many ops at one chip, and formatting its five doubles was most of
     * make_key (a cut search makes a key per piece it asks for) */
    static _Thread_local struct {
        int ok, len;
        key_chip kc;
        char text[200];
    } last;
    if (!last.ok || memcmp(&last.kc, &kc, sizeof kc)) {
        uint64_t ch = 1469598103934665603ULL;
        const unsigned char *cb = (const unsigned char *)&c->cost;
        for (size_t i = 0; i < sizeof c->cost; i++) ch = (ch ^ cb[i]) * 1099511628211ULL;
        int w = snprintf(last.text, sizeof last.text, "#%d:%d:%dx%d:%.6g:%.6g:%.6g:%.6g:%.6g:%d:%d:%llx", kc.cores,
                         kc.topo, kc.rows, kc.cols, kc.sram, kc.cscale, kc.sync, kc.macs, kc.vec, kc.cores_per_chip,
                         kc.link, (unsigned long long)ch);
        last.ok = w > 0 && (size_t)w < sizeof last.text;
        last.len = last.ok ? w : 0;
        last.kc = kc;
        if (!last.ok) { /* too long to keep: as before, cut at n */
            snprintf(k + len, n - (size_t)len, "#%d:%d:%dx%d:%.6g:%.6g:%.6g:%.6g:%.6g:%d:%d:%llx", kc.cores, kc.topo,
                     kc.rows, kc.cols, kc.sram, kc.cscale, kc.sync, kc.macs, kc.vec, kc.cores_per_chip, kc.link,
                     (unsigned long long)ch);
            return;
        }
    }
    if ((size_t)len + (size_t)last.len < n) memcpy(k + len, last.text, (size_t)last.len + 1);
    else snprintf(k + len, n - (size_t)len, "%s", last.text);
}

elk_status elk_plan_cache_get(elk_plan_cache *pc, const elk_chip *c, const elk_op *op,
                              const elk_plan_set **out, elk_error *err)
{
    return elk_plan_cache_get_cancel(pc, c, op, NULL, out, err);
}

elk_status elk_plan_cache_get_cancel(elk_plan_cache *pc, const elk_chip *c, const elk_op *op,
                                     const atomic_int *cancel, const elk_plan_set **out, elk_error *err)
{
    elk_plan_opts o = {.cancel = cancel};
    return elk_plan_cache_get_opts(pc, c, op, &o, out, err);
}

int elk_plan_cache_ready(elk_plan_cache *pc, const elk_chip *c, const elk_op *op)
{
    char key[512];
    make_key(c, op, key, sizeof key);
    uint64_t h = fnv(key);
    int ready = 0;
    pthread_mutex_lock(&pc->mu);
    for (cache_ent *e = bucket(pc, h); e && !ready; e = e->hnext)
        ready = e->hash == h && !strcmp(e->key, key) && e->state == 1;
    pthread_mutex_unlock(&pc->mu);
    return ready;
}

static elk_status cache_get(elk_plan_cache *pc, const elk_chip *c, const elk_op *op, const elk_plan_opts *o,
                            const elk_plan_set **out, elk_error *err, const char *key0);

elk_status elk_plan_cache_get_opts(elk_plan_cache *pc, const elk_chip *c, const elk_op *op, const elk_plan_opts *o,
                                   const elk_plan_set **out, elk_error *err)
{
    return cache_get(pc, c, op, o, out, err, NULL);
}

/* A chip with the fields the fastest plan cannot depend on cleared (names
 * and HBM: neither enumeration nor a menu's execution reads them), for
 * comparing chips bytewise. Padding copied from c may differ between equal
 * chips: then they compare unequal, which only costs a plan set. */
static void chip_canon(const elk_chip *c, elk_chip *k)
{
    memset(k, 0, sizeof *k);
    memcpy(k, c, sizeof *k);
    memset(k->name, 0, sizeof k->name);
    memset(k->description, 0, sizeof k->description);
    k->hbm_tbps = 0;
    k->hbm_controllers = 0;
    k->hbm_placement = (elk_hbm_placement)0;
    k->hbm_broadcast = 0;
}

/* The fastest entry of the menu at c of op's set, its execution and space,
 * through the set when there is one (or the ask is coarse, cached-only, or
 * plantables), else by elk_plan_fastest. */
static elk_status fastest_of_set(elk_plan_cache *pc, const elk_chip *c, const elk_op *op, const elk_plan_opts *o,
                                 double *exe, double *hot, elk_error *err, const char *key)
{
    const elk_plan_set *set;
    elk_menu m;
    elk_status st = cache_get(pc, c, op, o, &set, err, key);
    if (st != ELK_OK) return st;
    /* the last menu's fastest, kept with the set (the cut searches ask for
     * the same pieces' fastest again and again, and a menu is built from
     * the whole set) */
    cache_ent *e = (cache_ent *)((char *)set - offsetof(cache_ent, set));
    elk_chip ck = *c; /* the whole chip, HBM too: the menu is c's */
    memset(ck.name, 0, sizeof ck.name);
    memset(ck.description, 0, sizeof ck.description);
    pthread_mutex_lock(&pc->mu);
    int known = e->m_known && !memcmp(&ck, e->m_chip, sizeof ck);
    if (known) {
        *exe = e->m_exe;
        *hot = e->m_hot;
    }
    pthread_mutex_unlock(&pc->mu);
    if (known) {
        elk_plan_cache_release(pc, set);
        return ELK_OK;
    }
    st = elk_menu_build(c, op, set, &m, err);
    if (st != ELK_OK) {
        elk_plan_cache_release(pc, set);
        return st;
    }
    *exe = m.n > 0 ? m.e[m.n - 1].exe : INFINITY;
    *hot = m.n > 0 ? m.e[m.n - 1].hot : INFINITY;
    elk_menu_free(&m);
    pthread_mutex_lock(&pc->mu);
    if (!e->m_chip && (e->m_chip = malloc(sizeof *e->m_chip))) account(pc, e, e->bytes + sizeof *e->m_chip);
    e->m_known = e->m_chip != NULL; /* none kept when out of memory: the next ask builds its menu */
    if (e->m_known) {
        *e->m_chip = ck;
        e->m_exe = *exe;
        e->m_hot = *hot;
    }
    pthread_mutex_unlock(&pc->mu);
    elk_plan_cache_release(pc, set);
    return ELK_OK;
}

/* A new entry for key (pc->mu held; released when out of memory, NULL). */
static cache_ent *entry_new(elk_plan_cache *pc, const char *key, uint64_t h)
{
    cache_ent *ne = calloc(1, sizeof *ne);
    if (!ne) {
        pthread_mutex_unlock(&pc->mu);
        return NULL;
    }
    snprintf(ne->key, sizeof ne->key, "%s", key);
    ne->hash = h;
    return ne;
}

/* elk_plan_cache_fastest and _below: lim INFINITY asks for the fastest
 * plan, a finite lim only for one at or below it. */
static elk_status fastest_get(elk_plan_cache *pc, const elk_chip *c, const elk_op *op, const elk_plan_opts *o,
                              double lim, double *exe, double *hot, elk_error *err)
{
    *exe = *hot = INFINITY;
    if ((o && o->coarse) || (c->profile & (1u << ELK_PSW_PLANTABLES)))
        return fastest_of_set(pc, c, op, o, exe, hot, err, NULL);
    char key[512];
    make_key(c, op, key, sizeof key);
    uint64_t h = fnv(key);
    elk_chip ck, ek;
    chip_canon(c, &ck);
    pthread_mutex_lock(&pc->mu);
    cache_ent *ne = NULL;
again:
    for (cache_ent *e = bucket(pc, h); e; e = e->hnext) {
        if (e->hash != h || strcmp(e->key, key)) continue;
        if (e->state != 3) break; /* a set, being built, or failed: the set's way */
        if (e->busy) {
            pthread_cond_wait(&pc->done, &pc->mu);
            goto again;
        }
        chip_canon(&e->chip, &ek);
        if (memcmp(&ck, &ek, sizeof ck)) {
            /* another chip's fastest: this chip's menu of that chip's set;
             * another chip's bound says nothing here and fixes nothing:
             * the entry is this chip's, as if this ask had been the first */
            if (e->f_known || (o && o->cached_only)) break;
            e->chip = *c;
            e->f_lb = -INFINITY;
        }
        if (!e->f_known && !(lim <= e->f_lb) && o && o->cached_only) break; /* the set's way reports the miss */
        if (e->f_known || lim <= e->f_lb) {
            pc->hits++;
            e->used = ++pc->clock;
            elk_status st = e->f_known ? e->st : ELK_OK;
            if (st == ELK_OK && e->f_known) {
                *exe = e->f_exe;
                *hot = e->f_hot;
            } else if (st != ELK_OK && err) {
                *err = e->err;
            }
            evict(pc); /* after a budget change, or e itself over it: e is not read again */
            pthread_mutex_unlock(&pc->mu);
            return st;
        }
        /* known only to have nothing at or below a lower bound than lim:
         * searched again, up to lim */
        ne = e;
        ne->busy = 1;
        break;
    }
    if (!ne) {
        int have = 0;
        for (cache_ent *e = bucket(pc, h); e && !have; e = e->hnext) have = e->hash == h && !strcmp(e->key, key);
        /* a cached-only ask searches nothing: the set's way reports the miss */
        if (have || (o && o->cached_only)) {
            pthread_mutex_unlock(&pc->mu);
            return fastest_of_set(pc, c, op, o, exe, hot, err, key);
        }
        ne = entry_new(pc, key, h);
        if (!ne) return elk_fail(err, ELK_ENOMEM, "out of memory");
        ne->state = 3;
        ne->busy = 1;
        ne->chip = *c;
        ne->f_lb = -INFINITY;
        cache_link(pc, ne);
        account(pc, ne, sizeof *ne);
    }
    pthread_mutex_unlock(&pc->mu);

    elk_error e2;
    elk_error_clear(&e2);
    elk_plan_opts po = {.cancel = o ? o->cancel : NULL};
    double fe = INFINITY, fh = INFINITY;
    elk_status st = elk_plan_fastest(c, op, elk_chip_sram_bytes(c), &po, lim, &fe, &fh, NULL, &e2);

    pthread_mutex_lock(&pc->mu);
    if (st == ELK_ECANCEL || st == ELK_ENOMEM) {
        /* nothing learnt: a new claim is unlinked, as a cancelled get's is;
         * a bound kept from before stays */
        int fresh = !(ne->f_lb > -INFINITY);
        if (fresh) {
            cache_unlink(pc, ne);
            account(pc, ne, 0);
        }
        ne->busy = 0;
        pthread_cond_broadcast(&pc->done);
        pthread_mutex_unlock(&pc->mu);
        if (fresh) free(ne);
        if (err) *err = e2;
        return st;
    }
    if (st == ELK_OK && !(fe < INFINITY) && lim < INFINITY) {
        ne->f_lb = lim; /* none at or below lim */
    } else {
        ne->f_known = 1;
        ne->st = st;
        ne->err = e2;
        ne->f_exe = fe;
        ne->f_hot = fh;
    }
    ne->busy = 0;
    ne->used = ++pc->clock;
    evict(pc); /* ne may go too (a budget below one entry): it is not read again */
    pthread_cond_broadcast(&pc->done);
    pthread_mutex_unlock(&pc->mu);
    if (st == ELK_OK) {
        *exe = fe;
        *hot = fh;
    } else if (err) {
        *err = e2;
    }
    return st;
}

elk_status elk_plan_cache_fastest(elk_plan_cache *pc, const elk_chip *c, const elk_op *op, const elk_plan_opts *o,
                                  double *exe, double *hot, elk_error *err)
{
    return fastest_get(pc, c, op, o, INFINITY, exe, hot, err);
}

elk_status elk_plan_cache_fastest_below(elk_plan_cache *pc, const elk_chip *c, const elk_op *op,
                                        const elk_plan_opts *o, double lim, double *exe, double *hot, elk_error *err)
{
    elk_status st = fastest_get(pc, c, op, o, lim, exe, hot, err);
    if (st == ELK_OK && !(*exe <= lim * (1 + ELK_PLAN_FASTEST_MARGIN))) *exe = *hot = INFINITY;
    return st;
}

/* Enumerate the set of a state-3 entry for the chip that asked first, in
 * place; called with the lock held, returns with it released. A cancelled
 * enumeration leaves the entry as it was. */
/* An entry's enumeration done with status st (pc->mu held, released
 * here): it is published, its bytes counted, and every waiter woken. */
static elk_status publish(elk_plan_cache *pc, cache_ent *ne, elk_status st, const elk_error *e2,
                          const elk_plan_set **out, elk_error *err)
{
    ne->st = st;
    ne->err = *e2;
    ne->state = st == ELK_OK ? 1 : 2;
    /* a promoted fastest-only entry counted sizeof *ne: the set replaces it */
    account(pc, ne, st == ELK_OK ? set_bytes(&ne->set) : sizeof *ne);
    ne->refs = st == ELK_OK;
    ne->used = ++pc->clock;
    pthread_cond_broadcast(&pc->done);
    pthread_mutex_unlock(&pc->mu);
    if (st == ELK_OK) *out = &ne->set;
    else if (err) *err = *e2;
    return st;
}

static elk_status promote(elk_plan_cache *pc, cache_ent *ne, const elk_op *op, const atomic_int *cancel,
                          const elk_plan_set **out, elk_error *err)
{
    ne->state = 0;
    pc->misses++;
    pc->entries++;
    pthread_mutex_unlock(&pc->mu);
    elk_error e2;
    elk_error_clear(&e2);
    elk_plan_opts po = {.cancel = cancel};
    elk_status st = elk_plan_art_set(&ne->chip, op, elk_chip_sram_bytes(&ne->chip), &ne->set, &po, &e2);
    pthread_mutex_lock(&pc->mu);
    if (st == ELK_ECANCEL) {
        ne->state = 3;
        pc->entries--;
        pthread_cond_broadcast(&pc->done);
        pthread_mutex_unlock(&pc->mu);
        if (err) *err = e2;
        return st;
    }
    return publish(pc, ne, st, &e2, out, err);
}

static elk_status cache_get(elk_plan_cache *pc, const elk_chip *c, const elk_op *op, const elk_plan_opts *o,
                            const elk_plan_set **out, elk_error *err, const char *key0)
{
    char key[512];
    if (key0) snprintf(key, sizeof key, "%s", key0);
    else make_key(c, op, key, sizeof key);
    int coarse = o && o->coarse;
    const atomic_int *cancel = o ? o->cancel : NULL;
    if (coarse) {
        /* a coarse set is another set: its own key */
        size_t len = strlen(key);
        if (len + 2 < sizeof key) memcpy(key + len, "|C", 3);
    }
    uint64_t h = fnv(key);
    pthread_mutex_lock(&pc->mu);
again:
    for (cache_ent *e = bucket(pc, h); e; e = e->hnext) {
        if (e->hash != h || strcmp(e->key, key)) continue;
        if ((e->state == 0 || e->state == 3) && o && o->cached_only) break;
        if (e->state == 3 && e->busy) {
            pthread_cond_wait(&pc->done, &pc->mu);
            goto again;
        }
        if (e->state == 3) return promote(pc, e, op, cancel, out, err);
        if (e->state == 0) {
            /* its enumerating thread may be cancelled and unlink it: wait,
             * then look again from the head */
            pthread_cond_wait(&pc->done, &pc->mu);
            goto again;
        }
        pc->hits++;
        e->used = ++pc->clock;
        elk_status st = e->st;
        if (st == ELK_OK) {
            e->refs++;
            *out = &e->set;
        } else if (err) {
            *err = e->err;
        }
        pthread_mutex_unlock(&pc->mu);
        return st;
    }
    if (o && o->cached_only) {
        pthread_mutex_unlock(&pc->mu);
        if (o->missed) (*o->missed)++;
        return elk_fail(err, ELK_ECANCEL, "plans of %s not cached", op->name);
    }
    /* claim the key, enumerate outside the lock, publish */
    cache_ent *ne = entry_new(pc, key, h);
    if (!ne) return elk_fail(err, ELK_ENOMEM, "out of memory");
    cache_link(pc, ne);
    pc->misses++;
    pc->entries++;
    pthread_mutex_unlock(&pc->mu);

    elk_error e2;
    elk_error_clear(&e2);
    elk_plan_opts po = {.cancel = cancel, .coarse = coarse};
    elk_status st = elk_plan_art_set(c, op, elk_chip_sram_bytes(c), &ne->set, &po, &e2);

    pthread_mutex_lock(&pc->mu);
    if (st == ELK_ECANCEL) {
        /* nothing to keep: unlink the claim so a later get enumerates */
        cache_unlink(pc, ne);
        pc->entries--;
        pthread_cond_broadcast(&pc->done);
        pthread_mutex_unlock(&pc->mu);
        free(ne);
        if (err) *err = e2;
        return st;
    }
    return publish(pc, ne, st, &e2, out, err);
}

void elk_plan_cache_stats(const elk_plan_cache *pc, long *hits, long *misses, long *entries)
{
    *hits = pc->hits;
    *misses = pc->misses;
    *entries = pc->entries;
}

void elk_plan_cache_usage(elk_plan_cache *pc, size_t *bytes, size_t *peak, long *evicted)
{
    pthread_mutex_lock(&pc->mu);
    if (bytes) *bytes = pc->bytes;
    if (peak) *peak = pc->peak;
    if (evicted) *evicted = pc->evicted;
    pthread_mutex_unlock(&pc->mu);
}
