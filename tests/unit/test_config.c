/*
 * core/config: defaults from a clean environment, integers (syntax, bounds,
 * the variable named in messages), booleans, TE_ROLES, log level/format,
 * config_free. The test is single-threaded, so it edits its own environment
 * with setenv/unsetenv; every test starts from an environment without TE_*.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

extern char **environ;

static void clear_te_env(void)
{
    for (;;) {
        char name[256] = "";
        for (char **e = environ; *e; e++) {
            if (strncmp(*e, "TE_", 3) == 0) {
                size_t n = strcspn(*e, "=");
                if (n < sizeof(name)) {
                    memcpy(name, *e, n);
                    name[n] = '\0';
                }
                break;
            }
        }
        if (!name[0])
            return;
        unsetenv(name);
    }
}

static int setup(void **state)
{
    (void)state;
    clear_te_env();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    clear_te_env();
    return 0;
}

static void load_ok(struct config *cfg)
{
    char err[256] = "";
    if (config_load(cfg, err, sizeof(err)) != 0)
        fail_msg("config_load failed: %s", err);
}

static void assert_all_strings_null(const struct config *c)
{
    assert_null(c->database_url);
    assert_null(c->listen_addr);
    assert_null(c->api_keys);
    assert_null(c->api_keys_file);
    assert_null(c->secret_encryption_key);
    assert_null(c->worker_id);
    assert_null(c->roles_str);
    assert_null(c->region);
    assert_null(c->log_level);
    assert_null(c->log_format);
    assert_null(c->zoneinfo_dir);
}

/* ---- defaults ---- */

static void test_defaults(void **state)
{
    (void)state;
    struct config c;
    load_ok(&c);
    assert_null(c.database_url);
    assert_int_equal(c.db_pool_size, 10);
    assert_int_equal(c.db_connect_timeout_ms, 5000);
    assert_int_equal(c.db_statement_timeout_ms, 30000);
    assert_int_equal(c.db_queue_max, 10000);
    assert_true(c.db_notify);
    assert_true(c.auto_migrate);
    assert_string_equal(c.listen_addr, "0.0.0.0:8080");
    assert_int_equal(c.max_body_bytes, 1048576);
    assert_int_equal(c.max_header_bytes, 16384);
    assert_int_equal(c.max_connections, 4096);
    assert_int_equal(c.http_idle_timeout_sec, 60);
    assert_int_equal(c.http_request_timeout_sec, 30);
    assert_null(c.api_keys);
    assert_null(c.api_keys_file);
    assert_null(c.secret_encryption_key);
    assert_int_equal(c.worker_max_concurrent, 50);
    assert_int_equal(c.worker_poll_interval_ms, 200);
    assert_int_equal(c.worker_shutdown_timeout_sec, 30);
    assert_int_equal(c.config_cache_ttl_sec, 60);
    assert_int_equal(c.secret_cache_ttl_sec, 300);
    assert_int_equal(c.cron_tick_interval_sec, 1);
    assert_int_equal(c.cron_batch_size, 100);
    assert_int_equal(c.promote_interval_ms, 500);
    assert_int_equal(c.reclaim_interval_sec, 30);
    assert_int_equal(c.stuck_execution_timeout_sec, 300);
    assert_string_equal(c.roles_str, "api,worker,scheduler");
    assert_int_equal(c.roles, ROLE_API | ROLE_WORKER | ROLE_SCHEDULER);
    assert_string_equal(c.region, "default");
    assert_string_equal(c.log_level, "info");
    assert_string_equal(c.log_format, "text");
    assert_string_equal(c.zoneinfo_dir, "/usr/share/zoneinfo");
    /* worker id defaults to hostname-pid */
    assert_non_null(c.worker_id);
    char suffix[32];
    snprintf(suffix, sizeof(suffix), "-%ld", (long)getpid());
    size_t wl = strlen(c.worker_id), sl = strlen(suffix);
    assert_true(wl > sl);
    assert_string_equal(c.worker_id + wl - sl, suffix);
    config_free(&c);
    assert_all_strings_null(&c);
    config_free(&c); /* twice is harmless */
}

static void test_strings_copied(void **state)
{
    (void)state;
    setenv("TE_DATABASE_URL", "postgresql://u@localhost/db", 1);
    setenv("TE_LISTEN_ADDR", "[::1]:9000", 1);
    setenv("TE_API_KEYS", "k1,k2", 1);
    setenv("TE_WORKER_ID", "worker-7", 1);
    setenv("TE_REGION", "eu-west", 1);
    struct config c;
    load_ok(&c);
    setenv("TE_DATABASE_URL", "changed", 1);
    assert_string_equal(c.database_url, "postgresql://u@localhost/db");
    assert_string_equal(c.listen_addr, "[::1]:9000");
    assert_string_equal(c.api_keys, "k1,k2");
    assert_string_equal(c.worker_id, "worker-7");
    assert_string_equal(c.region, "eu-west");
    config_free(&c);
}

static void test_empty_worker_id_gets_default(void **state)
{
    (void)state;
    setenv("TE_WORKER_ID", "", 1);
    struct config c;
    load_ok(&c);
    assert_non_null(c.worker_id);
    assert_true(strlen(c.worker_id) > 2);
    assert_non_null(strrchr(c.worker_id, '-'));
    config_free(&c);
}

/* ---- integers ---- */

struct int_case {
    const char *env;
    const char *val;
    int want;        /* when err is NULL */
    const char *err; /* exact message, or NULL for success */
};

static const struct int_case int_cases[] = {
    {"TE_DB_POOL_SIZE", "20", 20, NULL},
    {"TE_DB_POOL_SIZE", "1", 1, NULL},
    {"TE_DB_POOL_SIZE", "500", 500, NULL},
    {"TE_DB_POOL_SIZE", "+7", 7, NULL},
    {"TE_DB_POOL_SIZE", "007", 7, NULL},
    {"TE_DB_POOL_SIZE", "", 10, NULL}, /* empty: default */
    {"TE_DB_POOL_SIZE", "0", 0,
     "TE_DB_POOL_SIZE: expected an integer between 1 and 500, got \"0\""},
    {"TE_DB_POOL_SIZE", "501", 0,
     "TE_DB_POOL_SIZE: expected an integer between 1 and 500, got \"501\""},
    {"TE_DB_POOL_SIZE", "-1", 0,
     "TE_DB_POOL_SIZE: expected an integer between 1 and 500, got \"-1\""},
    {"TE_DB_POOL_SIZE", "abc", 0,
     "TE_DB_POOL_SIZE: expected an integer between 1 and 500, got \"abc\""},
    {"TE_DB_POOL_SIZE", "12abc", 0,
     "TE_DB_POOL_SIZE: expected an integer between 1 and 500, got \"12abc\""},
    {"TE_DB_POOL_SIZE", "1.5", 0,
     "TE_DB_POOL_SIZE: expected an integer between 1 and 500, got \"1.5\""},
    {"TE_DB_POOL_SIZE", "10 ", 0,
     "TE_DB_POOL_SIZE: expected an integer between 1 and 500, got \"10 \""},
    {"TE_DB_POOL_SIZE", "0x10", 0,
     "TE_DB_POOL_SIZE: expected an integer between 1 and 500, got \"0x10\""},
    {"TE_DB_POOL_SIZE", "99999999999999999999999", 0,
     "TE_DB_POOL_SIZE: expected an integer between 1 and 500, got \"99999999999999999999999\""},
    {"TE_DB_STATEMENT_TIMEOUT_MS", "0", 0, NULL},
    {"TE_DB_STATEMENT_TIMEOUT_MS", "3600000", 3600000, NULL},
    {"TE_DB_STATEMENT_TIMEOUT_MS", "3600001", 0,
     "TE_DB_STATEMENT_TIMEOUT_MS: expected an integer between 0 and 3600000, got \"3600001\""},
    {"TE_DB_CONNECT_TIMEOUT_MS", "99", 0,
     "TE_DB_CONNECT_TIMEOUT_MS: expected an integer between 100 and 600000, got \"99\""},
    {"TE_MAX_BODY_BYTES", "64", 64, NULL},
    {"TE_MAX_BODY_BYTES", "1073741824", 1073741824, NULL},
    {"TE_MAX_BODY_BYTES", "1073741825", 0,
     "TE_MAX_BODY_BYTES: expected an integer between 64 and 1073741824, got \"1073741825\""},
    {"TE_MAX_BODY_BYTES", "63", 0,
     "TE_MAX_BODY_BYTES: expected an integer between 64 and 1073741824, got \"63\""},
    {"TE_MAX_HEADER_BYTES", "1048576", 1048576, NULL},
    {"TE_MAX_CONNECTIONS", "1000000", 1000000, NULL},
    {"TE_MAX_CONNECTIONS", "1000001", 0,
     "TE_MAX_CONNECTIONS: expected an integer between 1 and 1000000, got \"1000001\""},
    {"TE_HTTP_IDLE_TIMEOUT_SEC", "86400", 86400, NULL},
    {"TE_HTTP_REQUEST_TIMEOUT_SEC", "3601", 0,
     "TE_HTTP_REQUEST_TIMEOUT_SEC: expected an integer between 1 and 3600, got \"3601\""},
    {"TE_WORKER_MAX_CONCURRENT", "100000", 100000, NULL},
    {"TE_WORKER_POLL_INTERVAL_MS", "9", 0,
     "TE_WORKER_POLL_INTERVAL_MS: expected an integer between 10 and 600000, got \"9\""},
    {"TE_WORKER_SHUTDOWN_TIMEOUT_SEC", "0", 0, NULL},
    {"TE_CONFIG_CACHE_TTL_SEC", "0", 0, NULL},
    {"TE_SECRET_CACHE_TTL_SEC", "86401", 0,
     "TE_SECRET_CACHE_TTL_SEC: expected an integer between 0 and 86400, got \"86401\""},
    {"TE_CRON_TICK_INTERVAL_SEC", "0", 0,
     "TE_CRON_TICK_INTERVAL_SEC: expected an integer between 1 and 3600, got \"0\""},
    {"TE_CRON_BATCH_SIZE", "100000", 100000, NULL},
    {"TE_PROMOTE_INTERVAL_MS", "10", 10, NULL},
    {"TE_RECLAIM_INTERVAL_SEC", "86400", 86400, NULL},
    {"TE_STUCK_EXECUTION_TIMEOUT_SEC", "604800", 604800, NULL},
    {"TE_STUCK_EXECUTION_TIMEOUT_SEC", "604801", 0,
     "TE_STUCK_EXECUTION_TIMEOUT_SEC: expected an integer between 1 and 604800, got \"604801\""},
    {"TE_DB_QUEUE_MAX", "10000000", 10000000, NULL},
};

static int int_field(const struct config *c, const char *env)
{
    static const struct {
        const char *env;
        size_t off;
    } map[] = {
        {"TE_DB_POOL_SIZE", offsetof(struct config, db_pool_size)},
        {"TE_DB_CONNECT_TIMEOUT_MS", offsetof(struct config, db_connect_timeout_ms)},
        {"TE_DB_STATEMENT_TIMEOUT_MS", offsetof(struct config, db_statement_timeout_ms)},
        {"TE_DB_QUEUE_MAX", offsetof(struct config, db_queue_max)},
        {"TE_MAX_BODY_BYTES", offsetof(struct config, max_body_bytes)},
        {"TE_MAX_HEADER_BYTES", offsetof(struct config, max_header_bytes)},
        {"TE_MAX_CONNECTIONS", offsetof(struct config, max_connections)},
        {"TE_HTTP_IDLE_TIMEOUT_SEC", offsetof(struct config, http_idle_timeout_sec)},
        {"TE_HTTP_REQUEST_TIMEOUT_SEC", offsetof(struct config, http_request_timeout_sec)},
        {"TE_WORKER_MAX_CONCURRENT", offsetof(struct config, worker_max_concurrent)},
        {"TE_WORKER_POLL_INTERVAL_MS", offsetof(struct config, worker_poll_interval_ms)},
        {"TE_WORKER_SHUTDOWN_TIMEOUT_SEC", offsetof(struct config, worker_shutdown_timeout_sec)},
        {"TE_CONFIG_CACHE_TTL_SEC", offsetof(struct config, config_cache_ttl_sec)},
        {"TE_SECRET_CACHE_TTL_SEC", offsetof(struct config, secret_cache_ttl_sec)},
        {"TE_CRON_TICK_INTERVAL_SEC", offsetof(struct config, cron_tick_interval_sec)},
        {"TE_CRON_BATCH_SIZE", offsetof(struct config, cron_batch_size)},
        {"TE_PROMOTE_INTERVAL_MS", offsetof(struct config, promote_interval_ms)},
        {"TE_RECLAIM_INTERVAL_SEC", offsetof(struct config, reclaim_interval_sec)},
        {"TE_STUCK_EXECUTION_TIMEOUT_SEC", offsetof(struct config, stuck_execution_timeout_sec)},
    };
    for (size_t i = 0; i < N_ELEMS(map); i++) {
        if (strcmp(map[i].env, env) == 0)
            return *(const int *)((const char *)c + map[i].off);
    }
    fail_msg("no field for %s", env);
    return -1;
}

static void test_int_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(int_cases); i++) {
        const struct int_case *t = &int_cases[i];
        clear_te_env();
        setenv(t->env, t->val, 1);
        struct config c;
        char err[256] = "";
        int rc = config_load(&c, err, sizeof(err));
        if (!t->err) {
            if (rc != 0)
                fail_msg("%s=%s rejected: %s", t->env, t->val, err);
            assert_int_equal(int_field(&c, t->env), t->want);
            config_free(&c);
        } else {
            if (rc != -1 || strcmp(err, t->err) != 0)
                fail_msg("%s=%s: rc %d err '%s', want '%s'", t->env, t->val, rc, err, t->err);
            assert_all_strings_null(&c); /* freed on failure */
        }
    }
}

/* ---- booleans ---- */

struct bool_case {
    const char *val;
    int want; /* 1, 0, or -1 for an error */
};

/* clang-format off */
static const struct bool_case bool_cases[] = {
    {"on", 1},   {"off", 0},  {"true", 1}, {"false", 0}, {"1", 1},      {"0", 0},
    {"yes", 1},  {"no", 0},   {"ON", 1},   {"Off", 0},   {"TRUE", 1},   {"False", 0},
    {"", 1}, /* empty: default (on) */
    {"maybe", -1}, {"2", -1}, {"onn", -1}, {"o", -1},    {" on", -1},   {"on ", -1},
    {"-1", -1},  {"enabled", -1},
};
/* clang-format on */

static void test_bool_table(void **state)
{
    (void)state;
    static const char *const envs[] = {"TE_DB_NOTIFY", "TE_AUTO_MIGRATE"};
    for (size_t e = 0; e < N_ELEMS(envs); e++) {
        for (size_t i = 0; i < N_ELEMS(bool_cases); i++) {
            const struct bool_case *t = &bool_cases[i];
            clear_te_env();
            setenv(envs[e], t->val, 1);
            struct config c;
            char err[256] = "";
            int rc = config_load(&c, err, sizeof(err));
            if (t->want < 0) {
                char want[128];
                snprintf(want, sizeof(want), "%s: expected on/off, got \"%s\"", envs[e], t->val);
                if (rc != -1 || strcmp(err, want) != 0)
                    fail_msg("%s=%s: rc %d err '%s'", envs[e], t->val, rc, err);
                continue;
            }
            if (rc != 0)
                fail_msg("%s=%s rejected: %s", envs[e], t->val, err);
            bool v = e == 0 ? c.db_notify : c.auto_migrate;
            if (v != (t->want == 1))
                fail_msg("%s=%s gave %d", envs[e], t->val, v);
            /* the other boolean keeps its default */
            assert_true(e == 0 ? c.auto_migrate : c.db_notify);
            config_free(&c);
        }
    }
}

/* ---- TE_ROLES ---- */

struct roles_case {
    const char *val;
    unsigned roles; /* when err is NULL */
    const char *err;
};

static const struct roles_case roles_cases[] = {
    {"api", ROLE_API, NULL},
    {"worker", ROLE_WORKER, NULL},
    {"scheduler", ROLE_SCHEDULER, NULL},
    {"api,worker", ROLE_API | ROLE_WORKER, NULL},
    {"worker,scheduler", ROLE_WORKER | ROLE_SCHEDULER, NULL},
    {"scheduler,api,worker", ROLE_API | ROLE_WORKER | ROLE_SCHEDULER, NULL},
    {" api , worker ", ROLE_API | ROLE_WORKER, NULL},
    {"\tapi,\tscheduler\t", ROLE_API | ROLE_SCHEDULER, NULL},
    {"api,,worker", ROLE_API | ROLE_WORKER, NULL},
    {",api,", ROLE_API, NULL},
    {"api,api", ROLE_API, NULL},
    {"foo", 0, "TE_ROLES: unknown role \"foo\" (use api, worker, scheduler)"},
    {"api,foo", 0, "TE_ROLES: unknown role \"foo\" (use api, worker, scheduler)"},
    {"api, foo ,worker", 0, "TE_ROLES: unknown role \"foo\" (use api, worker, scheduler)"},
    {"API", 0, "TE_ROLES: unknown role \"API\" (use api, worker, scheduler)"},
    {"apis", 0, "TE_ROLES: unknown role \"apis\" (use api, worker, scheduler)"},
    {"ap", 0, "TE_ROLES: unknown role \"ap\" (use api, worker, scheduler)"},
    {"api worker", 0, "TE_ROLES: unknown role \"api worker\" (use api, worker, scheduler)"},
    {"api;worker", 0, "TE_ROLES: unknown role \"api;worker\" (use api, worker, scheduler)"},
    {"", 0, "TE_ROLES: no role given (use api, worker, scheduler)"},
    {" ", 0, "TE_ROLES: no role given (use api, worker, scheduler)"},
    {",", 0, "TE_ROLES: no role given (use api, worker, scheduler)"},
    {" , ,", 0, "TE_ROLES: no role given (use api, worker, scheduler)"},
};

static void test_roles_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(roles_cases); i++) {
        const struct roles_case *t = &roles_cases[i];
        clear_te_env();
        setenv("TE_ROLES", t->val, 1);
        struct config c;
        char err[256] = "";
        int rc = config_load(&c, err, sizeof(err));
        if (!t->err) {
            if (rc != 0)
                fail_msg("TE_ROLES='%s' rejected: %s", t->val, err);
            if (c.roles != t->roles)
                fail_msg("TE_ROLES='%s' gave %u, want %u", t->val, c.roles, t->roles);
            config_free(&c);
        } else if (rc != -1 || strcmp(err, t->err) != 0) {
            fail_msg("TE_ROLES='%s': rc %d err '%s', want '%s'", t->val, rc, err, t->err);
        }
    }
}

/* ---- log level / format ---- */

struct log_case {
    const char *env;
    const char *val;
    const char *err; /* NULL: accepted */
};

static const struct log_case log_cases[] = {
    {"TE_LOG_LEVEL", "debug", NULL},
    {"TE_LOG_LEVEL", "info", NULL},
    {"TE_LOG_LEVEL", "warn", NULL},
    {"TE_LOG_LEVEL", "error", NULL},
    {"TE_LOG_LEVEL", "DEBUG", NULL},
    {"TE_LOG_LEVEL", "Warn", NULL},
    {"TE_LOG_LEVEL", "warning",
     "TE_LOG_LEVEL: expected debug, info, warn or error, got \"warning\""},
    {"TE_LOG_LEVEL", "trace", "TE_LOG_LEVEL: expected debug, info, warn or error, got \"trace\""},
    {"TE_LOG_LEVEL", "", "TE_LOG_LEVEL: expected debug, info, warn or error, got \"\""},
    {"TE_LOG_LEVEL", "info ", "TE_LOG_LEVEL: expected debug, info, warn or error, got \"info \""},
    {"TE_LOG_FORMAT", "text", NULL},
    {"TE_LOG_FORMAT", "json", NULL},
    {"TE_LOG_FORMAT", "xml", "TE_LOG_FORMAT: expected text or json, got \"xml\""},
    {"TE_LOG_FORMAT", "", "TE_LOG_FORMAT: expected text or json, got \"\""},
    {"TE_LOG_FORMAT", "jsonl", "TE_LOG_FORMAT: expected text or json, got \"jsonl\""},
};

static void test_log_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(log_cases); i++) {
        const struct log_case *t = &log_cases[i];
        clear_te_env();
        setenv(t->env, t->val, 1);
        struct config c;
        char err[256] = "";
        int rc = config_load(&c, err, sizeof(err));
        if (!t->err) {
            if (rc != 0)
                fail_msg("%s=%s rejected: %s", t->env, t->val, err);
            const char *got = strcmp(t->env, "TE_LOG_LEVEL") == 0 ? c.log_level : c.log_format;
            assert_string_equal(got, t->val);
            config_free(&c);
        } else if (rc != -1 || strcmp(err, t->err) != 0) {
            fail_msg("%s=%s: rc %d err '%s', want '%s'", t->env, t->val, rc, err, t->err);
        }
    }
}

/* ---- failures free everything; the first bad variable is reported ---- */

static void test_failure_frees_strings(void **state)
{
    (void)state;
    /* strings set before the failing setting must not leak (ASan checks) */
    setenv("TE_DATABASE_URL", "postgresql://x", 1);
    setenv("TE_API_KEYS", "aaaaaaaaaaaaaaaa", 1);
    setenv("TE_REGION", "r", 1);
    setenv("TE_ZONEINFO_DIR", "/tmp", 1);
    setenv("TE_LOG_FORMAT", "yaml", 1);
    struct config c;
    char err[256];
    assert_int_equal(config_load(&c, err, sizeof(err)), -1);
    assert_string_equal(err, "TE_LOG_FORMAT: expected text or json, got \"yaml\"");
    assert_all_strings_null(&c);
    config_free(&c); /* harmless after a failed load */
}

static void test_error_truncated(void **state)
{
    (void)state;
    setenv("TE_DB_POOL_SIZE", "this is not a number at all", 1);
    struct config c;
    char err[16];
    assert_int_equal(config_load(&c, err, sizeof(err)), -1);
    assert_string_equal(err, "TE_DB_POOL_SIZE");
}

static void test_reload_after_free(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++) {
        char v[16];
        snprintf(v, sizeof(v), "%d", 10 + i);
        setenv("TE_CRON_BATCH_SIZE", v, 1);
        struct config c;
        load_ok(&c);
        assert_int_equal(c.cron_batch_size, 10 + i);
        config_free(&c);
    }
}

static void test_print_help(void **state)
{
    (void)state;
    char path[] = "/tmp/te_config_help_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    assert_true(saved >= 0);
    assert_true(dup2(fd, STDOUT_FILENO) >= 0);
    config_print_help("taskexec");
    fflush(stdout);
    assert_true(dup2(saved, STDOUT_FILENO) >= 0);
    close(saved);
    close(fd);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char text[16384];
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    text[n] = '\0';
    fclose(f);
    unlink(path);
    assert_non_null(strstr(text, "usage: taskexec"));
    assert_non_null(strstr(text, "TE_DATABASE_URL"));
    assert_non_null(strstr(text, "[default: 10]"));
    assert_non_null(strstr(text, "[default: api,worker,scheduler]"));
    assert_non_null(strstr(text, "TE_ZONEINFO_DIR"));
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_defaults),
        T(test_strings_copied),
        T(test_empty_worker_id_gets_default),
        T(test_int_table),
        T(test_bool_table),
        T(test_roles_table),
        T(test_log_table),
        T(test_failure_frees_strings),
        T(test_error_truncated),
        T(test_reload_after_free),
        T(test_print_help),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
