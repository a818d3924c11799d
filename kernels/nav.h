/* nav.h — what the navigation kernels (trajectory, cpa_tcpa, cpa_pairs, manoeuvre,
 * last_chance) share on the host side: buffer layout, random traffic, traffic snapshots,
 * CSV input, output comparison and the ranking of manoeuvres.
 *
 * Every navigation kernel has buffer 0 = own ship (rtm_nav_own_t) and buffer 1 = the
 * targets (NAV_FIELDS rows of n floats, see kernels/nav_math.h); its outputs follow. */
#ifndef RTM_NAV_H
#define RTM_NAV_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/nav_math.h"
#include "rtmgr/kernel.h"

struct rtm_traffic;

/* Buffer 0 of every navigation kernel. The kernels read the first five floats. */
typedef struct {
    float x, y;    /* own ship in the plane (0, 0 for traffic pictures) */
    float sog;     /* m/s */
    float cog;     /* rad, clockwise from north */
    float rot;     /* rad/s, + starboard */
    float pad[3];
    double lat0, lon0; /* plane origin, degrees (host only: CSV output) */
    double pad2[2];
} rtm_nav_own_t;
_Static_assert(sizeof(rtm_nav_own_t) == NAV_OWN_FLOATS * sizeof(float), "own buffer layout");

/* Buffer indices. */
enum { RTM_NAV_OWN = 0, RTM_NAV_TGT = 1 };
enum { RTM_TRAJ_XY = 2 };                                    /* trajectory */
enum { RTM_CPA_CPA = 2, RTM_CPA_TCPA = 3, RTM_CPA_FLAG = 4 }; /* cpa_tcpa */
enum { RTM_PAIRS_PF = 2, RTM_PAIRS_PU = 3, RTM_PAIRS_OF = 4, RTM_PAIRS_OU = 5 }; /* cpa_pairs */
enum { RTM_MAN_PART = 2, RTM_MAN_OUT = 3 };                  /* manoeuvre, last_chance */

/* cpa_pairs: partners listed per ship (the first ones, by index) and uints per ship in
 * the RTM_PAIRS_OU output: partner of the minimum, pairs in the domain, the list. */
#define RTM_PAIRS_LIST 4
#define RTM_PAIRS_U (2 + RTM_PAIRS_LIST)

/* Bytes of the target buffer for n slots. */
size_t rtm_nav_tgt_bytes(uint32_t n);

/* Plausible random traffic from `seed`: own ship at the origin, 4-8 m/s on a random
 * course; n targets uniform in a disc of `radius` m, 0-15 m/s, random courses, one in
 * five turning at up to 0.6 deg/s; a tenth of them set on a collision course with own
 * ship. Deterministic. Real-time safe (no allocation), but meant for tests and benchmarks. */
void rtm_nav_fill(rtm_nav_own_t *own, float *tgt, uint32_t n, uint64_t seed, float radius);

/* Copies a traffic snapshot into the buffers: own ship into *own; targets into the n
 * slots of tgt (after own ship when own_as_ship0, which then takes slot 0). Extra targets
 * are dropped, missing slots marked absent. Returns the absent slots (they are the last
 * ones). Real-time safe. */
uint32_t rtm_nav_load_traffic(rtm_nav_own_t *own, float *tgt, uint32_t n,
                              const struct rtm_traffic *t, int own_as_ship0);

/* Target slots of k's n that hold a target (k->absent: the last ones do not). Pure. */
uint32_t rtm_nav_live(const rtm_kinst_t *k, uint32_t n);

/* Operations per work-item of a kernel with one item per target slot (or per slot and
 * step), averaged over live and absent slots: Z and the CPU classes from a live item's
 * and an absent item's count and unit-stride accesses (the register class is the rest,
 * less the block entry's 2). Pure. */
void rtm_nav_item_ops(const rtm_kinst_t *k, uint32_t n, double z_live, double unit_live,
                      double z_dead, double unit_dead, rtm_cost_t *c);

/* CSV input of `rtmgr eval`: rows `lat_deg,lon_deg,sog_kn,cog_deg[,rot_deg_per_min]`,
 * comma-separated; blank lines and lines starting with '#' are skipped, and a first line
 * that does not start with a number is a header. Counts the data rows. Init only. */
rtm_status_t rtm_nav_csv_rows(const char *text, uint32_t *rows, char *why, size_t len);

/* csv_size hook shared by the navigation kernels: size key 0 (targets or ships) becomes
 * the number of rows, less one when row 1 is own ship (own_first). */
rtm_status_t rtm_nav_csv_size(rtm_kinst_t *k, const char *text, int own_first, char *why,
                              size_t len);

/* Loads the rows: row 1 fixes the plane's origin. With own_first, row 1 is own ship and
 * rows 2.. fill the target slots; otherwise every row fills a target slot and own ship
 * is row 1 as well. Slots beyond the rows are absent. Init only. */
rtm_status_t rtm_nav_csv_load(const char *text, rtm_nav_own_t *own, float *tgt, uint32_t n,
                              int own_first, char *why, size_t len);

/* Compares n floats: equal (also both infinite of one sign, or both NaN) or within
 * tol * max(1, |y|). Returns the count outside, the first in `why`. Safe anywhere. */
size_t rtm_nav_compare(const float *x, const float *y, size_t n, float tol, const char *what,
                       char *why, size_t len);

/* Manoeuvre search (manoeuvre and last_chance instances): number of candidates, the
 * course offset (rad, + starboard) and speed factor of candidate m, and its output
 * (cost, predicted minimum distance m, its time s, index of that target or -1).
 * Pure; real-time safe. */
uint32_t rtm_nav_manoeuvres(const rtm_kinst_t *k);
void rtm_nav_manoeuvre_of(const rtm_kinst_t *k, uint32_t m, float *off, float *fac);
const float *rtm_nav_manoeuvre_out(const rtm_kinst_t *k, uint32_t m);
/* Ranks the candidates by cost, ties by index (stable): order[0] is the best. Real-time
 * safe (insertion sort, no allocation). Returns the number ranked. */
uint32_t rtm_nav_rank(const rtm_kinst_t *k, uint32_t *order);

/* The hooks every navigation kernel's descriptor names, all static functions of its .c
 * file under these names; the kernel adds its name, source, entries, keys, launch and
 * args. */
#define RTM_NAV_KERNEL_HOOKS                                                                   \
    .vec_allowed = 1u << 1, .tune_default = {128, 1}, .plan = plan, .options = options,         \
    .fill = fill, .cpu_block = cpu_block, .cost = cost, .compare = compare,                    \
    .load_traffic = load_traffic, .summary = summary, .csv_size = csv_size,                    \
    .csv_load = csv_load, .csv_write = csv_write

#endif
