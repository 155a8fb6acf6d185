/*
 * Outbound HTTP dispatcher tests. A tiny HTTP/1.1 server (raw uv_tcp, canned
 * answers by path) runs on the same private loop as the dispatcher, so the
 * whole test is single-threaded. Every test ends by closing all handles and
 * asserting uv_loop_close() == 0.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/buf.h"
#include "core/log.h"
#include "worker/dispatch/http.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- test server ---- */

struct tconn {
    uv_tcp_t tcp;
    struct buf in;
    bool held;        /* got /slow: never answered */
    bool close_after; /* got /close: close once the answer is written */
    struct tconn *prev, *next;
};

struct tsrv {
    uv_tcp_t listener;
    int port;
    unsigned accepted; /* connections */
    unsigned requests;
    unsigned open;
    struct tconn *conns;
};

struct twrite {
    uv_write_t req;
    char *data;
};

struct t {
    uv_loop_t loop;
    struct tsrv srv;
    struct httpd *d;
    uv_timer_t guard; /* keeps uv_run(ONCE) from blocking forever */
    unsigned ndone;   /* dispatcher completions */
    unsigned closed;  /* httpd_close done callbacks */
    char events[1024];
};

static struct t T;

static void note(const char *ev)
{
    size_t n = strlen(T.events);
    snprintf(T.events + n, sizeof(T.events) - n, "%s;", ev);
}

static void conn_closed(uv_handle_t *h)
{
    struct tconn *c = h->data;
    if (c->prev)
        c->prev->next = c->next;
    else
        T.srv.conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    buf_free(&c->in);
    free(c);
    T.srv.open--;
}

static void conn_close(struct tconn *c)
{
    if (!uv_is_closing((uv_handle_t *)&c->tcp))
        uv_close((uv_handle_t *)&c->tcp, conn_closed);
}

static void write_done(uv_write_t *req, int status)
{
    struct twrite *w = (struct twrite *)req;
    struct tconn *c = req->handle->data;
    if (status < 0 || c->close_after)
        conn_close(c);
    free(w->data);
    free(w);
}

static void respond(struct tconn *c, int status, const char *extra, const char *body, size_t len)
{
    struct buf b = BUF_INIT;
    assert_int_equal(buf_printf(&b, "HTTP/1.1 %d X\r\nContent-Length: %zu\r\n%s\r\n", status, len,
                                extra ? extra : ""),
                     0);
    assert_int_equal(buf_append(&b, body, len), 0);
    struct twrite *w = calloc(1, sizeof(*w));
    assert_non_null(w);
    size_t n = b.len;
    w->data = buf_steal(&b);
    uv_buf_t ub = uv_buf_init(w->data, (unsigned)n);
    assert_int_equal(uv_write(&w->req, (uv_stream_t *)&c->tcp, &ub, 1, write_done), 0);
}

static void respond_pattern(struct tconn *c, size_t len)
{
    char *p = malloc(len);
    assert_non_null(p);
    for (size_t i = 0; i < len; i++)
        p[i] = (char)('a' + i % 26);
    respond(c, 200, NULL, p, len);
    free(p);
}

static size_t content_length(const char *hdr, size_t hlen)
{
    for (const char *p = hdr; p < hdr + hlen; p++) {
        if ((p == hdr || p[-1] == '\n') && strncasecmp(p, "content-length:", 15) == 0)
            return strtoul(p + 15, NULL, 10);
    }
    return 0;
}

static void handle_request(struct tconn *c, const char *hdr, size_t hlen, const char *body,
                           size_t blen)
{
    char method[16] = "", path[256] = "";
    assert_int_equal(sscanf(hdr, "%15s %255s", method, path), 2);
    path[strcspn(path, "?")] = '\0';
    T.srv.requests++;
    if (strcmp(path, "/ok") == 0) {
        respond(c, 200, NULL, "OK", 2);
    } else if (strcmp(path, "/created") == 0) {
        respond(c, 201, NULL, "made", 4);
    } else if (strcmp(path, "/503") == 0) {
        respond(c, 503, NULL, "down", 4);
    } else if (strcmp(path, "/redirect") == 0) {
        respond(c, 302, "Location: /ok\r\n", "", 0);
    } else if (strcmp(path, "/close") == 0) {
        c->close_after = true;
        respond(c, 200, "Connection: close\r\n", "bye", 3);
    } else if (strcmp(path, "/drop") == 0) {
        c->held = true;
        conn_close(c);
    } else if (strcmp(path, "/partial") == 0) {
        c->close_after = true;
        static const char part[] = "HTTP/1.1 200 X\r\nContent-Length: 100\r\n\r\nonly ten..";
        struct twrite *w = calloc(1, sizeof(*w));
        assert_non_null(w);
        w->data = strdup(part);
        uv_buf_t ub = uv_buf_init(w->data, (unsigned)strlen(part));
        assert_int_equal(uv_write(&w->req, (uv_stream_t *)&c->tcp, &ub, 1, write_done), 0);
    } else if (strcmp(path, "/slow") == 0) {
        c->held = true;
    } else if (strcmp(path, "/big") == 0) {
        respond_pattern(c, 200 * 1024);
    } else if (strcmp(path, "/huge") == 0) {
        respond_pattern(c, 2 * 1024 * 1024);
    } else if (strcmp(path, "/bin") == 0) {
        respond(c, 200, NULL, "ok\xff\xfe\xc3(", 6);
    } else if (strcmp(path, "/echo") == 0) {
        /* "METHOD /path\n" + header lines + "\n" + body */
        struct buf b = BUF_INIT;
        const char *lines = strstr(hdr, "\r\n") + 2;
        assert_int_equal(buf_printf(&b, "%s %s\n", method, path), 0);
        assert_int_equal(buf_append(&b, lines, (size_t)(hdr + hlen - lines)), 0);
        assert_int_equal(buf_append(&b, body, blen), 0);
        respond(c, 200, NULL, b.data, b.len);
        buf_free(&b);
    } else {
        respond(c, 404, NULL, "nope", 4);
    }
}

static void conn_process(struct tconn *c)
{
    while (!c->held && c->in.len > 0) {
        char *end = memmem(c->in.data, c->in.len, "\r\n\r\n", 4);
        if (!end)
            return;
        size_t hlen = (size_t)(end - c->in.data) + 4;
        size_t blen = content_length(c->in.data, hlen);
        if (c->in.len < hlen + blen)
            return;
        handle_request(c, c->in.data, hlen, c->in.data + hlen, blen);
        buf_consume(&c->in, hlen + blen);
    }
}

static void conn_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *b)
{
    (void)h;
    b->base = malloc(suggested);
    b->len = b->base ? suggested : 0;
}

static void conn_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
    struct tconn *c = s->data;
    if (n > 0) {
        assert_int_equal(buf_append(&c->in, b->base, (size_t)n), 0);
        conn_process(c);
    } else if (n < 0) {
        conn_close(c);
    }
    free(b->base);
}

static void on_connection(uv_stream_t *l, int status)
{
    assert_int_equal(status, 0);
    struct tconn *c = calloc(1, sizeof(*c));
    assert_non_null(c);
    assert_int_equal(uv_tcp_init(l->loop, &c->tcp), 0);
    c->tcp.data = c;
    assert_int_equal(uv_accept(l, (uv_stream_t *)&c->tcp), 0);
    c->next = T.srv.conns;
    if (T.srv.conns)
        T.srv.conns->prev = c;
    T.srv.conns = c;
    T.srv.accepted++;
    T.srv.open++;
    assert_int_equal(uv_read_start((uv_stream_t *)&c->tcp, conn_alloc, conn_read), 0);
}

static int bound_port(uv_tcp_t *t)
{
    struct sockaddr_storage ss;
    int len = sizeof(ss);
    assert_int_equal(uv_tcp_getsockname(t, (struct sockaddr *)&ss, &len), 0);
    return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

static void srv_start(void)
{
    struct sockaddr_in a;
    assert_int_equal(uv_ip4_addr("127.0.0.1", 0, &a), 0);
    assert_int_equal(uv_tcp_init(&T.loop, &T.srv.listener), 0);
    assert_int_equal(uv_tcp_bind(&T.srv.listener, (struct sockaddr *)&a, 0), 0);
    assert_int_equal(uv_listen((uv_stream_t *)&T.srv.listener, 512, on_connection), 0);
    T.srv.port = bound_port(&T.srv.listener);
}

static void srv_close(void)
{
    uv_close((uv_handle_t *)&T.srv.listener, NULL);
    for (struct tconn *c = T.srv.conns; c; c = c->next)
        conn_close(c);
}

/* A loopback port nobody listens on: bind one, close it. */
static int dead_port(void)
{
    uv_tcp_t t;
    struct sockaddr_in a;
    assert_int_equal(uv_ip4_addr("127.0.0.1", 0, &a), 0);
    assert_int_equal(uv_tcp_init(&T.loop, &t), 0);
    assert_int_equal(uv_tcp_bind(&t, (struct sockaddr *)&a, 0), 0);
    int port = bound_port(&t);
    uv_close((uv_handle_t *)&t, NULL);
    uv_run(&T.loop, UV_RUN_NOWAIT); /* t lives on this stack: let its close finish */
    return port;
}

/* ---- harness ---- */

static void guard_cb(uv_timer_t *t)
{
    (void)t;
}

static void start(const struct httpd_config *cfg)
{
    memset(&T, 0, sizeof(T));
    assert_int_equal(uv_loop_init(&T.loop), 0);
    srv_start();
    assert_int_equal(httpd_new(&T.loop, cfg, &T.d), 0);
    assert_int_equal(uv_timer_init(&T.loop, &T.guard), 0);
    assert_int_equal(uv_timer_start(&T.guard, guard_cb, 20, 20), 0);
}

static void on_closed(void *arg)
{
    (void)arg;
    T.closed++;
    note("done");
}

static void run_until(const unsigned *counter, unsigned target, uint64_t ms)
{
    uv_update_time(&T.loop);
    uint64_t end = uv_now(&T.loop) + ms;
    while (*counter < target && uv_now(&T.loop) < end)
        uv_run(&T.loop, UV_RUN_ONCE);
}

/* Closes the dispatcher (if the test did not), the server and the guard. */
static void finish(void)
{
    if (T.d) {
        httpd_close(T.d, on_closed, NULL);
        T.d = NULL;
    }
    srv_close();
    uv_close((uv_handle_t *)&T.guard, NULL);
    assert_int_equal(uv_run(&T.loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(T.closed, 1);
    assert_int_equal(uv_loop_close(&T.loop), 0);
}

struct res {
    unsigned done;
    enum httpd_outcome outcome;
    long status;
    struct buf body;
    bool truncated;
    bool has_message;
    char message[512];
    int64_t ms;
    struct buf json;
    /* actions taken inside the callback */
    struct httpd *send_again; /* try httpd_send on it, keep rc */
    int send_again_rc;
    bool close_here; /* httpd_close(T.d) from the callback */
};

static void res_free(struct res *r)
{
    buf_free(&r->body);
    buf_free(&r->json);
}

static int send_req(const char *method, const char *url, const char *const *headers, int nh,
                    const char *body, long timeout_ms, const int *expected, int nexp,
                    struct res *r);

static void on_res(void *arg, const struct httpd_result *hr)
{
    struct res *r = arg;
    r->done++;
    r->outcome = hr->outcome;
    r->status = hr->status_code;
    r->truncated = hr->body_truncated;
    r->ms = hr->duration_ms;
    assert_non_null(hr->body);
    buf_reset(&r->body);
    assert_int_equal(buf_append(&r->body, hr->body, hr->body_len), 0);
    r->has_message = hr->message != NULL;
    snprintf(r->message, sizeof(r->message), "%s", hr->message ? hr->message : "");
    buf_reset(&r->json);
    assert_int_equal(httpd_result_json(hr, &r->json), 0);
    if (r->send_again)
        r->send_again_rc = send_req("GET", "http://127.0.0.1:1/", NULL, 0, NULL, 0, NULL, 0, r);
    if (r->close_here) {
        httpd_close(T.d, on_closed, NULL);
        T.d = NULL;
    }
    if (getenv("HTTPD_TEST_VERBOSE"))
        fprintf(stderr, "  result %s %ld: %s\n", httpd_outcome_name(hr->outcome), hr->status_code,
                r->json.data);
    T.ndone++;
    note(hr->message && strcmp(hr->message, "shutting down") == 0 ? "abort" : "cb");
}

static int send_req(const char *method, const char *url, const char *const *headers, int nh,
                    const char *body, long timeout_ms, const int *expected, int nexp, struct res *r)
{
    struct httpd_request req = {
        .method = method,
        .url = url,
        .headers = headers,
        .nheaders = nh,
        .body = body,
        .body_len = body ? strlen(body) : 0,
        .timeout_ms = timeout_ms,
        .expected_status = expected,
        .nexpected = nexp,
    };
    struct httpd *d = r->send_again ? r->send_again : T.d;
    return httpd_send(d, &req, on_res, r);
}

static const char *url_for(const char *path)
{
    static char url[256];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", T.srv.port, path);
    return url;
}

/* One request, run to completion. */
static void fetch(const char *method, const char *path, const char *const *headers, int nh,
                  const char *body, long timeout_ms, const int *expected, int nexp, struct res *r)
{
    unsigned before = T.ndone;
    assert_int_equal(
        send_req(method, url_for(path), headers, nh, body, timeout_ms, expected, nexp, r), 0);
    run_until(&T.ndone, before + 1, 10000);
    assert_int_equal(r->done, 1);
}

static cJSON *parse_json(const struct buf *b)
{
    cJSON *j = cJSON_ParseWithLength(b->data, b->len);
    assert_non_null(j);
    return j;
}

/* ---- tests ---- */

static void test_ok(void **state)
{
    (void)state;
    start(NULL);
    struct res r = {0};
    fetch("GET", "/ok", NULL, 0, NULL, 5000, NULL, 0, &r);
    assert_int_equal(r.outcome, HTTPD_OK);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body.data, "OK");
    assert_false(r.truncated);
    assert_false(r.has_message);
    assert_true(r.ms >= 0 && r.ms < 5000);
    assert_string_equal(r.json.data, "{\"status_code\":200,\"body\":\"OK\"}");
    assert_int_equal(httpd_inflight(T.d), 0);
    res_free(&r);
    finish();
}

static void test_post_echo(void **state)
{
    (void)state;
    start(NULL);
    static const char *const hdrs[] = {"Content-Type: application/json", "X-Custom: abc 123",
                                       "Idempotency-Key: exec_1-2"};
    struct res r = {0};
    fetch("POST", "/echo", hdrs, 3, "{\"a\":1}", 5000, NULL, 0, &r);
    assert_int_equal(r.outcome, HTTPD_OK);
    const char *e = r.body.data;
    assert_true(strncmp(e, "POST /echo\n", 11) == 0);
    assert_non_null(strstr(e, "\r\nContent-Type: application/json\r\n"));
    assert_non_null(strstr(e, "\r\nX-Custom: abc 123\r\n"));
    assert_non_null(strstr(e, "\r\nIdempotency-Key: exec_1-2\r\n"));
    assert_non_null(strstr(e, "\r\nUser-Agent: taskexec/0.1\r\n"));
    assert_non_null(strstr(e, "\r\nContent-Length: 7\r\n"));
    assert_null(strcasestr(e, "Expect:"));
    assert_true(r.body.len > 7 && strcmp(e + r.body.len - 7, "{\"a\":1}") == 0);
    res_free(&r);
    finish();
}

static void test_methods(void **state)
{
    (void)state;
    start(NULL);
    static const char *const ua[] = {"User-Agent: custom/1"};
    struct res r[5] = {{0}};
    fetch("GET", "/echo", ua, 1, NULL, 5000, NULL, 0, &r[0]);
    fetch("PUT", "/echo", NULL, 0, NULL, 5000, NULL, 0, &r[1]);
    fetch("PATCH", "/echo", NULL, 0, "p", 5000, NULL, 0, &r[2]);
    fetch("DELETE", "/echo", NULL, 0, NULL, 5000, NULL, 0, &r[3]);
    fetch("DELETE", "/echo", NULL, 0, "gone", 5000, NULL, 0, &r[4]);
    for (int i = 0; i < 5; i++)
        assert_int_equal(r[i].outcome, HTTPD_OK);
    assert_true(strncmp(r[0].body.data, "GET /echo\n", 10) == 0);
    assert_non_null(strstr(r[0].body.data, "User-Agent: custom/1\r\n"));
    assert_null(strstr(r[0].body.data, "taskexec"));
    assert_null(strcasestr(r[0].body.data, "Content-Length"));
    assert_true(strncmp(r[1].body.data, "PUT /echo\n", 10) == 0);
    assert_non_null(strstr(r[1].body.data, "Content-Length: 0\r\n"));
    assert_true(strncmp(r[2].body.data, "PATCH /echo\n", 12) == 0);
    assert_non_null(strstr(r[2].body.data, "Content-Length: 1\r\n"));
    assert_null(strcasestr(r[2].body.data, "Content-Type")); /* no made-up form type */
    assert_true(r[2].body.data[r[2].body.len - 1] == 'p');
    assert_true(strncmp(r[3].body.data, "DELETE /echo\n", 13) == 0);
    assert_null(strcasestr(r[3].body.data, "Content-Length"));
    assert_true(strncmp(r[4].body.data, "DELETE /echo\n", 13) == 0);
    assert_non_null(strstr(r[4].body.data, "Content-Length: 4\r\n"));
    assert_true(strcmp(r[4].body.data + r[4].body.len - 4, "gone") == 0);
    for (int i = 0; i < 5; i++)
        res_free(&r[i]);
    finish();
}

static void test_503(void **state)
{
    (void)state;
    start(NULL);
    struct res r = {0};
    fetch("POST", "/503", NULL, 0, "x", 5000, NULL, 0, &r);
    assert_int_equal(r.outcome, HTTPD_HTTP_ERROR);
    assert_int_equal(r.status, 503);
    assert_string_equal(r.body.data, "down");
    assert_string_equal(r.message, "unexpected status 503");
    assert_string_equal(r.json.data, "{\"type\":\"HTTP_ERROR\",\"status_code\":503,"
                                     "\"message\":\"unexpected status 503\",\"body\":\"down\"}");
    res_free(&r);
    finish();
}

static void test_expected_status(void **state)
{
    (void)state;
    start(NULL);
    static const int only201[] = {201};
    struct res a = {0}, b = {0}, c = {0};
    fetch("GET", "/ok", NULL, 0, NULL, 5000, only201, 1, &a);
    assert_int_equal(a.outcome, HTTPD_HTTP_ERROR);
    assert_int_equal(a.status, 200);
    assert_string_equal(a.message, "unexpected status 200");
    fetch("POST", "/created", NULL, 0, "{}", 5000, only201, 1, &b);
    assert_int_equal(b.outcome, HTTPD_OK);
    assert_int_equal(b.status, 201);
    assert_string_equal(b.body.data, "made");
    /* redirects are not followed: a 302 is just a status (not in the default list) */
    unsigned before = T.srv.requests;
    fetch("GET", "/redirect", NULL, 0, NULL, 5000, NULL, 0, &c);
    assert_int_equal(c.outcome, HTTPD_HTTP_ERROR);
    assert_int_equal(c.status, 302);
    assert_int_equal(T.srv.requests, before + 1);
    res_free(&a);
    res_free(&b);
    res_free(&c);
    finish();
}

static void test_timeout(void **state)
{
    (void)state;
    start(NULL);
    struct res r = {0};
    fetch("GET", "/slow", NULL, 0, NULL, 200, NULL, 0, &r);
    assert_int_equal(r.outcome, HTTPD_TIMEOUT);
    assert_int_equal(r.status, 0);
    assert_true(r.ms >= 190 && r.ms < 3000);
    assert_non_null(strstr(r.message, "timed out"));
    cJSON *j = parse_json(&r.json);
    assert_string_equal(cJSON_GetObjectItem(j, "type")->valuestring, "TIMEOUT");
    assert_string_equal(cJSON_GetObjectItem(j, "message")->valuestring, r.message);
    assert_null(cJSON_GetObjectItem(j, "status_code"));
    cJSON_Delete(j);
    res_free(&r);
    finish();
}

static void test_refused(void **state)
{
    (void)state;
    start(NULL);
    int port = dead_port();
    char url[256];
    snprintf(url, sizeof(url),
             "http://alice:s3cretpass@127.0.0.1:%d/hook/tok3nvalue?api_key=qu3rysecret#fr4gment",
             port);
    struct res r = {0};
    assert_int_equal(send_req("POST", url, NULL, 0, "{}", 5000, NULL, 0, &r), 0);
    assert_int_equal(r.done, 0); /* never from inside httpd_send */
    run_until(&T.ndone, 1, 10000);
    assert_int_equal(r.done, 1);
    assert_int_equal(r.outcome, HTTPD_CONNECTION_ERROR);
    assert_int_equal(r.status, 0);
    assert_true(strlen(r.message) > 0);
    const char *secrets[] = {"s3cretpass", "alice", "tok3nvalue", "qu3rysecret", "fr4gment", "://"};
    for (size_t i = 0; i < TE_ARRAY_LEN(secrets); i++) {
        assert_null(strstr(r.message, secrets[i]));
        assert_null(strstr(r.json.data, secrets[i]));
    }
    cJSON *j = parse_json(&r.json);
    assert_string_equal(cJSON_GetObjectItem(j, "type")->valuestring, "CONNECTION_ERROR");
    assert_null(cJSON_GetObjectItem(j, "body"));
    cJSON_Delete(j);
    res_free(&r);
    finish();
}

static void test_bad_urls(void **state)
{
    (void)state;
    start(NULL);
    char ftp[128];
    snprintf(ftp, sizeof(ftp), "ftp://127.0.0.1:%d/x?token=abcdef1234", T.srv.port);
    const char *urls[] = {ftp, "http://[::1", "file:///etc/passwd", "not a url"};
    struct res r[4] = {{0}};
    for (int i = 0; i < 4; i++)
        assert_int_equal(send_req("GET", urls[i], NULL, 0, NULL, 5000, NULL, 0, &r[i]), 0);
    run_until(&T.ndone, 4, 10000);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(r[i].done, 1);
        assert_int_equal(r[i].outcome, HTTPD_CONNECTION_ERROR);
        assert_true(strlen(r[i].message) > 0);
        assert_null(strstr(r[i].message, "abcdef1234"));
        assert_null(strstr(r[i].message, "passwd"));
        res_free(&r[i]);
    }
    assert_int_equal(T.srv.requests, 0);
    finish();
}

static void test_body_cap(void **state)
{
    (void)state;
    start(NULL);
    struct res r = {0}, h = {0}, b = {0};
    fetch("GET", "/big", NULL, 0, NULL, 5000, NULL, 0, &r);
    assert_int_equal(r.outcome, HTTPD_OK);
    assert_int_equal(r.body.len, HTTPD_BODY_CAP);
    assert_true(r.truncated);
    for (size_t i = 0; i < r.body.len; i++)
        assert_true(r.body.data[i] == (char)('a' + i % 26));
    cJSON *j = parse_json(&r.json);
    assert_int_equal(strlen(cJSON_GetObjectItem(j, "body")->valuestring), HTTPD_BODY_CAP);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "body_truncated")));
    cJSON_Delete(j);
    /* past HTTPD_DRAIN_CAP the transfer is cut, and the status still counts */
    fetch("GET", "/huge", NULL, 0, NULL, 5000, NULL, 0, &h);
    assert_int_equal(h.outcome, HTTPD_OK);
    assert_int_equal(h.status, 200);
    assert_int_equal(h.body.len, HTTPD_BODY_CAP);
    assert_true(h.truncated);
    /* invalid UTF-8 from the wire still gives valid JSON */
    fetch("GET", "/bin", NULL, 0, NULL, 5000, NULL, 0, &b);
    assert_int_equal(b.outcome, HTTPD_OK);
    assert_int_equal(b.body.len, 6);
    assert_string_equal(b.json.data, "{\"status_code\":200,\"body\":\"ok\\ufffd\\ufffd\\ufffd(\"}");
    res_free(&r);
    res_free(&h);
    res_free(&b);
    finish();
}

static void test_concurrent_keepalive(void **state)
{
    (void)state;
    struct httpd_config cfg = {.max_host_connections = 8};
    start(&cfg);
    enum { N = 200 };
    struct res *r = calloc(N, sizeof(*r));
    assert_non_null(r);
    for (int i = 0; i < N; i++)
        assert_int_equal(send_req("GET", url_for("/ok"), NULL, 0, NULL, 10000, NULL, 0, &r[i]), 0);
    assert_int_equal(httpd_inflight(T.d), N);
    run_until(&T.ndone, N, 20000);
    assert_int_equal(T.ndone, N);
    for (int i = 0; i < N; i++) {
        assert_int_equal(r[i].done, 1);
        assert_int_equal(r[i].outcome, HTTPD_OK);
        assert_string_equal(r[i].body.data, "OK");
        res_free(&r[i]);
    }
    assert_int_equal(T.srv.requests, N);
    assert_true(T.srv.accepted >= 1 && T.srv.accepted <= 8);
    assert_int_equal(httpd_inflight(T.d), 0);
    /* a later request reuses a pooled connection */
    unsigned accepted = T.srv.accepted;
    struct res again = {0};
    fetch("GET", "/ok", NULL, 0, NULL, 5000, NULL, 0, &again);
    assert_int_equal(again.outcome, HTTPD_OK);
    assert_int_equal(T.srv.accepted, accepted);
    res_free(&again);
    free(r);
    finish();
}

/* Every answer closes its connection: sockets come and go while others are in flight. */
static void test_connection_churn(void **state)
{
    (void)state;
    struct httpd_config cfg = {.max_host_connections = 2};
    start(&cfg);
    enum { N = 40 };
    struct res r[N];
    memset(r, 0, sizeof(r));
    for (int i = 0; i < N; i++)
        assert_int_equal(send_req("GET", url_for("/close"), NULL, 0, NULL, 10000, NULL, 0, &r[i]),
                         0);
    run_until(&T.ndone, N, 20000);
    for (int i = 0; i < N; i++) {
        assert_int_equal(r[i].done, 1);
        assert_int_equal(r[i].outcome, HTTPD_OK);
        assert_string_equal(r[i].body.data, "bye");
        res_free(&r[i]);
    }
    assert_int_equal(T.srv.accepted, N);
    finish();
}

/* The server hangs up: before answering, and in the middle of a body. */
static void test_broken_responses(void **state)
{
    (void)state;
    start(NULL);
    struct res drop = {0}, part = {0}, ok = {0};
    fetch("GET", "/drop", NULL, 0, NULL, 5000, NULL, 0, &drop);
    assert_int_equal(drop.outcome, HTTPD_CONNECTION_ERROR);
    assert_int_equal(drop.status, 0);
    assert_true(strlen(drop.message) > 0);
    fetch("GET", "/partial", NULL, 0, NULL, 5000, NULL, 0, &part);
    assert_int_equal(part.outcome, HTTPD_CONNECTION_ERROR);
    assert_int_equal(part.status, 200); /* the status line did arrive */
    assert_true(strlen(part.message) > 0);
    fetch("GET", "/ok", NULL, 0, NULL, 5000, NULL, 0, &ok); /* still usable */
    assert_int_equal(ok.outcome, HTTPD_OK);
    res_free(&drop);
    res_free(&part);
    res_free(&ok);
    finish();
}

/*
 * A name that /etc/hosts maps to 127.0.0.1, other than "localhost" (which curl
 * answers itself): a lookup goes through curl's resolver thread without
 * touching the network. Returns false if there is none.
 */
static bool loopback_hostname(char *out, size_t n)
{
    FILE *f = fopen("/etc/hosts", "r");
    if (!f)
        return false;
    char line[512];
    bool found = false;
    while (!found && fgets(line, sizeof(line), f)) {
        char *save = NULL, *tok = strtok_r(line, " \t\r\n", &save);
        if (!tok || strcmp(tok, "127.0.0.1") != 0)
            continue;
        while (!found && (tok = strtok_r(NULL, " \t\r\n", &save)) && tok[0] != '#') {
            if (strcasecmp(tok, "localhost") != 0 && strlen(tok) < n) {
                snprintf(out, n, "%s", tok);
                found = true;
            }
        }
    }
    fclose(f);
    return found;
}

static void test_resolver(void **state)
{
    (void)state;
    char host[128], url[256];
    if (!loopback_hostname(host, sizeof(host)))
        skip();
    start(NULL);
    snprintf(url, sizeof(url), "http://%s:%d/ok", host, T.srv.port);
    struct res r = {0};
    assert_int_equal(send_req("GET", url, NULL, 0, NULL, 5000, NULL, 0, &r), 0);
    run_until(&T.ndone, 1, 10000);
    assert_int_equal(r.done, 1);
    assert_int_equal(r.outcome, HTTPD_OK);
    assert_string_equal(r.body.data, "OK");
    res_free(&r);
    finish();
}

static unsigned chain_left;

static void on_chain(void *arg, const struct httpd_result *hr)
{
    (void)arg;
    assert_int_equal(hr->outcome, HTTPD_OK);
    T.ndone++;
    if (--chain_left == 0)
        return;
    struct httpd_request req = {.method = "GET", .url = url_for("/ok")};
    assert_int_equal(httpd_send(T.d, &req, on_chain, NULL), 0);
}

static void test_send_from_callback(void **state)
{
    (void)state;
    start(NULL);
    chain_left = 5;
    struct httpd_request req = {.method = "GET", .url = url_for("/ok")};
    assert_int_equal(httpd_send(T.d, &req, on_chain, NULL), 0);
    run_until(&T.ndone, 5, 10000);
    assert_int_equal(T.ndone, 5);
    assert_int_equal(T.srv.requests, 5);
    assert_int_equal(T.srv.accepted, 1); /* sequential requests share one connection */
    finish();
}

static void test_close_inflight(void **state)
{
    (void)state;
    start(NULL);
    struct res r[5] = {{0}};
    for (int i = 0; i < 5; i++)
        assert_int_equal(send_req("POST", url_for("/slow"), NULL, 0, "x", 10000, NULL, 0, &r[i]),
                         0);
    run_until(&T.srv.requests, 5, 10000);
    assert_int_equal(T.srv.requests, 5);
    assert_int_equal(httpd_inflight(T.d), 5);
    for (int i = 0; i < 5; i++)
        r[i].send_again = T.d; /* must be refused from the abort callbacks */
    httpd_close(T.d, on_closed, NULL);
    T.d = NULL;
    note("close");
    assert_int_equal(T.ndone, 0); /* callbacks come later, from the loop */
    run_until(&T.closed, 1, 10000);
    assert_string_equal(T.events, "close;abort;abort;abort;abort;abort;done;");
    for (int i = 0; i < 5; i++) {
        assert_int_equal(r[i].done, 1);
        assert_int_equal(r[i].outcome, HTTPD_CONNECTION_ERROR);
        assert_string_equal(r[i].message, "shutting down");
        assert_int_equal(r[i].send_again_rc, -ESHUTDOWN);
        res_free(&r[i]);
    }
    finish();
}

static void test_close_from_callback(void **state)
{
    (void)state;
    start(NULL);
    struct res slow = {0}, ok = {0};
    assert_int_equal(send_req("GET", url_for("/slow"), NULL, 0, NULL, 10000, NULL, 0, &slow), 0);
    run_until(&T.srv.requests, 1, 10000);
    ok.close_here = true;
    assert_int_equal(send_req("GET", url_for("/ok"), NULL, 0, NULL, 10000, NULL, 0, &ok), 0);
    run_until(&T.closed, 1, 10000);
    assert_string_equal(T.events, "cb;abort;done;");
    assert_int_equal(ok.outcome, HTTPD_OK);
    assert_int_equal(slow.outcome, HTTPD_CONNECTION_ERROR);
    assert_string_equal(slow.message, "shutting down");
    res_free(&slow);
    res_free(&ok);
    finish();
}

static void test_invalid_requests(void **state)
{
    (void)state;
    start(NULL);
    static const char *const crlf[] = {"X-A: b\r\nX-Evil: 1"};
    static const char *const nocolon[] = {"NoColon"};
    struct res r = {0};
    assert_int_equal(send_req("FOO", url_for("/ok"), NULL, 0, NULL, 0, NULL, 0, &r), -EINVAL);
    assert_int_equal(send_req("get", url_for("/ok"), NULL, 0, NULL, 0, NULL, 0, &r), -EINVAL);
    assert_int_equal(send_req("GET", NULL, NULL, 0, NULL, 0, NULL, 0, &r), -EINVAL);
    assert_int_equal(send_req("GET", url_for("/ok"), crlf, 1, NULL, 0, NULL, 0, &r), -EINVAL);
    assert_int_equal(send_req("GET", url_for("/ok"), nocolon, 1, NULL, 0, NULL, 0, &r), -EINVAL);
    assert_int_equal(send_req("GET", url_for("/ok"), NULL, 0, NULL, 0, NULL, 1, &r), -EINVAL);
    struct httpd_request req = {.method = "GET", .url = url_for("/ok")};
    assert_int_equal(httpd_send(T.d, &req, NULL, NULL), -EINVAL);
    assert_int_equal(httpd_inflight(T.d), 0);
    unsigned never = 0;
    run_until(&never, 1, 100);
    assert_int_equal(r.done, 0);
    assert_int_equal(T.srv.requests, 0);
    struct httpd *d;
    struct httpd_config bad = {.max_connects = -1};
    assert_int_equal(httpd_new(&T.loop, &bad, &d), -EINVAL);
    finish();
}

/* ---- JSON shapes (no I/O) ---- */

static bool valid_utf8(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        unsigned char c = u[i];
        size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (!len || i + len > n)
            return false;
        for (size_t k = 1; k < len; k++)
            if ((u[i + k] & 0xC0) != 0x80)
                return false;
        i += len;
    }
    return true;
}

static char *shape(const struct httpd_result *r)
{
    struct buf b = BUF_INIT;
    assert_int_equal(httpd_result_json(r, &b), 0);
    assert_true(valid_utf8(b.data, b.len));
    cJSON *j = cJSON_ParseWithLength(b.data, b.len);
    assert_non_null(j);
    cJSON_Delete(j);
    return buf_steal(&b);
}

static void expect_body(const char *in, size_t n, bool truncated, const char *want_json_body,
                        const char *want_decoded)
{
    struct httpd_result r = {.outcome = HTTPD_OK,
                             .status_code = 200,
                             .body = in,
                             .body_len = n,
                             .body_truncated = truncated};
    char *s = shape(&r);
    char want[512];
    snprintf(want, sizeof(want), "{\"status_code\":200,\"body\":\"%s\"%s}", want_json_body,
             truncated ? ",\"body_truncated\":true" : "");
    assert_string_equal(s, want);
    cJSON *j = cJSON_Parse(s);
    assert_string_equal(cJSON_GetObjectItem(j, "body")->valuestring, want_decoded);
    cJSON_Delete(j);
    free(s);
}

static void test_json_shapes(void **state)
{
    (void)state;
    struct httpd_result ok = {.outcome = HTTPD_OK, .status_code = 200, .body = "OK", .body_len = 2};
    char *s = shape(&ok);
    assert_string_equal(s, "{\"status_code\":200,\"body\":\"OK\"}");
    free(s);

    struct httpd_result to = {
        .outcome = HTTPD_TIMEOUT, .body = "", .message = "took \"too\"\nlong"};
    s = shape(&to);
    assert_string_equal(s, "{\"type\":\"TIMEOUT\",\"message\":\"took \\\"too\\\"\\nlong\"}");
    free(s);

    struct httpd_result ce = {.outcome = HTTPD_CONNECTION_ERROR, .body = "", .message = "refused"};
    s = shape(&ce);
    assert_string_equal(s, "{\"type\":\"CONNECTION_ERROR\",\"message\":\"refused\"}");
    free(s);

    struct httpd_result he = {.outcome = HTTPD_HTTP_ERROR,
                              .status_code = 500,
                              .body = "a\x01\\",
                              .body_len = 3,
                              .body_truncated = true,
                              .message = "unexpected status 500"};
    s = shape(&he);
    assert_string_equal(s, "{\"type\":\"HTTP_ERROR\",\"status_code\":500,\"message\":\"unexpected "
                           "status 500\",\"body\":\"a\\u0001\\\\\",\"body_truncated\":true}");
    free(s);

    /* UTF-8: valid text passes, each bad byte becomes U+FFFD */
    expect_body("h\xc3\xa9llo \xf0\x9f\x98\x80", 11, false, "h\xc3\xa9llo \xf0\x9f\x98\x80",
                "h\xc3\xa9llo \xf0\x9f\x98\x80");
    expect_body("a\xff"
                "b",
                3, false, "a\\ufffdb",
                "a\xef\xbf\xbd"
                "b");
    expect_body("\xc0\xaf", 2, false, "\\ufffd\\ufffd", "\xef\xbf\xbd\xef\xbf\xbd");
    expect_body("\xed\xa0\x80", 3, false, "\\ufffd\\ufffd\\ufffd",
                "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    expect_body("\xf4\x90\x80\x80", 4, false, "\\ufffd\\ufffd\\ufffd\\ufffd",
                "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    /* a sequence cut by truncation is dropped; the same bytes untruncated are invalid */
    expect_body("abc\xe2\x82", 5, true, "abc", "abc");
    expect_body("abc\xe2\x82", 5, false, "abc\\ufffd\\ufffd", "abc\xef\xbf\xbd\xef\xbf\xbd");
    expect_body("abc\xe2\x82\xac", 6, true, "abc\xe2\x82\xac", "abc\xe2\x82\xac");
    /* an embedded NUL is escaped, not a terminator */
    struct httpd_result nul = {
        .outcome = HTTPD_OK, .status_code = 200, .body = "a\0b", .body_len = 3};
    s = shape(&nul);
    assert_string_equal(s, "{\"status_code\":200,\"body\":\"a\\u0000b\"}");
    free(s);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN); /* the test server writes to sockets curl may have closed */
    log_setup(LOG_WARN, false);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ok),
        cmocka_unit_test(test_post_echo),
        cmocka_unit_test(test_methods),
        cmocka_unit_test(test_503),
        cmocka_unit_test(test_expected_status),
        cmocka_unit_test(test_timeout),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_bad_urls),
        cmocka_unit_test(test_body_cap),
        cmocka_unit_test(test_concurrent_keepalive),
        cmocka_unit_test(test_connection_churn),
        cmocka_unit_test(test_broken_responses),
        cmocka_unit_test(test_resolver),
        cmocka_unit_test(test_send_from_callback),
        cmocka_unit_test(test_close_inflight),
        cmocka_unit_test(test_close_from_callback),
        cmocka_unit_test(test_invalid_requests),
        cmocka_unit_test(test_json_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
