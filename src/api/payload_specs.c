/* /payload-specs: JSON Schemas that job inputs are validated against. */
#include "api/api.h"
#include "api/resource.h"
#include "domain/jsonschema.h"

#define COLS "name, schema_json, " SQL_MS("created_at") ", " SQL_MS("updated_at")

static struct db_stmt q_get = DB_STMT("SELECT " COLS " FROM payload_specs WHERE name = $1");
static struct db_stmt q_list = DB_STMT("SELECT " COLS " FROM payload_specs "
                                       "WHERE $1::TEXT IS NULL OR name > $1 "
                                       "ORDER BY name LIMIT $2::INT8");
static struct db_stmt q_insert = DB_STMT("INSERT INTO payload_specs (name, schema_json) "
                                         "VALUES ($1, $2::JSONB) RETURNING " COLS);
static struct db_stmt q_update = DB_STMT("UPDATE payload_specs SET schema_json = $2::JSONB, "
                                         "updated_at = now() WHERE name = $1 RETURNING " COLS);
static struct db_stmt q_delete = DB_STMT(
    "WITH refs AS (SELECT name FROM endpoints WHERE payload_spec_ref = $1 ORDER BY name LIMIT 10),"
    " del AS (DELETE FROM payload_specs WHERE name = $1 AND NOT EXISTS (SELECT 1 FROM refs)"
    "         RETURNING name)"
    " SELECT (SELECT count(*) FROM del), (SELECT string_agg(name, ', ') FROM refs)");

static int put_row(struct buf *b, const PGresult *res, int row)
{
    return buf_putc(b, '{') | api_put_str(b, "name", db_val(res, row, 0)) |
           api_put_raw(b, "schema", db_val(res, row, 1)) |
           api_put_time(b, "created_at", db_val(res, row, 2)) |
           api_put_time(b, "updated_at", db_val(res, row, 3)) | buf_putc(b, '}');
}

static const struct resource payload_specs = {
    .title = "Payload spec",
    .not_found = "PAYLOAD_SPEC_NOT_FOUND",
    .get = &q_get,
    .list = &q_list,
    .del = &q_delete,
    .dependents = "endpoints",
    .put_row = put_row,
};

/* The schema must be a valid JSON Schema; answers 422 INVALID_SCHEMA when not. */
static int schema_param(struct http_req *req, const char *name, const cJSON *schema, char **param)
{
    char err[300];
    (void)name;
    if (!cJSON_IsObject(schema) && !cJSON_IsBool(schema)) {
        http_respond_error(req, 422, "INVALID_SCHEMA",
                           "field 'schema' must be a JSON Schema: an object or a boolean");
        return -1;
    }
    if (jsonschema_check(schema, err, sizeof(err)) < 0) {
        http_respond_error(req, 422, "INVALID_SCHEMA", "invalid JSON Schema: %s", err);
        return -1;
    }
    if (!(*param = cJSON_PrintUnformatted(schema))) {
        api_oom(req);
        return -1;
    }
    return 0;
}

static void write_spec(struct http_req *req, const char *path_name)
{
    resource_put_value(req, &payload_specs, path_name, "schema", schema_param, &q_insert,
                       &q_update);
}

void api_payload_specs_create(struct http_req *req, const struct route_match *m)
{
    (void)m;
    write_spec(req, NULL);
}

void api_payload_specs_update(struct http_req *req, const struct route_match *m)
{
    write_spec(req, m->params[0]);
}

void api_payload_specs_list(struct http_req *req, const struct route_match *m)
{
    (void)m;
    resource_list(req, &payload_specs);
}

void api_payload_specs_get(struct http_req *req, const struct route_match *m)
{
    resource_get(req, &payload_specs, m->params[0]);
}

void api_payload_specs_delete(struct http_req *req, const struct route_match *m)
{
    resource_delete(req, &payload_specs, m->params[0]);
}
