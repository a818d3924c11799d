/* program.c — loads kernel sources and builds OpenCL programs (see program.h).
 * Owns cl_program and cl_kernel objects. Init-time only: reads files, allocates. */
#include "program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fsperm.h"

/* The installed layout beside the running binary: BIN/../share/rtmgr/kernels (so that
 * a package unpacked anywhere, e.g. by `dpkg -x` into a test root, finds its own
 * kernels); NULL when there is none. */
static const char *exe_kernel_dir(void)
{
    static char dir[RTM_PATH_MAX];
    static int done;
    if (done)
        return dir[0] ? dir : NULL;
    done = 1;
    char exe[RTM_PATH_MAX], guess[RTM_PATH_MAX + 32];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = '\0';
    snprintf(guess, sizeof(guess), "%s/../share/rtmgr/kernels", exe);
    char *real = realpath(guess, NULL);
    char probe[RTM_PATH_MAX + 16];
    struct stat st;
    if (!real || strlen(real) >= sizeof(dir) ||
        snprintf(probe, sizeof(probe), "%s/rtm_block.h", real) >= (int)sizeof(probe) ||
        stat(probe, &st) != 0) {
        free(real);
        return NULL;
    }
    snprintf(dir, sizeof(dir), "%s", real);
    free(real);
    return dir;
}

const char *rtm_program_kernel_dir(void)
{
    const char *env = getenv("RTM_KERNEL_DIR");
    if (env && *env)
        return env;
    const char *installed = exe_kernel_dir();
    if (installed)
        return installed;
    struct stat st;
    if (stat(RTM_SOURCE_KERNEL_DIR "/rtm_block.h", &st) == 0)
        return RTM_SOURCE_KERNEL_DIR;
    return RTM_INSTALL_KERNEL_DIR;
}

rtm_status_t rtm_program_source_path(const rtm_kernel_t *kernel, char *path, size_t len)
{
    const char *dir = rtm_program_kernel_dir(), *src = kernel ? kernel->source : NULL;
    if (!src || !*src || strchr(src, '/') || strcmp(src, "..") == 0) {
        fprintf(stderr, "rtmgr: kernel source '%s' is not a file name: kernels are loaded only "
                        "from the kernel directory %s\n", src ? src : "(null)", dir);
        return RTM_E_ARG;
    }
    if (snprintf(path, len, "%s/%s", dir, src) >= (int)len)
        return RTM_E_RANGE;
    char why[RTM_PATH_MAX + 64];
    rtm_status_t st = rtm_fsperm_check_dir(dir, why, sizeof(why));
    if (st == RTM_OK)
        st = rtm_fsperm_check(path, why, sizeof(why));
    if (st == RTM_E_OS_PERM) {
        fprintf(stderr, "rtmgr: refused kernel source %s: %s; anyone could change what rtmgr "
                        "runs (chmod o-w it)\n", path, why);
        return RTM_E_CFG_PERM;
    }
    if (st != RTM_OK) {
        fprintf(stderr, "rtmgr: kernel source %s: %s\n", path, why);
        return RTM_E_IO;
    }
    return RTM_OK;
}

/* Reads a whole file into a malloc'd NUL-terminated buffer. */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        const long n = ftell(f);
        if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1))) {
            if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
                free(buf);
                buf = NULL;
            } else {
                buf[n] = '\0';
                *len = (size_t)n;
            }
        }
    }
    fclose(f);
    return buf;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void print_build_log(rtm_ocl_dev_t *d, cl_program prog, const char *kernel)
{
    size_t n = 0;
    clGetProgramBuildInfo(prog, d->info.id, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
    char *log = n ? malloc(n + 1) : NULL;
    if (log && clGetProgramBuildInfo(prog, d->info.id, CL_PROGRAM_BUILD_LOG, n, log, NULL) == CL_SUCCESS) {
        log[n] = '\0';
        fprintf(stderr, "rtmgr: build log of kernel '%s' on device '%s':\n%s\n", kernel,
                d->info.name, log);
    }
    free(log);
}

rtm_status_t rtm_program_build(rtm_ocl_dev_t *d, const rtm_kinst_t *k, rtm_program_t *p)
{
    memset(p, 0, sizeof(*p));
    const char *dir = rtm_program_kernel_dir();
    char path[RTM_PATH_MAX];
    const rtm_status_t pst = rtm_program_source_path(k->kernel, path, sizeof(path));
    if (pst != RTM_OK)
        return pst;
    size_t len = 0;
    char *src = read_file(path, &len);
    if (!src) {
        fprintf(stderr, "rtmgr: cannot read kernel source %s\n", path);
        return RTM_E_IO;
    }
    char extra[256] = "";
    if (k->kernel->options)
        k->kernel->options(k, extra, sizeof(extra));
    snprintf(p->options, sizeof(p->options), "-I%s -DRTM_WG=%u -DRTM_VEC=%u %s", dir,
             k->tune.wg, k->tune.vec, extra);
    cl_int err = CL_SUCCESS;
    const char *srcs[] = {src};
    const double t0 = now_s();
    p->prog = clCreateProgramWithSource(d->ctx, 1, srcs, &len, &err);
    free(src);
    RTM_CL_CHECK(err, "clCreateProgramWithSource");
    err = clBuildProgram(p->prog, 1, &d->info.id, p->options, NULL, NULL);
    p->build_s = now_s() - t0;
    if (err != CL_SUCCESS) {
        print_build_log(d, p->prog, k->kernel->name);
        rtm_program_release(p);
        return rtm_ocl_fail("clBuildProgram", err, __FILE__, __LINE__);
    }
    for (uint32_t i = 0; i < RTM_KENTRY_MAX && k->kernel->entries[i]; i++) {
        p->kern[i] = clCreateKernel(p->prog, k->kernel->entries[i], &err);
        if (err != CL_SUCCESS) {
            fprintf(stderr, "rtmgr: kernel '%s' entry '%s'\n", k->kernel->name,
                    k->kernel->entries[i]);
            rtm_program_release(p);
            return rtm_ocl_fail("clCreateKernel", err, __FILE__, __LINE__);
        }
        p->n_kern = i + 1;
    }
    return RTM_OK;
}

void rtm_program_release(rtm_program_t *p)
{
    for (uint32_t i = 0; i < RTM_KENTRY_MAX; i++)
        if (p->kern[i])
            clReleaseKernel(p->kern[i]);
    if (p->prog)
        clReleaseProgram(p->prog);
    memset(p->kern, 0, sizeof(p->kern));
    p->prog = NULL;
    p->n_kern = 0;
}
