/* manager.c — the lifecycle of a running rtmgr (see manager.h).
 *
 * Owns, from allocate to destroy: the opened OpenCL devices, the host-buffer arena
 * (arena.h: sized once, sealed at start), the kernel instances and their
 * kexecs, the per-(task, device) predictions, the traffic input (the synthetic scenario,
 * or the NMEA input thread and its target table, input.h), the NMEA output of CPA/TCPA
 * (nmeaout.h), the model-error log and its ring, the executive and the status segment.
 * Invariant: after start, the only code running on the manager's threads is the
 * executive's, the log writer's and the main thread's loop (sigtimedwait, status
 * publish, stderr lines), none of which allocates. */
#include "manager.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "errlog.h"
#include "input.h"
#include "kernels/nav.h"
#include "model.h"
#include "nmeaout.h"
#include "os.h"
#include "pinned.h"
#include "pool.h"
#include "program.h"
#include "scenario.h"
#include "shmstat.h"
#include "wake.h"

#define LOG_SLOTS 8192u           /* model-error log ring (power of two) */
#define PUBLISH_NS 100000000LL    /* status segment refresh */
#define START_DELAY_NS 5000000LL  /* first releases after start */
#define ABORT_DEFAULT_NS 200000LL /* abort response when the board does not say */

typedef enum { PH_NEW, PH_LOADED, PH_VALID, PH_ALLOCATED, PH_STARTED, PH_STOPPED } phase_t;

struct rtm_manager {
    rtm_manager_opts_t o;
    phase_t phase;
    rtm_config_t cfg;
    char log_path[RTM_PATH_MAX];
    /* devices: 0 = host CPU; 1.. = OpenCL */
    uint32_t n_devs;
    rtm_exec_dev_t dev[RTM_MAX_DEVICES];
    rtm_ocl_dev_t ocl[RTM_MAX_DEVICES];
    int board_dev[RTM_MAX_DEVICES]; /* index into cfg.board.dev, -1 for the CPU */
    /* host buffers: one arena, sealed at start; an OpenCL device's instances live in
     * that device's pinned region instead when the driver gives one (pinned.h) */
    rtm_arena_t arena;
    rtm_pinned_t pin[RTM_MAX_DEVICES];      /* pin[d].host set: pin_arena[d] in use */
    rtm_arena_t pin_arena[RTM_MAX_DEVICES];
    rtm_wake_t wake[RTM_MAX_DEVICES];       /* GPUs' wakes (wake.h); zeroed: none */
    /* per task and device */
    rtm_kinst_t inst[RTM_MAX_TASKS][RTM_MAX_DEVICES];
    bool have[RTM_MAX_TASKS][RTM_MAX_DEVICES];
    void *inout_init[RTM_MAX_TASKS][RTM_MAX_DEVICES][RTM_KBUF_MAX]; /* arena copies */
    rtm_kexec_t kx[RTM_MAX_TASKS][RTM_MAX_DEVICES];
    bool kx_ok[RTM_MAX_TASKS][RTM_MAX_DEVICES];
    rtm_model_pred_t pred[RTM_MAX_TASKS][RTM_MAX_DEVICES];
    /* navigation tasks: the prediction with every target slot absent, and whether it
     * differs (the job's prediction then follows the picture's live targets) */
    rtm_model_pred_t pred_empty[RTM_MAX_TASKS][RTM_MAX_DEVICES];
    bool live_on[RTM_MAX_TASKS][RTM_MAX_DEVICES];
    int64_t predict_ns[RTM_MAX_TASKS][RTM_MAX_DEVICES];
    int64_t warm_ns[RTM_MAX_TASKS][RTM_MAX_DEVICES];
    uint32_t blocks[RTM_MAX_TASKS][RTM_MAX_DEVICES]; /* over all launches */
    atomic_int last_ok[RTM_MAX_TASKS][RTM_MAX_DEVICES]; /* last job that ran there completed */
    /* CPU worker pool (the host device's executor) */
    rtm_pool_t pool;
    bool pool_on;
    int64_t spin_lead_ns; /* the option resolved (rtm_manager_spin_lead) */
    char cache_dir[RTM_PATH_MAX]; /* program binary cache, "" = none */
    /* input */
    bool scenario_on;
    rtm_scenario_t scenario;
    bool input_on;          /* NMEA input thread (input.h) */
    bool input_started;
    rtm_input_t input;      /* ~5 MB, inside the one allocation of the manager */
    bool output_on;         /* CPA/TCPA as NMEA (nmeaout.h) */
    rtm_nmeaout_t output;
    rtm_traffic_t warm_pic;
    /* log */
    rtm_errlog_t log;
    rtm_errlog_slot_t *slots;
    bool log_ok;
    /* executive */
    rtm_exec_t *x;
    bool x_ok;
    int64_t t0_ns;
    int64_t alloc_start_ns, startup_ns; /* allocate began; allocate -> first release */
    int64_t cpu0_ns, cpu1_ns; /* the process's CPU time at the start and at the stop (0:
                               * not yet): what the run cost the machine's cores */
    int64_t t_devices_ns, t_programs_ns, t_warm_ns; /* parts of the start-up */
    /* status */
    rtm_shmstat_t shm;
    rtm_exec_stats_t st; /* the main thread's copy */
    const rtm_task_cfg_t *task_ptr[RTM_MAX_TASKS];
    uint64_t alarms_seen[RTM_MAX_TASKS]; /* hard misses already reported on stderr */
    atomic_bool stop_req;
    sigset_t sigs, old_sigs;
    bool sigs_blocked;
};

void rtm_manager_defaults(rtm_manager_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->policy = RTM_POLICY_MODEL;
    o->rt = true;
    o->margin = 0.1;
    o->adapt = 0.2;
    o->wake_lead_ns = RTM_WAKE_LEAD_NS_DEFAULT;
    o->spin_lead_ns = -1;
}

rtm_manager_t *rtm_manager_create(const rtm_manager_opts_t *opts)
{
    /* aligned: the worker pool inside is cache-line aligned (pool.h) */
    const size_t bytes = (sizeof(rtm_manager_t) + 63) & ~(size_t)63;
    rtm_manager_t *m = aligned_alloc(64, bytes);
    if (!m)
        return NULL;
    memset(m, 0, bytes);
    if (opts)
        m->o = *opts;
    else
        rtm_manager_defaults(&m->o);
    m->spin_lead_ns = rtm_manager_spin_lead(m->o.spin_lead_ns);
    /* signals: blocked before any thread exists, so that every thread inherits the mask:
     * the OpenCL runtimes start their own when validate opens the devices, and a thread
     * that does not block SIGTERM would take it by its default action (death) */
    sigemptyset(&m->sigs);
    sigaddset(&m->sigs, SIGINT);
    sigaddset(&m->sigs, SIGTERM);
    sigaddset(&m->sigs, SIGUSR1);
    if (pthread_sigmask(SIG_BLOCK, &m->sigs, &m->old_sigs) == 0)
        m->sigs_blocked = true;
    return m;
}

rtm_status_t rtm_manager_load(rtm_manager_t *m, const char *path, rtm_diag_t *diag)
{
    if (m->phase != PH_NEW)
        return RTM_E_STATE;
    const rtm_status_t st = rtm_config_load(path, &m->cfg, diag);
    if (st == RTM_OK)
        m->phase = PH_LOADED;
    return st;
}

rtm_status_t rtm_manager_use(rtm_manager_t *m, const rtm_config_t *cfg)
{
    if (m->phase != PH_NEW)
        return RTM_E_STATE;
    m->cfg = *cfg;
    m->phase = PH_LOADED;
    return RTM_OK;
}

rtm_status_t rtm_manager_validate(rtm_manager_t *m, rtm_diag_t *diag)
{
    if (m->phase != PH_LOADED)
        return RTM_E_STATE;
    rtm_status_t st = rtm_config_validate(&m->cfg, diag);
    if (st != RTM_OK)
        return st;
    if ((unsigned)m->o.policy >= RTM_POLICY_COUNT || !(m->o.margin >= 0.0 && m->o.margin < 10.0) ||
        !(m->o.adapt >= 0.0 && m->o.adapt <= 1.0)) {
        snprintf(diag->text, sizeof(diag->text), "invalid policy, margin or adapt weight");
        return RTM_E_ARG;
    }
    /* the NMEA addresses from the command line (tests, the HIL harness on free ports) */
    const char *bad = NULL;
    if (m->o.nmea_in && m->cfg.input.kind != RTM_INPUT_NMEA_UDP &&
        m->cfg.input.kind != RTM_INPUT_NMEA_TCP)
        bad = "--nmea-in needs a task set with input: nmea: {udp|tcp: ...}";
    else if (m->o.nmea_out && !m->cfg.output.on)
        bad = "--nmea-out needs a task set with output: nmea: {udp: ...}";
    else if ((m->o.nmea_in && (!strrchr(m->o.nmea_in, ':') ||
                               strlen(m->o.nmea_in) >= sizeof(m->cfg.input.address))) ||
             (m->o.nmea_out && (!strrchr(m->o.nmea_out, ':') ||
                                strlen(m->o.nmea_out) >= sizeof(m->cfg.output.address))))
        bad = "--nmea-in and --nmea-out take host:port";
    if (bad) {
        snprintf(diag->file, sizeof(diag->file), "%s", m->cfg.path);
        diag->line = diag->column = 0;
        snprintf(diag->text, sizeof(diag->text), "%s", bad);
        return RTM_E_ARG;
    }
    if (m->o.nmea_in)
        snprintf(m->cfg.input.address, sizeof(m->cfg.input.address), "%s", m->o.nmea_in);
    if (m->o.nmea_out)
        snprintf(m->cfg.output.address, sizeof(m->cfg.output.address), "%s", m->o.nmea_out);
    snprintf(m->log_path, sizeof(m->log_path), "%s",
             m->o.log_path ? m->o.log_path : m->cfg.log_path[0] ? m->cfg.log_path : "rtmgr-model.csv");
    m->phase = PH_VALID;
    return RTM_OK;
}

/* ---- allocate ---- */

/* May task t run on executive device d under the policy? */
static bool wanted(const rtm_manager_t *m, uint32_t t, uint32_t d)
{
    const bool cpu = m->dev[d].kind == RTM_DEV_CPU;
    if (m->o.policy == RTM_POLICY_CPU_ONLY)
        return cpu;
    if (m->o.policy == RTM_POLICY_GPU_ONLY)
        return !cpu;
    const rtm_place_t p = m->cfg.task[t].placement;
    return p == RTM_PLACE_AUTO || (p == RTM_PLACE_CPU) == cpu;
}

/* Bytes of the OpenCL devices' pinned regions handed out. */
static size_t pinned_used(const rtm_manager_t *m)
{
    size_t n = 0;
    for (uint32_t d = 0; d < m->n_devs; d++)
        n += m->pin[d].host ? rtm_arena_used(&m->pin_arena[d]) : 0;
    return n;
}

/* Sets up k as task t's instance for executive device d: sizes, the board's tuning
 * (work-group size capped by the device), planned, not bound. */
static rtm_status_t setup_kinst(const rtm_manager_t *m, uint32_t t, uint32_t d, rtm_kinst_t *k)
{
    if (t >= RTM_MAX_TASKS || d >= RTM_MAX_DEVICES)
        return RTM_E_RANGE;
    rtm_status_t st = rtm_config_task_kinst(&m->cfg, t, d == 0 ? -1 : m->board_dev[d], k);
    if (st == RTM_OK && d > 0 && m->ocl[d].info.max_wg && k->tune.wg > m->ocl[d].info.max_wg) {
        k->tune.wg = (uint32_t)m->ocl[d].info.max_wg;
        st = rtm_kinst_plan(k);
    }
    return st;
}

static void open_devices(rtm_manager_t *m)
{
    m->n_devs = 1;
    snprintf(m->dev[0].name, sizeof(m->dev[0].name), "cpu");
    m->dev[0].kind = RTM_DEV_CPU;
    m->board_dev[0] = -1;
    for (uint32_t b = 0; b < m->cfg.board.n_devs && m->n_devs < RTM_MAX_DEVICES; b++) {
        const rtm_board_dev_t *bd = &m->cfg.board.dev[b];
        rtm_ocl_info_t info;
        if (rtm_ocl_find(bd->platform, bd->device, &info) != RTM_OK) {
            fprintf(stderr, "rtmgr: warning: board device %s (platform \"%s\", device \"%s\") not "
                            "found on this machine; running without it\n",
                    bd->name, bd->platform, bd->device);
            continue;
        }
        const uint32_t d = m->n_devs;
        if (rtm_ocl_open(&m->ocl[d], &info) != RTM_OK) {
            fprintf(stderr, "rtmgr: warning: cannot open %s (%s); running without it\n", bd->name,
                    info.name);
            rtm_ocl_close(&m->ocl[d]);
            continue;
        }
        rtm_exec_dev_t *e = &m->dev[d];
        memcpy(e->name, bd->name, sizeof(e->name));
        e->name[sizeof(e->name) - 1] = '\0';
        /* for placement every OpenCL device is an accelerator, the host CPU is the pool */
        e->kind = bd->kind == RTM_DEV_CPU ? RTM_DEV_ACCEL : bd->kind;
        e->ocl = &m->ocl[d];
        e->can_abort = true;
        e->abort_ns = bd->have[RTM_DEV_P_abort_response]
                          ? (int64_t)(bd->param[RTM_DEV_P_abort_response] * 1e9)
                          : ABORT_DEFAULT_NS;
        m->board_dev[d] = (int)b;
        m->n_devs++;
        if (!m->o.quiet)
            fprintf(stderr, "rtmgr: device %s: %s (%s)\n", e->name, info.name, info.platform_name);
    }
}

static int64_t now_ns(void) { return rtm_os_now_ns(); }

/* One warm-up job of (t, d); returns its wall time, -1 on failure. */
static int64_t warm_up(rtm_manager_t *m, uint32_t t, uint32_t d)
{
    rtm_kinst_t *k = &m->inst[t][d];
    if (k->kernel->load_traffic && m->scenario_on) {
        rtm_scenario_snapshot(&m->scenario, &m->warm_pic);
        k->kernel->load_traffic(k, &m->warm_pic);
    } else if (k->kernel->load_traffic && m->input_on) {
        rtm_input_snapshot_cb(&m->input, &m->warm_pic); /* nothing yet: an empty picture */
        k->kernel->load_traffic(k, &m->warm_pic);
    }
    const int64_t t0 = now_ns();
    if (d == 0) {
        for (uint32_t l = 0; l < k->plan.launches; l++) {
            rtm_klaunch_t kl;
            k->kernel->launch(k, l, &kl);
            if (rtm_pool_run(&m->pool, k, l, NULL, kl.blocks, NULL, NULL, NULL) != RTM_OK)
                return -1;
        }
        return now_ns() - t0;
    }
    rtm_kexec_timing_t tm;
    if (rtm_kexec_run(&m->kx[t][d], &tm) != RTM_OK)
        return -1;
    return now_ns() - t0;
}

int64_t rtm_manager_spin_lead(int64_t opt_ns)
{
    if (opt_ns >= 0)
        return opt_ns;
    return rtm_os_cpu_count() >= RTM_SPIN_MIN_CPUS ? RTM_SPIN_LEAD_NS_DEFAULT : 0;
}

/* The lead of cw_warm's calibration in profiles that do not record it (sessions 70-71). */
#define WARM_LEAD_BEFORE_NS 100000LL

int64_t rtm_manager_warm_lead_differs(const rtm_board_t *b, int64_t lead_ns)
{
    if (lead_ns <= 0 || !b->cpu_have[RTM_CPU_P_cw_warm])
        return 0;
    const int64_t cal = b->cpu_have[RTM_CPU_P_warm_lead]
                            ? (int64_t)llround(b->cpu_param[RTM_CPU_P_warm_lead] * 1e9)
                            : WARM_LEAD_BEFORE_NS;
    return llabs(cal - lead_ns) > 1000 ? cal : 0;
}

uint32_t rtm_manager_cpu_model_flags(const rtm_task_cfg_t *tc, int64_t lead_ns,
                                     rtm_model_job_t *job)
{
    if (job)
        job->idle_s = (double)tc->period_ns * 1e-9;
    return rtm_exec_task_lead(tc, lead_ns) > 0 ? RTM_MODEL_F_WARM : RTM_MODEL_F_IDLE;
}

/* Both models' prediction of model job mj of task t on device d (0: the CPU pool), which
 * a periodic job finds idle (RTM_MODEL_F_IDLE), on the CPU pool idle or warmed as
 * rtm_manager_cpu_model_flags says. */
static rtm_status_t predict(const rtm_manager_t *m, uint32_t t, uint32_t d,
                            const rtm_model_job_t *mj, rtm_model_pred_t *out)
{
    if (d == 0) {
        rtm_model_job_t cj = *mj;
        const uint32_t fl = rtm_manager_cpu_model_flags(&m->cfg.task[t], m->spin_lead_ns, &cj);
        return rtm_model_predict_cpu(&cj, &m->cfg.board, m->pool.n_workers,
                                     m->cfg.board.cpu_model, fl, out);
    }
    // cppcheck-suppress arrayIndexOutOfBoundsCond
    const rtm_board_dev_t *bd = &m->cfg.board.dev[m->board_dev[d]];
    return rtm_model_predict_dev(mj, bd, bd->model, RTM_MODEL_F_IDLE, out);
}

/* The time placement takes from a prediction: the chosen model's, without setup (the
 * programs are built at start-up). */
static int64_t warm_time(const rtm_model_pred_t *p)
{
    const rtm_model_time_t *u = rtm_model_used(p);
    return u->in_ns + u->kernel_ns + u->out_ns;
}

rtm_kexec_opts_t rtm_manager_task_opts(const rtm_task_cfg_t *tc, const rtm_board_dev_t *bd)
{
    return (rtm_kexec_opts_t){.transport = bd ? bd->abort : RTM_ABORT_WRITE,
                              .transport_set = true,
                              .preemptible = tc->preemptible,
                              .never_aborted = !rtm_exec_task_abortable(tc)};
}

rtm_status_t rtm_manager_predict_clears(const rtm_board_dev_t *bd, bool clears,
                                        rtm_model_job_t *mj, rtm_model_pred_t *pr)
{
    if (clears)
        return RTM_OK;
    mj->no_clear = true; /* its runs clear nothing */
    return rtm_model_predict_dev(mj, bd, bd->model, RTM_MODEL_F_IDLE, pr);
}

/* A navigation task's prediction with every target slot absent (the kernels skip them),
 * of the full picture's build (its poll_cost, rtm_model_job_t): m->live_on[t][d] when it
 * differs from the full picture's. */
static void predict_empty(rtm_manager_t *m, uint32_t t, uint32_t d, const rtm_kinst_t *k,
                          const rtm_model_job_t *full)
{
    m->live_on[t][d] = false;
    if (!k->kernel->load_traffic || k->kernel->n_keys == 0 || k->size[0] <= 0 ||
        k->size[0] > UINT32_MAX)
        return;
    rtm_kinst_t e = *k;
    e.absent = (uint32_t)k->size[0];
    rtm_model_job_t je;
    if (rtm_model_job_make(&e, &je) != RTM_OK)
        return;
    je.poll_cost = full->poll_cost; /* the full picture's build and run */
    je.no_clear = full->no_clear;
    if (predict(m, t, d, &je, &m->pred_empty[t][d]) != RTM_OK)
        return;
    m->live_on[t][d] = warm_time(&m->pred_empty[t][d]) != warm_time(&m->pred[t][d]);
}

static rtm_status_t make_instance(rtm_manager_t *m, uint32_t t, uint32_t d)
{
    if (t >= RTM_MAX_TASKS || d >= RTM_MAX_DEVICES || d >= m->n_devs)
        return RTM_E_RANGE;
    const rtm_task_cfg_t *tc = &m->cfg.task[t];
    rtm_kinst_t *k = &m->inst[t][d];
    rtm_status_t st = setup_kinst(m, t, d, k);
    if (st != RTM_OK) {
        fprintf(stderr, "rtmgr: task %s: kernel %s cannot be planned (wg %u, vec %u): %s\n", tc->name,
                tc->kernel->name, k->tune.wg, k->tune.vec, rtm_strerror(st));
        return st;
    }
    const size_t bytes = rtm_kinst_bytes(k);
    void *mem = NULL;
    rtm_arena_t *own = m->pin[d].host ? &m->pin_arena[d] : &m->arena;
    st = rtm_arena_alloc(own, bytes ? bytes : 64, &mem);
    if (st != RTM_OK || rtm_kinst_bind(k, mem, bytes) != bytes)
        return st != RTM_OK ? st : RTM_E_NOMEM;
    k->kernel->fill(k, (uint64_t)t + 1);
    for (uint32_t b = 0; b < k->plan.n_bufs; b++) { /* every job starts from these */
        if (k->plan.buf[b].dir != RTM_BUF_INOUT || !k->plan.buf[b].bytes)
            continue;
        st = rtm_arena_alloc(&m->arena, k->plan.buf[b].bytes, &m->inout_init[t][d][b]);
        if (st != RTM_OK)
            return st;
        memcpy(m->inout_init[t][d][b], k->host[b], k->plan.buf[b].bytes);
    }
    m->blocks[t][d] = (uint32_t)rtm_kinst_blocks(k);
    /* d < n_devs <= RTM_MAX_DEVICES, checked above */
    // cppcheck-suppress arrayIndexOutOfBoundsCond
    const rtm_board_dev_t *bd = d > 0 ? &m->cfg.board.dev[m->board_dev[d]] : NULL;
    /* the abort flag through the transport calibration chose for the device */
    rtm_kexec_opts_t ko = rtm_manager_task_opts(tc, bd);
    ko.cache_dir = m->cache_dir[0] ? m->cache_dir : NULL;
    ko.host_pinned = m->pin[d].host != NULL;
    /* predictions: both models; placement uses the board's choice, warm (without setup).
     * On a device, of the build the executive runs there: long blocks on a plain grid
     * (the persistent loop costs more than it saves), in-loop polls where a block
     * outlasts the response target's share at the period calibration chose */
    rtm_model_job_t mj;
    rtm_status_t ms;
    if (bd) {
        ms = rtm_preempt_predict_dev(bd, k, RTM_MODEL_F_IDLE, &mj, &ko, &m->pred[t][d]);
    } else {
        ms = rtm_model_job_make(k, &mj);
        if (ms == RTM_OK)
            ms = predict(m, t, d, &mj, &m->pred[t][d]);
    }
    if (ms != RTM_OK) {
        memset(&m->pred[t][d], 0, sizeof(m->pred[t][d]));
        m->pred[t][d].paper.status = m->pred[t][d].ext.status = ms;
        m->live_on[t][d] = false;
    }
    if (bd) {
        const int64_t tb = now_ns();
        // cppcheck-suppress arrayIndexOutOfBoundsCond
        st = rtm_kexec_create_ex(&m->kx[t][d], &m->ocl[d], k, &ko);
        m->t_programs_ns += now_ns() - tb;
        if (st != RTM_OK) {
            fprintf(stderr, "rtmgr: task %s: no program on %s; it runs on the CPU twin only\n",
                    tc->name, m->dev[d].name);
            rtm_kexec_destroy(&m->kx[t][d]);
            return st;
        }
        m->kx_ok[t][d] = true;
        if (ms == RTM_OK)
            ms = rtm_manager_predict_clears(bd, rtm_kexec_clears(&m->kx[t][d]), &mj,
                                            &m->pred[t][d]);
    }
    if (ms == RTM_OK)
        predict_empty(m, t, d, k, &mj);
    const rtm_model_time_t *u = rtm_model_used(&m->pred[t][d]);
    const bool model_ok = ms == RTM_OK && u->status == RTM_OK;
    int64_t w = -1;
    if (!m->o.no_warmup || !model_ok) {
        const int64_t tw = now_ns();
        w = warm_up(m, t, d);
        m->t_warm_ns += now_ns() - tw;
        if (w < 0) {
            fprintf(stderr, "rtmgr: task %s: warm-up on %s failed\n", tc->name, m->dev[d].name);
            return RTM_E_CL;
        }
    }
    m->warm_ns[t][d] = w;
    if (model_ok) {
        m->predict_ns[t][d] = warm_time(&m->pred[t][d]);
    } else {
        m->predict_ns[t][d] = w;
        fprintf(stderr, "rtmgr: warning: task %s on %s: no model prediction (%s%s%s); placement "
                        "uses the warm-up time %.3f ms\n",
                tc->name, m->dev[d].name, rtm_strerror(ms != RTM_OK ? ms : u->status),
                u->missing ? ", missing " : "", u->missing ? u->missing : "", (double)w / 1e6);
    }
    if (m->predict_ns[t][d] < 1000)
        m->predict_ns[t][d] = 1000;
    m->have[t][d] = true;
    return RTM_OK;
}

static void sink(void *ctx, const rtm_exec_rec_t *r);

/* The executive's result hook: CPA/TCPA of the output task's completed jobs go to the
 * chart plotter (dispatcher thread; nmeaout is real-time safe and rate-limited). */
static void on_result(void *ctx, uint32_t task, const rtm_kinst_t *k, const rtm_traffic_t *snap)
{
    rtm_manager_t *m = ctx;
    if (!m->output_on || task != m->cfg.output.task || !snap || k->plan.n_bufs <= RTM_CPA_TCPA)
        return;
    uint32_t n = snap->n;
    if (k->kernel->n_keys > 0 && (int64_t)n > k->size[0])
        n = (uint32_t)k->size[0]; /* load_traffic dropped the rest */
    (void)rtm_nmeaout_offer(&m->output, snap, k->host[RTM_CPA_CPA], k->host[RTM_CPA_TCPA], n,
                            now_ns());
}

/* The executive's CPU runner: one launch on the worker pool. */
static bool pool_run(void *ctx, const rtm_kinst_t *k, uint32_t launch, uint32_t blocks,
                     const volatile int *abort)
{
    return rtm_pool_run(ctx, k, launch, NULL, blocks, abort, NULL, NULL) == RTM_OK;
}

rtm_status_t rtm_manager_allocate(rtm_manager_t *m)
{
    if (m->phase != PH_VALID)
        return RTM_E_STATE;
    m->alloc_start_ns = now_ns();
    const rtm_config_t *c = &m->cfg;
    if (c->input.kind == RTM_INPUT_SCENARIO && c->input.targets > 0) {
        const rtm_status_t st = rtm_scenario_init(&m->scenario, c->input.targets, c->input.seed,
                                                  c->input.radius_m > 0 ? c->input.radius_m : 22224.0,
                                                  now_ns());
        if (st != RTM_OK) {
            fprintf(stderr, "rtmgr: scenario: %s\n", rtm_strerror(st));
            return st;
        }
        m->scenario_on = true;
    } else if (c->input.kind != RTM_INPUT_SCENARIO) {
        /* the NMEA input: resolved and (UDP) bound now, its thread starts with the rest */
        rtm_input_config_t ic;
        rtm_input_config_from(&ic, c);
        const rtm_status_t st = rtm_input_init(&m->input, &ic);
        if (st != RTM_OK) {
            fprintf(stderr, "rtmgr: input %s: %s\n", c->input.address, rtm_strerror(st));
            return st;
        }
        m->input_on = true;
    }
    if (c->output.on) {
        rtm_nmeaout_config_t oc = {
            .interval_ns = c->output.interval_ns,
            .range_m = c->output.range_m,
            .max_targets = c->output.max_targets,
            .alarm_cpa_m = c->output.alarm_cpa_m,
            .alarm_tcpa_ns = c->output.alarm_tcpa_ns,
        };
        snprintf(oc.address, sizeof(oc.address), "%s", c->output.address);
        memcpy(oc.talker, c->output.talker, sizeof(oc.talker));
        const rtm_status_t st = rtm_nmeaout_init(&m->output, &oc);
        if (st != RTM_OK) {
            fprintf(stderr, "rtmgr: output %s: %s\n", c->output.address, rtm_strerror(st));
            return st;
        }
        m->output_on = true;
    }
    const int64_t td = now_ns();
    open_devices(m);
    m->t_devices_ns = now_ns() - td;
    if (rtm_program_cache_dir(m->cache_dir, sizeof(m->cache_dir)) != RTM_OK)
        m->cache_dir[0] = '\0';
    /* the CPU workers: as many as the board allows; SCHED_FIFO only when permitted (the
     * refusal is the manager's one warning, not the pool's) */
    const int pool_prio = m->o.rt && rtm_os_fifo_permitted(RTM_PRIO_POOL) ? RTM_PRIO_POOL : 0;
    rtm_status_t pst = rtm_pool_start(&m->pool, c->board.threads, pool_prio, NULL);
    if (pst != RTM_OK) {
        fprintf(stderr, "rtmgr: cannot start %u CPU workers: %s\n", c->board.threads,
                rtm_strerror(pst));
        return pst;
    }
    m->pool_on = true;

    /* host buffers: every instance, sized before anything is bound; an OpenCL device's
     * instances in its own pinned region, the rest (CPU instances, the initial copies of
     * in-out buffers) in the arena */
    size_t total = 0, all = 0, dev_total[RTM_MAX_DEVICES] = {0};
    for (uint32_t t = 0; t < c->n_tasks; t++) {
        for (uint32_t d = 0; d < m->n_devs; d++) {
            if (!wanted(m, t, d))
                continue;
            rtm_kinst_t k;
            if (setup_kinst(m, t, d, &k) != RTM_OK)
                continue;
            dev_total[d] += rtm_arena_round(rtm_kinst_bytes(&k) ? rtm_kinst_bytes(&k) : 64);
            for (uint32_t b = 0; b < k.plan.n_bufs; b++)
                if (k.plan.buf[b].dir == RTM_BUF_INOUT && k.plan.buf[b].bytes)
                    total += rtm_arena_round(k.plan.buf[b].bytes);
        }
    }
    for (uint32_t d = 0; d < m->n_devs; d++)
        all += dev_total[d];
    all += total;
    if (c->arena_bytes && all > c->arena_bytes) {
        fprintf(stderr, "rtmgr: kernel buffers need %zu bytes, more than limits.arena (%llu)\n",
                all, (unsigned long long)c->arena_bytes);
        return RTM_E_CFG_LIMIT;
    }
    total += dev_total[0];
    for (uint32_t d = 1; d < m->n_devs; d++) {
        if (!dev_total[d])
            continue;
        if (rtm_pinned_create(&m->pin[d], &m->ocl[d], dev_total[d]) == RTM_OK &&
            rtm_arena_init(&m->pin_arena[d], m->pin[d].host, dev_total[d]) == RTM_OK)
            continue;
        rtm_pinned_destroy(&m->pin[d]);
        fprintf(stderr, "rtmgr: warning: %s: no pinned host memory (%zu bytes): its jobs "
                        "transfer from ordinary memory, slower and less predictably than "
                        "calibrated\n", m->dev[d].name, dev_total[d]);
        total += dev_total[d];
    }
    rtm_status_t st = rtm_arena_create(&m->arena, total ? total : 64);
    if (st != RTM_OK) {
        fprintf(stderr, "rtmgr: cannot obtain %zu bytes of kernel buffers: %s\n", total,
                rtm_strerror(st));
        return st;
    }

    rtm_exec_task_t et[RTM_MAX_TASKS];
    memset(et, 0, sizeof(et));
    for (uint32_t t = 0; t < c->n_tasks; t++) {
        et[t].cfg = &c->task[t];
        m->task_ptr[t] = &c->task[t];
        bool any = false;
        for (uint32_t d = 0; d < m->n_devs; d++) {
            et[t].predict_ns[d] = et[t].predict_empty_ns[d] = -1;
            if (!wanted(m, t, d))
                continue;
            const rtm_status_t ist = make_instance(m, t, d);
            if (ist != RTM_OK && d == 0)
                return ist;
            if (ist != RTM_OK)
                continue;
            et[t].inst[d] = &m->inst[t][d];
            et[t].kx[d] = d > 0 ? &m->kx[t][d] : NULL;
            et[t].predict_ns[d] = m->predict_ns[t][d];
            if (m->live_on[t][d]) {
                et[t].predict_empty_ns[d] = warm_time(&m->pred_empty[t][d]);
                et[t].slots = (uint32_t)m->inst[t][d].size[0];
            }
            const rtm_model_time_t *u = rtm_model_used(&m->pred[t][d]);
            if (u->status == RTM_OK) { /* the transfer parts: a preempted job's remainder */
                et[t].predict_in_ns[d] = u->in_ns;
                et[t].predict_out_ns[d] = u->out_ns;
            }
            for (uint32_t b = 0; b < RTM_KBUF_MAX; b++)
                et[t].inout_init[d][b] = m->inout_init[t][d][b];
            any = true;
        }
        if (!any) {
            fprintf(stderr, "rtmgr: task %s has no device it may run on (placement %s, policy %s)\n",
                    c->task[t].name, rtm_place_name(c->task[t].placement),
                    rtm_place_policy_name(m->o.policy));
            return RTM_E_CL_NODEV;
        }
    }

    m->slots = calloc(LOG_SLOTS, sizeof(*m->slots));
    if (!m->slots)
        return RTM_E_NOMEM;
    st = rtm_errlog_init(&m->log, m->log_path, m->slots, LOG_SLOTS, 0);
    if (st != RTM_OK)
        return st;
    m->log_ok = true;

    /* the GPUs' wakes ahead of releases (wake.h) */
    for (uint32_t d = 1; d < m->n_devs; d++) {
        if (m->o.wake_lead_ns <= 0 || !rtm_wake_wanted(&m->ocl[d].info))
            continue;
        if (rtm_wake_init(&m->wake[d], &m->ocl[d]) != RTM_OK) {
            fprintf(stderr, "rtmgr: warning: %s: no wake kernel; its jobs after idle run "
                            "without it\n", m->dev[d].name);
            continue;
        }
        m->dev[d].wake = &m->wake[d];
        if (!m->o.quiet)
            fprintf(stderr, "rtmgr: %s: woken %.0f us before a release when idle (wake.h; "
                            "--wake 0: never)\n",
                    m->dev[d].name, (double)m->o.wake_lead_ns / 1e3);
    }
    if (m->spin_lead_ns > 0 && !m->o.quiet)
        fprintf(stderr, "rtmgr: idle dispatchers, and the CPU pool's workers, spin from %.0f us "
                        "(at most a task's period / %d) before a hard or firm release "
                        "(--spin-lead 0: never)\n",
                (double)m->spin_lead_ns / 1e3, RTM_SPIN_PERIOD_DIV);
    const int64_t cal_lead = rtm_manager_warm_lead_differs(&m->cfg.board, m->spin_lead_ns);
    if (cal_lead > 0 && !m->o.quiet)
        fprintf(stderr, "rtmgr: warning: the board profile's cw_warm was measured with the "
                        "workers warmed %.0f us ahead, this run spins %.0f us ahead: hard and "
                        "firm tasks' CPU predictions may be off (--spin-lead %.0f, or "
                        "recalibrate)\n",
                (double)cal_lead / 1e3, (double)m->spin_lead_ns / 1e3, (double)cal_lead / 1e3);
    m->x = calloc(1, rtm_exec_size());
    if (!m->x)
        return RTM_E_NOMEM;
    const rtm_exec_params_t xp = {
        .policy = m->o.policy,
        .rt = m->o.rt,
        .start_delay_ns = START_DELAY_NS,
        .max_jobs = c->max_jobs ? c->max_jobs : 256,
        .margin = m->o.margin,
        .adapt = m->o.adapt,
        .wait_abort = m->o.preempt_wait,
        .wake_lead_ns = m->o.wake_lead_ns,
        .spin_lead_ns = m->spin_lead_ns,
        .sink = sink,
        .sink_ctx = m,
        .cpu_run = pool_run,
        .cpu_run_ctx = &m->pool,
        .pool = &m->pool,
        .input = {.ctx = m->scenario_on ? (void *)&m->scenario
                                        : m->input_on ? (void *)&m->input : NULL,
                  .advance = m->scenario_on ? rtm_scenario_advance_cb : NULL,
                  .snapshot = m->scenario_on ? rtm_scenario_snapshot_cb
                              : m->input_on  ? rtm_input_snapshot_cb
                                             : NULL,
                  .targets = m->scenario_on ? rtm_scenario_targets_cb
                             : m->input_on  ? rtm_input_targets_cb
                                            : NULL},
        .result = m->output_on ? on_result : NULL,
        .result_ctx = m,
    };
    st = rtm_exec_init(m->x, &xp, m->dev, m->n_devs, et, c->n_tasks);
    if (st != RTM_OK)
        return st;
    m->x_ok = true;
    st = rtm_shmstat_create(&m->shm, m->o.status_name, c->path, rtm_place_policy_name(m->o.policy));
    if (st != RTM_OK)
        return st;
    if (m->o.rt) {
        (void)rtm_os_lock_memory();
        /* no deep C-states while jobs run: their exit latency lands on every host-side
         * notice of a GPU job's end (rtm_os_hold_cpu_latency) */
        (void)rtm_os_hold_cpu_latency(0);
    }
    if (!m->o.quiet) {
        fprintf(stderr, "rtmgr: %u tasks, %u devices (cpu: %u workers), %.1f MiB of kernel "
                        "buffers (%.1f MiB pinned), program cache %s; predicted ms per job "
                        "(warm-up ms):\n",
                c->n_tasks, m->n_devs, m->pool.n_workers,
                (double)(rtm_arena_used(&m->arena) + pinned_used(m)) / 1048576.0,
                (double)pinned_used(m) / 1048576.0,
                m->cache_dir[0] ? m->cache_dir : "off");
        for (uint32_t t = 0; t < c->n_tasks; t++) {
            fprintf(stderr, "  %-16s", c->task[t].name);
            for (uint32_t d = 0; d < m->n_devs; d++)
                if (m->have[t][d])
                    fprintf(stderr, "  %s %.3f (%.3f)", m->dev[d].name,
                            (double)m->predict_ns[t][d] / 1e6, (double)m->warm_ns[t][d] / 1e6);
            fprintf(stderr, "\n");
        }
    }
    m->phase = PH_ALLOCATED;
    return RTM_OK;
}

/* ---- the sink: one model-error log row per job (real-time, under the exec lock) ---- */

/* Where a job's response went (docs/log.md): release -> dispatched -> the device began
 * -> the device ended -> completed. The last three only for a completed job never
 * preempted (a preempted one's measured time sums parts with gaps between them): on the
 * CPU pool its measured time is the dispatcher's own (submit and notice 0); on an
 * OpenCL device its span on the host clock, when the profiling stamps are there. */
static void response_parts(const rtm_exec_rec_t *r, rtm_errlog_row_t *row)
{
    if (!r->ran || r->start_ns <= 0)
        return;
    row->dispatch_ns = r->start_ns - r->release_ns;
    const bool completed = r->outcome == RTM_JOB_MET || r->outcome == RTM_JOB_LATE;
    if (!completed || r->preemptions > 0)
        return;
    if (r->device == 0) {
        row->submit_ns = row->notice_ns = 0;
    } else if (r->dev_start_ns > 0 && r->dev_end_ns >= r->dev_start_ns) {
        row->submit_ns = r->dev_start_ns - r->start_ns;
        row->notice_ns = r->end_ns - r->dev_end_ns;
    }
}

static void sink(void *ctx, const rtm_exec_rec_t *r)
{
    rtm_manager_t *m = ctx;
    const rtm_task_cfg_t *tc = &m->cfg.task[r->task];
    const bool placed = r->device >= 0 && (uint32_t)r->device < m->n_devs;
    rtm_errlog_row_t row;
    rtm_errlog_row_init(&row, tc->name, r->job, placed ? m->dev[r->device].name : "-",
                        r->release_ns - m->t0_ns, tc->deadline_ns);
    char reason[RTM_ERRLOG_REASON_MAX];
    const char *why = rtm_place_reason_name(r->reason);
    if (r->reason == RTM_REASON_PREEMPT && placed)
        snprintf(reason, sizeof(reason), "preempt-%s", m->dev[r->device].name);
    else
        snprintf(reason, sizeof(reason), "%s", why);
    if (r->preemptions > 0) { /* where it resumed, and its checkpoint at the last abort */
        const size_t n = strlen(reason);
        snprintf(reason + n, sizeof(reason) - n, ";resume-%s@%llu/%u",
                 placed ? m->dev[r->device].name : "-", (unsigned long long)r->ckpt_blocks,
                 r->blocks_total);
    }
    if (r->outcome != RTM_JOB_MET && r->outcome != RTM_JOB_LATE) {
        const size_t n = strlen(reason);
        snprintf(reason + n, sizeof(reason) - n, ";%s", rtm_exec_outcome_name(r->outcome));
    }
    rtm_errlog_row_reason(&row, reason);
    /* the prediction of its first placement (a resumed job's later parts are not scored) */
    const int32_t pd = r->first_device >= 0 ? r->first_device : r->device;
    if (placed && (uint32_t)pd < m->n_devs) {
        if (r->live >= 0 && m->live_on[r->task][pd]) {
            /* the prediction placement used: at the picture's live targets (live_on: a
             * navigation kernel, its first size key the target slots, > 0) */
            rtm_model_pred_t at;
            rtm_model_pred_lerp(&m->pred_empty[r->task][pd], &m->pred[r->task][pd],
                                (double)r->live / (double)m->inst[r->task][pd].size[0], &at);
            rtm_errlog_row_predicted(&row, &at);
        } else {
            rtm_errlog_row_predicted(&row, &m->pred[r->task][pd]);
        }
        row.blocks_total = r->blocks_total ? r->blocks_total : m->blocks[r->task][pd];
    }
    row.preempted = r->preemptions;
    row.resumed = r->resumes;
    if (r->ran) {
        if (r->device == 0) {
            row.measured_in_ns = row.measured_out_ns = 0;
            row.measured_kernel_ns = r->exec_ns;
        } else {
            row.measured_in_ns = r->in_ns;
            row.measured_kernel_ns = r->kernel_ns;
            row.measured_out_ns = r->out_ns;
        }
        row.measured_ns = row.measured_in_ns + row.measured_kernel_ns + row.measured_out_ns;
    }
    const bool completed = r->outcome == RTM_JOB_MET || r->outcome == RTM_JOB_LATE;
    if (completed) {
        row.response_ns = r->response_ns;
        row.blocks_done = row.blocks_total;
    } else if (r->ran) {
        row.blocks_done = r->blocks_done;
    }
    if (r->ran && r->preemptions > 0 && r->device == 0) { /* resumed on the CPU pool */
        row.measured_in_ns = r->in_ns;
        row.measured_kernel_ns = r->kernel_ns;
        row.measured_out_ns = r->out_ns;
        row.measured_ns = row.measured_in_ns + row.measured_kernel_ns + row.measured_out_ns;
    }
    response_parts(r, &row);
    if (placed && r->ran) /* a job that never ran (cancelled in the queue) left the
                             instance as the last one that ran there */
        atomic_store(&m->last_ok[r->task][r->device], completed ? 1 : 0);
    if (completed && r->device == 0 && r->first_device > 0 && (uint32_t)r->first_device < m->n_devs)
        atomic_store(&m->last_ok[r->task][r->first_device], 1); /* resumed on the CPU: the
                                                             outputs are in that instance */
    (void)rtm_errlog_push(&m->log, &row);
}

/* ---- start, run, stop ---- */

rtm_status_t rtm_manager_start(rtm_manager_t *m)
{
    if (m->phase != PH_ALLOCATED)
        return RTM_E_STATE;
    rtm_status_t st = rtm_arena_seal(&m->arena);
    for (uint32_t d = 0; d < m->n_devs; d++)
        if (st == RTM_OK && m->pin[d].host)
            st = rtm_arena_seal(&m->pin_arena[d]);
    if (st == RTM_OK)
        st = rtm_errlog_start(&m->log);
    if (st != RTM_OK)
        return st;
    if (m->input_on) {
        st = rtm_input_start(&m->input); /* pictures before the first release */
        if (st != RTM_OK)
            return st;
        m->input_started = true;
    }
    m->t0_ns = now_ns() + START_DELAY_NS;
    m->cpu0_ns = rtm_os_cpu_time_ns();
    st = rtm_exec_start(m->x);
    if (st != RTM_OK)
        return st;
    m->startup_ns = m->t0_ns - m->alloc_start_ns;
    m->phase = PH_STARTED;
    if (!m->o.quiet)
        fprintf(stderr, "rtmgr: start-up %.1f ms to the first release (devices %.1f ms, "
                        "programs %.1f ms, warm-up jobs %.1f ms)\n",
                (double)m->startup_ns / 1e6, (double)m->t_devices_ns / 1e6,
                (double)m->t_programs_ns / 1e6, (double)m->t_warm_ns / 1e6);
    if (m->o.rt)
        rtm_os_rt_warning(stderr);
    return RTM_OK;
}

void rtm_manager_request_stop(rtm_manager_t *m) { atomic_store(&m->stop_req, true); }

/* The NMEA counters for the status segment (main thread). */
static void stage_io(rtm_manager_t *m)
{
    static rtm_input_stats_t in; /* main thread only */
    static rtm_nmeaout_stats_t out;
    const bool have_in = m->input_on && rtm_input_stats(&m->input, &in) == RTM_OK;
    if (m->output_on)
        rtm_nmeaout_stats(&m->output, &out);
    if (have_in || m->output_on)
        rtm_shmstat_set_io(&m->shm, (uint32_t)m->cfg.input.kind, m->cfg.input.address,
                           have_in ? &in : NULL, m->output_on ? &out : NULL);
}

static void publish(rtm_manager_t *m, uint32_t state)
{
    rtm_errlog_stats_t ls;
    rtm_errlog_stats(&m->log, &ls);
    rtm_exec_stats(m->x, &m->st);
    stage_io(m);
    rtm_shmstat_publish(&m->shm, &m->st, m->x, m->task_ptr, state, ls.written, ls.dropped);
}

/* Hard deadline misses are alarms: one line on stderr per task that had new ones since
 * the last look (main thread, from the published statistics). Returns true if printed. */
static bool report_alarms(rtm_manager_t *m, bool line_out)
{
    bool printed = false;
    for (uint32_t t = 0; t < m->st.n_tasks; t++) {
        const uint64_t a = m->st.task[t].hard_alarms;
        if (a <= m->alarms_seen[t])
            continue;
        if (line_out && !printed)
            fputc('\n', stderr);
        fprintf(stderr, "rtmgr: ALARM: hard task %s missed %llu deadline%s (%llu in all)\n",
                m->cfg.task[t].name, (unsigned long long)(a - m->alarms_seen[t]),
                a - m->alarms_seen[t] == 1 ? "" : "s", (unsigned long long)a);
        m->alarms_seen[t] = a;
        printed = true;
    }
    return printed;
}

static void status_line(rtm_manager_t *m)
{
    const rtm_exec_stats_t *s = &m->st;
    uint64_t met = 0, missed = 0, hard = 0;
    for (uint32_t t = 0; t < s->n_tasks; t++) {
        met += s->task[t].met;
        missed += s->task[t].missed;
        hard += s->task[t].hard_alarms;
    }
    const double up = (double)(s->now_ns - s->start_ns) / 1e9;
    fprintf(stderr, "\rrtmgr: %6.1f s  %llu released  %llu met  %llu missed (%llu hard)  %llu "
                    "overloads  jitter p99 %.0f us ",
            up, (unsigned long long)s->releases, (unsigned long long)met,
            (unsigned long long)missed, (unsigned long long)hard,
            (unsigned long long)s->overloads, (double)rtm_hist_quantile(&s->jitter, 0.99) / 1e3);
    for (uint32_t d = 0; d < s->n_devs; d++)
        fprintf(stderr, " %s %.0f%%", m->dev[d].name,
                up > 0 ? 100.0 * (double)s->dev_busy_ns[d] / 1e9 / up : 0.0);
    fputs("   ", stderr);
}

rtm_status_t rtm_manager_run(rtm_manager_t *m, double duration_s)
{
    if (m->phase != PH_STARTED)
        return RTM_E_STATE;
    const bool tty = !m->o.quiet && isatty(STDERR_FILENO);
    const int64_t t_end = duration_s > 0 ? m->t0_ns + (int64_t)(duration_s * 1e9) : INT64_MAX;
    int64_t next_line = m->t0_ns + 1000000000LL;
    bool line_out = false;
    for (;;) {
        const int64_t now = now_ns();
        if (now >= t_end || atomic_load(&m->stop_req))
            break;
        int64_t wait = PUBLISH_NS;
        if (t_end - now < wait)
            wait = t_end - now;
        const struct timespec ts = {(time_t)(wait / 1000000000LL), (long)(wait % 1000000000LL)};
        const int sig = sigtimedwait(&m->sigs, NULL, &ts);
        if (sig == SIGINT || sig == SIGTERM) {
            if (line_out)
                fputc('\n', stderr);
            if (!m->o.quiet)
                fprintf(stderr, "rtmgr: %s: stopping\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
            line_out = false;
            break;
        }
        publish(m, RTM_SHMSTAT_RUNNING);
        if (report_alarms(m, line_out))
            line_out = false;
        if (sig == SIGUSR1) {
            if (line_out)
                fputc('\n', stderr);
            line_out = false;
            rtm_manager_summary(m, stderr);
        }
        if (tty && now_ns() >= next_line) {
            status_line(m);
            line_out = true;
            next_line += 1000000000LL;
        }
    }
    if (line_out)
        fputc('\n', stderr);
    publish(m, RTM_SHMSTAT_STOPPING);
    report_alarms(m, false);
    return RTM_OK;
}

rtm_status_t rtm_manager_stop(rtm_manager_t *m)
{
    if (m->phase != PH_STARTED)
        return RTM_E_STATE;
    rtm_exec_stop(m->x);
    m->cpu1_ns = rtm_os_cpu_time_ns();
    if (m->input_started) {
        rtm_input_stop(&m->input); /* publishes its final counters */
        m->input_started = false;
    }
    const rtm_status_t st = rtm_errlog_stop(&m->log);
    stage_io(m);
    if (m->input_on) {
        /* one line of every input counter, for logs and the HIL harness (docs/hil.md) */
        static rtm_input_stats_t in;
        if (rtm_input_stats(&m->input, &in) == RTM_OK) {
            static char line[8192];
            rtm_input_stats_format(&in, line, sizeof(line));
            fprintf(stderr, "rtmgr: input: %s\n", line);
        }
    }
    if (m->output_on) {
        rtm_nmeaout_stats_t o;
        rtm_nmeaout_stats(&m->output, &o);
        fprintf(stderr, "rtmgr: output: reports=%llu sentences=%llu ttm=%llu lost=%llu alr=%llu "
                        "alarms=%llu send_errors=%llu busy=%llu names_dropped=%llu\n",
                (unsigned long long)o.reports, (unsigned long long)o.sentences,
                (unsigned long long)o.ttm, (unsigned long long)o.lost, (unsigned long long)o.alr,
                (unsigned long long)o.alarms, (unsigned long long)o.send_errors,
                (unsigned long long)o.busy, (unsigned long long)o.names_dropped);
    }
    rtm_exec_stats(m->x, &m->st);
    rtm_errlog_stats_t ls;
    rtm_errlog_stats(&m->log, &ls);
    rtm_shmstat_publish(&m->shm, &m->st, m->x, m->task_ptr, RTM_SHMSTAT_STOPPED, ls.written,
                        ls.dropped);
    m->phase = PH_STOPPED;
    return st;
}

void rtm_manager_summary(rtm_manager_t *m, FILE *f)
{
    if (!m->x_ok)
        return;
    if (m->phase == PH_STARTED)
        rtm_exec_stats(m->x, &m->st);
    const rtm_exec_stats_t *s = &m->st;
    const double up = (double)(s->now_ns - s->start_ns) / 1e9;
    rtm_errlog_stats_t ls;
    rtm_errlog_stats(&m->log, &ls);
    fprintf(f, "rtmgr: start-up %.1f ms; %.1f s, policy %s, %llu releases, %llu overloads, %llu skipped; release "
               "jitter p50 %.1f us p99 %.1f us max %.1f us; decision p50 %lld ns p99 %lld ns; log "
               "%s: %llu rows written, %llu dropped\n",
            (double)m->startup_ns / 1e6, up, rtm_place_policy_name(m->o.policy),
            (unsigned long long)s->releases,
            (unsigned long long)s->overloads, (unsigned long long)s->skipped_releases,
            (double)rtm_hist_quantile(&s->jitter, 0.5) / 1e3,
            (double)rtm_hist_quantile(&s->jitter, 0.99) / 1e3, (double)s->jitter.max / 1e3,
            (long long)rtm_hist_quantile(&s->decide, 0.5),
            (long long)rtm_hist_quantile(&s->decide, 0.99), m->log_path,
            (unsigned long long)ls.written, (unsigned long long)ls.dropped);
    const int64_t cpu = (m->cpu1_ns ? m->cpu1_ns : rtm_os_cpu_time_ns()) - m->cpu0_ns;
    if (m->cpu0_ns > 0 && cpu > 0 && up > 0.0)
        fprintf(f, "rtmgr: CPU time %.2f s over the run's %.1f s: %.2f of %d cores (every thread: "
                   "executive, pool, spins, drivers)\n",
                (double)cpu / 1e9, up, (double)cpu / 1e9 / up, rtm_os_cpu_count());
    fprintf(f, "%-16s %-4s %7s", "task", "crit", "jobs");
    for (uint32_t d = 0; d < m->n_devs; d++)
        fprintf(f, " %7.7s", m->dev[d].name);
    fprintf(f, " %9s %9s %9s %6s %6s %5s %6s\n", "resp p50", "resp max", "exec max", "miss",
           "alarm", "pre", "MAPE");
    for (uint32_t t = 0; t < s->n_tasks; t++) {
        const rtm_exec_task_stats_t *a = &s->task[t];
        fprintf(f, "%-16.16s %-4s %7llu", m->cfg.task[t].name, rtm_crit_name(m->cfg.task[t].crit),
                (unsigned long long)a->released);
        for (uint32_t d = 0; d < m->n_devs; d++)
            fprintf(f, " %7llu", (unsigned long long)a->placed[d]);
        char mape[16] = "     -";
        if (a->ape_n)
            snprintf(mape, sizeof(mape), "%5.1f%%", 100.0 * a->ape_sum / (double)a->ape_n);
        fprintf(f, " %7.3fms %7.3fms %7.3fms %6llu %6llu %5llu %6s\n",
                (double)rtm_hist_quantile(&a->resp, 0.5) / 1e6, (double)a->worst_resp_ns / 1e6,
                (double)a->worst_exec_ns / 1e6, (unsigned long long)a->missed,
                (unsigned long long)a->hard_alarms, (unsigned long long)a->preemptions, mape);
    }
    for (uint32_t d = 0; d < m->n_devs; d++) { /* the devices' wakes, spins, asked ends */
        const char *name = m->dev[d].name;
        if (m->dev[d].wake)
            fprintf(f, "%s: woken %llu times %.0f us before a release (idle since %.0f ms or more)\n",
                    name, (unsigned long long)s->dev_wakes[d], (double)m->o.wake_lead_ns / 1e3,
                    RTM_WAKE_IDLE_NS / 1e6);
        if (s->dev_spins[d])
            fprintf(f, "%s: spun ahead of %llu hard or firm releases, a job or a kick came in %llu\n",
                    name, (unsigned long long)s->dev_spins[d],
                    (unsigned long long)s->dev_spin_kicks[d]);
        if (s->dev_asked[d])
            fprintf(f, "%s: %llu of %llu job ends found by asking, not told by the driver's "
                       "callback (asked from 3/4 of the prediction on)\n",
                    name, (unsigned long long)s->dev_asked[d], (unsigned long long)s->dev_jobs[d]);
    }
    uint64_t launches = 0, joins = 0;
    if (m->pool.started)
        rtm_pool_joins(&m->pool, &launches, &joins);
    if (launches) /* below rtm_pool_spawned: workers that woke after the blocks ran out */
        fprintf(f, "CPU pool: %llu launches, worker threads joined per launch mean %.1f of %u "
                   "(besides the caller)\n",
                (unsigned long long)launches, (double)joins / (double)launches,
                rtm_pool_spawned(&m->pool));
    for (uint32_t t = 0; t < s->n_tasks; t++) {
        const rtm_exec_task_stats_t *a = &s->task[t];
        if (a->preemptions == 0)
            continue;
        const double n = (double)a->preemptions;
        fprintf(f, "preempted %s %llu times:", m->cfg.task[t].name,
                (unsigned long long)a->preemptions);
        if (a->stop.count)
            fprintf(f, " flag raised -> kernels stopped p50 %.1f us, p99 %.1f us, max %.1f us "
                       "(device end stamps, %llu known);",
                    (double)rtm_hist_quantile(&a->stop, 0.5) / 1e3,
                    (double)rtm_hist_quantile(&a->stop, 0.99) / 1e3, (double)a->stop.max / 1e3,
                    (unsigned long long)a->stop.count);
        fprintf(f, " -> stopped with its checkpoint read mean %.1f us, max %.1f us; -> device "
                   "free for the next job mean %.1f us, max %.1f us\n",
                (double)a->abort_sum_ns / n / 1e3, (double)a->abort_max_ns / 1e3,
                (double)a->release_sum_ns / n / 1e3, (double)a->release_max_ns / 1e3);
        if (a->behind)
            fprintf(f, "  next job enqueued behind the raise %llu times: flag raised -> enqueued "
                       "mean %.1f us, max %.1f us\n",
                    (unsigned long long)a->behind,
                    (double)a->behind_sum_ns / (double)a->behind / 1e3,
                    (double)a->behind_max_ns / 1e3);
    }
}

uint32_t rtm_manager_verify(rtm_manager_t *m, FILE *f, uint32_t *checked)
{
    uint32_t bad = 0, n = 0;
    for (uint32_t t = 0; t < m->cfg.n_tasks; t++) {
        for (uint32_t d = 1; d < m->n_devs; d++) {
            const rtm_kinst_t *k = &m->inst[t][d];
            if (!m->have[t][d] || !atomic_load(&m->last_ok[t][d]))
                continue;
            rtm_kinst_t twin = *k;
            const size_t bytes = rtm_kinst_bytes(k);
            void *mem = aligned_alloc(64, (bytes + 63u) & ~(size_t)63u);
            if (!mem || rtm_kinst_bind(&twin, mem, bytes) != bytes) {
                free(mem);
                continue;
            }
            /* the job's inputs: IN buffers as they are, INOUT ones from their initial copy */
            for (uint32_t b = 0; b < k->plan.n_bufs; b++)
                memcpy(twin.host[b], m->inout_init[t][d][b] ? m->inout_init[t][d][b] : k->host[b],
                       k->plan.buf[b].bytes);
            rtm_kinst_run_cpu(&twin);
            n++;
            char why[256] = "";
            const size_t diff = k->kernel->compare(k, &twin, why, sizeof(why));
            if (diff) {
                bad++;
                fprintf(f, "rtmgr: verify: task %s on %s differs from the CPU twin in %zu "
                           "elements: %s\n",
                        m->cfg.task[t].name, m->dev[d].name, diff, why);
            } else {
                fprintf(f, "rtmgr: verify: task %s on %s equals the CPU twin\n", m->cfg.task[t].name,
                        m->dev[d].name);
            }
            free(mem);
        }
    }
    if (checked)
        *checked = n;
    return bad;
}

rtm_exec_t *rtm_manager_exec(rtm_manager_t *m) { return m->x_ok ? m->x : NULL; }

int64_t rtm_manager_t0_ns(const rtm_manager_t *m) { return m->t0_ns; }

const char *rtm_manager_status_name(const rtm_manager_t *m) { return m->shm.name; }

const rtm_kinst_t *rtm_manager_inst(const rtm_manager_t *m, uint32_t t, uint32_t d)
{
    return t < RTM_MAX_TASKS && d < RTM_MAX_DEVICES && m->have[t][d] ? &m->inst[t][d] : NULL;
}

uint32_t rtm_manager_devices(const rtm_manager_t *m) { return m->n_devs; }

const char *rtm_manager_device_name(const rtm_manager_t *m, uint32_t d)
{
    return d < m->n_devs ? m->dev[d].name : "-";
}

int64_t rtm_manager_predict_ns(const rtm_manager_t *m, uint32_t t, uint32_t d)
{
    return t < RTM_MAX_TASKS && d < RTM_MAX_DEVICES && m->have[t][d] ? m->predict_ns[t][d] : -1;
}

int64_t rtm_manager_warmup_ns(const rtm_manager_t *m, uint32_t t, uint32_t d)
{
    return t < RTM_MAX_TASKS && d < RTM_MAX_DEVICES && m->have[t][d] ? m->warm_ns[t][d] : -1;
}

const rtm_config_t *rtm_manager_config(const rtm_manager_t *m) { return &m->cfg; }

void rtm_manager_destroy(rtm_manager_t *m)
{
    if (!m)
        return;
    if (m->phase == PH_STARTED)
        (void)rtm_manager_stop(m);
    rtm_os_release_cpu_latency();
    if (m->log_ok)
        (void)rtm_errlog_stop(&m->log);
    if (m->x_ok)
        rtm_exec_destroy(m->x);
    free(m->x);
    free(m->slots);
    rtm_shmstat_destroy(&m->shm);
    if (m->input_on)
        rtm_input_stop(&m->input); /* joins the thread if still running; closes the socket */
    if (m->output_on)
        rtm_nmeaout_close(&m->output);
    for (uint32_t t = 0; t < RTM_MAX_TASKS; t++)
        for (uint32_t d = 0; d < RTM_MAX_DEVICES; d++)
            if (m->kx_ok[t][d])
                rtm_kexec_destroy(&m->kx[t][d]);
    if (m->pool_on)
        rtm_pool_stop(&m->pool);
    for (uint32_t d = 1; d < m->n_devs; d++) {
        rtm_arena_destroy(&m->pin_arena[d]); /* zeroed when unused: a no-op */
        rtm_pinned_destroy(&m->pin[d]);
        rtm_wake_destroy(&m->wake[d]); /* zeroed when unused: a no-op */
        rtm_ocl_close(&m->ocl[d]);
    }
    rtm_arena_destroy(&m->arena);
    if (m->sigs_blocked)
        pthread_sigmask(SIG_SETMASK, &m->old_sigs, NULL);
    free(m);
}
