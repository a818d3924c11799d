/* program.c — loads kernel sources, builds OpenCL programs and keeps the program binary
 * cache (see program.h). Owns cl_program and cl_kernel objects and the cache files.
 * Init-time only: reads and writes files, allocates.
 *
 * Invariants: a cache file is only ever created by rename() of a complete temporary
 * file; a file that fails any check (magic, key, device, driver, size, checksum,
 * clCreateProgramWithBinary, clBuildProgram) is removed before the source build, so a
 * bad entry costs one rebuild, never a failure. */
#include "program.h"
#include "os.h"

#include <errno.h>
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

/* Headers hashed into the cache key per program (the source counts as one). */
#define RTM_PROGRAM_FILES_MAX 16
/* Format tag of cache files; bump when the header layout changes. */
/* 2: the header records the register cap the binary is JIT-compiled with */
static const char cache_magic[8] = {'R', 'T', 'M', 'P', 'B', 'I', 'N', '2'};

/* Header of a cache file; the binary follows it. Native layout: the cache is local. */
typedef struct {
    char magic[8];
    uint64_t key;   /* cache key of the program (also in the file name) */
    uint64_t bytes; /* binary length */
    uint64_t check; /* FNV-1a 64 of the binary */
    char device[128];
    char driver[128];
    uint32_t jit_cap; /* NVIDIA: -cl-nv-maxrregcount the binary is built with (0: none;
                       * the header is zeroed before it is filled: padding included) */
} cache_header_t;

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

rtm_status_t rtm_program_cache_dir(char *buf, size_t len)
{
    const char *env = getenv("RTM_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (env && *env)
        n = snprintf(buf, len, "%s", env);
    else if (strcmp(rtm_program_kernel_dir(), RTM_INSTALL_KERNEL_DIR) == 0)
        n = snprintf(buf, len, "/var/lib/rtmgr");
    else if (xdg && xdg[0] == '/')
        n = snprintf(buf, len, "%s/rtmgr", xdg);
    else if (home && *home)
        n = snprintf(buf, len, "%s/.cache/rtmgr", home);
    else
        return RTM_E_NOTFOUND;
    return n >= 0 && (size_t)n < len ? RTM_OK : RTM_E_RANGE;
}

/* FNV-1a 64 over n bytes, continuing from h. */
static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}
#define FNV_BASIS 0xcbf29ce484222325ull

/* Hashes a string with its length, so that adjacent fields cannot run together. */
static uint64_t fnv1a_field(uint64_t h, const char *s, size_t n)
{
    const uint64_t n64 = n;
    return fnv1a(fnv1a(h, &n64, sizeof(n64)), s, n);
}

/* Appends to names[] each `#include "x"` of text not listed yet (up to the limit). */
static void scan_includes(const char *text, char names[][RTM_NAME_MAX], uint32_t *n)
{
    for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        const char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s++ != '#')
            continue;
        while (*s == ' ' || *s == '\t')
            s++;
        if (strncmp(s, "include", 7) != 0)
            continue;
        s += 7;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s++ != '"')
            continue;
        const char *e = strchr(s, '"');
        const char *nl = strchr(s, '\n');
        if (!e || (nl && nl < e) || e == s || (size_t)(e - s) >= RTM_NAME_MAX)
            continue;
        char name[RTM_NAME_MAX];
        memcpy(name, s, (size_t)(e - s));
        name[e - s] = '\0';
        uint32_t i = 0;
        while (i < *n && strcmp(names[i], name) != 0)
            i++;
        if (i == *n && *n < RTM_PROGRAM_FILES_MAX)
            snprintf(names[(*n)++], RTM_NAME_MAX, "%s", name);
    }
}

/* The cache key: source, every header it includes (transitively), options, platform,
 * device, device and driver versions, rtmgr version. */
static uint64_t cache_key(const rtm_ocl_dev_t *d, const char *dir, const char *src,
                          size_t len, const char *options)
{
    uint64_t h = FNV_BASIS;
    h = fnv1a_field(h, cache_magic, sizeof(cache_magic));
    h = fnv1a_field(h, src, len);
    char names[RTM_PROGRAM_FILES_MAX][RTM_NAME_MAX];
    uint32_t n = 0;
    scan_includes(src, names, &n);
    for (uint32_t i = 0; i < n; i++) { /* n grows as headers name more headers */
        char path[RTM_PATH_MAX];
        if (snprintf(path, sizeof(path), "%s/%s", dir, names[i]) >= (int)sizeof(path))
            continue; /* cannot name it: the build itself will fail on it */
        size_t hl = 0;
        char *text = rtm_os_read_file(path, 0, &hl);
        h = fnv1a_field(h, names[i], strlen(names[i]));
        if (text) {
            h = fnv1a_field(h, text, hl);
            scan_includes(text, names, &n);
            free(text);
        }
    }
    const char *fields[] = {options,         d->info.platform_name, d->info.name,
                            d->info.version, d->info.driver,        RTM_VERSION};
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
        h = fnv1a_field(h, fields[i], strlen(fields[i]));
    return h;
}

/* mkdir -p; RTM_OK when the directory exists afterwards. */
static rtm_status_t make_dirs(const char *dir)
{
    char path[RTM_PATH_MAX];
    if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path))
        return RTM_E_RANGE;
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST)
            return RTM_E_IO;
        *p = '/';
    }
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        return RTM_E_IO;
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? RTM_OK : RTM_E_IO;
}

/* One warning per process about an unusable cache directory. */
static void warn_cache(const char *what, const char *path)
{
    static int warned;
    if (warned)
        return;
    warned = 1;
    fprintf(stderr, "rtmgr: warning: program cache %s %s (%s); building from source\n", what,
            path, strerror(errno));
}

/* The build log of prog on d (allocated, NUL-terminated; NULL when unavailable). */
static char *build_log(rtm_ocl_dev_t *d, cl_program prog)
{
    size_t n = 0;
    if (clGetProgramBuildInfo(prog, d->info.id, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) != CL_SUCCESS)
        return NULL;
    char *log = malloc(n + 1);
    if (log && clGetProgramBuildInfo(prog, d->info.id, CL_PROGRAM_BUILD_LOG, n, log, NULL) !=
                   CL_SUCCESS) {
        free(log);
        return NULL;
    }
    if (log)
        log[n] = '\0';
    return log;
}

static void print_build_log(rtm_ocl_dev_t *d, cl_program prog, const char *kernel)
{
    char *log = build_log(d, prog);
    if (!log)
        fprintf(stderr, "rtmgr: no build log of kernel '%s' on device '%s'\n", kernel,
                d->info.name);
    else
        fprintf(stderr, "rtmgr: build log of kernel '%s' on device '%s':\n%s\n", kernel,
                d->info.name, log);
    free(log);
}

/* ---- NVIDIA occupancy guard ------------------------------------------------------
 * The abort machinery (the flag's address, the pending flag, the strip bounds) adds a few
 * live registers to a kernel's loop. On an NVIDIA GPU a build that ends just past an
 * allocation step (8 registers a thread) keeps one work-group fewer resident per SM:
 * session 14 on the H100, matrix_mul's polled build used 40 registers against the
 * original's 32, 6 groups of 256 per SM instead of 8, and cost 20.9 % (its persistent
 * build 97.8 %); capped at 32 by ptxas (no spills) 7.0 % and 2.2 %. So NVIDIA builds
 * are made with -cl-nv-verbose, and a build whose occupancy one allocation step would
 * raise is rebuilt with -cl-nv-maxrregcount at that step, kept only without spills. */

static uint32_t reg_alloc(uint32_t regs) { return (regs + 7u) / 8u * 8u; }

uint32_t rtm_program_log_regs(const char *log, bool *spills)
{
    uint32_t most = 0;
    *spills = false;
    for (const char *q = log; q && (q = strstr(q, "Used ")) != NULL; q += 5) {
        char *end = NULL;
        const unsigned long r = strtoul(q + 5, &end, 10);
        if (end != q + 5 && strncmp(end, " registers", 10) == 0 && r > most)
            most = (uint32_t)r;
    }
    for (const char *q = log; q && (q = strstr(q, " bytes spill stores")) != NULL; q++) {
        const char *b = q;
        while (b > log && b[-1] >= '0' && b[-1] <= '9')
            b--;
        if (b < q && strtoul(b, NULL, 10) > 0)
            *spills = true;
    }
    return most;
}

uint32_t rtm_program_reg_cap(uint32_t regs, uint32_t wg, uint32_t regs_sm, uint32_t threads_sm)
{
    if (!regs || !wg || wg > threads_sm)
        return 0;
    const uint32_t by_threads = threads_sm / wg;
    const uint32_t groups = regs_sm / (reg_alloc(regs) * wg);
    if (groups >= by_threads)
        return 0;
    const uint32_t cap = regs_sm / ((groups + 1u) * wg) / 8u * 8u;
    return cap >= 16u && reg_alloc(regs) - cap <= 8u ? cap : 0;
}

/* Registers and resident work-items per SM of an NVIDIA device (cl_nv_device_attribute_query;
 * the work-items from the compute capability: 1024 on 7.5, 1536 on 8.6-8.9 and 12.x,
 * else 2048). */
static void nv_sm(const rtm_ocl_dev_t *d, uint32_t *regs_sm, uint32_t *threads_sm)
{
    const cl_uint major = d->info.nv_cc_major, minor = d->info.nv_cc_minor;
    cl_uint regs = 0;
    clGetDeviceInfo(d->info.id, 0x4002 /* registers per block */, sizeof(regs), &regs, NULL);
    *regs_sm = regs ? regs : 65536u;
    *threads_sm = major == 7 && minor == 5 ? 1024u
                  : (major == 8 && minor >= 6) || major == 12 ? 1536u
                                                               : 2048u;
}

/* Creates a program from `src` into *out and builds it with `opts`: the first error.
 * *out is NULL when the program could not be created; after a failed build it holds the
 * program (for its log). */
static cl_int compile(rtm_ocl_dev_t *d, const char *src, size_t len, const char *opts,
                      cl_program *out)
{
    cl_int err = CL_SUCCESS;
    *out = clCreateProgramWithSource(d->ctx, 1, &src, &len, &err);
    if (err == CL_SUCCESS)
        err = clBuildProgram(*out, 1, &d->info.id, opts, NULL, NULL);
    return err;
}

/* prog's binary for its one device (malloc'd, *size bytes; NULL on failure, reported). */
static unsigned char *program_binary(cl_program prog, size_t *size)
{
    *size = 0;
    cl_int err = clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof(*size), size, NULL);
    if (err != CL_SUCCESS || *size == 0) {
        rtm_ocl_fail("clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)", err, __FILE__, __LINE__);
        return NULL;
    }
    unsigned char *bin = malloc(*size);
    if (!bin)
        return NULL;
    unsigned char *bins[1] = {bin};
    err = clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof(bins), bins, NULL);
    if (err != CL_SUCCESS) {
        rtm_ocl_fail("clGetProgramInfo(CL_PROGRAM_BINARIES)", err, __FILE__, __LINE__);
        free(bin);
        return NULL;
    }
    return bin;
}

/* The most registers a kernel of NVIDIA program `prog` (built with `opts`, which carry
 * -cl-nv-verbose) uses, from its build log; *spills when it spills. When the driver's JIT
 * cache supplied the machine code, ptxas did not run and the log holds no register
 * line (seen on the H100: a second build of the same PTX left the guard blind and the
 * kernel uncapped): the program's PTX is then JIT-compiled once more with a comment no
 * cached entry has. 0 when still unknown. */
static uint32_t nv_regs(rtm_ocl_dev_t *d, cl_program prog, const char *opts, bool *spills)
{
    char *log = build_log(d, prog);
    uint32_t regs = log ? rtm_program_log_regs(log, spills) : 0;
    free(log);
    size_t size = 0;
    unsigned char *bin = regs ? NULL : program_binary(prog, &size);
    if (!bin)
        return regs;
    while (size > 0 && bin[size - 1] == '\0')
        size--;
    static unsigned serial;
    char note[96];
    const int nl = snprintf(note, sizeof(note), "\n// rtmgr: register count %ld.%u.%.0f\n",
                            (long)getpid(), __atomic_fetch_add(&serial, 1u, __ATOMIC_RELAXED),
                            rtm_os_now_s() * 1e9);
    unsigned char *ptx = nl > 0 ? realloc(bin, size + (size_t)nl + 1) : NULL;
    if (!ptx) {
        free(bin);
        return 0;
    }
    memcpy(ptx + size, note, (size_t)nl + 1);
    const size_t n = size + (size_t)nl + 1;
    const unsigned char *b = ptx;
    cl_int err = CL_SUCCESS, st = CL_SUCCESS;
    cl_program again = clCreateProgramWithBinary(d->ctx, 1, &d->info.id, &n, &b, &st, &err);
    if (err == CL_SUCCESS && st == CL_SUCCESS &&
        clBuildProgram(again, 1, &d->info.id, opts, NULL, NULL) == CL_SUCCESS &&
        (log = build_log(d, again)) != NULL) {
        regs = rtm_program_log_regs(log, spills);
        free(log);
    }
    if (again)
        clReleaseProgram(again);
    free(ptx);
    return regs;
}

/* `options` with the register cap jit_cap (a ptxas option: the PTX does not carry it, so
 * the guard's rebuild and every load of a capped binary from the cache add it), in buf;
 * `options` itself when jit_cap is 0. */
static const char *capped_options(const char *options, uint32_t jit_cap, char *buf, size_t len)
{
    if (!jit_cap)
        return options;
    snprintf(buf, len, "%s -cl-nv-maxrregcount=%u", options, jit_cap);
    return buf;
}

/* After an NVIDIA source build of p with `opts` (which carry -cl-nv-verbose): rebuilds it
 * at the register cap that adds a resident work-group per SM, when there is one, and
 * keeps that build if it does not spill; `verbose` (RTM_CL_LOG=1) prints the decision. */
static void nv_occupancy(rtm_ocl_dev_t *d, const rtm_kinst_t *k, const char *src, size_t len,
                         const char *opts, bool verbose, rtm_program_t *p)
{
    bool spills = false;
    const uint32_t regs = nv_regs(d, p->prog, opts, &spills);
    if (!regs && verbose)
        fprintf(stderr, "rtmgr: '%s': register count unknown (no ptxas line in the build "
                        "log): not capped\n", k->kernel->name);
    uint32_t regs_sm = 0, threads_sm = 0;
    nv_sm(d, &regs_sm, &threads_sm);
    const uint32_t cap = rtm_program_reg_cap(regs, k->tune.wg, regs_sm, threads_sm);
    if (!cap)
        return;
    char buf[sizeof(p->options) + 64];
    const char *capped = capped_options(opts, cap, buf, sizeof(buf));
    cl_program prog = NULL;
    uint32_t now = 0;
    if (compile(d, src, len, capped, &prog) == CL_SUCCESS)
        now = nv_regs(d, prog, capped, &spills);
    if (verbose)
        fprintf(stderr, "rtmgr: '%s' used %u registers (%u groups of %u per SM); capped at %u: "
                        "%u registers%s\n", k->kernel->name, regs,
                regs_sm / (reg_alloc(regs) * k->tune.wg), k->tune.wg, cap, now,
                !now ? " (build failed): kept uncapped" : spills ? ", spills: kept uncapped" : "");
    if (now && !spills) {
        clReleaseProgram(p->prog);
        p->prog = prog;
        p->jit_cap = cap;
    } else if (prog) {
        clReleaseProgram(prog);
    }
}


/* RTM_CL_LOG=1: every build's options, log and register-cap decision on stderr. */
static bool log_on(void)
{
    const char *env = getenv("RTM_CL_LOG");
    return env && *env == '1';
}

/* Loads a cached binary. Returns 1 when loaded (*out built, *jit_cap its register cap),
 * 0 when there is no entry, -1 when the entry is unusable (reason in why; the caller
 * removes it). */
static int cache_load(rtm_ocl_dev_t *d, const char *path, uint64_t key, const char *options,
                      cl_program *out, uint32_t *jit_cap, char *why, size_t wlen)
{
    char opts[RTM_PROGRAM_OPTIONS_MAX + 64];
    size_t len = 0;
    char *file = rtm_os_read_file(path, 0, &len);
    if (!file) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 0;
        snprintf(why, wlen, "unreadable: %s", strerror(errno));
        return -1;
    }
    cache_header_t h;
    int ok = -1;
    if (len < sizeof(h)) {
        snprintf(why, wlen, "short file (%zu bytes)", len);
        goto out;
    }
    memcpy(&h, file, sizeof(h));
    const unsigned char *bin = (const unsigned char *)file + sizeof(h);
    h.device[sizeof(h.device) - 1] = h.driver[sizeof(h.driver) - 1] = '\0';
    if (memcmp(h.magic, cache_magic, sizeof(cache_magic)) != 0)
        snprintf(why, wlen, "not an rtmgr program binary");
    else if (h.key != key)
        snprintf(why, wlen, "key mismatch");
    else if (strcmp(h.device, d->info.name) != 0 || strcmp(h.driver, d->info.driver) != 0)
        snprintf(why, wlen, "built for another device or driver ('%.60s', '%.60s')", h.device,
                 h.driver);
    else if (h.bytes != len - sizeof(h))
        snprintf(why, wlen, "size %zu, header says %llu", len - sizeof(h),
                 (unsigned long long)h.bytes);
    else if (fnv1a(FNV_BASIS, bin, (size_t)h.bytes) != h.check)
        snprintf(why, wlen, "checksum mismatch");
    else {
        cl_int err = CL_SUCCESS, bin_status = CL_SUCCESS;
        const size_t n = (size_t)h.bytes;
        cl_program prog =
            clCreateProgramWithBinary(d->ctx, 1, &d->info.id, &n, &bin, &bin_status, &err);
        if (err != CL_SUCCESS || bin_status != CL_SUCCESS) {
            snprintf(why, wlen, "clCreateProgramWithBinary: %s",
                     rtm_ocl_errname(err != CL_SUCCESS ? err : bin_status));
        } else if ((err = clBuildProgram(prog, 1, &d->info.id,
                                         capped_options(options, h.jit_cap, opts, sizeof(opts)),
                                         NULL, NULL)) != CL_SUCCESS) {
            snprintf(why, wlen, "clBuildProgram: %s", rtm_ocl_errname(err));
        } else {
            *out = prog;
            *jit_cap = h.jit_cap;
            prog = NULL;
            ok = 1;
        }
        if (prog)
            clReleaseProgram(prog);
    }
out:
    free(file);
    return ok;
}

/* Diagnostics: RTM_CL_DUMP=DIR writes every program built from source to
 * DIR/NAME-KEY.bin as the driver returns it (PTX on NVIDIA: `ptxas -arch=sm_90` and
 * `cuobjdump -sass` show the machine code) and its options to DIR/NAME-KEY.opts. */
static void dump_binary(const char *dir, cl_program prog, const rtm_kinst_t *k, uint64_t key,
                        const char *opts)
{
    if (!dir || !*dir || make_dirs(dir) != RTM_OK)
        return;
    size_t size = 0;
    unsigned char *bin = program_binary(prog, &size);
    char path[RTM_PATH_MAX];
    for (int part = 0; part < 2 && bin; part++) {
        snprintf(path, sizeof(path), "%s/%s-%016llx.%s", dir, k->kernel->name,
                 (unsigned long long)key, part ? "opts" : "bin");
        FILE *f = fopen(path, "wb");
        const bool ok = f && (part ? fprintf(f, "%s\n", opts) > 0 : fwrite(bin, 1, size, f) == size);
        if (!f || fclose(f) != 0 || !ok)
            fprintf(stderr, "rtmgr: RTM_CL_DUMP: %s not written\n", path);
    }
    free(bin);
}

/* Stores prog's binary under path (temporary file, then rename). Warns on failure. */
static void cache_store(rtm_ocl_dev_t *d, cl_program prog, const char *dir, const char *path,
                        uint64_t key, uint32_t jit_cap)
{
    if (make_dirs(dir) != RTM_OK) {
        warn_cache("directory unusable:", dir);
        return;
    }
    size_t size = 0;
    unsigned char *bin = program_binary(prog, &size);
    if (!bin)
        return;
    cache_header_t h;
    memset(&h, 0, sizeof(h));
    memcpy(h.magic, cache_magic, sizeof(h.magic));
    h.key = key;
    h.jit_cap = jit_cap;
    h.bytes = size;
    h.check = fnv1a(FNV_BASIS, bin, size);
    snprintf(h.device, sizeof(h.device), "%s", d->info.name);
    snprintf(h.driver, sizeof(h.driver), "%s", d->info.driver);

    static unsigned serial;
    char tmp[RTM_PATH_MAX + 32];
    snprintf(tmp, sizeof(tmp), "%s.tmp.%ld.%u", path, (long)getpid(),
             __atomic_fetch_add(&serial, 1u, __ATOMIC_RELAXED)); /* calib builds in threads */
    FILE *f = fopen(tmp, "wb");
    int ok = f && fwrite(&h, sizeof(h), 1, f) == 1 && fwrite(bin, 1, size, f) == size &&
             fflush(f) == 0 && fsync(fileno(f)) == 0;
    if (f && fclose(f) != 0)
        ok = 0;
    if (ok && rename(tmp, path) != 0)
        ok = 0;
    if (!ok) {
        warn_cache("not writable:", f ? tmp : dir);
        unlink(tmp);
    }
    free(bin);
}

rtm_status_t rtm_program_build(rtm_ocl_dev_t *d, const rtm_kinst_t *k, rtm_program_t *p)
{
    return rtm_program_build_cached(d, k, NULL, NULL, p);
}

rtm_status_t rtm_program_build_ex(rtm_ocl_dev_t *d, const rtm_kinst_t *k, const char *extra,
                                  rtm_program_t *p)
{
    return rtm_program_build_cached(d, k, extra, NULL, p);
}

/* The build options of k's program with `extra` (one text for the build and for the
 * cache query: the cache key hashes it). RTM_CL_OPTIONS (diagnostics) is appended to
 * every build, e.g. -cl-nv-verbose, whose register counts RTM_CL_LOG=1 then prints with
 * each build's log. */
static void build_options(const rtm_kinst_t *k, const char *dir, const char *extra, char *out,
                          size_t len)
{
    char own[256] = "";
    if (k->kernel->options)
        k->kernel->options(k, own, sizeof(own));
    const char *env_opts = getenv("RTM_CL_OPTIONS");
    snprintf(out, len, "-I%s -DRTM_WG=%u -DRTM_VEC=%u %s %s %s", dir, k->tune.wg, k->tune.vec,
             own, extra ? extra : "", env_opts ? env_opts : "");
}

/* The cache file of k's program with key `key` (one name for the build and the query). */
static void bin_path_of(char *out, size_t len, const char *cache_dir, const rtm_kinst_t *k,
                        uint64_t key)
{
    snprintf(out, len, "%s/%s-%016llx.bin", cache_dir, k->kernel->name, (unsigned long long)key);
}

bool rtm_program_cached(rtm_ocl_dev_t *d, const rtm_kinst_t *k, const char *extra,
                        const char *cache_dir)
{
    if (!cache_dir || !*cache_dir)
        return false;
    const char *dir = rtm_program_kernel_dir();
    char path[RTM_PATH_MAX];
    if (rtm_program_source_path(k->kernel, path, sizeof(path)) != RTM_OK)
        return false;
    size_t len = 0;
    char *src = rtm_os_read_file(path, 0, &len);
    if (!src)
        return false;
    char options[512];
    build_options(k, dir, extra, options, sizeof(options));
    const uint64_t key = cache_key(d, dir, src, len, options);
    free(src);
    char bin_path[RTM_PATH_MAX + 64];
    bin_path_of(bin_path, sizeof(bin_path), cache_dir, k, key);
    return access(bin_path, R_OK) == 0;
}

rtm_status_t rtm_program_build_cached(rtm_ocl_dev_t *d, const rtm_kinst_t *k, const char *extra,
                                      const char *cache_dir, rtm_program_t *p)
{
    memset(p, 0, sizeof(*p));
    const char *dir = rtm_program_kernel_dir();
    char path[RTM_PATH_MAX];
    const rtm_status_t pst = rtm_program_source_path(k->kernel, path, sizeof(path));
    if (pst != RTM_OK)
        return pst;
    size_t len = 0;
    char *src = rtm_os_read_file(path, 0, &len);
    if (!src) {
        fprintf(stderr, "rtmgr: cannot read kernel source %s\n", path);
        return RTM_E_IO;
    }
    build_options(k, dir, extra, p->options, sizeof(p->options));
    const double t0 = rtm_os_now_s();

    char bin_path[RTM_PATH_MAX + 64] = "";
    const char *dump = getenv("RTM_CL_DUMP"); /* its files are named by the key as well */
    if ((cache_dir && *cache_dir) || (dump && *dump))
        p->key = cache_key(d, dir, src, len, p->options);
    if (cache_dir && *cache_dir) {
        bin_path_of(bin_path, sizeof(bin_path), cache_dir, k, p->key);
        char why[256] = "";
        const int got =
            cache_load(d, bin_path, p->key, p->options, &p->prog, &p->jit_cap, why, sizeof(why));
        if (got < 0) {
            fprintf(stderr, "rtmgr: program cache entry %s unusable (%s); removed, "
                            "rebuilding from source\n", bin_path, why);
            unlink(bin_path);
        }
        p->from_cache = got > 0;
        if (got > 0 && p->jit_cap && log_on())
            fprintf(stderr, "rtmgr: '%s' loaded from the cache, registers capped at %u\n",
                    k->kernel->name, p->jit_cap);
    }

    if (!p->prog) {
        /* NVIDIA builds report their registers (the occupancy guard reads them); the
         * flag changes no code, so the cache key leaves it out */
        char opts[sizeof(p->options) + 32];
        snprintf(opts, sizeof(opts), "%s%s", p->options,
                 rtm_ocl_nv_gpu(&d->info) ? " -cl-nv-verbose" : "");
        const cl_int err = compile(d, src, len, opts, &p->prog);
        if (!p->prog) {
            free(src);
            return rtm_ocl_fail("clCreateProgramWithSource", err, __FILE__, __LINE__);
        }
        if (err != CL_SUCCESS) {
            fprintf(stderr, "rtmgr: kernel '%s' (%s) failed to build on '%s' with '%s'\n",
                    k->kernel->name, path, d->info.name, p->options);
            print_build_log(d, p->prog, k->kernel->name);
            rtm_ocl_fail("clBuildProgram", err, __FILE__, __LINE__);
            rtm_program_release(p);
            free(src);
            return RTM_E_CL_BUILD;
        }
        const bool verbose = log_on();
        if (verbose) {
            fprintf(stderr, "rtmgr[%ld]: built '%s' with '%s'\n", (long)getpid(),
                    k->kernel->name, p->options);
            print_build_log(d, p->prog, k->kernel->name);
        }
        if (rtm_ocl_nv_gpu(&d->info))
            nv_occupancy(d, k, src, len, opts, verbose, p);
        dump_binary(dump, p->prog, k, p->key, p->options);
        if (bin_path[0])
            cache_store(d, p->prog, cache_dir, bin_path, p->key, p->jit_cap);
    }
    free(src);

    for (uint32_t i = 0; i < RTM_KENTRY_MAX && k->kernel->entries[i]; i++) {
        cl_int err = CL_SUCCESS;
        p->kern[i] = clCreateKernel(p->prog, k->kernel->entries[i], &err);
        if (err != CL_SUCCESS) {
            fprintf(stderr, "rtmgr: kernel '%s' entry '%s'\n", k->kernel->name,
                    k->kernel->entries[i]);
            rtm_ocl_fail("clCreateKernel", err, __FILE__, __LINE__);
            rtm_program_release(p);
            return RTM_E_CL_BUILD;
        }
        p->n_kern = i + 1;
    }
    p->build_s = rtm_os_now_s() - t0;
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
