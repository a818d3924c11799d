/* cli.h — the rtmgr commands. Each command is `int rtm_cmd_<name>(int argc, char **argv)`
 * (argv[0] is the command name) returning an exit code: RTM_EXIT_*. main.c dispatches;
 * a command that has not landed is not listed. */
#ifndef RTM_CLI_H
#define RTM_CLI_H

enum {
    RTM_EXIT_OK = 0,
    RTM_EXIT_USAGE = 1,   /* bad command line */
    RTM_EXIT_CONFIG = 2,  /* invalid configuration or board profile */
    RTM_EXIT_RUNTIME = 3, /* runtime failure (OpenCL, OS, verification) */
};

/* rtmgr status [--name NAME] [--watch [S]] — live status of a running manager. */
int rtm_cmd_status(int argc, char **argv);
/* rtmgr check [-c FILE]: validate a task set and its board profile, print the tasks
 * and devices. Init-time tool; never starts the executive. */
int rtm_cmd_check(int argc, char **argv);
/* rtmgr eval KERNEL [--device cpu|N] --in FILE.csv [--out FILE.csv] [--size KEY=VALUE]...
 * Runs one kernel once over CSV input (see docs/kernels.md). Init-time tool. */
int rtm_cmd_eval(int argc, char **argv);

/* rtmgr calibrate -o FILE | --validate: measure the model parameters of this computer into
 * a board profile; compare the models with measurements (cmd_calibrate.c). */
int rtm_cmd_calibrate(int argc, char **argv);

/* rtmgr report LOG: model-error and deadline summary, plots (cmd_report.c). */
int rtm_cmd_report(int argc, char **argv);
/* rtmgr run [-c FILE] [--duration S] [--policy P] [--log PATH] … — the manager (cmd_run.c). */
int rtm_cmd_run(int argc, char **argv);
/* rtmgr nmea decode|stats FILE — offline NMEA 0183 / AIS tools (cmd_nmea.c). */
int rtm_cmd_nmea(int argc, char **argv);

/* rtmgr devices: lists OpenCL platforms and devices (cmd_devices.c). */
int rtm_cmd_devices(int argc, char **argv);
/* rtmgr bench SUB [ARGS]: benchmarks (cmd_bench.c; sub-benchmarks in bench.h). */
int rtm_cmd_bench(int argc, char **argv);

#endif
