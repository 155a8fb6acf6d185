#include "domain/endpoint.h"

#include "core/json.h"
#include "domain/template.h"

#include <stdio.h>
#include <string.h>

#define TIMEOUT_MAX_MS 3600000

typedef int (*field_check)(const cJSON *v, const char *name, char *err, size_t errlen);

struct spec_field {
    const char *name;
    unsigned types;
    bool required;
    field_check check;
    const char *default_json; /* inserted when absent */
};

bool resource_name_valid(const char *s, size_t len)
{
    if (len < 1 || len > 128)
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!alnum && (i == 0 || (c != '-' && c != '_')))
            return false;
    }
    return true;
}

static int check_nonempty(const cJSON *v, const char *name, char *err, size_t errlen)
{
    if (v->valuestring[0] == '\0') {
        snprintf(err, errlen, "field 'spec.%s' must not be empty", name);
        return ENDPOINT_EINVAL;
    }
    return 0;
}

static int refuse_input(void *arg, const struct template_ref *r)
{
    (void)arg;
    return r->ns == TPL_INPUT ? 1 : 0;
}

/*
 * Fields that pick a connection (a broker, a Redis server) take {{config.*}}
 * and {{secret.*}} only: each distinct value opens connections (a Kafka
 * producer runs threads of its own), so job input must not choose them.
 */
static int check_no_input(const char *s, const char *name, char *err, size_t errlen)
{
    char terr[200];
    if (template_scan(s, strlen(s), refuse_input, NULL, terr, sizeof(terr)) == 1) {
        snprintf(err, errlen,
                 "field 'spec.%s' may use {{config.*}} and {{secret.*}} placeholders only: job "
                 "input cannot choose where to connect",
                 name);
        return ENDPOINT_EINVAL;
    }
    return 0;
}

static int check_connection(const cJSON *v, const char *name, char *err, size_t errlen)
{
    int rc = check_nonempty(v, name, err, errlen);
    return rc ? rc : check_no_input(v->valuestring, name, err, errlen);
}

static int check_method(const cJSON *v, const char *name, char *err, size_t errlen)
{
    static const char *const methods[] = {"GET", "POST", "PUT", "PATCH", "DELETE"};
    for (size_t i = 0; i < TE_ARRAY_LEN(methods); i++) {
        if (strcmp(v->valuestring, methods[i]) == 0)
            return 0;
    }
    snprintf(err, errlen, "field 'spec.%s' must be one of GET, POST, PUT, PATCH, DELETE", name);
    return ENDPOINT_EINVAL;
}

/* Header names are HTTP tokens; values strings without CR/LF. */
static int check_headers(const cJSON *v, const char *name, char *err, size_t errlen)
{
    for (const cJSON *h = v->child; h; h = h->next) {
        if (!cJSON_IsString(h)) {
            snprintf(err, errlen, "field 'spec.%s.%s' must be a string", name, h->string);
            return ENDPOINT_EINVAL;
        }
        bool token = h->string[0] != '\0';
        for (const char *p = h->string; *p; p++)
            token &= (*p > 32 && *p < 127 && !strchr("()<>@,;:\\\"/[]?={}", *p));
        if (!token) {
            snprintf(err, errlen, "field 'spec.%s': '%s' is not a valid header name", name,
                     h->string);
            return ENDPOINT_EINVAL;
        }
        if (strpbrk(h->valuestring, "\r\n")) {
            snprintf(err, errlen, "field 'spec.%s.%s' must not contain line breaks", name,
                     h->string);
            return ENDPOINT_EINVAL;
        }
    }
    return 0;
}

static int check_timeout(const cJSON *v, const char *name, char *err, size_t errlen)
{
    if (v->valuedouble < 1 || v->valuedouble > TIMEOUT_MAX_MS) {
        snprintf(err, errlen, "field 'spec.%s' must be between 1 and %d", name, TIMEOUT_MAX_MS);
        return ENDPOINT_EINVAL;
    }
    return 0;
}

bool endpoint_kafka_topic_valid(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 249 || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return false;
    }
    return true;
}

/* A literal topic is checked now; one with placeholders when it is rendered. */
static int check_topic(const cJSON *v, const char *name, char *err, size_t errlen)
{
    if (check_nonempty(v, name, err, errlen))
        return ENDPOINT_EINVAL;
    if (strstr(v->valuestring, "{{") || endpoint_kafka_topic_valid(v->valuestring))
        return 0;
    snprintf(err, errlen,
             "field 'spec.%s' must be a Kafka topic name: 1 to 249 letters, digits, '.', '_' or "
             "'-'",
             name);
    return ENDPOINT_EINVAL;
}

static int check_status_codes(const cJSON *v, const char *name, char *err, size_t errlen)
{
    if (cJSON_GetArraySize(v) == 0) {
        snprintf(err, errlen, "field 'spec.%s' must not be empty", name);
        return ENDPOINT_EINVAL;
    }
    for (const cJSON *c = v->child; c; c = c->next) {
        if (!json_is_int(c) || c->valuedouble < 100 || c->valuedouble > 599) {
            snprintf(err, errlen, "field 'spec.%s' must hold HTTP status codes (100-599)", name);
            return ENDPOINT_EINVAL;
        }
    }
    return 0;
}

static int check_acks(const cJSON *v, const char *name, char *err, size_t errlen)
{
    const char *s = v->valuestring;
    if (strcmp(s, "0") && strcmp(s, "1") && strcmp(s, "all")) {
        snprintf(err, errlen, "field 'spec.%s' must be \"0\", \"1\" or \"all\"", name);
        return ENDPOINT_EINVAL;
    }
    return 0;
}

struct one_ref {
    int n;
    enum template_ns ns;
    size_t start, end; /* of the last placeholder seen */
};

static int count_ref(void *arg, const struct template_ref *r)
{
    struct one_ref *o = arg;
    o->n++;
    o->ns = r->ns;
    o->start = r->start;
    o->end = r->end;
    return 0;
}

/* True when s is one placeholder spanning the whole string ("{{config.a}}0}}" is not). */
static bool single_placeholder(const char *s, enum template_ns *ns)
{
    size_t len = strlen(s);
    struct one_ref one = {0};
    char terr[200];
    if (template_scan(s, len, count_ref, &one, terr, sizeof(terr)) != 0 || one.n != 1 ||
        one.start != 0 || one.end != len)
        return false;
    *ns = one.ns;
    return true;
}

static int check_max_len(const cJSON *v, const char *name, char *err, size_t errlen)
{
    enum template_ns ns;
    if (cJSON_IsString(v)) {
        /* Exactly one placeholder, resolved at run time. */
        if (!single_placeholder(v->valuestring, &ns)) {
            snprintf(err, errlen,
                     "field 'spec.%s' must be a positive integer or one placeholder such as "
                     "\"{{config.max_stream_length}}\"",
                     name);
            return ENDPOINT_EINVAL;
        }
        return 0;
    }
    if (v->valuedouble < 1) {
        snprintf(err, errlen, "field 'spec.%s' must be a positive integer", name);
        return ENDPOINT_EINVAL;
    }
    return 0;
}

static int check_redis_url(const cJSON *v, const char *name, char *err, size_t errlen)
{
    const char *s = v->valuestring;
    if (check_connection(v, name, err, errlen))
        return ENDPOINT_EINVAL;
    if (strncmp(s, "{{", 2) == 0)
        return 0; /* resolved at run time; checked then */
    if (strncmp(s, "rediss://", 9) == 0) {
        snprintf(err, errlen,
                 "field 'spec.%s': rediss:// (TLS) is not supported by this build; use redis://",
                 name);
        return ENDPOINT_EUNSUPPORTED;
    }
    if (strncmp(s, "redis://", 8) != 0) {
        snprintf(err, errlen, "field 'spec.%s' must be a redis:// URL", name);
        return ENDPOINT_EINVAL;
    }
    return 0;
}

/* True when s is exactly one {{secret.NAME}} placeholder. */
static bool is_secret_placeholder(const char *s)
{
    enum template_ns ns;
    return single_placeholder(s, &ns) && ns == TPL_SECRET;
}

static bool one_of(const char *s, const char *const *set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, set[i]) == 0)
            return true;
    return false;
}

/*
 * KAFKA spec.security: librdkafka's security.protocol and SASL/SSL settings.
 * A SASL password must come from a secret, so that it is sealed at rest and
 * never returned by GET /endpoints.
 */
static int check_kafka_security(const cJSON *v, const char *name, char *err, size_t errlen)
{
    static const char *const protocols[] = {"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"};
    static const char *const mechanisms[] = {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"};
    static const struct json_field fields[] = {
        {"protocol", JT_STRING, true},         {"sasl_mechanism", JT_STRING, false},
        {"sasl_username", JT_STRING, false},   {"sasl_password", JT_STRING, false},
        {"ssl_ca_location", JT_STRING, false},
    };
    char path[64];
    if (json_check_fields(v, fields, TE_ARRAY_LEN(fields), "spec.security.", err, errlen) < 0)
        return ENDPOINT_EINVAL;
    for (const cJSON *c = v->child; c; c = c->next) {
        snprintf(path, sizeof(path), "%s.%s", name, c->string);
        if (cJSON_IsString(c) && check_no_input(c->valuestring, path, err, errlen))
            return ENDPOINT_EINVAL;
    }
    const char *proto = json_get(v, "protocol")->valuestring;
    const cJSON *mech = json_get(v, "sasl_mechanism"), *user = json_get(v, "sasl_username"),
                *pass = json_get(v, "sasl_password"), *ca = json_get(v, "ssl_ca_location");
    if (!one_of(proto, protocols, TE_ARRAY_LEN(protocols))) {
        snprintf(err, errlen,
                 "field 'spec.%s.protocol' must be PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL",
                 name);
        return ENDPOINT_EINVAL;
    }
    bool sasl = strncmp(proto, "SASL_", 5) == 0, ssl = strstr(proto, "SSL") != NULL;
    if (!sasl && (mech || user || pass)) {
        snprintf(err, errlen, "fields 'spec.%s.sasl_*' need protocol SASL_PLAINTEXT or SASL_SSL",
                 name);
        return ENDPOINT_EINVAL;
    }
    if (sasl && !(mech && user && pass)) {
        snprintf(err, errlen,
                 "protocol %s needs 'spec.%s.sasl_mechanism', 'sasl_username' and "
                 "'sasl_password'",
                 proto, name);
        return ENDPOINT_EINVAL;
    }
    if (mech && !one_of(mech->valuestring, mechanisms, TE_ARRAY_LEN(mechanisms))) {
        snprintf(err, errlen,
                 "field 'spec.%s.sasl_mechanism' must be PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512",
                 name);
        return ENDPOINT_EINVAL;
    }
    if (user && user->valuestring[0] == '\0') {
        snprintf(err, errlen, "field 'spec.%s.sasl_username' must not be empty", name);
        return ENDPOINT_EINVAL;
    }
    if (pass && !is_secret_placeholder(pass->valuestring)) {
        snprintf(err, errlen,
                 "field 'spec.%s.sasl_password' must be one placeholder such as "
                 "\"{{secret.kafka_password}}\" (passwords are stored as secrets)",
                 name);
        return ENDPOINT_EINVAL;
    }
    if (ca && (!ssl || ca->valuestring[0] == '\0')) {
        snprintf(err, errlen,
                 "field 'spec.%s.ssl_ca_location' needs protocol SSL or SASL_SSL and a path", name);
        return ENDPOINT_EINVAL;
    }
    return 0;
}

static const struct spec_field http_fields[] = {
    {"url", JT_STRING, true, check_nonempty, NULL},
    {"method", JT_STRING, true, check_method, NULL},
    {"headers", JT_OBJECT, false, check_headers, NULL},
    {"body_template", JT_OBJECT | JT_ARRAY, false, NULL, NULL},
    {"timeout_ms", JT_INT, false, check_timeout, "10000"},
    {"expected_status_codes", JT_ARRAY, false, check_status_codes, "[200,201,202,204]"},
};

static const struct spec_field kafka_fields[] = {
    {"bootstrap_servers", JT_STRING, true, check_connection, NULL},
    {"topic", JT_STRING, true, check_topic, NULL},
    {"key_template", JT_STRING, false, NULL, NULL},
    {"value_template", JT_OBJECT, true, NULL, NULL},
    {"headers", JT_OBJECT, false, check_headers, NULL},
    {"acks", JT_STRING, false, check_acks, "\"all\""},
    {"timeout_ms", JT_INT, false, check_timeout, "10000"},
    {"security", JT_OBJECT, false, check_kafka_security, NULL},
};

static const struct spec_field redis_fields[] = {
    {"redis_url", JT_STRING, true, check_redis_url, NULL},
    {"stream", JT_STRING, true, check_nonempty, NULL},
    {"fields_template", JT_OBJECT, true, NULL, NULL},
    {"max_len", JT_INT | JT_STRING, false, check_max_len, NULL},
    {"approximate_trimming", JT_BOOL, false, NULL, "true"},
    {"timeout_ms", JT_INT, false, check_timeout, "3000"},
};

static const struct {
    const char *name;
    const struct spec_field *fields;
    size_t n;
} types[] = {
    [EP_HTTP] = {"HTTP", http_fields, TE_ARRAY_LEN(http_fields)},
    [EP_KAFKA] = {"KAFKA", kafka_fields, TE_ARRAY_LEN(kafka_fields)},
    [EP_REDIS_STREAM] = {"REDIS_STREAM", redis_fields, TE_ARRAY_LEN(redis_fields)},
};

#define NORMALIZE_MAX_FIELDS 16
_Static_assert(TE_ARRAY_LEN(http_fields) <= NORMALIZE_MAX_FIELDS, "http_fields too long");
_Static_assert(TE_ARRAY_LEN(kafka_fields) <= NORMALIZE_MAX_FIELDS, "kafka_fields too long");
_Static_assert(TE_ARRAY_LEN(redis_fields) <= NORMALIZE_MAX_FIELDS, "redis_fields too long");

int endpoint_type_parse(const char *s, enum endpoint_type *out)
{
    for (size_t i = 0; i < TE_ARRAY_LEN(types); i++) {
        if (strcmp(s, types[i].name) == 0) {
            *out = (enum endpoint_type)i;
            return 0;
        }
    }
    return -1;
}

const char *endpoint_type_name(enum endpoint_type t)
{
    return types[t].name;
}

/* Checks field list + value rules, then adds defaults to a copy. */
static int normalize_object(const cJSON *in, const struct spec_field *f, size_t n,
                            const char *where, cJSON **out, char *err, size_t errlen)
{
    struct json_field jf[NORMALIZE_MAX_FIELDS] = {{0}};
    if (n > TE_ARRAY_LEN(jf))
        n = TE_ARRAY_LEN(jf);
    for (size_t i = 0; i < n; i++)
        jf[i] = (struct json_field){f[i].name, f[i].types, f[i].required};
    if (json_check_fields(in, jf, n, where, err, errlen) < 0)
        return ENDPOINT_EINVAL;
    for (size_t i = 0; i < n; i++) {
        const cJSON *v = json_get(in, f[i].name);
        int rc = v && f[i].check ? f[i].check(v, f[i].name, err, errlen) : 0;
        if (rc)
            return rc;
    }
    cJSON *copy = cJSON_Duplicate(in, true);
    if (!copy)
        goto oom;
    /* Explicit nulls mean "absent": drop them so defaults apply. */
    for (size_t i = 0; i < n; i++) {
        cJSON *v = cJSON_GetObjectItemCaseSensitive(copy, f[i].name);
        if (v && cJSON_IsNull(v))
            cJSON_DeleteItemFromObjectCaseSensitive(copy, f[i].name);
        if (!cJSON_GetObjectItemCaseSensitive(copy, f[i].name) && f[i].default_json) {
            cJSON *d = cJSON_Parse(f[i].default_json);
            if (!d || !cJSON_AddItemToObject(copy, f[i].name, d)) {
                cJSON_Delete(d);
                cJSON_Delete(copy);
                goto oom;
            }
        }
    }
    *out = copy;
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return ENDPOINT_EINVAL;
}

int endpoint_spec_normalize(enum endpoint_type t, const cJSON *spec, cJSON **out, char *err,
                            size_t errlen)
{
    char terr[300];
    int rc = normalize_object(spec, types[t].fields, types[t].n, "spec.", out, err, errlen);
    if (rc)
        return rc;
    if (template_scan_json(*out, "spec", NULL, NULL, terr, sizeof(terr)) != 0) {
        snprintf(err, errlen, "%s", terr);
        cJSON_Delete(*out);
        *out = NULL;
        return ENDPOINT_EINVAL;
    }
    return 0;
}

static int check_attempts(const cJSON *v, const char *name, char *err, size_t errlen)
{
    if (v->valuedouble < 1 || v->valuedouble > RETRY_MAX_ATTEMPTS) {
        snprintf(err, errlen, "field 'retry_policy.%s' must be between 1 and %d", name,
                 RETRY_MAX_ATTEMPTS);
        return ENDPOINT_EINVAL;
    }
    return 0;
}

static int check_backoff(const cJSON *v, const char *name, char *err, size_t errlen)
{
    const char *s = v->valuestring;
    if (strcmp(s, "fixed") && strcmp(s, "linear") && strcmp(s, "exponential")) {
        snprintf(err, errlen, "field 'retry_policy.%s' must be fixed, linear or exponential", name);
        return ENDPOINT_EINVAL;
    }
    return 0;
}

static int check_delay(const cJSON *v, const char *name, char *err, size_t errlen)
{
    if (v->valuedouble < 0 || v->valuedouble > RETRY_MAX_DELAY_MS) {
        snprintf(err, errlen, "field 'retry_policy.%s' must be between 0 and %d", name,
                 RETRY_MAX_DELAY_MS);
        return ENDPOINT_EINVAL;
    }
    return 0;
}

static const struct spec_field retry_fields[] = {
    {"max_attempts", JT_INT, false, check_attempts, "1"},
    {"backoff", JT_STRING, false, check_backoff, "\"exponential\""},
    {"initial_delay_ms", JT_INT, false, check_delay, "1000"},
    {"max_delay_ms", JT_INT, false, check_delay, "60000"},
};
_Static_assert(TE_ARRAY_LEN(retry_fields) <= NORMALIZE_MAX_FIELDS, "retry_fields too long");

int endpoint_retry_normalize(const cJSON *retry, cJSON **out, char *err, size_t errlen)
{
    cJSON *empty = NULL;
    if (!retry) {
        empty = cJSON_CreateObject();
        if (!empty) {
            snprintf(err, errlen, "out of memory");
            return ENDPOINT_EINVAL;
        }
        retry = empty;
    }
    int rc = normalize_object(retry, retry_fields, TE_ARRAY_LEN(retry_fields), "retry_policy.", out,
                              err, errlen);
    cJSON_Delete(empty);
    return rc;
}

int endpoint_retry_read(const cJSON *retry, struct retry_policy *out)
{
    const cJSON *a = json_get(retry, "max_attempts"), *b = json_get(retry, "backoff"),
                *i = json_get(retry, "initial_delay_ms"), *m = json_get(retry, "max_delay_ms");
    if (!json_is_int(a) || !cJSON_IsString(b) || !json_is_int(i) || !json_is_int(m))
        return -1;
    out->max_attempts = (int)a->valuedouble;
    if (strcmp(b->valuestring, "fixed") == 0)
        out->backoff = BACKOFF_FIXED;
    else if (strcmp(b->valuestring, "linear") == 0)
        out->backoff = BACKOFF_LINEAR;
    else
        out->backoff = BACKOFF_EXPONENTIAL;
    out->initial_delay_ms = (int64_t)i->valuedouble;
    out->max_delay_ms = (int64_t)m->valuedouble;
    return 0;
}

struct refs_ctx {
    struct buf *out;
    size_t start; /* offset of our '{' in out: the buffer may hold text before it */
    int count;
    char *err;
    size_t errlen;
};

static int collect_secret(void *arg, const struct template_ref *r)
{
    struct refs_ctx *c = arg;
    if (r->ns != TPL_SECRET)
        return 0;
    if (!resource_name_valid(r->path, r->path_len)) {
        snprintf(c->err, c->errlen, "spec: '{{secret.%.*s}}' is not a valid secret name",
                 (int)r->path_len, r->path);
        return ENDPOINT_EINVAL;
    }
    /* Skip names already listed: "{a,b" holds ",name" or "{name" boundaries. */
    const char *d = c->out->data + c->start + 1;
    while (d && *d) {
        size_t n = strcspn(d, ",}");
        if (n == r->path_len && memcmp(d, r->path, n) == 0)
            return 0;
        d += n;
        if (*d)
            d++;
    }
    if ((c->count++ && buf_putc(c->out, ',') < 0) || buf_append(c->out, r->path, r->path_len) < 0)
        return ENDPOINT_EINVAL;
    return 0;
}

int endpoint_secret_refs(const cJSON *spec, struct buf *out, char *err, size_t errlen)
{
    struct refs_ctx c = {out, out->len, 0, err, errlen};
    if (buf_putc(out, '{') < 0)
        return ENDPOINT_EINVAL;
    int rc = template_scan_json(spec, "spec", collect_secret, &c, err, errlen);
    if (rc)
        return rc < 0 ? rc : ENDPOINT_EINVAL;
    return buf_putc(out, '}') < 0 ? ENDPOINT_EINVAL : 0;
}
