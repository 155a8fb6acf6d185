/*
 * /jobs: invocations of an endpoint — IMMEDIATE, DELAYED or CRON.
 *
 * Creating a one-shot job writes the job and its execution in one statement;
 * the idempotency key makes a repeat (even a concurrent one) return the
 * original job with 200. A CRON job stores its first fire time; the
 * scheduler materializes executions from there.
 */
#include "api/api.h"
#include "api/jobs.h"

#include "core/id.h"
#include "core/log.h"
#include "core/timefmt.h"
#include "domain/cron.h"
#include "domain/jsonschema.h"
#include "domain/tz.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IDEMPOTENCY_KEY_MAX 255

enum trigger { TRIGGER_IMMEDIATE, TRIGGER_DELAYED, TRIGGER_CRON };
static const char *const trigger_names[] = {"IMMEDIATE", "DELAYED", "CRON"};

/* Endpoint, its current version and the payload spec's schema. */
static struct db_stmt q_endpoint = DB_STMT(
    "SELECT e.endpoint_type, e.version, e.retry_policy, p.schema_json FROM endpoints e"
    " LEFT JOIN payload_specs p ON p.name = e.payload_spec_ref WHERE e.name = $1");

/* $1 job_id $2 endpoint $3 endpoint_version $4 endpoint_type $5 trigger $6 idempotency_key
 * $7 input $8 run_at $9 execution_id $10 max_attempts $11 region */
static struct db_stmt q_insert_oneshot = DB_STMT(
    "WITH j AS (INSERT INTO jobs (job_id, crdb_region, endpoint, endpoint_version, endpoint_type,"
    "   trigger_type, idempotency_key, input, run_at)"
    "   VALUES ($1, $11, $2, $3::INT, $4, $5, $6, $7::JSONB, $8::TIMESTAMPTZ)"
    "   ON CONFLICT (endpoint, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING"
    "   RETURNING job_id),"
    " x AS (INSERT INTO executions (execution_id, crdb_region, job_id, endpoint, endpoint_type,"
    "   idempotency_key, status, run_at, input, max_attempts)"
    "   SELECT $9, $11, j.job_id, $2, $4, $6,"
    "     CASE WHEN $8::TIMESTAMPTZ > now() THEN 'PENDING' ELSE 'QUEUED' END,"
    "     GREATEST(COALESCE($8::TIMESTAMPTZ, now()), now()), $7::JSONB, $10::INT FROM j"
    "   RETURNING execution_id)"
    " SELECT (SELECT count(*) FROM x)");

/* $1 job_id $2 endpoint $3 endpoint_version $4 endpoint_type $5 idempotency_key $6 input
 * $7 cron $8 timezone $9 starts_at $10 ends_at $11 next_run_at $12 region */
static struct db_stmt q_insert_cron = DB_STMT(
    "INSERT INTO jobs (job_id, crdb_region, endpoint, endpoint_version, endpoint_type,"
    "   trigger_type, idempotency_key, input, cron_expression, cron_timezone, cron_starts_at,"
    "   cron_ends_at, cron_next_run_at)"
    " VALUES ($1, $12, $2, $3::INT, $4, 'CRON', $5, $6::JSONB, $7, $8, $9::TIMESTAMPTZ,"
    "   $10::TIMESTAMPTZ, $11::TIMESTAMPTZ)"
    " ON CONFLICT (endpoint, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING");

static struct db_stmt q_notify = DB_STMT("SELECT pg_notify('taskexec_work', '')");

#define JOB_COLS                                                                                   \
    "j.job_id, j.endpoint, j.endpoint_type, j.trigger_type, j.status, j.version,"                  \
    " j.previous_version_id, j.replaced_by_id, j.idempotency_key, j.input, " SQL_MS("j.run_at")    \
    ", j.cron_expression, j.cron_timezone, " SQL_MS("j.cron_starts_at") ", " SQL_MS(              \
        "j.cron_ends_at") ", " SQL_MS("j.cron_next_run_at") ", " SQL_MS("j.cron_last_tick_at")    \
    ", " SQL_MS("j.created_at") ", " SQL_MS("j.retired_at") ", x.execution_id, x.status, "       \
    SQL_MS("x.created_at")

/* The first execution of a one-shot job rides along. */
#define JOB_FROM                                                                                   \
    " FROM jobs j LEFT JOIN LATERAL (SELECT execution_id, status, created_at FROM executions"     \
    " WHERE job_id = j.job_id ORDER BY created_at, execution_id LIMIT 1) x ON true"

static struct db_stmt q_by_key =
    DB_STMT("SELECT " JOB_COLS JOB_FROM " WHERE j.endpoint = $1 AND j.idempotency_key = $2");
static struct db_stmt q_by_id = DB_STMT("SELECT " JOB_COLS JOB_FROM " WHERE j.job_id = $1");
static struct db_stmt q_list = DB_STMT(
    "SELECT " JOB_COLS JOB_FROM " WHERE ($1::TEXT IS NULL OR j.job_id < $1)"
    " AND ($2::TEXT IS NULL OR j.endpoint = $2) AND ($3::TEXT IS NULL OR j.status = $3)"
    " AND ($4::TEXT IS NULL OR j.trigger_type = $4)"
    " ORDER BY j.job_id DESC LIMIT $5::INT8");

enum job_col {
    JC_ID, JC_ENDPOINT, JC_ENDPOINT_TYPE, JC_TRIGGER, JC_STATUS, JC_VERSION, JC_PREV, JC_NEXT_VER,
    JC_IDEM, JC_INPUT, JC_RUN_AT, JC_CRON, JC_TZ, JC_STARTS, JC_ENDS, JC_NEXT_RUN, JC_LAST_TICK,
    JC_CREATED, JC_RETIRED, JC_EXEC_ID, JC_EXEC_STATUS, JC_EXEC_CREATED,
};

/* A time in the job's zone ("2026-03-16T09:00:00+05:30"), or UTC when the zone is unknown. */
static int put_zoned_time(struct app *app, struct buf *b, const char *key, const char *ms,
                          const char *zone_name)
{
    const struct tz *zone = NULL;
    char err[128], out[TZ_RFC3339_SIZE];
    if (!ms || !zone_name || tz_cache_get(app->tz, zone_name, &zone, err, sizeof(err)) < 0)
        return api_put_time(b, key, ms);
    int64_t t = strtoll(ms, NULL, 10);
    if (tz_format_rfc3339(zone, t >= 0 ? t / 1000 : -((-t + 999) / 1000), out, sizeof(out)) < 0)
        return api_put_time(b, key, ms);
    return api_put_str(b, key, out);
}

static int put_execution(struct buf *b, const PGresult *res, int row)
{
    if (PQgetisnull(res, row, JC_EXEC_ID))
        return 0;
    return api_put_key(b, "execution") | buf_putc(b, '{') |
           api_put_str(b, "execution_id", db_val(res, row, JC_EXEC_ID)) |
           api_put_str(b, "status", db_val(res, row, JC_EXEC_STATUS)) |
           api_put_time(b, "created_at", db_val(res, row, JC_EXEC_CREATED)) | buf_putc(b, '}');
}

int jobs_put_row(struct app *app, struct buf *b, const PGresult *res, int row)
{
    const char *v = db_val(res, row, JC_TRIGGER);
    bool cron = v && strcmp(v, "CRON") == 0;
    const char *zone = db_val(res, row, JC_TZ);
    int rc = buf_putc(b, '{') | api_put_str(b, "job_id", db_val(res, row, JC_ID)) |
             api_put_str(b, "endpoint", db_val(res, row, JC_ENDPOINT)) |
             api_put_str(b, "endpoint_type", db_val(res, row, JC_ENDPOINT_TYPE)) |
             api_put_str(b, "trigger", v) | api_put_str(b, "status", db_val(res, row, JC_STATUS)) |
             api_put_raw(b, "version", db_val(res, row, JC_VERSION)) |
             api_put_str(b, "previous_version_id", db_val(res, row, JC_PREV)) |
             api_put_str(b, "replaced_by_id", db_val(res, row, JC_NEXT_VER)) |
             api_put_str(b, "idempotency_key", db_val(res, row, JC_IDEM));
    if (cron) {
        rc |= api_put_str(b, "cron", db_val(res, row, JC_CRON)) | api_put_str(b, "timezone", zone) |
              api_put_time(b, "starts_at", db_val(res, row, JC_STARTS)) |
              api_put_time(b, "ends_at", db_val(res, row, JC_ENDS)) |
              put_zoned_time(app, b, "next_run_at", db_val(res, row, JC_NEXT_RUN), zone) |
              put_zoned_time(app, b, "last_tick_at", db_val(res, row, JC_LAST_TICK), zone);
    } else {
        rc |= api_put_time(b, "run_at", db_val(res, row, JC_RUN_AT)) |
              put_execution(b, res, row);
    }
    rc |= api_put_raw(b, "input", db_val(res, row, JC_INPUT)) |
          api_put_time(b, "created_at", db_val(res, row, JC_CREATED)) |
          api_put_time(b, "retired_at", db_val(res, row, JC_RETIRED)) | buf_putc(b, '}');
    return rc;
}

/* ---------------------------------------------------------------- create */

struct job_create {
    struct http_req *req;
    cJSON *body;
    enum trigger trigger;
    const char *endpoint;
    const char *idem;
    char *input;
    char job_id[ID_MAX];
    char exec_id[ID_MAX];
    char run_at[TIME_RFC3339_LEN]; /* "" when none */
    const char *cron;
    const char *timezone;
    char starts_at[TIME_RFC3339_LEN];
    char ends_at[TIME_RFC3339_LEN];
    char next_run_at[TIME_RFC3339_LEN];
    char version[16];
    char endpoint_type[16];
    char max_attempts[16];
};

static void create_free(struct job_create *c)
{
    cJSON_Delete(c->body);
    free(c->input);
    free(c);
}

static int parse_time_field(struct http_req *req, const cJSON *body, const char *field,
                            int64_t *ms, bool *present)
{
    const cJSON *v = json_get(body, field);
    *present = v != NULL;
    if (v && time_parse_rfc3339(v->valuestring, ms) < 0) {
        http_respond_error(req, 400, "INVALID_REQUEST",
                           "field '%s' must be an RFC 3339 date-time such as "
                           "2026-03-15T18:00:00Z",
                           field);
        return -1;
    }
    return 0;
}

/* Fields that only one kind of trigger accepts. */
static int check_trigger_fields(struct job_create *c)
{
    static const char *const cron_only[] = {"cron", "timezone", "starts_at", "ends_at"};
    bool is_cron = c->trigger == TRIGGER_CRON;
    for (size_t i = 0; i < TE_ARRAY_LEN(cron_only); i++) {
        if (!is_cron && json_get(c->body, cron_only[i])) {
            http_respond_error(c->req, 400, "INVALID_REQUEST",
                               "field '%s' is only allowed for CRON jobs", cron_only[i]);
            return -1;
        }
    }
    if (c->trigger != TRIGGER_DELAYED && json_get(c->body, "run_at")) {
        http_respond_error(c->req, 400, "INVALID_REQUEST",
                           "field 'run_at' is only allowed for DELAYED jobs");
        return -1;
    }
    if (c->trigger != TRIGGER_CRON && !c->idem) {
        http_respond_error(c->req, 400, "INVALID_REQUEST",
                           "missing required field 'idempotency_key' (required for %s jobs)",
                           trigger_names[c->trigger]);
        return -1;
    }
    if (c->idem && (c->idem[0] == '\0' || strlen(c->idem) > IDEMPOTENCY_KEY_MAX)) {
        http_respond_error(c->req, 400, "INVALID_REQUEST",
                           "field 'idempotency_key' must be 1-%d characters", IDEMPOTENCY_KEY_MAX);
        return -1;
    }
    return 0;
}

/* Parses cron + timezone and computes the first fire time at or after starts_at. */
static int prepare_cron(struct job_create *c, int64_t now_ms)
{
    struct app *app = c->req->app;
    struct cron_expr expr;
    const struct tz *zone;
    char err[200];
    int64_t starts, ends, next;
    bool has_starts, has_ends;
    c->cron = json_get(c->body, "cron") ? json_get(c->body, "cron")->valuestring : NULL;
    c->timezone = json_get(c->body, "timezone") ? json_get(c->body, "timezone")->valuestring : NULL;
    if (!c->cron || !c->timezone) {
        http_respond_error(c->req, 400, "INVALID_REQUEST",
                           "missing required field '%s' (required for CRON jobs)",
                           c->cron ? "timezone" : "cron");
        return -1;
    }
    if (cron_parse(c->cron, &expr, err, sizeof(err)) < 0) {
        http_respond_error(c->req, 422, "INVALID_CRON", "invalid cron expression: %s", err);
        return -1;
    }
    if (tz_cache_get(app->tz, c->timezone, &zone, err, sizeof(err)) < 0) {
        http_respond_error(c->req, 422, "INVALID_TIMEZONE",
                           "unknown time zone '%s' (use an IANA name such as Asia/Kolkata)",
                           c->timezone);
        return -1;
    }
    if (parse_time_field(c->req, c->body, "starts_at", &starts, &has_starts) < 0 ||
        parse_time_field(c->req, c->body, "ends_at", &ends, &has_ends) < 0)
        return -1;
    if (!has_starts)
        starts = now_ms;
    if (has_ends && ends <= starts) {
        http_respond_error(c->req, 400, "INVALID_REQUEST", "field 'ends_at' must be after starts_at");
        return -1;
    }
    /* cron_next is strictly after; one second before the (rounded-up) start includes it. */
    int64_t start_s = starts >= 0 ? (starts + 999) / 1000 : -((-starts) / 1000);
    int rc = cron_next(&expr, zone, start_s - 1, &next);
    if (rc == -ENOENT) {
        http_respond_error(c->req, 422, "INVALID_CRON",
                           "invalid cron expression: it never fires (e.g. 30 February)");
        return -1;
    }
    if (rc < 0) {
        http_respond_error(c->req, 400, "INVALID_REQUEST", "field 'starts_at' is out of range");
        return -1;
    }
    time_format_ms(starts, c->starts_at);
    if (has_ends)
        time_format_ms(ends, c->ends_at);
    if (rc == 0 && (!has_ends || next * 1000 < ends))
        time_format_ms(next * 1000, c->next_run_at);
    return 0;
}

static int parse_create(struct job_create *c)
{
    static const struct json_field fields[] = {
        {"endpoint", JT_STRING, true},         {"trigger", JT_STRING, true},
        {"idempotency_key", JT_STRING, false}, {"input", JT_OBJECT, false},
        {"run_at", JT_STRING, false},          {"cron", JT_STRING, false},
        {"timezone", JT_STRING, false},        {"starts_at", JT_STRING, false},
        {"ends_at", JT_STRING, false},
    };
    int64_t now = time_now_ms(), run_at;
    bool has_run_at;
    if (api_body_object(c->req, &c->body) < 0 ||
        api_check_fields(c->req, c->body, fields, TE_ARRAY_LEN(fields)) < 0)
        return -1;
    const char *t = json_get(c->body, "trigger")->valuestring;
    for (c->trigger = TRIGGER_IMMEDIATE; c->trigger <= TRIGGER_CRON; c->trigger++) {
        if (strcmp(t, trigger_names[c->trigger]) == 0)
            break;
    }
    if (c->trigger > TRIGGER_CRON) {
        http_respond_error(c->req, 400, "INVALID_REQUEST",
                           "field 'trigger' must be IMMEDIATE, DELAYED or CRON");
        return -1;
    }
    c->endpoint = json_get(c->body, "endpoint")->valuestring;
    c->idem = json_get(c->body, "idempotency_key") ? json_get(c->body, "idempotency_key")->valuestring
                                                   : NULL;
    if (check_trigger_fields(c) < 0)
        return -1;
    if (c->trigger == TRIGGER_DELAYED) {
        if (parse_time_field(c->req, c->body, "run_at", &run_at, &has_run_at) < 0)
            return -1;
        if (!has_run_at) {
            http_respond_error(c->req, 400, "INVALID_REQUEST",
                               "missing required field 'run_at' (required for DELAYED jobs)");
            return -1;
        }
        time_format_ms(run_at, c->run_at);
    }
    if (c->trigger == TRIGGER_CRON && prepare_cron(c, now) < 0)
        return -1;
    const cJSON *input = json_get(c->body, "input");
    c->input = input ? cJSON_PrintUnformatted(input) : strdup("{}");
    if (!c->input) {
        api_oom(c->req);
        return -1;
    }
    id_new("job", now, c->job_id);
    id_new("exec", now, c->exec_id);
    return 0;
}

static void on_created(void *arg, const char *err, PGresult *const *res, int n);

static void insert_job(struct job_create *c)
{
    struct app *app = c->req->app;
    const char *region = app->cfg->region;
    const char *run_at = c->run_at[0] ? c->run_at : NULL;
    const char *p1[] = {c->job_id, c->endpoint, c->version, c->endpoint_type, trigger_names[c->trigger],
                        c->idem,   c->input,    run_at,     c->exec_id,       c->max_attempts, region};
    const char *p2[] = {c->job_id, c->endpoint, c->version, c->endpoint_type, c->idem, c->input,
                        c->cron, c->timezone, c->starts_at, c->ends_at[0] ? c->ends_at : NULL,
                        c->next_run_at[0] ? c->next_run_at : NULL, region};
    const char *pk[] = {c->job_id};
    const char *pkey[] = {c->endpoint, c->idem};
    /* The insert, then the job as stored: ours, or the original on an idempotency-key hit. */
    struct db_call calls[3];
    int n = 0;
    if (c->trigger == TRIGGER_CRON)
        calls[n++] = (struct db_call){&q_insert_cron, 12, p2};
    else
        calls[n++] = (struct db_call){&q_insert_oneshot, 11, p1};
    if (c->idem)
        calls[n++] = (struct db_call){&q_by_key, 2, pkey};
    else
        calls[n++] = (struct db_call){&q_by_id, 1, pk};
    if (app->cfg->db_notify && c->trigger != TRIGGER_CRON)
        calls[n++] = (struct db_call){&q_notify, 0, NULL};
    if (db_exec_batch(app->db, calls, n, on_created, c) < 0) {
        http_respond_error(c->req, 503, "SERVICE_UNAVAILABLE",
                           "the database is unavailable; retry later");
        create_free(c);
    }
}

static void on_created(void *arg, const char *err, PGresult *const *res, int n)
{
    struct job_create *c = arg;
    struct app *app = c->req->app;
    struct buf b = BUF_INIT;
    (void)n;
    if (err) {
        PGresult *failed = NULL;
        for (int i = 0; i < n && !failed; i++) {
            if (res[i] && PQresultStatus(res[i]) == PGRES_FATAL_ERROR)
                failed = res[i];
        }
        api_db_failed(c->req, err, failed);
        goto done;
    }
    /* A CRON insert reports its row count in the command tag; one-shots count executions. */
    bool created = c->trigger == TRIGGER_CRON ? strcmp(PQcmdTuples(res[0]), "1") == 0
                                              : strcmp(PQgetvalue(res[0], 0, 0), "1") == 0;
    if (PQntuples(res[1]) == 0) {
        http_respond_error(c->req, 500, "INTERNAL_ERROR", "job vanished after insert");
        goto done;
    }
    if (jobs_put_row(app, &b, res[1], 0) < 0)
        api_oom(c->req);
    else
        http_respond_json(c->req, created ? 201 : 200, &b);
done:
    buf_free(&b);
    create_free(c);
}

static int validate_input(struct job_create *c, const char *schema_text)
{
    char err[300];
    cJSON *schema = NULL, *input = NULL;
    struct jsonschema *js = NULL;
    struct jsonschema_errors errs;
    int rc = -1;
    jsonschema_errors_init(&errs, 20);
    if (json_parse(schema_text, strlen(schema_text), &schema, err, sizeof(err)) < 0 ||
        json_parse(c->input, strlen(c->input), &input, err, sizeof(err)) < 0 ||
        jsonschema_compile(schema, NULL, &js, err, sizeof(err)) < 0) {
        http_respond_error(c->req, 500, "INTERNAL_ERROR", "stored payload spec is unusable: %s",
                           err);
        goto done;
    }
    int v = jsonschema_validate(js, input, &errs);
    if (v == JSONSCHEMA_EINVALID) {
        cJSON *details = jsonschema_errors_to_json(&errs);
        api_respond_error_details(c->req, 422, "INPUT_VALIDATION_FAILED",
                                  "input does not match the endpoint's payload spec", details);
        cJSON_Delete(details);
        goto done;
    }
    if (v < 0) {
        api_oom(c->req);
        goto done;
    }
    rc = 0;
done:
    jsonschema_errors_free(&errs);
    jsonschema_free(js);
    cJSON_Delete(schema);
    cJSON_Delete(input);
    return rc;
}

static int read_max_attempts(const char *retry_json)
{
    cJSON *r = cJSON_Parse(retry_json ? retry_json : "{}");
    const cJSON *m = json_get(r, "max_attempts");
    int n = json_is_int(m) ? (int)m->valuedouble : 1;
    cJSON_Delete(r);
    return n < 1 ? 1 : n;
}

static void on_endpoint(void *arg, const char *err, PGresult *res)
{
    struct job_create *c = arg;
    if (err) {
        api_db_failed(c->req, err, res);
        goto fail;
    }
    if (PQntuples(res) == 0) {
        http_respond_error(c->req, 404, "ENDPOINT_NOT_FOUND", "Endpoint '%s' does not exist.",
                           c->endpoint);
        goto fail;
    }
    snprintf(c->endpoint_type, sizeof(c->endpoint_type), "%s", PQgetvalue(res, 0, 0));
    snprintf(c->version, sizeof(c->version), "%s", PQgetvalue(res, 0, 1));
    snprintf(c->max_attempts, sizeof(c->max_attempts), "%d", read_max_attempts(db_val(res, 0, 2)));
    if (db_val(res, 0, 3) && validate_input(c, db_val(res, 0, 3)) < 0)
        goto fail;
    insert_job(c);
    return;
fail:
    create_free(c);
}

void api_jobs_create(struct http_req *req, const struct route_match *m)
{
    (void)m;
    struct job_create *c = calloc(1, sizeof(*c));
    if (!c) {
        api_oom(req);
        return;
    }
    c->req = req;
    if (parse_create(c) < 0) {
        create_free(c);
        return;
    }
    const char *params[] = {c->endpoint};
    if (api_exec(req, &q_endpoint, 1, params, on_endpoint, c) < 0)
        create_free(c);
}

/* ---------------------------------------------------------------- get / list */

static void on_job(void *arg, const char *err, PGresult *res)
{
    struct http_req *req = arg;
    struct buf b = BUF_INIT;
    if (err)
        api_db_failed(req, err, res);
    else if (PQntuples(res) == 0)
        http_respond_error(req, 404, "JOB_NOT_FOUND", "Job does not exist.");
    else if (jobs_put_row(req->app, &b, res, 0) < 0)
        api_oom(req);
    else
        http_respond_json(req, 200, &b);
    buf_free(&b);
}

void api_jobs_get(struct http_req *req, const struct route_match *m)
{
    const char *params[] = {m->params[0]};
    if (!id_valid("job", m->params[0])) {
        http_respond_error(req, 404, "JOB_NOT_FOUND", "Job with ID '%.80s' does not exist.",
                           m->params[0]);
        return;
    }
    if (api_exec(req, &q_by_id, 1, params, on_job, req) < 0)
        return; /* answered 503 */
}

struct list_ctx {
    struct http_req *req;
    int limit;
};

static void on_list(void *arg, const char *err, PGresult *res)
{
    struct list_ctx *c = arg;
    struct buf b = BUF_INIT;
    int rc = 0, rows = err ? 0 : PQntuples(res);
    if (err) {
        api_db_failed(c->req, err, res);
        goto done;
    }
    rc |= buf_puts(&b, "{\"items\":[");
    for (int i = 0; i < rows && i < c->limit; i++)
        rc |= (i ? buf_putc(&b, ',') : 0) | jobs_put_row(c->req->app, &b, res, i);
    rc |= buf_puts(&b, "],\"cursor\":");
    rc |= rows > c->limit ? api_put_cursor(&b, PQgetvalue(res, c->limit - 1, JC_ID))
                          : buf_puts(&b, "null");
    rc |= buf_putc(&b, '}');
    if (rc)
        api_oom(c->req);
    else
        http_respond_json(c->req, 200, &b);
done:
    buf_free(&b);
    free(c);
}

/* Reads an optional filter; an unknown value answers 400. */
static int list_filter(struct http_req *req, const char *name, char *out, size_t n,
                       const char *const *allowed, bool *present)
{
    int r = http_req_query(req, name, out, n);
    *present = r == 0;
    if (r == -2)
        goto bad;
    if (r < 0 || !allowed)
        return 0;
    for (const char *const *a = allowed; *a; a++) {
        if (strcmp(out, *a) == 0)
            return 0;
    }
bad:
    http_respond_error(req, 400, "INVALID_REQUEST", "query parameter '%s' has an invalid value",
                       name);
    return -1;
}

void api_jobs_list(struct http_req *req, const struct route_match *m)
{
    static const char *const statuses[] = {"ACTIVE", "RETIRED", NULL};
    static const char *const triggers[] = {"IMMEDIATE", "DELAYED", "CRON", NULL};
    struct api_page pg;
    char endpoint[ROUTE_PARAM_MAX], status[16], trigger[16];
    bool has_e, has_s, has_t;
    (void)m;
    if (api_page_read(req, &pg) < 0 ||
        list_filter(req, "endpoint", endpoint, sizeof(endpoint), NULL, &has_e) < 0 ||
        list_filter(req, "status", status, sizeof(status), statuses, &has_s) < 0 ||
        list_filter(req, "trigger", trigger, sizeof(trigger), triggers, &has_t) < 0)
        return;
    struct list_ctx *c = calloc(1, sizeof(*c));
    if (!c) {
        api_oom(req);
        return;
    }
    c->req = req;
    c->limit = pg.limit;
    const char *params[] = {pg.has_after ? pg.after : NULL, has_e ? endpoint : NULL,
                            has_s ? status : NULL, has_t ? trigger : NULL, pg.limit_plus_one};
    if (api_exec(req, &q_list, 5, params, on_list, c) < 0)
        free(c);
}
