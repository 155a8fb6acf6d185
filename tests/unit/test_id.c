/*
 * core/id: "prefix_" + UUIDv7 in 32 lowercase hex digits; version and
 * variant bits; strictly increasing within one millisecond, across
 * milliseconds and when the clock steps back; id_valid.
 *
 * id_new keeps per-process state (last millisecond, counter), so every test
 * uses times later than the ones before it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/id.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

#define T0 INT64_C(1773597600000)

static int hexv(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c - 'a' + 10;
}

/* 48-bit time of a "job_" id. */
static int64_t id_time(const char *id)
{
    int64_t t = 0;
    for (int i = 0; i < 12; i++)
        t = t * 16 + hexv(id[4 + i]);
    return t;
}

/* 12-bit counter after the version nibble. */
static int id_seq(const char *id)
{
    return hexv(id[17]) * 256 + hexv(id[18]) * 16 + hexv(id[19]);
}

static void check_shape(const char *id, const char *prefix)
{
    size_t pl = strlen(prefix);
    assert_int_equal(strlen(id), pl + 1 + 32);
    assert_memory_equal(id, prefix, pl);
    assert_int_equal(id[pl], '_');
    const char *h = id + pl + 1;
    for (int i = 0; i < 32; i++)
        assert_non_null(strchr("0123456789abcdef", h[i]));
    assert_int_equal(h[12], '7');           /* version 7 */
    assert_non_null(strchr("89ab", h[16])); /* variant 10xx */
    assert_true(id_valid(prefix, id));
}

static void test_format(void **state)
{
    (void)state;
    char id[ID_MAX];
    id_new("job", T0, id);
    check_shape(id, "job");
    assert_int_equal(id_time(id), T0);
    /* the time is the first 48 bits, big-endian */
    char want[13];
    snprintf(want, sizeof(want), "%012llx", (unsigned long long)T0);
    assert_memory_equal(id + 4, want, 12);

    static const char *const prefixes[] = {"exe", "req", "cron", "a", "abcdefghijklmn"};
    for (size_t i = 0; i < N_ELEMS(prefixes); i++) {
        id_new(prefixes[i], T0 + 1 + (int64_t)i, id);
        check_shape(id, prefixes[i]);
    }
}

/* 10,000 ids with the same clock reading: strictly increasing, all distinct. */
static void test_same_ms_increasing(void **state)
{
    (void)state;
    const int64_t now = T0 + 1000000;
    enum { N = 10000 };
    char(*ids)[ID_MAX] = calloc(N, ID_MAX);
    assert_non_null(ids);
    for (int i = 0; i < N; i++) {
        id_new("job", now, ids[i]);
        check_shape(ids[i], "job");
        assert_true(id_time(ids[i]) >= now);
        if (i == 0) {
            assert_int_equal(id_time(ids[i]), now);
            continue;
        }
        if (strcmp(ids[i - 1], ids[i]) >= 0)
            fail_msg("id %d not increasing: %s then %s", i, ids[i - 1], ids[i]);
        int64_t t0 = id_time(ids[i - 1]), t1 = id_time(ids[i]);
        /* the counter steps by one; it borrows the next millisecond only when full */
        if (t1 == t0)
            assert_int_equal(id_seq(ids[i]), id_seq(ids[i - 1]) + 1);
        else {
            assert_int_equal(t1, t0 + 1);
            assert_int_equal(id_seq(ids[i - 1]), 0x0fff);
        }
    }
    /* at least 3072 ids fit in each millisecond (random start below 1024) */
    assert_true(id_time(ids[N - 1]) - now <= 3);
    free(ids);
}

static void test_across_ms_increasing(void **state)
{
    (void)state;
    const int64_t base = T0 + 2000000;
    char prev[ID_MAX] = "", id[ID_MAX];
    for (int i = 0; i < 10000; i++) {
        int64_t now = base + i / 3; /* three ids per millisecond */
        id_new("job", now, id);
        check_shape(id, "job");
        assert_int_equal(id_time(id), now);
        if (i && strcmp(prev, id) >= 0)
            fail_msg("id %d not increasing: %s then %s", i, prev, id);
        memcpy(prev, id, ID_MAX);
    }
}

/* A clock that steps back keeps the last millisecond, so order holds. */
static void test_clock_step_back(void **state)
{
    (void)state;
    const int64_t base = T0 + 3000000;
    char a[ID_MAX], b[ID_MAX], c[ID_MAX];
    id_new("job", base, a);
    id_new("job", base - 5000, b);
    id_new("job", base - 1, c);
    assert_true(strcmp(a, b) < 0);
    assert_true(strcmp(b, c) < 0);
    assert_int_equal(id_time(b), base);
    assert_int_equal(id_time(c), base);
}

static void test_random_part_differs(void **state)
{
    (void)state;
    const int64_t base = T0 + 4000000;
    char a[ID_MAX], b[ID_MAX];
    id_new("job", base, a);
    id_new("job", base + 1, b);
    /* the last 62 bits are random: equal tails would be a 2^-60 event */
    assert_memory_not_equal(a + 4 + 17, b + 4 + 17, 15);
}

/* A prefix longer than the id can hold must not write past ID_MAX. */
static void test_long_prefix_no_overflow(void **state)
{
    (void)state;
    char prefix[80];
    memset(prefix, 'p', sizeof(prefix) - 1);
    prefix[sizeof(prefix) - 1] = '\0';
    static const size_t lens[] = {15, 30, 45, 46, 47, 48, 60, 79};
    for (size_t i = 0; i < N_ELEMS(lens); i++) {
        char p[80];
        memcpy(p, prefix, lens[i]);
        p[lens[i]] = '\0';
        char *out = malloc(ID_MAX); /* exact size, so ASan sees any overflow */
        assert_non_null(out);
        id_new(p, T0 + 5000000 + (int64_t)i, out);
        assert_non_null(memchr(out, '\0', ID_MAX));
        assert_false(id_valid(p, out));
        free(out);
    }
}

/* ---- id_valid ---- */

struct valid_case {
    const char *prefix;
    const char *s;
    bool ok;
};

static const struct valid_case valid_cases[] = {
    {"job", "job_0193a4c1e2f07c3d9a1b2c3d4e5f6a7b", true},
    {"job", "job_00000000000000000000000000000000", true},
    {"job", "job_ffffffffffffffffffffffffffffffff", true},
    {"exe", "exe_0193a4c1e2f07c3d9a1b2c3d4e5f6a7b", true},
    {"", "_0193a4c1e2f07c3d9a1b2c3d4e5f6a7b", true},
    /* wrong prefix or separator */
    {"exe", "job_0193a4c1e2f07c3d9a1b2c3d4e5f6a7b", false},
    {"job", "JOB_0193a4c1e2f07c3d9a1b2c3d4e5f6a7b", false},
    {"job", "jo_0193a4c1e2f07c3d9a1b2c3d4e5f6a7b", false},
    {"jo", "job_0193a4c1e2f07c3d9a1b2c3d4e5f6a7b", false},
    {"job", "jobs_0193a4c1e2f07c3d9a1b2c3d4e5f6a7", false},
    {"job", "job-0193a4c1e2f07c3d9a1b2c3d4e5f6a7b", false},
    {"job", "job0193a4c1e2f07c3d9a1b2c3d4e5f6a7b", false},
    {"job", "_job_0193a4c1e2f07c3d9a1b2c3d4e5f6a7b", false},
    {"job", " job_0193a4c1e2f07c3d9a1b2c3d4e5f6a7b", false},
    /* wrong hex part */
    {"job", "job_0193A4C1E2F07C3D9A1B2C3D4E5F6A7B", false},
    {"job", "job_0193a4c1e2f07c3d9a1b2c3d4e5f6a7", false},
    {"job", "job_0193a4c1e2f07c3d9a1b2c3d4e5f6a7b0", false},
    {"job", "job_0193a4c1e2f07c3d9a1b2c3d4e5f6a7g", false},
    {"job", "job_0193a4c1-e2f0-7c3d-9a1b-2c3d4e5f", false},
    {"job", "job_0193a4c1e2f07c3d9a1b2c3d4e5f6a7b ", false},
    {"job", "job_0193a4c1e2f07c3d9a1b2c3d4e5f6a7b\n", false},
    {"job", "job_ 193a4c1e2f07c3d9a1b2c3d4e5f6a7b", false},
    {"job", "job_", false},
    {"job", "job", false},
    {"job", "", false},
    {"", "", false},
};

static void test_valid_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(valid_cases); i++) {
        const struct valid_case *c = &valid_cases[i];
        if (id_valid(c->prefix, c->s) != c->ok)
            fail_msg("id_valid(%s, '%s') != %d", c->prefix, c->s, c->ok);
    }
}

int main(void)
{
    if (sodium_init() < 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_same_ms_increasing),
        cmocka_unit_test(test_across_ms_increasing),
        cmocka_unit_test(test_clock_step_back),
        cmocka_unit_test(test_random_part_differs),
        cmocka_unit_test(test_long_prefix_no_overflow),
        cmocka_unit_test(test_valid_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
