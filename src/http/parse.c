/*
 * llhttp callbacks: copy the request line and headers of the current request
 * into conn->arena (offsets in conn->hdrs), the body into conn->body, and
 * enforce max_header_bytes (431) and max_body_bytes (413) while doing so.
 * A callback that rejects the request records the status in
 * conn->parse_status and returns HPE_USER; conn.c then answers it.
 * on_message_complete pauses the parser: one request at a time.
 */
#include "http/http_int.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define REQUEST_LINE_OVERHEAD 4 /* two spaces and CRLF, beyond method, url and version */
#define HEADER_OVERHEAD 4       /* ": " and CRLF */

static int conn_fail(struct http_conn *c, int status)
{
    if (!c->parse_status)
        c->parse_status = status;
    return HPE_USER;
}

static int conn_count(struct http_conn *c, size_t n)
{
    c->head_bytes += n;
    if (c->head_bytes > c->srv->cfg.max_header_bytes)
        return conn_fail(c, 431);
    return 0;
}

static int conn_store(struct http_conn *c, const char *at, size_t n)
{
    if (buf_append(&c->arena, at, n) < 0)
        return conn_fail(c, 500);
    return 0;
}

static int conn_count_store(struct http_conn *c, const char *at, size_t n)
{
    int rc = conn_count(c, n);
    return rc ? rc : conn_store(c, at, n);
}

static int on_message_begin(llhttp_t *p)
{
    struct http_conn *c = p->data;
    http__conn_begin_request(c);
    c->head_bytes = REQUEST_LINE_OVERHEAD;
    return 0;
}

static int on_method(llhttp_t *p, const char *at, size_t n)
{
    (void)at;
    return conn_count(p->data, n);
}

static int on_version(llhttp_t *p, const char *at, size_t n)
{
    (void)at;
    return conn_count(p->data, n);
}

static int on_url(llhttp_t *p, const char *at, size_t n)
{
    return conn_count_store(p->data, at, n);
}

static int on_url_complete(llhttp_t *p)
{
    struct http_conn *c = p->data;
    int rc = conn_store(c, "", 1);
    if (rc)
        return rc;
    c->path_len = strcspn(c->arena.data, "?#"); /* logs show the path, never the query */
    return 0;
}

/* Bounds the extra arena bytes that joining repeated headers may cost. */
static bool conn_arena_full(const struct http_conn *c)
{
    return c->arena.len > 2 * c->srv->cfg.max_header_bytes + 1024;
}

/*
 * A header repeated later in the request is joined to the first occurrence as
 * "first, second", so http_req_header() sees every value.
 */
static int conn_join_header(struct http_conn *c, unsigned first)
{
    struct http_hdr *cur = &c->hdrs[c->nhdrs];
    size_t a = strlen(c->arena.data + c->hdrs[first].value);
    size_t b = strlen(c->arena.data + cur->value);
    if (buf_reserve(&c->arena, a + b + 3) < 0)
        return conn_fail(c, 500);
    uint32_t off = (uint32_t)c->arena.len;
    char *d = c->arena.data + off;
    memcpy(d, c->arena.data + c->hdrs[first].value, a);
    memcpy(d + a, ", ", 2);
    memcpy(d + a + 2, c->arena.data + cur->value, b + 1);
    c->arena.len += a + b + 3;
    c->hdrs[first].value = off;
    if (conn_arena_full(c))
        return conn_fail(c, 431);
    return 0;
}

static int on_header_field(llhttp_t *p, const char *at, size_t n)
{
    struct http_conn *c = p->data;
    if (c->phase == HTTP_PARSE_BODY) /* trailer: counted, not kept */
        return conn_count(c, n + HEADER_OVERHEAD);
    if (c->phase != HTTP_PARSE_NAME) {
        if (c->nhdrs == HTTP_MAX_HEADERS)
            return conn_fail(c, 431);
        c->hdrs[c->nhdrs].name = (uint32_t)c->arena.len;
        c->phase = HTTP_PARSE_NAME;
        int rc = conn_count(c, HEADER_OVERHEAD);
        if (rc)
            return rc;
    }
    return conn_count_store(c, at, n);
}

static int on_header_field_complete(llhttp_t *p)
{
    struct http_conn *c = p->data;
    if (c->phase == HTTP_PARSE_BODY)
        return 0;
    int rc = conn_store(c, "", 1);
    if (rc)
        return rc;
    c->hdrs[c->nhdrs].value = (uint32_t)c->arena.len;
    c->phase = HTTP_PARSE_VALUE;
    return 0;
}

static int on_header_value(llhttp_t *p, const char *at, size_t n)
{
    struct http_conn *c = p->data;
    if (c->phase == HTTP_PARSE_BODY)
        return conn_count(c, n);
    return conn_count_store(c, at, n);
}

static int on_header_value_complete(llhttp_t *p)
{
    struct http_conn *c = p->data;
    if (c->phase == HTTP_PARSE_BODY)
        return 0;
    struct http_hdr *cur = &c->hdrs[c->nhdrs];
    while (c->arena.len > cur->value &&
           (c->arena.data[c->arena.len - 1] == ' ' || c->arena.data[c->arena.len - 1] == '\t'))
        c->arena.len--;
    int rc = conn_store(c, "", 1);
    if (rc)
        return rc;
    c->phase = HTTP_PARSE_HEAD;
    for (unsigned i = 0; i < c->nhdrs; i++) {
        if (strcasecmp(c->arena.data + c->hdrs[i].name, c->arena.data + cur->name) == 0)
            return conn_join_header(c, i);
    }
    c->nhdrs++;
    return 0;
}

void http__conn_assign_id(struct http_conn *c)
{
    const char *v = http_req_header(&c->req, "x-request-id");
    if (v && http__request_id_ok(v))
        snprintf(c->req.request_id, sizeof(c->req.request_id), "%s", v);
    else
        http__request_id_new(c->req.request_id, sizeof(c->req.request_id));
}

static bool conn_expects_continue(struct http_conn *c)
{
    const llhttp_t *p = &c->parser;
    if (p->http_major != 1 || p->http_minor < 1)
        return false;
    if (!(p->flags & F_CHUNKED) && p->content_length == 0)
        return false;
    const char *v = http_req_header(&c->req, "expect");
    return v && strcasecmp(v, "100-continue") == 0;
}

static int on_headers_complete(llhttp_t *p)
{
    struct http_conn *c = p->data;
    c->phase = HTTP_PARSE_BODY;
    c->head_bytes = 0; /* from here on: trailers */
    c->req.method = http__method_from_llhttp(p->method);
    c->keep_alive = llhttp_should_keep_alive(p) && !p->upgrade;
    http__conn_assign_id(c);
    if (!(p->flags & F_CHUNKED) && (p->flags & F_CONTENT_LENGTH)) {
        if (p->content_length > c->srv->cfg.max_body_bytes)
            return conn_fail(c, 413);
        if (p->content_length && buf_reserve(&c->body, (size_t)p->content_length) < 0)
            return conn_fail(c, 500);
    }
    if (conn_expects_continue(c))
        http__conn_send_continue(c);
    return 0;
}

static int on_body(llhttp_t *p, const char *at, size_t n)
{
    struct http_conn *c = p->data;
    if (n > c->srv->cfg.max_body_bytes - c->body.len)
        return conn_fail(c, 413);
    if (buf_append(&c->body, at, n) < 0)
        return conn_fail(c, 500);
    return 0;
}

static int on_message_complete(llhttp_t *p)
{
    (void)p;
    return HPE_PAUSED; /* one request at a time: resume after its response is written */
}

void http__conn_settings(llhttp_settings_t *s)
{
    llhttp_settings_init(s);
    s->on_message_begin = on_message_begin;
    s->on_method = on_method;
    s->on_url = on_url;
    s->on_version = on_version;
    s->on_url_complete = on_url_complete;
    s->on_header_field = on_header_field;
    s->on_header_field_complete = on_header_field_complete;
    s->on_header_value = on_header_value;
    s->on_header_value_complete = on_header_value_complete;
    s->on_headers_complete = on_headers_complete;
    s->on_body = on_body;
    s->on_message_complete = on_message_complete;
}
