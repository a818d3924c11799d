/* kernel.h — the catalogue of rtmgr's compute kernels and the contract each obeys.
 *
 * Every kernel is a grid of independent blocks (OpenCL work-groups). One kernel is one
 * `kernels/<name>.cl` (OpenCL C, launched as a 1-D range of blocks of `tune.wg`
 * work-items) and one `kernels/<name>.c` beside it that holds its descriptor
 * (`rtm_kernel_t`) and its CPU twin: C code computing the same blocks with the same
 * indexing, one block per call. That is what lets a job started on a GPU finish on the
 * CPU, and one job be split between devices.
 *
 * Descriptors are plain data plus pure functions: no OpenCL types, no allocation. The
 * OpenCL runtime turns `args()` into clSetKernelArg calls; the worker pool calls
 * `cpu_block()`. Host buffers are owned by whoever creates the instance (static arena).
 *
 * Standard block arguments: every OpenCL entry point takes first the four arguments of
 * RTM_BLOCK_ARGS (kernels/rtm_block.h): abort flag, completed-block array, block map,
 * map length. Kernel-specific arguments follow, as listed by `args()`. */
#ifndef RTM_KERNEL_H
#define RTM_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "limits.h"
#include "status.h"

/* Direction of a kernel buffer, as seen from the host. */
enum {
    RTM_BUF_IN = 1,      /* host -> device before the first launch */
    RTM_BUF_OUT = 2,     /* device -> host after the last launch */
    RTM_BUF_INOUT = 3,   /* both */
    RTM_BUF_SCRATCH = 4, /* device only (the host copy is the CPU twin's scratch) */
};

/* One integer size key of a kernel (`size: {targets: 512}` in a task set). */
typedef struct {
    const char *name; /* YAML key */
    int64_t min, max; /* accepted range, inclusive */
    int64_t def;      /* default when the task set omits it; 0 = required */
    const char *help; /* one line for the README and `rtmgr check` */
} rtm_size_key_t;

/* One buffer of an instance. */
typedef struct {
    size_t bytes;
    unsigned dir; /* RTM_BUF_* */
} rtm_bufspec_t;

/* Per-device tuning of one kernel, chosen by calibration (seed 001 / 004 sweeps). */
typedef struct {
    uint32_t wg;  /* work-items per block (local size) */
    uint32_t vec; /* OpenCL vector width: 1, 2, 4, 8 or 16 */
} rtm_tune_t;

/* Storage and launches a kernel needs for one size and tuning. */
typedef struct {
    uint32_t n_bufs;
    rtm_bufspec_t buf[RTM_KBUF_MAX];
    uint32_t launches;   /* passes per job (1 for most, many for sort) */
    uint32_t blocks_max; /* most blocks of any launch: sizes the completed-block array */
} rtm_kplan_t;

/* One launch of a job: which entry point and how many blocks. */
typedef struct {
    uint32_t entry;  /* index into rtm_kernel_t.entries */
    uint32_t blocks; /* blocks in this launch (global size = blocks * tune.wg) */
} rtm_klaunch_t;

/* One kernel-specific argument. */
typedef struct {
    enum { RTM_KARG_BUF, RTM_KARG_VALUE, RTM_KARG_LOCAL } kind;
    uint32_t buf;      /* RTM_KARG_BUF: buffer index */
    uint32_t bytes;    /* RTM_KARG_VALUE / RTM_KARG_LOCAL: size in bytes */
    unsigned char value[16]; /* RTM_KARG_VALUE: the bytes (int, uint, float, float2…) */
} rtm_karg_t;

/* Data-locality classes of the seed-000 CPU model (eq. 1). */
enum { RTM_LOC_SCALAR, RTM_LOC_UNIT, RTM_LOC_STRIDED, RTM_LOC_COUNT };

/* Cost descriptor of one job, for the execution-time models (seed 000).
 * Every count is derived from the kernel's code; the .c file says how. */
typedef struct {
    double li;                 /* iterations = work-items over all launches */
    double z[RTM_LOC_COUNT];   /* CPU eq. 1: operations per iteration per locality class */
    double Z;                  /* GPU eq. 4: operations per work-item (incl. index arithmetic) */
    double md;                 /* data items one CPU thread needs (eq. 1 w * md) */
    double bytes_in, bytes_out;/* host <-> device traffic per job */
    double bytes_dev;          /* device-memory traffic per job (extended model) */
    double bytes_ws;           /* the job's working set: every buffer of its plan once,
                                * scratch included (rtm_kinst_cost fills it; the caches'
                                * and the per-kernel knees' measure, extended model) */
    uint32_t launches;         /* kernel launches per job */
    uint32_t launches_busy;    /* the first launches, which do the job's work (li,
                                * bytes_dev); the others find nothing to do and cost
                                * their launch alone (grid_path's passes after its field
                                * converged). A kernel's cost leaves 0 where every launch
                                * works; rtm_kinst_cost then sets plan.launches */
    bool rows_aligned;         /* the job's rows start on 32-byte boundaries, for a kernel
                                * whose time depends on it (the seed-000 loop kernels:
                                * ktune `aligned`, extended model); false otherwise */
    double stride_bytes;       /* the strided class's walk (a column of a row-major
                                * matrix): bytes between its steps, 0 = none */
    double stride_walk;        /* the steps of that walk, whose lines the next work-item
                                * reads again (the column's length): on the CPU they stay
                                * in a core's L1 unless the stride folds them onto too few
                                * of its sets (rtm_model_cpu_alias_share, ktune `aliased`) */
} rtm_cost_t;

typedef struct rtm_kinst rtm_kinst_t;
struct rtm_traffic;

/* A kernel descriptor. All function pointers are mandatory unless marked optional. */
typedef struct rtm_kernel {
    const char *name;                        /* task-set `kernel:` value */
    const char *source;                      /* file name under kernels/ */
    const char *entries[RTM_KENTRY_MAX + 1]; /* OpenCL entry points, NULL-terminated */
    rtm_size_key_t keys[RTM_SIZE_KEYS_MAX];
    uint32_t n_keys;
    uint32_t vec_allowed; /* bit mask of allowed vector widths (1<<w), e.g. 0x116 */
    rtm_tune_t tune_default;

    /* Plans buffers and launches for k->size and k->tune. Pure. */
    rtm_status_t (*plan)(const rtm_kinst_t *k, rtm_kplan_t *plan);
    /* Describes launch `launch` (0 <= launch < plan.launches). Pure. */
    void (*launch)(const rtm_kinst_t *k, uint32_t launch, rtm_klaunch_t *out);
    /* Kernel-specific arguments of launch `launch`; returns how many were written. */
    uint32_t (*args)(const rtm_kinst_t *k, uint32_t launch, rtm_karg_t out[RTM_KARG_MAX]);
    /* Writes extra build options ("-DSTEPS=360 ..."); element type and vector width
     * (-DRTM_VEC=…) and work-group size (-DRTM_WG=…) are added by the runtime. Optional. */
    void (*options)(const rtm_kinst_t *k, char *buf, size_t len);
    /* Fills the input buffers with deterministic test data from `seed`. */
    void (*fill)(rtm_kinst_t *k, uint64_t seed);
    /* CPU twin: computes block `block` of launch `launch` into k->host. Thread-safe
     * across distinct blocks of one launch. Safe on the real-time path. */
    void (*cpu_block)(const rtm_kinst_t *k, uint32_t launch, uint32_t block);
    /* Cost descriptor for the models. Pure. */
    void (*cost)(const rtm_kinst_t *k, rtm_cost_t *cost);
    /* Compares the outputs of two instances of equal size; returns the number of
     * elements outside the kernel's stated tolerance, with the first in `why`. */
    size_t (*compare)(const rtm_kinst_t *a, const rtm_kinst_t *b, char *why, size_t len);

    /* Optional: copies a traffic snapshot into the input buffers (navigation kernels).
     * Sizes stay as planned; extra targets are ignored, missing ones padded as absent.
     * Safe on the real-time path. */
    void (*load_traffic)(rtm_kinst_t *k, const struct rtm_traffic *t);
    /* Optional, for `rtmgr eval`: sets k->size from CSV input text (before planning). */
    rtm_status_t (*csv_size)(rtm_kinst_t *k, const char *text, char *why, size_t len);
    /* Optional, for `rtmgr eval`: fills the input buffers from CSV text (after binding). */
    rtm_status_t (*csv_load)(rtm_kinst_t *k, const char *text, char *why, size_t len);
    /* Optional, for `rtmgr eval`: writes the outputs as CSV (with a header line). */
    void (*csv_write)(const rtm_kinst_t *k, FILE *out);
    /* Optional, for `rtmgr status`: a short text summary of the latest outputs (e.g.
     * "threats by TCPA: 17 (4.1 min, 0.2 nm), 3 (…)"), at most `len` bytes with the
     * NUL, lines separated by '\n'. Called by the executive after a completed job, on
     * the dispatcher thread: real-time safe (snprintf of numbers only, no allocation). */
    void (*summary)(const rtm_kinst_t *k, char *buf, size_t len);

    /* Optional, for preemption (rtmgr/preempt.c): multiplies the number of blocks by
     * about `factor` by changing k's sizes or tuning without changing any result (e.g.
     * fewer elements per work-item), so that a grid of few long blocks becomes one that
     * answers an abort quickly. Returns the factor reached (1 = cannot). Init only. */
    uint32_t (*split)(rtm_kinst_t *k, uint32_t factor);
    /* RTM_KF_* bits (0 for most kernels). */
    uint32_t flags;
} rtm_kernel_t;

/* rtm_kernel_t.flags */
enum {
    /* The kernel's blocks cannot run as persistent work-groups (its code between
     * RTM_BLOCK_BEGIN and RTM_BLOCK_END breaks a rule of kernels/rtm_block.h): the
     * runtime launches one work-group per block. */
    RTM_KF_NO_PERSIST = 1u << 0,
    /* The kernel's polls are one work-item's between barriers (a few loads per block):
     * one flag word serves it, and the copy index (rtm_kexec_default_copies) would only
     * cost registers in its loop. grid_path on the H100: production 7.5 % with one copy
     * against 13.0 % with 32 (session 15). */
    RTM_KF_ONE_FLAG = 1u << 1,
    /* Its INOUT buffers' contents do not change its work (spin: the same integer steps
     * whatever the values), so calibration's and validation's timed jobs need not start
     * from the fill's contents (calibint.h rtm_calib_inst_time). */
    RTM_KF_NO_STATE = 1u << 2,
};

/* Largest rtm_kinst_t.items a kernel accepts (its plan() returns RTM_E_RANGE beyond). */
#define RTM_ITEMS_MAX 16u

/* One kernel at one size and tuning, with its host buffers. */
struct rtm_kinst {
    const rtm_kernel_t *kernel;
    int64_t size[RTM_SIZE_KEYS_MAX]; /* by index of kernel->keys */
    rtm_tune_t tune;
    /* Work per work-item, for kernels whose .cl takes -DRTM_ITEMS (threshold, copy,
     * matrix_add, matrix_add3: vectors per work-item; convolve: output rows per
     * work-item): 0 = the kernel's own choice (its .c says which), else 1..16. A tuning
     * beside `tune` that only benchmarks set (`rtmgr bench kernels --sweep`); kernels
     * that do not take it ignore it. Added after `tune` so that rtm_tune_t literals
     * ({wg, vec}) stay complete. */
    uint32_t items; /* <= RTM_ITEMS_MAX */
    /* Navigation kernels: target slots of the inputs that hold no target (the last ones:
     * load_traffic packs the picture first and sets it; 0 otherwise, as fill leaves
     * them all live). Their cost descriptors count those slots' shorter path. */
    uint32_t absent;
    /* Launches of a job that do work, where its data says the later ones find nothing to
     * do (grid_path: the passes until its field converges, from the map; kernels/
     * grid_path.c): set by the kernel's fill, 0 = not known (the cost's own bound). */
    uint32_t busy;
    rtm_kplan_t plan;                /* filled by rtm_kinst_plan() */
    void *host[RTM_KBUF_MAX];        /* host buffers, plan.buf[i].bytes each */
};

/* Catalogue access. Safe anywhere. */
uint32_t rtm_kernel_count(void);
const rtm_kernel_t *rtm_kernel_at(uint32_t index);
/* NULL when unknown. */
const rtm_kernel_t *rtm_kernel_find(const char *name);
/* Index of a kernel in the catalogue (0 <= i < count), or -1. */
int rtm_kernel_index(const rtm_kernel_t *kernel);
/* Index of a size key of `kernel`, or -1. */
int rtm_kernel_key(const rtm_kernel_t *kernel, const char *key);

/* Sets k's kernel, default sizes and default tuning. Init only. */
void rtm_kinst_init(rtm_kinst_t *k, const rtm_kernel_t *kernel);
/* Plans k (k->plan) after its sizes and tuning are set. Init only. */
rtm_status_t rtm_kinst_plan(rtm_kinst_t *k);
/* Total host bytes of k's buffers (after planning). */
size_t rtm_kinst_bytes(const rtm_kinst_t *k);
/* k's cost descriptor (kernel->cost) with bytes_ws from its plan and launches_busy set
 * (every launch where the kernel names none fewer; after planning). */
void rtm_kinst_cost(const rtm_kinst_t *k, rtm_cost_t *cost);
/* Test and tool helper: plans k and points its buffers into `arena` (>= rtm_kinst_bytes,
 * each buffer 64-byte aligned). Returns the bytes used, 0 if `arena_bytes` is short. */
size_t rtm_kinst_bind(rtm_kinst_t *k, void *arena, size_t arena_bytes);
/* Blocks of k's job: every launch's together (after planning). Safe anywhere. */
uint64_t rtm_kinst_blocks(const rtm_kinst_t *k);
/* Blocks of k's first `launches` launches (at most plan.launches). Safe anywhere. */
uint64_t rtm_kinst_blocks_upto(const rtm_kinst_t *k, uint32_t launches);
/* k's buffers whose direction has any bit of `dir` (RTM_BUF_IN: IN and INOUT, the host ->
 * device transfers of a job; RTM_BUF_OUT: OUT and INOUT). Safe anywhere. */
uint32_t rtm_kinst_bufs(const rtm_kinst_t *k, unsigned dir);
/* Host bytes of those buffers (rtm_kinst_bufs' `dir`). Safe anywhere. */
size_t rtm_kinst_dir_bytes(const rtm_kinst_t *k, unsigned dir);
/* Puts back the buffers a job starts from: host[b] from init[b] wherever init[b] is not
 * NULL (the copies its owner kept of the INOUT buffers after the fill: the manager's, for
 * every job; calibration's, for every timed job). Safe anywhere (copies only). */
void rtm_kinst_put_back(rtm_kinst_t *k, const void *const init[RTM_KBUF_MAX]);
/* Runs every block of every launch on the calling thread (CPU twin reference). */
void rtm_kinst_run_cpu(const rtm_kinst_t *k);

/* Ready-made hooks for kernels whose every launch runs entry 0 over plan.blocks_max
 * blocks (`launch`) with their buffers in order as arguments (`args`: none without
 * buffers). Real-time safe. */
void rtm_kernel_launch_one(const rtm_kinst_t *k, uint32_t l, rtm_klaunch_t *out);
uint32_t rtm_kernel_args_bufs(const rtm_kinst_t *k, uint32_t l, rtm_karg_t out[RTM_KARG_MAX]);
/* Ready-made hooks for kernels with no work on the CPU (`cpu_block`) and no output to
 * compare (`compare`: 0 differences): the empty kernel, calibration's probes. */
void rtm_kernel_block_none(const rtm_kinst_t *k, uint32_t l, uint32_t b);
size_t rtm_kernel_compare_none(const rtm_kinst_t *a, const rtm_kinst_t *b, char *why, size_t len);

#endif
