/* Internals shared by the worker's files (worker.c, cache.c, pipeline.c, outcome.c). */
#ifndef TE_WORKER_WORKER_INT_H
#define TE_WORKER_WORKER_INT_H

#include "core/buf.h"
#include "core/id.h"
#include "domain/endpoint.h"
#include "worker/dispatch/http.h"
#include "worker/dispatch/kafka.h"
#include "worker/dispatch/redis.h"
#include "worker/worker.h"

#include <cjson/cJSON.h>

/* ---- caches (cache.c): configs by name, decrypted secrets by name, with TTLs ---- */
struct wcache;
int wcache_new(unsigned config_ttl_ms, unsigned secret_ttl_ms, struct wcache **out) TE_MUSTCHECK;
void wcache_free(struct wcache *c);
/* Fresh config values, or NULL when absent/expired. Valid until the next wcache_put_*. */
const cJSON *wcache_config(struct wcache *c, const char *name, uint64_t now_ms);
/* 1 fresh hit, 0 miss/expired, and -1 when cached as "does not exist". */
int wcache_secret(struct wcache *c, const char *name, uint64_t now_ms, const char **value);
int wcache_put_config(struct wcache *c, const char *name, const char *values_json,
                      uint64_t now_ms) TE_MUSTCHECK;
int wcache_put_secret(struct wcache *c, const char *name, const char *value,
                      uint64_t now_ms) TE_MUSTCHECK;

/* ---- one execution in flight (pipeline.c) ---- */
enum exec_state {
    EXEC_LOADING,     /* fetching config/secrets missing from the caches */
    EXEC_DISPATCHING, /* transport call in flight */
    EXEC_RECORDING,   /* outcome queued for the batch writer */
};

struct exec {
    struct worker *w;
    struct exec *prev, *next; /* worker's in-flight list */
    enum exec_state state;
    char id[ID_MAX];
    char job_id[ID_MAX];
    int attempt;
    int max_attempts;
    enum endpoint_type type;
    cJSON *input, *spec, *retry;
    char *config_ref;
    char *secret_refs; /* PostgreSQL array literal of the secret names the spec uses */
    int64_t started_ms;
    char **secrets; /* values used by this delivery, for redaction */
    int nsecrets;
};

/* ---- outcomes (outcome.c): attempt + execution + logs, written in batches ---- */
enum outcome_status { OUTCOME_SUCCESS, OUTCOME_RETRY, OUTCOME_FAIL };

struct outcome {
    enum outcome_status status;
    const char *output_json; /* attempt/execution output, or NULL */
    const char *error_json;  /* attempt error, or NULL */
    int64_t duration_ms;
    int64_t retry_delay_ms;
    const char *log_level;
    const char *log_message;
};

struct outbox;
int outbox_new(uv_loop_t *loop, struct db_pool *db, const struct config *cfg,
               struct outbox **out) TE_MUSTCHECK;
/* Queues e's outcome (texts are copied and redacted); `done` runs once it is written. */
void outbox_add(struct outbox *o, struct exec *e, const struct outcome *oc,
                void (*done)(struct exec *e));
unsigned outbox_pending(const struct outbox *o);
void outbox_flush(struct outbox *o);
void outbox_close(struct outbox *o, void (*done)(void *arg), void *arg);

/* ---- the worker (worker.c) ---- */
struct worker {
    uv_loop_t *loop;
    struct db_pool *db;
    const struct config *cfg;
    const struct secret_key *key;
    struct httpd *httpd;
    struct kafkad *kafkad;
    struct redisd *redisd;
    struct wcache *cache;
    struct outbox *outbox;
    struct exec *inflight_head;
    unsigned inflight;
    unsigned max_inflight;
    /* the poller */
    uv_timer_t poll_timer;
    uv_timer_t wake_timer;
    struct db_conn *listen;
    bool claiming;
    bool draining;
    bool closing;       /* worker_close called: nothing more is recorded */
    bool closing_execs; /* waiting for executions still loading */
    enum { WCLOSE_TRANSPORTS, WCLOSE_OUTBOX, WCLOSE_EXECS } close_phase;
    int closes_pending;
    void (*close_done)(void *arg);
    void *close_arg;
};

/*
 * What a transport reports about one attempt: the output (ok) or error JSON,
 * a short result word for the log line ("HTTP 503", "TIMEOUT"), an optional
 * detail, and whether another attempt could help.
 */
struct attempt_result {
    bool ok;
    bool retryable;
    const char *json;
    const char *what;
    const char *detail;
    int64_t duration_ms;
};

struct template_vars;

/* pipeline.c */
bool exec_aborted(struct exec *e);
void exec_attempt_done(struct exec *e, const struct attempt_result *r);
/* A failure found before anything was sent: recorded, never retried. */
void exec_fail_now(struct exec *e, const char *type, const char *message);
/* A failure of the attempt that happened before anything reached the target. */
void exec_fail_attempt(struct exec *e, const char *type, const char *message, bool retryable);
long exec_timeout_ms(const struct exec *e);
/* streams.c: KAFKA and REDIS_STREAM deliveries */
void exec_send_kafka(struct exec *e, const struct template_vars *vars);
void exec_send_redis(struct exec *e, const struct template_vars *vars);
int exec_from_claim(struct worker *w, const PGresult *res, int row, struct exec **out);
void exec_run(struct exec *e);
void exec_free(struct exec *e);
/* worker.c: an execution has been fully recorded; frees it and frees its slot. */
void worker_exec_done(struct exec *e);

#endif
