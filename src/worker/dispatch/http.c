/*
 * Outbound HTTP on the loop: libcurl's multi-socket API driven by uv_poll and
 * uv_timer (the shape of curl's docs/examples/multi-uv.c, with the lifetimes
 * made explicit).
 *
 * Who calls whom:
 *   curl → sock_cb   open/retarget/close a struct httpd_sock (one uv_poll per fd)
 *   curl → timer_cb  (re)arm d->timer
 *   uv   → on_poll / on_timer → curl_multi_socket_action → httpd_collect →
 *          user callbacks
 * User callbacks never run inside a curl callback, so they may call
 * httpd_send() and httpd_close().
 *
 * Socket lifetime: on CURL_POLL_REMOVE curl has not closed the fd yet, so
 * uv_close() (which stops polling and drops the fd from epoll at once) runs
 * while the fd is still ours; the struct is freed in the close callback. If
 * curl then reuses the fd number, sock_cb gets socketp == NULL and a new
 * handle is made: the closing one no longer refers to the fd.
 */
#include "worker/dispatch/http.h"

#include "core/log.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HTTPD_USER_AGENT "taskexec/0.1"
#define HTTPD_CONNECT_TIMEOUT_MAX_MS 10000L
#define HTTPD_REDACT_MIN 4 /* shorter URL parts are not searched for in messages */
#define HTTPD_MSG_SIZE (CURL_ERROR_SIZE + 128)

enum httpd_state {
    HTTPD_RUNNING,  /* accepting requests; curl arms d->timer */
    HTTPD_CLOSING,  /* httpd_close() called; d->timer runs the teardown next turn */
    HTTPD_DRAINING, /* curl is gone; waiting for the uv handles' close callbacks */
};

enum httpd_sock_state {
    SOCK_ACTIVE,  /* on d->socks, assigned to curl's socket */
    SOCK_CLOSING, /* uv_close() called; freed in on_sock_closed */
};

/* What happens to response bytes as they arrive. */
enum xfer_body {
    XBODY_KEEP,    /* stored, under HTTPD_BODY_CAP */
    XBODY_DISCARD, /* cap reached: counted and dropped */
    XBODY_CUT,     /* past HTTPD_DRAIN_CAP: transfer stopped on purpose */
    XBODY_NOMEM,   /* could not store: transfer stopped */
};

struct httpd_sock {
    uv_poll_t poll;
    struct httpd *d;
    curl_socket_t fd;
    int events; /* UV_READABLE | UV_WRITABLE, as curl last asked */
    enum httpd_sock_state state;
    struct httpd_sock *prev, *next;
};

struct httpd_xfer {
    struct httpd *d;
    CURL *easy;
    struct curl_slist *headers;
    char *body; /* request body; curl does not copy CURLOPT_POSTFIELDS */
    char *url;  /* only to redact messages */
    const int *expected;
    int *owned_expected; /* NULL when expected is the default list */
    int nexpected;
    struct buf resp;
    size_t resp_total;
    enum xfer_body body_state;
    uint64_t start_ns;
    httpd_done_cb cb;
    void *arg;
    struct httpd_xfer *prev, *next;
    char errbuf[CURL_ERROR_SIZE];
    char msg[HTTPD_MSG_SIZE];
};

struct httpd {
    uv_loop_t *loop;
    CURLM *multi;
    CURLSH *share; /* TLS sessions, so new connections can resume */
    uv_timer_t timer;
    enum httpd_state state;
    long default_timeout_ms;
    long http_version;
    unsigned inflight;
    unsigned open_handles; /* timer + poll handles whose close callback has not run */
    struct httpd_xfer *xfers;
    struct httpd_sock *socks;
    void (*done)(void *arg);
    void *done_arg;
};

static const int default_expected[] = {200, 201, 202, 204};
enum xfer_method { M_GET, M_POST, M_PUT, M_PATCH, M_DELETE };
static const char *const methods[] = {"GET", "POST", "PUT", "PATCH", "DELETE"};

static void on_timer(uv_timer_t *t);
static void on_poll(uv_poll_t *h, int status, int events);

/* ---- state ---- */

static const char *state_name(enum httpd_state s)
{
    switch (s) {
    case HTTPD_RUNNING:
        return "running";
    case HTTPD_CLOSING:
        return "closing";
    case HTTPD_DRAINING:
        return "draining";
    }
    return "?";
}

static void httpd_set_state(struct httpd *d, enum httpd_state s)
{
    log_debug("httpd: %s -> %s (%u in flight)", state_name(d->state), state_name(s), d->inflight);
    d->state = s;
}

static void httpd_finish(struct httpd *d)
{
    void (*done)(void *) = d->done;
    void *arg = d->done_arg;
    free(d);
    curl_global_cleanup();
    if (done)
        done(arg);
}

static void handle_closed(struct httpd *d)
{
    d->open_handles--;
    if (d->open_handles == 0 && d->state == HTTPD_DRAINING)
        httpd_finish(d);
}

/* ---- sockets ---- */

static void on_sock_closed(uv_handle_t *h)
{
    struct httpd_sock *sk = h->data;
    struct httpd *d = sk->d;
    free(sk);
    handle_closed(d);
}

static struct httpd_sock *sock_open(struct httpd *d, curl_socket_t fd)
{
    struct httpd_sock *sk = calloc(1, sizeof(*sk));
    if (!sk)
        return NULL;
    int rc = uv_poll_init_socket(d->loop, &sk->poll, fd);
    if (rc < 0) {
        log_warn("httpd: cannot poll socket %d: %s", (int)fd, uv_strerror(rc));
        free(sk); /* uv_poll_init fails before registering the handle */
        return NULL;
    }
    sk->poll.data = sk;
    sk->d = d;
    sk->fd = fd;
    sk->state = SOCK_ACTIVE;
    sk->next = d->socks;
    if (d->socks)
        d->socks->prev = sk;
    d->socks = sk;
    d->open_handles++;
    return sk;
}

/* The only place a socket changes state. The fd must still be open. */
static void sock_close(struct httpd_sock *sk)
{
    struct httpd *d = sk->d;
    if (sk->prev)
        sk->prev->next = sk->next;
    else
        d->socks = sk->next;
    if (sk->next)
        sk->next->prev = sk->prev;
    sk->prev = sk->next = NULL;
    sk->state = SOCK_CLOSING;
    uv_close((uv_handle_t *)&sk->poll, on_sock_closed);
}

static int curl_events(int uv_events)
{
    return ((uv_events & UV_READABLE) ? CURL_CSELECT_IN : 0) |
           ((uv_events & UV_WRITABLE) ? CURL_CSELECT_OUT : 0);
}

static int sock_cb(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp)
{
    struct httpd *d = userp;
    struct httpd_sock *sk = socketp;
    (void)easy;
    if (what == CURL_POLL_REMOVE) {
        if (sk && sk->state == SOCK_ACTIVE)
            sock_close(sk);
        return 0;
    }
    if (d->state == HTTPD_DRAINING)
        return 0; /* inside curl_multi_cleanup: nothing more to watch */
    if (!sk || sk->state != SOCK_ACTIVE) {
        sk = sock_open(d, fd);
        if (!sk)
            return -1; /* curl fails the transfers */
        if (curl_multi_assign(d->multi, fd, sk) != CURLM_OK) {
            sock_close(sk);
            return -1;
        }
    }
    sk->events =
        ((what & CURL_POLL_IN) ? UV_READABLE : 0) | ((what & CURL_POLL_OUT) ? UV_WRITABLE : 0);
    return uv_poll_start(&sk->poll, sk->events, on_poll) < 0 ? -1 : 0;
}

static int timer_cb(CURLM *multi, long timeout_ms, void *userp)
{
    struct httpd *d = userp;
    (void)multi;
    if (d->state != HTTPD_RUNNING)
        return 0; /* the timer belongs to the teardown now */
    if (timeout_ms < 0)
        return uv_timer_stop(&d->timer) < 0 ? -1 : 0;
    return uv_timer_start(&d->timer, on_timer, (uint64_t)timeout_ms, 0) < 0 ? -1 : 0;
}

/* ---- transfers ---- */

static void xfer_free(struct httpd_xfer *x)
{
    if (x->easy)
        curl_easy_cleanup(x->easy);
    curl_slist_free_all(x->headers);
    free(x->body);
    free(x->url);
    free(x->owned_expected);
    buf_free(&x->resp);
    free(x);
}

static void xfer_attach(struct httpd *d, struct httpd_xfer *x)
{
    x->next = d->xfers;
    if (d->xfers)
        d->xfers->prev = x;
    d->xfers = x;
    d->inflight++;
}

/* Takes x out of curl and off the list; may make curl call sock_cb/timer_cb. */
static void xfer_detach(struct httpd_xfer *x)
{
    struct httpd *d = x->d;
    curl_multi_remove_handle(d->multi, x->easy);
    if (x->prev)
        x->prev->next = x->next;
    else
        d->xfers = x->next;
    if (x->next)
        x->next->prev = x->prev;
    x->prev = x->next = NULL;
    d->inflight--;
}

static size_t on_body(char *p, size_t size, size_t n, void *userp)
{
    struct httpd_xfer *x = userp;
    size_t len = size * n;
    x->resp_total += len;
    if (x->resp_total > HTTPD_DRAIN_CAP) {
        x->body_state = XBODY_CUT;
        return 0; /* CURLE_WRITE_ERROR; the status already arrived */
    }
    if (x->body_state != XBODY_KEEP)
        return len;
    size_t take = HTTPD_BODY_CAP - x->resp.len;
    if (take > len)
        take = len;
    if (buf_append(&x->resp, p, take) < 0) {
        x->body_state = XBODY_NOMEM;
        return 0;
    }
    if (take < len)
        x->body_state = XBODY_DISCARD;
    return len;
}

static bool status_expected(const struct httpd_xfer *x, long status)
{
    for (int i = 0; i < x->nexpected; i++)
        if (x->expected[i] == status)
            return true;
    return false;
}

/* Replaces each occurrence of needle[0..n) in s with "***" (n >= 4, so s shrinks). */
static void redact_part(char *s, const char *needle, size_t n)
{
    if (n < HTTPD_REDACT_MIN)
        return;
    char *p = s;
    while ((p = memmem(p, strlen(p), needle, n)) != NULL) {
        memcpy(p, "***", 3);
        memmove(p + 3, p + n, strlen(p + n) + 1);
        p += 3;
    }
}

static bool scheme_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' ||
           c == '-' || c == '.';
}

/* Any "scheme://..." token in s (a HTTPD_MSG_SIZE array) becomes "[url]". */
static void redact_urls(char *s)
{
    char out[HTTPD_MSG_SIZE];
    size_t o = 0;
    const char *p = s;
    while (*p) {
        const char *sep = strstr(p, "://");
        const char *start = sep ? sep : p + strlen(p);
        while (sep && start > p && scheme_char(start[-1]))
            start--;
        size_t n = (size_t)(start - p);
        if (n > sizeof(out) - 1 - o)
            n = sizeof(out) - 1 - o;
        memcpy(out + o, p, n);
        o += n;
        if (!sep)
            break;
        const char *end = sep + 3;
        while (*end && !strchr(" \t\"'<>()", *end))
            end++;
        n = sizeof(out) - 1 - o < 5 ? sizeof(out) - 1 - o : 5;
        memcpy(out + o, "[url]", n);
        o += n;
        p = end;
    }
    out[o] = '\0';
    memcpy(s, out, o + 1);
}

/*
 * Keeps secrets out of messages: curl's texts name hosts, not URLs, but a
 * message is stored and shown, so userinfo, path, query and fragment of the
 * request URL are blanked wherever they appear, and so is any URL.
 */
static void redact_message(char *msg, const char *url)
{
    redact_urls(msg);
    const char *sep = strstr(url, "://");
    const char *auth = sep ? sep + 3 : url;
    size_t auth_len = strcspn(auth, "/?#");
    const char *at = NULL;
    for (const char *q = auth; q < auth + auth_len; q++)
        if (*q == '@')
            at = q;
    if (at) {
        size_t ui = (size_t)(at - auth);
        const char *colon = memchr(auth, ':', ui);
        redact_part(msg, auth, ui);
        if (colon) {
            redact_part(msg, auth, (size_t)(colon - auth));
            redact_part(msg, colon + 1, (size_t)(at - colon - 1));
        }
    }
    const char *path = auth + auth_len;
    size_t path_len = strcspn(path, "?#");
    redact_part(msg, path, path_len);
    const char *query = path + path_len;
    if (*query == '?') {
        size_t qlen = strcspn(query + 1, "#");
        redact_part(msg, query + 1, qlen);
        query += 1 + qlen;
    }
    if (*query == '#')
        redact_part(msg, query + 1, strlen(query + 1));
}

static void xfer_curl_message(struct httpd_xfer *x, CURLcode rc)
{
    const char *what = curl_easy_strerror(rc);
    size_t n = strlen(x->errbuf);
    while (n > 0 && (x->errbuf[n - 1] == '\n' || x->errbuf[n - 1] == ' '))
        x->errbuf[--n] = '\0';
    if (n == 0)
        snprintf(x->msg, sizeof(x->msg), "%s", what);
    else if (strstr(x->errbuf, what))
        snprintf(x->msg, sizeof(x->msg), "%s", x->errbuf);
    else
        snprintf(x->msg, sizeof(x->msg), "%s: %s", what, x->errbuf);
    redact_message(x->msg, x->url);
}

static void xfer_result(struct httpd_xfer *x, CURLcode rc, long status, struct httpd_result *r)
{
    *r = (struct httpd_result){
        .status_code = status,
        .body = x->resp.data ? x->resp.data : "",
        .body_len = x->resp.len,
        .body_truncated = x->body_state != XBODY_KEEP,
        .duration_ms = (int64_t)((uv_hrtime() - x->start_ns) / 1000000u),
    };
    bool answered = rc == CURLE_OK || (rc == CURLE_WRITE_ERROR && x->body_state == XBODY_CUT);
    if (answered && status > 0) {
        if (status_expected(x, status)) {
            r->outcome = HTTPD_OK;
            return;
        }
        r->outcome = HTTPD_HTTP_ERROR;
        snprintf(x->msg, sizeof(x->msg), "unexpected status %ld", status);
    } else if (answered) {
        r->outcome = HTTPD_CONNECTION_ERROR;
        snprintf(x->msg, sizeof(x->msg), "no HTTP status received");
    } else if (x->body_state == XBODY_NOMEM) {
        r->outcome = HTTPD_CONNECTION_ERROR;
        snprintf(x->msg, sizeof(x->msg), "out of memory reading the response");
    } else {
        r->outcome = rc == CURLE_OPERATION_TIMEDOUT ? HTTPD_TIMEOUT : HTTPD_CONNECTION_ERROR;
        xfer_curl_message(x, rc);
    }
    r->message = x->msg;
}

static void xfer_complete(struct httpd_xfer *x, CURLcode rc)
{
    long status = 0;
    curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
    xfer_detach(x);
    struct httpd_result r;
    xfer_result(x, rc, status, &r);
    log_debug("httpd: done %s status=%ld %lld ms%s%s", httpd_outcome_name(r.outcome), status,
              (long long)r.duration_ms, r.message ? ": " : "", r.message ? r.message : "");
    x->cb(x->arg, &r);
    xfer_free(x);
}

/* Delivers finished transfers. Runs only from loop callbacks, never inside curl. */
static void httpd_collect(struct httpd *d)
{
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(d->multi, &left)) != NULL) {
        if (m->msg != CURLMSG_DONE)
            continue;
        char *priv = NULL;
        CURLcode rc = m->data.result; /* m dies in curl_multi_remove_handle */
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, &priv);
        xfer_complete((struct httpd_xfer *)(void *)priv, rc);
    }
}

/* ---- loop callbacks ---- */

static void on_poll(uv_poll_t *h, int status, int events)
{
    struct httpd_sock *sk = h->data;
    struct httpd *d = sk->d;
    int running;
    /* On an error libuv stops the handle; curl learns the errno by reading or writing. */
    int flags = status < 0 ? CURL_CSELECT_ERR | curl_events(sk->events) : curl_events(events);
    curl_multi_socket_action(d->multi, sk->fd, flags, &running);
    /* sk is valid until its close callback, even if curl removed it just now. */
    if (status < 0 && sk->state == SOCK_ACTIVE && sk->events && !uv_is_active((uv_handle_t *)h))
        uv_poll_start(h, sk->events, on_poll);
    httpd_collect(d);
}

static void on_timer_closed(uv_handle_t *h)
{
    handle_closed(h->data);
}

/*
 * Runs from d->timer after httpd_close(), so never inside httpd_collect's
 * walk over the multi handle.
 */
static void httpd_teardown(struct httpd *d)
{
    struct httpd_xfer *x;
    while ((x = d->xfers) != NULL) {
        xfer_detach(x);
        struct httpd_result r = {
            .outcome = HTTPD_CONNECTION_ERROR,
            .body = "",
            .message = "shutting down",
            .duration_ms = (int64_t)((uv_hrtime() - x->start_ns) / 1000000u),
        };
        x->cb(x->arg, &r);
        xfer_free(x);
    }
    httpd_set_state(d, HTTPD_DRAINING);
    curl_multi_cleanup(d->multi); /* closes pooled connections; sock_cb sees REMOVE */
    d->multi = NULL;
    curl_share_cleanup(d->share);
    d->share = NULL;
    while (d->socks)
        sock_close(d->socks);
    uv_close((uv_handle_t *)&d->timer, on_timer_closed);
}

static void on_timer(uv_timer_t *t)
{
    struct httpd *d = t->data;
    int running;
    switch (d->state) {
    case HTTPD_RUNNING:
        curl_multi_socket_action(d->multi, CURL_SOCKET_TIMEOUT, 0, &running);
        httpd_collect(d);
        return;
    case HTTPD_CLOSING:
        httpd_teardown(d);
        return;
    case HTTPD_DRAINING:
        return; /* closing handle: cannot fire */
    }
}

/* ---- public ---- */

int httpd_new(uv_loop_t *loop, const struct httpd_config *cfg, struct httpd **out)
{
    struct httpd_config c = cfg ? *cfg : (struct httpd_config){0};
    if (c.max_connects < 0 || c.max_host_connections < 0 || c.max_total_connections < 0 ||
        c.default_timeout_ms < 0)
        return -EINVAL;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return -EIO;
    int rc = -ENOMEM;
    struct httpd *d = calloc(1, sizeof(*d));
    if (!d)
        goto fail;
    d->loop = loop;
    d->default_timeout_ms = c.default_timeout_ms ? c.default_timeout_ms : 10000;
    d->multi = curl_multi_init();
    d->share = curl_share_init();
    if (!d->multi || !d->share)
        goto fail;
    rc = -EIO;
    if (curl_share_setopt(d->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION) != CURLSHE_OK)
        goto fail;
    if (curl_multi_setopt(d->multi, CURLMOPT_SOCKETFUNCTION, sock_cb) != CURLM_OK ||
        curl_multi_setopt(d->multi, CURLMOPT_SOCKETDATA, d) != CURLM_OK ||
        curl_multi_setopt(d->multi, CURLMOPT_TIMERFUNCTION, timer_cb) != CURLM_OK ||
        curl_multi_setopt(d->multi, CURLMOPT_TIMERDATA, d) != CURLM_OK ||
        curl_multi_setopt(d->multi, CURLMOPT_MAXCONNECTS, c.max_connects ? c.max_connects : 64L) !=
            CURLM_OK ||
        curl_multi_setopt(d->multi, CURLMOPT_MAX_HOST_CONNECTIONS,
                          c.max_host_connections ? c.max_host_connections : 32L) != CURLM_OK ||
        curl_multi_setopt(d->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, c.max_total_connections) !=
            CURLM_OK)
        goto fail;
    const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);
    if (!(v->features & CURL_VERSION_ASYNCHDNS))
        log_warn("httpd: libcurl %s has no asynchronous resolver; DNS lookups will block the loop",
                 v->version);
    d->http_version =
        (v->features & CURL_VERSION_HTTP2) ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1;
    uv_timer_init(loop, &d->timer); /* last: nothing to undo after it */
    d->timer.data = d;
    d->open_handles = 1;
    d->state = HTTPD_RUNNING;
    *out = d;
    return 0;
fail:
    if (d) {
        if (d->multi)
            curl_multi_cleanup(d->multi);
        if (d->share)
            curl_share_cleanup(d->share);
        free(d);
    }
    curl_global_cleanup();
    return rc;
}

static bool header_named(const char *line, const char *name)
{
    size_t n = strlen(name);
    return strncasecmp(line, name, n) == 0 &&
           (line[n] == ':' || line[n] == ';' || line[n] == ' ' || line[n] == '\t');
}

static int check_request(const struct httpd_request *req, httpd_done_cb cb,
                         enum xfer_method *method)
{
    if (!req || !cb || !req->url || !req->method || req->nheaders < 0 || req->nexpected < 0 ||
        (req->nheaders && !req->headers) || (req->nexpected && !req->expected_status) ||
        (req->body_len && !req->body))
        return -EINVAL;
    size_t m = 0;
    while (m < TE_ARRAY_LEN(methods) && strcmp(req->method, methods[m]) != 0)
        m++;
    if (m == TE_ARRAY_LEN(methods))
        return -EINVAL;
    *method = (enum xfer_method)m;
    for (int i = 0; i < req->nheaders; i++) {
        const char *h = req->headers[i];
        if (!h || h[0] == ':' || !strpbrk(h, ":;") || strpbrk(h, "\r\n"))
            return -EINVAL;
    }
    return 0;
}

static int xfer_headers(struct httpd_xfer *x, const struct httpd_request *req, bool has_body)
{
    bool expect = false, ctype = false;
    for (int i = 0; i < req->nheaders; i++) {
        struct curl_slist *l = curl_slist_append(x->headers, req->headers[i]);
        if (!l)
            return -ENOMEM;
        x->headers = l;
        expect = expect || header_named(req->headers[i], "Expect");
        ctype = ctype || header_named(req->headers[i], "Content-Type");
    }
    /* "Name:" removes a header curl would add: no 100-continue wait, no made-up form type. */
    const char *extra[2] = {expect ? NULL : "Expect:", ctype || !has_body ? NULL : "Content-Type:"};
    for (size_t i = 0; i < TE_ARRAY_LEN(extra); i++) {
        if (!extra[i])
            continue;
        struct curl_slist *l = curl_slist_append(x->headers, extra[i]);
        if (!l)
            return -ENOMEM;
        x->headers = l;
    }
    return 0;
}

#define SETOPT(opt, val)                                                                           \
    do {                                                                                           \
        if (curl_easy_setopt(e, opt, val) != CURLE_OK)                                             \
            goto fail;                                                                             \
    } while (0)

static int xfer_setup(struct httpd_xfer *x, const struct httpd_request *req,
                      enum xfer_method method)
{
    struct httpd *d = x->d;
    CURL *e = x->easy;
    long timeout = req->timeout_ms > 0 ? req->timeout_ms : d->default_timeout_ms;
    bool has_body = req->body_len > 0 || method == M_POST || method == M_PUT || method == M_PATCH;
    if (xfer_headers(x, req, has_body) < 0)
        return -ENOMEM;
    SETOPT(CURLOPT_URL, req->url);
    SETOPT(CURLOPT_PRIVATE, (void *)x);
    SETOPT(CURLOPT_ERRORBUFFER, x->errbuf);
    SETOPT(CURLOPT_WRITEFUNCTION, on_body);
    SETOPT(CURLOPT_WRITEDATA, (void *)x);
    SETOPT(CURLOPT_NOSIGNAL, 1L);
    SETOPT(CURLOPT_PROTOCOLS_STR, "http,https");
    SETOPT(CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    SETOPT(CURLOPT_FOLLOWLOCATION, 0L);
    SETOPT(CURLOPT_SSL_VERIFYPEER, 1L);
    SETOPT(CURLOPT_SSL_VERIFYHOST, 2L);
    SETOPT(CURLOPT_HTTP_VERSION, d->http_version);
    SETOPT(CURLOPT_TIMEOUT_MS, timeout);
    SETOPT(CURLOPT_CONNECTTIMEOUT_MS,
           timeout < HTTPD_CONNECT_TIMEOUT_MAX_MS ? timeout : HTTPD_CONNECT_TIMEOUT_MAX_MS);
    SETOPT(CURLOPT_TCP_KEEPALIVE, 1L);
    SETOPT(CURLOPT_USERAGENT, HTTPD_USER_AGENT);
    SETOPT(CURLOPT_HTTPHEADER, x->headers);
    SETOPT(CURLOPT_SHARE, d->share);
    if (!has_body) {
        SETOPT(CURLOPT_HTTPGET, 1L);
    } else {
        SETOPT(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
        SETOPT(CURLOPT_POSTFIELDS, x->body);
    }
    /* POST and body-less GET are curl's own; the rest (and GET with a body) are named. */
    if (method != M_POST && (method != M_GET || has_body))
        SETOPT(CURLOPT_CUSTOMREQUEST, methods[method]);
    return 0;
fail:
    return -EIO;
}

static int xfer_copy(struct httpd_xfer *x, const struct httpd_request *req)
{
    x->url = strdup(req->url);
    x->body = malloc(req->body_len + 1);
    if (!x->url || !x->body)
        return -ENOMEM;
    if (req->body_len)
        memcpy(x->body, req->body, req->body_len);
    x->body[req->body_len] = '\0';
    if (req->nexpected == 0) {
        x->expected = default_expected;
        x->nexpected = (int)TE_ARRAY_LEN(default_expected);
        return 0;
    }
    x->owned_expected = malloc(sizeof(int) * (size_t)req->nexpected);
    if (!x->owned_expected)
        return -ENOMEM;
    memcpy(x->owned_expected, req->expected_status, sizeof(int) * (size_t)req->nexpected);
    x->expected = x->owned_expected;
    x->nexpected = req->nexpected;
    return 0;
}

int httpd_send(struct httpd *d, const struct httpd_request *req, httpd_done_cb cb, void *arg)
{
    enum xfer_method method;
    if (d->state != HTTPD_RUNNING)
        return -ESHUTDOWN;
    int rc = check_request(req, cb, &method);
    if (rc < 0)
        return rc;
    rc = -ENOMEM;
    struct httpd_xfer *x = calloc(1, sizeof(*x));
    if (!x)
        return rc;
    x->d = d;
    x->cb = cb;
    x->arg = arg;
    x->body_state = XBODY_KEEP;
    x->easy = curl_easy_init();
    if (!x->easy || (rc = xfer_copy(x, req)) < 0 || (rc = xfer_setup(x, req, method)) < 0)
        goto fail;
    x->start_ns = uv_hrtime();
    if (curl_multi_add_handle(d->multi, x->easy) != CURLM_OK) {
        rc = -EIO;
        goto fail;
    }
    xfer_attach(d, x);
    return 0;
fail:
    xfer_free(x);
    return rc;
}

unsigned httpd_inflight(const struct httpd *d)
{
    return d->inflight;
}

void httpd_close(struct httpd *d, void (*done)(void *arg), void *arg)
{
    if (d->state != HTTPD_RUNNING) {
        log_warn("httpd: close called twice");
        return;
    }
    d->done = done;
    d->done_arg = arg;
    httpd_set_state(d, HTTPD_CLOSING);
    uv_timer_start(&d->timer, on_timer, 0, 0);
}

const char *httpd_outcome_name(enum httpd_outcome o)
{
    switch (o) {
    case HTTPD_OK:
        return "OK";
    case HTTPD_HTTP_ERROR:
        return "HTTP_ERROR";
    case HTTPD_TIMEOUT:
        return "TIMEOUT";
    case HTTPD_CONNECTION_ERROR:
        return "CONNECTION_ERROR";
    }
    return "CONNECTION_ERROR";
}

/* ---- JSON ---- */

/*
 * Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlongs, no
 * surrogates, nothing past U+10FFFF); 0 if malformed; -1 if s ends inside a
 * sequence that is well-formed so far.
 */
static int utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xBF;
    int len;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4;
    else
        return 0;
    if (c == 0xE0)
        lo = 0xA0;
    else if (c == 0xED)
        hi = 0x9F;
    else if (c == 0xF0)
        lo = 0x90;
    else if (c == 0xF4)
        hi = 0x8F;
    for (int i = 1; i < len; i++) {
        if ((size_t)i >= n)
            return -1;
        if (s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xBF))
            return 0;
    }
    return len;
}

/*
 * s as a JSON string; malformed UTF-8 becomes \ufffd. With cut set (s was
 * truncated), a sequence left incomplete at the end is dropped instead.
 */
static int json_utf8(struct buf *b, const char *s, size_t n, bool cut)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)s;
    if (buf_putc(b, '"') < 0)
        return -1;
    size_t i = 0, run = 0; /* u[run..i) is pending plain text */
    while (i < n) {
        unsigned char c = u[i];
        int len = utf8_len(u + i, n - i);
        if (len > 1 || (len == 1 && c >= 0x20 && c != '"' && c != '\\')) {
            i += (size_t)len;
            continue;
        }
        if (buf_append(b, u + run, i - run) < 0)
            return -1;
        if (len < 0 && cut)
            return buf_putc(b, '"');
        int rc;
        if (len <= 0) {
            rc = buf_puts(b, "\\ufffd");
        } else if (c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t') {
            char esc[2] = {'\\', c == '\n' ? 'n' : c == '\r' ? 'r' : c == '\t' ? 't' : (char)c};
            rc = buf_append(b, esc, 2);
        } else {
            char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            rc = buf_append(b, esc, 6);
        }
        if (rc < 0)
            return -1;
        run = ++i;
    }
    if (buf_append(b, u + run, n - run) < 0)
        return -1;
    return buf_putc(b, '"');
}

static int json_body(struct buf *b, const struct httpd_result *r)
{
    if (buf_puts(b, ",\"body\":") < 0 ||
        json_utf8(b, r->body ? r->body : "", r->body ? r->body_len : 0, r->body_truncated) < 0)
        return -1;
    return r->body_truncated ? buf_puts(b, ",\"body_truncated\":true") : 0;
}

int httpd_result_json(const struct httpd_result *r, struct buf *out)
{
    if (r->outcome == HTTPD_OK) {
        if (buf_printf(out, "{\"status_code\":%ld", r->status_code) < 0 || json_body(out, r) < 0)
            return -1;
        return buf_putc(out, '}');
    }
    const char *msg = r->message ? r->message : "";
    if (buf_printf(out, "{\"type\":\"%s\"", httpd_outcome_name(r->outcome)) < 0)
        return -1;
    if (r->outcome == HTTPD_HTTP_ERROR &&
        buf_printf(out, ",\"status_code\":%ld", r->status_code) < 0)
        return -1;
    if (buf_puts(out, ",\"message\":") < 0 || json_utf8(out, msg, strlen(msg), false) < 0)
        return -1;
    if (r->outcome == HTTPD_HTTP_ERROR && json_body(out, r) < 0)
        return -1;
    return buf_putc(out, '}');
}
