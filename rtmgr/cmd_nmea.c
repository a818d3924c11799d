/* cmd_nmea.c — `rtmgr nmea`: offline tools over recorded NMEA 0183 / AIS logs.
 *
 *   rtmgr nmea decode [--split24] FILE   one gpsdecode-compatible JSON line per AIS
 *                                        message of types 1, 2, 3, 5, 18, 19, 24
 *   rtmgr nmea stats FILE                counters of the lexer, the AIS assembler and
 *                                        the target table after replaying FILE
 *
 * FILE may be "-" for standard input. Owns nothing beyond the run: the lexer, the
 * assembler and the (large) target table are static. Exit codes: 0 ok, 1 usage,
 * 3 unreadable file. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ais.h"
#include "cli.h"
#include "nmea.h"
#include "targets.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: rtmgr nmea decode [--split24] FILE\n"
               "       rtmgr nmea stats FILE\n"
               "  decode  print each AIS message (types 1 2 3 5 18 19 24) as gpsdecode -j\n"
               "          JSON; type 24 only once parts A and B are paired unless --split24\n"
               "  stats   replay FILE and print the input counters and the target table\n"
               "  FILE    NMEA 0183 log; - for standard input\n");
}

typedef struct {
    rtm_nmea_t lx;
    rtm_ais_t ais;
    bool split24;
    bool print;
    bool track;
    int64_t clock_ns; /* target clock: last RMC time, advanced 1 ms per sentence */
    int64_t link_ns;  /* assembly clock: 1 ms per sentence (log times are too coarse) */
    uint64_t printed;
} run_t;

static rtm_targets_t table; /* 4 MB: static, not on the stack */

static void on_sentence(run_t *r, const rtm_nmea_sentence_t *s)
{
    rtm_ais_msg_t m;
    rtm_nmea_nav_t nav;
    r->clock_ns += 1000000;
    r->link_ns += 1000000;
    if (s->kind == RTM_NMEA_VDM || s->kind == RTM_NMEA_VDO) {
        if (rtm_ais_feed(&r->ais, s, r->link_ns, &m) != 1)
            return;
        if (r->track)
            (void)rtm_targets_update_ais(&table, &m, r->clock_ns);
        if (!r->print || (m.type == 24 && m.part != RTM_AIS_PART_AB && !r->split24))
            return;
        char line[1024];
        if (rtm_ais_json(&m, line, sizeof(line)) > 0) {
            fputs(line, stdout);
            r->printed++;
        }
    } else if (rtm_nmea_nav(&r->lx, s, &nav) == RTM_OK) {
        int64_t utc = rtm_nmea_utc_ns(&nav);
        if (utc > r->clock_ns)
            r->clock_ns = utc;
        if (r->track)
            (void)rtm_targets_update_nav(&table, &nav, r->clock_ns);
    }
}

static int replay(run_t *r, const char *path)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "rtmgr nmea: %s: %s\n", path, strerror(errno));
        return RTM_EXIT_RUNTIME;
    }
    static unsigned char buf[65536];
    size_t n;
    rtm_nmea_sentence_t s;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
        for (size_t i = 0; i < n; i++)
            if (rtm_nmea_push(&r->lx, buf[i], &s) == 1)
                on_sentence(r, &s);
    int bad = ferror(f);
    if (f != stdin)
        fclose(f);
    if (bad) {
        fprintf(stderr, "rtmgr nmea: %s: read error\n", path);
        return RTM_EXIT_RUNTIME;
    }
    return RTM_EXIT_OK;
}

static void print_counters(const run_t *r)
{
    uint64_t v;
    const char *name;
    printf("nmea:");
    for (unsigned i = 0; (name = rtm_nmea_stats_at(&r->lx.stats, i, &v)) != NULL; i++)
        printf(" %s=%llu", name, (unsigned long long)v);
    printf("\nais:");
    for (unsigned i = 0; (name = rtm_ais_stats_at(&r->ais.stats, i, &v)) != NULL; i++)
        printf(" %s=%llu", name, (unsigned long long)v);
    printf("\nais types:");
    for (unsigned t = 0; t < 64; t++)
        if (r->ais.stats.by_type[t])
            printf(" %u=%llu", t, (unsigned long long)r->ais.stats.by_type[t]);
    printf("\n");
}

static void print_targets(const run_t *r)
{
    static rtm_traffic_t pic;
    rtm_targets_stats_t ts;
    rtm_targets_stats(&table, &ts);
    printf("targets: in_table=%u updates=%llu inserted=%llu expired=%llu full=%llu "
           "own_updates=%llu\n",
           rtm_targets_count(&table), (unsigned long long)ts.updates,
           (unsigned long long)ts.inserted, (unsigned long long)ts.expired,
           (unsigned long long)ts.full, (unsigned long long)ts.own_updates);
    if (rtm_targets_publish(&table, r->clock_ns) != RTM_OK ||
        rtm_targets_snapshot(&table, &pic) != RTM_OK)
        return;
    if (isnan(pic.lat0)) {
        printf("picture: no own-ship fix\n");
        return;
    }
    printf("picture: seq=%llu own lat=%.6f lon=%.6f sog=%.2f m/s cog=%.1f deg targets=%u\n",
           (unsigned long long)pic.seq, pic.lat0, pic.lon0, pic.own_sog,
           pic.own_cog * 180.0 / M_PI, pic.n);
    for (uint32_t i = 0; i < pic.n && i < 10; i++)
        printf("  %09u x=%9.0f m y=%9.0f m sog=%5.2f m/s cog=%5.1f deg\n", pic.id[i],
               pic.x[i], pic.y[i], pic.sog[i], pic.cog[i] * 180.0 / M_PI);
    if (pic.n > 10)
        printf("  ... %u more\n", pic.n - 10);
}

int rtm_cmd_nmea(int argc, char **argv)
{
    static run_t r;
    memset(&r, 0, sizeof(r));
    rtm_nmea_init(&r.lx);
    rtm_ais_init(&r.ais, NULL);
    if (argc < 2) {
        usage(stderr);
        return RTM_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return RTM_EXIT_OK;
    }
    const char *path = NULL;
    bool decode = strcmp(argv[1], "decode") == 0, stats = strcmp(argv[1], "stats") == 0;
    if (!decode && !stats) {
        fprintf(stderr, "rtmgr nmea: unknown subcommand '%s'\n", argv[1]);
        usage(stderr);
        return RTM_EXIT_USAGE;
    }
    for (int i = 2; i < argc; i++) {
        if (decode && strcmp(argv[i], "--split24") == 0) {
            r.split24 = true;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "rtmgr nmea: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return RTM_EXIT_USAGE;
        } else if (!path) {
            path = argv[i];
        } else {
            usage(stderr);
            return RTM_EXIT_USAGE;
        }
    }
    if (!path) {
        usage(stderr);
        return RTM_EXIT_USAGE;
    }
    r.print = decode;
    r.track = stats;
    if (stats)
        rtm_targets_init(&table, NULL);
    int rc = replay(&r, path);
    if (rc != RTM_EXIT_OK)
        return rc;
    if (stats) {
        print_counters(&r);
        print_targets(&r);
    }
    fflush(stdout);
    return RTM_EXIT_OK;
}
