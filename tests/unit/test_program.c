/* test_program.c — program building and the binary cache on real OpenCL (PoCL here):
 * the first build compiles and stores a binary, the second loads it (faster) and runs
 * correctly; a corrupt, truncated or foreign cache file is removed and rebuilt; a header
 * change changes the key; a broken kernel source gives RTM_E_CL_BUILD with the build log
 * printed; the default cache directory follows the environment. */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "rtmgr/kexec.h"
#include "rtmgr/program.h"
#include "tests/ocl_fixture.h"

static rtm_ocl_dev_t dev;
static char cache[64];

static int setup(void **state)
{
    (void)state;
    if (ocl_open_first(&dev) != RTM_OK)
        return -1;
    snprintf(cache, sizeof(cache), "/tmp/rtm-test-cache-XXXXXX");
    return mkdtemp(cache) ? 0 : -1;
}

static void rm_tree(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[RTM_PATH_MAX];
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

static int teardown(void **state)
{
    (void)state;
    rm_tree(cache);
    rtm_ocl_close(&dev);
    return 0;
}

static void matrix_add(rtm_kinst_t *k, uint32_t vec)
{
    rtm_kinst_init(k, rtm_kernel_find("matrix_add"));
    k->size[0] = 100;
    k->tune = (rtm_tune_t){64, vec};
    assert_int_equal(rtm_kinst_plan(k), RTM_OK);
}

static void entry_path(const rtm_program_t *p, char *buf, size_t len)
{
    snprintf(buf, len, "%s/matrix_add-%016llx.bin", cache, (unsigned long long)p->key);
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void test_cache_hit_and_run(void **state)
{
    (void)state;
    rtm_kinst_t k;
    matrix_add(&k, 2);
    rtm_program_t p1, p2;
    assert_int_equal(rtm_program_build_cached(&dev, &k, NULL, cache, &p1), RTM_OK);
    assert_int_equal(p1.from_cache, 0);
    assert_true(p1.key != 0);
    char path[RTM_PATH_MAX + 64];
    entry_path(&p1, path, sizeof(path));
    assert_true(file_size(path) > 0);
    assert_int_equal(rtm_program_build_cached(&dev, &k, NULL, cache, &p2), RTM_OK);
    assert_int_equal(p2.from_cache, 1);
    assert_true(p2.key == p1.key);
    printf("source build %.4f s, cache load %.4f s\n", p1.build_s, p2.build_s);
    assert_true(p2.build_s < p1.build_s);
    rtm_program_release(&p1);
    rtm_program_release(&p2);

    /* Another tuning is another entry. */
    rtm_kinst_t k4;
    matrix_add(&k4, 4);
    assert_int_equal(rtm_program_build_cached(&dev, &k4, NULL, cache, &p1), RTM_OK);
    assert_int_equal(p1.from_cache, 0);
    assert_true(p1.key != p2.key);
    rtm_program_release(&p1);
    /* So are extra build options. */
    assert_int_equal(rtm_program_build_cached(&dev, &k, "-DRTM_TEST_EXTRA=1", cache, &p1), RTM_OK);
    assert_int_equal(p1.from_cache, 0);
    assert_true(p1.key != p2.key);
    assert_non_null(strstr(p1.options, "-DRTM_TEST_EXTRA=1"));
    rtm_program_release(&p1);

    /* A program loaded from the cache computes what the CPU twin computes. */
    rtm_kinst_t cpu = k;
    const size_t bytes = rtm_kinst_bytes(&k);
    void *ag = aligned_alloc(64, bytes), *ac = aligned_alloc(64, bytes);
    assert_int_equal(rtm_kinst_bind(&k, ag, bytes), bytes);
    assert_int_equal(rtm_kinst_bind(&cpu, ac, bytes), bytes);
    k.kernel->fill(&k, 3);
    cpu.kernel->fill(&cpu, 3);
    rtm_kinst_run_cpu(&cpu);
    /* kexec adds its block-control options (RTM_PERSIST, RTM_POLL_EVERY…), so its first
     * build is a compile and the second a cache load. */
    rtm_kexec_t x;
    assert_int_equal(rtm_kexec_create_cached(&x, &dev, &k, cache), RTM_OK);
    rtm_kexec_destroy(&x);
    assert_int_equal(rtm_kexec_create_cached(&x, &dev, &k, cache), RTM_OK);
    assert_int_equal(x.prog.from_cache, 1);
    rtm_kexec_timing_t t;
    assert_int_equal(rtm_kexec_run(&x, &t), RTM_OK);
    char why[128] = "";
    assert_int_equal(k.kernel->compare(&k, &cpu, why, sizeof(why)), 0);
    rtm_kexec_destroy(&x);
    free(ag);
    free(ac);
}

/* Damages the cache entry of k with `how`, then checks the next build rebuilds (and
 * rewrites a good entry) and the one after loads it. */
static void damage_and_rebuild(const rtm_kinst_t *k, void (*how)(const char *path))
{
    rtm_program_t p;
    assert_int_equal(rtm_program_build_cached(&dev, k, NULL, cache, &p), RTM_OK);
    char path[RTM_PATH_MAX + 64];
    entry_path(&p, path, sizeof(path));
    rtm_program_release(&p);
    const long good = file_size(path);
    assert_true(good > 0);
    how(path);
    assert_int_equal(rtm_program_build_cached(&dev, k, NULL, cache, &p), RTM_OK);
    assert_int_equal(p.from_cache, 0);
    rtm_program_release(&p);
    assert_int_equal(file_size(path), good);
    assert_int_equal(rtm_program_build_cached(&dev, k, NULL, cache, &p), RTM_OK);
    assert_int_equal(p.from_cache, 1);
    rtm_program_release(&p);
}

static void flip_byte(const char *path)
{
    const long n = file_size(path);
    const int fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    unsigned char c;
    assert_int_equal(pread(fd, &c, 1, n - n / 3), 1);
    c ^= 0x5a;
    assert_int_equal(pwrite(fd, &c, 1, n - n / 3), 1);
    close(fd);
}

static void truncate_half(const char *path) { assert_int_equal(truncate(path, file_size(path) / 2), 0); }

static void foreign_device(const char *path)
{
    /* The device name follows magic, key, size and checksum (8 bytes each). */
    const int fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    assert_int_equal(pwrite(fd, "OtherGPU", 9, 32), 9);
    close(fd);
}

static void garbage(const char *path)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("not a binary", f);
    fclose(f);
}

/* rtm_program_cached / rtm_kexec_cached say whether a build would load from the cache,
 * building nothing (calibration leaves such programs out of its prebuild batches). */
static void test_cached_query(void **state)
{
    (void)state;
    char dir[64];
    snprintf(dir, sizeof(dir), "/tmp/rtm-test-cached-XXXXXX");
    assert_non_null(mkdtemp(dir));
    rtm_kinst_t k;
    matrix_add(&k, 8);
    assert_false(rtm_program_cached(&dev, &k, NULL, dir));
    assert_false(rtm_program_cached(&dev, &k, NULL, NULL));
    const rtm_kexec_opts_t o = {.transport = RTM_ABORT_WRITE, .transport_set = true,
                                .cache_dir = dir};
    assert_false(rtm_kexec_cached(&dev, &k, &o));
    /* nothing was built by asking */
    DIR *d = opendir(dir);
    assert_non_null(d);
    int files = 0;
    for (const struct dirent *e; (e = readdir(d));)
        files += e->d_name[0] != '.';
    closedir(d);
    assert_int_equal(files, 0);
    /* the program as a kexec builds it: cached afterwards, by both queries' measure */
    assert_int_equal(rtm_kexec_prebuild(&dev, &k, &o), RTM_OK);
    assert_true(rtm_kexec_cached(&dev, &k, &o));
    assert_false(rtm_program_cached(&dev, &k, NULL, dir)); /* other options: kexec's */
    rtm_program_t p;
    assert_int_equal(rtm_program_build_cached(&dev, &k, NULL, dir, &p), RTM_OK);
    rtm_program_release(&p);
    assert_true(rtm_program_cached(&dev, &k, NULL, dir));
    /* another tuning is another program */
    rtm_kinst_t k2;
    matrix_add(&k2, 2);
    assert_false(rtm_kexec_cached(&dev, &k2, &o));
    rm_tree(dir);
}

static void test_corrupt_entries_rebuild(void **state)
{
    (void)state;
    rtm_kinst_t k;
    matrix_add(&k, 8);
    damage_and_rebuild(&k, flip_byte);
    damage_and_rebuild(&k, truncate_half);
    damage_and_rebuild(&k, foreign_device);
    damage_and_rebuild(&k, garbage);
}

static void copy_file(const char *from, const char *to, const char *append)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    if (append)
        fputs(append, out);
    fclose(in);
    fclose(out);
}

/* Runs build with stderr captured into log (NUL-terminated). */
static rtm_status_t build_capturing(const rtm_kinst_t *k, char *log, size_t len)
{
    char tmp[] = "/tmp/rtm-test-log-XXXXXX";
    const int fd = mkstemp(tmp);
    assert_true(fd >= 0);
    fflush(stderr);
    const int saved = dup(2);
    dup2(fd, 2);
    rtm_program_t p;
    const rtm_status_t st = rtm_program_build_cached(&dev, k, NULL, cache, &p);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    const ssize_t n = pread(fd, log, len - 1, 0);
    log[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(tmp);
    rtm_program_release(&p);
    return st;
}

static void test_header_change_and_broken_source(void **state)
{
    (void)state;
    char dir[] = "/tmp/rtm-test-kernels-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char from[RTM_PATH_MAX], to[RTM_PATH_MAX];
    snprintf(from, sizeof(from), "%s/kernels/matrix_add.cl", RTM_TEST_SOURCE_DIR);
    snprintf(to, sizeof(to), "%s/matrix_add.cl", dir);
    copy_file(from, to, NULL);
    snprintf(from, sizeof(from), "%s/kernels/rtm_block.h", RTM_TEST_SOURCE_DIR);
    snprintf(to, sizeof(to), "%s/rtm_block.h", dir);
    copy_file(from, to, NULL);
    setenv("RTM_KERNEL_DIR", dir, 1);

    rtm_kinst_t k;
    matrix_add(&k, 1);
    rtm_program_t p;
    assert_int_equal(rtm_program_build_cached(&dev, &k, NULL, cache, &p), RTM_OK);
    const uint64_t key = p.key;
    rtm_program_release(&p);
    /* An edited header is a new key, hence a compile. */
    copy_file(from, to, "/* edited */\n");
    assert_int_equal(rtm_program_build_cached(&dev, &k, NULL, cache, &p), RTM_OK);
    assert_true(p.key != key);
    assert_int_equal(p.from_cache, 0);
    rtm_program_release(&p);

    /* A broken source: RTM_E_CL_BUILD, the kernel named, the log printed, no entry. */
    snprintf(from, sizeof(from), "%s/kernels/matrix_add.cl", RTM_TEST_SOURCE_DIR);
    snprintf(to, sizeof(to), "%s/matrix_add.cl", dir);
    copy_file(from, to, "__kernel void broken(void) { this_is_not_c; }\n");
    char log[8192];
    assert_int_equal(build_capturing(&k, log, sizeof(log)), RTM_E_CL_BUILD);
    printf("%s", log);
    assert_non_null(strstr(log, "build log of kernel 'matrix_add'"));
    assert_non_null(strstr(log, "this_is_not_c"));

    /* No source at all: RTM_E_IO. */
    unlink(to);
    assert_int_equal(build_capturing(&k, log, sizeof(log)), RTM_E_IO);
    unsetenv("RTM_KERNEL_DIR");
    rm_tree(dir);
}

static void test_no_cache_and_unwritable_cache(void **state)
{
    (void)state;
    rtm_kinst_t k;
    matrix_add(&k, 1);
    rtm_program_t p;
    assert_int_equal(rtm_program_build(&dev, &k, &p), RTM_OK);
    assert_int_equal(p.from_cache, 0);
    assert_true(p.key == 0);
    rtm_program_release(&p);
    /* A cache under a regular file cannot be made: a warning, the build still works. */
    char file[RTM_PATH_MAX];
    snprintf(file, sizeof(file), "%s/plainfile", cache);
    garbage(file);
    char sub[RTM_PATH_MAX + 8];
    snprintf(sub, sizeof(sub), "%s/sub", file);
    assert_int_equal(rtm_program_build_cached(&dev, &k, NULL, sub, &p), RTM_OK);
    assert_int_equal(p.from_cache, 0);
    rtm_program_release(&p);
    unlink(file);
}

static void test_default_cache_dir(void **state)
{
    (void)state;
    char buf[RTM_PATH_MAX], home[RTM_PATH_MAX] = "";
    if (getenv("HOME"))
        snprintf(home, sizeof(home), "%s", getenv("HOME"));
    setenv("RTM_CACHE_DIR", "/srv/rtm", 1);
    assert_int_equal(rtm_program_cache_dir(buf, sizeof(buf)), RTM_OK);
    assert_string_equal(buf, "/srv/rtm");
    unsetenv("RTM_CACHE_DIR");
    setenv("XDG_CACHE_HOME", "/x/cache", 1);
    assert_int_equal(rtm_program_cache_dir(buf, sizeof(buf)), RTM_OK);
    assert_string_equal(buf, "/x/cache/rtmgr");
    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", "/home/mate", 1);
    assert_int_equal(rtm_program_cache_dir(buf, sizeof(buf)), RTM_OK);
    assert_string_equal(buf, "/home/mate/.cache/rtmgr");
    assert_int_equal(rtm_program_cache_dir(buf, 8), RTM_E_RANGE);
    unsetenv("HOME");
    assert_int_equal(rtm_program_cache_dir(buf, sizeof(buf)), RTM_E_NOTFOUND);
    if (home[0])
        setenv("HOME", home, 1);
}

/* The NVIDIA occupancy guard's rules, on build logs as the H100's driver wrote them
 * (session 14, -cl-nv-verbose): matrix_mul's polled build at 40 registers keeps 6 groups
 * of 256 per SM; capped at 32 it keeps 8 without spilling. */
static void test_occupancy_guard_rules(void **state)
{
    (void)state;
    bool spills = true;
    const char *polled = "ptxas info    : 0 bytes gmem\n"
                         "ptxas info    : Compiling entry function 'matrix_mul' for 'sm_90'\n"
                         "ptxas info    : Function properties for matrix_mul\n"
                         "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes "
                         "spill loads\n"
                         "ptxas info    : Used 40 registers, used 1 barriers, 12 bytes smem\n";
    assert_int_equal(rtm_program_log_regs(polled, &spills), 40);
    assert_false(spills);
    const char *two = "ptxas info    : Used 28 registers, used 1 barriers\n"
                      "ptxas         .     8 bytes stack frame, 24 bytes spill stores, 24 bytes "
                      "spill loads\n"
                      "ptxas info    : Used 48 registers, used 1 barriers, 20 bytes smem\n";
    assert_int_equal(rtm_program_log_regs(two, &spills), 48);
    assert_true(spills);
    assert_int_equal(rtm_program_log_regs("no ptxas here", &spills), 0);
    assert_false(spills);
    /* H100: 65536 registers and 2048 work-items per SM */
    assert_int_equal(rtm_program_reg_cap(40, 256, 65536, 2048), 32); /* 6 -> 8 groups */
    assert_int_equal(rtm_program_reg_cap(32, 256, 65536, 2048), 0);  /* already 8 */
    assert_int_equal(rtm_program_reg_cap(25, 256, 65536, 2048), 0);  /* work-item bound */
    assert_int_equal(rtm_program_reg_cap(48, 256, 65536, 2048), 40); /* 5 -> 6 groups */
    assert_int_equal(rtm_program_reg_cap(64, 256, 65536, 2048), 0);  /* 4 -> 5 needs 48 */
    assert_int_equal(rtm_program_reg_cap(72, 128, 65536, 2048), 64); /* 7 -> 8 */
    assert_int_equal(rtm_program_reg_cap(96, 256, 65536, 2048), 0);  /* 2 -> 3 needs 80 */
    assert_int_equal(rtm_program_reg_cap(0, 256, 65536, 2048), 0);
    /* a 1536-work-item SM (compute capability 8.6): 6 groups of 256 at 40 registers */
    assert_int_equal(rtm_program_reg_cap(40, 256, 65536, 1536), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cache_hit_and_run),
        cmocka_unit_test(test_cached_query),
        cmocka_unit_test(test_corrupt_entries_rebuild),
        cmocka_unit_test(test_header_change_and_broken_source),
        cmocka_unit_test(test_no_cache_and_unwritable_cache),
        cmocka_unit_test(test_default_cache_dir),
        cmocka_unit_test(test_occupancy_guard_rules),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
