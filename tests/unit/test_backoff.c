/*
 * domain/backoff: a table of policy + attempt + random -> delay (each
 * strategy at the low, middle and high end of the jitter, clamping,
 * saturation), then the jitter bounds over many random values.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "domain/backoff.h"

#include <limits.h>
#include <stdio.h>

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

#define FIX BACKOFF_FIXED
#define LIN BACKOFF_LINEAR
#define EXP BACKOFF_EXPONENTIAL
#define LO 0u
#define MID 0x80000000u
#define HI UINT32_MAX

struct case_ {
    int strategy;
    int64_t initial, max;
    int attempt;
    uint32_t random;
    int64_t want;
};

static const struct case_ cases[] = {
    /* fixed: the base is 1000 whatever the attempt; jitter +-250 */
    {FIX, 1000, 60000, 1, LO, 750},
    {FIX, 1000, 60000, 1, MID, 1000},
    {FIX, 1000, 60000, 1, HI, 1250},
    {FIX, 1000, 60000, 7, MID, 1000},
    {FIX, 1000, 60000, 100, HI, 1250},
    /* linear: 1000 * attempt */
    {LIN, 1000, 60000, 1, MID, 1000},
    {LIN, 1000, 60000, 3, LO, 2250},
    {LIN, 1000, 60000, 3, MID, 3000},
    {LIN, 1000, 60000, 3, HI, 3750},
    {LIN, 1000, 60000, 48, HI, 60000}, /* 48000 + 12000 = max exactly */
    {LIN, 1000, 60000, 49, HI, 60000}, /* 61250 clamped */
    {LIN, 1000, 60000, 49, LO, 36750}, /* 49000 - 12250: clamping is after jitter */
    {LIN, 1000, 60000, 100, MID, 60000},
    /* exponential: 1000 * 2^(attempt - 1) */
    {EXP, 1000, 60000, 1, MID, 1000},
    {EXP, 1000, 60000, 2, MID, 2000},
    {EXP, 1000, 60000, 4, LO, 6000},
    {EXP, 1000, 60000, 4, MID, 8000},
    {EXP, 1000, 60000, 4, HI, 10000},
    {EXP, 1000, 60000, 6, HI, 40000},
    {EXP, 1000, 60000, 7, LO, 48000},  /* 64000 - 16000 */
    {EXP, 1000, 60000, 7, MID, 60000}, /* 64000 clamped */
    {EXP, 100, 86400000, 20, MID, 52428800},
    /* huge attempts saturate instead of overflowing */
    {EXP, 1000, 60000, 62, LO, 60000},
    {EXP, 1000, 60000, 63, LO, 60000},
    {EXP, 1000, 60000, 64, LO, 60000},
    {EXP, 1000, 60000, 100, LO, 60000},
    {EXP, 1000, 60000, INT_MAX, LO, 60000},
    {EXP, 1, 86400000, 100, LO, 86400000},
    {LIN, 86400000, 86400000, INT_MAX, LO, 86400000},
    {FIX, INT64_MAX, INT64_MAX, 1, LO, INT64_MAX / 4 - INT64_MAX / 16}, /* base saturated */
    {EXP, INT64_MAX, 86400000, 100, HI, 86400000},
    /* attempts below 1 count as the first */
    {EXP, 1000, 60000, 0, MID, 1000},
    {LIN, 1000, 60000, -5, MID, 1000},
    {EXP, 1000, 60000, INT_MIN, MID, 1000},
    /* small and degenerate values */
    {EXP, 0, 60000, 10, HI, 0},
    {FIX, 3, 60000, 1, HI, 3}, /* 3 / 4 == 0: no jitter */
    {FIX, 4, 60000, 1, LO, 3},
    {FIX, 4, 60000, 1, HI, 5},
    {FIX, 1000, 0, 1, HI, 0},
    {FIX, 1000, 900, 1, LO, 750},
    {FIX, 1000, 900, 1, MID, 900},
    {FIX, -1000, 60000, 1, HI, 0},
    {FIX, 1000, -1, 1, HI, 0},
};

static struct retry_policy policy(int strategy, int64_t initial, int64_t max)
{
    struct retry_policy p = {.max_attempts = 5, .initial_delay_ms = initial, .max_delay_ms = max};
    p.backoff = strategy;
    return p;
}

static void test_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        const struct case_ *c = &cases[i];
        struct retry_policy p = policy(c->strategy, c->initial, c->max);
        int64_t got = backoff_delay_ms(&p, c->attempt, c->random);
        if (got != c->want)
            fail_msg("case %zu (strategy %d, initial %lld, max %lld, attempt %d, random %u): "
                     "%lld, want %lld",
                     i, c->strategy, (long long)c->initial, (long long)c->max, c->attempt,
                     c->random, (long long)got, (long long)c->want);
    }
}

/* Every random value lands in [base - base/4, base + base/4], both ends reached, monotonic. */
static void check_jitter(int strategy, int64_t initial, int attempt, int64_t base)
{
    struct retry_policy p = policy(strategy, initial, RETRY_MAX_DELAY_MS);
    int64_t lo = base - base / 4, hi = base + base / 4, prev = lo, min = INT64_MAX, max = 0;
    double sum = 0;
    const int n = 200000;
    for (int k = 0; k < n; k++) {
        uint32_t r = (uint32_t)((uint64_t)k * UINT32_MAX / (n - 1)); /* 0 .. UINT32_MAX */
        int64_t d = backoff_delay_ms(&p, attempt, r);
        if (d < lo || d > hi || d < prev)
            fail_msg("base %lld random %u: %lld (prev %lld)", (long long)base, r, (long long)d,
                     (long long)prev);
        prev = d;
        min = d < min ? d : min;
        max = d > max ? d : max;
        sum += (double)d;
    }
    assert_int_equal(min, lo);
    assert_int_equal(max, hi);
    double mean = sum / n;
    if (mean < (double)base - (double)base / 100 - 1 ||
        mean > (double)base + (double)base / 100 + 1)
        fail_msg("base %lld: mean %f", (long long)base, mean);
}

static void test_jitter_bounds(void **state)
{
    (void)state;
    check_jitter(BACKOFF_FIXED, 1000, 1, 1000);
    check_jitter(BACKOFF_FIXED, 7, 3, 7);
    check_jitter(BACKOFF_LINEAR, 1500, 5, 7500);
    check_jitter(BACKOFF_EXPONENTIAL, 1000, 10, 512000);
    check_jitter(BACKOFF_EXPONENTIAL, 1, 27, 67108864);

    /* pseudo-random values: always within bounds and never above the max */
    struct retry_policy p = policy(BACKOFF_EXPONENTIAL, 250, 30000);
    uint32_t x = 2463534242u;
    for (int k = 0; k < 100000; k++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        int attempt = 1 + k % 100;
        int64_t base = attempt > 8 ? 64000 : 250LL << (attempt - 1);
        int64_t d = backoff_delay_ms(&p, attempt, x);
        int64_t lo = base - base / 4, hi = base + base / 4;
        lo = lo > 30000 ? 30000 : lo;
        hi = hi > 30000 ? 30000 : hi;
        if (d < lo || d > hi)
            fail_msg("attempt %d random %u: %lld not in [%lld, %lld]", attempt, x, (long long)d,
                     (long long)lo, (long long)hi);
    }
}

/* A saturated base jitters without overflow and stays within its quarter. */
static void test_saturated(void **state)
{
    (void)state;
    struct retry_policy p = policy(BACKOFF_EXPONENTIAL, INT64_MAX, INT64_MAX);
    int64_t base = INT64_MAX / 4, prev = 0;
    for (uint64_t r = 0; r <= UINT32_MAX; r += 65537) {
        int64_t d = backoff_delay_ms(&p, 100, (uint32_t)r);
        assert_true(d >= base - base / 4 && d <= base + base / 4 && d >= prev);
        prev = d;
    }
}

/* The same inputs give the same delay: the function is pure. */
static void test_pure(void **state)
{
    (void)state;
    struct retry_policy p = policy(BACKOFF_LINEAR, 1234, 60000);
    for (uint32_t r = 0; r < 1000; r += 7)
        assert_int_equal(backoff_delay_ms(&p, 4, r * 4294967u),
                         backoff_delay_ms(&p, 4, r * 4294967u));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_jitter_bounds),
        cmocka_unit_test(test_saturated),
        cmocka_unit_test(test_pure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
