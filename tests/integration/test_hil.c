/* test_hil.c — the hardware-in-the-loop harness on this machine's OpenCL (PoCL in CI):
 * board/hil/replay's program rtmgr-replay replays 5 minutes of the Guernsey log at 20x
 * into `rtmgr run -c config/hil-pocl.yaml`, clean and then corrupted, and must pass both
 * (docs/hil.md: deadlines, CPA/TCPA against the CPU, model error, input counters);
 * rtmgr frozen (SIGSTOP) for 600 ms fails the deadlines check, the machine's stall probe
 * notwithstanding;
 * and `rtmgr status` of a running manager shows the NMEA input and output counters.
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
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rtmgr/limits.h"
#include "tests/cli_fixture.h"

#define LOG_GUERNSEY RTM_TEST_SHARED_DIR "/data/ais/Go_to_Guernesey.nmea"
#define CONFIG RTM_TEST_SOURCE_DIR "/config/hil-pocl.yaml"
/* --excuse-stalls: a shared VM stalls for tens to hundreds of ms (steal); a hard miss
 * inside such a stall, as long as the miss was late, is the machine's (test_freeze shows
 * that rtmgr's own stall is not excused). */
#define SLICE "--start 24240 --duration 15 --speed 20 --free-ports --excuse-stalls"

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

static void test_freeze(void **state)
{
    (void)state;
    if (!ready())
        skip();
    char cmd[4 * RTM_PATH_MAX];
    snprintf(cmd, sizeof(cmd),
             "'%s' '%s' -c '%s' --start 24240 --duration 6 --speed 20 --free-ports "
             "--excuse-stalls --freeze 600 --out hil-freeze 2>&1",
             replay, LOG_GUERNSEY, CONFIG);
    static char out[16384];
    const int rc = cli_shell(cmd, out, sizeof(out));
    print_message("$ %s\n%s", cmd, out);
    assert_int_equal(rc, 1);
    const char *dl = strstr(out, "  deadlines  hard ");
    assert_non_null(dl);
    const char *eol = strchr(dl, '\n');
    assert_non_null(eol);
    assert_true(eol - dl > 4 && strncmp(eol - 4, "FAIL", 4) == 0);
    assert_non_null(strstr(out, "  froze      rtmgr for 600 ms"));
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

static pid_t status_pid = -1;

/* A failed assertion must not leave rtmgr running (it holds the UDP port). */
static int stop_rtmgr(void **state)
{
    (void)state;
    if (status_pid > 0) {
        kill(status_pid, SIGKILL);
        waitpid(status_pid, NULL, 0);
    }
    status_pid = -1;
    return 0;
}

static void test_status(void **state)
{
    (void)state;
    if (!ready())
        skip();
    /* free loopback ports: other runs on this machine may hold the task set's */
    int port[2];
    for (int k = 0; k < 2; k++) {
        const int s = socket(AF_INET, SOCK_DGRAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET};
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t l = sizeof(a);
        assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
        assert_int_equal(getsockname(s, (struct sockaddr *)&a, &l), 0);
        port[k] = ntohs(a.sin_port);
        close(s);
    }
    char in_addr[32], out_addr[32], seg[64], open_line[96];
    snprintf(in_addr, sizeof(in_addr), "127.0.0.1:%d", port[0]);
    snprintf(out_addr, sizeof(out_addr), "127.0.0.1:%d", port[1]);
    snprintf(seg, sizeof(seg), "/rtmgr-test-hil-%d", (int)getpid());
    snprintf(open_line, sizeof(open_line), "NMEA input (udp %s): open", in_addr);
    const pid_t pid = status_pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        const int fd = open("hil-status.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        dup2(fd, 2);
        execl(RTM_TEST_RTMGR, "rtmgr", "run", "-c", CONFIG, "--duration", "60", "--status-name",
              seg, "--log", "hil-status.csv", "--quiet", "--nmea-in", in_addr, "--nmea-out",
              out_addr, (char *)NULL);
        _exit(127);
    }
    static char out[16384];
    char cmd[RTM_PATH_MAX + 64];
    snprintf(cmd, sizeof(cmd), "'%s' status --name %s 2>&1", RTM_TEST_RTMGR, seg);
    for (int i = 0; i < 600; i++) { /* up to 60 s for the first program builds */
        (void)cli_shell(cmd, out, sizeof(out));
        if (strstr(out, open_line))
            break;
        usleep(100000);
    }
    assert_non_null(strstr(out, open_line));
    /* 400 lines of the log, 10 per datagram */
    FILE *f = fopen(LOG_GUERNSEY, "rb");
    assert_non_null(f);
    const int s = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port[0])};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    char line[256], dgram[4096];
    size_t used = 0;
    for (int k = 1; k <= 400 && fgets(line, sizeof(line), f); k++) {
        const size_t l = strlen(line);
        memcpy(dgram + used, line, l);
        used += l;
        if (k % 10 == 0) {
            assert_true(sendto(s, dgram, used, 0, (struct sockaddr *)&a, sizeof(a)) > 0);
            used = 0;
            usleep(2000);
        }
    }
    fclose(f);
    close(s);
    usleep(1500000); /* a picture, a cpa job, a report */
    (void)cli_shell(cmd, out, sizeof(out));
    print_message("%s", strstr(out, "NMEA input") ? strstr(out, "NMEA input") : out);
    assert_non_null(strstr(out, "bytes, 400 sentences")); /* every line arrived */
    assert_non_null(strstr(out, "errors 0"));      /* the start of the log is clean */
    assert_non_null(strstr(out, "NMEA output: "));
    kill(pid, SIGTERM);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    status_pid = -1;
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    (void)cli_shell("cat hil-status.log", out, sizeof(out));
    assert_non_null(strstr(out, "rtmgr: input: errors=0 in.reads=40 "));
    assert_non_null(strstr(out, "rtmgr: output: reports="));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wrapper),
        cmocka_unit_test(test_clean),
        cmocka_unit_test(test_corrupt),
        cmocka_unit_test(test_freeze),
        cmocka_unit_test_teardown(test_status, stop_rtmgr),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
