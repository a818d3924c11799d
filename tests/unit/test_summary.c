/* test_summary.c — the kernels' `summary` hooks (what `rtmgr status` shows): each one
 * describes the CPU twin's outputs in bounded text, and the CPA ranking is by TCPA. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/kernels.h"
#include "kernels/nav.h"

static rtm_kinst_t k;
static void *mem;

static void run(const char *name, int64_t size0)
{
    rtm_kinst_init(&k, rtm_kernel_find(name));
    k.size[0] = size0;
    k.tune.wg = 64;
    assert_int_equal(rtm_kinst_plan(&k), RTM_OK);
    const size_t bytes = rtm_kinst_bytes(&k);
    free(mem);
    mem = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    assert_int_equal(rtm_kinst_bind(&k, mem, bytes), bytes);
    k.kernel->fill(&k, 5);
    rtm_kinst_run_cpu(&k);
}

static void test_every_summary(void **state)
{
    (void)state;
    const struct {
        const char *kernel, *prefix;
        int64_t size;
    } cases[] = {
        {"cpa_tcpa", "threats by TCPA: ", 200},
        {"trajectory", "200 tracks predicted", 200},
        {"manoeuvre", "chosen manoeuvre: ", 64},
        {"last_chance", "last-chance manoeuvre: ", 64},
        {"cpa_pairs", "200 ships", 200},
        {"threshold", "frame 200x1080 at level 128: ", 200},
        {"grid_path", "grid 200x512, converged", 200},
    };
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        run(cases[i].kernel, cases[i].size);
        assert_non_null(k.kernel->summary);
        char buf[512];
        memset(buf, 'x', sizeof(buf));
        k.kernel->summary(&k, buf, sizeof(buf));
        printf("%s: %s\n", cases[i].kernel, buf);
        assert_true(strlen(buf) < sizeof(buf));
        assert_memory_equal(buf, cases[i].prefix, strlen(cases[i].prefix));
        char small[24]; /* truncation is safe */
        k.kernel->summary(&k, small, sizeof(small));
        assert_true(strlen(small) < sizeof(small));
    }
}

static void test_cpa_ranked_by_tcpa(void **state)
{
    (void)state;
    run("cpa_tcpa", 300);
    char buf[512];
    k.kernel->summary(&k, buf, sizeof(buf));
    const float *tcpa = k.host[RTM_CPA_TCPA];
    double last = -1.0;
    unsigned seen = 0;
    for (const char *p = strchr(buf, '#'); p; p = strchr(p + 1, '#')) {
        const unsigned id = (unsigned)strtoul(p + 1, NULL, 10);
        assert_true(id < 300);
        assert_true(tcpa[id] >= 0.0f);
        assert_true(tcpa[id] >= last);
        last = tcpa[id];
        seen++;
    }
    assert_true(seen >= 1 && seen <= 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_summary),
        cmocka_unit_test(test_cpa_ranked_by_tcpa),
    };
    const int rc = cmocka_run_group_tests(tests, NULL, NULL);
    free(mem);
    return rc;
}
