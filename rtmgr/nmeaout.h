/* nmeaout.h — CPA/TCPA of tracked targets as NMEA 0183 sentences over UDP, so that a
 * chart plotter (OpenCPN, a multifunction display) shows rtmgr's collision assessment.
 *
 * One report (at most one per interval) is a burst of UDP datagrams, one sentence each:
 *   $--OSD  own ship: course and speed over ground (heading empty: not in the picture),
 *           reference P (positioning system), knots;
 *   $--TTM  one per reported target (IEC 61162-1 "tracked target message"):
 *             1 target number 01..99        2 distance from own ship (nm, x.xxx)
 *             3 bearing from own ship (deg, x.xx)  4 T (true)
 *             5 target speed (kn, x.x)      6 target course (deg, x.xx)  7 T (true)
 *             8 CPA (nm, x.xxx)             9 TCPA (min, x.xx; negative: CPA is past)
 *            10 N (knots / nautical miles)  11 target name: its MMSI (empty if the
 *                                              sentence would pass 82 characters)
 *            12 status: T tracking, L lost  13 reference target: empty
 *            14 UTC of the data (hhmmss.ss) 15 acquisition: R (reported: AIS)
 *   $--ALR  one per target in alarm (CPA below alarm_cpa within 0..alarm_tcpa ahead),
 *           repeated with every report while the condition lasts, and once more with
 *           condition V when it clears: time, alarm number (the target number, 3
 *           digits), condition A/V, acknowledgement V, text "CPA x.xxNM TCPA x.xMIN MMSI".
 * Every sentence carries its checksum and CR LF and is at most 82 characters.
 *
 * Which targets: those within `range` with a finite CPA, at most max_targets of them,
 * the most urgent first (alarm, then approaching by CPA, then by range). A target keeps
 * its number while it is reported; one that leaves the report gets one TTM with status L
 * and its number is freed.
 *
 * Real-time safety: rtm_nmeaout_offer() takes no lock (a try-flag: a second concurrent
 * caller returns at once, counted), allocates nothing, formats with snprintf into the
 * object's buffers and sends with sendto(MSG_DONTWAIT): a full socket buffer drops the
 * sentence (counted), never blocks. Between reports it costs one clock comparison. */
#ifndef RTM_NMEAOUT_H
#define RTM_NMEAOUT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "limits.h"
#include "status.h"
#include "traffic.h"

/* Target numbers of TTM: 01..99. */
#define RTM_NMEAOUT_NUMBERS 99
/* Longest sentence, CR LF included (IEC 61162-1). */
#define RTM_NMEAOUT_SENTENCE_MAX 82

typedef struct {
    char address[RTM_PATH_MAX]; /* host:port to send to */
    char talker[3];             /* "RA" (radar) unless set */
    int64_t interval_ns;        /* at most one report per interval */
    double range_m;             /* farther targets are not reported */
    uint32_t max_targets;       /* 1..99 */
    double alarm_cpa_m;         /* 0: no alarms */
    int64_t alarm_tcpa_ns;
} rtm_nmeaout_config_t;

/* The fields of one TTM (see the layout above). */
typedef struct {
    uint32_t number;           /* 1..99 */
    double dist_nm, bearing_deg, speed_kn, course_deg, cpa_nm, tcpa_min;
    char name[21];             /* "" for none */
    char status;               /* 'T', 'L' or 'Q' */
    uint32_t utc_ms;           /* time of day of the data */
    char acquisition;          /* 'A', 'M' or 'R' */
} rtm_nmeaout_ttm_t;

typedef struct {
    uint64_t reports;      /* reports sent */
    uint64_t sentences;    /* sentences sent */
    uint64_t ttm, osd, alr;
    uint64_t lost;         /* TTM with status L */
    uint64_t alarms;       /* alarms raised (condition became A) */
    uint64_t send_errors;  /* sentences the socket refused (buffer full, no route) */
    uint64_t busy;         /* offers refused: another thread was reporting */
    uint64_t skipped;      /* offers before the interval had passed */
    uint64_t names_dropped;/* TTM sent without name to stay within 82 characters */
} rtm_nmeaout_stats_t;

/* The output. Fields are private. */
typedef struct {
    rtm_nmeaout_config_t cfg;
    int fd;
    bool opened;
    unsigned char dest[128]; /* struct sockaddr_storage */
    unsigned dest_len;
    atomic_flag busy;
    int64_t next_ns;
    /* reporter only */
    uint32_t mmsi_of[RTM_NMEAOUT_NUMBERS + 1]; /* by number; 0: free */
    bool alarm_of[RTM_NMEAOUT_NUMBERS + 1];
    bool seen[RTM_NMEAOUT_NUMBERS + 1];
    uint32_t pick[RTM_NMEAOUT_NUMBERS];        /* picture indices, most urgent first */
    double key[RTM_NMEAOUT_NUMBERS];
    uint32_t number_of[RTM_NMEAOUT_NUMBERS];
    char line[RTM_NMEAOUT_SENTENCE_MAX + 16];
    struct {
        _Atomic uint64_t reports, sentences, ttm, osd, alr, lost, alarms, send_errors, busy,
            skipped, names_dropped;
    } st;
} rtm_nmeaout_t;

/* Opens a UDP socket towards cfg->address (host:port, resolved with getaddrinfo).
 * Init only. RTM_OK; RTM_E_ARG for a bad config; RTM_E_OS (message on stderr). */
rtm_status_t rtm_nmeaout_init(rtm_nmeaout_t *o, const rtm_nmeaout_config_t *cfg);

/* Reports the CPA (m) and TCPA (s) of the picture's targets (cpa[i], tcpa[i] belong to
 * pic->id[i]; n entries, NaN for targets without a result) when the interval has
 * passed since the last report. now_ns: CLOCK_MONOTONIC. Returns the number of
 * sentences sent (0: not due, busy, or nothing to say). Real-time safe (see above):
 * O(n * log max_targets) plus the sends. */
int rtm_nmeaout_offer(rtm_nmeaout_t *o, const rtm_traffic_t *pic, const float *cpa_m,
                      const float *tcpa_s, uint32_t n, int64_t now_ns);

/* Counters (any thread). */
void rtm_nmeaout_stats(rtm_nmeaout_t *o, rtm_nmeaout_stats_t *out);

/* Closes the socket. Shutdown only; safe on a zeroed object. */
void rtm_nmeaout_close(rtm_nmeaout_t *o);

/* Sentence formatters: write one sentence with checksum and CR LF into buf, return its
 * length, or RTM_E_NOMEM when it does not fit in len or in 82 characters. Real-time
 * safe (snprintf of numbers into the caller's buffer). Non-finite values give empty
 * fields. The TTM name is left out (field empty) when it would make the sentence too
 * long; *name_dropped (may be NULL) says so. */
int rtm_nmeaout_ttm(char *buf, size_t len, const char *talker, const rtm_nmeaout_ttm_t *t,
                    bool *name_dropped);
int rtm_nmeaout_osd(char *buf, size_t len, const char *talker, double heading_deg,
                    double course_deg, double speed_kn);
int rtm_nmeaout_alr(char *buf, size_t len, const char *talker, uint32_t utc_ms, unsigned id,
                    bool active, bool acknowledged, const char *text);

#endif
