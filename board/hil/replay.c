/* replay.c — rtmgr-replay, the hardware-in-the-loop harness (docs/hil.md).
 *
 *   rtmgr-replay LOG -c CONFIG [--speed X] [--duration S] [--start S] [--corrupt]
 *                [--seed N] [--rate F] [--rtmgr PATH] [--out DIR] [--startup S]
 *                [--free-ports] [--excuse-stalls] [--freeze MS]
 *
 * Replays a recorded NMEA 0183 log over UDP into a running `rtmgr run -c CONFIG` (the
 * task set's input must be `nmea: {udp: host:port}`), at the pace of the log's RMC
 * times (--speed X times faster), captures rtmgr's TTM/OSD/ALR output on the task set's
 * `output: nmea: {udp: ...}` address (with --free-ports: on free loopback ports instead,
 * handed to rtmgr with --nmea-in/--nmea-out, so that runs side by side do not collide),
 * stops rtmgr with SIGTERM, and checks:
 *   1. deadlines: zero misses of hard tasks in the model-error log (--log OUT/model.csv);
 *   2. CPA/TCPA: every TTM equals the CPU recomputation from its own fields and the OSD
 *      before it (replay.h), and every alarm condition raised an ALR, no other did;
 *   3. model: each device's MAPE over the log is within the task set's hil.mape_budget;
 *   4. input: the error counters rtmgr reports at exit equal an offline decode of the
 *      bytes sent (a clean slice: zero); with --corrupt a damaged copy is sent instead
 *      and the damage must be counted, kind by kind.
 * Keeps in OUT (--out, else a new /tmp/rtmgr-replay-*): sent.nmea (the bytes sent),
 * output.nmea (rtmgr's sentences), rtmgr.log (its stderr and stdout), model.csv (its
 * model-error log). Prints a report; exit 0 when every check passes, 1 on a failed check, 2 on bad
 * arguments or configuration, 3 when rtmgr could not be run.
 *
 * A tool, not a real-time program: it allocates, forks and reads files freely. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rtmgr/config.h"
#include "rtmgr/input.h"
#include "rtmgr/nmea.h"
#include "rtmgr/os.h"
#include "rtmgr/replay.h"
#include "rtmgr/report.h"
#include "rtmgr/stallprobe.h"

#define NS 1000000000LL

enum { EXIT_PASS = 0, EXIT_FAILED = 1, EXIT_ARGS = 2, EXIT_RUN = 3 };

typedef struct {
    const char *log, *config, *rtmgr, *out;
    double speed, duration, start, rate, startup, freeze;
    uint64_t seed;
    bool corrupt, free_ports, excuse_stalls;
} opts_t;

static rtm_config_t cfg;
static rtm_replay_log_t slice, sent;
static rtm_replay_check_t chk;
static rtm_nmea_t out_lx;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

/* How busy the machine was while rtmgr ran: the CPU time of rtmgr, of this harness and
 * of everything else, and what the hypervisor stole. Deadline misses on a machine that
 * other work or a hypervisor kept busy say little about rtmgr: the report says so. */
typedef struct {
    bool ok;
    int64_t t_ns;
    rtm_os_cpu_times_t cpu;
    double self_s, child_s; /* getrusage: this process, its waited-for children */
} host_t;

static double rusage_s(int who)
{
    struct rusage ru;
    if (getrusage(who, &ru) != 0)
        return 0.0;
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static void host_begin(host_t *h)
{
    h->ok = rtm_os_cpu_times(&h->cpu);
    h->t_ns = now_ns();
    h->self_s = rusage_s(RUSAGE_SELF);
    h->child_s = rusage_s(RUSAGE_CHILDREN);
}

/* From host_begin to now (after rtmgr was waited for). */
static void host_end(host_t *h)
{
    rtm_os_cpu_times_t c;
    h->ok = rtm_os_cpu_times(&c) && h->ok;
    h->t_ns = now_ns() - h->t_ns;
    h->self_s = rusage_s(RUSAGE_SELF) - h->self_s;
    h->child_s = rusage_s(RUSAGE_CHILDREN) - h->child_s;
    h->cpu.busy_s = c.busy_s - h->cpu.busy_s;
    h->cpu.idle_s = c.idle_s - h->cpu.idle_s;
    h->cpu.steal_s = c.steal_s - h->cpu.steal_s;
}

/* One line under the deadlines; `missed`: say whether the machine was contended. */
static void host_print(const host_t *h, bool missed)
{
    const double wall = (double)h->t_ns / 1e9;
    const double all = h->cpu.busy_s + h->cpu.idle_s + h->cpu.steal_s;
    if (!h->ok || wall <= 0.0 || all <= 0.0)
        return;
    const double other = fmax(0.0, h->cpu.busy_s - h->child_s - h->self_s) / wall;
    const double steal_pct = 100.0 * h->cpu.steal_s / all;
    printf("             host: %d CPUs over %.1f s; rtmgr used %.2f CPUs, other processes %.2f, "
           "the hypervisor stole %.1f %%\n",
           rtm_os_cpu_count(), wall, h->child_s / wall, other, steal_pct);
    if (missed && (other > 0.25 || steal_pct > 5.0))
        printf("             the machine was contended while rtmgr ran: misses here may be the "
               "machine's, not rtmgr's\n");
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rtmgr-replay LOG -c CONFIG [--speed X] [--duration S] [--start S] [--corrupt]\n"
            "                    [--seed N] [--rate F] [--rtmgr PATH] [--out DIR] [--startup S]\n"
            "                    [--free-ports] [--excuse-stalls] [--freeze MS]\n"
            "  LOG         recorded NMEA 0183 log (RMC times pace the replay)\n"
            "  -c CONFIG   task set: input nmea udp, output nmea udp, hil.mape_budget\n"
            "  --speed X   replay X times faster than recorded (default 1)\n"
            "  --duration S  replay S seconds of wall time (default: the whole log)\n"
            "  --start S   begin S seconds of log time after the first RMC (default 0)\n"
            "  --corrupt   send a damaged copy (--rate F of the lines, default 0.05; --seed N)\n"
            "  --rtmgr PATH  the rtmgr binary (default: beside this program, then $RTMGR, PATH)\n"
            "  --out DIR   keep rtmgr's log, the model-error log and the sent slice there\n"
            "  --startup S   seconds rtmgr may take to open its input (default 120)\n"
            "  --free-ports  input and output on free loopback UDP ports, not the task set's\n"
            "  --excuse-stalls  a hard miss does not fail the run when the machine itself\n"
            "              stalled longer than the job was late (the stall probe; a shared VM)\n"
            "  --freeze MS   fault injection: stop rtmgr (SIGSTOP) for MS ms halfway through;\n"
            "              its hard jobs must then miss, and no stall of the machine excuses them\n"
            "exit: 0 pass, 1 a check failed, 2 bad arguments or configuration, 3 rtmgr failed\n");
}

static bool num_arg(const char *s, double *v)
{
    char *e;
    errno = 0;
    *v = strtod(s, &e);
    return s[0] && !*e && !errno && isfinite(*v);
}

static int parse_args(int argc, char **argv, opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->speed = 1;
    o->rate = 0.05;
    o->seed = 20110726;
    o->startup = 120;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const bool more = i + 1 < argc;
        double v;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            exit(EXIT_PASS);
        } else if ((strcmp(a, "-c") == 0 || strcmp(a, "--config") == 0) && more) {
            o->config = argv[++i];
        } else if (strcmp(a, "--speed") == 0 && more && num_arg(argv[i + 1], &v) && v > 0) {
            o->speed = v;
            i++;
        } else if (strcmp(a, "--duration") == 0 && more && num_arg(argv[i + 1], &v) && v > 0) {
            o->duration = v;
            i++;
        } else if (strcmp(a, "--start") == 0 && more && num_arg(argv[i + 1], &v) && v >= 0) {
            o->start = v;
            i++;
        } else if (strcmp(a, "--rate") == 0 && more && num_arg(argv[i + 1], &v) && v > 0 && v <= 1) {
            o->rate = v;
            i++;
        } else if (strcmp(a, "--startup") == 0 && more && num_arg(argv[i + 1], &v) && v > 0) {
            o->startup = v;
            i++;
        } else if (strcmp(a, "--seed") == 0 && more && num_arg(argv[i + 1], &v) && v >= 0) {
            o->seed = (uint64_t)v;
            i++;
        } else if (strcmp(a, "--corrupt") == 0) {
            o->corrupt = true;
        } else if (strcmp(a, "--free-ports") == 0) {
            o->free_ports = true;
        } else if (strcmp(a, "--freeze") == 0 && more && num_arg(argv[i + 1], &v) && v > 0) {
            o->freeze = v;
            i++;
        } else if (strcmp(a, "--excuse-stalls") == 0) {
            o->excuse_stalls = true;
        } else if (strcmp(a, "--rtmgr") == 0 && more) {
            o->rtmgr = argv[++i];
        } else if (strcmp(a, "--out") == 0 && more) {
            o->out = argv[++i];
        } else if (a[0] != '-' && !o->log) {
            o->log = a;
        } else {
            fprintf(stderr, "rtmgr-replay: bad argument '%s'\n", a);
            usage(stderr);
            return EXIT_ARGS;
        }
    }
    if (!o->log || !o->config) {
        usage(stderr);
        return EXIT_ARGS;
    }
    return EXIT_PASS;
}

/* The rtmgr binary: --rtmgr, $RTMGR, beside this program, or "rtmgr" (PATH). */
static const char *find_rtmgr(const char *given, char *buf, size_t len)
{
    if (given)
        return given;
    const char *env = getenv("RTMGR");
    if (env && *env)
        return env;
    const ssize_t n = readlink("/proc/self/exe", buf, len - 8);
    if (n > 0) {
        buf[n] = '\0';
        char *slash = strrchr(buf, '/');
        if (slash) {
            strcpy(slash + 1, "rtmgr");
            if (access(buf, X_OK) == 0)
                return buf;
        }
    }
    return "rtmgr";
}

static int udp_socket(const char *addr, bool bind_it, struct sockaddr_storage *sa, socklen_t *sl)
{
    char host[256], port[16];
    const char *colon = strrchr(addr, ':');
    if (!colon || colon == addr || (size_t)(colon - addr) >= sizeof(host) ||
        strlen(colon + 1) >= sizeof(port))
        return -1;
    memcpy(host, addr, (size_t)(colon - addr));
    host[colon - addr] = '\0';
    snprintf(port, sizeof(port), "%s", colon + 1);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM,
                             .ai_flags = AI_NUMERICSERV}, *res;
    if (getaddrinfo(host, port, &hints, &res) != 0)
        return -1;
    int fd = socket(res->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    memcpy(sa, res->ai_addr, res->ai_addrlen);
    *sl = res->ai_addrlen;
    freeaddrinfo(res);
    if (fd < 0)
        return -1;
    const int big = 4 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
    if (bind_it && bind(fd, (struct sockaddr *)sa, *sl) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* A free UDP port on 127.0.0.1 (bound, read back, released), or -1. */
static int free_udp_port(void)
{
    const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t l = sizeof(a);
    int port = -1;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &l) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

/* True when some socket is bound to UDP port `port` (/proc/net/udp, udp6). */
static bool udp_port_bound(int port)
{
    const char *files[] = {"/proc/net/udp", "/proc/net/udp6"};
    for (int f = 0; f < 2; f++) {
        FILE *fp = fopen(files[f], "r");
        if (!fp)
            continue;
        char line[512];
        bool found = false;
        while (!found && fgets(line, sizeof(line), fp)) {
            const char *colon = strchr(line, ':');
            colon = colon ? strchr(colon + 1, ':') : NULL; /* "sl: ADDR:PORT" */
            char *end;
            const unsigned long p = colon ? strtoul(colon + 1, &end, 16) : 0;
            if (colon && end != colon + 1 && (long)p == port)
                found = true;
        }
        fclose(fp);
        if (found)
            return true;
    }
    return false;
}

static FILE *out_copy; /* OUT/output.nmea: what rtmgr sent */

static void drain_output(int fd)
{
    char d[2048];
    ssize_t k;
    while ((k = recv(fd, d, sizeof(d), MSG_DONTWAIT)) > 0) {
        if (out_copy)
            fwrite(d, 1, (size_t)k, out_copy);
        for (ssize_t i = 0; i < k; i++) {
            rtm_nmea_sentence_t s;
            if (rtm_nmea_push(&out_lx, (uint8_t)d[i], &s) == 1)
                (void)rtm_replay_check_sentence(&chk, &s);
        }
    }
}

/* Waits until `until` (monotonic ns), reading rtmgr's output meanwhile. */
static void wait_reading(int fd, int64_t until)
{
    for (int64_t t = now_ns(); t < until; t = now_ns()) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        const int64_t ms = (until - t + 999999) / 1000000;
        if (poll(&p, 1, (int)(ms > 200 ? 200 : ms)) > 0)
            drain_output(fd);
    }
    drain_output(fd);
}

/* The value of `key=` in the last "rtmgr: input:" line of rtmgr's log; -1 when absent. */
static int64_t input_counter(const char *text, const char *key)
{
    const char *line = NULL;
    for (const char *p = text; (p = strstr(p, "rtmgr: input:")) != NULL; p++)
        line = p;
    if (!line)
        return -1;
    const char *eol = strchr(line, '\n');
    char pat[64];
    snprintf(pat, sizeof(pat), " %s=", key);
    const char *k = strstr(line, pat);
    if (!k || (eol && k > eol))
        return -1;
    return strtoll(k + strlen(pat), NULL, 10);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (b) {
        const size_t got = fread(b, 1, (size_t)n, f);
        b[got] = '\0';
    }
    fclose(f);
    return b;
}

/* The monotonic ns release_ms counts from, off rtmgr's 'log clock origin S s'; -1. */
static int64_t log_origin_ns(const char *rtmgr_log)
{
    char *text = slurp(rtmgr_log);
    const char *at = text ? strstr(text, "log clock origin ") : NULL;
    double s = -1.0;
    if (at) {
        char *end;
        s = strtod(at + strlen("log clock origin "), &end);
        if (end == at + strlen("log clock origin ") || strncmp(end, " s", 2) != 0)
            s = -1.0;
    }
    free(text);
    return s > 0 ? (int64_t)(s * 1e9) : -1;
}

static const char *verdict(bool ok) { return ok ? "PASS" : "FAIL"; }

int main(int argc, char **argv)
{
    opts_t o;
    int rc = parse_args(argc, argv, &o);
    if (rc != EXIT_PASS)
        return rc;
    setvbuf(stdout, NULL, _IOLBF, 0);

    /* the task set */
    rtm_diag_t diag;
    memset(&diag, 0, sizeof(diag));
    if (rtm_config_load(o.config, &cfg, &diag) != RTM_OK) {
        char line[sizeof(diag.file) + sizeof(diag.text) + 64];
        rtm_diag_format(&diag, line, sizeof(line));
        fprintf(stderr, "%s\n", line);
        return EXIT_ARGS;
    }
    if (cfg.input.kind != RTM_INPUT_NMEA_UDP || !cfg.output.on) {
        fprintf(stderr, "rtmgr-replay: %s: the task set needs input: nmea: {udp: ...} and "
                        "output: nmea: {udp: ...}\n", o.config);
        return EXIT_ARGS;
    }

    /* the log slice, and the copy that is sent */
    char why[512];
    const int64_t length = o.duration > 0 ? (int64_t)(o.duration * o.speed * 1e9) : 0;
    if (rtm_replay_load(o.log, (int64_t)(o.start * 1e9), length, &slice, why, sizeof(why)) !=
        RTM_OK) {
        fprintf(stderr, "rtmgr-replay: %s\n", why);
        return EXIT_ARGS;
    }
    rtm_replay_damage_t dmg;
    memset(&dmg, 0, sizeof(dmg));
    if (o.corrupt) {
        if (rtm_replay_corrupt(&slice, o.seed, o.rate, &sent, &dmg) != RTM_OK)
            return EXIT_RUN;
    } else {
        sent = slice;
    }
    rtm_input_stats_t off_clean, off_sent;
    rtm_replay_offline(&slice, &off_clean);
    rtm_replay_offline(&sent, &off_sent);

    /* where things go */
    char out[RTM_PATH_MAX], tmpl[] = "/tmp/rtmgr-replay-XXXXXX";
    if (o.out) {
        snprintf(out, sizeof(out), "%s", o.out);
        mkdir(out, 0755);
    } else if (mkdtemp(tmpl)) {
        snprintf(out, sizeof(out), "%s", tmpl);
    } else {
        perror("rtmgr-replay: mkdtemp");
        return EXIT_RUN;
    }
    char model_csv[RTM_PATH_MAX + 16], rtmgr_log[RTM_PATH_MAX + 16], sent_path[RTM_PATH_MAX + 16];
    char out_path[RTM_PATH_MAX + 16];
    snprintf(out_path, sizeof(out_path), "%s/output.nmea", out);
    out_copy = fopen(out_path, "wb");
    snprintf(model_csv, sizeof(model_csv), "%s/model.csv", out);
    snprintf(rtmgr_log, sizeof(rtmgr_log), "%s/rtmgr.log", out);
    snprintf(sent_path, sizeof(sent_path), "%s/sent.nmea", out);
    unlink(model_csv);
    (void)rtm_replay_write(&sent, sent_path);

    char in_addr[RTM_PATH_MAX], out_addr[RTM_PATH_MAX];
    snprintf(in_addr, sizeof(in_addr), "%s", cfg.input.address);
    snprintf(out_addr, sizeof(out_addr), "%s", cfg.output.address);
    if (o.free_ports) {
        const int pi = free_udp_port(), po = free_udp_port();
        if (pi < 0 || po < 0 || pi == po) {
            fprintf(stderr, "rtmgr-replay: no free UDP ports\n");
            return EXIT_RUN;
        }
        snprintf(in_addr, sizeof(in_addr), "127.0.0.1:%d", pi);
        snprintf(out_addr, sizeof(out_addr), "127.0.0.1:%d", po);
    }
    struct sockaddr_storage in_sa, out_sa;
    socklen_t in_sl, out_sl;
    const int out_fd = udp_socket(out_addr, true, &out_sa, &out_sl);
    if (out_fd < 0) {
        fprintf(stderr, "rtmgr-replay: cannot listen on %s (output.nmea.udp): %s\n", out_addr,
                strerror(errno));
        return EXIT_RUN;
    }
    const int in_fd = udp_socket(in_addr, false, &in_sa, &in_sl);
    if (in_fd < 0) {
        fprintf(stderr, "rtmgr-replay: cannot send to %s\n", in_addr);
        return EXIT_RUN;
    }
    const int in_port = (int)strtol(strrchr(in_addr, ':') + 1, NULL, 10);
    if (udp_port_bound(in_port)) {
        fprintf(stderr, "rtmgr-replay: UDP port %d is already in use: another rtmgr?\n", in_port);
        return EXIT_RUN;
    }

    /* rtmgr */
    const double replay_s = (double)(slice.t1_ns - slice.t0_ns) / 1e9 / o.speed;
    const double tail_s = fmax(2.0, 3.0 * (double)cfg.output.interval_ns / 1e9);
    char exe_buf[RTM_PATH_MAX], duration[32];
    const char *exe = find_rtmgr(o.rtmgr, exe_buf, sizeof(exe_buf));
    snprintf(duration, sizeof(duration), "%.0f", o.startup + replay_s + tail_s + 60);
    printf("rtmgr-replay: %s, %.0f s of log from +%.0f s at %gx (%.1f s), %s%s\n", o.log,
           (double)(slice.t1_ns - slice.t0_ns) / 1e9, o.start, o.speed, replay_s,
           o.corrupt ? "corrupted copy, " : "", o.config);
    printf("  output in %s; rtmgr: %s; NMEA in %s, out %s\n", out, exe, in_addr, out_addr);
    host_t host;
    host_begin(&host);
    const int64_t t_launch = now_ns();
    const pid_t pid = fork();
    if (pid < 0) {
        perror("rtmgr-replay: fork");
        return EXIT_RUN;
    }
    if (pid == 0) {
        const int fd = open(rtmgr_log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        if (o.free_ports)
            execlp(exe, exe, "run", "-c", o.config, "--duration", duration, "--log", model_csv,
                   "--nmea-in", in_addr, "--nmea-out", out_addr, (char *)NULL);
        else
            execlp(exe, exe, "run", "-c", o.config, "--duration", duration, "--log", model_csv,
                   (char *)NULL);
        fprintf(stderr, "rtmgr-replay: exec %s: %s\n", exe, strerror(errno));
        _exit(127);
    }
    rtm_stallprobe_t *probe = NULL;
    (void)rtm_stallprobe_start(&probe); /* without it no miss is the machine's */
    /* ready: running (its first releases are due) with its input port bound */
    int status = 0;
    bool exited = false;
    for (;;) {
        char *t = slurp(rtmgr_log);
        const bool running = t && strstr(t, "rtmgr: running ") != NULL;
        free(t);
        if (running && udp_port_bound(in_port))
            break;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            exited = true;
            break;
        }
        if (now_ns() - t_launch > (int64_t)(o.startup * 1e9)) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            exited = true;
            break;
        }
        usleep(20000);
    }
    if (exited) {
        rtm_stallprobe_free(probe);
        char *text = slurp(rtmgr_log);
        fprintf(stderr, "rtmgr-replay: rtmgr stopped (or took too long) before running:\n%s\n",
                text ? text : "");
        free(text);
        return EXIT_RUN;
    }
    const double startup_s = (double)(now_ns() - t_launch) / 1e9;
    wait_reading(out_fd, now_ns() + 200000000LL); /* the first pictures and releases */

    /* the replay */
    rtm_nmea_init(&out_lx);
    rtm_replay_check_init(&chk, cfg.output.alarm_cpa_m, (double)cfg.output.alarm_tcpa_ns / 1e9);
    const int64_t t0 = now_ns();
    size_t lines = 0, bytes = 0;
    for (size_t i = 0; i < sent.n; i++) {
        const int64_t due = t0 + (int64_t)((double)(sent.line[i].log_ns - sent.t0_ns) / o.speed);
        wait_reading(out_fd, due);
        if (o.freeze > 0 && i == sent.n / 2) {
            kill(pid, SIGSTOP);
            wait_reading(out_fd, now_ns() + (int64_t)(o.freeze * 1e6));
            kill(pid, SIGCONT);
            printf("  froze      rtmgr for %.0f ms at %.1f s of the replay\n", o.freeze,
                   (double)(now_ns() - t0) / 1e9);
        }
        if (sendto(in_fd, sent.line[i].text, sent.line[i].len, 0, (struct sockaddr *)&in_sa,
                   in_sl) == (ssize_t)sent.line[i].len) {
            lines++;
            bytes += sent.line[i].len;
        }
        if (waitpid(pid, &status, WNOHANG) == pid) {
            exited = true;
            break;
        }
    }
    const double replayed_s = (double)(now_ns() - t0) / 1e9;
    if (!exited)
        wait_reading(out_fd, now_ns() + (int64_t)(tail_s * 1e9));
    /* stop rtmgr */
    const int64_t t_stop = now_ns();
    if (!exited) {
        kill(pid, SIGTERM);
        while (waitpid(pid, &status, WNOHANG) != pid) {
            if (now_ns() - t_stop > 30 * NS) {
                kill(pid, SIGKILL);
                waitpid(pid, &status, 0);
                break;
            }
            wait_reading(out_fd, now_ns() + 20000000LL);
        }
    }
    drain_output(out_fd);
    rtm_replay_check_finish(&chk);
    if (out_copy)
        fclose(out_copy);
    out_copy = NULL;
    const double stop_s = (double)(now_ns() - t_stop) / 1e9;
    host_end(&host);
    rtm_stallprobe_stop(probe);
    const bool clean_exit = WIFEXITED(status) && WEXITSTATUS(status) == 0 && !exited;

    /* ---- the checks ---- */
    bool pass = true;
    printf("  sent       %zu lines, %zu bytes in %.1f s (%zu RMC)\n", lines, bytes, replayed_s,
           sent.rmc);
    printf("  rtmgr      %s: running after %.1f s, stopped %.2f s after SIGTERM     %s\n",
           clean_exit ? "exit 0" : exited ? "ended before the replay did" : "failed",
           startup_s, stop_s, verdict(clean_exit));
    pass &= clean_exit;
    if (!clean_exit && WIFEXITED(status))
        printf("             exit status %d (see %s)\n", WEXITSTATUS(status), rtmgr_log);
    else if (!clean_exit && WIFSIGNALED(status))
        printf("             killed by signal %d (see %s)\n", WTERMSIG(status), rtmgr_log);

    /* input counters */
    char *text = slurp(rtmgr_log);
    const int64_t run_bytes = text ? input_counter(text, "in.bytes") : -1;
    const int64_t run_errors = text ? input_counter(text, "errors") : -1;
    const uint64_t want_errors = rtm_input_errors(&off_sent);
    bool input_ok = run_bytes == (int64_t)bytes && run_errors >= 0;
    if (input_ok && !o.corrupt)
        input_ok = run_errors == (int64_t)want_errors;
    static const struct {
        const char *key;
        size_t off;
    } lexer_keys[] = {{"nmea.bad_checksum", offsetof(rtm_nmea_stats_t, bad_checksum)},
                      {"nmea.no_checksum", offsetof(rtm_nmea_stats_t, no_checksum)},
                      {"nmea.overlong", offsetof(rtm_nmea_stats_t, overlong)},
                      {"nmea.garbage", offsetof(rtm_nmea_stats_t, garbage)}};
    char kinds[256] = "";
    if (input_ok && o.corrupt) {
        /* the damage is counted, kind by kind, as an offline decode of the same bytes */
        input_ok = run_errors > (int64_t)rtm_input_errors(&off_clean);
        size_t used = 0;
        for (size_t k = 0; k < sizeof(lexer_keys) / sizeof(lexer_keys[0]); k++) {
            uint64_t want;
            memcpy(&want, (const char *)&off_sent.nmea + lexer_keys[k].off, sizeof(want));
            const int64_t got = input_counter(text, lexer_keys[k].key);
            input_ok &= got == (int64_t)want;
            used += (size_t)snprintf(kinds + used, sizeof(kinds) - used, "%s%s %lld/%llu",
                                     k ? ", " : "", lexer_keys[k].key, (long long)got,
                                     (unsigned long long)want);
            if (used >= sizeof(kinds))
                break;
        }
    }
    printf("  input      rtmgr read %lld bytes, counted %lld errors; offline decode of what was "
           "sent: %llu (of the clean slice: %llu)   %s\n",
           (long long)run_bytes, (long long)run_errors, (unsigned long long)want_errors,
           (unsigned long long)rtm_input_errors(&off_clean), verdict(input_ok));
    if (o.corrupt)
        printf("             damage: %u checksums, %u without checksum, %u cut, %u dropped, %u "
               "doubled, %u noise, %u overlong; counted (rtmgr/offline): %s\n",
               dmg.bad_checksum, dmg.no_checksum, dmg.truncated, dmg.dropped, dmg.duplicated,
               dmg.garbage, dmg.overlong, kinds);
    if (run_bytes < 0)
        printf("             no 'rtmgr: input:' counters in %s\n", rtmgr_log);
    pass &= input_ok;
    free(text);

    /* deadlines and model error, from the model-error log */
    rtm_report_t rep;
    memset(&rep, 0, sizeof(rep));
    const rtm_status_t rst = rtm_report_load(model_csv, &rep, &diag);
    uint64_t jobs[3] = {0}, missed[3] = {0}, excused = 0;
    const int64_t origin = log_origin_ns(rtmgr_log);
    char late_text[1024] = "";
    size_t wused = 0;
    for (size_t i = 0; rst == RTM_OK && i < rep.n_rows; i++) {
        const rtm_report_row_t *w = &rep.row[i];
        const int t = rtm_config_task_find(&cfg, rep.task[w->task]);
        const int crit = t >= 0 ? (int)cfg.task[t].crit : RTM_CRIT_HARD;
        jobs[crit]++;
        missed[crit] += !w->met;
        if (w->met || crit != RTM_CRIT_HARD)
            continue;
        /* the machine's stall inside the job's window, against its lateness */
        int64_t stalled = -1;
        bool machine = false;
        const double late_ms = w->response - w->deadline;
        if (origin > 0 && w->release >= 0 && w->response >= 0) {
            const int64_t from = origin + (int64_t)(w->release * 1e6);
            const int64_t to = from + (int64_t)(w->response * 1e6);
            stalled = rtm_stallprobe_stalled(probe, from, to, NULL);
            machine = rtm_stallprobe_explains(probe, from, to, (int64_t)(late_ms * 1e6));
            excused += machine;
        }
        if (wused < sizeof(late_text))
            wused += (size_t)snprintf(
                late_text + wused, sizeof(late_text) - wused,
                "             %s job %llu on %s: %.1f ms late; %s %.1f ms%s\n",
                rep.task[w->task], (unsigned long long)w->job, rep.dev[w->dev], late_ms,
                stalled < 0 ? "no release time to compare, stall" : "a CPU stalled for",
                (double)(stalled < 0 ? 0 : stalled) / 1e6,
                machine ? ": the machine's stall" : "");
    }
    const uint64_t hard_missed = missed[RTM_CRIT_HARD];
    const bool dl_ok = rst == RTM_OK && jobs[RTM_CRIT_HARD] > 0 &&
                       (hard_missed == 0 || (o.excuse_stalls && excused == hard_missed));
    printf("  deadlines  hard %llu jobs, %llu missed (%llu in a stall of the machine); firm "
           "%llu/%llu; soft %llu/%llu missed    %s\n",
           (unsigned long long)jobs[0], (unsigned long long)missed[0], (unsigned long long)excused,
           (unsigned long long)missed[1], (unsigned long long)jobs[1],
           (unsigned long long)missed[2], (unsigned long long)jobs[2], verdict(dl_ok));
    printf("%s", late_text);
    host_print(&host, hard_missed > 0);
    rtm_stallprobe_print(probe, "             ");
    rtm_stallprobe_free(probe);
    if (rst != RTM_OK)
        printf("             %s: %s\n", model_csv, diag.text[0] ? diag.text : "unreadable");
    pass &= dl_ok;
    bool mape_ok = rst == RTM_OK;
    char mape_text[512] = "";
    size_t mused = 0;
    for (size_t g = 0; rst == RTM_OK && g < rep.n_groups; g++) {
        const rtm_report_group_t *grp = &rep.group[g];
        if (!grp->all_tasks || grp->scored == 0)
            continue;
        mape_ok &= grp->mape <= cfg.hil.mape_budget * 100.0;
        if (mused < sizeof(mape_text))
            mused += (size_t)snprintf(mape_text + mused, sizeof(mape_text) - mused,
                                      "%s%s %.1f%% (%u jobs)", mused ? ", " : "", grp->device,
                                      grp->mape, grp->scored);
    }
    printf("  model      MAPE %s; budget %.0f%%    %s\n", mape_text[0] ? mape_text : "none scored",
           cfg.hil.mape_budget * 100.0, verdict(mape_ok && mape_text[0]));
    pass &= mape_ok && mape_text[0];
    rtm_report_free(&rep);

    /* CPA/TCPA */
    const bool cpa_ok = chk.checked > 0 && chk.mismatches == 0 && chk.bad == 0;
    printf("  CPA/TCPA   %llu reports, %llu TTM (%llu lost), %llu recomputed, %llu TCPA judged, "
           "%llu differ; worst |dCPA| %.4f nm, |dTCPA| %.3f min   %s\n",
           (unsigned long long)chk.osd, (unsigned long long)chk.ttm,
           (unsigned long long)chk.ttm_lost, (unsigned long long)chk.checked,
           (unsigned long long)chk.tcpa_checked, (unsigned long long)chk.mismatches,
           chk.worst_cpa_nm, chk.worst_tcpa_min, verdict(cpa_ok));
    if (chk.mismatches)
        printf("             first: %s\n", chk.first_mismatch);
    if (chk.bad)
        printf("             %llu sentences that are not well-formed OSD/TTM/ALR\n",
               (unsigned long long)chk.bad);
    pass &= cpa_ok;
    const bool alr_ok = chk.alarms_missing == 0 && chk.alarms_spurious == 0;
    printf("  alarms     %llu ALR raised, %llu expected from the TTM, %llu missing, %llu "
           "spurious    %s\n",
           (unsigned long long)chk.alr_active, (unsigned long long)chk.alarms_expected,
           (unsigned long long)chk.alarms_missing, (unsigned long long)chk.alarms_spurious,
           verdict(alr_ok));
    pass &= alr_ok;
    printf("rtmgr-replay: %s\n", pass ? "PASS" : "FAIL");
    if (o.corrupt)
        rtm_replay_free(&sent);
    rtm_replay_free(&slice);
    close(in_fd);
    close(out_fd);
    return pass ? EXIT_PASS : EXIT_FAILED;
}
