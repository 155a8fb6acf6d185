/*
 * domain/endpoint: per-type spec validation and normalization (one table of
 * input -> normalized output or error), retry policies, secret references and
 * resource names.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "domain/endpoint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

#define MALFORMED(ch)                                                                              \
    "malformed placeholder at character " #ch                                                      \
    " (expected {{input.x}}, {{config.x}} or {{secret.x}})"

static cJSON *parse(const char *text)
{
    cJSON *v = cJSON_Parse(text);
    if (!v)
        fail_msg("bad test JSON: %s", text);
    return v;
}

static char *print(const cJSON *v)
{
    char *s = cJSON_PrintUnformatted(v);
    assert_non_null(s);
    return s;
}

/* ---- endpoint types ---- */

static void test_type_parse(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        int rc;
        enum endpoint_type t;
    } cases[] = {
        {"HTTP", 0, EP_HTTP},
        {"KAFKA", 0, EP_KAFKA},
        {"REDIS_STREAM", 0, EP_REDIS_STREAM},
        {"http", -1, EP_HTTP},
        {"Kafka", -1, EP_HTTP},
        {"REDIS", -1, EP_HTTP},
        {"REDIS_STREAMS", -1, EP_HTTP},
        {"", -1, EP_HTTP},
        {"HTTP ", -1, EP_HTTP},
    };
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        enum endpoint_type t = (enum endpoint_type)99;
        int rc = endpoint_type_parse(cases[i].s, &t);
        if (rc != cases[i].rc)
            fail_msg("endpoint_type_parse('%s') = %d", cases[i].s, rc);
        if (rc == 0) {
            assert_int_equal(t, cases[i].t);
            assert_string_equal(endpoint_type_name(t), cases[i].s);
        } else {
            assert_int_equal(t, 99);
        }
    }
}

/* ---- spec normalization ---- */

struct spec_case {
    enum endpoint_type type;
    const char *in;
    int rc;
    const char *out; /* rc 0: the normalized spec (member order does not matter) */
    const char *err; /* rc != 0: exact message */
};

/* clang-format off */
#define SPEC_OK(t, in, out) {t, in, 0, out, NULL}
#define SPEC_BAD(t, in, err) {t, in, ENDPOINT_EINVAL, NULL, err}
#define SPEC_UNSUP(t, in, err) {t, in, ENDPOINT_EUNSUPPORTED, NULL, err}
/* clang-format on */

#define HTTP_MIN "\"url\":\"https://h/x\",\"method\":\"POST\""
#define HTTP_DEF "\"timeout_ms\":10000,\"expected_status_codes\":[200,201,202,204]"
#define KAFKA_MIN "\"bootstrap_servers\":\"b:9092\",\"topic\":\"t\",\"value_template\":{\"a\":1}"
#define KAFKA_DEF "\"acks\":\"all\",\"timeout_ms\":10000"
#define REDIS_MIN                                                                                  \
    "\"redis_url\":\"redis://h:6379\",\"stream\":\"s\",\"fields_template\":{\"f\":\"v\"}"
#define REDIS_DEF "\"approximate_trimming\":true,\"timeout_ms\":3000"

static const struct spec_case spec_cases[] = {
    /* ---- HTTP ---- */
    SPEC_OK(EP_HTTP, "{" HTTP_MIN "}", "{" HTTP_MIN "," HTTP_DEF "}"),
    SPEC_OK(EP_HTTP, "{\"url\":\"u\",\"method\":\"GET\"}",
            "{\"url\":\"u\",\"method\":\"GET\"," HTTP_DEF "}"),
    SPEC_OK(EP_HTTP, "{\"url\":\"u\",\"method\":\"PUT\"}",
            "{\"url\":\"u\",\"method\":\"PUT\"," HTTP_DEF "}"),
    SPEC_OK(EP_HTTP, "{\"url\":\"u\",\"method\":\"PATCH\"}",
            "{\"url\":\"u\",\"method\":\"PATCH\"," HTTP_DEF "}"),
    SPEC_OK(EP_HTTP, "{\"url\":\"u\",\"method\":\"DELETE\"}",
            "{\"url\":\"u\",\"method\":\"DELETE\"," HTTP_DEF "}"),
    SPEC_OK(EP_HTTP,
            "{" HTTP_MIN ",\"timeout_ms\":1,\"expected_status_codes\":[100,599],"
            "\"headers\":{\"X-Id\":\"{{input.id}}\",\"Authorization\":\"Bearer {{secret.tok}}\"},"
            "\"body_template\":{\"a\":[\"{{input.a}}\",2]}}",
            "{" HTTP_MIN ",\"timeout_ms\":1,\"expected_status_codes\":[100,599],"
            "\"headers\":{\"X-Id\":\"{{input.id}}\",\"Authorization\":\"Bearer {{secret.tok}}\"},"
            "\"body_template\":{\"a\":[\"{{input.a}}\",2]}}"),
    SPEC_OK(EP_HTTP, "{" HTTP_MIN ",\"timeout_ms\":3600000,\"body_template\":[1,\"x\"]}",
            "{" HTTP_MIN ",\"timeout_ms\":3600000,\"body_template\":[1,\"x\"],"
            "\"expected_status_codes\":[200,201,202,204]}"),
    SPEC_OK(EP_HTTP, "{" HTTP_MIN ",\"headers\":{}}", "{" HTTP_MIN ",\"headers\":{}," HTTP_DEF "}"),
    SPEC_OK(EP_HTTP, "{" HTTP_MIN ",\"headers\":{\"X-Empty\":\"\",\"!#$%&'*+-.^_`|~\":\"v\"}}",
            "{" HTTP_MIN ",\"headers\":{\"X-Empty\":\"\",\"!#$%&'*+-.^_`|~\":\"v\"}," HTTP_DEF "}"),
    /* explicit nulls for optional fields: defaults apply, nulls are dropped */
    SPEC_OK(EP_HTTP,
            "{" HTTP_MIN ",\"timeout_ms\":null,\"expected_status_codes\":null,\"headers\":null,"
            "\"body_template\":null}",
            "{" HTTP_MIN "," HTTP_DEF "}"),
    SPEC_BAD(EP_HTTP, "{\"method\":\"GET\"}", "missing required field 'spec.url'"),
    SPEC_BAD(EP_HTTP, "{\"url\":\"u\"}", "missing required field 'spec.method'"),
    SPEC_BAD(EP_HTTP, "{\"url\":null,\"method\":\"GET\"}", "field 'spec.url' must be a string"),
    SPEC_BAD(EP_HTTP, "{\"url\":\"\",\"method\":\"GET\"}", "field 'spec.url' must not be empty"),
    SPEC_BAD(EP_HTTP, "{\"url\":5,\"method\":\"GET\"}", "field 'spec.url' must be a string"),
    SPEC_BAD(EP_HTTP, "{\"url\":\"u\",\"method\":\"get\"}",
             "field 'spec.method' must be one of GET, POST, PUT, PATCH, DELETE"),
    SPEC_BAD(EP_HTTP, "{\"url\":\"u\",\"method\":\"HEAD\"}",
             "field 'spec.method' must be one of GET, POST, PUT, PATCH, DELETE"),
    SPEC_BAD(EP_HTTP, "{\"url\":\"u\",\"method\":\"OPTIONS\"}",
             "field 'spec.method' must be one of GET, POST, PUT, PATCH, DELETE"),
    SPEC_BAD(EP_HTTP, "{\"url\":\"u\",\"method\":\"POST \"}",
             "field 'spec.method' must be one of GET, POST, PUT, PATCH, DELETE"),
    SPEC_BAD(EP_HTTP, "{\"url\":\"u\",\"method\":\"\"}",
             "field 'spec.method' must be one of GET, POST, PUT, PATCH, DELETE"),
    SPEC_BAD(EP_HTTP, "{\"url\":\"u\",\"method\":1}", "field 'spec.method' must be a string"),
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"x\":1}", "unknown field 'spec.x'"),
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"URL\":\"u\"}", "unknown field 'spec.URL'"),
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"acks\":\"all\"}", "unknown field 'spec.acks'"),
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"url\":\"v\"}", "field 'spec.url' appears twice"),
    SPEC_BAD(EP_HTTP, "[]", "field 'spec' must be an object"),
    SPEC_BAD(EP_HTTP, "\"spec\"", "field 'spec' must be an object"),
    /* headers */
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"headers\":[]}", "field 'spec.headers' must be an object"),
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"headers\":{\"Bad Name\":\"v\"}}",
             "field 'spec.headers': 'Bad Name' is not a valid header name"),
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"headers\":{\"\":\"v\"}}",
             "field 'spec.headers': '' is not a valid header name"),
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"headers\":{\"X:Y\":\"v\"}}",
             "field 'spec.headers': 'X:Y' is not a valid header name"),
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"headers\":{\"X(Y)\":\"v\"}}",
             "field 'spec.headers': 'X(Y)' is not a valid header name"),
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"headers\":{\"X\\u0001\":\"v\"}}",
             "field 'spec.headers': 'X\x01' is not a valid header name"),
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"headers\":{\"X-\xc3\xa9\":\"v\"}}",
             "field 'spec.headers': 'X-\xc3\xa9' is not a valid header name"),
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"headers\":{\"X-A\":\"a\\r\\nX-B: b\"}}",
             "field 'spec.headers.X-A' must not contain line breaks"),
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"headers\":{\"X-A\":\"a\\nb\"}}",
             "field 'spec.headers.X-A' must not contain line breaks"),
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"headers\":{\"X-A\":1}}",
             "field 'spec.headers.X-A' must be a string"),
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"headers\":{\"X-A\":null}}",
             "field 'spec.headers.X-A' must be a string"),
    /* timeout */
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"timeout_ms\":0}",
             "field 'spec.timeout_ms' must be between 1 and 3600000"),
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"timeout_ms\":-5}",
             "field 'spec.timeout_ms' must be between 1 and 3600000"),
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"timeout_ms\":3600001}",
             "field 'spec.timeout_ms' must be between 1 and 3600000"),
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"timeout_ms\":1.5}",
             "field 'spec.timeout_ms' must be an integer"),
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"timeout_ms\":\"100\"}",
             "field 'spec.timeout_ms' must be an integer"),
    /* status codes */
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"expected_status_codes\":[]}",
             "field 'spec.expected_status_codes' must not be empty"),
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"expected_status_codes\":[99]}",
             "field 'spec.expected_status_codes' must hold HTTP status codes (100-599)"),
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"expected_status_codes\":[200,600]}",
             "field 'spec.expected_status_codes' must hold HTTP status codes (100-599)"),
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"expected_status_codes\":[200.5]}",
             "field 'spec.expected_status_codes' must hold HTTP status codes (100-599)"),
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"expected_status_codes\":[\"200\"]}",
             "field 'spec.expected_status_codes' must hold HTTP status codes (100-599)"),
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"expected_status_codes\":200}",
             "field 'spec.expected_status_codes' must be an array"),
    /* body template */
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"body_template\":\"x\"}",
             "field 'spec.body_template' must be an object or an array"),
    /* placeholders are checked everywhere, with the path in the message */
    SPEC_BAD(EP_HTTP, "{\"url\":\"https://h/{{inptu.id}}\",\"method\":\"GET\"}",
             "spec.url: " MALFORMED(11)),
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"headers\":{\"Authorization\":\"Bearer {{secret.t}\"}}",
             "spec.headers.Authorization: " MALFORMED(8)),
    SPEC_BAD(EP_HTTP, "{" HTTP_MIN ",\"body_template\":{\"items\":[1,\"ok\",\"{{input.}}\"]}}",
             "spec.body_template.items[2]: " MALFORMED(1)),

    /* ---- KAFKA ---- */
    SPEC_OK(EP_KAFKA, "{" KAFKA_MIN "}", "{" KAFKA_MIN "," KAFKA_DEF "}"),
    SPEC_OK(EP_KAFKA, "{" KAFKA_MIN ",\"acks\":\"0\",\"timeout_ms\":5}",
            "{" KAFKA_MIN ",\"acks\":\"0\",\"timeout_ms\":5}"),
    SPEC_OK(EP_KAFKA,
            "{" KAFKA_MIN ",\"acks\":\"1\",\"key_template\":\"{{input.k}}\","
            "\"headers\":{\"h\":\"v\"}}",
            "{" KAFKA_MIN ",\"acks\":\"1\",\"key_template\":\"{{input.k}}\","
            "\"headers\":{\"h\":\"v\"},\"timeout_ms\":10000}"),
    SPEC_OK(EP_KAFKA, "{\"bootstrap_servers\":\"b\",\"topic\":\"t\",\"value_template\":{}}",
            "{\"bootstrap_servers\":\"b\",\"topic\":\"t\",\"value_template\":{}," KAFKA_DEF "}"),
    SPEC_BAD(EP_KAFKA, "{\"bootstrap_servers\":\"b\",\"topic\":\"t\",\"value_template\":\"s\"}",
             "field 'spec.value_template' must be an object"),
    SPEC_BAD(EP_KAFKA, "{\"bootstrap_servers\":\"b\",\"topic\":\"t\",\"value_template\":0}",
             "field 'spec.value_template' must be an object"),
    SPEC_BAD(EP_KAFKA, "{\"bootstrap_servers\":\"b\",\"topic\":\"t\",\"value_template\":[1]}",
             "field 'spec.value_template' must be an object"),
    SPEC_OK(EP_KAFKA, "{" KAFKA_MIN ",\"acks\":null,\"key_template\":null}",
            "{" KAFKA_MIN "," KAFKA_DEF "}"),
    SPEC_BAD(EP_KAFKA, "{\"topic\":\"t\",\"value_template\":{}}",
             "missing required field 'spec.bootstrap_servers'"),
    SPEC_BAD(EP_KAFKA, "{\"bootstrap_servers\":\"b\",\"value_template\":{}}",
             "missing required field 'spec.topic'"),
    SPEC_BAD(EP_KAFKA, "{\"bootstrap_servers\":\"b\",\"topic\":\"t\"}",
             "missing required field 'spec.value_template'"),
    SPEC_BAD(EP_KAFKA, "{\"bootstrap_servers\":\"b\",\"topic\":\"t\",\"value_template\":null}",
             "field 'spec.value_template' must be an object"),
    SPEC_BAD(EP_KAFKA, "{\"bootstrap_servers\":\"\",\"topic\":\"t\",\"value_template\":{}}",
             "field 'spec.bootstrap_servers' must not be empty"),
    SPEC_BAD(EP_KAFKA, "{\"bootstrap_servers\":\"b\",\"topic\":\"\",\"value_template\":{}}",
             "field 'spec.topic' must not be empty"),
    /* topic names */
    SPEC_OK(EP_KAFKA, "{\"bootstrap_servers\":\"b\",\"topic\":\"a.B_c-9\",\"value_template\":{}}",
            "{\"bootstrap_servers\":\"b\",\"topic\":\"a.B_c-9\",\"value_template\":{}," KAFKA_DEF
            "}"),
    SPEC_OK(EP_KAFKA,
            "{\"bootstrap_servers\":\"b\",\"topic\":\"ev.{{config.t}}\",\"value_template\":{}}",
            "{\"bootstrap_servers\":\"b\",\"topic\":\"ev.{{config.t}}\",\"value_template\":{}"
            "," KAFKA_DEF "}"),
    SPEC_BAD(EP_KAFKA,
             "{\"bootstrap_servers\":\"b\",\"topic\":\"bad topic!\",\"value_template\":{}}",
             "field 'spec.topic' must be a Kafka topic name: 1 to 249 letters, digits, '.', '_' or "
             "'-'"),
    SPEC_BAD(EP_KAFKA, "{\"bootstrap_servers\":\"b\",\"topic\":\"..\",\"value_template\":{}}",
             "field 'spec.topic' must be a Kafka topic name: 1 to 249 letters, digits, '.', '_' or "
             "'-'"),
    /* connection fields: no job input */
    SPEC_BAD(
        EP_KAFKA,
        "{\"bootstrap_servers\":\"{{input.host}}:9092\",\"topic\":\"t\",\"value_template\":{}}",
        "field 'spec.bootstrap_servers' may use {{config.*}} and {{secret.*}} placeholders "
        "only: job input cannot choose where to connect"),
    SPEC_OK(EP_KAFKA,
            "{\"bootstrap_servers\":\"{{config.b}},{{secret.b2}}\",\"topic\":\"t\","
            "\"value_template\":{}}",
            "{\"bootstrap_servers\":\"{{config.b}},{{secret.b2}}\",\"topic\":\"t\","
            "\"value_template\":{}," KAFKA_DEF "}"),
    SPEC_BAD(EP_KAFKA,
             "{" KAFKA_MIN ",\"security\":{\"protocol\":\"SASL_SSL\",\"sasl_mechanism\":"
             "\"PLAIN\",\"sasl_username\":\"{{input.user}}\",\"sasl_password\":\"{{secret.p}}\"}}",
             "field 'spec.security.sasl_username' may use {{config.*}} and {{secret.*}} "
             "placeholders only: job input cannot choose where to connect"),
    SPEC_BAD(EP_REDIS_STREAM,
             "{\"redis_url\":\"redis://{{input.h}}:6379\",\"stream\":\"s\",\"fields_template\":{}}",
             "field 'spec.redis_url' may use {{config.*}} and {{secret.*}} placeholders only: "
             "job input cannot choose where to connect"),
    SPEC_BAD(EP_REDIS_STREAM,
             "{\"redis_url\":\"{{input.url}}\",\"stream\":\"s\",\"fields_template\":{}}",
             "field 'spec.redis_url' may use {{config.*}} and {{secret.*}} placeholders only: "
             "job input cannot choose where to connect"),
    /* spec.security */
    SPEC_OK(EP_KAFKA,
            "{" KAFKA_MIN ",\"security\":{\"protocol\":\"SASL_SSL\",\"sasl_mechanism\":"
            "\"SCRAM-SHA-512\",\"sasl_username\":\"{{config.u}}\",\"sasl_password\":"
            "\"{{secret.kp}}\",\"ssl_ca_location\":\"/etc/ssl/certs\"}}",
            "{" KAFKA_MIN ",\"security\":{\"protocol\":\"SASL_SSL\",\"sasl_mechanism\":"
            "\"SCRAM-SHA-512\",\"sasl_username\":\"{{config.u}}\",\"sasl_password\":"
            "\"{{secret.kp}}\",\"ssl_ca_location\":\"/etc/ssl/certs\"}," KAFKA_DEF "}"),
    SPEC_OK(EP_KAFKA, "{" KAFKA_MIN ",\"security\":{\"protocol\":\"SSL\"}}",
            "{" KAFKA_MIN ",\"security\":{\"protocol\":\"SSL\"}," KAFKA_DEF "}"),
    SPEC_OK(EP_KAFKA,
            "{" KAFKA_MIN ",\"security\":{\"protocol\":\"SASL_PLAINTEXT\",\"sasl_mechanism\":"
            "\"PLAIN\",\"sasl_username\":\"u\",\"sasl_password\":\"{{secret.p}}\"}}",
            "{" KAFKA_MIN ",\"security\":{\"protocol\":\"SASL_PLAINTEXT\",\"sasl_mechanism\":"
            "\"PLAIN\",\"sasl_username\":\"u\",\"sasl_password\":\"{{secret.p}}\"}," KAFKA_DEF "}"),
    SPEC_BAD(EP_KAFKA, "{" KAFKA_MIN ",\"security\":{}}",
             "missing required field 'spec.security.protocol'"),
    SPEC_BAD(EP_KAFKA, "{" KAFKA_MIN ",\"security\":\"SSL\"}",
             "field 'spec.security' must be an object"),
    SPEC_BAD(EP_KAFKA, "{" KAFKA_MIN ",\"security\":{\"protocol\":\"ssl\"}}",
             "field 'spec.security.protocol' must be PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL"),
    SPEC_BAD(EP_KAFKA, "{" KAFKA_MIN ",\"security\":{\"protocol\":\"SSL\",\"tls\":true}}",
             "unknown field 'spec.security.tls'"),
    SPEC_BAD(EP_KAFKA,
             "{" KAFKA_MIN ",\"security\":{\"protocol\":\"SSL\",\"sasl_username\":\"u\"}}",
             "fields 'spec.security.sasl_*' need protocol SASL_PLAINTEXT or SASL_SSL"),
    SPEC_BAD(EP_KAFKA,
             "{" KAFKA_MIN ",\"security\":{\"protocol\":\"SASL_SSL\",\"sasl_mechanism\":"
             "\"PLAIN\",\"sasl_username\":\"u\"}}",
             "protocol SASL_SSL needs 'spec.security.sasl_mechanism', 'sasl_username' and "
             "'sasl_password'"),
    SPEC_BAD(EP_KAFKA,
             "{" KAFKA_MIN ",\"security\":{\"protocol\":\"SASL_SSL\",\"sasl_mechanism\":"
             "\"GSSAPI\",\"sasl_username\":\"u\",\"sasl_password\":\"{{secret.p}}\"}}",
             "field 'spec.security.sasl_mechanism' must be PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512"),
    SPEC_BAD(EP_KAFKA,
             "{" KAFKA_MIN ",\"security\":{\"protocol\":\"SASL_SSL\",\"sasl_mechanism\":"
             "\"PLAIN\",\"sasl_username\":\"\",\"sasl_password\":\"{{secret.p}}\"}}",
             "field 'spec.security.sasl_username' must not be empty"),
    SPEC_BAD(EP_KAFKA,
             "{" KAFKA_MIN ",\"security\":{\"protocol\":\"SASL_SSL\",\"sasl_mechanism\":"
             "\"PLAIN\",\"sasl_username\":\"u\",\"sasl_password\":\"hunter2\"}}",
             "field 'spec.security.sasl_password' must be one placeholder such as "
             "\"{{secret.kafka_password}}\" (passwords are stored as secrets)"),
    SPEC_BAD(EP_KAFKA,
             "{" KAFKA_MIN ",\"security\":{\"protocol\":\"SASL_SSL\",\"sasl_mechanism\":"
             "\"PLAIN\",\"sasl_username\":\"u\",\"sasl_password\":\"{{config.p}}\"}}",
             "field 'spec.security.sasl_password' must be one placeholder such as "
             "\"{{secret.kafka_password}}\" (passwords are stored as secrets)"),
    SPEC_BAD(EP_KAFKA,
             "{" KAFKA_MIN ",\"security\":{\"protocol\":\"SASL_SSL\",\"sasl_mechanism\":"
             "\"PLAIN\",\"sasl_username\":\"u\",\"sasl_password\":\"x{{secret.p}}\"}}",
             "field 'spec.security.sasl_password' must be one placeholder such as "
             "\"{{secret.kafka_password}}\" (passwords are stored as secrets)"),
    SPEC_BAD(EP_KAFKA,
             "{" KAFKA_MIN ",\"security\":{\"protocol\":\"PLAINTEXT\",\"ssl_ca_location\":"
             "\"/etc/ssl\"}}",
             "field 'spec.security.ssl_ca_location' needs protocol SSL or SASL_SSL and a path"),
    SPEC_BAD(EP_KAFKA, "{" KAFKA_MIN ",\"acks\":\"2\"}",
             "field 'spec.acks' must be \"0\", \"1\" or \"all\""),
    SPEC_BAD(EP_KAFKA, "{" KAFKA_MIN ",\"acks\":\"ALL\"}",
             "field 'spec.acks' must be \"0\", \"1\" or \"all\""),
    SPEC_BAD(EP_KAFKA, "{" KAFKA_MIN ",\"acks\":\"-1\"}",
             "field 'spec.acks' must be \"0\", \"1\" or \"all\""),
    SPEC_BAD(EP_KAFKA, "{" KAFKA_MIN ",\"acks\":1}", "field 'spec.acks' must be a string"),
    SPEC_BAD(EP_KAFKA, "{" KAFKA_MIN ",\"key_template\":5}",
             "field 'spec.key_template' must be a string"),
    SPEC_BAD(EP_KAFKA, "{" KAFKA_MIN ",\"timeout_ms\":0}",
             "field 'spec.timeout_ms' must be between 1 and 3600000"),
    SPEC_BAD(EP_KAFKA, "{" KAFKA_MIN ",\"headers\":{\"a b\":\"v\"}}",
             "field 'spec.headers': 'a b' is not a valid header name"),
    SPEC_BAD(EP_KAFKA, "{" KAFKA_MIN ",\"url\":\"u\"}", "unknown field 'spec.url'"),
    SPEC_BAD(EP_KAFKA,
             "{\"bootstrap_servers\":\"b\",\"topic\":\"t\",\"value_template\":{\"x\":"
             "\"{{input.x}\"}}",
             "spec.value_template.x: " MALFORMED(1)),

    /* ---- REDIS_STREAM ---- */
    SPEC_OK(EP_REDIS_STREAM, "{" REDIS_MIN "}", "{" REDIS_MIN "," REDIS_DEF "}"),
    SPEC_OK(EP_REDIS_STREAM, "{" REDIS_MIN ",\"approximate_trimming\":false,\"max_len\":1000}",
            "{" REDIS_MIN ",\"approximate_trimming\":false,\"max_len\":1000,\"timeout_ms\":3000}"),
    SPEC_OK(EP_REDIS_STREAM, "{" REDIS_MIN ",\"max_len\":\"{{config.max_stream_length}}\"}",
            "{" REDIS_MIN ",\"max_len\":\"{{config.max_stream_length}}\"," REDIS_DEF "}"),
    SPEC_OK(EP_REDIS_STREAM, "{" REDIS_MIN ",\"max_len\":\"{{ input.n }}\"}",
            "{" REDIS_MIN ",\"max_len\":\"{{ input.n }}\"," REDIS_DEF "}"),
    SPEC_OK(EP_REDIS_STREAM, "{" REDIS_MIN ",\"max_len\":1}",
            "{" REDIS_MIN ",\"max_len\":1," REDIS_DEF "}"),
    SPEC_OK(
        EP_REDIS_STREAM,
        "{\"redis_url\":\"{{config.redis_url}}\",\"stream\":\"s\",\"fields_template\":{}}",
        "{\"redis_url\":\"{{config.redis_url}}\",\"stream\":\"s\",\"fields_template\":{}," REDIS_DEF
        "}"),
    SPEC_OK(EP_REDIS_STREAM, "{" REDIS_MIN ",\"timeout_ms\":60000,\"max_len\":null}",
            "{" REDIS_MIN ",\"timeout_ms\":60000,\"approximate_trimming\":true}"),
    SPEC_UNSUP(EP_REDIS_STREAM,
               "{\"redis_url\":\"rediss://h:6380\",\"stream\":\"s\",\"fields_template\":{}}",
               "field 'spec.redis_url': rediss:// (TLS) is not supported by this build; use "
               "redis://"),
    SPEC_BAD(EP_REDIS_STREAM,
             "{\"redis_url\":\"http://h\",\"stream\":\"s\",\"fields_template\":{}}",
             "field 'spec.redis_url' must be a redis:// URL"),
    SPEC_BAD(EP_REDIS_STREAM, "{\"redis_url\":\"h:6379\",\"stream\":\"s\",\"fields_template\":{}}",
             "field 'spec.redis_url' must be a redis:// URL"),
    SPEC_BAD(EP_REDIS_STREAM, "{\"redis_url\":\"\",\"stream\":\"s\",\"fields_template\":{}}",
             "field 'spec.redis_url' must not be empty"),
    SPEC_BAD(EP_REDIS_STREAM,
             "{\"redis_url\":\"redis://h\",\"stream\":\"\",\"fields_template\":{}}",
             "field 'spec.stream' must not be empty"),
    SPEC_BAD(EP_REDIS_STREAM, "{\"redis_url\":\"redis://h\",\"stream\":\"s\"}",
             "missing required field 'spec.fields_template'"),
    SPEC_BAD(EP_REDIS_STREAM,
             "{\"redis_url\":\"redis://h\",\"stream\":\"s\",\"fields_template\":[]}",
             "field 'spec.fields_template' must be an object"),
    SPEC_BAD(EP_REDIS_STREAM, "{\"stream\":\"s\",\"fields_template\":{}}",
             "missing required field 'spec.redis_url'"),
    SPEC_BAD(EP_REDIS_STREAM, "{" REDIS_MIN ",\"max_len\":0}",
             "field 'spec.max_len' must be a positive integer"),
    SPEC_BAD(EP_REDIS_STREAM, "{" REDIS_MIN ",\"max_len\":-10}",
             "field 'spec.max_len' must be a positive integer"),
    SPEC_BAD(EP_REDIS_STREAM, "{" REDIS_MIN ",\"max_len\":1.5}",
             "field 'spec.max_len' must be a string or an integer"),
    SPEC_BAD(EP_REDIS_STREAM, "{" REDIS_MIN ",\"max_len\":true}",
             "field 'spec.max_len' must be a string or an integer"),
    SPEC_BAD(EP_REDIS_STREAM, "{" REDIS_MIN ",\"max_len\":\"100\"}",
             "field 'spec.max_len' must be a positive integer or one placeholder such as "
             "\"{{config.max_stream_length}}\""),
    SPEC_BAD(EP_REDIS_STREAM, "{" REDIS_MIN ",\"max_len\":\"\"}",
             "field 'spec.max_len' must be a positive integer or one placeholder such as "
             "\"{{config.max_stream_length}}\""),
    SPEC_BAD(EP_REDIS_STREAM, "{" REDIS_MIN ",\"max_len\":\"{{config.a}}{{config.b}}\"}",
             "field 'spec.max_len' must be a positive integer or one placeholder such as "
             "\"{{config.max_stream_length}}\""),
    SPEC_BAD(EP_REDIS_STREAM, "{" REDIS_MIN ",\"max_len\":\"x{{config.a}}\"}",
             "field 'spec.max_len' must be a positive integer or one placeholder such as "
             "\"{{config.max_stream_length}}\""),
    SPEC_BAD(EP_REDIS_STREAM, "{" REDIS_MIN ",\"max_len\":\"{{config.a}}x\"}",
             "field 'spec.max_len' must be a positive integer or one placeholder such as "
             "\"{{config.max_stream_length}}\""),
    SPEC_BAD(EP_REDIS_STREAM, "{" REDIS_MIN ",\"max_len\":\"{{config.a}}0}}\"}",
             "field 'spec.max_len' must be a positive integer or one placeholder such as "
             "\"{{config.max_stream_length}}\""),
    SPEC_BAD(EP_REDIS_STREAM, "{" REDIS_MIN ",\"max_len\":\"{{config.a}}}}\"}",
             "field 'spec.max_len' must be a positive integer or one placeholder such as "
             "\"{{config.max_stream_length}}\""),
    SPEC_BAD(EP_REDIS_STREAM, "{" REDIS_MIN ",\"max_len\":\"{{confg.a}}\"}",
             "field 'spec.max_len' must be a positive integer or one placeholder such as "
             "\"{{config.max_stream_length}}\""),
    SPEC_BAD(EP_REDIS_STREAM, "{" REDIS_MIN ",\"approximate_trimming\":\"yes\"}",
             "field 'spec.approximate_trimming' must be a boolean"),
    SPEC_BAD(EP_REDIS_STREAM, "{" REDIS_MIN ",\"timeout_ms\":3600001}",
             "field 'spec.timeout_ms' must be between 1 and 3600000"),
    SPEC_BAD(EP_REDIS_STREAM, "{" REDIS_MIN ",\"x\":1}", "unknown field 'spec.x'"),
    SPEC_BAD(EP_REDIS_STREAM,
             "{\"redis_url\":\"redis://h\",\"stream\":\"{{input.s\",\"fields_template\":{}}",
             "spec.stream: " MALFORMED(1)),
};

static void test_spec_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(spec_cases); i++) {
        const struct spec_case *c = &spec_cases[i];
        cJSON *in = parse(c->in);
        char *before = print(in);
        cJSON *out = NULL;
        char err[300] = "";
        int rc = endpoint_spec_normalize(c->type, in, &out, err, sizeof(err));
        if (rc != c->rc)
            fail_msg("case %zu %s: rc %d, want %d (%s)", i, c->in, rc, c->rc, err);
        if (rc == 0) {
            cJSON *want = parse(c->out);
            if (!cJSON_Compare(out, want, true)) {
                char *got = print(out);
                fail_msg("case %zu %s:\n got %s\nwant %s", i, c->in, got, c->out);
            }
            /* normalizing the normalized form changes nothing */
            cJSON *again = NULL;
            assert_int_equal(endpoint_spec_normalize(c->type, out, &again, err, sizeof(err)), 0);
            assert_true(cJSON_Compare(again, out, true));
            cJSON_Delete(again);
            cJSON_Delete(want);
            cJSON_Delete(out);
        } else {
            assert_null(out);
            if (strcmp(err, c->err) != 0)
                fail_msg("case %zu %s:\n err '%s'\nwant '%s'", i, c->in, err, c->err);
        }
        /* the input is not modified */
        char *after = print(in);
        assert_string_equal(before, after);
        cJSON_free(before);
        cJSON_free(after);
        cJSON_Delete(in);
    }
}

/* A spec valid for one type is not valid for another. */
static void test_spec_cross_type(void **state)
{
    (void)state;
    cJSON *http = parse("{" HTTP_MIN "}");
    cJSON *out = NULL;
    char err[300];
    assert_int_equal(endpoint_spec_normalize(EP_KAFKA, http, &out, err, sizeof(err)),
                     ENDPOINT_EINVAL);
    assert_string_equal(err, "unknown field 'spec.url'");
    assert_int_equal(endpoint_spec_normalize(EP_REDIS_STREAM, http, &out, err, sizeof(err)),
                     ENDPOINT_EINVAL);
    assert_string_equal(err, "unknown field 'spec.url'");
    assert_null(out);
    cJSON_Delete(http);
}

/* ---- retry policy ---- */

struct retry_case {
    const char *in; /* NULL: no retry_policy given */
    const char *out;
    const char *err;
};

#define RETRY_DEF                                                                                  \
    "\"max_attempts\":1,\"backoff\":\"exponential\",\"initial_delay_ms\":1000,\"max_delay_ms\":"   \
    "60000"

static const struct retry_case retry_cases[] = {
    {NULL, "{" RETRY_DEF "}", NULL},
    {"{}", "{" RETRY_DEF "}", NULL},
    {"{\"max_attempts\":null,\"backoff\":null,\"initial_delay_ms\":null,\"max_delay_ms\":null}",
     "{" RETRY_DEF "}", NULL},
    {"{\"max_attempts\":5}",
     "{\"max_attempts\":5,\"backoff\":\"exponential\",\"initial_delay_ms\":1000,\"max_delay_ms\":"
     "60000}",
     NULL},
    {"{\"backoff\":\"fixed\"}",
     "{\"max_attempts\":1,\"backoff\":\"fixed\",\"initial_delay_ms\":1000,\"max_delay_ms\":60000}",
     NULL},
    {"{\"backoff\":\"linear\",\"initial_delay_ms\":0}",
     "{\"max_attempts\":1,\"backoff\":\"linear\",\"initial_delay_ms\":0,\"max_delay_ms\":60000}",
     NULL},
    {"{\"max_delay_ms\":86400000,\"max_attempts\":100}",
     "{\"max_attempts\":100,\"backoff\":\"exponential\",\"initial_delay_ms\":1000,"
     "\"max_delay_ms\":86400000}",
     NULL},
    {"{\"max_attempts\":0}", NULL, "field 'retry_policy.max_attempts' must be between 1 and 100"},
    {"{\"max_attempts\":101}", NULL, "field 'retry_policy.max_attempts' must be between 1 and 100"},
    {"{\"max_attempts\":-1}", NULL, "field 'retry_policy.max_attempts' must be between 1 and 100"},
    {"{\"max_attempts\":2.5}", NULL, "field 'retry_policy.max_attempts' must be an integer"},
    {"{\"max_attempts\":\"3\"}", NULL, "field 'retry_policy.max_attempts' must be an integer"},
    {"{\"backoff\":\"random\"}", NULL,
     "field 'retry_policy.backoff' must be fixed, linear or exponential"},
    {"{\"backoff\":\"Fixed\"}", NULL,
     "field 'retry_policy.backoff' must be fixed, linear or exponential"},
    {"{\"backoff\":1}", NULL, "field 'retry_policy.backoff' must be a string"},
    {"{\"initial_delay_ms\":-1}", NULL,
     "field 'retry_policy.initial_delay_ms' must be between 0 and 86400000"},
    {"{\"initial_delay_ms\":86400001}", NULL,
     "field 'retry_policy.initial_delay_ms' must be between 0 and 86400000"},
    {"{\"max_delay_ms\":1e12}", NULL,
     "field 'retry_policy.max_delay_ms' must be between 0 and 86400000"},
    {"{\"max_delay_ms\":true}", NULL, "field 'retry_policy.max_delay_ms' must be an integer"},
    {"{\"jitter\":true}", NULL, "unknown field 'retry_policy.jitter'"},
    {"{\"max_attempts\":2,\"max_attempts\":3}", NULL,
     "field 'retry_policy.max_attempts' appears twice"},
    {"[]", NULL, "field 'retry_policy' must be an object"},
    {"3", NULL, "field 'retry_policy' must be an object"},
};

static void test_retry_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(retry_cases); i++) {
        const struct retry_case *c = &retry_cases[i];
        cJSON *in = c->in ? parse(c->in) : NULL;
        cJSON *out = NULL;
        char err[300] = "";
        int rc = endpoint_retry_normalize(in, &out, err, sizeof(err));
        if (c->out) {
            if (rc != 0)
                fail_msg("%s rejected: %s", c->in ? c->in : "(none)", err);
            cJSON *want = parse(c->out);
            if (!cJSON_Compare(out, want, true)) {
                char *got = print(out);
                fail_msg("%s:\n got %s\nwant %s", c->in ? c->in : "(none)", got, c->out);
            }
            cJSON_Delete(want);
            cJSON_Delete(out);
        } else {
            assert_int_equal(rc, ENDPOINT_EINVAL);
            assert_null(out);
            if (strcmp(err, c->err) != 0)
                fail_msg("%s:\n err '%s'\nwant '%s'", c->in, err, c->err);
        }
        cJSON_Delete(in);
    }
}

static void test_retry_read(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        struct retry_policy want;
    } cases[] = {
        {NULL, {1, BACKOFF_EXPONENTIAL, 1000, 60000}},
        {"{\"max_attempts\":7,\"backoff\":\"fixed\"}", {7, BACKOFF_FIXED, 1000, 60000}},
        {"{\"backoff\":\"linear\",\"initial_delay_ms\":0,\"max_delay_ms\":86400000}",
         {1, BACKOFF_LINEAR, 0, 86400000}},
        {"{\"max_attempts\":100,\"backoff\":\"exponential\",\"initial_delay_ms\":250}",
         {100, BACKOFF_EXPONENTIAL, 250, 60000}},
    };
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        cJSON *in = cases[i].in ? parse(cases[i].in) : NULL;
        cJSON *norm = NULL;
        char err[200];
        assert_int_equal(endpoint_retry_normalize(in, &norm, err, sizeof(err)), 0);
        struct retry_policy p;
        memset(&p, 0xff, sizeof(p));
        assert_int_equal(endpoint_retry_read(norm, &p), 0);
        assert_int_equal(p.max_attempts, cases[i].want.max_attempts);
        assert_int_equal(p.backoff, cases[i].want.backoff);
        assert_int_equal(p.initial_delay_ms, cases[i].want.initial_delay_ms);
        assert_int_equal(p.max_delay_ms, cases[i].want.max_delay_ms);
        cJSON_Delete(norm);
        cJSON_Delete(in);
    }
    /* not normalized: fields missing or of the wrong type */
    static const char *const bad[] = {
        "{}",
        "{\"max_attempts\":1,\"backoff\":\"fixed\",\"initial_delay_ms\":1}",
        "{\"max_attempts\":1.5,\"backoff\":\"fixed\",\"initial_delay_ms\":1,\"max_delay_ms\":2}",
        "{\"max_attempts\":1,\"backoff\":3,\"initial_delay_ms\":1,\"max_delay_ms\":2}",
        "{\"max_attempts\":1,\"backoff\":\"fixed\",\"initial_delay_ms\":null,\"max_delay_ms\":2}",
    };
    for (size_t i = 0; i < N_ELEMS(bad); i++) {
        cJSON *v = parse(bad[i]);
        struct retry_policy p;
        if (endpoint_retry_read(v, &p) != -1)
            fail_msg("endpoint_retry_read accepted %s", bad[i]);
        cJSON_Delete(v);
    }
}

/* ---- secret references ---- */

struct refs_case {
    const char *spec;
    const char *prefix; /* already in the output buffer */
    int rc;
    const char *out; /* the whole buffer on success */
    const char *err;
};

static const struct refs_case refs_cases[] = {
    {"{}", "", 0, "{}", NULL},
    {"{\"url\":\"https://h/{{input.x}}\",\"k\":\"{{config.y}}\"}", "", 0, "{}", NULL},
    {"{\"h\":\"{{secret.a}}\"}", "", 0, "{a}", NULL},
    {"{\"h\":\"{{secret.a}} {{secret.b}}\",\"x\":[\"{{secret.a}}\",\"{{input.c}}\","
     "\"{{config.d}}\",\"{{secret.b}}\"]}",
     "", 0, "{a,b}", NULL},
    {"{\"a\":\"{{secret.ab}}{{secret.a}}{{secret.ab}}{{secret.b}}{{secret.a}}\"}", "", 0,
     "{ab,a,b}", NULL},
    {"{\"a\":\"{{secret.a}}\",\"b\":{\"c\":[\"{{ secret.b-2_x }}\"]},\"d\":\"{{secret.a}}\"}", "",
     0, "{a,b-2_x}", NULL},
    /* appended after what the buffer already holds, still deduplicated */
    {"{\"a\":\"{{secret.x}}{{secret.x}}{{secret.y}}\"}", "P", 0, "P{x,y}", NULL},
    {"{\"a\":\"{{secret.b}}{{secret.b}}\"}", "{a,b}", 0, "{a,b}{b}", NULL},
    /* names must be resource names */
    {"{\"a\":\"{{secret.A}}\"}", "", ENDPOINT_EINVAL, NULL,
     "spec: '{{secret.A}}' is not a valid secret name"},
    {"{\"a\":\"{{secret.a.b}}\"}", "", ENDPOINT_EINVAL, NULL,
     "spec: '{{secret.a.b}}' is not a valid secret name"},
    {"{\"a\":\"{{secret.-x}}\"}", "", ENDPOINT_EINVAL, NULL,
     "spec: '{{secret.-x}}' is not a valid secret name"},
    {"{\"a\":[\"{{secret.ok}}\",\"{{secret._x}}\"]}", "", ENDPOINT_EINVAL, NULL,
     "spec: '{{secret._x}}' is not a valid secret name"},
    /* malformed placeholders */
    {"{\"a\":{\"b\":\"{{secret.}}\"}}", "", -1, NULL, "spec.a.b: " MALFORMED(1)},
};

static void test_secret_refs_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(refs_cases); i++) {
        const struct refs_case *c = &refs_cases[i];
        cJSON *spec = parse(c->spec);
        struct buf out = BUF_INIT;
        assert_int_equal(buf_puts(&out, c->prefix), 0);
        char err[300] = "";
        int rc = endpoint_secret_refs(spec, &out, err, sizeof(err));
        if (rc != c->rc)
            fail_msg("%s: rc %d, want %d (%s)", c->spec, rc, c->rc, err);
        if (rc == 0 && strcmp(out.data, c->out) != 0)
            fail_msg("%s: '%s', want '%s'", c->spec, out.data, c->out);
        if (rc != 0 && strcmp(err, c->err) != 0)
            fail_msg("%s:\n err '%s'\nwant '%s'", c->spec, err, c->err);
        buf_free(&out);
        cJSON_Delete(spec);
    }
}

/* 128 distinct long names: dedup and the literal stay exact as the buffer grows. */
static void test_secret_refs_many(void **state)
{
    (void)state;
    struct buf s = BUF_INIT, want = BUF_INIT;
    assert_int_equal(buf_putc(&want, '{'), 0);
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 128; i++)
            assert_int_equal(buf_printf(&s, "{{secret.name-%03d-abcdefghijklmnopqrstuvwxyz}}", i),
                             0);
    }
    for (int i = 0; i < 128; i++)
        assert_int_equal(
            buf_printf(&want, "%sname-%03d-abcdefghijklmnopqrstuvwxyz", i ? "," : "", i), 0);
    assert_int_equal(buf_putc(&want, '}'), 0);
    cJSON *spec = cJSON_CreateObject();
    assert_non_null(cJSON_AddStringToObject(spec, "body", s.data));
    struct buf out = BUF_INIT;
    char err[300];
    assert_int_equal(endpoint_secret_refs(spec, &out, err, sizeof(err)), 0);
    assert_string_equal(out.data, want.data);
    buf_free(&out);
    buf_free(&s);
    buf_free(&want);
    cJSON_Delete(spec);
}

/* ---- resource names ---- */

static void test_resource_name_table(void **state)
{
    (void)state;
    char n128[129], n129[130];
    memset(n128, 'a', 128);
    n128[128] = '\0';
    memset(n129, 'a', 129);
    n129[129] = '\0';
    const struct {
        const char *s;
        bool ok;
    } cases[] = {
        {"a", true},    {"0", true},      {"a-b_c", true},   {"9lives", true},       {"a-", true},
        {"a_", true},   {"abc123", true}, {"a--b__c", true}, {n128, true},           {n129, false},
        {"", false},    {"A", false},     {"aB", false},     {"-a", false},          {"_a", false},
        {"a.b", false}, {"a b", false},   {"a/b", false},    {"caf\xc3\xa9", false}, {" a", false},
        {"a\n", false}, {"a:b", false},   {"{{x}}", false},
    };
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        if (resource_name_valid(cases[i].s, strlen(cases[i].s)) != cases[i].ok)
            fail_msg("resource_name_valid('%s') != %d", cases[i].s, cases[i].ok);
    }
    /* only len bytes are looked at */
    assert_true(resource_name_valid("abc!", 3));
    assert_false(resource_name_valid("abc", 0));
    assert_true(resource_name_valid(n129, 128));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_type_parse),       cmocka_unit_test(test_spec_table),
        cmocka_unit_test(test_spec_cross_type),  cmocka_unit_test(test_retry_table),
        cmocka_unit_test(test_retry_read),       cmocka_unit_test(test_secret_refs_table),
        cmocka_unit_test(test_secret_refs_many), cmocka_unit_test(test_resource_name_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
