#include "db/conn.h"

#include "core/log.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BACKOFF_MIN_MS 100u
#define BACKOFF_MAX_MS 5000u

struct db_conn {
    uv_loop_t *loop;
    struct db_conn_config cfg;
    char *conninfo;
    char *app_name;
    const struct db_conn_ops *ops;
    void *owner;
    enum db_conn_state state;
    PGconn *pg;
    uv_poll_t *poll; /* one per socket; freed in its close callback */
    int poll_fd;
    int poll_events;
    uv_timer_t timer; /* connect deadline, then reconnect wait */
    uv_getaddrinfo_t gai;
    bool gai_active;
    char hostaddr[INET6_ADDRSTRLEN];
    int expected_ends;
    unsigned backoff_ms;
    int closes_pending;
    bool poll_draining; /* a dropped watcher's close callback is still to come */
    void (*close_done)(void *arg);
    void *close_arg;
};

static void conn_connect(struct db_conn *c);
static void conn_on_poll(uv_poll_t *h, int status, int events);
static void conn_schedule_retry(struct db_conn *c);

static void conn_set_state(struct db_conn *c, enum db_conn_state s)
{
    c->state = s;
}

PGconn *db_conn_pg(struct db_conn *c)
{
    return c->pg;
}

void *db_conn_owner(struct db_conn *c)
{
    return c->owner;
}

enum db_conn_state db_conn_state(const struct db_conn *c)
{
    return c->state;
}

int db_conninfo_check(const char *conninfo, char *err, size_t errlen)
{
    char *msg = NULL;
    PQconninfoOption *opts = PQconninfoParse(conninfo, &msg);
    if (!opts) {
        snprintf(err, errlen, "%s", msg ? msg : "out of memory");
        size_t n = strlen(err);
        while (n && (err[n - 1] == '\n' || err[n - 1] == ' '))
            err[--n] = '\0';
        PQfreemem(msg);
        return -1;
    }
    PQconninfoFree(opts);
    return 0;
}

int db_conn_new(uv_loop_t *loop, const struct db_conn_config *cfg, const struct db_conn_ops *ops,
                void *owner, struct db_conn **out)
{
    struct db_conn *c = calloc(1, sizeof(*c));
    if (!c)
        return -1;
    c->loop = loop;
    c->cfg = *cfg;
    c->conninfo = strdup(cfg->conninfo);
    c->app_name = strdup(cfg->application_name ? cfg->application_name : "taskexec");
    if (!c->conninfo || !c->app_name)
        goto fail;
    c->cfg.conninfo = c->conninfo;
    c->cfg.application_name = c->app_name;
    c->ops = ops;
    c->owner = owner;
    c->backoff_ms = BACKOFF_MIN_MS;
    c->state = DBC_IDLE_WAIT;
    if (uv_timer_init(loop, &c->timer) < 0)
        goto fail;
    c->timer.data = c;
    *out = c;
    return 0;
fail:
    free(c->conninfo);
    free(c->app_name);
    free(c);
    return -1;
}

static void conn_update_poll(struct db_conn *c, int events)
{
    if (!c->poll || events == c->poll_events)
        return;
    c->poll_events = events;
    if (uv_poll_start(c->poll, events, conn_on_poll) < 0)
        db_conn_fail(c, "cannot watch the database socket");
}

static void conn_flush(struct db_conn *c)
{
    int r = PQflush(c->pg);
    if (r < 0) {
        db_conn_fail(c, PQerrorMessage(c->pg));
        return;
    }
    conn_update_poll(c, UV_READABLE | (r == 1 ? UV_WRITABLE : 0));
}

void db_conn_sent(struct db_conn *c, int ends)
{
    c->expected_ends += ends;
    conn_flush(c);
}

/* One of the things db_conn_close waits for has finished; the last one frees. */
static void conn_close_step(struct db_conn *c)
{
    if (--c->closes_pending > 0)
        return;
    if (c->pg)
        PQfinish(c->pg);
    void (*done)(void *) = c->close_done;
    void *arg = c->close_arg;
    free(c->conninfo);
    free(c->app_name);
    free(c);
    if (done)
        done(arg);
}

static void on_poll_closed(uv_handle_t *h)
{
    struct db_conn *c = h->data;
    free(h);
    if (c->state == DBC_CLOSING) {
        conn_close_step(c);
        return;
    }
    /* DRAINING: the watcher is gone, so the socket can be closed now. */
    c->poll_draining = false;
    if (c->pg) {
        PQfinish(c->pg);
        c->pg = NULL;
    }
    conn_schedule_retry(c);
}

/* Closes the current socket watcher; on_poll_closed continues. Returns false if none. */
static bool conn_drop_poll(struct db_conn *c)
{
    if (!c->poll)
        return false;
    uv_poll_t *p = c->poll;
    c->poll = NULL;
    c->poll_events = 0;
    c->poll_draining = true;
    uv_close((uv_handle_t *)p, on_poll_closed);
    return true;
}

static void trim_message(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
        s[--n] = '\0';
}

void db_conn_fail(struct db_conn *c, const char *why)
{
    if (c->state == DBC_DRAINING || c->state == DBC_CLOSING || c->state == DBC_IDLE_WAIT)
        return;
    char msg[512];
    snprintf(msg, sizeof(msg), "%s", why && *why ? why : "connection lost");
    trim_message(msg);
    uv_timer_stop(&c->timer);
    c->expected_ends = 0;
    conn_set_state(c, DBC_DRAINING);
    c->ops->on_down(c, msg);
    if (c->state == DBC_CLOSING)
        return;
    if (!conn_drop_poll(c)) {
        if (c->pg) {
            PQfinish(c->pg);
            c->pg = NULL;
        }
        conn_schedule_retry(c);
    }
}

static void on_retry_timer(uv_timer_t *t)
{
    struct db_conn *c = t->data;
    if (c->state == DBC_IDLE_WAIT)
        db_conn_start(c);
}

static void conn_schedule_retry(struct db_conn *c)
{
    conn_set_state(c, DBC_IDLE_WAIT);
    unsigned base = c->backoff_ms;
    unsigned delay = base - base / 5 + randombytes_uniform(base / 5 * 2 + 1);
    c->backoff_ms = base * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : base * 2;
    uv_timer_start(&c->timer, on_retry_timer, delay, 0);
}

static void on_connect_timeout(uv_timer_t *t)
{
    struct db_conn *c = t->data;
    if (c->state == DBC_RESOLVING || c->state == DBC_CONNECTING)
        db_conn_fail(c, "timed out connecting to the database");
}

/* True when libpq would resolve `host` itself, i.e. with a blocking lookup. */
static bool needs_lookup(const char *host, const char *hostaddr)
{
    unsigned char tmp[sizeof(struct in6_addr)];
    if (!host || !*host || (hostaddr && *hostaddr))
        return false;
    if (host[0] == '/' || host[0] == '@' || strchr(host, ','))
        return false;
    return inet_pton(AF_INET, host, tmp) != 1 && inet_pton(AF_INET6, host, tmp) != 1;
}

static void on_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res)
{
    struct db_conn *c = req->data;
    c->gai_active = false;
    if (c->state != DBC_RESOLVING) {
        uv_freeaddrinfo(res);
        if (c->state == DBC_CLOSING)
            conn_close_step(c);
        return;
    }
    if (status < 0 || !res) {
        char why[160];
        snprintf(why, sizeof(why), "cannot resolve the database host: %s", uv_strerror(status));
        uv_freeaddrinfo(res);
        db_conn_fail(c, why);
        return;
    }
    const void *addr = res->ai_family == AF_INET6
                           ? (const void *)&((struct sockaddr_in6 *)res->ai_addr)->sin6_addr
                           : (const void *)&((struct sockaddr_in *)res->ai_addr)->sin_addr;
    inet_ntop(res->ai_family, addr, c->hostaddr, sizeof(c->hostaddr));
    uv_freeaddrinfo(res);
    conn_connect(c);
}

void db_conn_start(struct db_conn *c)
{
    char *msg = NULL;
    PQconninfoOption *opts = PQconninfoParse(c->conninfo, &msg);
    PQfreemem(msg);
    const char *host = NULL, *hostaddr = NULL;
    for (PQconninfoOption *o = opts; o && o->keyword; o++) {
        if (strcmp(o->keyword, "host") == 0)
            host = o->val;
        else if (strcmp(o->keyword, "hostaddr") == 0)
            hostaddr = o->val;
    }
    c->hostaddr[0] = '\0';
    conn_set_state(c, DBC_RESOLVING);
    uv_timer_start(&c->timer, on_connect_timeout, (uint64_t)c->cfg.connect_timeout_ms, 0);
    bool lookup = needs_lookup(host, hostaddr);
    if (lookup) {
        struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
        c->gai.data = c;
        if (uv_getaddrinfo(c->loop, &c->gai, on_resolved, host, NULL, &hints) == 0)
            c->gai_active = true;
        else
            lookup = false;
    }
    PQconninfoFree(opts);
    if (!lookup)
        conn_connect(c);
}

/* Builds the keyword arrays: the user's settings plus ours (application_name, options). */
static int conn_params(struct db_conn *c, PQconninfoOption *opts, const char **keys,
                       const char **vals, int cap, char *options, size_t optlen)
{
    int n = 0;
    bool have_app = false;
    const char *user_options = NULL;
    for (PQconninfoOption *o = opts; o->keyword && n < cap - 4; o++) {
        if (!o->val)
            continue;
        if (strcmp(o->keyword, "options") == 0) {
            user_options = o->val;
            continue;
        }
        if (strcmp(o->keyword, "application_name") == 0)
            have_app = true;
        keys[n] = o->keyword;
        vals[n++] = o->val;
    }
    if (!have_app) {
        keys[n] = "application_name";
        vals[n++] = c->cfg.application_name;
    }
    if (c->hostaddr[0]) {
        keys[n] = "hostaddr";
        vals[n++] = c->hostaddr;
    }
    options[0] = '\0';
    if (c->cfg.statement_timeout_ms > 0)
        snprintf(options, optlen, "%s%s-c statement_timeout=%d", user_options ? user_options : "",
                 user_options ? " " : "", c->cfg.statement_timeout_ms);
    else if (user_options)
        snprintf(options, optlen, "%s", user_options);
    if (options[0]) {
        keys[n] = "options";
        vals[n++] = options;
    }
    keys[n] = NULL;
    vals[n] = NULL;
    return n;
}

static int conn_watch_socket(struct db_conn *c)
{
    int fd = PQsocket(c->pg);
    if (fd < 0)
        return -1;
    if (c->poll && c->poll_fd == fd)
        return 0;
    if (c->poll) {
        /* libpq moved to a new socket (next host, or a protocol fallback). */
        uv_poll_t *old = c->poll;
        c->poll = NULL;
        old->data = NULL;
        uv_close((uv_handle_t *)old, (uv_close_cb)free);
    }
    c->poll = malloc(sizeof(*c->poll));
    if (!c->poll)
        return -1;
    if (uv_poll_init(c->loop, c->poll, fd) < 0) {
        free(c->poll);
        c->poll = NULL;
        return -1;
    }
    c->poll->data = c;
    c->poll_fd = fd;
    c->poll_events = 0;
    return 0;
}

/* Server notices (NOTICE, WARNING) go to our log instead of libpq's default stderr print. */
static void conn_notice(void *arg, const char *message)
{
    (void)arg;
    log_debug("database notice: %s", message);
}

static void conn_connect(struct db_conn *c)
{
    char *msg = NULL;
    PQconninfoOption *opts = PQconninfoParse(c->conninfo, &msg);
    PQfreemem(msg);
    if (!opts) {
        db_conn_fail(c, "invalid database connection string");
        return;
    }
    const char *keys[64], *vals[64];
    char options[1024];
    conn_params(c, opts, keys, vals, (int)TE_ARRAY_LEN(keys), options, sizeof(options));
    c->pg = PQconnectStartParams(keys, vals, 0);
    PQconninfoFree(opts);
    if (!c->pg || PQstatus(c->pg) == CONNECTION_BAD) {
        db_conn_fail(c, c->pg ? PQerrorMessage(c->pg) : "out of memory");
        return;
    }
    PQsetNoticeProcessor(c->pg, conn_notice, c);
    conn_set_state(c, DBC_CONNECTING);
    if (conn_watch_socket(c) < 0) {
        db_conn_fail(c, "cannot watch the database socket");
        return;
    }
    conn_update_poll(c, UV_WRITABLE);
}

static void conn_on_connected(struct db_conn *c)
{
    uv_timer_stop(&c->timer);
    if (PQsetnonblocking(c->pg, 1) != 0 || (c->cfg.pipeline && PQenterPipelineMode(c->pg) != 1)) {
        db_conn_fail(c, "cannot switch the connection to non-blocking pipeline mode");
        return;
    }
    c->backoff_ms = BACKOFF_MIN_MS;
    c->expected_ends = 0;
    conn_set_state(c, DBC_READY);
    conn_update_poll(c, UV_READABLE);
    c->ops->on_ready(c);
}

static void conn_step_connect(struct db_conn *c)
{
    PostgresPollingStatusType r = PQconnectPoll(c->pg);
    if (r == PGRES_POLLING_FAILED) {
        db_conn_fail(c, PQerrorMessage(c->pg));
        return;
    }
    if (conn_watch_socket(c) < 0) {
        db_conn_fail(c, "cannot watch the database socket");
        return;
    }
    if (r == PGRES_POLLING_OK)
        conn_on_connected(c);
    else
        conn_update_poll(c, r == PGRES_POLLING_READING ? UV_READABLE : UV_WRITABLE);
}

/* Hands buffered results to the owner; returns early if the owner changed our state. */
static void conn_drain(struct db_conn *c)
{
    PGnotify *n;
    while ((n = PQnotifies(c->pg)) != NULL) {
        if (c->ops->on_notify)
            c->ops->on_notify(c, n);
        else
            PQfreemem(n);
        if (c->state != DBC_READY)
            return;
    }
    int budget = 4096;
    while (c->expected_ends > 0 && budget-- > 0 && !PQisBusy(c->pg)) {
        PGresult *res = PQgetResult(c->pg);
        if (!res || PQresultStatus(res) == PGRES_PIPELINE_SYNC)
            c->expected_ends--;
        c->ops->on_result(c, res);
        if (c->state != DBC_READY)
            return;
    }
    /*
     * libpq closes the socket itself when it meets end-of-file while parsing
     * (e.g. the server's FATAL at shutdown, then EOF): no event will ever come
     * for it again, so the status must be checked here.
     */
    if (PQstatus(c->pg) == CONNECTION_BAD)
        db_conn_fail(c, PQerrorMessage(c->pg));
}

static void conn_on_poll(uv_poll_t *h, int status, int events)
{
    struct db_conn *c = h->data;
    if (!c || c->poll != h)
        return;
    if (status < 0) {
        /*
         * libuv reports POLLERR as UV_EBADF and stops the watcher. Let libpq
         * read the socket once more so the message names the real cause.
         */
        c->poll_events = 0;
        if (c->state == DBC_CONNECTING) {
            conn_step_connect(c);
            return;
        }
        if (c->state == DBC_READY && PQconsumeInput(c->pg))
            db_conn_fail(c, uv_strerror(status));
        else
            db_conn_fail(c, PQerrorMessage(c->pg));
        return;
    }
    if (c->state == DBC_CONNECTING) {
        conn_step_connect(c);
        return;
    }
    if (c->state != DBC_READY)
        return;
    if (events & UV_WRITABLE) {
        conn_flush(c);
        if (c->state != DBC_READY)
            return;
    }
    if (events & UV_READABLE) {
        if (!PQconsumeInput(c->pg) || PQstatus(c->pg) == CONNECTION_BAD) {
            db_conn_fail(c, PQerrorMessage(c->pg));
            return;
        }
        conn_drain(c);
    }
}

static void on_timer_closed(uv_handle_t *h)
{
    conn_close_step(h->data);
}

void db_conn_close(struct db_conn *c, void (*done)(void *arg), void *arg)
{
    if (c->state == DBC_CLOSING)
        return;
    conn_set_state(c, DBC_CLOSING);
    c->close_done = done;
    c->close_arg = arg;
    c->closes_pending = 1; /* the timer */
    uv_timer_stop(&c->timer);
    if (c->poll_draining)
        c->closes_pending++;
    if (c->gai_active) {
        c->closes_pending++;
        uv_cancel((uv_req_t *)&c->gai);
    }
    if (c->poll) {
        c->closes_pending++;
        uv_poll_t *p = c->poll;
        c->poll = NULL;
        uv_close((uv_handle_t *)p, on_poll_closed);
    }
    uv_close((uv_handle_t *)&c->timer, on_timer_closed);
}
