/* cmd_calibrate.c — `rtmgr calibrate`: measure the model parameters of this computer
 * into a board profile, and `rtmgr calibrate --validate`: compare both models'
 * predictions with measurements at held-out sizes (calib.h, docs/calibration.md).
 *
 * Owns: the command line only. Exit: 0 ok, 1 usage, 2 base profile invalid, 3 runtime
 * failure (OpenCL, I/O). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "board.h"
#include "builder.h"
#include "calib.h"
#include "cli.h"

static const char usage_text[] =
    "usage: rtmgr calibrate -o board/NAME.yaml [--device N|all|none] [--quick] [-b EXISTING.yaml]\n"
    "                       [--kernels A,B,...] [--no-cpu] [--threads N] [--no-rt]\n"
    "                       [--time-limit S] [--quiet]\n"
    "       rtmgr calibrate --validate [-b board/NAME.yaml] [--json] [--json-out F] [--device N|all|none]\n"
    "                       [--quick] [--kernels A,B,...] [--no-cpu] [--no-rt] [--quiet]\n"
    "       rtmgr calibrate --check -b board/NAME.yaml\n"
    "  Measures the execution-time model parameters of this computer (every OpenCL\n"
    "  device, or device N in `rtmgr devices` order, and the CPU) with the seed-000\n"
    "  method and writes them as a board profile. -b starts from an existing profile:\n"
    "  its device names and choices are kept, devices not calibrated now stay as they are\n"
    "  (their figures and their calibration record, marked as the base profile's).\n"
    "  --quick       small sizes and no tuning sweep (CI, `make run`)\n"
    "  --kernels     limit the per-kernel part to these catalogue kernels\n"
    "  --no-cpu      leave the CPU section alone\n"
    "  --threads N   the CPU worker pool's threads, 1..64 (default: one per online core,\n"
    "                less one from 4 cores up, left to the executive, drivers and OS)\n"
    "  --device none no OpenCL device: the CPU section alone\n"
    "  --time-limit S  seconds the run may take (default 58, none with --quick; 0: none):\n"
    "                near it the kernels left get two points each, past it none (their\n"
    "                terms stay the base profile's, else the generic model's; FALLBACK)\n"
    "  --no-rt       measure the CPU pool under the default scheduling, not SCHED_FIFO as\n"
    "                `rtmgr run` gives it where permitted (for a manager run with --no-rt)\n"
    "  --validate    predicted (paper and extended model) against measured transfer,\n"
    "                kernel and total times at sizes calibration did not use, and MAPE per\n"
    "                device and model; with -b the profile given, else one calibrated now\n"
    "                (written to -o when given)\n"
    "  --json        one JSON object per line (with --validate)\n"
    "  --json-out F  also write the JSON lines to file F (the table still on stdout)\n"
    "  --check       is the profile current for this computer (devices, drivers, cores)?\n"
    "                warnings on stderr; exit 0 current, 2 stale or invalid\n"
    "  Exit: 0 ok, 1 usage, 2 invalid (or, with --check, stale) profile, 3 runtime failure.\n";

/* "board/x.yaml" -> "x" */
static void stem(const char *path, char *out, size_t len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, ".yaml") == 0)
        n -= 5;
    else if (n > 4 && strcmp(base + n - 4, ".yml") == 0)
        n -= 4;
    if (n >= len)
        n = len - 1;
    memcpy(out, base, n);
    out[n] = '\0';
    for (char *p = out; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '-' || *p == '_' || *p == '.'))
            *p = '_';
}

/* A whole decimal number in [0, below) into *out. */
static bool small_count(const char *s, long below, long *out)
{
    char *end = NULL;
    *out = strtol(s, &end, 10);
    return end != s && *end == '\0' && *out >= 0 && *out < below;
}

int rtm_cmd_calibrate(int argc, char **argv)
{
    /* internal: calibration's own build workers (rtm_calib_prebuild_worker, builder.h):
     * --prebuild-worker DEV --cache DIR [--ack-fd N [--idle]] */
    if ((argc == 5 || argc == 7 || argc == 8) && strcmp(argv[1], "--prebuild-worker") == 0 &&
        strcmp(argv[3], "--cache") == 0) {
        long dev = 0, ack = -1;
        if (!small_count(argv[2], RTM_MAX_DEVICES, &dev) ||
            (argc >= 7 && (strcmp(argv[5], "--ack-fd") != 0 || !small_count(argv[6], 1024, &ack))) ||
            (argc == 8 && strcmp(argv[7], "--idle") != 0))
            return RTM_EXIT_USAGE;
        const rtm_status_t st =
            rtm_calib_prebuild_worker((int)dev, argv[4], STDIN_FILENO, (int)ack, argc == 8);
        /* an error here came before the worker took a job: the builder's others go on */
        return st == RTM_OK ? RTM_EXIT_OK : RTM_BUILD_EXIT_NO_DEVICE;
    }
    const char *out = NULL, *base = NULL, *kernels = NULL, *json_path = NULL;
    bool quick = false, validate = false, json = false, no_cpu = false, quiet = false;
    bool no_rt = false;
    bool check = false;
    int device = -1;
    long threads = 0;
    double time_limit = -1.0; /* not given */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const bool has_value = i + 1 < argc;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage_text, stdout);
            return RTM_EXIT_OK;
        } else if ((strcmp(a, "-o") == 0 || strcmp(a, "--out") == 0) && has_value) {
            out = argv[++i];
        } else if ((strcmp(a, "-b") == 0 || strcmp(a, "--board") == 0) && has_value) {
            base = argv[++i];
        } else if (strcmp(a, "--device") == 0 && has_value) {
            const char *v = argv[++i];
            char *end = NULL;
            const long n = strtol(v, &end, 10);
            if (strcmp(v, "all") == 0) {
                device = -1;
            } else if (strcmp(v, "none") == 0) {
                device = RTM_CALIB_DEV_NONE; /* the CPU section alone */
            } else if (end != v && *end == '\0' && n >= 0 && n < 1000) {
                device = (int)n;
            } else {
                fprintf(stderr, "rtmgr: calibrate: --device takes a number, 'all' or 'none' (got '%s')\n", v);
                return RTM_EXIT_USAGE;
            }
        } else if (strcmp(a, "--json-out") == 0 && has_value) {
            json_path = argv[++i];
        } else if (strcmp(a, "--kernels") == 0 && has_value) {
            kernels = argv[++i];
        } else if (strcmp(a, "--threads") == 0 && has_value) {
            const char *v = argv[++i];
            if (!small_count(v, RTM_MAX_WORKERS + 1, &threads) || threads < 1) {
                fprintf(stderr, "rtmgr: calibrate: --threads takes 1..%d (got '%s')\n",
                        RTM_MAX_WORKERS, v);
                return RTM_EXIT_USAGE;
            }
        } else if (strcmp(a, "--time-limit") == 0 && has_value) {
            const char *v = argv[++i];
            char *end = NULL;
            time_limit = strtod(v, &end);
            if (end == v || *end != '\0' || !(time_limit >= 0.0 && time_limit <= 86400.0)) {
                fprintf(stderr, "rtmgr: calibrate: --time-limit takes seconds, 0..86400 (got '%s')\n",
                        v);
                return RTM_EXIT_USAGE;
            }
        } else if (strcmp(a, "--quick") == 0) {
            quick = true;
        } else if (strcmp(a, "--validate") == 0) {
            validate = true;
        } else if (strcmp(a, "--check") == 0) {
            check = true;
        } else if (strcmp(a, "--json") == 0) {
            json = true;
        } else if (strcmp(a, "--no-cpu") == 0) {
            no_cpu = true;
        } else if (strcmp(a, "--no-rt") == 0) {
            no_rt = true;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            quiet = true;
        } else {
            fprintf(stderr, "rtmgr: calibrate: unknown or incomplete argument '%s'\n\n%s", a,
                    usage_text);
            return RTM_EXIT_USAGE;
        }
    }
    if (check && (!base || out || validate)) {
        fprintf(stderr, "rtmgr: calibrate: --check takes -b PROFILE and nothing else\n");
        return RTM_EXIT_USAGE;
    }
    if (!out && !validate && !check) {
        fprintf(stderr, "rtmgr: calibrate: -o board/NAME.yaml is required (or --validate)\n\n%s",
                usage_text);
        return RTM_EXIT_USAGE;
    }
    if ((json || json_path) && !validate) {
        fprintf(stderr, "rtmgr: calibrate: --json and --json-out go with --validate\n");
        return RTM_EXIT_USAGE;
    }
    rtm_board_t *board = calloc(1, sizeof(*board));
    rtm_calib_record_t *rec = calloc(1, sizeof(*rec));
    if (!board || !rec) {
        free(board);
        free(rec);
        fprintf(stderr, "rtmgr: calibrate: out of memory\n");
        return RTM_EXIT_RUNTIME;
    }
    int rc = RTM_EXIT_OK;
    if (base) {
        rtm_diag_t diag;
        const rtm_status_t st = rtm_board_load(base, board, &diag);
        if (st != RTM_OK) {
            if (diag.line > 0)
                fprintf(stderr, "%s:%d:%d: error: %s\n", diag.file, diag.line, diag.column,
                        diag.text);
            else
                fprintf(stderr, "%s: error: %s\n", base, diag.text[0] ? diag.text : rtm_strerror(st));
            rc = RTM_EXIT_CONFIG;
        }
    }
    if (rc == RTM_EXIT_OK && check) {
        const int stale = rtm_calib_check_stale(board, NULL, 0, stderr);
        if (!quiet)
            fprintf(stderr, "rtmgr: calibrate: %s: %s\n", base, stale ? "stale" : "current");
        rc = stale ? RTM_EXIT_CONFIG : RTM_EXIT_OK;
    }
    /* calibrate unless only validating (or checking) an existing profile */
    if (rc == RTM_EXIT_OK && !check && (out || !base)) {
        const rtm_calib_opts_t o = {.quick = quick,
                                    .device = device,
                                    .kernels = kernels,
                                    .no_cpu = no_cpu,
                                    .log = quiet ? NULL : stderr,
                                    .threads = (uint32_t)threads,
                                    .no_rt = no_rt,
                                    .time_limit = time_limit >= 0.0 ? time_limit
                                                  : quick           ? 0.0
                                                                    : RTM_CALIB_TIME_LIMIT_S};
        rtm_status_t st = rtm_calib_run(&o, board, rec);
        if (st == RTM_OK && out) {
            stem(out, board->name, sizeof(board->name));
            char cmd[2048];
            size_t used = (size_t)snprintf(cmd, sizeof(cmd), "rtmgr calibrate");
            for (int i = 1; i < argc && used < sizeof(cmd); i++)
                used += (size_t)snprintf(cmd + used, sizeof(cmd) - used, " %s", argv[i]);
            st = rtm_calib_save(board, rec, cmd, base, out);
            if (st != RTM_OK)
                fprintf(stderr, "rtmgr: calibrate: cannot write %s: %s\n", out, rtm_strerror(st));
            else if (!quiet)
                fprintf(stderr, "rtmgr: calibrate: wrote %s (%.1fs, of which program builds "
                                "%.1fs: %u compiled, %u from the cache)\n",
                        out, rec->seconds, rec->build_s, rec->n_built + rec->n_prebuilt,
                        rec->n_loaded);
        } else if (st == RTM_OK && !board->name[0]) {
            snprintf(board->name, sizeof(board->name), "calibrated");
        }
        if (st != RTM_OK) {
            fprintf(stderr, "rtmgr: calibrate: failed: %s\n", rtm_strerror(st));
            rc = RTM_EXIT_RUNTIME;
        }
    }
    if (rc == RTM_EXIT_OK && validate) {
        rtm_calib_check_stale(board, NULL, 0, stderr);
        FILE *jf = json_path ? fopen(json_path, "w") : NULL;
        if (json_path && !jf) {
            fprintf(stderr, "rtmgr: calibrate: cannot write %s\n", json_path);
            rc = RTM_EXIT_RUNTIME;
        } else {
            const rtm_calib_vopts_t v = {.quick = quick,
                                         .device = device,
                                         .no_cpu = no_cpu,
                                         .no_rt = no_rt,
                                         .json = json,
                                         .json_out = jf,
                                         .kernels = kernels,
                                         .out = stdout,
                                         .log = quiet ? NULL : stderr};
            const rtm_status_t st = rtm_calib_validate(&v, board, NULL, 0, NULL);
            if (st != RTM_OK) {
                fprintf(stderr, "rtmgr: calibrate --validate: failed: %s\n", rtm_strerror(st));
                rc = RTM_EXIT_RUNTIME;
            }
        }
        if (jf && fclose(jf) != 0) {
            fprintf(stderr, "rtmgr: calibrate: cannot write %s\n", json_path);
            rc = RTM_EXIT_RUNTIME;
        }
    }
    free(board);
    free(rec);
    return rc;
}
