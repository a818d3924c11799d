/* stallprobe.c — the stall probe of stallprobe.h. Owns its threads and their records:
 * each thread writes only its own record until stop joins it. */
#include "stallprobe.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "os.h"

#define PERIOD_NS 1000000LL
#define GAPS 16384 /* stalls kept per CPU (256 KiB); later ones are counted, not kept, and
                    * explain no miss */

typedef struct {
    int64_t from, to;
} gap_t;

typedef struct {
    rtm_os_thread_t th;
    atomic_bool stop;
    bool ran, fifo; /* the thread started; under SCHED_FIFO */
    size_t n;
    uint64_t stalls;
    int64_t longest_ns, total_ns;
    gap_t gap[GAPS];
} cpu_probe_t;

struct rtm_stallprobe {
    int n;
    bool stopped;
    cpu_probe_t cpu[];
};

static void *probe_main(void *arg)
{
    cpu_probe_t *c = arg;
    rtm_os_precise_sleeps();
    int64_t due = rtm_os_now_ns();
    while (!atomic_load(&c->stop)) {
        due += PERIOD_NS;
        const struct timespec ts = {.tv_sec = due / 1000000000LL, .tv_nsec = due % 1000000000LL};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
        }
        const int64_t t = rtm_os_now_ns(), late = t - due;
        if (late >= RTM_STALLPROBE_MIN_NS) {
            c->stalls++;
            c->total_ns += late;
            if (c->n < GAPS)
                c->gap[c->n++] = (gap_t){due, t};
        }
        if (late > c->longest_ns)
            c->longest_ns = late;
        if (late > PERIOD_NS)
            due = t; /* no burst of catch-up wake-ups */
    }
    return NULL;
}

rtm_status_t rtm_stallprobe_start(rtm_stallprobe_t **out)
{
    const int n = rtm_os_cpu_count() < RTM_STALLPROBE_CPUS ? rtm_os_cpu_count()
                                                           : RTM_STALLPROBE_CPUS;
    rtm_stallprobe_t *p = calloc(1, sizeof(*p) + (size_t)n * sizeof(p->cpu[0]));
    *out = p;
    if (!p)
        return RTM_E_NOMEM;
    p->n = n;
    for (int c = 0; c < n; c++) {
        cpu_probe_t *q = &p->cpu[c];
        q->ran = rtm_os_thread_start(&q->th, "stall-probe", 99, c, probe_main, q) == RTM_OK &&
                 q->th.started;
        q->fifo = q->ran && q->th.fifo;
    }
    return RTM_OK;
}

void rtm_stallprobe_stop(rtm_stallprobe_t *p)
{
    if (!p || p->stopped)
        return;
    for (int c = 0; c < p->n; c++) {
        atomic_store(&p->cpu[c].stop, true);
        rtm_os_thread_join(&p->cpu[c].th);
    }
    p->stopped = true;
}

int64_t rtm_stallprobe_stalled(const rtm_stallprobe_t *p, int64_t from_ns, int64_t to_ns,
                               int *cpu)
{
    int64_t best = 0;
    if (cpu)
        *cpu = -1;
    for (int c = 0; p && c < p->n; c++) {
        int64_t sum = 0;
        for (size_t i = 0; i < p->cpu[c].n; i++) {
            const gap_t *g = &p->cpu[c].gap[i];
            const int64_t a = g->from > from_ns ? g->from : from_ns;
            const int64_t b = g->to < to_ns ? g->to : to_ns;
            sum += b > a ? b - a : 0;
        }
        if (sum > best) {
            best = sum;
            if (cpu)
                *cpu = c;
        }
    }
    return best;
}

bool rtm_stallprobe_explains(const rtm_stallprobe_t *p, int64_t from_ns, int64_t to_ns,
                             int64_t late_ns)
{
    return late_ns <= 0 || rtm_stallprobe_stalled(p, from_ns, to_ns, NULL) >= late_ns;
}

double rtm_stallprobe_share(const rtm_stallprobe_t *p, int64_t from_ns, int64_t to_ns)
{
    if (to_ns <= from_ns)
        return 0.0;
    return (double)rtm_stallprobe_stalled(p, from_ns, to_ns, NULL) / (double)(to_ns - from_ns);
}

void rtm_stallprobe_summary(const rtm_stallprobe_t *p, rtm_stallprobe_summary_t *s)
{
    *s = (rtm_stallprobe_summary_t){0};
    for (int c = 0; p && c < p->n; c++) {
        const cpu_probe_t *q = &p->cpu[c];
        s->cpus += q->ran;
        s->fifo += q->fifo;
        s->stalls += q->stalls;
        s->total_ns += q->total_ns;
        if (q->longest_ns > s->longest_ns)
            s->longest_ns = q->longest_ns;
    }
}

void rtm_stallprobe_print(const rtm_stallprobe_t *p, const char *indent)
{
    rtm_stallprobe_summary_t s;
    rtm_stallprobe_summary(p, &s);
    printf("%sstall probe on %d CPUs (%s): %llu stalls of %.0f ms or more, %.0f ms in all; "
           "the latest wake-up %.1f ms late\n",
           indent, s.cpus, s.cpus && s.fifo == s.cpus ? "SCHED_FIFO 99" : "not all real-time",
           (unsigned long long)s.stalls, (double)RTM_STALLPROBE_MIN_NS / 1e6,
           (double)s.total_ns / 1e6, (double)s.longest_ns / 1e6);
}

void rtm_stallprobe_free(rtm_stallprobe_t *p)
{
    rtm_stallprobe_stop(p);
    free(p);
}
