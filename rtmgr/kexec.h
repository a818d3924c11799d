/* kexec.h — a kernel instance made executable on one OpenCL device: its program, its
 * device buffers, and the block-control state of kernels/rtm_block.h (abort flag,
 * completed-block array, block map, optional completion counters).
 *
 * Created at start-up (allocates device memory, builds the program); afterwards the
 * enqueue functions allocate nothing and build nothing. Host buffers are the
 * instance's own (k->host).
 *
 * Completed-block array: one byte per block, one slice of `done_stride` bytes per launch
 * (launch l's blocks at l * done_stride), so a multi-launch job keeps the record of every
 * launch and a resumed job knows the launch it reached. Cleared by write_inputs. */
#ifndef RTM_KEXEC_H
#define RTM_KEXEC_H

#include <stdbool.h>

#include "abortflag.h"
#include "kernel.h"
#include "ocl.h"
#include "program.h"

/* Standard kernel arguments before the kernel's own (RTM_BLOCK_ARGS). */
#define RTM_KEXEC_STD_ARGS 9
/* The watcher's raise word in the end mark's buffer (= RTM_WATCH_WORD of rtm_block.h) */
#define RTM_KEXEC_WATCH_WORD 32
/* In-loop poll period (RTM_POLL_EVERY) when neither options nor calibration give one. */
#define RTM_KEXEC_POLL_DEFAULT 256
/* Auto read_late: larger outputs of a job on a GPU are read after its last kernel when
 * they go to pageable host memory (rtm_kexec_default_read_late). */
#define RTM_KEXEC_EAGER_READ_MAX (1u << 20)

/* rtm_kexec_opts_t.groups: one work-group per block (no persistent groups). */
#define RTM_KEXEC_GROUPS_ALL 0xFFFFFFFFu

/* What the kernels are built with (seed 002's variants, for benchmarks). */
typedef enum {
    RTM_KEXEC_FULL = 0,     /* entry check, completed-block array, in-loop polls */
    RTM_KEXEC_ORIGINAL = 1, /* RTM_NO_ABORT: the kernel as if rtm_block.h added nothing */
    RTM_KEXEC_CHECK = 2,    /* RTM_NO_DONE: entry check only (not resumable) */
    RTM_KEXEC_FEEDBACK = 3, /* entry check + completed-block array, no in-loop polls */
    RTM_KEXEC_WG_CHECK = 4, /* RTM_WG_CHECK: the work-group entry check alone (one flag
                             * load per group through local memory; not resumable) */
} rtm_kexec_variant_t;

/* Auto persistent groups (opts.groups 0 on GPUs) only for grids of this many blocks or
 * more: a plain grid drains the blocks an abort finds not yet started through their
 * entry checks (about 1 ns per block on a large GPU, seed 002), so below this many blocks
 * it answers within the response target without the persistent loop's cost. */
#define RTM_KEXEC_PERSIST_MIN_BLOCKS 16384u

/* The write flag's raise path when the options do not set one: armed (the transfer is
 * enqueued when the flag is cleared and released by a user event). On the H100 its raise
 * call takes 1-2 us against 11-38 us for the paper's enqueue + flush, and the abort
 * response p99 over the six grid x length shapes of bench preempt --quick was 27-41 us
 * against 24-97 us (board/h100/results/preempt-raise-h100.txt). */
#define RTM_KEXEC_RAISE_DEFAULT RTM_RAISE_ARMED

typedef struct {
    rtm_kexec_variant_t variant;
    rtm_abort_transport_t transport;
    bool transport_set;   /* false: rtm_abortflag_default() for the device */
    const char *cache_dir; /* program binary cache (NULL = none; rtm_program_build_cached) */
    uint32_t poll_every;  /* RTM_POLL_EVERY; 0 = RTM_KEXEC_POLL_DEFAULT; see no_poll */
    bool no_poll;         /* RTM_POLL_EVERY=0 */
    uint32_t poll_lanes;  /* RTM_POLL_LANES; 0 = auto (1: every work-item loads; a warp's
                           * loads of one word are one request, and a lane-gated load
                           * ends in a select that waits for the load at once) */
    uint32_t groups;      /* work-groups per launch; 0 = auto: on GPUs persistent groups,
                           * as many as the device holds (units * 2048 / wg), on CPU
                           * devices one per block; RTM_KEXEC_GROUPS_ALL = one per block */
    bool static_fetch;    /* persistent groups take blocks g, g+G, … (RTM_PERSIST=1)
                           * instead of fetching them in order (RTM_PERSIST=2) */
    bool fetch_store;     /* RTM_PERSIST=2 with RTM_HIDE_LATENCY: work-item 0 stores the
                           * group's next block in local memory when a block starts
                           * (RTM_FETCH_STORE=1) instead of holding it in a register to the
                           * block's end: for long blocks (rtm_preempt_grid_for_block) */
    bool count_blocks;    /* RTM_COUNT_BLOCKS=1 and a counter buffer */
    int hide_latency;     /* RTM_HIDE_LATENCY: 0 auto (GPUs yes, CPU devices no), 1, -1 */
    uint32_t persist_min_blocks; /* auto groups: persistent only for launches of this
                                  * many blocks or more (0 = RTM_KEXEC_PERSIST_MIN_BLOCKS;
                                  * 1 = always) */
    uint32_t flag_copies; /* copies of the abort flag (RTM_FLAG_COPIES; abortflag.h);
                           * 0 = rtm_kexec_default_copies. More than one: raise the flag
                           * only through rtm_abortflag_* (a 4-byte write to abort_flag
                           * reaches copy 0 alone) */
    uint32_t persist_groups; /* auto persistent groups per launch; 0 = units * 2048 / wg
                              * (every slot: a flag transfer the driver runs as a kernel
                              * would then wait for the end; the benchmark probes it) */
    rtm_abort_raise_t raise_mode; /* WRITE transport: how the flag is raised (abortflag.h) */
    bool raise_set;       /* false: RTM_KEXEC_RAISE_DEFAULT (raise_mode ignored) */
    int read_late;        /* outputs of a preemptible job (rtmgr/preempt.c): 1 = enqueued
                           * only once its last kernel has ended, -1 = enqueued behind the
                           * kernels when the last launch is enqueued, 2 = enqueued then on
                           * the device's side queue behind the last kernel's event
                           * (read_beside), 0 = auto (rtm_kexec_default_read_late,
                           * rtm_kexec_default_read_beside) */
    bool host_pinned;     /* the instance's host buffers are pinned host memory (the
                           * manager's per-device regions, pinned.h): for auto reads */
    bool preemptible;     /* its jobs may be aborted to make way (the task's `preemptible`):
                           * for auto read_beside */
    bool never_aborted;   /* its jobs are never aborted (a task neither preemptible nor
                           * firm): an armed raise (RTM_RAISE_ARMED) holds no write per run
                           * (a user event, a write and a flush: 35 us of the H100's host
                           * time a job), a raise should one come goes as RTM_RAISE_PINNED */
    int wait_end;         /* how an abort waits for the kernels' end (rtmgr/preempt.c):
                           * 1 = clWaitForEvents, -1 = polls the event's status, 0 = auto
                           * (polling; CPU devices yield between polls) */
    uint32_t chunk;       /* blocks per chunk (see "Chunks" below); 0 = whole launches.
                           * Rounded up to the map's sub-buffer alignment; acts on GPUs
                           * (and on CPU devices with chunk_cpu) for one-launch kernels of
                           * full or feedback builds with more blocks than one chunk, on a
                           * plain grid (persistent groups off) */
    bool chunk_cpu;       /* chunks on a CPU device too (tests, benchmarks) */
    const char *cl_extra; /* more build options, appended (benchmarks: rtm_block.h's
                           * experiment switches such as -DRTM_POLL_NOLOAD=1); NULL = none */
} rtm_kexec_opts_t;

/* Chunks: a launch run as plain launches of `chunk` blocks each, alternating over the
 * device's exec and exec2 queues, each chunk's blocks through a sub-buffer of the block
 * map (the identity for a whole launch, the resumed blocks' list for a resume), its
 * queue's own leave counter and end mark. Chunk j + 2 is released by the host once
 * chunk j has ended (rtm_kexec_chunks_advance), so an abort finds at most two chunks'
 * blocks left to start and drain, where a plain grid of 62 500 blocks drained for
 * 39-52 us (p99) and persistent groups, which drain in 5 us, cost matrix_mul 6.5-8.2 %
 * in its polled block loop. On the H100, matrix_mul at n = 4000 in chunks of 4 096 on
 * two queues cost -1.0 to -0.1 % against the original with a drain p99 of 7.5 us; on one
 * queue each chunk's last wave idles the SMs (+4.5-12.6 %), all chunks released at once
 * drain like a plain grid (41-61 us), and releases from the driver's event callback came
 * milliseconds late (+66-298 %) (board/h100/diag/chunks.c, session 63). Built into
 * kexec (session 64), the same shape measured +8.0 to +11.4 %, but from back-to-back
 * runs the H100's power cap slowed; with the device idle before each run it cost -0.3 %
 * against persistent groups' +5.5 % (session 65), and production asks for chunks
 * (preempt.h RTM_PREEMPT_CHUNK_MIN_S, rtm_preempt_grid_opts). Chunks get a watcher
 * each (group 0) where the run asked for one (rtm_kexec_set_watch): abort response p99
 * 15.3 us for matrix_mul at n = 4000 against 18.9 us on persistent groups. */
#define RTM_KEXEC_CHUNK_BLOCKS 4096u

/* The chunked run in progress on a kexec (one run at a time: its job owns the
 * instance). Chunk j runs blocks [j * chunk, min(nblk, (j + 1) * chunk)) of the run on
 * queue j % 2 (exec, exec2); at most chunks `ended` and `ended + 1` are in flight, each
 * the latest of its queue. */
typedef struct {
    uint32_t n;        /* chunks of the run (0: no chunked run) */
    uint32_t nblk;     /* blocks of the run */
    uint32_t rel;      /* chunks released */
    uint32_t ended;    /* chunks seen ended (in order) */
    bool mapped;       /* through the resume map's sub-buffers, else the identity's */
    bool busy[2];      /* a chunk of the run went on queue q */
    cl_event gate;     /* the run's last command before its chunks (inputs, clears, map):
                        * exec2's first chunk waits for it */
    cl_event ev[2];    /* each queue's latest chunk */
    cl_event first;    /* the run's first chunk */
} rtm_kexec_chunks_t;

typedef struct {
    double in_s;     /* host -> device transfers, event-profiled */
    double kernel_s; /* first kernel start to last kernel end, event-profiled */
    double out_s;    /* device -> host transfers, event-profiled */
    double wall_s;   /* host monotonic clock around the whole job */
    double span_s;   /* first command's START to last command's END, event-profiled: the
                      * job on the device, with the idle gaps between its phases (the
                      * model-error log's measured time; 0 when not profiled) */
    double gap_kernel_s; /* device idle from the last clear or input's END to the first
                          * kernel's START, event-profiled (0 without a clear or input) */
    double gap_out_s;    /* device idle from the last kernel's END to the first output's
                          * START, event-profiled (0 without outputs) */
} rtm_kexec_timing_t;

/* The arguments last set on one entry point's cl_kernel (the kexec's own): a launch
 * sets only those that changed. The block-control buffers and the flag never change;
 * each launch's done offset does, and a multi-launch kernel's own arguments may
 * (grid_path's ping-pong, sort's pass). */
typedef struct {
    bool valid;            /* every argument below is set on the kernel */
    cl_mem map, next, end; /* arguments 2, 7, 8 (a chunk's differ by queue and chunk) */
    cl_uint mapped, nblk, doff;
    uint32_t n;            /* kernel-specific arguments in arg[] */
    rtm_karg_t arg[RTM_KARG_MAX];
} rtm_kexec_args_t;

typedef struct {
    rtm_ocl_dev_t *dev;
    const rtm_kinst_t *k;
    rtm_kexec_opts_t opts; /* as resolved at creation (auto values filled in) */
    rtm_program_t prog;
    cl_mem buf[RTM_KBUF_MAX];
    rtm_abortflag_t flag;
    cl_mem abort_flag;     /* = flag.mem (NULL when the flag is an SVM pointer) */
    cl_mem ctl;            /* the block control in one buffer, `done`, `next` and `count`
                            * sub-buffers of it, so that a run's clears are one fill */
    size_t ctl_bytes;      /* its size, a multiple of 4 */
    cl_mem done;           /* uchar[launches * done_stride]: 1 = block completed */
    cl_mem map;            /* uint[plan.blocks_max]: block ids of a resumed launch */
    cl_mem count;          /* uint[launches * done_stride] when opts.count_blocks */
    cl_mem next;           /* uint[1 + launches * done_stride / 64]: [0] groups of the
                            * running launch that have left, then the block fetch
                            * counters (zeroed at creation) */
    cl_mem end;            /* the end mark (rtm_block.h rtm_end), or NULL: host memory
                            * the device writes directly (rtm_kexec_end_mark) */
    volatile cl_uint *end_host; /* the mark's host view; NULL without an end mark */
    bool watch;            /* launches get a watcher where they can (rtm_kexec_set_watch) */
    unsigned char *fetch_dirty; /* [launches]: enqueued since the last clear (its fetch
                                 * counter is reset before it is enqueued again) */
    uint32_t done_stride;  /* bytes per launch in `done` (blocks_max rounded up to 64) */
    uint32_t launches;     /* k->plan.launches */
    bool persist;          /* built with RTM_PERSIST=1 */
    bool read_late;        /* opts.read_late resolved */
    bool read_beside;      /* opts.read_late resolved: outputs on dev->side */
    rtm_kexec_args_t args_set[RTM_KENTRY_MAX]; /* per entry point (rtm_kexec_enqueue) */
    uint32_t chunk;        /* blocks per chunk (opts.chunk where it acts), 0: none */
    uint32_t chunks_max;   /* chunks of blocks_max */
    cl_mem ident;          /* uint[blocks_max]: 0, 1, 2, …, the map of a whole launch */
    cl_mem *ck_map;        /* [2 * chunks_max]: sub-buffers of ident, then of map */
    cl_mem next2;          /* exec2's leave counter (a word of ctl) */
    cl_mem end2;           /* exec2's end mark, or NULL (as `end`) */
    volatile cl_uint *end2_host;
    rtm_kexec_chunks_t ck; /* the chunked run in progress */
} rtm_kexec_t;

/* The end mark: a word in host memory that the last work-group of every launch sets to
 * (its done offset + 1) as it leaves, so the host sees a kernel's end a PCIe write after
 * it instead of when the driver's event says so (on the H100 3.4-4.4 us later,
 * board/h100/results/endmark-s26-h100.txt). Where the device can write host memory
 * directly: NVIDIA's cl_nv_create_buffer (CL_MEM_LOCATION_HOST_NV); elsewhere none
 * (CPU devices: see kexec.c end_mark_call). Only full and feedback builds write it.
 * rtm_kexec_end_seen: has the launch `launch` ended (false without a mark)? */
bool rtm_kexec_end_mark(const rtm_kexec_t *x);

/* The watcher (kernels/rtm_block.h): a launch with one work-group more, group 0, that
 * reads the host's raise word (abortflag.h `watch`, a word of the end mark's buffer)
 * every 2 us and raises the device flag from inside the GPU, so that an abort no longer
 * waits for the flag's transfer (on the H100 it started 50-80 us after the raise while a
 * long kernel ran; the watcher's response p99 was 5-40 us: docs/preempt.md). It costs a
 * group's slot and 1-2 us at the kernel's end (0.2-0.4 % of a 0.5 ms kernel), so the
 * caller asks for it per run, for kernels of RTM_KEXEC_WATCH_MIN_S or more (1 ms until
 * session 39; on 65 536 spin blocks of 15 us, a 0.92 ms kernel whose in-loop polls never
 * saw a transferred flag sooner than its blocks' ends, response p99 was 58.9 us without
 * it, against 28-32 us for the 1.2-2.5 ms kernels that had it); a launch takes it where
 * the instance has an end mark and a WRITE flag, and where the extra group does not open a wave of its own (a
 * plain grid of a multiple of the device's units * 2048 / wg work-groups). */
#define RTM_KEXEC_WATCH_MIN_S 0.5e-3
void rtm_kexec_set_watch(rtm_kexec_t *x, bool on);
/* Is a kernel of about kernel_s seconds long enough to be worth the watcher (at least
 * RTM_KEXEC_WATCH_MIN_S)? The executive's, calibration's and the benchmark's rule. Safe
 * anywhere. */
bool rtm_kexec_watch_worth(double kernel_s);
/* Would launch `launch` of nblk blocks have a watcher now? */
bool rtm_kexec_watched(const rtm_kexec_t *x, uint32_t nblk);
bool rtm_kexec_end_seen(const rtm_kexec_t *x, uint32_t launch);

/* A run of x starts (its first launch or a resume): the abort flag cleared and the end
 * mark with it (a host store; no kernel of x may be running). The block-control clears
 * (rtm_kexec_clear, rtm_kexec_write_inputs) call it. */
rtm_status_t rtm_kexec_arm(rtm_kexec_t *x);

/* Abort-flag copies on GPUs unless opts.flag_copies says: one per 128-byte line for 32
 * lines (group g reads copy g % 32), so that the in-loop polls of every work-item and the
 * entry checks of thousands of groups do not queue at the one memory slice that holds a
 * single flag word. On the H100 at n = 4000, one copy against 32: +poll 48.6 / 40.6 /
 * 34.8 % against 9.1 / -8.3 / 1.3 % on matrix_mov / matrix_loop_add / matrix_mul
 * (session 15; board/h100/results/preempt-copies-s15-h100.txt). */
#define RTM_KEXEC_FLAG_COPIES_GPU 32u

/* The flag copies kernel's jobs read when opts.flag_copies is 0: 1 on CPU devices (the
 * flag is host memory the cores cache) and for RTM_KF_ONE_FLAG kernels,
 * RTM_KEXEC_FLAG_COPIES_GPU elsewhere (kernel NULL: any kernel without the flag). */
uint32_t rtm_kexec_default_copies(const rtm_ocl_info_t *info, const rtm_kernel_t *kernel);

/* Auto output reads of a job on a GPU with more than RTM_KEXEC_EAGER_READ_MAX bytes of
 * outputs. Late (enqueued once its last kernel has ended) when they go into pageable
 * host memory: a driver may block the enqueue of a large read there until the copy is
 * done, i.e. past the kernel's end, and the start call would return after the job ran.
 * Beside (enqueued at once on the device's side queue, behind the last kernel's event)
 * for a preemptible job into pinned memory: queued behind its kernels on exec, an abort
 * would wait for them (311 us against 112 us per preemption on the H100, session 16),
 * and so would the job begun behind the raise; read late instead, each job waited for
 * the host's notice of its kernel's end (60 us to 10 ms on the H100, session 16).
 * Otherwise the reads follow the kernels on exec. */
bool rtm_kexec_default_read_late(const rtm_ocl_info_t *info, size_t out_bytes, bool host_pinned);
bool rtm_kexec_default_read_beside(const rtm_ocl_info_t *info, size_t out_bytes, bool host_pinned,
                                   bool preemptible);

/* Builds k's program on d and creates every device buffer with the default options
 * (full variant, auto groups) and the paper's flag transport (RTM_ABORT_WRITE:
 * x->abort_flag is a device buffer, as in the first kexec). k must be planned and
 * bound. Init only. */
rtm_status_t rtm_kexec_create(rtm_kexec_t *x, rtm_ocl_dev_t *d, const rtm_kinst_t *k);
/* rtm_kexec_create() through the program binary cache in `cache_dir` (NULL = none; see
 * rtm_program_build_cached). x->prog.from_cache / build_s tell what happened. Init only. */
/* The options rtm_kexec_create_cached builds with: calibration's and validation's jobs,
 * the build the model's per-kernel parameters are fitted on (the default in-loop poll
 * period RTM_KEXEC_POLL_DEFAULT, auto groups, RTM_ABORT_WRITE). Safe anywhere. */
rtm_kexec_opts_t rtm_kexec_calib_opts(const char *cache_dir);
rtm_status_t rtm_kexec_create_cached(rtm_kexec_t *x, rtm_ocl_dev_t *d, const rtm_kinst_t *k,
                                     const char *cache_dir);
/* Same with explicit options; NULL, or transport_set false, means the device's default
 * transport (rtm_abortflag_default: mapped on CPU devices). Init only. */
rtm_status_t rtm_kexec_create_ex(rtm_kexec_t *x, rtm_ocl_dev_t *d, const rtm_kinst_t *k,
                                 const rtm_kexec_opts_t *opts);
/* Builds (or finds) the program rtm_kexec_create_ex(x, d, k, opts) would build, into
 * the binary cache opts->cache_dir (required), and releases it: a later create loads it
 * from the cache. Creates no buffers and enqueues nothing, so calls for different
 * instances may run in parallel threads (calibration builds its sweep candidates so).
 * Init only. */
rtm_status_t rtm_kexec_prebuild(rtm_ocl_dev_t *d, const rtm_kinst_t *k,
                                const rtm_kexec_opts_t *opts);
/* True when the program rtm_kexec_prebuild(d, k, opts) would build is already in the
 * binary cache opts->cache_dir (rtm_program_cached). Builds nothing. Init only. */
bool rtm_kexec_cached(rtm_ocl_dev_t *d, const rtm_kinst_t *k, const rtm_kexec_opts_t *opts);

/* The whole build-option text of the program a kexec of k with `opts` runs on d: the
 * kernel's own options (its sizes, where they are build options) and the block-control
 * ones resolved as rtm_kexec_create_ex resolves them (persistent groups on a GPU from
 * RTM_KEXEC_PERSIST_MIN_BLOCKS blocks: one kernel, two programs by size). Two instances
 * run one program exactly when their texts are equal. */
void rtm_kexec_program_options(rtm_ocl_dev_t *d, const rtm_kinst_t *k,
                               const rtm_kexec_opts_t *opts, char *out, size_t len);
/* Releases everything rtm_kexec_create made. Safe on a zeroed struct. */
void rtm_kexec_destroy(rtm_kexec_t *x);

/* Work-groups launch `launch` would use for `blocks` logical blocks. Safe anywhere. */
uint32_t rtm_kexec_groups(const rtm_kexec_t *x, uint32_t blocks);

/* Enqueues the clearing of the block control: abort flag, completed-block array (every
 * launch), fetch counters and completion counters. `first`/`last` get the first and last
 * commands' events (each may be NULL). Real-time safe. */
rtm_status_t rtm_kexec_clear(rtm_kexec_t *x, cl_event *first, cl_event *last);
/* rtm_kexec_clear, then the input transfers (RTM_BUF_IN / INOUT), where x's runs need
 * the clear (rtm_kexec_clears). Real-time safe. */
rtm_status_t rtm_kexec_write_inputs(rtm_kexec_t *x, cl_event *first, cl_event *last);
/* Does rtm_kexec_write_inputs clear x's block control before the inputs? Not for a job
 * nothing aborts (opts.never_aborted) on a plain grid in one piece without completion
 * counts and with inputs: nothing reads its completed-block array, its leave counter is
 * put back by each launch's last group, it has no fetch counters (the model then leaves
 * the clear out: rtm_model_job_t.no_clear). Safe anywhere. */
bool rtm_kexec_clears(const rtm_kexec_t *x);
/* rtm_kexec_clears for the instance options o would give k on a device of that type,
 * without one (rtmgr check): the same rules, with opts.chunk taken as given where
 * rtm_kexec_create rounds it up to the device's sub-buffer alignment (it decides only
 * whether chunks act when opts.chunk lies within that alignment of the blocks). Safe
 * anywhere. */
bool rtm_kexec_clears_planned(const rtm_kexec_opts_t *o, const rtm_kinst_t *k, bool cpu_device);
/* Enqueues launch `launch`; with nmap > 0 only the blocks listed in map_host run (the
 * map is written first, non-blocking: map_host must stay unchanged until the launch has
 * started), or with map_host NULL the launch's first nmap blocks, unmapped (a partial
 * job as calibration times one: the kernel's code path exactly as in the whole job).
 * A launch enqueued again since the last clear (a resume) gets its block-fetch counter
 * reset first. `ev` gets the kernel's event (may be NULL). Real-time safe. */
rtm_status_t rtm_kexec_enqueue(rtm_kexec_t *x, uint32_t launch, const uint32_t *map_host,
                               uint32_t nmap, cl_event *ev);
/* Enqueues every launch of the job (unmapped; with nmap > 0 each launch's first nmap
 * blocks, as rtm_kexec_enqueue), asking the driver for events only where the kernel span
 * needs them: `first` gets the first launch's that has blocks, `last` the last launch's
 * (a marker's when that launch has no blocks; NULL for a one-launch job). On the H100's
 * driver an event costs the host 6-8 us a launch, and the host's enqueueing paces the
 * device: grid_path's 128 launches took 20.7 us each with an event apiece, 12.6 us with
 * two (board/h100/results/probe-launch-s12a-h100.txt). A chunked x releases its chunks
 * as a job does (two ahead) and returns once the last is released, `last` a marker on
 * exec behind both queues (so that clFinish(exec) waits for the whole launch). Real-time
 * safe (a chunked x blocks, spinning on GPUs, while its chunks run). */
rtm_status_t rtm_kexec_enqueue_all(rtm_kexec_t *x, uint32_t nmap, cl_event *first, cl_event *last);
/* Chunks (see above). rtm_kexec_chunked: x runs its launches in chunks.
 * rtm_kexec_chunks_begin: a chunked run of launch 0 begins: with nmap > 0 the blocks
 * listed in map_host (written first, non-blocking, as rtm_kexec_enqueue), with map_host
 * NULL the launch's first nmap blocks, with nmap 0 the whole launch; `gate` (may be NULL,
 * retained) is the run's last command on exec before its chunks. Releases chunks 0 and
 * 1. rtm_kexec_chunks_advance: notes the chunks that have ended (end marks where x has
 * them, else events) and, with `release`, releases chunks up to two past the first still
 * running; *all (may be NULL) = every chunk released. rtm_kexec_chunks_done: every
 * released chunk has ended (1), not yet (0), an error (< 0, *st set).
 * rtm_kexec_chunks_unreleased: blocks of the run in chunks not yet released. Real-time
 * safe. */
bool rtm_kexec_chunked(const rtm_kexec_t *x);
rtm_status_t rtm_kexec_chunks_begin(rtm_kexec_t *x, const uint32_t *map_host, uint32_t nmap,
                                    cl_event gate);
rtm_status_t rtm_kexec_chunks_advance(rtm_kexec_t *x, bool release, bool *all);
int rtm_kexec_chunks_done(const rtm_kexec_t *x, rtm_status_t *st);
uint32_t rtm_kexec_chunks_unreleased(const rtm_kexec_t *x);

/* Enqueues the output transfers (RTM_BUF_OUT / INOUT). Real-time safe. */
rtm_status_t rtm_kexec_read_outputs(rtm_kexec_t *x, cl_event *first, cl_event *last);
/* The same on queue q (of x's device), each transfer after the n_after events `after`
 * (n_after 0: none): the outputs of a job whose kernels have ended, read beside what its
 * exec queue runs next, or behind a chunked run's two queues. */
rtm_status_t rtm_kexec_read_outputs_on(rtm_kexec_t *x, cl_command_queue q, cl_uint n_after,
                                       const cl_event *after, cl_event *first, cl_event *last);

/* Launches each entry point once with the abort flag raised (every work-group exits at
 * its entry check; no output, no completed block), so that a device compiler working
 * lazily at the first launch (PoCL) does it now; then clears the block control. Skipped
 * for the original variant (it has no check). Init only (blocks). */
rtm_status_t rtm_kexec_warm(rtm_kexec_t *x);

/* Runs one whole job (inputs, every launch, outputs) and waits; fills `t`. */
rtm_status_t rtm_kexec_run(rtm_kexec_t *x, rtm_kexec_timing_t *t);
/* One kernel-only run of a job whose inputs are already on the device: the block control
 * cleared, every launch (with nmap > 0 each launch's first nmap blocks, as
 * rtm_kexec_enqueue_all), clFinish; *kernel_s the kernel span (first launch's START to
 * last launch's END), *enq_s (may be NULL) the host's time in enqueueing the launches.
 * Calibration and the host-pace probe (rtmgr/pace.h). */
rtm_status_t rtm_kexec_run_kernels(rtm_kexec_t *x, uint32_t nmap, double *kernel_s, double *enq_s);

#endif
