/*
 * Redis Streams XADD over hiredis async contexts on the libuv loop.
 *
 * Who calls whom:
 *   redisd_send → conn_kick → (resolve → connect → AUTH/SELECT) → flush XADDs
 *   hiredis → on_connect / on_disconnect / on_setup_reply / on_xadd_reply
 *   uv → on_send_timer (timeout or completion) → user callback
 * hiredis callbacks only record a result and arm the send's timer with 0, so
 * user callbacks never run inside hiredis (they may free or close anything).
 *
 * Lifetimes: a send lives until its timer has closed AND hiredis has given
 * back its reply (a timed-out XADD still has a reply coming: it is dropped
 * then). A conn lives until its timer has closed, its getaddrinfo is done and
 * its context is gone. A context is freed by hiredis after a failed connect or
 * a server disconnect; otherwise by us, never from inside its own callbacks
 * (deferred to the conn timer).
 */
#include "worker/dispatch/redis.h"

#include "core/buf.h"
#include "core/log.h"
#include "domain/template.h"

#include <hiredis/adapters/libuv.h>
#include <hiredis/async.h>
#include <hiredis/hiredis.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define REDISD_MSG_SIZE 256
#define REDISD_ID_SIZE 64

enum redisd_state {
    REDISD_RUNNING, /* accepting sends */
    REDISD_CLOSING, /* redisd_close() called; freed when every conn and send is gone */
};

enum conn_state {
    CONN_DOWN,       /* no usable context; timer may hold a backoff or a deferred free */
    CONN_RESOLVING,  /* uv_getaddrinfo in flight */
    CONN_CONNECTING, /* redisAsyncConnect issued, waiting for on_connect */
    CONN_SETUP,      /* AUTH / SELECT sent, XADDs held back on the queue */
    CONN_READY,      /* queue flushed as sends arrive */
    CONN_CLOSING,    /* redisd_close(); waiting for timer close / getaddrinfo */
};

enum send_state {
    SEND_QUEUED,   /* on conn->queue, waiting for CONN_READY */
    SEND_SENT,     /* XADD handed to hiredis, reply pending */
    SEND_DONE,     /* result recorded, timer armed to deliver it */
    SEND_FINISHED, /* callback ran; waiting for timer close and/or the reply */
};

struct redisd_conn;

struct redisd_send {
    struct redisd *d;
    struct redisd_conn *conn; /* NULL when the URL was rejected */
    enum send_state state;
    int argc;
    char **argv;
    size_t *argvlen;
    char *stream;
    uv_timer_t timer;
    bool timer_open;
    bool reply_pending;
    bool permanent; /* the URL was rejected */
    enum redisd_outcome outcome;
    uint64_t start_ms;
    redisd_done_cb cb;
    void *arg;
    struct redisd_send *prev, *next; /* d->sends: not yet delivered */
    struct redisd_send *qnext;       /* conn->queue */
    char id[REDISD_ID_SIZE];
    char msg[REDISD_MSG_SIZE];
};

struct redisd_conn {
    struct redisd *d;
    enum conn_state state;
    char *host, *user, *pass; /* user/pass NULL when absent */
    int port, db;
    redisAsyncContext *ac;
    uv_timer_t timer;
    bool timer_open;
    uv_getaddrinfo_t gai;
    bool gai_pending;
    long backoff_ms;
    uint64_t next_try_ms;
    struct redisd_send *qhead, *qtail;
    struct redisd_conn *next;
};

struct redisd {
    uv_loop_t *loop;
    enum redisd_state state;
    struct redisd_config cfg;
    uv_timer_t timer; /* only closed, so done runs from a loop callback */
    bool timer_open;
    unsigned inflight;
    unsigned nsends; /* allocated sends */
    struct redisd_send *sends;
    struct redisd_conn *conns;
    void (*done)(void *arg);
    void *done_arg;
};

struct redisd_url {
    char *host, *user, *pass;
    int port, db;
};

static void conn_kick(struct redisd_conn *c);
static void conn_fail(struct redisd_conn *c, const char *msg);

/* ---- helpers ---- */

static char *dup_n(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* Percent-decodes s[0..n) into a new string; NULL on a bad escape or OOM. */
static char *pct_decode(const char *s, size_t n)
{
    char *p = malloc(n + 1), *o = p;
    if (!p)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%') {
            int hi = i + 2 < n ? hexval(s[i + 1]) : -1;
            int lo = i + 2 < n ? hexval(s[i + 2]) : -1;
            if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
                free(p);
                return NULL;
            }
            *o++ = (char)(hi * 16 + lo);
            i += 2;
        } else {
            *o++ = s[i];
        }
    }
    *o = '\0';
    return p;
}

static int parse_int(const char *s, size_t n, long max, int *out)
{
    long v = 0;
    if (n == 0 || n > 10)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    if (v > max)
        return -1;
    *out = (int)v;
    return 0;
}

static void url_free(struct redisd_url *u)
{
    free(u->host);
    free(u->user);
    free(u->pass);
    memset(u, 0, sizeof(*u));
}

/* Returns NULL or a static reason; the reason never quotes the URL. */
static const char *url_parse(const char *url, struct redisd_url *u)
{
    memset(u, 0, sizeof(*u));
    u->port = 6379;
    if (strncasecmp(url, "rediss://", 9) == 0)
        return "rediss:// (TLS) is not supported by this build";
    if (strncasecmp(url, "redis://", 8) != 0)
        return "redis_url must start with redis://";
    const char *p = url + 8, *end = p + strcspn(p, "/?#");
    const char *at = memrchr(p, '@', (size_t)(end - p));
    if (at) {
        const char *colon = memchr(p, ':', (size_t)(at - p));
        if (colon) {
            if (colon > p && !(u->user = pct_decode(p, (size_t)(colon - p))))
                goto bad_cred;
            if (!(u->pass = pct_decode(colon + 1, (size_t)(at - colon - 1))))
                goto bad_cred;
        } else if (!(u->pass = pct_decode(p, (size_t)(at - p)))) {
            goto bad_cred; /* redis://password@host, as redis-py accepts */
        }
        p = at + 1;
        if (u->pass && !u->pass[0]) {
            free(u->pass); /* "user:@host": no password, no AUTH */
            u->pass = NULL;
        }
    }
    const char *hend, *portp = NULL;
    if (*p == '[') {
        const char *rb = memchr(p, ']', (size_t)(end - p));
        if (!rb)
            goto bad_host;
        u->host = dup_n(p + 1, (size_t)(rb - p - 1));
        hend = rb + 1;
        if (hend < end && *hend != ':')
            goto bad_host;
    } else {
        hend = memchr(p, ':', (size_t)(end - p));
        if (!hend)
            hend = end;
        u->host = dup_n(p, (size_t)(hend - p));
    }
    if (!u->host || !u->host[0])
        goto bad_host;
    if (hend < end && *hend == ':')
        portp = hend + 1;
    if (portp && (parse_int(portp, (size_t)(end - portp), 65535, &u->port) < 0 || u->port == 0)) {
        url_free(u);
        return "redis_url has an invalid port";
    }
    if (*end == '/' && end[1]) {
        const char *q = end + 1;
        if (parse_int(q, strcspn(q, "?#"), 1000000, &u->db) < 0) {
            url_free(u);
            return "redis_url has an invalid database number";
        }
    }
    return NULL;
bad_cred:
    url_free(u);
    return "redis_url has malformed credentials";
bad_host:
    url_free(u);
    return "redis_url has no valid host";
}

static bool str_eq(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/*
 * Copies msg into dst[cap] with every occurrence of secret (the URL's password)
 * shown as "***". The whole message is redacted before it is cut to fit, so a
 * cut can never leave part of the secret behind.
 */
static void copy_redacted(char *dst, size_t cap, const char *msg, const char *secret)
{
    struct buf clean = BUF_INIT;
    const char *const secrets[] = {secret};
    if (!secret || !*secret)
        snprintf(dst, cap, "%s", msg);
    else if (template_redact(msg, strlen(msg), secrets, 1, &clean) == 0)
        snprintf(dst, cap, "%.*s", (int)clean.len, clean.len ? clean.data : "");
    else
        snprintf(dst, cap, "%s", "(message withheld: out of memory)");
    buf_free(&clean);
}

/* ---- redisd lifetime ---- */

static void redisd_maybe_finish(struct redisd *d)
{
    if (d->state != REDISD_CLOSING || d->timer_open || d->nsends || d->conns)
        return;
    void (*done)(void *) = d->done;
    void *arg = d->done_arg;
    free(d);
    if (done)
        done(arg);
}

static void on_d_timer_closed(uv_handle_t *h)
{
    struct redisd *d = h->data;
    d->timer_open = false;
    redisd_maybe_finish(d);
}

/* ---- sends ---- */

static void send_maybe_free(struct redisd_send *s)
{
    if (s->timer_open || s->reply_pending || s->state != SEND_FINISHED)
        return;
    struct redisd *d = s->d;
    for (int i = 0; i < s->argc; i++)
        free(s->argv[i]);
    free(s->argv);
    free(s->argvlen);
    free(s->stream);
    free(s);
    d->nsends--;
    redisd_maybe_finish(d);
}

static void on_send_timer_closed(uv_handle_t *h)
{
    struct redisd_send *s = h->data;
    s->timer_open = false;
    send_maybe_free(s);
}

static void queue_remove(struct redisd_send *s)
{
    struct redisd_conn *c = s->conn;
    struct redisd_send **pp = &c->qhead, *prev = NULL;
    while (*pp && *pp != s) {
        prev = *pp;
        pp = &(*pp)->qnext;
    }
    if (!*pp)
        return;
    *pp = s->qnext;
    if (c->qtail == s)
        c->qtail = prev;
    s->qnext = NULL;
}

static void on_send_timer(uv_timer_t *t);

/* The one place a result is recorded; delivery happens on the next timer run. */
static void send_finish(struct redisd_send *s, enum redisd_outcome o, const char *msg)
{
    if (s->state == SEND_DONE || s->state == SEND_FINISHED)
        return;
    if (s->state == SEND_QUEUED && s->conn)
        queue_remove(s);
    s->state = SEND_DONE;
    s->outcome = o;
    copy_redacted(s->msg, sizeof(s->msg), msg ? msg : "", s->conn ? s->conn->pass : NULL);
    uv_timer_stop(&s->timer);
    uv_timer_start(&s->timer, on_send_timer, 0, 0);
}

static void send_deliver(struct redisd_send *s)
{
    struct redisd *d = s->d;
    s->state = SEND_FINISHED;
    if (s->prev)
        s->prev->next = s->next;
    else
        d->sends = s->next;
    if (s->next)
        s->next->prev = s->prev;
    d->inflight--;
    struct redisd_result r = {
        .outcome = s->outcome,
        .message_id = s->outcome == REDISD_OK ? s->id : NULL,
        .stream = s->stream,
        .message = s->outcome == REDISD_OK ? NULL : s->msg,
        .duration_ms = (int64_t)(uv_now(d->loop) - s->start_ms),
        .retryable = s->outcome != REDISD_OK && !s->permanent,
    };
    /* cb may close d: keep s (and so d) alive until the timer's close callback. */
    uv_close((uv_handle_t *)&s->timer, on_send_timer_closed);
    s->cb(s->arg, &r);
}

static void on_send_timer(uv_timer_t *t)
{
    struct redisd_send *s = t->data;
    if (s->state == SEND_QUEUED || s->state == SEND_SENT) {
        char msg[96];
        snprintf(msg, sizeof(msg), "no reply from Redis within %lu ms",
                 (unsigned long)(uv_now(s->d->loop) - s->start_ms));
        send_finish(s, REDISD_TIMEOUT, msg);
        uv_timer_stop(&s->timer);
    }
    send_deliver(s);
}

static void on_xadd_reply(redisAsyncContext *ac, void *reply, void *priv)
{
    (void)ac;
    struct redisd_send *s = priv;
    redisReply *r = reply;
    s->reply_pending = false;
    if (s->state == SEND_SENT) {
        if (!r) {
            send_finish(s, REDISD_CONNECTION_ERROR,
                        s->d->state == REDISD_CLOSING ? "shutting down"
                                                      : "connection to Redis lost");
        } else if (r->type == REDIS_REPLY_ERROR) {
            bool conn = strncmp(r->str, "NOAUTH", 6) == 0 || strncmp(r->str, "LOADING", 7) == 0;
            send_finish(s, conn ? REDISD_CONNECTION_ERROR : REDISD_STREAM_ERROR, r->str);
        } else if (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS) {
            snprintf(s->id, sizeof(s->id), "%s", r->str);
            send_finish(s, REDISD_OK, NULL);
        } else {
            send_finish(s, REDISD_STREAM_ERROR, "unexpected reply type to XADD");
        }
    }
    send_maybe_free(s);
}

/* ---- connections ---- */

static const char *conn_state_name(enum conn_state s)
{
    switch (s) {
    case CONN_DOWN:
        return "down";
    case CONN_RESOLVING:
        return "resolving";
    case CONN_CONNECTING:
        return "connecting";
    case CONN_SETUP:
        return "setup";
    case CONN_READY:
        return "ready";
    case CONN_CLOSING:
        return "closing";
    }
    return "?";
}

/* The only place a conn changes state. */
static void conn_set_state(struct redisd_conn *c, enum conn_state s)
{
    log_debug("redisd: %s:%d %s -> %s", c->host, c->port, conn_state_name(c->state),
              conn_state_name(s));
    c->state = s;
}

static void conn_maybe_free(struct redisd_conn *c)
{
    if (c->state != CONN_CLOSING || c->timer_open || c->gai_pending || c->ac)
        return;
    struct redisd *d = c->d;
    struct redisd_conn **pp = &d->conns;
    while (*pp != c)
        pp = &(*pp)->next;
    *pp = c->next;
    free(c->host);
    free(c->user);
    free(c->pass);
    free(c);
    redisd_maybe_finish(d);
}

static void on_conn_timer_closed(uv_handle_t *h)
{
    struct redisd_conn *c = h->data;
    c->timer_open = false;
    conn_maybe_free(c);
}

static void on_conn_timer(uv_timer_t *t)
{
    struct redisd_conn *c = t->data;
    if (c->state == CONN_CONNECTING || c->state == CONN_SETUP) {
        conn_fail(c, "timed out connecting to Redis"); /* re-arms the timer to free ac */
        return;
    }
    if (c->state != CONN_DOWN)
        return;
    if (c->ac) { /* deferred free of a context we gave up on */
        redisAsyncContext *ac = c->ac;
        c->ac = NULL;
        redisAsyncFree(ac);
    }
    if (c->qhead)
        conn_kick(c);
}

/* Gives up on the current attempt: queued sends fail, the next try waits. */
static void conn_fail(struct redisd_conn *c, const char *why)
{
    uint64_t now = uv_now(c->d->loop);
    char msg[REDISD_MSG_SIZE];
    copy_redacted(msg, sizeof(msg), why, c->pass);
    log_warn("redisd: %s:%d: %s", c->host, c->port, msg);
    conn_set_state(c, CONN_DOWN);
    c->next_try_ms = now + (uint64_t)c->backoff_ms;
    c->backoff_ms =
        c->backoff_ms * 2 > c->d->cfg.backoff_max_ms ? c->d->cfg.backoff_max_ms : c->backoff_ms * 2;
    while (c->qhead)
        send_finish(c->qhead, REDISD_CONNECTION_ERROR, msg); /* unlinks it */
    uv_timer_stop(&c->timer);
    if (c->ac)
        uv_timer_start(&c->timer, on_conn_timer, 0, 0);
}

static void conn_flush(struct redisd_conn *c)
{
    while (c->qhead) {
        struct redisd_send *s = c->qhead;
        c->qhead = s->qnext;
        if (!c->qhead)
            c->qtail = NULL;
        s->qnext = NULL;
        if (redisAsyncCommandArgv(c->ac, on_xadd_reply, s, s->argc, (const char **)s->argv,
                                  s->argvlen) != REDIS_OK) {
            s->state = SEND_SENT; /* not queued any more */
            send_finish(s, REDISD_CONNECTION_ERROR, "cannot queue XADD on the connection");
            continue;
        }
        s->state = SEND_SENT;
        s->reply_pending = true;
    }
}

static void conn_ready(struct redisd_conn *c)
{
    uv_timer_stop(&c->timer);
    conn_set_state(c, CONN_READY);
    c->backoff_ms = c->d->cfg.backoff_min_ms;
    log_debug("redisd: connected to %s:%d db %d", c->host, c->port, c->db);
    conn_flush(c);
}

static void on_setup_reply(redisAsyncContext *ac, void *reply, void *priv, const char *what)
{
    struct redisd_conn *c = ac->data;
    redisReply *r = reply;
    if (!r || c->state != CONN_SETUP)
        return; /* lost: on_disconnect handles it */
    if (r->type == REDIS_REPLY_ERROR) {
        struct buf full = BUF_INIT; /* whole, so that conn_fail redacts before cutting */
        bool ok = buf_printf(&full, "%s failed: %s", what, r->str ? r->str : "") == 0;
        conn_fail(c, ok ? full.data : what);
        buf_free(&full);
        return;
    }
    if (priv) /* the last setup command */
        conn_ready(c);
}

static void on_auth_reply(redisAsyncContext *ac, void *reply, void *priv)
{
    on_setup_reply(ac, reply, priv, "Redis authentication (AUTH)");
}

static void on_select_reply(redisAsyncContext *ac, void *reply, void *priv)
{
    on_setup_reply(ac, reply, priv, "SELECT of the database");
}

static void conn_setup(struct redisd_conn *c)
{
    static int last;
    conn_set_state(c, CONN_SETUP);
    int rc = REDIS_OK;
    if (c->pass && c->user)
        rc = redisAsyncCommand(c->ac, on_auth_reply, c->db ? NULL : &last, "AUTH %s %s", c->user,
                               c->pass);
    else if (c->pass)
        rc = redisAsyncCommand(c->ac, on_auth_reply, c->db ? NULL : &last, "AUTH %s", c->pass);
    if (rc == REDIS_OK && c->db)
        rc = redisAsyncCommand(c->ac, on_select_reply, &last, "SELECT %d", c->db);
    if (rc != REDIS_OK)
        conn_fail(c, "cannot send AUTH/SELECT");
    else if (!c->pass && !c->db)
        conn_ready(c);
}

static void on_connect(const redisAsyncContext *ac, int status)
{
    struct redisd_conn *c = ac->data;
    if (status != REDIS_OK) {
        char msg[REDISD_MSG_SIZE];
        c->ac = NULL; /* hiredis frees it after this returns */
        snprintf(msg, sizeof(msg), "cannot connect to Redis at %s:%d: %s", c->host, c->port,
                 ac->errstr[0] ? ac->errstr : "connect failed");
        conn_fail(c, msg);
        return;
    }
    conn_setup(c);
}

static void on_disconnect(const redisAsyncContext *ac, int status)
{
    struct redisd_conn *c = ac->data;
    (void)status;
    if (c->ac != ac)
        return; /* we are freeing it ourselves */
    c->ac = NULL;
    if (c->state == CONN_CONNECTING || c->state == CONN_SETUP || c->state == CONN_READY)
        conn_fail(c, "connection to Redis lost");
}

/*
 * The libuv adapter of hiredis 0.14 drops poll errors (status < 0), so a
 * refused connect or a reset socket would never be noticed. Its event hooks
 * are wrapped to restart the poll with this callback, which hands an error to
 * hiredis as the events it was waiting for (as later hiredis versions do).
 */
static void on_redis_poll(uv_poll_t *h, int status, int events)
{
    redisLibuvEvents *p = h->data;
    int ev = status < 0 ? p->events : events;
    if (p->context && (ev & UV_READABLE))
        redisAsyncHandleRead(p->context);
    if (p->context && (ev & UV_WRITABLE))
        redisAsyncHandleWrite(p->context);
}

static void repoll(redisLibuvEvents *p)
{
    if (p->events)
        uv_poll_start(&p->handle, p->events, on_redis_poll);
}

static void ev_add_read(void *priv)
{
    redisLibuvAddRead(priv);
    repoll(priv);
}

static void ev_del_read(void *priv)
{
    redisLibuvDelRead(priv);
    repoll(priv);
}

static void ev_add_write(void *priv)
{
    redisLibuvAddWrite(priv);
    repoll(priv);
}

static void ev_del_write(void *priv)
{
    redisLibuvDelWrite(priv);
    repoll(priv);
}

static void conn_connect(struct redisd_conn *c, const char *ip)
{
    char msg[REDISD_MSG_SIZE];
    redisAsyncContext *ac = redisAsyncConnect(ip, c->port);
    if (!ac) {
        conn_fail(c, "out of memory creating a Redis context");
        return;
    }
    if (ac->err) {
        snprintf(msg, sizeof(msg), "cannot connect to Redis at %s:%d: %s", c->host, c->port,
                 ac->errstr);
        redisAsyncFree(ac);
        conn_fail(c, msg);
        return;
    }
    ac->data = c;
    if (redisLibuvAttach(ac, c->d->loop) != REDIS_OK) {
        redisAsyncFree(ac);
        conn_fail(c, "cannot attach the Redis context to the loop");
        return;
    }
    ac->ev.addRead = ev_add_read;
    ac->ev.delRead = ev_del_read;
    ac->ev.addWrite = ev_add_write;
    ac->ev.delWrite = ev_del_write;
    c->ac = ac;
    conn_set_state(c, CONN_CONNECTING);
    uv_timer_start(&c->timer, on_conn_timer, (uint64_t)c->d->cfg.connect_timeout_ms, 0);
    redisAsyncSetConnectCallback(ac, on_connect);
    redisAsyncSetDisconnectCallback(ac, on_disconnect);
}

static void on_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res)
{
    struct redisd_conn *c = req->data;
    char ip[64] = "", msg[REDISD_MSG_SIZE];
    c->gai_pending = false;
    if (c->state != CONN_RESOLVING) {
        uv_freeaddrinfo(res);
        conn_maybe_free(c);
        return;
    }
    if (status == 0 && res) {
        if (res->ai_family == AF_INET6)
            uv_ip6_name((const struct sockaddr_in6 *)res->ai_addr, ip, sizeof(ip));
        else
            uv_ip4_name((const struct sockaddr_in *)res->ai_addr, ip, sizeof(ip));
    }
    uv_freeaddrinfo(res);
    if (!ip[0]) {
        snprintf(msg, sizeof(msg), "cannot resolve Redis host %s: %s", c->host,
                 status ? uv_strerror(status) : "no address");
        conn_fail(c, msg);
        return;
    }
    conn_connect(c, ip);
}

static void conn_start(struct redisd_conn *c)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    conn_set_state(c, CONN_RESOLVING);
    int rc = uv_getaddrinfo(c->d->loop, &c->gai, on_resolved, c->host, NULL, &hints);
    if (rc < 0) {
        char msg[REDISD_MSG_SIZE];
        snprintf(msg, sizeof(msg), "cannot resolve Redis host: %s", uv_strerror(rc));
        conn_fail(c, msg);
        return;
    }
    c->gai_pending = true;
}

/* Moves a conn with queued sends toward CONN_READY. */
static void conn_kick(struct redisd_conn *c)
{
    switch (c->state) {
    case CONN_DOWN: {
        if (uv_is_active((uv_handle_t *)&c->timer) || c->ac)
            return; /* backoff or deferred free pending; the timer kicks again */
        uint64_t now = uv_now(c->d->loop);
        if (c->next_try_ms > now)
            uv_timer_start(&c->timer, on_conn_timer, c->next_try_ms - now, 0);
        else
            conn_start(c);
        return;
    }
    case CONN_READY:
        conn_flush(c);
        return;
    case CONN_RESOLVING:
    case CONN_CONNECTING:
    case CONN_SETUP:
    case CONN_CLOSING:
        return;
    }
}

static struct redisd_conn *conn_get(struct redisd *d, struct redisd_url *u)
{
    for (struct redisd_conn *c = d->conns; c; c = c->next)
        if (c->port == u->port && c->db == u->db && strcmp(c->host, u->host) == 0 &&
            str_eq(c->user, u->user) && str_eq(c->pass, u->pass))
            return c;
    struct redisd_conn *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    uv_timer_init(d->loop, &c->timer);
    c->timer.data = c;
    c->timer_open = true;
    c->gai.data = c;
    c->d = d;
    c->state = CONN_DOWN; /* not through conn_set_state: host is not set yet */
    c->host = u->host;
    c->user = u->user;
    c->pass = u->pass;
    c->port = u->port;
    c->db = u->db;
    u->host = u->user = u->pass = NULL; /* owned by c now */
    c->backoff_ms = d->cfg.backoff_min_ms;
    c->next = d->conns;
    d->conns = c;
    return c;
}

/* ---- API ---- */

int redisd_new(uv_loop_t *loop, const struct redisd_config *cfg, struct redisd **out)
{
    struct redisd_config c = cfg ? *cfg : (struct redisd_config){0};
    *out = NULL;
    if (c.default_timeout_ms < 0 || c.backoff_min_ms < 0 || c.backoff_max_ms < 0 ||
        c.connect_timeout_ms < 0)
        return -EINVAL;
    if (!c.default_timeout_ms)
        c.default_timeout_ms = 5000;
    if (!c.backoff_min_ms)
        c.backoff_min_ms = 100;
    if (!c.connect_timeout_ms)
        c.connect_timeout_ms = 10000;
    if (!c.backoff_max_ms)
        c.backoff_max_ms = 5000;
    if (c.backoff_max_ms < c.backoff_min_ms)
        c.backoff_max_ms = c.backoff_min_ms;
    struct redisd *d = calloc(1, sizeof(*d));
    if (!d)
        return -ENOMEM;
    d->loop = loop;
    d->cfg = c;
    d->state = REDISD_RUNNING;
    uv_timer_init(loop, &d->timer);
    d->timer.data = d;
    d->timer_open = true;
    *out = d;
    return 0;
}

static int send_copy_args(struct redisd_send *s, const struct redisd_request *req)
{
    char num[32];
    int n = 2 + (req->max_len > 0 ? (req->approximate ? 3 : 2) : 0) + 1 + 2 * req->nfields;
    s->argv = calloc((size_t)n, sizeof(char *));
    s->argvlen = calloc((size_t)n, sizeof(size_t));
    s->stream = strdup(req->stream);
    if (!s->argv || !s->argvlen || !s->stream)
        return -ENOMEM;
    const char *tmp[8];
    int k = 0;
    tmp[k++] = "XADD";
    tmp[k++] = req->stream;
    if (req->max_len > 0) {
        snprintf(num, sizeof(num), "%ld", req->max_len);
        tmp[k++] = "MAXLEN";
        if (req->approximate)
            tmp[k++] = "~";
        tmp[k++] = num;
    }
    tmp[k++] = "*";
    for (int i = 0; i < n; i++) {
        const char *v = i < k ? tmp[i]
                              : (((i - k) % 2 == 0) ? req->fields[(i - k) / 2].name
                                                    : req->fields[(i - k) / 2].value);
        if (!(s->argv[i] = strdup(v)))
            return -ENOMEM;
        s->argvlen[i] = strlen(v);
        s->argc = i + 1;
    }
    return 0;
}

static bool request_valid(const struct redisd_request *req, redisd_done_cb cb)
{
    if (!req || !cb || !req->redis_url || !req->stream || !req->fields || req->nfields < 1 ||
        req->max_len < 0)
        return false;
    for (int i = 0; i < req->nfields; i++)
        if (!req->fields[i].name || !req->fields[i].value)
            return false;
    return true;
}

static void send_free_early(struct redisd_send *s)
{
    for (int i = 0; i < s->argc; i++)
        free(s->argv[i]);
    free(s->argv);
    free(s->argvlen);
    free(s->stream);
    free(s);
}

int redisd_send(struct redisd *d, const struct redisd_request *req, redisd_done_cb cb, void *arg)
{
    struct redisd_url u;
    if (!request_valid(req, cb))
        return -EINVAL;
    if (d->state != REDISD_RUNNING)
        return -ESHUTDOWN;
    struct redisd_send *s = calloc(1, sizeof(*s));
    if (!s)
        return -ENOMEM;
    if (send_copy_args(s, req) < 0)
        goto fail;
    const char *bad = url_parse(req->redis_url, &u);
    struct redisd_conn *c = NULL;
    if (!bad && !(c = conn_get(d, &u))) {
        url_free(&u);
        goto fail;
    }
    if (!bad)
        url_free(&u); /* whatever conn_get did not take (an existing conn) */
    s->d = d;
    s->conn = c;
    s->cb = cb;
    s->arg = arg;
    s->start_ms = uv_now(d->loop);
    uv_timer_init(d->loop, &s->timer);
    s->timer.data = s;
    s->timer_open = true;
    s->next = d->sends;
    if (d->sends)
        d->sends->prev = s;
    d->sends = s;
    d->inflight++;
    d->nsends++;
    long timeout = req->timeout_ms > 0 ? req->timeout_ms : d->cfg.default_timeout_ms;
    uv_timer_start(&s->timer, on_send_timer, (uint64_t)timeout, 0);
    if (bad) {
        s->permanent = true;
        s->state = SEND_QUEUED;
        send_finish(s, REDISD_CONNECTION_ERROR, bad);
        return 0;
    }
    s->state = SEND_QUEUED;
    if (c->qtail)
        c->qtail->qnext = s;
    else
        c->qhead = s;
    c->qtail = s;
    conn_kick(c);
    return 0;
fail:
    send_free_early(s);
    return -ENOMEM;
}

unsigned redisd_inflight(const struct redisd *d)
{
    return d->inflight;
}

void redisd_close(struct redisd *d, void (*done)(void *arg), void *arg)
{
    if (d->state == REDISD_CLOSING)
        return;
    d->state = REDISD_CLOSING;
    d->done = done;
    d->done_arg = arg;
    for (struct redisd_send *s = d->sends; s; s = s->next)
        send_finish(s, REDISD_CONNECTION_ERROR, "shutting down");
    for (struct redisd_conn *c = d->conns; c; c = c->next) {
        conn_set_state(c, CONN_CLOSING);
        if (c->gai_pending)
            uv_cancel((uv_req_t *)&c->gai);
        if (c->ac) {
            redisAsyncContext *ac = c->ac;
            c->ac = NULL;
            redisAsyncFree(ac); /* pending replies come back NULL, already finished */
        }
        uv_close((uv_handle_t *)&c->timer, on_conn_timer_closed);
    }
    uv_close((uv_handle_t *)&d->timer, on_d_timer_closed);
}

const char *redisd_outcome_name(enum redisd_outcome o)
{
    switch (o) {
    case REDISD_OK:
        return "OK";
    case REDISD_CONNECTION_ERROR:
        return "CONNECTION_ERROR";
    case REDISD_TIMEOUT:
        return "TIMEOUT";
    case REDISD_STREAM_ERROR:
        return "STREAM_ERROR";
    }
    return "CONNECTION_ERROR";
}

int redisd_result_json(const struct redisd_result *r, struct buf *out)
{
    const char *stream = r->stream ? r->stream : "";
    if (r->outcome == REDISD_OK) {
        const char *id = r->message_id ? r->message_id : "";
        if (buf_puts(out, "{\"message_id\":") || buf_json_str(out, id, strlen(id)) ||
            buf_puts(out, ",\"stream\":") || buf_json_str(out, stream, strlen(stream)) ||
            buf_putc(out, '}'))
            return -1;
        return 0;
    }
    const char *type = redisd_outcome_name(r->outcome);
    const char *msg = r->message ? r->message : "";
    if (buf_puts(out, "{\"type\":") || buf_json_str(out, type, strlen(type)) ||
        buf_puts(out, ",\"message\":") || buf_json_str(out, msg, strlen(msg)) || buf_putc(out, '}'))
        return -1;
    return 0;
}
