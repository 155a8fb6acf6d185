/*
 * core/timefmt: RFC 3339 formatting and parsing, the civil-calendar helpers,
 * and round trips over a table and seeded pseudo-random instants (checked
 * against the C library's gmtime_r as an independent oracle).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/timefmt.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

#define MS_YEAR_1 INT64_C(-62135596800000)        /* 0001-01-01T00:00:00Z */
#define MS_YEAR_9999_END INT64_C(253402300799999) /* 9999-12-31T23:59:59.999Z */

/* ---- formatting ---- */

struct fmt_case {
    int64_t ms;
    const char *text;
};

static const struct fmt_case fmt_cases[] = {
    {0, "1970-01-01T00:00:00.000Z"},
    {1, "1970-01-01T00:00:00.001Z"},
    {999, "1970-01-01T00:00:00.999Z"},
    {1000, "1970-01-01T00:00:01.000Z"},
    {-1, "1969-12-31T23:59:59.999Z"},
    {-999, "1969-12-31T23:59:59.001Z"},
    {-1000, "1969-12-31T23:59:59.000Z"},
    {-1001, "1969-12-31T23:59:58.999Z"},
    {-86400000, "1969-12-31T00:00:00.000Z"},
    {-86400001, "1969-12-30T23:59:59.999Z"},
    {-14182940000, "1969-07-20T20:17:40.000Z"},
    {951782400000, "2000-02-29T00:00:00.000Z"},
    {1709210096789, "2024-02-29T12:34:56.789Z"},
    {4107542400000, "2100-03-01T00:00:00.000Z"},
    {-2203891201000, "1900-02-28T23:59:59.000Z"},
    {-11670998400000, "1600-02-29T00:00:00.000Z"},
    {1483228799000, "2016-12-31T23:59:59.000Z"},
    {1773597600000, "2026-03-15T18:00:00.000Z"},
    {MS_YEAR_1, "0001-01-01T00:00:00.000Z"},
    {MS_YEAR_9999_END, "9999-12-31T23:59:59.999Z"},
};

static void test_format_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(fmt_cases); i++) {
        char out[TIME_RFC3339_LEN];
        memset(out, 'X', sizeof(out));
        time_format_ms(fmt_cases[i].ms, out);
        if (strcmp(out, fmt_cases[i].text) != 0)
            fail_msg("format(%lld) = %s, want %s", (long long)fmt_cases[i].ms, out,
                     fmt_cases[i].text);
    }
}

/* ---- parsing ---- */

struct parse_case {
    const char *text;
    int rc;
    int64_t ms;
};

/* clang-format off */
#define OK(s, v) {s, 0, INT64_C(v)}
#define BAD(s) {s, -1, 0}
/* clang-format on */

static const struct parse_case parse_cases[] = {
    OK("1970-01-01T00:00:00Z", 0),
    OK("1970-01-01T00:00:00.000Z", 0),
    OK("1969-12-31T23:59:59.999Z", -1),
    OK("2026-03-15T18:00:00Z", 1773597600000),
    /* lowercase t and z, space separator */
    OK("2026-03-15t18:00:00z", 1773597600000),
    OK("2026-03-15 18:00:00Z", 1773597600000),
    OK("2026-03-15T18:00:00z", 1773597600000),
    /* zone offsets */
    OK("2026-03-15T18:00:00+00:00", 1773597600000),
    OK("2026-03-15T18:00:00-00:00", 1773597600000),
    OK("2026-03-15T23:30:00+05:30", 1773597600000),
    OK("2026-03-15T10:00:00-08:00", 1773597600000),
    OK("2026-03-15T18:00:00+05:30", 1773577800000),
    OK("2026-03-15T18:00:00-08:00", 1773626400000),
    OK("2026-03-16T03:45:00+09:45", 1773597600000),
    OK("2026-03-15T00:00:00+23:59", 1773597600000 - 18 * 3600000 - 23 * 3600000 - 59 * 60000),
    OK("0001-01-01T05:30:00+05:30", -62135596800000),
    /* fractions: 1 to 9 digits, truncated to milliseconds; comma accepted */
    OK("2026-03-15T18:00:00.5Z", 1773597600500),
    OK("2026-03-15T18:00:00.12Z", 1773597600120),
    OK("2026-03-15T18:00:00.123Z", 1773597600123),
    OK("2026-03-15T18:00:00.1234Z", 1773597600123),
    OK("2026-03-15T18:00:00.12345Z", 1773597600123),
    OK("2026-03-15T18:00:00.123456Z", 1773597600123),
    OK("2026-03-15T18:00:00.1234567Z", 1773597600123),
    OK("2026-03-15T18:00:00.12345678Z", 1773597600123),
    OK("2026-03-15T18:00:00.123456789Z", 1773597600123),
    OK("2026-03-15T18:00:00.999999999Z", 1773597600999),
    OK("2026-03-15T18:00:00.000000001Z", 1773597600000),
    OK("2026-03-15T18:00:00.007+01:00", 1773594000007),
    OK("2026-03-15T18:00:00,5Z", 1773597600500),
    /* leap days */
    OK("2000-02-29T00:00:00Z", 951782400000),
    OK("2024-02-29T12:34:56.789Z", 1709210096789),
    OK("1600-02-29T00:00:00Z", -11670998400000),
    OK("2100-03-01T00:00:00Z", 4107542400000),
    /* a leap second is clamped to :59 */
    OK("2016-12-31T23:59:60Z", 1483228799000),
    /* range ends */
    OK("0001-01-01T00:00:00Z", -62135596800000),
    OK("9999-12-31T23:59:59.999Z", 253402300799999),
    /* invalid dates */
    BAD("2026-02-30T00:00:00Z"),
    BAD("2026-02-29T00:00:00Z"),
    BAD("1900-02-29T00:00:00Z"),
    BAD("2100-02-29T00:00:00Z"),
    BAD("2026-04-31T00:00:00Z"),
    BAD("2026-01-32T00:00:00Z"),
    BAD("2026-01-00T00:00:00Z"),
    BAD("2026-00-10T00:00:00Z"),
    BAD("2026-13-10T00:00:00Z"),
    BAD("0000-01-01T00:00:00Z"),
    /* invalid times */
    BAD("2026-03-15T24:00:00Z"),
    BAD("2026-03-15T23:60:00Z"),
    BAD("2026-03-15T23:59:61Z"),
    BAD("2026-03-15T99:00:00Z"),
    /* zone missing or malformed */
    BAD("2026-03-15T18:00:00"),
    BAD("2026-03-15T18:00:00.123"),
    BAD("2026-03-15T18:00:00+0530"),
    BAD("2026-03-15T18:00:00+05"),
    BAD("2026-03-15T18:00:00+5:30"),
    BAD("2026-03-15T18:00:00+24:00"),
    BAD("2026-03-15T18:00:00+05:60"),
    BAD("2026-03-15T18:00:00 Z"),
    BAD("2026-03-15T18:00:00UTC"),
    /* trailing characters */
    BAD("2026-03-15T18:00:00ZZ"),
    BAD("2026-03-15T18:00:00Z "),
    BAD("2026-03-15T18:00:00Z\n"),
    BAD("2026-03-15T18:00:00+05:30x"),
    BAD("2026-03-15T18:00:00+05:30:00"),
    /* structure */
    BAD(""),
    BAD("garbage"),
    BAD("2026-03-15"),
    BAD("2026-03-15T"),
    BAD("2026-03-15T18:00Z"),
    BAD("2026-3-15T18:00:00Z"),
    BAD("26-03-15T18:00:00Z"),
    BAD("20260315T180000Z"),
    BAD("2026/03/15T18:00:00Z"),
    BAD("2026-03-15X18:00:00Z"),
    BAD("2026-03-15T18.00.00Z"),
    BAD(" 2026-03-15T18:00:00Z"),
    BAD("+2026-03-15T18:00:00Z"),
    BAD("-2026-03-15T18:00:00Z"),
    BAD("2026-03-15T18:00:00.Z"),
    BAD("2026-03-15T18:00:00.+01:00"),
    BAD("2026-03-15T18:00:-1Z"),
    BAD("2026-0a-15T18:00:00Z"),
    BAD("12026-03-15T18:00:00Z"),
};

static void test_parse_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(parse_cases); i++) {
        const struct parse_case *c = &parse_cases[i];
        int64_t ms = INT64_C(0x5a5a5a5a);
        int rc = time_parse_rfc3339(c->text, &ms);
        if (rc != c->rc)
            fail_msg("parse('%s') rc %d, want %d", c->text, rc, c->rc);
        if (rc == 0 && ms != c->ms)
            fail_msg("parse('%s') = %lld, want %lld", c->text, (long long)ms, (long long)c->ms);
        if (rc != 0 && ms != INT64_C(0x5a5a5a5a))
            fail_msg("parse('%s') wrote the output on failure", c->text);
    }
}

/* ---- round trips ---- */

static void check_round_trip(int64_t ms)
{
    char out[TIME_RFC3339_LEN];
    time_format_ms(ms, out);
    assert_int_equal(strlen(out), 24);
    int64_t back = 0;
    if (time_parse_rfc3339(out, &back) != 0 || back != ms)
        fail_msg("round trip %lld -> %s -> %lld", (long long)ms, out, (long long)back);
}

/* Independent check of the formatted text with gmtime_r. */
static void check_against_gmtime(int64_t ms)
{
    int64_t secs = ms / 1000, frac = ms % 1000;
    if (frac < 0) {
        frac += 1000;
        secs -= 1;
    }
    time_t t = (time_t)secs;
    struct tm tm;
    assert_non_null(gmtime_r(&t, &tm));
    char want[64];
    snprintf(want, sizeof(want), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)frac);
    char out[TIME_RFC3339_LEN];
    time_format_ms(ms, out);
    if (strcmp(out, want) != 0)
        fail_msg("format(%lld) = %s, gmtime says %s", (long long)ms, out, want);
}

static void test_round_trip_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(fmt_cases); i++) {
        check_round_trip(fmt_cases[i].ms);
        check_against_gmtime(fmt_cases[i].ms);
    }
    /* canonical strings survive parse -> format unchanged */
    for (size_t i = 0; i < N_ELEMS(fmt_cases); i++) {
        int64_t ms;
        assert_int_equal(time_parse_rfc3339(fmt_cases[i].text, &ms), 0);
        assert_int_equal(ms, fmt_cases[i].ms);
    }
}

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static void test_round_trip_random(void **state)
{
    (void)state;
    uint64_t seed = UINT64_C(20260315);
    uint64_t span = (uint64_t)(MS_YEAR_9999_END - MS_YEAR_1) + 1;
    for (int i = 0; i < 5000; i++) {
        int64_t ms = MS_YEAR_1 + (int64_t)(splitmix64(&seed) % span);
        check_round_trip(ms);
        check_against_gmtime(ms);
    }
    /* denser around the epoch, including negative values */
    for (int i = 0; i < 2000; i++) {
        int64_t ms =
            (int64_t)(splitmix64(&seed) % UINT64_C(20000000000000)) - INT64_C(10000000000000);
        check_round_trip(ms);
        check_against_gmtime(ms);
    }
}

/* The same instant written with different offsets parses to one value. */
static void test_offsets_random(void **state)
{
    (void)state;
    uint64_t seed = 7;
    for (int i = 0; i < 2000; i++) {
        /* whole seconds between 1971 and 9998 so that local time stays in range */
        int64_t secs = INT64_C(31536000) + (int64_t)(splitmix64(&seed) % UINT64_C(252300000000));
        int off_min = (int)(splitmix64(&seed) % (2 * 1439 + 1)) - 1439;
        time_t local = (time_t)(secs + off_min * 60);
        struct tm tm;
        assert_non_null(gmtime_r(&local, &tm));
        char text[64];
        int a = off_min < 0 ? -off_min : off_min;
        snprintf(text, sizeof(text), "%04d-%02d-%02dT%02d:%02d:%02d%c%02d:%02d", tm.tm_year + 1900,
                 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                 off_min < 0 ? '-' : '+', a / 60, a % 60);
        int64_t ms;
        if (time_parse_rfc3339(text, &ms) != 0 || ms != secs * 1000)
            fail_msg("parse(%s) = %lld, want %lld", text, (long long)ms, (long long)secs * 1000);
    }
}

/* ---- civil calendar ---- */

static void test_civil_known(void **state)
{
    (void)state;
    assert_int_equal(time_days_from_civil(1970, 1, 1), 0);
    assert_int_equal(time_days_from_civil(1969, 12, 31), -1);
    assert_int_equal(time_days_from_civil(2000, 3, 1), 11017);
    assert_int_equal(time_days_from_civil(1, 1, 1), -719162);
    assert_int_equal(time_days_from_civil(9999, 12, 31), 2932896);
    int64_t y;
    unsigned m, d;
    time_civil_from_days(0, &y, &m, &d);
    assert_true(y == 1970 && m == 1 && d == 1);
    time_civil_from_days(-1, &y, &m, &d);
    assert_true(y == 1969 && m == 12 && d == 31);
    time_civil_from_days(11016, &y, &m, &d);
    assert_true(y == 2000 && m == 2 && d == 29);
}

/* Every day from 0001-01-01 to 9999-12-31: consecutive dates, exact inverse. */
static void test_civil_every_day(void **state)
{
    (void)state;
    static const unsigned dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int64_t y = 1;
    unsigned m = 1, d = 1;
    for (int64_t z = -719162; z <= 2932896; z++) {
        int64_t yy;
        unsigned mm, dd;
        time_civil_from_days(z, &yy, &mm, &dd);
        if (yy != y || mm != m || dd != d)
            fail_msg("day %lld: %lld-%u-%u, want %lld-%u-%u", (long long)z, (long long)yy, mm, dd,
                     (long long)y, m, d);
        if (time_days_from_civil(y, m, d) != z)
            fail_msg("days_from_civil(%lld-%u-%u) != %lld", (long long)y, m, d, (long long)z);
        bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        unsigned len = m == 2 && leap ? 29 : dm[m - 1];
        if (++d > len) {
            d = 1;
            if (++m > 12) {
                m = 1;
                y++;
            }
        }
    }
    assert_int_equal(y, 10000);
}

static void test_now(void **state)
{
    (void)state;
    int64_t a = time_now_ms();
    int64_t b = time_now_ms();
    assert_true(a > INT64_C(1577836800000)); /* after 2020 */
    assert_true(b >= a - 1000);
    time_t t = time(NULL);
    assert_true(a / 1000 >= (int64_t)t - 5 && a / 1000 <= (int64_t)t + 5);
}

int main(void)
{
    /* clang-format off */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_table),
        cmocka_unit_test(test_parse_table),
        cmocka_unit_test(test_round_trip_table),
        cmocka_unit_test(test_round_trip_random),
        cmocka_unit_test(test_offsets_random),
        cmocka_unit_test(test_civil_known),
        cmocka_unit_test(test_civil_every_day),
        cmocka_unit_test(test_now),
    };
    /* clang-format on */
    return cmocka_run_group_tests(tests, NULL, NULL);
}
