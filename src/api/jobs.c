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
#include "domain/health.h"
#include "domain/jsonschema.h"
#include "domain/tz.h"
#include "scheduler/scheduler.h"
#include "worker/worker.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IDEMPOTENCY_KEY_MAX 255

enum trigger { TRIGGER_IMMEDIATE, TRIGGER_DELAYED, TRIGGER_CRON };
static const char *const trigger_names[] = {"IMMEDIATE", "DELAYED", "CRON"};

/* SQL text and column tables below are laid out by hand. */
/* clang-format off */
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
/* clang-format on */

/* The failed statement's result of a batch, for api_db_failed. */
static const PGresult *batch_error(PGresult *const *res, int n)
{
    for (int i = 0; i < n; i++) {
        if (res[i] && PQresultStatus(res[i]) == PGRES_FATAL_ERROR)
            return res[i];
    }
    return NULL;
}

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
        rc |= api_put_time(b, "run_at", db_val(res, row, JC_RUN_AT)) | put_execution(b, res, row);
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
    char old_id[ID_MAX];                /* PUT: the version being replaced */
    char endpoint_buf[ROUTE_PARAM_MAX]; /* PUT: c->endpoint points here */
};

static void create_free(struct job_create *c)
{
    cJSON_Delete(c->body);
    free(c->input);
    free(c);
}

static int parse_time_field(struct http_req *req, const cJSON *body, const char *field, int64_t *ms,
                            bool *present)
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

/*
 * Parses cron + timezone and computes the first fire time at or after starts_at
 * (at or after max(now, starts_at) when not_before_now: a new version must not
 * catch up on ticks its predecessor already owned).
 */
static int prepare_cron(struct job_create *c, int64_t now_ms, bool not_before_now)
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
        http_respond_error(c->req, 400, "INVALID_REQUEST",
                           "field 'ends_at' must be after starts_at");
        return -1;
    }
    int64_t from = not_before_now && starts < now_ms ? now_ms : starts;
    /* cron_next is strictly after; one second before the (rounded-up) start includes it. */
    int64_t start_s = from >= 0 ? (from + 999) / 1000 : -((-from) / 1000);
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

/* The body's input as compact JSON text ({} when absent). */
static int set_input(struct job_create *c)
{
    const cJSON *input = json_get(c->body, "input");
    free(c->input);
    c->input = input ? cJSON_PrintUnformatted(input) : strdup("{}");
    if (!c->input) {
        api_oom(c->req);
        return -1;
    }
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
    c->idem = json_get(c->body, "idempotency_key")
                  ? json_get(c->body, "idempotency_key")->valuestring
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
    if (c->trigger == TRIGGER_CRON && prepare_cron(c, now, false) < 0)
        return -1;
    if (set_input(c) < 0)
        return -1;
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
    const char *p1[] = {
        c->job_id, c->endpoint, c->version, c->endpoint_type, trigger_names[c->trigger],
        c->idem,   c->input,    run_at,     c->exec_id,       c->max_attempts,
        region};
    const char *p2[] = {c->job_id,
                        c->endpoint,
                        c->version,
                        c->endpoint_type,
                        c->idem,
                        c->input,
                        c->cron,
                        c->timezone,
                        c->starts_at,
                        c->ends_at[0] ? c->ends_at : NULL,
                        c->next_run_at[0] ? c->next_run_at : NULL,
                        region};
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

/*
 * Work created here is picked up by this process at once (other processes hear
 * the NOTIFY): a one-shot due now wakes the worker, a DELAYED one shortens the
 * promoter's timer to its run_at.
 */
static void wake_engine(struct app *app, const struct job_create *c)
{
    int64_t run_at;
    if (c->trigger == TRIGGER_CRON)
        return;
    if (c->run_at[0] && time_parse_rfc3339(c->run_at, &run_at) == 0 && run_at > time_now_ms()) {
        if (app->sched && *app->sched)
            scheduler_note_pending(*app->sched, run_at);
        return;
    }
    if (app->worker && *app->worker)
        worker_poke(*app->worker);
}

static void on_created(void *arg, const char *err, PGresult *const *res, int n)
{
    struct job_create *c = arg;
    struct app *app = c->req->app;
    struct buf b = BUF_INIT;
    (void)n;
    if (err) {
        api_db_failed(c->req, err, batch_error(res, n));
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
    if (created)
        wake_engine(app, c);
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

static int put_job_row(void *arg, struct buf *b, const PGresult *res, int row)
{
    return jobs_put_row(arg, b, res, row);
}

static void on_list(void *arg, const char *err, PGresult *res)
{
    struct list_ctx *c = arg;
    if (err)
        api_db_failed(c->req, err, res);
    else
        api_respond_page(c->req, res, c->limit, JC_ID, put_job_row, c->req->app);
    free(c);
}

int jobs_query_filter(struct http_req *req, const char *name, char *out, size_t n,
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
        jobs_query_filter(req, "endpoint", endpoint, sizeof(endpoint), NULL, &has_e) < 0 ||
        jobs_query_filter(req, "status", status, sizeof(status), statuses, &has_s) < 0 ||
        jobs_query_filter(req, "trigger", trigger, sizeof(trigger), triggers, &has_t) < 0)
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

/* ---------------------------------------------------------------- update (PUT) */

/* clang-format off */
/* The version being replaced and its endpoint's current version + payload spec. */
static struct db_stmt q_put_source = DB_STMT(
    "SELECT j.trigger_type, j.status, j.endpoint, j.input::TEXT, j.cron_expression,"
    " j.cron_timezone, " SQL_MS("j.cron_starts_at") ", " SQL_MS("j.cron_ends_at") ","
    " e.endpoint_type, e.version, p.schema_json"
    " FROM jobs j LEFT JOIN endpoints e ON e.name = j.endpoint"
    " LEFT JOIN payload_specs p ON p.name = e.payload_spec_ref WHERE j.job_id = $1");
enum { PS_TRIGGER, PS_STATUS, PS_ENDPOINT, PS_INPUT, PS_CRON, PS_TZ, PS_STARTS, PS_ENDS,
       PS_EP_TYPE, PS_EP_VERSION, PS_SCHEMA };
/* clang-format on */

/*
 * Retires the old version, then inserts the new one from it: two statements of
 * one batch, so one transaction (CockroachDB refuses an UPDATE and an INSERT of
 * the same table in one statement). The WHERE status = 'ACTIVE' makes two
 * concurrent PUTs of one version serialize on the row: the second finds it
 * RETIRED, retires nothing, and its INSERT (which needs replaced_by_id = its
 * own new id) inserts nothing → 409.
 * q_retire: $1 new job_id $2 old job_id
 * q_insert_version: the same, $3 endpoint_version $4 endpoint_type $5 input $6 cron
 * $7 timezone $8 starts_at $9 ends_at $10 next_run_at
 */
/* clang-format off */
static struct db_stmt q_retire = DB_STMT(
    "UPDATE jobs SET status = 'RETIRED', retired_at = now(), replaced_by_id = $1"
    " WHERE job_id = $2 AND status = 'ACTIVE' AND trigger_type = 'CRON'");
static struct db_stmt q_insert_version = DB_STMT(
    "INSERT INTO jobs (job_id, crdb_region, endpoint, endpoint_version, endpoint_type,"
    "   trigger_type, version, previous_version_id, input, cron_expression, cron_timezone,"
    "   cron_starts_at, cron_ends_at, cron_next_run_at)"
    " SELECT $1, o.crdb_region, o.endpoint, $3::INT, $4, 'CRON', o.version + 1, o.job_id,"
    "   $5::JSONB, $6, $7, $8::TIMESTAMPTZ, $9::TIMESTAMPTZ, $10::TIMESTAMPTZ"
    " FROM jobs o WHERE o.job_id = $2 AND o.replaced_by_id = $1");
/* clang-format on */

static void not_updatable(struct http_req *req, const char *id, const char *why)
{
    http_respond_error(req, 409, "JOB_NOT_UPDATABLE", "Job '%s' cannot be updated: %s", id, why);
}

/*
 * Adds `field` from the old version unless the body has it (a JSON null counts
 * as given). `old` is the old value as JSON, NULL when the old one was NULL or
 * when building it ran out of memory (had_value tells which). Returns 0 or -1.
 */
static int merge_field(cJSON *body, const char *field, cJSON *old, bool had_value)
{
    if (cJSON_GetObjectItemCaseSensitive(body, field)) {
        cJSON_Delete(old);
        return 0;
    }
    if (!old)
        return had_value ? -1 : 0;
    if (cJSON_AddItemToObject(body, field, old))
        return 0;
    cJSON_Delete(old);
    return -1;
}

static cJSON *time_item(const char *ms)
{
    char out[TIME_RFC3339_LEN];
    if (!ms)
        return NULL;
    time_format_ms(strtoll(ms, NULL, 10), out);
    return cJSON_CreateString(out);
}

/* Completes the PUT body with the old version's values, so that create's checks apply. */
static int merge_old(struct job_create *c, const PGresult *res)
{
    const char *in = db_val(res, 0, PS_INPUT), *starts = db_val(res, 0, PS_STARTS);
    const char *ends = db_val(res, 0, PS_ENDS);
    int rc = merge_field(c->body, "cron", cJSON_CreateString(PQgetvalue(res, 0, PS_CRON)), true);
    rc |= merge_field(c->body, "timezone", cJSON_CreateString(PQgetvalue(res, 0, PS_TZ)), true);
    rc |= merge_field(c->body, "input", in ? cJSON_Parse(in) : NULL, in != NULL);
    rc |= merge_field(c->body, "starts_at", time_item(starts), starts != NULL);
    rc |= merge_field(c->body, "ends_at", time_item(ends), ends != NULL);
    return rc ? -1 : 0;
}

static void on_replaced(void *arg, const char *err, PGresult *const *res, int n)
{
    struct job_create *c = arg;
    struct buf b = BUF_INIT;
    if (err) {
        api_db_failed(c->req, err, batch_error(res, n));
    } else if (strcmp(PQcmdTuples(res[1]), "1") != 0 || PQntuples(res[2]) == 0) {
        not_updatable(c->req, c->old_id, "it was already replaced by a newer version or retired");
    } else if (jobs_put_row(c->req->app, &b, res[2], 0) < 0) {
        api_oom(c->req);
    } else {
        http_respond_json(c->req, 200, &b);
    }
    buf_free(&b);
    create_free(c);
}

/* Checks the old version; answers and returns -1 when it cannot be replaced. */
static int check_replaceable(struct job_create *c, const PGresult *res)
{
    if (PQntuples(res) == 0) {
        http_respond_error(c->req, 404, "JOB_NOT_FOUND", "Job with ID '%s' does not exist.",
                           c->old_id);
        return -1;
    }
    if (strcmp(PQgetvalue(res, 0, PS_TRIGGER), "CRON") != 0) {
        not_updatable(c->req, c->old_id, "only CRON jobs can be updated (this is a one-shot job)");
        return -1;
    }
    if (strcmp(PQgetvalue(res, 0, PS_STATUS), "ACTIVE") != 0) {
        not_updatable(c->req, c->old_id,
                      "it is RETIRED (cancelled or replaced by a newer version); update the "
                      "current version instead");
        return -1;
    }
    if (PQgetisnull(res, 0, PS_EP_TYPE)) {
        not_updatable(c->req, c->old_id, "its endpoint no longer exists");
        return -1;
    }
    return 0;
}

static void on_put_source(void *arg, const char *err, PGresult *res)
{
    struct job_create *c = arg;
    struct app *app = c->req->app;
    if (err) {
        api_db_failed(c->req, err, res);
        goto fail;
    }
    if (check_replaceable(c, res) < 0)
        goto fail;
    snprintf(c->endpoint_buf, sizeof(c->endpoint_buf), "%s", PQgetvalue(res, 0, PS_ENDPOINT));
    c->endpoint = c->endpoint_buf;
    snprintf(c->endpoint_type, sizeof(c->endpoint_type), "%s", PQgetvalue(res, 0, PS_EP_TYPE));
    snprintf(c->version, sizeof(c->version), "%s", PQgetvalue(res, 0, PS_EP_VERSION));
    if (merge_old(c, res) < 0) {
        api_oom(c->req);
        goto fail;
    }
    int64_t now = time_now_ms();
    if (prepare_cron(c, now, true) < 0 || set_input(c) < 0)
        goto fail;
    if (db_val(res, 0, PS_SCHEMA) && validate_input(c, db_val(res, 0, PS_SCHEMA)) < 0)
        goto fail;
    id_new("job", now, c->job_id);
    const char *p[] = {c->job_id,
                       c->old_id,
                       c->version,
                       c->endpoint_type,
                       c->input,
                       c->cron,
                       c->timezone,
                       c->starts_at,
                       c->ends_at[0] ? c->ends_at : NULL,
                       c->next_run_at[0] ? c->next_run_at : NULL};
    const char *pk[] = {c->job_id};
    const struct db_call calls[] = {
        {&q_retire, 2, p}, {&q_insert_version, 10, p}, {&q_by_id, 1, pk}};
    if (db_exec_batch(app->db, calls, 3, on_replaced, c) < 0) {
        http_respond_error(c->req, 503, "SERVICE_UNAVAILABLE",
                           "the database is unavailable; retry later");
        goto fail;
    }
    return;
fail:
    create_free(c);
}

static void job_not_found(struct http_req *req, const char *id)
{
    http_respond_error(req, 404, "JOB_NOT_FOUND", "Job with ID '%.80s' does not exist.", id);
}

void api_jobs_update(struct http_req *req, const struct route_match *m)
{
    static const struct json_field fields[] = {
        {"cron", JT_STRING, false},
        {"timezone", JT_STRING, false},
        {"input", JT_OBJECT, false},
        {"starts_at", JT_STRING, false},
        {"ends_at", JT_STRING | JT_NULL, false},
    };
    if (!id_valid("job", m->params[0])) {
        job_not_found(req, m->params[0]);
        return;
    }
    struct job_create *c = calloc(1, sizeof(*c));
    if (!c) {
        api_oom(req);
        return;
    }
    c->req = req;
    c->trigger = TRIGGER_CRON;
    snprintf(c->old_id, sizeof(c->old_id), "%.47s", m->params[0]);
    if (api_body_object(req, &c->body) < 0 ||
        api_check_fields(req, c->body, fields, TE_ARRAY_LEN(fields)) < 0) {
        create_free(c);
        return;
    }
    const char *params[] = {c->old_id};
    if (api_exec(req, &q_put_source, 1, params, on_put_source, c) < 0)
        create_free(c);
}

/* ---------------------------------------------------------------- cancel */

/*
 * One statement for both kinds. CRON: the job is RETIRED; its executions that
 * have not started (PENDING, QUEUED) are CANCELLED, RUNNING and RETRYING ones run
 * to completion. One-shot: its execution is CANCELLED if PENDING, QUEUED or
 * RETRYING, and only then is the job RETIRED. The status checks sit in the
 * UPDATEs' WHERE, so a worker claiming the execution meanwhile wins cleanly.
 * Returns the number of executions cancelled.
 */
/* clang-format off */
static struct db_stmt q_cancel_job = DB_STMT(
    "WITH t AS (SELECT trigger_type FROM jobs WHERE job_id = $1),"
    " x AS (UPDATE executions SET status = 'CANCELLED', completed_at = now()"
    "   WHERE job_id = $1 AND (status IN ('PENDING', 'QUEUED')"
    "     OR (status = 'RETRYING' AND (SELECT trigger_type FROM t) <> 'CRON'))"
    "   RETURNING execution_id),"
    " j AS (UPDATE jobs SET status = 'RETIRED', retired_at = now()"
    "   WHERE job_id = $1 AND status = 'ACTIVE'"
    "     AND (trigger_type = 'CRON' OR EXISTS (SELECT 1 FROM x)) RETURNING job_id)"
    " SELECT (SELECT count(*) FROM x), (SELECT count(*) FROM j)");
/* clang-format on */

static void on_cancelled(void *arg, const char *err, PGresult *const *res, int n)
{
    struct http_req *req = arg;
    struct buf b = BUF_INIT;
    if (err) {
        api_db_failed(req, err, batch_error(res, n));
        goto done;
    }
    if (PQntuples(res[1]) == 0) {
        http_respond_error(req, 404, "JOB_NOT_FOUND", "Job does not exist.");
        goto done;
    }
    bool cron = strcmp(PQgetvalue(res[1], 0, JC_TRIGGER), "CRON") == 0;
    if (!cron && strcmp(PQgetvalue(res[0], 0, 0), "0") == 0) {
        const char *st = db_val(res[1], 0, JC_EXEC_STATUS);
        http_respond_error(req, 409, "EXECUTION_NOT_CANCELLABLE",
                           "the job's execution is %s; only PENDING, QUEUED or RETRYING "
                           "executions can be cancelled",
                           st ? st : "missing");
        goto done;
    }
    if (jobs_put_row(req->app, &b, res[1], 0) < 0)
        api_oom(req);
    else
        http_respond_json(req, 200, &b);
done:
    buf_free(&b);
}

void api_jobs_cancel(struct http_req *req, const struct route_match *m)
{
    struct app *app = req->app;
    const char *params[] = {m->params[0]};
    if (!id_valid("job", m->params[0])) {
        job_not_found(req, m->params[0]);
        return;
    }
    const struct db_call calls[] = {{&q_cancel_job, 1, params}, {&q_by_id, 1, params}};
    if (db_exec_batch(app->db, calls, 2, on_cancelled, req) < 0)
        http_respond_error(req, 503, "SERVICE_UNAVAILABLE",
                           "the database is unavailable; retry later");
}

/* ---------------------------------------------------------------- status */

/*
 * Everything in one statement. last_execution: the newest execution that has
 * left the queue (not PENDING/QUEUED). stats: executions created in the last
 * 24 h. streak: statuses of the last HEALTH_STREAK finished executions, newest
 * first, for health_classify.
 */
/* clang-format off */
static struct db_stmt q_status = DB_STMT(
    "SELECT j.job_id, j.endpoint, j.endpoint_type, j.trigger_type, j.version,"
    " j.cron_expression, j.cron_timezone, " SQL_MS("j.cron_next_run_at") ","
    " " SQL_MS("j.cron_last_tick_at") ","
    " le.execution_id, le.status, " SQL_MS("le.started_at") ", " SQL_MS("le.completed_at") ","
    " le.attempt_count,"
    " (SELECT count(*) FROM executions WHERE job_id = j.job_id"
    "   AND status IN ('PENDING', 'QUEUED', 'RETRYING')),"
    " (SELECT count(*) FROM executions WHERE job_id = j.job_id AND status = 'RUNNING'),"
    " s.total, s.succeeded, s.failed, s.avg_ms, s.p99_ms,"
    " (SELECT string_agg(f.status, ',' ORDER BY f.completed_at DESC, f.execution_id DESC)"
    "   FROM (SELECT status, completed_at, execution_id FROM executions WHERE job_id = j.job_id"
    "     AND status IN ('SUCCESS', 'FAILED')"
    "     ORDER BY completed_at DESC NULLS LAST, execution_id DESC LIMIT 3) f)"
    " FROM jobs j"
    " LEFT JOIN LATERAL (SELECT execution_id, status, started_at, completed_at, attempt_count"
    "   FROM executions WHERE job_id = j.job_id AND status NOT IN ('PENDING', 'QUEUED')"
    "   ORDER BY created_at DESC, execution_id DESC LIMIT 1) le ON true"
    " LEFT JOIN LATERAL (SELECT count(*) AS total,"
    "   count(*) FILTER (WHERE status = 'SUCCESS') AS succeeded,"
    "   count(*) FILTER (WHERE status = 'FAILED') AS failed,"
    "   round(avg(duration_ms))::INT8 AS avg_ms,"
    "   percentile_disc(0.99) WITHIN GROUP (ORDER BY duration_ms) AS p99_ms"
    "   FROM executions WHERE job_id = j.job_id AND created_at > now() - INTERVAL '24 hours') s"
    "   ON true"
    " WHERE j.job_id = $1");
enum { ST_ID, ST_ENDPOINT, ST_EP_TYPE, ST_TRIGGER, ST_VERSION, ST_CRON, ST_TZ, ST_NEXT, ST_TICK,
       ST_LE_ID, ST_LE_STATUS, ST_LE_STARTED, ST_LE_COMPLETED, ST_LE_ATTEMPTS, ST_PENDING,
       ST_RUNNING, ST_TOTAL, ST_OK, ST_FAILED, ST_AVG, ST_P99, ST_STREAK };
/* clang-format on */

static int64_t col_int(const PGresult *res, int col)
{
    const char *v = db_val(res, 0, col);
    return v ? strtoll(v, NULL, 10) : 0;
}

/* Leading FAILED entries of "FAILED,FAILED,SUCCESS" (newest first). */
static int64_t failure_streak(const char *list)
{
    int64_t n = 0;
    while (list && strncmp(list, "FAILED", 6) == 0) {
        n++;
        list = strchr(list, ',');
        list = list ? list + 1 : NULL;
    }
    return n;
}

static int put_status_blocks(struct app *app, struct buf *b, const PGresult *res)
{
    char num[32];
    int64_t pending = col_int(res, ST_PENDING), running = col_int(res, ST_RUNNING);
    int rc = api_put_key(b, "last_execution");
    if (PQgetisnull(res, 0, ST_LE_ID)) {
        rc |= buf_puts(b, "null");
    } else {
        rc |= buf_putc(b, '{') | api_put_str(b, "execution_id", db_val(res, 0, ST_LE_ID)) |
              api_put_str(b, "status", db_val(res, 0, ST_LE_STATUS)) |
              api_put_time(b, "started_at", db_val(res, 0, ST_LE_STARTED)) |
              api_put_time(b, "completed_at", db_val(res, 0, ST_LE_COMPLETED)) |
              api_put_raw(b, "attempt_number", db_val(res, 0, ST_LE_ATTEMPTS)) | buf_putc(b, '}');
    }
    snprintf(num, sizeof(num), "%lld", (long long)(pending + running));
    rc |= api_put_key(b, "active_executions") | buf_putc(b, '{') |
          api_put_raw(b, "pending", db_val(res, 0, ST_PENDING)) |
          api_put_raw(b, "running", db_val(res, 0, ST_RUNNING)) | api_put_raw(b, "total", num) |
          buf_putc(b, '}') | api_put_key(b, "cron");
    if (strcmp(PQgetvalue(res, 0, ST_TRIGGER), "CRON") != 0) {
        rc |= buf_puts(b, "null");
    } else {
        const char *zone = db_val(res, 0, ST_TZ);
        rc |= buf_putc(b, '{') | api_put_str(b, "expression", db_val(res, 0, ST_CRON)) |
              api_put_str(b, "timezone", zone) |
              put_zoned_time(app, b, "next_run_at", db_val(res, 0, ST_NEXT), zone) |
              put_zoned_time(app, b, "last_tick_at", db_val(res, 0, ST_TICK), zone) |
              buf_putc(b, '}');
    }
    rc |= api_put_key(b, "stats") | buf_puts(b, "{\"last_24h\":{") |
          api_put_raw(b, "total", db_val(res, 0, ST_TOTAL)) |
          api_put_raw(b, "succeeded", db_val(res, 0, ST_OK)) |
          api_put_raw(b, "failed", db_val(res, 0, ST_FAILED)) |
          api_put_raw(b, "avg_duration_ms", db_val(res, 0, ST_AVG)) |
          api_put_raw(b, "p99_duration_ms", db_val(res, 0, ST_P99)) | buf_puts(b, "}}");
    return rc;
}

static void on_status(void *arg, const char *err, PGresult *res)
{
    struct http_req *req = arg;
    struct buf b = BUF_INIT;
    if (err) {
        api_db_failed(req, err, res);
        goto done;
    }
    if (PQntuples(res) == 0) {
        http_respond_error(req, 404, "JOB_NOT_FOUND", "Job does not exist.");
        goto done;
    }
    struct health_stats hs = {col_int(res, ST_OK), col_int(res, ST_FAILED),
                              failure_streak(db_val(res, 0, ST_STREAK))};
    int rc = buf_putc(&b, '{') | api_put_str(&b, "job_id", db_val(res, 0, ST_ID)) |
             api_put_str(&b, "endpoint", db_val(res, 0, ST_ENDPOINT)) |
             api_put_str(&b, "endpoint_type", db_val(res, 0, ST_EP_TYPE)) |
             api_put_str(&b, "trigger", db_val(res, 0, ST_TRIGGER)) |
             api_put_str(&b, "health", health_name(health_classify(&hs))) |
             api_put_raw(&b, "version", db_val(res, 0, ST_VERSION)) |
             put_status_blocks(req->app, &b, res) | buf_putc(&b, '}');
    if (rc)
        api_oom(req);
    else
        http_respond_json(req, 200, &b);
done:
    buf_free(&b);
}

void api_jobs_status(struct http_req *req, const struct route_match *m)
{
    const char *params[] = {m->params[0]};
    if (!id_valid("job", m->params[0])) {
        job_not_found(req, m->params[0]);
        return;
    }
    if (api_exec(req, &q_status, 1, params, on_status, req) < 0)
        return; /* answered 503 */
}

/* ---------------------------------------------------------------- versions */

/*
 * The whole chain from any member: walk back along previous_version_id and
 * forward along replaced_by_id (UNION stops on a cycle), newest version first,
 * keyset on version. The first statement of the batch tells 404 from an empty page.
 */
static struct db_stmt q_job_exists = DB_STMT("SELECT 1 FROM jobs WHERE job_id = $1");
/* clang-format off */
static struct db_stmt q_versions = DB_STMT(
    "WITH RECURSIVE back (id, prev) AS ("
    "   SELECT job_id, previous_version_id FROM jobs WHERE job_id = $1"
    "   UNION SELECT p.job_id, p.previous_version_id FROM jobs p JOIN back ON p.job_id = back.prev),"
    " fwd (id, next) AS ("
    "   SELECT job_id, replaced_by_id FROM jobs WHERE job_id = $1"
    "   UNION SELECT s.job_id, s.replaced_by_id FROM jobs s JOIN fwd ON s.job_id = fwd.next)"
    " SELECT " JOB_COLS JOB_FROM
    " WHERE j.job_id IN (SELECT id FROM back UNION SELECT id FROM fwd)"
    "   AND ($2::INT8 IS NULL OR j.version < $2::INT8)"
    " ORDER BY j.version DESC, j.job_id DESC LIMIT $3::INT8");
/* clang-format on */

/* True when s is a non-negative decimal integer that fits a cursor key. */
static bool digits_only(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 9)
        return false;
    return strspn(s, "0123456789") == n;
}

static void on_versions(void *arg, const char *err, PGresult *const *res, int n)
{
    struct list_ctx *c = arg;
    if (err)
        api_db_failed(c->req, err, batch_error(res, n));
    else if (PQntuples(res[0]) == 0)
        http_respond_error(c->req, 404, "JOB_NOT_FOUND", "Job does not exist.");
    else
        api_respond_page(c->req, res[1], c->limit, JC_VERSION, put_job_row, c->req->app);
    free(c);
}

void api_jobs_versions(struct http_req *req, const struct route_match *m)
{
    struct app *app = req->app;
    struct api_page pg;
    if (!id_valid("job", m->params[0])) {
        job_not_found(req, m->params[0]);
        return;
    }
    if (api_page_read(req, &pg) < 0)
        return;
    if (pg.has_after && !digits_only(pg.after)) {
        http_respond_error(req, 400, "INVALID_REQUEST",
                           "query parameter 'cursor' is not a cursor this API returned");
        return;
    }
    struct list_ctx *c = calloc(1, sizeof(*c));
    if (!c) {
        api_oom(req);
        return;
    }
    c->req = req;
    c->limit = pg.limit;
    const char *p1[] = {m->params[0]};
    const char *p2[] = {m->params[0], pg.has_after ? pg.after : NULL, pg.limit_plus_one};
    const struct db_call calls[] = {{&q_job_exists, 1, p1}, {&q_versions, 3, p2}};
    if (db_exec_batch(app->db, calls, 2, on_versions, c) < 0) {
        http_respond_error(req, 503, "SERVICE_UNAVAILABLE",
                           "the database is unavailable; retry later");
        free(c);
    }
}
