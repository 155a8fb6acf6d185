/*
 * Endpoint definitions: the per-type `spec` field tables of the brief and the
 * shared retry policy, validated and normalized (defaults filled in).
 */
#ifndef TE_DOMAIN_ENDPOINT_H
#define TE_DOMAIN_ENDPOINT_H

#include "core/buf.h"
#include "core/common.h"

#include <cjson/cJSON.h>

enum endpoint_type { EP_HTTP, EP_KAFKA, EP_REDIS_STREAM };

/* Results of the normalize functions besides 0. */
#define ENDPOINT_EINVAL (-1)       /* malformed: 400 INVALID_REQUEST */
#define ENDPOINT_EUNSUPPORTED (-2) /* well-formed but not deliverable: 422 */

#define RETRY_MAX_ATTEMPTS 100
#define RETRY_MAX_DELAY_MS 86400000

struct retry_policy {
    int max_attempts;
    enum { BACKOFF_FIXED, BACKOFF_LINEAR, BACKOFF_EXPONENTIAL } backoff;
    int64_t initial_delay_ms;
    int64_t max_delay_ms;
};

int endpoint_type_parse(const char *s, enum endpoint_type *out) TE_MUSTCHECK;
const char *endpoint_type_name(enum endpoint_type t);

/* Validates `spec` for the type; *out is a new normalized object (caller deletes). */
int endpoint_spec_normalize(enum endpoint_type t, const cJSON *spec, cJSON **out, char *err,
                            size_t errlen) TE_MUSTCHECK;
/* `retry` may be NULL (all defaults). *out is a new object with every field set. */
int endpoint_retry_normalize(const cJSON *retry, cJSON **out, char *err,
                             size_t errlen) TE_MUSTCHECK;
/* Reads a normalized retry policy object. */
int endpoint_retry_read(const cJSON *retry, struct retry_policy *out) TE_MUSTCHECK;
/*
 * Appends the distinct secret names the spec references, as a PostgreSQL
 * array literal ("{a,b}"). Names are checked against the resource-name rule.
 */
int endpoint_secret_refs(const cJSON *spec, struct buf *out, char *err, size_t errlen) TE_MUSTCHECK;

/* Kafka topic names: [a-zA-Z0-9._-]{1,249}, and neither "." nor "..". */
bool endpoint_kafka_topic_valid(const char *s);

/* Resource names: [a-z0-9][a-z0-9_-]{0,127}. */
bool resource_name_valid(const char *s, size_t len);

#endif
