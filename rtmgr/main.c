/* main.c — the rtmgr command line: dispatches `rtmgr COMMAND [ARGS]` to the commands of
 * cli.h. Exit codes: 0 ok, 1 usage, 2 invalid config, 3 runtime failure. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "os.h"

typedef struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *usage;
    const char *help;
} command_t;

static const command_t commands[] = {
    {"run", rtm_cmd_run, "run [-c FILE] [--duration S] [--policy P] [--log PATH]",
     "run a task set (default config/default.yaml) until SIGINT/SIGTERM"},
    {"status", rtm_cmd_status, "status [--name NAME] [--watch [S]]",
     "live status of a running manager (shared memory)"},
    {"calibrate", rtm_cmd_calibrate, "calibrate -o FILE [--quick] | --validate",
     "measure the model parameters; validate the models"},
    {"check", rtm_cmd_check, "check [-c FILE]", "validate a task set and its board profile"},
    {"eval", rtm_cmd_eval, "eval KERNEL [--device cpu|N] --in FILE.csv",
     "run one kernel over CSV input, print CSV output"},
    {"report", rtm_cmd_report, "report LOG [--out DIR] [--json] [--no-plot]",
     "model error and deadline summary, plots"},
    {"nmea", rtm_cmd_nmea, "nmea decode|stats [--split24] FILE",
     "decode an NMEA 0183 / AIS log (gpsdecode -j JSON, counters)"},
    {"devices", rtm_cmd_devices, "devices", "list OpenCL platforms and devices"},
    {"bench", rtm_cmd_bench, "bench SUB [ARGS]", "benchmarks: kernels (see rtmgr bench --help)"},
    {NULL, NULL, NULL, NULL},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: rtmgr [--help] [--version] COMMAND [ARGS]\n\n"
               "rtmgr — real-time task manager for ships' onboard computers.\n\ncommands:\n");
    for (const command_t *c = commands; c->name; c++)
        fprintf(f, "  %-44s %s\n", c->usage, c->help);
    fprintf(f, "\nexit codes: 0 ok, 1 usage, 2 invalid configuration, 3 runtime failure\n");
}

int main(int argc, char **argv)
{
    rtm_os_keep_environ();
    if (argc < 2) {
        usage(stderr);
        return RTM_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return RTM_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("rtmgr %s\n", RTM_VERSION);
        return RTM_EXIT_OK;
    }
    for (const command_t *c = commands; c->name; c++)
        if (strcmp(argv[1], c->name) == 0)
            return c->fn(argc - 1, argv + 1);
    fprintf(stderr, "rtmgr: unknown command '%s' (see rtmgr --help)\n", argv[1]);
    return RTM_EXIT_USAGE;
}
