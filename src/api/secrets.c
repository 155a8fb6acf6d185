/*
 * /secrets: values sealed at rest (crypto/), never returned, never logged.
 * Only metadata leaves the server.
 */
#include "api/api.h"
#include "api/resource.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#define SECRET_MAX_BYTES 65536
#define COLS "name, " SQL_MS("created_at") ", " SQL_MS("updated_at")

static struct db_stmt q_get = DB_STMT("SELECT " COLS " FROM secrets WHERE name = $1");
static struct db_stmt q_list = DB_STMT("SELECT " COLS " FROM secrets "
                                       "WHERE $1::TEXT IS NULL OR name > $1 "
                                       "ORDER BY name LIMIT $2::INT8");
static struct db_stmt q_insert = DB_STMT("INSERT INTO secrets (name, encrypted_value) "
                                         "VALUES ($1, $2::BYTEA) RETURNING " COLS);
static struct db_stmt q_update = DB_STMT("UPDATE secrets SET encrypted_value = $2::BYTEA, "
                                         "updated_at = now() WHERE name = $1 RETURNING " COLS);
static struct db_stmt q_delete =
    DB_STMT("WITH refs AS (SELECT name FROM endpoints WHERE secret_refs @> ARRAY[$1::TEXT]"
            "              ORDER BY name LIMIT 10),"
            " del AS (DELETE FROM secrets WHERE name = $1 AND NOT EXISTS (SELECT 1 FROM refs)"
            "         RETURNING name)"
            " SELECT (SELECT count(*) FROM del), (SELECT string_agg(name, ', ') FROM refs)");

static int put_row(struct buf *b, const PGresult *res, int row)
{
    return buf_putc(b, '{') | api_put_str(b, "name", db_val(res, row, 0)) |
           api_put_time(b, "created_at", db_val(res, row, 1)) |
           api_put_time(b, "updated_at", db_val(res, row, 2)) | buf_putc(b, '}');
}

static const struct resource secrets = {
    .title = "Secret",
    .not_found = "SECRET_NOT_FOUND",
    .get = &q_get,
    .list = &q_list,
    .del = &q_delete,
    .dependents = "endpoints",
    .put_row = put_row,
};

/* Seals the value under the secret's name; the parameter is bytea hex input ("\x…"). */
static int sealed_param(struct http_req *req, const char *name, const cJSON *value, char **param)
{
    struct app *app = req->app;
    struct buf sealed = BUF_INIT;
    if (!cJSON_IsString(value) || value->valuestring[0] == '\0') {
        http_respond_error(req, 400, "INVALID_REQUEST", "field 'value' must be a non-empty string");
        return -1;
    }
    size_t len = strlen(value->valuestring);
    if (len > SECRET_MAX_BYTES) {
        http_respond_error(req, 400, "INVALID_REQUEST", "field 'value' is longer than %d bytes",
                           SECRET_MAX_BYTES);
        return -1;
    }
    if (secret_seal(&app->secret_key, name, value->valuestring, len, &sealed) < 0)
        goto oom;
    *param = malloc(sealed.len * 2 + 3);
    if (!*param)
        goto oom;
    memcpy(*param, "\\x", 2);
    sodium_bin2hex(*param + 2, sealed.len * 2 + 1, (const unsigned char *)sealed.data, sealed.len);
    buf_free(&sealed);
    return 0;
oom:
    buf_free(&sealed);
    api_oom(req);
    return -1;
}

void api_secrets_create(struct http_req *req, const struct route_match *m)
{
    (void)m;
    resource_put_value(req, &secrets, NULL, "value", sealed_param, &q_insert, &q_update);
}

void api_secrets_update(struct http_req *req, const struct route_match *m)
{
    resource_put_value(req, &secrets, m->params[0], "value", sealed_param, &q_insert, &q_update);
}

void api_secrets_list(struct http_req *req, const struct route_match *m)
{
    (void)m;
    resource_list(req, &secrets);
}

void api_secrets_get(struct http_req *req, const struct route_match *m)
{
    resource_get(req, &secrets, m->params[0]);
}

void api_secrets_delete(struct http_req *req, const struct route_match *m)
{
    resource_delete(req, &secrets, m->params[0]);
}
