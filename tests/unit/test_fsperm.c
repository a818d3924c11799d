/* test_fsperm.c — world-writable task sets, board profiles, kernel sources and the
 * directories above them are refused with the path named; sticky directories (/tmp)
 * and group-writable files are accepted; symbolic links are followed and checked;
 * kernel sources come only from the kernel directory; `rtmgr check` exits 2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernels/kernels.h"
#include "rtmgr/config.h"
#include "rtmgr/fsperm.h"
#include "rtmgr/program.h"

#define SRC RTM_TEST_SOURCE_DIR

static rtm_config_t cfg;
static rtm_diag_t diag;
static char dir[64];
static char path[RTM_PATH_MAX], board[RTM_PATH_MAX];

static void copy(const char *from, const char *to)
{
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    assert_non_null(a);
    assert_non_null(b);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), a)) > 0)
        assert_int_equal(fwrite(buf, 1, n, b), n);
    fclose(a);
    fclose(b);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/rtm_fsperm_XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(path, sizeof(path), "%s/task.yaml", dir);
    snprintf(board, sizeof(board), "%s/board.yaml", dir);
    copy(SRC "/board/pocl-cpu.yaml", board);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "rtmgr: 1\nboard: board.yaml\ninput: {scenario: {targets: 8}}\n"
               "tasks:\n  - {name: a, kernel: matrix_add, period: 10ms, criticality: soft}\n");
    fclose(f);
    chmod(path, 0644);
    chmod(board, 0644);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    chmod(dir, 0700);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static rtm_status_t load(const char *p)
{
    memset(&diag, 0, sizeof(diag));
    return rtm_config_load(p, &cfg, &diag);
}

static void test_config_files(void **state)
{
    (void)state;
    assert_int_equal(load(path), RTM_OK);
    char why[512];
    assert_int_equal(rtm_fsperm_check(path, why, sizeof(why)), RTM_OK);

    /* the task set itself */
    chmod(path, 0646);
    assert_int_equal(load(path), RTM_E_CFG_PERM);
    assert_string_equal(diag.file, path);
    assert_non_null(strstr(diag.text, path));
    assert_non_null(strstr(diag.text, "writable by others"));
    assert_non_null(strstr(diag.text, "0646"));
    chmod(path, 0664); /* group-writable is fine */
    assert_int_equal(load(path), RTM_OK);

    /* the board profile it names */
    chmod(board, 0666);
    assert_int_equal(load(path), RTM_E_CFG_PERM);
    assert_string_equal(diag.file, board);
    assert_non_null(strstr(diag.text, board));
    chmod(board, 0644);

    /* the directory holding them: without the sticky bit refused, with it accepted */
    chmod(dir, 0777);
    assert_int_equal(load(path), RTM_E_CFG_PERM);
    assert_non_null(strstr(diag.text, dir));
    assert_non_null(strstr(diag.text, "directory writable by others"));
    assert_int_equal(rtm_fsperm_check(path, why, sizeof(why)), RTM_E_OS_PERM);
    assert_non_null(strstr(why, dir));
    chmod(dir, 01777);
    assert_int_equal(load(path), RTM_OK);
    chmod(dir, 0700);

    /* missing file: an I/O error, not a permission one */
    char missing[RTM_PATH_MAX];
    snprintf(missing, sizeof(missing), "%s/none.yaml", dir);
    assert_int_equal(rtm_fsperm_check(missing, why, sizeof(why)), RTM_E_IO);
    assert_int_equal(load(missing), RTM_E_CFG_IO);
}

static void test_symlink(void **state)
{
    (void)state;
    /* dir/open (world-writable, no sticky bit)/real.yaml, reached through dir/link.yaml */
    char open_dir[RTM_PATH_MAX], real[RTM_PATH_MAX + 16], link[RTM_PATH_MAX], why[512];
    snprintf(open_dir, sizeof(open_dir), "%s/open", dir);
    snprintf(real, sizeof(real), "%s/real.yaml", open_dir);
    snprintf(link, sizeof(link), "%s/link.yaml", dir);
    assert_int_equal(mkdir(open_dir, 0755), 0);
    copy(path, real);
    chmod(real, 0644);
    assert_int_equal(symlink("open/real.yaml", link), 0);
    assert_int_equal(rtm_fsperm_check(link, why, sizeof(why)), RTM_OK);
    chmod(open_dir, 0777);
    assert_int_equal(rtm_fsperm_check(link, why, sizeof(why)), RTM_E_OS_PERM);
    assert_non_null(strstr(why, open_dir));
    chmod(open_dir, 0755);
    chmod(real, 0666);
    assert_int_equal(rtm_fsperm_check(link, why, sizeof(why)), RTM_E_OS_PERM);
    assert_non_null(strstr(why, "real.yaml"));
    chmod(real, 0644);
}

static void test_kernel_dir(void **state)
{
    (void)state;
    char kdir[256], p[RTM_PATH_MAX + 64], cmd[RTM_PATH_MAX * 4];
    snprintf(kdir, sizeof(kdir), "%s/kernels", dir);
    assert_int_equal(mkdir(kdir, 0755), 0);
    snprintf(cmd, sizeof(cmd), "cp %s/kernels/*.cl %s/kernels/*.h '%s'/ && chmod 644 '%s'/*", SRC,
             SRC, kdir, kdir);
    assert_int_equal(system(cmd), 0);
    setenv("RTM_KERNEL_DIR", kdir, 1);
    assert_string_equal(rtm_program_kernel_dir(), kdir);
    const rtm_kernel_t *k = rtm_kernel_find("cpa_tcpa");
    assert_non_null(k);
    char src[RTM_PATH_MAX];
    assert_int_equal(rtm_program_source_path(k, src, sizeof(src)), RTM_OK);
    snprintf(p, sizeof(p), "%s/cpa_tcpa.cl", kdir);
    assert_string_equal(src, p);

    /* a header the source includes, the source, the directory */
    snprintf(p, sizeof(p), "%s/nav_math.h", kdir);
    chmod(p, 0666);
    assert_int_equal(rtm_program_source_path(k, src, sizeof(src)), RTM_E_CFG_PERM);
    chmod(p, 0644);
    snprintf(p, sizeof(p), "%s/cpa_tcpa.cl", kdir);
    chmod(p, 0646);
    assert_int_equal(rtm_program_source_path(k, src, sizeof(src)), RTM_E_CFG_PERM);
    chmod(p, 0644);
    chmod(kdir, 0777);
    assert_int_equal(rtm_program_source_path(k, src, sizeof(src)), RTM_E_CFG_PERM);
    char why[512];
    assert_int_equal(rtm_fsperm_check_dir(kdir, why, sizeof(why)), RTM_E_OS_PERM);
    assert_non_null(strstr(why, kdir));
    chmod(kdir, 0755);
    assert_int_equal(rtm_program_source_path(k, src, sizeof(src)), RTM_OK);

    /* only plain names inside the kernel directory */
    rtm_kernel_t evil = *k;
    evil.source = "../task.yaml";
    assert_int_equal(rtm_program_source_path(&evil, src, sizeof(src)), RTM_E_ARG);
    unsetenv("RTM_KERNEL_DIR");
}

static void test_check_command(void **state)
{
    (void)state;
    char cmd[RTM_PATH_MAX * 2 + 64];
    snprintf(cmd, sizeof(cmd), "%s check -c '%s' >/dev/null 2>&1", RTM_TEST_RTMGR, path);
    int rc = system(cmd);
    assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
    chmod(path, 0666);
    snprintf(cmd, sizeof(cmd), "%s check -c '%s' 2>&1 | grep -q 'task.yaml is writable by others'",
             RTM_TEST_RTMGR, path);
    rc = system(cmd);
    assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
    snprintf(cmd, sizeof(cmd), "%s check -c '%s' >/dev/null 2>&1", RTM_TEST_RTMGR, path);
    rc = system(cmd);
    assert_true(WIFEXITED(rc) && WEXITSTATUS(rc) == 2);
    chmod(path, 0644);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_config_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_symlink, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kernel_dir, setup, teardown),
        cmocka_unit_test_setup_teardown(test_check_command, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
