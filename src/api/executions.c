/*
 * /executions and /jobs/{job_id}/executions: reading executions, their
 * attempts and logs, and cancelling an execution that has not started.
 *
 * Lists are keyset-paginated: executions on execution_id DESC (UUIDv7 ids sort
 * by creation time), attempts on attempt_number, logs on (logged_at, log_id).
 */
#include "api/api.h"
#include "api/jobs.h"

#include "core/id.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXEC_COLS                                                                                  \
    "x.execution_id, x.job_id, x.endpoint, x.endpoint_type, x.status, x.attempt_count,"            \
    " x.max_attempts, x.worker_id, x.idempotency_key, " SQL_MS("x.run_at") ", " SQL_MS(            \
        "x.started_at") ", " SQL_MS("x.completed_at") ", x.duration_ms, x.input, "                 \
                                                      "x.output, " SQL_MS("x.created_at") ", "     \
                                                                                          "a."     \
                                                                                          "error"

/* last_error: the latest attempt's error (null when it succeeded or none ran). */
#define EXEC_FROM                                                                                  \
    " FROM executions x LEFT JOIN LATERAL (SELECT error FROM attempts"                             \
    " WHERE execution_id = x.execution_id ORDER BY attempt_number DESC LIMIT 1) a ON true"

enum exec_col {
    XC_ID,
    XC_JOB,
    XC_ENDPOINT,
    XC_EP_TYPE,
    XC_STATUS,
    XC_ATTEMPTS,
    XC_MAX_ATTEMPTS,
    XC_WORKER,
    XC_IDEM,
    XC_RUN_AT,
    XC_STARTED,
    XC_COMPLETED,
    XC_DURATION,
    XC_INPUT,
    XC_OUTPUT,
    XC_CREATED,
    XC_LAST_ERROR,
};

static struct db_stmt q_exec = DB_STMT("SELECT " EXEC_COLS EXEC_FROM " WHERE x.execution_id = $1");
static struct db_stmt q_job_exists = DB_STMT("SELECT 1 FROM jobs WHERE job_id = $1");
static struct db_stmt q_exec_exists = DB_STMT("SELECT 1 FROM executions WHERE execution_id = $1");
static struct db_stmt q_job_execs =
    DB_STMT("SELECT " EXEC_COLS EXEC_FROM " WHERE x.job_id = $1"
            " AND ($2::TEXT IS NULL OR x.execution_id < $2) AND ($3::TEXT IS NULL OR x.status = $3)"
            " ORDER BY x.execution_id DESC LIMIT $4::INT8");
/* The status check is in the WHERE: a worker claiming the row first wins cleanly. */
static struct db_stmt q_cancel =
    DB_STMT("UPDATE executions SET status = 'CANCELLED', completed_at = now()"
            " WHERE execution_id = $1 AND status IN ('PENDING', 'QUEUED', 'RETRYING')");
static struct db_stmt q_attempts =
    DB_STMT("SELECT attempt_number, attempt_id, status, " SQL_MS("started_at") ", " SQL_MS(
        "completed_at") ", duration_ms, output, error FROM attempts WHERE execution_id = $1"
                        " AND ($2::INT8 IS NULL OR attempt_number > $2::INT8)"
                        " ORDER BY attempt_number LIMIT $3::INT8");
static struct db_stmt q_logs =
    DB_STMT("SELECT l.log_id, l.attempt_number, l.level, l.message, " SQL_MS(
        "l.logged_at") " FROM execution_logs l WHERE l.execution_id = $1"
                       " AND ($2::TEXT IS NULL OR (l.logged_at, l.log_id) >"
                       "   (SELECT c.logged_at, c.log_id FROM execution_logs c WHERE c.log_id = "
                       "$2))"
                       " AND ($3::INT8 IS NULL OR l.attempt_number = $3::INT8)"
                       " ORDER BY l.logged_at, l.log_id LIMIT $4::INT8");

typedef int (*put_row_fn)(struct buf *b, const PGresult *res, int row);

/* One list request: the page size, how to write an item, which column is the cursor key. */
struct list_ctx {
    struct http_req *req;
    int limit;
    put_row_fn put;
    int key_col;
    const char *not_found;
    char id[ROUTE_PARAM_MAX];
};

static const PGresult *batch_error(PGresult *const *res, int n)
{
    for (int i = 0; i < n; i++) {
        if (res[i] && PQresultStatus(res[i]) == PGRES_FATAL_ERROR)
            return res[i];
    }
    return NULL;
}

static void db_unavailable(struct http_req *req)
{
    http_respond_error(req, 503, "SERVICE_UNAVAILABLE", "the database is unavailable; retry later");
}

static void exec_not_found(struct http_req *req, const char *id)
{
    http_respond_error(req, 404, "EXECUTION_NOT_FOUND", "Execution with ID '%.80s' does not exist.",
                       id);
}

static int put_exec_row(struct buf *b, const PGresult *res, int row)
{
    return buf_putc(b, '{') | api_put_str(b, "execution_id", db_val(res, row, XC_ID)) |
           api_put_str(b, "job_id", db_val(res, row, XC_JOB)) |
           api_put_str(b, "endpoint", db_val(res, row, XC_ENDPOINT)) |
           api_put_str(b, "endpoint_type", db_val(res, row, XC_EP_TYPE)) |
           api_put_str(b, "status", db_val(res, row, XC_STATUS)) |
           api_put_raw(b, "attempts", db_val(res, row, XC_ATTEMPTS)) |
           api_put_raw(b, "max_attempts", db_val(res, row, XC_MAX_ATTEMPTS)) |
           api_put_str(b, "worker_id", db_val(res, row, XC_WORKER)) |
           api_put_str(b, "idempotency_key", db_val(res, row, XC_IDEM)) |
           api_put_time(b, "run_at", db_val(res, row, XC_RUN_AT)) |
           api_put_time(b, "started_at", db_val(res, row, XC_STARTED)) |
           api_put_time(b, "completed_at", db_val(res, row, XC_COMPLETED)) |
           api_put_raw(b, "duration_ms", db_val(res, row, XC_DURATION)) |
           api_put_raw(b, "input", db_val(res, row, XC_INPUT)) |
           api_put_raw(b, "output", db_val(res, row, XC_OUTPUT)) |
           api_put_time(b, "created_at", db_val(res, row, XC_CREATED)) |
           api_put_raw(b, "last_error", db_val(res, row, XC_LAST_ERROR)) | buf_putc(b, '}');
}

static int put_attempt_row(struct buf *b, const PGresult *res, int row)
{
    return buf_putc(b, '{') | api_put_str(b, "attempt_id", db_val(res, row, 1)) |
           api_put_raw(b, "attempt_number", db_val(res, row, 0)) |
           api_put_str(b, "status", db_val(res, row, 2)) |
           api_put_time(b, "started_at", db_val(res, row, 3)) |
           api_put_time(b, "completed_at", db_val(res, row, 4)) |
           api_put_raw(b, "duration_ms", db_val(res, row, 5)) |
           api_put_raw(b, "output", db_val(res, row, 6)) |
           api_put_raw(b, "error", db_val(res, row, 7)) | buf_putc(b, '}');
}

static int put_log_row(struct buf *b, const PGresult *res, int row)
{
    return buf_putc(b, '{') | api_put_str(b, "log_id", db_val(res, row, 0)) |
           api_put_raw(b, "attempt_number", db_val(res, row, 1)) |
           api_put_str(b, "level", db_val(res, row, 2)) |
           api_put_str(b, "message", db_val(res, row, 3)) |
           api_put_time(b, "logged_at", db_val(res, row, 4)) | buf_putc(b, '}');
}

/* ---------------------------------------------------------------- get / cancel */

static void respond_exec(struct http_req *req, const PGresult *res)
{
    struct buf b = BUF_INIT;
    if (put_exec_row(&b, res, 0) < 0)
        api_oom(req);
    else
        http_respond_json(req, 200, &b);
    buf_free(&b);
}

static void on_exec(void *arg, const char *err, PGresult *res)
{
    struct http_req *req = arg;
    if (err)
        api_db_failed(req, err, res);
    else if (PQntuples(res) == 0)
        http_respond_error(req, 404, "EXECUTION_NOT_FOUND", "Execution does not exist.");
    else
        respond_exec(req, res);
}

void api_executions_get(struct http_req *req, const struct route_match *m)
{
    const char *params[] = {m->params[0]};
    if (!id_valid("exec", m->params[0])) {
        exec_not_found(req, m->params[0]);
        return;
    }
    if (api_exec(req, &q_exec, 1, params, on_exec, req) < 0)
        return; /* answered 503 */
}

static void on_exec_cancelled(void *arg, const char *err, PGresult *const *res, int n)
{
    struct http_req *req = arg;
    if (err)
        api_db_failed(req, err, batch_error(res, n));
    else if (PQntuples(res[1]) == 0)
        http_respond_error(req, 404, "EXECUTION_NOT_FOUND", "Execution does not exist.");
    else if (strcmp(PQcmdTuples(res[0]), "1") != 0)
        http_respond_error(req, 409, "EXECUTION_NOT_CANCELLABLE",
                           "Execution is %s; only PENDING, QUEUED or RETRYING executions can be "
                           "cancelled.",
                           PQgetvalue(res[1], 0, XC_STATUS));
    else
        respond_exec(req, res[1]);
}

void api_executions_cancel(struct http_req *req, const struct route_match *m)
{
    struct app *app = req->app;
    const char *params[] = {m->params[0]};
    if (!id_valid("exec", m->params[0])) {
        exec_not_found(req, m->params[0]);
        return;
    }
    const struct db_call calls[] = {{&q_cancel, 1, params}, {&q_exec, 1, params}};
    if (db_exec_batch(app->db, calls, 2, on_exec_cancelled, req) < 0)
        db_unavailable(req);
}

/* ---------------------------------------------------------------- lists */

static int put_list_row(void *arg, struct buf *b, const PGresult *res, int row)
{
    const struct list_ctx *c = arg;
    return c->put(b, res, row);
}

/* res[0] says whether the parent exists; res[1] is the page (one row more than asked). */
static void on_list(void *arg, const char *err, PGresult *const *res, int n)
{
    struct list_ctx *c = arg;
    if (err)
        api_db_failed(c->req, err, batch_error(res, n));
    else if (PQntuples(res[0]) == 0)
        http_respond_error(c->req, 404, c->not_found, "'%s' does not exist.", c->id);
    else
        api_respond_page(c->req, res[1], c->limit, c->key_col, put_list_row, c);
    free(c);
}

static struct list_ctx *list_new(struct http_req *req, const struct api_page *pg, const char *id,
                                 const char *not_found, put_row_fn put, int key_col)
{
    struct list_ctx *c = calloc(1, sizeof(*c));
    if (!c) {
        api_oom(req);
        return NULL;
    }
    c->req = req;
    c->limit = pg->limit;
    c->put = put;
    c->key_col = key_col;
    c->not_found = not_found;
    snprintf(c->id, sizeof(c->id), "%s", id);
    return c;
}

static void list_start(struct list_ctx *c, struct db_stmt *parent, struct db_stmt *page, int n,
                       const char *const *params)
{
    struct app *app = c->req->app;
    const struct db_call calls[] = {{parent, 1, params}, {page, n, params}};
    if (db_exec_batch(app->db, calls, 2, on_list, c) < 0) {
        db_unavailable(c->req);
        free(c);
    }
}

/* A non-negative integer of at most 9 digits (attempt numbers, cursors on them). */
static bool small_uint(const char *s)
{
    size_t n = strlen(s);
    return n > 0 && n <= 9 && strspn(s, "0123456789") == n;
}

static void bad_cursor(struct http_req *req)
{
    http_respond_error(req, 400, "INVALID_REQUEST",
                       "query parameter 'cursor' is not a cursor this API returned");
}

void api_jobs_executions(struct http_req *req, const struct route_match *m)
{
    static const char *const statuses[] = {"PENDING", "QUEUED", "RUNNING",   "RETRYING",
                                           "SUCCESS", "FAILED", "CANCELLED", NULL};
    struct api_page pg;
    char status[16];
    bool has_s;
    if (!id_valid("job", m->params[0])) {
        http_respond_error(req, 404, "JOB_NOT_FOUND", "Job with ID '%.80s' does not exist.",
                           m->params[0]);
        return;
    }
    if (api_page_read(req, &pg) < 0 ||
        jobs_query_filter(req, "status", status, sizeof(status), statuses, &has_s) < 0)
        return;
    if (pg.has_after && !id_valid("exec", pg.after)) {
        bad_cursor(req);
        return;
    }
    struct list_ctx *c = list_new(req, &pg, m->params[0], "JOB_NOT_FOUND", put_exec_row, XC_ID);
    const char *params[] = {m->params[0], pg.has_after ? pg.after : NULL, has_s ? status : NULL,
                            pg.limit_plus_one};
    if (c)
        list_start(c, &q_job_exists, &q_job_execs, 4, params);
}

void api_executions_attempts(struct http_req *req, const struct route_match *m)
{
    struct api_page pg;
    if (!id_valid("exec", m->params[0])) {
        exec_not_found(req, m->params[0]);
        return;
    }
    if (api_page_read(req, &pg) < 0)
        return;
    if (pg.has_after && !small_uint(pg.after)) {
        bad_cursor(req);
        return;
    }
    struct list_ctx *c =
        list_new(req, &pg, m->params[0], "EXECUTION_NOT_FOUND", put_attempt_row, 0);
    const char *params[] = {m->params[0], pg.has_after ? pg.after : NULL, pg.limit_plus_one};
    if (c)
        list_start(c, &q_exec_exists, &q_attempts, 3, params);
}

void api_executions_logs(struct http_req *req, const struct route_match *m)
{
    struct api_page pg;
    char attempt[16];
    bool has_a;
    if (!id_valid("exec", m->params[0])) {
        exec_not_found(req, m->params[0]);
        return;
    }
    if (api_page_read(req, &pg) < 0 ||
        jobs_query_filter(req, "attempt", attempt, sizeof(attempt), NULL, &has_a) < 0)
        return;
    if (has_a && !small_uint(attempt)) {
        http_respond_error(req, 400, "INVALID_REQUEST",
                           "query parameter 'attempt' must be a non-negative integer");
        return;
    }
    if (pg.has_after && !id_valid("log", pg.after)) {
        bad_cursor(req);
        return;
    }
    struct list_ctx *c = list_new(req, &pg, m->params[0], "EXECUTION_NOT_FOUND", put_log_row, 0);
    const char *params[] = {m->params[0], pg.has_after ? pg.after : NULL, has_a ? attempt : NULL,
                            pg.limit_plus_one};
    if (c)
        list_start(c, &q_exec_exists, &q_logs, 4, params);
}
