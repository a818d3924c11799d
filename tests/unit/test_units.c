/* test_units.c — quantities with units: parsing, exactness, printing round trips. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rtmgr/units.h"

static int64_t ns_of(const char *text)
{
    int64_t ns = -12345;
    char why[128];
    assert_int_equal(rtm_units_parse_ns(text, &ns, why, sizeof(why)), RTM_OK);
    return ns;
}

static void expect_ns_error(const char *text, const char *fragment)
{
    int64_t ns;
    char why[128] = "";
    assert_int_equal(rtm_units_parse_ns(text, &ns, why, sizeof(why)), RTM_E_CFG_VALUE);
    if (!strstr(why, fragment))
        fail_msg("'%s': expected '%s' in '%s'", text, fragment, why);
}

static void test_durations(void **state)
{
    (void)state;
    assert_int_equal(ns_of("100ms"), 100000000);
    assert_int_equal(ns_of("0.1s"), 100000000);
    assert_int_equal(ns_of("1.5us"), 1500);
    assert_int_equal(ns_of("250ns"), 250);
    assert_int_equal(ns_of("2min"), 120000000000);
    assert_int_equal(ns_of("2e3us"), 2000000);
    assert_int_equal(ns_of("3 ms"), 3000000);
    assert_int_equal(ns_of("7\xc2\xb5s"), 7000);
    assert_int_equal(ns_of("-5ms"), -5000000);
    assert_int_equal(ns_of("0ms"), 0);
    assert_int_equal(ns_of("0.000000001s"), 1);
    expect_ns_error("100", "needs a unit: us, ms or s");
    expect_ns_error("100sec", "unknown unit 'sec'");
    expect_ns_error("1.5ns", "not a whole number of nanoseconds");
    expect_ns_error("ms", "must be a number");
    expect_ns_error("", "needs a value");
    expect_ns_error("1e30s", "too large");
    expect_ns_error("99999999999999999999999s", "too");
    expect_ns_error("10 MB", "unknown unit 'MB'");
    expect_ns_error("nan s", "must be a number");
}

static void test_bytes(void **state)
{
    (void)state;
    uint64_t b;
    char why[128];
    assert_int_equal(rtm_units_parse_bytes("512MiB", &b, why, sizeof(why)), RTM_OK);
    assert_true(b == 512ull << 20);
    assert_int_equal(rtm_units_parse_bytes("1.5KiB", &b, why, sizeof(why)), RTM_OK);
    assert_true(b == 1536);
    assert_int_equal(rtm_units_parse_bytes("2GB", &b, why, sizeof(why)), RTM_OK);
    assert_true(b == 2000000000ull);
    assert_int_equal(rtm_units_parse_bytes("64B", &b, why, sizeof(why)), RTM_OK);
    assert_true(b == 64);
    assert_int_equal(rtm_units_parse_bytes("1000", &b, why, sizeof(why)), RTM_E_CFG_VALUE);
    assert_non_null(strstr(why, "needs a unit"));
    assert_int_equal(rtm_units_parse_bytes("-1KiB", &b, why, sizeof(why)), RTM_E_CFG_VALUE);
    assert_non_null(strstr(why, "negative"));
    assert_int_equal(rtm_units_parse_bytes("0.5B", &b, why, sizeof(why)), RTM_E_CFG_VALUE);
    assert_int_equal(rtm_units_parse_bytes("99999999TiB", &b, why, sizeof(why)), RTM_E_CFG_VALUE);
}

static void test_other_classes(void **state)
{
    (void)state;
    double v;
    char why[128];
    assert_int_equal(rtm_units_parse("12nm", RTM_UNIT_DISTANCE, &v, why, sizeof(why)), RTM_OK);
    assert_true(v == 12.0 * 1852.0);
    assert_int_equal(rtm_units_parse("2.5km", RTM_UNIT_DISTANCE, &v, why, sizeof(why)), RTM_OK);
    assert_true(v == 2500.0);
    assert_int_equal(rtm_units_parse("5GB/s", RTM_UNIT_RATE, &v, why, sizeof(why)), RTM_OK);
    assert_true(v == 5e9);
    assert_int_equal(rtm_units_parse("1GiB/s", RTM_UNIT_RATE, &v, why, sizeof(why)), RTM_OK);
    assert_true(v == 1073741824.0);
    assert_int_equal(rtm_units_parse("1.5us", RTM_UNIT_TIME, &v, why, sizeof(why)), RTM_OK);
    assert_true(v == 1.5 / 1e6);
    assert_int_equal(rtm_units_parse("4", RTM_UNIT_COUNT, &v, why, sizeof(why)), RTM_OK);
    assert_true(v == 4.0);
    assert_int_equal(rtm_units_parse("4x", RTM_UNIT_COUNT, &v, why, sizeof(why)), RTM_E_CFG_VALUE);
    assert_non_null(strstr(why, "without a unit"));
    assert_int_equal(rtm_units_parse("5", RTM_UNIT_RATE, &v, why, sizeof(why)), RTM_E_CFG_VALUE);
    assert_non_null(strstr(why, "needs a unit"));
    assert_int_equal(rtm_units_parse("inf", RTM_UNIT_TIME, &v, why, sizeof(why)), RTM_E_CFG_VALUE);
}

/* Every printed value reads back to the same double. */
static void test_format_round_trip(void **state)
{
    (void)state;
    const double times[] = {0.0, 1e-9, 0.5e-9, 0.7e-9, 1.5e-6, 1e-3, 0.3, 2.0, 123.456,
                            3.3e-7, 1.0 / 3.0, 6.02e-8, 1e-15, 4e5};
    const rtm_unit_t units[] = {RTM_UNIT_TIME, RTM_UNIT_BYTES, RTM_UNIT_RATE, RTM_UNIT_DISTANCE,
                                RTM_UNIT_COUNT};
    for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
        for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
            const double v = units[u] == RTM_UNIT_TIME ? times[i] : times[i] * 1e10;
            char buf[64], why[128];
            double back = -1;
            rtm_units_format(v, units[u], buf, sizeof(buf));
            assert_int_equal(rtm_units_parse(buf, units[u], &back, why, sizeof(why)), RTM_OK);
            if (back != v)
                fail_msg("%.17g printed as '%s' reads back as %.17g", v, buf, back);
        }
    }
    char buf[64];
    rtm_units_format(0.5e-9, RTM_UNIT_TIME, buf, sizeof(buf));
    assert_string_equal(buf, "0.5ns");
    rtm_units_format(5e9, RTM_UNIT_RATE, buf, sizeof(buf));
    assert_string_equal(buf, "5GB/s");
    rtm_units_format(22224.0, RTM_UNIT_DISTANCE, buf, sizeof(buf));
    assert_string_equal(buf, "12nm");
    rtm_units_format(300e-3, RTM_UNIT_TIME, buf, sizeof(buf));
    assert_string_equal(buf, "300ms");
}

static void test_format_exact(void **state)
{
    (void)state;
    char buf[64];
    rtm_units_format_ns(100000000, buf, sizeof(buf));
    assert_string_equal(buf, "100ms");
    rtm_units_format_ns(1500000, buf, sizeof(buf));
    assert_string_equal(buf, "1.5ms");
    rtm_units_format_ns(250, buf, sizeof(buf));
    assert_string_equal(buf, "250ns");
    rtm_units_format_ns(-5000000, buf, sizeof(buf));
    assert_string_equal(buf, "-5ms");
    rtm_units_format_ns(1000000001, buf, sizeof(buf));
    assert_string_equal(buf, "1.000000001s");
    const int64_t ns[] = {0, 1, 999, 1001, 123456789, INT64_MAX, -INT64_MAX};
    for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
        rtm_units_format_ns(ns[i], buf, sizeof(buf));
        assert_int_equal(ns_of(buf), ns[i]);
    }
    rtm_units_format_bytes(512ull << 20, buf, sizeof(buf));
    assert_string_equal(buf, "512MiB");
    rtm_units_format_bytes(1500, buf, sizeof(buf));
    assert_string_equal(buf, "1500B");
    rtm_units_format_bytes(3072, buf, sizeof(buf));
    assert_string_equal(buf, "3KiB");
    rtm_units_human_bytes(3ull << 30, buf, sizeof(buf));
    assert_string_equal(buf, "3.0GiB");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_durations),         cmocka_unit_test(test_bytes),
        cmocka_unit_test(test_other_classes),     cmocka_unit_test(test_format_round_trip),
        cmocka_unit_test(test_format_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
