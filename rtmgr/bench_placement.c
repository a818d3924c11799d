/* bench_placement.c — `rtmgr bench placement [--quick] [--seed N] [--csv PATH]`.
 *
 * Part 1 (policies, virtual time, sim.h): the vessel task set at rising load, 0.5x to
 * 2x the CPU-only capacity, under each placement policy: deadline miss ratio per
 * criticality, response-time p50/p99, placement counts, preemptions, and the latency
 * of the real placement decisions made during the simulation.
 * Part 2 (real time): the executive's release thread on this machine, SCHED_OTHER, a
 * 1/2/5 ms task set of tiny CPU jobs: release jitter p50/p99/max (actual - intended
 * wake-up, as cyclictest measures it) and the executive's own decision latency.
 * Part 3, with --real [-c FILE] [--seconds S]: the whole manager on this machine's
 * devices with a real task set (default config/vessel.yaml), its periods, deadlines and
 * offsets scaled so that the CPU-only utilisation predicted by the board's model is
 * 0.5x .. 2x; each policy runs S seconds at each load (SCHED_OTHER).
 * Ends with the three targets: model policy 0 hard misses at loads where cpu-only and
 * gpu-only both miss; decision <= 2 us median; release jitter p99 <= 100 us. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "exec.h"
#include "manager.h"
#include "os.h"
#include "sim.h"

static const rtm_policy_t policies[] = {RTM_POLICY_MODEL, RTM_POLICY_CPU_ONLY,
                                        RTM_POLICY_GPU_ONLY, RTM_POLICY_GREEDY};
#define N_POL 4

static double pct(uint64_t a, uint64_t b) { return b ? 100.0 * (double)a / (double)b : 0.0; }

/* Release jitter of the real executive: tiny CPU jobs at 1, 2 and 5 ms. */
static int jitter_run(double seconds, rtm_exec_stats_t *st)
{
    static rtm_task_cfg_t cfg[3];
    static rtm_kinst_t inst[3];
    static unsigned char mem[3][4096] __attribute__((aligned(64)));
    rtm_exec_task_t et[3];
    const int64_t periods[3] = {1000000, 2000000, 5000000};
    memset(et, 0, sizeof(et));
    for (int i = 0; i < 3; i++) {
        memset(&cfg[i], 0, sizeof(cfg[i]));
        snprintf(cfg[i].name, sizeof(cfg[i].name), "tick%d", i);
        cfg[i].kernel = rtm_kernel_find("matrix_add");
        cfg[i].period_ns = cfg[i].deadline_ns = periods[i];
        cfg[i].crit = RTM_CRIT_SOFT;
        rtm_kinst_init(&inst[i], cfg[i].kernel);
        inst[i].size[0] = 8;
        inst[i].tune = (rtm_tune_t){16, 1};
        if (rtm_kinst_bind(&inst[i], mem[i], sizeof(mem[i])) == 0)
            return -1;
        inst[i].kernel->fill(&inst[i], 1);
        et[i].cfg = &cfg[i];
        et[i].inst[0] = &inst[i];
        et[i].predict_ns[0] = 20000;
    }
    rtm_exec_dev_t dev = {.name = "cpu", .kind = RTM_DEV_CPU};
    rtm_exec_params_t p = {.policy = RTM_POLICY_MODEL, .rt = false, .start_delay_ns = 10000000,
                           .max_jobs = 64};
    rtm_exec_t *x = calloc(1, rtm_exec_size());
    if (!x || rtm_exec_init(x, &p, &dev, 1, et, 3) != RTM_OK || rtm_exec_start(x) != RTM_OK) {
        free(x);
        return -1;
    }
    rtm_os_sleep_until(rtm_os_now_ns() + (int64_t)(seconds * 1e9));
    rtm_exec_stop(x);
    rtm_exec_stats(x, st);
    rtm_exec_destroy(x);
    free(x);
    return 0;
}

/* One manager run of `cfg` under `policy` for `seconds`; fills the statistics. */
static int real_one(const rtm_config_t *cfg, rtm_policy_t policy, double seconds,
                    rtm_exec_stats_t *st, uint32_t *n_devs, char names[][RTM_NAME_MAX])
{
    char logp[64], shm[64];
    snprintf(logp, sizeof(logp), "/tmp/rtmgr-bench-%ld.csv", (long)getpid());
    snprintf(shm, sizeof(shm), "/rtmgr-bench-%ld", (long)getpid());
    rtm_manager_opts_t o;
    rtm_manager_defaults(&o);
    o.policy = policy;
    o.rt = false;
    o.quiet = true;
    o.log_path = logp;
    o.status_name = shm;
    rtm_manager_t *m = rtm_manager_create(&o);
    rtm_diag_t diag;
    memset(&diag, 0, sizeof(diag));
    int rc = -1;
    if (m && rtm_manager_use(m, cfg) == RTM_OK && rtm_manager_validate(m, &diag) == RTM_OK &&
        rtm_manager_allocate(m) == RTM_OK && rtm_manager_start(m) == RTM_OK) {
        rtm_manager_run(m, seconds);
        rtm_manager_stop(m);
        rtm_exec_stats(rtm_manager_exec(m), st);
        *n_devs = rtm_manager_devices(m);
        for (uint32_t d = 0; d < *n_devs; d++)
            snprintf(names[d], RTM_NAME_MAX, "%s", rtm_manager_device_name(m, d));
        rc = 0;
    } else if (diag.text[0]) {
        fprintf(stderr, "rtmgr: bench placement: %s\n", diag.text);
    }
    rtm_manager_destroy(m);
    unlink(logp);
    return rc;
}

/* Part 3: the real manager at scaled loads. Returns whether model kept every hard
 * deadline where both baselines missed one (-1: no such load). */
static int real_part(const char *path, double seconds, bool quick)
{
    static rtm_config_t base, cfg;
    static rtm_exec_stats_t st;
    char names[RTM_MAX_DEVICES][RTM_NAME_MAX];
    uint32_t n_devs = 0;
    /* CPU-only utilisation at the configured periods, from the board's model */
    rtm_manager_opts_t o;
    rtm_manager_defaults(&o);
    o.policy = RTM_POLICY_CPU_ONLY;
    o.rt = false;
    o.quiet = true;
    o.log_path = "/dev/null";
    o.status_name = "/rtmgr-bench-probe";
    rtm_manager_t *m = rtm_manager_create(&o);
    rtm_diag_t diag;
    memset(&diag, 0, sizeof(diag));
    if (!m || rtm_manager_load(m, path, &diag) != RTM_OK || rtm_manager_validate(m, &diag) != RTM_OK ||
        rtm_manager_allocate(m) != RTM_OK) {
        fprintf(stderr, "rtmgr: bench placement --real: %s: %s\n", path, diag.text);
        rtm_manager_destroy(m);
        return -2;
    }
    base = *rtm_manager_config(m);
    double u_cpu = 0.0, u_model = 0.0;
    for (uint32_t t = 0; t < base.n_tasks; t++) {
        u_cpu += (double)rtm_manager_warmup_ns(m, t, 0) / (double)base.task[t].period_ns;
        u_model += (double)rtm_manager_predict_ns(m, t, 0) / (double)base.task[t].period_ns;
    }
    rtm_manager_destroy(m);
    printf("\nreal manager: %s, CPU-only utilisation %.3f at its periods (measured by the "
           "warm-up jobs; the model predicts %.3f); %.0f s per run, SCHED_OTHER\n\n",
           path, u_cpu, u_model, seconds);
    if (!(u_cpu > 0.0))
        return -2;
    printf("%-5s %-9s %8s %8s %8s %9s %9s %9s %9s %6s %9s %9s\n", "load", "policy", "hard%",
           "firm%", "soft%", "p50 ms", "p99 ms", "dev0", "dev1", "preem", "dec p50", "jit p99");
    const double loads_full[] = {0.5, 1.0, 1.5, 2.0}, loads_quick[] = {0.5, 1.5};
    const double *loads = quick ? loads_quick : loads_full;
    const int n_loads = quick ? 2 : 4;
    int verdict = -1;
    for (int li = 0; li < n_loads; li++) {
        const double f = loads[li] / u_cpu; /* periods shrink by f */
        cfg = base;
        for (uint32_t t = 0; t < cfg.n_tasks; t++) {
            rtm_task_cfg_t *tk = &cfg.task[t];
            tk->period_ns = (int64_t)((double)tk->period_ns / f);
            tk->deadline_ns = (int64_t)((double)tk->deadline_ns / f);
            tk->offset_ns = (int64_t)((double)tk->offset_ns / f);
            if (tk->deadline_ns > tk->period_ns)
                tk->deadline_ns = tk->period_ns;
            if (tk->offset_ns >= tk->period_ns)
                tk->offset_ns = 0;
        }
        uint64_t hard_missed[N_POL] = {0};
        for (int pi = 0; pi < N_POL; pi++) {
            if (real_one(&cfg, policies[pi], seconds, &st, &n_devs, names) != 0) {
                printf("%-5.2f %-9s (could not run)\n", loads[li], rtm_place_policy_name(policies[pi]));
                continue;
            }
            uint64_t rel[3] = {0}, mis[3] = {0}, pre = 0, placed[2] = {0};
            static rtm_hist_t resp;
            rtm_hist_reset(&resp);
            for (uint32_t t = 0; t < st.n_tasks; t++) {
                const rtm_crit_t c = cfg.task[t].crit;
                rel[c] += st.task[t].released - st.task[t].cancelled;
                mis[c] += st.task[t].missed;
                pre += st.task[t].preemptions;
                placed[0] += st.task[t].placed[0];
                for (uint32_t d = 1; d < st.n_devs; d++)
                    placed[1] += st.task[t].placed[d];
                rtm_hist_merge(&resp, &st.task[t].resp);
            }
            hard_missed[pi] = mis[RTM_CRIT_HARD];
            printf("%-5.2f %-9s %7.2f%% %7.2f%% %7.2f%% %9.2f %9.2f %9llu %9llu %6llu %9lld %9.1f\n",
                   loads[li], rtm_place_policy_name(policies[pi]), pct(mis[0], rel[0]),
                   pct(mis[1], rel[1]), pct(mis[2], rel[2]),
                   (double)rtm_hist_quantile(&resp, 0.5) / 1e6,
                   (double)rtm_hist_quantile(&resp, 0.99) / 1e6, (unsigned long long)placed[0],
                   (unsigned long long)placed[1], (unsigned long long)pre,
                   (long long)rtm_hist_quantile(&st.decide, 0.5),
                   (double)rtm_hist_quantile(&st.jitter, 0.99) / 1e3);
        }
        if (hard_missed[1] > 0 && hard_missed[2] > 0)
            verdict = (verdict != 0 && hard_missed[0] == 0) ? 1 : 0;
    }
    printf("(dev0 = %s; dev1 = the OpenCL devices)\n", n_devs ? names[0] : "cpu");
    return verdict;
}

int rtm_bench_placement(int argc, char **argv)
{
    bool quick = false, real = false;
    uint64_t seed = 1;
    const char *csv_path = NULL, *real_path = "config/vessel.yaml";
    double real_s = 0.0;
    for (int i = 1; i < argc; i++) {
        if (i == 1 && strcmp(argv[i], "placement") == 0) {
            continue; /* called as `bench placement ...` with argv[0] = "bench" */
        } else if (strcmp(argv[i], "--quick") == 0) {
            quick = true;
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 0);
        } else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
            csv_path = argv[++i];
        } else if (strcmp(argv[i], "--real") == 0) {
            real = true;
        } else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc) {
            real_path = argv[++i];
        } else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
            real_s = strtod(argv[++i], NULL);
        } else {
            fprintf(stderr, "usage: rtmgr bench placement [--quick] [--seed N] [--csv PATH]\n"
                            "                             [--real [-c FILE] [--seconds S]]\n");
            return RTM_EXIT_USAGE;
        }
    }
    FILE *csv = NULL;
    if (csv_path) {
        csv = fopen(csv_path, "w");
        if (!csv) {
            perror(csv_path);
            return RTM_EXIT_RUNTIME;
        }
        fprintf(csv, "load,policy,released_hard,missed_hard,released_firm,missed_firm,"
                     "released_soft,missed_soft,resp_p50_ms,resp_p99_ms,placed_cpu,placed_gpu,"
                     "preemptions,overloads,decide_p50_ns,decide_p99_ns\n");
    }
    const double loads_full[] = {0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0};
    const double loads_quick[] = {0.5, 1.0, 1.5, 2.0};
    const double *loads = quick ? loads_quick : loads_full;
    const int n_loads = quick ? 4 : 7;
    const int64_t duration = quick ? 10000000000LL : 60000000000LL;

    const rtm_sim_task_t *tasks;
    const rtm_sim_dev_t *devs;
    uint32_t nt, nd;
    rtm_sim_vessel_set(&tasks, &nt, &devs, &nd);
    printf("placement policies, vessel task set (%u tasks; CPU-only utilisation %.2f, GPU-only "
           "%.2f at load 1), %.0f s virtual time per run, execution noise +-10%%, placement margin 10%%, seed %llu\n\n",
           nt, rtm_sim_utilisation(tasks, nt, 0), rtm_sim_utilisation(tasks, nt, 1),
           (double)duration / 1e9, (unsigned long long)seed);
    printf("%-5s %-9s %8s %8s %8s %9s %9s %7s %7s %6s %6s %9s %9s\n", "load", "policy", "hard%",
           "firm%", "soft%", "p50 ms", "p99 ms", "cpu", "gpu", "preem", "overld", "dec p50",
           "dec p99");
    static rtm_sim_result_t r;
    static rtm_hist_t decide_all;
    rtm_hist_reset(&decide_all);
    bool hard_pass = true;
    int both_miss_loads = 0;
    for (int li = 0; li < n_loads; li++) {
        uint64_t hard_missed[N_POL] = {0};
        for (int pi = 0; pi < N_POL; pi++) {
            const rtm_sim_params_t sp = {.tasks = tasks, .n_tasks = nt, .devs = devs, .n_devs = nd,
                                         .policy = policies[pi], .load = loads[li], .noise = 0.1, .margin = 0.1,
                                         .seed = seed + (uint64_t)li, .duration_ns = duration};
            const rtm_status_t st = rtm_sim_run(&sp, &r);
            static rtm_hist_t resp;
            rtm_hist_reset(&resp);
            for (int c = 0; c < 3; c++)
                rtm_hist_merge(&resp, &r.resp[c]);
            rtm_hist_merge(&decide_all, &r.decide);
            hard_missed[pi] = r.missed[RTM_CRIT_HARD];
            printf("%-5.2f %-9s %7.2f%% %7.2f%% %7.2f%% %9.2f %9.2f %7llu %7llu %6llu %6llu %9lld %9lld%s\n",
                   loads[li], rtm_place_policy_name(policies[pi]),
                   pct(r.missed[RTM_CRIT_HARD], r.released[RTM_CRIT_HARD]),
                   pct(r.missed[RTM_CRIT_FIRM], r.released[RTM_CRIT_FIRM]),
                   pct(r.missed[RTM_CRIT_SOFT], r.released[RTM_CRIT_SOFT]),
                   (double)rtm_hist_quantile(&resp, 0.5) / 1e6,
                   (double)rtm_hist_quantile(&resp, 0.99) / 1e6,
                   (unsigned long long)r.placed[0], (unsigned long long)r.placed[1],
                   (unsigned long long)r.preemptions, (unsigned long long)r.overloads,
                   (long long)rtm_hist_quantile(&r.decide, 0.5),
                   (long long)rtm_hist_quantile(&r.decide, 0.99),
                   st == RTM_E_FULL ? "  (saturated: stopped early)" : "");
            if (csv)
                fprintf(csv, "%.2f,%s,%llu,%llu,%llu,%llu,%llu,%llu,%.3f,%.3f,%llu,%llu,%llu,%llu,%lld,%lld\n",
                        loads[li], rtm_place_policy_name(policies[pi]),
                        (unsigned long long)r.released[0], (unsigned long long)r.missed[0],
                        (unsigned long long)r.released[1], (unsigned long long)r.missed[1],
                        (unsigned long long)r.released[2], (unsigned long long)r.missed[2],
                        (double)rtm_hist_quantile(&resp, 0.5) / 1e6,
                        (double)rtm_hist_quantile(&resp, 0.99) / 1e6,
                        (unsigned long long)r.placed[0], (unsigned long long)r.placed[1],
                        (unsigned long long)r.preemptions, (unsigned long long)r.overloads,
                        (long long)rtm_hist_quantile(&r.decide, 0.5),
                        (long long)rtm_hist_quantile(&r.decide, 0.99));
        }
        if (hard_missed[1] > 0 && hard_missed[2] > 0) {
            both_miss_loads++;
            if (hard_missed[0] > 0)
                hard_pass = false;
        }
    }
    if (csv)
        fclose(csv);

    static rtm_exec_stats_t st;
    const double secs = quick ? 2.0 : 10.0;
    printf("\nrelease jitter: the executive's release thread, SCHED_OTHER, tasks at 1/2/5 ms, "
           "%.0f s\n", secs);
    if (jitter_run(secs, &st) != 0) {
        fprintf(stderr, "rtmgr: bench placement: cannot run the executive\n");
        return RTM_EXIT_RUNTIME;
    }
    const int64_t j50 = rtm_hist_quantile(&st.jitter, 0.5), j99 = rtm_hist_quantile(&st.jitter, 0.99);
    printf("  wake-ups %llu: p50 %.1f us, p99 %.1f us, max %.1f us; executive decision p50 %lld "
           "ns, p99 %lld ns\n",
           (unsigned long long)st.wakeups, (double)j50 / 1e3, (double)j99 / 1e3,
           (double)st.jitter.max / 1e3, (long long)rtm_hist_quantile(&st.decide, 0.5),
           (long long)rtm_hist_quantile(&st.decide, 0.99));

    int real_verdict = -2;
    if (real)
        real_verdict = real_part(real_path, real_s > 0 ? real_s : quick ? 2.0 : 5.0, quick);

    const int64_t d50 = rtm_hist_quantile(&decide_all, 0.5);
    printf("\ntargets:\n");
    printf("  model policy: 0 hard misses at the %d load(s) where cpu-only and gpu-only both miss: "
           "%s\n", both_miss_loads, both_miss_loads > 0 && hard_pass ? "PASS" : "FAIL");
    printf("  placement decision median %lld ns (simulation), %lld ns (executive) <= 2000 ns: %s\n",
           (long long)d50, (long long)rtm_hist_quantile(&st.decide, 0.5),
           d50 <= 2000 && rtm_hist_quantile(&st.decide, 0.5) <= 2000 ? "PASS" : "FAIL");
    printf("  release jitter p99 %.1f us <= 100 us (SCHED_OTHER): %s\n", (double)j99 / 1e3,
           j99 <= 100000 ? "PASS" : "FAIL");
    if (real)
        printf("  real manager: model 0 hard misses where cpu-only and gpu-only both miss: %s\n",
               real_verdict == 1 ? "PASS" : real_verdict == 0 ? "FAIL"
                                      : real_verdict == -1 ? "n/a (no load where both baselines miss)"
                                                           : "could not run");
    return RTM_EXIT_OK;
}
