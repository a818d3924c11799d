/* units.c — parsing and printing quantities with units (see units.h).
 *
 * Owns the unit tables. A quantity is scanned once into an exact decimal form
 * (integer mantissa and power of ten): exact conversions (nanoseconds, bytes) work on
 * that form with overflow checks; floating conversions use strtod on the number's
 * text (correctly rounded; rtmgr never calls setlocale, so '.' is the decimal point)
 * and then one multiplication or division by an exact factor, so that printing can
 * search for the shortest text that reads back to the same double. */
#include "units.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name;
    double mul, div;  /* base = number * mul / div (one of them is 1) */
    uint64_t exact;   /* factor to ns (TIME) or bytes (BYTES); 0 = none */
} unit_def_t;

static const unit_def_t time_units[] = {
    {"ns", 1, 1e9, 1ull},           {"us", 1, 1e6, 1000ull},
    {"\xc2\xb5s", 1, 1e6, 1000ull}, {"ms", 1, 1e3, 1000000ull},
    {"s", 1, 1, 1000000000ull},     {"min", 60, 1, 60000000000ull},
};
static const unit_def_t byte_units[] = {
    {"B", 1, 1, 1ull},
    {"KiB", 1024.0, 1, 1ull << 10},
    {"MiB", 1048576.0, 1, 1ull << 20},
    {"GiB", 1073741824.0, 1, 1ull << 30},
    {"TiB", 1099511627776.0, 1, 1ull << 40},
    {"KB", 1e3, 1, 1000ull},
    {"MB", 1e6, 1, 1000000ull},
    {"GB", 1e9, 1, 1000000000ull},
    {"TB", 1e12, 1, 1000000000000ull},
};
static const unit_def_t rate_units[] = {
    {"B/s", 1, 1, 0},           {"KB/s", 1e3, 1, 0},          {"MB/s", 1e6, 1, 0},
    {"GB/s", 1e9, 1, 0},        {"KiB/s", 1024.0, 1, 0},      {"MiB/s", 1048576.0, 1, 0},
    {"GiB/s", 1073741824.0, 1, 0},
};
static const unit_def_t distance_units[] = {
    {"m", 1, 1, 0},
    {"km", 1000, 1, 0},
    {"nm", 1852, 1, 0},
};
static const unit_def_t count_units[] = {
    {"", 1, 1, 0},
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static const unit_def_t *class_table(rtm_unit_t unit, size_t *n)
{
    switch (unit) {
    case RTM_UNIT_TIME:
        *n = COUNT_OF(time_units);
        return time_units;
    case RTM_UNIT_BYTES:
        *n = COUNT_OF(byte_units);
        return byte_units;
    case RTM_UNIT_RATE:
        *n = COUNT_OF(rate_units);
        return rate_units;
    case RTM_UNIT_DISTANCE:
        *n = COUNT_OF(distance_units);
        return distance_units;
    case RTM_UNIT_COUNT:
    default:
        *n = COUNT_OF(count_units);
        return count_units;
    }
}

const char *rtm_units_list(rtm_unit_t unit)
{
    switch (unit) {
    case RTM_UNIT_TIME:
        return "ns, us, ms, s or min";
    case RTM_UNIT_BYTES:
        return "B, KiB, MiB, GiB, TiB, KB, MB, GB or TB";
    case RTM_UNIT_RATE:
        return "B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s or GiB/s";
    case RTM_UNIT_DISTANCE:
        return "m, km or nm";
    case RTM_UNIT_COUNT:
    default:
        return "no unit";
    }
}

/* The short list used when the unit is missing: the usual choices only. */
static const char *usual_units(rtm_unit_t unit)
{
    switch (unit) {
    case RTM_UNIT_TIME:
        return "us, ms or s";
    case RTM_UNIT_BYTES:
        return "B, KiB, MiB or GiB";
    case RTM_UNIT_RATE:
        return "MB/s, GB/s or GiB/s";
    case RTM_UNIT_DISTANCE:
        return "m, km or nm";
    case RTM_UNIT_COUNT:
    default:
        return "none";
    }
}

/* A decimal number as written: value = (neg ? -1 : 1) * mant * 10^exp10. */
typedef struct {
    bool neg;
    bool inexact; /* more significant digits than fit in mant */
    uint64_t mant;
    int exp10;
    size_t end; /* index just after the number */
} number_t;

static void add_digit(number_t *n, unsigned d, bool fraction)
{
    if (n->mant <= (UINT64_MAX - 9u) / 10u) {
        n->mant = n->mant * 10u + d;
        if (fraction)
            n->exp10--;
    } else {
        if (d)
            n->inexact = true;
        if (!fraction)
            n->exp10++;
    }
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool scan_number(const char *s, number_t *n)
{
    size_t i = 0, digits = 0;
    memset(n, 0, sizeof(*n));
    if (s[i] == '+' || s[i] == '-')
        n->neg = s[i++] == '-';
    for (; is_digit(s[i]); i++, digits++)
        add_digit(n, (unsigned)(s[i] - '0'), false);
    if (s[i] == '.')
        for (i++; is_digit(s[i]); i++, digits++)
            add_digit(n, (unsigned)(s[i] - '0'), true);
    if (digits == 0)
        return false;
    if ((s[i] == 'e' || s[i] == 'E') &&
        (is_digit(s[i + 1]) || ((s[i + 1] == '+' || s[i + 1] == '-') && is_digit(s[i + 2])))) {
        int sign = 1, e = 0;
        i++;
        if (s[i] == '+' || s[i] == '-')
            sign = s[i++] == '-' ? -1 : 1;
        for (; is_digit(s[i]); i++)
            if (e < 100000)
                e = e * 10 + (s[i] - '0');
        n->exp10 += sign * e;
    }
    n->end = i;
    return true;
}

/* Splits `text` into number and unit; finds the unit in the class table. */
static rtm_status_t split(const char *text, rtm_unit_t unit, number_t *n, const unit_def_t **def,
                          char *why, size_t len)
{
    if (!text || !*text) {
        snprintf(why, len, "needs a value");
        return RTM_E_CFG_VALUE;
    }
    if (!scan_number(text, n)) {
        if (unit == RTM_UNIT_COUNT)
            snprintf(why, len, "must be a number");
        else
            snprintf(why, len, "must be a number with a unit (%s)", usual_units(unit));
        return RTM_E_CFG_VALUE;
    }
    const char *u = text + n->end;
    while (*u == ' ')
        u++;
    size_t ulen = strlen(u);
    while (ulen && u[ulen - 1] == ' ')
        ulen--;
    size_t count;
    const unit_def_t *table = class_table(unit, &count);
    for (size_t i = 0; i < count; i++) {
        if (strlen(table[i].name) == ulen && strncmp(table[i].name, u, ulen) == 0) {
            *def = &table[i];
            return RTM_OK;
        }
    }
    if (unit == RTM_UNIT_COUNT)
        snprintf(why, len, "must be a plain number without a unit");
    else if (ulen == 0)
        snprintf(why, len, "needs a unit: %s", usual_units(unit));
    else
        snprintf(why, len, "has an unknown unit '%.*s'; expected %s", (int)(ulen > 16 ? 16 : ulen),
                 u, rtm_units_list(unit));
    return RTM_E_CFG_VALUE;
}

rtm_status_t rtm_units_parse(const char *text, rtm_unit_t unit, double *value, char *why,
                             size_t len)
{
    number_t n;
    const unit_def_t *def = NULL;
    const rtm_status_t st = split(text, unit, &n, &def, why, len);
    if (st != RTM_OK)
        return st;
    char num[128];
    if (n.end >= sizeof(num)) {
        snprintf(why, len, "has too many digits");
        return RTM_E_CFG_VALUE;
    }
    memcpy(num, text, n.end);
    num[n.end] = '\0';
    double x = strtod(num, NULL);
    if (def->mul != 1.0)
        x *= def->mul;
    if (def->div != 1.0)
        x /= def->div;
    if (!isfinite(x)) {
        snprintf(why, len, "is too large");
        return RTM_E_CFG_VALUE;
    }
    *value = x;
    return RTM_OK;
}

/* mant * factor * 10^exp10 as an exact unsigned integer. */
static rtm_status_t exact_value(const number_t *n, uint64_t factor, const char *what, uint64_t *out,
                                char *why, size_t len)
{
    uint64_t v;
    if (n->inexact) {
        snprintf(why, len, "has too many significant digits");
        return RTM_E_CFG_VALUE;
    }
    int exp10 = n->exp10;
    while (exp10 < 0 && factor % 10u == 0) { /* 0.1s: cancel powers of ten first */
        factor /= 10u;
        exp10++;
    }
    if (__builtin_mul_overflow(n->mant, factor, &v))
        goto too_large;
    for (int e = exp10; e > 0; e--)
        if (v != 0 && __builtin_mul_overflow(v, (uint64_t)10, &v))
            goto too_large;
    for (int e = exp10; e < 0; e++) {
        if (v % 10u) {
            snprintf(why, len, "is not a whole number of %s", what);
            return RTM_E_CFG_VALUE;
        }
        v /= 10u;
        if (v == 0)
            break;
    }
    *out = v;
    return RTM_OK;
too_large:
    snprintf(why, len, "is too large");
    return RTM_E_CFG_VALUE;
}

rtm_status_t rtm_units_parse_ns(const char *text, int64_t *ns, char *why, size_t len)
{
    number_t n;
    const unit_def_t *def = NULL;
    rtm_status_t st = split(text, RTM_UNIT_TIME, &n, &def, why, len);
    if (st != RTM_OK)
        return st;
    uint64_t v;
    st = exact_value(&n, def->exact, "nanoseconds", &v, why, len);
    if (st != RTM_OK)
        return st;
    if (v > (uint64_t)INT64_MAX) {
        snprintf(why, len, "is too large");
        return RTM_E_CFG_VALUE;
    }
    *ns = n.neg ? -(int64_t)v : (int64_t)v;
    return RTM_OK;
}

rtm_status_t rtm_units_parse_bytes(const char *text, uint64_t *bytes, char *why, size_t len)
{
    number_t n;
    const unit_def_t *def = NULL;
    rtm_status_t st = split(text, RTM_UNIT_BYTES, &n, &def, why, len);
    if (st != RTM_OK)
        return st;
    uint64_t v;
    st = exact_value(&n, def->exact, "bytes", &v, why, len);
    if (st != RTM_OK)
        return st;
    if (n.neg && v != 0) {
        snprintf(why, len, "must not be negative");
        return RTM_E_CFG_VALUE;
    }
    *bytes = v;
    return RTM_OK;
}

/* The unit a value of class `unit` is printed in. */
static const unit_def_t *format_unit(double v, rtm_unit_t unit)
{
    const double a = fabs(v);
    switch (unit) {
    case RTM_UNIT_TIME:
        return a >= 1.0    ? &time_units[4]
               : a >= 1e-3 ? &time_units[3]
               : a >= 1e-6 ? &time_units[1]
                           : &time_units[0];
    case RTM_UNIT_BYTES:
        return a >= 1099511627776.0 ? &byte_units[4]
               : a >= 1073741824.0  ? &byte_units[3]
               : a >= 1048576.0     ? &byte_units[2]
               : a >= 1024.0        ? &byte_units[1]
                                    : &byte_units[0];
    case RTM_UNIT_RATE:
        return a >= 1e9 ? &rate_units[3] : a >= 1e6 ? &rate_units[2] : a >= 1e3 ? &rate_units[1] : &rate_units[0];
    case RTM_UNIT_DISTANCE:
        return a >= 1852.0 ? &distance_units[2] : &distance_units[0];
    case RTM_UNIT_COUNT:
    default:
        return &count_units[0];
    }
}

/* Tries precisions 1..17 of x in unit `def`; true when one reads back to v. */
static bool format_in(double v, double x, const unit_def_t *def, rtm_unit_t unit, bool allow_exp,
                      char *out, size_t out_len)
{
    for (int p = 1; p <= 17; p++) {
        char tmp[64], why[8];
        snprintf(tmp, sizeof(tmp), "%.*g%s", p, x, def->name);
        if (!allow_exp && strpbrk(tmp, "eE"))
            continue;
        double y;
        if (rtm_units_parse(tmp, unit, &y, why, sizeof(why)) == RTM_OK && y == v) {
            snprintf(out, out_len, "%s", tmp);
            return true;
        }
    }
    return false;
}

int rtm_units_format(double value, rtm_unit_t unit, char *buf, size_t len)
{
    char out[64];
    if (!isfinite(value))
        return snprintf(buf, len, "%g", value);
    const unit_def_t *def = format_unit(value, unit);
    double x = value;
    if (def->mul != 1.0)
        x /= def->mul;
    if (def->div != 1.0)
        x *= def->div;
    size_t n;
    const unit_def_t *table = class_table(unit, &n), *base = table;
    for (size_t i = 0; i < n; i++)
        if (table[i].mul == 1.0 && table[i].div == 1.0)
            base = &table[i];
    if (!format_in(value, x, def, unit, false, out, sizeof(out)) &&
        !format_in(value, value, base, unit, true, out, sizeof(out)))
        snprintf(out, sizeof(out), "%.17g%s", value, base->name);
    return snprintf(buf, len, "%s", out);
}

/* Writes magnitude / factor exactly as a decimal, trimmed ("1.5"). */
static int format_exact(bool neg, uint64_t mag, uint64_t factor, int digits, const char *name,
                        char *buf, size_t len)
{
    const uint64_t q = mag / factor, r = mag % factor;
    if (r == 0)
        return snprintf(buf, len, "%s%" PRIu64 "%s", neg ? "-" : "", q, name);
    char frac[24];
    snprintf(frac, sizeof(frac), "%0*" PRIu64, digits, r);
    size_t fl = strlen(frac);
    while (fl > 1 && frac[fl - 1] == '0')
        frac[--fl] = '\0';
    return snprintf(buf, len, "%s%" PRIu64 ".%s%s", neg ? "-" : "", q, frac, name);
}

int rtm_units_format_ns(int64_t ns, char *buf, size_t len)
{
    const bool neg = ns < 0;
    const uint64_t mag = neg ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    if (mag >= 1000000000ull)
        return format_exact(neg, mag, 1000000000ull, 9, "s", buf, len);
    if (mag >= 1000000ull)
        return format_exact(neg, mag, 1000000ull, 6, "ms", buf, len);
    if (mag >= 1000ull)
        return format_exact(neg, mag, 1000ull, 3, "us", buf, len);
    return format_exact(neg, mag, 1ull, 0, "ns", buf, len);
}

int rtm_units_format_bytes(uint64_t bytes, char *buf, size_t len)
{
    for (size_t i = 4; i >= 1; i--)
        if (bytes >= byte_units[i].exact && bytes % byte_units[i].exact == 0)
            return snprintf(buf, len, "%" PRIu64 "%s", bytes / byte_units[i].exact,
                            byte_units[i].name);
    return snprintf(buf, len, "%" PRIu64 "B", bytes);
}

int rtm_units_human_bytes(uint64_t bytes, char *buf, size_t len)
{
    for (size_t i = 4; i >= 1; i--)
        if (bytes >= byte_units[i].exact)
            return snprintf(buf, len, "%.1f%s", (double)bytes / (double)byte_units[i].exact,
                            byte_units[i].name);
    return snprintf(buf, len, "%" PRIu64 "B", bytes);
}
