/* cmd_check.c — `rtmgr check [-c FILE]`: validates a task set and its board profile and
 * prints what rtmgr would run, without starting anything.
 *
 * Owns the check command's output. Exit codes: 0 valid, 1 usage, 2 invalid (one
 * diagnostic on stderr: FILE:LINE:COLUMN: error: text), also when a task's kernel source
 * is missing from the kernel directory or refused (writable by others). The per-device predicted times
 * and the schedulability verdict come from the model module: see print_predictions(). */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "board.h"
#include "cli.h"
#include "config.h"
#include "manager.h"
#include "model.h"
#include "preempt.h"
#include "program.h"
#include "units.h"

#define CHECK_DEFAULT_CONFIG "config/default.yaml"

static void check_usage(FILE *f)
{
    fprintf(f, "usage: rtmgr check [-c FILE]\n\n"
               "Validates a task set (default " CHECK_DEFAULT_CONFIG ") and the board profile it\n"
               "names, then prints the tasks and devices. Exit codes: 0 valid, 1 usage,\n"
               "2 invalid configuration (FILE:LINE:COLUMN: error: ... on stderr).\n");
}

static void print_sizes(const rtm_task_cfg_t *t, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t k = 0; k < t->kernel->n_keys && used < len; k++) {
        const int n = snprintf(buf + used, len - used, "%s%s=%lld", k ? "," : "",
                               t->kernel->keys[k].name, (long long)t->size[k]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

static void print_tasks(const rtm_config_t *cfg)
{
    printf("%-16s %-14s %9s %9s %9s %-5s %-5s %-7s %-18s %10s\n", "TASK", "KERNEL", "PERIOD",
           "DEADLINE", "OFFSET", "CRIT", "PLACE", "PREEMPT", "SIZE", "HOST");
    for (uint32_t i = 0; i < cfg->n_tasks; i++) {
        const rtm_task_cfg_t *t = &cfg->task[i];
        char p[32], d[32], o[32], sizes[96], host[32];
        uint64_t bytes = 0;
        rtm_units_format_ns(t->period_ns, p, sizeof(p));
        rtm_units_format_ns(t->deadline_ns, d, sizeof(d));
        rtm_units_format_ns(t->offset_ns, o, sizeof(o));
        print_sizes(t, sizes, sizeof(sizes));
        rtm_config_task_bytes(cfg, i, &bytes);
        rtm_units_human_bytes(bytes, host, sizeof(host));
        printf("%-16s %-14s %9s %9s %9s %-5s %-5s %-7s %-18s %10s\n", t->name, t->kernel->name, p,
               d, o, rtm_crit_name(t->crit), rtm_place_name(t->placement),
               t->preemptible ? "yes" : "no", sizes, host);
    }
}

static uint32_t count_have(const bool *have, uint32_t n)
{
    uint32_t c = 0;
    for (uint32_t i = 0; i < n; i++)
        c += have[i];
    return c;
}

static void print_devices(const rtm_board_t *b)
{
    printf("%-8s %-11s %-9s %-8s %-8s %-11s %-6s %s\n", "DEVICE", "KIND", "MEMORY", "ABORT",
           "MODEL", "MEASURED", "PARAMS", "OPENCL (platform / device)");
    printf("%-8s %-11s %-9s %-8s %-8s %-11s %2u/%-3u %u cores, %u worker threads\n", "host",
           "cpu", "-", "-", rtm_board_model_name(b->cpu_model),
           b->cpu_measured[0] ? b->cpu_measured : "never", count_have(b->cpu_have, RTM_CPU_P_COUNT),
           (unsigned)RTM_CPU_P_COUNT, b->cores, b->threads);
    for (uint32_t i = 0; i < b->n_devs; i++) {
        const rtm_board_dev_t *d = &b->dev[i];
        char mem[32] = "-";
        if (d->memory)
            rtm_units_human_bytes(d->memory, mem, sizeof(mem));
        printf("%-8s %-11s %-9s %-8s %-8s %-11s %2u/%-3u \"%s\" / \"%s\"\n", d->name,
               rtm_board_kind_name(d->kind), mem, rtm_board_abort_name(d->abort),
               rtm_board_model_name(d->model), d->measured[0] ? d->measured : "never",
               count_have(d->have, RTM_DEV_P_COUNT), (unsigned)RTM_DEV_P_COUNT, d->platform,
               d->device[0] ? d->device : "(any)");
    }
}

/* PREDICTIONS: the model module fills this in — for each task and device the predicted
 * job time (CPU model seed 000 eq. 1, GPU model eq. 4), whether the deadline is met, and
 * whether the task set is schedulable. Until it lands, say so. */
/* One task on one device: the model placement uses, or a reason it cannot predict. */
static void predict_cell(const rtm_config_t *cfg, uint32_t i, int dev, int64_t *best_ns,
                         char *cell, size_t len)
{
    rtm_kinst_t k;
    rtm_model_job_t job;
    rtm_model_pred_t pred;
    memset(&pred, 0, sizeof(pred));
    rtm_status_t st = rtm_config_task_kinst(cfg, i, dev, &k);
    if (st == RTM_OK && dev >= 0) { /* as the manager: the build the executive runs there
                                     * (its poll cost), its clears as its instance plans them */
        const rtm_board_dev_t *bd = &cfg->board.dev[dev];
        rtm_kexec_opts_t o = rtm_manager_task_opts(&cfg->task[i], bd);
        st = rtm_preempt_predict_dev(bd, &k, RTM_MODEL_F_IDLE, &job, &o, &pred);
        if (st == RTM_OK)
            st = rtm_manager_predict_clears(
                bd, rtm_kexec_clears_planned(&o, &k, bd->kind == RTM_DEV_CPU), &job, &pred);
    } else if (st == RTM_OK) {
        st = rtm_model_job_make(&k, &job);
        const uint32_t fl =
            rtm_manager_cpu_model_flags(&cfg->task[i], rtm_manager_spin_lead(-1), &job);
        if (st == RTM_OK)
            st = rtm_model_predict_cpu(&job, &cfg->board, 0, cfg->board.cpu_model, fl, &pred);
    }
    if (st != RTM_OK) {
        const rtm_model_time_t *used = rtm_model_used(&pred);
        snprintf(cell, len, "n/a(%s)", used->missing ? used->missing : rtm_status_name(st));
        return;
    }
    char t[32];
    rtm_units_format_ns(pred.total_ns, t, sizeof(t));
    snprintf(cell, len, "%s", t);
    if (*best_ns < 0 || pred.total_ns < *best_ns)
        *best_ns = pred.total_ns;
}

static bool allowed(const rtm_task_cfg_t *t, int dev)
{
    return t->placement == RTM_PLACE_AUTO || (dev < 0 ? t->placement == RTM_PLACE_CPU
                                                      : t->placement == RTM_PLACE_GPU);
}

/* Prints each task's predicted time on each device it may run on (the model the board
 * chose for that device) and a sufficient schedulability verdict: every task has a
 * device meeting its deadline alone, and assigning each task to its fastest device
 * keeps every device's EDF density sum(C/D) <= 1. Returns true when schedulable. */
static bool print_predictions(const rtm_config_t *cfg)
{
    const int ndev = (int)cfg->board.n_devs;
    double density[RTM_MAX_DEVICES + 1] = {0};
    bool ok = true;
    printf("%-16s", "PREDICTED");
    printf(" %12s", "host");
    for (int d = 0; d < ndev; d++)
        printf(" %12s", cfg->board.dev[d].name);
    printf("  DEADLINE\n");
    for (uint32_t i = 0; i < cfg->n_tasks; i++) {
        const rtm_task_cfg_t *t = &cfg->task[i];
        int64_t best = -1;
        int best_dev = -2;
        printf("%-16s", t->name);
        for (int d = -1; d < ndev; d++) {
            char cell[48] = "-";
            if (allowed(t, d)) {
                const int64_t before = best;
                predict_cell(cfg, i, d, &best, cell, sizeof(cell));
                if (best != before)
                    best_dev = d;
            }
            printf(" %12s", cell);
        }
        char dl[32];
        rtm_units_format_ns(t->deadline_ns, dl, sizeof(dl));
        printf("  %s\n", dl);
        if (best < 0 || best > t->deadline_ns) {
            printf("  task '%s': no device is predicted to meet its deadline\n", t->name);
            ok = false;
        } else {
            density[best_dev + 1] += (double)best / (double)t->deadline_ns;
        }
    }
    printf("EDF density per device (fastest-device assignment):");
    for (int d = -1; d < ndev; d++) {
        printf(" %s %.3f", d < 0 ? "host" : cfg->board.dev[d].name, density[d + 1]);
        if (density[d + 1] > 1.0)
            ok = false;
    }
    printf("\n%s\n", ok ? "schedulable: yes (sufficient test)"
                          : "schedulable: not shown (the placement may still meet deadlines by "
                            "spreading jobs; see rtmgr run)");
    return ok;
}

static void print_input(const rtm_config_t *cfg)
{
    char r[64];
    switch (cfg->input.kind) {
    case RTM_INPUT_SCENARIO:
        rtm_units_format(cfg->input.radius_m, RTM_UNIT_DISTANCE, r, sizeof(r));
        printf("input: synthetic scenario, %u targets, seed %" PRIu64 ", radius %s\n",
               cfg->input.targets, cfg->input.seed, r);
        break;
    case RTM_INPUT_NMEA_UDP:
        printf("input: NMEA 0183 over UDP %s\n", cfg->input.address);
        break;
    case RTM_INPUT_NMEA_TCP:
        printf("input: NMEA 0183 over TCP %s\n", cfg->input.address);
        break;
    case RTM_INPUT_NMEA_FILE:
        if (cfg->input.speed > 0)
            printf("input: NMEA 0183 file %s, replayed at %gx real time\n", cfg->input.address,
                   cfg->input.speed);
        else
            printf("input: NMEA 0183 file %s, replayed as fast as possible\n",
                   cfg->input.address);
        break;
    }
    if (cfg->input.kind != RTM_INPUT_SCENARIO) {
        char e[32];
        rtm_units_format_ns(cfg->input.expire_ns, e, sizeof(e));
        printf("       targets expire after %s of silence\n", e);
    }
    if (cfg->output.on) {
        char iv[32], rg[32], ac[32], at[32];
        rtm_units_format_ns(cfg->output.interval_ns, iv, sizeof(iv));
        rtm_units_format(cfg->output.range_m, RTM_UNIT_DISTANCE, rg, sizeof(rg));
        rtm_units_format(cfg->output.alarm_cpa_m, RTM_UNIT_DISTANCE, ac, sizeof(ac));
        rtm_units_format_ns(cfg->output.alarm_tcpa_ns, at, sizeof(at));
        printf("output: task '%s' as NMEA %sOSD/TTM/ALR over UDP to %s, every %s, %u targets "
               "within %s, alarm CPA < %s within %s\n",
               cfg->task[cfg->output.task].name, cfg->output.talker, cfg->output.address, iv,
               cfg->output.max_targets, rg, ac, at);
    }
}

/* Every task's kernel source is in the kernel directory and safe to build (fsperm.h):
 * what `rtmgr run` will load. Returns false (messages on stderr) otherwise. */
static bool check_sources(const rtm_config_t *cfg)
{
    bool ok = true;
    for (uint32_t i = 0; i < cfg->n_tasks; i++) {
        bool seen = false;
        for (uint32_t j = 0; j < i; j++)
            seen |= cfg->task[j].kernel == cfg->task[i].kernel;
        char path[RTM_PATH_MAX];
        if (!seen && rtm_program_source_path(cfg->task[i].kernel, path, sizeof(path)) != RTM_OK)
            ok = false;
        else if (!seen && access(path, R_OK) != 0) {
            fprintf(stderr, "rtmgr: kernel source %s of task '%s': %s\n", path,
                    cfg->task[i].name, strerror(errno));
            ok = false;
        }
    }
    printf("kernels: %s (%s)\n", rtm_program_kernel_dir(), ok ? "sources present, permissions ok"
                                                             : "REFUSED, see above");
    return ok;
}

int rtm_cmd_check(int argc, char **argv)
{
    const char *path = CHECK_DEFAULT_CONFIG;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            check_usage(stdout);
            return RTM_EXIT_OK;
        }
        if ((strcmp(argv[i], "-c") == 0 || strcmp(argv[i], "--config") == 0) && i + 1 < argc) {
            path = argv[++i];
        } else if (strncmp(argv[i], "--config=", 9) == 0 && argv[i][9]) {
            path = argv[i] + 9;
        } else {
            fprintf(stderr, "rtmgr check: unexpected argument '%s'\n", argv[i]);
            check_usage(stderr);
            return RTM_EXIT_USAGE;
        }
    }

    static rtm_config_t cfg; /* large: keep it off the stack */
    rtm_diag_t diag;
    memset(&diag, 0, sizeof(diag));
    if (rtm_config_load(path, &cfg, &diag) != RTM_OK) {
        char line[sizeof(diag.file) + sizeof(diag.text) + 64];
        rtm_diag_format(&diag, line, sizeof(line));
        fprintf(stderr, "%s\n", line);
        return RTM_EXIT_CONFIG;
    }

    uint64_t kernel_bytes = 0;
    rtm_config_kernel_bytes(&cfg, &kernel_bytes);
    char kb[32], arena[32];
    rtm_units_human_bytes(kernel_bytes, kb, sizeof(kb));
    rtm_units_format_bytes(cfg.arena_bytes, arena, sizeof(arena));
    printf("%s: valid (schema %d): %u task%s, board '%s' (%s)\n", cfg.path, cfg.version,
           cfg.n_tasks, cfg.n_tasks == 1 ? "" : "s", cfg.board.name, cfg.board_path);
    printf("limits: max_jobs %u, arena %s (kernel buffers %s); log %s\n", cfg.max_jobs, arena, kb,
           cfg.log_path);
    print_input(&cfg);
    const bool sources = check_sources(&cfg);
    printf("\n");
    print_tasks(&cfg);
    printf("\n");
    print_devices(&cfg.board);
    printf("\n");
    print_predictions(&cfg);
    return sources ? RTM_EXIT_OK : RTM_EXIT_CONFIG;
}
