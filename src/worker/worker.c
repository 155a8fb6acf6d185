/*
 * The poller: claims up to (free slots) due executions per round trip with
 * FOR UPDATE SKIP LOCKED and starts a pipeline for each. It claims again at
 * once while rounds come back full, on a NOTIFY from a process that created
 * work (coalesced: many notifications, one claim), when a slot frees up, and
 * every TE_WORKER_POLL_INTERVAL_MS as the fallback that also catches retries
 * coming due.
 */
#include "worker/worker_int.h"

#include "core/log.h"
#include "db/conn.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WAKE_JITTER_MS 5

/* $1 worker id, $2 how many, $3 lease grace in seconds. The lease covers the endpoint's timeout. */
static struct db_stmt q_claim =
    DB_STMT("WITH c AS (SELECT execution_id FROM executions"
            "   WHERE status IN ('QUEUED', 'RETRYING') AND run_at <= now()"
            "   ORDER BY run_at LIMIT $2::INT FOR UPDATE SKIP LOCKED)"
            " UPDATE executions e SET status = 'RUNNING', worker_id = $1, started_at = now(),"
            "   attempt_count = e.attempt_count + 1,"
            "   lease_expires_at = now() + (COALESCE((v.spec->>'timeout_ms')::INT8, 10000)"
            "     + $3::INT8 * 1000) * INTERVAL '1 millisecond'"
            " FROM c, jobs j, endpoint_versions v"
            " WHERE e.execution_id = c.execution_id AND j.job_id = e.job_id"
            "   AND v.endpoint = j.endpoint AND v.version = j.endpoint_version"
            " RETURNING e.execution_id, e.job_id, e.attempt_count, e.max_attempts, e.input,"
            "   v.endpoint_type, v.config_ref, v.spec, v.retry_policy,"
            "   floor(extract(epoch FROM e.started_at) * 1000)::INT8");

static void worker_claim(struct worker *w);
static void worker_close_step(struct worker *w);

unsigned worker_inflight(const struct worker *w)
{
    return w->inflight + outbox_pending(w->outbox);
}

static void on_wake_timer(uv_timer_t *t)
{
    worker_claim(t->data);
}

/* Claims soon; repeated wake-ups before then collapse into one claim. */
static void worker_wake(struct worker *w, unsigned delay_ms)
{
    if (w->draining || uv_is_active((uv_handle_t *)&w->wake_timer))
        return;
    uv_timer_start(&w->wake_timer, on_wake_timer, delay_ms, 0);
}

void worker_poke(struct worker *w)
{
    worker_wake(w, 0);
}

static void on_claimed(void *arg, const char *err, PGresult *res)
{
    struct worker *w = arg;
    w->claiming = false;
    if (err) {
        log_debug("worker: claim failed: %s%s", err, res ? db_errmsg(res) : "");
        return; /* the poll timer tries again */
    }
    int rows = PQntuples(res);
    for (int i = 0; i < rows; i++) {
        struct exec *e;
        if (exec_from_claim(w, res, i, &e) < 0) {
            log_ctx(LOG_ERROR, "execution_id", PQgetvalue(res, i, 0),
                    "worker: claimed execution is unreadable; leaving it to lease expiry");
            continue;
        }
        e->next = w->inflight_head;
        if (e->next)
            e->next->prev = e;
        w->inflight_head = e;
        w->inflight++;
        exec_run(e);
    }
    if (rows > 0)
        log_debug("worker: claimed %d execution(s), %u in flight", rows, w->inflight);
    /* A full round suggests more is due: go again right away. */
    if (rows > 0 && w->inflight < w->max_inflight)
        worker_wake(w, 0);
}

static void worker_claim(struct worker *w)
{
    if (w->claiming || w->draining || w->inflight >= w->max_inflight)
        return;
    char limit[16], grace[16];
    snprintf(limit, sizeof(limit), "%u", w->max_inflight - w->inflight);
    snprintf(grace, sizeof(grace), "%d", w->cfg->stuck_execution_timeout_sec);
    const char *params[] = {w->cfg->worker_id, limit, grace};
    if (db_exec(w->db, &q_claim, 3, params, on_claimed, w) == 0)
        w->claiming = true;
}

void worker_exec_done(struct exec *e)
{
    struct worker *w = e->w;
    if (e->prev)
        e->prev->next = e->next;
    else
        w->inflight_head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    w->inflight--;
    exec_free(e);
    if (w->closing_execs) {
        if (w->inflight == 0)
            worker_close_step(w);
        return;
    }
    worker_wake(w, 1);
}

static void on_poll_timer(uv_timer_t *t)
{
    worker_claim(t->data);
}

/* ---------------------------------------------------------------- LISTEN */

static void listen_ready(struct db_conn *c)
{
    struct worker *w = db_conn_owner(c);
    if (!PQsendQuery(db_conn_pg(c), "LISTEN taskexec_work")) {
        db_conn_fail(c, PQerrorMessage(db_conn_pg(c)));
        return;
    }
    db_conn_sent(c, 1);
    log_debug("worker: listening for work notifications");
    worker_wake(w, 0); /* notifications may have been missed while disconnected */
}

static void listen_result(struct db_conn *c, PGresult *res)
{
    (void)c;
    PQclear(res);
}

static void listen_down(struct db_conn *c, const char *why)
{
    (void)c;
    log_debug("worker: notification connection lost: %s", why);
}

static void listen_notify(struct db_conn *c, PGnotify *n)
{
    struct worker *w = db_conn_owner(c);
    PQfreemem(n);
    worker_wake(w, randombytes_uniform(WAKE_JITTER_MS + 1));
}

static const struct db_conn_ops listen_ops = {
    .on_ready = listen_ready,
    .on_result = listen_result,
    .on_down = listen_down,
    .on_notify = listen_notify,
};

/* ---------------------------------------------------------------- lifecycle */

int worker_start(uv_loop_t *loop, struct db_pool *db, const struct config *cfg,
                 const struct secret_key *key, struct worker **out)
{
    struct worker *w = calloc(1, sizeof(*w));
    if (!w)
        return -1;
    w->loop = loop;
    w->db = db;
    w->cfg = cfg;
    w->key = key;
    w->max_inflight = (unsigned)cfg->worker_max_concurrent;
    struct httpd_config hc = {0};
    struct kafkad_config kc = {
        .idle_ms = (long)cfg->kafka_producer_idle_sec * 1000,
        .linger_ms = cfg->kafka_linger_ms,
    };
    if (httpd_new(loop, &hc, &w->httpd) < 0 || kafkad_new(loop, &kc, &w->kafkad) < 0 ||
        redisd_new(loop, NULL, &w->redisd) < 0 ||
        wcache_new((unsigned)cfg->config_cache_ttl_sec * 1000,
                   (unsigned)cfg->secret_cache_ttl_sec * 1000, &w->cache) < 0 ||
        outbox_new(loop, db, cfg, &w->outbox) < 0)
        goto fail;
    uv_timer_init(loop, &w->poll_timer);
    uv_timer_init(loop, &w->wake_timer);
    w->poll_timer.data = w->wake_timer.data = w;
    if (cfg->db_notify) {
        struct db_conn_config cc = {
            .conninfo = cfg->database_url,
            .pipeline = false,
            .connect_timeout_ms = cfg->db_connect_timeout_ms,
            .application_name = "taskexec-listen",
        };
        if (db_conn_new(loop, &cc, &listen_ops, w, &w->listen) == 0)
            db_conn_start(w->listen);
        else
            log_warn("worker: cannot create the notification connection; polling only");
    }
    uv_timer_start(&w->poll_timer, on_poll_timer, 0, (uint64_t)cfg->worker_poll_interval_ms);
    log_info("worker: started (%u concurrent, poll every %d ms%s)", w->max_inflight,
             cfg->worker_poll_interval_ms, w->listen ? ", LISTEN/NOTIFY wake-ups" : "");
    *out = w;
    return 0;
fail:
    log_error("worker: cannot start");
    if (w->httpd)
        httpd_close(w->httpd, NULL, NULL);
    if (w->kafkad)
        kafkad_close(w->kafkad, 0, NULL, NULL);
    if (w->redisd)
        redisd_close(w->redisd, NULL, NULL);
    wcache_free(w->cache);
    free(w);
    return -1;
}

void worker_drain(struct worker *w)
{
    w->draining = true;
    uv_timer_stop(&w->poll_timer);
    uv_timer_stop(&w->wake_timer);
    outbox_flush(w->outbox);
}

static void on_part_closed(void *arg)
{
    worker_close_step(arg);
}

static void on_handle_closed(uv_handle_t *h)
{
    worker_close_step(h->data);
}

/*
 * Close order: stop claiming; abort transfers (their executions are left to
 * lease expiry, nothing is recorded for them); close the outbox after its
 * write in flight; wait for executions still loading; then free.
 */
static void worker_close_step(struct worker *w)
{
    if (--w->closes_pending > 0)
        return;
    switch (w->close_phase) {
    case WCLOSE_TRANSPORTS:
        w->close_phase = WCLOSE_OUTBOX;
        w->closes_pending = 1;
        outbox_close(w->outbox, on_part_closed, w);
        return;
    case WCLOSE_OUTBOX:
        w->close_phase = WCLOSE_EXECS;
        w->closing_execs = true;
        w->closes_pending = 1;
        if (w->inflight == 0)
            worker_close_step(w);
        return;
    case WCLOSE_EXECS: {
        void (*done)(void *) = w->close_done;
        void *arg = w->close_arg;
        wcache_free(w->cache);
        free(w);
        if (done)
            done(arg);
        return;
    }
    }
}

void worker_close(struct worker *w, void (*done)(void *arg), void *arg)
{
    worker_drain(w);
    w->closing = true;
    w->close_done = done;
    w->close_arg = arg;
    w->close_phase = WCLOSE_TRANSPORTS;
    w->closes_pending = 5 + (w->listen ? 1 : 0);
    if (w->inflight)
        log_warn("worker: %u execution(s) still in flight at shutdown; their leases will expire",
                 w->inflight);
    uv_close((uv_handle_t *)&w->poll_timer, on_handle_closed);
    uv_close((uv_handle_t *)&w->wake_timer, on_handle_closed);
    if (w->listen)
        db_conn_close(w->listen, on_part_closed, w);
    httpd_close(w->httpd, on_part_closed, w);
    /*
     * Produce requests in flight belong to executions in flight, which the
     * drain period (bounded by the shutdown timeout) already waited for: by
     * now they are done, or the deadline has passed and the rest is purged.
     */
    kafkad_close(w->kafkad, 0, on_part_closed, w);
    redisd_close(w->redisd, on_part_closed, w);
}
