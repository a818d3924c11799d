/* units.h — quantities with units, as written in task sets and board profiles.
 *
 * Unit classes and the suffixes they accept (a number, optional spaces, the suffix):
 *   TIME      ns us µs ms s min            -> seconds (double) or nanoseconds (exact)
 *   BYTES     B KiB MiB GiB TiB KB MB GB TB -> bytes
 *   RATE      B/s KB/s MB/s GB/s KiB/s MiB/s GiB/s -> bytes per second
 *   DISTANCE  m km nm (nautical mile, 1852 m)      -> metres
 *   COUNT     no suffix                     -> plain number
 * A unit is required for every class but COUNT. Numbers are decimal with an optional
 * fraction and exponent (1.5us, 2e3ms); no inf, nan, hex or digit separators.
 *
 * The class names match the unit tokens of RTM_DEV_PARAMS / RTM_CPU_PARAMS (board.h),
 * so RTM_UNIT_##unit names the class of a parameter.
 *
 * Everything here is pure (no allocation, no global state): safe anywhere. */
#ifndef RTM_UNITS_H
#define RTM_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef enum { RTM_UNIT_TIME, RTM_UNIT_BYTES, RTM_UNIT_RATE, RTM_UNIT_DISTANCE, RTM_UNIT_COUNT } rtm_unit_t;

/* Parses `text` as a quantity of class `unit` into SI base units (s, B, B/s, m, 1).
 * Returns RTM_OK, or RTM_E_CFG_VALUE with `why` saying what is wrong, worded to follow
 * the key's name ("needs a unit: us, ms or s"). */
rtm_status_t rtm_units_parse(const char *text, rtm_unit_t unit, double *value, char *why,
                             size_t len);

/* Parses a TIME quantity exactly into integer nanoseconds ("0.1s" -> 100000000).
 * Fails when the value is not a whole number of nanoseconds or overflows int64. */
rtm_status_t rtm_units_parse_ns(const char *text, int64_t *ns, char *why, size_t len);

/* Parses a BYTES quantity exactly ("1.5KiB" -> 1536). Negative values fail. */
rtm_status_t rtm_units_parse_bytes(const char *text, uint64_t *bytes, char *why, size_t len);

/* Writes `value` (SI base units) with a readable unit, choosing the shortest number that
 * rtm_units_parse() reads back to exactly `value` ("0.5ns", "5GB/s"). Returns the length
 * written (as snprintf). */
int rtm_units_format(double value, rtm_unit_t unit, char *buf, size_t len);

/* Writes nanoseconds exactly with the largest fitting unit ("100ms", "1.5ms", "250ns").
 * rtm_units_parse_ns() reads it back exactly. */
int rtm_units_format_ns(int64_t ns, char *buf, size_t len);

/* Writes bytes exactly with the largest binary unit that divides them ("512MiB",
 * "3KiB", "1500B"). rtm_units_parse_bytes() reads it back exactly. */
int rtm_units_format_bytes(uint64_t bytes, char *buf, size_t len);

/* Human-readable bytes for tables, rounded ("12.0MiB"). Not for saving. */
int rtm_units_human_bytes(uint64_t bytes, char *buf, size_t len);

/* The accepted suffixes of a class, for messages ("ns, us, ms, s or min"). */
const char *rtm_units_list(rtm_unit_t unit);

#endif
