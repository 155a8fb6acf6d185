/*
 * Kafka delivery: librdkafka producers driven from the libuv loop.
 *
 * Wake-up path: librdkafka writes one byte to p->fds[1] when the producer's
 * main queue (delivery reports, logs, errors) becomes non-empty; p->poll sees
 * fds[0] readable, the pipe is drained first (so a report queued meanwhile
 * writes again) and rd_kafka_poll(rk, 0) serves what is queued. Delivery
 * report callbacks therefore only ever run inside prod_on_readable() or
 * kafkad_teardown(), never inside kafkad_send().
 *
 * Lifetimes: a send is allocated in kafkad_send() and freed right after its
 * cb returns. A producer is freed in the close callback of its uv_poll, after
 * rd_kafka_destroy() (nothing can be in flight by then). d is freed when its
 * two timers and every producer poll have closed.
 */
#include "worker/dispatch/kafka.h"

#include "core/log.h"

#include <errno.h>
#include <fcntl.h>
#include <librdkafka/rdkafka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KAFKAD_IDLE_DEFAULT_MS 300000L
#define KAFKAD_TIMEOUT_DEFAULT_MS 30000L
#define KAFKAD_TIMEOUT_MIN_MS 10L /* librdkafka wants linger.ms < message.timeout.ms */
#define KAFKAD_SWEEP_MAX_MS 30000L
#define KAFKAD_SHUTDOWN_MSG "shutting down"

enum kafkad_state {
    KAFKAD_RUNNING,  /* accepting sends */
    KAFKAD_DRAINING, /* kafkad_close() called; d->timer fires at the deadline or when idle */
    KAFKAD_CLOSING,  /* producers gone; waiting for the uv handles' close callbacks */
};

enum prod_state {
    PROD_OPEN,    /* in d->prods, reused by matching sends */
    PROD_FAILED,  /* fatal librdkafka error: not reused, swept once nothing is in flight */
    PROD_CLOSING, /* uv_close(&p->poll) issued; freed in prod_on_closed */
};

struct kafkad_prod {
    struct kafkad *d;
    struct kafkad_prod *next;
    enum prod_state state;
    char *bootstrap;
    char *sec[5]; /* copies of struct kafkad_security, in its field order */
    char acks[4]; /* "0", "1" or "all" */
    long timeout_ms;
    rd_kafka_t *rk;
    rd_kafka_queue_t *mainq;
    int fds[2];
    uv_poll_t poll;
    unsigned pending;
    uint64_t last_used;   /* uv_now() of the last send or completion */
    bool outage;          /* every broker is down; warned once, cleared by the next delivery */
    char last_error[200]; /* librdkafka's last connection error, until a delivery succeeds */
};

struct kafkad_send {
    struct kafkad_prod *p;
    struct kafkad_send *prev, *next; /* d->sends */
    kafkad_done_cb cb;
    void *arg;
    uint64_t start_ns;
};

struct kafkad {
    uv_loop_t *loop;
    enum kafkad_state state;
    long idle_ms;
    long default_timeout_ms;
    long linger_ms;
    struct kafkad_prod *prods;
    struct kafkad_send *sends;
    unsigned inflight;
    uv_timer_t timer;       /* close deadline / teardown trigger */
    uv_timer_t sweep;       /* idle producer reaper (unref'd) */
    char error[256];        /* why the last failed kafkad_send() failed */
    unsigned open_handles;  /* d->timer and d->sweep, once closing */
    unsigned closing_prods; /* producers between prod_close() and prod_on_closed() */
    void (*done)(void *arg);
    void *done_arg;
};

static void kafkad_teardown(struct kafkad *d);
static void on_close_timer(uv_timer_t *t);
static void kafkad_maybe_free(struct kafkad *d);

static void kafkad_set_state(struct kafkad *d, enum kafkad_state s)
{
    switch (s) {
    case KAFKAD_RUNNING:
    case KAFKAD_DRAINING:
    case KAFKAD_CLOSING:
        d->state = s;
        return;
    }
    log_error("kafkad: bad state %d", (int)s);
}

const char *kafkad_outcome_name(enum kafkad_outcome o)
{
    switch (o) {
    case KAFKAD_OK:
        return "OK";
    case KAFKAD_BROKER_ERROR:
        return "BROKER_ERROR";
    case KAFKAD_TIMEOUT:
        return "TIMEOUT";
    }
    return "BROKER_ERROR";
}

/* ---- sends ---------------------------------------------------------------- */

static void send_unlink(struct kafkad *d, struct kafkad_send *s)
{
    if (s->prev)
        s->prev->next = s->next;
    else
        d->sends = s->next;
    if (s->next)
        s->next->prev = s->prev;
    s->prev = s->next = NULL;
}

/* Runs cb exactly once and frees s. d stays valid: teardown is deferred to a timer. */
static void send_complete(struct kafkad_send *s, struct kafkad_result *r)
{
    struct kafkad_prod *p = s->p;
    struct kafkad *d = p->d;
    send_unlink(d, s);
    p->pending--;
    d->inflight--;
    p->last_used = uv_now(d->loop);
    r->duration_ms = (int64_t)((uv_hrtime() - s->start_ns) / 1000000u);
    s->cb(s->arg, r);
    free(s);
    if (d->state == KAFKAD_DRAINING && d->inflight == 0)
        uv_timer_start(&d->timer, on_close_timer, 0, 0);
}

static void send_fail(struct kafkad_send *s, enum kafkad_outcome o, const char *msg)
{
    struct kafkad_result r = {.outcome = o, .partition = -1, .offset = -1, .message = msg};
    send_complete(s, &r);
}

static enum kafkad_outcome err_outcome(rd_kafka_resp_err_t err)
{
    switch (err) {
    case RD_KAFKA_RESP_ERR__MSG_TIMED_OUT:
    case RD_KAFKA_RESP_ERR__TIMED_OUT:
    case RD_KAFKA_RESP_ERR__TIMED_OUT_QUEUE:
    case RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT:
        return KAFKAD_TIMEOUT;
    default:
        return KAFKAD_BROKER_ERROR;
    }
}

/*
 * A failed delivery's reason: librdkafka's, and for a timeout (whose own text
 * says nothing of why) the last connection error since the last success.
 */
static void delivery_failed(struct kafkad_send *s, rd_kafka_resp_err_t err)
{
    struct kafkad_prod *p = s->p;
    enum kafkad_outcome o = err_outcome(err);
    char msg[sizeof p->last_error + 96];
    if (o == KAFKAD_TIMEOUT && p->last_error[0])
        snprintf(msg, sizeof msg, "%s (last broker error: %s)", rd_kafka_err2str(err),
                 p->last_error);
    else
        snprintf(msg, sizeof msg, "%s", rd_kafka_err2str(err));
    send_fail(s, o, msg);
}

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
    struct kafkad_prod *p = opaque;
    struct kafkad_send *s = m->_private;
    (void)rk;
    if (!s)
        return;
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        struct kafkad_result r = {
            .outcome = KAFKAD_OK, .partition = m->partition, .offset = m->offset};
        if (p->outage)
            log_info("kafkad: brokers reachable again");
        p->outage = false;
        p->last_error[0] = '\0';
        send_complete(s, &r);
    } else if (m->err == RD_KAFKA_RESP_ERR__PURGE_QUEUE ||
               m->err == RD_KAFKA_RESP_ERR__PURGE_INFLIGHT) {
        send_fail(s, KAFKAD_BROKER_ERROR, KAFKAD_SHUTDOWN_MSG);
    } else {
        delivery_failed(s, m->err);
    }
}

/* ---- producers ------------------------------------------------------------- */

/*
 * Errors and logs are served by rd_kafka_poll() on the loop thread (log.queue).
 * Connection trouble is expected during a broker outage and librdkafka reports
 * it on every reconnect: it goes to debug, is remembered to explain failed
 * deliveries, and one warning marks the start of an outage (all brokers down)
 * with one info line at its end (the next successful delivery).
 */
static void on_rk_error(rd_kafka_t *rk, int err, const char *reason, void *opaque)
{
    struct kafkad_prod *p = opaque;
    (void)rk;
    switch (err) {
    case RD_KAFKA_RESP_ERR__FATAL:
        log_error("kafkad: producer failed: %s", reason);
        if (p->state == PROD_OPEN)
            p->state = PROD_FAILED;
        return;
    case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
        if (!p->outage)
            log_warn("kafkad: %s; deliveries fail until a broker is back (%s)", reason,
                     p->last_error[0] ? p->last_error : "no connection error reported");
        p->outage = true;
        return;
    default:
        log_debug("kafkad: %s: %s", rd_kafka_err2name((rd_kafka_resp_err_t)err), reason);
        snprintf(p->last_error, sizeof p->last_error, "%s", reason);
        return;
    }
}

static void on_rk_log(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
    bool conn_failure = strcmp(fac, "FAIL") == 0; /* reported as an error too: on_rk_error */
    (void)rk;
    if (level <= 3 && !conn_failure)
        log_warn("kafkad: %s: %s", fac, buf);
    else if (level <= 4 && !conn_failure)
        log_info("kafkad: %s: %s", fac, buf);
    else
        log_debug("kafkad: %s: %s", fac, buf);
}

static void prod_on_readable(uv_poll_t *h, int status, int events)
{
    struct kafkad_prod *p = h->data;
    char drain[64];
    (void)events;
    if (status < 0)
        log_warn("kafkad: poll: %s", uv_strerror(status));
    while (read(p->fds[0], drain, sizeof drain) > 0)
        ;
    rd_kafka_poll(p->rk, 0);
}

#define SEC_N 5

static void sec_view(const struct kafkad_security *sec, const char *out[SEC_N])
{
    out[0] = sec->protocol;
    out[1] = sec->sasl_mechanism;
    out[2] = sec->sasl_username;
    out[3] = sec->sasl_password;
    out[4] = sec->ssl_ca_location;
}

static void prod_free(struct kafkad_prod *p)
{
    for (int i = 0; i < SEC_N; i++) {
        if (p->sec[i])
            explicit_bzero(p->sec[i], strlen(p->sec[i]));
        free(p->sec[i]);
    }
    free(p->bootstrap);
    free(p);
}

static void prod_on_closed(uv_handle_t *h)
{
    struct kafkad_prod *p = h->data;
    struct kafkad *d = p->d;
    rd_kafka_queue_io_event_enable(p->mainq, -1, NULL, 0);
    rd_kafka_queue_destroy(p->mainq);
    rd_kafka_destroy(p->rk); /* queues are empty: only joins librdkafka's threads */
    close(p->fds[0]);
    close(p->fds[1]);
    prod_free(p);
    d->closing_prods--;
    kafkad_maybe_free(d);
}

static void prod_close(struct kafkad_prod *p)
{
    struct kafkad_prod **pp = &p->d->prods;
    while (*pp != p)
        pp = &(*pp)->next;
    *pp = p->next;
    p->state = PROD_CLOSING;
    p->d->closing_prods++;
    uv_close((uv_handle_t *)&p->poll, prod_on_closed);
}

/* Sets one property; a refusal is kept in d->error (librdkafka never quotes the value). */
static int conf_put(struct kafkad *d, rd_kafka_conf_t *conf, const char *name, const char *value)
{
    char errstr[200];
    if (!value)
        return 0;
    if (rd_kafka_conf_set(conf, name, value, errstr, sizeof errstr) != RD_KAFKA_CONF_OK) {
        snprintf(d->error, sizeof d->error, "%s", errstr);
        return -EINVAL;
    }
    return 0;
}

/* Builds the producer configuration; conf is the caller's to destroy on error. */
static int prod_conf(struct kafkad_prod *p, rd_kafka_conf_t *conf)
{
    static const char *const sec_props[SEC_N] = {"security.protocol", "sasl.mechanisms",
                                                 "sasl.username", "sasl.password",
                                                 "ssl.ca.location"};
    struct kafkad *d = p->d;
    char tmo[32], linger[32];
    snprintf(tmo, sizeof tmo, "%ld", p->timeout_ms);
    snprintf(linger, sizeof linger, "%ld", d->linger_ms);
    if (conf_put(d, conf, "bootstrap.servers", p->bootstrap) < 0 ||
        conf_put(d, conf, "client.id", "taskexec") < 0 || conf_put(d, conf, "acks", p->acks) < 0 ||
        conf_put(d, conf, "log.queue", "true") < 0 || conf_put(d, conf, "linger.ms", linger) < 0 ||
        conf_put(d, conf, "message.timeout.ms", tmo) < 0 ||
        conf_put(d, conf, "request.timeout.ms", tmo) < 0)
        return -EINVAL;
    for (int i = 0; i < SEC_N; i++)
        if (conf_put(d, conf, sec_props[i], p->sec[i]) < 0)
            return -EINVAL;
    if (strcmp(p->acks, "all") == 0 && conf_put(d, conf, "enable.idempotence", "true") < 0)
        return -EINVAL;
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
    rd_kafka_conf_set_error_cb(conf, on_rk_error);
    rd_kafka_conf_set_log_cb(conf, on_rk_log);
    rd_kafka_conf_set_opaque(conf, p);
    return 0;
}

static int prod_start(struct kafkad_prod *p)
{
    char errstr[256];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    int rc = conf ? prod_conf(p, conf) : -ENOMEM;
    if (rc < 0)
        goto fail;
    p->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
    if (!p->rk) {
        snprintf(p->d->error, sizeof p->d->error, "cannot create the producer: %.200s", errstr);
        rc = -EIO;
        goto fail;
    }
    conf = NULL; /* owned by rk now */
    rd_kafka_set_log_queue(p->rk, NULL);
    p->mainq = rd_kafka_queue_get_main(p->rk);
    rd_kafka_queue_io_event_enable(p->mainq, p->fds[1], "1", 1);
    /*
     * librdkafka only writes when the queue goes from empty to non-empty; logs
     * queued during rd_kafka_new() would leave it non-empty and silent forever.
     * One byte of our own makes the first poll callback serve them.
     */
    if (write(p->fds[1], "1", 1) < 0)
        log_debug("kafkad: wake-up pipe: %s", strerror(errno));
    return 0;
fail:
    if (conf)
        rd_kafka_conf_destroy(conf);
    return rc;
}

static int prod_new(struct kafkad *d, const char *bootstrap, const char *acks,
                    const char *const sec[SEC_N], long timeout_ms, struct kafkad_prod **out)
{
    int rc = -ENOMEM;
    struct kafkad_prod *p = calloc(1, sizeof *p);
    if (!p)
        return -ENOMEM;
    p->fds[0] = p->fds[1] = -1;
    p->d = d;
    p->timeout_ms = timeout_ms;
    snprintf(p->acks, sizeof p->acks, "%s", acks);
    p->bootstrap = strdup(bootstrap);
    if (!p->bootstrap)
        goto fail;
    for (int i = 0; i < SEC_N; i++)
        if (sec[i] && !(p->sec[i] = strdup(sec[i])))
            goto fail;
    if (pipe2(p->fds, O_NONBLOCK | O_CLOEXEC) < 0) {
        rc = -errno;
        goto fail;
    }
    rc = prod_start(p);
    if (rc < 0)
        goto fail;
    p->poll.data = p;
    if (uv_poll_init(d->loop, &p->poll, p->fds[0]) < 0) {
        rc = -EIO; /* the handle was not registered */
        goto fail;
    }
    if (uv_poll_start(&p->poll, UV_READABLE, prod_on_readable) < 0) {
        /* cannot happen for a fresh pipe fd; the handle is registered, so close it */
        rc = -EIO;
        p->next = d->prods;
        d->prods = p;
        prod_close(p);
        return rc;
    }
    p->last_used = uv_now(d->loop);
    p->next = d->prods;
    d->prods = p;
    *out = p;
    return 0;
fail:
    if (p->rk) {
        rd_kafka_queue_destroy(p->mainq);
        rd_kafka_destroy(p->rk);
    }
    if (p->fds[0] >= 0) {
        close(p->fds[0]);
        close(p->fds[1]);
    }
    prod_free(p);
    if (rc == -ENOMEM)
        snprintf(d->error, sizeof d->error, "out of memory");
    else if (rc != -EINVAL && rc != -EIO)
        snprintf(d->error, sizeof d->error, "cannot create the producer: %s", strerror(-rc));
    return rc;
}

static bool str_same(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static bool prod_matches(const struct kafkad_prod *p, const char *bootstrap, const char *acks,
                         const char *const sec[SEC_N], long timeout_ms)
{
    if (p->state != PROD_OPEN || p->timeout_ms != timeout_ms || strcmp(p->acks, acks) != 0 ||
        strcmp(p->bootstrap, bootstrap) != 0)
        return false;
    for (int i = 0; i < SEC_N; i++)
        if (!str_same(p->sec[i], sec[i]))
            return false;
    return true;
}

static int prod_get(struct kafkad *d, const struct kafkad_request *req, const char *acks,
                    long timeout_ms, struct kafkad_prod **out)
{
    const char *sec[SEC_N];
    sec_view(&req->security, sec);
    for (struct kafkad_prod *p = d->prods; p; p = p->next) {
        if (prod_matches(p, req->bootstrap_servers, acks, sec, timeout_ms)) {
            *out = p;
            return 0;
        }
    }
    return prod_new(d, req->bootstrap_servers, acks, sec, timeout_ms, out);
}

static void on_sweep(uv_timer_t *t)
{
    struct kafkad *d = t->data;
    uint64_t now = uv_now(d->loop);
    struct kafkad_prod *p = d->prods, *next;
    for (; p; p = next) {
        next = p->next;
        if (p->pending == 0 &&
            (p->state == PROD_FAILED || now - p->last_used >= (uint64_t)d->idle_ms)) {
            log_debug("kafkad: closing idle producer");
            prod_close(p);
        }
    }
}

/* ---- public API ------------------------------------------------------------ */

int kafkad_new(uv_loop_t *loop, const struct kafkad_config *cfg, struct kafkad **out)
{
    struct kafkad_config c = cfg ? *cfg : (struct kafkad_config){0};
    if (c.idle_ms < 0 || c.default_timeout_ms < 0 || c.linger_ms < 0)
        return -EINVAL;
    struct kafkad *d = calloc(1, sizeof *d);
    if (!d)
        return -ENOMEM;
    d->loop = loop;
    d->idle_ms = c.idle_ms ? c.idle_ms : KAFKAD_IDLE_DEFAULT_MS;
    d->default_timeout_ms = c.default_timeout_ms ? c.default_timeout_ms : KAFKAD_TIMEOUT_DEFAULT_MS;
    d->linger_ms = c.linger_ms;
    uv_timer_init(loop, &d->timer);
    uv_timer_init(loop, &d->sweep);
    d->timer.data = d->sweep.data = d;
    uint64_t every =
        (uint64_t)(d->idle_ms < KAFKAD_SWEEP_MAX_MS ? d->idle_ms : KAFKAD_SWEEP_MAX_MS);
    uv_timer_start(&d->sweep, on_sweep, every, every);
    uv_unref((uv_handle_t *)&d->sweep);
    kafkad_set_state(d, KAFKAD_RUNNING);
    *out = d;
    return 0;
}

static const char *acks_norm(const char *acks)
{
    if (!acks || strcmp(acks, "all") == 0 || strcmp(acks, "-1") == 0)
        return "all";
    if (strcmp(acks, "0") == 0)
        return "0";
    if (strcmp(acks, "1") == 0)
        return "1";
    return NULL;
}

static int req_check(struct kafkad *d, const struct kafkad_request *req, kafkad_done_cb cb)
{
    if (!req || !cb || !req->bootstrap_servers || !*req->bootstrap_servers || !req->topic ||
        !*req->topic || !acks_norm(req->acks) || req->nheaders < 0 ||
        (req->nheaders > 0 && !req->headers) || (!req->value && req->value_len))
        goto fail;
    for (int i = 0; i < req->nheaders; i++)
        if (!req->headers[i].name)
            goto fail;
    return 0;
fail:
    snprintf(d->error, sizeof d->error, "invalid request");
    return -EINVAL;
}

static int produce_err(struct kafkad *d, rd_kafka_resp_err_t err)
{
    snprintf(d->error, sizeof d->error, "%s", rd_kafka_err2str(err));
    switch (err) {
    case RD_KAFKA_RESP_ERR__QUEUE_FULL:
        return -ENOBUFS;
    case RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE:
        return -EMSGSIZE;
    case RD_KAFKA_RESP_ERR__INVALID_ARG:
        return -EINVAL;
    default:
        return -EIO;
    }
}

static int produce(struct kafkad_prod *p, const struct kafkad_request *req, struct kafkad_send *s)
{
    rd_kafka_headers_t *hdrs = rd_kafka_headers_new((size_t)req->nheaders);
    if (!hdrs) {
        snprintf(p->d->error, sizeof p->d->error, "out of memory");
        return -ENOMEM;
    }
    for (int i = 0; i < req->nheaders; i++) {
        const struct kafkad_header *h = &req->headers[i];
        rd_kafka_header_add(hdrs, h->name, -1, h->value, (ssize_t)h->value_len);
    }
    rd_kafka_resp_err_t err = rd_kafka_producev(
        p->rk, RD_KAFKA_V_TOPIC(req->topic), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
        RD_KAFKA_V_KEY((void *)(uintptr_t)req->key, req->key ? req->key_len : 0),
        RD_KAFKA_V_VALUE((void *)(uintptr_t)req->value, req->value_len), RD_KAFKA_V_HEADERS(hdrs),
        RD_KAFKA_V_OPAQUE(s), RD_KAFKA_V_END);
    if (err) {
        rd_kafka_headers_destroy(hdrs); /* only taken over on success */
        return produce_err(p->d, err);
    }
    return 0;
}

int kafkad_send(struct kafkad *d, const struct kafkad_request *req, kafkad_done_cb cb, void *arg)
{
    if (d->state != KAFKAD_RUNNING) {
        snprintf(d->error, sizeof d->error, "%s", KAFKAD_SHUTDOWN_MSG);
        return -ESHUTDOWN;
    }
    int rc = req_check(d, req, cb);
    if (rc < 0)
        return rc;
    long tmo = req->timeout_ms > 0 ? req->timeout_ms : d->default_timeout_ms;
    if (tmo < KAFKAD_TIMEOUT_MIN_MS)
        tmo = KAFKAD_TIMEOUT_MIN_MS;
    if (tmo <= d->linger_ms)
        tmo = d->linger_ms + 1;
    struct kafkad_prod *p = NULL;
    rc = prod_get(d, req, acks_norm(req->acks), tmo, &p);
    if (rc < 0)
        return rc;
    struct kafkad_send *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(d->error, sizeof d->error, "out of memory");
        return -ENOMEM;
    }
    *s = (struct kafkad_send){.p = p, .cb = cb, .arg = arg, .start_ns = uv_hrtime()};
    rc = produce(p, req, s);
    if (rc < 0) {
        free(s);
        return rc;
    }
    s->next = d->sends;
    if (d->sends)
        d->sends->prev = s;
    d->sends = s;
    p->pending++;
    d->inflight++;
    p->last_used = uv_now(d->loop);
    return 0;
}

const char *kafkad_error(const struct kafkad *d)
{
    return d->error;
}

unsigned kafkad_inflight(const struct kafkad *d)
{
    return d->inflight;
}

static void kafkad_maybe_free(struct kafkad *d)
{
    if (d->state != KAFKAD_CLOSING || d->open_handles > 0 || d->closing_prods > 0)
        return;
    void (*done)(void *) = d->done;
    void *arg = d->done_arg;
    free(d);
    if (done)
        done(arg);
}

static void on_handle_closed(uv_handle_t *h)
{
    struct kafkad *d = h->data;
    d->open_handles--;
    kafkad_maybe_free(d);
}

/*
 * Runs from d->timer (deadline or "all done"), never inside rd_kafka_poll().
 * Purged records report ERR__PURGE_* through rd_kafka_poll() here; anything
 * still unreported afterwards is failed by hand (destroy never calls dr_msg_cb).
 */
static void kafkad_teardown(struct kafkad *d)
{
    kafkad_set_state(d, KAFKAD_CLOSING);
    for (struct kafkad_prod *p = d->prods; p; p = p->next) {
        if (p->pending == 0)
            continue;
        rd_kafka_purge(p->rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
        rd_kafka_poll(p->rk, 0);
    }
    while (d->sends)
        send_fail(d->sends, KAFKAD_BROKER_ERROR, KAFKAD_SHUTDOWN_MSG);
    d->open_handles = 2;
    while (d->prods)
        prod_close(d->prods);
    uv_close((uv_handle_t *)&d->timer, on_handle_closed);
    uv_close((uv_handle_t *)&d->sweep, on_handle_closed);
}

static void on_close_timer(uv_timer_t *t)
{
    kafkad_teardown(t->data);
}

void kafkad_close(struct kafkad *d, long timeout_ms, void (*done)(void *arg), void *arg)
{
    if (d->state != KAFKAD_RUNNING) {
        log_warn("kafkad: close called twice");
        return;
    }
    kafkad_set_state(d, KAFKAD_DRAINING);
    d->done = done;
    d->done_arg = arg;
    uint64_t wait = (d->inflight == 0 || timeout_ms <= 0) ? 0 : (uint64_t)timeout_ms;
    uv_timer_start(&d->timer, on_close_timer, wait, 0);
}

int kafkad_result_json(const struct kafkad_result *r, struct buf *out)
{
    if (r->outcome == KAFKAD_OK)
        return buf_printf(out, "{\"partition\":%d,\"offset\":%lld}", (int)r->partition,
                          (long long)r->offset);
    const char *msg = r->message ? r->message : "";
    if (buf_printf(out, "{\"type\":\"%s\",\"message\":", kafkad_outcome_name(r->outcome)) < 0 ||
        buf_json_str(out, msg, strlen(msg)) < 0 || buf_putc(out, '}') < 0)
        return -1;
    return 0;
}
