/*
 * Redis Streams dispatcher tests against a real redis-server started on free
 * loopback ports (one plain, one with --requirepass). The dispatcher runs on
 * a private loop per test; checks on the server side use a blocking hiredis
 * context. Every test ends by closing all handles and asserting
 * uv_loop_close() == 0.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/buf.h"
#include "core/log.h"
#include "worker/dispatch/redis.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PASSWORD "secretpw"
#define MAXRES 16

struct srv {
    pid_t pid;
    int port;
    const char *pass;
};

struct res {
    enum redisd_outcome outcome;
    bool retryable;
    char id[64];
    char stream[64];
    char msg[256];
    char json[512];
};

struct t {
    uv_loop_t loop;
    struct redisd *d;
    uv_timer_t guard;
    unsigned ndone;
    bool closed;
    struct res res[MAXRES];
};

static struct t T;
static struct srv S_plain, S_auth;
static pid_t started[32]; /* every server pid, so a failed test cannot leak one */
static unsigned nstarted;

/* ---- servers ---- */

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    assert_true(fd >= 0);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    close(fd);
    return ntohs(a.sin_port);
}

static redisContext *sync_connect(const struct srv *s)
{
    struct timeval tv = {1, 0};
    redisContext *c = redisConnectWithTimeout("127.0.0.1", s->port, tv);
    if (!c || c->err) {
        if (c)
            redisFree(c);
        return NULL;
    }
    if (s->pass) {
        redisReply *r = redisCommand(c, "AUTH %s", s->pass);
        if (r)
            freeReplyObject(r);
    }
    return c;
}

static void srv_start(struct srv *s)
{
    char port[16];
    if (!s->port)
        s->port = free_port();
    snprintf(port, sizeof(port), "%d", s->port);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        if (s->pass)
            execl("/usr/bin/redis-server", "redis-server", "--port", port, "--bind", "127.0.0.1",
                  "--save", "", "--appendonly", "no", "--requirepass", s->pass, (char *)NULL);
        else
            execl("/usr/bin/redis-server", "redis-server", "--port", port, "--bind", "127.0.0.1",
                  "--save", "", "--appendonly", "no", (char *)NULL);
        _exit(127);
    }
    s->pid = pid;
    if (nstarted < TE_ARRAY_LEN(started))
        started[nstarted++] = pid;
    for (int i = 0; i < 500; i++) { /* up to 5 s */
        redisContext *c = sync_connect(s);
        if (c) {
            redisReply *r = redisCommand(c, "PING");
            bool ok = r && r->type == REDIS_REPLY_STATUS;
            if (r)
                freeReplyObject(r);
            redisFree(c);
            if (ok)
                return;
        }
        usleep(10000);
    }
    fail_msg("redis-server did not start on port %d", s->port);
}

static void srv_stop(struct srv *s)
{
    if (s->pid > 0) {
        kill(s->pid, SIGCONT);
        kill(s->pid, SIGKILL);
        waitpid(s->pid, NULL, 0);
        s->pid = 0;
    }
}

static void *sync_cmd(const struct srv *s, const char *fmt, ...)
{
    redisContext *c = sync_connect(s);
    assert_non_null(c);
    va_list ap;
    va_start(ap, fmt);
    void *r = redisvCommand(c, fmt, ap);
    va_end(ap);
    redisFree(c);
    assert_non_null(r);
    return r;
}

static long long sync_int(const struct srv *s, const char *fmt, const char *arg)
{
    redisReply *r = sync_cmd(s, fmt, arg);
    assert_int_equal(r->type, REDIS_REPLY_INTEGER);
    long long v = r->integer;
    freeReplyObject(r);
    return v;
}

/* ---- loop harness ---- */

static void on_guard(uv_timer_t *t)
{
    (void)t;
}

static void setup_loop(const struct redisd_config *cfg)
{
    memset(&T, 0, sizeof(T));
    assert_int_equal(uv_loop_init(&T.loop), 0);
    assert_int_equal(uv_timer_init(&T.loop, &T.guard), 0);
    assert_int_equal(redisd_new(&T.loop, cfg, &T.d), 0);
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Runs the loop until *count reaches want or ms pass. */
static void run_until(const unsigned *count, unsigned want, unsigned ms)
{
    uint64_t end = now_ms() + ms;
    uv_timer_start(&T.guard, on_guard, 10, 10);
    while (*count < want && now_ms() < end)
        uv_run(&T.loop, UV_RUN_ONCE);
    uv_timer_stop(&T.guard);
}

static void run_for(unsigned ms)
{
    unsigned never = 0;
    run_until(&never, 1, ms);
}

static void on_closed(void *arg)
{
    (void)arg;
    T.closed = true;
}

static void teardown_loop(void)
{
    if (T.d) {
        redisd_close(T.d, on_closed, NULL);
        T.d = NULL;
        unsigned closed = 0;
        uint64_t end = now_ms() + 3000;
        uv_timer_start(&T.guard, on_guard, 10, 10);
        while (!T.closed && now_ms() < end)
            uv_run(&T.loop, UV_RUN_ONCE);
        (void)closed;
        assert_true(T.closed);
    }
    uv_close((uv_handle_t *)&T.guard, NULL);
    uv_run(&T.loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&T.loop), 0);
}

static void on_done(void *arg, const struct redisd_result *r)
{
    (void)arg;
    assert_true(T.ndone < MAXRES);
    struct res *o = &T.res[T.ndone++];
    struct buf b = BUF_INIT;
    o->outcome = r->outcome;
    o->retryable = r->retryable;
    assert_non_null(r->stream);
    snprintf(o->stream, sizeof(o->stream), "%s", r->stream);
    if (r->outcome == REDISD_OK) {
        assert_non_null(r->message_id);
        assert_null(r->message);
        snprintf(o->id, sizeof(o->id), "%s", r->message_id);
    } else {
        assert_non_null(r->message);
        assert_null(r->message_id);
        snprintf(o->msg, sizeof(o->msg), "%s", r->message);
    }
    assert_true(r->duration_ms >= 0);
    assert_int_equal(redisd_result_json(r, &b), 0);
    snprintf(o->json, sizeof(o->json), "%s", b.data ? b.data : "");
    buf_free(&b);
}

static const struct redisd_field F2[] = {{"a", "1"}, {"b", "{\"x\":true}"}};

static char *url(const struct srv *s, const char *cred, int db)
{
    static char u[128];
    snprintf(u, sizeof(u), "redis://%s127.0.0.1:%d/%d", cred ? cred : "", s->port, db);
    return u;
}

/* Sends one XADD; asserts the callback has not run inside redisd_send(). */
static void send1(const char *u, const char *stream, long max_len, bool approx, long timeout)
{
    struct redisd_request req = {.redis_url = u,
                                 .stream = stream,
                                 .fields = F2,
                                 .nfields = 2,
                                 .max_len = max_len,
                                 .approximate = approx,
                                 .timeout_ms = timeout};
    unsigned before = T.ndone;
    assert_int_equal(redisd_send(T.d, &req, on_done, NULL), 0);
    assert_int_equal(T.ndone, before);
}

static void send_wait(const char *u, const char *stream, long max_len, bool approx, long timeout)
{
    unsigned want = T.ndone + 1;
    send1(u, stream, max_len, approx, timeout);
    run_until(&T.ndone, want, 5000);
    assert_int_equal(T.ndone, want);
}

/* ---- tests ---- */

static void test_xadd_ok(void **state)
{
    (void)state;
    setup_loop(NULL);
    send_wait(url(&S_plain, NULL, 0), "s:ok", 0, false, 2000);
    struct res *r = &T.res[0];
    assert_int_equal(r->outcome, REDISD_OK);
    assert_non_null(strchr(r->id, '-'));
    char want[256];
    snprintf(want, sizeof(want), "{\"message_id\":\"%s\",\"stream\":\"s:ok\"}", r->id);
    assert_string_equal(r->json, want);

    redisReply *x = sync_cmd(&S_plain, "XRANGE %s - +", "s:ok");
    assert_int_equal(x->type, REDIS_REPLY_ARRAY);
    assert_int_equal(x->elements, 1);
    redisReply *e = x->element[0];
    assert_string_equal(e->element[0]->str, r->id);
    assert_int_equal(e->element[1]->elements, 4);
    assert_string_equal(e->element[1]->element[0]->str, "a");
    assert_string_equal(e->element[1]->element[1]->str, "1");
    assert_string_equal(e->element[1]->element[2]->str, "b");
    assert_string_equal(e->element[1]->element[3]->str, "{\"x\":true}");
    freeReplyObject(x);

    /* a second send reuses the context; host name "localhost" resolves */
    char u2[128];
    snprintf(u2, sizeof(u2), "redis://localhost:%d", S_plain.port);
    send_wait(u2, "s:ok", 0, false, 2000);
    assert_int_equal(T.res[1].outcome, REDISD_OK);
    assert_int_equal(sync_int(&S_plain, "XLEN %s", "s:ok"), 2);
    teardown_loop();
}

static void test_maxlen(void **state)
{
    (void)state;
    setup_loop(NULL);
    for (int i = 0; i < 5; i++) {
        send_wait(url(&S_plain, NULL, 0), "s:trim", 2, false, 2000);
        assert_int_equal(T.res[i].outcome, REDISD_OK);
    }
    assert_int_equal(sync_int(&S_plain, "XLEN %s", "s:trim"), 2);
    send_wait(url(&S_plain, NULL, 0), "s:trim", 1000, true, 2000);
    assert_int_equal(T.res[5].outcome, REDISD_OK);
    assert_int_equal(sync_int(&S_plain, "XLEN %s", "s:trim"), 3);
    teardown_loop();
}

static void test_select_db(void **state)
{
    (void)state;
    setup_loop(NULL);
    send_wait(url(&S_plain, NULL, 3), "s:db", 0, false, 2000);
    assert_int_equal(T.res[0].outcome, REDISD_OK);
    assert_int_equal(sync_int(&S_plain, "XLEN %s", "s:db"), 0);
    redisContext *c = sync_connect(&S_plain);
    assert_non_null(c);
    redisReply *r = redisCommand(c, "SELECT 3");
    freeReplyObject(r);
    r = redisCommand(c, "XLEN s:db");
    assert_int_equal(r->integer, 1);
    freeReplyObject(r);
    redisFree(c);
    teardown_loop();
}

static void test_auth(void **state)
{
    (void)state;
    setup_loop(NULL);
    send_wait(url(&S_auth, ":wrongpassword@", 0), "s:auth", 0, false, 2000);
    struct res *r = &T.res[0];
    assert_int_equal(r->outcome, REDISD_CONNECTION_ERROR);
    assert_non_null(strstr(r->msg, "AUTH"));
    assert_null(strstr(r->msg, "wrongpassword"));
    assert_null(strstr(r->json, "wrongpassword"));
    assert_non_null(strstr(r->json, "\"type\":\"CONNECTION_ERROR\""));

    send_wait(url(&S_auth, "default:wrongpassword@", 0), "s:auth", 0, false, 2000);
    assert_int_equal(T.res[1].outcome, REDISD_CONNECTION_ERROR);
    assert_null(strstr(T.res[1].msg, "wrongpassword"));

    send_wait(url(&S_auth, ":" PASSWORD "@", 0), "s:auth", 0, false, 2000);
    assert_int_equal(T.res[2].outcome, REDISD_OK);
    send_wait(url(&S_auth, "default:" PASSWORD "@", 2), "s:auth", 0, false, 2000);
    assert_int_equal(T.res[3].outcome, REDISD_OK);

    /* no password at all: NOAUTH is a connection problem, not a stream one */
    send_wait(url(&S_auth, NULL, 0), "s:auth", 0, false, 2000);
    assert_int_equal(T.res[4].outcome, REDISD_CONNECTION_ERROR);
    teardown_loop();
}

static void test_restart(void **state)
{
    (void)state;
    struct srv s = {0};
    struct redisd_config cfg = {.backoff_min_ms = 50, .backoff_max_ms = 200};
    srv_start(&s);
    setup_loop(&cfg);
    send_wait(url(&s, NULL, 0), "s:re", 0, false, 2000);
    assert_int_equal(T.res[0].outcome, REDISD_OK);

    srv_stop(&s);
    run_for(50);
    send_wait(url(&s, NULL, 0), "s:re", 0, false, 2000);
    assert_int_equal(T.res[1].outcome, REDISD_CONNECTION_ERROR);
    assert_true(T.res[1].retryable);
    assert_non_null(strstr(T.res[1].json, "\"type\":\"CONNECTION_ERROR\""));

    srv_start(&s); /* same port */
    send_wait(url(&s, NULL, 0), "s:re", 0, false, 3000);
    assert_int_equal(T.res[2].outcome, REDISD_OK);
    assert_int_equal(sync_int(&s, "XLEN %s", "s:re"), 1);
    teardown_loop();
    srv_stop(&s);
}

static void test_timeout(void **state)
{
    (void)state;
    struct srv s = {0};
    srv_start(&s);
    setup_loop(NULL);
    send_wait(url(&s, NULL, 0), "s:to", 0, false, 2000);
    assert_int_equal(T.res[0].outcome, REDISD_OK);

    kill(s.pid, SIGSTOP);
    uint64_t t0 = now_ms();
    send_wait(url(&s, NULL, 0), "s:to", 0, false, 200);
    assert_int_equal(T.res[1].outcome, REDISD_TIMEOUT);
    assert_true(now_ms() - t0 >= 190);
    assert_non_null(strstr(T.res[1].json, "\"type\":\"TIMEOUT\""));

    kill(s.pid, SIGCONT);
    run_for(200); /* the late reply arrives and is dropped */
    assert_int_equal(T.ndone, 2);
    send_wait(url(&s, NULL, 0), "s:to", 0, false, 2000);
    assert_int_equal(T.res[2].outcome, REDISD_OK);
    assert_int_equal(sync_int(&s, "XLEN %s", "s:to"), 3);
    teardown_loop();
    srv_stop(&s);
}

/* A stopped server still completes the TCP handshake; SELECT then hangs. */
static void test_connect_timeout(void **state)
{
    (void)state;
    struct srv s = {0};
    struct redisd_config cfg = {.connect_timeout_ms = 300};
    srv_start(&s);
    setup_loop(&cfg);
    kill(s.pid, SIGSTOP);
    uint64_t t0 = now_ms();
    send_wait(url(&s, NULL, 1), "s:ct", 0, false, 3000);
    assert_int_equal(T.res[0].outcome, REDISD_CONNECTION_ERROR);
    assert_non_null(strstr(T.res[0].msg, "timed out connecting"));
    assert_true(now_ms() - t0 < 2000);
    kill(s.pid, SIGCONT);
    run_for(400); /* backoff */
    send_wait(url(&s, NULL, 1), "s:ct", 0, false, 3000);
    assert_int_equal(T.res[1].outcome, REDISD_OK);
    teardown_loop();
    srv_stop(&s);
}

static void test_wrongtype(void **state)
{
    (void)state;
    freeReplyObject(sync_cmd(&S_plain, "SET %s x", "s:str"));
    setup_loop(NULL);
    send_wait(url(&S_plain, NULL, 0), "s:str", 0, false, 2000);
    assert_int_equal(T.res[0].outcome, REDISD_STREAM_ERROR);
    assert_non_null(strstr(T.res[0].msg, "WRONGTYPE"));
    assert_non_null(strstr(T.res[0].json, "\"type\":\"STREAM_ERROR\""));
    teardown_loop();
}

static void test_bad_urls(void **state)
{
    (void)state;
    setup_loop(NULL);
    char u[128];
    snprintf(u, sizeof(u), "rediss://:" PASSWORD "@127.0.0.1:%d", S_auth.port);
    send_wait(u, "s:tls", 0, false, 2000);
    assert_int_equal(T.res[0].outcome, REDISD_CONNECTION_ERROR);
    assert_non_null(strstr(T.res[0].msg, "TLS"));
    assert_false(T.res[0].retryable);
    assert_null(strstr(T.res[0].msg, PASSWORD));
    send_wait("http://127.0.0.1:1", "s", 0, false, 2000);
    assert_int_equal(T.res[1].outcome, REDISD_CONNECTION_ERROR);
    send_wait("redis://127.0.0.1:99999", "s", 0, false, 2000);
    assert_int_equal(T.res[2].outcome, REDISD_CONNECTION_ERROR);
    send_wait("redis://no-such-host.invalid:6379", "s", 0, false, 3000);
    assert_int_equal(T.res[3].outcome, REDISD_CONNECTION_ERROR);

    struct redisd_request bad = {.redis_url = u, .stream = "s", .fields = F2, .nfields = 0};
    assert_int_equal(redisd_send(T.d, &bad, on_done, NULL), -EINVAL);
    bad.nfields = 2;
    assert_int_equal(redisd_send(T.d, &bad, NULL, NULL), -EINVAL);
    bad.max_len = -1;
    assert_int_equal(redisd_send(T.d, &bad, on_done, NULL), -EINVAL);
    teardown_loop();
}

/*
 * Messages quoting the URL's password: a short password that occurs in the text
 * (redaction makes the text longer), a password that is its own replacement
 * ("***"), and a message longer than the result buffer. The send completes, the
 * message fits and shows no password (ASan checks the bounds).
 */
static void test_redaction_edges(void **state)
{
    (void)state;
    setup_loop(NULL);
    char host[200], u[300];
    memset(host, 'h', 150);
    snprintf(host + 150, sizeof(host) - 150, "....invalid");
    snprintf(u, sizeof(u), "redis://:a@%s:6379", host);
    send_wait(u, "s", 0, false, 3000);
    assert_int_equal(T.res[0].outcome, REDISD_CONNECTION_ERROR);
    assert_null(strchr(T.res[0].msg, 'a'));
    assert_true(strlen(T.res[0].msg) < sizeof(T.res[0].msg));
    send_wait("redis://:***@x***y.invalid:6379", "s", 0, false, 3000);
    assert_int_equal(T.res[1].outcome, REDISD_CONNECTION_ERROR);
    send_wait("redis://:no@no-such-host.invalid:6379", "s", 0, false, 3000);
    assert_int_equal(T.res[2].outcome, REDISD_CONNECTION_ERROR);
    assert_null(strstr(T.res[2].msg, "no-such"));
    assert_non_null(strstr(T.res[2].msg, "***-such"));
    teardown_loop();
}

static void test_close_inflight(void **state)
{
    (void)state;
    struct srv s = {0};
    srv_start(&s);
    setup_loop(NULL);
    send_wait(url(&s, NULL, 0), "s:cl", 0, false, 2000);
    assert_int_equal(T.res[0].outcome, REDISD_OK);
    kill(s.pid, SIGSTOP);
    send1(url(&s, NULL, 0), "s:cl", 0, false, 5000);
    send1(url(&s, NULL, 0), "s:cl", 0, false, 5000);
    run_for(30);
    send1(url(&S_plain, NULL, 5), "s:cl", 0, false, 5000); /* still resolving */
    assert_int_equal(redisd_inflight(T.d), 3);
    struct redisd *d = T.d;
    redisd_close(d, on_closed, NULL);
    assert_int_equal(T.ndone, 1); /* nothing runs inside close */
    assert_false(T.closed);
    T.d = NULL;
    uv_timer_start(&T.guard, on_guard, 10, 10);
    uint64_t end = now_ms() + 3000;
    while (!T.closed && now_ms() < end) {
        uv_run(&T.loop, UV_RUN_ONCE);
        if (!T.closed)
            continue;
        assert_int_equal(T.ndone, 4); /* every send finished before done */
    }
    assert_true(T.closed);
    for (int i = 1; i < 4; i++) {
        assert_int_equal(T.res[i].outcome, REDISD_CONNECTION_ERROR);
        assert_string_equal(T.res[i].msg, "shutting down");
    }
    teardown_loop();
    srv_stop(&s);
}

static void on_done_close(void *arg, const struct redisd_result *r)
{
    on_done(arg, r);
    if (T.d) {
        struct redisd_request req = {
            .redis_url = "redis://127.0.0.1:1", .stream = "s", .fields = F2, .nfields = 2};
        struct redisd *d = T.d;
        T.d = NULL;
        redisd_close(d, on_closed, NULL);
        assert_int_equal(redisd_send(d, &req, on_done, NULL), -ESHUTDOWN);
    }
}

static void test_close_from_callback(void **state)
{
    (void)state;
    setup_loop(NULL);
    struct redisd_request req = {.redis_url = url(&S_plain, NULL, 0),
                                 .stream = "s:cb",
                                 .fields = F2,
                                 .nfields = 2,
                                 .timeout_ms = 2000};
    assert_int_equal(redisd_send(T.d, &req, on_done_close, NULL), 0);
    assert_int_equal(redisd_send(T.d, &req, on_done_close, NULL), 0);
    uv_timer_start(&T.guard, on_guard, 10, 10);
    uint64_t end = now_ms() + 3000;
    while (!T.closed && now_ms() < end)
        uv_run(&T.loop, UV_RUN_ONCE);
    assert_true(T.closed);
    assert_int_equal(T.ndone, 2);
    teardown_loop();
}

static int group_setup(void **state)
{
    (void)state;
    signal(SIGPIPE, SIG_IGN);
    log_setup(LOG_ERROR, false);
    S_auth.pass = PASSWORD;
    srv_start(&S_plain);
    srv_start(&S_auth);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    srv_stop(&S_plain);
    srv_stop(&S_auth);
    for (unsigned i = 0; i < nstarted; i++) {
        if (waitpid(started[i], NULL, WNOHANG) == 0) {
            kill(started[i], SIGCONT);
            kill(started[i], SIGKILL);
            waitpid(started[i], NULL, 0);
        }
    }
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xadd_ok),        cmocka_unit_test(test_maxlen),
        cmocka_unit_test(test_select_db),      cmocka_unit_test(test_auth),
        cmocka_unit_test(test_restart),        cmocka_unit_test(test_timeout),
        cmocka_unit_test(test_wrongtype),      cmocka_unit_test(test_connect_timeout),
        cmocka_unit_test(test_bad_urls),       cmocka_unit_test(test_redaction_edges),
        cmocka_unit_test(test_close_inflight), cmocka_unit_test(test_close_from_callback),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
