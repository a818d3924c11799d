/* test_devices.c — `rtmgr devices` on real OpenCL (PoCL here) lists the platform and the
 * device with its properties; with no OpenCL platform it exits 3 with a clear message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "builder.h"

/* Runs a shell command, collecting stdout+stderr into out; returns the exit code. */
static int run(const char *cmd, char *out, size_t len)
{
    char full[2048];
    snprintf(full, sizeof(full), "%s 2>&1", cmd);
    FILE *p = popen(full, "r");
    assert_non_null(p);
    const size_t n = fread(out, 1, len - 1, p);
    out[n] = '\0';
    const int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_lists_pocl(void **state)
{
    (void)state;
    static char out[65536];
    /* every platform the loader sees (the GPU machine has NVIDIA's and PoCL's) */
    assert_int_equal(run("env -u RTM_PLATFORM " RTM_TEST_RTMGR " devices", out, sizeof(out)), 0);
    printf("%s", out);
    const char *want[] = {"platform 0:", "[0] ", "type", "compute units", "clock",
                          "global memory", "local memory", "max allocation", "max work-group",
                          "OpenCL version", "driver version", "preferred vector width",
                          "double precision", "host-unified memory"};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        if (!strstr(out, want[i]))
            fail_msg("'%s' missing from rtmgr devices", want[i]);
    }
    assert_non_null(strstr(out, "Portable Computing Language"));
    assert_int_equal(run(RTM_TEST_RTMGR " devices --help", out, sizeof(out)), 0);
    assert_int_equal(run(RTM_TEST_RTMGR " devices --bogus", out, sizeof(out)), 1);
}

static void test_no_platform_exits_3(void **state)
{
    (void)state;
    char dir[] = "/tmp/rtm-test-icd-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cmd[512];
    static char out[8192];
    /* An empty vendor directory hides every ICD from ocl-icd and from the Khronos loader
     * (OCL_ICD_FILENAMES emptied as well); a loader that still finds a platform (one
     * built before OCL_ICD_VENDORS, or with ICDs compiled in) meets a platform filter
     * that matches nothing: either way no device, exit 3, and the message says so. */
    snprintf(cmd, sizeof(cmd),
             "OCL_ICD_VENDORS=%s OCL_ICD_FILENAMES= RTM_PLATFORM=rtm-test-no-such-platform "
             RTM_TEST_RTMGR " devices", dir);
    assert_int_equal(run(cmd, out, sizeof(out)), 3);
    assert_non_null(strstr(out, "no OpenCL platform found"));
    /* the filter alone, with the platforms visible */
    snprintf(cmd, sizeof(cmd), "RTM_PLATFORM=rtm-test-no-such-platform " RTM_TEST_RTMGR " devices");
    assert_int_equal(run(cmd, out, sizeof(out)), 3);
    assert_non_null(strstr(out, "no OpenCL platform found"));
    assert_non_null(strstr(out, "RTM_PLATFORM=rtm-test-no-such-platform"));
    rmdir(dir);
}

/* A calibration prebuild worker asked for a device it cannot see says which devices and
 * platforms it saw and the loader's variables (on the H100 machine calibration's workers
 * saw PoCL alone, the loader having cut OCL_ICD_FILENAMES in rtmgr's own environment: this
 * message found it), once: it does not start again. It exits RTM_BUILD_EXIT_NO_DEVICE: it
 * took no job, and the builder's other workers go on. */
static void test_prebuild_worker_names_what_it_saw(void **state)
{
    (void)state;
    static char out[8192];
    assert_int_equal(run(RTM_TEST_RTMGR " calibrate --prebuild-worker 7 --cache /tmp < /dev/null",
                         out, sizeof(out)),
                     RTM_BUILD_EXIT_NO_DEVICE);
    const char *first = strstr(out, "prebuild worker: no device 7 (");
    assert_non_null(first);
    assert_null(strstr(first + 1, "prebuild worker: no device 7 ("));
    assert_non_null(strstr(out, " found: "));
    assert_non_null(strstr(out, " on Portable Computing Language"));
    assert_non_null(strstr(out, "platform(s): "));
    assert_non_null(strstr(out, "OCL_ICD_FILENAMES="));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lists_pocl),
        cmocka_unit_test(test_no_platform_exits_3),
        cmocka_unit_test(test_prebuild_worker_names_what_it_saw),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
