/* kexec.h — a kernel instance made executable on one OpenCL device: its program, its
 * device buffers, and the block-control buffers of rtm_block.h (abort flag,
 * completed-block array, block map).
 *
 * Created at start-up (allocates device memory, builds the program); afterwards the
 * enqueue functions allocate nothing and build nothing. Host buffers are the
 * instance's own (k->host). */
#ifndef RTM_KEXEC_H
#define RTM_KEXEC_H

#include "kernel.h"
#include "ocl.h"
#include "program.h"

typedef struct {
    double in_s;     /* host -> device transfers, event-profiled */
    double kernel_s; /* first kernel start to last kernel end, event-profiled */
    double out_s;    /* device -> host transfers, event-profiled */
    double wall_s;   /* host monotonic clock around the whole job */
} rtm_kexec_timing_t;

typedef struct {
    rtm_ocl_dev_t *dev;
    const rtm_kinst_t *k;
    rtm_program_t prog;
    cl_mem buf[RTM_KBUF_MAX];
    cl_mem abort_flag; /* int in device memory: 0 run, 1 abort */
    cl_mem done;       /* uchar[plan.blocks_max]: 1 = block completed */
    cl_mem map;        /* uint[plan.blocks_max]: block ids of a resumed launch */
} rtm_kexec_t;

/* Builds k's program on d and creates every device buffer. k must be planned and
 * bound. Init only. */
rtm_status_t rtm_kexec_create(rtm_kexec_t *x, rtm_ocl_dev_t *d, const rtm_kinst_t *k);
/* rtm_kexec_create() through the program binary cache in `cache_dir` (NULL = none; see
 * rtm_program_build_cached). x->prog.from_cache / build_s tell what happened. Init only. */
rtm_status_t rtm_kexec_create_cached(rtm_kexec_t *x, rtm_ocl_dev_t *d, const rtm_kinst_t *k,
                                     const char *cache_dir);
/* Releases everything rtm_kexec_create made. Safe on a zeroed struct. */
void rtm_kexec_destroy(rtm_kexec_t *x);

/* Enqueues the input transfers (RTM_BUF_IN / INOUT) and clears the abort flag and the
 * completed-block array. `ev` gets the last transfer's event (may be NULL). */
rtm_status_t rtm_kexec_write_inputs(rtm_kexec_t *x, cl_event *first, cl_event *last);
/* Enqueues launch `launch`; with nmap > 0 only the blocks listed in map_host run (the
 * map is written first). `ev` gets the kernel's event (may be NULL). Real-time safe. */
rtm_status_t rtm_kexec_enqueue(rtm_kexec_t *x, uint32_t launch, const uint32_t *map_host,
                               uint32_t nmap, cl_event *ev);
/* Enqueues the output transfers (RTM_BUF_OUT / INOUT). */
rtm_status_t rtm_kexec_read_outputs(rtm_kexec_t *x, cl_event *first, cl_event *last);

/* Runs one whole job (inputs, every launch, outputs) and waits; fills `t`. */
rtm_status_t rtm_kexec_run(rtm_kexec_t *x, rtm_kexec_timing_t *t);

#endif
