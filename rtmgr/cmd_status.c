/* cmd_status.c — `rtmgr status [--name NAME] [--watch [SECONDS]]`: prints the status
 * segment of a running manager (shmstat.h), once or refreshed until interrupted. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "shmstat.h"

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

static int usage(void)
{
    fprintf(stderr, "usage: rtmgr status [--name NAME] [--watch [SECONDS]]\n"
                    "  prints the live status of a running `rtmgr run` (shared memory\n"
                    "  /rtmgr-<pid>, or the name given to run --status-name)\n");
    return RTM_EXIT_USAGE;
}

int rtm_cmd_status(int argc, char **argv)
{
    const char *name = NULL;
    double watch = 0.0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--name") == 0 && i + 1 < argc) {
            name = argv[++i];
        } else if (strcmp(argv[i], "--watch") == 0) {
            watch = 1.0;
            if (i + 1 < argc && argv[i + 1][0] != '-') {
                char *end = NULL;
                watch = strtod(argv[++i], &end);
                if (!end || *end || !(watch > 0.0))
                    return usage();
            }
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage();
            return RTM_EXIT_OK;
        } else {
            return usage();
        }
    }
    char found[RTM_SHMSTAT_NAME_MAX];
    if (!name) {
        const rtm_status_t st = rtm_shmstat_find(found, sizeof(found));
        if (st == RTM_E_NOTFOUND)
            fprintf(stderr, "rtmgr: no running manager found (no live /dev/shm/rtmgr-<pid>)\n");
        if (st != RTM_OK)
            return RTM_EXIT_RUNTIME;
        name = found;
    }
    static rtm_shmstat_seg_t seg;
    signal(SIGINT, on_sigint);
    const bool tty = isatty(STDOUT_FILENO);
    do {
        const rtm_status_t st = rtm_shmstat_read(name, &seg);
        if (st != RTM_OK) {
            fprintf(stderr, "rtmgr: status segment %s: %s\n", name,
                    st == RTM_E_NOTFOUND ? "not found (manager stopped?)" : rtm_strerror(st));
            return RTM_EXIT_RUNTIME;
        }
        if (watch > 0.0 && tty)
            fputs("\033[H\033[2J", stdout);
        rtm_shmstat_print(stdout, &seg, name);
        fflush(stdout);
        if (watch > 0.0) {
            if (!tty)
                putchar('\n');
            const struct timespec ts = {(time_t)watch, (long)((watch - (double)(time_t)watch) * 1e9)};
            nanosleep(&ts, NULL);
        }
    } while (watch > 0.0 && !interrupted && seg.state != RTM_SHMSTAT_STOPPED);
    return RTM_EXIT_OK;
}
