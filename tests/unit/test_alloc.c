/* test_alloc.c — proof of the static-allocation lifecycle (STYLE rule 5).
 *
 * Linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free
 * (test_alloc.cmake): every call to those functions from code linked statically into
 * this test — librtmgr.a and the test itself — goes through the counting wrappers
 * below. In the ASan build the sanitizer's allocator hooks count as well, and they see
 * every allocation in the process (libc, libyaml, the OpenCL ICD included).
 *
 * The test walks the phases: load + validate (allocation allowed; libyaml allocates) ->
 * allocate (arena sized from the config; kernel buffers and tables placed in it) ->
 * seal -> COUNTING ON -> run-time read paths -> COUNTING OFF, and asserts zero calls.
 * The executive's start/run join the counted section when they land (see RUN PHASE). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtmgr/arena.h"
#include "rtmgr/config.h"
#include "rtmgr/pool.h"
#include "rtmgr/units.h"
#include "tests/sanitized.h"

#define SRC RTM_TEST_SOURCE_DIR

/* ---- counting wrappers ------------------------------------------------------------ */

static atomic_bool counting;
static atomic_uint wrapped_calls; /* malloc/calloc/realloc/free from wrapped code */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);

void *__wrap_malloc(size_t n)
{
    if (atomic_load(&counting))
        atomic_fetch_add(&wrapped_calls, 1);
    return __real_malloc(n);
}
void *__wrap_calloc(size_t n, size_t size)
{
    if (atomic_load(&counting))
        atomic_fetch_add(&wrapped_calls, 1);
    return __real_calloc(n, size);
}
void *__wrap_realloc(void *p, size_t n)
{
    if (atomic_load(&counting))
        atomic_fetch_add(&wrapped_calls, 1);
    return __real_realloc(p, n);
}
void __wrap_free(void *p)
{
    if (atomic_load(&counting) && p)
        atomic_fetch_add(&wrapped_calls, 1);
    __real_free(p);
}

static atomic_uint hooked_calls; /* every allocation in the process (ASan build only) */
#if SANITIZED
#include <sanitizer/allocator_interface.h>
static void malloc_hook(const volatile void *p, size_t n)
{
    (void)p;
    (void)n;
    if (atomic_load(&counting))
        atomic_fetch_add(&hooked_calls, 1);
}
static void free_hook(const volatile void *p)
{
    if (atomic_load(&counting) && p)
        atomic_fetch_add(&hooked_calls, 1);
}
#endif

static void count_start(void)
{
    atomic_store(&wrapped_calls, 0);
    atomic_store(&hooked_calls, 0);
    atomic_store(&counting, true);
}
static void count_stop(void) { atomic_store(&counting, false); }

/* ---- the counters themselves work -------------------------------------------------- */

static void test_wrappers_count(void **state)
{
    (void)state;
    void *(*volatile m)(size_t) = malloc; /* through a pointer: not optimised away */
    void (*volatile f)(void *) = free;
    count_start();
    void *p = m(32);
    f(p);
    count_stop();
    assert_int_equal(atomic_load(&wrapped_calls), 2);
#if SANITIZED
    assert_int_equal(atomic_load(&hooked_calls), 2);
    /* The hooks see allocations the wrappers cannot: libyaml's, during a load. */
    static rtm_config_t scratch;
    rtm_diag_t diag;
    count_start();
    const rtm_status_t st = rtm_config_load(SRC "/tests/configs/matrix.yaml", &scratch, &diag);
    count_stop();
    assert_int_equal(st, RTM_OK);
    print_message("ASan build: allocator hooks saw %u calls during a config load (libyaml)\n",
                  atomic_load(&hooked_calls));
    assert_true(atomic_load(&hooked_calls) > 0);
#endif
}

/* ---- the lifecycle ------------------------------------------------------------------ */

typedef struct { /* stand-in for the executive's job table entry */
    int64_t release_ns, deadline_ns;
    uint32_t task, state;
} fake_job_t;

static rtm_config_t cfg;
static rtm_kinst_t inst[RTM_MAX_TASKS];

static void test_no_allocation_after_start(void **state)
{
    (void)state;
    /* load + validate: allocation allowed here (libyaml, fopen). */
    rtm_diag_t diag;
    assert_int_equal(rtm_config_load(SRC "/tests/configs/matrix.yaml", &cfg, &diag), RTM_OK);

    /* allocate: one region sized from the config, everything placed in it. */
    const size_t job_bytes = rtm_arena_round((size_t)cfg.max_jobs * sizeof(fake_job_t));
    size_t bytes;
    assert_int_equal(rtm_arena_plan(&cfg, job_bytes, &bytes), RTM_OK);
    rtm_arena_t arena;
    assert_int_equal(rtm_arena_create(&arena, bytes), RTM_OK);
    for (uint32_t i = 0; i < cfg.n_tasks; i++) {
        rtm_kinst_t *k = &inst[i];
        rtm_kinst_init(k, cfg.task[i].kernel);
        memcpy(k->size, cfg.task[i].size, sizeof(k->size));
        assert_int_equal(rtm_kinst_plan(k), RTM_OK);
        void *mem;
        const size_t need = rtm_kinst_bytes(k);
        assert_int_equal(rtm_arena_alloc(&arena, need, &mem), RTM_OK);
        assert_int_equal(rtm_kinst_bind(k, mem, need), need);
        k->kernel->fill(k, i + 1);
    }
    fake_job_t *jobs;
    assert_int_equal(rtm_arena_alloc(&arena, job_bytes, (void **)&jobs), RTM_OK);
    assert_true(rtm_arena_used(&arena) <= bytes);

    /* start */
    static rtm_pool_t pool;
    assert_int_equal(rtm_pool_start(&pool, 2, 0, NULL), RTM_OK);
    assert_int_equal(rtm_arena_seal(&arena), RTM_OK);

    /* RUN PHASE — counted. The executive's start/run are added here when they land. */
    count_start();
    void *stray = NULL;
    const rtm_status_t sealed_alloc = rtm_arena_alloc(&arena, 64, &stray);
    const rtm_status_t valid = rtm_config_validate(&cfg, &diag);
    int found = 0;
    char text[64];
    size_t text_len = 0;
    for (uint32_t i = 0; i < cfg.n_tasks; i++) {
        found += rtm_config_task_find(&cfg, cfg.task[i].name) == (int)i;
        rtm_kinst_run_cpu(&inst[i]); /* the CPU twin on this thread */
        uint32_t launch = 0;         /* and on the worker pool */
        found += rtm_pool_run_job(&pool, &inst[i], &launch, NULL, NULL, NULL) == RTM_OK;
        jobs[i].task = i;
        jobs[i].release_ns = cfg.task[i].offset_ns;
        jobs[i].deadline_ns = cfg.task[i].offset_ns + cfg.task[i].deadline_ns;
        text_len += (size_t)rtm_units_format_ns(cfg.task[i].period_ns, text, sizeof(text));
        text_len += strlen(rtm_crit_name(cfg.task[i].crit)) + strlen(rtm_place_name(cfg.task[i].placement));
        found += rtm_kernel_find(cfg.task[i].kernel->name) == cfg.task[i].kernel;
        found += rtm_arena_owns(&arena, inst[i].host[0]);
    }
    const size_t used = rtm_arena_used(&arena), peak = rtm_arena_peak(&arena);
    count_stop();

    const unsigned wrapped = atomic_load(&wrapped_calls), hooked = atomic_load(&hooked_calls);
    print_message("run phase: %u wrapped allocator calls, %u hooked (ASan build only); arena "
                  "%zu bytes used of %zu, peak %zu\n",
                  wrapped, hooked, used, rtm_arena_size(&arena), peak);
    assert_int_equal(sealed_alloc, RTM_E_STATE);
    assert_null(stray);
    assert_int_equal(valid, RTM_OK);
    assert_int_equal(found, 4 * (int)cfg.n_tasks);
    assert_true(text_len > 0);
    assert_int_equal(wrapped, 0);
    assert_int_equal(hooked, 0);
    for (uint32_t i = 0; i < cfg.n_tasks; i++) { /* the run did real work */
        const float *a = inst[i].host[0], *b = inst[i].host[1], *c = inst[i].host[2];
        assert_true(c[5] == a[5] + b[5]);
    }

    /* stop */
    rtm_pool_stop(&pool);
    rtm_arena_destroy(&arena);
}

int main(void)
{
#if SANITIZED
    __sanitizer_install_malloc_and_free_hooks(malloc_hook, free_hook);
#endif
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wrappers_count),
        cmocka_unit_test(test_no_allocation_after_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
