/* cmd_eval.c — `rtmgr eval`: runs one kernel once over CSV input, on the CPU twin or on
 * an OpenCL device, and prints its CSV output. A tool, not the real-time path: it
 * allocates, reads files and builds the program.
 *
 *   rtmgr eval KERNEL [--device cpu|N] (--in FILE.csv | --fill SEED) [--out FILE.csv]
 *              [--size KEY=VALUE]... [--wg N] [--repeat R] [--verbose]
 *
 * N is the device's position in rtm_ocl_discover() order (as `rtmgr devices` lists it);
 * the default is cpu. With --in, the kernel's csv_size hook sizes the instance from the
 * input (other size keys keep their defaults or the --size values) and csv_load fills
 * the inputs; with --fill the kernel's own fill(SEED) makes random inputs at the --size
 * sizes (any kernel: a benchmark). csv_write prints the outputs (nothing for a kernel
 * without it). --wg N (a power of two up to 1024) replaces the kernel's default
 * work-group size, as a board profile's wg does. --repeat R runs the job R times and,
 * like --verbose, prints the timing (event-profiled on a device: best and median kernel
 * time, median host wall per job) to stderr.
 * Exit codes: 0 ok; 1 usage (bad arguments, unknown kernel or key, unreadable or
 * malformed input); 3 runtime (OpenCL failure, output file). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "os.h"
#include "kernel.h"
#include "kexec.h"
#include "ocl.h"

#define EVAL_INPUT_MAX (64u * 1024u * 1024u)

static void eval_usage(FILE *f)
{
    fprintf(f, "usage: rtmgr eval KERNEL [--device cpu|N] (--in FILE.csv | --fill SEED)\n"
               "                  [--out FILE.csv] [--size KEY=VALUE]... [--wg N] [--repeat R]\n"
               "                  [--verbose]\n"
               "kernels with CSV input:");
    for (uint32_t i = 0; i < rtm_kernel_count(); i++)
        if (rtm_kernel_at(i)->csv_load)
            fprintf(f, " %s", rtm_kernel_at(i)->name);
    fprintf(f, "\n");
}

static int parse_size(rtm_kinst_t *k, const char *arg)
{
    const char *eq = strchr(arg, '=');
    char key[RTM_NAME_MAX];
    if (!eq || (size_t)(eq - arg) >= sizeof(key)) {
        fprintf(stderr, "rtmgr: eval: --size wants KEY=VALUE, got '%s'\n", arg);
        return -1;
    }
    memcpy(key, arg, (size_t)(eq - arg));
    key[eq - arg] = '\0';
    const int idx = rtm_kernel_key(k->kernel, key);
    char *end;
    errno = 0;
    const long long v = strtoll(eq + 1, &end, 10);
    if (idx < 0 || end == eq + 1 || *end || errno) {
        fprintf(stderr, "rtmgr: eval: kernel '%s' has no size key '%s' or the value is not an "
                        "integer\n", k->kernel->name, key);
        return -1;
    }
    k->size[idx] = v;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define EVAL_REPEAT_MAX 1000

/* Runs the whole job `repeat` times on the CPU twin, printing the timing if asked. */
static void run_cpu(const rtm_kinst_t *k, int repeat, int verbose)
{
    static double wall[EVAL_REPEAT_MAX];
    for (int r = 0; r < repeat; r++) {
        const double t0 = rtm_os_now_s();
        rtm_kinst_run_cpu(k);
        wall[r] = rtm_os_now_s() - t0;
    }
    if (verbose) {
        qsort(wall, (size_t)repeat, sizeof(double), cmp_double);
        fprintf(stderr, "rtmgr: eval %s on the CPU twin (1 thread), %d run(s): best %.3f ms, "
                        "median %.3f ms\n",
                k->kernel->name, repeat, wall[0] * 1e3, wall[repeat / 2] * 1e3);
    }
}

/* Runs every launch of k on OpenCL device `index`, `repeat` times. */
static int run_device(rtm_kinst_t *k, uint32_t index, int repeat, int verbose)
{
    rtm_ocl_info_t infos[RTM_MAX_DEVICES];
    uint32_t n = 0;
    rtm_status_t st = rtm_ocl_discover(infos, RTM_MAX_DEVICES, &n);
    if (st != RTM_OK || index >= n) {
        fprintf(stderr, "rtmgr: eval: no OpenCL device %u (%u found)\n", index, n);
        return RTM_EXIT_RUNTIME;
    }
    rtm_ocl_dev_t dev;
    st = rtm_ocl_open(&dev, &infos[index]);
    if (st != RTM_OK) {
        fprintf(stderr, "rtmgr: eval: cannot open device %u: %s\n", index, rtm_strerror(st));
        return RTM_EXIT_RUNTIME;
    }
    static double ks[EVAL_REPEAT_MAX], wall[EVAL_REPEAT_MAX];
    rtm_kexec_t x;
    rtm_kexec_timing_t t = {0};
    st = rtm_kexec_create(&x, &dev, k);
    for (int r = 0; st == RTM_OK && r < repeat; r++) {
        st = rtm_kexec_run(&x, &t);
        ks[r] = t.kernel_s;
        wall[r] = t.wall_s;
    }
    if (st == RTM_OK && verbose) {
        qsort(ks, (size_t)repeat, sizeof(double), cmp_double);
        qsort(wall, (size_t)repeat, sizeof(double), cmp_double);
        fprintf(stderr, "rtmgr: eval %s on %s (wg %u): build %.3f s; last run: in %.3f ms, "
                        "kernel %.3f ms, out %.3f ms, wall %.3f ms; kernel over %d run(s): best "
                        "%.3f ms, median %.3f ms; wall median %.3f ms\n",
                k->kernel->name, dev.info.name, k->tune.wg, x.prog.build_s, t.in_s * 1e3,
                t.kernel_s * 1e3, t.out_s * 1e3, t.wall_s * 1e3, repeat, ks[0] * 1e3,
                ks[repeat / 2] * 1e3, wall[repeat / 2] * 1e3);
    }
    rtm_kexec_destroy(&x);
    rtm_ocl_close(&dev);
    if (st != RTM_OK) {
        fprintf(stderr, "rtmgr: eval: %s failed on device %u: %s\n", k->kernel->name, index,
                rtm_strerror(st));
        return RTM_EXIT_RUNTIME;
    }
    return RTM_EXIT_OK;
}

int rtm_cmd_eval(int argc, char **argv)
{
    if (argc < 2 || argv[1][0] == '-') {
        eval_usage(stderr);
        return RTM_EXIT_USAGE;
    }
    const rtm_kernel_t *kernel = rtm_kernel_find(argv[1]);
    if (!kernel) {
        fprintf(stderr, "rtmgr: eval: no kernel '%s'\n", argv[1]);
        eval_usage(stderr);
        return RTM_EXIT_USAGE;
    }
    rtm_kinst_t k;
    rtm_kinst_init(&k, kernel);
    const char *in = NULL, *out = NULL, *device = "cpu", *fill = NULL;
    int verbose = 0, repeat = 1;
    for (int i = 2; i < argc; i++) {
        const int more = i + 1 < argc;
        if (strcmp(argv[i], "--device") == 0 && more)
            device = argv[++i];
        else if (strcmp(argv[i], "--in") == 0 && more)
            in = argv[++i];
        else if (strcmp(argv[i], "--out") == 0 && more)
            out = argv[++i];
        else if (strcmp(argv[i], "--fill") == 0 && more)
            fill = argv[++i];
        else if (strcmp(argv[i], "--repeat") == 0 && more) {
            char *rend;
            const long r = strtol(argv[++i], &rend, 10);
            repeat = (int)r;
            verbose = 1;
            if (*rend || r < 1 || r > EVAL_REPEAT_MAX) {
                fprintf(stderr, "rtmgr: eval: --repeat wants 1..%d\n", EVAL_REPEAT_MAX);
                return RTM_EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--wg") == 0 && more) {
            char *wend;
            const long w = strtol(argv[++i], &wend, 10);
            if (*wend || w < 1 || w > 1024 || (w & (w - 1))) {
                fprintf(stderr, "rtmgr: eval: --wg wants a power of two 1..1024\n");
                return RTM_EXIT_USAGE;
            }
            k.tune.wg = (uint32_t)w;
        } else if (strcmp(argv[i], "--size") == 0 && more) {
            if (parse_size(&k, argv[++i]) != 0)
                return RTM_EXIT_USAGE;
        } else if (strcmp(argv[i], "--verbose") == 0 || strcmp(argv[i], "-v") == 0)
            verbose = 1;
        else {
            fprintf(stderr, "rtmgr: eval: unexpected argument '%s'\n", argv[i]);
            eval_usage(stderr);
            return RTM_EXIT_USAGE;
        }
    }
    const int on_cpu = strcmp(device, "cpu") == 0;
    char *end = NULL;
    const long dev_index = on_cpu ? 0 : strtol(device, &end, 10);
    if (!in == !fill || (!on_cpu && (end == device || *end || dev_index < 0))) {
        eval_usage(stderr);
        return RTM_EXIT_USAGE;
    }
    char *seed_end = NULL;
    const unsigned long long seed = fill ? strtoull(fill, &seed_end, 0) : 0;
    if (fill && (seed_end == fill || *seed_end)) {
        fprintf(stderr, "rtmgr: eval: --fill wants an integer seed, got '%s'\n", fill);
        return RTM_EXIT_USAGE;
    }
    if (in && (!kernel->csv_size || !kernel->csv_load)) {
        fprintf(stderr, "rtmgr: eval: kernel '%s' takes no CSV input (use --fill SEED)\n",
                kernel->name);
        return RTM_EXIT_USAGE;
    }
    char *text = NULL;
    if (in && !(text = rtm_os_read_file(in, EVAL_INPUT_MAX, NULL))) {
        fprintf(stderr, "rtmgr: eval: cannot read %s\n", in);
        return RTM_EXIT_USAGE;
    }
    char why[256] = "";
    int rc = RTM_EXIT_OK;
    void *arena = NULL;
    rtm_status_t st = text ? kernel->csv_size(&k, text, why, sizeof(why)) : RTM_OK;
    if (st == RTM_OK && (st = rtm_kinst_plan(&k)) != RTM_OK) {
        snprintf(why, sizeof(why), "sizes rejected by the kernel (e.g. an even course count, "
                                   "or a work-group size it cannot use)");
        for (uint32_t i = 0; i < kernel->n_keys; i++)
            if (k.size[i] < kernel->keys[i].min || k.size[i] > kernel->keys[i].max)
                snprintf(why, sizeof(why), "%s = %lld outside %lld..%lld", kernel->keys[i].name,
                         (long long)k.size[i], (long long)kernel->keys[i].min,
                         (long long)kernel->keys[i].max);
    }
    size_t bytes = st == RTM_OK ? rtm_kinst_bytes(&k) : 0;
    if (st == RTM_OK && !(arena = aligned_alloc(64, (bytes + 63) & ~(size_t)63))) {
        snprintf(why, sizeof(why), "out of memory (%zu bytes)", bytes);
        st = RTM_E_NOMEM;
    }
    if (st == RTM_OK) {
        memset(arena, 0, bytes);
        rtm_kinst_bind(&k, arena, bytes);
        if (text)
            st = kernel->csv_load(&k, text, why, sizeof(why));
        else
            kernel->fill(&k, seed);
    }
    free(text);
    if (st != RTM_OK) {
        fprintf(stderr, "rtmgr: eval: %s: %s\n", in ? in : kernel->name, why);
        free(arena);
        return RTM_EXIT_USAGE;
    }
    if (on_cpu)
        run_cpu(&k, repeat, verbose);
    else
        rc = run_device(&k, (uint32_t)dev_index, repeat, verbose);
    if (rc == RTM_EXIT_OK && kernel->csv_write) {
        if (!out) {
            kernel->csv_write(&k, stdout);
            if (fflush(stdout) != 0)
                rc = RTM_EXIT_RUNTIME;
        } else {
            FILE *f = fopen(out, "w");
            if (f)
                kernel->csv_write(&k, f);
            if (!f || fclose(f) != 0) {
                fprintf(stderr, "rtmgr: eval: cannot write %s\n", out);
                rc = RTM_EXIT_RUNTIME;
            }
        }
    }
    free(arena);
    return rc;
}
