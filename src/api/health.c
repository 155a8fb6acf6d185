/* Liveness and readiness probes (no API key). */
#include "api/api.h"

static void respond_status(struct http_req *req, int code, const char *status, const char *why)
{
    struct buf b = BUF_INIT;
    int rc = buf_putc(&b, '{') | api_put_str(&b, "status", status);
    if (why)
        rc |= api_put_str(&b, "reason", why);
    rc |= buf_putc(&b, '}');
    if (rc)
        api_oom(req);
    else
        http_respond_json(req, code, &b);
    buf_free(&b);
}

void api_healthz(struct http_req *req, const struct route_match *m)
{
    (void)m;
    respond_status(req, 200, "ok", NULL);
}

static struct db_stmt q_ping = DB_STMT("SELECT 1");

static void on_ping(void *arg, const char *err, PGresult *res)
{
    (void)res;
    if (err)
        respond_status(arg, 503, "unavailable", "the database does not answer");
    else
        respond_status(arg, 200, "ok", NULL);
}

/* Ready = not shutting down, schema applied, and the database answers a query now. */
void api_readyz(struct http_req *req, const struct route_match *m)
{
    struct app *app = req->app;
    (void)m;
    if (app->draining)
        respond_status(req, 503, "unavailable", "shutting down");
    else if (!app->schema_ready)
        respond_status(req, 503, "unavailable", "database schema not ready");
    else if (!db_pool_ready(app->db) || db_exec(app->db, &q_ping, 0, NULL, on_ping, req) < 0)
        respond_status(req, 503, "unavailable", "no working database connection");
}
