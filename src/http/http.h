/*
 * HTTP/1.1 server on the libuv loop (llhttp parser).
 *
 * The server parses one request at a time per connection and hands it to
 * `on_request`. The handler answers — now or later, from any callback on the
 * loop — by calling exactly one http_respond*() for that request. Pipelined
 * requests wait in the connection's read buffer and are answered in order.
 *
 * Lifetime: a struct http_req stays valid until its response has been passed
 * to http_respond*(), even if the client disconnects or the per-request
 * deadline fires first (the server then answers 504 itself, or drops the
 * answer for a gone client, and the later http_respond*() only frees the
 * request). Handlers may test http_req_gone() to skip useless work.
 */
#ifndef TE_HTTP_HTTP_H
#define TE_HTTP_HTTP_H

#include "core/buf.h"
#include "core/common.h"

#include <uv.h>

enum http_method {
    HTTP_M_GET,
    HTTP_M_HEAD,
    HTTP_M_POST,
    HTTP_M_PUT,
    HTTP_M_PATCH,
    HTTP_M_DELETE,
    HTTP_M_OPTIONS,
    HTTP_M_OTHER,
};

struct http_req {
    enum http_method method;
    const char *path;  /* raw path without the query string, NUL-terminated */
    const char *query; /* raw query string after '?', NUL-terminated, "" if none */
    const char *body;  /* NUL-terminated copy of the body, "" if none */
    size_t body_len;
    char request_id[72]; /* from X-Request-Id if acceptable, else generated "req_..." */
    void *app;           /* http_server_config.app */
    uint64_t start_ns;   /* uv_hrtime() when the request was complete */
};

typedef void (*http_request_cb)(struct http_req *req);

/*
 * A field left 0 takes a default: 16 KiB headers, 1 MiB body, 1024
 * connections, 60 s idle, 30 s request deadline.
 * max_connections: a connection beyond it is accepted and closed at once,
 * without a response (the client sees EOF).
 * idle_timeout_ms also bounds the arrival of a whole request (headers and
 * body, counted from its first byte) and the write of one response.
 */
struct http_server_config {
    const char *listen_addr; /* "host:port" or "[v6]:port"; numeric hosts, "localhost", "" or
                                "*" (any IPv4); port 0 picks a free port */
    size_t max_header_bytes; /* request line + headers */
    size_t max_body_bytes;   /* larger → 413 */
    unsigned max_connections;
    unsigned idle_timeout_ms;    /* keep-alive idle and slow-header limit */
    unsigned request_timeout_ms; /* handler deadline → 504 */
    http_request_cb on_request;
    void *app;
};

struct http_server;

/*
 * Returns 0, or a negative libuv code (UV_EINVAL for a bad address or missing
 * on_request, UV_EADDRINUSE, ...). After a failure the handles already made
 * close on their own: run the loop once more before uv_loop_close().
 */
int http_server_start(uv_loop_t *loop, const struct http_server_config *cfg,
                      struct http_server **out) TE_MUSTCHECK;
/* The bound port (useful with port 0). */
int http_server_port(const struct http_server *srv);
/*
 * Stops accepting (closes the listener). Connections between requests close
 * now; the others finish their current request, answered with
 * "Connection: close", then close.
 */
void http_server_stop_accepting(struct http_server *srv);
/*
 * Closes every connection and handle; `done` runs once (always from a
 * callback) when all handles are closed. Requests still held by handlers are
 * orphaned (http_req_gone() is true); their later http_respond*() only frees
 * memory and touches no handle, so it may even come after uv_loop_close().
 * The server itself is freed after `done` and the last such release: do not
 * use it after `done`.
 */
void http_server_close(struct http_server *srv, void (*done)(void *arg), void *arg);
/* Connections whose socket is still open. */
unsigned http_server_open_connections(const struct http_server *srv);

/*
 * Case-insensitive header lookup; NULL when absent. A repeated header is
 * returned joined: "first, second". Trailing whitespace is trimmed.
 */
const char *http_req_header(const struct http_req *req, const char *name);
/*
 * Looks up a query parameter and percent-decodes it into out.
 * Returns 0 when found, -1 when absent, -2 when it does not fit or is malformed.
 */
int http_req_query(const struct http_req *req, const char *name, char *out, size_t outlen);
/*
 * True once the response can no longer reach the client: it disconnected
 * (EOF or error on the socket, including a half-close), the server answered
 * 504 itself, or the server is closing.
 */
bool http_req_gone(const struct http_req *req);

/*
 * Adds a response header for the coming http_respond*(); the value is copied.
 * Returns -1 for a name that is not a token or a value with CR/LF, or out of
 * memory.
 */
int http_req_add_header(struct http_req *req, const char *name, const char *value) TE_MUSTCHECK;

/*
 * Sends the response (copying body) and releases the request. The server adds
 * Content-Length, Date-less minimal headers, Connection and X-Request-Id.
 */
void http_respond(struct http_req *req, int status, const char *content_type, const char *body,
                  size_t len);
void http_respond_json(struct http_req *req, int status, const struct buf *json);
/* {"error":{"code":code,"message":message,"request_id":...}} */
void http_respond_error(struct http_req *req, int status, const char *code, const char *fmt, ...)
    TE_PRINTF(4, 5);

const char *http_method_name(enum http_method m);
const char *http_status_text(int status);

#endif
