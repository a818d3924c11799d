/* test_calib_time.c — where `rtmgr calibrate`'s time goes, and the binary cache's part in
 * it (issue 4: calibrate < 60 s on the H100 machine). A full (not --quick) calibration of
 * two kernels (copy, spin) on OpenCL device 0, twice with the same fresh program cache:
 * - the summary line says how much of the run was program builds and how many programs
 *   were compiled or loaded from the cache;
 * - every kernel's time is in the profile's notes, phase by phase (sweep, points: builds,
 *   cache loads, runs), and the device's (transfers, figures, catalogue);
 * - a CPU OpenCL device (PoCL) runs no tuning sweep: its implicit vectoriser packs work-items
 *   into SIMD lanes, the width changes little there, and each candidate costs a program
 *   build; a sweep that measured the starting tuning alone was time spent for nothing;
 * - the second run compiles nothing in its measurements: every program comes from the
 *   binary cache (copy's, spin's and matrix_mov's programs do not depend on the size);
 * - the first programs are built ahead in worker processes, one per core (drivers
 *   serialise their compiler within a process);
 * - on a GPU (skipped where there is none: PoCL in CI; the H100 machine with
 *   a GPU-type device in `rtmgr devices`), a loop-polling kernel's points run the poll
 *   period its search chose, a build option: their programs are built ahead at that
 *   period, not at another one and then again on the path (session 54). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/cli_fixture.h"

static char dir[64], cache[96], profile[128];
static char out[1 << 16], err[1 << 16], yaml[1 << 17];

static int run_calibrate(void)
{
    /* device 0: PoCL in CI and on the H100 machine (whose GPU is device 1) */
    const char *args[] = {"calibrate", "-o",        profile,  "--kernels", "copy,spin",
                          "--no-cpu",  "--device", "0",      NULL};
    const int rc = cli_run(args, dir, out, sizeof(out), err, sizeof(err));
    if (rc != 0)
        fprintf(stderr, "calibrate exited %d:\n%s\n", rc, err);
    return rc;
}

/* The counts of the summary line "finished in ...: program builds Bs (N compiled in
 * kexecs ..., P prebuilt in parallel ..., ...), L cache loads ...". */
static void summary(unsigned *compiled, unsigned *prebuilt, unsigned *loaded)
{
    const char *s = strstr(err, "finished in ");
    assert_non_null(s);
    const char *b = strstr(s, "program builds ");
    assert_non_null(b);
    double bs = -1, cs = -1, ps = -1, fs = -1;
    assert_int_equal(sscanf(b, "program builds %lfs (%u compiled in kexecs %lfs, %u prebuilt in "
                               "parallel %lfs, build-time figure c %lfs), %u cache loads",
                            &bs, compiled, &cs, prebuilt, &ps, &fs, loaded),
                     7);
    assert_true(bs >= 0 && cs >= 0 && ps >= 0 && fs > 0); /* c is always measured */
    assert_non_null(strstr(b, "without builds "));
}

static void test_cold_then_warm(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/rtmgr-test-calibtime-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(cache, sizeof(cache), "%s/cache", dir);
    snprintf(profile, sizeof(profile), "%s/t.yaml", dir);
    assert_int_equal(setenv("RTM_CACHE_DIR", cache, 1), 0);

    assert_int_equal(run_calibrate(), 0);
    unsigned compiled = 0, prebuilt = 0, loaded = 0;
    summary(&compiled, &prebuilt, &loaded);
    assert_true(compiled + prebuilt > 0); /* a cold cache: something was built */
    /* a fresh profile written with --no-cpu loads and is current for this computer: its
     * cpu section holds the computer's cores and the pool's threads, no parameters (it
     * was written with cores 0, which its own loader refused: session 36) */
    const char *check[] = {"calibrate", "--check", "-b", profile, NULL};
    char cout[4096], cerr[4096];
    const int crc = cli_run(check, dir, cout, sizeof(cout), cerr, sizeof(cerr));
    if (crc != 0)
        fprintf(stderr, "calibrate --check exited %d:\n%s\n", crc, cerr);
    assert_int_equal(crc, 0);
    cli_slurp(profile, yaml, sizeof(yaml));
    char want[64];
    snprintf(want, sizeof(want), "cpu:\n  cores: %ld\n", sysconf(_SC_NPROCESSORS_ONLN));
    assert_non_null(strstr(yaml, want));
    /* copy's and spin's first programs built ahead, in worker processes (from 2 cores) */
    if (sysconf(_SC_NPROCESSORS_ONLN) >= 2) {
        assert_int_equal(prebuilt, 2);
        const char *pre = strstr(yaml, "ocl0: prebuild: 2 programs");
        assert_non_null(pre);
        unsigned built = 0, procs = 0;
        double s = -1;
        assert_int_equal(sscanf(pre, "ocl0: prebuild: 2 programs (sweep candidates, first sizes), "
                                     "%u not in the cache built in parallel in %lfs, %u worker",
                                &built, &s, &procs),
                         3);
        assert_int_equal(built, 2);
        /* worker processes only when the batch's builds one after another would take
         * 0.5 s or more by the measured build time c (PoCL's own cache can make it less),
         * then one per host core (the H100 machine's 16 with a cold PoCL cache) */
        assert_true(procs == 0 || procs == (unsigned)sysconf(_SC_NPROCESSORS_ONLN));
    }
    /* the per-kernel and per-device time notes */
    assert_non_null(strstr(yaml, "ocl0: copy time "));
    assert_non_null(strstr(yaml, "ocl0: matrix_mov time "));
    assert_non_null(strstr(yaml, "ocl0: time "));
    assert_non_null(strstr(yaml, " points "));
    /* PoCL (a CPU device): no sweep */
    assert_null(strstr(yaml, "ocl0: copy sweep"));
    assert_null(strstr(yaml, "ocl0: matrix_mov sweep"));
    /* the "wrote" line carries the builds too */
    assert_non_null(strstr(err, "of which program builds"));

    /* warm: the same cache, nothing compiled for the measurements, nothing prebuilt */
    assert_int_equal(run_calibrate(), 0);
    summary(&compiled, &prebuilt, &loaded);
    assert_int_equal(compiled, 0);
    assert_int_equal(prebuilt, 0);
    assert_true(loaded > 0);
    cli_slurp(profile, yaml, sizeof(yaml));
    if (sysconf(_SC_NPROCESSORS_ONLN) >= 2) {
        const char *pre = strstr(yaml, "ocl0: prebuild: ");
        assert_non_null(pre);
        unsigned n = 0, built = 1, procs = 1;
        double s = -1;
        assert_int_equal(sscanf(pre, "ocl0: prebuild: %u programs (sweep candidates, first "
                                     "sizes), %u not in the cache built in parallel in %lfs, %u "
                                     "worker",
                                &n, &built, &s, &procs),
                         4);
        assert_int_equal(built, 0);
        assert_int_equal(procs, 0);
    }

    char cmd[256];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    unsetenv("RTM_CACHE_DIR");
}

/* The line after the one at l in a NUL-terminated text, NULL after the last. */
static const char *next_line(const char *l)
{
    const char *nl = strchr(l, '\n');
    return nl ? nl + 1 : NULL;
}

/* The index (`rtmgr devices` order) of the first OpenCL device that is not a CPU, -1 if
 * none: from `rtmgr devices`, not from OpenCL in this process (the ICD loader may cut
 * its environment variables in place, and the children run with this environment). */
static int gpu_index(void)
{
    static char dout[1 << 16], derr[4096];
    char tmp[] = "/tmp/rtmgr-test-devices-XXXXXX";
    assert_non_null(mkdtemp(tmp));
    const char *args[] = {"devices", NULL};
    const int rc = cli_run(args, tmp, dout, sizeof(dout), derr, sizeof(derr));
    char cmd[96];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
    assert_int_equal(system(cmd), 0);
    if (rc != 0)
        return -1;
    int index = -1;
    for (const char *l = dout; l && *l; l = next_line(l)) {
        int i;
        char type[32];
        if (sscanf(l, " [%d]", &i) == 1)
            index = i;
        else if (index >= 0 && sscanf(l, " type %31s", type) == 1 && strcmp(type, "CPU") != 0)
            return index;
    }
    return -1;
}

/* The options of a build line's program with its in-loop poll period cut out. */
static void without_poll(const char *opts, char *dst, size_t len)
{
    const char *p = strstr(opts, "-DRTM_POLL_EVERY=");
    if (!p) {
        snprintf(dst, len, "%s", opts);
        return;
    }
    const char *q = p + strlen("-DRTM_POLL_EVERY=");
    while (*q >= '0' && *q <= '9')
        q++;
    snprintf(dst, len, "%.*s%s", (int)(p - opts), opts, q);
}

static char log_err[1 << 21];

/* RTM_CL_LOG=1's build lines "rtmgr[PID]: built 'KERNEL' with 'OPTIONS'" of a cold GPU
 * calibration of two loop-polling kernels: no program of calibrate's own process (the
 * one that built the build-time figure's RTM_CALIB_NONCE programs) was built by a build
 * worker at another poll period, as the points' programs were queued before session 54
 * (at the default period: the H100 compiled manoeuvre's 33- and 7701-target points again
 * on the path, 0.6-1.0 s each). */
static void test_gpu_poll_points_built_ahead(void **state)
{
    (void)state;
    const int gi = gpu_index();
    if (gi < 0)
        skip();
    snprintf(dir, sizeof(dir), "/tmp/rtmgr-test-calibgpu-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(cache, sizeof(cache), "%s/cache", dir);
    snprintf(profile, sizeof(profile), "%s/g.yaml", dir);
    assert_int_equal(setenv("RTM_CACHE_DIR", cache, 1), 0);
    assert_int_equal(setenv("RTM_CL_LOG", "1", 1), 0);
    char dev[16];
    snprintf(dev, sizeof(dev), "%d", gi);
    const char *args[] = {"calibrate", "-o", profile, "--device", dev, "--no-cpu",
                          "--kernels", "manoeuvre,last_chance", NULL};
    const int rc = cli_run(args, dir, out, sizeof(out), log_err, sizeof(log_err));
    unsetenv("RTM_CL_LOG");
    if (rc != 0)
        fprintf(stderr, "calibrate exited %d:\n%.4000s\n", rc, log_err);
    assert_int_equal(rc, 0);
    cli_slurp(profile, yaml, sizeof(yaml));
    assert_non_null(strstr(yaml, "gpu0: manoeuvre: poll every "));
    assert_non_null(strstr(yaml, "gpu0: last_chance: poll every "));
    /* the build lines: pid, kernel, options without the period, the whole options */
    enum { MAXB = 512 };
    static int pid[MAXB];
    static char kern[MAXB][32], opts[MAXB][1024], base[MAXB][1024];
    int n = 0, self = -1;
    for (const char *l = log_err; l && *l && n < MAXB; l = next_line(l)) {
        if (sscanf(l, "rtmgr[%d]: built '%31[^']' with '%1023[^']'", &pid[n], kern[n],
                   opts[n]) != 3)
            continue;
        if (strstr(opts[n], "RTM_CALIB_NONCE"))
            self = pid[n];
        without_poll(opts[n], base[n], sizeof(base[n]));
        n++;
    }
    assert_true(self > 0);
    unsigned own = 0;
    for (int i = 0; i < n; i++) {
        if (pid[i] != self || (strcmp(kern[i], "manoeuvre") && strcmp(kern[i], "last_chance")))
            continue;
        own++;
        for (int j = 0; j < n; j++)
            if (pid[j] != self && strcmp(kern[j], kern[i]) == 0 &&
                strcmp(base[j], base[i]) == 0 && strcmp(opts[j], opts[i]) != 0) {
                fprintf(stderr, "%s built on the path:\n  %s\nafter a worker built it at another "
                                "period:\n  %s\n", kern[i], opts[i], opts[j]);
                fail();
            }
    }
    fprintf(stderr, "%d builds logged; calibrate's own process built %u of the two kernels'\n", n,
            own);
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    unsetenv("RTM_CACHE_DIR");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cold_then_warm),
        cmocka_unit_test(test_gpu_poll_points_built_ahead),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
