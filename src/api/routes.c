/*
 * The whole API in one table. Every route needs `Authorization: Bearer <key>`
 * except those marked public.
 */
#include "api/api.h"

#include "core/log.h"

#include <string.h>

#define R(m, p, h)                                                                                 \
    {                                                                                              \
        HTTP_M_##m, p, h, false                                                                    \
    }
#define PUBLIC(m, p, h)                                                                            \
    {                                                                                              \
        HTTP_M_##m, p, h, true                                                                     \
    }

static const struct route routes[] = {
    PUBLIC(GET, "/healthz", api_healthz),
    PUBLIC(GET, "/readyz", api_readyz),

    R(POST, "/payload-specs", api_payload_specs_create),
    R(GET, "/payload-specs", api_payload_specs_list),
    R(GET, "/payload-specs/{name}", api_payload_specs_get),
    R(PUT, "/payload-specs/{name}", api_payload_specs_update),
    R(DELETE, "/payload-specs/{name}", api_payload_specs_delete),

    R(POST, "/configs", api_configs_create),
    R(GET, "/configs", api_configs_list),
    R(GET, "/configs/{name}", api_configs_get),
    R(PUT, "/configs/{name}", api_configs_update),
    R(DELETE, "/configs/{name}", api_configs_delete),

    R(POST, "/secrets", api_secrets_create),
    R(GET, "/secrets", api_secrets_list),
    R(GET, "/secrets/{name}", api_secrets_get),
    R(PUT, "/secrets/{name}", api_secrets_update),
    R(DELETE, "/secrets/{name}", api_secrets_delete),

    R(POST, "/endpoints", api_endpoints_create),
    R(GET, "/endpoints", api_endpoints_list),
    R(GET, "/endpoints/{name}", api_endpoints_get),
    R(PUT, "/endpoints/{name}", api_endpoints_update),
    R(DELETE, "/endpoints/{name}", api_endpoints_delete),

    R(POST, "/jobs", api_jobs_create),
    R(GET, "/jobs", api_jobs_list),
    R(GET, "/jobs/{job_id}", api_jobs_get),
    R(PUT, "/jobs/{job_id}", api_jobs_update),
    R(POST, "/jobs/{job_id}/cancel", api_jobs_cancel),
    R(GET, "/jobs/{job_id}/status", api_jobs_status),
    R(GET, "/jobs/{job_id}/versions", api_jobs_versions),
    R(GET, "/jobs/{job_id}/executions", api_jobs_executions),

    R(GET, "/executions/{execution_id}", api_executions_get),
    R(POST, "/executions/{execution_id}/cancel", api_executions_cancel),
    R(GET, "/executions/{execution_id}/attempts", api_executions_attempts),
    R(GET, "/executions/{execution_id}/logs", api_executions_logs),
};

/* Accepts "Bearer <key>" (scheme case-insensitive) with a key from the configured set. */
static bool authorized(const struct app *app, const struct http_req *req)
{
    const char *h = http_req_header(req, "authorization");
    if (!h || strncasecmp(h, "Bearer ", 7) != 0)
        return false;
    const char *key = h + 7;
    while (*key == ' ')
        key++;
    size_t len = strlen(key);
    while (len && key[len - 1] == ' ')
        len--;
    return len > 0 && api_keys_check(app->keys, key, len);
}

void api_on_request(struct http_req *req)
{
    struct app *app = req->app;
    const struct route *route;
    struct route_match m;
    char allow[128];
    enum router_result r = router_match(routes, TE_ARRAY_LEN(routes), req->method, req->path,
                                        &route, &m, allow, sizeof(allow));
    switch (r) {
    case ROUTE_FOUND:
        break;
    case ROUTE_NO_PATH:
        http_respond_error(req, 404, "NOT_FOUND", "no such path: %s", req->path);
        return;
    case ROUTE_NO_METHOD:
        if (http_req_add_header(req, "Allow", allow) < 0) {
            api_oom(req);
            return;
        }
        http_respond_error(req, 405, "METHOD_NOT_ALLOWED", "%s is not allowed here; use %s",
                           http_method_name(req->method), allow);
        return;
    case ROUTE_BAD:
        http_respond_error(req, 400, "INVALID_REQUEST", "malformed path parameter");
        return;
    }
    if (!route->public && !authorized(app, req)) {
        if (http_req_add_header(req, "WWW-Authenticate", "Bearer") < 0) {
            api_oom(req);
            return;
        }
        http_respond_error(req, 401, "UNAUTHORIZED", "missing or invalid API key");
        return;
    }
    if (!route->public && !app->schema_ready) {
        http_respond_error(req, 503, "SERVICE_UNAVAILABLE",
                           "the service is starting (database schema not ready)");
        return;
    }
    route->handler(req, &m);
}
