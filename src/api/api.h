/*
 * The REST API: handlers per resource, shared request plumbing, the app
 * context every handler reaches through req->app.
 */
#ifndef TE_API_API_H
#define TE_API_API_H

#include "core/buf.h"
#include "core/config.h"
#include "core/json.h"
#include "crypto/crypto.h"
#include "db/db.h"
#include "http/http.h"
#include "http/router.h"

struct tz_cache;
struct worker;
struct scheduler;

struct app {
    uv_loop_t *loop;
    const struct config *cfg;
    struct db_pool *db;
    struct api_keys *keys;
    struct secret_key secret_key;
    struct tz_cache *tz;
    /* This process's engine, to wake it when the API creates work (NULL while not running). */
    struct worker **worker;
    struct scheduler **sched;
    bool schema_ready; /* migrations applied */
    bool draining;     /* shutting down: /readyz answers 503 */
};

/* Entry point given to the HTTP server: routing, auth, dispatch. */
void api_on_request(struct http_req *req);

/* SQL for a timestamp column as Unix milliseconds (formatted by api_put_time). */
#define SQL_MS(col) "floor(extract(epoch from " col ") * 1000)::INT8"

/* --- request plumbing (api/common.c) --- */

/* Parses the body as a JSON object; on failure answers 400 and returns -1. */
int api_body_object(struct http_req *req, cJSON **out) TE_MUSTCHECK;
/* Checks fields (see json_check_fields); on failure answers 400 and returns -1. */
int api_check_fields(struct http_req *req, const cJSON *obj, const struct json_field *f,
                     size_t n) TE_MUSTCHECK;
/* Validates a {name} path parameter; answers 400 and returns -1 when invalid. */
int api_check_name(struct http_req *req, const char *name) TE_MUSTCHECK;
/* For PUT bodies: a "name" member, if any, must equal the path's. Answers 400. */
int api_check_same_name(struct http_req *req, const cJSON *body, const char *name) TE_MUSTCHECK;

/* Starts a query; answers 503 itself (and returns -1) when the pool refuses it. */
int api_exec(struct http_req *req, struct db_stmt *stmt, int n, const char *const *params, db_cb cb,
             void *arg) TE_MUSTCHECK;
/* Answers for a failed query: 503 when the database is unreachable, else 500 (logged). */
void api_db_failed(struct http_req *req, const char *err, const PGresult *res);
void api_oom(struct http_req *req);
/* The error shape plus "details" (e.g. the failing paths of a schema validation). */
void api_respond_error_details(struct http_req *req, int status, const char *code,
                               const char *message, const cJSON *details);

/* JSON building on buf: `"key":` then values. Return 0 or -1 (out of memory). */
int api_put_key(struct buf *b, const char *key) TE_MUSTCHECK;
int api_put_str(struct buf *b, const char *key, const char *val) TE_MUSTCHECK;  /* NULL → null */
int api_put_raw(struct buf *b, const char *key, const char *json) TE_MUSTCHECK; /* NULL → null */
int api_put_time(struct buf *b, const char *key, const char *ms) TE_MUSTCHECK;  /* NULL → null */

/* --- pagination (api/common.c) --- */
struct api_page {
    int limit;
    bool has_after;
    char after[ROUTE_PARAM_MAX]; /* last key of the previous page */
    char limit_plus_one[16];
};
/* Reads ?limit= and ?cursor=; answers 400 and returns -1 when invalid. */
int api_page_read(struct http_req *req, struct api_page *pg) TE_MUSTCHECK;
/* Appends the opaque cursor for `key` as a JSON string. */
int api_put_cursor(struct buf *b, const char *key) TE_MUSTCHECK;
/* Writes one list item (a JSON object) for row `row`. */
typedef int (*api_row_fn)(void *arg, struct buf *b, const PGresult *res, int row);
/*
 * Answers 200 with {"items":[…],"cursor":…} from a page fetched with one row
 * more than `limit` (that extra row means a next page exists; its cursor is
 * column key_col of the last item returned).
 */
void api_respond_page(struct http_req *req, const PGresult *res, int limit, int key_col,
                      api_row_fn put, void *arg);

/* --- handlers --- */
void api_healthz(struct http_req *req, const struct route_match *m);
void api_readyz(struct http_req *req, const struct route_match *m);

void api_payload_specs_create(struct http_req *req, const struct route_match *m);
void api_payload_specs_list(struct http_req *req, const struct route_match *m);
void api_payload_specs_get(struct http_req *req, const struct route_match *m);
void api_payload_specs_update(struct http_req *req, const struct route_match *m);
void api_payload_specs_delete(struct http_req *req, const struct route_match *m);

void api_configs_create(struct http_req *req, const struct route_match *m);
void api_configs_list(struct http_req *req, const struct route_match *m);
void api_configs_get(struct http_req *req, const struct route_match *m);
void api_configs_update(struct http_req *req, const struct route_match *m);
void api_configs_delete(struct http_req *req, const struct route_match *m);

void api_secrets_create(struct http_req *req, const struct route_match *m);
void api_secrets_list(struct http_req *req, const struct route_match *m);
void api_secrets_get(struct http_req *req, const struct route_match *m);
void api_secrets_update(struct http_req *req, const struct route_match *m);
void api_secrets_delete(struct http_req *req, const struct route_match *m);

void api_endpoints_create(struct http_req *req, const struct route_match *m);
void api_endpoints_list(struct http_req *req, const struct route_match *m);
void api_endpoints_get(struct http_req *req, const struct route_match *m);
void api_endpoints_update(struct http_req *req, const struct route_match *m);
void api_endpoints_delete(struct http_req *req, const struct route_match *m);

void api_jobs_create(struct http_req *req, const struct route_match *m);
void api_jobs_list(struct http_req *req, const struct route_match *m);
void api_jobs_get(struct http_req *req, const struct route_match *m);
void api_jobs_update(struct http_req *req, const struct route_match *m);
void api_jobs_cancel(struct http_req *req, const struct route_match *m);
void api_jobs_status(struct http_req *req, const struct route_match *m);
void api_jobs_versions(struct http_req *req, const struct route_match *m);
void api_jobs_executions(struct http_req *req, const struct route_match *m);

void api_executions_get(struct http_req *req, const struct route_match *m);
void api_executions_cancel(struct http_req *req, const struct route_match *m);
void api_executions_attempts(struct http_req *req, const struct route_match *m);
void api_executions_logs(struct http_req *req, const struct route_match *m);

#endif
