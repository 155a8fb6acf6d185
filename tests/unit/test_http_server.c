/*
 * HTTP server tests. The server runs on a private loop; the client is plain
 * libuv TCP handles on the same loop, so everything stays single-threaded.
 * Every test ends by closing all handles and asserting uv_loop_close() == 0.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/buf.h"
#include "core/log.h"
#include "http/http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- test server ---- */

struct tserver {
    uv_loop_t loop;
    struct http_server *srv;
    int port;
    uv_timer_t late;  /* answers /late */
    uv_timer_t guard; /* keeps uv_run(ONCE) from blocking forever */
    struct http_req *late_req;
    struct http_req *held; /* /hold: the test answers it */
    unsigned requests;
    unsigned done_calls;
    char order[256]; /* handler and late-answer events, in order */
    /* results of /query */
    int q_rc[4];
    char q_val[4][64];
};

static struct tserver T;

static void note(const char *ev)
{
    size_t n = strlen(T.order);
    snprintf(T.order + n, sizeof(T.order) - n, "%s;", ev);
}

static void late_cb(uv_timer_t *t)
{
    (void)t;
    note("late-out");
    http_respond(T.late_req, 200, "text/plain", "late", 4);
    T.late_req = NULL;
}

static void h_echo(struct http_req *req)
{
    struct buf b = BUF_INIT;
    const char *xa = http_req_header(req, "x-a");
    int rc = buf_printf(&b, "%s %s ?%s a=%s len=%zu body=%s", http_method_name(req->method),
                        req->path, req->query, xa ? xa : "-", req->body_len, req->body);
    assert_int_equal(rc, 0);
    http_respond(req, 200, "text/plain", b.data, b.len);
    buf_free(&b);
}

static void h_query(struct http_req *req)
{
    static const char *const names[] = {"x", "y", "z", "missing"};
    for (int i = 0; i < 4; i++)
        T.q_rc[i] = http_req_query(req, names[i], T.q_val[i], sizeof(T.q_val[i]));
    http_respond(req, 204, NULL, NULL, 0);
}

static void handler(struct http_req *req)
{
    struct tserver *t = req->app;
    char ev[64];
    t->requests++;
    if (strcmp(req->path, "/hello") == 0) {
        http_respond(req, 200, "text/plain", "hello", 5);
    } else if (strcmp(req->path, "/late") == 0) {
        note("late-in");
        t->late_req = req;
        uv_timer_start(&t->late, late_cb, 100, 0);
    } else if (strcmp(req->path, "/now") == 0) {
        char i[16] = "";
        assert_int_equal(http_req_query(req, "i", i, sizeof(i)), 0);
        snprintf(ev, sizeof(ev), "now%s", i);
        note(ev);
        http_respond(req, 200, "text/plain", ev, strlen(ev));
    } else if (strcmp(req->path, "/echo") == 0) {
        h_echo(req);
    } else if (strcmp(req->path, "/query") == 0) {
        h_query(req);
    } else if (strcmp(req->path, "/hold") == 0) {
        t->held = req;
    } else if (strcmp(req->path, "/405") == 0) {
        assert_int_equal(http_req_add_header(req, "Allow", "GET, POST"), 0);
        assert_int_equal(http_req_add_header(req, "X-Bad", "a\r\nInjected: 1"), -1);
        http_respond_error(req, 405, "METHOD_NOT_ALLOWED", "use \"%s\"", "GET\\POST");
    } else {
        http_respond_error(req, 404, "NOT_FOUND", "no route");
    }
}

static void noop_timer(uv_timer_t *t)
{
    (void)t;
}

static struct http_server_config test_config(void)
{
    struct http_server_config cfg = {
        .listen_addr = "127.0.0.1:0",
        .max_header_bytes = 4096,
        .max_body_bytes = 1024,
        .max_connections = 16,
        .idle_timeout_ms = 5000,
        .request_timeout_ms = 5000,
        .on_request = handler,
        .app = &T,
    };
    return cfg;
}

static void server_start_cfg(const struct http_server_config *cfg)
{
    memset(&T, 0, sizeof(T));
    assert_int_equal(uv_loop_init(&T.loop), 0);
    uv_timer_init(&T.loop, &T.late);
    uv_timer_init(&T.loop, &T.guard);
    assert_int_equal(http_server_start(&T.loop, cfg, &T.srv), 0);
    T.port = http_server_port(T.srv);
    assert_true(T.port > 0);
}

static void server_start(void)
{
    struct http_server_config cfg = test_config();
    server_start_cfg(&cfg);
}

static void on_done(void *arg)
{
    struct tserver *t = arg;
    t->done_calls++;
}

/* Closes the server and the test handles; the loop must then close cleanly. */
static void server_stop(void)
{
    http_server_close(T.srv, on_done, &T);
    uv_close((uv_handle_t *)&T.late, NULL);
    uv_close((uv_handle_t *)&T.guard, NULL);
    uv_run(&T.loop, UV_RUN_DEFAULT);
    assert_int_equal(T.done_calls, 1);
    assert_int_equal(uv_loop_close(&T.loop), 0);
}

typedef bool (*pred_fn)(void *arg);

static bool run_until(pred_fn pred, void *arg, unsigned timeout_ms)
{
    uv_update_time(&T.loop);
    uint64_t end = uv_now(&T.loop) + timeout_ms;
    uv_timer_start(&T.guard, noop_timer, 5, 5);
    while (!pred(arg) && uv_now(&T.loop) < end)
        uv_run(&T.loop, UV_RUN_ONCE);
    uv_timer_stop(&T.guard);
    return pred(arg);
}

static bool never(void *arg)
{
    (void)arg;
    return false;
}

static void run_for(unsigned ms)
{
    (void)run_until(never, NULL, ms);
}

/* ---- test client ---- */

struct tclient {
    uv_tcp_t tcp;
    uv_connect_t creq;
    struct buf in;
    size_t pos;         /* bytes of `in` already taken as responses */
    int connect_status; /* 1 while connecting */
    int read_status;    /* 0, or UV_EOF / an error once reading ended */
    bool closed;
};

struct twrite {
    uv_write_t req;
    char data[];
};

static void cl_alloc(uv_handle_t *h, size_t hint, uv_buf_t *b)
{
    struct tclient *c = h->data;
    (void)hint;
    assert_int_equal(buf_reserve(&c->in, 65536), 0);
    *b = uv_buf_init(c->in.data + c->in.len, (unsigned)(c->in.cap - c->in.len - 1));
}

static void cl_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
    struct tclient *c = s->data;
    (void)b;
    if (n > 0) {
        c->in.len += (size_t)n;
        c->in.data[c->in.len] = '\0';
    } else if (n < 0) {
        c->read_status = (int)n;
        uv_read_stop(s);
    }
}

static void cl_connected(uv_connect_t *r, int status)
{
    struct tclient *c = r->data;
    c->connect_status = status;
    if (status == 0)
        assert_int_equal(uv_read_start((uv_stream_t *)&c->tcp, cl_alloc, cl_read), 0);
}

static bool cl_connect_done(void *arg)
{
    return ((struct tclient *)arg)->connect_status != 1;
}

static int client_open(struct tclient *c)
{
    struct sockaddr_in sa;
    memset(c, 0, sizeof(*c));
    c->connect_status = 1;
    uv_tcp_init(&T.loop, &c->tcp);
    c->tcp.data = c->creq.data = c;
    assert_int_equal(uv_ip4_addr("127.0.0.1", T.port, &sa), 0);
    assert_int_equal(uv_tcp_connect(&c->creq, &c->tcp, (struct sockaddr *)&sa, cl_connected), 0);
    assert_true(run_until(cl_connect_done, c, 2000));
    return c->connect_status;
}

static void cl_written(uv_write_t *w, int status)
{
    (void)status;
    free(TE_CONTAINER_OF(w, struct twrite, req));
}

static void client_send(struct tclient *c, const char *data, size_t len)
{
    struct twrite *w = malloc(sizeof(*w) + len);
    assert_non_null(w);
    memcpy(w->data, data, len);
    uv_buf_t b = uv_buf_init(w->data, (unsigned)len);
    assert_int_equal(uv_write(&w->req, (uv_stream_t *)&c->tcp, &b, 1, cl_written), 0);
}

static void client_sends(struct tclient *c, const char *s)
{
    client_send(c, s, strlen(s));
}

static void cl_closed(uv_handle_t *h)
{
    struct tclient *c = h->data;
    c->closed = true;
}

static bool cl_is_closed(void *arg)
{
    return ((struct tclient *)arg)->closed;
}

static void client_close(struct tclient *c)
{
    if (!uv_is_closing((uv_handle_t *)&c->tcp))
        uv_close((uv_handle_t *)&c->tcp, cl_closed);
    assert_true(run_until(cl_is_closed, c, 2000));
    buf_free(&c->in);
}

static bool cl_ended(void *arg)
{
    return ((struct tclient *)arg)->read_status != 0;
}

/* Waits for the server to close the connection; true when it did. */
static bool client_wait_eof(struct tclient *c, unsigned ms)
{
    return run_until(cl_ended, c, ms);
}

/* ---- responses ---- */

struct tresp {
    int status;
    char head[4096];
    char body[8192];
    size_t body_len;
};

/* Parses one response from c->in at c->pos; 1 when complete, 0 when not yet. */
static int resp_parse(struct tclient *c, bool head_req, struct tresp *r)
{
    const char *start = c->in.data ? c->in.data + c->pos : "";
    const char *end = strstr(start, "\r\n\r\n");
    if (!end)
        return 0;
    size_t hlen = (size_t)(end - start) + 2;
    assert_true(hlen < sizeof(r->head));
    memcpy(r->head, start, hlen);
    r->head[hlen] = '\0';
    assert_int_equal(sscanf(r->head, "HTTP/1.1 %d", &r->status), 1);
    size_t cl = 0;
    const char *p = strcasestr(r->head, "\r\ncontent-length:");
    if (p && !head_req)
        cl = strtoul(p + 17, NULL, 10);
    size_t have = c->in.len - c->pos - hlen - 2;
    if (have < cl)
        return 0;
    assert_true(cl < sizeof(r->body));
    memcpy(r->body, end + 4, cl);
    r->body[cl] = '\0';
    r->body_len = cl;
    c->pos += hlen + 2 + cl;
    return 1;
}

struct resp_wait {
    struct tclient *c;
    bool head_req;
    struct tresp *r;
    int got;
};

static bool resp_ready(void *arg)
{
    struct resp_wait *w = arg;
    if (!w->got)
        w->got = resp_parse(w->c, w->head_req, w->r);
    return w->got || w->c->read_status != 0;
}

/* Waits for the next response; fails the test if none arrives. */
static void client_resp(struct tclient *c, bool head_req, struct tresp *r)
{
    struct resp_wait w = {c, head_req, r, 0};
    memset(r, 0, sizeof(*r));
    run_until(resp_ready, &w, 3000);
    if (!w.got)
        w.got = resp_parse(c, head_req, r);
    assert_int_equal(w.got, 1);
}

/* Value of a response header, or "" when absent. */
static const char *hdr(const struct tresp *r, const char *name)
{
    static char out[256];
    char pat[64];
    snprintf(pat, sizeof(pat), "\r\n%s:", name);
    const char *p = strcasestr(r->head, pat);
    out[0] = '\0';
    if (!p)
        return out;
    p += strlen(pat);
    while (*p == ' ')
        p++;
    size_t n = strcspn(p, "\r");
    snprintf(out, sizeof(out), "%.*s", (int)n, p);
    return out;
}

static void assert_generated_id(const char *id)
{
    assert_int_equal(strlen(id), 30);
    assert_memory_equal(id, "req_", 4);
    for (size_t i = 4; i < 30; i++)
        assert_non_null(strchr("0123456789abcdefghjkmnpqrstvwxyz", id[i]));
}

/* ---- tests ---- */

static void test_simple_get(void **state)
{
    (void)state;
    struct tclient c;
    struct tresp r;
    server_start();
    assert_int_equal(client_open(&c), 0);
    client_sends(&c, "GET /hello HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer secret\r\n\r\n");
    client_resp(&c, false, &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "hello");
    assert_string_equal(hdr(&r, "Content-Type"), "text/plain");
    assert_string_equal(hdr(&r, "Content-Length"), "5");
    assert_string_equal(hdr(&r, "Connection"), "keep-alive");
    assert_generated_id(hdr(&r, "X-Request-Id"));
    assert_non_null(strstr(r.head, "HTTP/1.1 200 OK\r\n"));
    assert_int_equal(http_server_open_connections(T.srv), 1);
    client_close(&c);
    server_stop();
}

static void test_keep_alive(void **state)
{
    (void)state;
    struct tclient c;
    struct tresp r1, r2;
    server_start();
    assert_int_equal(client_open(&c), 0);
    client_sends(&c, "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n");
    client_resp(&c, false, &r1);
    client_sends(&c, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc");
    client_resp(&c, false, &r2);
    assert_int_equal(r1.status, 200);
    assert_int_equal(r2.status, 200);
    assert_string_equal(r2.body, "POST /echo ? a=- len=3 body=abc");
    assert_string_not_equal(hdr(&r1, "X-Request-Id"), "");
    assert_int_equal(T.requests, 2);
    assert_int_equal(http_server_open_connections(T.srv), 1);
    assert_int_equal(c.read_status, 0);
    client_close(&c);
    server_stop();
}

static void test_pipelined_in_order(void **state)
{
    (void)state;
    struct tclient c;
    struct tresp r[3];
    server_start();
    assert_int_equal(client_open(&c), 0);
    client_sends(&c, "GET /late HTTP/1.1\r\nHost: x\r\n\r\n"
                     "GET /now?i=2 HTTP/1.1\r\nHost: x\r\n\r\n"
                     "GET /now?i=3 HTTP/1.1\r\nHost: x\r\n\r\n");
    for (int i = 0; i < 3; i++)
        client_resp(&c, false, &r[i]);
    assert_string_equal(r[0].body, "late");
    assert_string_equal(r[1].body, "now2");
    assert_string_equal(r[2].body, "now3");
    /* The later requests reached the handler only after the first was answered. */
    assert_string_equal(T.order, "late-in;late-out;now2;now3;");
    client_close(&c);
    server_stop();
}

static void test_query_string(void **state)
{
    (void)state;
    struct tclient c;
    struct tresp r;
    server_start();
    assert_int_equal(client_open(&c), 0);
    client_sends(&c, "GET /query?x=a%20b+c%2Fd&y=%zz&z=&%78=dup HTTP/1.1\r\nHost: x\r\n\r\n");
    client_resp(&c, false, &r);
    assert_int_equal(r.status, 204);
    assert_string_equal(hdr(&r, "Content-Length"), "");
    assert_int_equal(T.q_rc[0], 0);
    assert_string_equal(T.q_val[0], "a b c/d");
    assert_int_equal(T.q_rc[1], -2);
    assert_int_equal(T.q_rc[2], 0);
    assert_string_equal(T.q_val[2], "");
    assert_int_equal(T.q_rc[3], -1);
    client_close(&c);
    server_stop();
}

/* http_req_query only reads req->query: a table of cases without a socket. */
static void test_query_table(void **state)
{
    static const struct {
        const char *query, *name;
        size_t outlen;
        int rc;
        const char *want;
    } cases[] = {
        {"a=1&b=2", "b", 16, 0, "2"},
        {"a=1&b=2", "c", 16, -1, NULL},
        {"", "a", 16, -1, NULL},
        {"a", "a", 16, 0, ""},
        {"a=x%41y", "a", 16, 0, "xAy"},
        {"a=%4", "a", 16, -2, NULL},
        {"a=%g1", "a", 16, -2, NULL},
        {"a=%00", "a", 16, -2, NULL},
        {"a=12345", "a", 5, -2, NULL},
        {"a=1234", "a", 5, 0, "1234"},
        {"a+b=1&a%20b=2", "a b", 16, 0, "1"},
        {"bad=%&a=ok", "a", 16, 0, "ok"},
        {"a=1&a=2", "a", 16, 0, "1"},
        {"&&a=+x+&", "a", 16, 0, " x "},
    };
    (void)state;
    for (size_t i = 0; i < TE_ARRAY_LEN(cases); i++) {
        struct http_req req = {.query = cases[i].query};
        char out[64] = "unchanged";
        int rc = http_req_query(&req, cases[i].name, out, cases[i].outlen);
        if (rc != cases[i].rc)
            fail_msg("case %zu: rc %d, want %d", i, rc, cases[i].rc);
        if (cases[i].want)
            assert_string_equal(out, cases[i].want);
    }
}

static void test_413_content_length(void **state)
{
    (void)state;
    struct tclient c;
    struct tresp r;
    server_start();
    assert_int_equal(client_open(&c), 0);
    /* The body is never sent: the answer must not wait for it. */
    client_sends(&c, "POST /echo HTTP/1.1\r\nHost: x\r\nX-Request-Id: big-1\r\n"
                     "Content-Length: 100000\r\n\r\n");
    client_resp(&c, false, &r);
    assert_int_equal(r.status, 413);
    assert_string_equal(hdr(&r, "Connection"), "close");
    assert_string_equal(hdr(&r, "X-Request-Id"), "big-1");
    assert_string_equal(r.body, "{\"error\":{\"code\":\"PAYLOAD_TOO_LARGE\",\"message\":\"request "
                                "body exceeds 1024 bytes\",\"request_id\":\"big-1\"}}");
    assert_int_equal(T.requests, 0);
    assert_true(client_wait_eof(&c, 1000));
    client_close(&c);
    server_stop();
}

static void test_413_chunked(void **state)
{
    (void)state;
    struct tclient c;
    struct tresp r;
    char chunk[700];
    server_start();
    assert_int_equal(client_open(&c), 0);
    client_sends(&c, "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
    memset(chunk, 'a', sizeof(chunk));
    for (int i = 0; i < 2; i++) {
        client_sends(&c, "2bc\r\n");
        client_send(&c, chunk, sizeof(chunk));
        client_sends(&c, "\r\n");
    }
    client_resp(&c, false, &r);
    assert_int_equal(r.status, 413);
    assert_string_equal(hdr(&r, "Connection"), "close");
    assert_int_equal(T.requests, 0);
    assert_true(client_wait_eof(&c, 1000));
    client_close(&c);
    server_stop();
}

static void test_chunked_ok(void **state)
{
    (void)state;
    struct tclient c;
    struct tresp r;
    server_start();
    assert_int_equal(client_open(&c), 0);
    client_sends(&c, "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                     "3\r\nabc\r\n2\r\nde\r\n0\r\nX-Trailer: t\r\n\r\n");
    client_resp(&c, false, &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "POST /echo ? a=- len=5 body=abcde");
    client_close(&c);
    server_stop();
}

static void test_431_headers(void **state)
{
    (void)state;
    struct tclient c;
    struct tresp r;
    struct buf req = BUF_INIT;
    server_start();
    assert_int_equal(client_open(&c), 0);
    assert_int_equal(buf_puts(&req, "GET /hello HTTP/1.1\r\nHost: x\r\n"), 0);
    for (int i = 0; i < 100; i++)
        assert_int_equal(buf_printf(&req, "X-Filler-%d: %080d\r\n", i, i), 0);
    assert_int_equal(buf_puts(&req, "\r\n"), 0);
    client_send(&c, req.data, req.len);
    buf_free(&req);
    client_resp(&c, false, &r);
    assert_int_equal(r.status, 431);
    assert_string_equal(hdr(&r, "Connection"), "close");
    assert_non_null(strstr(r.body, "\"code\":\"HEADERS_TOO_LARGE\""));
    assert_non_null(strstr(r.body, "\"request_id\":\"req_"));
    assert_int_equal(T.requests, 0);
    assert_true(client_wait_eof(&c, 1000));
    client_close(&c);
    server_stop();
}

static void test_400_garbage(void **state)
{
    (void)state;
    struct tclient c;
    struct tresp r;
    server_start();
    assert_int_equal(client_open(&c), 0);
    client_sends(&c, "HELLO\x01 there\r\n\r\n");
    client_resp(&c, false, &r);
    assert_int_equal(r.status, 400);
    assert_string_equal(hdr(&r, "Connection"), "close");
    assert_string_equal(hdr(&r, "Content-Type"), "application/json");
    const char *id = hdr(&r, "X-Request-Id");
    assert_generated_id(id);
    char want[160];
    snprintf(want, sizeof(want),
             "{\"error\":{\"code\":\"INVALID_REQUEST\",\"message\":\"malformed HTTP "
             "request\",\"request_id\":\"%s\"}}",
             id);
    assert_string_equal(r.body, want);
    assert_true(client_wait_eof(&c, 1000));
    client_close(&c);
    server_stop();
}

static void test_504_then_late_respond(void **state)
{
    (void)state;
    struct tclient c;
    struct tresp r;
    struct http_server_config cfg = test_config();
    cfg.request_timeout_ms = 1000;
    server_start_cfg(&cfg);
    assert_int_equal(client_open(&c), 0);
    client_sends(&c, "GET /hold HTTP/1.1\r\nHost: x\r\nX-Request-Id: slow-1\r\n\r\n");
    client_resp(&c, false, &r);
    assert_int_equal(r.status, 504);
    assert_string_equal(hdr(&r, "Connection"), "close");
    assert_string_equal(r.body, "{\"error\":{\"code\":\"TIMEOUT\",\"message\":\"request took "
                                "longer than 1 s\",\"request_id\":\"slow-1\"}}");
    assert_non_null(T.held);
    assert_true(http_req_gone(T.held));
    assert_string_equal(T.held->path, "/hold"); /* still valid */
    assert_string_equal(http_req_header(T.held, "x-request-id"), "slow-1");
    assert_true(client_wait_eof(&c, 1000));
    assert_int_equal(http_req_add_header(T.held, "X-Late", "1"), 0);
    http_respond(T.held, 200, "text/plain", "too late", 8); /* only frees */
    T.held = NULL;
    client_close(&c);
    server_stop();
}

static void test_504_ms_message(void **state)
{
    (void)state;
    struct tclient c;
    struct tresp r;
    struct http_server_config cfg = test_config();
    cfg.request_timeout_ms = 50;
    server_start_cfg(&cfg);
    assert_int_equal(client_open(&c), 0);
    client_sends(&c, "GET /hold HTTP/1.1\r\nHost: x\r\n\r\n");
    client_resp(&c, false, &r);
    assert_int_equal(r.status, 504);
    assert_non_null(strstr(r.body, "request took longer than 50 ms"));
    client_close(&c);
    /* The handler answers after the connection is fully closed. */
    run_for(50);
    assert_int_equal(http_server_open_connections(T.srv), 0);
    http_respond_error(T.held, 500, "X", "late %d", 1);
    T.held = NULL;
    server_stop();
}

static bool srv_no_conns(void *arg)
{
    (void)arg;
    return http_server_open_connections(T.srv) == 0;
}

static void test_client_disconnect_while_held(void **state)
{
    (void)state;
    struct tclient c;
    server_start();
    assert_int_equal(client_open(&c), 0);
    client_sends(&c, "POST /hold HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nbody");
    run_for(50);
    assert_non_null(T.held);
    assert_false(http_req_gone(T.held));
    client_close(&c);
    assert_true(run_until(srv_no_conns, NULL, 2000));
    assert_true(http_req_gone(T.held));
    assert_string_equal(T.held->body, "body");
    http_respond(T.held, 200, "text/plain", "x", 1); /* dropped, frees the connection */
    T.held = NULL;
    server_stop();
}

static void test_close_server_while_held(void **state)
{
    (void)state;
    struct tclient c;
    server_start();
    assert_int_equal(client_open(&c), 0);
    client_sends(&c, "GET /hold HTTP/1.1\r\nHost: x\r\n\r\n");
    run_for(50);
    assert_non_null(T.held);
    client_close(&c);
    http_server_close(T.srv, on_done, &T);
    uv_close((uv_handle_t *)&T.late, NULL);
    uv_close((uv_handle_t *)&T.guard, NULL);
    uv_run(&T.loop, UV_RUN_DEFAULT);
    assert_int_equal(T.done_calls, 1);
    assert_int_equal(uv_loop_close(&T.loop), 0);
    /* The loop is gone; the handler's late answer only releases memory. */
    assert_true(http_req_gone(T.held));
    http_respond(T.held, 200, NULL, NULL, 0);
    T.held = NULL;
}

static void test_request_id(void **state)
{
    (void)state;
    static const struct {
        const char *sent;
        bool accepted;
    } cases[] = {
        {"abc-123.X:y_z", true},
        {"a", true},
        {"bad id!", false},
        {"semi;colon", false},
        {"0123456789012345678901234567890123456789012345678901234567890123", true},
        {"01234567890123456789012345678901234567890123456789012345678901234", false},
    };
    struct tclient c;
    struct tresp r;
    char req[256];
    server_start();
    assert_int_equal(client_open(&c), 0);
    for (size_t i = 0; i < TE_ARRAY_LEN(cases); i++) {
        snprintf(req, sizeof(req), "GET /hello HTTP/1.1\r\nX-Request-Id: %s\r\n\r\n",
                 cases[i].sent);
        client_sends(&c, req);
        client_resp(&c, false, &r);
        assert_int_equal(r.status, 200);
        if (cases[i].accepted)
            assert_string_equal(hdr(&r, "X-Request-Id"), cases[i].sent);
        else
            assert_generated_id(hdr(&r, "X-Request-Id"));
    }
    /* Generated ids differ. */
    char first[64];
    client_sends(&c, "GET /hello HTTP/1.1\r\n\r\n");
    client_resp(&c, false, &r);
    snprintf(first, sizeof(first), "%s", hdr(&r, "X-Request-Id"));
    client_sends(&c, "GET /hello HTTP/1.1\r\n\r\n");
    client_resp(&c, false, &r);
    assert_string_not_equal(first, hdr(&r, "X-Request-Id"));
    client_close(&c);
    server_stop();
}

static void test_head(void **state)
{
    (void)state;
    struct tclient c;
    struct tresp r;
    server_start();
    assert_int_equal(client_open(&c), 0);
    client_sends(&c, "HEAD /hello HTTP/1.1\r\nHost: x\r\n\r\nGET /hello HTTP/1.1\r\n\r\n");
    client_resp(&c, true, &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(hdr(&r, "Content-Length"), "5");
    client_resp(&c, false, &r); /* framing intact: the HEAD answer had no body */
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "hello");
    assert_int_equal(c.pos, c.in.len);
    client_close(&c);
    server_stop();
}

static void test_connection_close(void **state)
{
    (void)state;
    struct tclient c;
    struct tresp r;
    server_start();
    assert_int_equal(client_open(&c), 0);
    /* The second request must be ignored: the first ends the connection. */
    client_sends(&c, "GET /hello HTTP/1.1\r\nConnection: close\r\n\r\nGET /hello HTTP/1.1\r\n\r\n");
    client_resp(&c, false, &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(hdr(&r, "Connection"), "close");
    assert_true(client_wait_eof(&c, 1000));
    assert_int_equal(c.pos, c.in.len);
    assert_int_equal(T.requests, 1);
    client_close(&c);
    server_stop();
}

static void test_http10(void **state)
{
    (void)state;
    struct tclient c;
    struct tresp r;
    server_start();
    assert_int_equal(client_open(&c), 0);
    client_sends(&c, "GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    client_resp(&c, false, &r);
    assert_string_equal(hdr(&r, "Connection"), "keep-alive");
    client_sends(&c, "GET /hello HTTP/1.0\r\n\r\n");
    client_resp(&c, false, &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(hdr(&r, "Connection"), "close");
    assert_true(client_wait_eof(&c, 1000));
    client_close(&c);
    server_stop();
}

static bool got_bytes(void *arg)
{
    struct tclient *c = arg;
    return c->in.len > 0 || c->read_status;
}

static void test_expect_continue(void **state)
{
    (void)state;
    struct tclient c;
    struct tresp r;
    server_start();
    assert_int_equal(client_open(&c), 0);
    client_sends(&c, "POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
                     "Content-Length: 5\r\n\r\n");
    assert_true(run_until(got_bytes, &c, 1000));
    assert_string_equal(c.in.data, "HTTP/1.1 100 Continue\r\n\r\n");
    c.pos = c.in.len;
    client_sends(&c, "hello");
    client_resp(&c, false, &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "POST /echo ? a=- len=5 body=hello");
    /* Too large: 413 instead of 100 Continue. */
    client_sends(&c, "POST /echo HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 5000\r\n\r\n");
    client_resp(&c, false, &r);
    assert_int_equal(r.status, 413);
    client_close(&c);
    server_stop();
}

static void test_idle_timeouts(void **state)
{
    (void)state;
    struct tclient idle, slow, ka;
    struct tresp r;
    struct http_server_config cfg = test_config();
    cfg.idle_timeout_ms = 100;
    server_start_cfg(&cfg);
    assert_int_equal(client_open(&idle), 0);
    assert_int_equal(client_open(&slow), 0);
    assert_int_equal(client_open(&ka), 0);
    client_sends(&slow, "GET /hello HTTP/1.1\r\nHost: x\r\n");
    client_sends(&ka, "GET /hello HTTP/1.1\r\n\r\n");
    client_resp(&ka, false, &r);
    assert_int_equal(r.status, 200);
    assert_true(client_wait_eof(&idle, 1000));
    assert_true(client_wait_eof(&slow, 1000));
    assert_true(client_wait_eof(&ka, 1000));
    assert_int_equal(slow.in.len, 0);
    assert_int_equal(idle.in.len, 0);
    client_close(&idle);
    client_close(&slow);
    client_close(&ka);
    server_stop();
}

static void test_max_connections(void **state)
{
    (void)state;
    struct tclient a, b;
    struct tresp r;
    struct http_server_config cfg = test_config();
    cfg.max_connections = 1;
    server_start_cfg(&cfg);
    assert_int_equal(client_open(&a), 0);
    client_sends(&a, "GET /hello HTTP/1.1\r\n\r\n");
    client_resp(&a, false, &r);
    assert_int_equal(client_open(&b), 0);
    assert_true(client_wait_eof(&b, 1000)); /* accepted, then closed at once */
    assert_int_equal(b.in.len, 0);
    client_sends(&a, "GET /hello HTTP/1.1\r\n\r\n");
    client_resp(&a, false, &r);
    assert_int_equal(r.status, 200);
    assert_int_equal(http_server_open_connections(T.srv), 1);
    client_close(&a);
    client_close(&b);
    server_stop();
}

static void test_stop_accepting(void **state)
{
    (void)state;
    struct tclient busy, idle, late;
    struct tresp r;
    server_start();
    assert_int_equal(client_open(&busy), 0);
    assert_int_equal(client_open(&idle), 0);
    client_sends(&busy, "GET /hold HTTP/1.1\r\n\r\n");
    run_for(50);
    assert_non_null(T.held);
    http_server_stop_accepting(T.srv);
    assert_true(client_wait_eof(&idle, 1000));   /* between requests: closed now */
    assert_int_not_equal(client_open(&late), 0); /* nobody listens */
    http_respond(T.held, 200, "text/plain", "bye", 3);
    T.held = NULL;
    client_resp(&busy, false, &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(hdr(&r, "Connection"), "close");
    assert_true(client_wait_eof(&busy, 1000));
    client_close(&busy);
    client_close(&idle);
    client_close(&late);
    server_stop();
}

static void test_added_headers_and_error_escaping(void **state)
{
    (void)state;
    struct tclient c;
    struct tresp r;
    server_start();
    assert_int_equal(client_open(&c), 0);
    client_sends(&c, "DELETE /405 HTTP/1.1\r\nX-Request-Id: e-1\r\n\r\n");
    client_resp(&c, false, &r);
    assert_int_equal(r.status, 405);
    assert_string_equal(hdr(&r, "Allow"), "GET, POST");
    assert_null(strstr(r.head, "Injected"));
    assert_string_equal(r.body, "{\"error\":{\"code\":\"METHOD_NOT_ALLOWED\",\"message\":\"use "
                                "\\\"GET\\\\POST\\\"\",\"request_id\":\"e-1\"}}");
    /* Added headers belong to one response only. */
    client_sends(&c, "GET /hello HTTP/1.1\r\n\r\n");
    client_resp(&c, false, &r);
    assert_string_equal(hdr(&r, "Allow"), "");
    client_close(&c);
    server_stop();
}

static void test_repeated_headers_joined(void **state)
{
    (void)state;
    struct tclient c;
    struct tresp r;
    server_start();
    assert_int_equal(client_open(&c), 0);
    client_sends(&c, "GET /echo?k=v HTTP/1.1\r\nX-A: 1  \r\nx-b: q\r\nx-a: 2\r\nX-A:\r\n\r\n");
    client_resp(&c, false, &r);
    assert_string_equal(r.body, "GET /echo ?k=v a=1, 2,  len=0 body=");
    client_close(&c);
    server_stop();
}

/* Every byte in its own read: spans split anywhere must be reassembled. */
static void test_split_into_single_bytes(void **state)
{
    (void)state;
    static const char req[] = "POST /echo?k=v HTTP/1.1\r\nX-A: hello\r\nX-Request-Id: split-1\r\n"
                              "Content-Length: 3\r\n\r\nabc";
    struct tclient c;
    struct tresp r;
    server_start();
    assert_int_equal(client_open(&c), 0);
    for (size_t i = 0; i < sizeof(req) - 1; i++) {
        client_send(&c, req + i, 1);
        run_for(1);
    }
    client_resp(&c, false, &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "POST /echo ?k=v a=hello len=3 body=abc");
    assert_string_equal(hdr(&r, "X-Request-Id"), "split-1");
    client_close(&c);
    server_stop();
}

struct count_wait {
    struct tclient *c;
    int want, got;
};

static bool count_ready(void *arg)
{
    struct count_wait *w = arg;
    struct tresp *r = malloc(sizeof(*r));
    assert_non_null(r);
    while (w->got < w->want && resp_parse(w->c, false, r)) {
        assert_int_equal(r->status, 200);
        assert_string_equal(r->body, "hello");
        w->got++;
    }
    free(r);
    return w->got == w->want || w->c->read_status;
}

/* More pipelined bytes than the server buffers: it must stop and resume reading. */
static void test_many_pipelined(void **state)
{
    (void)state;
    enum { N = 3000 };
    struct tclient c;
    struct buf reqs = BUF_INIT;
    server_start();
    assert_int_equal(client_open(&c), 0);
    for (int i = 0; i < N; i++)
        assert_int_equal(buf_puts(&reqs, "GET /hello HTTP/1.1\r\nHost: pipelined\r\n\r\n"), 0);
    assert_true(reqs.len > 100 * 1024);
    client_send(&c, reqs.data, reqs.len);
    buf_free(&reqs);
    struct count_wait w = {&c, N, 0};
    assert_true(run_until(count_ready, &w, 10000));
    assert_int_equal(w.got, N);
    assert_int_equal(T.requests, N);
    assert_int_equal(c.read_status, 0);
    client_close(&c);
    server_stop();
}

static void test_bad_listen_addr(void **state)
{
    (void)state;
    static const char *const bad[] = {"nope",       "1.2.3.4",     "::1:80",      "[::1]80",
                                      "host:99999", "127.0.0.1:x", "999.1.1.1:80"};
    uv_loop_t loop;
    struct http_server *srv = NULL;
    assert_int_equal(uv_loop_init(&loop), 0);
    for (size_t i = 0; i < TE_ARRAY_LEN(bad); i++) {
        struct http_server_config cfg = test_config();
        cfg.listen_addr = bad[i];
        assert_true(http_server_start(&loop, &cfg, &srv) < 0);
    }
    assert_int_equal(uv_loop_close(&loop), 0);
}

static void test_ipv6_listen(void **state)
{
    (void)state;
    struct http_server_config cfg = test_config();
    cfg.listen_addr = "[::1]:0";
    memset(&T, 0, sizeof(T));
    assert_int_equal(uv_loop_init(&T.loop), 0);
    uv_timer_init(&T.loop, &T.late);
    uv_timer_init(&T.loop, &T.guard);
    int rc = http_server_start(&T.loop, &cfg, &T.srv);
    if (rc < 0) { /* no IPv6 on this machine: the failed start still cleans up */
        uv_close((uv_handle_t *)&T.late, NULL);
        uv_close((uv_handle_t *)&T.guard, NULL);
        uv_run(&T.loop, UV_RUN_DEFAULT);
        assert_int_equal(uv_loop_close(&T.loop), 0);
        skip();
    }
    assert_true(http_server_port(T.srv) > 0);
    server_stop();
}

static void test_bind_conflict(void **state)
{
    (void)state;
    struct http_server *second = NULL;
    char addr[64];
    server_start();
    snprintf(addr, sizeof(addr), "127.0.0.1:%d", T.port);
    struct http_server_config cfg = test_config();
    cfg.listen_addr = addr;
    assert_int_equal(http_server_start(&T.loop, &cfg, &second), UV_EADDRINUSE);
    server_stop(); /* the failed server's handles close on this loop too */
}

int main(void)
{
    const char *dbg = getenv("HTTP_TEST_DEBUG");
    log_setup(dbg ? LOG_DEBUG : (enum log_level)(LOG_ERROR + 1), false);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_simple_get),
        cmocka_unit_test(test_keep_alive),
        cmocka_unit_test(test_pipelined_in_order),
        cmocka_unit_test(test_query_string),
        cmocka_unit_test(test_query_table),
        cmocka_unit_test(test_413_content_length),
        cmocka_unit_test(test_413_chunked),
        cmocka_unit_test(test_chunked_ok),
        cmocka_unit_test(test_431_headers),
        cmocka_unit_test(test_400_garbage),
        cmocka_unit_test(test_504_then_late_respond),
        cmocka_unit_test(test_504_ms_message),
        cmocka_unit_test(test_client_disconnect_while_held),
        cmocka_unit_test(test_close_server_while_held),
        cmocka_unit_test(test_request_id),
        cmocka_unit_test(test_head),
        cmocka_unit_test(test_connection_close),
        cmocka_unit_test(test_http10),
        cmocka_unit_test(test_expect_continue),
        cmocka_unit_test(test_idle_timeouts),
        cmocka_unit_test(test_max_connections),
        cmocka_unit_test(test_stop_accepting),
        cmocka_unit_test(test_added_headers_and_error_escaping),
        cmocka_unit_test(test_repeated_headers_joined),
        cmocka_unit_test(test_split_into_single_bytes),
        cmocka_unit_test(test_many_pipelined),
        cmocka_unit_test(test_bad_listen_addr),
        cmocka_unit_test(test_ipv6_listen),
        cmocka_unit_test(test_bind_conflict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
