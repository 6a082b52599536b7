/* libFuzzer harness: a design-point file loaded as `elk run --point FILE`
 * loads it, then planned with all five policies and each schedule replayed
 * in the event simulator, so what a point can reach of the planner, the
 * scheduler and the simulator is fuzzed, not only the loader (a point with
 * one core on a mesh read out of bounds in the scheduler; the loaders alone
 * never get there). Within a budget, so an input is a point and not a
 * benchmark: at most 512 cores, 2 layers, batch 64 and sequence 4096 (the
 * input's values below those stand). Every outcome but a crash, a leak, a
 * hang or an allocation over the run's limit is fine: only an elk_status
 * may come back. */
#include "fuzz_util.h"

#include "elk_point.h"
#include "elk_sched.h"
#include "elk_sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fuzz_file f;
    fuzz_file_set(&f, "elk-fuzz-plan", data, size);
    elk_error err;
    elk_point p;
    elk_point_defaults(&p);
    if (elk_point_load(f.path, &p, &err) != ELK_OK) return 0;
    elk_chip c;
    elk_model m;
    if (elk_point_resolve(&p, &c, &m, &err) != ELK_OK) return 0;
    if (c.cores > 512) p.cores = 512;
    if (p.layers < 1 || p.layers > 2) p.layers = m.layers < 2 ? m.layers : 2;
    if (p.batch > 64) p.batch = 64;
    if (p.seq > 4096) p.seq = 4096;
    elk_plan_cache *pc = elk_plan_cache_alloc();
    if (!pc) abort();
    elk_problem pr;
    if (elk_problem_init(&pr, &p, pc, &err) == ELK_OK) {
        elk_sched_opts so;
        elk_sched_opts_default(&so);
        elk_result res;
        if (elk_result_run(&pr, &so, (1u << ELK_POL_COUNT) - 1, &res, &err) == ELK_OK) {
            for (int q = 0; q < ELK_POL_COUNT; q++) {
                if (!res.have[q]) continue;
                elk_sim_result r;
                if (elk_sim_run(&pr, &res.pol[q], NULL, &r, &err) == ELK_OK) elk_sim_result_free(&r);
            }
            elk_result_free(&res);
        }
        elk_problem_free(&pr);
    }
    elk_plan_cache_free(pc);
    return 0;
}
