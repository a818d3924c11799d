/* test_shmstat.c — the status segment: publish and read back, layout checks, find by
 * pid, consistent copies under a fast writer, and the printed table. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rtmgr/shmstat.h"

static rtm_exec_stats_t st;
static rtm_shmstat_seg_t seg;
static rtm_task_cfg_t cfg[2];
static const rtm_task_cfg_t *tasks[2] = {&cfg[0], &cfg[1]};

static void fake_stats(uint64_t k)
{
    memset(&st, 0, sizeof(st));
    st.n_tasks = 2;
    st.n_devs = 2;
    st.start_ns = 0;
    st.now_ns = 2000000000;
    st.releases = k;
    for (uint32_t i = 0; i < 2; i++) {
        st.task[i].released = k + i;
        st.task[i].met = k;
        st.task[i].placed[0] = k;
        st.task[i].placed[1] = i;
        st.task[i].worst_exec_ns = (int64_t)k * 1000;
        rtm_hist_add(&st.task[i].resp, 1500000);
        st.task[i].ape_sum = 0.1;
        st.task[i].ape_n = 1;
    }
    snprintf(st.task[1].result, sizeof(st.task[1].result), "threats by TCPA: 7 (3.0 min)\nmanoeuvre: +20 deg");
    st.task[1].result_ns = 1500000000;
    st.task[1].result_dev = 1;
    st.task[1].result_job = k;
}

static void test_publish_read(void **state)
{
    (void)state;
    snprintf(cfg[0].name, sizeof(cfg[0].name), "traj");
    snprintf(cfg[1].name, sizeof(cfg[1].name), "cpa");
    cfg[1].crit = RTM_CRIT_FIRM;
    cfg[1].period_ns = 100000000;
    char name[64];
    snprintf(name, sizeof(name), "rtmgr-test-%ld", (long)getpid());
    rtm_shmstat_t s;
    assert_int_equal(rtm_shmstat_create(&s, "a/b", "x", "model"), RTM_E_ARG);
    assert_int_equal(rtm_shmstat_create(&s, name, "config/x.yaml", "model"), RTM_OK);
    fake_stats(5);
    rtm_shmstat_publish(&s, &st, NULL, tasks, RTM_SHMSTAT_RUNNING, 10, 0);
    assert_int_equal(rtm_shmstat_read(name, &seg), RTM_OK);
    assert_int_equal(seg.magic, RTM_SHMSTAT_MAGIC);
    assert_int_equal(seg.pid, getpid());
    assert_int_equal(seg.n_tasks, 2);
    assert_string_equal(seg.task[1].name, "cpa");
    assert_string_equal(seg.config, "config/x.yaml");
    assert_int_equal(seg.task[0].released, 5);
    assert_int_equal(seg.task[1].released, 6);
    assert_int_equal(seg.task[1].result_dev, 1);
    assert_int_equal(seg.task[0].result_dev, -1);
    assert_int_equal(seg.task[1].result_age_ns, 500000000);
    assert_true(seg.task[0].mape > 0.099 && seg.task[0].mape < 0.101);
    assert_int_equal(seg.log_rows, 10);
    char buf[8192];
    FILE *f = fmemopen(buf, sizeof(buf), "w");
    rtm_shmstat_print(f, &seg, name);
    fclose(f);
    assert_non_null(strstr(buf, "cpa"));
    assert_non_null(strstr(buf, "manoeuvre: +20 deg"));
    assert_non_null(strstr(buf, "policy model"));
    printf("%s", buf);
    rtm_shmstat_destroy(&s);
    assert_int_equal(rtm_shmstat_read(name, &seg), RTM_E_NOTFOUND);
}

static void test_find(void **state)
{
    (void)state;
    rtm_shmstat_t s;
    assert_int_equal(rtm_shmstat_create(&s, NULL, "", "model"), RTM_OK);
    char want[64], got[64];
    snprintf(want, sizeof(want), "/rtmgr-%ld", (long)getpid());
    assert_string_equal(s.name, want);
    const rtm_status_t fs = rtm_shmstat_find(got, sizeof(got));
    /* other managers may run on this machine: only check ours is one of them */
    if (fs == RTM_OK)
        assert_string_equal(got, want);
    else
        assert_int_equal(fs, RTM_E_STATE);
    rtm_shmstat_destroy(&s);
}

static rtm_shmstat_t ws;
static atomic_bool wstop;

static void *writer(void *arg)
{
    (void)arg;
    static rtm_exec_stats_t w;
    uint64_t k = 1;
    while (!atomic_load(&wstop)) {
        memset(&w, 0, offsetof(rtm_exec_stats_t, task));
        w.n_tasks = 2;
        w.releases = k;
        for (int i = 0; i < 2; i++) {
            w.task[i].released = k;
            w.task[i].met = k;
        }
        rtm_shmstat_publish(&ws, &w, NULL, tasks, RTM_SHMSTAT_RUNNING, k, 0);
        k++;
        if (k % 4 == 0)
            usleep(100); /* a real writer publishes 10 times a second */
    }
    return NULL;
}

static void test_consistent_under_writer(void **state)
{
    (void)state;
    char name[64];
    snprintf(name, sizeof(name), "rtmgr-test2-%ld", (long)getpid());
    assert_int_equal(rtm_shmstat_create(&ws, name, "", "model"), RTM_OK);
    atomic_store(&wstop, false);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, writer, NULL), 0);
    unsigned ok = 0;
    for (int i = 0; i < 20000 && ok < 200; i++) {
        const rtm_status_t r = rtm_shmstat_read(name, &seg);
        if (r == RTM_E_ABORTED)
            continue;
        assert_int_equal(r, RTM_OK);
        if (seg.publishes == 0)
            continue;
        ok++;
        assert_int_equal(seg.releases, seg.task[0].released);
        assert_int_equal(seg.task[1].met, seg.task[0].released);
        assert_int_equal(seg.log_rows, seg.releases);
    }
    atomic_store(&wstop, true);
    pthread_join(th, NULL);
    rtm_shmstat_destroy(&ws);
    assert_true(ok > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_publish_read),
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_consistent_under_writer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
