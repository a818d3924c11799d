/* test_run_preempt.c — preemption through the whole manager (`rtmgr run`, PoCL): the
 * task set of config/preempt-pocl.yaml (a long preemptible spin job and a hard job on
 * the OpenCL device), run for 3 s with --verify. The model-error log must show hard jobs
 * placed with reason preempt-<dev>, and long jobs preempted, resumed as many times, all
 * their blocks done, with the resume and checkpoint in the reason ("…;resume-ocl0@k/n");
 * the device results equal the CPU twins (--verify). No wall-clock bound is asserted:
 * on a loaded machine a hard release may find the long job not started yet. */
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

/* The CSV field `name` of a row (by the header's column order). */
static const char *field(char *const *cols, char *const *hdr, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(hdr[i], name) == 0)
            return cols[i];
    fail_msg("no column %s", name);
    return "";
}

static int split(char *line, char **cols, int max)
{
    int n = 0;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *s = line; n < max;) {
        cols[n++] = s;
        char *c = strchr(s, ',');
        if (!c)
            break;
        *c = '\0';
        s = c + 1;
    }
    return n;
}

static void test_run_preempt_log(void **state)
{
    (void)state;
    char dir[] = "/tmp/rtmgr-preempt-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char board[300], set[300], logf[300], outf[300], src[300];
    snprintf(src, sizeof(src), "%s/board/pocl-cpu.yaml", RTM_TEST_SOURCE_DIR);
    snprintf(board, sizeof(board), "%s/board.yaml", dir);
    cli_board_any_device(src, board);
    /* the task set of config/preempt-pocl.yaml, over the copied board */
    snprintf(src, sizeof(src), "%s/config/preempt-pocl.yaml", RTM_TEST_SOURCE_DIR);
    snprintf(set, sizeof(set), "%s/set.yaml", dir);
    FILE *in = fopen(src, "r"), *out = fopen(set, "w");
    assert_non_null(in);
    assert_non_null(out);
    char line[1024];
    while (fgets(line, sizeof(line), in)) {
        if (strncmp(line, "board:", 6) == 0)
            fprintf(out, "board: %s\n", board);
        else
            fputs(line, out);
    }
    fclose(in);
    fclose(out);
    snprintf(logf, sizeof(logf), "%s/log.csv", dir);
    snprintf(outf, sizeof(outf), "%s/run.out", dir);
    pid_t pid;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, outf, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    char *argv[] = {(char *)RTM_TEST_RTMGR, "run", "-c", set, "--duration", "3", "--no-rt",
                    "--verify", "--log", logf, NULL};
    assert_int_equal(posix_spawn(&pid, RTM_TEST_RTMGR, &fa, NULL, argv, cli_environ()), 0);
    posix_spawn_file_actions_destroy(&fa);
    int ws = 0;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    char cmd[400];
    snprintf(cmd, sizeof(cmd), "cat %s", outf);
    if (system(cmd) != 0)
        fail_msg("cannot show the run's output");
    assert_true(WIFEXITED(ws));
    assert_int_equal(WEXITSTATUS(ws), 0); /* --verify: 3 on a mismatch */

    FILE *f = fopen(logf, "r");
    assert_non_null(f);
    char head[2048], row[2048];
    char *hdr[64], *cols[64];
    assert_non_null(fgets(head, sizeof(head), f));
    const int nh = split(head, hdr, 64);
    unsigned preempting = 0, long_rows = 0, long_preempted = 0, preemptions = 0;
    while (fgets(row, sizeof(row), f)) {
        const int n = split(row, cols, 64);
        assert_int_equal(n, nh);
        const char *task = field(cols, hdr, n, "task"), *reason = field(cols, hdr, n, "reason");
        if (strcmp(task, "urgent") == 0) {
            preempting += strcmp(reason, "preempt-ocl0") == 0;
            continue;
        }
        if (strstr(reason, "cancelled"))
            continue; /* still queued at the stop */
        long_rows++;
        const unsigned pre = (unsigned)atoi(field(cols, hdr, n, "preempted"));
        const unsigned res = (unsigned)atoi(field(cols, hdr, n, "resumed"));
        const unsigned done = (unsigned)atoi(field(cols, hdr, n, "blocks_done"));
        const unsigned total = (unsigned)atoi(field(cols, hdr, n, "blocks_total"));
        printf("long job %s: preempted %u resumed %u blocks %u/%u met %s reason %s\n",
               field(cols, hdr, n, "job"), pre, res, done, total, field(cols, hdr, n, "met"),
               reason);
        assert_int_equal(total, 64); /* 32 blocks x 2 launches */
        if (pre == 0)
            continue;
        long_preempted++;
        preemptions += pre;
        assert_int_equal(res, pre);
        assert_int_equal(done, total); /* completed: every block, none lost */
        char expect[64];
        snprintf(expect, sizeof(expect), ";resume-ocl0@");
        assert_non_null(strstr(reason, expect));
        assert_non_null(strstr(reason, "/64"));
    }
    fclose(f);
    printf("hard jobs that preempted: %u; long jobs preempted: %u of %u (%u preemptions)\n",
           preempting, long_preempted, long_rows, preemptions);
    assert_true(long_rows >= 2);
    if (preempting == 0) {
        printf("no hard release found the long job running (machine too busy)\n");
        skip();
    }
    assert_true(long_preempted >= 1);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0)
        printf("could not remove %s\n", dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_preempt_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
