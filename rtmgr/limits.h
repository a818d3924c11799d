/* limits.h — every compile-time limit of rtmgr, in one place.
 *
 * Object tables are sized by these limits; nothing grows at run time. Each limit may
 * be overridden from CMake (-DRTM_MAX_TASKS=…); the #error checks keep them sane. */
#ifndef RTM_LIMITS_H
#define RTM_LIMITS_H

/* Tasks in one task set. */
#ifndef RTM_MAX_TASKS
#define RTM_MAX_TASKS 64
#endif
/* OpenCL devices rtmgr drives at once. */
#ifndef RTM_MAX_DEVICES
#define RTM_MAX_DEVICES 8
#endif
/* OpenCL platforms looked at during discovery. */
#ifndef RTM_MAX_PLATFORMS
#define RTM_MAX_PLATFORMS 8
#endif
/* CPU worker threads of the static pool. */
#ifndef RTM_MAX_WORKERS
#define RTM_MAX_WORKERS 64
#endif
/* Stack of each CPU worker thread (bytes): the CPU twins keep their per-block arrays
 * (the OpenCL kernel's local memory) on it. Locked with the rest under mlockall. */
#ifndef RTM_WORKER_STACK_BYTES
#define RTM_WORKER_STACK_BYTES (2u * 1024u * 1024u)
#endif
/* Jobs in flight over all queues (also bounded by limits.max_jobs in the task set). */
#ifndef RTM_MAX_JOBS
#define RTM_MAX_JOBS 4096
#endif
/* Targets in the traffic picture (AIS or synthetic). */
#ifndef RTM_MAX_TARGETS
#define RTM_MAX_TARGETS 16384
#endif
/* Names (tasks, devices, kernels) including the terminating NUL. */
#define RTM_NAME_MAX 64
/* Paths including the terminating NUL. */
#define RTM_PATH_MAX 1024
/* Size keys one kernel may define (e.g. targets, steps, dt_ms, courses, speeds, d_safe_m,
 * turn_mdeg_s of the manoeuvre search). */
#define RTM_SIZE_KEYS_MAX 8
/* Buffers one kernel instance may use. */
#define RTM_KBUF_MAX 8
/* OpenCL entry points in one kernel source. */
#define RTM_KENTRY_MAX 4
/* Kernels in the catalogue. */
#define RTM_MAX_KERNELS 32
/* Arguments one kernel launch may take after the standard block arguments. */
#define RTM_KARG_MAX 16
/* Kernel launches of one job a preemptible job keeps enqueued ahead (rtmgr/preempt.h). */
#define RTM_PREEMPT_WINDOW_MAX 64
/* Largest configuration file accepted (bytes); larger files fail fast. */
#define RTM_CONFIG_BYTES_MAX (1024 * 1024)
/* Deepest YAML nesting accepted. */
#define RTM_CONFIG_DEPTH_MAX 16
/* YAML nodes (scalars, mappings, sequences) in one configuration file. */
#define RTM_CONFIG_NODES_MAX 8192

#if RTM_MAX_TASKS < 1 || RTM_MAX_TASKS > 1024
#error "RTM_MAX_TASKS must be in 1..1024"
#endif
#if RTM_MAX_DEVICES < 1 || RTM_MAX_DEVICES > 64
#error "RTM_MAX_DEVICES must be in 1..64"
#endif
#if RTM_MAX_WORKERS < 1 || RTM_MAX_WORKERS > 1024
#error "RTM_MAX_WORKERS must be in 1..1024"
#endif
#if RTM_WORKER_STACK_BYTES < 65536
#error "RTM_WORKER_STACK_BYTES must be at least 64 KiB"
#endif
#if RTM_MAX_JOBS < RTM_MAX_TASKS
#error "RTM_MAX_JOBS must be at least RTM_MAX_TASKS"
#endif
#if RTM_MAX_TARGETS < 1 || RTM_MAX_TARGETS > (1 << 20)
#error "RTM_MAX_TARGETS must be in 1..2^20"
#endif

#endif
