#include "api/api.h"

#include "core/log.h"
#include "core/timefmt.h"
#include "domain/endpoint.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CURSOR_TAG "k1:"

int api_body_object(struct http_req *req, cJSON **out)
{
    char err[160];
    cJSON *v = NULL;
    if (req->body_len == 0) {
        http_respond_error(req, 400, "INVALID_REQUEST", "request body must be a JSON object");
        return -1;
    }
    if (json_parse(req->body, req->body_len, &v, err, sizeof(err)) < 0) {
        http_respond_error(req, 400, "INVALID_REQUEST", "%s", err);
        return -1;
    }
    if (!cJSON_IsObject(v)) {
        cJSON_Delete(v);
        http_respond_error(req, 400, "INVALID_REQUEST", "request body must be a JSON object");
        return -1;
    }
    *out = v;
    return 0;
}

int api_check_fields(struct http_req *req, const cJSON *obj, const struct json_field *f, size_t n)
{
    char err[300];
    if (json_check_fields(obj, f, n, "", err, sizeof(err)) < 0) {
        http_respond_error(req, 400, "INVALID_REQUEST", "%s", err);
        return -1;
    }
    return 0;
}

int api_check_name(struct http_req *req, const char *name)
{
    if (resource_name_valid(name, strlen(name)))
        return 0;
    http_respond_error(req, 400, "INVALID_REQUEST",
                       "field 'name' must be 1-128 characters of a-z, 0-9, '-' and '_', "
                       "starting with a letter or digit");
    return -1;
}

int api_check_same_name(struct http_req *req, const cJSON *body, const char *name)
{
    const cJSON *n = json_get(body, "name");
    if (!n || (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0))
        return 0;
    http_respond_error(req, 400, "INVALID_REQUEST",
                       "field 'name' must match the name in the path (names cannot be changed)");
    return -1;
}

int api_exec(struct http_req *req, struct db_stmt *stmt, int n, const char *const *params, db_cb cb,
             void *arg)
{
    struct app *app = req->app;
    if (db_exec(app->db, stmt, n, params, cb, arg) == 0)
        return 0;
    http_respond_error(req, 503, "SERVICE_UNAVAILABLE", "the database is unavailable; retry later");
    return -1;
}

/* SQLSTATE classes that mean "try again": connection, resources, shutdown, serialization. */
static bool sqlstate_transient(const char *s)
{
    return strncmp(s, "08", 2) == 0 || strncmp(s, "53", 2) == 0 || strncmp(s, "57", 2) == 0 ||
           strcmp(s, "40001") == 0 || strcmp(s, "40P01") == 0;
}

void api_db_failed(struct http_req *req, const char *err, const PGresult *res)
{
    if (err == DB_ERR_UNAVAILABLE || (res && sqlstate_transient(db_sqlstate(res)))) {
        http_respond_error(req, 503, "SERVICE_UNAVAILABLE",
                           "the database is unavailable; retry later");
        return;
    }
    log_ctx(LOG_ERROR, "request_id", req->request_id, "database error %s: %s",
            res ? db_sqlstate(res) : "-", res ? db_errmsg(res) : (err ? err : "?"));
    http_respond_error(req, 500, "INTERNAL_ERROR", "internal error; see the server log");
}

void api_oom(struct http_req *req)
{
    http_respond_error(req, 500, "INTERNAL_ERROR", "out of memory");
}

void api_respond_error_details(struct http_req *req, int status, const char *code,
                               const char *message, const cJSON *details)
{
    struct buf b = BUF_INIT;
    int rc = buf_puts(&b, "{\"error\":{") | api_put_str(&b, "code", code) |
             api_put_str(&b, "message", message) | api_put_str(&b, "request_id", req->request_id);
    if (details) {
        rc |= api_put_key(&b, "details") | json_print(&b, details);
    }
    rc |= buf_puts(&b, "}}");
    if (rc)
        api_oom(req);
    else
        http_respond_json(req, status, &b);
    buf_free(&b);
}

int api_put_key(struct buf *b, const char *key)
{
    if (b->len && b->data[b->len - 1] != '{' && b->data[b->len - 1] != '[' && buf_putc(b, ',') < 0)
        return -1;
    if (buf_json_str(b, key, strlen(key)) < 0)
        return -1;
    return buf_putc(b, ':');
}

int api_put_str(struct buf *b, const char *key, const char *val)
{
    if (api_put_key(b, key) < 0)
        return -1;
    return val ? buf_json_str(b, val, strlen(val)) : buf_puts(b, "null");
}

int api_put_raw(struct buf *b, const char *key, const char *json)
{
    if (api_put_key(b, key) < 0)
        return -1;
    return buf_puts(b, json ? json : "null");
}

int api_put_time(struct buf *b, const char *key, const char *ms)
{
    if (!ms)
        return api_put_raw(b, key, NULL);
    char out[TIME_RFC3339_LEN];
    time_format_ms(strtoll(ms, NULL, 10), out);
    return api_put_str(b, key, out);
}

static int decode_cursor(const char *text, char *out, size_t outlen)
{
    unsigned char bin[ROUTE_PARAM_MAX + 8];
    size_t len = 0;
    if (sodium_base642bin(bin, sizeof(bin) - 1, text, strlen(text), NULL, &len, NULL,
                          sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0)
        return -1;
    bin[len] = '\0';
    size_t tag = strlen(CURSOR_TAG);
    if (len <= tag || memcmp(bin, CURSOR_TAG, tag) != 0 || len - tag >= outlen ||
        memchr(bin, '\0', len))
        return -1;
    memcpy(out, bin + tag, len - tag + 1);
    return 0;
}

int api_page_read(struct http_req *req, struct api_page *pg)
{
    char v[ROUTE_PARAM_MAX * 2];
    pg->limit = 50;
    pg->has_after = false;
    int r = http_req_query(req, "limit", v, sizeof(v));
    if (r == 0) {
        char *end;
        long n = strtol(v, &end, 10);
        if (!*v || *end || n < 1 || n > 200) {
            http_respond_error(req, 400, "INVALID_REQUEST",
                               "query parameter 'limit' must be an integer from 1 to 200");
            return -1;
        }
        pg->limit = (int)n;
    } else if (r == -2) {
        http_respond_error(req, 400, "INVALID_REQUEST", "query parameter 'limit' is malformed");
        return -1;
    }
    r = http_req_query(req, "cursor", v, sizeof(v));
    if (r == -2 || (r == 0 && decode_cursor(v, pg->after, sizeof(pg->after)) < 0)) {
        http_respond_error(req, 400, "INVALID_REQUEST",
                           "query parameter 'cursor' is not a cursor this API returned");
        return -1;
    }
    pg->has_after = r == 0;
    snprintf(pg->limit_plus_one, sizeof(pg->limit_plus_one), "%d", pg->limit + 1);
    return 0;
}

int api_put_cursor(struct buf *b, const char *key)
{
    char raw[ROUTE_PARAM_MAX + 8];
    char enc[sodium_base64_ENCODED_LEN(sizeof(raw), sodium_base64_VARIANT_URLSAFE_NO_PADDING)];
    int n = snprintf(raw, sizeof(raw), CURSOR_TAG "%s", key);
    if (n < 0 || (size_t)n >= sizeof(raw))
        return -1;
    sodium_bin2base64(enc, sizeof(enc), (const unsigned char *)raw, (size_t)n,
                      sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    return buf_json_str(b, enc, strlen(enc));
}

void api_respond_page(struct http_req *req, const PGresult *res, int limit, int key_col,
                      api_row_fn put, void *arg)
{
    struct buf b = BUF_INIT;
    int rows = PQntuples(res);
    int rc = buf_puts(&b, "{\"items\":[");
    for (int i = 0; i < rows && i < limit; i++)
        rc |= (i ? buf_putc(&b, ',') : 0) | put(arg, &b, res, i);
    rc |= buf_puts(&b, "],\"cursor\":");
    rc |= rows > limit ? api_put_cursor(&b, PQgetvalue(res, limit - 1, key_col))
                       : buf_puts(&b, "null");
    rc |= buf_putc(&b, '}');
    if (rc)
        api_oom(req);
    else
        http_respond_json(req, 200, &b);
    buf_free(&b);
}
