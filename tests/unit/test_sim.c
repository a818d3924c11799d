/* test_sim.c — the placement policies in virtual time on the vessel task set: the
 * model policy keeps every hard deadline at loads where cpu-only and gpu-only both
 * miss; runs are deterministic; the baselines behave as their names say. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rtmgr/sim.h"

static rtm_sim_result_t r, r2;

static void run(rtm_policy_t pol, double load, rtm_sim_result_t *out)
{
    const rtm_sim_task_t *t;
    const rtm_sim_dev_t *d;
    uint32_t nt, nd;
    rtm_sim_vessel_set(&t, &nt, &d, &nd);
    const rtm_sim_params_t p = {.tasks = t, .n_tasks = nt, .devs = d, .n_devs = nd, .policy = pol,
                                .load = load, .noise = 0.1, .margin = 0.1, .seed = 9,
                                .duration_ns = 10000000000LL};
    const rtm_status_t st = rtm_sim_run(&p, out);
    assert_true(st == RTM_OK || st == RTM_E_FULL);
}

static void test_model_beats_baselines(void **state)
{
    (void)state;
    const double loads[] = {1.0, 1.5, 2.0};
    for (int i = 0; i < 3; i++) {
        run(RTM_POLICY_CPU_ONLY, loads[i], &r);
        const uint64_t cpu_miss = r.missed[RTM_CRIT_HARD];
        assert_int_equal(r.placed[1], 0);
        run(RTM_POLICY_GPU_ONLY, loads[i], &r);
        const uint64_t gpu_miss = r.missed[RTM_CRIT_HARD];
        assert_int_equal(r.placed[0], 0);
        run(RTM_POLICY_MODEL, loads[i], &r);
        printf("load %.1f: hard misses cpu-only %llu, gpu-only %llu, model %llu of %llu "
               "(preemptions %llu)\n",
               loads[i], (unsigned long long)cpu_miss, (unsigned long long)gpu_miss,
               (unsigned long long)r.missed[RTM_CRIT_HARD],
               (unsigned long long)r.released[RTM_CRIT_HARD], (unsigned long long)r.preemptions);
        assert_true(cpu_miss > 0 && gpu_miss > 0);
        assert_int_equal(r.missed[RTM_CRIT_HARD], 0);
        assert_int_equal(r.missed[RTM_CRIT_FIRM], 0);
        assert_true(r.placed[0] > 0 && r.placed[1] > 0);
    }
}

static void test_deterministic(void **state)
{
    (void)state;
    run(RTM_POLICY_MODEL, 1.75, &r);
    run(RTM_POLICY_MODEL, 1.75, &r2);
    assert_memory_equal(r.missed, r2.missed, sizeof(r.missed));
    assert_memory_equal(r.placed, r2.placed, sizeof(r.placed));
    assert_memory_equal(r.resp[2].bin, r2.resp[2].bin, sizeof(r.resp[2].bin));
    assert_int_equal(r.preemptions, r2.preemptions);
}

static void test_args(void **state)
{
    (void)state;
    rtm_sim_params_t p;
    memset(&p, 0, sizeof(p));
    assert_int_equal(rtm_sim_run(&p, &r), RTM_E_ARG);
    const rtm_sim_task_t *t;
    const rtm_sim_dev_t *d;
    uint32_t nt, nd;
    rtm_sim_vessel_set(&t, &nt, &d, &nd);
    assert_true(rtm_sim_utilisation(t, nt, 0) > 0.99 && rtm_sim_utilisation(t, nt, 0) < 1.01);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_beats_baselines),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
