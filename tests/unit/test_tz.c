/* Unit tests for domain/tz: offsets from real zoneinfo files (Debian tzdata) before, at and
 * after transitions and in 2090 (footer rule), local->UTC gaps and overlaps, the POSIX TZ
 * rule parser on its own, synthetic TZif v1/v2/v3 blobs and corrupt ones, zone names and
 * loading, the cache, RFC 3339 formatting and the calendar helpers. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* "YYYY-MM-DDTHH:MM:SS" plus optional "Z" or "+HH:MM"/"-HH:MM" -> seconds. Without a suffix
 * the result is a "local" value (wall clock counted as if it were UTC). */
static int64_t at(const char *s)
{
    int y, mo, d, h, mi, sec, oh = 0, om = 0, n = 0;
    char sign = 'Z';

    if (sscanf(s, "%d-%d-%dT%d:%d:%d%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6)
        fail_msg("bad time literal %s", s);
    if (s[n] && s[n] != 'Z' && sscanf(s + n, "%c%d:%d", &sign, &oh, &om) != 3)
        fail_msg("bad offset in %s", s);
    int64_t off = (sign == '-' ? -1 : 1) * (int64_t)(oh * 3600 + om * 60);
    return tz_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - off;
}

/* ---- offsets from the system zoneinfo -------------------------------------------------- */

struct offset_row {
    const char *zone, *utc;
    int off;
};

static const struct offset_row offset_rows[] = {
    {"America/New_York", "1800-01-01T00:00:00Z", -17762}, /* LMT -4:56:02 */
    {"America/New_York", "2026-01-15T12:00:00Z", -18000},
    {"America/New_York", "2026-03-08T06:59:59Z", -18000},
    {"America/New_York", "2026-03-08T07:00:00Z", -14400},
    {"America/New_York", "2026-11-01T05:59:59Z", -14400},
    {"America/New_York", "2026-11-01T06:00:00Z", -18000},
    {"America/New_York", "2037-11-01T06:00:00Z", -18000}, /* around the last transition */
    {"America/New_York", "2038-03-14T07:00:00Z", -14400},
    {"America/New_York", "2090-03-12T06:59:59Z", -18000},
    {"America/New_York", "2090-03-12T07:00:00Z", -14400},
    {"America/New_York", "2090-11-05T05:59:59Z", -14400},
    {"America/New_York", "2090-11-05T06:00:00Z", -18000},
    {"America/New_York", "2400-07-01T00:00:00Z", -14400},
    {"Europe/London", "2026-01-01T00:00:00Z", 0},
    {"Europe/London", "2026-03-29T00:59:59Z", 0},
    {"Europe/London", "2026-03-29T01:00:00Z", 3600},
    {"Europe/London", "2026-10-25T01:00:00Z", 0},
    {"Europe/London", "2090-03-26T01:00:00Z", 3600},
    {"Europe/London", "2090-10-29T00:59:59Z", 3600},
    {"Europe/London", "2090-10-29T01:00:00Z", 0},
    {"Australia/Lord_Howe", "2026-01-01T00:00:00Z", 39600},
    {"Australia/Lord_Howe", "2026-04-04T14:59:59Z", 39600},
    {"Australia/Lord_Howe", "2026-04-04T15:00:00Z", 37800},
    {"Australia/Lord_Howe", "2026-10-03T15:29:59Z", 37800},
    {"Australia/Lord_Howe", "2026-10-03T15:30:00Z", 39600},
    {"Australia/Lord_Howe", "2090-04-01T15:00:00Z", 37800},
    {"Australia/Lord_Howe", "2090-09-30T15:30:00Z", 39600},
    {"Asia/Kolkata", "1943-01-01T00:00:00Z", 23400}, /* +06:30 war time */
    {"Asia/Kolkata", "2026-03-16T03:30:00Z", 19800},
    {"Asia/Kolkata", "2090-07-01T00:00:00Z", 19800},
    {"Asia/Jerusalem", "2090-03-24T00:00:00Z", 10800}, /* footer M3.4.4/26: over 24 h */
    {"America/Nuuk", "2090-03-26T01:00:00Z", -3600},   /* footer M3.5.0/-1: negative */
    {"Pacific/Apia", "2011-12-30T09:59:59Z", -36000},  /* Samoa skipped 2011-12-30 */
    {"Pacific/Apia", "2011-12-30T10:00:00Z", 50400},
    {"UTC", "2026-06-01T00:00:00Z", 0},
    {"Etc/GMT+5", "2026-06-01T00:00:00Z", -18000},
};

static void test_offsets(void **state)
{
    int failures = 0;

    (void)state;
    for (size_t i = 0; i < TE_ARRAY_LEN(offset_rows); i++) {
        const struct offset_row *r = &offset_rows[i];
        int got = tz_offset_at(zone(r->zone), at(r->utc));
        if (got != r->off) {
            print_error("%s at %s: offset %d, want %d\n", r->zone, r->utc, got, r->off);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

/* ---- local -> UTC ---------------------------------------------------------------------- */

struct local_row {
    const char *zone, *local;
    enum tz_local_kind kind;
    const char *utc, *utc_later;
};

static const struct local_row local_rows[] = {
    {"America/New_York", "2026-07-01T12:00:00", TZ_LOCAL_UNIQUE, "2026-07-01T16:00:00Z",
     "2026-07-01T16:00:00Z"},
    {"America/New_York", "2026-03-08T01:59:59", TZ_LOCAL_UNIQUE, "2026-03-08T06:59:59Z",
     "2026-03-08T06:59:59Z"},
    {"America/New_York", "2026-03-08T02:00:00", TZ_LOCAL_GAP, "2026-03-08T07:00:00Z",
     "2026-03-08T07:00:00Z"},
    {"America/New_York", "2026-03-08T02:30:00", TZ_LOCAL_GAP, "2026-03-08T07:00:00Z",
     "2026-03-08T07:00:00Z"},
    {"America/New_York", "2026-03-08T03:00:00", TZ_LOCAL_UNIQUE, "2026-03-08T07:00:00Z",
     "2026-03-08T07:00:00Z"},
    {"America/New_York", "2026-11-01T00:59:59", TZ_LOCAL_UNIQUE, "2026-11-01T04:59:59Z",
     "2026-11-01T04:59:59Z"},
    {"America/New_York", "2026-11-01T01:00:00", TZ_LOCAL_OVERLAP, "2026-11-01T05:00:00Z",
     "2026-11-01T06:00:00Z"},
    {"America/New_York", "2026-11-01T01:30:00", TZ_LOCAL_OVERLAP, "2026-11-01T05:30:00Z",
     "2026-11-01T06:30:00Z"},
    {"America/New_York", "2026-11-01T02:00:00", TZ_LOCAL_UNIQUE, "2026-11-01T07:00:00Z",
     "2026-11-01T07:00:00Z"},
    {"America/New_York", "2090-03-12T02:00:00", TZ_LOCAL_GAP, "2090-03-12T07:00:00Z",
     "2090-03-12T07:00:00Z"},
    {"America/New_York", "2090-11-05T01:59:59", TZ_LOCAL_OVERLAP, "2090-11-05T05:59:59Z",
     "2090-11-05T06:59:59Z"},
    /* 1883-11-18 noon: LMT (-4:56:02) -> EST, clocks set back 3 min 58 s */
    {"America/New_York", "1883-11-18T12:01:00", TZ_LOCAL_OVERLAP, "1883-11-18T16:57:02Z",
     "1883-11-18T17:01:00Z"},
    {"Europe/London", "2026-03-29T01:00:00", TZ_LOCAL_GAP, "2026-03-29T01:00:00Z",
     "2026-03-29T01:00:00Z"},
    {"Europe/London", "2026-10-25T01:59:00", TZ_LOCAL_OVERLAP, "2026-10-25T00:59:00Z",
     "2026-10-25T01:59:00Z"},
    {"Australia/Lord_Howe", "2026-10-04T02:15:00", TZ_LOCAL_GAP, "2026-10-03T15:30:00Z",
     "2026-10-03T15:30:00Z"},
    {"Australia/Lord_Howe", "2026-04-05T01:45:00", TZ_LOCAL_OVERLAP, "2026-04-04T14:45:00Z",
     "2026-04-04T15:15:00Z"},
    {"Australia/Lord_Howe", "2090-04-02T01:30:00", TZ_LOCAL_OVERLAP, "2090-04-01T14:30:00Z",
     "2090-04-01T15:00:00Z"},
    {"Asia/Kolkata", "2026-03-16T09:00:00", TZ_LOCAL_UNIQUE, "2026-03-16T03:30:00Z",
     "2026-03-16T03:30:00Z"},
    /* a whole skipped day: Samoa went from 2011-12-29 23:59:59 to 2011-12-31 00:00 */
    {"Pacific/Apia", "2011-12-30T12:00:00", TZ_LOCAL_GAP, "2011-12-30T10:00:00Z",
     "2011-12-30T10:00:00Z"},
    {"UTC", "2026-03-08T02:30:00", TZ_LOCAL_UNIQUE, "2026-03-08T02:30:00Z", "2026-03-08T02:30:00Z"},
};

static void test_local_to_utc(void **state)
{
    int failures = 0;

    (void)state;
    for (size_t i = 0; i < TE_ARRAY_LEN(local_rows); i++) {
        const struct local_row *r = &local_rows[i];
        struct tz_local got;
        int rc = tz_local_to_utc(zone(r->zone), at(r->local), &got);
        if (rc || got.kind != r->kind || got.utc != at(r->utc) ||
            got.utc_later != at(r->utc_later)) {
            print_error("%s %s: rc=%d kind=%d utc=%lld later=%lld\n", r->zone, r->local, rc,
                        (int)got.kind, (long long)got.utc, (long long)got.utc_later);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

static void test_local_to_utc_range(void **state)
{
    struct tz_local l;

    (void)state;
    assert_int_equal(tz_local_to_utc(tz_utc(), INT64_MAX, &l), -ERANGE);
    assert_int_equal(tz_local_to_utc(tz_utc(), INT64_MIN, &l), -ERANGE);
    assert_int_equal(tz_local_to_utc(NULL, 0, &l), -EINVAL);
    /* far but supported: year 30000 */
    assert_int_equal(tz_local_to_utc(zone("America/New_York"), at("30000-07-01T12:00:00"), &l), 0);
    assert_int_equal(l.kind, TZ_LOCAL_UNIQUE);
    assert_true(l.utc == at("30000-07-01T16:00:00Z"));
}

/* ---- POSIX TZ strings on their own ----------------------------------------------------- */

struct posix_row {
    const char *spec, *utc;
    int off;
};

static const struct posix_row posix_rows[] = {
    {"EST5EDT,M3.2.0,M11.1.0", "2026-03-08T06:59:59Z", -18000},
    {"EST5EDT,M3.2.0,M11.1.0", "2026-03-08T07:00:00Z", -14400},
    {"EST5EDT,M3.2.0,M11.1.0", "2026-11-01T05:59:59Z", -14400},
    {"EST5EDT,M3.2.0,M11.1.0", "2026-11-01T06:00:00Z", -18000},
    {"EST5EDT,M3.2.0,M11.1.0", "2090-03-12T07:00:00Z", -14400},
    {"EST5EDT", "2026-07-01T00:00:00Z", -14400}, /* no rule: tzcode's US default */
    {"EST5EDT", "2026-01-01T00:00:00Z", -18000},
    {"<+1030>-10:30<+11>-11,M10.1.0,M4.1.0", "2026-04-04T14:59:59Z", 39600},
    {"<+1030>-10:30<+11>-11,M10.1.0,M4.1.0", "2026-04-04T15:00:00Z", 37800},
    {"<+1030>-10:30<+11>-11,M10.1.0,M4.1.0", "2026-10-03T15:29:59Z", 37800},
    {"<+1030>-10:30<+11>-11,M10.1.0,M4.1.0", "2026-10-03T15:30:00Z", 39600},
    {"IST-5:30", "2026-01-01T00:00:00Z", 19800},
    {"LMT+4:56:02", "2026-01-01T00:00:00Z", -17762},
    {"CET-1CEST,M3.5.0,M10.5.0/3", "2026-03-29T00:59:59Z", 3600}, /* week 5 = last */
    {"CET-1CEST,M3.5.0,M10.5.0/3", "2026-03-29T01:00:00Z", 7200},
    {"CET-1CEST,M3.5.0,M10.5.0/3", "2026-10-25T00:59:59Z", 7200},
    {"CET-1CEST,M3.5.0,M10.5.0/3", "2026-10-25T01:00:00Z", 3600},
    /* TZif v3: negative and over-24h transition times */
    {"<-02>2<-01>,M3.5.0/-1,M10.5.0/0", "2026-03-29T00:59:59Z", -7200},
    {"<-02>2<-01>,M3.5.0/-1,M10.5.0/0", "2026-03-29T01:00:00Z", -3600},
    {"<-02>2<-01>,M3.5.0/-1,M10.5.0/0", "2026-10-25T00:59:59Z", -3600},
    {"<-02>2<-01>,M3.5.0/-1,M10.5.0/0", "2026-10-25T01:00:00Z", -7200},
    {"IST-2IDT,M3.4.4/26,M10.5.0", "2026-03-26T23:59:59Z", 7200},
    {"IST-2IDT,M3.4.4/26,M10.5.0", "2026-03-27T00:00:00Z", 10800},
    {"IST-2IDT,M3.4.4/26,M10.5.0", "2026-10-24T22:59:59Z", 10800},
    {"IST-2IDT,M3.4.4/26,M10.5.0", "2026-10-24T23:00:00Z", 7200},
    /* DST all year (v3): no glitch at the year boundary */
    {"EST5EDT,0/0,J365/25", "2030-01-01T04:59:59Z", -14400},
    {"EST5EDT,0/0,J365/25", "2030-01-01T05:00:00Z", -14400},
    {"EST5EDT,0/0,J365/25", "2030-07-01T00:00:00Z", -14400},
    {"EST5EDT,0/0,J365/25", "2031-01-01T04:59:59Z", -14400},
    /* Jn never counts February 29: J60 is March 1 also in leap years */
    {"AAA3BBB,J60/2,J300/2", "2028-03-01T04:59:59Z", -10800},
    {"AAA3BBB,J60/2,J300/2", "2028-03-01T05:00:00Z", -7200},
    /* n counts it: day 59 is February 29 in 2028 and March 1 in 2027 */
    {"AAA3BBB,59/2,300/2", "2028-02-29T04:59:59Z", -10800},
    {"AAA3BBB,59/2,300/2", "2028-02-29T05:00:00Z", -7200},
    {"AAA3BBB,59/2,300/2", "2027-03-01T05:00:00Z", -7200},
    {"AAA3BBB,59/2,300/2", "2027-10-28T03:59:59Z", -7200},
    {"AAA3BBB,59/2,300/2", "2027-10-28T04:00:00Z", -10800},
};

static void test_posix_rules(void **state)
{
    int failures = 0;

    (void)state;
    for (size_t i = 0; i < TE_ARRAY_LEN(posix_rows); i++) {
        const struct posix_row *r = &posix_rows[i];
        struct tz *z;
        char err[128];
        if (tz_parse_posix(r->spec, &z, err, sizeof(err))) {
            print_error("%s: %s\n", r->spec, err);
            failures++;
            continue;
        }
        int got = tz_offset_at(z, at(r->utc));
        if (got != r->off) {
            print_error("%s at %s: offset %d, want %d\n", r->spec, r->utc, got, r->off);
            failures++;
        }
        tz_free(z);
    }
    assert_int_equal(failures, 0);
}

struct posix_bad_row {
    const char *spec, *msg;
};

static const struct posix_bad_row posix_bad_rows[] = {
    {"", "bad standard time name"},
    {"ES5", "bad standard time name"},
    {"<AB>5", "bad standard time name"},
    {"EST", "bad or missing standard time offset"},
    {"EST25", "bad or missing standard time offset"},
    {"EST5:60", "bad or missing standard time offset"},
    {"EST5 EDT", "bad DST name"},
    {"EST5EDT25", "bad DST offset"},
    {"EST5EDT,M13.1.0,M11.1.0", "bad DST start rule"},
    {"EST5EDT,M3.6.0,M11.1.0", "bad DST start rule"},
    {"EST5EDT,M3.2.7,M11.1.0", "bad DST start rule"},
    {"EST5EDT,M3.2.0/168,M11.1.0", "bad DST start rule"},
    {"EST5EDT,J0,J365", "bad DST start rule"},
    {"EST5EDT,366,1", "bad DST start rule"},
    {"EST5EDT4x", "bad DST start rule"},
    {"EST5EDT,M3.2.0", "bad DST end rule"},
    {"EST5EDT,M3.2.0,", "bad DST end rule"},
    {"EST5EDT,M3.2.0,M11.1.0junk", "unexpected text after DST rule"},
};

static void test_posix_bad(void **state)
{
    int failures = 0;
    struct tz *z;
    char err[128];

    (void)state;
    for (size_t i = 0; i < TE_ARRAY_LEN(posix_bad_rows); i++) {
        const struct posix_bad_row *r = &posix_bad_rows[i];
        err[0] = '\0';
        int rc = tz_parse_posix(r->spec, &z, err, sizeof(err));
        if (rc != -EINVAL || z != NULL || strcmp(err, r->msg) != 0) {
            print_error("'%s': rc=%d err='%s', want '%s'\n", r->spec, rc, err, r->msg);
            failures++;
        }
    }
    assert_int_equal(tz_parse_posix(NULL, &z, NULL, 0), -EINVAL);
    assert_int_equal(failures, 0);
}

static void test_posix_utc_flag(void **state)
{
    struct tz *z;

    (void)state;
    assert_int_equal(tz_parse_posix("UTC0", &z, NULL, 0), 0);
    assert_true(tz_is_utc(z));
    assert_string_equal(tz_name(z), "UTC0");
    tz_free(z);
    assert_int_equal(tz_parse_posix("GMT0BST,M3.5.0/1,M10.5.0", &z, NULL, 0), 0);
    assert_false(tz_is_utc(z));
    tz_free(z);
}

/* ---- synthetic TZif data --------------------------------------------------------------- */

struct blob {
    uint8_t b[2048];
    size_t n;
};

static void put8(struct blob *x, uint8_t v)
{
    assert_true(x->n < sizeof(x->b));
    x->b[x->n++] = v;
}

static void put32(struct blob *x, uint32_t v)
{
    for (int s = 24; s >= 0; s -= 8)
        put8(x, (uint8_t)(v >> s));
}

static void put64(struct blob *x, uint64_t v)
{
    put32(x, (uint32_t)(v >> 32));
    put32(x, (uint32_t)v);
}

/* A small zone: LMT, then EST from 1901-12-13T20:45:52Z (the earliest 32-bit time, so the
 * v1 block can hold it too), EDT and back in 2020. */
#define NTRANS 3
#define NTYPES 3
static const int64_t syn_trans[NTRANS] = {INT32_MIN, 1583650800, 1604210400};
static const uint8_t syn_idx[NTRANS] = {1, 2, 1};
static const int32_t syn_off[NTYPES] = {-17762, -18000, -14400};
static const uint8_t syn_dst[NTYPES] = {0, 0, 1};
static const char syn_chars[] = "LMT\0EST\0EDT"; /* 12 bytes with the final NUL */
static const uint8_t syn_desig[NTYPES] = {0, 4, 8};

struct syn_opts {
    char version;       /* 0, '2', '3' */
    const char *footer; /* without the newlines; NULL = "EST5EDT,M3.2.0,M11.1.0" */
    uint32_t leap;      /* leap-second records to claim (and write) */
    bool no_trans;      /* write zero transitions (like a "slim" file) */
};

static void put_header(struct blob *x, char version, uint32_t time, uint32_t leap)
{
    put8(x, 'T');
    put8(x, 'Z');
    put8(x, 'i');
    put8(x, 'f');
    put8(x, (uint8_t)version);
    for (int i = 0; i < 15; i++)
        put8(x, 0);
    put32(x, NTYPES); /* isutcnt */
    put32(x, NTYPES); /* isstdcnt */
    put32(x, leap);
    put32(x, time);
    put32(x, NTYPES);
    put32(x, sizeof(syn_chars));
}

static void put_block(struct blob *x, size_t tsize, const struct syn_opts *o)
{
    uint32_t nt = o->no_trans ? 0 : NTRANS;

    put_header(x, o->version, nt, o->leap);
    for (uint32_t i = 0; i < nt; i++) {
        if (tsize == 4)
            put32(x, (uint32_t)(int32_t)syn_trans[i]);
        else
            put64(x, (uint64_t)syn_trans[i]);
    }
    for (uint32_t i = 0; i < nt; i++)
        put8(x, syn_idx[i]);
    for (int i = 0; i < NTYPES; i++) {
        put32(x, (uint32_t)syn_off[i]);
        put8(x, syn_dst[i]);
        put8(x, syn_desig[i]);
    }
    for (size_t i = 0; i < sizeof(syn_chars); i++)
        put8(x, (uint8_t)syn_chars[i]);
    for (uint32_t i = 0; i < o->leap; i++) {
        if (tsize == 4)
            put32(x, 78796800);
        else
            put64(x, 78796800);
        put32(x, 1);
    }
    for (int i = 0; i < 2 * NTYPES; i++)
        put8(x, 0); /* isstd, isut */
}

static void build(struct blob *x, const struct syn_opts *o)
{
    const char *footer = o->footer ? o->footer : "EST5EDT,M3.2.0,M11.1.0";

    x->n = 0;
    put_block(x, 4, o);
    if (o->version == 0)
        return;
    put_block(x, 8, o);
    put8(x, '\n');
    for (const char *p = footer; *p; p++)
        put8(x, (uint8_t)*p);
    put8(x, '\n');
}

static struct tz *parse_ok(const struct blob *x)
{
    struct tz *z = NULL;
    char err[128] = "";

    if (tz_parse(x->b, x->n, &z, err, sizeof(err)))
        fail_msg("tz_parse: %s", err);
    return z;
}

static void test_tzif_versions(void **state)
{
    struct syn_opts o = {.version = 0};
    struct blob x;
    struct tz *z;

    (void)state;
    /* v1: 32-bit data, no footer, the last type persists */
    build(&x, &o);
    z = parse_ok(&x);
    assert_int_equal(tz_offset_at(z, at("1800-01-01T00:00:00Z")), -17762);
    assert_int_equal(tz_offset_at(z, at("1901-12-13T20:45:51Z")), -17762);
    assert_int_equal(tz_offset_at(z, at("1901-12-13T20:45:52Z")), -18000);
    assert_int_equal(tz_offset_at(z, at("2020-07-01T00:00:00Z")), -14400);
    assert_int_equal(tz_offset_at(z, at("2021-07-01T00:00:00Z")), -18000);
    assert_false(tz_is_utc(z));
    tz_free(z);
    /* v2: 64-bit data and the footer rule after the last transition */
    o.version = '2';
    build(&x, &o);
    z = parse_ok(&x);
    assert_int_equal(tz_offset_at(z, at("2020-07-01T00:00:00Z")), -14400);
    assert_int_equal(tz_offset_at(z, at("2021-01-01T00:00:00Z")), -18000);
    assert_int_equal(tz_offset_at(z, at("2021-07-01T00:00:00Z")), -14400);
    assert_int_equal(tz_offset_at(z, at("2090-03-12T07:00:00Z")), -14400);
    tz_free(z);
    /* v3, "slim": no transitions, everything from a footer with a negative time */
    o.version = '3';
    o.no_trans = true;
    o.footer = "<-02>2<-01>,M3.5.0/-1,M10.5.0/0";
    build(&x, &o);
    z = parse_ok(&x);
    assert_int_equal(tz_offset_at(z, at("2026-03-29T00:59:59Z")), -7200);
    assert_int_equal(tz_offset_at(z, at("2026-03-29T01:00:00Z")), -3600);
    tz_free(z);
    /* an empty footer means "no rule" */
    o.version = '2';
    o.no_trans = false;
    o.footer = "";
    build(&x, &o);
    z = parse_ok(&x);
    assert_int_equal(tz_offset_at(z, at("2021-07-01T00:00:00Z")), -18000);
    tz_free(z);
}

enum corrupt {
    C_NONE,
    C_MAGIC,
    C_VERSION,
    C_TRUNCATE,
    C_LEAP,
    C_TYPE_INDEX,
    C_ORDER,
    C_UTOFF,
    C_DESIG,
    C_FOOTER_NL,
    C_FOOTER_END,
    C_FOOTER_RULE,
    C_TYPECNT,
    C_ISSTDCNT,
};

struct corrupt_row {
    enum corrupt what;
    const char *msg;
};

static const struct corrupt_row corrupt_rows[] = {
    {C_MAGIC, "not a TZif file"},
    {C_VERSION, "unsupported TZif version 0x31"},
    {C_TRUNCATE, "truncated TZif data"},
    {C_LEAP, "leap-second zones (right/...) are not supported"},
    {C_TYPE_INDEX, "bad TZif transition type"},
    {C_ORDER, "TZif transitions not ascending"},
    {C_UTOFF, "UT offset 100000 out of range"},
    {C_DESIG, "bad local time type 1"},
    {C_FOOTER_NL, "missing TZif footer"},
    {C_FOOTER_END, "unterminated TZif footer"},
    {C_FOOTER_RULE, "bad DST end rule"},
    {C_TYPECNT, "bad TZif type or character count"},
    {C_ISSTDCNT, "bad TZif indicator count"},
};

/* Offsets inside the v2 64-bit block of the synthetic file. */
static size_t v2_body(const struct blob *x)
{
    (void)x;
    size_t v1 = 44 + NTRANS * 5 + NTYPES * 6 + sizeof(syn_chars) + 2 * NTYPES;
    return v1 + 44;
}

static void corrupt(struct blob *x, enum corrupt what)
{
    size_t body = v2_body(x);
    size_t types = body + NTRANS * 9;

    switch (what) {
    case C_NONE:
        break;
    case C_MAGIC:
        x->b[0] = 'X';
        break;
    case C_VERSION:
        x->b[4] = '1';
        break;
    case C_TRUNCATE:
        x->n = body + 10;
        break;
    case C_LEAP:
        break; /* built with a leap record instead */
    case C_TYPE_INDEX:
        x->b[body + NTRANS * 8 + 1] = NTYPES;
        break;
    case C_ORDER:
        memcpy(&x->b[body + 8], &x->b[body], 8);
        break;
    case C_UTOFF:
        x->b[types + 6 + 0] = 0, x->b[types + 6 + 1] = 0x01, x->b[types + 6 + 2] = 0x86,
                         x->b[types + 6 + 3] = 0xa0;
        break;
    case C_DESIG:
        x->b[types + 6 + 5] = sizeof(syn_chars);
        break;
    case C_FOOTER_NL:
        x->b[x->n - 24] = 'x'; /* the newline before "EST5EDT,M3.2.0,M11.1.0" */
        break;
    case C_FOOTER_END:
        x->n--;
        break;
    case C_FOOTER_RULE:
        x->b[x->n - 9] = '\n'; /* cuts the footer to "EST5EDT,M3.2.0" */
        break;
    case C_TYPECNT:
        x->b[36] = x->b[37] = x->b[38] = x->b[39] = 0;
        break;
    case C_ISSTDCNT:
        x->b[27] = 1;
        break;
    }
}

static void test_tzif_corrupt(void **state)
{
    int failures = 0;

    (void)state;
    for (size_t i = 0; i < TE_ARRAY_LEN(corrupt_rows); i++) {
        const struct corrupt_row *r = &corrupt_rows[i];
        struct syn_opts o = {.version = '2', .leap = r->what == C_LEAP};
        struct blob x;
        struct tz *z = NULL;
        char err[128] = "";
        build(&x, &o);
        corrupt(&x, r->what);
        int rc = tz_parse(x.b, x.n, &z, err, sizeof(err));
        if (rc != -EINVAL || z || strcmp(err, r->msg) != 0) {
            print_error("corruption %d: rc=%d err='%s', want '%s'\n", (int)r->what, rc, err,
                        r->msg);
            failures++;
        }
        tz_free(z);
    }
    assert_int_equal(failures, 0);
}

static int read_file(const char *path, struct blob *x)
{
    FILE *f = fopen(path, "rb");

    if (!f)
        return -1;
    x->n = fread(x->b, 1, sizeof(x->b), f);
    fclose(f);
    return 0;
}

/* Every prefix and many single-byte mutations of real files must fail cleanly or parse;
 * the sanitizer build turns any out-of-bounds read into a failure. */
static void test_tzif_robust(void **state)
{
    static const char *files[] = {"Asia/Kolkata", "Etc/UTC", "Asia/Tokyo"};
    struct blob x, y;
    struct tz *z;

    (void)state;
    for (size_t f = 0; f < TE_ARRAY_LEN(files); f++) {
        char path[256];
        snprintf(path, sizeof(path), "%s/%s", TZ_DEFAULT_ROOT, files[f]);
        assert_int_equal(read_file(path, &x), 0);
        assert_true(x.n < sizeof(x.b));
        z = parse_ok(&x);
        tz_free(z);
        for (size_t n = 0; n < x.n; n++) {
            assert_int_not_equal(tz_parse(x.b, n, &z, NULL, 0), 0);
            assert_null(z);
        }
        for (size_t i = 0; i < x.n; i++) {
            for (int bit = 0; bit < 8; bit++) {
                y = x;
                y.b[i] ^= (uint8_t)(1u << bit);
                if (tz_parse(y.b, y.n, &z, NULL, 0) == 0) {
                    (void)tz_offset_at(z, 0);
                    tz_free(z);
                }
            }
        }
    }
    assert_int_equal(tz_parse(NULL, 0, &z, NULL, 0), -EINVAL);
}

/* ---- names, loading, cache ------------------------------------------------------------- */

struct name_row {
    const char *name;
    bool ok;
};

static const struct name_row name_rows[] = {
    {"UTC", true},
    {"America/New_York", true},
    {"America/Argentina/Buenos_Aires", true},
    {"America/Port-au-Prince", true},
    {"Etc/GMT+5", true},
    {"Etc/GMT-14", true},
    {"EST5EDT", true},
    {"", false},
    {"/etc/passwd", false},
    {"../etc/passwd", false},
    {"America/../../etc/passwd", false},
    {"America/./New_York", false},
    {".", false},
    {"America/", false},
    {"America//New_York", false},
    {"zone.tab", false},
    {"America/New York", false},
    {"America/New_York\n", false},
    {"America\\New_York", false},
    {"Europe/Z\xc3\xbcrich", false},
    {"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
     "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
     true}, /* 128 */
    {"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
     "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
     false}, /* 129 */
};

static void test_names(void **state)
{
    int failures = 0;

    (void)state;
    for (size_t i = 0; i < TE_ARRAY_LEN(name_rows); i++) {
        if (tz_name_valid(name_rows[i].name) != name_rows[i].ok) {
            print_error("'%s': valid=%d\n", name_rows[i].name, !name_rows[i].ok);
            failures++;
        }
    }
    assert_false(tz_name_valid(NULL));
    assert_int_equal(failures, 0);
}

struct load_row {
    const char *root, *name;
    int rc;
    const char *msg;
};

static const struct load_row load_rows[] = {
    {NULL, "Europe/London", 0, ""},
    {NULL, "Etc/GMT+5", 0, ""},
    {"/nonexistent", "UTC", 0, ""},
    {"/nonexistent", "Etc/UTC", 0, ""},
    {NULL, "America/Nowhere", -ENOENT, "unknown time zone 'America/Nowhere'"},
    {NULL, "America", -ENOENT, "unknown time zone 'America'"},
    {"/nonexistent", "Europe/London", -ENOENT, "unknown time zone 'Europe/London'"},
    {NULL, "../../etc/passwd", -EINVAL, "invalid time zone name"},
    {NULL, "/etc/passwd", -EINVAL, "invalid time zone name"},
};

static void test_load(void **state)
{
    int failures = 0;

    (void)state;
    for (size_t i = 0; i < TE_ARRAY_LEN(load_rows); i++) {
        const struct load_row *r = &load_rows[i];
        struct tz *z = NULL;
        char err[160] = "";
        int rc = tz_load(r->root, r->name, &z, err, sizeof(err));
        if (rc != r->rc || strcmp(err, r->msg) != 0 || (rc == 0) != (z != NULL) ||
            (z && strcmp(tz_name(z), r->name) != 0)) {
            print_error("%s: rc=%d err='%s', want %d '%s'\n", r->name, rc, err, r->rc, r->msg);
            failures++;
        }
        tz_free(z);
    }
    assert_int_equal(failures, 0);
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");

    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* A configured root: the loader reads <root>/<name>, follows symlinks inside it (zoneinfo
 * trees are full of them) and reports files that are not TZif or use leap seconds. */
static void test_load_custom_root(void **state)
{
    char root[] = "/tmp/te_tz_XXXXXX", path[4][96], err[160];
    static const char *const rel[4] = {"Test", "Test/Zone", "Test/Link", "Test/Text"};
    struct syn_opts o = {.version = '2'};
    struct blob x;
    struct tz *z;

    (void)state;
    assert_non_null(mkdtemp(root));
    for (int i = 0; i < 4; i++)
        snprintf(path[i], sizeof(path[i]), "%s/%s", root, rel[i]);
    assert_int_equal(mkdir(path[0], 0700), 0);
    build(&x, &o);
    write_file(path[1], x.b, x.n);
    assert_int_equal(symlink("Zone", path[2]), 0);
    write_file(path[3], "hello\n", 6);

    assert_int_equal(tz_load(root, "Test/Zone", &z, NULL, 0), 0);
    assert_int_equal(tz_offset_at(z, at("2090-07-01T00:00:00Z")), -14400);
    tz_free(z);
    assert_int_equal(tz_load(root, "Test/Link", &z, NULL, 0), 0);
    assert_string_equal(tz_name(z), "Test/Link");
    tz_free(z);
    assert_int_equal(tz_load(root, "Test/Text", &z, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "time zone 'Test/Text': not a TZif file");
    o.leap = 1;
    build(&x, &o);
    write_file(path[1], x.b, x.n);
    assert_int_equal(tz_load(root, "Test/Zone", &z, err, sizeof(err)), -EINVAL);
    assert_string_equal(err,
                        "time zone 'Test/Zone': leap-second zones (right/...) are not supported");
    assert_int_equal(tz_load(root, "America/New_York", &z, NULL, 0), -ENOENT);

    for (int i = 3; i >= 1; i--)
        assert_int_equal(unlink(path[i]), 0);
    assert_int_equal(rmdir(path[0]), 0);
    assert_int_equal(rmdir(root), 0);
}

static void test_cache(void **state)
{
    static const char *names[] = {"Europe/Paris",    "Asia/Tokyo",     "UTC",
                                  "America/Chicago", "Africa/Abidjan", "Europe/Paris"};
    const struct tz *first[TE_ARRAY_LEN(names)], *z;
    struct tz_cache *c;
    char err[128];

    (void)state;
    assert_int_equal(tz_cache_new(NULL, &c), 0);
    for (size_t i = 0; i < TE_ARRAY_LEN(names); i++) {
        assert_int_equal(tz_cache_get(c, names[i], &first[i], err, sizeof(err)), 0);
        assert_string_equal(tz_name(first[i]), names[i]);
    }
    assert_ptr_equal(first[0], first[5]);
    for (size_t i = 0; i < TE_ARRAY_LEN(names); i++) {
        assert_int_equal(tz_cache_get(c, names[i], &z, err, sizeof(err)), 0);
        assert_ptr_equal(z, first[i]);
    }
    assert_int_equal(tz_cache_get(c, "Nowhere/Zone", &z, err, sizeof(err)), -ENOENT);
    assert_null(z);
    assert_string_equal(err, "unknown time zone 'Nowhere/Zone'");
    assert_int_equal(tz_cache_get(c, "../x", &z, err, sizeof(err)), -EINVAL);
    tz_cache_free(c);
    tz_cache_free(NULL);
}

/* ---- formatting and calendar ----------------------------------------------------------- */

struct format_row {
    const char *zone, *utc, *want;
};

static const struct format_row format_rows[] = {
    {"Asia/Kolkata", "2026-03-16T03:30:00Z", "2026-03-16T09:00:00+05:30"},
    {"Asia/Kathmandu", "2026-03-16T03:15:00Z", "2026-03-16T09:00:00+05:45"},
    {"UTC", "2026-03-16T03:30:00Z", "2026-03-16T03:30:00Z"},
    {"Etc/GMT", "2026-03-16T03:30:00Z", "2026-03-16T03:30:00Z"},
    {"Europe/London", "2026-01-10T12:00:00Z", "2026-01-10T12:00:00+00:00"},
    {"Europe/London", "2026-07-10T12:00:00Z", "2026-07-10T13:00:00+01:00"},
    {"America/New_York", "2026-11-01T06:30:00Z", "2026-11-01T01:30:00-05:00"},
    {"America/New_York", "2026-11-01T05:30:00Z", "2026-11-01T01:30:00-04:00"},
    {"America/New_York", "1800-01-01T00:00:00Z", "1799-12-31T19:04:00-04:56"}, /* LMT */
    {"Europe/Amsterdam", "1920-01-01T00:00:00Z", "1920-01-01T00:20:00+00:20"}, /* +0:19:32 */
    {"Australia/Lord_Howe", "2090-12-25T00:00:00Z", "2090-12-25T11:00:00+11:00"},
    {"UTC", "1969-12-31T23:59:59Z", "1969-12-31T23:59:59Z"},
    {"UTC", "0000-01-01T00:00:00Z", "0000-01-01T00:00:00Z"},
    {"UTC", "9999-12-31T23:59:59Z", "9999-12-31T23:59:59Z"},
};

static void test_format(void **state)
{
    int failures = 0;
    char out[TZ_RFC3339_SIZE];

    (void)state;
    for (size_t i = 0; i < TE_ARRAY_LEN(format_rows); i++) {
        const struct format_row *r = &format_rows[i];
        int rc = tz_format_rfc3339(zone(r->zone), at(r->utc), out, sizeof(out));
        if (rc || strcmp(out, r->want) != 0) {
            print_error("%s %s: rc=%d '%s', want '%s'\n", r->zone, r->utc, rc, rc ? "" : out,
                        r->want);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

static void test_format_limits(void **state)
{
    const struct tz *kol = zone("Asia/Kolkata");
    int64_t t = at("2026-03-16T03:30:00Z");
    char out[TZ_RFC3339_SIZE];

    (void)state;
    assert_int_equal(tz_format_rfc3339(kol, t, out, 26), 0);
    assert_int_equal(tz_format_rfc3339(kol, t, out, 25), -ENOSPC);
    assert_int_equal(tz_format_rfc3339(tz_utc(), t, out, 21), 0);
    assert_int_equal(tz_format_rfc3339(tz_utc(), t, out, 20), -ENOSPC);
    assert_int_equal(tz_format_rfc3339(tz_utc(), t, out, 0), -ENOSPC);
    assert_int_equal(tz_format_rfc3339(tz_utc(), at("10000-01-01T00:00:00Z"), out, 26), -ERANGE);
    assert_int_equal(tz_format_rfc3339(tz_utc(), at("0000-01-01T00:00:00Z") - 1, out, 26), -ERANGE);
    assert_int_equal(tz_format_rfc3339(tz_utc(), INT64_MAX, out, 26), -ERANGE);
    assert_int_equal(tz_format_rfc3339(NULL, t, out, 26), -EINVAL);
}

static void test_civil(void **state)
{
    (void)state;
    assert_true(tz_days_from_civil(1970, 1, 1) == 0);
    assert_true(tz_days_from_civil(2000, 3, 1) == 11017);
    assert_true(tz_days_from_civil(1, 1, 1) == -719162);
    assert_true(tz_days_from_civil(2100, 3, 1) - tz_days_from_civil(2100, 2, 28) == 1);
    assert_true(tz_days_from_civil(2000, 3, 1) - tz_days_from_civil(2000, 2, 28) == 2);
    /* round trip and continuity over years -800 to 10000 */
    int64_t py = -801;
    int pm = 12, pd = 31;
    for (int64_t d = tz_days_from_civil(-800, 1, 1); d < tz_days_from_civil(10000, 1, 1); d++) {
        int64_t y;
        int m, dd;
        tz_civil_from_days(d, &y, &m, &dd);
        if (tz_days_from_civil(y, m, dd) != d)
            fail_msg("day %lld does not round-trip", (long long)d);
        bool next_day = y == py && m == pm && dd == pd + 1;
        bool next_month = y == py && m == pm + 1 && dd == 1;
        bool next_year = y == py + 1 && m == 1 && dd == 1 && pm == 12 && pd == 31;
        if (!next_day && !next_month && !next_year)
            fail_msg("day %lld: %lld-%d-%d after %lld-%d-%d", (long long)d, (long long)y, m, dd,
                     (long long)py, pm, pd);
        py = y, pm = m, pd = dd;
    }
}

static void test_utc_builtin(void **state)
{
    const struct tz *u = tz_utc();

    (void)state;
    assert_true(tz_is_utc(u));
    assert_string_equal(tz_name(u), "UTC");
    assert_int_equal(tz_offset_at(u, INT64_MAX), 0);
    assert_int_equal(tz_offset_at(u, INT64_MIN), 0);
    tz_free((struct tz *)(uintptr_t)u); /* ignored for the static zone */
    assert_true(tz_is_utc(zone("Etc/UTC")));
    assert_true(tz_is_utc(zone("Etc/GMT")));
    assert_false(tz_is_utc(zone("Europe/London")));
    assert_false(tz_is_utc(zone("Africa/Abidjan"))); /* GMT now, but LMT before 1912 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offsets),
        cmocka_unit_test(test_local_to_utc),
        cmocka_unit_test(test_local_to_utc_range),
        cmocka_unit_test(test_posix_rules),
        cmocka_unit_test(test_posix_bad),
        cmocka_unit_test(test_posix_utc_flag),
        cmocka_unit_test(test_tzif_versions),
        cmocka_unit_test(test_tzif_corrupt),
        cmocka_unit_test(test_tzif_robust),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_load_custom_root),
        cmocka_unit_test(test_cache),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_format_limits),
        cmocka_unit_test(test_civil),
        cmocka_unit_test(test_utc_builtin),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
