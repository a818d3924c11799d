/* cmd_bench.c — `rtmgr bench SUB [ARGS]`: dispatches to the sub-benchmarks of bench.h.
 * Adding one: write `int rtm_bench_<name>(int, char **)` in its own bench_<name>.c,
 * declare it in bench.h and add a line to the table below. */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "cli.h"

typedef struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *usage;
    const char *help;
} bench_t;

static const bench_t benches[] = {
    {"kernels", rtm_bench_kernels,
     "kernels [--quick] [--device N] [--json] [--threads N | --board FILE]\n"
     "          [--kernel NAME] [--reps N] [--no-bandwidth]",
     "every kernel at a size sweep on OpenCL and on the CPU pool, checked against the twin"},
    {"placement", rtm_bench_placement,
     "placement [--quick] [--seed N] [--csv PATH] [--real [-c FILE] [--seconds S]]",
     "placement policies at 0.5x-2x load: misses per criticality, response, decision "
     "latency; release jitter"},
    {"preempt", rtm_bench_preempt, "preempt [--quick] [--device N] [--json] [--sweep]",
     "abort response, check/feedback overhead, resume GPU->GPU and GPU->CPU (seed 002)"},
    {"pool", rtm_bench_pool,
     "pool [--quick] [--threads N] [--rt] [--idle-ms MS] [--reps N] [--json]",
     "the CPU worker pool's cost per launch, back to back and after idling, with its "
     "workers and on the caller alone"},
    {NULL, NULL, NULL, NULL},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: rtmgr bench SUB [ARGS]\n\nsub-benchmarks:\n");
    for (const bench_t *b = benches; b->name; b++)
        fprintf(f, "  %s\n      %s\n", b->usage, b->help);
    fprintf(f, "\nexit codes: 0 ok (speed never fails), 1 usage, 2 invalid board profile, 3 wrong "
               "results or a failed run\n");
}

int rtm_cmd_bench(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return RTM_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return RTM_EXIT_OK;
    }
    for (const bench_t *b = benches; b->name; b++)
        if (strcmp(argv[1], b->name) == 0)
            return b->fn(argc - 1, argv + 1);
    fprintf(stderr, "rtmgr bench: unknown sub-benchmark '%s' (see rtmgr bench --help)\n",
            argv[1]);
    return RTM_EXIT_USAGE;
}
