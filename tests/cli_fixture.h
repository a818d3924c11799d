/* cli_fixture.h — runs the built rtmgr binary (RTM_TEST_RTMGR) as a separate process for
 * the tests of its commands: arguments in, exit code out, stdout and stderr captured into
 * the caller's buffers through temporary files (so output of any size never blocks the
 * child on a pipe); or a shell command line, its stdout captured through a pipe
 * (cli_shell). Include after <cmocka.h>. */
#ifndef RTM_TEST_CLI_FIXTURE_H
#define RTM_TEST_CLI_FIXTURE_H

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rtmgr/os.h"

extern char **environ;

/* The environment for the processes a test spawns: its own, with what the test has set,
 * but OCL_ICD_FILENAMES as it was when the test started. Once the test has used OpenCL,
 * the ICD loader has cut that variable at its colons in place (the H100 machine's
 * "libpocl.so.2:libnvidia-opencl.so.1" became "libpocl.so.2"), and a child rtmgr given
 * `environ` saw PoCL alone. rtm_os_keep_environ copies the environment before main. */
__attribute__((constructor)) static void cli_keep_environ(void) { rtm_os_keep_environ(); }
static inline char **cli_environ(void)
{
    static const char key[] = "OCL_ICD_FILENAMES=";
    static char *env[RTM_OS_ENV_MAX + 1];
    char *icd = NULL;
    for (char **e = rtm_os_initial_environ(); e && *e; e++)
        if (strncmp(*e, key, sizeof(key) - 1) == 0)
            icd = *e;
    size_t n = 0;
    for (char **e = environ; e && *e; e++) {
        if (n == RTM_OS_ENV_MAX)
            return environ;
        env[n++] = icd && strncmp(*e, key, sizeof(key) - 1) == 0 ? icd : *e;
    }
    env[n] = NULL;
    return env;
}

/* Copies the board profile `from` to `to` with every `platform: "…"` and `device: "…"`
 * value emptied, so that its devices match whatever OpenCL device comes first here (a
 * PoCL device is named after the CPU it was calibrated on). */
static inline void cli_board_any_device(const char *from, const char *to)
{
    FILE *in = fopen(from, "r"), *out = fopen(to, "w");
    assert_non_null(in);
    assert_non_null(out);
    char line[1024];
    while (fgets(line, sizeof(line), in)) {
        char *p = strstr(line, "platform: \"");
        if (!p)
            p = strstr(line, "device: \"");
        if (p && strchr(p, '"')) {
            *(strchr(p, '"') + 1) = '\0';
            fprintf(out, "%s\"\n", line);
            continue;
        }
        fputs(line, out);
    }
    fclose(in);
    fclose(out);
}

/* Reads the file at `path` into buf (NUL-terminated, truncated to len - 1); returns its
 * length as read. */
static inline size_t cli_read(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    const size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
    return n;
}

/* The same, and removes the file. */
static inline void cli_slurp(const char *path, char *buf, size_t len)
{
    cli_read(path, buf, len);
    unlink(path);
}

/* Runs the shell command line `cmd` (popen); its stdout goes to buf (NUL-terminated,
 * truncated to len - 1). Returns its exit status, 128 when it did not exit. */
static inline int cli_shell(const char *cmd, char *buf, size_t len)
{
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    const size_t n = fread(buf, 1, len - 1, p);
    buf[n] = '\0';
    const int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Runs rtmgr with `args` (NULL-terminated, without the program name, at most 30); its
 * stdout goes to out[out_len], its stderr to err[err_len]; temporary files are made in
 * `tmpdir`. Returns the exit code (the test fails if the child did not exit). */
static inline int cli_run(const char *const *args, const char *tmpdir, char *out, size_t out_len,
                          char *err, size_t err_len)
{
    char *argv[32];
    int n = 0;
    argv[n++] = (char *)RTM_TEST_RTMGR;
    for (; args[n - 1] && n < 31; n++)
        argv[n] = (char *)args[n - 1];
    argv[n] = NULL;
    char out_path[256], err_path[256];
    snprintf(out_path, sizeof(out_path), "%s/rtmgr-out-XXXXXX", tmpdir);
    snprintf(err_path, sizeof(err_path), "%s/rtmgr-err-XXXXXX", tmpdir);
    const int fo = mkstemp(out_path), fe = mkstemp(err_path);
    assert_true(fo >= 0 && fe >= 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fo, 1);
    posix_spawn_file_actions_adddup2(&fa, fe, 2);
    pid_t pid;
    assert_int_equal(posix_spawn(&pid, RTM_TEST_RTMGR, &fa, NULL, argv, cli_environ()), 0);
    posix_spawn_file_actions_destroy(&fa);
    close(fo);
    close(fe);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    cli_slurp(out_path, out, out_len);
    cli_slurp(err_path, err, err_len);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

#endif
