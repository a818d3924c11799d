/* test_os.c — the OS layer's real-time fallback tells the truth about the policy the
 * threads actually run under. Found running the .deb under systemd (CPUSchedulingPolicy=
 * fifo, priority 10) where RLIMIT_RTPRIO could not be raised: every thread inherited
 * SCHED_FIFO 10 while the warning said "running with normal scheduling".
 *
 * The service start is reproduced in a child process: as root it switches itself to
 * SCHED_FIFO 10, then becomes an unprivileged user with RLIMIT_RTPRIO 0 (so its own
 * requests for priority 50 are refused, as in the unit), and reports what it saw. Skipped
 * where SCHED_FIFO or setuid are not permitted (not root, or a restricted container).
 * Also: rtm_os_read_file reads a whole file NUL-terminated, and refuses a missing one and
 * one over its size limit. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "rtmgr/os.h"

static void *policy_of_thread(void *arg)
{
    int *out = arg;
    struct sched_param sp;
    int policy;
    pthread_getschedparam(pthread_self(), &policy, &sp);
    out[0] = policy;
    out[1] = sp.sched_priority;
    return NULL;
}

/* Child: 0 ok, 77 skip, else failure code; the warning line goes to `fd`. */
static int child(int fd)
{
    const struct sched_param sp = {.sched_priority = 10};
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0)
        return 77;
    const struct rlimit zero = {0, 0};
    if (setrlimit(RLIMIT_RTPRIO, &zero) != 0 || setgid(65534) != 0 || setuid(65534) != 0)
        return 77;
    rtm_os_rt_reset();
    int seen[2] = {-1, -1};
    rtm_os_thread_t t;
    if (rtm_os_thread_start(&t, "rtm-test", 50, -1, policy_of_thread, seen) != RTM_OK)
        return 2;
    rtm_os_thread_join(&t);
    if (t.fifo)
        return 3; /* priority 50 must have been refused */
    if (seen[0] != SCHED_FIFO || seen[1] != 10)
        return 4; /* the thread runs what the process was started with */
    FILE *f = fdopen(fd, "w");
    if (!f || !rtm_os_rt_warning(f))
        return 5;
    fclose(f);
    return 0;
}

static void test_started_fifo_is_reported(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();
    int p[2];
    assert_int_equal(pipe(p), 0);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        _exit(child(p[1]));
    }
    close(p[1]);
    char line[512] = "";
    size_t n = 0;
    ssize_t r;
    while (n < sizeof(line) - 1 && (r = read(p[0], line + n, sizeof(line) - 1 - n)) > 0)
        n += (size_t)r;
    line[n] = '\0';
    close(p[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) == 77)
        skip();
    assert_int_equal(WEXITSTATUS(status), 0);
    printf("  warning: %s", line);
    assert_non_null(strstr(line, "SCHED_FIFO priority 10"));
    assert_null(strstr(line, "normal scheduling"));
}

static void test_normal_process_is_reported(void **state)
{
    (void)state;
    int policy = sched_getscheduler(0);
    if (policy != SCHED_OTHER)
        skip();
    rtm_os_rt_reset();
    rtm_os_lock_memory(); /* may or may not be refused; force a refusal record below */
    char buf[512] = "";
    FILE *f = fmemopen(buf, sizeof(buf), "w");
    assert_non_null(f);
    const bool said = rtm_os_rt_warning(f);
    fclose(f);
    if (said)
        assert_non_null(strstr(buf, "normal scheduling"));
    rtm_os_rt_reset();
}

/* The CPU wake-up latency request: held while the file is open (the kernel reads the
 * value back from /dev/cpu_dma_latency), dropped on release; without permission it is
 * refused and the warning names it. */
static void test_cpu_latency_hold(void **state)
{
    (void)state;
    rtm_os_rt_reset();
    const rtm_status_t st = rtm_os_hold_cpu_latency(0);
    if (st == RTM_OK) {
        assert_int_equal(rtm_os_cpu_latency_held(), 0);
        int32_t v = -1;
        FILE *f = fopen("/dev/cpu_dma_latency", "rb");
        if (f) { /* the request in force: the smallest held, ours is 0 */
            assert_int_equal(fread(&v, sizeof(v), 1, f), 1);
            fclose(f);
            assert_int_equal(v, 0);
        }
        assert_int_equal(rtm_os_hold_cpu_latency(20), RTM_OK);
        assert_int_equal(rtm_os_cpu_latency_held(), 20);
        rtm_os_release_cpu_latency();
        assert_int_equal(rtm_os_cpu_latency_held(), -1);
    } else {
        assert_int_equal(st, RTM_E_OS_PERM);
        assert_int_equal(rtm_os_cpu_latency_held(), -1);
        char buf[1024] = "";
        FILE *f = fmemopen(buf, sizeof(buf), "w");
        assert_non_null(f);
        assert_true(rtm_os_rt_warning(f));
        fclose(f);
        assert_non_null(strstr(buf, "cpu_dma_latency"));
    }
    assert_int_equal(rtm_os_hold_cpu_latency(-1), RTM_E_ARG);
    rtm_os_rt_reset();
}

/* /proc/stat's CPU times: read, consistent with the CPU count, never going back; a
 * 100 ms spin of this thread shows as busy time (the machine may add other busy time). */
/* A process spawned by another inherits every descriptor its parent opened without
 * O_CLOEXEC (a GPU driver's device files among them: a calibration build worker that kept
 * its parent's found no NVIDIA device). rtm_os_close_inherited closes all from `from` up
 * and leaves those below. */
static void test_close_inherited(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    const int hi = fcntl(p[0], F_DUPFD, 40);
    assert_true(hi >= 40);
    const int lo = dup(p[1]);
    assert_true(lo >= 0);
    int from = lo > p[0] ? lo : p[0];
    from = (from > p[1] ? from : p[1]) + 1;
    assert_true(from <= hi);
    const int closed = rtm_os_close_inherited(from);
    printf("closed %d descriptors from %d\n", closed, from);
    assert_true(closed >= 1);
    assert_int_equal(fcntl(hi, F_GETFD), -1); /* closed */
    assert_int_equal(errno, EBADF);
    assert_true(fcntl(p[0], F_GETFD) >= 0); /* below `from`: kept */
    assert_true(fcntl(p[1], F_GETFD) >= 0);
    assert_true(fcntl(lo, F_GETFD) >= 0);
    /* the kept ones still work */
    assert_int_equal(write(lo, "x", 1), 1);
    char c = 0;
    assert_int_equal(read(p[0], &c, 1), 1);
    assert_int_equal(c, 'x');
    close(p[0]), close(p[1]), close(lo);
}

static void test_cpu_times(void **state)
{
    (void)state;
    rtm_os_cpu_times_t a, b;
    const int64_t t0 = rtm_os_now_ns();
    assert_true(rtm_os_cpu_times(&a));
    assert_true(a.busy_s > 0.0 && a.idle_s >= 0.0 && a.steal_s >= 0.0);
    const int64_t until = rtm_os_now_ns() + 100000000LL;
    while (rtm_os_now_ns() < until) {
    }
    assert_true(rtm_os_cpu_times(&b));
    const double wall = (double)(rtm_os_now_ns() - t0) / 1e9;
    assert_true(b.busy_s >= a.busy_s && b.idle_s >= a.idle_s && b.steal_s >= a.steal_s);
    const double all = (b.busy_s - a.busy_s) + (b.idle_s - a.idle_s) + (b.steal_s - a.steal_s);
    /* over the wall time, the CPUs' times add to about that each (ticks of up to 10 ms) */
    assert_true(all <= (wall + 0.02) * rtm_os_cpu_count());
    assert_true(b.busy_s - a.busy_s >= 0.02); /* the spin, less what a hypervisor stole */
}

/* Spins until this process has used `s` seconds of CPU (its own clock, so a loaded
   machine that runs something else meanwhile only makes the spin longer in wall time);
   false when 30 s of wall time did not give it that much. */
static bool spin_cpu(double s)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    const double end = (double)t.tv_sec + (double)t.tv_nsec * 1e-9 + s;
    const int64_t wall_end = rtm_os_now_ns() + 30000000000LL;
    do {
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
        if ((double)t.tv_sec + (double)t.tv_nsec * 1e-9 >= end)
            return true;
    } while (rtm_os_now_ns() < wall_end);
    return false;
}

/* A spin of this process and a child that spins, once waited for, both count: 60 ms
   of CPU each, read back within 20 ms (the accounting's tick). */
static void test_self_cpu(void **state)
{
    (void)state;
    const double a = rtm_os_self_cpu_s();
    assert_true(spin_cpu(0.06));
    const double b = rtm_os_self_cpu_s();
    assert_true(b >= a + 0.04);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(spin_cpu(0.06) ? 0 : 1);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_true(rtm_os_self_cpu_s() >= b + 0.04);
}

/* What rtmgr spawns starts from the environment rtmgr started with, not from the
 * variables its drivers set since (PoCL sets HWLOC_PLUGINS_PATH=/dev/null). */
static void test_initial_environ(void **state)
{
    (void)state;
    assert_null(getenv("RTM_TEST_LATER"));
    rtm_os_keep_environ();
    assert_int_equal(setenv("RTM_TEST_LATER", "1", 1), 0);
    bool later = false, path = false;
    for (char **e = rtm_os_initial_environ(); *e; e++) {
        later = later || strncmp(*e, "RTM_TEST_LATER=", 15) == 0;
        path = path || strncmp(*e, "PATH=", 5) == 0;
    }
    assert_false(later);
    assert_true(path);
    unsetenv("RTM_TEST_LATER");
}

/* A value some library tokenised in place: the ICD loader cuts OCL_ICD_FILENAMES
 * ("libpocl.so.2:libnvidia-opencl.so.1" on the H100 machine) at its colons inside the
 * environment's own string, and calibration's prebuild workers, spawned with the kept
 * pointers, saw "libpocl.so.2" alone and no NVIDIA platform (sessions 3-18). The kept
 * environment holds copies. */
static void test_initial_environ_copies(void **state)
{
    (void)state;
    assert_int_equal(setenv("RTM_TEST_LIBS", "liba.so.1:libb.so.1", 1), 0);
    rtm_os_keep_environ();
    char *v = getenv("RTM_TEST_LIBS");
    assert_non_null(v);
    char *save = NULL;
    assert_non_null(strtok_r(v, ":", &save)); /* what the loader does to the live string */
    assert_string_equal(getenv("RTM_TEST_LIBS"), "liba.so.1");
    const char *kept = NULL;
    for (char **e = rtm_os_initial_environ(); *e; e++)
        if (strncmp(*e, "RTM_TEST_LIBS=", 14) == 0)
            kept = *e + 14;
    assert_non_null(kept);
    assert_string_equal(kept, "liba.so.1:libb.so.1");
    unsetenv("RTM_TEST_LIBS");
}

/* An environment too big to copy is not kept, even after an earlier call kept one: the
 * spawned process gets the live environ, not a half-overwritten copy. */
static void test_initial_environ_too_big(void **state)
{
    (void)state;
    rtm_os_keep_environ();
    assert_true(rtm_os_initial_environ() != environ);
    static char big[RTM_OS_ENV_BYTES + 1];
    memset(big, 'x', RTM_OS_ENV_BYTES);
    assert_int_equal(setenv("RTM_TEST_BIG", big, 1), 0);
    rtm_os_keep_environ();
    assert_true(rtm_os_initial_environ() == environ);
    unsetenv("RTM_TEST_BIG");
}

/* Which signals a spawned process would inherit ignored: SIGUSR1 ignored here shows,
 * a handled or default one does not. */
static void on_usr2(int sig) { (void)sig; }

static void test_ignored_signals(void **state)
{
    (void)state;
    struct sigaction ign = {0}, handle = {0}, old1, old2;
    ign.sa_handler = SIG_IGN;
    handle.sa_handler = on_usr2;
    sigemptyset(&ign.sa_mask);
    sigemptyset(&handle.sa_mask);
    assert_int_equal(sigaction(SIGUSR1, &ign, &old1), 0);
    assert_int_equal(sigaction(SIGUSR2, &handle, &old2), 0);
    const uint64_t m = rtm_os_ignored_signals();
    assert_true(m & (1ull << SIGUSR1));
    assert_false(m & (1ull << SIGUSR2));
    assert_false(m & (1ull << SIGTERM));
    sigaction(SIGUSR1, &old1, NULL);
    sigaction(SIGUSR2, &old2, NULL);
    assert_false(rtm_os_ignored_signals() & (1ull << SIGUSR1));
}

/* The circumstances a spawned process inherits, in words; truncated safely. */
static void test_describe_process(void **state)
{
    (void)state;
    char buf[256], tiny[8];
    rtm_os_describe_process(buf, sizeof(buf));
    assert_non_null(strstr(buf, "stack "));
    assert_non_null(strstr(buf, "nofile "));
    assert_non_null(strstr(buf, "cpus "));
    assert_non_null(strstr(buf, "ignored signals 0x"));
    assert_null(strstr(buf, "nice 99"));
    rtm_os_describe_process(tiny, sizeof(tiny));
    assert_true(strlen(tiny) < sizeof(tiny));
}

static void test_read_file(void **state)
{
    (void)state;
    char path[] = "/tmp/rtm-test-os-XXXXXX";
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "abc\n\0z", 6), 6);
    close(fd);
    size_t len = 0;
    char *buf = rtm_os_read_file(path, 0, &len);
    assert_non_null(buf);
    assert_int_equal(len, 6);
    assert_memory_equal(buf, "abc\n\0z", 7); /* and the NUL after it */
    free(buf);
    buf = rtm_os_read_file(path, 6, NULL);
    assert_non_null(buf);
    free(buf);
    errno = 0;
    assert_null(rtm_os_read_file(path, 5, &len));
    assert_int_equal(errno, EFBIG);
    unlink(path);
    assert_null(rtm_os_read_file(path, 0, &len));
    assert_int_equal(errno, ENOENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_times),
        cmocka_unit_test(test_self_cpu),
        cmocka_unit_test(test_initial_environ),
        cmocka_unit_test(test_initial_environ_copies),
        cmocka_unit_test(test_initial_environ_too_big),
        cmocka_unit_test(test_ignored_signals),
        cmocka_unit_test(test_describe_process),
        cmocka_unit_test(test_close_inherited),
        cmocka_unit_test(test_started_fifo_is_reported),
        cmocka_unit_test(test_normal_process_is_reported),
        cmocka_unit_test(test_cpu_latency_hold),
        cmocka_unit_test(test_read_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
