/* test_calib.c — `rtmgr calibrate` on real OpenCL (PoCL here) and the CPU pool:
 * --quick writes a profile that loads with every parameter present and positive;
 * --validate --json lines parse and carry both models; a changed driver string makes
 * the profile stale (a warning, not a failure); calibration and validation sizes never
 * meet. The rtmgr binary runs as a separate process, once for the whole group (the
 * per-kernel part limited to matrix_add to stay fast). */
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <fcntl.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/cli_fixture.h"
#include "tests/ocl_fixture.h"
#include "tests/sanitized.h"

#include "kernels/kernels.h"
#include "rtmgr/board.h"
#include "rtmgr/calib.h"
#include "rtmgr/calibint.h"
#include "rtmgr/model.h"
#include "rtmgr/pool.h"

static char dir[64];
static char profile[128];
static char out[1 << 20], err[1 << 16];

/* Runs rtmgr with args (NULL-terminated); stdout into out, stderr into err. */
static int run_rtmgr(const char *const *args)
{
    return cli_run(args, dir, out, sizeof(out), err, sizeof(err));
}

/* Runs rtmgr with args, environment variable `name` set to `value` for it alone (name
 * NULL: none), and asserts it exited 0 (its stderr shown where not). */
static void run_rtmgr_ok(const char *name, const char *value, const char *const *args)
{
    if (name)
        assert_int_equal(setenv(name, value, 1), 0);
    const int rc = run_rtmgr(args);
    if (name)
        assert_int_equal(unsetenv(name), 0);
    if (rc != 0)
        fprintf(stderr, "rtmgr exited %d:\n%s\n", rc, err);
    assert_int_equal(rc, 0);
}

static int group_setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/rtmgr-test-calib-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(profile, sizeof(profile), "%s/quick.yaml", dir);
    const char *args[] = {"calibrate", "-o", profile, "--quick", "--kernels", "matrix_add,radix_sort,matrix_mul",
                          "--quiet", NULL};
    const int rc = run_rtmgr(args);
    if (rc != 0)
        fprintf(stderr, "calibrate exited %d:\n%s\n", rc, err);
    return rc == 0 ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    unlink(profile);
    rmdir(dir);
    return 0;
}

static void load(const char *path, rtm_board_t *b)
{
    rtm_diag_t diag;
    const rtm_status_t st = rtm_board_load(path, b, &diag);
    if (st != RTM_OK)
        fprintf(stderr, "%s:%d:%d: %s\n", diag.file, diag.line, diag.column, diag.text);
    assert_int_equal(st, RTM_OK);
}

static void test_quick_profile_complete(void **state)
{
    (void)state;
    static rtm_board_t b;
    load(profile, &b);
    assert_string_equal(b.name, "quick");
    assert_true(b.cores >= 1 && b.threads >= 1);
    /* one core left to the executive, drivers and OS on hosts of 4 cores or more */
    assert_int_equal(b.threads, b.cores >= RTM_CALIB_SPARE_MIN_CORES ? b.cores - 1 : b.cores);
    assert_true(b.cpu_measured[0] != '\0');
    for (int p = 0; p < RTM_CPU_P_COUNT; p++) {
        /* the wake call may be nil: a difference floored at 0 (the launch less its block
         * and a dispatch; 0 in an ASan build's run in session 36) */
        const bool nil_ok = p == RTM_CPU_P_cw_wake;
        /* the idle-length slope and the cold-data rate are differences of medians after
         * idling: where they come out 0 or below, no term (a busy or small machine) */
        if ((p == RTM_CPU_P_cw_idle_log2 || p == RTM_CPU_P_cold_rate) && !b.cpu_have[p])
            continue;
        if (!b.cpu_have[p] || !(b.cpu_param[p] > 0 || (nil_ok && b.cpu_param[p] == 0)))
            fprintf(stderr, "cpu parameter %d missing or not positive\n", p);
        assert_true(b.cpu_have[p]);
        assert_true(b.cpu_param[p] > 0 || (nil_ok && b.cpu_param[p] == 0));
    }
    assert_true(b.n_devs >= 1);
    for (uint32_t i = 0; i < b.n_devs; i++) {
        const rtm_board_dev_t *d = &b.dev[i];
        assert_true(d->driver[0] && d->device[0] && d->platform[0] && d->measured[0]);
        assert_true(d->memory > 0);
        for (int p = 0; p < RTM_DEV_P_COUNT; p++) {
            if (p == RTM_DEV_P_pace) { /* the host's pace probe: GPUs only (rtmgr/pace.h) */
                assert_true(d->kind == RTM_DEV_CPU ? !d->have[p] : d->have[p] && d->param[p] > 0);
                continue;
            }
            if (p == RTM_DEV_P_l1d || p == RTM_DEV_P_l1d_ways || p == RTM_DEV_P_line) {
                /* the host's L1, for CPU-type devices alone (their strided walks) */
                const int cp = p == RTM_DEV_P_l1d        ? RTM_CPU_P_l1d
                               : p == RTM_DEV_P_l1d_ways ? RTM_CPU_P_l1d_ways
                                                         : RTM_CPU_P_line;
                assert_true(d->kind == RTM_DEV_CPU
                                ? d->have[p] && d->param[p] == b.cpu_param[cp]
                                : !d->have[p]);
                continue;
            }
            /* a further command's cost and the phases' gap may be nil (a second buffer
             * within the noise fits next = 0: rtm_calib_xfer_fit), and so may what idling
             * adds to a job's inputs and outputs (a difference of medians floored at 0:
             * PoCL's came out 0 in about one run of three, session 36) */
            const bool nil_ok = p == RTM_DEV_P_ws_next || p == RTM_DEV_P_wr_next ||
                                p == RTM_DEV_P_phase_gap || p == RTM_DEV_P_ws_idle ||
                                p == RTM_DEV_P_wr_idle;
            if (!d->have[p] || !(d->param[p] > 0 || (nil_ok && d->param[p] == 0)))
                fprintf(stderr, "%s: parameter %d missing or not positive\n", d->name, p);
            assert_true(d->have[p]);
            assert_true(d->param[p] > 0 || (nil_ok && d->param[p] == 0));
        }
    }
    /* the per-kernel part: matrix_add on the CPU and on every device */
    const int ki = rtm_kernel_index(rtm_kernel_find("matrix_add"));
    assert_true(ki >= 0);
    assert_true(b.cpu_ktune[ki].have && b.cpu_ktune[ki].r_op > 0);
    for (uint32_t i = 0; i < b.n_devs; i++)
        assert_true(b.dev[i].ktune[ki].have && b.dev[i].ktune[ki].r_op > 0);
    /* a multi-launch kernel's own pace on every device (radix_sort: 12 launches at
     * n = 1); one launch has none */
    const int kr = rtm_kernel_index(rtm_kernel_find("radix_sort"));
    assert_true(kr >= 0);
    for (uint32_t i = 0; i < b.n_devs; i++) {
        assert_true(b.dev[i].ktune[kr].have && b.dev[i].ktune[kr].t_next > 0);
        assert_true(b.dev[i].ktune[ki].t_next == 0.0);
    }

    /* the file says how it was made, the outlier rule and every figure's spread */
    char text[1 << 16];
    cli_read(profile, text, sizeof(text));
    assert_non_null(strstr(text, "# Made by: rtmgr calibrate -o"));
    assert_non_null(strstr(text, "MAD"));
    assert_non_null(strstr(text, "spread"));
    assert_non_null(strstr(text, "pinned host memory (mapped CL_MEM_ALLOC_HOST_PTR)"));
    /* the out spans read what the device wrote (never-written memory reads from PoCL's
     * zero page: session 61), checked as they are read back */
    assert_non_null(strstr(text, "reads of outputs the device wrote"));
    assert_non_null(strstr(text, ": radix_sort: t_next "));
    /* every device's phase_gap is the lower quartile of its jobs behind the fill, never
     * above their median, which the note gives beside it (session 57) */
    for (uint32_t i = 0; i < b.n_devs; i++) {
        char key[sizeof(b.dev[i].name) + 16];
        snprintf(key, sizeof(key), "%s: phase_gap ", b.dev[i].name);
        const char *note = strstr(text, key);
        assert_non_null(note);
        const char *med_at = strstr(note, "(median ");
        assert_non_null(med_at);
        double q = -1.0, med = -1.0;
        assert_int_equal(sscanf(note + strlen(key), "%lfus, the lower quartile of 30 jobs' gaps", &q),
                         1);
        assert_int_equal(sscanf(med_at, "(median %lfus)", &med), 1);
        assert_true(q >= 0.0 && q <= med);
        assert_true(fabs(q * 1e-6 - b.dev[i].param[RTM_DEV_P_phase_gap]) <= 1e-3 * q * 1e-6 + 1e-12);
    }
    /* the pool's short points measured in passes over the catalogue (calibcpu.c), every
     * one of them with its REPS jobs in all */
    const char *passes = strstr(text, "cpu: kernel points in 3 passes over the catalogue");
    assert_non_null(passes);
    const char *counts = strstr(passes, "): ");
    assert_non_null(counts);
    unsigned passed = 0, points = 0;
    assert_int_equal(sscanf(counts + 3, "%u of %u points", &passed, &points), 2);
    assert_true(passed >= 1 && passed <= points);
    /* matrix_mul's rows aligned to 32 bytes measured on the CPU pool (calibcpu.c's
     * cpu_aligned) and on every device after its fit (calibdev.c's dev_aligned): a term
     * in range, or none when within the measurements' spreads, or none with a FALLBACK
     * note when the ratio is out of range (a measurement disturbed: CI's fresh clone,
     * tests running side by side on 2 cores, session 40). A kept term is a plain factor
     * in range or, on the pool and on CPU-type devices (PoCL's), with aligned_r (the
     * fitted rate at the smallest point) a share of the fitted rate's growth above it;
     * never for matrix_add, whose time does not depend on it */
    const int km = rtm_kernel_index(rtm_kernel_find("matrix_mul"));
    assert_true(km >= 0);
    for (uint32_t i = 0; i <= b.n_devs; i++) {
        const bool cpu = i == b.n_devs;
        const char *who = cpu ? "cpu" : b.dev[i].name;
        const rtm_board_ktune_t *kts = cpu ? b.cpu_ktune : b.dev[i].ktune;
        char note[96];
        snprintf(note, sizeof(note), "%s: matrix_mul: aligned ", who);
        const char *at = strstr(text, note);
        const bool kept = at && isdigit((unsigned char)at[strlen(note)]);
        snprintf(note, sizeof(note), "%s: matrix_mul: no aligned term: within the spreads,", who);
        const bool none = strstr(text, note) != NULL;
        snprintf(note, sizeof(note), "FALLBACK: %s: matrix_mul: aligned rows not measured", who);
        assert_true(kept || none || strstr(text, note) != NULL);
        const rtm_board_ktune_t *kt = &kts[km];
        if (!kept)
            assert_true(kt->aligned == 0.0 && kt->aligned_r == 0.0);
        else if (kt->aligned_r > 0.0)
            assert_true(kt->aligned > 0.0 && kt->aligned < RTM_BOARD_ALIGNED_MAX &&
                        kt->aligned_r < kt->r_op * 10.0);
        else
            assert_true(kt->aligned == 0.0 ||
                        (kt->aligned > RTM_BOARD_ALIGNED_MIN && kt->aligned < RTM_BOARD_ALIGNED_MAX));
        assert_true(kts[ki].aligned == 0.0 && kts[ki].aligned_r == 0.0);
    }
    assert_null(strstr(text, ": matrix_add: aligned"));
    /* matrix_mul's walk down B's columns measured where the L1 aliases it, on the CPU pool
     * and on every CPU-type device: a term in range, none within the spreads or with no
     * aliasing size near its points, or a FALLBACK note; never for matrix_add (no strided
     * walk) */
    for (uint32_t i = 0; i <= b.n_devs; i++) {
        const char *owner = i < b.n_devs ? b.dev[i].name : "cpu";
        const rtm_board_ktune_t *kt = i < b.n_devs ? b.dev[i].ktune : b.cpu_ktune;
        if (i < b.n_devs && b.dev[i].kind != RTM_DEV_CPU) {
            assert_true(kt[km].aliased == 0.0);
            continue;
        }
        char note[112];
        snprintf(note, sizeof(note), "%s: matrix_mul: aliased ", owner);
        const char *at = strstr(text, note);
        const bool kept = at && isdigit((unsigned char)at[strlen(note)]);
        snprintf(note, sizeof(note), "%s: matrix_mul: no aliased term: within the spreads,", owner);
        bool none = strstr(text, note) != NULL;
        snprintf(note, sizeof(note), "%s: matrix_mul: no size up to n=", owner);
        none = none || strstr(text, note) != NULL;
        snprintf(note, sizeof(note), "FALLBACK: %s: matrix_mul: aliased walks not measured", owner);
        assert_true(kept || none || strstr(text, note) != NULL);
        assert_true(kept ? kt[km].aliased > RTM_BOARD_ALIASED_MIN &&
                               kt[km].aliased < RTM_BOARD_ALIASED_MAX
                         : kt[km].aliased == 0.0);
        assert_true(kt[ki].aliased == 0.0);
    }
    assert_null(strstr(text, ": matrix_add: aliased"));
    /* no silent fallback: the run counts them, and every one is a FALLBACK note */
    const char *fb = strstr(text, "fallbacks to defaults: ");
    assert_non_null(fb);
    const unsigned count = (unsigned)strtoul(fb + strlen("fallbacks to defaults: "), NULL, 10);
    unsigned notes = 0;
    for (const char *q = strstr(text, "FALLBACK: "); q; q = strstr(q + 1, "FALLBACK: "))
        notes++;
    assert_int_equal(notes, count);
}

/* Minimal strict parser for one flat JSON object: "key": string | number | null | true.
 * Returns the number of members, or -1 when malformed; keys[] gets their names and
 * sval[] the string values ("" for others). */
static int json_flat(const char *s, char keys[][32], char sval[][160], double *num, int max)
{
    int n = 0;
    while (isspace((unsigned char)*s))
        s++;
    if (*s++ != '{')
        return -1;
    for (;;) {
        while (isspace((unsigned char)*s))
            s++;
        if (*s == '}' && n == 0)
            return 0;
        if (*s++ != '"' || n >= max)
            return -1;
        size_t k = 0;
        while (*s && *s != '"' && k < 31)
            keys[n][k++] = *s++;
        keys[n][k] = '\0';
        if (*s++ != '"')
            return -1;
        while (isspace((unsigned char)*s))
            s++;
        if (*s++ != ':')
            return -1;
        while (isspace((unsigned char)*s))
            s++;
        sval[n][0] = '\0';
        num[n] = 0;
        if (*s == '"') {
            s++;
            k = 0;
            while (*s && *s != '"' && k < 159) {
                if (*s == '\\')
                    s++;
                sval[n][k++] = *s++;
            }
            sval[n][k] = '\0';
            if (*s++ != '"')
                return -1;
        } else if (strncmp(s, "null", 4) == 0) {
            s += 4;
            num[n] = -1;
        } else if (strncmp(s, "true", 4) == 0) {
            s += 4;
            num[n] = 1;
        } else {
            char *end;
            num[n] = strtod(s, &end);
            if (end == s)
                return -1;
            s = end;
        }
        n++;
        while (isspace((unsigned char)*s))
            s++;
        if (*s == '}') {
            s++;
            while (isspace((unsigned char)*s))
                s++;
            return *s == '\0' ? n : -1;
        }
        if (*s++ != ',')
            return -1;
    }
}

static int find_key(char keys[][32], int n, const char *k)
{
    for (int i = 0; i < n; i++)
        if (strcmp(keys[i], k) == 0)
            return i;
    return -1;
}

static void test_validate_json(void **state)
{
    (void)state;
    char json_path[128];
    snprintf(json_path, sizeof(json_path), "%s/validate.json", dir);
    const char *args[] = {"calibrate", "--validate", "-b", profile, "--quick", "--json",
                          "--json-out", json_path, "--kernels", "matrix_add", "--quiet", NULL};
    assert_int_equal(run_rtmgr(args), 0);
    /* --json-out gets the same lines as stdout */
    static char copy[1 << 20];
    cli_slurp(json_path, copy, sizeof(copy));
    assert_string_equal(copy, out);
    int measurements[2] = {0, 0}, summaries[2] = {0, 0}, cpu_rows = 0;
    char *save = NULL;
    for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char keys[8][32] = {{0}}, sval[8][160] = {{0}};
        double num[8] = {0};
        const int n = json_flat(line, keys, sval, num, 8);
        if (n < 0)
            fprintf(stderr, "not a flat JSON object: %s\n", line);
        assert_true(n > 0);
        const int model = find_key(keys, n, "model");
        assert_true(model >= 0);
        const bool paper = strcmp(sval[model], "paper") == 0;
        assert_true(paper || strcmp(sval[model], "extended") == 0);
        const int m = paper ? 0 : 1;
        if (find_key(keys, n, "summary") >= 0) {
            /* exactly: summary, device, model, mape */
            assert_int_equal(n, 4);
            assert_true(find_key(keys, n, "device") >= 0);
            const int mape = find_key(keys, n, "mape");
            assert_true(mape >= 0 && mape < n);
            assert_true(num[mape > 0 ? mape : 0] >= 0);
            summaries[m]++;
            continue;
        }
        /* exactly: kernel, device, model, size, predicted_ms, measured_ms */
        assert_int_equal(n, 6);
        const char *want[] = {"kernel", "device", "model", "size", "predicted_ms", "measured_ms"};
        for (int i = 0; i < 6; i++)
            assert_string_equal(keys[i], want[i]);
        assert_string_equal(sval[0], "matrix_add");
        assert_true(num[4] > 0 && num[5] > 0);
        assert_non_null(strstr(sval[3], "n="));
        cpu_rows += strcmp(sval[1], "cpu") == 0;
        measurements[m]++;
    }
    /* both models for every measurement, a summary per device and model */
    assert_true(measurements[0] > 0);
    assert_int_equal(measurements[0], measurements[1]);
    assert_true(cpu_rows > 0);
    assert_true(summaries[0] >= 2); /* at least one OpenCL device and the CPU */
    assert_int_equal(summaries[0], summaries[1]);
}

/* Validation says on its log how busy the host was while it measured each device, as
 * calibration notes it for its sections (session 29: the H100 host's CPU validations
 * moved from 8.4 to 15.0 % MAPE over four same-machine runs with its hypervisor's steal). */
static void test_validate_load_noted(void **state)
{
    (void)state;
    const char *args[] = {"calibrate", "--validate", "-b", profile, "--quick", "--device",
                          "none", "--kernels", "matrix_add", NULL};
    assert_int_equal(run_rtmgr(args), 0);
    const char *note = strstr(err, "rtmgr: validate: cpu: host load while validating it (");
    if (!note)
        fprintf(stderr, "validation's log:\n%s\n", err);
    assert_non_null(note);
    assert_non_null(strstr(note, "stolen by the hypervisor"));
    /* and each round's, before the whole device's (session 55) */
    const char *r1 = strstr(err, "rtmgr: validate: cpu: host load over round 1 (");
    const char *r3 = strstr(err, "rtmgr: validate: cpu: host load over round 3 (");
    assert_non_null(r1);
    assert_non_null(r3);
    assert_true(r1 < r3 && r3 < note);
}

/* The passes of the CPU pool's kernel points over which the host was busy (other
 * processes and the hypervisor over 0.25 cores; RTM_CALIB_BUSY_PASSES injects it) are
 * left out of their points' medians, and kernels left short of quiet jobs are passed
 * again: at once in a CPU-only run, after the devices' sections where devices follow
 * (session 55: the H100 host's hypervisor stole 1.03 cores over a whole CPU section and
 * that profile validated at +11 to +19 % median error). */
static unsigned busy_note(const char *path, unsigned *busy_first, unsigned *dropped)
{
    static char text[1 << 17];
    cli_slurp(path, text, sizeof(text));
    const char *n = strstr(text, "cpu: the host's load over the passes");
    assert_non_null(n);
    const char *k = strstr(n, " kernels busy); the later ones: ");
    const char *j = strstr(n, " jobs of busy passes left out");
    assert_non_null(k);
    assert_non_null(j);
    const char *q = k;
    while (q > n && q[-1] != '(')
        q--;
    *busy_first = (unsigned)strtoul(q, NULL, 10);
    const char *d = j;
    while (d > n && d[-1] != ' ')
        d--;
    *dropped = (unsigned)strtoul(d, NULL, 10);
    unsigned passes = 0;
    assert_int_equal(sscanf(j, " jobs of busy passes left out of their points' medians; %u "
                               "passes in all",
                            &passes),
                     1);
    return passes;
}

static void test_busy_passes_measured_again(void **state)
{
    (void)state;
    char path[160];
    snprintf(path, sizeof(path), "%s/busy.yaml", dir);
    unsigned first = 0, dropped = 0;
    /* the CPU alone: the two regular later passes busy, one more at once (4 + 3 quiet jobs) */
    const char *cpu[] = {"calibrate", "-o", path, "--quick", "--device", "none", "--kernels",
                         "copy,spin", NULL};
    run_rtmgr_ok("RTM_CALIB_BUSY_PASSES", "2,3", cpu);
    rtm_board_t b;
    load(path, &b);
    /* (the injected passes alone are busy, whatever the host's load; the note's reading
     * removes the file) */
    assert_int_equal(busy_note(path, &first, &dropped), 4);
    assert_int_equal(first, 0);
    assert_true(dropped > 0);
    assert_null(strstr(err, "after the devices"));
    /* with a device after it: the pool overheads (0) and the later passes busy, the
     * fourth run after the device's section */
    const char *dev[] = {"calibrate", "-o", path, "--quick", "--device", "0", "--kernels",
                         "copy", NULL};
    run_rtmgr_ok("RTM_CALIB_BUSY_PASSES", "0,2,3", dev);
    assert_non_null(strstr(err, "cpu: the host was busy: kernels' points measured again after "
                                "the devices"));
    const char *late = strstr(err, "cpu: after the devices: pool overheads again, 1 more passes");
    const char *ocl = strstr(err, "ocl0: ");
    assert_non_null(late);
    assert_non_null(ocl);
    assert_true(ocl < late); /* after the device's section */
    load(path, &b);
    assert_true(b.cpu_ktune[rtm_kernel_index(rtm_kernel_find("copy"))].have);
    assert_int_equal(busy_note(path, &first, &dropped), 4);
    assert_true(dropped > 0);
}

/* A copy of profile P with ocl0's `units` set to 999 (a device whose waves moved since
 * its base was calibrated) and, where driver is not NULL, its driver line replaced. */
static void moved_base(const char *path, const char *driver)
{
    static char text[1 << 17], edit[1 << 17];
    cli_read(profile, text, sizeof(text));
    char *devs = strstr(text, "\ndevices:");
    assert_non_null(devs);
    char *u = strstr(devs, "\n      units: ");
    assert_non_null(u);
    char *num = u + strlen("\n      units: "), *end = num;
    while (*end >= '0' && *end <= '9')
        end++;
    assert_true(end > num);
    snprintf(edit, sizeof(edit), "%.*s999%s", (int)(num - text), text, end);
    if (driver) {
        char *d = strstr(strstr(edit, "\ndevices:"), "\n    driver: ");
        assert_non_null(d);
        char *eol = strchr(d + 1, '\n');
        assert_non_null(eol);
        snprintf(text, sizeof(text), "%.*s\n    driver: \"%s\"%s", (int)(d - edit), edit, driver, eol);
        snprintf(edit, sizeof(edit), "%s", text);
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(edit, f);
    fclose(f);
}

/* --kernels on a device of the base profile measures the device's own figures again and
 * keeps its other kernels' fits, made against the base's: where the waves or per-launch
 * terms moved (session 73: ocl0 on the H100 host, units 8192 -> 4096, its other kernels
 * then at 48.5 %) the base's are put back before any kernel is fitted, so that the
 * kernels measured now are fitted against the figures the kept ones were, and the run
 * says so, on stderr and in the profile (before session 79 the moved figures were kept
 * and only the warning told). A base whose ocl0 holds 999 execution units stands in for
 * the moved device. On another driver the device changed: nothing is put back, and the
 * warning asks for it whole. (Not asserted: silence against an unchanged base. PoCL's
 * units and resident on a 2-core VM measured 512 / 1 and 1024 / 2 in runs a minute
 * apart.) */
static void test_kernels_kept_fits(void **state)
{
    (void)state;
    static char text[1 << 17];
    static rtm_board_t b;
    char base[160], path[160];
    snprintf(base, sizeof(base), "%s/moved.yaml", dir);
    snprintf(path, sizeof(path), "%s/kept.yaml", dir);
    moved_base(base, NULL);
    const char *args[] = {"calibrate", "-o", path, "-b", base, "--quick", "--device", "0",
                          "--no-cpu", "--kernels", "matrix_add", NULL};
    run_rtmgr_ok(NULL, NULL, args);
    assert_non_null(strstr(err, "rtmgr: calibrate: WARNING: ocl0: its own figures moved from the "
                                "base profile's (units 999 -> "));
    assert_non_null(strstr(err, "the base's kept, and the kernels measured now fitted against them"));
    cli_read(path, text, sizeof(text));
    assert_non_null(strstr(text, "ocl0: its own figures moved from the base profile's (units 999 -> "));
    load(path, &b);
    assert_true(b.n_devs >= 1);
    assert_true(b.dev[0].have[RTM_DEV_P_units]);
    assert_true(b.dev[0].param[RTM_DEV_P_units] == 999.0);

    /* another driver: not put back, the device to be recalibrated whole */
    moved_base(base, "0.0-another-driver");
    run_rtmgr_ok(NULL, NULL, args);
    assert_non_null(strstr(err, "rtmgr: calibrate: WARNING: ocl0: its own figures moved from the "
                                "base profile's (units 999 -> "));
    assert_non_null(strstr(err, "on another driver"));
    assert_non_null(strstr(err, "recalibrate the device whole (--device without --kernels)"));
    load(path, &b);
    assert_true(b.dev[0].param[RTM_DEV_P_units] != 999.0);
    unlink(path);
    unlink(base);
}

/* The run's time limit (--time-limit, opts.time_limit): past it a kernel is not measured
 * and keeps the base profile's terms (a FALLBACK each, on stderr and in the profile);
 * near it (RTM_CALIB_SQUEEZE=1 injects that) each kernel gets its first two targets and
 * nothing more, on the CPU pool and on the device. Session 55's cold H100 runs took
 * 52.6-70.6 s against the 60 s target, with no bound on a busy host. */
static void test_time_limit(void **state)
{
    (void)state;
    static char text[1 << 17];
    static rtm_board_t base, b;
    char path[160];
    snprintf(path, sizeof(path), "%s/limit.yaml", dir);
    load(profile, &base);
    const int ki = rtm_kernel_index(rtm_kernel_find("matrix_add"));
    const char *bad[] = {"calibrate", "-o", path, "--time-limit", "-1", NULL};
    assert_int_equal(run_rtmgr(bad), 1);
    assert_non_null(strstr(err, "--time-limit takes seconds, 0..86400 (got '-1')"));
    /* 0.5 s, less the run's end's reserve: past the limit from the start */
    const char *past[] = {"calibrate", "-o", path, "-b", profile, "--quick", "--device", "0",
                          "--kernels", "matrix_add", "--time-limit", "0.5", NULL};
    run_rtmgr_ok(NULL, NULL, past);
    assert_non_null(strstr(err, "WARNING: fallback: cpu: kernel matrix_add not measured: the "
                                "run's time limit (0.5s) reached; the base profile's terms "
                                "predict it"));
    assert_non_null(strstr(err, "WARNING: fallback: ocl0: kernel matrix_add not measured"));
    assert_non_null(strstr(err, "ocl0: abort '")); /* measured, from fewer aborts */
    /* the CPU pool's and ocl0's matrix_add and ocl0's matrix_mov */
    assert_non_null(strstr(err, "time limit 0.5s: 0 kernel(s) measured at two points, 3 not measured"));
    load(path, &b);
    assert_true(b.cpu_ktune[ki].have);
    assert_true(b.cpu_ktune[ki].r_op > 0);
    assert_true(fabs(b.cpu_ktune[ki].r_op / base.cpu_ktune[ki].r_op - 1.0) < 1e-3);
    assert_true(b.n_devs >= 1 && b.dev[0].ktune[ki].r_op > 0);
    assert_true(fabs(b.dev[0].ktune[ki].r_op / base.dev[0].ktune[ki].r_op - 1.0) < 1e-3);
    cli_slurp(path, text, sizeof(text));
    assert_non_null(strstr(text, "FALLBACK: cpu: kernel matrix_add not measured"));
    assert_non_null(strstr(text, "time limit 0.5s (0: none): 0 kernel(s) measured at two points"));
    assert_non_null(strstr(text, "ocl0: abort response from 3 aborts per transport: the run's time limit"));
    const char *mapped = strstr(text, "ocl0: abort flag 'mapped': ");
    assert_non_null(mapped);
    /* at most 3 timed (an abort the kernel outran is not: one of CI's 3, loaded) */
    const char *count = strstr(mapped, "kernel, ");
    unsigned aborts = 99;
    assert_true(count && count < strchr(mapped, '\n'));
    assert_int_equal(sscanf(count, "kernel, %u aborts, response", &aborts), 1);
    assert_true(aborts <= 3);
    /* squeezed: two points each, and a profile whose fits are this run's */
    const char *near[] = {"calibrate", "-o", path, "--quick", "--device", "0", "--kernels",
                          "matrix_add,grid_path", NULL};
    run_rtmgr_ok("RTM_CALIB_SQUEEZE", "1", near);
    assert_null(strstr(err, "not measured"));
    unsigned fits = 0;
    for (const char *l = strstr(err, " r_op "); l; l = strstr(l + 1, " r_op ")) {
        fits++;
        const char *eol = strchr(l, '\n');
        const char *two = strstr(l, "(2 sizes, residual");
        assert_true(two && (!eol || two < eol));
    }
    assert_int_equal(fits, 5); /* the CPU pool's two, ocl0's matrix_mov and two */
    load(path, &b);
    assert_true(b.cpu_ktune[ki].have && b.cpu_ktune[ki].r_op > 0);
    assert_true(b.dev[0].ktune[ki].have && b.dev[0].ktune[ki].r_op > 0);
    cli_slurp(path, text, sizeof(text));
    assert_non_null(strstr(text, "RTM_CALIB_SQUEEZE: every kernel squeezed: 5 kernel(s) measured "
                                 "at two points"));
}

/* Validation prints, per point, how far apart its three rounds measured the same job
 * (rnd%), and per device their mean: the machine's own repeatability, beside which the
 * model's MAPE is read (session 38: on the H100 host's VM the CPU pool's rounds differed
 * by 13-20 % on average, the model's MAPE 9.8-18.8 % in four runs of one profile). */
static void test_validate_round_spread(void **state)
{
    (void)state;
    const char *args[] = {"calibrate", "--validate", "-b", profile, "--quick", "--device",
                          "none", "--kernels", "matrix_add", NULL};
    assert_int_equal(run_rtmgr(args), 0);
    assert_non_null(strstr(out, "rnd%"));
    const char *sum = strstr(out, "cpu      rounds   the same job's medians in the 3 rounds differ by ");
    if (!sum)
        fprintf(stderr, "validation's table:\n%s\n", out);
    assert_non_null(sum);
    double mean = -1.0;
    unsigned wide = 0, points = 0;
    assert_int_equal(sscanf(sum + strlen("cpu      rounds   the same job's medians in the 3 rounds "
                                         "differ by "),
                            "%lf%% on average ((max - min) / median, rnd%%), %u of %u", &mean,
                            &wide, &points),
                     3);
    assert_true(mean >= 0.0 && wide <= points && points >= 1);
    /* every matrix_add row ends with its spread, a number (quick jobs run in every round) */
    unsigned rows = 0;
    double total = 0.0;
    for (const char *l = strstr(out, "\nmatrix_add "); l; l = strstr(l + 1, "\nmatrix_add ")) {
        const char *eol = strchr(l + 1, '\n');
        const char *bar = l;
        for (const char *q = l + 1; q && q < eol; q = strchr(q + 1, '|'))
            bar = q;
        double v = -1.0;
        assert_int_equal(sscanf(bar + 1, "%lf", &v), 1);
        assert_true(v >= 0.0);
        total += v;
        rows++;
    }
    assert_int_equal(rows, points);
    assert_true(fabs(total / rows - mean) <= 0.051); /* rows print one decimal */
}

static void test_stale_driver(void **state)
{
    (void)state;
    static rtm_board_t b;
    load(profile, &b);
    char buf[4096];
    FILE *w = fmemopen(buf, sizeof(buf), "w");
    assert_non_null(w);
    assert_int_equal(rtm_calib_check_stale(&b, NULL, 0, w), 0);
    fclose(w);
    assert_string_equal(buf, "");

    /* a driver update: one warning, no failure */
    snprintf(b.dev[0].driver, sizeof(b.dev[0].driver), "0.0-not-this-driver");
    w = fmemopen(buf, sizeof(buf), "w");
    assert_int_equal(rtm_calib_check_stale(&b, NULL, 0, w), 1);
    fclose(w);
    assert_non_null(strstr(buf, "warning: board profile stale: recalibrate"));
    assert_non_null(strstr(buf, "0.0-not-this-driver"));

    /* the same through the file: edit the driver line, load, check */
    load(profile, &b);
    rtm_ocl_info_t infos[RTM_MAX_DEVICES];
    uint32_t n = 0;
    assert_int_equal(rtm_ocl_discover(infos, RTM_MAX_DEVICES, &n), RTM_OK);
    char text[1 << 16], edited[1 << 16];
    cli_read(profile, text, sizeof(text));
    char line[256];
    snprintf(line, sizeof(line), "driver: \"%s\"", b.dev[0].driver);
    char *at = strstr(text, line);
    assert_non_null(at);
    snprintf(edited, sizeof(edited), "%.*sdriver: \"9.9-edited\"%s", (int)(at - text), text,
             at + strlen(line));
    char path[160];
    snprintf(path, sizeof(path), "%s/stale.yaml", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(edited, f);
    fclose(f);
    load(path, &b);
    unlink(path);
    w = fmemopen(buf, sizeof(buf), "w");
    assert_int_equal(rtm_calib_check_stale(&b, infos, n, w), 1);
    fclose(w);
    assert_non_null(strstr(buf, "board profile stale: recalibrate"));
    assert_non_null(strstr(buf, "9.9-edited"));

    /* a device that is not there any more */
    snprintf(b.dev[0].device, sizeof(b.dev[0].device), "No Such Accelerator 9000");
    w = fmemopen(buf, sizeof(buf), "w");
    assert_int_equal(rtm_calib_check_stale(&b, infos, n, w), 1);
    fclose(w);
    assert_non_null(strstr(buf, "is not on this computer"));
}

/* Bug (session 71): the CPU was checked by its core count alone, so a profile
 * calibrated on one host's CPU passed on another of as many cores (the H100 machine's
 * host changed between sessions). The profile records the CPU's model name; another
 * name now is one difference; a profile without one (before session 71) is not
 * checked on it. */
static void test_stale_cpu(void **state)
{
    (void)state;
    static rtm_board_t b;
    load(profile, &b); /* calibrated by this process: this CPU's name */
    char now[sizeof(b.cpu_name)];
    if (!rtm_os_cpu_name(now, sizeof(now))) {
        printf("no CPU model name in /proc/cpuinfo here: nothing to compare\n");
        skip();
    }
    assert_string_equal(b.cpu_name, now);
    char buf[4096];
    FILE *w = fmemopen(buf, sizeof(buf), "w");
    assert_non_null(w);
    assert_int_equal(rtm_calib_check_stale(&b, NULL, 0, w), 0);
    fclose(w);
    snprintf(b.cpu_name, sizeof(b.cpu_name), "No Such CPU 9000");
    w = fmemopen(buf, sizeof(buf), "w");
    assert_int_equal(rtm_calib_check_stale(&b, NULL, 0, w), 1);
    fclose(w);
    assert_non_null(strstr(buf, "board profile stale: recalibrate (CPU \""));
    assert_non_null(strstr(buf, "\"No Such CPU 9000\" at calibration"));
    b.cpu_name[0] = '\0';
    w = fmemopen(buf, sizeof(buf), "w");
    assert_int_equal(rtm_calib_check_stale(&b, NULL, 0, w), 0);
    fclose(w);
}

static double fake_pred(const void *ctx, const rtm_kinst_t *k)
{
    (void)ctx;
    return (double)k->size[0] * (double)k->size[0] * 1e-9; /* grows with n^2 */
}

/* Calibration takes odd first keys, validation even ones: never the same size. */
static void test_size_parity(void **state)
{
    (void)state;
    const rtm_kernel_t *kern = rtm_kernel_find("matrix_add");
    const rtm_calib_lim_t lim = {1e12, 1e12};
    int64_t size[RTM_SIZE_KEYS_MAX];
    for (int i = 0; i < 10; i++) {
        const double t = 1e-6 * pow(3.7, i);
        const int64_t odd =
            rtm_calib_size_for(kern, kern->tune_default, t, fake_pred, NULL, &lim, 1, 0, NULL, 0, size);
        const int64_t even =
            rtm_calib_size_for(kern, kern->tune_default, t, fake_pred, NULL, &lim, 0, 0, NULL, 0, size);
        assert_true(odd > 0 && even > 0);
        assert_int_equal(odd & 1, 1);
        assert_int_equal(even & 1, 0);
        assert_true(odd != even);
        /* not below an eighth of the default size */
        assert_true(odd >= kern->keys[0].def / 8 && even >= kern->keys[0].def / 8);
    }
    /* an eighth of the default: 125, rounded to 2 digits: 130 */
    assert_int_equal(
        rtm_calib_size_for(kern, kern->tune_default, 1e-7, fake_pred, NULL, &lim, -1, 0, NULL, 0, size),
        130);
    /* 1 ms at 1 ns per n^2: n = 1000 exactly; even wants 1000, odd takes 1001 or 999 */
    const int64_t even =
        rtm_calib_size_for(kern, kern->tune_default, 1e-3, fake_pred, NULL, &lim, 0, 0, NULL, 0, size);
    assert_int_equal(even, 1000);
    assert_int_equal(size[0], 1000);
    const int64_t taken[1] = {1001};
    const int64_t odd =
        rtm_calib_size_for(kern, kern->tune_default, 1e-3, fake_pred, NULL, &lim, 1, 0, taken, 1, size);
    assert_int_equal(odd, 999);
    /* a memory limit caps the size: 3 buffers of n^2 floats under 12 MB -> n < 1001 */
    const rtm_calib_lim_t small = {4e6, 12e6};
    const int64_t capped =
        rtm_calib_size_for(kern, kern->tune_default, 1.0, fake_pred, NULL, &small, 1, 0, NULL, 0, size);
    assert_true(capped > 0 && capped <= 1000);
}

/* Points of a kernel whose time per operation doubles once its buffers pass 5 MB:
 * ws = 1, 2, 4 MB at r = 1 ns, 16 and 32 MB at 2 ns. */
static uint32_t cliff_points(rtm_calib_fitpt_t *p)
{
    static const double ws_mb[] = {1, 2, 4, 16, 32};
    for (uint32_t i = 0; i < 5; i++) {
        const double ops = 1e6 * ws_mb[i];
        const double r = ws_mb[i] > 5 ? 2e-9 : 1e-9;
        p[i] = (rtm_calib_fitpt_t){ws_mb[i] * 1e6, ops, 0.0, 0.0, ops, r * ops, 0.0, 0.0, 0.0, 0.0};
    }
    return 5;
}

/* Transfer calibration's sizes: 4 KiB, 16 KiB, … ×4 (n of them). */
static void xfer_sizes(double *x, int n)
{
    for (int i = 0; i < n; i++)
        x[i] = 4096.0 * (double)(1u << (2 * i));
}

/* The H100's job input spans of session 24, 1 and 2 buffers at xfer_sizes' 4 KiB to
 * 256 MiB (us). */
static const double h100_in1_us[9] = {25.15, 33.6, 31.07, 33.54, 51.6,
                                      109.7, 330.9, 1250, 4907};
static const double h100_in2_us[9] = {26.62, 29.76, 27.9, 30.78, 43.36,
                                      110.4, 334.9, 1255, 5005};

/* The H100's job input spans of session 24: 25 us at 4 KiB, 34 at 16 KiB, 31 at
 * 64 KiB. A knee after two sizes fitted that noise as a rate of 1.1 GB/s up to 16 KiB
 * (every larger job charged 15 us, the paper's model 50 times its transfers); the fit
 * must keep the link's rate below any knee and predict the measured spans. */
static void test_xfer_fit_small_noise(void **state)
{
    (void)state;
    const double us = 1e-6;
    double x[9], y1[9], y2[9];
    xfer_sizes(x, 9);
    for (int i = 0; i < 9; i++)
        y1[i] = h100_in1_us[i] * us, y2[i] = h100_in2_us[i] * us;
    rtm_calib_xfit_t f;
    double resid = 0;
    rtm_calib_xfer_fit(x, y1, y2, 9, &f, &resid);
    assert_true(f.knee == 0.0 || f.knee >= 64.0 * 1024);
    assert_true(f.inv > 0 && 1.0 / f.inv > 20e9); /* the link's rate, not the noise's */
    for (int i = 0; i < 9; i++)
        assert_true(fabs(rtm_calib_xfit_span(&f, x[i], 1) - y1[i]) / y1[i] < 0.25);
    /* the outputs of the same run: 1.5 us for one buffer, 10.4 for two (the second read
     * waits for the first): the per-command part stays */
    const double o1[9] = {1.504 * us, 1.728 * us, 2.688 * us, 6.336 * us, 20.35 * us,
                          77.22 * us, 304.4 * us, 1212 * us, 4866 * us};
    const double o2[9] = {10.4 * us, 10.53 * us, 11.12 * us, 13.98 * us, 23.33 * us,
                          80.3 * us, 307.8 * us, 1223 * us, 4963 * us};
    rtm_calib_xfer_fit(x, o1, o2, 9, &f, &resid);
    assert_true(f.first < 3 * us && f.next > 6 * us && f.next < 11 * us);
    assert_true(1.0 / f.inv > 40e9);
}

/* PoCL's job input spans here in session 61 (2 vCPUs; 1 and 2 buffers, 4 KiB to
 * 64 MiB): 47 GB/s to 256 KiB (a core's cache), 13.6-14.6 GB/s on to 16 MiB, 6.1 GB/s
 * from 16 to 64 MiB (past the last-level cache). One knee (at 256 KiB) fitted 12.2 GB/s
 * past it, and validation's 84 MB inputs took 12.4 ms against 6.8 predicted; the
 * second knee must be found at 16 MiB and the fit must predict every span. */
static void test_xfer_fit_llc(void **state)
{
    (void)state;
    const double us = 1e-6;
    double x[9];
    xfer_sizes(x, 9);
    const double y1[8] = {1.125 * us, 1.442 * us, 2.059 * us, 6.146 * us,
                          63.24 * us, 275.4 * us, 1341 * us,  9454 * us};
    const double y2[8] = {2.518 * us, 4.352 * us, 7.579 * us, 18.28 * us,
                          64.97 * us, 295.1 * us, 1743 * us,  9571 * us};
    rtm_calib_xfit_t f;
    double resid = 0;
    rtm_calib_xfer_fit(x, y1, y2, 8, &f, &resid);
    assert_true(f.knee > 0 && f.knee < f.knee2);
    assert_true(f.knee2 == 16.0 * 1024 * 1024);
    assert_true(f.inv3 > f.inv2 && 1.0 / f.inv3 < 8e9);
    for (int i = 3; i < 8; i++) /* from 256 KiB on: the fixed parts' noise below */
        assert_true(fabs(rtm_calib_xfit_span(&f, x[i], 1) - y1[i]) / y1[i] < 0.2);
    assert_true(fabs(rtm_calib_xfit_span(&f, x[7], 2) - y2[7]) / y2[7] < 0.1);
    /* the H100's (session 24): no cache in the link's way, no second knee */
    double h1[9], h2[9];
    for (int i = 0; i < 9; i++)
        h1[i] = h100_in1_us[i] * us, h2[i] = h100_in2_us[i] * us;
    rtm_calib_xfer_fit(x, h1, h2, 9, &f, &resid);
    assert_true(f.knee2 == 0.0);
}

/* The second regime's knee sits at the cache when the cache lies between two sizes:
 * a job of 6 MB (past a 5 MB cache) gets r_big. Halfway between 4 and 16 MB (8 MB, the
 * rule before) it got r, 50 % under. */
static void test_fit_knee_at_cache(void **state)
{
    (void)state;
    rtm_calib_fitpt_t p[8];
    const uint32_t n = cliff_points(p);
    rtm_calib_fit_t o;
    assert_true(rtm_calib_fit(p, n, 5e6, &o));
    assert_true(fabs(o.r - 1e-9) < 1e-12);
    assert_true(fabs(o.r_big - 2e-9) < 1e-12);
    assert_true(o.knee == 5e6);
    assert_true(o.resid < 1e-6);
    /* no cache between the sizes (or none known): halfway, geometrically */
    assert_true(rtm_calib_fit(p, n, 0.0, &o));
    assert_true(fabs(o.knee - 8e6) < 1.0);
    assert_true(rtm_calib_fit(p, n, 100e6, &o));
    assert_true(fabs(o.knee - 8e6) < 1.0);
    assert_true(o.r_miss == 0.0); /* a step: the gradual regime does not fit it */
    /* three points, the last past the cache (calibration's sizes by time, then the point
     * past the cache): a knee at the cache has no free parameter, so r and the second
     * regime are measured by them — either form fits exactly, and the gradual one is
     * kept: 16 MB is 1 - 5/16 beyond, so r_miss = 1 + 1 / (11/16) ns; with the knee free,
     * three points are too few for it */
    const rtm_calib_fitpt_t three[3] = {p[0], p[1], p[3]};
    assert_true(rtm_calib_fit(three, 3, 5e6, &o));
    assert_true(o.knee == 5e6);
    assert_true(fabs(o.r - 1e-9) < 1e-12 && o.r_big == 0.0);
    assert_true(fabs(o.r_miss - (1e-9 + 1e-9 * 16.0 / 11.0)) < 1e-12);
    assert_true(rtm_calib_fit(three, 3, 0.0, &o));
    assert_true(o.r_big == 0.0 && o.r_miss == 0.0 && o.knee == 0.0);
}

/* A gradual second regime (the share of the buffers beyond the cache misses): points
 * at 1-4 MB at r = 1 ns, at 8, 16, 32 MB by model.c's blend towards r_miss = 3 ns past
 * a 5 MB cache. The fit finds it exactly; the step form (r_big) cannot. */
static void test_fit_gradual_regime(void **state)
{
    (void)state;
    static const double ws_mb[] = {1, 2, 4, 8, 16, 32};
    rtm_calib_fitpt_t p[6];
    for (uint32_t i = 0; i < 6; i++) {
        const double ops = 1e6 * ws_mb[i];
        const double r = rtm_model_r_blend(1e-9, 3e-9, 5e6, ws_mb[i] * 1e6);
        p[i] = (rtm_calib_fitpt_t){ws_mb[i] * 1e6, ops, 0.0, 0.0, ops, r * ops, 0.0, 0.0, 0.0, 0.0};
    }
    rtm_calib_fit_t o;
    assert_true(rtm_calib_fit(p, 6, 5e6, &o));
    assert_true(o.knee == 5e6 && o.r_big == 0.0);
    assert_true(fabs(o.r - 1e-9) < 1e-12 && fabs(o.r_miss - 3e-9) < 1e-12);
    assert_true(o.resid < 1e-6);
    assert_true(fabs(rtm_model_r_blend(o.r, o.r_miss, o.knee, 10e6) - 2e-9) < 1e-12);
}

/* The resident form, on the H100's cpa_pairs at wg 64 (sessions 49-50, every point from
 * a cold calibration of the same code: ships, blocks of both launches, Z * li, kernel
 * ms): the device's resident (1, the probe's mad chain) puts its points 26-30 % apart;
 * the kernel's own, fitted on four points, about 9 groups a compute unit, fits them
 * within 10 % and predicts validation's 3000 and 15000 ships (0.0619, 0.4643 ms) within
 * 10 %. Through three points the form is not fitted (a free R needs k + 2), nor without
 * the points' groups. */
static double pairs_a(double blocks, double ops, double res, bool own)
{
    const double g = ceil(blocks / 132.0);
    /* a at r = 1 (cus / units = 1 / 256), the device's resident a sharp corner, the
     * kernel's own a smooth one (model.c's waves term) */
    return ops / blocks * res * rtm_model_occupancy(g, res, own) / 256.0;
}

static void test_fit_resident(void **state)
{
    (void)state;
    static const double blocks[] = {12, 610, 830, 4267}, ops[] = {778880, 5.31518e8, 9.81674e8,
                                                                    8.93209e9},
                        ws[] = {19976, 1.34201e6, 1.82361e6, 9.08863e6},
                        t_ms[] = {0.02466, 0.0810, 0.1113, 0.5252};
    rtm_calib_fitpt_t p[4];
    for (uint32_t i = 0; i < 4; i++)
        p[i] = (rtm_calib_fitpt_t){ws[i], pairs_a(blocks[i], ops[i], 1.0, false), 18.7e-6, 0.0, ops[i],
                                   t_ms[i] * 1e-3, 0.0, 0.0, ceil(blocks[i] / 132.0), 1.0};
    rtm_calib_fit_t o;
    assert_true(rtm_calib_fit(p, 4, 64.0 * 1048576.0, &o));
    assert_true(o.resident >= 6.0 && o.resident <= 12.0);
    assert_true(o.resid < 0.10);
    static const double vb[] = {517, 3760}, vo[] = {3.15554e8, 7.8383e9}, vt[] = {0.0619, 0.4643};
    for (int i = 0; i < 2; i++) {
        const double pred = 18.7e-6 + o.t_fixed + o.r * pairs_a(vb[i], vo[i], o.resident, true);
        assert_true(fabs(pred / (vt[i] * 1e-3) - 1.0) < 0.10);
    }
    /* the device's resident alone: the points far apart */
    rtm_calib_fitpt_t q[4];
    memcpy(q, p, sizeof(q));
    for (uint32_t i = 0; i < 4; i++)
        q[i].g = q[i].res = 0.0;
    assert_true(rtm_calib_fit(q, 4, 64.0 * 1048576.0, &o));
    assert_true(o.resident == 0.0 && o.resid > 0.2);
    const rtm_calib_fitpt_t three[3] = {p[0], p[2], p[3]};
    assert_true(rtm_calib_fit(three, 3, 64.0 * 1048576.0, &o));
    assert_true(o.resident == 0.0);
}

/* A synthetic executor for rtm_calib_kernel_points: every job of instance k takes
 * time(k), and the jobs measured are counted. */
typedef struct {
    int measured;
    double (*time)(const rtm_kinst_t *k);
} synth_t;

static rtm_status_t synth_measure(void *ctx, rtm_calib_inst_t *in, int reps, double *t,
                                  rtm_calib_fig_t *f)
{
    (void)reps;
    synth_t *sy = ctx;
    sy->measured++;
    *t = sy->time(&in->k);
    *f = (rtm_calib_fig_t){.median = *t, .n = REPS, .kept = REPS};
    return RTM_OK;
}

/* rtm_calib_fit through the points rtm_calib_kernel_points measured. */
static bool fit_points(const kpoint_t *pts, uint32_t n, double cache, rtm_calib_fit_t *fo)
{
    rtm_calib_fitpt_t p[16];
    for (uint32_t i = 0; i < n && i < 16; i++)
        p[i] = (rtm_calib_fitpt_t){pts[i].ws, pts[i].a, pts[i].b, pts[i].m, pts[i].x, pts[i].t,
                                   pts[i].L, pts[i].bp, pts[i].g, pts[i].res};
    return rtm_calib_fit(p, n < 16 ? n : 16, cache, fo);
}

/* Shape points, through rtm_calib_kernel_points on cpa_pairs at wg 64 with a synthetic
 * GPU (132 compute units, the device's resident 1) whose kernel follows the H100's
 * shape, 18.7 us + r * ops_block * sqrt(12^2 + g^2) / 256 (the H100's fits: 9.5-13.5),
 * and 60 us of transfers. Its three target points (131, 7501, 16001 ships) fit the
 * device's resident 15 % apart or more; the kernel gets a point in its widest hole in
 * time (991 ships), and the fit finds its resident. Sized by the job's time (transfers
 * included) the first hole's point landed next to the smaller point and was skipped
 * (session 51's first H100 run: three points, no resident). */
#define SHAPE_R 12.0

static double shape_t(const rtm_kinst_t *k, double R)
{
    rtm_model_job_t j;
    if (rtm_model_job_make(k, &j) != RTM_OK || j.blocks == 0)
        return -1.0;
    const double g = ceil((double)j.blocks / 132.0), ops = j.cost.Z * j.cost.li / j.blocks;
    return 18.7e-6 + 1.75e-9 * ops * R * rtm_model_occupancy(g, R, R > 1.0) / 256.0;
}

static double shape_time(const rtm_kinst_t *k) { return shape_t(k, SHAPE_R); }

static double shape_kpred(const void *ctx, const rtm_kinst_t *k)
{
    (void)ctx;
    return shape_time(k);
}

static double shape_pred(const void *ctx, const rtm_kinst_t *k)
{
    const double t = shape_kpred(ctx, k);
    return t < 0 ? t : t + 60e-6;
}

static bool shape_coef(const void *ctx, const rtm_kinst_t *k, double *a, double *b, double *bp)
{
    (void)ctx;
    *b = *bp = 18.7e-6;
    *a = (shape_t(k, 1.0) - 18.7e-6) / 1.75e-9;
    return *a > 0;
}

static bool shape_groups(const void *ctx, const rtm_kinst_t *k, double *g, double *res)
{
    (void)ctx;
    rtm_model_job_t j;
    if (rtm_model_job_make(k, &j) != RTM_OK)
        return false;
    *g = rtm_model_busiest_groups((double)j.blocks, 132.0);
    *res = 1.0;
    return true;
}

static void test_shape_points(void **state)
{
    (void)state;
    static const double targets[] = {0.08e-3, 0.25e-3, 0.6e-3};
    rtm_calib_opts_t o = {0};
    rtm_calib_record_t rec;
    memset(&rec, 0, sizeof(rec));
    cal_t c = {.o = &o, .rec = &rec, .targets = targets, .n_targets = 3};
    const rtm_calib_lim_t lim = {256.0 * 1048576.0, 1024.0 * 1048576.0};
    synth_t sc = {0, shape_time};
    double r_est = 1.75e-9;
    kfit_t kf = {.kern = rtm_kernel_find("cpa_pairs"), .tune = {64, 1}, .lim = &lim,
                 .pred = shape_pred, .kpred = shape_kpred, .r_est = &r_est,
                 .coef = shape_coef, .measure = synth_measure, .groups = shape_groups,
                 .ctx = &sc, .deadline = 1e30, .workers = 132};
    kpoint_t pts[16];
    uint32_t n = 0;
    assert_int_equal(rtm_calib_kernel_points(&c, &kf, pts, 16, &n), RTM_OK);
    assert_int_equal(n, 4); /* the resident form through four fits them: no fifth */
    rtm_calib_fit_t fo;
    assert_true(fit_points(pts, n, 0.0, &fo));
    assert_true(fo.resident >= SHAPE_R / 1.19 && fo.resident <= SHAPE_R * 1.19);
    assert_true(fo.resid < 0.05);
    assert_int_equal(sc.measured, 5); /* 4 points, the smallest measured again */
}

/* Knee points, through rtm_calib_kernel_points on the CPU twin of threshold whose time per
 * pixel is 1.35x beyond KNEE_WS (33 MiB of buffers, width 16 000), the pool's knee 4 MiB
 * (not between): its target points put the knee between widths about 8 000 and 28 000,
 * 3.4x apart, where the fit halves the distance in ws (25 MiB: width 12 400) and predicted
 * the sizes between at the higher rate (the 2-core machine's threshold at width 14 000:
 * +33..+46 %). With the knee points the two points around the knee lie within 2x of each
 * other and the fitted knee between them. With the cache between the target points, the
 * cache is the knee: no point added. */
#define KNEE_WS (33.0 * 1048576.0)
#define KNEE_R 0.167e-9
static double knee_at = KNEE_WS; /* where knee_t's rate steps */

static double knee_t(const rtm_kinst_t *k)
{
    rtm_cost_t cost;
    rtm_kinst_cost(k, &cost);
    return cost.li * KNEE_R * (cost.bytes_ws > knee_at ? 1.35 : 1.0);
}

static double knee_pred(const void *ctx, const rtm_kinst_t *k)
{
    (void)ctx;
    rtm_cost_t cost;
    rtm_kinst_cost(k, &cost);
    return cost.li * KNEE_R;
}

static bool knee_coef(const void *ctx, const rtm_kinst_t *k, double *a, double *b, double *bp)
{
    (void)ctx;
    rtm_cost_t cost;
    rtm_kinst_cost(k, &cost);
    *a = cost.li;
    *b = *bp = 0.0;
    return *a > 0;
}

/* The knee tests' calibration of one synthetic kernel: `time` measures it, `pred` (at
 * r_est = r) sizes it, on an executor of 2 workers with no deadline; the caller sets
 * what differs (cpu, host_dev, cache, deadline, measure_part, part) before knee_run. */
typedef struct {
    rtm_calib_opts_t o;
    rtm_calib_record_t rec;
    cal_t c;
    rtm_calib_lim_t lim;
    synth_t kc;
    double r_est;
    kfit_t kf;
    kpoint_t pts[16];
    uint32_t n;
} knee_rig_t;

static void knee_rig(knee_rig_t *g, const char *kernel, rtm_tune_t tune, const double *targets,
                     uint32_t n_targets, double (*time)(const rtm_kinst_t *k),
                     rtm_calib_pred_fn pred, double r)
{
    memset(g, 0, sizeof(*g));
    g->c = (cal_t){.o = &g->o, .rec = &g->rec, .targets = targets, .n_targets = n_targets};
    g->lim = (rtm_calib_lim_t){256.0 * 1048576.0, 1024.0 * 1048576.0};
    g->kc = (synth_t){0, time};
    g->r_est = r;
    g->kf = (kfit_t){.kern = rtm_kernel_find(kernel), .tune = tune, .lim = &g->lim,
                     .pred = pred, .kpred = pred, .r_est = &g->r_est, .coef = knee_coef,
                     .measure = synth_measure, .ctx = &g->kc, .deadline = 1e30, .workers = 2};
}

static rtm_status_t knee_run(knee_rig_t *g)
{
    return rtm_calib_kernel_points(&g->c, &g->kf, g->pts, N_OF(g->pts), &g->n);
}

static void test_knee_points(void **state)
{
    (void)state;
    static const double targets[] = {0.05e-3, 0.4e-3, 1.5e-3, 5e-3};
    static knee_rig_t g;
    for (int between = 0; between < 2; between++) {
        knee_rig(&g, "threshold", (rtm_tune_t){256, 16}, targets, 4, knee_t, knee_pred, KNEE_R);
        g.kf.cpu = true;
        g.kf.cache = (between ? 40.0 : 4.0) * 1048576.0;
        assert_int_equal(knee_run(&g), RTM_OK);
        const kpoint_t *lo = NULL, *hi = NULL; /* sorted by ws */
        for (uint32_t i = 0; i < g.n; i++) {
            if (g.pts[i].ws <= KNEE_WS)
                lo = &g.pts[i];
            if (g.pts[i].ws > KNEE_WS && !hi)
                hi = &g.pts[i];
        }
        assert_non_null(lo);
        assert_non_null(hi);
        if (between) {
            assert_true(hi->ws > 2.0 * lo->ws); /* the target points alone */
            continue;
        }
        assert_true(hi->ws < 2.0 * lo->ws);
        rtm_calib_fit_t fo;
        assert_true(fit_points(g.pts, g.n, g.kf.cache, &fo));
        assert_true(fo.knee > lo->ws && fo.knee < hi->ws);
        assert_true(fo.r_big > 1.3 * fo.r || fo.r_miss > 1.3 * fo.r);
    }
}

/* The CPU pool's step at its cache is a guess too when the cache lies far between two
 * points: the 2-core machine's matrix_mul had points at 27 and 75 MB (and 108), its
 * step put at the 43 MiB cache, and validation's 48 MB came out +141 % (its rate the
 * lower regime's). A synthetic threshold whose rate steps 1.35x at 60 MiB, cache 43 MiB,
 * points up to about 110 MB: a point goes between, and the fit gives a 48 MiB job the
 * lower rate. */
static void test_knee_points_cache(void **state)
{
    (void)state;
    static const double targets[] = {0.05e-3, 0.4e-3, 2.3e-3, 9.2e-3, 12.4e-3};
    static knee_rig_t g;
    knee_rig(&g, "threshold", (rtm_tune_t){256, 16}, targets, 5, knee_t, knee_pred, KNEE_R);
    g.kf.cpu = true;
    g.kf.cache = 43.0 * 1048576.0;
    knee_at = 60.0 * 1048576.0;
    const rtm_status_t st = knee_run(&g);
    knee_at = KNEE_WS;
    assert_int_equal(st, RTM_OK);
    bool between = false;
    for (uint32_t i = 0; i < g.n; i++)
        between = between || (g.pts[i].ws > 43.0 * 1048576.0 && g.pts[i].ws < 60.0 * 1048576.0);
    if (!between && SANITIZED && g.n < 5) {
        /* rtm_calib_kernel_points stops at a job whose host time (the instance's set-up
         * and its runs) exceeds 8x the largest target: the unoptimised, instrumented
         * fill of threshold's 100 MB inputs took 0.12-0.13 s a job here (99 ms allowed;
         * session 64's CI failed on it, and it passed alone once in three runs). Cut
         * short, the points stopped at 3 (session 64) or 4 (0.6, 3.9, 26.8 and 135 MiB,
         * session 65's make test) where a full run has 8. The optimised build checks the
         * point */
        print_message("the points stopped at %u (fewer than the 5 targets) on the sanitized "
                      "instance set-up: not judged here\n", g.n);
        skip();
        return;
    }
    assert_true(between);
    rtm_calib_fit_t fo;
    assert_true(fit_points(g.pts, g.n, g.kf.cache, &fo));
    const double ws = 48.0 * 1048576.0;
    const double r48 = fo.r_big > 0 ? (ws > fo.knee ? fo.r_big : fo.r)
                                    : rtm_model_r_blend(fo.r, fo.r_miss, fo.knee, ws);
    assert_true(r48 < 1.12 * fo.r);
}

/* An OpenCL device on the host's cores (PoCL) has the pool's caches, and its long jobs'
 * knees were guesses too: here ocl0's matrix_mul had points at n = 1 501 and 2 501 (27
 * and 75 MB, first blocks), its knee fitted at 43 MiB between them, and validation's
 * n = 2 000 came out -60 % (matrix_loop_add's +122 %). A host device whose partial jobs
 * are trusted takes the hole's point on its first blocks, as the pool does (session 62),
 * and a device that is not on the host's cores (a GPU) takes none; the same synthetic
 * threshold as above, ten times slower (jobs of 50-120 ms: not short), past the kernel's
 * time (a host device's long knee points are taken whatever the time left). */
static double knee_slow_t(const rtm_kinst_t *k) { return 10.0 * knee_t(k); }
static double knee_slow_pred(const void *ctx, const rtm_kinst_t *k)
{
    return 10.0 * knee_pred(ctx, k);
}
static int knee_parts; /* partial runs measured */
static rtm_status_t knee_part(void *ctx, rtm_calib_inst_t *in, int reps, uint32_t part,
                              double *t, rtm_calib_fig_t *f)
{
    (void)part;
    knee_parts++;
    return synth_measure(ctx, in, reps, t, f);
}

static void test_knee_points_host_device(void **state)
{
    (void)state;
    static const double targets[] = {0.5e-3, 4e-3, 23e-3, 92e-3, 124e-3};
    static knee_rig_t g;
    for (int host = 0; host < 2; host++) {
        knee_rig(&g, "threshold", (rtm_tune_t){256, 16}, targets, 5, knee_slow_t,
                 knee_slow_pred, 10.0 * KNEE_R);
        g.kf.measure_part = knee_part;
        g.kf.part = KFIT_PART_TRUSTED;
        g.kf.deadline = 0.0;
        g.kf.host_dev = host != 0;
        g.kf.cache = 4.0 * 1048576.0;
        knee_at = 60.0 * 1048576.0;
        knee_parts = 0;
        const rtm_status_t st = knee_run(&g);
        knee_at = KNEE_WS;
        assert_int_equal(st, RTM_OK);
        uint32_t parts = 0;
        for (uint32_t i = 0; i < g.n; i++)
            parts += g.pts[i].part > 0;
        if (!host) { /* a GPU: no long hole point */
            assert_int_equal(parts, 0);
            continue;
        }
        assert_true(parts > 0);
        assert_true(knee_parts > 0);
        /* the two points around the fitted knee now lie within KNEE_SPAN */
        rtm_calib_fit_t fo;
        assert_true(fit_points(g.pts, g.n, g.kf.cache, &fo));
        const kpoint_t *lo = NULL, *hi = NULL; /* sorted by ws */
        for (uint32_t i = 0; i < g.n; i++) {
            if (g.pts[i].ws <= fo.knee)
                lo = &g.pts[i];
            if (g.pts[i].ws > fo.knee && !hi)
                hi = &g.pts[i];
        }
        assert_non_null(lo);
        assert_non_null(hi);
        assert_true(hi->ws < 1.6 * lo->ws);
    }
}

/* A CPU device's partial-job check (part_check) runs a second partial job where the
 * first is more than 50 % off the whole one and keeps the nearer: on the 2-core machine one
 * check put matrix_mul's first blocks at 1.62x (a busy moment) and the next calibration
 * at 1.03x, and with the refusal its n = 1 501-3 001 went unmeasured (session 62). A
 * synthetic matrix_mul whose first partial run is 1.6x slow is trusted; one whose
 * partial runs are all 1.6x slow is refused after two; one 1.2x slow (PoCL 5 on the
 * H100 host: 0.84-1.27x) after one, a near miss; neither's long sizes are measured. */
static double part_slow[2]; /* the check's partial runs: first, then every later one */
static double mm_t(const rtm_kinst_t *k) { return knee_pred(NULL, k); }
static rtm_status_t slow_part(void *ctx, rtm_calib_inst_t *in, int reps, uint32_t part,
                              double *t, rtm_calib_fig_t *f)
{
    (void)part;
    const rtm_status_t st = synth_measure(ctx, in, reps, t, f);
    *t *= part_slow[knee_parts++ ? 1 : 0];
    return st;
}

static void test_part_check_again(void **state)
{
    (void)state;
    static const double targets[] = {1e-3, 5e-3, 20e-3};
    static knee_rig_t g;
    for (int pace = 0; pace < 3; pace++) {
        part_slow[0] = pace == 2 ? 1.2 : 1.6;
        part_slow[1] = pace == 0 ? 1.0 : part_slow[0];
        knee_parts = 0;
        knee_rig(&g, "matrix_mul", (rtm_tune_t){256, 1}, targets, 3, mm_t, knee_pred, KNEE_R);
        g.kf.measure_part = slow_part;
        g.kf.part = KFIT_PART_CHECK;
        g.kf.host_dev = true;
        assert_int_equal(knee_run(&g), RTM_OK);
        uint32_t parts = 0;
        for (uint32_t i = 0; i < g.n; i++)
            parts += g.pts[i].part > 0;
        if (pace) {
            assert_int_equal(g.kf.part, KFIT_PART_REFUSED);
            assert_int_equal(knee_parts, pace == 1 ? 2 : 1);
            assert_int_equal(parts, 0);
            assert_non_null(strstr(g.rec.notes, "matrix_mul: partial jobs not trusted"));
        } else {
            assert_int_equal(g.kf.part, KFIT_PART_TRUSTED);
            assert_true(parts > 0);
            assert_non_null(strstr(g.rec.notes, "matrix_mul: partial jobs trusted"));
        }
    }
}

/* The tie between the two forms with one point beyond the knee holds with noisy points
 * below it too: both fit that point exactly and the others alike, so their errors differ
 * by rounding only, and the gradual form is kept. The H100's matrix_mul (session 41 a,
 * points at n = 131 .. 2501 and 3201 beyond the knee) got the step instead, 3.24 ns from
 * 91.6 MiB, and validation's n = 3000 (103 MiB, 11 % of it beyond) came out +28 %. */
static void test_fit_tie_noisy(void **state)
{
    (void)state;
    static const double ws_mb[] = {0.2, 8, 24, 27, 75, 123},
                        noise[] = {0.990, 0.997, 0.989, 0.988, 1.015, 1.0};
    rtm_calib_fitpt_t p[6];
    for (uint32_t i = 0; i < 6; i++) {
        const double ops = 1e6 * ws_mb[i] * (1.0 + 0.3 * i), r = i == 5 ? 3.2e-9 : 2.3e-9;
        p[i] = (rtm_calib_fitpt_t){ws_mb[i] * 1048576.0, ops, 5e-6, 0.0, ops,
                                   (5e-6 + r * ops) * noise[i], 0.0, 0.0, 0.0, 0.0};
    }
    for (int c = 0; c < 2; c++) {
        rtm_calib_fit_t o;
        assert_true(rtm_calib_fit(p, 6, c ? 64.6 * 1048576.0 : 0.0, &o));
        assert_true(o.knee > 75 * 1048576.0 && o.knee < 123 * 1048576.0);
        assert_true(o.r_big == 0.0 && o.r_miss > o.r);
    }
}

/* A second regime is a cache's: its time per operation within RTM_CALIB_REGIME_MAX of
 * the first. The H100's grid_path, session 12 a (widths 65, 1301, 4401, 14337: the last
 * just past the 63 MiB cache, 3x the time of the one before) was fitted with r_miss
 * 64 000 x r_op at a knee just below that point, and validation's width 14 000, below
 * the knee, came out -52 %. */
static void test_fit_regime_bounded(void **state)
{
    (void)state;
    static const double width[] = {65, 1301, 4401, 14337}, t[] = {2.584e-3, 2.543e-3, 2.846e-3,
                                                                 8.69e-3};
    rtm_calib_fitpt_t p[4];
    for (uint32_t i = 0; i < 4; i++) {
        const double cells = width[i] * 512;
        p[i] = (rtm_calib_fitpt_t){9.0 * cells, cells * 3264.0, 1.86e-3, 0.0, cells * 3264.0, t[i],
                                   0.0, 0.0, 0.0, 0.0};
    }
    rtm_calib_fit_t o;
    assert_true(rtm_calib_fit(p, 4, 63.0 * 1048576.0, &o));
    const double second = o.r_miss > 0 ? o.r_miss : o.r_big;
    if (second > 0)
        assert_true(second <= RTM_CALIB_REGIME_MAX * o.r && second * RTM_CALIB_REGIME_MAX >= o.r);
}

/* A fit that cannot have r > 0 (every point faster than the model's fixed part) says
 * so: the caller falls back, loudly (rtm_calib_kernel_store's FALLBACK note and warning). */
static void test_fit_failure_reported(void **state)
{
    (void)state;
    rtm_calib_fitpt_t p[3];
    for (uint32_t i = 0; i < 3; i++)
        p[i] = (rtm_calib_fitpt_t){1e6 * (i + 1), 1e6 * (i + 1), 1e-3, 0.0, 1e6 * (i + 1),
                                   1e-4, 0.0, 0.0, 0.0, 0.0};
    rtm_calib_fit_t o;
    assert_false(rtm_calib_fit(p, 3, 0.0, &o));
}

/* A multi-launch kernel whose host paces its small jobs: sort's schedule (launches and
 * compare-exchange counts from its descriptor) at the H100's session-24 calibration
 * sizes, times from the model itself (kernel_fixed 5.1 us, launch pace 12.68 us, r per
 * compare-exchange 4 ps): n = 131 073 and 530 001 paced, 3 184 641 and 10 000 001 bound
 * by the device. The fit must return that r and predict validation's sizes. Before,
 * each point was the model's tangent where it met its time, and the fit (43 ns with a
 * second regime at 11 ns on the H100) put validation's n = 260 000 at +47 %. */
static void test_fit_paced_launches(void **state)
{
    (void)state;
    const rtm_kernel_t *sort = rtm_kernel_find("sort");
    assert_non_null(sort);
    const double f = 5.1e-6, next = 12.68e-6, r = 4e-12;
    static const int64_t cal[] = {131073, 530001, 3184641, 10000001},
                         val[] = {131072, 260000, 3400000, 17000000};
    rtm_calib_fitpt_t p[4], v[4];
    for (int set = 0; set < 2; set++) {
        for (uint32_t i = 0; i < 4; i++) {
            rtm_kinst_t k;
            rtm_kinst_init(&k, sort);
            k.size[0] = set ? val[i] : cal[i];
            assert_int_equal(rtm_kinst_plan(&k), RTM_OK);
            rtm_cost_t c;
            rtm_kinst_cost(&k, &c);
            const double L = (double)k.plan.launches, w = c.li * r;
            const double b = L * f, bp = f + (L - 1.0) * next;
            const double t = fmax(b + w, bp + w / L);
            (set ? v : p)[i] = (rtm_calib_fitpt_t){c.bytes_ws, c.li, b, c.bytes_dev,
                                                   c.li, t, L, bp, 0.0, 0.0};
        }
    }
    for (uint32_t i = 0; i < 4; i++) { /* both regimes */
        const double w = p[i].a * r;
        assert_true((p[i].bp + w / p[i].L > p[i].b + w) == (i < 2));
    }
    rtm_calib_fit_t o;
    assert_true(rtm_calib_fit(p, 4, 64.0 * 1048576.0, &o));
    assert_true(o.resid < 0.01);
    for (uint32_t i = 0; i < 4; i++) {
        const double w = v[i].a * o.r + v[i].m * o.r_byte;
        const double pred = o.t_fixed + fmax(v[i].b + w, v[i].bp + w / v[i].L);
        assert_true(fabs(pred - v[i].t) / v[i].t < 0.02);
    }
}

/* The pool's overheads: dispatch from the two longest no-op runs (every worker contends
 * there, as in a job of thousands of blocks), cw per launch from back-to-back launches.
 * A short run is partly one worker's alone while the others still wake (cheaper per
 * block, dearer at its start): on the H100 host the old fit over 1..256 blocks per
 * worker gave dispatch 894 ns and cw 82 us (residual 82 %), the empty kernel at 245..2197
 * blocks per worker measured 0.43 us a block and about 55 us a launch (predicted +88 to
 * +105 %), and grid_path's 128 launches alone were charged 10.5 ms against 7.5 measured. */
static void test_pool_fit(void **state)
{
    (void)state;
    const double cw0 = 55e-6, d0 = 0.43e-6;
    const double per[] = {1, 16, 128, 512, 2048};
    double t[5];
    for (int i = 0; i < 5; i++)
        t[i] = per[i] >= 128 ? cw0 + per[i] * d0 : 1.6 * cw0 + 0.2 * per[i] * d0;
    double cw = 0, d = 0;
    assert_true(rtm_calib_pool_fit(per, t, 5, 16 * (cw0 + d0), 16, &cw, &d));
    assert_true(fabs(d - d0) < 1e-3 * d0);
    assert_true(fabs(cw - cw0) < 1e-3 * cw0);
    /* a run slower per block at the short end than the long: no positive cw */
    assert_false(rtm_calib_pool_fit(per, t, 5, 16 * d0 * 0.5, 16, &cw, &d));
    /* too few runs */
    assert_false(rtm_calib_pool_fit(per, t, 1, 16 * (cw0 + d0), 16, &cw, &d));
}

static int cmp_d(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A long one-launch job's time from its first blocks: matrix_mul at validation's n = 3000
 * took 9.4 s a job on the H100 host, so calibration had no point beyond n = 1673 and its
 * prediction there came out 40 % under. Its first part blocks per worker, scaled, give
 * the whole job's time (here n = 385 on this machine's workers, 1/8 of the blocks). */
static void test_pool_part(void **state)
{
    (void)state;
    static rtm_pool_t pool;
    assert_int_equal(rtm_pool_start(&pool, 2, 0, NULL), RTM_OK);
    const int64_t size[RTM_SIZE_KEYS_MAX] = {385};
    rtm_calib_inst_t in;
    assert_int_equal(rtm_calib_inst_make(&in, rtm_kernel_find("matrix_mul"), size,
                                         rtm_kernel_find("matrix_mul")->tune_default, 5),
                     RTM_OK);
    rtm_klaunch_t kl;
    in.k.kernel->launch(&in.k, 0, &kl);
    const uint32_t part = kl.blocks / 2 / 8;
    double full[5], sub[5], one;
    for (int i = 0; i < 5; i++) {
        assert_int_equal(rtm_calib_pool_time(&pool, &in.k, &full[i]), RTM_OK);
        assert_int_equal(rtm_calib_pool_time_part(&pool, &in.k, part, &sub[i]), RTM_OK);
    }
    qsort(full, 5, sizeof(double), cmp_d);
    qsort(sub, 5, sizeof(double), cmp_d);
    const double est = rtm_calib_part_scale(sub[2], 20e-6, kl.blocks, 2, part);
    print_message("matrix_mul n=385: whole job %.2f ms, from 1/8 of its blocks %.2f ms\n",
                  full[2] * 1e3, est * 1e3);
    /* the scaling, not this machine's timing: a wrong scale (the part's 8, the workers'
     * 2) lands outside 1/4..4 whatever the VM's steal; how close it comes is a figure
     * (printed above; on the H100 host calibration and validation measure it), not a
     * pass mark (0.7..1.4 failed now and then on this 2-core VM) */
    assert_true(est > 0.25 * full[2] && est < 4.0 * full[2]);
    /* more blocks than the job has, or a multi-launch job: refused */
    assert_int_equal(rtm_calib_pool_time_part(&pool, &in.k, kl.blocks, &one), RTM_E_ARG);
    rtm_calib_inst_free(&in);
    rtm_pool_stop(&pool);
    assert_true(fabs(rtm_calib_part_scale(0.1, 0.01, 1000, 10, 10) - (0.01 + 0.09 * 10)) < 1e-12);
}

/* A measured launch pace is lowered to what the kernel's points allow only when it is an
 * outlier (session 29): the H100 host's pace varies 9-15 us a launch from job to job, and
 * the cap at the fastest point's moment (12.51 -> 9.95 us for grid_path) put validation's
 * host-paced sizes 25-31 % under; session 13's 112 us against points at 12 us is still
 * lowered. */
static void test_pace_keep(void **state)
{
    (void)state;
    assert_true(rtm_calib_pace_keep(12.51e-6, 9.953e-6) == 12.51e-6);
    assert_true(rtm_calib_pace_keep(112e-6, 12e-6) == 12e-6);
    assert_true(rtm_calib_pace_keep(15.1e-6, 10e-6) == 10e-6); /* just past the factor */
    assert_true(rtm_calib_pace_keep(14.9e-6, 10e-6) == 14.9e-6);
    assert_true(rtm_calib_pace_keep(10e-6, 12e-6) == 10e-6); /* under the bound: kept */
    assert_true(rtm_calib_pace_keep(10e-6, 0.0) == 10e-6);   /* no bound */
}

/* The tuning sweep's candidates (session 50): on a GPU the starting work-group first
 * (the one a later candidate must beat by 3 %), then 256, 128, 64, 512, 1024 without it,
 * none over the device's limit and no 32 (one warp: the H100's slowest wherever it ran);
 * the widths the kernel allows, the base's left out; on a CPU device no group under 64. */
static void test_sweep_candidates(void **state)
{
    (void)state;
    rtm_ocl_dev_t d;
    memset(&d, 0, sizeof(d));
    d.info.type = CL_DEVICE_TYPE_GPU;
    d.info.max_wg = 1024;
    devcal_t x;
    memset(&x, 0, sizeof(x));
    x.d = &d;
    const rtm_kernel_t *copy = rtm_kernel_find("copy");
    assert_non_null(copy);
    rtm_tune_t c[SWEEP_CAND_MAX];
    const uint32_t wg_from_128[] = {128, 256, 64, 512, 1024};
    uint32_t n = rtm_calib_sweep_cands(&x, copy, 0, (rtm_tune_t){.wg = 128, .vec = 4}, c);
    assert_int_equal(n, 5);
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(c[i].wg, wg_from_128[i]);
        assert_int_equal(c[i].vec, 4);
    }
    d.info.max_wg = 256; /* the device's limit */
    n = rtm_calib_sweep_cands(&x, copy, 0, (rtm_tune_t){.wg = 256, .vec = 4}, c);
    assert_int_equal(n, 3);
    assert_int_equal(c[0].wg, 256);
    assert_int_equal(c[1].wg, 128);
    assert_int_equal(c[2].wg, 64);
    /* widths at the base's group: copy allows 1, 2, 4, 8, 16; the base's 4 measured */
    n = rtm_calib_sweep_cands(&x, copy, 1, (rtm_tune_t){.wg = 256, .vec = 4}, c);
    const uint32_t vecs[] = {2, 8, 1, 16};
    assert_int_equal(n, 4);
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(c[i].vec, vecs[i]);
        assert_int_equal(c[i].wg, 256);
    }
    /* a CPU device: the start alone in phase -1 */
    d.info.type = CL_DEVICE_TYPE_CPU;
    n = rtm_calib_sweep_cands(&x, copy, -1, (rtm_tune_t){.wg = 256, .vec = 4}, c);
    assert_int_equal(n, 1);
    assert_int_equal(c[0].wg, 256);
}

/* A kernel's only point is measured again when short (session 29: the H100's cpa_tcpa,
 * one point of 8-13 us jobs, whose r_op tripled with a slow first measurement); a long
 * single point is not (its time is the calibration's). */
static void test_remeasure_single(void **state)
{
    (void)state;
    assert_true(rtm_calib_remeasure_wanted(1, 13e-6, 10));
    assert_false(rtm_calib_remeasure_wanted(1, 0.1, 10));
    assert_true(rtm_calib_remeasure_wanted(2, 0.1, 10));
    assert_false(rtm_calib_remeasure_wanted(0, 13e-6, 10));
}

/* A target missed on the CPU pool is found as a hole of RTM_CALIB_GAP_RATIO or more
 * between neighbouring points' times, the widest one (session 29's H100 host: cpa_pairs
 * at 0.31, 0.33, 0.34, 3.4 and 17 ms, a 10x hole where validation came out 44-56 %
 * under); targets 4-5x apart are no hole. */
static void test_gap_at(void **state)
{
    (void)state;
    const double pairs[] = {0.3075e-3, 0.332e-3, 0.3416e-3, 3.426e-3, 17.48e-3};
    assert_int_equal(rtm_calib_gap_at(pairs, 5), 2);
    const double even[] = {0.05e-3, 0.25e-3, 1.2e-3, 5e-3, 20e-3};
    assert_int_equal(rtm_calib_gap_at(even, 5), -1);
    const double two[] = {0.04e-3, 0.6e-3, 1.0e-3, 25e-3}; /* 15x and 25x: the wider */
    assert_int_equal(rtm_calib_gap_at(two, 4), 2);
    assert_int_equal(rtm_calib_gap_at(pairs, 1), -1);
    assert_int_equal(rtm_calib_gap_at(pairs, 0), -1);
}

/* The point that fills a hole: always on the CPU pool; on a device only where its size
 * runs a program measured already, with as many repetitions as fit the gap's budget, and
 * not at all where even the fewest do not (session 40: the H100's sort, 0.77 -> 36 ms). */
static void test_gap_reps(void **state)
{
    (void)state;
    assert_int_equal(rtm_calib_gap_reps(true, true, 1.0), RTM_CALIB_REPS);
    assert_int_equal(rtm_calib_gap_reps(false, true, 5e-3), 0); /* a build of its own */
    assert_int_equal(rtm_calib_gap_reps(false, false, 5e-3), RTM_CALIB_REPS);
    const double mid = RTM_CALIB_GAP_BUDGET_S / (RTM_CALIB_GAP_MIN_REPS + 2.5);
    assert_int_equal(rtm_calib_gap_reps(false, false, mid), RTM_CALIB_GAP_MIN_REPS + 1);
    assert_int_equal(rtm_calib_gap_reps(false, false,
                                        RTM_CALIB_GAP_BUDGET_S / (RTM_CALIB_GAP_MIN_REPS + 1)),
                     RTM_CALIB_GAP_MIN_REPS);
    assert_int_equal(rtm_calib_gap_reps(false, false, RTM_CALIB_GAP_BUDGET_S / 3.9), 0);
    assert_int_equal(rtm_calib_gap_reps(false, false, 0.0), 0); /* no prediction */
}

/* Every timed job of a point computes the same job (session 28): grid_path's field is
 * INOUT (the initial field in, the cost-to-go out), and before, a point's second job
 * started from the first one's field, so its jobs ran the wavefront further, or found
 * it converged: on the H100 validation's jobs at width 16 000 took 11.8 ms, a probe's
 * 41st 9.3. A 2048 x 64 strip in 6 passes: the front crosses 7 of 64 tiles a job. */
static void check_same_job(const rtm_calib_inst_t *in, const unsigned char *first)
{
    const rtm_kinst_t *k = &in->k;
    for (uint32_t b = 0; b < k->plan.n_bufs; b++)
        if (k->plan.buf[b].dir & RTM_BUF_OUT)
            assert_int_equal(memcmp(k->host[b],
                                    first + ((unsigned char *)k->host[b] - (unsigned char *)in->mem),
                                    k->plan.buf[b].bytes),
                             0);
}

static void test_inst_same_job(void **state)
{
    (void)state;
    static rtm_pool_t pool;
    assert_int_equal(rtm_pool_start(&pool, 2, 0, NULL), RTM_OK);
    const rtm_kernel_t *gp = rtm_kernel_find("grid_path");
    const int64_t size[RTM_SIZE_KEYS_MAX] = {2048, 64, 6};
    rtm_calib_inst_t in;
    assert_int_equal(rtm_calib_inst_make(&in, gp, size, gp->tune_default, 7), RTM_OK);
    assert_non_null(in.init_mem); /* its INOUT buffers' contents after the fill */
    double s;
    assert_int_equal(rtm_calib_inst_time(&pool, &in, &s), RTM_OK);
    unsigned char *first = malloc(in.bytes);
    assert_non_null(first);
    memcpy(first, in.mem, in.bytes);
    assert_int_equal(rtm_calib_inst_time(&pool, &in, &s), RTM_OK);
    check_same_job(&in, first);
    assert_false(rtm_grid_path_converged(&in.k));
    /* the job run again on what the last one left: another job (the bug) */
    assert_int_equal(rtm_calib_pool_time(&pool, &in.k, &s), RTM_OK);
    assert_int_not_equal(memcmp(in.mem, first, in.bytes), 0);
    /* the same on an OpenCL device, through its executor */
    rtm_ocl_dev_t dev;
    assert_int_equal(ocl_open_first(&dev), RTM_OK);
    rtm_kexec_t ex;
    memset(&ex, 0, sizeof(ex));
    assert_int_equal(rtm_kexec_create(&ex, &dev, &in.k), RTM_OK);
    rtm_kexec_timing_t t;
    assert_int_equal(rtm_calib_inst_run(&ex, &in, &t), RTM_OK);
    check_same_job(&in, first);
    assert_int_equal(rtm_calib_inst_run(&ex, &in, &t), RTM_OK);
    check_same_job(&in, first);
    rtm_kexec_destroy(&ex);
    rtm_ocl_close(&dev);
    free(first);
    rtm_calib_inst_free(&in);
    /* a kernel whose INOUT contents do not change its work keeps no copy (spin) */
    const rtm_kernel_t *spin = rtm_kernel_find("spin");
    const int64_t ss[RTM_SIZE_KEYS_MAX] = {4, 10, 1, 2};
    assert_int_equal(rtm_calib_inst_make(&in, spin, ss, spin->tune_default, 7), RTM_OK);
    assert_null(in.init_mem);
    rtm_calib_inst_free(&in);
    rtm_pool_stop(&pool);
}

/* Instances in a device's calibration arena: the arena grows in 64 MiB steps and is
 * reused while large enough, and an instance made in it (over another's data) holds the
 * bytes of one made in memory of its own from the same seed. */
static void check_arena_inst(rtm_calib_arena_t *a, const char *kernel, int64_t key,
                             uint64_t seed)
{
    const rtm_kernel_t *k = rtm_kernel_find(kernel);
    const int64_t size[RTM_SIZE_KEYS_MAX] = {key};
    rtm_calib_inst_t in, own;
    assert_int_equal(rtm_calib_inst_make_in(&in, k, size, k->tune_default, seed, a), RTM_OK);
    assert_int_equal(rtm_calib_inst_make(&own, k, size, k->tune_default, seed), RTM_OK);
    assert_true(in.borrowed);
    assert_ptr_equal(in.mem, a->pin.host);
    assert_true(a->pin.bytes >= in.bytes);
    assert_true(a->pin.bytes % ((size_t)64 << 20) == 0 || a->pin.bytes == a->cap ||
                a->pin.bytes == ((in.bytes + 63) & ~(size_t)63));
    assert_int_equal(in.bytes, own.bytes);
    assert_int_equal(memcmp(in.mem, own.mem, in.bytes), 0);
    rtm_calib_inst_free(&in);
    assert_non_null(a->pin.host); /* the arena keeps its memory */
    rtm_calib_inst_free(&own);
}

static void test_inst_arena(void **state)
{
    (void)state;
    rtm_ocl_dev_t dev;
    assert_int_equal(ocl_open_first(&dev), RTM_OK);
    rtm_calib_arena_t a = {&dev, 0, false, {0}, 0, 0.0}; /* lazy, no cap */
    check_arena_inst(&a, "matrix_add", 701, 3);
    const void *first = a.pin.host;
    assert_int_equal(a.pin.bytes, (size_t)64 << 20);
    check_arena_inst(&a, "sort", 100001, 4); /* smaller: same memory, old data beneath */
    assert_ptr_equal(a.pin.host, first);
    check_arena_inst(&a, "matrix_add", 2701, 5); /* 83 MiB: twice the 64, 128 MiB */
    assert_int_equal(a.pin.bytes, (size_t)128 << 20);
    check_arena_inst(&a, "copy", 1001, 6);
    assert_int_equal(a.grows, 2);
    rtm_calib_arena_free(&a);
    assert_null(a.pin.mem);
    /* within a cap: no more than it, but what a point needs when that is more */
    rtm_calib_arena_t b = {&dev, (size_t)96 << 20, false, {0}, 0, 0.0};
    check_arena_inst(&b, "matrix_add", 2701, 7);
    assert_int_equal(b.pin.bytes, (size_t)96 << 20);
    b.cap = (size_t)32 << 20;
    check_arena_inst(&b, "matrix_add", 3001, 8); /* 103 MiB */
    assert_true(b.pin.bytes < (size_t)104 << 20); /* exactly its need, not doubled */
    rtm_calib_arena_free(&b);
    /* eager: the first make takes the whole cap, and no point regrows it */
    rtm_calib_arena_t e = {&dev, (size_t)128 << 20, true, {0}, 0, 0.0};
    check_arena_inst(&e, "matrix_add", 701, 9);
    assert_int_equal(e.pin.bytes, (size_t)128 << 20);
    check_arena_inst(&e, "matrix_add", 2701, 10);
    assert_int_equal(e.grows, 1);
    rtm_calib_arena_free(&e);
    rtm_ocl_close(&dev);
}

/* The point past the cache: the smallest odd first key whose buffers exceed it.
 * matrix_mul holds 3 n^2 floats: past 4 MiB from n = 592, odd: 593. */
static void test_past_cache_size(void **state)
{
    (void)state;
    const rtm_kernel_t *kern = rtm_kernel_find("matrix_mul");
    assert_non_null(kern);
    const rtm_calib_lim_t lim = {1e12, 1e12};
    int64_t size[RTM_SIZE_KEYS_MAX];
    const double cache = 4.0 * 1024 * 1024;
    const int64_t key = rtm_calib_past_cache(kern, kern->tune_default, cache, &lim, 1, size);
    assert_int_equal(key, 593);
    assert_int_equal(size[0], 593);
    assert_true(12.0 * 593 * 593 > cache && 12.0 * 591 * 591 <= cache);
    /* any parity: 592 */
    assert_int_equal(rtm_calib_past_cache(kern, kern->tune_default, cache, &lim, -1, size), 592);
    /* nothing within the memory limits is past the cache, or no cache known */
    const rtm_calib_lim_t small = {1e6, 3e6};
    assert_int_equal(rtm_calib_past_cache(kern, kern->tune_default, cache, &small, 1, size), -1);
    assert_int_equal(rtm_calib_past_cache(kern, kern->tune_default, 0.0, &lim, 1, size), -1);
}

/* Bug (session 3): the record's notes stopped silently at 16 KiB, so the H100 profile
 * lost the GPU's per-kernel lines. Notes past the record's room are counted, and the
 * saved profile says how many were dropped. */
static void test_notes_overflow_counted(void **state)
{
    (void)state;
    rtm_calib_record_t *rec = calloc(1, sizeof(*rec));
    assert_non_null(rec);
    char line[200];
    memset(line, 'x', sizeof(line) - 1);
    line[sizeof(line) - 1] = '\0';
    const uint32_t lines = (uint32_t)(RTM_CALIB_NOTES_MAX / 100);
    for (uint32_t i = 0; i < lines; i++)
        rtm_calib_note(rec, "%u %s", i, line);
    assert_true(rec->notes_len < sizeof(rec->notes));
    assert_true(rec->notes_dropped > 0);
    /* only whole lines are kept: the last kept one ends in its newline */
    assert_int_equal(rec->notes[rec->notes_len - 1], '\n');
    assert_int_equal(strlen(rec->notes), rec->notes_len);
    rtm_board_t *b = calloc(1, sizeof(*b));
    assert_non_null(b);
    char path[160];
    snprintf(path, sizeof(path), "%s/notes.yaml", dir);
    assert_int_equal(rtm_calib_save(b, rec, "test", NULL, path), RTM_OK);
    static char text[RTM_CALIB_NOTES_MAX * 2];
    cli_read(path, text, sizeof(text));
    char want[96];
    snprintf(want, sizeof(want), "%u notes dropped", rec->notes_dropped);
    assert_non_null(strstr(text, want));
    unlink(path);
    free(b);
    free(rec);
}

/* The profile saved at `path`, whole (static: one at a time). */
static const char *saved_text(const char *path)
{
    static char text[RTM_CALIB_NOTES_MAX * 2];
    cli_read(path, text, sizeof(text));
    return text;
}

/* How many times `what` occurs in `text`. */
static int occurs(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
        n++;
    return n;
}

/* Bug (session 70): `rtmgr calibrate -b B` of the CPU alone (--device none) wrote only
 * this run's record, so the devices' figures and notes, still the profile's, lost the
 * record of how they were measured, and board/h100.yaml could not be recalibrated in
 * part. The base record's lines this run did not measure are carried over, marked: whole
 * sections, figures of a partial run, and the kernels' notes it did not measure; carried
 * twice they stay one copy. */
static void test_save_carries_base_record(void **state)
{
    (void)state;
    rtm_board_t *b = calloc(1, sizeof(*b));
    rtm_calib_record_t *rec = calloc(1, sizeof(*rec));
    assert_non_null(b);
    assert_non_null(rec);
    b->n_devs = 2;
    snprintf(b->dev[0].name, sizeof(b->dev[0].name), "gpu0");
    snprintf(b->dev[1].name, sizeof(b->dev[1].name), "ocl0");
    const int sort = rtm_kernel_index(rtm_kernel_find("sort"));
    const int madd = rtm_kernel_index(rtm_kernel_find("matrix_add"));
    const rtm_calib_fig_t fig = {1.0, 0.1, 0.0, 10, 10};
    /* the base: every section, each with a kernel's figure and notes */
    rec->cpu[RTM_CPU_P_w] = rec->cpu[RTM_CPU_P_cw] = fig;
    rec->dev[0][RTM_DEV_P_launch] = rec->dev[1][RTM_DEV_P_launch] = fig;
    rec->dev_k[0][sort] = rec->dev_k[0][madd] = fig;
    rtm_calib_note(rec, "cpu: pool note");
    rtm_calib_note(rec, "gpu0: transfers note");
    rtm_calib_note(rec, "gpu0: sort wg 256 vec 1, at n=1 -> r_op");
    rtm_calib_note(rec, "gpu0: matrix_add sweep note");
    rtm_calib_note(rec, "ocl0 (first section): host load");
    char base[160], cpu_only[160], again[160];
    snprintf(base, sizeof(base), "%s/base.yaml", dir);
    snprintf(cpu_only, sizeof(cpu_only), "%s/cpu-only.yaml", dir);
    snprintf(again, sizeof(again), "%s/again.yaml", dir);
    assert_int_equal(rtm_calib_save(b, rec, "rtmgr calibrate -o base.yaml", NULL, base), RTM_OK);
    const char *t = saved_text(base);
    assert_null(strstr(t, "Carried over"));
    /* a run of the CPU alone, of w but not cw */
    memset(rec, 0, sizeof(*rec));
    rec->cpu[RTM_CPU_P_w] = fig;
    rtm_calib_note(rec, "cpu: new pool note");
    assert_int_equal(rtm_calib_save(b, rec, "rtmgr calibrate -b base.yaml", base, cpu_only), RTM_OK);
    t = saved_text(cpu_only);
    assert_non_null(strstr(t, "The base profile: Made by: rtmgr calibrate -o base.yaml, on 20"));
    assert_non_null(strstr(t, "\n# gpu0: (the base profile's)\n#   launch "));
    assert_non_null(strstr(t, "\n# ocl0: (the base profile's)\n#   launch "));
    assert_int_equal(occurs(t, "#   kernels.sort.r_op "), 1);
    assert_int_equal(occurs(t, "\n#   w "), 1); /* measured now: not the base's too */
    assert_non_null(strstr(t, "(base profile)"));
    assert_int_equal(occurs(t, "\n#   cw "), 1);
    assert_int_equal(occurs(t, "(base profile)\n"), 1); /* cw's line alone */
    assert_non_null(strstr(t, "# notes carried over from the base profile:\n"));
    assert_int_equal(occurs(t, "#   gpu0: transfers note\n"), 1);
    assert_int_equal(occurs(t, "#   ocl0 (first section): host load\n"), 1);
    assert_null(strstr(t, "#   cpu: pool note")); /* the CPU's own notes are new */
    assert_int_equal(occurs(t, "#   cpu: new pool note\n"), 1);
    /* gpu0 again, matrix_add alone: the carried sections and notes stay one copy, and
     * gpu0's sort (figure and note) is carried, its other notes are not */
    memset(rec, 0, sizeof(*rec));
    rec->dev[0][RTM_DEV_P_launch] = fig;
    rec->dev_k[0][madd] = fig;
    assert_int_equal(rtm_calib_save(b, rec, "rtmgr calibrate -b cpu-only.yaml", cpu_only, again),
                     RTM_OK);
    t = saved_text(again);
    assert_non_null(strstr(t, "The base profile: Made by: rtmgr calibrate -b base.yaml, on 20"));
    assert_non_null(strstr(t, "\n# cpu: (the base profile's)\n"));
    assert_int_equal(occurs(t, "\n#   w "), 1);
    assert_int_equal(occurs(t, "\n#   cw "), 1);
    assert_non_null(strstr(t, "\n# gpu0:\n#   launch "));
    assert_int_equal(occurs(t, "#   kernels.sort.r_op "), 1);
    assert_int_equal(occurs(t, "#   kernels.matrix_add.r_op "), 1);
    assert_int_equal(occurs(t, "#   gpu0: sort wg 256 vec 1, at n=1 -> r_op\n"), 1);
    assert_null(strstr(t, "gpu0: matrix_add sweep note"));
    assert_null(strstr(t, "gpu0: transfers note"));
    assert_int_equal(occurs(t, "#   ocl0 (first section): host load\n"), 1);
    assert_int_equal(occurs(t, "#   cpu: new pool note\n"), 1);
    /* the profile itself still loads */
    rtm_diag_t diag;
    rtm_board_t *back = calloc(1, sizeof(*back));
    assert_non_null(back);
    (void)rtm_board_load(again, back, &diag);
    free(back);
    unlink(base);
    unlink(cpu_only);
    unlink(again);
    free(b);
    free(rec);
}

/* A CPU device's partial jobs (calibfit.c, part_check): matrix_mul's long sizes are
 * measured on their first blocks only after a partial job agreed with a whole one, and
 * the record says which (PoCL 3.1 here: 0.97-1.00x, trusted; PoCL 5 on the H100 host:
 * 1.15-1.25x, not). Whatever the machine gives, the two must agree: points marked
 * "(first blocks)" on a CPU device only where the note says "trusted". */
static void test_cpu_device_parts_checked(void **state)
{
    (void)state;
    char path[160];
    snprintf(path, sizeof(path), "%s/parts.yaml", dir);
    const char *args[] = {"calibrate", "-o", path, "--no-cpu", "--kernels", "matrix_mul",
                          "--quiet", NULL};
    assert_int_equal(run_rtmgr(args), 0);
    static char text[1 << 20];
    cli_read(path, text, sizeof(text));
    const bool trusted = strstr(text, "matrix_mul: partial jobs trusted") != NULL;
    const bool refused = strstr(text, "matrix_mul: partial jobs not trusted") != NULL;
    assert_false(trusted && refused);
    /* the device's record line of matrix_mul's points */
    const char *rec = strstr(text, ": matrix_mul wg ");
    assert_non_null(rec);
    const char *eol = strchr(rec, '\n');
    const size_t len = eol ? (size_t)(eol - rec) : strlen(rec);
    char line[2048];
    snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) - 1 ? len : sizeof(line) - 1),
             rec);
    const bool parts = strstr(line, "(first blocks)") != NULL;
    if (parts != trusted)
        fprintf(stderr, "trusted %d refused %d, points: %s\n", trusted, refused, line);
    assert_true(parts == trusted);
    if (trusted) /* then the fit spans validation's sizes: a point at n = 3001 */
        assert_non_null(strstr(line, "3001:"));
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_size_parity),
        cmocka_unit_test(test_xfer_fit_small_noise),
        cmocka_unit_test(test_xfer_fit_llc),
        cmocka_unit_test(test_fit_knee_at_cache),
        cmocka_unit_test(test_fit_gradual_regime),
        cmocka_unit_test(test_fit_regime_bounded),
        cmocka_unit_test(test_fit_tie_noisy),
        cmocka_unit_test(test_fit_resident),
        cmocka_unit_test(test_shape_points),
        cmocka_unit_test(test_knee_points),
        cmocka_unit_test(test_knee_points_cache),
        cmocka_unit_test(test_knee_points_host_device),
        cmocka_unit_test(test_part_check_again),
        cmocka_unit_test(test_fit_failure_reported),
        cmocka_unit_test(test_fit_paced_launches),
        cmocka_unit_test(test_pool_fit),
        cmocka_unit_test(test_pool_part),
        cmocka_unit_test(test_pace_keep),
        cmocka_unit_test(test_sweep_candidates),
        cmocka_unit_test(test_remeasure_single),
        cmocka_unit_test(test_gap_at),
        cmocka_unit_test(test_gap_reps),
        cmocka_unit_test(test_inst_arena),
        cmocka_unit_test(test_inst_same_job),
        cmocka_unit_test(test_past_cache_size),
        cmocka_unit_test(test_notes_overflow_counted),
        cmocka_unit_test(test_save_carries_base_record),
        cmocka_unit_test(test_quick_profile_complete),
        cmocka_unit_test(test_validate_json),
        cmocka_unit_test(test_validate_load_noted),
        cmocka_unit_test(test_validate_round_spread),
        cmocka_unit_test(test_busy_passes_measured_again),
        cmocka_unit_test(test_kernels_kept_fits),
        cmocka_unit_test(test_time_limit),
        cmocka_unit_test(test_stale_driver),
        cmocka_unit_test(test_stale_cpu),
        cmocka_unit_test(test_cpu_device_parts_checked),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
