/* test_hil.c — the hardware-in-the-loop harness on this machine's OpenCL (PoCL in CI):
 * board/hil/replay's program rtmgr-replay replays 5 minutes of the Guernsey log at 20x
 * into `rtmgr run -c config/hil-pocl.yaml`, clean and then corrupted, and must pass both
 * (docs/hil.md: deadlines, CPA/TCPA against the CPU, model error, input counters).
 * Skipped with a message when ../shared/data/ais is absent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rtmgr/limits.h"

#define LOG_GUERNSEY RTM_TEST_SHARED_DIR "/data/ais/Go_to_Guernesey.nmea"
#define CONFIG RTM_TEST_SOURCE_DIR "/config/hil-pocl.yaml"
#define SLICE "--start 24240 --duration 15 --speed 20"

static char replay[RTM_PATH_MAX];

/* Runs a shell command, echoing its output; returns its exit status. */
static int run(const char *cmd)
{
    print_message("$ %s\n", cmd);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[1024];
    while (fgets(line, sizeof(line), p))
        print_message("%s", line);
    const int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int setup(void **state)
{
    (void)state;
    snprintf(replay, sizeof(replay), "%s", RTM_TEST_RTMGR);
    char *slash = strrchr(replay, '/');
    if (!slash)
        return -1;
    snprintf(slash + 1, sizeof(replay) - (size_t)(slash + 1 - replay), "rtmgr-replay");
    return 0;
}

static bool ready(void)
{
    if (access(LOG_GUERNSEY, R_OK) != 0) {
        print_message("SKIP: %s not found (shared test data absent)\n", LOG_GUERNSEY);
        return false;
    }
    char cmd[RTM_PATH_MAX + 64];
    snprintf(cmd, sizeof(cmd), "'%s' --help 2>/dev/null | grep -q '^  run '", RTM_TEST_RTMGR);
    if (system(cmd) != 0) {
        print_message("SKIP: this rtmgr has no 'run' command yet\n");
        return false;
    }
    return true;
}

static void test_clean(void **state)
{
    (void)state;
    if (!ready())
        skip();
    char cmd[4 * RTM_PATH_MAX];
    snprintf(cmd, sizeof(cmd), "'%s' '%s' -c '%s' " SLICE " --out hil-clean 2>&1", replay,
             LOG_GUERNSEY, CONFIG);
    assert_int_equal(run(cmd), 0);
}

static void test_corrupt(void **state)
{
    (void)state;
    if (!ready())
        skip();
    char cmd[4 * RTM_PATH_MAX];
    snprintf(cmd, sizeof(cmd), "'%s' '%s' -c '%s' " SLICE " --corrupt --out hil-corrupt 2>&1",
             replay, LOG_GUERNSEY, CONFIG);
    assert_int_equal(run(cmd), 0);
}

static void test_wrapper(void **state)
{
    (void)state;
    /* the wrapper finds the harness; bad arguments are refused with exit 2 */
    char cmd[2 * RTM_PATH_MAX];
    snprintf(cmd, sizeof(cmd), "RTMGR_REPLAY='%s' '%s/board/hil/replay' --help >/dev/null",
             replay, RTM_TEST_SOURCE_DIR);
    assert_int_equal(run(cmd), 0);
    snprintf(cmd, sizeof(cmd), "RTMGR_REPLAY='%s' '%s/board/hil/replay' 2>/dev/null", replay,
             RTM_TEST_SOURCE_DIR);
    assert_int_equal(run(cmd), 2);
    snprintf(cmd, sizeof(cmd), "'%s' '%s' -c '%s/tests/configs/good/minimal.yaml' 2>&1", replay,
             LOG_GUERNSEY, RTM_TEST_SOURCE_DIR);
    assert_int_equal(run(cmd), 2); /* no NMEA input/output in that task set */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wrapper),
        cmocka_unit_test(test_clean),
        cmocka_unit_test(test_corrupt),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
