/* /configs: named key-value objects endpoints read as {{config.*}}. */
#include "api/api.h"
#include "api/resource.h"

#include <stdlib.h>

#define COLS "name, values_json, " SQL_MS("created_at") ", " SQL_MS("updated_at")

static struct db_stmt q_get = DB_STMT("SELECT " COLS " FROM configs WHERE name = $1");
static struct db_stmt q_list = DB_STMT("SELECT " COLS " FROM configs "
                                       "WHERE $1::TEXT IS NULL OR name > $1 "
                                       "ORDER BY name LIMIT $2::INT8");
static struct db_stmt q_insert = DB_STMT("INSERT INTO configs (name, values_json) "
                                         "VALUES ($1, $2::JSONB) RETURNING " COLS);
static struct db_stmt q_update = DB_STMT("UPDATE configs SET values_json = $2::JSONB, "
                                         "updated_at = now() WHERE name = $1 RETURNING " COLS);
static struct db_stmt q_delete = DB_STMT(
    "WITH refs AS (SELECT name FROM endpoints WHERE config_ref = $1 ORDER BY name LIMIT 10),"
    " del AS (DELETE FROM configs WHERE name = $1 AND NOT EXISTS (SELECT 1 FROM refs)"
    "         RETURNING name)"
    " SELECT (SELECT count(*) FROM del), (SELECT string_agg(name, ', ') FROM refs)");

static int put_row(struct buf *b, const PGresult *res, int row)
{
    return buf_putc(b, '{') | api_put_str(b, "name", db_val(res, row, 0)) |
           api_put_raw(b, "values", db_val(res, row, 1)) |
           api_put_time(b, "created_at", db_val(res, row, 2)) |
           api_put_time(b, "updated_at", db_val(res, row, 3)) | buf_putc(b, '}');
}

static const struct resource configs = {
    .title = "Config",
    .not_found = "CONFIG_NOT_FOUND",
    .get = &q_get,
    .list = &q_list,
    .del = &q_delete,
    .dependents = "endpoints",
    .put_row = put_row,
};

static int values_param(struct http_req *req, const char *name, const cJSON *values, char **param)
{
    (void)name;
    if (!cJSON_IsObject(values)) {
        http_respond_error(req, 400, "INVALID_REQUEST", "field 'values' must be an object");
        return -1;
    }
    if (!(*param = cJSON_PrintUnformatted(values))) {
        api_oom(req);
        return -1;
    }
    return 0;
}

void api_configs_create(struct http_req *req, const struct route_match *m)
{
    (void)m;
    resource_put_value(req, &configs, NULL, "values", values_param, &q_insert, &q_update);
}

void api_configs_update(struct http_req *req, const struct route_match *m)
{
    resource_put_value(req, &configs, m->params[0], "values", values_param, &q_insert, &q_update);
}

void api_configs_list(struct http_req *req, const struct route_match *m)
{
    (void)m;
    resource_list(req, &configs);
}

void api_configs_get(struct http_req *req, const struct route_match *m)
{
    resource_get(req, &configs, m->params[0]);
}

void api_configs_delete(struct http_req *req, const struct route_match *m)
{
    resource_delete(req, &configs, m->params[0]);
}
