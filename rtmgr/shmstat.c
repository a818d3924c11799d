/* shmstat.c — the status segment (see shmstat.h). Owns the mapping and the segment
 * name; the writer is the manager's main thread only. */
#include "shmstat.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define READ_TRIES 64

static rtm_status_t norm_name(const char *name, char *out, size_t len)
{
    if (!name || !*name) {
        snprintf(out, len, "/rtmgr-%ld", (long)getpid());
        return RTM_OK;
    }
    const char *base = name[0] == '/' ? name + 1 : name;
    if (!*base || strchr(base, '/') || strlen(base) + 2 > len)
        return RTM_E_ARG;
    snprintf(out, len, "/%s", base);
    return RTM_OK;
}

rtm_status_t rtm_shmstat_create(rtm_shmstat_t *s, const char *name, const char *config_path,
                                const char *policy)
{
    memset(s, 0, sizeof(*s));
    if (norm_name(name, s->name, sizeof(s->name)) != RTM_OK) {
        fprintf(stderr, "rtmgr: invalid status segment name '%s'\n", name);
        return RTM_E_ARG;
    }
    const int fd = shm_open(s->name, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        fprintf(stderr, "rtmgr: shm_open(%s): %s\n", s->name, strerror(errno));
        return RTM_E_OS;
    }
    const size_t size = sizeof(rtm_shmstat_seg_t);
    if (ftruncate(fd, (off_t)size) != 0) {
        fprintf(stderr, "rtmgr: ftruncate(%s): %s\n", s->name, strerror(errno));
        close(fd);
        shm_unlink(s->name);
        return RTM_E_OS;
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        fprintf(stderr, "rtmgr: mmap(%s): %s\n", s->name, strerror(errno));
        shm_unlink(s->name);
        return RTM_E_OS;
    }
    s->seg = p;
    s->created = true;
    rtm_shmstat_seg_t *g = s->seg;
    memset(g, 0, size);
    g->magic = RTM_SHMSTAT_MAGIC;
    g->version = RTM_SHMSTAT_VERSION;
    g->size = (uint32_t)size;
    g->pid = (int32_t)getpid();
    snprintf(g->config, sizeof(g->config), "%s", config_path ? config_path : "");
    snprintf(g->policy, sizeof(g->policy), "%s", policy ? policy : "");
    return RTM_OK;
}

void rtm_shmstat_publish(rtm_shmstat_t *s, const rtm_exec_stats_t *st, const rtm_exec_t *x,
                         const rtm_task_cfg_t *const *tasks, uint32_t state, uint64_t log_rows,
                         uint64_t log_dropped)
{
    rtm_shmstat_seg_t *g = s->seg;
    if (!g)
        return;
    const uint64_t q = atomic_load_explicit(&g->seq, memory_order_relaxed);
    atomic_store_explicit(&g->seq, q + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);

    g->n_tasks = st->n_tasks;
    g->n_devs = st->n_devs;
    g->state = state;
    g->fifo = x ? rtm_exec_is_fifo(x) : false;
    g->publishes++;
    g->uptime_ns = st->now_ns - st->start_ns;
    for (uint32_t d = 0; d < st->n_devs && d < RTM_MAX_DEVICES; d++) {
        snprintf(g->dev_name[d], sizeof(g->dev_name[d]), "%s", x ? rtm_exec_dev_name(x, d) : "");
        g->dev_jobs[d] = st->dev_jobs[d];
        g->dev_busy_ns[d] = st->dev_busy_ns[d];
    }
    g->releases = st->releases;
    g->wakeups = st->wakeups;
    g->overloads = st->overloads;
    g->skipped_releases = st->skipped_releases;
    g->jitter_p50_ns = rtm_hist_quantile(&st->jitter, 0.5);
    g->jitter_p99_ns = rtm_hist_quantile(&st->jitter, 0.99);
    g->jitter_max_ns = st->jitter.max;
    g->decide_p50_ns = rtm_hist_quantile(&st->decide, 0.5);
    g->decide_p99_ns = rtm_hist_quantile(&st->decide, 0.99);
    g->log_rows = log_rows;
    g->log_dropped = log_dropped;
    for (uint32_t i = 0; i < st->n_tasks && i < RTM_MAX_TASKS; i++) {
        const rtm_exec_task_stats_t *a = &st->task[i];
        rtm_shmstat_task_t *b = &g->task[i];
        const rtm_task_cfg_t *c = tasks ? tasks[i] : NULL;
        snprintf(b->name, sizeof(b->name), "%s", c ? c->name : "");
        snprintf(b->kernel, sizeof(b->kernel), "%s", c && c->kernel ? c->kernel->name : "");
        b->crit = c ? (uint32_t)c->crit : 0;
        b->placement = c ? (uint32_t)c->placement : 0;
        b->period_ns = c ? c->period_ns : 0;
        b->deadline_ns = c ? c->deadline_ns : 0;
        b->released = a->released;
        b->completed = a->completed;
        b->met = a->met;
        b->late = a->late;
        b->aborted = a->aborted;
        b->dropped = a->dropped;
        b->rejected = a->rejected;
        b->cancelled = a->cancelled;
        b->failed = a->failed;
        b->missed = a->missed;
        b->overruns = a->late + a->aborted;
        b->hard_alarms = a->hard_alarms;
        b->preemptions = a->preemptions;
        b->predicted_misses = a->predicted_misses;
        memcpy(b->placed, a->placed, sizeof(b->placed));
        b->worst_exec_ns = a->worst_exec_ns;
        b->last_exec_ns = a->last_exec_ns;
        b->worst_resp_ns = a->worst_resp_ns;
        b->last_resp_ns = a->last_resp_ns;
        b->p50_resp_ns = rtm_hist_quantile(&a->resp, 0.5);
        b->p99_resp_ns = rtm_hist_quantile(&a->resp, 0.99);
        b->mape = a->ape_n ? a->ape_sum / (double)a->ape_n : -1.0;
        b->result_job = a->result_job;
        b->result_dev = a->result[0] || a->result_ns ? a->result_dev : -1;
        b->result_age_ns = a->result_ns ? st->now_ns - a->result_ns : 0;
        memcpy(b->result, a->result, sizeof(b->result));
    }
    if (s->io_set) {
        g->input_kind = s->io_kind;
        g->output_on = s->io_output_on;
        g->input = s->io_in;
        g->output = s->io_out;
    }
    atomic_store_explicit(&g->seq, q + 2, memory_order_release);
}

void rtm_shmstat_set_io(rtm_shmstat_t *s, uint32_t kind, const char *address,
                        const rtm_input_stats_t *in, const rtm_nmeaout_stats_t *out)
{
    if (!s)
        return;
    s->io_set = true;
    s->io_kind = in ? kind : RTM_INPUT_SCENARIO;
    if (in)
        s->io_in = *in;
    s->io_output_on = out != NULL;
    if (out)
        s->io_out = *out;
    if (s->seg && address && !s->seg->input_address[0]) /* constant: written once */
        snprintf(s->seg->input_address, sizeof(s->seg->input_address), "%s", address);
}

void rtm_shmstat_destroy(rtm_shmstat_t *s)
{
    if (s->seg) {
        s->seg->state = RTM_SHMSTAT_STOPPED;
        munmap(s->seg, sizeof(rtm_shmstat_seg_t));
    }
    if (s->created)
        shm_unlink(s->name);
    memset(s, 0, sizeof(*s));
}

rtm_status_t rtm_shmstat_read(const char *name, rtm_shmstat_seg_t *out)
{
    char nm[RTM_SHMSTAT_NAME_MAX];
    if (!name || norm_name(name, nm, sizeof(nm)) != RTM_OK)
        return RTM_E_ARG;
    const int fd = shm_open(nm, O_RDONLY, 0);
    if (fd < 0)
        return RTM_E_NOTFOUND;
    struct stat sb;
    if (fstat(fd, &sb) != 0 || (size_t)sb.st_size != sizeof(rtm_shmstat_seg_t)) {
        close(fd);
        return RTM_E_MISMATCH;
    }
    const rtm_shmstat_seg_t *g = mmap(NULL, sizeof(*g), PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (g == MAP_FAILED)
        return RTM_E_OS;
    rtm_status_t st = RTM_E_ABORTED;
    for (int i = 0; i < READ_TRIES; i++) {
        const uint64_t a = atomic_load_explicit(&g->seq, memory_order_acquire);
        if (a & 1u) {
            usleep(100);
            continue;
        }
        memcpy(out, (const void *)g, sizeof(*out));
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&g->seq, memory_order_relaxed) == a) {
            st = RTM_OK;
            break;
        }
    }
    munmap((void *)g, sizeof(*g));
    if (st == RTM_OK && (out->magic != RTM_SHMSTAT_MAGIC || out->version != RTM_SHMSTAT_VERSION ||
                         out->size != sizeof(*out)))
        st = RTM_E_MISMATCH;
    return st;
}

rtm_status_t rtm_shmstat_find(char *name, size_t len)
{
    DIR *d = opendir("/dev/shm");
    if (!d)
        return RTM_E_NOTFOUND;
    unsigned found = 0;
    char all[512] = "";
    const struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "rtmgr-", 6) != 0)
            continue;
        char *end = NULL;
        const long pid = strtol(e->d_name + 6, &end, 10);
        if (!end || *end || pid <= 0 || (kill((pid_t)pid, 0) != 0 && errno == ESRCH))
            continue;
        if (found == 0)
            snprintf(name, len, "/%s", e->d_name);
        const size_t used = strlen(all);
        snprintf(all + used, sizeof(all) - used, " /%s", e->d_name);
        found++;
    }
    closedir(d);
    if (found > 1) {
        fprintf(stderr, "rtmgr: several managers are running:%s; pick one with --name\n", all);
        return RTM_E_STATE;
    }
    return found ? RTM_OK : RTM_E_NOTFOUND;
}

static double ms(int64_t ns) { return (double)ns / 1e6; }

static const char *crit_name(uint32_t c)
{
    return c == RTM_CRIT_HARD ? "hard" : c == RTM_CRIT_FIRM ? "firm" : "soft";
}

static const char *state_name(uint32_t s)
{
    static const char *const n[] = {"starting", "running", "stopping", "stopped"};
    return s < 4 ? n[s] : "unknown";
}

void rtm_shmstat_print(FILE *f, const rtm_shmstat_seg_t *g, const char *name)
{
    fprintf(f, "rtmgr pid %d (%s), %s, up %.1f s, config %s, policy %s, %s\n", (int)g->pid,
            name ? name : "", state_name(g->state), (double)g->uptime_ns / 1e9, g->config,
            g->policy, g->fifo ? "SCHED_FIFO" : "real-time priorities refused (see the start-up warning)");
    fprintf(f, "releases %llu, overloads %llu, skipped %llu; release jitter p50 %.1f us, p99 "
               "%.1f us, max %.1f us; decision p50 %lld ns, p99 %lld ns; log rows %llu "
               "(dropped %llu)\n",
            (unsigned long long)g->releases, (unsigned long long)g->overloads,
            (unsigned long long)g->skipped_releases, (double)g->jitter_p50_ns / 1e3,
            (double)g->jitter_p99_ns / 1e3, (double)g->jitter_max_ns / 1e3,
            (long long)g->decide_p50_ns, (long long)g->decide_p99_ns,
            (unsigned long long)g->log_rows, (unsigned long long)g->log_dropped);
    fprintf(f, "devices:");
    for (uint32_t d = 0; d < g->n_devs && d < RTM_MAX_DEVICES; d++)
        fprintf(f, " %s (%llu jobs, busy %.1f%%)", g->dev_name[d], (unsigned long long)g->dev_jobs[d],
                g->uptime_ns > 0 ? 100.0 * (double)g->dev_busy_ns[d] / (double)g->uptime_ns : 0.0);
    fprintf(f, "\n\n%-16s %-4s %7s %7s %7s %6s %6s %5s %5s", "task", "crit", "jobs", "met",
            "overrun", "miss", "alarm", "pre", "pmiss");
    for (uint32_t d = 0; d < g->n_devs && d < RTM_MAX_DEVICES; d++)
        fprintf(f, " %7.7s", g->dev_name[d]);
    fprintf(f, " %8s %8s %8s %8s %8s %6s\n", "last ms", "worst ms", "resp p50", "resp p99",
            "worst rs", "MAPE");
    for (uint32_t i = 0; i < g->n_tasks && i < RTM_MAX_TASKS; i++) {
        const rtm_shmstat_task_t *t = &g->task[i];
        fprintf(f, "%-16.16s %-4s %7llu %7llu %7llu %6llu %6llu %5llu %5llu", t->name,
                crit_name(t->crit), (unsigned long long)t->released, (unsigned long long)t->met,
                (unsigned long long)t->overruns, (unsigned long long)t->missed,
                (unsigned long long)t->hard_alarms, (unsigned long long)t->preemptions,
                (unsigned long long)t->predicted_misses);
        for (uint32_t d = 0; d < g->n_devs && d < RTM_MAX_DEVICES; d++)
            fprintf(f, " %7llu", (unsigned long long)t->placed[d]);
        char mape[16];
        if (t->mape >= 0)
            snprintf(mape, sizeof(mape), "%5.1f%%", 100.0 * t->mape);
        else
            snprintf(mape, sizeof(mape), "%6s", "-");
        fprintf(f, " %8.3f %8.3f %8.3f %8.3f %8.3f %6s\n", ms(t->last_exec_ns), ms(t->worst_exec_ns),
                ms(t->p50_resp_ns), ms(t->p99_resp_ns), ms(t->worst_resp_ns), mape);
    }
    if (g->input_kind != RTM_INPUT_SCENARIO) {
        const rtm_input_stats_t *in = &g->input;
        static const char *const kinds[] = {"scenario", "udp", "tcp", "file"};
        fprintf(f, "\nNMEA input (%s %s): %s, %llu bytes, %llu sentences (%llu AIS, %llu "
                   "RMC), %llu AIS messages, %llu targets; errors %llu (checksum %llu, "
                   "overlong %llu, truncated %llu, no checksum %llu, AIS malformed %llu, "
                   "fragments lost %llu, kernel drops %llu), garbage %llu bytes",
                g->input_kind < 4 ? kinds[g->input_kind] : "?", g->input_address,
                in->connected ? "open" : "closed", (unsigned long long)in->in.bytes,
                (unsigned long long)in->nmea.sentences, (unsigned long long)in->nmea.vdm,
                (unsigned long long)in->nmea.rmc, (unsigned long long)in->ais.messages,
                (unsigned long long)in->targets_now, (unsigned long long)rtm_input_errors(in),
                (unsigned long long)in->nmea.bad_checksum, (unsigned long long)in->nmea.overlong,
                (unsigned long long)in->nmea.truncated, (unsigned long long)in->nmea.no_checksum,
                (unsigned long long)in->ais.malformed + (unsigned long long)in->ais.bad_armor +
                    (unsigned long long)in->ais.bad_length,
                (unsigned long long)in->ais.partial_dropped,
                (unsigned long long)in->in.kernel_drops, (unsigned long long)in->nmea.garbage);
        if (in->in.connects || in->in.connect_failures)
            fprintf(f, "; connections %llu, failed %llu, lost %llu",
                    (unsigned long long)in->in.connects, (unsigned long long)in->in.connect_failures,
                    (unsigned long long)in->in.disconnects);
        if (in->in.throttled)
            fprintf(f, "; throttled %llu periods", (unsigned long long)in->in.throttled);
        fputc('\n', f);
    }
    if (g->output_on) {
        const rtm_nmeaout_stats_t *o = &g->output;
        fprintf(f, "NMEA output: %llu reports, %llu sentences (%llu TTM, %llu lost, %llu ALR), "
                   "%llu alarms raised, %llu send errors\n",
                (unsigned long long)o->reports, (unsigned long long)o->sentences,
                (unsigned long long)o->ttm, (unsigned long long)o->lost,
                (unsigned long long)o->alr, (unsigned long long)o->alarms,
                (unsigned long long)o->send_errors);
    }
    bool header = false;
    for (uint32_t i = 0; i < g->n_tasks && i < RTM_MAX_TASKS; i++) {
        const rtm_shmstat_task_t *t = &g->task[i];
        if (t->result_dev < 0 || !t->result[0])
            continue;
        if (!header)
            fprintf(f, "\nlatest results:\n");
        header = true;
        fprintf(f, "  %s (job %llu on %s, %.0f ms ago):\n", t->name,
                (unsigned long long)t->result_job,
                t->result_dev < RTM_MAX_DEVICES ? g->dev_name[t->result_dev] : "?",
                ms(t->result_age_ns));
        const char *p = t->result;
        while (*p) {
            const char *nl = strchr(p, '\n');
            const int n = nl ? (int)(nl - p) : (int)strlen(p);
            fprintf(f, "    %.*s\n", n, p);
            p += n + (nl ? 1 : 0);
        }
    }
}
