#include "core/config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>
#include <unistd.h>

enum setting_kind { SET_STR, SET_INT, SET_BOOL };

struct setting {
    const char *env;
    enum setting_kind kind;
    size_t offset;
    const char *def; /* NULL: no default */
    long min, max;   /* SET_INT bounds */
    const char *help;
};

/* The one list of settings: name, kind, default, bounds, meaning. */
static const struct setting settings[] = {
    {"TE_DATABASE_URL", SET_STR, offsetof(struct config, database_url), NULL, 0, 0,
     "PostgreSQL connection URI (required; `make run` starts a private one)"},
    {"TE_DB_POOL_SIZE", SET_INT, offsetof(struct config, db_pool_size), "10", 1, 500,
     "connections in the async PostgreSQL pool"},
    {"TE_DB_CONNECT_TIMEOUT_MS", SET_INT, offsetof(struct config, db_connect_timeout_ms), "5000",
     100, 600000, "give up a connection attempt after this long"},
    {"TE_DB_STATEMENT_TIMEOUT_MS", SET_INT, offsetof(struct config, db_statement_timeout_ms),
     "30000", 0, 3600000, "server-side statement_timeout per statement (0 = none)"},
    {"TE_DB_QUEUE_MAX", SET_INT, offsetof(struct config, db_queue_max), "10000", 1, 10000000,
     "queries waiting for a free connection before new ones are refused (503)"},
    {"TE_DB_NOTIFY", SET_BOOL, offsetof(struct config, db_notify), "on", 0, 0,
     "use LISTEN/NOTIFY wake-ups (off for CockroachDB or transaction-pooling PgBouncer)"},
    {"TE_AUTO_MIGRATE", SET_BOOL, offsetof(struct config, auto_migrate), "on", 0, 0,
     "apply schema migrations at startup (else run `taskexec migrate`)"},
    {"TE_LISTEN_ADDR", SET_STR, offsetof(struct config, listen_addr), "0.0.0.0:8080", 0, 0,
     "HTTP listen address host:port ([v6]:port for IPv6)"},
    {"TE_MAX_BODY_BYTES", SET_INT, offsetof(struct config, max_body_bytes), "1048576", 64,
     1073741824, "largest request body accepted (larger: 413)"},
    {"TE_MAX_HEADER_BYTES", SET_INT, offsetof(struct config, max_header_bytes), "16384", 1024,
     1048576, "largest request line + headers (larger: 431)"},
    {"TE_MAX_CONNECTIONS", SET_INT, offsetof(struct config, max_connections), "4096", 1, 1000000,
     "open client connections at most"},
    {"TE_HTTP_IDLE_TIMEOUT_SEC", SET_INT, offsetof(struct config, http_idle_timeout_sec), "60", 1,
     86400, "close idle keep-alive or too-slow client connections after this long"},
    {"TE_HTTP_REQUEST_TIMEOUT_SEC", SET_INT, offsetof(struct config, http_request_timeout_sec),
     "30", 1, 3600, "answer 504 when a request is not done in this long"},
    {"TE_API_KEYS", SET_STR, offsetof(struct config, api_keys), NULL, 0, 0,
     "comma-separated API keys accepted as `Authorization: Bearer <key>`"},
    {"TE_API_KEYS_FILE", SET_STR, offsetof(struct config, api_keys_file), NULL, 0, 0,
     "file with one API key per line (# comments allowed); adds to TE_API_KEYS"},
    {"TE_SECRET_ENCRYPTION_KEY", SET_STR, offsetof(struct config, secret_encryption_key), NULL, 0,
     0, "32-byte key sealing secrets at rest: 64 hex chars or base64 (required)"},
    {"TE_WORKER_MAX_CONCURRENT", SET_INT, offsetof(struct config, worker_max_concurrent), "50", 1,
     100000, "executions in flight per process at most"},
    {"TE_WORKER_POLL_INTERVAL_MS", SET_INT, offsetof(struct config, worker_poll_interval_ms), "200",
     10, 600000, "claim poll interval when no notification arrives"},
    {"TE_WORKER_SHUTDOWN_TIMEOUT_SEC", SET_INT,
     offsetof(struct config, worker_shutdown_timeout_sec), "30", 0, 3600,
     "on SIGTERM, wait this long for in-flight executions"},
    {"TE_CONFIG_CACHE_TTL_SEC", SET_INT, offsetof(struct config, config_cache_ttl_sec), "60", 0,
     86400, "endpoint/config cache lifetime"},
    {"TE_SECRET_CACHE_TTL_SEC", SET_INT, offsetof(struct config, secret_cache_ttl_sec), "300", 0,
     86400, "decrypted secret cache lifetime"},
    {"TE_KAFKA_LINGER_MS", SET_INT, offsetof(struct config, kafka_linger_ms), "0", 0, 1000,
     "Kafka producers wait this long to batch records (librdkafka linger.ms)"},
    {"TE_KAFKA_PRODUCER_IDLE_SEC", SET_INT, offsetof(struct config, kafka_producer_idle_sec), "300",
     1, 86400, "close a Kafka producer unused for this long"},
    {"TE_WORKER_ID", SET_STR, offsetof(struct config, worker_id), NULL, 0, 0,
     "worker identity recorded on claims (default: hostname-pid)"},
    {"TE_CRON_TICK_INTERVAL_SEC", SET_INT, offsetof(struct config, cron_tick_interval_sec), "1", 1,
     3600, "cron materializer period"},
    {"TE_CRON_BATCH_SIZE", SET_INT, offsetof(struct config, cron_batch_size), "100", 1, 100000,
     "cron jobs materialized per round"},
    {"TE_PROMOTE_INTERVAL_MS", SET_INT, offsetof(struct config, promote_interval_ms), "500", 10,
     600000, "delayed promoter fallback period"},
    {"TE_RECLAIM_INTERVAL_SEC", SET_INT, offsetof(struct config, reclaim_interval_sec), "30", 1,
     86400, "lease reclaimer period"},
    {"TE_STUCK_EXECUTION_TIMEOUT_SEC", SET_INT,
     offsetof(struct config, stuck_execution_timeout_sec), "300", 1, 604800,
     "lease grace added to an endpoint's timeout"},
    {"TE_ROLES", SET_STR, offsetof(struct config, roles_str), "api,worker,scheduler", 0, 0,
     "what this process runs: any of api, worker, scheduler"},
    {"TE_REGION", SET_STR, offsetof(struct config, region), "default", 0, 0,
     "region name written to crdb_region columns"},
    {"TE_LOG_LEVEL", SET_STR, offsetof(struct config, log_level), "info", 0, 0,
     "debug, info, warn or error"},
    {"TE_LOG_FORMAT", SET_STR, offsetof(struct config, log_format), "text", 0, 0,
     "text or json (one JSON object per line)"},
    {"TE_ZONEINFO_DIR", SET_STR, offsetof(struct config, zoneinfo_dir), "/usr/share/zoneinfo", 0, 0,
     "IANA time zone database (TZif files)"},
};

static int parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = {"1", "on", "true", "yes"};
    static const char *const no[] = {"0", "off", "false", "no"};
    for (size_t i = 0; i < TE_ARRAY_LEN(yes); i++) {
        if (strcasecmp(s, yes[i]) == 0) {
            *out = true;
            return 0;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *out = false;
            return 0;
        }
    }
    return -1;
}

static int apply_setting(struct config *cfg, const struct setting *s, const char *val, char *err,
                         size_t errlen)
{
    void *field = (char *)cfg + s->offset;
    switch (s->kind) {
    case SET_STR: {
        char *copy = strdup(val);
        if (!copy)
            goto oom;
        free(*(char **)field);
        *(char **)field = copy;
        return 0;
    }
    case SET_INT: {
        char *end;
        errno = 0;
        long v = strtol(val, &end, 10);
        if (errno || end == val || *end || v < s->min || v > s->max) {
            snprintf(err, errlen, "%s: expected an integer between %ld and %ld, got \"%s\"", s->env,
                     s->min, s->max, val);
            return -1;
        }
        *(int *)field = (int)v;
        return 0;
    }
    case SET_BOOL:
        if (parse_bool(val, (bool *)field) < 0) {
            snprintf(err, errlen, "%s: expected on/off, got \"%s\"", s->env, val);
            return -1;
        }
        return 0;
    }
    snprintf(err, errlen, "%s: unknown setting kind", s->env);
    return -1;
oom:
    snprintf(err, errlen, "%s: out of memory", s->env);
    return -1;
}

static int parse_roles(struct config *cfg, char *err, size_t errlen)
{
    unsigned roles = 0;
    const char *p = cfg->roles_str;
    while (*p) {
        size_t n = strcspn(p, ",");
        while (n && isspace((unsigned char)*p)) {
            p++;
            n--;
        }
        size_t m = n;
        while (m && isspace((unsigned char)p[m - 1]))
            m--;
        if (m == 3 && strncmp(p, "api", 3) == 0)
            roles |= ROLE_API;
        else if (m == 6 && strncmp(p, "worker", 6) == 0)
            roles |= ROLE_WORKER;
        else if (m == 9 && strncmp(p, "scheduler", 9) == 0)
            roles |= ROLE_SCHEDULER;
        else if (m != 0) {
            snprintf(err, errlen, "TE_ROLES: unknown role \"%.*s\" (use api, worker, scheduler)",
                     (int)m, p);
            return -1;
        }
        p += n;
        if (*p == ',')
            p++;
    }
    if (!roles) {
        snprintf(err, errlen, "TE_ROLES: no role given (use api, worker, scheduler)");
        return -1;
    }
    cfg->roles = roles;
    return 0;
}

static int check_enums(struct config *cfg, char *err, size_t errlen)
{
    static const char *const levels[] = {"debug", "info", "warn", "error"};
    bool ok = false;
    for (size_t i = 0; i < TE_ARRAY_LEN(levels); i++)
        ok |= strcasecmp(cfg->log_level, levels[i]) == 0;
    if (!ok) {
        snprintf(err, errlen, "TE_LOG_LEVEL: expected debug, info, warn or error, got \"%s\"",
                 cfg->log_level);
        return -1;
    }
    if (strcmp(cfg->log_format, "text") != 0 && strcmp(cfg->log_format, "json") != 0) {
        snprintf(err, errlen, "TE_LOG_FORMAT: expected text or json, got \"%s\"", cfg->log_format);
        return -1;
    }
    return 0;
}

/* host:port with a numeric host (IPv4, [IPv6]), "localhost", "*" or empty; port 0-65535. */
static int check_listen_addr(const char *addr, char *err, size_t errlen)
{
    const char *colon = strrchr(addr, ':');
    char host[64];
    unsigned char tmp[sizeof(struct in6_addr)];
    char *end;
    if (!colon)
        goto bad;
    long port = strtol(colon + 1, &end, 10);
    if (colon[1] == '\0' || *end || port < 0 || port > 65535)
        goto bad;
    size_t hl = (size_t)(colon - addr);
    if (hl >= sizeof(host))
        goto bad;
    memcpy(host, addr, hl);
    host[hl] = '\0';
    if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
        host[hl - 1] = '\0';
        if (inet_pton(AF_INET6, host + 1, tmp) == 1)
            return 0;
        goto bad;
    }
    if (hl == 0 || strcmp(host, "*") == 0 || strcmp(host, "localhost") == 0 ||
        inet_pton(AF_INET, host, tmp) == 1)
        return 0;
bad:
    snprintf(err, errlen,
             "TE_LISTEN_ADDR: expected host:port with a numeric host (e.g. "
             "0.0.0.0:8080 or [::]:8080), got \"%s\"",
             addr);
    return -1;
}

static int default_worker_id(struct config *cfg)
{
    char host[256] = "host";
    if (gethostname(host, sizeof(host) - 1) < 0)
        strcpy(host, "host");
    host[sizeof(host) - 1] = '\0';
    char id[320];
    snprintf(id, sizeof(id), "%s-%ld", host, (long)getpid());
    free(cfg->worker_id); /* TE_WORKER_ID="" left an empty copy */
    cfg->worker_id = strdup(id);
    return cfg->worker_id ? 0 : -1;
}

int config_load(struct config *cfg, char *err, size_t errlen)
{
    memset(cfg, 0, sizeof(*cfg));
    for (size_t i = 0; i < TE_ARRAY_LEN(settings); i++) {
        const struct setting *s = &settings[i];
        const char *val = getenv(s->env);
        if (val && !*val && s->kind != SET_STR)
            val = NULL;
        if (!val)
            val = s->def;
        if (!val)
            continue;
        if (apply_setting(cfg, s, val, err, errlen) < 0)
            goto fail;
    }
    if (parse_roles(cfg, err, errlen) < 0 || check_enums(cfg, err, errlen) < 0 ||
        check_listen_addr(cfg->listen_addr, err, errlen) < 0)
        goto fail;
    if ((!cfg->worker_id || !*cfg->worker_id) && default_worker_id(cfg) < 0) {
        snprintf(err, errlen, "TE_WORKER_ID: out of memory");
        goto fail;
    }
    return 0;
fail:
    config_free(cfg);
    return -1;
}

void config_free(struct config *cfg)
{
    for (size_t i = 0; i < TE_ARRAY_LEN(settings); i++) {
        if (settings[i].kind == SET_STR) {
            char **p = (char **)((char *)cfg + settings[i].offset);
            free(*p);
            *p = NULL;
        }
    }
}

void config_print_help(const char *argv0)
{
    printf("usage: %s [serve|migrate|--help|--version]\n\n"
           "  serve    run the service (default): API, worker and scheduler per TE_ROLES\n"
           "  migrate  apply schema migrations and exit\n\n"
           "settings (environment variables):\n",
           argv0);
    for (size_t i = 0; i < TE_ARRAY_LEN(settings); i++) {
        const struct setting *s = &settings[i];
        printf("  %-32s %s", s->env, s->help);
        if (s->def)
            printf(" [default: %s]", s->def);
        printf("\n");
    }
}
