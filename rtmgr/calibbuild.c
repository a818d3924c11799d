/* calibbuild.c — program builds for `rtmgr calibrate` (calibint.h).
 *
 * Owns: the build-time figure c and the cache-load time (matrix_add built with a unique
 * -D each; a CPU-type device's on a helper thread while the GPUs are measured); the
 * programs built ahead into the binary cache, so that the measurements load them instead
 * of compiling them on the path: which ones (a device's catalogue, with a CPU-type
 * device's ladder of sizes; a sweep's candidates; a kernel's points) and how (the
 * device's build workers, builder.h, else threads); and the build worker process's side
 * (rtm_calib_prebuild_worker, calib.h). */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "calib.h"
#include "calibint.h"
#include "builder.h"
#include "kexec.h"
#include "os.h"
#include "preempt.h"
#include "program.h"

/* ---- the build-time figure c --------------------------------------------------------- */

/* Removes the files of a flat directory, then the directory. */
static void remove_dir(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        const struct dirent *e;
        char file[RTM_PATH_MAX + 256];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(file, sizeof(file), "%s/%s", path, e->d_name);
            unlink(file);
        }
        closedir(d);
    }
    rmdir(path);
}

/* Builds for the figure c: REPS, 5 with --quick. */
int rtm_calib_build_reps(const rtm_calib_opts_t *o) { return o->quick ? 5 : REPS; }

/* Program build time c: the reference kernel matrix_add from source (rtm_program_build_ex)
 * with a unique -D per build, so that no driver cache answers; and the load time of the
 * same program from rtmgr's binary cache (rtm_program_build_cached, a fresh cache
 * directory: one build stores, then loads). */
void rtm_calib_build_figs(rtm_ocl_dev_t *d, uint32_t wg, int reps, bfig_t *f)
{
    *f = (bfig_t){.st = RTM_OK, .reps = reps};
    const rtm_kernel_t *kern = rtm_kernel_find("matrix_add");
    if (!kern) {
        f->st = RTM_E_NOTFOUND;
        return;
    }
    rtm_kinst_t k;
    rtm_kinst_init(&k, kern);
    k.size[0] = 64;
    k.tune.wg = wg < kern->tune_default.wg ? wg : kern->tune_default.wg;
    f->st = rtm_kinst_plan(&k);
    static unsigned nonce;
    for (int r = 0; r < reps && f->st == RTM_OK; r++) {
        char extra[96];
        snprintf(extra, sizeof(extra), "-DRTM_CALIB_NONCE=%ld%u%d", (long)time(NULL),
                 __atomic_fetch_add(&nonce, 1u, __ATOMIC_RELAXED), (int)getpid());
        rtm_program_t p;
        f->st = rtm_program_build_ex(d, &k, extra, &p);
        f->tb[r] = p.build_s;
        rtm_program_release(&p);
    }
    if (f->st != RTM_OK)
        return;
    char dir[] = "/tmp/rtmgr-calib-cache-XXXXXX";
    if (!mkdtemp(dir)) {
        f->st = RTM_E_IO;
        return;
    }
    rtm_program_t p;
    f->st = rtm_program_build_cached(d, &k, NULL, dir, &p); /* compiles and stores */
    rtm_program_release(&p);
    for (int r = 0; r < REPS && f->st == RTM_OK; r++) {
        f->st = rtm_program_build_cached(d, &k, NULL, dir, &p);
        f->tl[r] = p.build_s;
        f->loaded += p.from_cache;
        rtm_program_release(&p);
    }
    remove_dir(dir);
}

void *rtm_calib_bahead_run(void *arg)
{
    bahead_t *b = arg;
    const double t0 = rtm_calib_now();
    rtm_ocl_dev_t dev;
    b->f.st = rtm_ocl_open(&dev, &b->info);
    if (b->f.st == RTM_OK) {
        rtm_calib_build_figs(&dev, UINT32_MAX, b->reps, &b->f);
        rtm_ocl_close(&dev);
    }
    b->wall_s = rtm_calib_now() - t0;
    return NULL;
}

/* ---- programs built ahead into the binary cache -------------------------------------- */

bool rtm_calib_gpu_loop_polls(const devcal_t *x, const rtm_kernel_t *kern)
{
    return !rtm_calib_cpu_dev(x) && rtm_preempt_loop_polls(kern);
}

rtm_kexec_opts_t rtm_calib_point_opts(const devcal_t *x, const rtm_kinst_t *k)
{
    rtm_kexec_opts_t o = rtm_kexec_calib_opts(x->cache);
    const dpred_t p = rtm_calib_dpred(x, -1, 0.0); /* the profile's terms as they stand */
    const double t = rtm_calib_dev_pred(&p, k);
    const double block_s = t > 0.0 ? rtm_preempt_grid_opts(x->bd, k, t, &o) : 0.0;
    /* a GPU's loop-polling kernel: the executive's poll build (the period its search chose
     * before the points, none where the blocks are short), whose time beyond the cache
     * is not calibration's default build's times a factor (calibdev.c, dev_poll_kernel) */
    if (rtm_calib_gpu_loop_polls(x, k->kernel))
        rtm_preempt_poll_opts(x->bd, k->kernel, block_s, &o);
    return o;
}

/* The job dev_measure's kexec runs for instance k (its options, rtm_calib_point_opts:
 * what a prebuild builds and what the cache is asked for). */
static void prebuild_job(const devcal_t *x, const rtm_kinst_t *k, rtm_build_job_t *j)
{
    memset(j, 0, sizeof(*j));
    j->k = *k;
    const rtm_kexec_opts_t o = rtm_calib_point_opts(x, k);
    rtm_build_job_set_opts(j, &o);
}

/* The build options of the program dev_measure's kexec runs for k on x's device
 * (rtm_kexec_program_options). */
#define PROG_OPTS_MAX 768
static void prog_options(const devcal_t *x, const rtm_kinst_t *k, char out[PROG_OPTS_MAX])
{
    const rtm_kexec_opts_t o = rtm_calib_point_opts(x, k);
    rtm_kexec_program_options(x->d, k, &o, out, PROG_OPTS_MAX);
}

/* True when kern's program on d differs between first keys a and b: its build options
 * hold the size (the navigation kernels' target counts, an image's width), or the size
 * moves it to another block-control build (a GPU's persistent groups from
 * RTM_KEXEC_PERSIST_MIN_BLOCKS blocks: the H100's matrix kernels, sort, copy and spin
 * compiled that one on the path at their larger points, 3-4 s of gpu0's calibration). */
static bool size_built(const devcal_t *x, const rtm_kernel_t *kern, rtm_tune_t tune, int64_t a,
                       int64_t b)
{
    rtm_kinst_t ka, kb;
    if (!rtm_calib_size_plan(kern, a, tune, NULL, &ka) ||
        !rtm_calib_size_plan(kern, b, tune, NULL, &kb))
        return false;
    char oa[PROG_OPTS_MAX], ob[PROG_OPTS_MAX];
    prog_options(x, &ka, oa);
    prog_options(x, &kb, ob);
    return strcmp(oa, ob) != 0;
}

static rtm_status_t prebuild_one(prebuild_t *p)
{
    const rtm_kexec_opts_t o = rtm_build_job_opts(&p->j, p->cache);
    return rtm_kexec_prebuild(p->d, &p->j.k, &o);
}

static bool prebuild_cached(const prebuild_t *p)
{
    const rtm_kexec_opts_t o = rtm_build_job_opts(&p->j, p->cache);
    return rtm_kexec_cached(p->d, &p->j.k, &o);
}

/* Builds the programs of pb[0..n) (planned instances) in parallel threads, as many at a
 * time as the host has cores, each thread taking the next instance. */
typedef struct {
    prebuild_t *pb;
    uint32_t n;
    uint32_t next; /* atomic */
} prebuild_set_t;

static void *prebuild_worker(void *arg)
{
    prebuild_set_t *set = arg;
    for (;;) {
        const uint32_t i = __atomic_fetch_add(&set->next, 1u, __ATOMIC_RELAXED);
        if (i >= set->n)
            return NULL;
        (void)prebuild_one(&set->pb[i]); /* a failure shows again when measured */
    }
}

/* rtm_calib_dev_kernel_ready's longest wait between checks of the cache (milliseconds;
 * an acknowledgement ends it sooner). */
#define READY_POLL_MS 50

/* Serial build time of a batch (n x c) from which build workers are started for it. */
#define PROCS_MIN_S 0.5

/* How the prebuilds run: RTM_CALIB_PREBUILD=procs (the default), threads, or off. */
typedef enum { PRE_PROCS, PRE_THREADS, PRE_OFF } pre_mode_t;

/* Host cores from which building ahead pays: with fewer (the 2-core development
 * machine), builds that the deadline then leaves unmeasured cost more than the overlap
 * saves (measured there: 42 programs prebuilt in 23.8 s, the run 72.5 -> 95.4 s). */
#define PREBUILD_MIN_CORES 4

uint32_t rtm_calib_host_cores(void) { return (uint32_t)rtm_os_cpu_count(); }

static pre_mode_t pre_mode(void);

/* Whether to build ahead at all: worker processes build in parallel from 2 cores on
 * (the 2-core machine: two at a time); threads, which a driver may serialise, from
 * PREBUILD_MIN_CORES. */
bool rtm_calib_prebuild_on(void)
{
    const pre_mode_t m = pre_mode();
    return m != PRE_OFF && rtm_calib_host_cores() >= (m == PRE_PROCS ? 2u : PREBUILD_MIN_CORES);
}


static pre_mode_t pre_mode(void)
{
    const char *m = getenv("RTM_CALIB_PREBUILD");
    return !m || !*m || strcmp(m, "procs") == 0 ? PRE_PROCS
           : strcmp(m, "threads") == 0           ? PRE_THREADS
                                                  : PRE_OFF;
}

/* Build workers of a GPU at most: each opens a context on the one device, and the
 * driver makes them one after another (H100 host, 16 workers: 2.1 s to open each, 42
 * programs in 4.02 s; 8 workers: 3.10 s). A CPU device gets one per core. */
#define PRE_GPU_WORKERS 8

/* The builds of pb[0..n) by the device's build workers (builder.h), started at the
 * first batch worth it and kept for the device's calibration. Drivers serialise their
 * compiler within a process (PoCL's LLVM work takes one lock: the H100 host's 16 cores
 * built 22 programs in 13.9 s in threads, about what one core does; NVIDIA's compiler
 * too: 45 programs in 8.4 s), not across processes. Returns false when the workers
 * could not take the whole batch (none started, or one died: noted once, when it
 * happens; the caller builds what the cache lacks, this batch's and every later one). */
/* The device's build workers started unless they are up: one per host core (a GPU's at
 * most PRE_GPU_WORKERS), at most `cap`; with `idle` under SCHED_IDLE. */
static void workers_up(devcal_t *x, uint32_t cap, bool idle)
{
    if (rtm_builder_up(&x->bld))
        return;
    uint32_t np = rtm_calib_host_cores();
    if (!rtm_calib_cpu_dev(x) && np > PRE_GPU_WORKERS)
        np = PRE_GPU_WORKERS;
    np = np > cap ? cap : np;
    x->pre_procs = rtm_builder_start(&x->bld, NULL, x->ocl_index, x->cache, np, idle);
}

/* Whether x's device builds ahead in worker processes that measure beside its
 * measurements: a GPU (a CPU-type device's measurements are the host's cores) with a
 * cache, building ahead in processes, its workers not broken. */
static bool gpu_procs(const devcal_t *x)
{
    return !rtm_calib_cpu_dev(x) && x->cache && rtm_calib_prebuild_on() &&
           pre_mode() == PRE_PROCS && !x->bld.broken;
}

void rtm_calib_dev_workers_early(devcal_t *x)
{
    if (gpu_procs(x))
        workers_up(x, UINT32_MAX, false);
}

static bool prebuild_procs(devcal_t *x, prebuild_t *pb, uint32_t n)
{
    if (x->bld.broken || !x->cache)
        return false;
    workers_up(x, UINT32_MAX, false);
    const rtm_build_job_t *jobs[256];
    uint32_t done = 0;
    while (done < n && rtm_builder_up(&x->bld)) {
        uint32_t m = 0;
        while (done + m < n && m < N_OF(jobs)) {
            jobs[m] = &pb[done + m].j;
            m++;
        }
        (void)rtm_builder_batch(&x->bld, jobs, m); /* ahead of a queued catalogue */
        done += m;
    }
    if (rtm_builder_up(&x->bld))
        return true;
    char proc[256];
    rtm_os_describe_process(proc, sizeof(proc));
    cal_note(x->c, "%s: the build workers stopped (%u of %u failed): builds in this process "
                   "from now on (this process: %s)",
             x->bd->name, x->bld.failed, x->pre_procs, proc);
    return false;
}

/* Keeps in pb[0..n) the entries whose programs the cache does not hold yet; returns how
 * many. */
static uint32_t uncached(prebuild_t *pb, uint32_t n)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!prebuild_cached(&pb[i]))
            pb[m++] = pb[i];
    return m;
}

/* Builds what pb[0..n) the cache lacks: by the build workers when they are up or the
 * batch is worth starting them, else (and what they could not build) in threads. */
void rtm_calib_prebuild_many(devcal_t *x, prebuild_t *pb, uint32_t n)
{
    const double t0 = rtm_calib_now();
    const pre_mode_t mode = pre_mode();
    if (mode == PRE_OFF)
        return;
    /* what the cache already holds (a second calibration on this machine) needs no
     * build, nor a worker to start for it */
    n = uncached(pb, n);
    if (n == 0)
        return;
    /* a worker costs a start (discovery, the device opened: a CUDA context): worth it
     * when the batch's builds one after another would take longer (PoCL's c on the H100
     * host 0.24 s, NVIDIA's 0.05 s); workers already up take any batch of two or more */
    const bool worth = rtm_builder_up(&x->bld) ? n >= 2
                                               : n >= 2 && n * x->bd->param[RTM_DEV_P_build] >=
                                                               PROCS_MIN_S;
    const uint32_t n_all = n;
    if (mode == PRE_PROCS && worth) {
        if (prebuild_procs(x, pb, n)) {
            x->pre_s += rtm_calib_now() - t0;
            x->n_pre += n_all;
            return;
        }
        n = uncached(pb, n); /* what no worker built (one that died had taken some) */
    }
    uint32_t nt = rtm_calib_host_cores();
    nt = nt > n ? n : nt > 64 ? 64 : nt;
    pthread_t th[64];
    bool started[64] = {false};
    prebuild_set_t set = {pb, n, 0};
    for (uint32_t t = 0; t < nt; t++)
        started[t] = pthread_create(&th[t], NULL, prebuild_worker, &set) == 0;
    prebuild_worker(&set); /* this thread too (and all of it when none started) */
    for (uint32_t t = 0; t < nt; t++)
        if (started[t])
            pthread_join(th[t], NULL);
    x->pre_s += rtm_calib_now() - t0;
    x->n_pre += n_all;
}

/* Plans kern at `size` and `tune` into *pb; false when it does not plan. */
bool rtm_calib_prebuild_entry(devcal_t *x, const rtm_kernel_t *kern, const int64_t *size,
                              rtm_tune_t tune, prebuild_t *pb)
{
    *pb = (prebuild_t){.d = x->d, .cache = x->cache};
    rtm_kinst_t k;
    rtm_kinst_init(&k, kern);
    for (uint32_t j = 0; j < kern->n_keys; j++)
        k.size[j] = size[j];
    k.tune = tune;
    if (rtm_kinst_plan(&k) != RTM_OK)
        return false;
    prebuild_job(x, &k, &pb->j);
    return true;
}

uint32_t rtm_calib_uncached(devcal_t *x, const rtm_kernel_t *kern, const int64_t *size,
                            const rtm_tune_t *tunes, uint32_t n)
{
    uint32_t miss = 0;
    for (uint32_t i = 0; i < n; i++) {
        prebuild_t pb;
        miss += !x->cache || !rtm_calib_prebuild_entry(x, kern, size, tunes[i], &pb) ||
                !prebuild_cached(&pb);
    }
    return miss;
}

/* Builds the programs of `n` tuning candidates of kern at `size` in parallel threads
 * (program builds are most of a sweep's time on PoCL: 0.3-1.5 s each, one core each),
 * so that the sweep's kexecs load them from the cache. Nothing without a cache. */
void rtm_calib_prebuild(devcal_t *x, const rtm_kernel_t *kern, const int64_t *size,
                        const rtm_tune_t *tunes, uint32_t n)
{
    prebuild_t pb[16];
    uint32_t m = 0;
    if (!x->cache || n < 2 || !rtm_calib_prebuild_on())
        return;
    for (uint32_t i = 0; i < n && m < N_OF(pb); i++)
        m += rtm_calib_prebuild_entry(x, kern, size, tunes[i], &pb[m]);
    rtm_calib_prebuild_many(x, pb, m);
}

bool rtm_calib_dk_own_program(void *ctx, const kfit_t *kf, int64_t a, int64_t b)
{
    return size_built(((dkctx_t *)ctx)->x, kf->kern, kf->tune, a, b);
}

/* kfit_t's prebuild on a device: the sizes' programs the cache lacks, built together
 * (rtm_calib_prebuild_many: by the build workers when up or worth starting); those in the
 * cache after become prebuilt keys the targets may take. */
void rtm_calib_dk_prebuild(void *ctx, kfit_t *kf, const int64_t *keys,
                           const int64_t (*sizes)[RTM_SIZE_KEYS_MAX], uint32_t n)
{
    devcal_t *x = ((dkctx_t *)ctx)->x;
    /* one program gains nothing built ahead (a kernel whose sizes all run one program
     * has it by now: no size of the batch is a program of its own, below) */
    if (!x->cache || !rtm_calib_prebuild_on() || n < 2)
        return;
    prebuild_t pb[AHEAD_MAX];
    int64_t pk[AHEAD_MAX];
    uint32_t m = 0;
    for (uint32_t i = 0; i < n && m < AHEAD_MAX; i++) {
        /* a size whose program is another's of the batch is not a program of its own,
         * and one program is built once (the first of its sizes) */
        bool own = false, twin = false;
        for (uint32_t j = 0; j < n && !own; j++)
            own = j != i && size_built(x, kf->kern, kf->tune, keys[i], keys[j]);
        for (uint32_t q = 0; q < m && !twin; q++)
            twin = !size_built(x, kf->kern, kf->tune, keys[i], pk[q]);
        if (own && !twin && !rtm_calib_key_in(kf->pre_keys, kf->n_pre_keys, keys[i]) &&
            rtm_calib_prebuild_entry(x, kf->kern, sizes[i], kf->tune, &pb[m]))
            pk[m++] = keys[i];
    }
    /* rtm_calib_prebuild_many keeps only what it builds; pb[i] stays pk[i]'s */
    prebuild_t todo[AHEAD_MAX];
    memcpy(todo, pb, m * sizeof(pb[0]));
    rtm_calib_prebuild_many(x, todo, m);
    for (uint32_t i = 0; i < m && kf->n_pre_keys < N_OF(kf->pre_keys); i++)
        if (prebuild_cached(&pb[i]))
            kf->pre_keys[kf->n_pre_keys++] = pk[i];
}

/* Later calibration targets whose sizes are prebuilt for kernels with size-built programs:
 * every one after the first, in rtm_calib_kernel_points' order (the middle target, the
 * last, the others). With the middle and the last alone (before session 19), the H100
 * host still compiled 8-9 s on the path, one program at a time, over gpu0 and ocl0. */
#define PRE_TARGETS_MAX 4
/* A CPU-type device's background batch (built while the GPUs are measured, its cores
 * otherwise idle) adds, for kernels whose programs hold their size, a ladder of sizes
 * whose predicted times step by LADDER_STEP from LADDER_SPAN below the smallest target
 * to LADDER_SPAN above the largest: a target then finds a prebuilt size within
 * sqrt(LADDER_STEP) < PREBUILT_RATIO of its time whatever its first points taught the
 * prediction (the H100 host's PoCL rebuilt cpa_pairs' and trajectory's later sizes,
 * 2.2-3.4 s on the path, after its first points). */
#define LADDER_STEP 3.0
#define LADDER_SPAN 8.0
/* Host cores from which they are prebuilt (rtm_calib_dev_prebuild_all) */
#define PRE_LATER_CORES 8

/* Before the catalogue's kernels are measured: the programs they will surely build,
 * built at once in parallel threads into the binary cache (hosts of PREBUILD_MIN_CORES
 * cores or more) — every kernel's first sweep candidate at its sweep size and its first
 * calibration point (the smallest target's
 * size at its starting tuning; the size the measurement then picks is the same unless
 * the sweep changes the tuning). Sizes come from the model alone, as the measurement's
 * first ones do. On PoCL a build costs 0.3-1.5 s of one core and the nav kernels' sizes
 * are build options (every point its own program): one at a time they were most of the
 * H100 host's 57 s; its 16 cores build them together. */
/* Plans key kj (sizes s) of kernel ki into *pb and keeps it among the kernel's prebuilt
 * keys (x->pre_key) when it runs a program of its own: not k0's, nor that of a key kept
 * already (within PRE_KEYS_MAX). Returns 1 when it did, else 0 (kj < 0: no size). */
static uint32_t pre_size(devcal_t *x, const rtm_kernel_t *kern, rtm_tune_t tune, uint32_t ki,
                         int64_t k0, int64_t kj, const int64_t *s, prebuild_t *pb)
{
    if (kj < 0 || x->n_pre_key[ki] >= PRE_KEYS_MAX || !size_built(x, kern, tune, k0, kj))
        return 0;
    for (uint32_t q = 0; q < x->n_pre_key[ki]; q++)
        if (!size_built(x, kern, tune, x->pre_key[ki][q], kj))
            return 0;
    if (!rtm_calib_prebuild_entry(x, kern, s, tune, pb))
        return 0;
    x->pre_key[ki][x->n_pre_key[ki]++] = kj;
    return 1;
}

/* The largest work-group of a candidate built ahead: one of 1024 runs only where 512 did
 * (calibdev.c, dev_sweep), and on the H100 no kernel's 512 did (RTM_E_RANGE for all 8
 * that tried one in session 50's run d: the kernels' register use); where one does, the
 * sweep builds its 1024 itself. */
#define SWEEP_PRE_WG_MAX 512u

/* Kernel ki's sweep candidates at its sweep size into pb (room for max), when its sweep
 * will run (kbudget: its budget); how many. With `all` (a GPU's batch queued to its
 * build workers) every work-group size and the widths at the starting one (the sweep
 * then loads each from the cache: 1 ms on the H100 against a 0.17 s build, and each
 * build had cost it its budget); else the first candidate only, the others maybe cut by
 * the sweep's deadline (it builds them together itself, when it gets to them). */
static uint32_t prebuild_sweep(devcal_t *x, uint32_t ki, double kbudget, bool all, prebuild_t *pb,
                               uint32_t max)
{
    const rtm_kernel_t *kern = rtm_kernel_at(ki);
    rtm_tune_t tune;
    dpred_t p;
    int64_t size[RTM_SIZE_KEYS_MAX];
    const double *bp = x->bd->param;
    if (x->c->o->quick || !rtm_calib_kernel_start(x, ki, &tune, &p) ||
        !rtm_calib_sweep_size(x, kern, tune, &p, size) ||
        !rtm_calib_sweep_runs(x, kern, size, tune, &p, kbudget,
                              all ? bp[RTM_DEV_P_cache_load] : bp[RTM_DEV_P_build]))
        return 0;
    uint32_t n = 0;
    rtm_tune_t cand[SWEEP_CAND_MAX];
    for (int ph = 0; ph < (all ? 2 : 1); ph++) {
        const uint32_t nc = rtm_calib_sweep_cands(x, kern, ph, tune, cand);
        for (uint32_t j = 0; j < (all ? nc : nc > 0) && n < max; j++)
            if (j == 0 || cand[j].wg <= SWEEP_PRE_WG_MAX)
                n += rtm_calib_prebuild_entry(x, kern, size, cand[j], &pb[n]);
    }
    return n;
}

/* Kernel ki's `what` programs at `tune` into pb (room for max): its poll-period search's
 * (PRE_SEARCH; a GPU's loop-polling kernel: the build without in-loop polls and one per
 * period it may try, at the search's size) and its points' (PRE_POINTS, at the period the
 * record holds: the first target's size; on a host of PRE_LATER_CORES cores the later
 * targets' and the ladder's); how many. */
static uint32_t prebuild_points(devcal_t *x, uint32_t ki, rtm_tune_t tune, const dpred_t *p,
                                unsigned what, prebuild_t *pb, uint32_t max)
{
    cal_t *c = x->c;
    const rtm_kernel_t *kern = rtm_kernel_at(ki);
    const bool later_ok = rtm_calib_host_cores() >= PRE_LATER_CORES;
    uint32_t n = 0;
    int64_t size[RTM_SIZE_KEYS_MAX];
    rtm_kexec_opts_t pbase;
    double t_poll;
    uint32_t ks[RTM_PREEMPT_TUNE_MAX];
    const uint32_t nks = (what & PRE_SEARCH)
                             ? rtm_calib_poll_job(x, kern, tune, p, size, &pbase, &t_poll, ks)
                             : 0;
    for (uint32_t j = 0; nks > 0 && j <= nks && n < max; j++) {
        if (!rtm_calib_prebuild_entry(x, kern, size, tune, &pb[n]))
            break;
        const rtm_kexec_opts_t o = rtm_preempt_poll_candidate(&pbase, j < nks ? ks[j] : 0);
        rtm_build_job_set_opts(&pb[n++].j, &o);
    }
    if (!(what & PRE_POINTS))
        return n;
    dpred_t pt = *p;
    pt.total = true;
    const int64_t k0 = rtm_calib_size_for(kern, tune, c->targets[0], rtm_calib_dev_pred, &pt,
                                          &x->lim, 1, 0, NULL, 0, size);
    if (n < max && k0 >= 0)
        n += rtm_calib_prebuild_entry(x, kern, size, tune, &pb[n]);
    /* a program built with its size in the options: the later targets' sizes too (by
     * the same prediction; rtm_calib_kernel_points measures one of them when it is
     * near), on a host of PRE_LATER_CORES cores or more, where a few more parallel
     * builds cost little wall time (this 2-core VM: PoCL's 11 more builds took 7.3 s
     * more in parallel and saved 3.2 s of the 7.4 s compiled on the path) */
    const size_t nt = c->n_targets;
    /* rtm_calib_kernel_points' order; [0], the first, is k0 */
    size_t later[PRE_TARGETS_MAX + 1];
    const size_t nl = rtm_calib_target_order(nt, later, N_OF(later));
    x->n_pre_key[ki] = 0;
    for (uint32_t j = 1; later_ok && k0 >= 0 && j < nl && n < max; j++) {
        int64_t s2[RTM_SIZE_KEYS_MAX];
        /* the last target at least 1.5x the first size, as rtm_calib_kernel_points
         * sizes it */
        const int64_t kmin = later[j] == nt - 1 ? k0 + (k0 + 1) / 2 : 0;
        const int64_t kj = rtm_calib_size_for(kern, tune, c->targets[later[j]],
                                              rtm_calib_dev_pred, &pt, &x->lim, 1, kmin, NULL, 0,
                                              s2);
        n += pre_size(x, kern, tune, ki, k0, kj, s2, &pb[n]);
    }
    const double bottom = c->targets[0] / LADDER_SPAN, top = c->targets[nt - 1] * LADDER_SPAN;
    for (uint32_t step = 0; x->ladder && later_ok && k0 >= 0 && n < max &&
                            bottom * pow(LADDER_STEP, step) <= top;
         step++) {
        const double t = bottom * pow(LADDER_STEP, step);
        int64_t s2[RTM_SIZE_KEYS_MAX];
        const int64_t kj = rtm_calib_size_for(kern, tune, t, rtm_calib_dev_pred, &pt, &x->lim, 1,
                                              0, NULL, 0, s2);
        n += pre_size(x, kern, tune, ki, k0, kj, s2, &pb[n]);
    }
    return n;
}

/* rtm_calib_dev_prebuild_all's list: pb (room for max) gets the programs; returns how
 * many. Every kernel's sweep candidates first, then the points' programs at the starting
 * tunings. A GPU's batch queued to its build workers leaves out the points of a kernel
 * whose sweep runs (KSWEEP_FIRST): its sweep comes in a first pass over the catalogue,
 * and its points' programs are queued at the tuning it chose (rtm_calib_dev_queue_points)
 * — built at the starting one they were lost where the sweep changed it, and rebuilt on
 * the path (the H100: trajectory, cpa_tcpa, manoeuvre, last_chance 128 -> 256, cpa_pairs
 * 128 -> 64; 0.3-1.8 s each, session 50). */
static uint32_t prebuild_list(devcal_t *x, const rtm_kernel_t *skip, prebuild_t *pb,
                              uint32_t max)
{
    cal_t *c = x->c;
    uint32_t n = 0;
    /* the kernels' budgets after this prebuild (one build c per kernel on a device that
     * builds one at a time: PoCL's LLVM work is serialised): a sweep they will not run
     * gets no build here */
    const uint32_t nk = cal_kernels_wanted(c);
    /* a GPU's batch is queued to its build workers (queue_catalogue) */
    const bool all = rtm_calib_host_cores() >= PRE_LATER_CORES && gpu_procs(x);
    const double pre_est = nk * 2 * x->bd->param[RTM_DEV_P_build] /
                           (rtm_calib_cpu_dev(x) ? 1.0 : rtm_calib_host_cores());
    const double kbudget =
        fmin(fmax((c->deadline - rtm_calib_now() - pre_est) / (nk ? nk : 1), KERNEL_MIN_S),
             KERNEL_MAX_S);
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t ki = 0; ki < rtm_kernel_count(); ki++) {
            const rtm_kernel_t *kern = rtm_kernel_at(ki);
            if (kern == skip || !rtm_calib_wanted(c->o->kernels, kern->name))
                continue;
            if (pass == 0) {
                const uint32_t ns = prebuild_sweep(x, ki, kbudget, all, &pb[n], max - n);
                x->sweep[ki] = all && ns > 0 ? KSWEEP_FIRST : KSWEEP_INLINE;
                n += ns;
            } else if (x->sweep[ki] != KSWEEP_FIRST) {
                rtm_tune_t tune;
                dpred_t p;
                (void)rtm_calib_kernel_start(x, ki, &tune, &p);
                n += prebuild_points(x, ki, tune, &p, PRE_SEARCH | PRE_POINTS, &pb[n], max - n);
            }
        }
    }
    return n;
}

void rtm_calib_dev_queue_points(devcal_t *x, uint32_t ki, rtm_tune_t tune, const dpred_t *p,
                                unsigned what)
{
    if (!x->queued || !rtm_builder_up(&x->bld) || x->n_queued >= x->queued_cap)
        return;
    prebuild_t *pb = &x->queued[x->n_queued];
    uint32_t n =
        uncached(pb, prebuild_points(x, ki, tune, p, what, pb, x->queued_cap - x->n_queued));
    const rtm_build_job_t *jobs[64];
    if (n > N_OF(jobs))
        n = N_OF(jobs);
    for (uint32_t i = 0; i < n; i++)
        jobs[i] = &pb[i].j;
    n = rtm_builder_send(&x->bld, jobs, n);
    x->n_queued += n;
    x->n_pre += n;
}

/* A GPU's catalogue batch (pb[0..*np), planned by prebuild_list) queued to its build
 * workers without waiting for it, kept in x->queued: the kernels' measurements are the
 * device's clocks, so the first kernels are measured while the later ones' programs
 * build, each kernel waiting for its own (rtm_calib_dev_kernel_ready; the H100: the
 * whole batch had been waited for first, 2.9-4.3 s). Once the workers are up, *np
 * becomes the count the cache lacks, pb compacted to them. False, and nothing queued, on
 * a CPU-type device (its measurements are the host's cores), when the programs are
 * cached or too few to start workers for, or when the workers cannot take them: the
 * caller builds them as before. */
static bool queue_catalogue(devcal_t *x, prebuild_t *pb, uint32_t *np, uint32_t cap)
{
    if (!gpu_procs(x) || x->n_queued > 0)
        return false;
    uint32_t n = 0;
    for (uint32_t i = 0; i < *np; i++)
        n += !prebuild_cached(&pb[i]);
    if (n < 2 || n > RTM_BUILDER_QUEUE)
        return false;
    workers_up(x, UINT32_MAX, false);
    if (!rtm_builder_up(&x->bld))
        return false;
    n = *np = uncached(pb, *np); /* the caller's list is pb[0..*np) from here */
    const rtm_build_job_t *jobs[RTM_BUILDER_QUEUE];
    for (uint32_t i = 0; i < n; i++)
        jobs[i] = &pb[i].j;
    const uint32_t sent = rtm_builder_send(&x->bld, jobs, n);
    if (sent < n) /* broken: the caller builds what the cache lacks */
        return false;
    x->queued = pb;
    x->n_queued = n;
    x->queued_cap = cap;
    x->n_pre += n;
    return true;
}

bool rtm_calib_dev_kernel_built(devcal_t *x, const rtm_kernel_t *kern, bool all)
{
    if (x->n_queued == 0 || x->bld.pending == 0 || !rtm_builder_up(&x->bld))
        return true; /* a failed build's program stays missing: the kernel compiles it */
    bool ready = !all;
    for (uint32_t i = 0; i < x->n_queued && ready; i++)
        ready = x->queued[i].j.k.kernel != kern || prebuild_cached(&x->queued[i]);
    return ready;
}

void rtm_calib_dev_builds_poll(devcal_t *x)
{
    const double t0 = rtm_calib_now();
    if (x->bld.pending > 0 && rtm_builder_up(&x->bld))
        (void)rtm_builder_poll(&x->bld, READY_POLL_MS); /* an acknowledgement wakes it */
    const double w = rtm_calib_now() - t0;
    x->queued_wait_s += w;
    x->pre_s += w;
}

void rtm_calib_dev_kernel_ready(devcal_t *x, const rtm_kernel_t *kern, bool all)
{
    while (!rtm_calib_dev_kernel_built(x, kern, all))
        rtm_calib_dev_builds_poll(x);
}

/* With `send`: rtm_calib_dev_prebuild_all's programs that the cache lacks handed to the
 * device's build workers, started under SCHED_IDLE, without waiting (a CPU-type device's,
 * before the GPUs are measured: they build in the background of the GPUs' measurements,
 * which leave the host's cores idle); rtm_calib_dev_prebuild_all collects them. Without:
 * the programs built now, together (what the workers built in the background is in the
 * cache). */
void rtm_calib_dev_prebuild_all(devcal_t *x, const rtm_kernel_t *skip, bool send)
{
    cal_t *c = x->c;
    if (!x->cache || !rtm_calib_prebuild_on())
        return;
    /* per kernel: sweep candidates (two phases), the first size, the later sizes, and a
     * loop-polling kernel's search (its build without polls and each period) */
    const uint32_t max =
        rtm_kernel_count() * (2 + 2 * SWEEP_CAND_MAX + PRE_KEYS_MAX + RTM_PREEMPT_TUNE_MAX);
    /* twice: room after a queued batch for the points queued after the sweeps */
    prebuild_t *pb = calloc(max ? 2 * max : 1, sizeof(*pb));
    if (!pb)
        return;
    uint32_t n = prebuild_list(x, skip, pb, max);
    if (send) {
        n = uncached(pb, n);
        if (n > 0 && pre_mode() == PRE_PROCS && !x->bld.broken) {
            workers_up(x, n, true);
            const rtm_build_job_t *jobs[RTM_BUILDER_QUEUE];
            uint32_t m = 0;
            for (; m < n && m < N_OF(jobs); m++)
                jobs[m] = &pb[m].j;
            x->bg_sent = rtm_builder_send(&x->bld, jobs, m);
            x->bg_t0 = rtm_calib_now();
            x->bg_cpu0 = rtm_builder_cpu_s(&x->bld);
            cal_note(c, "%s: %u programs (first sizes, size ladders) handed to %u build workers "
                        "under SCHED_IDLE, to build while the GPUs are measured",
                     x->bd->name, x->bg_sent, x->pre_procs);
        }
        free(pb);
        return;
    }
    if (x->bg_sent > 0) {
        /* the background batch: what it still builds is waited for here */
        const double tw = rtm_calib_now();
        const double cpu = rtm_builder_cpu_s(&x->bld) - x->bg_cpu0;
        const uint32_t built = rtm_builder_wait(&x->bld);
        const double wait_s = rtm_calib_now() - tw;
        x->pre_s += wait_s;
        x->n_pre += x->bg_sent;
        cal_note(c, "%s: background builds: %u of %u built by %u workers (%u failed) in %.2fs "
                    "before this section, %.1f CPU s; %.2fs waited for here",
                 x->bd->name, built, x->bg_sent, x->pre_procs, x->bld.failed, tw - x->bg_t0, cpu,
                 wait_s);
        x->bg_sent = 0;
    }
    const double t0 = rtm_calib_now();
    const uint32_t pre0 = x->n_pre;
    if (queue_catalogue(x, pb, &n, 2 * max)) {
        x->pre_s += rtm_calib_now() - t0;
        cal_note(c, "%s: prebuild: %u programs not in the cache (sweep candidates, first sizes, "
                    "poll searches) queued to %u build workers, each kernel waiting for its own",
                 x->bd->name, x->n_queued, x->pre_procs);
        return; /* pb is x->queued now */
    }
    rtm_calib_prebuild_many(x, pb, n);
    const double pre_s = rtm_calib_now() - t0;
    uint32_t cached = 0;
    for (uint32_t i = 0; i < n; i++)
        cached += prebuild_cached(&pb[i]);
    cal_note(c, "%s: prebuild: %u programs (sweep candidates, first sizes), %u not in the cache "
                "built in parallel in %.2fs, %u worker processes (%u failed; the first job done "
                "%.2fs after their start); %u of %u in the cache after",
             x->bd->name, n, x->n_pre - pre0, pre_s, x->pre_procs, x->bld.failed,
             x->bld.first_ack_s, cached, n);
    free(pb);
}

/* ---- prebuild worker ---------------------------------------------------------------- */

/* A CPU device's compiler works lazily as well: PoCL compiles a program's work-group
 * function for each local size at the first launch that uses it (into its own cache,
 * POCL_CACHE_DIR, which the processes of a user share). A worker launches the instance
 * it built once as calibration will, with the flag raised (every group leaves at its
 * entry check): on the development machine, fresh caches, `calibrate --quick --no-cpu`
 * spent 16.6 s in PoCL runs against 8.6 s once its cache held them. */
static rtm_status_t prewarm_one(rtm_ocl_dev_t *d, const rtm_build_job_t *j, const char *cache_dir)
{
    rtm_calib_inst_t in;
    rtm_status_t st = rtm_calib_inst_make(&in, j->k.kernel, j->k.size, j->k.tune, 1);
    rtm_kexec_t ex;
    const rtm_kexec_opts_t o = rtm_build_job_opts(j, cache_dir);
    if (st == RTM_OK)
        st = rtm_kexec_create_ex(&ex, d, &in.k, &o);
    if (st == RTM_OK) {
        st = rtm_kexec_warm(&ex);
        rtm_kexec_destroy(&ex);
    }
    rtm_calib_inst_free(&in);
    return st;
}

/* What a worker does with one job: the build, and on a CPU device the warm-up launch. */
typedef struct {
    rtm_ocl_dev_t *d;
    const char *cache;
    int device;
} worker_ctx_t;

static bool worker_build(void *ctx, rtm_build_job_t *j)
{
    const worker_ctx_t *w = ctx;
    prebuild_t pb = {w->d, *j, w->cache};
    rtm_status_t st = prebuild_one(&pb);
    if (st == RTM_OK && (w->d->info.type & CL_DEVICE_TYPE_CPU))
        st = prewarm_one(w->d, j, w->cache);
    /* NVIDIA's binary is PTX, which the driver compiles again at each load (ptxas: 0.1-0.16 s
     * for the navigation kernels) unless its JIT cache (~/.nv/ComputeCache, the user's
     * processes' own) holds the machine code, and a build from source leaves none there:
     * the worker loads what it built once, as calibration and rtmgr run will (H100, cold
     * gpu0 calibrations: 136-139 loads 3.3-3.6 s, 137-148 with this 0.6-0.8 s) */
    if (st == RTM_OK && rtm_ocl_nv_gpu(&w->d->info))
        st = prebuild_one(&pb);
    if (st != RTM_OK)
        fprintf(stderr, "rtmgr: calibrate: prebuild worker (device %d): %s: %s\n", w->device,
                j->k.kernel->name, rtm_strerror(st));
    return st == RTM_OK;
}

static const char *env_or_unset(const char *name)
{
    const char *v = getenv(name);
    return v ? v : "(unset)";
}

rtm_status_t rtm_calib_prebuild_worker(int device, const char *cache_dir, int in_fd, int ack_fd,
                                       bool idle)
{
    if (device < 0 || !cache_dir || !*cache_dir || in_fd < 0)
        return RTM_E_ARG;
    if (idle) /* before the device is opened: its driver's threads inherit it */
        (void)rtm_os_sched_idle();
    /* the descriptors calibration's process had open when it spawned this one, its GPU
     * drivers' device files among them: this process opens its own (those past the
     * acknowledgements' descriptor and the urgent requests' after it: the builder passes
     * 3 and 4) */
    const int urgent_fd = ack_fd > 2 && fcntl(ack_fd + 1, F_GETFD) != -1 ? ack_fd + 1 : -1;
    const int inherited = rtm_os_close_inherited(ack_fd > 2 ? ack_fd + 2 : 3);
    rtm_ocl_info_t infos[RTM_MAX_DEVICES];
    uint32_t n = 0;
    rtm_status_t st = rtm_ocl_discover(infos, RTM_MAX_DEVICES, &n);
    if (st != RTM_OK)
        return st;
    if ((uint32_t)device >= n) {
        /* which devices and platforms this process saw, and what it inherited */
        char seen[512] = "";
        size_t used = 0;
        for (uint32_t i = 0; i < n && used < sizeof(seen); i++)
            used += (size_t)snprintf(seen + used, sizeof(seen) - used, "%s%s on %s",
                                     i ? ", " : ": ", infos[i].name, infos[i].platform_name);
        char proc[256];
        rtm_os_describe_process(proc, sizeof(proc));
        char plats[512];
        rtm_ocl_describe_platforms(plats, sizeof(plats));
        fprintf(stderr,
                "rtmgr: calibrate: prebuild worker: no device %d (%u found%s; %s; "
                "OCL_ICD_FILENAMES=%s, OCL_ICD_VENDORS=%s; %d inherited descriptors closed; "
                "%s)\n",
                device, n, seen, plats, env_or_unset("OCL_ICD_FILENAMES"),
                env_or_unset("OCL_ICD_VENDORS"), inherited, proc);
        return RTM_E_CL_NODEV;
    }
    rtm_ocl_dev_t d;
    st = rtm_ocl_open(&d, &infos[device]);
    if (st != RTM_OK) {
        fprintf(stderr, "rtmgr: calibrate: prebuild worker: device %d: %s\n", device,
                rtm_strerror(st));
        return st;
    }
    worker_ctx_t w = {&d, cache_dir, device};
    rtm_builder_serve(in_fd, urgent_fd, ack_fd, worker_build, &w);
    rtm_ocl_close(&d);
    return RTM_OK;
}
