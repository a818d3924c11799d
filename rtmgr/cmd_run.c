/* cmd_run.c — `rtmgr run [-c FILE] [--duration S] [--policy P] [--log PATH]
 * [--status-name NAME] [--margin F] [--adapt W] [--wake US] [--spin-lead US] [--no-rt] [--no-warmup]
 * [--preempt-wait] [--verify] [--quiet] [--nmea-in A] [--nmea-out A]`: the manager's
 * lifecycle (manager.h) from the command line. Without -c it runs config/default.yaml.
 * Exit: 0 after a clean stop (duration over, SIGINT or SIGTERM), 1 usage, 2 invalid
 * configuration, 3 runtime failure (device, log write error, --verify mismatch). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib.h"
#include "cli.h"
#include "manager.h"

#define DEFAULT_CONFIG "config/default.yaml"

static int usage(FILE *f)
{
    fprintf(f, "usage: rtmgr run [-c FILE] [--duration S] [--policy model|cpu-only|gpu-only|greedy]\n"
               "                 [--log PATH] [--status-name NAME] [--margin F] [--adapt W] [--wake US]\n"
               "                 [--spin-lead US]\n"
               "                 [--no-rt] [--no-warmup] [--preempt-wait] [--verify] [--quiet]\n"
               "                 [--nmea-in HOST:PORT] [--nmea-out HOST:PORT]\n"
               "  -c FILE            task set (default " DEFAULT_CONFIG ")\n"
               "  --duration S       run S seconds, then stop (default: until SIGINT/SIGTERM)\n"
               "  --policy P         placement policy (default model)\n"
               "  --log PATH         model-error log (default: the task set's log.path)\n"
               "  --status-name NAME shared-memory status segment (default /rtmgr-<pid>)\n"
               "  --margin F         placement allowance for model error, fraction (default 0.1)\n"
               "  --adapt W          placement scales the model by the running measured/predicted\n"
               "                     ratio, weight W per job (default 0.2; 0: the model as is)\n"
               "  --wake US          wake an idle GPU US microseconds before a release of a task\n"
               "                     that may run there (default 300; 0: never)\n"
               "  --spin-lead US     idle dispatchers spin from US microseconds before a hard or\n"
               "                     firm release that may come to them to US after it, the CPU\n"
               "                     pool's workers with the CPU's, at most the task's period\n"
               "                     / 40 (default 300 on computers of 4 or more CPUs, else 0;\n"
               "                     0: never)\n"
               "  --no-rt            do not ask for SCHED_FIFO, affinity, mlockall\n"
               "  --no-warmup        no warm-up job where the model predicts (faster start-up)\n"
               "  --preempt-wait     after a GPU abort, start the next job only once the host saw\n"
               "                     the aborted kernel end (default: enqueued behind the raise)\n"
               "  --verify           at the end, check device results against the CPU twins\n"
               "  --quiet            no progress lines\n"
               "  --nmea-in A        NMEA input address instead of the task set's udp/tcp one\n"
               "  --nmea-out A       NMEA output address instead of the task set's output.nmea.udp\n"
               "signals: SIGINT/SIGTERM stop cleanly, SIGUSR1 prints per-task statistics\n");
    return RTM_EXIT_USAGE;
}

int rtm_cmd_run(int argc, char **argv)
{
    const char *path = DEFAULT_CONFIG;
    double duration = 0.0;
    bool verify = false;
    rtm_manager_opts_t o;
    rtm_manager_defaults(&o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const bool more = i + 1 < argc;
        char *end = NULL;
        if ((strcmp(a, "-c") == 0 || strcmp(a, "--config") == 0) && more) {
            path = argv[++i];
        } else if (strcmp(a, "--duration") == 0 && more) {
            duration = strtod(argv[++i], &end);
            if (!end || *end || !(duration > 0.0))
                return usage(stderr);
        } else if (strcmp(a, "--policy") == 0 && more) {
            if (rtm_place_policy_parse(argv[++i], &o.policy) != RTM_OK) {
                fprintf(stderr, "rtmgr: unknown policy '%s'\n", argv[i]);
                return usage(stderr);
            }
        } else if (strcmp(a, "--log") == 0 && more) {
            o.log_path = argv[++i];
        } else if (strcmp(a, "--status-name") == 0 && more) {
            o.status_name = argv[++i];
        } else if (strcmp(a, "--margin") == 0 && more) {
            o.margin = strtod(argv[++i], &end);
            if (!end || *end || !(o.margin >= 0.0 && o.margin < 10.0))
                return usage(stderr);
        } else if (strcmp(a, "--adapt") == 0 && more) {
            o.adapt = strtod(argv[++i], &end);
            if (!end || *end || !(o.adapt >= 0.0 && o.adapt <= 1.0))
                return usage(stderr);
        } else if (strcmp(a, "--wake") == 0 && more) {
            const double us = strtod(argv[++i], &end);
            if (!end || *end || !(us >= 0.0 && us <= 1e6))
                return usage(stderr);
            o.wake_lead_ns = (int64_t)(us * 1e3);
        } else if (strcmp(a, "--spin-lead") == 0 && more) {
            const double us = strtod(argv[++i], &end);
            if (!end || *end || !(us >= 0.0 && us <= 1e5))
                return usage(stderr);
            o.spin_lead_ns = (int64_t)(us * 1e3);
        } else if (strcmp(a, "--no-rt") == 0) {
            o.rt = false;
        } else if (strcmp(a, "--no-warmup") == 0) {
            o.no_warmup = true;
        } else if (strcmp(a, "--preempt-wait") == 0) {
            o.preempt_wait = true;
        } else if (strcmp(a, "--verify") == 0) {
            verify = true;
        } else if (strcmp(a, "--quiet") == 0) {
            o.quiet = true;
        } else if (strcmp(a, "--nmea-in") == 0 && more) {
            o.nmea_in = argv[++i];
        } else if (strcmp(a, "--nmea-out") == 0 && more) {
            o.nmea_out = argv[++i];
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return RTM_EXIT_OK;
        } else {
            fprintf(stderr, "rtmgr: run: unexpected argument '%s'\n", a);
            return usage(stderr);
        }
    }
    rtm_manager_t *m = rtm_manager_create(&o);
    if (!m) {
        fprintf(stderr, "rtmgr: out of memory\n");
        return RTM_EXIT_RUNTIME;
    }
    rtm_diag_t diag;
    memset(&diag, 0, sizeof(diag));
    rtm_status_t st = rtm_manager_load(m, path, &diag);
    if (st == RTM_OK)
        st = rtm_manager_validate(m, &diag);
    if (st != RTM_OK) {
        if (!diag.file[0])
            snprintf(diag.file, sizeof(diag.file), "%s", path);
        if (!diag.text[0])
            snprintf(diag.text, sizeof(diag.text), "%s", rtm_strerror(st));
        char buf[RTM_PATH_MAX + 600];
        rtm_diag_format(&diag, buf, sizeof(buf));
        fprintf(stderr, "%s\n", buf);
        rtm_manager_destroy(m);
        return RTM_EXIT_CONFIG;
    }
    /* a profile made for other devices or drivers still runs, with a warning */
    if (!o.quiet)
        rtm_calib_check_stale(&rtm_manager_config(m)->board, NULL, 0, stderr);
    st = rtm_manager_allocate(m);
    if (st == RTM_OK)
        st = rtm_manager_start(m);
    if (st != RTM_OK) {
        fprintf(stderr, "rtmgr: run: %s\n", rtm_strerror(st));
        rtm_manager_destroy(m);
        return st <= RTM_E_CFG_IO && st >= RTM_E_CFG_PERM ? RTM_EXIT_CONFIG : RTM_EXIT_RUNTIME;
    }
    if (!o.quiet)
        fprintf(stderr,
                "rtmgr: running %s (policy %s%s), status: rtmgr status --name %s, log clock "
                "origin %.6f s\n",
                path, rtm_place_policy_name(o.policy), duration > 0 ? "" : ", until SIGINT/SIGTERM",
                rtm_manager_status_name(m), (double)rtm_manager_t0_ns(m) / 1e9);
    rtm_manager_run(m, duration);
    st = rtm_manager_stop(m);
    rtm_manager_summary(m, stdout);
    int rc = st == RTM_OK ? RTM_EXIT_OK : RTM_EXIT_RUNTIME;
    if (verify && rtm_manager_verify(m, stdout, NULL) > 0)
        rc = RTM_EXIT_RUNTIME;
    rtm_manager_destroy(m);
    return rc;
}
