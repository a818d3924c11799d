/* config.c — task sets: the YAML file -> rtm_config_t, and its validation (see config.h).
 *
 * Owns the task-set schema (documented in docs/config.md). Loading happens in three
 * steps, each before any runtime storage exists:
 *   1. parse the file into a bounded tree (yamldoc) and read every key into the typed
 *      tables, refusing unknown keys, wrong kinds, missing units, unknown kernels and
 *      size keys — each error at the line and column of the offending key or value;
 *   2. load the board profile named by `board:` (board.c; its errors point into it);
 *   3. rtm_config_validate(): cross-field rules, reported at the positions remembered
 *      in step 1 (cfg->at, task->at).
 * The parse tree is a file-static rtm_yamldoc_t: loads are init-only, one at a time. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "units.h"
#include "yamldoc.h"

static const char *const top_keys[] = {"rtmgr", "board", "limits", "log",
                                       "input", "tasks", "output", "hil"};
static const char *const limits_keys[] = {"max_jobs", "arena"};
static const char *const log_keys[] = {"path"};
static const char *const input_keys[] = {"scenario", "nmea"};
static const char *const scenario_keys[] = {"targets", "seed", "radius"};
static const char *const nmea_keys[] = {"udp", "tcp", "file", "speed", "expire"};
enum { N_UDP, N_TCP, N_FILE, N_SPEED, N_EXPIRE, N_SOURCES = N_FILE + 1 };
static const char *const output_keys[] = {"nmea"};
static const char *const out_nmea_keys[] = {"udp",   "task",    "talker",    "interval",
                                            "range", "targets", "alarm_cpa", "alarm_tcpa"};
enum { O_UDP, O_TASK, O_TALKER, O_INTERVAL, O_RANGE, O_TARGETS, O_ALARM_CPA, O_ALARM_TCPA };
static const char *const hil_keys[] = {"mape_budget"};
static const char *const task_keys[] = {"name",        "kernel",    "period",
                                        "deadline",    "offset",    "criticality",
                                        "placement",   "preemptible", "size"};
enum { T_NAME, T_KERNEL, T_PERIOD, T_DEADLINE, T_OFFSET, T_CRIT, T_PLACE, T_PREEMPT, T_SIZE };
static const char *const crit_names[] = {"hard", "firm", "soft"};
static const char *const place_names[] = {"auto", "cpu", "gpu"};

#define N_OF(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

/* Scenario defaults. */
#define SCENARIO_SEED_DEFAULT 1u
#define SCENARIO_RADIUS_DEFAULT_M (12.0 * 1852.0)

static rtm_yamldoc_t cfg_doc;

const char *rtm_crit_name(rtm_crit_t c) { return (unsigned)c < N_OF(crit_names) ? crit_names[c] : "?"; }
const char *rtm_place_name(rtm_place_t p)
{
    return (unsigned)p < N_OF(place_names) ? place_names[p] : "?";
}

int rtm_config_task_find(const rtm_config_t *cfg, const char *name)
{
    for (uint32_t i = 0; cfg && name && i < cfg->n_tasks && i < RTM_MAX_TASKS; i++)
        if (strcmp(cfg->task[i].name, name) == 0)
            return (int)i;
    return -1;
}

static rtm_cfg_pos_t pos_of(const rtm_yamldoc_t *doc, int32_t i)
{
    const rtm_ynode_t *n = rtm_yamldoc_node(doc, i);
    return n ? (rtm_cfg_pos_t){n->line, n->column} : (rtm_cfg_pos_t){0, 0};
}

/* ---- paths ----------------------------------------------------------------------- */

/* `rel` relative to the directory of `base` (unless absolute), with "." and "dir/.."
 * removed lexically. Fails when the result does not fit. */
static bool resolve_path(const char *base, const char *rel, char *out, size_t len)
{
    char joined[2 * RTM_PATH_MAX];
    const char *slash = strrchr(base, '/');
    int n;
    if (rel[0] == '/' || !slash)
        n = snprintf(joined, sizeof(joined), "%s", rel);
    else
        n = snprintf(joined, sizeof(joined), "%.*s/%s", (int)(slash - base), base, rel);
    if (n < 0 || (size_t)n >= sizeof(joined))
        return false;

    enum { PARTS = 256 };
    const char *part[PARTS];
    size_t plen[PARTS];
    uint32_t np = 0;
    const bool absolute = joined[0] == '/';
    for (char *p = joined; *p;) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        char *e = p;
        while (*e && *e != '/')
            e++;
        const size_t l = (size_t)(e - p);
        const bool dot = l == 1 && p[0] == '.', dotdot = l == 2 && p[0] == '.' && p[1] == '.';
        const bool prev_dotdot = np > 0 && plen[np - 1] == 2 && part[np - 1][0] == '.' &&
                                 part[np - 1][1] == '.';
        if (dotdot && np > 0 && !prev_dotdot) {
            np--;
        } else if (dot || (dotdot && absolute && np == 0)) {
            /* "." is nothing; "/.." is "/" */
        } else {
            if (np == PARTS)
                return false;
            part[np] = p;
            plen[np++] = l;
        }
        p = e;
    }
    size_t used = 0;
    if (absolute) {
        if (len < 2)
            return false;
        out[used++] = '/';
    }
    for (uint32_t i = 0; i < np; i++) {
        const size_t need = plen[i] + (i > 0);
        if (used + need + 1 > len)
            return false;
        if (i > 0)
            out[used++] = '/';
        memcpy(out + used, part[i], plen[i]);
        used += plen[i];
    }
    if (used == 0) {
        if (len < 2)
            return false;
        out[used++] = '.';
    }
    out[used] = '\0';
    return true;
}

/* ---- step 1: the file ------------------------------------------------------------ */

static rtm_status_t load_limits(const rtm_yamldoc_t *doc, int32_t map, rtm_config_t *cfg,
                                rtm_diag_t *diag)
{
    int32_t f[N_OF(limits_keys)];
    rtm_status_t st = rtm_yamldoc_fields(doc, map, "limits", limits_keys, N_OF(limits_keys), f, diag);
    if (st != RTM_OK)
        return st;
    if (f[0] >= 0) {
        int64_t v;
        if ((st = rtm_yamldoc_int(doc, f[0], "limits", 1, RTM_MAX_JOBS, &v, diag)))
            return st;
        cfg->max_jobs = (uint32_t)v;
        cfg->at.max_jobs = pos_of(doc, f[0]);
    }
    if (f[1] >= 0) {
        if ((st = rtm_yamldoc_bytes(doc, f[1], "limits", &cfg->arena_bytes, diag)))
            return st;
        cfg->at.arena = pos_of(doc, f[1]);
    }
    return RTM_OK;
}

static rtm_status_t load_log(const rtm_yamldoc_t *doc, int32_t map, rtm_config_t *cfg,
                             rtm_diag_t *diag)
{
    int32_t f[N_OF(log_keys)];
    rtm_status_t st = rtm_yamldoc_fields(doc, map, "log", log_keys, N_OF(log_keys), f, diag);
    if (st == RTM_OK && f[0] >= 0)
        st = rtm_yamldoc_string(doc, f[0], "log", false, cfg->log_path, sizeof(cfg->log_path), diag);
    return st;
}

/* "host:port" with a port in 1..65535, into buf. */
static rtm_status_t load_endpoint(const rtm_yamldoc_t *doc, int32_t i, const char *where,
                                  char *buf, size_t len, rtm_diag_t *diag)
{
    rtm_status_t st = rtm_yamldoc_string(doc, i, where, false, buf, len, diag);
    if (st != RTM_OK)
        return st;
    const char *a = buf, *colon = strrchr(a, ':');
    long port = -1;
    if (colon && colon > a && colon[1]) {
        port = 0;
        for (const char *c = colon + 1; *c && port <= 65535; c++)
            port = (*c >= '0' && *c <= '9') ? port * 10 + (*c - '0') : 65536;
    }
    if (port < 1 || port > 65535)
        return rtm_yamldoc_fail_at(doc, i, RTM_E_CFG_VALUE, diag,
                                   "%s must be host:port with a port in 1..65535 (got '%s')",
                                   rtm_yamldoc_key(doc, i), a);
    return RTM_OK;
}

static rtm_status_t load_input(const rtm_yamldoc_t *doc, int32_t map, rtm_config_t *cfg,
                               rtm_diag_t *diag)
{
    int32_t f[N_OF(input_keys)];
    rtm_status_t st = rtm_yamldoc_fields(doc, map, "input", input_keys, N_OF(input_keys), f, diag);
    if (st != RTM_OK)
        return st;
    if (f[0] >= 0 && f[1] >= 0) {
        const int32_t second = doc->node[f[0]].key_line > doc->node[f[1]].key_line ? f[0] : f[1];
        return rtm_yamldoc_fail_key(doc, second, RTM_E_CFG_SCHEMA, diag,
                                    "input takes exactly one of 'scenario' or 'nmea', not both");
    }
    if (f[0] < 0 && f[1] < 0)
        return rtm_yamldoc_fail_at(doc, map, RTM_E_CFG_SCHEMA, diag,
                                   "input needs exactly one of 'scenario' (synthetic traffic) or "
                                   "'nmea' (udp, tcp or file)");
    if (f[0] >= 0) {
        const char *where = "input.scenario";
        int32_t s[N_OF(scenario_keys)];
        if ((st = rtm_yamldoc_fields(doc, f[0], where, scenario_keys, N_OF(scenario_keys), s, diag)))
            return st;
        cfg->input.kind = RTM_INPUT_SCENARIO;
        if (s[0] < 0)
            return rtm_yamldoc_missing(doc, f[0], "targets", where, "number of synthetic targets",
                                       diag);
        int64_t v;
        if ((st = rtm_yamldoc_int(doc, s[0], where, 1, RTM_MAX_TARGETS, &v, diag)))
            return st;
        cfg->input.targets = (uint32_t)v;
        cfg->input.seed = SCENARIO_SEED_DEFAULT;
        if (s[1] >= 0 && (st = rtm_yamldoc_u64(doc, s[1], where, &cfg->input.seed, diag)))
            return st;
        cfg->input.radius_m = SCENARIO_RADIUS_DEFAULT_M;
        if (s[2] >= 0) {
            if ((st = rtm_yamldoc_quantity(doc, s[2], where, RTM_UNIT_DISTANCE,
                                           &cfg->input.radius_m, diag)))
                return st;
            if (!(cfg->input.radius_m > 0))
                return rtm_yamldoc_fail_at(doc, s[2], RTM_E_CFG_VALUE, diag,
                                           "radius must be greater than zero in %s", where);
        }
        return RTM_OK;
    }
    const char *where = "input.nmea";
    int32_t n[N_OF(nmea_keys)];
    if ((st = rtm_yamldoc_fields(doc, f[1], where, nmea_keys, N_OF(nmea_keys), n, diag)))
        return st;
    int32_t chosen = -1;
    for (uint32_t k = 0; k < N_SOURCES; k++) {
        if (n[k] < 0)
            continue;
        if (chosen >= 0)
            return rtm_yamldoc_fail_key(doc, n[k], RTM_E_CFG_SCHEMA, diag,
                                        "input.nmea takes exactly one of udp, tcp or file");
        chosen = (int32_t)k;
    }
    if (chosen < 0)
        return rtm_yamldoc_fail_at(doc, f[1], RTM_E_CFG_SCHEMA, diag,
                                   "input.nmea needs one of udp: host:port, tcp: host:port or "
                                   "file: path");
    cfg->input.speed = 1.0;
    cfg->input.expire_ns = RTM_CONFIG_EXPIRE_DEFAULT_NS;
    if (n[N_EXPIRE] >= 0) {
        if ((st = rtm_yamldoc_ns(doc, n[N_EXPIRE], where, &cfg->input.expire_ns, diag)))
            return st;
        if (cfg->input.expire_ns < 1000000000LL)
            return rtm_yamldoc_fail_at(doc, n[N_EXPIRE], RTM_E_CFG_VALUE, diag,
                                       "expire must be at least 1s in %s", where);
    }
    if (n[N_SPEED] >= 0) {
        if (chosen != N_FILE)
            return rtm_yamldoc_fail_key(doc, n[N_SPEED], RTM_E_CFG_SCHEMA, diag,
                                        "speed applies to file replay only (input.nmea.file)");
        if ((st = rtm_yamldoc_want(doc, n[N_SPEED], RTM_YNODE_SCALAR, NULL, diag)))
            return st;
        if (strcmp(rtm_yamldoc_text(doc, n[N_SPEED]), "max") == 0) {
            cfg->input.speed = 0.0;
        } else {
            char why[128];
            if (rtm_units_parse(rtm_yamldoc_text(doc, n[N_SPEED]), RTM_UNIT_COUNT,
                                &cfg->input.speed, why, sizeof(why)) != RTM_OK ||
                !(cfg->input.speed > 0 && cfg->input.speed <= 100000))
                return rtm_yamldoc_fail_at(doc, n[N_SPEED], RTM_E_CFG_VALUE, diag,
                                           "speed must be a factor in (0, 100000] or 'max' "
                                           "(as fast as possible), got '%s'",
                                           rtm_yamldoc_text(doc, n[N_SPEED]));
        }
    }
    if (chosen == N_UDP || chosen == N_TCP) {
        cfg->input.kind = chosen == N_UDP ? RTM_INPUT_NMEA_UDP : RTM_INPUT_NMEA_TCP;
        return load_endpoint(doc, n[chosen], where, cfg->input.address,
                             sizeof(cfg->input.address), diag);
    }
    cfg->input.kind = RTM_INPUT_NMEA_FILE;
    char rel[RTM_PATH_MAX];
    if ((st = rtm_yamldoc_string(doc, n[N_FILE], where, false, rel, sizeof(rel), diag)))
        return st;
    if (!resolve_path(cfg->path, rel, cfg->input.address, sizeof(cfg->input.address)))
        return rtm_yamldoc_fail_at(doc, n[N_FILE], RTM_E_CFG_LIMIT, diag, "file path is too long");
    return RTM_OK;
}

/* A distance > 0 (or >= 0 with allow_zero). */
static rtm_status_t load_distance(const rtm_yamldoc_t *doc, int32_t i, const char *where,
                                  bool allow_zero, double *out, rtm_diag_t *diag)
{
    rtm_status_t st = rtm_yamldoc_quantity(doc, i, where, RTM_UNIT_DISTANCE, out, diag);
    if (st != RTM_OK)
        return st;
    if (!isfinite(*out) || *out < 0 || (!allow_zero && *out == 0))
        return rtm_yamldoc_fail_at(doc, i, RTM_E_CFG_VALUE, diag, "%s must be %s in %s",
                                   rtm_yamldoc_key(doc, i),
                                   allow_zero ? "zero or more" : "greater than zero", where);
    return RTM_OK;
}

/* `output: nmea: {...}`, after the tasks (it names one). */
static rtm_status_t load_output(const rtm_yamldoc_t *doc, int32_t map, rtm_config_t *cfg,
                                rtm_diag_t *diag)
{
    int32_t f[N_OF(output_keys)];
    rtm_status_t st = rtm_yamldoc_fields(doc, map, "output", output_keys, N_OF(output_keys), f, diag);
    if (st != RTM_OK)
        return st;
    if (f[0] < 0)
        return rtm_yamldoc_fail_at(doc, map, RTM_E_CFG_SCHEMA, diag,
                                   "output needs 'nmea' (CPA/TCPA as NMEA 0183 over UDP)");
    const char *where = "output.nmea";
    int32_t o[N_OF(out_nmea_keys)];
    if ((st = rtm_yamldoc_fields(doc, f[0], where, out_nmea_keys, N_OF(out_nmea_keys), o, diag)))
        return st;
    cfg->output.on = true;
    cfg->at.output = pos_of(doc, f[0]);
    if (o[O_UDP] < 0)
        return rtm_yamldoc_missing(doc, f[0], "udp", where, "host:port the sentences go to",
                                   diag);
    if ((st = load_endpoint(doc, o[O_UDP], where, cfg->output.address,
                            sizeof(cfg->output.address), diag)))
        return st;
    /* the task: named, or the first cpa_tcpa task */
    int task = -1;
    if (o[O_TASK] >= 0) {
        char name[RTM_NAME_MAX];
        if ((st = rtm_yamldoc_name(doc, o[O_TASK], where, name, sizeof(name), diag)))
            return st;
        task = rtm_config_task_find(cfg, name);
        if (task < 0)
            return rtm_yamldoc_fail_at(doc, o[O_TASK], RTM_E_CFG_VALUE, diag,
                                       "output.nmea.task names no task of this set ('%s')", name);
        cfg->at.output_task = pos_of(doc, o[O_TASK]);
    } else {
        for (uint32_t i = 0; i < cfg->n_tasks && task < 0; i++)
            if (cfg->task[i].kernel && strcmp(cfg->task[i].kernel->name, "cpa_tcpa") == 0)
                task = (int)i;
        if (task < 0)
            return rtm_yamldoc_fail_at(doc, f[0], RTM_E_CFG_VALUE, diag,
                                       "output.nmea reports the results of a cpa_tcpa task, "
                                       "but the task set has none");
        cfg->at.output_task = cfg->at.output;
    }
    cfg->output.task = (uint32_t)task;
    snprintf(cfg->output.talker, sizeof(cfg->output.talker), "RA");
    if (o[O_TALKER] >= 0) {
        char t[8];
        if ((st = rtm_yamldoc_string(doc, o[O_TALKER], where, false, t, sizeof(t), diag)))
            return st;
        if (strlen(t) != 2 || t[0] < 'A' || t[0] > 'Z' || t[1] < 'A' || t[1] > 'Z')
            return rtm_yamldoc_fail_at(doc, o[O_TALKER], RTM_E_CFG_VALUE, diag,
                                       "talker must be two capital letters (RA, II, ...), got '%s'",
                                       t);
        memcpy(cfg->output.talker, t, 3);
    }
    cfg->output.interval_ns = RTM_CONFIG_OUT_INTERVAL_DEFAULT_NS;
    if (o[O_INTERVAL] >= 0) {
        if ((st = rtm_yamldoc_ns(doc, o[O_INTERVAL], where, &cfg->output.interval_ns, diag)))
            return st;
        if (cfg->output.interval_ns < RTM_CONFIG_OUT_INTERVAL_MIN_NS ||
            cfg->output.interval_ns > 60LL * 1000000000LL)
            return rtm_yamldoc_fail_at(doc, o[O_INTERVAL], RTM_E_CFG_VALUE, diag,
                                       "interval must be in 100ms..1min in %s", where);
    }
    cfg->output.range_m = RTM_CONFIG_OUT_RANGE_DEFAULT_M;
    if (o[O_RANGE] >= 0 &&
        (st = load_distance(doc, o[O_RANGE], where, false, &cfg->output.range_m, diag)))
        return st;
    cfg->output.max_targets = RTM_CONFIG_OUT_TARGETS_DEFAULT;
    if (o[O_TARGETS] >= 0) {
        int64_t v;
        if ((st = rtm_yamldoc_int(doc, o[O_TARGETS], where, 1, RTM_CONFIG_OUT_TARGETS_MAX, &v,
                                  diag)))
            return st;
        cfg->output.max_targets = (uint32_t)v;
    }
    cfg->output.alarm_cpa_m = RTM_CONFIG_ALARM_CPA_DEFAULT_M;
    if (o[O_ALARM_CPA] >= 0 &&
        (st = load_distance(doc, o[O_ALARM_CPA], where, true, &cfg->output.alarm_cpa_m, diag)))
        return st;
    cfg->output.alarm_tcpa_ns = RTM_CONFIG_ALARM_TCPA_DEFAULT_NS;
    if (o[O_ALARM_TCPA] >= 0) {
        if ((st = rtm_yamldoc_ns(doc, o[O_ALARM_TCPA], where, &cfg->output.alarm_tcpa_ns, diag)))
            return st;
        if (cfg->output.alarm_tcpa_ns <= 0)
            return rtm_yamldoc_fail_at(doc, o[O_ALARM_TCPA], RTM_E_CFG_VALUE, diag,
                                       "alarm_tcpa must be greater than zero in %s", where);
    }
    return RTM_OK;
}

/* `hil: {mape_budget: 25%}`: what the hardware-in-the-loop harness accepts. */
static rtm_status_t load_hil(const rtm_yamldoc_t *doc, int32_t map, rtm_config_t *cfg,
                             rtm_diag_t *diag)
{
    int32_t f[N_OF(hil_keys)];
    rtm_status_t st = rtm_yamldoc_fields(doc, map, "hil", hil_keys, N_OF(hil_keys), f, diag);
    if (st != RTM_OK || f[0] < 0)
        return st;
    if ((st = rtm_yamldoc_want(doc, f[0], RTM_YNODE_SCALAR, NULL, diag)))
        return st;
    const char *text = rtm_yamldoc_text(doc, f[0]);
    const size_t len = strlen(text);
    char num[64];
    double v = -1;
    bool ok = len >= 2 && len < sizeof(num) && text[len - 1] == '%';
    if (ok) {
        char why[128];
        memcpy(num, text, len - 1);
        num[len - 1] = '\0';
        ok = rtm_units_parse(num, RTM_UNIT_COUNT, &v, why, sizeof(why)) == RTM_OK && v > 0 &&
             v <= 1000;
    }
    if (!ok)
        return rtm_yamldoc_fail_at(doc, f[0], RTM_E_CFG_VALUE, diag,
                                   "mape_budget must be a percentage in (0%%, 1000%%], e.g. 25%%, "
                                   "got '%s'",
                                   text);
    cfg->hil.mape_budget = v / 100.0;
    return RTM_OK;
}

/* "matrix_add, sort" — the catalogue, for messages. */
static void kernel_list(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t k = 0; k < rtm_kernel_count() && used < len; k++) {
        const int n = snprintf(buf + used, len - used, "%s%s", k ? ", " : "", rtm_kernel_at(k)->name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

static rtm_status_t load_sizes(const rtm_yamldoc_t *doc, int32_t task_map, int32_t map,
                               const char *task_where, rtm_task_cfg_t *t, rtm_diag_t *diag)
{
    const rtm_kernel_t *k = t->kernel;
    const char *names[RTM_SIZE_KEYS_MAX];
    int32_t f[RTM_SIZE_KEYS_MAX];
    for (uint32_t i = 0; i < k->n_keys; i++) {
        names[i] = k->keys[i].name;
        t->size[i] = k->keys[i].def;
    }
    char where[RTM_NAME_MAX + 48];
    snprintf(where, sizeof(where), "the size of %s", task_where);
    if (map >= 0) {
        rtm_status_t st = rtm_yamldoc_fields(doc, map, where, names, k->n_keys, f, diag);
        if (st != RTM_OK)
            return st;
    } else {
        for (uint32_t i = 0; i < k->n_keys; i++)
            f[i] = -1;
    }
    for (uint32_t i = 0; i < k->n_keys; i++) {
        if (f[i] >= 0) {
            rtm_status_t st = rtm_yamldoc_int(doc, f[i], where, k->keys[i].min, k->keys[i].max,
                                              &t->size[i], diag);
            if (st != RTM_OK)
                return st;
        } else if (k->keys[i].def == 0) {
            char hint[160];
            snprintf(hint, sizeof(hint), "kernel %s needs it: %s, %lld..%lld", k->name,
                     k->keys[i].help, (long long)k->keys[i].min, (long long)k->keys[i].max);
            if (map < 0)
                return rtm_yamldoc_fail_at(doc, task_map, RTM_E_CFG_SCHEMA, diag,
                                           "missing key 'size' in %s (%s needs '%s')", task_where,
                                           k->name, k->keys[i].name);
            return rtm_yamldoc_missing(doc, map, k->keys[i].name, where, hint, diag);
        }
    }
    return RTM_OK;
}

static rtm_status_t load_task(const rtm_yamldoc_t *doc, int32_t map, uint32_t index,
                              rtm_config_t *cfg, rtm_diag_t *diag)
{
    rtm_task_cfg_t *t = &cfg->task[index];
    char where[RTM_NAME_MAX + 16];
    snprintf(where, sizeof(where), "task #%u", index + 1);
    const int32_t name_node = rtm_yamldoc_get(doc, map, "name");
    if (name_node >= 0 && doc->node[name_node].kind == RTM_YNODE_SCALAR &&
        !rtm_yamldoc_is_null(doc, name_node))
        snprintf(where, sizeof(where), "task '%.*s'", RTM_NAME_MAX - 1,
                 rtm_yamldoc_text(doc, name_node));

    const rtm_cfg_pos_t at = pos_of(doc, map);
    t->line = at.line;
    t->column = at.column;
    int32_t f[N_OF(task_keys)];
    rtm_status_t st = rtm_yamldoc_fields(doc, map, where, task_keys, N_OF(task_keys), f, diag);
    if (st != RTM_OK)
        return st;
    static const struct {
        int key;
        const char *hint;
    } required[] = {
        {T_NAME, "a unique name"},
        {T_KERNEL, "a kernel of the catalogue"},
        {T_PERIOD, "release period, e.g. 100ms"},
        {T_CRIT, "hard, firm or soft"},
    };
    for (uint32_t r = 0; r < N_OF(required); r++)
        if (f[required[r].key] < 0)
            return rtm_yamldoc_missing(doc, map, task_keys[required[r].key], where,
                                       required[r].hint, diag);

    if ((st = rtm_yamldoc_name(doc, f[T_NAME], where, t->name, sizeof(t->name), diag)))
        return st;
    t->at.name = pos_of(doc, f[T_NAME]);

    char kname[RTM_NAME_MAX];
    if ((st = rtm_yamldoc_string(doc, f[T_KERNEL], where, false, kname, sizeof(kname), diag)))
        return st;
    t->at.kernel = pos_of(doc, f[T_KERNEL]);
    t->kernel = rtm_kernel_find(kname);
    if (!t->kernel) {
        const char *names[RTM_MAX_KERNELS];
        for (uint32_t k = 0; k < rtm_kernel_count(); k++)
            names[k] = rtm_kernel_at(k)->name;
        const int near = rtm_yamldoc_nearest(kname, names, rtm_kernel_count());
        char list[320];
        kernel_list(list, sizeof(list));
        return rtm_yamldoc_fail_at(doc, f[T_KERNEL], RTM_E_CFG_VALUE, diag,
                                   "unknown kernel '%s' in %s; %s%s%sknown kernels: %s", kname,
                                   where, near >= 0 ? "did you mean '" : "",
                                   near >= 0 ? names[near] : "", near >= 0 ? "'? " : "", list);
    }

    if ((st = rtm_yamldoc_ns(doc, f[T_PERIOD], where, &t->period_ns, diag)))
        return st;
    t->at.period = pos_of(doc, f[T_PERIOD]);
    t->deadline_ns = t->period_ns;
    t->at.deadline = t->at.period;
    if (f[T_DEADLINE] >= 0) {
        if ((st = rtm_yamldoc_ns(doc, f[T_DEADLINE], where, &t->deadline_ns, diag)))
            return st;
        t->at.deadline = pos_of(doc, f[T_DEADLINE]);
    }
    t->offset_ns = 0;
    t->at.offset = t->at.period;
    if (f[T_OFFSET] >= 0) {
        if ((st = rtm_yamldoc_ns(doc, f[T_OFFSET], where, &t->offset_ns, diag)))
            return st;
        t->at.offset = pos_of(doc, f[T_OFFSET]);
    }
    int e;
    if ((st = rtm_yamldoc_enum(doc, f[T_CRIT], where, crit_names, N_OF(crit_names), &e, diag)))
        return st;
    t->crit = (rtm_crit_t)e;
    t->placement = RTM_PLACE_AUTO;
    t->at.placement = (rtm_cfg_pos_t){t->line, t->column};
    if (f[T_PLACE] >= 0) {
        if ((st = rtm_yamldoc_enum(doc, f[T_PLACE], where, place_names, N_OF(place_names), &e, diag)))
            return st;
        t->placement = (rtm_place_t)e;
        t->at.placement = pos_of(doc, f[T_PLACE]);
    }
    t->preemptible = false;
    if (f[T_PREEMPT] >= 0 && (st = rtm_yamldoc_bool(doc, f[T_PREEMPT], where, &t->preemptible, diag)))
        return st;
    t->at.size = f[T_SIZE] >= 0 ? pos_of(doc, f[T_SIZE]) : (rtm_cfg_pos_t){t->line, t->column};
    return load_sizes(doc, map, f[T_SIZE], where, t, diag);
}

static rtm_status_t load_tasks(const rtm_yamldoc_t *doc, int32_t seq, rtm_config_t *cfg,
                               rtm_diag_t *diag)
{
    rtm_status_t st = rtm_yamldoc_want(doc, seq, RTM_YNODE_SEQ, "'tasks'", diag);
    if (st != RTM_OK)
        return st;
    cfg->at.tasks = pos_of(doc, seq);
    uint32_t index = 0;
    for (int32_t c = doc->node[seq].first; c >= 0; c = doc->node[c].next, index++) {
        if (index >= RTM_MAX_TASKS)
            return rtm_yamldoc_fail_at(doc, c, RTM_E_CFG_LIMIT, diag,
                                       "more than RTM_MAX_TASKS (%d) tasks; the limit is set at "
                                       "build time (cmake -DRTM_MAX_TASKS=...)",
                                       RTM_MAX_TASKS);
        if ((st = load_task(doc, c, index, cfg, diag)))
            return st;
        cfg->n_tasks = index + 1;
    }
    if (index == 0)
        return rtm_yamldoc_fail_at(doc, seq, RTM_E_CFG_VALUE, diag,
                                   "tasks is empty: a task set needs at least one task");
    return RTM_OK;
}

rtm_status_t rtm_config_load(const char *path, rtm_config_t *cfg, rtm_diag_t *diag)
{
    return rtm_config_load_board(path, NULL, cfg, diag);
}

rtm_status_t rtm_config_load_board(const char *path, const char *board, rtm_config_t *cfg,
                                   rtm_diag_t *diag)
{
    if (!path || !cfg)
        return RTM_E_ARG;
    memset(cfg, 0, sizeof(*cfg));
    snprintf(cfg->path, sizeof(cfg->path), "%s", path);
    cfg->max_jobs = RTM_CONFIG_MAX_JOBS_DEFAULT;
    cfg->arena_bytes = RTM_CONFIG_ARENA_DEFAULT;
    snprintf(cfg->log_path, sizeof(cfg->log_path), "%s", RTM_CONFIG_LOG_DEFAULT);
    cfg->input.speed = 1.0;
    cfg->input.expire_ns = RTM_CONFIG_EXPIRE_DEFAULT_NS;
    cfg->hil.mape_budget = RTM_CONFIG_MAPE_BUDGET_DEFAULT;

    const rtm_yamldoc_t *doc = &cfg_doc;
    rtm_status_t st = rtm_yamldoc_load(&cfg_doc, path, diag);
    if (st != RTM_OK)
        return st;
    const char *where = "the task set";
    int32_t f[N_OF(top_keys)];
    if ((st = rtm_yamldoc_fields(doc, 0, where, top_keys, N_OF(top_keys), f, diag)))
        return st;
    if (f[0] < 0)
        return rtm_yamldoc_missing(doc, 0, "rtmgr", where, "schema version: write 'rtmgr: 1'", diag);
    int64_t version;
    if ((st = rtm_yamldoc_int(doc, f[0], NULL, INT64_MIN, INT64_MAX, &version, diag)))
        return st;
    if (version != 1)
        return rtm_yamldoc_fail_at(doc, f[0], RTM_E_CFG_SCHEMA, diag,
                                   "unsupported schema version %lld; this rtmgr reads rtmgr: 1",
                                   (long long)version);
    cfg->version = (int)version;

    if (f[1] < 0)
        return rtm_yamldoc_missing(doc, 0, "board", where,
                                   "board profile, relative to this file, e.g. "
                                   "../board/pocl-cpu.yaml",
                                   diag);
    char board_rel[RTM_PATH_MAX];
    if ((st = rtm_yamldoc_string(doc, f[1], NULL, false, board_rel, sizeof(board_rel), diag)))
        return st;
    if (board)
        snprintf(cfg->board_path, sizeof(cfg->board_path), "%s", board);
    else if (!resolve_path(cfg->path, board_rel, cfg->board_path, sizeof(cfg->board_path)))
        return rtm_yamldoc_fail_at(doc, f[1], RTM_E_CFG_LIMIT, diag, "board path is too long");
    cfg->at.board = pos_of(doc, f[1]);

    if (f[2] >= 0 && (st = load_limits(doc, f[2], cfg, diag)))
        return st;
    if (f[3] >= 0 && (st = load_log(doc, f[3], cfg, diag)))
        return st;
    if (f[4] < 0)
        return rtm_yamldoc_missing(doc, 0, "input", where,
                                   "scenario: {targets: N} or nmea: {udp|tcp|file: ...}", diag);
    cfg->at.input = pos_of(doc, f[4]);
    if ((st = load_input(doc, f[4], cfg, diag)))
        return st;
    if (f[5] < 0)
        return rtm_yamldoc_missing(doc, 0, "tasks", where, "a sequence of tasks", diag);
    if ((st = load_tasks(doc, f[5], cfg, diag)))
        return st;
    if (f[6] >= 0 && (st = load_output(doc, f[6], cfg, diag)))
        return st;
    if (f[7] >= 0 && (st = load_hil(doc, f[7], cfg, diag)))
        return st;

    st = rtm_board_load(cfg->board_path, &cfg->board, diag);
    if (st == RTM_E_CFG_IO) {
        char why[sizeof(diag->text)];
        snprintf(why, sizeof(why), "%s", diag ? diag->text : "cannot read");
        return rtm_yamldoc_fail_at(doc, f[1], RTM_E_CFG_IO, diag,
                                   "board profile '%s': %s (looked for %s)", board_rel, why,
                                   cfg->board_path);
    }
    if (st != RTM_OK)
        return st;
    return rtm_config_validate(cfg, diag);
}

/* ---- step 3: cross-field rules --------------------------------------------------- */

static rtm_status_t fail(const rtm_config_t *cfg, rtm_cfg_pos_t at, rtm_status_t st,
                         rtm_diag_t *diag, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static rtm_status_t fail(const rtm_config_t *cfg, rtm_cfg_pos_t at, rtm_status_t st,
                         rtm_diag_t *diag, const char *fmt, ...)
{
    char text[sizeof(diag->text)];
    va_list ap;
    va_start(ap, fmt);
    /* NOLINT: clang-tidy 14 valist false positive in multi-file runs (see yamldoc.c). */
    vsnprintf(text, sizeof(text), fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
    va_end(ap);
    rtm_diag_set(diag, cfg->path, at.line, at.column, "%s", text);
    return st;
}

static void tune_candidates(const rtm_config_t *cfg, const rtm_kernel_t *k, rtm_tune_t *tunes,
                            uint32_t *n)
{
    const int ki = rtm_kernel_index(k);
    *n = 0;
    tunes[(*n)++] = k->tune_default;
    if (ki < 0)
        return;
    if (cfg->board.cpu_ktune[ki].have)
        tunes[(*n)++] = cfg->board.cpu_ktune[ki].tune;
    for (uint32_t d = 0; d < cfg->board.n_devs && d < RTM_MAX_DEVICES; d++)
        if (cfg->board.dev[d].ktune[ki].have)
            tunes[(*n)++] = cfg->board.dev[d].ktune[ki].tune;
}

rtm_status_t rtm_config_task_kinst(const rtm_config_t *cfg, uint32_t i, int dev, rtm_kinst_t *k)
{
    if (!cfg || !k || i >= cfg->n_tasks || i >= RTM_MAX_TASKS || !cfg->task[i].kernel ||
        dev < -1 || dev >= (int)cfg->board.n_devs)
        return RTM_E_ARG;
    const rtm_task_cfg_t *t = &cfg->task[i];
    const int ki = rtm_kernel_index(t->kernel);
    rtm_kinst_init(k, t->kernel);
    memcpy(k->size, t->size, sizeof(k->size));
    const rtm_board_ktune_t *kt =
        ki < 0 ? NULL : dev < 0 ? &cfg->board.cpu_ktune[ki] : &cfg->board.dev[dev].ktune[ki];
    if (kt && kt->have)
        k->tune = kt->tune;
    return rtm_kinst_plan(k);
}

rtm_status_t rtm_config_task_bytes(const rtm_config_t *cfg, uint32_t i, uint64_t *bytes)
{
    if (!cfg || !bytes || i >= cfg->n_tasks || i >= RTM_MAX_TASKS || !cfg->task[i].kernel)
        return RTM_E_ARG;
    const rtm_task_cfg_t *t = &cfg->task[i];
    rtm_tune_t tunes[RTM_MAX_DEVICES + 2];
    uint32_t n;
    tune_candidates(cfg, t->kernel, tunes, &n);
    uint64_t most = 0;
    for (uint32_t c = 0; c < n; c++) {
        rtm_kinst_t k;
        rtm_kinst_init(&k, t->kernel);
        memcpy(k.size, t->size, sizeof(k.size));
        k.tune = tunes[c];
        const rtm_status_t st = rtm_kinst_plan(&k);
        if (st != RTM_OK)
            return st;
        const uint64_t b = rtm_kinst_bytes(&k);
        most = b > most ? b : most;
    }
    *bytes = most;
    return RTM_OK;
}

rtm_status_t rtm_config_kernel_bytes(const rtm_config_t *cfg, uint64_t *bytes)
{
    if (!cfg || !bytes)
        return RTM_E_ARG;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < cfg->n_tasks && i < RTM_MAX_TASKS; i++) {
        uint64_t b;
        const rtm_status_t st = rtm_config_task_bytes(cfg, i, &b);
        if (st != RTM_OK)
            return st;
        b = (b + 63u) & ~(uint64_t)63u;
        sum = sum > UINT64_MAX - b ? UINT64_MAX : sum + b;
    }
    *bytes = sum;
    return RTM_OK;
}

static rtm_status_t validate_task(const rtm_config_t *cfg, uint32_t i, rtm_diag_t *diag)
{
    const rtm_task_cfg_t *t = &cfg->task[i];
    const rtm_cfg_pos_t here = {t->line, t->column};
    char a[32], b[32];
    if (!t->name[0])
        return fail(cfg, here, RTM_E_CFG_VALUE, diag, "task #%u has no name", i + 1);
    for (uint32_t j = 0; j < i; j++)
        if (strcmp(cfg->task[j].name, t->name) == 0)
            return fail(cfg, t->at.name, RTM_E_CFG_VALUE, diag,
                        "duplicate task name '%s' (first at line %d)", t->name, cfg->task[j].line);
    if (!t->kernel || rtm_kernel_index(t->kernel) < 0)
        return fail(cfg, t->at.kernel, RTM_E_CFG_VALUE, diag,
                    "task '%s' has no kernel of the catalogue", t->name);
    rtm_units_format_ns(t->period_ns, a, sizeof(a));
    if (t->period_ns <= 0)
        return fail(cfg, t->at.period, RTM_E_CFG_VALUE, diag,
                    "period must be greater than zero (got %s) in task '%s'", a, t->name);
    rtm_units_format_ns(t->deadline_ns, b, sizeof(b));
    if (t->deadline_ns <= 0)
        return fail(cfg, t->at.deadline, RTM_E_CFG_VALUE, diag,
                    "deadline must be greater than zero (got %s) in task '%s'", b, t->name);
    if (t->deadline_ns > t->period_ns)
        return fail(cfg, t->at.deadline, RTM_E_CFG_VALUE, diag,
                    "deadline (%s) must not exceed period (%s) in task '%s'", b, a, t->name);
    rtm_units_format_ns(t->offset_ns, b, sizeof(b));
    if (t->offset_ns < 0 || t->offset_ns >= t->period_ns)
        return fail(cfg, t->at.offset, RTM_E_CFG_VALUE, diag,
                    "offset (%s) must be at least 0 and less than period (%s) in task '%s'", b, a,
                    t->name);
    if ((unsigned)t->crit > RTM_CRIT_SOFT)
        return fail(cfg, here, RTM_E_CFG_VALUE, diag, "task '%s' has an invalid criticality",
                    t->name);
    if ((unsigned)t->placement > RTM_PLACE_GPU)
        return fail(cfg, t->at.placement, RTM_E_CFG_VALUE, diag,
                    "task '%s' has an invalid placement", t->name);
    if (t->placement == RTM_PLACE_GPU && cfg->board.n_devs == 0)
        return fail(cfg, t->at.placement, RTM_E_CFG_VALUE, diag,
                    "placement gpu in task '%s' needs an OpenCL device, but board '%s' lists none",
                    t->name, cfg->board.name);
    for (uint32_t k = 0; k < t->kernel->n_keys; k++) {
        const rtm_size_key_t *key = &t->kernel->keys[k];
        if (t->size[k] < key->min || t->size[k] > key->max)
            return fail(cfg, t->at.size, RTM_E_CFG_VALUE, diag,
                        "%s must be in %lld..%lld (got %lld) in the size of task '%s'", key->name,
                        (long long)key->min, (long long)key->max, (long long)t->size[k], t->name);
    }
    uint64_t bytes;
    const rtm_status_t st = rtm_config_task_bytes(cfg, i, &bytes);
    if (st != RTM_OK)
        return fail(cfg, t->at.size, RTM_E_CFG_VALUE, diag,
                    "kernel %s cannot be planned at this size in task '%s': %s", t->kernel->name,
                    t->name, rtm_strerror(st));
    return RTM_OK;
}

rtm_status_t rtm_config_validate(const rtm_config_t *cfg, rtm_diag_t *diag)
{
    if (!cfg)
        return RTM_E_ARG;
    const rtm_cfg_pos_t top = {0, 0};
    rtm_status_t st;
    if (cfg->version != 1)
        return fail(cfg, top, RTM_E_CFG_SCHEMA, diag, "unsupported schema version %d", cfg->version);
    if (cfg->n_tasks == 0)
        return fail(cfg, cfg->at.tasks, RTM_E_CFG_VALUE, diag,
                    "tasks is empty: a task set needs at least one task");
    if (cfg->n_tasks > RTM_MAX_TASKS)
        return fail(cfg, cfg->at.tasks, RTM_E_CFG_LIMIT, diag,
                    "more than RTM_MAX_TASKS (%d) tasks", RTM_MAX_TASKS);
    if (cfg->max_jobs < 1 || cfg->max_jobs > RTM_MAX_JOBS)
        return fail(cfg, cfg->at.max_jobs, RTM_E_CFG_LIMIT, diag,
                    "max_jobs must be in 1..%d (got %u) in limits", RTM_MAX_JOBS, cfg->max_jobs);
    if (cfg->max_jobs < cfg->n_tasks)
        return fail(cfg, cfg->at.max_jobs, RTM_E_CFG_LIMIT, diag,
                    "max_jobs (%u) is less than the number of tasks (%u): each task needs at "
                    "least one job in flight",
                    cfg->max_jobs, cfg->n_tasks);
    if (cfg->arena_bytes == 0)
        return fail(cfg, cfg->at.arena, RTM_E_CFG_LIMIT, diag, "arena must be greater than zero in limits");
    if (!cfg->log_path[0])
        return fail(cfg, top, RTM_E_CFG_VALUE, diag, "log path is empty");
    switch (cfg->input.kind) {
    case RTM_INPUT_SCENARIO:
        if (cfg->input.targets < 1 || cfg->input.targets > RTM_MAX_TARGETS)
            return fail(cfg, cfg->at.input, RTM_E_CFG_LIMIT, diag,
                        "targets must be in 1..%d (got %u) in input.scenario", RTM_MAX_TARGETS,
                        cfg->input.targets);
        if (!(cfg->input.radius_m > 0) || !isfinite(cfg->input.radius_m))
            return fail(cfg, cfg->at.input, RTM_E_CFG_VALUE, diag,
                        "radius must be greater than zero in input.scenario");
        break;
    case RTM_INPUT_NMEA_UDP:
    case RTM_INPUT_NMEA_TCP:
    case RTM_INPUT_NMEA_FILE:
        if (!cfg->input.address[0])
            return fail(cfg, cfg->at.input, RTM_E_CFG_VALUE, diag, "input.nmea has no address");
        if (!(cfg->input.speed >= 0) || cfg->input.speed > 100000)
            return fail(cfg, cfg->at.input, RTM_E_CFG_VALUE, diag,
                        "input.nmea.speed must be in 0..100000 (0: as fast as possible)");
        if (cfg->input.expire_ns != 0 && cfg->input.expire_ns < 1000000000LL)
            return fail(cfg, cfg->at.input, RTM_E_CFG_VALUE, diag,
                        "input.nmea.expire must be at least 1s (0: the default)");
        break;
    default:
        return fail(cfg, cfg->at.input, RTM_E_CFG_VALUE, diag, "input kind is invalid");
    }
    if (cfg->board.n_devs > RTM_MAX_DEVICES || cfg->board.threads < 1)
        return fail(cfg, cfg->at.board, RTM_E_CFG_BOARD, diag,
                    "board profile '%s' is invalid (devices or threads out of range)",
                    cfg->board.path);
    for (uint32_t i = 0; i < cfg->n_tasks; i++)
        if ((st = validate_task(cfg, i, diag)))
            return st;
    if (cfg->output.on) {
        const rtm_cfg_pos_t at = cfg->at.output_task;
        if (cfg->output.task >= cfg->n_tasks || !cfg->task[cfg->output.task].kernel ||
            strcmp(cfg->task[cfg->output.task].kernel->name, "cpa_tcpa") != 0)
            return fail(cfg, at, RTM_E_CFG_VALUE, diag,
                        "output.nmea reports CPA/TCPA: its task must run kernel cpa_tcpa");
        if (!cfg->output.address[0] || cfg->output.max_targets < 1 ||
            cfg->output.max_targets > RTM_CONFIG_OUT_TARGETS_MAX ||
            cfg->output.interval_ns < RTM_CONFIG_OUT_INTERVAL_MIN_NS ||
            !(cfg->output.range_m > 0) || !(cfg->output.alarm_cpa_m >= 0) ||
            cfg->output.alarm_tcpa_ns <= 0)
            return fail(cfg, cfg->at.output, RTM_E_CFG_VALUE, diag,
                        "output.nmea has a value out of range");
    }
    if (!(cfg->hil.mape_budget >= 0) || cfg->hil.mape_budget > 10)
        return fail(cfg, top, RTM_E_CFG_VALUE, diag,
                    "hil.mape_budget must be in (0%%, 1000%%] (0: the default)");

    uint64_t need;
    if ((st = rtm_config_kernel_bytes(cfg, &need)))
        return fail(cfg, cfg->at.tasks, st, diag, "kernel buffers cannot be planned: %s",
                    rtm_strerror(st));
    if (need > cfg->arena_bytes) {
        char n[32], a[32];
        rtm_units_human_bytes(need, n, sizeof(n));
        rtm_units_format_bytes(cfg->arena_bytes, a, sizeof(a));
        return fail(cfg, cfg->at.arena.line ? cfg->at.arena : cfg->at.tasks, RTM_E_CFG_LIMIT, diag,
                    "the tasks' kernel buffers need %s, more than limits.arena (%s): raise "
                    "limits.arena or reduce the sizes",
                    n, a);
    }
    return RTM_OK;
}
