/* builder.c — calibration's build workers (see builder.h).
 *
 * Owns: the workers' processes and their two pipes, the record format, and the worker's
 * read-build-acknowledge loop. What a build is (the device, the cache, a CPU device's
 * warm-up run) is the caller's: calibbuild.c. */
#include "builder.h"

#include "os.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "limits.h"

/* The descriptor a worker acknowledges on (--ack-fd). */
#define ACK_FD 3

rtm_kexec_opts_t rtm_build_job_opts(const rtm_build_job_t *j, const char *cache)
{
    return (rtm_kexec_opts_t){.variant = j->variant,
                              .transport = j->transport,
                              .transport_set = true,
                              .cache_dir = cache,
                              .poll_every = j->poll_every,
                              .no_poll = j->no_poll,
                              .groups = j->groups,
                              .fetch_store = j->fetch_store,
                              .chunk = j->chunk};
}

void rtm_build_job_set_opts(rtm_build_job_t *j, const rtm_kexec_opts_t *o)
{
    j->variant = o->variant;
    j->transport = o->transport;
    j->poll_every = o->poll_every;
    j->no_poll = o->no_poll;
    j->groups = o->groups;
    j->fetch_store = o->fetch_store;
    j->chunk = o->chunk;
}

bool rtm_build_record(const rtm_build_job_t *j, char rec[RTM_BUILD_RECORD])
{
    memset(rec, 0, RTM_BUILD_RECORD);
    const rtm_kinst_t *k = &j->k;
    int n = snprintf(rec, RTM_BUILD_RECORD, "%s %u %u %d %d %u %d %u %d %u", k->kernel->name,
                     k->tune.wg, k->tune.vec, (int)j->variant, (int)j->transport, j->poll_every,
                     j->no_poll ? 1 : 0, j->groups, j->fetch_store ? 1 : 0, j->chunk);
    for (uint32_t i = 0; i < k->kernel->n_keys && n > 0 && n < RTM_BUILD_RECORD; i++)
        n += snprintf(rec + n, RTM_BUILD_RECORD - (size_t)n, " %lld", (long long)k->size[i]);
    if (n <= 0 || n + 1 >= RTM_BUILD_RECORD)
        return false;
    rec[n] = '\n';
    return true;
}

/* The next whitespace-separated field of a record as a number, within [lo, hi]. */
static bool field(char **save, long long lo, long long hi, long long *out)
{
    const char *v = strtok_r(NULL, " \n", save);
    if (!v)
        return false;
    char *end = NULL;
    errno = 0;
    *out = strtoll(v, &end, 10);
    return errno == 0 && end != v && *end == '\0' && *out >= lo && *out <= hi;
}

bool rtm_build_parse(char *rec, rtm_build_job_t *j)
{
    memset(j, 0, sizeof(*j));
    char *save = NULL;
    const char *name = strtok_r(rec, " \n", &save);
    const rtm_kernel_t *kern = name ? rtm_kernel_find(name) : NULL;
    if (!kern)
        return false;
    rtm_kinst_init(&j->k, kern);
    long long wg, vec, variant, transport, poll, no_poll, groups, fetch, chunk;
    if (!field(&save, 0, UINT32_MAX, &wg) || !field(&save, 0, UINT32_MAX, &vec) ||
        !field(&save, 0, 64, &variant) || !field(&save, 0, 64, &transport) ||
        !field(&save, 0, UINT32_MAX, &poll) || !field(&save, 0, 1, &no_poll) ||
        !field(&save, 0, UINT32_MAX, &groups) || !field(&save, 0, 1, &fetch) ||
        !field(&save, 0, UINT32_MAX, &chunk))
        return false;
    j->chunk = (uint32_t)chunk;
    j->groups = (uint32_t)groups;
    j->fetch_store = fetch != 0;
    j->k.tune.wg = (uint32_t)wg;
    j->k.tune.vec = (uint32_t)vec;
    j->variant = (rtm_kexec_variant_t)variant;
    j->transport = (rtm_abort_transport_t)transport;
    j->poll_every = (uint32_t)poll;
    j->no_poll = no_poll != 0;
    for (uint32_t i = 0; i < kern->n_keys; i++) {
        long long v;
        if (!field(&save, INT64_MIN, INT64_MAX, &v))
            return false;
        j->k.size[i] = (int64_t)v;
    }
    return rtm_kinst_plan(&j->k) == RTM_OK;
}

void rtm_builder_init(rtm_builder_t *b)
{
    memset(b, 0, sizeof(*b));
    b->req = b->urg = b->ack = -1;
}

bool rtm_builder_up(const rtm_builder_t *b) { return b->n > 0 && b->req >= 0 && !b->broken; }

/* Reaps worker w (blocking or not): 0 while it runs; else it is counted, removed, and 1
 * when it ended without a job in hand (at the requests' end, or before it took one:
 * RTM_BUILD_EXIT_NO_DEVICE), 2 when it may have held one. */
static int reap(rtm_builder_t *b, uint32_t w, bool block)
{
    int status = 0;
    pid_t r;
    while ((r = waitpid(b->pid[w], &status, block ? 0 : WNOHANG)) < 0 && errno == EINTR) {
    }
    if (r == 0)
        return 0;
    const bool clean = r > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    const bool idle = r > 0 && WIFEXITED(status) && WEXITSTATUS(status) == RTM_BUILD_EXIT_NO_DEVICE;
    b->failed += !clean;
    b->pid[w] = b->pid[--b->n];
    return clean || idle ? 1 : 2;
}

uint32_t rtm_builder_start(rtm_builder_t *b, const char *path, int device, const char *cache,
                           uint32_t np, bool idle)
{
    rtm_builder_init(b);
    b->broken = true;
    char exe[RTM_PATH_MAX], dev[16], ackfd[16];
    if (path) {
        if (snprintf(exe, sizeof(exe), "%s", path) >= (int)sizeof(exe))
            return 0;
    } else {
        const ssize_t el = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        if (el <= 0)
            return 0;
        exe[el] = '\0';
    }
    if (!cache || device < 0)
        return 0;
    snprintf(dev, sizeof(dev), "%d", device);
    snprintf(ackfd, sizeof(ackfd), "%d", ACK_FD);
    /* with `idle` the worker lowers itself to SCHED_IDLE (posix_spawn takes no such
     * policy) */
    char *const argv[] = {exe,          (char *)"calibrate", (char *)"--prebuild-worker",
                          dev,          (char *)"--cache",   (char *)cache,
                          (char *)"--ack-fd", ackfd,         idle ? (char *)"--idle" : NULL,
                          NULL};
    int req[2], urg[2], ack[2];
    if (pipe(req) != 0)
        return 0;
    if (pipe(urg) != 0) {
        close(req[0]);
        close(req[1]);
        return 0;
    }
    if (pipe(ack) != 0) {
        for (int i = 0; i < 2; i++) {
            close(req[i]);
            close(urg[i]);
        }
        return 0;
    }
    /* no end leaks into a worker but as its stdin, ACK_FD and ACK_FD + 1 (a request write
     * end held there would keep the workers waiting for the end) */
    for (int i = 0; i < 2; i++) {
        fcntl(req[i], F_SETFD, FD_CLOEXEC);
        fcntl(urg[i], F_SETFD, FD_CLOEXEC);
        fcntl(ack[i], F_SETFD, FD_CLOEXEC);
    }
#ifdef F_SETPIPE_SZ
    (void)fcntl(req[1], F_SETPIPE_SZ, RTM_BUILDER_QUEUE * RTM_BUILD_RECORD); /* best effort */
#endif
    b->start_s = rtm_os_now_s();
    while (b->n < np && b->n < RTM_BUILDER_MAX) {
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, req[0], 0); /* dup2 clears CLOEXEC */
        posix_spawn_file_actions_adddup2(&fa, ack[1], ACK_FD);
        posix_spawn_file_actions_adddup2(&fa, urg[0], ACK_FD + 1);
        /* a worker starts as from a shell: every signal at its default action (a driver
         * may ignore some, and an ignored signal stays ignored across exec), none
         * blocked, and a copy of the environment rtmgr started with, not the one its
         * drivers left: the ICD loader had cut
         * OCL_ICD_FILENAMES="libpocl.so.2:libnvidia-opencl.so.1" to its first name in
         * place, and the H100 machine's workers saw PoCL alone (rtm_os_keep_environ) */
        posix_spawnattr_t sa;
        posix_spawnattr_init(&sa);
        sigset_t none, all;
        sigemptyset(&none);
        sigfillset(&all);
        posix_spawnattr_setsigmask(&sa, &none);
        posix_spawnattr_setsigdefault(&sa, &all);
        posix_spawnattr_setflags(&sa, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
        pid_t pid;
        const int rc = posix_spawn(&pid, exe, &fa, &sa, argv, rtm_os_initial_environ());
        posix_spawnattr_destroy(&sa);
        posix_spawn_file_actions_destroy(&fa);
        if (rc != 0)
            break;
        b->pid[b->n++] = pid;
    }
    close(req[0]);
    close(urg[0]);
    close(ack[1]);
    b->req = req[1];
    b->urg = urg[1];
    b->ack = ack[0];
    b->broken = b->n == 0;
    if (b->broken)
        rtm_builder_stop(b);
    return b->n;
}

/* Writes all of buf; false on an error (EPIPE: every worker gone; SIGPIPE is blocked in
 * this thread by the caller). */
static bool write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        const ssize_t w = write(fd, buf, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        buf += w;
        len -= (size_t)w;
    }
    return true;
}

/* Milliseconds between checks on the workers while a batch is out. */
#define CHECK_MS 200

/* Queues jobs[0..n) on request pipe fd; how many. */
static uint32_t send_to(rtm_builder_t *b, int fd, const rtm_build_job_t *const *jobs, uint32_t n)
{
    if (!rtm_builder_up(b) || n == 0 || fd < 0)
        return 0;
    /* a write with no reader left fails with EPIPE here rather than killing calibration */
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    uint32_t sent = 0;
    bool ok = true;
    for (uint32_t i = 0; i < n && ok; i++) {
        char rec[RTM_BUILD_RECORD];
        if (!rtm_build_record(jobs[i], rec))
            continue;
        ok = write_all(fd, rec, sizeof(rec));
        sent += ok;
    }
    const struct timespec zero = {0, 0};
    while (sigtimedwait(&pipe_set, NULL, &zero) > 0) { /* a SIGPIPE raised meanwhile */
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    b->pending += sent;
    if (!ok)
        b->broken = true; /* rtm_builder_wait stops the workers */
    return sent;
}

uint32_t rtm_builder_send(rtm_builder_t *b, const rtm_build_job_t *const *jobs, uint32_t n)
{
    return send_to(b, b->req, jobs, n);
}

uint32_t rtm_builder_send_urgent(rtm_builder_t *b, const rtm_build_job_t *const *jobs,
                                 uint32_t n)
{
    const uint32_t sent = send_to(b, b->urg, jobs, n);
    b->urgent_pending += sent;
    return sent;
}

/* One wait of up to `ms` for acknowledgements: those arrived are read (b->pending less
 * them, *built counting the builds), else the workers are checked. False when the jobs
 * out can no longer all be acknowledged: every worker's end closed, or a worker ended
 * with a job unacknowledged (one that never took a job, no device, is only counted). */
static bool take_acks(rtm_builder_t *b, int ms, uint32_t *built)
{
    struct pollfd p = {b->ack, POLLIN, 0};
    const int pr = poll(&p, 1, ms);
    if (pr < 0)
        return errno == EINTR;
    if (pr > 0) {
        char a[256];
        const size_t want = b->pending < sizeof(a) ? b->pending : sizeof(a);
        const ssize_t r = read(b->ack, a, want);
        if (r < 0)
            return errno == EINTR;
        if (r == 0)
            return false;
        for (ssize_t i = 0; i < r; i++) {
            const bool urgent = a[i] == RTM_BUILD_ACK_URGENT_OK || a[i] == RTM_BUILD_ACK_URGENT_FAIL;
            *built += a[i] == RTM_BUILD_ACK_OK || a[i] == RTM_BUILD_ACK_URGENT_OK;
            b->urgent_pending -= urgent && b->urgent_pending > 0;
        }
        if (b->first_ack_s == 0.0)
            b->first_ack_s = rtm_os_now_s() - b->start_s;
        b->pending -= (uint32_t)r;
        return true;
    }
    for (uint32_t w = 0; w < b->n;) {
        const int r = reap(b, w, false);
        if (r == 2)
            return false;
        w += r == 0; /* a reaped one's slot holds the last worker now */
    }
    return true;
}

/* The jobs out can no longer complete: the workers stopped, b broken (the caller builds
 * what the cache lacks). */
static void give_up(rtm_builder_t *b)
{
    for (uint32_t w = 0; w < b->n; w++)
        kill(b->pid[w], SIGTERM);
    rtm_builder_stop(b);
    b->broken = true;
    b->pending = 0;
    b->urgent_pending = 0;
}

uint32_t rtm_builder_wait(rtm_builder_t *b)
{
    if (b->pending == 0 && !b->broken) /* nothing out (a broken one is stopped below) */
        return 0;
    bool ok = !b->broken && b->req >= 0;
    uint32_t built = 0;
    while (ok && b->pending > 0)
        ok = take_acks(b, CHECK_MS, &built);
    if (!ok)
        give_up(b);
    return built;
}

uint32_t rtm_builder_wait_urgent(rtm_builder_t *b)
{
    bool ok = !b->broken && b->req >= 0;
    uint32_t built = 0;
    while (ok && b->urgent_pending > 0 && b->pending > 0)
        ok = take_acks(b, CHECK_MS, &built);
    if (!ok)
        give_up(b);
    return built;
}

uint32_t rtm_builder_poll(rtm_builder_t *b, int ms)
{
    if (b->pending == 0 || b->broken || b->req < 0)
        return 0;
    uint32_t built = 0;
    if (!take_acks(b, ms, &built))
        give_up(b);
    return b->pending;
}

uint32_t rtm_builder_batch(rtm_builder_t *b, const rtm_build_job_t *const *jobs, uint32_t n)
{
    (void)rtm_builder_send_urgent(b, jobs, n);
    return rtm_builder_wait_urgent(b);
}

double rtm_builder_cpu_s(const rtm_builder_t *b)
{
    double s = 0.0;
    for (uint32_t w = 0; w < b->n; w++)
        s += rtm_os_proc_cpu_s(b->pid[w]);
    return s;
}

void rtm_builder_stop(rtm_builder_t *b)
{
    if (b->req >= 0)
        close(b->req);
    if (b->urg >= 0)
        close(b->urg);
    b->req = b->urg = -1;
    while (b->n > 0)
        (void)reap(b, b->n - 1, true);
    if (b->ack >= 0)
        close(b->ack);
    b->ack = -1;
}

/* The next record for a worker into rec (RTM_BUILD_RECORD bytes): urgent_fd's first
 * when both pipes have some (-1: none, or closed: *urgent_fd becomes -1 at its end);
 * false at in_fd's end. With an urgent pipe both read ends are non-blocking (shared by
 * the workers: a record that poll announced may be taken by another first). */
static bool next_record(int in_fd, int *urgent_fd, char *rec, bool *urgent)
{
    for (;;) {
        struct pollfd p[2] = {{*urgent_fd, POLLIN, 0}, {in_fd, POLLIN, 0}};
        if (*urgent_fd >= 0 && poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        for (int i = *urgent_fd >= 0 ? 0 : 1; i < 2; i++) {
            if (*urgent_fd >= 0 && !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            const ssize_t got = read(p[i].fd, rec, RTM_BUILD_RECORD);
            if (got == RTM_BUILD_RECORD) {
                *urgent = i == 0;
                return true;
            }
            if (got < 0 && (errno == EAGAIN || errno == EINTR))
                continue; /* another worker took it */
            if (i == 1)
                return false; /* the requests' end (a short read too) */
            *urgent_fd = -1; /* the urgent pipe's end: the first alone from here */
            (void)fcntl(in_fd, F_SETFL, fcntl(in_fd, F_GETFL) & ~O_NONBLOCK);
        }
    }
}

void rtm_builder_serve(int in_fd, int urgent_fd, int ack_fd,
                       bool (*build)(void *ctx, rtm_build_job_t *j), void *ctx)
{
    char rec[RTM_BUILD_RECORD + 1];
    if (urgent_fd >= 0 && (fcntl(urgent_fd, F_SETFL, O_NONBLOCK) != 0 ||
                           fcntl(in_fd, F_SETFL, fcntl(in_fd, F_GETFL) | O_NONBLOCK) != 0))
        urgent_fd = -1;
    bool urgent = false;
    while (next_record(in_fd, &urgent_fd, rec, &urgent)) {
        rec[RTM_BUILD_RECORD] = '\0';
        rtm_build_job_t j;
        const bool ok = rtm_build_parse(rec, &j) && build(ctx, &j);
        const char a = urgent ? (ok ? RTM_BUILD_ACK_URGENT_OK : RTM_BUILD_ACK_URGENT_FAIL)
                              : (ok ? RTM_BUILD_ACK_OK : RTM_BUILD_ACK_FAIL);
        if (ack_fd >= 0)
            while (write(ack_fd, &a, 1) < 0 && errno == EINTR) {
            }
    }
}
