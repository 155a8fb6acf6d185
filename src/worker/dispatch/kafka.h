/*
 * Kafka delivery (produce one record) on the libuv loop, with librdkafka.
 *
 * One struct kafkad keeps librdkafka producers, created on first use and
 * shared per distinct (bootstrap_servers, acks, security settings,
 * timeout_ms). The timeout is
 * part of the key because message.timeout.ms is a topic-level setting that
 * librdkafka fixes per topic handle, and topic handles are shared per name
 * inside a producer: a producer per distinct timeout is the only way to give
 * each send its own deadline. acks=all also sets enable.idempotence=true.
 *
 * No thread of ours and no blocking call on the loop: each producer's main
 * queue signals a non-blocking pipe (rd_kafka_queue_io_event_enable) that a
 * uv_poll watches; the poll callback drains the pipe and serves delivery
 * reports, logs and errors with rd_kafka_poll(rk, 0) on the loop thread.
 * librdkafka's own threads do the network I/O.
 *
 * A producer unused for idle_ms with nothing in flight is destroyed. Its
 * queues are empty then, so rd_kafka_destroy() only joins librdkafka's
 * threads (normally a few milliseconds; no flush, no network wait).
 */
#ifndef TE_WORKER_DISPATCH_KAFKA_H
#define TE_WORKER_DISPATCH_KAFKA_H

#include "core/buf.h"
#include "core/common.h"

#include <uv.h>

enum kafkad_outcome {
    KAFKAD_OK,           /* the broker acknowledged the record (per acks) */
    KAFKAD_BROKER_ERROR, /* any other failure, including "shutting down" */
    KAFKAD_TIMEOUT,      /* not acknowledged within timeout_ms */
};

/* A field left 0 takes its default. */
struct kafkad_config {
    long idle_ms;            /* unused producers are destroyed after this; 300000 */
    long default_timeout_ms; /* for requests with timeout_ms <= 0; 30000 */
    long linger_ms;          /* librdkafka linger.ms: 0 (the default here) sends at once */
};

struct kafkad_header {
    const char *name;  /* NUL-terminated */
    const void *value; /* may be NULL (null header value) */
    size_t value_len;
};

/* Connection security; all NULL is PLAINTEXT. */
struct kafkad_security {
    const char *protocol;       /* "PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL" */
    const char *sasl_mechanism; /* "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512" */
    const char *sasl_username;
    const char *sasl_password;   /* never logged; wiped when its producer is freed */
    const char *ssl_ca_location; /* CA file or directory; NULL = the system's CA store */
};

struct kafkad_request {
    const char *bootstrap_servers; /* "host:port[,host:port...]" */
    struct kafkad_security security;
    const char *acks; /* "0", "1", "all" (or "-1"); NULL = "all" */
    const char *topic;
    const void *key; /* NULL = no key */
    size_t key_len;
    const void *value; /* serialized by the caller; may be NULL when value_len is 0 */
    size_t value_len;
    const struct kafkad_header *headers;
    int nheaders;
    /*
     * Delivery deadline (message.timeout.ms and request.timeout.ms of the
     * producer); <= 0 takes the configured default. librdkafka checks message
     * timeouts about once a second, so TIMEOUT arrives within ~timeout_ms + 1s.
     */
    long timeout_ms;
};

/* Valid only during the callback; copy what you keep. */
struct kafkad_result {
    enum kafkad_outcome outcome;
    int32_t partition;   /* KAFKAD_OK only, else -1 */
    int64_t offset;      /* KAFKAD_OK only (-1 with acks=0), else -1 */
    const char *message; /* NULL for KAFKAD_OK, else rd_kafka_err2str() or "shutting down" */
    int64_t duration_ms; /* from kafkad_send() to completion */
};

typedef void (*kafkad_done_cb)(void *arg, const struct kafkad_result *r);

struct kafkad;

/* cfg may be NULL. Returns 0, -EINVAL for a negative setting, or -ENOMEM. */
int kafkad_new(uv_loop_t *loop, const struct kafkad_config *cfg, struct kafkad **out) TE_MUSTCHECK;

/*
 * Queues one record; everything in req is copied. On 0, cb runs exactly once,
 * always later from a loop callback, never from inside kafkad_send(). Returns
 * -EINVAL (NULL bootstrap/topic/cb, bad acks, NULL header name, a setting
 * librdkafka rejects), -ENOMEM, -EMFILE/-ENFILE (no pipe), -EIO (producer
 * could not be created or librdkafka refused the record), -ENOBUFS (the
 * producer's queue is full), -EMSGSIZE, or -ESHUTDOWN (kafkad_close() was
 * called); cb is then never called, and kafkad_error() says why. An
 * unreachable broker is not an error here: it completes as TIMEOUT or
 * BROKER_ERROR. cb may call kafkad_send() and kafkad_close().
 */
int kafkad_send(struct kafkad *d, const struct kafkad_request *req, kafkad_done_cb cb,
                void *arg) TE_MUSTCHECK;

/* Why the last kafkad_send() that failed did (librdkafka's words where it had them). */
const char *kafkad_error(const struct kafkad *d);

/* Sends started whose callback has not run yet. */
unsigned kafkad_inflight(const struct kafkad *d);

/*
 * Stops accepting sends and lets the ones in flight finish for up to
 * timeout_ms (0 = none), without blocking the loop: delivery reports keep
 * arriving through the uv_poll. When all are done or the time is up, what
 * remains is purged and its cb runs with BROKER_ERROR "shutting down"; the
 * producers are destroyed (their queues are empty by then, so only
 * librdkafka's threads are joined), and once every handle has closed,
 * done(arg) runs (done may be NULL). d is freed before done runs; do not use
 * it after kafkad_close(). Call it once; a second call is ignored.
 */
void kafkad_close(struct kafkad *d, long timeout_ms, void (*done)(void *arg), void *arg);

const char *kafkad_outcome_name(enum kafkad_outcome o);

/*
 * Appends the attempt JSON for r. KAFKAD_OK → {"partition":0,"offset":42};
 * else {"type":"BROKER_ERROR","message":"..."} or {"type":"TIMEOUT",...}.
 * Returns 0 or -1 (out of memory; out may hold a partial object).
 */
int kafkad_result_json(const struct kafkad_result *r, struct buf *out) TE_MUSTCHECK;

#endif
