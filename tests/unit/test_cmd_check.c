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

#include "rtmgr/units.h"
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

/* Task `name`'s predictions on host, gpu0 and ocl0 from the PREDICTED table in out. */
static void predicted(const char *name, double ns[3])
{
    const char *t = strstr(out, "PREDICTED");
    assert_non_null(t);
    char key[64];
    snprintf(key, sizeof(key), "\n%s ", name);
    const char *l = strstr(t, key);
    assert_non_null(l);
    char c[3][32];
    assert_int_equal(sscanf(l + strlen(key), "%31s %31s %31s", c[0], c[1], c[2]), 3);
    char why[128];
    for (int i = 0; i < 3; i++) { /* as rtm_units_format_ns printed it: 109.662us, 2.64ms */
        assert_int_equal(rtm_units_parse(c[i], RTM_UNIT_TIME, &ns[i], why, sizeof(why)), RTM_OK);
        ns[i] *= 1e9;
    }
}

/* Bug (sessions 71-76): `rtmgr check` predicted a job that nothing aborts (hard, not
 * preemptible) with its block-control clear, which the manager leaves out because its
 * instance clears nothing (rtm_kexec_clears): check now plans the instance's clears
 * (rtm_kexec_clears_planned) and predicts as the manager. Two tasks alike but for that:
 * the hard one is predicted shorter on both OpenCL devices of the H100 board (its
 * ws_clear), the same on the CPU pool. */
static void test_predicts_clears_as_the_manager(void **state)
{
    (void)state;
    const char *args[] = {"check", "-c", SRC "/tests/configs/good/clears.yaml", NULL};
    assert_int_equal(run_rtmgr(args), 0);
    double hard[3], firm[3];
    predicted("hard", hard);
    predicted("firm", firm);
    assert_true(hard[0] == firm[0]);
    for (int d = 1; d < 3; d++) {
        assert_true(hard[d] < firm[d]);
        assert_true(firm[d] - hard[d] < 50e3); /* a clear, not a job */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_config_exit_2),
        cmocka_unit_test(test_board_error_names_board_file),
        cmocka_unit_test(test_default_config_exit_0),
        cmocka_unit_test(test_usage_exit_1),
        cmocka_unit_test(test_predicts_clears_as_the_manager),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
