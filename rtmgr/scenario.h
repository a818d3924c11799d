/* scenario.h — the built-in synthetic traffic scenario (`input: scenario: {targets,
 * seed, radius}`): seeded targets around own ship, moving by dead reckoning.
 *
 * Generation (rtm_scenario_init, from the seed only): own ship at 54.5 N 18.7 E doing
 * 12 kn on a random course; each target at a uniform position in the disc of the given
 * radius, speed uniform in 0..25 kn, course uniform; about one in five turns at a
 * constant rate (0.1..1 deg/s, either side); about one in ten is on a collision course:
 * straight at 5..25 kn, placed so that it reaches own ship after 2..20 minutes.
 *
 * The picture is a pure function of time: every target moves on a straight line or a
 * circle from its initial state, own ship on a straight line; the picture is the
 * targets' positions relative to own ship, folded onto a square of side 4 * radius
 * around it so that traffic stays dense in long runs. Nothing mutable is shared but
 * the picture time: the writer (the release thread, rtm_scenario_advance) publishes a
 * (sequence, time) pair under a two-word seqlock; a reader (a dispatcher,
 * rtm_scenario_snapshot) reads a consistent pair and computes its own copy of the
 * picture. A snapshot is therefore never torn, and two readers of one sequence number
 * get identical pictures. */
#ifndef RTM_SCENARIO_H
#define RTM_SCENARIO_H

#include <stdatomic.h>
#include <stdint.h>

#include "limits.h"
#include "status.h"
#include "traffic.h"

typedef enum { RTM_SCN_STRAIGHT, RTM_SCN_TURNING, RTM_SCN_COLLISION } rtm_scenario_kind_t;

/* The scenario. About 0.5 MB at the default RTM_MAX_TARGETS: give it static storage
 * or allocate it once at init. Fields are private. */
typedef struct {
    uint32_t n;
    double radius_m;
    int64_t t0_ns;                 /* scenario time 0 (CLOCK_MONOTONIC) */
    double own_lat0, own_lon0;     /* own ship at t0 */
    double own_vx, own_vy;         /* m/s, east / north */
    float own_sog, own_cog;
    double x0[RTM_MAX_TARGETS], y0[RTM_MAX_TARGETS]; /* at t0, absolute plane at t0 */
    float sog[RTM_MAX_TARGETS], cog0[RTM_MAX_TARGETS], rot[RTM_MAX_TARGETS];
    double sin0[RTM_MAX_TARGETS], cos0[RTM_MAX_TARGETS]; /* of cog0 */
    uint8_t kind[RTM_MAX_TARGETS];
    float t_cpa[RTM_MAX_TARGETS];  /* collision targets: seconds to reach own ship */
    _Alignas(64) _Atomic uint64_t lock; /* odd while the writer updates */
    _Atomic uint64_t seq;
    _Atomic int64_t t_ns;
} rtm_scenario_t;

/* Generates `targets` (1..RTM_MAX_TARGETS) targets from `seed` within `radius_m`
 * (> 0) of own ship; time 0 is t0_ns, which is also the first picture. Init only. */
rtm_status_t rtm_scenario_init(rtm_scenario_t *s, uint32_t targets, uint64_t seed,
                               double radius_m, int64_t t0_ns);

/* Moves the picture to now_ns (writer: one thread). Real-time safe, O(1). */
void rtm_scenario_advance(rtm_scenario_t *s, int64_t now_ns);

/* Computes the latest published picture into *out: header and the first n entries of
 * each array. Any thread, any number of readers. Real-time safe, O(n), lock-free. */
void rtm_scenario_snapshot(const rtm_scenario_t *s, rtm_traffic_t *out);

/* The picture at time t_ns labelled `seq` (pure). Real-time safe, O(n). */
void rtm_scenario_at(const rtm_scenario_t *s, int64_t t_ns, uint64_t seq, rtm_traffic_t *out);

/* Adapters for rtm_exec_input_t (ctx = the scenario). */
void rtm_scenario_advance_cb(void *ctx, int64_t now_ns);
void rtm_scenario_snapshot_cb(void *ctx, rtm_traffic_t *out);
/* rtm_exec_input_t.targets: the scenario's target count (every picture has them all). */
uint32_t rtm_scenario_targets_cb(void *ctx);

#endif
