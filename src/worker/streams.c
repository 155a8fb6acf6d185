/*
 * KAFKA and REDIS_STREAM deliveries: render the endpoint's templates, hand the
 * message to the transport, turn its report into an attempt result. Each
 * delivery carries the execution id as its idempotency key (a Kafka header, a
 * stream field) and the attempt number, unless the endpoint sets them itself.
 */
#include "worker/worker_int.h"

#include "core/json.h"
#include "domain/template.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Rendered strings that must outlive the send call (the transports copy them). */
struct parts {
    char **owned;
    int n, cap;
};

/* Takes s over; NULL when s is NULL or cannot be kept (s is then freed). */
static const char *parts_keep(struct parts *p, char *s)
{
    if (s && p->n == p->cap) {
        int cap = p->cap ? p->cap * 2 : 16;
        char **owned = realloc(p->owned, (size_t)cap * sizeof(*owned));
        if (!owned) {
            free(s);
            return NULL;
        }
        p->owned = owned;
        p->cap = cap;
    }
    if (s)
        p->owned[p->n++] = s;
    return s;
}

static void parts_free(struct parts *p)
{
    for (int i = 0; i < p->n; i++)
        free(p->owned[i]);
    free(p->owned);
}

/* Renders a string value; NULL (with err set) when it does not resolve. */
static const char *render_value(const cJSON *v, const struct template_vars *vars, struct parts *p,
                                char *err, size_t errlen)
{
    struct buf out = BUF_INIT;
    if (!v || !cJSON_IsString(v))
        return NULL;
    if (template_render_string(v->valuestring, vars, &out, err, errlen) != 0) {
        buf_free(&out);
        return NULL;
    }
    return parts_keep(p, buf_steal(&out));
}

static const char *render_member(const cJSON *obj, const struct template_vars *vars,
                                 const char *field, struct parts *p, char *err, size_t errlen)
{
    return render_value(json_get(obj, field), vars, p, err, errlen);
}

static const char *render_field(struct exec *e, const struct template_vars *vars, const char *field,
                                struct parts *p, char *err, size_t errlen)
{
    return render_member(e->spec, vars, field, p, err, errlen);
}

/* A JSON value as message text: strings as they are, anything else as compact JSON. */
static const char *value_text(const cJSON *v, struct parts *p)
{
    return cJSON_IsString(v) ? v->valuestring : parts_keep(p, cJSON_PrintUnformatted(v));
}

static bool has_name(const cJSON *obj, const char *name)
{
    for (const cJSON *c = obj ? obj->child : NULL; c; c = c->next) {
        if (strcasecmp(c->string, name) == 0)
            return true;
    }
    return false;
}

static void report(struct exec *e, bool ok, bool retryable, const char *what, const char *detail,
                   int64_t duration_ms, struct buf *json)
{
    struct attempt_result r = {
        .ok = ok,
        .retryable = retryable,
        .json = json->data,
        .what = what,
        .detail = detail,
        .duration_ms = duration_ms,
    };
    exec_attempt_done(e, &r);
}

/* ---------------------------------------------------------------- Redis Streams */

static void on_redis_done(void *arg, const struct redisd_result *res)
{
    struct exec *e = arg;
    struct buf json = BUF_INIT;
    if (exec_aborted(e))
        return;
    if (redisd_result_json(res, &json) < 0)
        buf_reset(&json);
    report(e, res->outcome == REDISD_OK, res->retryable, redisd_outcome_name(res->outcome),
           res->message, res->duration_ms, &json);
    buf_free(&json);
}

/* max_len: an integer, or one placeholder that must resolve to a positive integer. */
static int redis_max_len(struct exec *e, const struct template_vars *vars, struct parts *p,
                         long *out, char *err, size_t errlen)
{
    const cJSON *v = json_get(e->spec, "max_len");
    *out = 0;
    if (!v)
        return 0;
    if (cJSON_IsNumber(v)) {
        *out = (long)v->valuedouble;
        return 0;
    }
    const char *text = render_field(e, vars, "max_len", p, err, errlen);
    char *end;
    if (!text)
        return -1;
    long n = strtol(text, &end, 10);
    if (!*text || *end || n < 1) {
        snprintf(err, errlen, "max_len resolved to \"%.40s\", not a positive integer", text);
        return -1;
    }
    *out = n;
    return 0;
}

void exec_send_redis(struct exec *e, const struct template_vars *vars)
{
    char err[300] = "out of memory", attempt[16];
    struct parts p = {0};
    struct redisd_field *fields = NULL;
    cJSON *rendered = NULL;
    int n = 0;
    long max_len;
    const char *url = render_field(e, vars, "redis_url", &p, err, sizeof(err));
    const char *stream = url ? render_field(e, vars, "stream", &p, err, sizeof(err)) : NULL;
    if (!stream || redis_max_len(e, vars, &p, &max_len, err, sizeof(err)) < 0 ||
        template_render(json_get(e->spec, "fields_template"), vars, &rendered, err, sizeof(err)) !=
            0)
        goto unresolvable;
    if (strncmp(url, "rediss://", 9) == 0) {
        exec_fail_now(e, "CONNECTION_ERROR", "rediss:// (TLS) is not supported by this build");
        goto done;
    }
    /* the template's fields, then idempotency_key and attempt */
    fields = calloc((size_t)cJSON_GetArraySize(rendered) + 2, sizeof(*fields));
    if (!fields)
        goto unresolvable;
    for (const cJSON *f = rendered->child; f; f = f->next) {
        const char *v = value_text(f, &p);
        if (!v)
            goto unresolvable;
        fields[n++] = (struct redisd_field){f->string, v};
    }
    snprintf(attempt, sizeof(attempt), "%d", e->attempt);
    if (!has_name(rendered, "idempotency_key"))
        fields[n++] = (struct redisd_field){"idempotency_key", e->id};
    if (!has_name(rendered, "attempt"))
        fields[n++] = (struct redisd_field){"attempt", attempt};
    const cJSON *approx = json_get(e->spec, "approximate_trimming");
    struct redisd_request rq = {
        .redis_url = url,
        .stream = stream,
        .fields = fields,
        .nfields = n,
        .max_len = max_len,
        .approximate = !approx || cJSON_IsTrue(approx),
        .timeout_ms = exec_timeout_ms(e),
    };
    if (redisd_send(e->w->redisd, &rq, on_redis_done, e) < 0)
        exec_fail_now(e, "CONNECTION_ERROR", "the XADD could not be started");
    goto done;
unresolvable:
    exec_fail_now(e, "TEMPLATE_RESOLUTION_FAILED", err);
done:
    free(fields);
    cJSON_Delete(rendered);
    parts_free(&p);
}

/* ---------------------------------------------------------------- Kafka */

static void on_kafka_done(void *arg, const struct kafkad_result *res)
{
    struct exec *e = arg;
    struct buf json = BUF_INIT;
    if (exec_aborted(e))
        return;
    if (kafkad_result_json(res, &json) < 0)
        buf_reset(&json);
    report(e, res->outcome == KAFKAD_OK, true, kafkad_outcome_name(res->outcome), res->message,
           res->duration_ms, &json);
    buf_free(&json);
}

/* The endpoint's headers rendered, then Idempotency-Key and X-Taskexec-Attempt; *out is malloc'd.
 */
static int kafka_headers(struct exec *e, const struct template_vars *vars, struct parts *p,
                         const char *attempt, struct kafkad_header **out, int *n, char *err,
                         size_t errlen)
{
    const cJSON *headers = json_get(e->spec, "headers");
    struct kafkad_header *h = calloc((size_t)cJSON_GetArraySize(headers) + 2, sizeof(*h));
    if (!h)
        return -1;
    *out = h;
    for (const cJSON *c = headers ? headers->child : NULL; c; c = c->next) {
        const char *v = render_value(c, vars, p, err, errlen);
        if (!v)
            return -1;
        h[(*n)++] = (struct kafkad_header){c->string, v, strlen(v)};
    }
    if (!has_name(headers, "Idempotency-Key"))
        h[(*n)++] = (struct kafkad_header){"Idempotency-Key", e->id, strlen(e->id)};
    if (!has_name(headers, "X-Taskexec-Attempt"))
        h[(*n)++] = (struct kafkad_header){"X-Taskexec-Attempt", attempt, strlen(attempt)};
    return 0;
}

/* spec.security, rendered; absent members stay NULL (librdkafka's defaults). */
static int kafka_security(struct exec *e, const struct template_vars *vars, struct parts *p,
                          struct kafkad_security *sec, char *err, size_t errlen)
{
    static const char *const names[] = {"protocol", "sasl_mechanism", "sasl_username",
                                        "sasl_password", "ssl_ca_location"};
    const char **slots[] = {&sec->protocol, &sec->sasl_mechanism, &sec->sasl_username,
                            &sec->sasl_password, &sec->ssl_ca_location};
    const cJSON *obj = json_get(e->spec, "security");
    *sec = (struct kafkad_security){0};
    for (size_t i = 0; obj && i < TE_ARRAY_LEN(names); i++) {
        if (!json_get(obj, names[i]))
            continue;
        if (!(*slots[i] = render_member(obj, vars, names[i], p, err, errlen)))
            return -1;
    }
    return 0;
}

/* kafkad_send() refusals that a later attempt may not meet again. */
static bool kafka_refusal_transient(int rc)
{
    return rc == -ENOBUFS || rc == -ENOMEM || rc == -EMFILE || rc == -ENFILE;
}

void exec_send_kafka(struct exec *e, const struct template_vars *vars)
{
    char err[300] = "out of memory", attempt[16];
    struct parts p = {0};
    struct kafkad_header *headers = NULL;
    int nh = 0, rc;
    struct kafkad_security sec;
    cJSON *value = NULL;
    const char *servers = render_field(e, vars, "bootstrap_servers", &p, err, sizeof(err));
    const char *topic = servers ? render_field(e, vars, "topic", &p, err, sizeof(err)) : NULL;
    const char *key = NULL, *value_text_s = NULL;
    snprintf(attempt, sizeof(attempt), "%d", e->attempt);
    if (!topic || kafka_security(e, vars, &p, &sec, err, sizeof(err)) < 0)
        goto unresolvable;
    if (!endpoint_kafka_topic_valid(topic)) {
        snprintf(err, sizeof(err), "topic \"%.60s\" is not a valid Kafka topic name", topic);
        exec_fail_now(e, "BROKER_ERROR", err);
        goto done;
    }
    if (json_get(e->spec, "key_template") &&
        !(key = render_field(e, vars, "key_template", &p, err, sizeof(err))))
        goto unresolvable;
    if (template_render(json_get(e->spec, "value_template"), vars, &value, err, sizeof(err)) != 0 ||
        !(value_text_s = parts_keep(&p, cJSON_PrintUnformatted(value))) ||
        kafka_headers(e, vars, &p, attempt, &headers, &nh, err, sizeof(err)) < 0)
        goto unresolvable;
    const cJSON *acks = json_get(e->spec, "acks");
    struct kafkad_request rq = {
        .bootstrap_servers = servers,
        .security = sec,
        .acks = acks ? acks->valuestring : "all",
        .topic = topic,
        .key = key,
        .key_len = key ? strlen(key) : 0,
        .value = value_text_s,
        .value_len = strlen(value_text_s),
        .headers = headers,
        .nheaders = nh,
        .timeout_ms = exec_timeout_ms(e),
    };
    rc = kafkad_send(e->w->kafkad, &rq, on_kafka_done, e);
    if (rc < 0)
        exec_fail_attempt(e, "BROKER_ERROR", kafkad_error(e->w->kafkad),
                          kafka_refusal_transient(rc));
    goto done;
unresolvable:
    exec_fail_now(e, "TEMPLATE_RESOLUTION_FAILED", err);
done:
    free(headers);
    cJSON_Delete(value);
    parts_free(&p);
}
