/* /endpoints: registered delivery targets (HTTP, KAFKA, REDIS_STREAM). */
#include "api/api.h"
#include "api/resource.h"
#include "domain/endpoint.h"

#include <stdlib.h>
#include <string.h>

#define COLS                                                                                       \
    "name, endpoint_type, payload_spec_ref, config_ref, spec, retry_policy, " SQL_MS(              \
        "created_at") ", " SQL_MS("updated_at") ", version"

static struct db_stmt q_get = DB_STMT("SELECT " COLS " FROM endpoints WHERE name = $1");
static struct db_stmt q_list = DB_STMT("SELECT " COLS " FROM endpoints "
                                       "WHERE $1::TEXT IS NULL OR name > $1 "
                                       "ORDER BY name LIMIT $2::INT8");
/*
 * Writes the endpoint and records the new version in the same statement. A name
 * re-created after a delete continues its version numbers, so versions stay unique.
 */
static struct db_stmt q_insert = DB_STMT(
    "WITH e AS (INSERT INTO endpoints (name, endpoint_type, payload_spec_ref, config_ref, spec,"
    "   retry_policy, secret_refs, version)"
    "   VALUES ($1, $2, $3, $4, $5::JSONB, $6::JSONB, $7::TEXT[],"
    "     COALESCE((SELECT max(version) FROM endpoint_versions WHERE endpoint = $1), 0) + 1)"
    "   RETURNING *),"
    " v AS (INSERT INTO endpoint_versions (endpoint, version, endpoint_type, payload_spec_ref,"
    "   config_ref, spec, retry_policy, created_at)"
    "   SELECT name, version, endpoint_type, payload_spec_ref, config_ref, spec, retry_policy,"
    "   updated_at FROM e)"
    " SELECT " COLS " FROM e");
static struct db_stmt q_update = DB_STMT(
    "WITH e AS (UPDATE endpoints SET endpoint_type = $2, payload_spec_ref = $3, config_ref = $4,"
    "   spec = $5::JSONB, retry_policy = $6::JSONB, secret_refs = $7::TEXT[],"
    "   version = version + 1, updated_at = now() WHERE name = $1 RETURNING *),"
    " v AS (INSERT INTO endpoint_versions (endpoint, version, endpoint_type, payload_spec_ref,"
    "   config_ref, spec, retry_policy, created_at)"
    "   SELECT name, version, endpoint_type, payload_spec_ref, config_ref, spec, retry_policy,"
    "   updated_at FROM e)"
    " SELECT " COLS " FROM e");
/*
 * An endpoint is in use while an ACTIVE cron job fires it or a one-shot job
 * still has an unfinished execution.
 */
static struct db_stmt q_delete =
    DB_STMT("WITH refs AS (SELECT j.job_id AS name FROM jobs j WHERE j.endpoint = $1"
            "   AND j.status = 'ACTIVE' AND (j.trigger_type = 'CRON' OR EXISTS ("
            "     SELECT 1 FROM executions e WHERE e.job_id = j.job_id"
            "     AND e.status IN ('PENDING', 'QUEUED', 'RUNNING', 'RETRYING')))"
            "   ORDER BY j.job_id LIMIT 5),"
            " del AS (DELETE FROM endpoints WHERE name = $1 AND NOT EXISTS (SELECT 1 FROM refs)"
            "         RETURNING name)"
            " SELECT (SELECT count(*) FROM del), (SELECT string_agg(name, ', ') FROM refs)");

static int put_row(struct buf *b, const PGresult *res, int row)
{
    return buf_putc(b, '{') | api_put_str(b, "name", db_val(res, row, 0)) |
           api_put_str(b, "type", db_val(res, row, 1)) |
           api_put_str(b, "payload_spec", db_val(res, row, 2)) |
           api_put_str(b, "config", db_val(res, row, 3)) |
           api_put_raw(b, "spec", db_val(res, row, 4)) |
           api_put_raw(b, "retry_policy", db_val(res, row, 5)) |
           api_put_raw(b, "version", db_val(res, row, 8)) |
           api_put_time(b, "created_at", db_val(res, row, 6)) |
           api_put_time(b, "updated_at", db_val(res, row, 7)) | buf_putc(b, '}');
}

/* A reference to a payload spec or config that does not exist (or vanished meanwhile). */
static void on_fk(struct http_req *req, const PGresult *res)
{
    const char *c = PQresultErrorField(res, PG_DIAG_CONSTRAINT_NAME);
    if (c && strcmp(c, "fk_endpoints_payload_spec") == 0)
        http_respond_error(req, 422, "INVALID_PAYLOAD_SPEC_REF",
                           "field 'payload_spec' names a payload spec that does not exist");
    else
        http_respond_error(req, 422, "INVALID_CONFIG_REF",
                           "field 'config' names a config that does not exist");
}

static const struct resource endpoints = {
    .title = "Endpoint",
    .not_found = "ENDPOINT_NOT_FOUND",
    .get = &q_get,
    .list = &q_list,
    .del = &q_delete,
    .dependents = "active jobs",
    .put_row = put_row,
    .on_fk = on_fk,
};

/* The validated, normalized definition ready to be bound as statement parameters. */
struct endpoint_def {
    const char *name;
    const char *type;
    const char *payload_spec;
    const char *config;
    char *spec;
    char *retry;
    struct buf secret_refs;
};

static int check_ref(struct http_req *req, const cJSON *body, const char *field, const char **out)
{
    const cJSON *v = json_get(body, field);
    *out = v ? v->valuestring : NULL;
    if (v && !resource_name_valid(v->valuestring, strlen(v->valuestring))) {
        http_respond_error(req, 400, "INVALID_REQUEST", "field '%s' is not a valid name", field);
        return -1;
    }
    return 0;
}

static int respond_normalize_error(struct http_req *req, int rc, const char *err)
{
    if (rc == ENDPOINT_EUNSUPPORTED)
        http_respond_error(req, 422, "INVALID_ENDPOINT_SPEC", "%s", err);
    else
        http_respond_error(req, 400, "INVALID_REQUEST", "%s", err);
    return -1;
}

static int read_definition(struct http_req *req, const cJSON *body, struct endpoint_def *d)
{
    char err[300];
    enum endpoint_type type;
    cJSON *spec = NULL, *retry = NULL;
    int rc = -1;
    d->type = cJSON_GetObjectItemCaseSensitive(body, "type")->valuestring;
    if (endpoint_type_parse(d->type, &type) < 0) {
        http_respond_error(req, 400, "INVALID_REQUEST",
                           "field 'type' must be HTTP, KAFKA or REDIS_STREAM");
        return -1;
    }
    if (check_ref(req, body, "payload_spec", &d->payload_spec) < 0 ||
        check_ref(req, body, "config", &d->config) < 0)
        return -1;
    int nrc = endpoint_spec_normalize(type, json_get(body, "spec"), &spec, err, sizeof(err));
    if (nrc == 0)
        nrc = endpoint_retry_normalize(json_get(body, "retry_policy"), &retry, err, sizeof(err));
    if (nrc == 0)
        nrc = endpoint_secret_refs(spec, &d->secret_refs, err, sizeof(err));
    if (nrc != 0) {
        respond_normalize_error(req, nrc, err);
        goto done;
    }
    d->spec = cJSON_PrintUnformatted(spec);
    d->retry = cJSON_PrintUnformatted(retry);
    if (!d->spec || !d->retry) {
        api_oom(req);
        goto done;
    }
    rc = 0;
done:
    cJSON_Delete(spec);
    cJSON_Delete(retry);
    return rc;
}

static void write_endpoint(struct http_req *req, const char *path_name)
{
    static const struct json_field fields[] = {
        {"name", JT_STRING, false},   {"type", JT_STRING, true}, {"payload_spec", JT_STRING, false},
        {"config", JT_STRING, false}, {"spec", JT_OBJECT, true}, {"retry_policy", JT_OBJECT, false},
    };
    cJSON *body = NULL;
    struct endpoint_def d = {.secret_refs = BUF_INIT};
    if (api_body_object(req, &body) < 0)
        return;
    if (api_check_fields(req, body, fields, TE_ARRAY_LEN(fields)) < 0)
        goto done;
    if (!(d.name = resource_body_name(req, body, path_name)) || api_check_name(req, d.name) < 0 ||
        read_definition(req, body, &d) < 0)
        goto done;
    const char *params[] = {d.name, d.type,  d.payload_spec,    d.config,
                            d.spec, d.retry, d.secret_refs.data};
    resource_write(req, &endpoints, path_name ? &q_update : &q_insert, 7, params, d.name,
                   path_name ? 200 : 201);
done:
    free(d.spec);
    free(d.retry);
    buf_free(&d.secret_refs);
    cJSON_Delete(body);
}

void api_endpoints_create(struct http_req *req, const struct route_match *m)
{
    (void)m;
    write_endpoint(req, NULL);
}

void api_endpoints_update(struct http_req *req, const struct route_match *m)
{
    write_endpoint(req, m->params[0]);
}

void api_endpoints_list(struct http_req *req, const struct route_match *m)
{
    (void)m;
    resource_list(req, &endpoints);
}

void api_endpoints_get(struct http_req *req, const struct route_match *m)
{
    resource_get(req, &endpoints, m->params[0]);
}

void api_endpoints_delete(struct http_req *req, const struct route_match *m)
{
    resource_delete(req, &endpoints, m->params[0]);
}
