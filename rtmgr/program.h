/* program.h — OpenCL programs: kernel source loading and building with -D options.
 *
 * A program is built once per (kernel, device, tuning) at start-up; after start no
 * program is built. Options always carry -I<kernel dir> -DRTM_WG=… -DRTM_VEC=… and the
 * kernel's own options. On a build failure the build log for that device is printed
 * with the kernel's name, and the caller falls back to the CPU twin. */
#ifndef RTM_PROGRAM_H
#define RTM_PROGRAM_H

#include "kernel.h"
#include "ocl.h"

typedef struct {
    cl_program prog;
    cl_kernel kern[RTM_KENTRY_MAX];
    uint32_t n_kern;
    double build_s;      /* wall time of the build (or binary load) */
    int from_cache;      /* 1 when loaded from the binary cache */
    char options[512];   /* the options it was built with */
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

/* Builds kernel k's program for device d with k->tune; creates all entry points. Init only. */
rtm_status_t rtm_program_build(rtm_ocl_dev_t *d, const rtm_kinst_t *k, rtm_program_t *p);

/* Releases the program and its kernels. Safe on a zeroed struct. */
void rtm_program_release(rtm_program_t *p);

#endif
