/*
 * domain/health: a table of last-24h counts + failure streak -> health class
 * (every class and each threshold from both sides), names, p99.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "domain/health.h"

#include <string.h>

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
    int64_t succeeded, failed, streak;
    enum job_health want;
} cases[] = {
    /* nothing finished in 24 h */
    {0, 0, 0, HEALTH_IDLE},
    {0, 0, 2, HEALTH_IDLE},
    {0, 0, 3, HEALTH_DEGRADED}, /* failing its last runs, however long ago */
    {0, 0, 50, HEALTH_DEGRADED},
    /* the brief's example: 3 of 142 failed (2.1 %) */
    {139, 3, 0, HEALTH_HEALTHY},
    {139, 3, 2, HEALTH_HEALTHY},
    {139, 3, 3, HEALTH_DEGRADED},
    /* 5 % boundary */
    {1, 0, 0, HEALTH_HEALTHY},
    {100, 0, 0, HEALTH_HEALTHY},
    {20, 1, 0, HEALTH_HEALTHY},  /* 4.76 % */
    {19, 1, 0, HEALTH_DEGRADED}, /* 5 % exactly */
    {96, 4, 0, HEALTH_HEALTHY},
    {95, 5, 0, HEALTH_DEGRADED},
    {1901, 99, 0, HEALTH_HEALTHY}, /* 4.95 % */
    /* 50 % boundary */
    {2, 1, 0, HEALTH_DEGRADED},
    {51, 49, 0, HEALTH_DEGRADED},
    {50, 50, 0, HEALTH_FAILING}, /* 50 % exactly */
    {1, 1, 0, HEALTH_FAILING},
    {0, 1, 0, HEALTH_FAILING},
    {0, 1, 1, HEALTH_FAILING},
    {1, 99, 0, HEALTH_FAILING},
    /* a streak never lowers a worse class */
    {51, 49, 3, HEALTH_DEGRADED},
    {1, 9, 9, HEALTH_FAILING},
    {1000, 0, 3, HEALTH_DEGRADED}, /* the streak predates the window's successes */
    /* negative counts count as 0; huge counts do not overflow */
    {-5, -5, 0, HEALTH_IDLE},
    {10, -3, 0, HEALTH_HEALTHY},
    {-1, 4, 0, HEALTH_FAILING},
    {INT64_MAX, 0, 0, HEALTH_HEALTHY},
    {INT64_MAX, INT64_MAX, 0, HEALTH_FAILING},
    {0, INT64_MAX, 0, HEALTH_FAILING},
    {INT64_MAX, INT64_MAX / 19, 0, HEALTH_HEALTHY},
    {INT64_MAX, INT64_MAX / 18, 0, HEALTH_DEGRADED},
    {INT64_MAX, INT64_MAX - 1, 0, HEALTH_DEGRADED},
};

static void test_classify(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        struct health_stats s = {cases[i].succeeded, cases[i].failed, cases[i].streak};
        enum job_health h = health_classify(&s);
        if (h != cases[i].want)
            fail_msg("case %zu (%lld ok, %lld failed, streak %lld): %s, want %s", i,
                     (long long)s.succeeded, (long long)s.failed, (long long)s.failure_streak,
                     health_name(h), health_name(cases[i].want));
    }
}

/* Exhaustive over small counts: the class agrees with the rates computed in floating point. */
static void test_classify_small(void **state)
{
    (void)state;
    for (int64_t ok = 0; ok <= 120; ok++) {
        for (int64_t failed = 0; failed <= 120; failed++) {
            struct health_stats s = {ok, failed, 0};
            double rate = ok + failed ? (double)failed / (double)(ok + failed) : -1;
            enum job_health want = rate < 0              ? HEALTH_IDLE
                                   : rate < 0.05 - 1e-12 ? HEALTH_HEALTHY
                                   : rate < 0.5 - 1e-12  ? HEALTH_DEGRADED
                                                         : HEALTH_FAILING;
            assert_int_equal(health_classify(&s), want);
        }
    }
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(health_name(HEALTH_HEALTHY), "HEALTHY");
    assert_string_equal(health_name(HEALTH_DEGRADED), "DEGRADED");
    assert_string_equal(health_name(HEALTH_FAILING), "FAILING");
    assert_string_equal(health_name(HEALTH_IDLE), "IDLE");
}

static void test_p99(void **state)
{
    (void)state;
    int64_t v[250];
    for (int i = 0; i < 250; i++)
        v[i] = (i + 1) * 10; /* rank r holds r * 10 */
    static const struct {
        size_t n;
        int64_t want;
    } cases[] = {
        {1, 10},     {2, 20},     {99, 990},   {100, 990},  {101, 1000},
        {150, 1490}, {199, 1980}, {200, 1980}, {201, 1990}, {250, 2480},
    };
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        if (health_p99(v, cases[i].n) != cases[i].want)
            fail_msg("n=%zu: %lld, want %lld", cases[i].n, (long long)health_p99(v, cases[i].n),
                     (long long)cases[i].want);
    }
    assert_int_equal(health_p99(NULL, 0), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classify),
        cmocka_unit_test(test_classify_small),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_p99),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
