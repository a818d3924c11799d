/* board.c — board profiles: board/<name>.yaml <-> rtm_board_t (see board.h).
 *
 * Owns the board schema. Parameters are driven by the X-macro lists RTM_DEV_PARAMS and
 * RTM_CPU_PARAMS: the same tables (key, unit class, help) parse, check and save them,
 * so adding a parameter is one line in board.h. A parameter present in the file sets
 * its `have` bit; an absent one stays absent (never a silent zero).
 *
 * The parse tree is a file-static rtm_yamldoc_t: loads are init-only and one at a time. */
#include "board.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "units.h"
#include "yamldoc.h"

typedef struct {
    const char *key;
    rtm_unit_t unit;
    const char *help;
} param_def_t;

#define PARAM_DEF(id, key, unit, help) {key, RTM_UNIT_##unit, help},
static const param_def_t dev_params[RTM_DEV_P_COUNT] = {RTM_DEV_PARAMS(PARAM_DEF)};
static const param_def_t cpu_params[RTM_CPU_P_COUNT] = {RTM_CPU_PARAMS(PARAM_DEF)};
#undef PARAM_DEF

enum { PARAMS_MAX = 48 };
_Static_assert((int)RTM_DEV_P_COUNT <= (int)PARAMS_MAX && (int)RTM_CPU_P_COUNT <= (int)PARAMS_MAX,
               "raise PARAMS_MAX in board.c");

static const char *const top_keys[] = {"rtmgr_board", "name", "cpu", "devices"};
static const char *const cpu_keys[] = {"cores",  "threads", "model", "measured",
                                       "params", "kernels", "name"};
static const char *const dev_keys[] = {"name",  "platform", "device", "kind",   "memory", "abort",
                                       "model", "driver",   "measured", "params", "kernels"};
static const char *const ktune_keys[] = {"wg", "vec", "r_op", "mem_rate", "t_fixed", "r_big", "knee", "r_byte", "p_ops", "x_ref", "poll_every",
                                         "r_miss", "t_next", "poll_cost", "aligned", "resident", "aliased", "aligned_r"};
static const char *const kind_names[] = {"cpu", "gpu", "accelerator"};
static const char *const abort_names[] = {"write", "mapped"};
static const char *const model_names[] = {"paper", "extended"};

#define N_OF(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

/* Largest work-group size accepted in a profile. */
#define BOARD_WG_MAX 4096
/* Most CPU cores a profile may declare. */
#define BOARD_CORES_MAX 4096

static rtm_yamldoc_t board_doc;

const char *rtm_board_kind_name(rtm_dev_kind_t kind)
{
    return (unsigned)kind < N_OF(kind_names) ? kind_names[kind] : "?";
}
const char *rtm_board_abort_name(rtm_abort_transport_t abort)
{
    return (unsigned)abort < N_OF(abort_names) ? abort_names[abort] : "?";
}
const char *rtm_board_model_name(rtm_model_kind_t model)
{
    return (unsigned)model < N_OF(model_names) ? model_names[model] : "?";
}

/* ---- loading --------------------------------------------------------------------- */

static rtm_status_t load_params(const rtm_yamldoc_t *doc, int32_t map, const char *where,
                                const param_def_t *defs, uint32_t n, double *param, bool *have,
                                rtm_diag_t *diag)
{
    const char *keys[PARAMS_MAX];
    int32_t found[PARAMS_MAX];
    for (uint32_t k = 0; k < n; k++)
        keys[k] = defs[k].key;
    rtm_status_t st = rtm_yamldoc_fields(doc, map, where, keys, n, found, diag);
    for (uint32_t k = 0; st == RTM_OK && k < n; k++) {
        if (found[k] < 0)
            continue;
        double v;
        st = rtm_yamldoc_quantity(doc, found[k], where, defs[k].unit, &v, diag);
        if (st != RTM_OK)
            break;
        if (defs[k].unit == RTM_UNIT_TIME || defs[k].unit == RTM_UNIT_BYTES) {
            if (v < 0)
                return rtm_yamldoc_fail_at(doc, found[k], RTM_E_CFG_VALUE, diag,
                                           "%s must not be negative (%s) in %s", keys[k],
                                           defs[k].help, where);
        } else if (!(v > 0)) {
            return rtm_yamldoc_fail_at(doc, found[k], RTM_E_CFG_VALUE, diag,
                                       "%s must be greater than zero (%s) in %s", keys[k],
                                       defs[k].help, where);
        }
        param[k] = v;
        have[k] = true;
    }
    return st;
}

/* "1, 2, 4, 8 or 16": the vector widths a kernel allows. */
static void vec_list(uint32_t mask, char *buf, size_t len)
{
    size_t used = 0;
    uint32_t count = 0, total = 0;
    buf[0] = '\0';
    for (uint32_t w = 1; w <= 16; w++)
        total += (mask >> w) & 1u;
    for (uint32_t w = 1; w <= 16 && used < len; w++) {
        if (!((mask >> w) & 1u))
            continue;
        const char *sep = count == 0 ? "" : count + 1 == total ? " or " : ", ";
        const int n = snprintf(buf + used, len - used, "%s%u", sep, w);
        if (n < 0)
            break;
        used += (size_t)n;
        count++;
    }
}

/* An optional plain-number ktune term at node `at` (< 0: absent, *v left as it is), which
 * must lie in (lo, hi), or with `closed` in [lo, hi]: poll_cost, aligned, resident. */
static rtm_status_t opt_ratio(const rtm_yamldoc_t *doc, int32_t at, const char *where, double lo,
                              double hi, bool closed, double *v, rtm_diag_t *diag)
{
    if (at < 0)
        return RTM_OK;
    const rtm_status_t st = rtm_yamldoc_quantity(doc, at, where, RTM_UNIT_COUNT, v, diag);
    if (st != RTM_OK)
        return st;
    if (!(closed ? *v >= lo && *v <= hi : *v > lo && *v < hi))
        return rtm_yamldoc_fail_at(doc, at, RTM_E_CFG_VALUE, diag,
                                   "%s must be between %g and %g in %s",
                                   rtm_yamldoc_key(doc, at), lo, hi, where);
    return RTM_OK;
}

static rtm_status_t load_kernels(const rtm_yamldoc_t *doc, int32_t map, const char *owner,
                                 rtm_board_ktune_t *kt, rtm_diag_t *diag)
{
    const char *names[RTM_MAX_KERNELS];
    int32_t found[RTM_MAX_KERNELS];
    const uint32_t n = rtm_kernel_count();
    for (uint32_t k = 0; k < n; k++)
        names[k] = rtm_kernel_at(k)->name;
    char where[RTM_NAME_MAX * 3];
    snprintf(where, sizeof(where), "the kernels of %s", owner);
    rtm_status_t st = rtm_yamldoc_fields(doc, map, where, names, n, found, diag);
    for (uint32_t k = 0; st == RTM_OK && k < n; k++) {
        if (found[k] < 0)
            continue;
        const rtm_kernel_t *kernel = rtm_kernel_at(k);
        int32_t f[N_OF(ktune_keys)];
        snprintf(where, sizeof(where), "kernel '%s' of %s", kernel->name, owner);
        st = rtm_yamldoc_fields(doc, found[k], where, ktune_keys, N_OF(ktune_keys), f, diag);
        if (st != RTM_OK)
            break;
        if (f[0] < 0)
            return rtm_yamldoc_missing(doc, found[k], "wg", where, "work-items per block", diag);
        if (f[1] < 0)
            return rtm_yamldoc_missing(doc, found[k], "vec", where, "vector width", diag);
        int64_t wg, vec;
        st = rtm_yamldoc_int(doc, f[0], where, 1, BOARD_WG_MAX, &wg, diag);
        if (st == RTM_OK)
            st = rtm_yamldoc_int(doc, f[1], where, 1, 16, &vec, diag);
        if (st != RTM_OK)
            break;
        if (!((kernel->vec_allowed >> vec) & 1u)) {
            char list[64];
            vec_list(kernel->vec_allowed, list, sizeof(list));
            return rtm_yamldoc_fail_at(doc, f[1], RTM_E_CFG_VALUE, diag,
                                       "vec must be %s for kernel %s (got %lld) in %s", list,
                                       kernel->name, (long long)vec, owner);
        }
        double r_op = 0.0;
        if (f[2] >= 0) {
            st = rtm_yamldoc_quantity(doc, f[2], where, RTM_UNIT_TIME, &r_op, diag);
            if (st != RTM_OK)
                break;
            if (r_op < 0)
                return rtm_yamldoc_fail_at(doc, f[2], RTM_E_CFG_VALUE, diag,
                                           "r_op must not be negative in %s", where);
        }
        double mem_rate = 0.0;
        if (f[3] >= 0) {
            st = rtm_yamldoc_quantity(doc, f[3], where, RTM_UNIT_RATE, &mem_rate, diag);
            if (st != RTM_OK)
                break;
            if (!(mem_rate > 0))
                return rtm_yamldoc_fail_at(doc, f[3], RTM_E_CFG_VALUE, diag,
                                           "mem_rate must be greater than zero in %s", where);
        }
        /* optional extended-model terms, each >= 0 (absent in profiles made before them:
         * 0 = off; t_next 0 = the device's kernel_next): t_fixed r_big knee r_byte p_ops
         * x_ref r_miss t_next, by their ktune_keys index */
        enum { N_EXT = 8 };
        double ext[N_EXT] = {0.0};
        static const struct {
            int key;
            rtm_unit_t unit;
        } ext_def[N_EXT] = {{4, RTM_UNIT_TIME},   {5, RTM_UNIT_TIME},   {6, RTM_UNIT_BYTES},
                            {7, RTM_UNIT_TIME},   {8, RTM_UNIT_COUNT},  {9, RTM_UNIT_COUNT},
                            {11, RTM_UNIT_TIME},  {12, RTM_UNIT_TIME}};
        for (int e = 0; e < N_EXT && st == RTM_OK; e++) {
            const int32_t at = f[ext_def[e].key];
            if (at < 0)
                continue;
            st = rtm_yamldoc_quantity(doc, at, where, ext_def[e].unit, &ext[e], diag);
            if (st == RTM_OK && !(ext[e] >= 0))
                return rtm_yamldoc_fail_at(doc, at, RTM_E_CFG_VALUE, diag,
                                           "%s must not be negative in %s",
                                           ktune_keys[ext_def[e].key], where);
        }
        if (st != RTM_OK)
            break;
        if (ext[4] > 1.0)
            return rtm_yamldoc_fail_at(doc, f[8], RTM_E_CFG_VALUE, diag,
                                       "p_ops must be between 0 and 1 in %s", where);
        if (ext[4] > 0.0 && !(ext[5] > 0.0))
            return rtm_yamldoc_fail_at(doc, f[9], RTM_E_CFG_VALUE, diag,
                                       "p_ops needs x_ref greater than zero in %s", where);
        const double r_miss = ext[6];
        if (r_miss > 0.0 && !(ext[2] > 0.0))
            return rtm_yamldoc_fail_at(doc, f[11], RTM_E_CFG_VALUE, diag,
                                       "r_miss needs knee greater than zero in %s", where);
        if (r_miss > 0.0 && ext[1] > 0.0)
            return rtm_yamldoc_fail_at(doc, f[11], RTM_E_CFG_VALUE, diag,
                                       "r_miss and r_big exclude each other in %s", where);
        /* optional (absent in profiles made before it: the executive's default) */
        int64_t poll = -1;
        if (f[10] >= 0 && (st = rtm_yamldoc_int(doc, f[10], where, 0, 1 << 20, &poll, diag)) != RTM_OK)
            break;
        /* optional, with a period that polls: the build's cost over calibration's */
        double poll_cost = 0.0;
        if ((st = opt_ratio(doc, f[13], where, RTM_BOARD_POLL_COST_MIN, RTM_BOARD_POLL_COST_MAX,
                            false, &poll_cost, diag)) != RTM_OK)
            break;
        if (f[13] >= 0 && poll <= 0)
            return rtm_yamldoc_fail_at(doc, f[13], RTM_E_CFG_VALUE, diag,
                                       "poll_cost needs poll_every greater than zero in %s",
                                       where);
        /* optional: aligned rows' time over the fitted odd rows', or with aligned_r (a
         * rate) their share of the growth above it */
        double aligned = 0.0, aligned_r = 0.0;
        if (f[17] >= 0) {
            st = rtm_yamldoc_quantity(doc, f[17], where, RTM_UNIT_TIME, &aligned_r, diag);
            if (st != RTM_OK)
                break;
            if (!(aligned_r > 0) || f[14] < 0)
                return rtm_yamldoc_fail_at(doc, f[17], RTM_E_CFG_VALUE, diag,
                                           "aligned_r must be greater than zero, with aligned, "
                                           "in %s",
                                           where);
        }
        if ((st = opt_ratio(doc, f[14], where,
                            f[17] >= 0 ? RTM_BOARD_ALIGNED_GROWTH_MIN : RTM_BOARD_ALIGNED_MIN,
                            RTM_BOARD_ALIGNED_MAX, false, &aligned, diag)) != RTM_OK)
            break;
        /* optional: the kernel's own resident work-groups per compute unit */
        double resident = 0.0;
        if ((st = opt_ratio(doc, f[15], where, RTM_BOARD_RESIDENT_MIN, RTM_BOARD_RESIDENT_MAX,
                            true, &resident, diag)) != RTM_OK)
            break;
        /* optional: strided walks aliased in L1 (CPU pool), time over the fitted sizes' */
        double aliased = 0.0;
        if ((st = opt_ratio(doc, f[16], where, RTM_BOARD_ALIASED_MIN, RTM_BOARD_ALIASED_MAX,
                            false, &aliased, diag)) != RTM_OK)
            break;
        kt[k].have = true;
        kt[k].aliased = aliased;
        kt[k].resident = resident;
        kt[k].aligned = aligned;
        kt[k].aligned_r = aligned_r;
        kt[k].poll_cost = poll_cost;
        kt[k].poll_every = poll < 0 ? 0u : poll == 0 ? RTM_BOARD_POLL_NONE : (uint32_t)poll;
        kt[k].tune = (rtm_tune_t){(uint32_t)wg, (uint32_t)vec};
        kt[k].r_op = r_op;
        kt[k].mem_rate = mem_rate;
        kt[k].t_fixed = ext[0];
        kt[k].r_big = ext[1];
        kt[k].r_miss = r_miss;
        kt[k].knee = ext[2];
        kt[k].r_byte = ext[3];
        kt[k].p_ops = ext[4];
        kt[k].x_ref = ext[5];
        kt[k].t_next = ext[7];
    }
    return st;
}

/* "" or an ISO date (YYYY-MM-DD, optionally followed by a time). */
static rtm_status_t load_date(const rtm_yamldoc_t *doc, int32_t i, const char *where, char *buf,
                              size_t len, rtm_diag_t *diag)
{
    rtm_status_t st = rtm_yamldoc_string(doc, i, where, true, buf, len, diag);
    if (st != RTM_OK || !buf[0])
        return st;
    bool ok = strlen(buf) >= 10 && buf[4] == '-' && buf[7] == '-' &&
              (buf[10] == '\0' || buf[10] == 'T' || buf[10] == ' ');
    for (int c = 0; ok && c < 10; c++)
        ok = c == 4 || c == 7 || (buf[c] >= '0' && buf[c] <= '9');
    if (!ok)
        return rtm_yamldoc_fail_at(doc, i, RTM_E_CFG_VALUE, diag,
                                   "measured must be an ISO date like 2025-01-31, or \"\" when "
                                   "never calibrated (got '%s') in %s",
                                   buf, where);
    return RTM_OK;
}

static rtm_status_t load_cpu(const rtm_yamldoc_t *doc, int32_t map, rtm_board_t *b,
                             rtm_diag_t *diag)
{
    const char *where = "cpu";
    int32_t f[N_OF(cpu_keys)];
    rtm_status_t st = rtm_yamldoc_fields(doc, map, where, cpu_keys, N_OF(cpu_keys), f, diag);
    if (st != RTM_OK)
        return st;
    if (f[0] < 0)
        return rtm_yamldoc_missing(doc, map, "cores", where, "CPU cores of the computer", diag);
    if (f[1] < 0)
        return rtm_yamldoc_missing(doc, map, "threads", where, "worker threads rtmgr may use",
                                   diag);
    int64_t v;
    if ((st = rtm_yamldoc_int(doc, f[0], where, 1, BOARD_CORES_MAX, &v, diag)) != RTM_OK)
        return st;
    b->cores = (uint32_t)v;
    if ((st = rtm_yamldoc_int(doc, f[1], where, 1, RTM_MAX_WORKERS, &v, diag)) != RTM_OK)
        return st;
    b->threads = (uint32_t)v;
    int e = RTM_MODEL_PAPER;
    if (f[2] >= 0 &&
        (st = rtm_yamldoc_enum(doc, f[2], where, model_names, N_OF(model_names), &e, diag)) != RTM_OK)
        return st;
    b->cpu_model = (rtm_model_kind_t)e;
    if (f[3] >= 0 &&
        (st = load_date(doc, f[3], where, b->cpu_measured, sizeof(b->cpu_measured), diag)) != RTM_OK)
        return st;
    if (f[6] >= 0 && (st = rtm_yamldoc_string(doc, f[6], where, true, b->cpu_name,
                                              sizeof(b->cpu_name), diag)) != RTM_OK)
        return st;
    if (f[4] >= 0 && (st = load_params(doc, f[4], "the params of cpu", cpu_params, RTM_CPU_P_COUNT,
                                       b->cpu_param, b->cpu_have, diag)) != RTM_OK)
        return st;
    if (f[5] >= 0 && (st = load_kernels(doc, f[5], "cpu", b->cpu_ktune, diag)) != RTM_OK)
        return st;
    return RTM_OK;
}

static rtm_status_t load_device(const rtm_yamldoc_t *doc, int32_t map, uint32_t index,
                                rtm_board_t *b, rtm_diag_t *diag)
{
    rtm_board_dev_t *d = &b->dev[index];
    char where[RTM_NAME_MAX + 32];
    snprintf(where, sizeof(where), "device #%u", index + 1);
    int32_t f[N_OF(dev_keys)];
    rtm_status_t st = rtm_yamldoc_fields(doc, map, where, dev_keys, N_OF(dev_keys), f, diag);
    if (st != RTM_OK)
        return st;
    if (f[0] < 0)
        return rtm_yamldoc_missing(doc, map, "name", where, "rtmgr's name for it, e.g. gpu0", diag);
    if ((st = rtm_yamldoc_name(doc, f[0], where, d->name, sizeof(d->name), diag)) != RTM_OK)
        return st;
    for (uint32_t j = 0; j < index; j++)
        if (strcmp(b->dev[j].name, d->name) == 0)
            return rtm_yamldoc_fail_at(doc, f[0], RTM_E_CFG_VALUE, diag,
                                       "duplicate device name '%s' (devices #%u and #%u)", d->name,
                                       j + 1, index + 1);
    snprintf(where, sizeof(where), "device '%s'", d->name);
    if (f[1] < 0)
        return rtm_yamldoc_missing(doc, map, "platform", where,
                                   "substring of CL_PLATFORM_NAME", diag);
    if (f[3] < 0)
        return rtm_yamldoc_missing(doc, map, "kind", where, "cpu, gpu or accelerator", diag);
    if ((st = rtm_yamldoc_string(doc, f[1], where, true, d->platform, sizeof(d->platform), diag)))
        return st;
    if (f[2] >= 0 &&
        (st = rtm_yamldoc_string(doc, f[2], where, true, d->device, sizeof(d->device), diag)))
        return st;
    int e;
    if ((st = rtm_yamldoc_enum(doc, f[3], where, kind_names, N_OF(kind_names), &e, diag)))
        return st;
    d->kind = (rtm_dev_kind_t)e;
    if (f[4] >= 0 && (st = rtm_yamldoc_bytes(doc, f[4], where, &d->memory, diag)))
        return st;
    e = d->kind == RTM_DEV_GPU ? RTM_ABORT_WRITE : RTM_ABORT_MAPPED;
    if (f[5] >= 0 && (st = rtm_yamldoc_enum(doc, f[5], where, abort_names, N_OF(abort_names), &e, diag)))
        return st;
    d->abort = (rtm_abort_transport_t)e;
    e = RTM_MODEL_PAPER;
    if (f[6] >= 0 && (st = rtm_yamldoc_enum(doc, f[6], where, model_names, N_OF(model_names), &e, diag)))
        return st;
    d->model = (rtm_model_kind_t)e;
    if (f[7] >= 0 &&
        (st = rtm_yamldoc_string(doc, f[7], where, true, d->driver, sizeof(d->driver), diag)))
        return st;
    if (f[8] >= 0 && (st = load_date(doc, f[8], where, d->measured, sizeof(d->measured), diag)))
        return st;
    char pw[RTM_NAME_MAX + 48];
    snprintf(pw, sizeof(pw), "the params of %s", where);
    if (f[9] >= 0 &&
        (st = load_params(doc, f[9], pw, dev_params, RTM_DEV_P_COUNT, d->param, d->have, diag)))
        return st;
    if (f[10] >= 0 && (st = load_kernels(doc, f[10], where, d->ktune, diag)))
        return st;
    return RTM_OK;
}

rtm_status_t rtm_board_load(const char *path, rtm_board_t *board, rtm_diag_t *diag)
{
    if (!path || !board)
        return RTM_E_ARG;
    memset(board, 0, sizeof(*board));
    snprintf(board->path, sizeof(board->path), "%s", path);
    const rtm_yamldoc_t *doc = &board_doc;
    rtm_status_t st = rtm_yamldoc_load(&board_doc, path, diag);
    if (st != RTM_OK)
        return st;
    const char *where = "the board profile";
    int32_t f[N_OF(top_keys)];
    if ((st = rtm_yamldoc_fields(doc, 0, where, top_keys, N_OF(top_keys), f, diag)))
        return st;
    if (f[0] < 0)
        return rtm_yamldoc_missing(doc, 0, "rtmgr_board", where, "schema version: rtmgr_board: 1",
                                   diag);
    int64_t version;
    if ((st = rtm_yamldoc_int(doc, f[0], where, INT64_MIN, INT64_MAX, &version, diag)))
        return st;
    if (version != 1)
        return rtm_yamldoc_fail_at(doc, f[0], RTM_E_CFG_SCHEMA, diag,
                                   "unsupported board schema version %lld; this rtmgr reads "
                                   "rtmgr_board: 1",
                                   (long long)version);
    if (f[1] < 0)
        return rtm_yamldoc_missing(doc, 0, "name", where, NULL, diag);
    if ((st = rtm_yamldoc_name(doc, f[1], where, board->name, sizeof(board->name), diag)))
        return st;
    if (f[2] < 0)
        return rtm_yamldoc_missing(doc, 0, "cpu", where, "cores, threads and CPU model parameters",
                                   diag);
    if ((st = load_cpu(doc, f[2], board, diag)))
        return st;
    if (f[3] >= 0) {
        if ((st = rtm_yamldoc_want(doc, f[3], RTM_YNODE_SEQ, NULL, diag)))
            return st;
        uint32_t index = 0;
        for (int32_t c = doc->node[f[3]].first; c >= 0; c = doc->node[c].next, index++) {
            if (index >= RTM_MAX_DEVICES)
                return rtm_yamldoc_fail_at(doc, c, RTM_E_CFG_LIMIT, diag,
                                           "more than RTM_MAX_DEVICES (%d) devices",
                                           RTM_MAX_DEVICES);
            if ((st = load_device(doc, c, index, board, diag)))
                return st;
            board->n_devs = index + 1;
        }
    }
    return RTM_OK;
}

/* ---- saving ---------------------------------------------------------------------- */

static void put_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void put_params(FILE *f, const char *indent, const param_def_t *defs, uint32_t n,
                       const double *param, const bool *have)
{
    uint32_t count = 0;
    for (uint32_t k = 0; k < n; k++)
        count += have[k];
    if (count == 0) {
        fprintf(f, "%sparams: {}\n", indent);
        return;
    }
    fprintf(f, "%sparams:\n", indent);
    for (uint32_t k = 0; k < n; k++) {
        if (!have[k])
            continue;
        char v[64], kv[96];
        rtm_units_format(param[k], defs[k].unit, v, sizeof(v));
        snprintf(kv, sizeof(kv), "%s: %s", defs[k].key, v);
        fprintf(f, "%s  %-28s # %s\n", indent, kv, defs[k].help);
    }
}


/* ", key: value" with the value in `unit`, for an optional per-kernel model term. */
static void put_term(FILE *f, const char *key, double value, rtm_unit_t unit)
{
    char v[64];
    rtm_units_format(value, unit, v, sizeof(v));
    fprintf(f, ", %s: %s", key, v);
}

static void put_kernels(FILE *f, const char *indent, const rtm_board_ktune_t *kt)
{
    uint32_t count = 0;
    for (uint32_t k = 0; k < rtm_kernel_count(); k++)
        count += kt[k].have;
    if (count == 0) {
        fprintf(f, "%skernels: {}\n", indent);
        return;
    }
    fprintf(f, "%skernels:\n", indent);
    for (uint32_t k = 0; k < rtm_kernel_count(); k++) {
        if (!kt[k].have)
            continue;
        fprintf(f, "%s  %s: {wg: %u, vec: %u", indent, rtm_kernel_at(k)->name, kt[k].tune.wg,
                kt[k].tune.vec);
        if (kt[k].r_op != 0.0) {
            char v[64];
            rtm_units_format(kt[k].r_op, RTM_UNIT_TIME, v, sizeof(v));
            fprintf(f, ", r_op: %s", v);
        }
        if (kt[k].mem_rate != 0.0) {
            char v[64];
            rtm_units_format(kt[k].mem_rate, RTM_UNIT_RATE, v, sizeof(v));
            fprintf(f, ", mem_rate: %s", v);
        }
        if (kt[k].t_fixed != 0.0)
            put_term(f, "t_fixed", kt[k].t_fixed, RTM_UNIT_TIME);
        if (kt[k].r_big != 0.0 && kt[k].knee != 0.0) {
            put_term(f, "r_big", kt[k].r_big, RTM_UNIT_TIME);
            put_term(f, "knee", kt[k].knee, RTM_UNIT_BYTES);
        } else if (kt[k].r_miss != 0.0 && kt[k].knee != 0.0) {
            put_term(f, "r_miss", kt[k].r_miss, RTM_UNIT_TIME);
            put_term(f, "knee", kt[k].knee, RTM_UNIT_BYTES);
        }
        if (kt[k].r_byte != 0.0)
            put_term(f, "r_byte", kt[k].r_byte, RTM_UNIT_TIME);
        if (kt[k].p_ops != 0.0 && kt[k].x_ref != 0.0) {
            put_term(f, "p_ops", kt[k].p_ops, RTM_UNIT_COUNT);
            put_term(f, "x_ref", kt[k].x_ref, RTM_UNIT_COUNT);
        }
        if (kt[k].t_next != 0.0)
            put_term(f, "t_next", kt[k].t_next, RTM_UNIT_TIME);
        if (kt[k].poll_every != 0)
            fprintf(f, ", poll_every: %u",
                    kt[k].poll_every == RTM_BOARD_POLL_NONE ? 0u : kt[k].poll_every);
        if (kt[k].poll_cost != 0.0 && kt[k].poll_every != 0 &&
            kt[k].poll_every != RTM_BOARD_POLL_NONE)
            fprintf(f, ", poll_cost: %.4f", kt[k].poll_cost);
        if (kt[k].aligned != 0.0) {
            fprintf(f, ", aligned: %.4f", kt[k].aligned);
            if (kt[k].aligned_r != 0.0)
                put_term(f, "aligned_r", kt[k].aligned_r, RTM_UNIT_TIME);
        }
        if (kt[k].resident != 0.0)
            fprintf(f, ", resident: %.4g", kt[k].resident);
        if (kt[k].aliased != 0.0)
            fprintf(f, ", aliased: %.4f", kt[k].aliased);
        fprintf(f, "}\n");
    }
}

static void put_board(FILE *f, const rtm_board_t *b)
{
    fprintf(f, "# rtmgr board profile (schema: docs/config.md). Written by rtmgr; the next\n"
               "# `rtmgr calibrate -o` of this computer overwrites it.\n");
    fprintf(f, "rtmgr_board: 1\nname: ");
    put_str(f, b->name);
    fprintf(f, "\ncpu:\n  cores: %u\n  threads: %u\n  model: %s\n  measured: ", b->cores,
            b->threads, rtm_board_model_name(b->cpu_model));
    put_str(f, b->cpu_measured);
    fputc('\n', f);
    if (b->cpu_name[0]) {
        fprintf(f, "  name: ");
        put_str(f, b->cpu_name);
        fputc('\n', f);
    }
    put_params(f, "  ", cpu_params, RTM_CPU_P_COUNT, b->cpu_param, b->cpu_have);
    put_kernels(f, "  ", b->cpu_ktune);
    if (b->n_devs == 0) {
        fprintf(f, "devices: []\n");
        return;
    }
    fprintf(f, "devices:\n");
    for (uint32_t i = 0; i < b->n_devs; i++) {
        const rtm_board_dev_t *d = &b->dev[i];
        fprintf(f, "  - name: ");
        put_str(f, d->name);
        fprintf(f, "\n    platform: ");
        put_str(f, d->platform);
        fprintf(f, "\n    device: ");
        put_str(f, d->device);
        fprintf(f, "\n    kind: %s\n", rtm_board_kind_name(d->kind));
        if (d->memory) {
            char v[64];
            rtm_units_format_bytes(d->memory, v, sizeof(v));
            fprintf(f, "    memory: %s\n", v);
        }
        fprintf(f, "    abort: %s\n    model: %s\n    driver: ", rtm_board_abort_name(d->abort),
                rtm_board_model_name(d->model));
        put_str(f, d->driver);
        fprintf(f, "\n    measured: ");
        put_str(f, d->measured);
        fputc('\n', f);
        put_params(f, "    ", dev_params, RTM_DEV_P_COUNT, d->param, d->have);
        put_kernels(f, "    ", d->ktune);
    }
}

/* Every value that will be written is finite (NaN or inf would not load back). */
static bool ktune_finite(const rtm_board_ktune_t *kt)
{
    return isfinite(kt->r_op) && isfinite(kt->mem_rate) && isfinite(kt->t_fixed) &&
           isfinite(kt->r_big) && isfinite(kt->r_miss) && isfinite(kt->knee) && isfinite(kt->r_byte) &&
           isfinite(kt->p_ops) && isfinite(kt->x_ref) && isfinite(kt->t_next);
}

static bool all_finite(const rtm_board_t *b)
{
    for (uint32_t p = 0; p < RTM_CPU_P_COUNT; p++)
        if (b->cpu_have[p] && !isfinite(b->cpu_param[p]))
            return false;
    for (uint32_t k = 0; k < RTM_MAX_KERNELS; k++)
        if (b->cpu_ktune[k].have &&
            !ktune_finite(&b->cpu_ktune[k]))
            return false;
    for (uint32_t i = 0; i < b->n_devs; i++) {
        for (uint32_t p = 0; p < RTM_DEV_P_COUNT; p++)
            if (b->dev[i].have[p] && !isfinite(b->dev[i].param[p]))
                return false;
        for (uint32_t k = 0; k < RTM_MAX_KERNELS; k++)
            if (b->dev[i].ktune[k].have &&
                !ktune_finite(&b->dev[i].ktune[k]))
                return false;
    }
    return true;
}

rtm_status_t rtm_board_save(const rtm_board_t *board, const char *path)
{
    if (!board || !path || board->n_devs > RTM_MAX_DEVICES || !all_finite(board))
        return RTM_E_ARG;
    char tmp[RTM_PATH_MAX + 16];
    if ((size_t)snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= sizeof(tmp))
        return RTM_E_ARG;
    const int fd = mkstemp(tmp);
    if (fd < 0)
        return RTM_E_IO;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(tmp);
        return RTM_E_IO;
    }
    put_board(f, board);
    bool ok = !ferror(f) && fflush(f) == 0 && fchmod(fd, 0644) == 0 && fsync(fd) == 0;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return RTM_E_IO;
    }
    return RTM_OK;
}
