/*
 * One HTTP/1.1 connection: reads into a reused buffer, parses one request at a
 * time with llhttp, hands it to the handler, writes the response, and only
 * then parses the next (pipelined) request from the buffered bytes.
 *
 * The parser pauses in on_message_complete; the bytes after the request stay
 * in rbuf. While the handler holds the request we keep reading (so a client
 * that goes away is noticed and http_req_gone() turns true) but stop once
 * PIPELINE_CAP bytes are waiting. Each read callback parses at most one read
 * (<= 16 KiB) and dispatches at most one request.
 *
 * Nothing here frees memory inside a parser or libuv callback of the object
 * being freed: a connection is freed from its last close callback, or from
 * http_respond() when the handler releases a request whose connection has
 * already closed.
 */
#include "http/http_int.h"

#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define READ_CHUNK (16384 - 1)   /* buf_reserve adds one byte for the NUL: 16 KiB blocks */
#define PIPELINE_CAP (64 * 1024) /* unparsed bytes buffered while a request is in progress */
#define LINGER_MS 2000u          /* drain time after the last response before closing */
#define SHRINK_ABOVE (64 * 1024) /* per-request buffers larger than this are freed */

static const char continue_line[] = "HTTP/1.1 100 Continue\r\n\r\n";
static const char empty[] = "";

static void conn_on_timer(uv_timer_t *t);
static void conn_on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *out);
static void conn_on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b);
static void conn_send(struct http_conn *c, int status, const char *ctype, const char *body,
                      size_t len, bool with_added_headers, bool force_close);
static void conn_parse(struct http_conn *c);

/* ---- state ---- */

/* The only place that changes c->state; (re)arms the timer for the new phase. */
static void conn_set_state(struct http_conn *c, enum http_conn_state st)
{
    const struct http_server_config *cfg = &c->srv->cfg;
    uint64_t ms = 0;
    c->state = st;
    switch (st) {
    case HTTP_CONN_IDLE:
    case HTTP_CONN_READING:
    case HTTP_CONN_WRITING:
        ms = cfg->idle_timeout_ms;
        break;
    case HTTP_CONN_WAITING:
        ms = cfg->request_timeout_ms;
        break;
    case HTTP_CONN_LINGER:
        ms = cfg->idle_timeout_ms < LINGER_MS ? cfg->idle_timeout_ms : LINGER_MS;
        break;
    case HTTP_CONN_CLOSING:
    case HTTP_CONN_CLOSED:
        return;
    }
    uv_timer_start(&c->timer, conn_on_timer, ms, 0);
}

static bool conn_wants_read(const struct http_conn *c)
{
    switch (c->state) {
    case HTTP_CONN_IDLE:
    case HTTP_CONN_READING:
    case HTTP_CONN_LINGER:
        return true;
    case HTTP_CONN_WAITING:
    case HTTP_CONN_WRITING:
        return c->rbuf.len < PIPELINE_CAP;
    case HTTP_CONN_CLOSING:
    case HTTP_CONN_CLOSED:
        return false;
    }
    return false;
}

static void conn_update_reading(struct http_conn *c)
{
    bool want = conn_wants_read(c);
    if (want == c->reading)
        return;
    if (!want) {
        uv_read_stop((uv_stream_t *)&c->tcp);
        c->reading = false;
        return;
    }
    int rc = uv_read_start((uv_stream_t *)&c->tcp, conn_on_alloc, conn_on_read);
    if (rc < 0) {
        log_warn("http: read start failed: %s", uv_strerror(rc));
        http__conn_close(c);
        return;
    }
    c->reading = true;
}

/* ---- lifetime ---- */

static void conn_free(struct http_conn *c)
{
    buf_free(&c->rbuf);
    buf_free(&c->arena);
    buf_free(&c->body);
    buf_free(&c->resp_hdrs);
    buf_free(&c->scratch);
    buf_free(&c->wbuf);
    http__server_unlink(c->srv, c);
    free(c);
}

static void conn_maybe_free(struct http_conn *c)
{
    if (c->state == HTTP_CONN_CLOSED && c->req_state == HTTP_REQ_FREE)
        conn_free(c);
}

static void conn_on_closed(uv_handle_t *h)
{
    struct http_conn *c = h->data;
    struct http_server *srv = c->srv;
    bool last = --c->handles_open == 0;
    if (last) {
        conn_set_state(c, HTTP_CONN_CLOSED);
        srv->nconns--;
    }
    http__server_handle_closed(srv);
    if (last)
        conn_maybe_free(c);
}

void http__conn_close(struct http_conn *c)
{
    if (c->state == HTTP_CONN_CLOSING || c->state == HTTP_CONN_CLOSED)
        return;
    if (c->req_state == HTTP_REQ_HELD)
        c->req_state = HTTP_REQ_ORPHANED;
    conn_set_state(c, HTTP_CONN_CLOSING);
    c->reading = false;
    uv_close((uv_handle_t *)&c->tcp, conn_on_closed);
    uv_close((uv_handle_t *)&c->timer, conn_on_closed);
}

void http__conn_drain(struct http_conn *c)
{
    if (c->state == HTTP_CONN_IDLE)
        http__conn_close(c);
}

static void conn_on_shutdown(uv_shutdown_t *r, int status)
{
    struct http_conn *c = r->data;
    if (status < 0 && c->state == HTTP_CONN_LINGER)
        http__conn_close(c);
}

/*
 * After the last response: shut our write side and read (discarding) until the
 * client closes, so unread request bytes do not turn our close into a RST that
 * could destroy the response before the client reads it.
 */
static void conn_linger(struct http_conn *c)
{
    buf_reset(&c->rbuf);
    c->shutdown_req.data = c;
    int rc = uv_shutdown(&c->shutdown_req, (uv_stream_t *)&c->tcp, conn_on_shutdown);
    if (rc < 0) {
        http__conn_close(c);
        return;
    }
    conn_set_state(c, HTTP_CONN_LINGER);
    conn_update_reading(c);
}

/* ---- responses ---- */

static bool status_has_body(int status)
{
    return status >= 200 && status != 204 && status != 304;
}

static int conn_build(struct http_conn *c, int status, const char *ctype, const char *body,
                      size_t len, bool with_added_headers)
{
    struct buf *w = &c->wbuf;
    bool has_body = status_has_body(status);
    buf_reset(w);
    int rc = buf_printf(w, "HTTP/1.1 %d %s\r\n", status, http_status_text(status));
    if (has_body && ctype)
        rc |= buf_printf(w, "Content-Type: %s\r\n", ctype);
    if (has_body)
        rc |= buf_printf(w, "Content-Length: %zu\r\n", len);
    rc |= buf_printf(w, "X-Request-Id: %s\r\nConnection: %s\r\n", c->req.request_id,
                     c->close_after ? "close" : "keep-alive");
    if (with_added_headers)
        rc |= buf_append(w, c->resp_hdrs.data, c->resp_hdrs.len);
    rc |= buf_puts(w, "\r\n");
    if (has_body && c->req.method != HTTP_M_HEAD && len)
        rc |= buf_append(w, body, len);
    return rc ? -1 : 0;
}

static void conn_log_response(const struct http_conn *c, int status)
{
    if (LOG_DEBUG < log_min_level)
        return;
    double ms = c->req.start_ns ? (double)(uv_hrtime() - c->req.start_ns) / 1e6 : 0.0;
    const char *m = http_method_name(c->req.method);
    if (c->req.method == HTTP_M_OTHER)
        m = c->path_len ? llhttp_method_name((llhttp_method_t)c->parser.method) : "-";
    /* The path only: a query string may carry something secret. */
    const char *path = c->path_len ? c->arena.data : "-";
    int plen = c->path_len ? (int)c->path_len : 1;
    log_ctx(LOG_DEBUG, "request_id", c->req.request_id, "%s %.*s -> %d (%.3f ms)", m, plen, path,
            status, ms);
}

static void conn_on_written(uv_write_t *w, int status)
{
    struct http_conn *c = w->data;
    if (c->state != HTTP_CONN_WRITING)
        return; /* cancelled by a close */
    if (status < 0) {
        log_debug("http: write failed: %s", uv_strerror(status));
        http__conn_close(c);
        return;
    }
    if (c->close_after || c->srv->state != HTTP_SRV_RUNNING) {
        conn_linger(c);
        return;
    }
    conn_set_state(c, HTTP_CONN_IDLE);
    if (c->rbuf.len)
        conn_parse(c);
    if (c->state != HTTP_CONN_CLOSING)
        conn_update_reading(c);
}

/*
 * Builds and writes one response. The connection closes after it when asked,
 * when the request did not allow keep-alive, or when the server is draining.
 */
static void conn_send(struct http_conn *c, int status, const char *ctype, const char *body,
                      size_t len, bool with_added_headers, bool force_close)
{
    uv_buf_t out;
    c->close_after = force_close || !c->keep_alive || c->srv->state != HTTP_SRV_RUNNING;
    if (conn_build(c, status, ctype, body, len, with_added_headers) == 0) {
        out = uv_buf_init(c->wbuf.data, (unsigned)c->wbuf.len);
    } else {
        log_ctx(LOG_ERROR, "request_id", c->req.request_id, "http: out of memory building a %d",
                status);
        status = 500;
        c->close_after = true;
        int n = snprintf(c->fallback, sizeof(c->fallback),
                         "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n"
                         "X-Request-Id: %s\r\nConnection: close\r\n\r\n",
                         c->req.request_id);
        out = uv_buf_init(c->fallback, (unsigned)n);
    }
    conn_log_response(c, status);
    c->write_req.data = c;
    int rc = uv_write(&c->write_req, (uv_stream_t *)&c->tcp, &out, 1, conn_on_written);
    if (rc < 0) {
        log_debug("http: write failed: %s", uv_strerror(rc));
        http__conn_close(c);
        return;
    }
    conn_set_state(c, HTTP_CONN_WRITING);
    conn_update_reading(c);
}

/* An error the server answers itself; the connection always closes after it. */
static void conn_send_error(struct http_conn *c, int status, const char *code, const char *msg)
{
    if (!c->req.request_id[0])
        http__conn_assign_id(c);
    buf_reset(&c->scratch);
    if (http__error_json(&c->scratch, code, msg, c->req.request_id) < 0) {
        conn_send(c, 500, NULL, NULL, 0, false, true);
        return;
    }
    conn_send(c, status, "application/json", c->scratch.data, c->scratch.len, false, true);
}

static void conn_on_continue_written(uv_write_t *w, int status)
{
    (void)w;
    (void)status; /* a failed write shows up as a read error too */
}

void http__conn_send_continue(struct http_conn *c)
{
    uv_buf_t b = uv_buf_init((char *)continue_line, sizeof(continue_line) - 1);
    c->cont_req.data = c;
    int rc = uv_write(&c->cont_req, (uv_stream_t *)&c->tcp, &b, 1, conn_on_continue_written);
    if (rc < 0)
        log_debug("http: 100-continue write failed: %s", uv_strerror(rc));
}

/* ---- timer ---- */

static void conn_deadline(struct http_conn *c)
{
    unsigned ms = c->srv->cfg.request_timeout_ms;
    char msg[80];
    if (ms % 1000 == 0)
        snprintf(msg, sizeof(msg), "request took longer than %u s", ms / 1000);
    else
        snprintf(msg, sizeof(msg), "request took longer than %u ms", ms);
    log_ctx(LOG_WARN, "request_id", c->req.request_id, "http: handler did not answer in %u ms", ms);
    c->req_state = HTTP_REQ_ORPHANED;
    conn_send_error(c, 504, "TIMEOUT", msg);
}

static void conn_on_timer(uv_timer_t *t)
{
    struct http_conn *c = t->data;
    switch (c->state) {
    case HTTP_CONN_WAITING:
        conn_deadline(c);
        break;
    case HTTP_CONN_READING:
        log_debug("http: request not received within %u ms, closing", c->srv->cfg.idle_timeout_ms);
        http__conn_close(c);
        break;
    case HTTP_CONN_IDLE:
    case HTTP_CONN_WRITING:
    case HTTP_CONN_LINGER:
        http__conn_close(c);
        break;
    case HTTP_CONN_CLOSING:
    case HTTP_CONN_CLOSED:
        break;
    }
}

/* ---- per-request reset ---- */

static void buf_recycle(struct buf *b)
{
    if (b->cap > SHRINK_ABOVE)
        buf_free(b);
    else
        buf_reset(b);
}

static void conn_reset_request(struct http_conn *c)
{
    buf_recycle(&c->arena);
    buf_recycle(&c->body);
    buf_recycle(&c->resp_hdrs);
    buf_recycle(&c->scratch);
    buf_recycle(&c->wbuf);
    c->nhdrs = 0;
    c->head_bytes = 0;
    c->path_len = 0;
    c->parse_status = 0;
    c->phase = HTTP_PARSE_HEAD;
    c->keep_alive = false;
    memset(&c->req, 0, sizeof(c->req));
    c->req.method = HTTP_M_OTHER;
    c->req.path = c->req.query = c->req.body = empty;
    c->req.app = c->srv->cfg.app;
}

void http__conn_begin_request(struct http_conn *c)
{
    conn_reset_request(c);
    conn_set_state(c, HTTP_CONN_READING);
}

/* ---- dispatch ---- */

/* Splits the url stored at arena[0] into path and query, in place. */
static void conn_split_url(struct http_conn *c)
{
    char *url = c->arena.data;
    char *scheme_end = strstr(url, "://");
    if (url[0] != '/' && scheme_end) { /* absolute-form: drop scheme and authority */
        url = scheme_end + 3;
        url += strcspn(url, "/?#");
    }
    url[strcspn(url, "#")] = '\0';
    char *q = strchr(url, '?');
    if (q) {
        *q = '\0';
        c->req.query = q + 1;
    }
    c->req.path = *url ? url : "/";
}

static void conn_dispatch(struct http_conn *c)
{
    struct http_req *r = &c->req;
    if (c->arena.data)
        conn_split_url(c);
    r->body = c->body.data ? c->body.data : empty;
    r->body_len = c->body.len;
    r->start_ns = uv_hrtime();
    c->req_state = HTTP_REQ_HELD;
    conn_set_state(c, HTTP_CONN_WAITING);
    c->srv->cfg.on_request(r);
}

static void conn_parse_error(struct http_conn *c, llhttp_errno_t err)
{
    const struct http_server_config *cfg = &c->srv->cfg;
    char msg[96];
    switch (c->parse_status) {
    case 413:
        snprintf(msg, sizeof(msg), "request body exceeds %zu bytes", cfg->max_body_bytes);
        conn_send_error(c, 413, "PAYLOAD_TOO_LARGE", msg);
        return;
    case 431:
        snprintf(msg, sizeof(msg), "request line and headers exceed %zu bytes",
                 cfg->max_header_bytes);
        conn_send_error(c, 431, "HEADERS_TOO_LARGE", msg);
        return;
    case 500:
        conn_send_error(c, 500, "INTERNAL_ERROR", "out of memory");
        return;
    default:
        log_debug("http: malformed request: %s", llhttp_errno_name(err));
        conn_send_error(c, 400, "INVALID_REQUEST", "malformed HTTP request");
        return;
    }
}

/*
 * Feeds the buffered bytes to the parser. Stops at the end of one request
 * (the parser pauses there) and dispatches it; the rest stays in rbuf until
 * the response has been written.
 */
static void conn_parse(struct http_conn *c)
{
    llhttp_errno_t err = llhttp_execute(&c->parser, c->rbuf.data, c->rbuf.len);
    if (err == HPE_OK) {
        buf_reset(&c->rbuf);
        return;
    }
    if (err == HPE_PAUSED) {
        buf_consume(&c->rbuf, (size_t)(llhttp_get_error_pos(&c->parser) - c->rbuf.data));
        llhttp_resume(&c->parser);
        conn_dispatch(c);
        return;
    }
    conn_parse_error(c, err);
}

/* ---- reading ---- */

static void conn_on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *out)
{
    struct http_conn *c = h->data;
    (void)hint;
    if (buf_reserve(&c->rbuf, READ_CHUNK) < 0) {
        *out = uv_buf_init(NULL, 0); /* the read callback gets UV_ENOBUFS */
        return;
    }
    size_t room = c->rbuf.cap - c->rbuf.len - 1;
    if (room > READ_CHUNK)
        room = READ_CHUNK; /* bounds the work of one read callback */
    *out = uv_buf_init(c->rbuf.data + c->rbuf.len, (unsigned)room);
}

static void conn_on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
    struct http_conn *c = s->data;
    (void)b;
    if (n == 0)
        return;
    if (n < 0) {
        if (c->state == HTTP_CONN_WAITING)
            log_ctx(LOG_DEBUG, "request_id", c->req.request_id,
                    "http: client went away while the handler runs");
        http__conn_close(c);
        return;
    }
    if (c->state == HTTP_CONN_LINGER)
        return; /* discarded: the buffer is overwritten by the next read */
    c->rbuf.len += (size_t)n;
    c->rbuf.data[c->rbuf.len] = '\0';
    if (c->state == HTTP_CONN_IDLE || c->state == HTTP_CONN_READING)
        conn_parse(c);
    conn_update_reading(c);
}

/* ---- accept ---- */

static void conn_on_reject_closed(uv_handle_t *h)
{
    struct http_server *srv = h->data;
    free(h);
    http__server_handle_closed(srv);
}

/*
 * Over max_connections (or out of memory): accept and close at once. The
 * client sees EOF without a response; writing a 503 would cost a connection
 * object per rejected client, which is what the limit is there to avoid.
 */
static void conn_reject(struct http_server *srv)
{
    uv_tcp_t *t = malloc(sizeof(*t));
    if (!t) {
        log_error("http: out of memory rejecting a connection");
        return;
    }
    uv_tcp_init(srv->loop, t);
    t->data = srv;
    srv->handles_open++;
    if (uv_accept((uv_stream_t *)&srv->listener, (uv_stream_t *)t) == 0)
        log_warn("http: %u connections open, refusing one more", srv->nconns);
    uv_close((uv_handle_t *)t, conn_on_reject_closed);
}

void http__conn_accept(struct http_server *srv)
{
    if (srv->nconns >= srv->cfg.max_connections) {
        conn_reject(srv);
        return;
    }
    struct http_conn *c = calloc(1, sizeof(*c));
    if (!c) {
        conn_reject(srv);
        return;
    }
    c->srv = srv;
    uv_tcp_init(srv->loop, &c->tcp);
    uv_timer_init(srv->loop, &c->timer);
    c->tcp.data = c->timer.data = c;
    c->handles_open = 2;
    srv->handles_open += 2;
    srv->nconns++;
    c->next = srv->conns;
    if (srv->conns)
        srv->conns->prev = c;
    srv->conns = c;
    llhttp_init(&c->parser, HTTP_REQUEST, &srv->settings);
    c->parser.data = c;
    conn_reset_request(c);
    conn_set_state(c, HTTP_CONN_IDLE);
    int rc = uv_accept((uv_stream_t *)&srv->listener, (uv_stream_t *)&c->tcp);
    if (rc < 0) {
        log_warn("http: accept failed: %s", uv_strerror(rc));
        http__conn_close(c);
        return;
    }
    uv_tcp_nodelay(&c->tcp, 1);
    conn_update_reading(c);
}

/* ---- public: responding ---- */

/* Takes the request back from the handler. Returns true when a response is to be sent. */
static bool conn_release(struct http_conn *c)
{
    switch (c->req_state) {
    case HTTP_REQ_HELD:
        c->req_state = HTTP_REQ_FREE;
        return true;
    case HTTP_REQ_ORPHANED:
        log_ctx(LOG_DEBUG, "request_id", c->req.request_id,
                "http: response dropped (client gone or deadline passed)");
        c->req_state = HTTP_REQ_FREE;
        conn_maybe_free(c);
        return false;
    case HTTP_REQ_FREE:
        log_error("http: http_respond called for a request that was already answered");
        return false;
    }
    return false;
}

void http_respond(struct http_req *req, int status, const char *content_type, const char *body,
                  size_t len)
{
    struct http_conn *c = TE_CONTAINER_OF(req, struct http_conn, req);
    if (!conn_release(c))
        return;
    if (status < 200 || status > 599) {
        log_ctx(LOG_ERROR, "request_id", req->request_id, "http: invalid status %d", status);
        status = 500;
        len = 0;
    }
    conn_send(c, status, content_type, body ? body : empty, body ? len : 0, true, false);
}

void http_respond_json(struct http_req *req, int status, const struct buf *json)
{
    http_respond(req, status, "application/json", json->data ? json->data : empty, json->len);
}

void http_respond_error(struct http_req *req, int status, const char *code, const char *fmt, ...)
{
    struct http_conn *c = TE_CONTAINER_OF(req, struct http_conn, req);
    if (c->req_state != HTTP_REQ_HELD) {
        http_respond(req, status, NULL, NULL, 0); /* only releases */
        return;
    }
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    buf_reset(&c->scratch);
    if (http__error_json(&c->scratch, code, msg, req->request_id) < 0) {
        http_respond(req, 500, NULL, NULL, 0);
        return;
    }
    http_respond(req, status, "application/json", c->scratch.data, c->scratch.len);
}
