/* kexec.c — device buffers, block control and profiled execution of one kernel
 * instance on one OpenCL device (see kexec.h). Owns the instance's cl_mem objects and
 * its abort flag. The block-control build options (-DRTM_PERSIST, -DRTM_POLL_EVERY, …)
 * are fixed at creation; the launch shape follows: a persistent program gets at most
 * opts.groups work-groups per launch, each looping over logical blocks. */
#include "kexec.h"
#include "os.h"

#include <stdio.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void chunks_reset(rtm_kexec_t *x);

static uint32_t auto_groups(const rtm_ocl_info_t *info, uint32_t wg)
{
    const uint32_t units = info->units ? info->units : 1;
    /* GPUs hold about 2048 work-items per compute unit (NVIDIA SM, AMD CU) */
    const uint32_t per_unit = wg && wg < 2048 ? 2048 / wg : 1;
    return units * per_unit;
}

uint32_t rtm_kexec_default_copies(const rtm_ocl_info_t *info, const rtm_kernel_t *kernel)
{
    return (info->type & CL_DEVICE_TYPE_CPU) || (kernel && (kernel->flags & RTM_KF_ONE_FLAG))
               ? 1u
               : RTM_KEXEC_FLAG_COPIES_GPU;
}

bool rtm_kexec_default_read_late(const rtm_ocl_info_t *info, size_t out_bytes, bool host_pinned)
{
    return !(info->type & CL_DEVICE_TYPE_CPU) && !host_pinned &&
           out_bytes > RTM_KEXEC_EAGER_READ_MAX;
}

bool rtm_kexec_default_read_beside(const rtm_ocl_info_t *info, size_t out_bytes, bool host_pinned,
                                   bool preemptible)
{
    return !(info->type & CL_DEVICE_TYPE_CPU) && host_pinned && preemptible &&
           out_bytes > RTM_KEXEC_EAGER_READ_MAX;
}

/* The device's sub-buffer origin alignment in bytes (CL_DEVICE_MEM_BASE_ADDR_ALIGN). */
static size_t base_align(const rtm_ocl_info_t *info)
{
    cl_uint bits = 0;
    if (clGetDeviceInfo(info->id, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof(bits), &bits, NULL) !=
        CL_SUCCESS)
        bits = 0;
    return bits >= 32 ? bits / 8 : 4;
}

/* The launch shape options o give k on a device (cpu: a CPU-type one), as resolve()
 * settles it: one work-group per block or persistent groups, and blocks per chunk
 * (opts.chunk rounded up to whole sub-buffer alignments of the map, `per` blocks; 0
 * where chunks do not act, kexec.h). Defaults not yet applied are taken as resolve()
 * applies them. */
typedef struct {
    bool all_groups; /* one work-group per block (RTM_KEXEC_GROUPS_ALL) */
    bool persist;    /* persistent groups */
    uint32_t chunk;  /* blocks per chunk, 0: none */
} shape_t;

static shape_t shape_of(const rtm_kexec_opts_t *o, const rtm_kinst_t *k, bool cpu, size_t per)
{
    shape_t sh = {0};
    const uint32_t min_blocks =
        o->persist_min_blocks ? o->persist_min_blocks : RTM_KEXEC_PERSIST_MIN_BLOCKS;
    /* CPU devices: launching groups is cheap, loops with barriers are not (PoCL splits
     * them into regions); GPUs: persistent groups only where a plain grid would drain
     * too slowly after an abort */
    sh.all_groups = o->groups == RTM_KEXEC_GROUPS_ALL ||
                    (o->groups == 0 && (cpu || k->plan.blocks_max < min_blocks));
    sh.persist = o->variant != RTM_KEXEC_ORIGINAL && o->variant != RTM_KEXEC_CHECK &&
                 o->variant != RTM_KEXEC_WG_CHECK && !sh.all_groups &&
                 !(k->kernel->flags & RTM_KF_NO_PERSIST);
    if (o->chunk && (!cpu || o->chunk_cpu) && k->plan.launches == 1 &&
        (o->variant == RTM_KEXEC_FULL || o->variant == RTM_KEXEC_FEEDBACK)) {
        const size_t c = (o->chunk + per - 1) / per * per;
        sh.chunk = c < k->plan.blocks_max ? (uint32_t)c : 0;
    }
    if (sh.chunk) { /* chunks are plain grids */
        sh.all_groups = true;
        sh.persist = false;
    }
    return sh;
}

static void resolve(rtm_kexec_t *x, const rtm_kexec_opts_t *o)
{
    const rtm_ocl_info_t *info = &x->dev->info;
    x->opts = o ? *o : (rtm_kexec_opts_t){0};
    if (!x->opts.transport_set) {
        x->opts.transport = rtm_abortflag_default(info);
        x->opts.transport_set = true;
    }
    if (!x->opts.raise_set) {
        x->opts.raise_mode = RTM_KEXEC_RAISE_DEFAULT;
        x->opts.raise_set = true;
    }
    if (x->opts.poll_every == 0)
        x->opts.poll_every = RTM_KEXEC_POLL_DEFAULT;
    if (x->opts.hide_latency == 0)
        x->opts.hide_latency = (info->type & CL_DEVICE_TYPE_CPU) ? -1 : 1;
    if (x->opts.poll_lanes == 0)
        x->opts.poll_lanes = 1;
    if (x->opts.persist_min_blocks == 0)
        x->opts.persist_min_blocks = RTM_KEXEC_PERSIST_MIN_BLOCKS;
    if (x->opts.flag_copies == 0)
        x->opts.flag_copies = rtm_kexec_default_copies(info, x->k->kernel);
    const shape_t sh = shape_of(&x->opts, x->k, (info->type & CL_DEVICE_TYPE_CPU) != 0,
                                base_align(info) / sizeof(cl_uint));
    if (sh.all_groups)
        x->opts.groups = RTM_KEXEC_GROUPS_ALL;
    else if (x->opts.groups == 0)
        x->opts.groups = x->opts.persist_groups ? x->opts.persist_groups
                                                : auto_groups(info, x->k->tune.wg);
    x->persist = sh.persist;
    x->chunk = sh.chunk;
    const size_t out_bytes = rtm_kinst_dir_bytes(x->k, RTM_BUF_OUT);
    x->read_beside = x->opts.read_late == 2 ||
                     (x->opts.read_late == 0 &&
                      rtm_kexec_default_read_beside(info, out_bytes, x->opts.host_pinned,
                                                    x->opts.preemptible));
    x->read_late = x->opts.read_late == 1 ||
                   (x->opts.read_late == 0 && !x->read_beside &&
                    rtm_kexec_default_read_late(info, out_bytes, x->opts.host_pinned));
}

/* cl_nv_create_buffer (NVIDIA): a buffer in host memory that kernels access directly */
typedef cl_bitfield rtm_mem_flags_nv_t;
typedef cl_mem(CL_API_CALL *rtm_create_buffer_nv_t)(cl_context, cl_mem_flags, rtm_mem_flags_nv_t,
                                                    size_t, void *, cl_int *);
#define RTM_MEM_LOCATION_HOST_NV (1u << 0)

/* The device's host-memory buffer call, where its kernels of `variant` would write an
 * end mark (GPUs with cl_nv_create_buffer, full and feedback builds); NULL elsewhere.
 * CPU devices have none: PoCL 3.1 runs a get_local_id(0) == 0 block placed where
 * RTM_BLOCK_END counts a group out once per work-item, or several times for one. */
static rtm_create_buffer_nv_t end_mark_call(const rtm_ocl_info_t *info,
                                            rtm_kexec_variant_t variant)
{
    if ((info->type & CL_DEVICE_TYPE_CPU) ||
        (variant != RTM_KEXEC_FULL && variant != RTM_KEXEC_FEEDBACK))
        return NULL;
    return (rtm_create_buffer_nv_t)clGetExtensionFunctionAddressForPlatform(info->platform,
                                                                            "clCreateBufferNV");
}

/* Unmaps and releases the end marks' buffers. */
static void release_end(rtm_kexec_t *x)
{
    cl_mem *const bufs[2] = {&x->end, &x->end2};
    volatile cl_uint **const views[2] = {&x->end_host, &x->end2_host};
    for (int i = 0; i < 2; i++) {
        if (*bufs[i] && *views[i]) {
            clEnqueueUnmapMemObject(x->dev->ctrl, *bufs[i], (void *)*views[i], 0, NULL, NULL);
            clFinish(x->dev->ctrl);
        }
        if (*bufs[i])
            (void)clReleaseMemObject(*bufs[i]);
        *bufs[i] = NULL;
        *views[i] = NULL;
    }
}

/* The end mark's buffer, mapped (rtm_kexec_end_mark), and a chunked x's second one for
 * exec2; none where end_mark_call has no call or the buffers cannot be had (the kernels
 * then see NULL and write nothing). */
static rtm_status_t create_end(rtm_kexec_t *x)
{
    const rtm_ocl_dev_t *d = x->dev;
    const rtm_create_buffer_nv_t create = end_mark_call(&d->info, x->opts.variant);
    if (!create)
        return RTM_OK;
    const size_t bytes = 256; /* the mark, and the watcher's raise word 128 bytes on */
    cl_mem *const bufs[2] = {&x->end, &x->end2};
    volatile cl_uint **const views[2] = {&x->end_host, &x->end2_host};
    for (int i = 0; i < (x->chunk ? 2 : 1); i++) { /* exec2's chunks: a mark of their own */
        cl_int err = CL_SUCCESS;
        *bufs[i] = create(d->ctx, CL_MEM_READ_WRITE, RTM_MEM_LOCATION_HOST_NV, bytes, NULL, &err);
        if (!*bufs[i] || err != CL_SUCCESS) { /* no end mark: the driver's events alone */
            if (*bufs[i])
                (void)clReleaseMemObject(*bufs[i]);
            *bufs[i] = NULL;
            break;
        }
        void *p = clEnqueueMapBuffer(d->ctrl, *bufs[i], CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                     bytes, 0, NULL, NULL, &err);
        RTM_CL_CHECK(err, "clEnqueueMapBuffer(end mark)");
        *views[i] = p;
        (*views[i])[0] = 0;
    }
    if (x->end && x->chunk && !x->end2) { /* marks on both queues or on none */
        release_end(x);
        return RTM_OK;
    }
    if (!x->end)
        return RTM_OK;
    if (x->flag.transport == RTM_ABORT_WRITE) {
        x->flag.watch = &x->end_host[RTM_KEXEC_WATCH_WORD];
        *x->flag.watch = 0;
        if (x->end2_host) { /* exec2's chunks' watchers read their own mark's buffer */
            x->flag.watch2 = &x->end2_host[RTM_KEXEC_WATCH_WORD];
            *x->flag.watch2 = 0;
        }
    }
    return RTM_OK;
}

static size_t align_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

/* One region [origin, origin + bytes) of the block-control buffer as a sub-buffer. */
static cl_mem control_part(cl_mem ctl, size_t origin, size_t bytes, cl_int *err)
{
    const cl_buffer_region r = {origin, bytes};
    return *err == CL_SUCCESS ? clCreateSubBuffer(ctl, CL_MEM_READ_WRITE,
                                                  CL_BUFFER_CREATE_TYPE_REGION, &r, err)
                              : NULL;
}

/* The block control, `ndone` completed-block bytes, the leave counter and fetch
 * counters, and with `count` the completion counts, as sub-buffers of one buffer at
 * the device's base-address alignment (and a chunked x's exec2 leave counter),
 * zero-filled: a run's clears are one fill. On
 * the H100 each command of a job costs its host 10-15 us to enqueue, more than a fill
 * of up to 256 KiB takes on the device (6.5-7 us, board/h100/results/fill-s27-h100.txt),
 * and a persistent job's second fill, the fetch counters', cost it 13-20 us before
 * its inputs: the empty kernel at 35 158 blocks, 27-28 us of clears against 7 us at
 * 15 626 blocks, 27-32 % under its model, which charges one clear command. */
static cl_int create_control(rtm_kexec_t *x, size_t ndone, bool count)
{
    const size_t a = base_align(&x->dev->info);
    const size_t nnext = sizeof(cl_uint) + ndone / 16, ncount = ndone * sizeof(cl_uint);
    const size_t o_next = align_up(ndone, a), o_next2 = align_up(o_next + nnext, a);
    const size_t o_count = align_up(o_next2 + (x->chunk ? sizeof(cl_uint) : 0), a);
    x->ctl_bytes = align_up(count ? o_count + ncount : o_count, sizeof(cl_uint));
    cl_int err = CL_SUCCESS;
    x->ctl = clCreateBuffer(x->dev->ctx, CL_MEM_READ_WRITE, x->ctl_bytes, NULL, &err);
    x->done = control_part(x->ctl, 0, ndone, &err);
    x->next = control_part(x->ctl, o_next, nnext, &err);
    if (x->chunk) /* exec2's chunks leave through their own counter */
        x->next2 = control_part(x->ctl, o_next2, sizeof(cl_uint), &err);
    if (count)
        x->count = control_part(x->ctl, o_count, ncount, &err);
    if (err == CL_SUCCESS) { /* the leave counter starts at 0 and every launch restores it */
        const cl_uint zero = 0;
        err = clEnqueueFillBuffer(x->dev->exec, x->ctl, &zero, sizeof(zero), 0, x->ctl_bytes, 0,
                                  NULL, NULL);
        if (err == CL_SUCCESS)
            err = clFinish(x->dev->exec);
    }
    return err;
}

/* A chunked x's maps (kexec.h chunks): the identity, and chunk-sized sub-buffers of it
 * and of the resume map, made once here (NVIDIA's driver faulted when sub-buffers were
 * released and made again between jobs, session 63). */
static cl_int create_chunk_maps(rtm_kexec_t *x)
{
    const uint32_t nb = x->k->plan.blocks_max, c = x->chunk;
    if (c == 0 || nb <= c) /* chunk_of gives chunks only to launches of more blocks */
        return CL_INVALID_VALUE;
    const uint32_t m = (uint32_t)(((uint64_t)nb + c - 1u) / c);
    x->chunks_max = m;
    x->ck_map = calloc(2 * (size_t)x->chunks_max, sizeof(cl_mem));
    uint32_t *ids = malloc((size_t)nb * sizeof(uint32_t));
    cl_int err = x->ck_map && ids ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
    for (uint32_t i = 0; ids && i < nb; i++)
        ids[i] = i;
    if (err == CL_SUCCESS)
        x->ident = clCreateBuffer(x->dev->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                  (size_t)nb * sizeof(cl_uint), ids, &err);
    free(ids);
    for (uint32_t i = 0; err == CL_SUCCESS && i < 2 * m; i++) {
        const uint32_t j = i < m ? i : i - m, lo = j * c, n = nb - lo < c ? nb - lo : c;
        const cl_buffer_region r = {(size_t)lo * sizeof(cl_uint), (size_t)n * sizeof(cl_uint)};
        x->ck_map[i] = clCreateSubBuffer(i < m ? x->ident : x->map, CL_MEM_READ_ONLY,
                                         CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
    }
    return err;
}

bool rtm_kexec_end_mark(const rtm_kexec_t *x) { return x->end_host != NULL; }

/* Does a launch of `blocks` run on the persistent groups (fewer groups than blocks)? */
static bool persistent_at(const rtm_kexec_t *x, uint32_t blocks)
{
    return x->persist && x->opts.groups < blocks;
}

bool rtm_kexec_watch_worth(double kernel_s) { return kernel_s >= RTM_KEXEC_WATCH_MIN_S; }

void rtm_kexec_set_watch(rtm_kexec_t *x, bool on) { x->watch = on; }

bool rtm_kexec_watched(const rtm_kexec_t *x, uint32_t nblk)
{
    if (!x->watch || !x->flag.watch || nblk == 0)
        return false;
    if (persistent_at(x, nblk)) /* one of its groups watches */
        return x->opts.groups > 1;
    const uint32_t cap = auto_groups(&x->dev->info, x->k->tune.wg);
    return nblk % cap != 0; /* a full last wave: the watcher would open one more */
}

/* Chunk queue q's end mark (0: exec's, 1: exec2's), NULL without marks. */
static volatile cl_uint *mark_of(const rtm_kexec_t *x, int q)
{
    return q ? x->end2_host : x->end_host;
}

/* Has queue q's latest chunk ended, by its end mark (x has marks)? */
static bool chunk_marked(const rtm_kexec_t *x, int q) { return mark_of(x, q)[0] != 0; }

bool rtm_kexec_end_seen(const rtm_kexec_t *x, uint32_t launch)
{
    if (!x->end_host)
        return false;
    if (x->ck.n) /* a chunked run: each queue's latest chunk */
        return (!x->ck.busy[0] || chunk_marked(x, 0)) && (!x->ck.busy[1] || chunk_marked(x, 1));
    return x->end_host[0] >= launch * x->done_stride + 1u;
}

rtm_status_t rtm_kexec_arm(rtm_kexec_t *x)
{
    if (x->end_host)
        x->end_host[0] = 0;
    if (x->end2_host)
        x->end2_host[0] = 0;
    return rtm_abortflag_clear(&x->flag);
}

/* Do x's latency-hidden in-loop polls load the flag at GPU scope (RTM_POLL_LD=1,
 * kernels/rtm_block.h)? Where PTX has the relaxed load (NVIDIA, compute capability 7.0
 * and up), the polls hide its latency (latency hiding on), and the flag is in device
 * memory (the write transport: a GPU-scope load of host memory could read a copy the
 * GPU's L2 holds). */
static bool poll_ld_gpu(const rtm_kexec_t *x, uint32_t poll_every)
{
    return x->opts.variant == RTM_KEXEC_FULL && poll_every > 0 && x->opts.hide_latency > 0 &&
           x->dev->info.nv_cc_major >= 7 && x->opts.transport == RTM_ABORT_WRITE;
}

/* The block-control build options of x (resolved). */
static void block_options(const rtm_kexec_t *x, char *extra, size_t len)
{
    const rtm_kexec_opts_t *o = &x->opts;
    const uint32_t poll_every =
        o->no_poll || o->variant == RTM_KEXEC_FEEDBACK ? 0 : o->poll_every;
    snprintf(extra, len,
             "-DRTM_PERSIST=%d -DRTM_POLL_EVERY=%u -DRTM_POLL_LANES=%u -DRTM_NO_ABORT=%d "
             "-DRTM_NO_DONE=%d -DRTM_COUNT_BLOCKS=%d -DRTM_HIDE_LATENCY=%d "
             "-DRTM_WG_CHECK=%d -DRTM_FLAG_COPIES=%u -DRTM_END_MARK=%d%s%s%s%s",
             x->persist ? (o->static_fetch ? 1 : 2) : 0, poll_every, o->poll_lanes,
             o->variant == RTM_KEXEC_ORIGINAL, o->variant == RTM_KEXEC_CHECK,
             o->count_blocks ? 1 : 0, o->hide_latency > 0 ? 1 : 0,
             o->variant == RTM_KEXEC_WG_CHECK, o->flag_copies,
             end_mark_call(&x->dev->info, o->variant) != NULL,
             /* only where it acts, so that every other build keeps its cache key */
             x->persist && !o->static_fetch && o->hide_latency > 0 && o->fetch_store
                 ? " -DRTM_FETCH_STORE=1"
                 : "",
             poll_ld_gpu(x, poll_every) ? " -DRTM_POLL_LD=1" : "",
             o->cl_extra ? " " : "",
             o->cl_extra ? o->cl_extra : "");
}

/* The block-control options a kexec of k with `opts` would build with (resolved as
 * rtm_kexec_create_ex resolves them). */
static void opts_for(rtm_ocl_dev_t *d, const rtm_kinst_t *k, const rtm_kexec_opts_t *opts,
                     char *extra, size_t len)
{
    rtm_kexec_t x;
    memset(&x, 0, sizeof(x));
    x.dev = d;
    x.k = k;
    resolve(&x, opts);
    block_options(&x, extra, len);
}

rtm_status_t rtm_kexec_prebuild(rtm_ocl_dev_t *d, const rtm_kinst_t *k,
                                const rtm_kexec_opts_t *opts)
{
    if (!d || !k || !opts || !opts->cache_dir)
        return RTM_E_ARG;
    char extra[384];
    opts_for(d, k, opts, extra, sizeof(extra));
    rtm_program_t prog;
    const rtm_status_t st = rtm_program_build_cached(d, k, extra, opts->cache_dir, &prog);
    if (st == RTM_OK)
        rtm_program_release(&prog);
    return st;
}

bool rtm_kexec_cached(rtm_ocl_dev_t *d, const rtm_kinst_t *k, const rtm_kexec_opts_t *opts)
{
    if (!d || !k || !opts || !opts->cache_dir)
        return false;
    char extra[384];
    opts_for(d, k, opts, extra, sizeof(extra));
    return rtm_program_cached(d, k, extra, opts->cache_dir);
}

void rtm_kexec_program_options(rtm_ocl_dev_t *d, const rtm_kinst_t *k,
                               const rtm_kexec_opts_t *opts, char *out, size_t len)
{
    char own[256] = "", extra[384];
    if (k->kernel->options)
        k->kernel->options(k, own, sizeof(own));
    opts_for(d, k, opts, extra, sizeof(extra));
    snprintf(out, len, "%s %s", own, extra);
}

rtm_status_t rtm_kexec_create(rtm_kexec_t *x, rtm_ocl_dev_t *d, const rtm_kinst_t *k)
{
    /* the first kexec's flag: a device buffer written by clEnqueueWriteBuffer */
    const rtm_kexec_opts_t o = {.transport = RTM_ABORT_WRITE, .transport_set = true};
    return rtm_kexec_create_ex(x, d, k, &o);
}

rtm_kexec_opts_t rtm_kexec_calib_opts(const char *cache_dir)
{
    return (rtm_kexec_opts_t){
        .transport = RTM_ABORT_WRITE, .transport_set = true, .cache_dir = cache_dir};
}

rtm_status_t rtm_kexec_create_cached(rtm_kexec_t *x, rtm_ocl_dev_t *d, const rtm_kinst_t *k,
                                     const char *cache_dir)
{
    const rtm_kexec_opts_t o = rtm_kexec_calib_opts(cache_dir);
    return rtm_kexec_create_ex(x, d, k, &o);
}

rtm_status_t rtm_kexec_create_ex(rtm_kexec_t *x, rtm_ocl_dev_t *d, const rtm_kinst_t *k,
                                 const rtm_kexec_opts_t *opts)
{
    memset(x, 0, sizeof(*x));
    x->dev = d;
    x->k = k;
    resolve(x, opts);
    const rtm_kexec_opts_t *o = &x->opts;
    char extra[384];
    rtm_status_t st = RTM_E_CL_BUILD;
    for (int attempt = 0; attempt < 2 && st == RTM_E_CL_BUILD; attempt++) {
        if (attempt == 1) { /* a compiler that refuses the persistent loop: plain grid */
            if (!x->persist)
                break;
            fprintf(stderr, "rtmgr: kernel '%s': persistent groups refused by the device "
                            "compiler, using one work-group per block\n", k->kernel->name);
            x->persist = false;
        }
        block_options(x, extra, sizeof(extra));
        st = rtm_program_build_cached(d, k, extra, o->cache_dir, &x->prog);
    }
    if (st != RTM_OK)
        return st;
    cl_int err = CL_SUCCESS;
    for (uint32_t i = 0; i < k->plan.n_bufs; i++) {
        const cl_mem_flags fl = k->plan.buf[i].dir == RTM_BUF_IN ? CL_MEM_READ_ONLY
                                : k->plan.buf[i].dir == RTM_BUF_OUT ? CL_MEM_WRITE_ONLY
                                                                    : CL_MEM_READ_WRITE;
        x->buf[i] = clCreateBuffer(d->ctx, fl, k->plan.buf[i].bytes, NULL, &err);
        if (err != CL_SUCCESS) {
            rtm_kexec_destroy(x);
            return rtm_ocl_fail("clCreateBuffer", err, __FILE__, __LINE__);
        }
    }
    st = rtm_abortflag_create_ex(&x->flag, d, o->transport, o->flag_copies);
    if (st != RTM_OK) {
        rtm_kexec_destroy(x);
        return st;
    }
    rtm_abortflag_set_raise(&x->flag, x->opts.never_aborted && x->opts.raise_mode == RTM_RAISE_ARMED
                                          ? RTM_RAISE_PINNED
                                          : x->opts.raise_mode);
    x->abort_flag = x->flag.mem;
    const size_t nb = k->plan.blocks_max ? k->plan.blocks_max : 1;
    x->launches = k->plan.launches;
    x->done_stride = (uint32_t)align_up(nb, 64);
    const size_t ndone = (size_t)x->launches * x->done_stride;
    err = create_control(x, ndone, o->count_blocks);
    if (err == CL_SUCCESS)
        x->map = clCreateBuffer(d->ctx, CL_MEM_READ_ONLY, nb * sizeof(cl_uint), NULL, &err);
    x->fetch_dirty = calloc(x->launches, 1);
    if (!x->fetch_dirty) {
        rtm_kexec_destroy(x);
        return RTM_E_NOMEM;
    }
    if (err == CL_SUCCESS && x->chunk)
        err = create_chunk_maps(x);
    if (err != CL_SUCCESS) {
        rtm_kexec_destroy(x);
        return err == CL_OUT_OF_HOST_MEMORY
                   ? RTM_E_NOMEM
                   : rtm_ocl_fail("clCreateBuffer(block control)", err, __FILE__, __LINE__);
    }
    st = create_end(x);
    if (st != RTM_OK)
        rtm_kexec_destroy(x);
    return st;
}

void rtm_kexec_destroy(rtm_kexec_t *x)
{
    chunks_reset(x);
    for (uint32_t i = 0; x->ck_map && i < 2 * x->chunks_max; i++) /* before their parents */
        if (x->ck_map[i])
            clReleaseMemObject(x->ck_map[i]);
    free(x->ck_map);
    x->ck_map = NULL;
    if (x->ident)
        clReleaseMemObject(x->ident);
    for (uint32_t i = 0; i < RTM_KBUF_MAX; i++)
        if (x->buf[i])
            clReleaseMemObject(x->buf[i]);
    rtm_abortflag_destroy(&x->flag);
    if (x->done)
        clReleaseMemObject(x->done);
    if (x->map)
        clReleaseMemObject(x->map);
    if (x->count)
        clReleaseMemObject(x->count);
    if (x->next)
        clReleaseMemObject(x->next);
    if (x->next2)
        clReleaseMemObject(x->next2);
    if (x->ctl) /* after its sub-buffers */
        clReleaseMemObject(x->ctl);
    x->flag.watch = x->flag.watch2 = NULL; /* in the end marks' buffers */
    release_end(x);
    free(x->fetch_dirty);
    x->fetch_dirty = NULL;
    rtm_program_release(&x->prog);
    memset(x->buf, 0, sizeof(x->buf));
    x->abort_flag = x->ctl = x->done = x->map = x->count = x->next = x->next2 = x->ident = NULL;
    x->ctl_bytes = 0;
}

uint32_t rtm_kexec_groups(const rtm_kexec_t *x, uint32_t blocks)
{
    return persistent_at(x, blocks) ? x->opts.groups : blocks;
}

/* The work-groups of a launch of `blocks`: with a watcher, one more for a plain grid,
 * the same number (one of them the watcher) for persistent groups. */
static uint32_t launch_groups(const rtm_kexec_t *x, uint32_t blocks, bool watched)
{
    const uint32_t g = rtm_kexec_groups(x, blocks);
    return watched && !persistent_at(x, blocks) ? g + 1 : g;
}

/* Keeps the first event of a sequence and the latest one. */
static void track(cl_event ev, cl_event *first, cl_event *last)
{
    if (first && !*first) {
        *first = ev;
        clRetainEvent(ev);
    }
    if (last) {
        if (*last)
            clReleaseEvent(*last);
        *last = ev;
    } else {
        clReleaseEvent(ev);
    }
}

/* A command's event, where want_event asked for one: tracked, then cleared for the next
 * command. */
static void keep(cl_event *ev, cl_event *first, cl_event *last)
{
    if (*ev)
        track(*ev, first, last);
    *ev = NULL;
}

/* Does x's build fetch blocks from the per-launch counters (RTM_PERSIST=2)? Only then
 * does a launch enqueued again without a clear (an aborted run) reset its counter. */
static bool fetches(const rtm_kexec_t *x) { return x->persist && !x->opts.static_fetch; }

/* The event a command of a sequence should return: the first command's when the caller
 * wants the first and has none yet, the last one's when it wants the last; else none
 * (each event costs the H100's host a create and a release, 2 us). */
static cl_event *want_event(cl_event *ev, bool final, const cl_event *first, const cl_event *last)
{
    return (first && !*first) || (final && last) ? ev : NULL;
}

/* A job nothing aborts (opts.never_aborted) on a plain grid in one piece without
 * completion counts need not clear its block control: nothing reads its completed-block
 * array (a checkpoint is read only after an abort), each launch's last group puts the
 * leave counter back to 0, and there are no fetch counters. A job without inputs still
 * clears (the fill gives its sequence its events). The fill was the costliest call of
 * such a job's start: 29 us of host time on the H100's driver
 * (board/h100/results/cltime-preempt-s18-h100.txt), 61 us on PoCL (board/cltime/
 * jobcalls.sh with a hard matrix_add alone, session 66). */
static bool clears_if(bool never_aborted, bool fetches, bool count, bool chunked,
                      const rtm_kinst_t *k)
{
    return !never_aborted || fetches || count || chunked || rtm_kinst_bufs(k, RTM_BUF_IN) == 0;
}

bool rtm_kexec_clears(const rtm_kexec_t *x)
{
    return clears_if(x->opts.never_aborted, fetches(x), x->count != NULL, rtm_kexec_chunked(x),
                     x->k);
}

bool rtm_kexec_clears_planned(const rtm_kexec_opts_t *o, const rtm_kinst_t *k, bool cpu_device)
{
    const shape_t sh = shape_of(o, k, cpu_device, 1);
    return clears_if(o->never_aborted, sh.persist && !o->static_fetch, o->count_blocks,
                     sh.chunk != 0, k);
}

/* The block-control clears of a run: the completed-block array, the leave counter, the
 * fetch counters and the completion counts (counting builds), one fill of the buffer
 * that holds them all, on the execution queue; `more`: commands follow in the caller's
 * sequence (then the fill is not the sequence's last). */
static rtm_status_t clear_control(rtm_kexec_t *x, bool more, cl_event *first, cl_event *last)
{
    const cl_uint zero = 0;
    rtm_status_t st = rtm_kexec_arm(x);
    if (st != RTM_OK)
        return st;
    cl_event ev = NULL;
    RTM_CL_CHECK(clEnqueueFillBuffer(x->dev->exec, x->ctl, &zero, sizeof(zero), 0, x->ctl_bytes,
                                     0, NULL, want_event(&ev, !more, first, last)),
                 "clEnqueueFillBuffer(block control)");
    keep(&ev, first, last);
    memset(x->fetch_dirty, 0, x->launches);
    return RTM_OK;
}

rtm_status_t rtm_kexec_clear(rtm_kexec_t *x, cl_event *first, cl_event *last)
{
    return clear_control(x, false, first, last);
}

rtm_status_t rtm_kexec_write_inputs(rtm_kexec_t *x, cl_event *first, cl_event *last)
{
    const rtm_kinst_t *k = x->k;
    uint32_t n_in = rtm_kinst_bufs(k, RTM_BUF_IN);
    const rtm_status_t st = rtm_kexec_clears(x) ? clear_control(x, n_in > 0, first, last)
                                                : rtm_kexec_arm(x);
    if (st != RTM_OK)
        return st;
    for (uint32_t i = 0; i < k->plan.n_bufs; i++) {
        if (!(k->plan.buf[i].dir & RTM_BUF_IN))
            continue;
        cl_event ev = NULL;
        RTM_CL_CHECK(clEnqueueWriteBuffer(x->dev->exec, x->buf[i], CL_FALSE, 0,
                                          k->plan.buf[i].bytes, k->host[i], 0, NULL,
                                          want_event(&ev, --n_in == 0, first, last)),
                     "clEnqueueWriteBuffer");
        keep(&ev, first, last);
    }
    return RTM_OK;
}

static bool karg_same(const rtm_karg_t *a, const rtm_karg_t *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case RTM_KARG_BUF:
        return a->buf == b->buf;
    case RTM_KARG_VALUE:
        return a->bytes == b->bytes && a->bytes <= sizeof(a->value) &&
               memcmp(a->value, b->value, a->bytes) == 0;
    case RTM_KARG_LOCAL:
        return a->bytes == b->bytes;
    }
    return false;
}

/* Where a launch's blocks come from and where its groups leave: the block map (the
 * resume map, or a chunk's sub-buffer), the leave counter and the end mark (exec's, or
 * exec2's for its chunks). */
typedef struct {
    cl_mem map, next, end;
} route_t;

/* Sets launch `launch`'s arguments on entry `entry`'s kernel, those that differ from
 * what the kernel holds (x->args_set): on the H100's driver each clSetKernelArg is host
 * time in every launch of a multi-launch job, and the host's enqueueing paces short
 * launches. The cache is valid only once every argument is set. */
static rtm_status_t set_args(rtm_kexec_t *x, cl_kernel kern, uint32_t entry, uint32_t launch,
                             const route_t *rt, cl_uint mapped, cl_uint nblk, cl_uint doff)
{
    rtm_kexec_args_t *c = &x->args_set[entry];
    const bool all = !c->valid;
    c->valid = false;
    if (all) {
        rtm_status_t st = rtm_abortflag_set_arg(&x->flag, kern, 0);
        if (st != RTM_OK)
            return st;
        RTM_CL_CHECK(clSetKernelArg(kern, 1, sizeof(cl_mem), &x->done), "clSetKernelArg(done)");
        RTM_CL_CHECK(clSetKernelArg(kern, 6, sizeof(cl_mem), x->count ? &x->count : NULL),
                     "clSetKernelArg(count)");
    }
    if (all || c->map != rt->map)
        RTM_CL_CHECK(clSetKernelArg(kern, 2, sizeof(cl_mem), &rt->map), "clSetKernelArg(map)");
    if (all || c->next != rt->next)
        RTM_CL_CHECK(clSetKernelArg(kern, 7, sizeof(cl_mem), &rt->next), "clSetKernelArg(next)");
    if (all || c->end != rt->end)
        RTM_CL_CHECK(clSetKernelArg(kern, 8, sizeof(cl_mem), rt->end ? &rt->end : NULL),
                     "clSetKernelArg(end)");
    c->map = rt->map, c->next = rt->next, c->end = rt->end;
    if (all || c->mapped != mapped)
        RTM_CL_CHECK(clSetKernelArg(kern, 3, sizeof(cl_uint), &mapped), "clSetKernelArg(nmap)");
    if (all || c->nblk != nblk)
        RTM_CL_CHECK(clSetKernelArg(kern, 4, sizeof(cl_uint), &nblk), "clSetKernelArg(nblk)");
    if (all || c->doff != doff)
        RTM_CL_CHECK(clSetKernelArg(kern, 5, sizeof(cl_uint), &doff), "clSetKernelArg(doff)");
    c->mapped = mapped, c->nblk = nblk, c->doff = doff;
    rtm_karg_t args[RTM_KARG_MAX];
    const uint32_t na = x->k->kernel->args(x->k, launch, args);
    for (uint32_t i = 0; i < na && i < RTM_KARG_MAX; i++) {
        if (!all && i < c->n && karg_same(&c->arg[i], &args[i]))
            continue;
        const cl_uint idx = RTM_KEXEC_STD_ARGS + i;
        switch (args[i].kind) {
        case RTM_KARG_BUF:
            RTM_CL_CHECK(clSetKernelArg(kern, idx, sizeof(cl_mem), &x->buf[args[i].buf]),
                         "clSetKernelArg(buffer)");
            break;
        case RTM_KARG_VALUE:
            RTM_CL_CHECK(clSetKernelArg(kern, idx, args[i].bytes, args[i].value),
                         "clSetKernelArg(value)");
            break;
        case RTM_KARG_LOCAL:
            RTM_CL_CHECK(clSetKernelArg(kern, idx, args[i].bytes, NULL), "clSetKernelArg(local)");
            break;
        }
        c->arg[i] = args[i];
    }
    c->n = na;
    c->valid = true;
    return RTM_OK;
}

rtm_status_t rtm_kexec_enqueue(rtm_kexec_t *x, uint32_t launch, const uint32_t *map_host,
                               uint32_t nmap, cl_event *ev)
{
    const rtm_kinst_t *k = x->k;
    rtm_klaunch_t kl;
    k->kernel->launch(k, launch, &kl);
    if (kl.entry >= x->prog.n_kern)
        return RTM_E_RANGE;
    if (launch >= x->launches || (nmap && nmap > (map_host ? k->plan.blocks_max : kl.blocks)))
        return RTM_E_RANGE;
    cl_kernel kern = x->prog.kern[kl.entry];
    const cl_uint nblk = nmap ? nmap : kl.blocks;
    const bool watched = rtm_kexec_watched(x, nblk);
    const cl_uint mapped = (nmap && map_host ? 1u : 0u) | (watched ? 2u : 0u);
    const cl_uint doff = launch * x->done_stride;
    if (x->fetch_dirty[launch] && fetches(x)) { /* enqueued before (an aborted run): reset
                                                   * its counter */
        const cl_uint zero = 0;
        RTM_CL_CHECK(clEnqueueFillBuffer(x->dev->exec, x->next, &zero, sizeof(zero),
                                         sizeof(cl_uint) + (size_t)doff / 16, sizeof(zero), 0,
                                         NULL, NULL),
                     "clEnqueueFillBuffer(next)");
    }
    x->fetch_dirty[launch] = 1;
    if (mapped & 1u) {
        RTM_CL_CHECK(clEnqueueWriteBuffer(x->dev->exec, x->map, CL_FALSE, 0,
                                          (size_t)nmap * sizeof(cl_uint), map_host, 0, NULL, NULL),
                     "clEnqueueWriteBuffer(map)");
    }
    const route_t rt = {x->map, x->next, x->end};
    rtm_status_t st = set_args(x, kern, kl.entry, launch, &rt, mapped, nblk, doff);
    if (st != RTM_OK)
        return st;
    if (nblk == 0)
        return RTM_OK;
    const size_t local = k->tune.wg, global = (size_t)launch_groups(x, nblk, watched) * local;
    RTM_CL_CHECK(clEnqueueNDRangeKernel(x->dev->exec, kern, 1, NULL, &global, &local, 0, NULL, ev),
                 "clEnqueueNDRangeKernel");
    return RTM_OK;
}

bool rtm_kexec_chunked(const rtm_kexec_t *x) { return x->chunk != 0; }

/* Releases the chunked run's events. */
static void chunks_reset(rtm_kexec_t *x)
{
    rtm_kexec_chunks_t *ck = &x->ck;
    rtm_ocl_put(&ck->gate), rtm_ocl_put(&ck->ev[0]), rtm_ocl_put(&ck->ev[1]);
    rtm_ocl_put(&ck->first);
    memset(ck, 0, sizeof(*ck));
}

#ifdef RTM_CHUNK_TRACE /* diagnostic builds only: each chunk's event and the host's
                        * release and end-seen times while rtm_ck_trace_on
                        * (board/h100/diag/kchunks.c prints the timeline) */
cl_event rtm_ck_trace_ev[256];
double rtm_ck_trace_rel[256], rtm_ck_trace_seen[256];
uint32_t rtm_ck_trace_n;
int rtm_ck_trace_on;
#endif

/* Releases the run's next chunk on its queue: the queue's end mark cleared (its previous
 * chunk has ended), exec2's first chunk behind the gate. */
static rtm_status_t chunk_release(rtm_kexec_t *x)
{
    rtm_kexec_chunks_t *ck = &x->ck;
    const uint32_t j = ck->rel, lo = j * x->chunk;
    const cl_uint nb = ck->nblk - lo < x->chunk ? ck->nblk - lo : x->chunk;
    const int q = (int)(j & 1u);
    rtm_klaunch_t kl;
    x->k->kernel->launch(x->k, 0, &kl);
    if (kl.entry >= x->prog.n_kern)
        return RTM_E_RANGE;
    cl_kernel kern = x->prog.kern[kl.entry];
    const route_t rt = {x->ck_map[(ck->mapped ? x->chunks_max : 0) + j], q ? x->next2 : x->next,
                        q ? x->end2 : x->end};
    /* a watcher (group 0) where the run asked for one (rtm_kexec_set_watch): one slot of
     * the device's for the chunk's length */
    const bool watched = x->watch && x->flag.watch && x->flag.watch2;
    rtm_status_t st = set_args(x, kern, kl.entry, 0, &rt, watched ? 3u : 1u, nb, 0);
    if (st != RTM_OK)
        return st;
    volatile cl_uint *mark = mark_of(x, q);
    if (mark)
        mark[0] = 0;
    cl_command_queue qq = q ? x->dev->exec2 : x->dev->exec;
    const bool gated = q && !ck->busy[1] && ck->gate;
    const size_t local = x->k->tune.wg, global = ((size_t)nb + (watched ? 1u : 0u)) * local;
    cl_event ev = NULL;
    RTM_CL_CHECK(clEnqueueNDRangeKernel(qq, kern, 1, NULL, &global, &local, gated ? 1 : 0,
                                        gated ? &ck->gate : NULL, &ev),
                 "clEnqueueNDRangeKernel(chunk)");
    if (!ck->first) {
        clRetainEvent(ev);
        ck->first = ev;
    }
    if (ck->ev[q])
        clReleaseEvent(ck->ev[q]);
    ck->ev[q] = ev;
    ck->busy[q] = true;
#ifdef RTM_CHUNK_TRACE
    if (rtm_ck_trace_on && rtm_ck_trace_n < 256) {
        clRetainEvent(ev);
        rtm_ck_trace_rel[rtm_ck_trace_n] = rtm_os_now_s();
        rtm_ck_trace_ev[rtm_ck_trace_n++] = ev;
    }
#endif
    ck->rel++;
    RTM_CL_CHECK(clFlush(qq), "clFlush(chunk)");
    return RTM_OK;
}

/* Has chunk j (in flight: the latest of its queue) ended? 1, 0, < 0 on error. */
static int chunk_ended(const rtm_kexec_t *x, uint32_t j, rtm_status_t *st)
{
    const int q = (int)(j & 1u);
    if (x->end_host)
        return chunk_marked(x, q) ? 1 : 0;
    return rtm_ocl_event_done(x->ck.ev[q], st);
}

rtm_status_t rtm_kexec_chunks_begin(rtm_kexec_t *x, const uint32_t *map_host, uint32_t nmap,
                                    cl_event gate)
{
    if (!x->chunk || nmap > x->k->plan.blocks_max)
        return RTM_E_ARG;
    chunks_reset(x);
    rtm_kexec_chunks_t *ck = &x->ck;
    rtm_klaunch_t kl;
    x->k->kernel->launch(x->k, 0, &kl);
    ck->nblk = nmap ? nmap : kl.blocks;
    ck->mapped = nmap && map_host;
    if (ck->mapped) { /* the map, then the chunks: behind it on both queues */
        RTM_CL_CHECK(clEnqueueWriteBuffer(x->dev->exec, x->map, CL_FALSE, 0,
                                          (size_t)nmap * sizeof(cl_uint), map_host, 0, NULL,
                                          &ck->gate),
                     "clEnqueueWriteBuffer(map)");
    } else if (gate) {
        clRetainEvent(gate);
        ck->gate = gate;
    }
    ck->n = (ck->nblk + x->chunk - 1) / x->chunk;
    return rtm_kexec_chunks_advance(x, true, NULL);
}

rtm_status_t rtm_kexec_chunks_advance(rtm_kexec_t *x, bool release, bool *all)
{
    rtm_kexec_chunks_t *ck = &x->ck;
    rtm_status_t st = RTM_OK;
    while (ck->ended < ck->rel) {
        const int s = chunk_ended(x, ck->ended, &st);
        if (s < 0)
            return st;
        if (s == 0)
            break;
#ifdef RTM_CHUNK_TRACE
        if (ck->ended < 256)
            rtm_ck_trace_seen[ck->ended] = rtm_os_now_s();
#endif
        ck->ended++;
    }
    while (release && ck->rel < ck->n && ck->rel < ck->ended + 2u) {
        st = chunk_release(x);
        if (st != RTM_OK)
            return st;
    }
    if (all)
        *all = ck->rel == ck->n;
    return RTM_OK;
}

uint32_t rtm_kexec_chunks_unreleased(const rtm_kexec_t *x)
{
    const uint64_t rel = (uint64_t)x->ck.rel * x->chunk;
    return rel < x->ck.nblk ? x->ck.nblk - (uint32_t)rel : 0;
}

int rtm_kexec_chunks_done(const rtm_kexec_t *x, rtm_status_t *st)
{
    for (int q = 0; q < 2; q++) {
        if (!x->ck.ev[q])
            continue;
        const int s = rtm_ocl_event_done(x->ck.ev[q], st);
        if (s != 1)
            return s;
    }
    return 1;
}

/* enqueue_all for a chunked x: the chunks released as a job releases them, behind the
 * last command on exec; `last` a marker on exec behind both queues. */
static rtm_status_t enqueue_chunks(rtm_kexec_t *x, uint32_t nmap, cl_event *first, cl_event *last)
{
    cl_event gate = NULL;
    RTM_CL_CHECK(clEnqueueMarkerWithWaitList(x->dev->exec, 0, NULL, &gate),
                 "clEnqueueMarkerWithWaitList");
    rtm_status_t st = rtm_kexec_chunks_begin(x, NULL, nmap, gate);
    clReleaseEvent(gate);
    const bool cpu = (x->dev->info.type & CL_DEVICE_TYPE_CPU) != 0;
    bool all = false;
    while (st == RTM_OK && !all) {
        st = rtm_kexec_chunks_advance(x, true, &all);
        if (cpu && st == RTM_OK && !all) /* the kernels need the cores */
            sched_yield();
    }
    if (st != RTM_OK)
        return st;
    clRetainEvent(x->ck.first);
    *first = x->ck.first;
    const bool two = x->ck.ev[1] != NULL;
    RTM_CL_CHECK(clEnqueueMarkerWithWaitList(x->dev->exec, two ? 1 : 0, two ? &x->ck.ev[1] : NULL,
                                             last),
                 "clEnqueueMarkerWithWaitList");
    return RTM_OK;
}

rtm_status_t rtm_kexec_enqueue_all(rtm_kexec_t *x, uint32_t nmap, cl_event *first, cl_event *last)
{
    *first = *last = NULL;
    if (x->chunk)
        return enqueue_chunks(x, nmap, first, last);
    const uint32_t n = x->launches;
    for (uint32_t l = 0; l < n; l++) {
        cl_event ev = NULL;
        const bool want = !*first || l + 1 == n;
        const rtm_status_t st = rtm_kexec_enqueue(x, l, NULL, nmap, want ? &ev : NULL);
        if (st != RTM_OK)
            return st;
        if (ev && !*first)
            *first = ev;
        else if (ev)
            *last = ev;
    }
    if (*first && !*last && n > 1) /* the last launch had no blocks: its place in the queue */
        RTM_CL_CHECK(clEnqueueMarkerWithWaitList(x->dev->exec, 0, NULL, last),
                     "clEnqueueMarkerWithWaitList");
    return RTM_OK;
}

rtm_status_t rtm_kexec_read_outputs(rtm_kexec_t *x, cl_event *first, cl_event *last)
{
    return rtm_kexec_read_outputs_on(x, x->dev->exec, 0, NULL, first, last);
}

rtm_status_t rtm_kexec_read_outputs_on(rtm_kexec_t *x, cl_command_queue q, cl_uint n_after,
                                       const cl_event *after, cl_event *first, cl_event *last)
{
    const rtm_kinst_t *k = x->k;
    uint32_t n_out = rtm_kinst_bufs(k, RTM_BUF_OUT);
    for (uint32_t i = 0; i < k->plan.n_bufs; i++) {
        if (!(k->plan.buf[i].dir & RTM_BUF_OUT))
            continue;
        cl_event ev = NULL;
        RTM_CL_CHECK(clEnqueueReadBuffer(q, x->buf[i], CL_FALSE, 0, k->plan.buf[i].bytes,
                                         k->host[i], n_after, n_after ? after : NULL,
                                         want_event(&ev, --n_out == 0, first, last)),
                     "clEnqueueReadBuffer");
        keep(&ev, first, last);
    }
    return RTM_OK;
}

rtm_status_t rtm_kexec_warm(rtm_kexec_t *x)
{
    if (x->opts.variant == RTM_KEXEC_ORIGINAL) /* no entry check: it would run in full */
        return RTM_OK;
    const rtm_kinst_t *k = x->k;
    rtm_status_t st = rtm_kexec_clear(x, NULL, NULL);
    if (st == RTM_OK)
        st = rtm_abortflag_raise(&x->flag);
    if (st == RTM_OK)
        st = rtm_abortflag_settle(&x->flag);
    if (st == RTM_OK)
        RTM_CL_CHECK(clFinish(x->dev->exec), "clFinish");
    bool warmed[RTM_KENTRY_MAX] = {false};
    for (uint32_t l = 0; st == RTM_OK && l < x->launches; l++) {
        rtm_klaunch_t kl;
        k->kernel->launch(k, l, &kl);
        if (kl.entry >= RTM_KENTRY_MAX || warmed[kl.entry])
            continue;
        warmed[kl.entry] = true;
        st = rtm_kexec_enqueue(x, l, NULL, 0, NULL);
    }
    if (st != RTM_OK)
        return st;
    RTM_CL_CHECK(clFinish(x->dev->exec), "clFinish");
    st = rtm_kexec_clear(x, NULL, NULL);
    if (st != RTM_OK)
        return st;
    RTM_CL_CHECK(clFinish(x->dev->exec), "clFinish");
    return RTM_OK;
}

static double span(cl_event a, cl_event b) { return (double)rtm_ocl_span_ns(a, b) * 1e-9; }

/* The kernels' last event of a run whose launches gave `last`: a chunked run's chunk that
 * ended later by the device clock (the closing marker's END stamp, on the H100, came
 * 2.4 ms before the chunks on exec2 ended: session 64 call b), else `last`. */
static cl_event kernels_end(const rtm_kexec_t *x, cl_event last)
{
    const rtm_kexec_chunks_t *ck = &x->ck;
    return x->chunk && ck->n && ck->ev[0] ? rtm_ocl_later_end(ck->ev[0], ck->ev[1]) : last;
}

rtm_status_t rtm_kexec_run_kernels(rtm_kexec_t *x, uint32_t nmap, double *kernel_s, double *enq_s)
{
    cl_event k0 = NULL, k1 = NULL;
    rtm_status_t st = rtm_kexec_clear(x, NULL, NULL);
    const double h0 = rtm_os_now_s();
    if (st == RTM_OK)
        st = rtm_kexec_enqueue_all(x, nmap, &k0, &k1);
    if (enq_s)
        *enq_s = rtm_os_now_s() - h0;
    const cl_int err = rtm_ocl_finish_exec(x->dev);
    if (st == RTM_OK && err != CL_SUCCESS)
        st = rtm_ocl_fail("clFinish", err, __FILE__, __LINE__);
    *kernel_s = st == RTM_OK ? span(k0, kernels_end(x, k1 ? k1 : k0)) : 0.0;
    rtm_ocl_put(&k0);
    rtm_ocl_put(&k1);
    return st;
}

rtm_status_t rtm_kexec_run(rtm_kexec_t *x, rtm_kexec_timing_t *t)
{
    cl_event in0 = NULL, in1 = NULL, k0 = NULL, k1 = NULL, out0 = NULL, out1 = NULL;
    memset(t, 0, sizeof(*t));
    const double w0 = rtm_os_now_s();
    rtm_status_t st = rtm_kexec_write_inputs(x, &in0, &in1);
    if (st == RTM_OK)
        st = rtm_kexec_enqueue_all(x, 0, &k0, &k1);
    if (st == RTM_OK)
        st = rtm_kexec_read_outputs(x, &out0, &out1);
    const cl_int err = rtm_ocl_finish_exec(x->dev);
    t->wall_s = rtm_os_now_s() - w0;
    if (st == RTM_OK && err != CL_SUCCESS)
        st = rtm_ocl_fail("clFinish", err, __FILE__, __LINE__);
    if (st == RTM_OK) {
        cl_event kend = kernels_end(x, k1 ? k1 : k0);
        t->in_s = span(in0, in1);
        t->kernel_s = span(k0, kend);
        t->out_s = span(out0, out1);
        t->span_s = span(in0 ? in0 : k0, out1 ? out1 : kend);
        t->gap_kernel_s = (double)rtm_ocl_gap_ns(in1 ? in1 : in0, k0) * 1e-9;
        t->gap_out_s = (double)rtm_ocl_gap_ns(kend, out0) * 1e-9;
    }
    rtm_ocl_put(&in0), rtm_ocl_put(&in1), rtm_ocl_put(&k0), rtm_ocl_put(&k1), rtm_ocl_put(&out0), rtm_ocl_put(&out1);
    return st;
}
