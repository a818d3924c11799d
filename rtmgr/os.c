/* os.c — the OS layer of os.h. Owns one piece of state: the record of refused
 * real-time requests (which request, which errno), read once by rtm_os_rt_warning(). */
#define _GNU_SOURCE 1
#include "os.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static atomic_int fifo_refused;   /* errno of the first refused SCHED_FIFO, 0 = none */
static atomic_int mlock_refused;  /* errno of a refused mlockall */
static atomic_int affinity_refused;
static atomic_int latency_refused; /* errno of a refused /dev/cpu_dma_latency request */
static int latency_fd = -1;        /* the held PM QoS request (init/shutdown only) */
static int32_t latency_us = -1;

/* Clock `id` in nanoseconds; 0 where it cannot be read. */
static int64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0)
        return 0;
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t rtm_os_now_ns(void) { return clock_ns(CLOCK_MONOTONIC); }

int64_t rtm_os_cpu_time_ns(void) { return clock_ns(CLOCK_PROCESS_CPUTIME_ID); }

static struct timespec to_ts(int64_t t_ns)
{
    struct timespec ts = {.tv_sec = (time_t)(t_ns / 1000000000LL),
                          .tv_nsec = (long)(t_ns % 1000000000LL)};
    return ts;
}

void rtm_os_sleep_until(int64_t t_ns)
{
    const struct timespec ts = to_ts(t_ns);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

double rtm_os_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void rtm_os_sleep_until_s(double t) { rtm_os_sleep_spin_until_s(t, RTM_OS_SPIN_S); }

void rtm_os_sleep_spin_until_s(double t, double spin_s)
{
    const double slack = t - rtm_os_now_s() - spin_s;
    if (slack > 0) {
        struct timespec ts = {(time_t)slack, (long)((slack - (double)(time_t)slack) * 1e9)};
        nanosleep(&ts, NULL);
    }
    while (rtm_os_now_s() < t) {
    }
}

void rtm_os_yield_until(int64_t t_ns)
{
    while (rtm_os_now_ns() < t_ns)
        sched_yield();
}

static void note(atomic_int *slot, int err)
{
    int zero = 0;
    atomic_compare_exchange_strong(slot, &zero, err ? err : EPERM);
}

rtm_status_t rtm_os_thread_start(rtm_os_thread_t *t, const char *name, int prio, int cpu,
                                 void *(*fn)(void *), void *arg)
{
    memset(t, 0, sizeof(*t));
    pthread_attr_t a;
    if (pthread_attr_init(&a) != 0)
        return RTM_E_OS_THREAD;
    int err = EPERM;
    if (prio > 0) {
        const int lo = sched_get_priority_min(SCHED_FIFO), hi = sched_get_priority_max(SCHED_FIFO);
        struct sched_param sp = {.sched_priority = prio < lo ? lo : prio > hi ? hi : prio};
        if (pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED) == 0 &&
            pthread_attr_setschedpolicy(&a, SCHED_FIFO) == 0 &&
            pthread_attr_setschedparam(&a, &sp) == 0) {
            err = pthread_create(&t->th, &a, fn, arg);
            t->fifo = err == 0;
        }
        if (err != 0)
            note(&fifo_refused, err);
    }
    pthread_attr_destroy(&a);
    if (!t->fifo) {
        err = pthread_create(&t->th, NULL, fn, arg);
        if (err != 0)
            return RTM_E_OS_THREAD;
    }
    t->started = true;
    if (name) {
        char n[16];
        snprintf(n, sizeof(n), "%s", name);
        pthread_setname_np(t->th, n);
    }
    if (cpu >= 0 && cpu < rtm_os_cpu_count()) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        const int e = pthread_setaffinity_np(t->th, sizeof(set), &set);
        if (e != 0)
            note(&affinity_refused, e);
    }
    return RTM_OK;
}

static void *nothing(void *arg) { return arg; }

bool rtm_os_fifo_permitted(int prio)
{
    rtm_os_thread_t t;
    if (rtm_os_thread_start(&t, "rtm-probe", prio, -1, nothing, NULL) != RTM_OK)
        return false;
    const bool fifo = t.fifo;
    rtm_os_thread_join(&t);
    return fifo;
}

char *rtm_os_read_file(const char *path, size_t max, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    long n = -1;
    int err = EIO;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        if (max && (unsigned long)n > max)
            err = EFBIG;
        else if ((buf = malloc((size_t)n + 1)) == NULL)
            err = ENOMEM;
        else if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        } else {
            buf[n] = '\0';
            if (len)
                *len = (size_t)n;
        }
    }
    fclose(f);
    if (!buf)
        errno = err;
    return buf;
}

bool rtm_os_self_fifo(int prio, rtm_os_sched_t *saved)
{
    struct sched_param sp;
    saved->changed = false;
    if (pthread_getschedparam(pthread_self(), &saved->policy, &sp) != 0)
        return false;
    saved->prio = sp.sched_priority;
    const struct sched_param fifo = {.sched_priority = prio};
    if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &fifo) != 0)
        return false;
    saved->changed = true;
    return true;
}

void rtm_os_self_restore(const rtm_os_sched_t *saved)
{
    if (!saved->changed)
        return;
    const struct sched_param sp = {.sched_priority = saved->prio};
    (void)pthread_setschedparam(pthread_self(), saved->policy, &sp);
}

void rtm_os_precise_sleeps(void) { (void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL); }

void rtm_os_thread_join(rtm_os_thread_t *t)
{
    if (t->started)
        pthread_join(t->th, NULL);
    t->started = false;
}

rtm_status_t rtm_os_lock_memory(void)
{
    if (mlockall(MCL_CURRENT | MCL_FUTURE) == 0)
        return RTM_OK;
    note(&mlock_refused, errno);
    return RTM_E_OS_PERM;
}

rtm_status_t rtm_os_hold_cpu_latency(int32_t us)
{
    if (us < 0)
        return RTM_E_ARG;
    if (latency_fd < 0)
        latency_fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
    if (latency_fd < 0) {
        note(&latency_refused, errno);
        return RTM_E_OS_PERM;
    }
    /* the binary form: a 32-bit value; it holds while the file stays open */
    if (write(latency_fd, &us, sizeof(us)) != (ssize_t)sizeof(us)) {
        note(&latency_refused, errno ? errno : EIO);
        rtm_os_release_cpu_latency();
        return RTM_E_OS_PERM;
    }
    latency_us = us;
    return RTM_OK;
}

bool rtm_os_hold_cpu_latency_if_free(int32_t us)
{
    return latency_fd < 0 && rtm_os_hold_cpu_latency(us) == RTM_OK;
}

void rtm_os_release_cpu_latency(void)
{
    if (latency_fd >= 0)
        close(latency_fd);
    latency_fd = -1;
    latency_us = -1;
}

int32_t rtm_os_cpu_latency_held(void) { return latency_us; }

bool rtm_os_rt_warning(FILE *f)
{
    const int ef = atomic_load(&fifo_refused), em = atomic_load(&mlock_refused),
              ea = atomic_load(&affinity_refused), el = atomic_load(&latency_refused);
    if (el)
        fprintf(f, "rtmgr: warning: CPU wake-up latency not held (/dev/cpu_dma_latency: %s): "
                   "idle cores may sleep in deep C-states, and the host then notices a GPU "
                   "job's end tens of microseconds late (run as root, or give the service "
                   "write access to /dev/cpu_dma_latency)\n",
                strerror(el));
    if (!ef && !em && !ea)
        return el != 0;
    /* A refused thread inherits the policy of the thread that started it: under a service
     * manager that starts rtmgr SCHED_FIFO (systemd's CPUSchedulingPolicy=fifo) that is
     * real time at the service's one priority, not normal scheduling. Say which. */
    char running[96];
    struct sched_param sp;
    int policy = SCHED_OTHER;
    if (pthread_getschedparam(pthread_self(), &policy, &sp) == 0 &&
        (policy == SCHED_FIFO || policy == SCHED_RR))
        snprintf(running, sizeof(running),
                 "threads keep the %s priority %d rtmgr was started with",
                 policy == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_RR", sp.sched_priority);
    else
        snprintf(running, sizeof(running), "running with normal scheduling");
    fprintf(f, "rtmgr: warning: real-time settings not permitted (%s%s%s%s%s%s); %s, "
               "timing is best effort (grant CAP_SYS_NICE and CAP_IPC_LOCK, or raise "
               "RLIMIT_RTPRIO and RLIMIT_MEMLOCK)\n",
            ef ? "SCHED_FIFO: " : "", ef ? strerror(ef) : "", em ? (ef ? ", mlockall: " : "mlockall: ") : "",
            em ? strerror(em) : "", ea ? ((ef || em) ? ", affinity: " : "affinity: ") : "",
            ea ? strerror(ea) : "", running);
    return true;
}

void rtm_os_rt_reset(void)
{
    atomic_store(&fifo_refused, 0);
    atomic_store(&mlock_refused, 0);
    atomic_store(&affinity_refused, 0);
    atomic_store(&latency_refused, 0);
}

int rtm_os_cpu_count(void)
{
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

bool rtm_os_cpu_name(char *buf, size_t len)
{
    if (!buf || len == 0)
        return false;
    buf[0] = '\0';
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return false;
    /* the first of these keys the file has, in this order of preference */
    static const char *const keys[] = {"model name", "Hardware", "CPU part"};
    char line[512], found[3][256] = {"", "", ""};
    while (fgets(line, sizeof(line), f)) {
        const char *colon = strchr(line, ':');
        for (int k = 0; colon && k < 3; k++) {
            const size_t kl = strlen(keys[k]);
            if (!found[k][0] && strncmp(line, keys[k], kl) == 0 &&
                strspn(line + kl, " \t") == (size_t)(colon - line) - kl)
                snprintf(found[k], sizeof(found[k]), "%s", colon + 1);
        }
    }
    fclose(f);
    const char *v = found[0][0] ? found[0] : found[1][0] ? found[1] : found[2];
    size_t n = 0; /* collapse white space, drop it at the ends */
    for (; *v && n + 1 < len; v++) {
        const bool space = *v == ' ' || *v == '\t' || *v == '\n' || *v == '\r';
        if (space && (n == 0 || buf[n - 1] == ' '))
            continue;
        buf[n++] = space ? ' ' : *v;
    }
    while (n > 0 && buf[n - 1] == ' ')
        n--;
    buf[n] = '\0';
    return n > 0;
}

bool rtm_os_cpu_times(rtm_os_cpu_times_t *t)
{
    memset(t, 0, sizeof(*t));
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return false;
    char line[256];
    const bool got = fgets(line, sizeof(line), f) != NULL;
    fclose(f);
    if (!got || strncmp(line, "cpu ", 4) != 0)
        return false;
    unsigned long long v[8] = {0}; /* user nice system idle iowait irq softirq steal */
    int n = 0;
    for (char *p = line + 4, *end = NULL; n < 8; p = end, n++) {
        errno = 0;
        v[n] = strtoull(p, &end, 10);
        if (end == p || errno)
            break;
    }
    const long hz = sysconf(_SC_CLK_TCK);
    if (n < 4 || hz <= 0)
        return false;
    t->busy_s = (double)(v[0] + v[1] + v[2] + v[5] + v[6]) / (double)hz;
    t->idle_s = (double)(v[3] + v[4]) / (double)hz;
    t->steal_s = (double)v[7] / (double)hz;
    return true;
}

rtm_status_t rtm_os_mutex_init(pthread_mutex_t *m)
{
    pthread_mutexattr_t a;
    if (pthread_mutexattr_init(&a) != 0)
        return RTM_E_OS;
    (void)pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
    int e = pthread_mutex_init(m, &a);
    pthread_mutexattr_destroy(&a);
    if (e != 0)
        e = pthread_mutex_init(m, NULL);
    return e == 0 ? RTM_OK : RTM_E_OS;
}

rtm_status_t rtm_os_cond_init(pthread_cond_t *c)
{
    pthread_condattr_t a;
    if (pthread_condattr_init(&a) != 0)
        return RTM_E_OS;
    int e = pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    if (e == 0)
        e = pthread_cond_init(c, &a);
    pthread_condattr_destroy(&a);
    return e == 0 ? RTM_OK : RTM_E_OS;
}

bool rtm_os_cond_wait_until(pthread_cond_t *c, pthread_mutex_t *m, int64_t t_ns)
{
    if (t_ns < 0) {
        pthread_cond_wait(c, m);
        return false;
    }
    const struct timespec ts = to_ts(t_ns);
    return pthread_cond_timedwait(c, m, &ts) == ETIMEDOUT;
}

extern char **environ;
static char *initial_env[RTM_OS_ENV_MAX + 1];
/* Copies, not the live strings: a library may edit those in place (the ICD loader cuts
 * OCL_ICD_FILENAMES at its colons where getenv returned it). */
static char initial_text[RTM_OS_ENV_BYTES];
static bool initial_kept;

void rtm_os_keep_environ(void)
{
    size_t n = 0, used = 0;
    initial_kept = false; /* until the whole copy is made */
    if (!environ)
        return;
    for (; environ[n]; n++) {
        const size_t len = strlen(environ[n]) + 1;
        if (n >= RTM_OS_ENV_MAX || len > sizeof(initial_text) - used)
            return; /* too big to keep: rtm_os_initial_environ gives environ */
        memcpy(initial_text + used, environ[n], len);
        initial_env[n] = initial_text + used;
        used += len;
    }
    initial_env[n] = NULL;
    initial_kept = true;
}

char **rtm_os_initial_environ(void) { return initial_kept ? initial_env : environ; }

static double tv_s(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6; }

double rtm_os_self_cpu_s(void)
{
    struct rusage self, kids;
    if (getrusage(RUSAGE_SELF, &self) != 0 || getrusage(RUSAGE_CHILDREN, &kids) != 0)
        return 0.0;
    return tv_s(self.ru_utime) + tv_s(self.ru_stime) + tv_s(kids.ru_utime) + tv_s(kids.ru_stime);
}

bool rtm_os_sched_idle(void)
{
    const struct sched_param zero = {.sched_priority = 0};
    return sched_setscheduler(0, SCHED_IDLE, &zero) == 0;
}

double rtm_os_proc_cpu_s(pid_t pid)
{
    char path[64], line[1024];
    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0.0;
    const bool got = fgets(line, sizeof(line), f) != NULL;
    fclose(f);
    /* pid (comm) state ppid ... utime stime: fields 14 and 15; comm may hold spaces and
     * parentheses, so count from its last ')' */
    char *p = got ? strrchr(line, ')') : NULL;
    const long hz = sysconf(_SC_CLK_TCK);
    if (!p || hz <= 0)
        return 0.0;
    /* after ')': state is token 0, utime token 11, stime token 12 */
    char *save = NULL;
    unsigned long long ticks = 0;
    int got_n = 0;
    char *tok = strtok_r(p + 1, " \n", &save);
    for (int i = 0; tok && i <= 12; i++, tok = strtok_r(NULL, " \n", &save)) {
        if (i < 11)
            continue;
        char *end = NULL;
        errno = 0;
        const unsigned long long v = strtoull(tok, &end, 10);
        if (errno || end == tok)
            return 0.0;
        ticks += v;
        got_n++;
    }
    return got_n == 2 ? (double)ticks / (double)hz : 0.0;
}

uint64_t rtm_os_ignored_signals(void)
{
    uint64_t ign = 0;
    for (int sig = 1; sig < 64 && sig <= SIGRTMAX; sig++) {
        struct sigaction sa;
        if (sigaction(sig, NULL, &sa) == 0 && !(sa.sa_flags & SA_SIGINFO) &&
            sa.sa_handler == SIG_IGN)
            ign |= 1ull << sig;
    }
    return ign;
}

static size_t lim_word(char *buf, size_t len, const char *name, int res, bool bytes)
{
    struct rlimit r;
    if (getrlimit(res, &r) != 0)
        return (size_t)snprintf(buf, len, "%s ?, ", name);
    if (r.rlim_cur == RLIM_INFINITY)
        return (size_t)snprintf(buf, len, "%s -, ", name);
    if (bytes)
        return (size_t)snprintf(buf, len, "%s %lluKiB, ", name,
                                (unsigned long long)(r.rlim_cur / 1024));
    return (size_t)snprintf(buf, len, "%s %llu, ", name, (unsigned long long)r.rlim_cur);
}

void rtm_os_describe_process(char *buf, size_t len)
{
    if (!buf || len == 0)
        return;
    buf[0] = '\0';
    static const struct {
        const char *name;
        int res;
        bool bytes;
    } lims[] = {{"stack", RLIMIT_STACK, true},     {"as", RLIMIT_AS, true},
                {"data", RLIMIT_DATA, true},       {"nofile", RLIMIT_NOFILE, false},
                {"memlock", RLIMIT_MEMLOCK, true}, {"nproc", RLIMIT_NPROC, false}};
    size_t used = 0;
    for (size_t i = 0; i < sizeof(lims) / sizeof(lims[0]) && used < len; i++)
        used += lim_word(buf + used, len - used, lims[i].name, lims[i].res, lims[i].bytes);
    cpu_set_t set;
    CPU_ZERO(&set);
    const int cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : -1;
    errno = 0;
    int nice_v = getpriority(PRIO_PROCESS, 0);
    if (nice_v == -1 && errno != 0)
        nice_v = 99; /* unknown */
    const unsigned pers = (unsigned)personality(0xffffffffu);
    const int policy = sched_getscheduler(0);
    if (used < len)
        snprintf(buf + used, len - used,
                 "personality 0x%x, policy %d, nice %d, cpus %d, ignored signals 0x%llx", pers,
                 policy, nice_v, cpus, (unsigned long long)rtm_os_ignored_signals());
}

int rtm_os_close_inherited(int from)
{
    DIR *dir = opendir("/proc/self/fd");
    if (!dir)
        return -1;
    int fds[1024], n = 0, closed = 0;
    const int self = dirfd(dir);
    for (struct dirent *e = readdir(dir); e && n < (int)(sizeof(fds) / sizeof(fds[0]));
         e = readdir(dir)) {
        char *end = NULL;
        const long fd = strtol(e->d_name, &end, 10);
        if (end != e->d_name && *end == '\0' && fd >= from && fd != self && fd <= 0x7fffffff)
            fds[n++] = (int)fd; /* closed after the listing, which they would disturb */
    }
    closedir(dir);
    for (int i = 0; i < n; i++)
        closed += close(fds[i]) == 0;
    return closed;
}
