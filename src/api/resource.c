#include "api/resource.h"

#include <stdlib.h>
#include <string.h>

struct res_ctx {
    struct http_req *req;
    const struct resource *r;
    int status;
    char name[ROUTE_PARAM_MAX];
};

static struct res_ctx *ctx_new(struct http_req *req, const struct resource *r, const char *name,
                               int status)
{
    struct res_ctx *c = calloc(1, sizeof(*c));
    if (!c) {
        api_oom(req);
        return NULL;
    }
    c->req = req;
    c->r = r;
    c->status = status;
    if (name)
        snprintf(c->name, sizeof(c->name), "%s", name);
    return c;
}

static void start(struct res_ctx *c, struct db_stmt *stmt, int n, const char *const *params,
                  db_cb cb)
{
    if (api_exec(c->req, stmt, n, params, cb, c) < 0)
        free(c);
}

static void not_found(struct res_ctx *c)
{
    http_respond_error(c->req, 404, c->r->not_found, "%s '%s' does not exist.", c->r->title,
                       c->name);
}

static void respond_row(struct res_ctx *c, const PGresult *res)
{
    struct buf b = BUF_INIT;
    if (c->r->put_row(&b, res, 0) < 0)
        api_oom(c->req);
    else
        http_respond_json(c->req, c->status, &b);
    buf_free(&b);
}

static void on_row(void *arg, const char *err, PGresult *res)
{
    struct res_ctx *c = arg;
    if (err)
        api_db_failed(c->req, err, res);
    else if (PQntuples(res) == 0)
        not_found(c);
    else
        respond_row(c, res);
    free(c);
}

void resource_get(struct http_req *req, const struct resource *r, const char *name)
{
    if (api_check_name(req, name) < 0)
        return;
    struct res_ctx *c = ctx_new(req, r, name, 200);
    const char *params[] = {name};
    if (c)
        start(c, r->get, 1, params, on_row);
}

static int put_resource_row(void *arg, struct buf *b, const PGresult *res, int row)
{
    const struct resource *r = arg;
    return r->put_row(b, res, row);
}

/* The list's first column is the key its cursor continues after. */
static void on_list(void *arg, const char *err, PGresult *res)
{
    struct res_ctx *c = arg;
    if (err)
        api_db_failed(c->req, err, res);
    else
        api_respond_page(c->req, res, c->status, 0, put_resource_row, (void *)c->r);
    free(c);
}

void resource_list(struct http_req *req, const struct resource *r)
{
    struct api_page pg;
    if (api_page_read(req, &pg) < 0)
        return;
    struct res_ctx *c = ctx_new(req, r, NULL, pg.limit);
    const char *params[] = {pg.has_after ? pg.after : NULL, pg.limit_plus_one};
    if (c)
        start(c, r->list, 2, params, on_list);
}

static void on_delete(void *arg, const char *err, PGresult *res)
{
    struct res_ctx *c = arg;
    if (err && strcmp(db_sqlstate(res), "23503") == 0) {
        /* A dependent appeared between our check and the delete. */
        http_respond_error(c->req, 409, "CONFLICT", "%s '%s' is still referenced by %s.",
                           c->r->title, c->name, c->r->dependents);
    } else if (err) {
        api_db_failed(c->req, err, res);
    } else if (strcmp(PQgetvalue(res, 0, 0), "1") == 0) {
        http_respond(c->req, 204, NULL, NULL, 0);
    } else if (!PQgetisnull(res, 0, 1)) {
        http_respond_error(c->req, 409, "CONFLICT", "%s '%s' is still referenced by %s: %s.",
                           c->r->title, c->name, c->r->dependents, PQgetvalue(res, 0, 1));
    } else {
        not_found(c);
    }
    free(c);
}

void resource_delete(struct http_req *req, const struct resource *r, const char *name)
{
    if (api_check_name(req, name) < 0)
        return;
    struct res_ctx *c = ctx_new(req, r, name, 204);
    const char *params[] = {name};
    if (c)
        start(c, r->del, 1, params, on_delete);
}

static void on_write(void *arg, const char *err, PGresult *res)
{
    struct res_ctx *c = arg;
    const char *state = err ? db_sqlstate(res) : "";
    if (err && strcmp(state, "23505") == 0) {
        http_respond_error(c->req, 409, "CONFLICT", "%s '%s' already exists.", c->r->title,
                           c->name);
        free(c);
        return;
    }
    if (err && strcmp(state, "23503") == 0 && c->r->on_fk) {
        c->r->on_fk(c->req, res);
        free(c);
        return;
    }
    on_row(arg, err, res);
}

void resource_write(struct http_req *req, const struct resource *r, struct db_stmt *stmt, int n,
                    const char *const *params, const char *name, int status)
{
    struct res_ctx *c = ctx_new(req, r, name, status);
    if (c)
        start(c, stmt, n, params, on_write);
}

const char *resource_body_name(struct http_req *req, const cJSON *body, const char *path_name)
{
    if (path_name)
        return api_check_same_name(req, body, path_name) < 0 ? NULL : path_name;
    const cJSON *n = json_get(body, "name");
    if (!n) {
        http_respond_error(req, 400, "INVALID_REQUEST", "missing required field 'name'");
        return NULL;
    }
    return n->valuestring;
}

void resource_put_value(struct http_req *req, const struct resource *r, const char *path_name,
                        const char *field, resource_value_fn value_fn, struct db_stmt *insert,
                        struct db_stmt *update)
{
    const struct json_field fields[] = {
        {"name", JT_STRING, false},
        {field, JT_ANY & ~(unsigned)JT_NULL, true},
    };
    cJSON *body = NULL;
    char *value = NULL;
    const char *name;
    if (api_body_object(req, &body) < 0)
        return;
    if (api_check_fields(req, body, fields, TE_ARRAY_LEN(fields)) < 0 ||
        !(name = resource_body_name(req, body, path_name)) || api_check_name(req, name) < 0 ||
        value_fn(req, name, cJSON_GetObjectItemCaseSensitive(body, field), &value) < 0)
        goto done;
    const char *params[] = {name, value};
    resource_write(req, r, path_name ? update : insert, 2, params, name, path_name ? 200 : 201);
done:
    free(value);
    cJSON_Delete(body);
}
