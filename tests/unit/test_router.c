/*
 * http/router: a small route table with {param} segments. One table of
 * (method, path) -> result, route, params, Allow list, in the manner of
 * pgbouncer's test/hba_test.rules.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "http/router.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static void h_dummy(struct http_req *req, const struct route_match *m)
{
    (void)req;
    (void)m;
}

static const struct route routes[] = {
    /* 0 */ {HTTP_M_GET, "/health", h_dummy, true},
    /* 1 */ {HTTP_M_GET, "/v1/jobs", h_dummy, false},
    /* 2 */ {HTTP_M_POST, "/v1/jobs", h_dummy, false},
    /* 3 */ {HTTP_M_GET, "/v1/jobs/{id}", h_dummy, false},
    /* 4 */ {HTTP_M_PUT, "/v1/jobs/{id}", h_dummy, false},
    /* 5 */ {HTTP_M_DELETE, "/v1/jobs/{id}", h_dummy, false},
    /* 6 */ {HTTP_M_GET, "/v1/jobs/{id}/executions", h_dummy, false},
    /* 7 */ {HTTP_M_GET, "/v1/jobs/{id}/executions/{eid}", h_dummy, false},
    /* 8 */ {HTTP_M_POST, "/v1/jobs/{id}/cancel", h_dummy, false},
    /* 9 */ {HTTP_M_PATCH, "/v1/secrets/{name}", h_dummy, false},
    /* 10 */ {HTTP_M_GET, "/", h_dummy, true},
    /* 11 */ {HTTP_M_GET, "/a/{p1}/{p2}/{p3}/{p4}", h_dummy, false},
};

struct case_ {
    enum http_method method;
    const char *path;
    enum router_result want;
    int route;         /* ROUTE_FOUND: index in routes */
    const char *p[4];  /* ROUTE_FOUND: expected params */
    const char *allow; /* ROUTE_NO_METHOD: expected Allow */
};

/* clang-format off */
#define FOUND(m, path, idx, ...) {m, path, ROUTE_FOUND, idx, {__VA_ARGS__}, NULL}
#define NOPATH(m, path) {m, path, ROUTE_NO_PATH, -1, {NULL}, NULL}
#define NOMETHOD(m, path, allow) {m, path, ROUTE_NO_METHOD, -1, {NULL}, allow}
#define BADREQ(m, path) {m, path, ROUTE_BAD, -1, {NULL}, NULL}
/* clang-format on */

static const struct case_ cases[] = {
    FOUND(HTTP_M_GET, "/health", 0, NULL),
    FOUND(HTTP_M_HEAD, "/health", 0, NULL),
    FOUND(HTTP_M_GET, "/", 10, NULL),
    FOUND(HTTP_M_GET, "/v1/jobs", 1, NULL),
    FOUND(HTTP_M_HEAD, "/v1/jobs", 1, NULL),
    FOUND(HTTP_M_POST, "/v1/jobs", 2, NULL),
    FOUND(HTTP_M_GET, "/v1/jobs/job_123", 3, "job_123"),
    FOUND(HTTP_M_HEAD, "/v1/jobs/job_123", 3, "job_123"),
    FOUND(HTTP_M_PUT, "/v1/jobs/x", 4, "x"),
    FOUND(HTTP_M_DELETE, "/v1/jobs/x", 5, "x"),
    FOUND(HTTP_M_GET, "/v1/jobs/j1/executions", 6, "j1"),
    FOUND(HTTP_M_GET, "/v1/jobs/j1/executions/e2", 7, "j1", "e2"),
    FOUND(HTTP_M_POST, "/v1/jobs/j1/cancel", 8, "j1"),
    FOUND(HTTP_M_PATCH, "/v1/secrets/db-pass", 9, "db-pass"),
    FOUND(HTTP_M_GET, "/a/1/2/3/4", 11, "1", "2", "3", "4"),
    /* percent-decoding of params */
    FOUND(HTTP_M_GET, "/v1/jobs/a%20b", 3, "a b"),
    FOUND(HTTP_M_GET, "/v1/jobs/%41%42c", 3, "ABc"),
    FOUND(HTTP_M_GET, "/v1/jobs/%6a%6A", 3, "jj"),
    FOUND(HTTP_M_GET, "/v1/jobs/a%2Fb", 3, "a/b"),
    FOUND(HTTP_M_GET, "/v1/jobs/a%2fb/executions", 6, "a/b"),
    FOUND(HTTP_M_GET, "/v1/jobs/caf%C3%A9", 3, "caf\xc3\xa9"),
    FOUND(HTTP_M_GET, "/v1/jobs/%25", 3, "%"),
    FOUND(HTTP_M_GET, "/v1/jobs/a+b", 3, "a+b"),
    FOUND(HTTP_M_GET, "/v1/jobs/%7B%7D", 3, "{}"),
    FOUND(HTTP_M_GET, "/v1/jobs/{id}", 3, "{id}"),
    FOUND(HTTP_M_GET, "/v1/jobs/%01", 3, "\x01"),
    /* method not allowed: Allow lists the path's methods in table order */
    NOMETHOD(HTTP_M_POST, "/health", "GET"),
    NOMETHOD(HTTP_M_DELETE, "/v1/jobs", "GET, POST"),
    NOMETHOD(HTTP_M_PATCH, "/v1/jobs/x", "GET, PUT, DELETE"),
    NOMETHOD(HTTP_M_POST, "/v1/jobs/x", "GET, PUT, DELETE"),
    NOMETHOD(HTTP_M_OPTIONS, "/v1/jobs/x", "GET, PUT, DELETE"),
    NOMETHOD(HTTP_M_OTHER, "/v1/jobs/x", "GET, PUT, DELETE"),
    NOMETHOD(HTTP_M_GET, "/v1/jobs/x/cancel", "POST"),
    NOMETHOD(HTTP_M_HEAD, "/v1/jobs/x/cancel", "POST"),
    NOMETHOD(HTTP_M_GET, "/v1/secrets/s", "PATCH"),
    NOMETHOD(HTTP_M_POST, "/", "GET"),
    /* no such path */
    NOPATH(HTTP_M_GET, "/nope"),
    NOPATH(HTTP_M_GET, ""),
    NOPATH(HTTP_M_GET, "health"),
    NOPATH(HTTP_M_GET, "/healthz"),
    NOPATH(HTTP_M_GET, "/HEALTH"),
    NOPATH(HTTP_M_GET, "/v1"),
    NOPATH(HTTP_M_GET, "/v1/job"),
    NOPATH(HTTP_M_GET, "/v1/jobsx"),
    NOPATH(HTTP_M_GET, "/v1/jobs/x/y"),
    NOPATH(HTTP_M_GET, "/v1/jobs/x/executions/y/z"),
    NOPATH(HTTP_M_GET, "/a/1/2/3"),
    NOPATH(HTTP_M_GET, "/a/1/2/3/4/5"),
    /* trailing slash */
    NOPATH(HTTP_M_GET, "/health/"),
    NOPATH(HTTP_M_GET, "/v1/jobs/"),
    NOPATH(HTTP_M_GET, "/v1/jobs/x/"),
    NOPATH(HTTP_M_POST, "/v1/jobs/x/cancel/"),
    /* double slash */
    NOPATH(HTTP_M_GET, "//"),
    NOPATH(HTTP_M_GET, "//health"),
    NOPATH(HTTP_M_GET, "/v1//jobs"),
    NOPATH(HTTP_M_GET, "/v1/jobs//"),
    NOPATH(HTTP_M_GET, "/v1/jobs//executions"),
    NOPATH(HTTP_M_GET, "/v1/jobs/x//executions"),
    /* malformed percent-encoding in a parameter */
    BADREQ(HTTP_M_GET, "/v1/jobs/%zz"),
    BADREQ(HTTP_M_GET, "/v1/jobs/a%zzb"),
    BADREQ(HTTP_M_GET, "/v1/jobs/%g1"),
    BADREQ(HTTP_M_GET, "/v1/jobs/%1g"),
    BADREQ(HTTP_M_GET, "/v1/jobs/%"),
    BADREQ(HTTP_M_GET, "/v1/jobs/%4"),
    BADREQ(HTTP_M_GET, "/v1/jobs/a%"),
    BADREQ(HTTP_M_GET, "/v1/jobs/%00"),
    BADREQ(HTTP_M_GET, "/v1/jobs/a%00b"),
    BADREQ(HTTP_M_DELETE, "/v1/jobs/%zz"),
    BADREQ(HTTP_M_GET, "/v1/jobs/%zz/executions"),
    BADREQ(HTTP_M_GET, "/v1/jobs/ok/executions/%0"),
};

static const char *method_str(enum http_method m)
{
    return http_method_name(m);
}

static void test_route_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        const struct case_ *c = &cases[i];
        const struct route *r = NULL;
        struct route_match m;
        memset(&m, 0, sizeof(m));
        char allow[128];
        memset(allow, 'X', sizeof(allow));
        enum router_result got =
            router_match(routes, N_ELEMS(routes), c->method, c->path, &r, &m, allow, sizeof(allow));
        if (got != c->want)
            fail_msg("%s %s: result %d, want %d", method_str(c->method), c->path, got, c->want);
        switch (c->want) {
        case ROUTE_FOUND: {
            if (r != &routes[c->route])
                fail_msg("%s %s: route %td, want %d", method_str(c->method), c->path,
                         r ? r - routes : -1, c->route);
            int n = 0;
            while (n < 4 && c->p[n])
                n++;
            if (m.n != n)
                fail_msg("%s %s: %d params, want %d", method_str(c->method), c->path, m.n, n);
            for (int k = 0; k < n; k++) {
                if (strcmp(m.params[k], c->p[k]) != 0)
                    fail_msg("%s %s: param %d '%s', want '%s'", method_str(c->method), c->path, k,
                             m.params[k], c->p[k]);
            }
            break;
        }
        case ROUTE_NO_METHOD:
            if (strcmp(allow, c->allow) != 0)
                fail_msg("%s %s: Allow '%s', want '%s'", method_str(c->method), c->path, allow,
                         c->allow);
            break;
        default:
            assert_string_equal(allow, "");
            break;
        }
    }
}

static char *repeat(const char *unit, size_t times)
{
    size_t ul = strlen(unit);
    char *s = malloc(ul * times + 16);
    assert_non_null(s);
    char *p = stpcpy(s, "/v1/jobs/");
    for (size_t i = 0; i < times; i++)
        p = stpcpy(p, unit);
    return s;
}

static enum router_result match_path(const char *path, struct route_match *m)
{
    const struct route *r = NULL;
    char allow[128];
    return router_match(routes, N_ELEMS(routes), HTTP_M_GET, path, &r, m, allow, sizeof(allow));
}

/* ROUTE_PARAM_MAX includes the NUL: 255 decoded bytes fit, 256 do not. */
static void test_param_length_limit(void **state)
{
    (void)state;
    struct route_match m;
    char *p = repeat("a", ROUTE_PARAM_MAX - 1);
    assert_int_equal(match_path(p, &m), ROUTE_FOUND);
    assert_int_equal(strlen(m.params[0]), ROUTE_PARAM_MAX - 1);
    free(p);

    p = repeat("a", ROUTE_PARAM_MAX);
    assert_int_equal(match_path(p, &m), ROUTE_BAD);
    free(p);

    p = repeat("a", 10000);
    assert_int_equal(match_path(p, &m), ROUTE_BAD);
    free(p);

    /* the limit applies to decoded bytes: 255 escapes (765 raw bytes) fit */
    p = repeat("%41", ROUTE_PARAM_MAX - 1);
    assert_int_equal(match_path(p, &m), ROUTE_FOUND);
    assert_int_equal(strlen(m.params[0]), ROUTE_PARAM_MAX - 1);
    assert_int_equal(m.params[0][0], 'A');
    free(p);

    p = repeat("%41", ROUTE_PARAM_MAX);
    assert_int_equal(match_path(p, &m), ROUTE_BAD);
    free(p);
}

/* Long literal segments just do not match. */
static void test_long_literal_no_path(void **state)
{
    (void)state;
    char path[2048];
    memset(path, 'x', sizeof(path) - 1);
    path[0] = '/';
    path[sizeof(path) - 1] = '\0';
    struct route_match m;
    assert_int_equal(match_path(path, &m), ROUTE_NO_PATH);
}

/* A small Allow buffer is never overrun and stays NUL-terminated. */
static void test_allow_small_buffer(void **state)
{
    (void)state;
    static const size_t sizes[] = {1, 2, 3, 4, 8, 9, 10, 16, 17};
    for (size_t i = 0; i < N_ELEMS(sizes); i++) {
        char *allow = malloc(sizes[i]); /* exact size, so ASan sees overruns */
        assert_non_null(allow);
        const struct route *r = NULL;
        struct route_match m;
        assert_int_equal(router_match(routes, N_ELEMS(routes), HTTP_M_PATCH, "/v1/jobs/x", &r, &m,
                                      allow, sizes[i]),
                         ROUTE_NO_METHOD);
        assert_non_null(memchr(allow, '\0', sizes[i]));
        if (sizes[i] > strlen("GET, PUT, DELETE"))
            assert_string_equal(allow, "GET, PUT, DELETE");
        free(allow);
    }
}

static void test_empty_table(void **state)
{
    (void)state;
    const struct route *r = NULL;
    struct route_match m;
    char allow[16];
    assert_int_equal(router_match(routes, 0, HTTP_M_GET, "/health", &r, &m, allow, sizeof(allow)),
                     ROUTE_NO_PATH);
    assert_null(r);
}

/* First match wins when two patterns accept the same path. */
static void test_first_match_wins(void **state)
{
    (void)state;
    static const struct route rt[] = {
        {HTTP_M_GET, "/v1/jobs/search", h_dummy, false},
        {HTTP_M_GET, "/v1/jobs/{id}", h_dummy, false},
    };
    const struct route *r = NULL;
    struct route_match m;
    char allow[64];
    assert_int_equal(
        router_match(rt, 2, HTTP_M_GET, "/v1/jobs/search", &r, &m, allow, sizeof(allow)),
        ROUTE_FOUND);
    assert_ptr_equal(r, &rt[0]);
    assert_int_equal(m.n, 0);
    assert_int_equal(
        router_match(rt, 2, HTTP_M_GET, "/v1/jobs/other", &r, &m, allow, sizeof(allow)),
        ROUTE_FOUND);
    assert_ptr_equal(r, &rt[1]);
    assert_string_equal(m.params[0], "other");
}

int main(void)
{
    /* clang-format off */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_route_table),
        cmocka_unit_test(test_param_length_limit),
        cmocka_unit_test(test_long_literal_no_path),
        cmocka_unit_test(test_allow_small_buffer),
        cmocka_unit_test(test_empty_table),
        cmocka_unit_test(test_first_match_wins),
    };
    /* clang-format on */
    return cmocka_run_group_tests(tests, NULL, NULL);
}
