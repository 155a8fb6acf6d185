/*
 * Outbound HTTP delivery (webhooks) on the libuv loop.
 *
 * One struct httpd owns one libcurl multi handle, i.e. one keep-alive
 * connection pool (plus shared DNS and TLS-session caches), driven by the
 * multi-socket API: a uv_poll per socket curl asks about and one uv_timer.
 * DNS runs in curl's resolver thread and reaches the loop through a socket,
 * so nothing here blocks.
 *
 * Policy applied to every request: only http and https, no redirects followed
 * (a 3xx is just a status code), TLS peer and host verification on, HTTP/2 via
 * ALPN for https when curl has it (HTTP/1.1 otherwise), "User-Agent:
 * taskexec/0.1" unless the request sets one, no "Expect: 100-continue", and no
 * Content-Type invented for a body (set it in the headers).
 */
#ifndef TE_WORKER_DISPATCH_HTTP_H
#define TE_WORKER_DISPATCH_HTTP_H

#include "core/buf.h"
#include "core/common.h"

#include <uv.h>

/* Bytes of response body kept; the rest is read and dropped (body_truncated). */
#define HTTPD_BODY_CAP (64 * 1024)
/* Past this many response bytes the transfer is cut; the status still counts. */
#define HTTPD_DRAIN_CAP (1024 * 1024)

enum httpd_outcome {
    HTTPD_OK,               /* response with an expected status */
    HTTPD_HTTP_ERROR,       /* response with any other status */
    HTTPD_TIMEOUT,          /* timeout_ms (or the connect timeout) expired */
    HTTPD_CONNECTION_ERROR, /* no usable response: DNS, refused, reset, TLS, shutdown... */
};

/* A field left 0 takes its default. */
struct httpd_config {
    long max_connects;          /* idle connections kept for reuse (pool size); 64 */
    long max_host_connections;  /* open connections per host:port, extra requests queue; 32 */
    long max_total_connections; /* open connections overall; 0 = no limit */
    long default_timeout_ms;    /* for requests with timeout_ms <= 0; 10000 */
};

struct httpd_request {
    const char *method;         /* GET POST PUT PATCH DELETE (upper case) */
    const char *url;            /* http:// or https:// */
    const char *const *headers; /* "Name: value" lines, no CR/LF */
    int nheaders;
    const char *body; /* may be NULL when body_len is 0 */
    size_t body_len;
    long timeout_ms;            /* whole request; <= 0 takes the configured default */
    const int *expected_status; /* nexpected == 0: 200, 201, 202, 204 */
    int nexpected;
};

/* Valid only during the callback; copy what you keep. */
struct httpd_result {
    enum httpd_outcome outcome;
    long status_code; /* 0 when no response status arrived */
    const char *body; /* never NULL; NUL-terminated; at most HTTPD_BODY_CAP bytes */
    size_t body_len;
    bool body_truncated; /* the response had more than body_len bytes */
    const char *message; /* NULL for HTTPD_OK, else human text without the URL */
    int64_t duration_ms; /* from httpd_send() to completion */
};

typedef void (*httpd_done_cb)(void *arg, const struct httpd_result *r);

struct httpd;

/*
 * cfg may be NULL. Returns 0, -EINVAL for a negative setting, -ENOMEM, or
 * -EIO when libcurl cannot be set up. Logs a warning when curl lacks an
 * asynchronous resolver (DNS would then block the loop).
 */
int httpd_new(uv_loop_t *loop, const struct httpd_config *cfg, struct httpd **out) TE_MUSTCHECK;

/*
 * Starts one request; everything in req is copied. On 0, cb runs exactly once,
 * always later from a loop callback, never from inside httpd_send(). Returns
 * -EINVAL (unknown method, NULL url, header with CR/LF, cb NULL), -ENOMEM,
 * -EIO (curl refused the handle) or -ESHUTDOWN (httpd_close() was called); cb
 * is then never called. A malformed URL or unsupported scheme is not an error
 * here: it completes as HTTPD_CONNECTION_ERROR.
 * cb may call httpd_send() and httpd_close().
 */
int httpd_send(struct httpd *d, const struct httpd_request *req, httpd_done_cb cb,
               void *arg) TE_MUSTCHECK;

/* Requests started and not yet completed. */
unsigned httpd_inflight(const struct httpd *d);

/*
 * Aborts the requests in flight and frees everything. On the next loop turn
 * each pending cb runs with HTTPD_CONNECTION_ERROR "shutting down"; then,
 * once every handle has closed, done(arg) runs (done may be NULL). d is freed
 * before done runs; do not use it after httpd_close(). Call it once; a second
 * call is ignored.
 */
void httpd_close(struct httpd *d, void (*done)(void *arg), void *arg);

const char *httpd_outcome_name(enum httpd_outcome o);

/*
 * Appends the attempt JSON for r. HTTPD_OK → output shape
 *   {"status_code":200,"body":"OK"}
 * anything else → error shape
 *   {"type":"TIMEOUT","message":"..."}
 *   {"type":"HTTP_ERROR","status_code":503,"message":"...","body":"..."}
 *   {"type":"CONNECTION_ERROR","message":"..."}
 * A truncated body adds "body_truncated":true. The body is written as a JSON
 * string; bytes that are not valid UTF-8 become U+FFFD, so the output is always
 * valid JSON. Returns 0 or -1 (out of memory; out may hold a partial object).
 */
int httpd_result_json(const struct httpd_result *r, struct buf *out) TE_MUSTCHECK;

#endif
