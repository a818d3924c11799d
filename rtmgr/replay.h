/* replay.h — the hardware-in-the-loop harness's logic (rtmgr-replay, board/hil/):
 * a recorded NMEA 0183 log cut to a slice and stamped with its RMC times, a corrupted
 * copy with every kind of damage, the counters an offline decode of the same bytes
 * gives, and the verification of rtmgr's TTM/OSD/ALR output against a CPU
 * recomputation of CPA and TCPA.
 *
 * The recomputation: a TTM carries the target's distance and bearing from own ship, its
 * speed and course, and the CPA and TCPA that rtmgr computed (on whatever device the
 * job ran); the OSD sent just before it carries own course and speed. CPA/TCPA are
 * recomputed from those fields with the kernels' own CPU code (kernels/nav_math.h:
 * nav_velocity, nav_cpa) and, because the fields are rounded (distance 0.001 nm, TTM angles
 * 0.01 deg, OSD course 0.1 deg, speeds 0.1 kn), over every corner of the box of values that round to the
 * printed ones (3 values per field: 729 recomputations): the reported values must lie
 * within the range found there, widened by their own rounding and a tenth of the range. TCPA is not judged when the box includes a relative speed under
 * RTM_REPLAY_W_MIN_KN (TCPA is ill-conditioned there), CPA always is.
 *
 * A tool: it allocates and reads files; never on the real-time path. */
#ifndef RTM_REPLAY_H
#define RTM_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "input.h"
#include "nmea.h"
#include "status.h"

/* Below this relative speed (kn) anywhere in the rounding box, TCPA is not judged. */
#define RTM_REPLAY_W_MIN_KN 0.5

typedef struct {
    const char *text;  /* the line, with its line end */
    uint32_t len;
    int64_t log_ns;    /* UTC of the latest RMC at or before the line (ns since 1970) */
} rtm_replay_line_t;

typedef struct {
    char *buf;          /* all lines, back to back */
    size_t bytes;
    rtm_replay_line_t *line;
    size_t n;
    size_t rmc;         /* RMC lines */
    int64_t t0_ns, t1_ns; /* log time of the first and last line */
} rtm_replay_log_t;

/* Damage done by rtm_replay_corrupt, by kind. */
typedef struct {
    uint32_t bad_checksum;  /* one payload character changed */
    uint32_t no_checksum;   /* "*hh" cut off */
    uint32_t truncated;     /* line cut in the middle, no line end (the next one ends it) */
    uint32_t dropped;       /* line left out (AIS fragments then go missing) */
    uint32_t duplicated;    /* line sent twice */
    uint32_t garbage;       /* a line of noise inserted */
    uint32_t overlong;      /* a 300-character sentence inserted */
} rtm_replay_damage_t;

/* Reads an NMEA log and keeps the lines from the first RMC at or after
 * (first RMC + start_ns) for length_ns of log time (length_ns <= 0: to the end). Each
 * line is stamped with the time of the latest RMC. RTM_OK; RTM_E_IO (why says); RTM_E_EMPTY
 * when the slice holds no RMC. */
rtm_status_t rtm_replay_load(const char *path, int64_t start_ns, int64_t length_ns,
                             rtm_replay_log_t *log, char *why, size_t len);

/* A copy of `in` with about `rate` of its lines damaged (deterministic for a seed; RMC
 * lines keep their time). *damage counts what was done. RTM_OK or RTM_E_NOMEM. */
rtm_status_t rtm_replay_corrupt(const rtm_replay_log_t *in, uint64_t seed, double rate,
                                rtm_replay_log_t *out, rtm_replay_damage_t *damage);

/* Writes the log's lines to a file. RTM_OK or RTM_E_IO. */
rtm_status_t rtm_replay_write(const rtm_replay_log_t *log, const char *path);

void rtm_replay_free(rtm_replay_log_t *log);

/* The counters rtmgr's input would show for these bytes, decoded offline (lexer and
 * AIS assembler, one millisecond per sentence): `nmea` and `ais` of *out are set,
 * the rest is zero. rtm_input_errors(out) is the expected error count. */
void rtm_replay_offline(const rtm_replay_log_t *log, rtm_input_stats_t *out);

/* The verification of rtmgr's output sentences. */
typedef struct {
    double alarm_cpa_m;        /* the task set's output.nmea.alarm_cpa ... */
    double alarm_tcpa_s;       /* ... and alarm_tcpa */
    /* own ship from the latest OSD */
    bool own_valid;
    double own_cog_deg, own_sog_kn;
    /* the report being read: TTMs since the last OSD that should have raised an alarm */
    uint32_t want_alarm[100];
    bool alarm_seen[100];
    /* tallies */
    uint64_t sentences, bad;   /* sentences read; ones that are not OSD/TTM/ALR or malformed */
    uint64_t osd, ttm, ttm_lost, alr, alr_active;
    uint64_t checked;          /* TTMs whose CPA was recomputed */
    uint64_t tcpa_checked;     /* ... and whose TCPA was judged */
    uint64_t mismatches;       /* TTMs whose CPA or TCPA is outside the recomputed range */
    uint64_t no_own;           /* TTMs without a valid OSD before them */
    uint64_t alarms_expected, alarms_missing, alarms_spurious;
    double worst_cpa_nm;       /* largest |reported - recomputed at the box centre| */
    double worst_tcpa_min;
    char first_mismatch[320];  /* the first mismatching TTM and why */
} rtm_replay_check_t;

void rtm_replay_check_init(rtm_replay_check_t *c, double alarm_cpa_m, double alarm_tcpa_s);

/* Judges one framed sentence from rtmgr's output (any talker; OSD, TTM, ALR).
 * Returns 1 when it was a TTM that failed, else 0. */
int rtm_replay_check_sentence(rtm_replay_check_t *c, const rtm_nmea_sentence_t *s);

/* Closes the last report (pending alarm expectations). Call once at the end. */
void rtm_replay_check_finish(rtm_replay_check_t *c);

/* CPA (m) and TCPA (s) of a target at `dist_nm`, bearing `brg_deg` from own ship, with
 * speed/course `sog_kn`/`cog_deg`, own ship making `own_sog_kn` on `own_cog_deg`: the
 * kernels' CPU code (nav_velocity, nav_cpa). Pure. */
void rtm_replay_cpa(double dist_nm, double brg_deg, double sog_kn, double cog_deg,
                    double own_sog_kn, double own_cog_deg, double *cpa_m, double *tcpa_s);

#endif
