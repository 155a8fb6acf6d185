/*
 * Every setting of the process, read once from TE_* environment variables.
 * The table in config.c is the single list (name, default, meaning); it also
 * produces `taskexec --help`.
 */
#ifndef TE_CORE_CONFIG_H
#define TE_CORE_CONFIG_H

#include "core/common.h"

enum config_role { ROLE_API = 1, ROLE_WORKER = 2, ROLE_SCHEDULER = 4 };

struct config {
    /* database */
    char *database_url;
    int db_pool_size;
    int db_connect_timeout_ms;
    int db_statement_timeout_ms;
    int db_queue_max;
    bool db_notify;
    bool auto_migrate;
    /* http */
    char *listen_addr;
    int max_body_bytes;
    int max_header_bytes;
    int max_connections;
    int http_idle_timeout_sec;
    int http_request_timeout_sec;
    /* auth and secrets */
    char *api_keys;
    char *api_keys_file;
    char *secret_encryption_key;
    /* worker */
    int worker_max_concurrent;
    int worker_poll_interval_ms;
    int worker_shutdown_timeout_sec;
    int config_cache_ttl_sec;
    int secret_cache_ttl_sec;
    char *worker_id;
    int kafka_linger_ms;
    int kafka_producer_idle_sec;
    /* scheduler */
    int cron_tick_interval_sec;
    int cron_batch_size;
    int promote_interval_ms;
    int reclaim_interval_sec;
    int stuck_execution_timeout_sec;
    /* process */
    char *roles_str;
    unsigned roles; /* enum config_role bits */
    char *region;
    char *log_level;
    char *log_format;
    char *zoneinfo_dir;
};

/*
 * Fills cfg from the environment. On a bad value returns -1 and writes a
 * one-line message naming the variable into err.
 */
int config_load(struct config *cfg, char *err, size_t errlen) TE_MUSTCHECK;
void config_free(struct config *cfg);
void config_print_help(const char *argv0);

#endif
