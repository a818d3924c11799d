/* program.h — OpenCL programs: kernel source loading, building with -D options, and the
 * program binary cache.
 *
 * A program is built once per (kernel, device, tuning) at start-up; after start no
 * program is built. Options always carry -I<kernel dir> -DRTM_WG=… -DRTM_VEC=… and the
 * kernel's own options. On a build failure the build log for that device is printed
 * with the kernel's name and RTM_E_CL_BUILD is returned: the caller lets the task fall
 * back to the CPU twin.
 *
 * Binary cache: with a cache directory, a built program's binary is stored as
 * `<dir>/<kernel>-<key>.bin`, where the key is a 64-bit FNV-1a hash of the kernel
 * source, every header it includes (transitively, `#include "…"` under the kernel
 * directory), the build options, the platform, device name and version, the driver
 * version and the rtmgr version. A later build with the same key loads the binary
 * (clCreateProgramWithBinary + clBuildProgram) instead of compiling. Each file carries a
 * header (magic, key, size, checksum of the binary, device and driver); a file that is
 * short, corrupt or does not match is removed and the program rebuilt from source.
 * Files are written to a temporary name and renamed into place, so a reader never sees
 * a partial file. */
#ifndef RTM_PROGRAM_H
#define RTM_PROGRAM_H

#include "kernel.h"
#include "ocl.h"

/* Build options' longest text. */
#define RTM_PROGRAM_OPTIONS_MAX 512

typedef struct {
    cl_program prog;
    cl_kernel kern[RTM_KENTRY_MAX];
    uint32_t n_kern;
    double build_s;      /* wall time of the build (or binary load), kernels created */
    int from_cache;      /* 1 when loaded from the binary cache */
    uint64_t key;        /* cache key (0 when built without a cache or RTM_CL_DUMP) */
    uint32_t jit_cap;    /* NVIDIA: the register cap its machine code was built with, the
                          * occupancy guard's (-cl-nv-maxrregcount; 0 none) */
    char options[RTM_PROGRAM_OPTIONS_MAX]; /* the options it was built with */
} rtm_program_t;

/* Directory holding the .cl files: $RTM_KERNEL_DIR; else share/rtmgr/kernels beside the
 * running binary (BIN/../share/rtmgr/kernels: an installed or unpacked package); else
 * the source tree's kernels/; else the configured install prefix's. Init only. */
const char *rtm_program_kernel_dir(void);

/* The path of a kernel's source in the kernel directory, after the checks: the source is
 * a plain file name (kernels are loaded from that directory only), and neither the
 * directory, anything in it, nor a directory above it is writable by others
 * (fsperm.h). RTM_OK; RTM_E_CFG_PERM or RTM_E_IO (message on stderr naming the path);
 * RTM_E_ARG for a name with a '/'. Init only. */
rtm_status_t rtm_program_source_path(const rtm_kernel_t *kernel, char *path, size_t len);

/* The default binary-cache directory, for callers that want one: $RTM_CACHE_DIR, else
 * /var/lib/rtmgr when rtmgr runs installed (kernels from the install prefix), else
 * $XDG_CACHE_HOME/rtmgr, else $HOME/.cache/rtmgr. Writes it into buf; RTM_E_NOTFOUND
 * when none can be named (no HOME), RTM_E_RANGE when buf is short. Init only. */
rtm_status_t rtm_program_cache_dir(char *buf, size_t len);

/* Builds kernel k's program for device d with k->tune and creates all entry points,
 * through the binary cache in `cache_dir` (NULL or "" = no cache; the directory is
 * created when missing; a cache that cannot be written costs one warning, never the
 * build). `extra` build options are appended (NULL = none; e.g. kexec's block-control
 * options). Returns RTM_OK, RTM_E_IO (source unreadable), RTM_E_CL_BUILD (compile or
 * entry-point failure, build log printed) or RTM_E_CL. Init only. */
rtm_status_t rtm_program_build_cached(rtm_ocl_dev_t *d, const rtm_kinst_t *k, const char *extra,
                                      const char *cache_dir, rtm_program_t *p);

/* True when rtm_program_build_cached(d, k, extra, cache_dir, ·) would find k's program
 * in the binary cache: its file exists (the file itself is checked when loaded). Builds
 * nothing; reads the sources to compute the key. Init only. */
bool rtm_program_cached(rtm_ocl_dev_t *d, const rtm_kinst_t *k, const char *extra,
                        const char *cache_dir);

/* rtm_program_build_cached() without a cache: always compiles from source. Init only. */
rtm_status_t rtm_program_build_ex(rtm_ocl_dev_t *d, const rtm_kinst_t *k, const char *extra,
                                  rtm_program_t *p);
/* rtm_program_build_ex() without extra options. Init only. */
rtm_status_t rtm_program_build(rtm_ocl_dev_t *d, const rtm_kinst_t *k, rtm_program_t *p);
/* Same, with `extra` build options appended (the block-control options of kexec:
 * -DRTM_PERSIST=… -DRTM_POLL_EVERY=…; NULL = none). Init only. */
rtm_status_t rtm_program_build_ex(rtm_ocl_dev_t *d, const rtm_kinst_t *k, const char *extra,
                                  rtm_program_t *p);

/* Releases the program and its kernels. Safe on a zeroed struct. */
void rtm_program_release(rtm_program_t *p);

/* The NVIDIA occupancy guard's two rules (program.c; exposed for the tests).
 * From a build log made with -cl-nv-verbose: the most registers any entry uses (0 when
 * the log names none); *spills set when an entry spills. */
uint32_t rtm_program_log_regs(const char *log, bool *spills);
/* The register cap (a multiple of 8, >= 16) that keeps one more work-group of wg
 * work-items resident per SM than `regs` registers a work-item do, when it is at most one
 * allocation step (8) below them; 0 when none (already limited by work-items, or too far). */
uint32_t rtm_program_reg_cap(uint32_t regs, uint32_t wg, uint32_t regs_sm, uint32_t threads_sm);

#endif
