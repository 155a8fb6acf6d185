/*
 * Redis Streams delivery (XADD) on the libuv loop.
 *
 * One struct redisd keeps one hiredis async context per distinct redis_url
 * (host, port, user, password, db), attached to the loop with the hiredis
 * libuv adapter. Host names are resolved with uv_getaddrinfo first, because
 * redisAsyncConnect would resolve them synchronously. On connect, AUTH (with
 * the user when the URL has one) and SELECT run and must succeed before any
 * XADD is written. A context that fails or that the server drops is freed;
 * the next send reconnects, no sooner than an exponential backoff allows.
 * rediss:// is refused (this hiredis has no TLS).
 */
#ifndef TE_WORKER_DISPATCH_REDIS_H
#define TE_WORKER_DISPATCH_REDIS_H

#include "core/buf.h"
#include "core/common.h"

#include <uv.h>

enum redisd_outcome {
    REDISD_OK,               /* XADD returned an id */
    REDISD_CONNECTION_ERROR, /* bad URL, DNS, refused, AUTH/SELECT failed, lost, shutdown */
    REDISD_TIMEOUT,          /* timeout_ms expired first (a late reply is dropped) */
    REDISD_STREAM_ERROR,     /* Redis answered XADD with an error (WRONGTYPE...) */
};

/* A field left 0 takes its default. */
struct redisd_config {
    long default_timeout_ms; /* for requests with timeout_ms <= 0; 5000 */
    long backoff_min_ms;     /* first reconnect delay after a failure; 100 */
    long backoff_max_ms;     /* doubling stops here; 5000 */
    long connect_timeout_ms; /* TCP connect + AUTH/SELECT, then the attempt fails; 10000 */
};

struct redisd_field {
    const char *name;  /* NUL-terminated; non-string values are serialized by the caller */
    const char *value; /* NUL-terminated */
};

struct redisd_request {
    const char *redis_url; /* redis://[[user]:password@]host[:port][/db] */
    const char *stream;
    const struct redisd_field *fields;
    int nfields;      /* >= 1 */
    long max_len;     /* > 0: MAXLEN trimming; 0 none */
    bool approximate; /* MAXLEN ~ n instead of MAXLEN n */
    long timeout_ms;  /* <= 0 takes the configured default */
};

/* Valid only during the callback; copy what you keep. */
struct redisd_result {
    enum redisd_outcome outcome;
    const char *message_id; /* REDISD_OK only, else NULL */
    const char *stream;     /* never NULL */
    const char *message;    /* NULL for REDISD_OK; never contains the password */
    int64_t duration_ms;    /* from redisd_send() to completion */
    bool retryable;         /* false when a retry cannot help: malformed URL, rediss:// */
};

typedef void (*redisd_done_cb)(void *arg, const struct redisd_result *r);

struct redisd;

/* cfg may be NULL. Returns 0, -EINVAL for a negative setting, or -ENOMEM. */
int redisd_new(uv_loop_t *loop, const struct redisd_config *cfg, struct redisd **out) TE_MUSTCHECK;

/*
 * Starts one XADD; everything in req is copied. On 0, cb runs exactly once,
 * always later from a loop callback, never from inside redisd_send(). Returns
 * -EINVAL (NULL url/stream/cb, no fields, NULL name/value, negative max_len),
 * -ENOMEM or -ESHUTDOWN (redisd_close() was called); cb is then never called.
 * A malformed URL or rediss:// completes as REDISD_CONNECTION_ERROR.
 * cb may call redisd_send() and redisd_close().
 */
int redisd_send(struct redisd *d, const struct redisd_request *req, redisd_done_cb cb,
                void *arg) TE_MUSTCHECK;

/* Sends started whose callback has not run yet. */
unsigned redisd_inflight(const struct redisd *d);

/*
 * Completes every pending send with REDISD_CONNECTION_ERROR "shutting down"
 * (on the next loop turn), frees every context, and once every handle has
 * closed frees d and runs done(arg) (done may be NULL). Do not use d after
 * this call. A second call is ignored.
 */
void redisd_close(struct redisd *d, void (*done)(void *arg), void *arg);

const char *redisd_outcome_name(enum redisd_outcome o);

/*
 * Appends the attempt JSON for r. REDISD_OK → output shape
 *   {"message_id":"1710499801234-0","stream":"notifications:outbound"}
 * anything else → error shape
 *   {"type":"CONNECTION_ERROR|TIMEOUT|STREAM_ERROR","message":"..."}
 * Returns 0 or -1 (out of memory; out may hold a partial object).
 */
int redisd_result_json(const struct redisd_result *r, struct buf *out) TE_MUSTCHECK;

#endif
