/* Unit tests for domain/cron: parsing (good and bad, with messages), next fire times across
 * month/year ends and leap years, the Vixie day-of-month/day-of-week rule, and DST in
 * America/New_York, Europe/London, Australia/Lord_Howe and Asia/Kolkata, including 2090
 * (past the last explicit transition in the TZif files, so the footer rule is used).
 * Zones come from the system zoneinfo (Debian tzdata). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "domain/cron.h"
#include "domain/tz.h"

static struct tz_cache *zones;

static int group_setup(void **state)
{
    (void)state;
    return tz_cache_new(NULL, &zones);
}

static int group_teardown(void **state)
{
    (void)state;
    tz_cache_free(zones);
    return 0;
}

static const struct tz *zone(const char *name)
{
    const struct tz *z = NULL;
    char err[256];

    if (tz_cache_get(zones, name, &z, err, sizeof(err)))
        fail_msg("cannot load %s: %s", name, err);
    return z;
}

/* "YYYY-MM-DDTHH:MM:SS" followed by "Z" or "+HH:MM"/"-HH:MM" -> epoch seconds. */
static int64_t at(const char *s)
{
    int y, mo, d, h, mi, sec, oh = 0, om = 0, n = 0;
    char sign = 'Z';

    if (sscanf(s, "%d-%d-%dT%d:%d:%d%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6)
        fail_msg("bad time literal %s", s);
    if (s[n] != 'Z' && sscanf(s + n, "%c%d:%d", &sign, &oh, &om) != 3)
        fail_msg("bad offset in %s", s);
    int64_t off = (sign == '-' ? -1 : 1) * (int64_t)(oh * 3600 + om * 60);
    return tz_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - off;
}

/* ---- parsing -------------------------------------------------------------------------- */

#define ALL_MIN ((UINT64_C(1) << 60) - 1)
#define ALL_HOUR 0xffffffu
#define ALL_DOM 0xfffffffeu
#define ALL_MON 0x1ffeu
#define ALL_DOW 0x7fu
#define B(n) (UINT64_C(1) << (n))

struct good_row {
    const char *expr;
    struct cron_expr want;
};

static const struct good_row good_rows[] = {
    {"* * * * *", {ALL_MIN, ALL_HOUR, ALL_DOM, ALL_MON, ALL_DOW, CRON_DOM_STAR | CRON_DOW_STAR}},
    {"0,30 9-17/2 1 JAN-mar mon-FRI",
     {B(0) | B(30), B(9) | B(11) | B(13) | B(15) | B(17), B(1), B(1) | B(2) | B(3), 0x3e, 0}},
    {"5/15 * * * *", {B(5) | B(20) | B(35) | B(50), ALL_HOUR, ALL_DOM, ALL_MON, ALL_DOW, 3}},
    {"*/20 */6 */10 */3 */2",
     {B(0) | B(20) | B(40), B(0) | B(6) | B(12) | B(18), B(1) | B(11) | B(21) | B(31),
      B(1) | B(4) | B(7) | B(10), B(0) | B(2) | B(4) | B(6), 3}},
    {"0 0 * * 7", {B(0), B(0), ALL_DOM, ALL_MON, B(0), CRON_DOM_STAR}},
    {"0 0 * * 5-7", {B(0), B(0), ALL_DOM, ALL_MON, B(0) | B(5) | B(6), CRON_DOM_STAR}},
    {"0 0 * * fri-sun", {B(0), B(0), ALL_DOM, ALL_MON, B(0) | B(5) | B(6), CRON_DOM_STAR}},
    {"0 0 * * 1/2", {B(0), B(0), ALL_DOM, ALL_MON, B(0) | B(1) | B(3) | B(5), CRON_DOM_STAR}},
    {"0 0 * * Sun,SAT", {B(0), B(0), ALL_DOM, ALL_MON, B(0) | B(6), CRON_DOM_STAR}},
    {"0 0 1-31 * 0-7", {B(0), B(0), ALL_DOM, ALL_MON, ALL_DOW, 0}},
    {"0 0 */2 * MON", {B(0), B(0), 0xaaaaaaaau, ALL_MON, B(1), CRON_DOM_STAR}},
    {"59 23 31 12 6", {B(59), B(23), B(31), B(12), B(6), 0}},
    {"*/60 */24 */31 */12 */8", {B(0), B(0), B(1), B(1), B(0), 3}},
    {"  07\t08  09 10   3  ", {B(7), B(8), B(9), B(10), B(3), 0}},
    {"1,1,1-2 * * jul/2 *", {B(1) | B(2), ALL_HOUR, ALL_DOM, B(7) | B(9) | B(11), ALL_DOW, 3}},
    {"@yearly", {B(0), B(0), B(1), B(1), ALL_DOW, CRON_DOW_STAR}},
    {"@annually", {B(0), B(0), B(1), B(1), ALL_DOW, CRON_DOW_STAR}},
    {"@monthly", {B(0), B(0), B(1), ALL_MON, ALL_DOW, CRON_DOW_STAR}},
    {" @Weekly ", {B(0), B(0), ALL_DOM, ALL_MON, B(0), CRON_DOM_STAR}},
    {"@DAILY", {B(0), B(0), ALL_DOM, ALL_MON, ALL_DOW, 3}},
    {"@midnight", {B(0), B(0), ALL_DOM, ALL_MON, ALL_DOW, 3}},
    {"@hourly", {B(0), ALL_HOUR, ALL_DOM, ALL_MON, ALL_DOW, 3}},
};

static void test_parse_good(void **state)
{
    int failures = 0;

    (void)state;
    for (size_t i = 0; i < TE_ARRAY_LEN(good_rows); i++) {
        const struct good_row *r = &good_rows[i];
        struct cron_expr got;
        char err[160] = "";
        if (cron_parse(r->expr, &got, err, sizeof(err)) != 0) {
            print_error("'%s': unexpected error: %s\n", r->expr, err);
            failures++;
            continue;
        }
        if (memcmp(&got, &r->want, sizeof(got)) != 0) {
            print_error("'%s': got min=%" PRIx64 " h=%x dom=%x mon=%x dow=%x flags=%x\n", r->expr,
                        got.minutes, got.hours, got.days, got.months, got.weekdays, got.flags);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

struct bad_row {
    const char *expr, *msg;
};

static const struct bad_row bad_rows[] = {
    {"", "expected 5 fields, got 0"},
    {"   ", "expected 5 fields, got 0"},
    {"* * * *", "expected 5 fields, got 4"},
    {"* * * * * *", "expected 5 fields, got 6"},
    {"0 0 1 1 * 2026 x", "expected 5 fields, got 7"},
    {"60 * * * *", "field 1 (minute): value 60 out of range 0-59"},
    {"* 24 * * *", "field 2 (hour): value 24 out of range 0-23"},
    {"* * 0 * *", "field 3 (day-of-month): value 0 out of range 1-31"},
    {"* * 32 * *", "field 3 (day-of-month): value 32 out of range 1-31"},
    {"* * * 0 *", "field 4 (month): value 0 out of range 1-12"},
    {"* * * 13 *", "field 4 (month): value 13 out of range 1-12"},
    {"* * * * 8", "field 5 (day-of-week): value 8 out of range 0-7"},
    {"1-60 * * * *", "field 1 (minute): value 60 out of range 0-59"},
    {"99999999999999 * * * *", "field 1 (minute): value 999999999999 out of range 0-59"},
    {"*/0 * * * *", "field 1 (minute): step must be positive"},
    {"* 1-5/0 * * *", "field 2 (hour): step must be positive"},
    {"*/61 * * * *", "field 1 (minute): step 61 out of range 1-60"},
    {"* * * */13 *", "field 4 (month): step 13 out of range 1-12"},
    {"*/0099999999 * * * *", "field 1 (minute): step 0099999999 out of range 1-60"},
    {"*/000 * * * *", "field 1 (minute): step must be positive"},
    {"*/ * * * *", "field 1 (minute): step must be a number"},
    {"* * * * */MON", "field 5 (day-of-week): step must be a number"},
    {"5-2 * * * *", "field 1 (minute): range start 5 greater than end 2"},
    {"* * * DEC-JAN *", "field 4 (month): range start 12 greater than end 1"},
    {"* * * * 7-1", "field 5 (day-of-week): range start 7 greater than end 1"},
    {"* * * FOO *", "field 4 (month): unknown name 'FOO'"},
    {"* * * * MONDAY", "field 5 (day-of-week): unknown name 'MONDAY'"},
    {"* * * * MO", "field 5 (day-of-week): unknown name 'MO'"},
    {"MON * * * *", "field 1 (minute): names are not allowed, got 'MON'"},
    {"* * L * *", "field 3 (day-of-month): names are not allowed, got 'L'"},
    {"1,,2 * * * *", "field 1 (minute): empty list element"},
    {"1, * * * *", "field 1 (minute): empty list element"},
    {",1 * * * *", "field 1 (minute): empty list element"},
    {"1- * * * *", "field 1 (minute): missing value"},
    {"1-2-3 * * * *", "field 1 (minute): unexpected character '-'"},
    {"*-5 * * * *", "field 1 (minute): unexpected character '-'"},
    {"? * * * *", "field 1 (minute): unexpected character '?'"},
    {"* * * * 1#2", "field 5 (day-of-week): unexpected character '#'"},
    {"* * * * -1", "field 5 (day-of-week): unexpected character '-'"},
    {"\xc3\xa9 * * * *", "field 1 (minute): unexpected byte 0xc3"},
    {"@reboot", "@reboot is not supported: it has no fire time"},
    {"@fortnightly", "unknown nickname '@fortnightly'"},
    {"@daily now", "unexpected text after @daily"},
    {"@", "unknown nickname '@'"},
};

static void test_parse_bad(void **state)
{
    int failures = 0;

    (void)state;
    for (size_t i = 0; i < TE_ARRAY_LEN(bad_rows); i++) {
        const struct bad_row *r = &bad_rows[i];
        struct cron_expr got;
        char err[160] = "";
        int rc = cron_parse(r->expr, &got, err, sizeof(err));
        if (rc != -EINVAL || strcmp(err, r->msg) != 0) {
            print_error("'%s': rc=%d err='%s', want '%s'\n", r->expr, rc, err, r->msg);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

static void test_parse_edge_args(void **state)
{
    struct cron_expr c;
    char err[8];

    (void)state;
    assert_int_equal(cron_parse(NULL, &c, NULL, 0), -EINVAL);
    /* a short buffer truncates the message but never overflows */
    assert_int_equal(cron_parse("61 * * * *", &c, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "field 1");
}

/* Mutated valid expressions: parsing returns 0 or -EINVAL with a message, never crashes
 * (the sanitizer build checks memory), and whatever parses can be evaluated. */
static uint32_t lcg(uint32_t *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 16;
}

static void mutate(uint32_t *seed, char *e, size_t cap)
{
    static const char alphabet[] = "0123456789*/-, @MONJANsunL#?";
    size_t len = strlen(e), pos = len ? lcg(seed) % len : 0;

    switch (lcg(seed) % 3) {
    case 0: /* replace */
        if (len)
            e[pos] = alphabet[lcg(seed) % (sizeof(alphabet) - 1)];
        break;
    case 1: /* delete */
        if (len)
            memmove(e + pos, e + pos + 1, len - pos);
        break;
    default: /* insert */
        if (len + 1 < cap) {
            memmove(e + pos + 1, e + pos, len - pos + 1);
            e[pos] = alphabet[lcg(seed) % (sizeof(alphabet) - 1)];
        }
        break;
    }
}

static void test_parse_random(void **state)
{
    static const char *bases[] = {"*/15 9-17 * * MON-FRI",
                                  "0 0 29 2 */7",
                                  "5,35 1-3/2 1,15 JAN-JUN/2 0",
                                  "30 2 * * *",
                                  "@weekly",
                                  "59 23 31 12 6",
                                  "0 12 */3 * SUN,sat",
                                  "7/10 * 1-31 * 1-5"};
    uint32_t seed = 12345;
    int parsed = 0;

    (void)state;
    for (int i = 0; i < 20000; i++) {
        char expr[64], err[160] = "";
        struct cron_expr c;
        snprintf(expr, sizeof(expr), "%s", bases[lcg(&seed) % TE_ARRAY_LEN(bases)]);
        for (uint32_t m = lcg(&seed) % 4; m > 0; m--)
            mutate(&seed, expr, sizeof(expr));
        int rc = cron_parse(expr, &c, err, sizeof(err));
        if (rc == 0) {
            int64_t next;
            parsed++;
            rc = cron_next(&c, zone("Europe/London"), 1774746000, &next);
            assert_true(rc == 0 || rc == -ENOENT);
            assert_true(rc != 0 || next > 1774746000);
        } else {
            assert_int_equal(rc, -EINVAL);
            assert_true(err[0] != '\0');
        }
    }
    print_message("mutated expressions that parsed: %d of 20000\n", parsed);
    assert_true(parsed > 1000);
}

/* ---- next fire time ------------------------------------------------------------------- */

struct next_row {
    const char *expr, *zone, *after;
    const char *want; /* RFC 3339 in the zone, as tz_format_rfc3339 writes it; or NULL */
    int rc;           /* expected return code when want is NULL */
};

static const struct next_row next_rows[] = {
    /* strictly after, minute resolution */
    {"* * * * *", "UTC", "2026-01-01T00:00:00Z", "2026-01-01T00:01:00Z", 0},
    {"* * * * *", "UTC", "2026-01-01T00:00:59Z", "2026-01-01T00:01:00Z", 0},
    {"*/15 * * * *", "UTC", "2026-01-01T00:14:59Z", "2026-01-01T00:15:00Z", 0},
    {"*/15 * * * *", "UTC", "2026-01-01T00:15:00Z", "2026-01-01T00:30:00Z", 0},
    /* month and year ends */
    {"0 0 1 1 *", "UTC", "2025-12-31T23:59:59Z", "2026-01-01T00:00:00Z", 0},
    {"59 23 31 12 *", "UTC", "2026-01-01T00:00:00Z", "2026-12-31T23:59:00Z", 0},
    {"0 0 31 * *", "UTC", "2026-01-31T00:00:00Z", "2026-03-31T00:00:00Z", 0},
    {"0 0 1 * *", "UTC", "2026-01-31T12:00:00Z", "2026-02-01T00:00:00Z", 0},
    {"0 0 30 * *", "UTC", "2026-01-30T00:00:00Z", "2026-03-30T00:00:00Z", 0},
    {"0 0 1,31 * *", "UTC", "2026-02-20T00:00:00Z", "2026-03-01T00:00:00Z", 0},
    {"30 12 * 2 *", "UTC", "2026-12-25T00:00:00Z", "2027-02-01T12:30:00Z", 0},
    {"@yearly", "UTC", "2026-06-01T00:00:00Z", "2027-01-01T00:00:00Z", 0},
    {"@monthly", "UTC", "2026-12-15T00:00:00Z", "2027-01-01T00:00:00Z", 0},
    {"@weekly", "UTC", "2026-01-01T00:00:00Z", "2026-01-04T00:00:00Z", 0}, /* a Sunday */
    {"@hourly", "UTC", "2026-12-31T23:00:00Z", "2027-01-01T00:00:00Z", 0},
    {"0 12 * * *", "UTC", "1900-01-01T00:00:00Z", "1900-01-01T12:00:00Z", 0},
    {"0 0 1 1 *", "UTC", "1969-12-31T23:59:59Z", "1970-01-01T00:00:00Z", 0},
    /* leap years, including the non-leap century 2100 */
    {"0 12 29 2 *", "UTC", "2026-03-01T00:00:00Z", "2028-02-29T12:00:00Z", 0},
    {"0 12 29 2 *", "UTC", "2096-03-01T00:00:00Z", "2104-02-29T12:00:00Z", 0},
    {"0 12 29 2 *", "UTC", "1999-03-01T00:00:00Z", "2000-02-29T12:00:00Z", 0},
    {"0 0 * 2 *", "UTC", "2028-02-28T00:00:00Z", "2028-02-29T00:00:00Z", 0},
    {"0 0 * 2 *", "UTC", "2100-02-28T00:00:00Z", "2101-02-01T00:00:00Z", 0},
    /* Feb 29 that is also a Sunday ("*" + "/7" is Sunday; starts with '*', so AND) */
    {"0 0 29 2 */7", "UTC", "2026-01-01T00:00:00Z", "2032-02-29T00:00:00Z", 0},
    /* never: February 30, 31 in 30-day months, Feb 31 AND Sunday */
    {"0 0 30 2 *", "UTC", "2026-01-01T00:00:00Z", NULL, -ENOENT},
    {"0 0 31 4,6,9,11 *", "UTC", "2026-01-01T00:00:00Z", NULL, -ENOENT},
    {"0 0 31 2 */7", "Asia/Kolkata", "2026-01-01T00:00:00Z", NULL, -ENOENT},
    /* ... but with the OR rule, Mondays in February fire */
    {"0 0 31 2 MON", "UTC", "2026-01-01T00:00:00Z", "2026-02-02T00:00:00Z", 0},
    /* Vixie day rule: both restricted -> OR (2026-01-02 is a Friday) */
    {"0 0 13 * FRI", "UTC", "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", 0},
    {"0 0 13 * 5", "UTC", "2026-01-09T00:00:00Z", "2026-01-13T00:00:00Z", 0},
    {"0 0 13 * 5", "UTC", "2026-01-13T00:00:00Z", "2026-01-16T00:00:00Z", 0},
    {"0 0 1-31 * MON", "UTC", "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", 0},
    /* one field starts with '*' -> the other alone (plain *) or both (* with step) */
    {"0 0 * * MON", "UTC", "2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z", 0},
    {"0 0 13 * *", "UTC", "2026-01-01T00:00:00Z", "2026-01-13T00:00:00Z", 0},
    {"0 0 */2 * MON", "UTC", "2026-01-05T00:00:00Z", "2026-01-19T00:00:00Z", 0},
    {"0 0 1 * */7", "UTC", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z", 0},
    {"30 9 * * 1-5", "UTC", "2026-01-02T10:00:00Z", "2026-01-05T09:30:00Z", 0},
    {"0 0 * * 0,7", "UTC", "2026-01-01T00:00:00Z", "2026-01-04T00:00:00Z", 0},
    /* Asia/Kolkata: +05:30, no DST; local and UTC years differ for 5.5 hours */
    {"0 9 * * *", "Asia/Kolkata", "2026-03-16T00:00:00Z", "2026-03-16T09:00:00+05:30", 0},
    {"30 23 31 12 *", "Asia/Kolkata", "2026-12-31T18:00:00Z", "2027-12-31T23:30:00+05:30", 0},
    {"0 0 1 1 *", "Asia/Kolkata", "2026-12-31T18:29:59Z", "2027-01-01T00:00:00+05:30", 0},
    {"0 0 1 1 *", "Asia/Kolkata", "2026-12-31T18:30:00Z", "2028-01-01T00:00:00+05:30", 0},
    {"0 9 * * *", "Asia/Kolkata", "2090-06-01T00:00:00Z", "2090-06-01T09:00:00+05:30", 0},
    /* America/New_York spring-forward 2026-03-08 07:00Z: 02:00-02:59 do not exist */
    {"30 2 * * *", "America/New_York", "2026-03-08T05:00:00Z", "2026-03-08T03:00:00-04:00", 0},
    {"30 2 * * *", "America/New_York", "2026-03-08T07:00:00Z", "2026-03-09T02:30:00-04:00", 0},
    {"59 2 * * *", "America/New_York", "2026-03-07T12:00:00Z", "2026-03-08T03:00:00-04:00", 0},
    {"0 3 * * *", "America/New_York", "2026-03-08T05:00:00Z", "2026-03-08T03:00:00-04:00", 0},
    {"0 0 * * *", "America/New_York", "2026-03-07T12:00:00Z", "2026-03-08T00:00:00-05:00", 0},
    {"*/15 * * * *", "America/New_York", "2026-03-08T06:45:00Z", "2026-03-08T03:00:00-04:00", 0},
    {"*/15 * * * *", "America/New_York", "2026-03-08T07:00:00Z", "2026-03-08T03:15:00-04:00", 0},
    {"*/15 2 * * *", "America/New_York", "2026-03-08T05:00:00Z", "2026-03-08T03:00:00-04:00", 0},
    {"*/15 2 * * *", "America/New_York", "2026-03-08T07:00:00Z", "2026-03-09T02:00:00-04:00", 0},
    /* America/New_York fall-back 2026-11-01 06:00Z: 01:00-01:59 happen twice */
    {"30 1 * * *", "America/New_York", "2026-11-01T04:00:00Z", "2026-11-01T01:30:00-04:00", 0},
    {"30 1 * * *", "America/New_York", "2026-11-01T05:30:00Z", "2026-11-02T01:30:00-05:00", 0},
    {"30 1 * * *", "America/New_York", "2026-11-01T06:10:00Z", "2026-11-02T01:30:00-05:00", 0},
    {"*/15 * * * *", "America/New_York", "2026-11-01T05:45:00Z", "2026-11-01T02:00:00-05:00", 0},
    {"*/15 * * * *", "America/New_York", "2026-11-01T06:20:00Z", "2026-11-01T02:00:00-05:00", 0},
    {"0 * * * *", "America/New_York", "2026-11-01T05:00:00Z", "2026-11-01T02:00:00-05:00", 0},
    {"0 2 * * *", "America/New_York", "2026-11-01T05:00:00Z", "2026-11-01T02:00:00-05:00", 0},
    /* 2090: beyond the TZif transitions; the footer EST5EDT,M3.2.0,M11.1.0 decides */
    {"30 2 * * *", "America/New_York", "2090-03-12T05:00:00Z", "2090-03-12T03:00:00-04:00", 0},
    {"30 1 * * *", "America/New_York", "2090-11-05T04:00:00Z", "2090-11-05T01:30:00-04:00", 0},
    {"30 1 * * *", "America/New_York", "2090-11-05T05:30:00Z", "2090-11-06T01:30:00-05:00", 0},
    {"0 12 1 7 *", "America/New_York", "2090-01-01T00:00:00Z", "2090-07-01T12:00:00-04:00", 0},
    /* Europe/London: 2026-03-29 01:00Z (01:00 GMT -> 02:00 BST), 2026-10-25 01:00Z */
    {"30 1 * * *", "Europe/London", "2026-03-28T12:00:00Z", "2026-03-29T02:00:00+01:00", 0},
    {"30 1 * * *", "Europe/London", "2026-10-24T12:00:00Z", "2026-10-25T01:30:00+01:00", 0},
    {"30 1 * * *", "Europe/London", "2026-10-25T00:30:00Z", "2026-10-26T01:30:00+00:00", 0},
    {"0 1 * * *", "Europe/London", "2026-10-24T12:00:00Z", "2026-10-25T01:00:00+01:00", 0},
    {"0 12 * * *", "Europe/London", "2026-01-10T00:00:00Z", "2026-01-10T12:00:00+00:00", 0},
    {"30 1 * * *", "Europe/London", "2090-03-25T12:00:00Z", "2090-03-26T02:00:00+01:00", 0},
    {"30 1 * * *", "Europe/London", "2090-10-29T00:30:00Z", "2090-10-30T01:30:00+00:00", 0},
    /* Australia/Lord_Howe: 30-minute DST. 2026-10-04 02:00 -> 02:30 (+10:30 -> +11);
     * 2026-04-05 02:00 -> 01:30 (+11 -> +10:30), so 01:30-01:59 happen twice */
    {"15 2 * * *", "Australia/Lord_Howe", "2026-10-03T12:00:00Z", "2026-10-04T02:30:00+11:00", 0},
    {"45 2 * * *", "Australia/Lord_Howe", "2026-10-03T12:00:00Z", "2026-10-04T02:45:00+11:00", 0},
    {"45 1 * * *", "Australia/Lord_Howe", "2026-04-04T12:00:00Z", "2026-04-05T01:45:00+11:00", 0},
    {"45 1 * * *", "Australia/Lord_Howe", "2026-04-04T14:45:00Z", "2026-04-06T01:45:00+10:30", 0},
    {"*/15 * * * *", "Australia/Lord_Howe", "2026-04-04T14:45:00Z", "2026-04-05T02:00:00+10:30", 0},
    {"0 2 * * *", "Australia/Lord_Howe", "2026-04-04T12:00:00Z", "2026-04-05T02:00:00+10:30", 0},
    {"15 2 * * *", "Australia/Lord_Howe", "2090-09-30T12:00:00Z", "2090-10-01T02:30:00+11:00", 0},
    {"45 1 * * *", "Australia/Lord_Howe", "2090-04-01T14:45:00Z", "2090-04-03T01:45:00+10:30", 0},
};

static int check_next_row(const struct next_row *r)
{
    const struct tz *z = zone(r->zone);
    struct cron_expr c;
    int64_t next = 0, after = at(r->after);
    char err[160], got[TZ_RFC3339_SIZE];
    int rc;

    if (cron_parse(r->expr, &c, err, sizeof(err))) {
        print_error("'%s': %s\n", r->expr, err);
        return 1;
    }
    rc = cron_next(&c, z, after, &next);
    if (!r->want) {
        if (rc == r->rc)
            return 0;
        print_error("'%s' %s after %s: rc=%d, want %d\n", r->expr, r->zone, r->after, rc, r->rc);
        return 1;
    }
    if (rc != 0 || tz_format_rfc3339(z, next, got, sizeof(got)) != 0 || strcmp(got, r->want) != 0 ||
        next != at(r->want)) {
        print_error("'%s' %s after %s: rc=%d got %s, want %s\n", r->expr, r->zone, r->after, rc,
                    rc ? "-" : got, r->want);
        return 1;
    }
    return 0;
}

static void test_next_table(void **state)
{
    int failures = 0;

    (void)state;
    for (size_t i = 0; i < TE_ARRAY_LEN(next_rows); i++)
        failures += check_next_row(&next_rows[i]);
    assert_int_equal(failures, 0);
}

static void test_next_range(void **state)
{
    struct cron_expr c;
    int64_t next;

    (void)state;
    assert_int_equal(cron_parse("0 0 1 1 *", &c, NULL, 0), 0);
    /* the last accepted instant; the answer (year 10000) is fine even if unprintable */
    assert_int_equal(cron_next(&c, tz_utc(), CRON_AFTER_MAX, &next), 0);
    assert_true(next == CRON_AFTER_MAX + 1);
    assert_int_equal(cron_next(&c, tz_utc(), CRON_AFTER_MAX + 1, &next), -ERANGE);
    assert_int_equal(cron_next(&c, tz_utc(), CRON_AFTER_MIN - 1, &next), -ERANGE);
    assert_int_equal(cron_next(&c, tz_utc(), INT64_MIN, &next), -ERANGE);
    assert_int_equal(cron_next(&c, tz_utc(), CRON_AFTER_MIN, &next), 0);
    assert_true(next == CRON_AFTER_MIN + 365 * 86400);
    assert_int_equal(cron_next(NULL, tz_utc(), 0, &next), -EINVAL);
    assert_int_equal(cron_next(&c, NULL, 0, &next), -EINVAL);
    assert_int_equal(cron_next(&c, tz_utc(), 0, NULL), -EINVAL);
    /* a hand-made expression with an empty or out-of-range field is refused */
    c.hours = 0;
    assert_int_equal(cron_next(&c, tz_utc(), 0, &next), -EINVAL);
    c.hours = 1;
    c.days = 1; /* bit 0: there is no day 0 */
    assert_int_equal(cron_next(&c, tz_utc(), 0, &next), -EINVAL);
}

/* Every fire time across whole DST days, checked as a sequence: strictly increasing, each
 * wall time at most once. */
struct chain_row {
    const char *expr, *zone, *after;
    const char *want[12];
};

static const struct chain_row chain_rows[] = {
    {"*/15 * * * *",
     "America/New_York",
     "2026-11-01T00:50:00-04:00",
     {"2026-11-01T01:00:00-04:00", "2026-11-01T01:15:00-04:00", "2026-11-01T01:30:00-04:00",
      "2026-11-01T01:45:00-04:00", "2026-11-01T02:00:00-05:00", "2026-11-01T02:15:00-05:00"}},
    {"*/15 * * * *",
     "America/New_York",
     "2026-03-08T01:20:00-05:00",
     {"2026-03-08T01:30:00-05:00", "2026-03-08T01:45:00-05:00", "2026-03-08T03:00:00-04:00",
      "2026-03-08T03:15:00-04:00"}},
    {"*/20 1-3 * * *",
     "Australia/Lord_Howe",
     "2026-04-05T00:50:00+11:00",
     {"2026-04-05T01:00:00+11:00", "2026-04-05T01:20:00+11:00", "2026-04-05T01:40:00+11:00",
      "2026-04-05T02:00:00+10:30", "2026-04-05T02:20:00+10:30", "2026-04-05T02:40:00+10:30",
      "2026-04-05T03:00:00+10:30", "2026-04-05T03:20:00+10:30", "2026-04-05T03:40:00+10:30",
      "2026-04-06T01:00:00+10:30"}},
    {"*/20 1-3 * * *",
     "Australia/Lord_Howe",
     "2026-10-04T01:50:00+10:30",
     {"2026-10-04T02:30:00+11:00", "2026-10-04T02:40:00+11:00", "2026-10-04T03:00:00+11:00",
      "2026-10-04T03:20:00+11:00"}},
    {"0,30 0-3 * * *",
     "Europe/London",
     "2090-10-29T00:00:00+01:00",
     {"2090-10-29T00:30:00+01:00", "2090-10-29T01:00:00+01:00", "2090-10-29T01:30:00+01:00",
      "2090-10-29T02:00:00+00:00", "2090-10-29T02:30:00+00:00", "2090-10-29T03:00:00+00:00"}},
};

static void test_next_chains(void **state)
{
    int failures = 0;

    (void)state;
    for (size_t i = 0; i < TE_ARRAY_LEN(chain_rows); i++) {
        const struct chain_row *r = &chain_rows[i];
        const struct tz *z = zone(r->zone);
        struct cron_expr c;
        int64_t t = at(r->after);
        char got[TZ_RFC3339_SIZE];
        assert_int_equal(cron_parse(r->expr, &c, NULL, 0), 0);
        for (size_t k = 0; k < TE_ARRAY_LEN(r->want) && r->want[k]; k++) {
            int64_t next;
            if (cron_next(&c, z, t, &next) != 0 || next <= t ||
                tz_format_rfc3339(z, next, got, sizeof(got)) != 0 || strcmp(got, r->want[k]) != 0) {
                print_error("'%s' %s step %zu: got %s want %s\n", r->expr, r->zone, k, got,
                            r->want[k]);
                failures++;
                break;
            }
            t = next;
        }
    }
    assert_int_equal(failures, 0);
}

/* Rare and impossible expressions must be answered quickly (days and months are skipped,
 * impossible ones detected up front), so thousands of calls take well under a second. */
static void test_next_is_cheap(void **state)
{
    static const char *exprs[] = {"0 0 29 2 */7", "0 0 30 2 *", "59 23 31 12 */7", "* * * * *",
                                  "0 0 31 2 MON"};
    struct timespec t0, t1;
    int64_t t = at("2026-01-01T00:00:00Z");

    (void)state;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < 1000; i++) {
        for (size_t k = 0; k < TE_ARRAY_LEN(exprs); k++) {
            struct cron_expr c;
            int64_t next;
            assert_int_equal(cron_parse(exprs[k], &c, NULL, 0), 0);
            int rc = cron_next(&c, zone("America/New_York"), t + i * 86400, &next);
            assert_true(rc == 0 || rc == -ENOENT);
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    print_message("5000 cron_next calls on rare expressions: %.3f s\n", secs);
    assert_true(secs < 5.0); /* generous: sanitizer builds are slow */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_good),      cmocka_unit_test(test_parse_bad),
        cmocka_unit_test(test_parse_edge_args), cmocka_unit_test(test_parse_random),
        cmocka_unit_test(test_next_table),      cmocka_unit_test(test_next_range),
        cmocka_unit_test(test_next_chains),     cmocka_unit_test(test_next_is_cheap),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
