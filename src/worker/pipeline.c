/*
 * One execution from claim to outcome: load what the caches lack (config,
 * secrets), render the endpoint's templates, dispatch, classify the result,
 * and hand the outcome to the batch writer. Every text recorded about the
 * delivery has the secret values it used replaced by ***.
 */
#include "worker/worker_int.h"

#include "core/json.h"
#include "core/log.h"
#include "core/timefmt.h"
#include "domain/backoff.h"
#include "domain/template.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum claim_col {
    CC_ID,
    CC_JOB,
    CC_ATTEMPT,
    CC_MAX,
    CC_INPUT,
    CC_TYPE,
    CC_CONFIG,
    CC_SPEC,
    CC_RETRY,
    CC_STARTED
};

static struct db_stmt q_config = DB_STMT("SELECT values_json FROM configs WHERE name = $1");
static struct db_stmt q_secrets =
    DB_STMT("SELECT name, encrypted_value FROM secrets WHERE name = ANY($1::TEXT[])");

static void exec_record(struct exec *e, const struct outcome *oc);

static void exec_set_state(struct exec *e, enum exec_state s)
{
    e->state = s;
}

void exec_free(struct exec *e)
{
    cJSON_Delete(e->input);
    cJSON_Delete(e->spec);
    cJSON_Delete(e->retry);
    free(e->config_ref);
    free(e->secret_refs);
    for (int i = 0; i < e->nsecrets; i++) {
        sodium_memzero(e->secrets[i], strlen(e->secrets[i]));
        free(e->secrets[i]);
    }
    free(e->secrets);
    free(e);
}

int exec_from_claim(struct worker *w, const PGresult *res, int row, struct exec **out)
{
    struct exec *e = calloc(1, sizeof(*e));
    char err[200];
    struct buf refs = BUF_INIT;
    if (!e)
        return -1;
    e->w = w;
    snprintf(e->id, sizeof(e->id), "%s", PQgetvalue(res, row, CC_ID));
    snprintf(e->job_id, sizeof(e->job_id), "%s", PQgetvalue(res, row, CC_JOB));
    e->attempt = atoi(PQgetvalue(res, row, CC_ATTEMPT));
    e->max_attempts = atoi(PQgetvalue(res, row, CC_MAX));
    e->started_ms = strtoll(PQgetvalue(res, row, CC_STARTED), NULL, 10);
    e->input = cJSON_Parse(db_val(res, row, CC_INPUT) ? db_val(res, row, CC_INPUT) : "{}");
    e->spec = cJSON_Parse(PQgetvalue(res, row, CC_SPEC));
    e->retry = cJSON_Parse(db_val(res, row, CC_RETRY) ? db_val(res, row, CC_RETRY) : "{}");
    e->config_ref = db_val(res, row, CC_CONFIG) ? strdup(db_val(res, row, CC_CONFIG)) : NULL;
    if (!e->input || !e->spec || !e->retry ||
        endpoint_type_parse(PQgetvalue(res, row, CC_TYPE), &e->type) < 0 ||
        (db_val(res, row, CC_CONFIG) && !e->config_ref) ||
        endpoint_secret_refs(e->spec, &refs, err, sizeof(err)) != 0)
        goto fail;
    e->secret_refs = buf_steal(&refs);
    *out = e;
    return 0;
fail:
    buf_free(&refs);
    exec_free(e);
    return -1;
}

/* ---------------------------------------------------------------- loading */

/* True when every secret the spec names is cached (present or known missing). */
static bool secrets_cached(struct exec *e, uint64_t now)
{
    const char *p = e->secret_refs + 1, *v;
    char name[256];
    while (*p && *p != '}') {
        size_t n = strcspn(p, ",}");
        snprintf(name, sizeof(name), "%.*s", (int)n, p);
        if (wcache_secret(e->w->cache, name, now, &v) == 0)
            return false;
        p += n + (p[n] == ',');
    }
    return true;
}

static void exec_render(struct exec *e);

long exec_timeout_ms(const struct exec *e)
{
    const cJSON *t = json_get(e->spec, "timeout_ms");
    return t ? (long)t->valuedouble : 0;
}

/* Stores fetched rows in the caches; secrets absent from the rows are cached as missing. */
static void cache_loaded(struct exec *e, PGresult *const *res, int n, bool want_config)
{
    struct worker *w = e->w;
    uint64_t now = uv_now(w->loop);
    int k = 0;
    if (want_config) {
        if (PQntuples(res[k]) > 0 &&
            wcache_put_config(w->cache, e->config_ref, PQgetvalue(res[k], 0, 0), now) < 0)
            log_warn("worker: config '%s' could not be cached", e->config_ref);
        k++;
    }
    if (k >= n)
        return;
    const char *p = e->secret_refs + 1;
    char name[256];
    while (*p && *p != '}') {
        size_t len = strcspn(p, ",}");
        snprintf(name, sizeof(name), "%.*s", (int)len, p);
        const char *plain = NULL;
        struct buf out = BUF_INIT;
        for (int r = 0; r < PQntuples(res[k]); r++) {
            if (strcmp(PQgetvalue(res[k], r, 0), name) != 0)
                continue;
            size_t blen = 0;
            unsigned char *bin =
                PQunescapeBytea((const unsigned char *)PQgetvalue(res[k], r, 1), &blen);
            if (bin && secret_open(w->key, name, bin, blen, &out) == 0)
                plain = out.data ? out.data : "";
            else
                log_ctx(LOG_ERROR, "execution_id", e->id,
                        "secret '%s' cannot be decrypted with TE_SECRET_ENCRYPTION_KEY", name);
            PQfreemem(bin);
        }
        if (wcache_put_secret(w->cache, name, plain, now) < 0)
            log_warn("worker: secret '%s' could not be cached", name);
        if (out.data)
            sodium_memzero(out.data, out.len);
        buf_free(&out);
        p += len + (p[len] == ',');
    }
}

static void on_loaded(void *arg, const char *err, PGresult *const *res, int n)
{
    struct exec *e = arg;
    if (err) {
        /* The execution stays RUNNING; its lease expiry hands it back for a retry. */
        log_ctx(LOG_WARN, "execution_id", e->id,
                "worker: cannot load config/secrets (%s); leaving it to lease expiry", err);
        worker_exec_done(e);
        return;
    }
    cache_loaded(e, res, n, e->config_ref && n > 0 && PQnfields(res[0]) == 1);
    exec_render(e);
}

void exec_run(struct exec *e)
{
    struct worker *w = e->w;
    uint64_t now = uv_now(w->loop);
    bool need_config = e->config_ref && !wcache_config(w->cache, e->config_ref, now);
    bool need_secrets = strcmp(e->secret_refs, "{}") != 0 && !secrets_cached(e, now);
    exec_set_state(e, EXEC_LOADING);
    if (!need_config && !need_secrets) {
        exec_render(e);
        return;
    }
    const char *pc[] = {e->config_ref};
    const char *ps[] = {e->secret_refs};
    struct db_call calls[2];
    int n = 0;
    if (need_config)
        calls[n++] = (struct db_call){&q_config, 1, pc};
    if (need_secrets)
        calls[n++] = (struct db_call){&q_secrets, 1, ps};
    if (db_exec_batch(w->db, calls, n, on_loaded, e) < 0) {
        log_ctx(LOG_WARN, "execution_id", e->id,
                "worker: database unavailable; leaving the execution to lease expiry");
        worker_exec_done(e);
    }
}

/* ---------------------------------------------------------------- rendering */

static const char *secret_lookup(void *arg, const char *name, size_t len)
{
    struct exec *e = arg;
    char key[256];
    const char *v = NULL;
    snprintf(key, sizeof(key), "%.*s", (int)len, name);
    if (wcache_secret(e->w->cache, key, uv_now(e->w->loop), &v) != 1)
        return NULL;
    for (int i = 0; i < e->nsecrets; i++) {
        if (strcmp(e->secrets[i], v) == 0)
            return v;
    }
    /* every value used is kept for redaction, however many there are */
    char **grown = realloc(e->secrets, (size_t)(e->nsecrets + 1) * sizeof(char *));
    char *copy = strdup(v);
    if (grown)
        e->secrets = grown;
    if (!grown || !copy) {
        free(copy);
        return NULL; /* unresolvable rather than unredactable */
    }
    e->secrets[e->nsecrets++] = copy;
    return v;
}

static bool has_header(const cJSON *headers, const char *name)
{
    for (const cJSON *h = headers ? headers->child : NULL; h; h = h->next) {
        if (strcasecmp(h->string, name) == 0)
            return true;
    }
    return false;
}

struct rendered {
    struct buf url;
    struct buf header_text; /* "Name: value\0Name: value\0..." */
    const char **headers;   /* into header_text */
    int nheaders;
    char *body;
    int *expected;
    int nexpected;
};

static void rendered_free(struct rendered *r)
{
    buf_free(&r->url);
    buf_free(&r->header_text);
    free(r->headers);
    free(r->body);
    free(r->expected);
}

static int add_header(struct rendered *r, const char *name, const char *value)
{
    return buf_printf(&r->header_text, "%s: %s", name, value) | buf_putc(&r->header_text, '\0');
}

static int render_headers(struct exec *e, const struct template_vars *vars, struct rendered *r,
                          bool has_body, char *err, size_t errlen)
{
    const cJSON *headers = json_get(e->spec, "headers");
    struct buf v = BUF_INIT;
    char attempt[16];
    int rc = 0;
    for (const cJSON *h = headers ? headers->child : NULL; h && rc == 0; h = h->next) {
        buf_reset(&v);
        rc = template_render_string(h->valuestring, vars, &v, err, errlen);
        if (rc == 0 && strpbrk(v.data ? v.data : "", "\r\n")) {
            snprintf(err, errlen, "header '%s' resolved to a value with a line break", h->string);
            rc = TEMPLATE_EINVAL;
        }
        if (rc == 0 && add_header(r, h->string, v.data ? v.data : "") < 0)
            rc = TEMPLATE_ENOMEM;
    }
    buf_free(&v);
    snprintf(attempt, sizeof(attempt), "%d", e->attempt);
    if (rc == 0 && has_body && !has_header(headers, "Content-Type"))
        rc = add_header(r, "Content-Type", "application/json") < 0 ? TEMPLATE_ENOMEM : 0;
    if (rc == 0 && !has_header(headers, "Idempotency-Key"))
        rc = add_header(r, "Idempotency-Key", e->id) < 0 ? TEMPLATE_ENOMEM : 0;
    if (rc == 0 && !has_header(headers, "X-Taskexec-Attempt"))
        rc = add_header(r, "X-Taskexec-Attempt", attempt) < 0 ? TEMPLATE_ENOMEM : 0;
    /* Index the NUL-separated lines only now: the buffer may have moved while growing. */
    size_t lines = 0;
    for (size_t off = 0; off < r->header_text.len; off++)
        lines += r->header_text.data[off] == '\0';
    if (rc == 0 && !(r->headers = calloc(lines + 1, sizeof(*r->headers))))
        rc = TEMPLATE_ENOMEM;
    for (size_t off = 0; rc == 0 && off < r->header_text.len; r->nheaders++) {
        r->headers[r->nheaders] = r->header_text.data + off;
        off += strlen(r->header_text.data + off) + 1;
    }
    return rc;
}

static int render_http(struct exec *e, const struct template_vars *vars, struct rendered *r,
                       char *err, size_t errlen)
{
    const cJSON *tpl = json_get(e->spec, "body_template");
    cJSON *body = NULL;
    int rc =
        template_render_string(json_get(e->spec, "url")->valuestring, vars, &r->url, err, errlen);
    if (rc == 0 && tpl) {
        rc = template_render(tpl, vars, &body, err, errlen);
        if (rc == 0 && !(r->body = cJSON_PrintUnformatted(body)))
            rc = TEMPLATE_ENOMEM;
    }
    cJSON_Delete(body);
    if (rc == 0)
        rc = render_headers(e, vars, r, tpl != NULL, err, errlen);
    const cJSON *codes = json_get(e->spec, "expected_status_codes");
    if (rc == 0 && !(r->expected = calloc((size_t)cJSON_GetArraySize(codes) + 1, sizeof(int))))
        rc = TEMPLATE_ENOMEM;
    for (const cJSON *c = codes ? codes->child : NULL; rc == 0 && c; c = c->next)
        r->expected[r->nexpected++] = (int)c->valuedouble;
    return rc;
}

/* ---------------------------------------------------------------- outcome */

/* Shutdown aborted the attempt: record nothing; the lease expiry hands it back. */
bool exec_aborted(struct exec *e)
{
    if (!e->w->closing)
        return false;
    worker_exec_done(e);
    return true;
}

void exec_attempt_done(struct exec *e, const struct attempt_result *r)
{
    struct outcome oc = {0};
    struct buf msg = BUF_INIT;
    struct retry_policy policy;
    oc.duration_ms = r->duration_ms;
    if (r->ok) {
        oc.status = OUTCOME_SUCCESS;
        oc.output_json = r->json;
    } else {
        oc.error_json = r->json;
        bool more = r->retryable && e->attempt < e->max_attempts &&
                    endpoint_retry_read(e->retry, &policy) == 0;
        oc.status = more ? OUTCOME_RETRY : OUTCOME_FAIL;
        if (more)
            oc.retry_delay_ms = backoff_delay_ms(&policy, e->attempt, randombytes_random());
    }
    int rc = buf_printf(&msg, "attempt %d/%d: %s, %s in %lld ms", e->attempt, e->max_attempts,
                        r->ok ? "delivered" : "failed", r->what, (long long)r->duration_ms);
    if (!r->ok && r->detail)
        rc |= buf_printf(&msg, " (%s)", r->detail);
    if (oc.status == OUTCOME_RETRY)
        rc |= buf_printf(&msg, "; retrying in %lld ms", (long long)oc.retry_delay_ms);
    else if (oc.status == OUTCOME_FAIL)
        rc |= buf_puts(&msg, r->retryable ? "; no attempts left" : "; not retried");
    oc.log_level = r->ok ? "INFO" : (oc.status == OUTCOME_RETRY ? "WARN" : "ERROR");
    oc.log_message = rc == 0 ? msg.data : "attempt finished";
    exec_record(e, &oc);
    buf_free(&msg);
}

static void on_http_done(void *arg, const struct httpd_result *res)
{
    struct exec *e = arg;
    struct buf json = BUF_INIT;
    char what[32];
    if (exec_aborted(e))
        return;
    if (httpd_result_json(res, &json) < 0)
        buf_reset(&json);
    if (res->status_code)
        snprintf(what, sizeof(what), "HTTP %ld", res->status_code);
    else
        snprintf(what, sizeof(what), "%s", httpd_outcome_name(res->outcome));
    struct attempt_result r = {
        .ok = res->outcome == HTTPD_OK,
        .retryable = true,
        .json = json.data,
        .what = what,
        .detail = res->message,
        .duration_ms = res->duration_ms,
    };
    exec_attempt_done(e, &r);
    buf_free(&json);
}

/* A failure found before anything was sent (e.g. an unresolvable template): never retried. */
void exec_fail_now(struct exec *e, const char *type, const char *message)
{
    exec_fail_attempt(e, type, message, false);
}

void exec_fail_attempt(struct exec *e, const char *type, const char *message, bool retryable)
{
    struct buf err = BUF_INIT;
    int rc = buf_puts(&err, "{\"type\":") | buf_json_str(&err, type, strlen(type)) |
             buf_puts(&err, ",\"message\":") | buf_json_str(&err, message, strlen(message)) |
             buf_putc(&err, '}');
    struct attempt_result r = {
        .ok = false,
        .retryable = retryable,
        .json = rc == 0 ? err.data : NULL,
        .what = type,
        .detail = message,
    };
    exec_attempt_done(e, &r);
    buf_free(&err);
}

static void send_http(struct exec *e, const struct template_vars *vars)
{
    char err[300];
    struct rendered r = {.url = BUF_INIT, .header_text = BUF_INIT};
    int rc = render_http(e, vars, &r, err, sizeof(err));
    if (rc != 0) {
        exec_fail_now(e, "TEMPLATE_RESOLUTION_FAILED",
                      rc == TEMPLATE_ENOMEM ? "out of memory" : err);
        goto done;
    }
    struct httpd_request hr = {
        .method = json_get(e->spec, "method")->valuestring,
        .url = r.url.data,
        .headers = r.headers,
        .nheaders = r.nheaders,
        .body = r.body,
        .body_len = r.body ? strlen(r.body) : 0,
        .timeout_ms = exec_timeout_ms(e),
        .expected_status = r.expected,
        .nexpected = r.nexpected,
    };
    exec_set_state(e, EXEC_DISPATCHING);
    if (httpd_send(e->w->httpd, &hr, on_http_done, e) < 0)
        exec_fail_now(e, "CONNECTION_ERROR", "the request could not be started");
done:
    rendered_free(&r);
}

static void exec_render(struct exec *e)
{
    struct worker *w = e->w;
    struct template_vars vars = {
        .input = e->input,
        .config = e->config_ref ? wcache_config(w->cache, e->config_ref, uv_now(w->loop)) : NULL,
        .secret = secret_lookup,
        .secret_arg = e,
    };
    exec_set_state(e, EXEC_DISPATCHING);
    switch (e->type) {
    case EP_HTTP:
        send_http(e, &vars);
        return;
    case EP_KAFKA:
        exec_send_kafka(e, &vars);
        return;
    case EP_REDIS_STREAM:
        exec_send_redis(e, &vars);
        return;
    }
    exec_fail_now(e, "UNSUPPORTED_TRANSPORT", "unknown endpoint type");
}

static void exec_record(struct exec *e, const struct outcome *oc)
{
    if (e->w->closing) {
        worker_exec_done(e);
        return;
    }
    exec_set_state(e, EXEC_RECORDING);
    outbox_add(e->w->outbox, e, oc, worker_exec_done);
}
