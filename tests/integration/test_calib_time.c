/* test_calib_time.c — where `rtmgr calibrate`'s time goes, and the binary cache's part in
 * it (issue 4: calibrate < 60 s on the H100 machine). A full (not --quick) calibration of
 * two kernels (copy, spin) on every OpenCL device, twice with the same fresh program cache:
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
 *   RTM_PLATFORM=NVIDIA), a loop-polling kernel's points run the poll period its search
 *   chose, a build option: their programs are built ahead at that period, and none is
 *   compiled on the path (session 54; before, they were queued at the default period and
 *   the H100 compiled manoeuvre's 0.6-1.0 s each on the path). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rtmgr/ocl.h"
#include "tests/cli_fixture.h"

static char dir[64], cache[96], profile[128];
static char out[1 << 16], err[1 << 16], yaml[1 << 17];

static int run_calibrate(void)
{
    const char *args[] = {"calibrate", "-o", profile, "--kernels", "copy,spin", "--no-cpu", NULL};
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
         * 0.5 s or more by the measured build time c (PoCL's own cache can make it less) */
        assert_true(procs == 2 || procs == 0);
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

/* The index (`rtmgr devices` order) of the first OpenCL device that is not a CPU, -1 if
 * none. */
static int gpu_index(void)
{
    rtm_ocl_info_t infos[RTM_MAX_DEVICES];
    uint32_t n = 0;
    if (rtm_ocl_discover(infos, RTM_MAX_DEVICES, &n) != RTM_OK)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        if (!(infos[i].type & CL_DEVICE_TYPE_CPU))
            return (int)i;
    return -1;
}

/* The points' phase of a kernel's time note ("... N points Ts (parallel prebuild ..., builds
 * Bs xM, ...") in the profile: the builds on the path, seconds and count. */
static void points_builds(const char *dev, const char *kern, double *s, unsigned *m)
{
    char key[96];
    snprintf(key, sizeof(key), "%s: %s time ", dev, kern);
    const char *t = strstr(yaml, key);
    assert_non_null(t);
    const char *pts = strstr(t, " points ");
    assert_non_null(pts);
    const char *b = strstr(pts, "builds ");
    assert_non_null(b);
    assert_int_equal(sscanf(b, "builds %lfs x%u", s, m), 2);
}

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
    char dev[16];
    snprintf(dev, sizeof(dev), "%d", gi);
    const char *args[] = {"calibrate", "-o", profile, "--device", dev, "--no-cpu",
                          "--kernels", "manoeuvre,last_chance", NULL};
    const int rc = cli_run(args, dir, out, sizeof(out), err, sizeof(err));
    if (rc != 0)
        fprintf(stderr, "calibrate exited %d:\n%s\n", rc, err);
    assert_int_equal(rc, 0);
    cli_slurp(profile, yaml, sizeof(yaml));
    /* both searched their period before their points, and every point loaded its program */
    const char *kerns[] = {"manoeuvre", "last_chance"};
    for (int i = 0; i < 2; i++) {
        char key[96];
        snprintf(key, sizeof(key), "gpu0: %s: poll every ", kerns[i]);
        assert_non_null(strstr(yaml, key));
        double s = -1;
        unsigned m = 99;
        points_builds("gpu0", kerns[i], &s, &m);
        if (m != 0)
            fprintf(stderr, "%s: %u builds on the path (%.2fs)\n", kerns[i], m, s);
        assert_int_equal(m, 0);
    }
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
