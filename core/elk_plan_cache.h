/* The plan cache (core/elk_plan_cache.c): plan sets shared across the
 * points, threads and figures of a run. */
#ifndef ELK_PLAN_CACHE_H
#define ELK_PLAN_CACHE_H

#include <stddef.h>

#include "elk_plan.h"

/* A thread-safe cache of plan sets keyed by (operator shape, the chip
 * parameters enumeration depends on). HBM and NoC bandwidth are not part of
 * the key: changing them re-times cached sets. It holds at most a byte
 * budget of sets nobody uses (least recently used go first); sets in use
 * are never freed, so one design point larger than the budget still runs. */
typedef struct elk_plan_cache elk_plan_cache;
#define ELK_PLAN_CACHE_BUDGET ((size_t)256 << 20) /* default budget, bytes */
elk_plan_cache *elk_plan_cache_alloc(void);
/* Free the cache; every set it handed out must have been released. */
void elk_plan_cache_free(elk_plan_cache *pc);
/* 0: unbounded. */
void elk_plan_cache_set_budget(elk_plan_cache *pc, size_t bytes);
/* Returns a set owned by the cache, held for the caller until
 * elk_plan_cache_release. */
elk_status elk_plan_cache_get(elk_plan_cache *pc, const elk_chip *c, const elk_op *op,
                              const elk_plan_set **out, elk_error *err);
/* The same, polling cancel while it enumerates (NULL: never cancelled). A
 * cancelled enumeration returns ELK_ECANCEL and caches nothing; a thread
 * waiting for the same set then enumerates it itself. */
elk_status elk_plan_cache_get_cancel(elk_plan_cache *pc, const elk_chip *c, const elk_op *op,
                                     const atomic_int *cancel, const elk_plan_set **out, elk_error *err);
/* The same with o's cancel and coarse (its all_cb and exhaustive are not
 * for cached sets and are ignored); coarse sets are cached apart from full
 * ones. o may be NULL. */
elk_status elk_plan_cache_get_opts(elk_plan_cache *pc, const elk_chip *c, const elk_op *op, const elk_plan_opts *o,
                                   const elk_plan_set **out, elk_error *err);
/* The fastest entry of the menu at c of op's full set (elk_menu_build's
 * last entry): its execution in *exe and its space in *hot, INFINITY both
 * when the get fails. Bit for bit what the get and the menu give, but when
 * no set is cached, only the fastest plan is searched for and kept; a set
 * of op asked for later is enumerated for the chip that asked first, as it
 * would have been had that ask built it. A cached-only ask is answered
 * from a set or from an earlier search at the same chip (HBM apart), else
 * fails as elk_plan_cache_get_opts does; coarse asks and plantables chips
 * take the set's way. o may be NULL. */
elk_status elk_plan_cache_fastest(elk_plan_cache *pc, const elk_chip *c, const elk_op *op, const elk_plan_opts *o,
                                  double *exe, double *hot, elk_error *err);
/* The same, wanted only if its execution is at most lim: otherwise *exe
 * and *hot are INFINITY. A search that knows it need not beat lim prunes
 * from its start what a found plan that fast would prune, so asking with a
 * bound costs a fraction of the full search; that nothing is at or below
 * lim is kept beside the key, and a later ask with a higher bound (or none)
 * searches again. Where the answer comes from a set (coarse asks,
 * plantables chips, a set already cached), the fastest is compared with
 * lim. */
elk_status elk_plan_cache_fastest_below(elk_plan_cache *pc, const elk_chip *c, const elk_op *op,
                                        const elk_plan_opts *o, double lim, double *exe, double *hot, elk_error *err);
/* Whether the full set of op on c is cached and ready (a get would not
 * enumerate). */
int elk_plan_cache_ready(elk_plan_cache *pc, const elk_chip *c, const elk_op *op);
void elk_plan_cache_release(elk_plan_cache *pc, const elk_plan_set *set);
void elk_plan_cache_stats(const elk_plan_cache *pc, long *hits, long *misses, long *entries);
/* Bytes held now and at most, and sets evicted so far. */
void elk_plan_cache_usage(elk_plan_cache *pc, size_t *bytes, size_t *peak, long *evicted);

#endif
