/* test_cmd_check.c — `rtmgr check`: exit codes and the diagnostic format, run as a
 * separate process (the built rtmgr binary). */
#include <fcntl.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/cli_fixture.h"

#define SRC RTM_TEST_SOURCE_DIR

static char out[65536], err[65536];

/* Runs rtmgr with args (NULL-terminated); stdout into out, stderr into err. */
static int run_rtmgr(const char *const *args)
{
    return cli_run(args, "/tmp", out, sizeof(out), err, sizeof(err));
}

static void test_bad_config_exit_2(void **state)
{
    (void)state;
    const char *path = SRC "/tests/configs/bad/10-period-no-unit.yaml";
    const char *args[] = {"check", "-c", path, NULL};
    assert_int_equal(run_rtmgr(args), 2);
    char want[2048];
    snprintf(want, sizeof(want),
             "%s:8:13: error: period needs a unit: us, ms or s (got '100') in task 'a'\n", path);
    assert_string_equal(err, want);
    assert_string_equal(out, "");
}

static void test_board_error_names_board_file(void **state)
{
    (void)state;
    const char *args[] = {"check", "--config", SRC "/tests/configs/bad/60-board-param-no-unit.yaml",
                          NULL};
    assert_int_equal(run_rtmgr(args), 2);
    const char *want = SRC "/tests/configs/bad/boards/param-no-unit.yaml:9:15: error: ";
    assert_true(strncmp(err, want, strlen(want)) == 0);
}

static void test_default_config_exit_0(void **state)
{
    (void)state;
    char cwd[1024];
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    assert_int_equal(chdir(SRC), 0);
    const char *with_c[] = {"check", "-c", "config/default.yaml", NULL};
    const int rc = run_rtmgr(with_c);
    const char *without_c[] = {"check", NULL};
    const int rc2 = run_rtmgr(without_c);
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(rc, 0);
    assert_int_equal(rc2, 0);
    assert_string_equal(err, "");
    assert_non_null(strstr(out, "config/default.yaml: valid"));
    assert_non_null(strstr(out, "TASK"));
    assert_non_null(strstr(out, "cpa_tcpa"));
    assert_non_null(strstr(out, "DEVICE"));
    assert_non_null(strstr(out, "PREDICTED"));
    assert_non_null(strstr(out, "schedulable: yes"));
}

static void test_usage_exit_1(void **state)
{
    (void)state;
    const char *bogus[] = {"check", "--bogus", NULL};
    assert_int_equal(run_rtmgr(bogus), 1);
    assert_non_null(strstr(err, "usage: rtmgr check"));
    const char *dangling[] = {"check", "-c", NULL};
    assert_int_equal(run_rtmgr(dangling), 1);
    const char *help[] = {"check", "--help", NULL};
    assert_int_equal(run_rtmgr(help), 0);
    const char *missing[] = {"check", "-c", "/nonexistent.yaml", NULL};
    assert_int_equal(run_rtmgr(missing), 2);
    assert_non_null(strstr(err, "/nonexistent.yaml: error: cannot read"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_config_exit_2),
        cmocka_unit_test(test_board_error_names_board_file),
        cmocka_unit_test(test_default_config_exit_0),
        cmocka_unit_test(test_usage_exit_1),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
