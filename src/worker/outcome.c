/*
 * The batch writer: outcomes of many executions become one statement that
 * updates the executions (guarded: still RUNNING, still ours, same attempt),
 * inserts their attempt rows and their log rows. Outcomes wait at most a
 * couple of milliseconds for company; one write is in flight at a time.
 */
#include "worker/worker_int.h"

#include "core/log.h"
#include "core/timefmt.h"
#include "domain/template.h"

#include <stdlib.h>
#include <string.h>

#define OUTBOX_BATCH 64
#define OUTBOX_LINGER_MS 2
#define OUTBOX_RETRY_MS 1000
#define OUTBOX_MAX_TRIES 30

struct item {
    struct item *next;
    struct exec *e;
    void (*done)(struct exec *e);
    char *row; /* one JSON object of the recordset */
};

struct outbox {
    uv_loop_t *loop;
    struct db_pool *db;
    const struct config *cfg;
    uv_timer_t timer;
    struct item *head, *tail;
    unsigned queued;
    struct item *sending; /* the batch in flight */
    unsigned sending_n;
    int tries;
    bool writing; /* a statement is in flight */
    bool closing;
    void (*close_done)(void *);
    void *close_arg;
};

static struct db_stmt q_write = DB_STMT(
    "WITH o AS (SELECT * FROM jsonb_to_recordset($1::JSONB) AS o(execution_id TEXT,"
    "   attempt_id TEXT, attempt INT, status TEXT, final TEXT, output JSONB, error JSONB,"
    "   started_ms INT8, duration_ms INT8, delay_ms INT8, log_id TEXT, level TEXT, message TEXT)),"
    " u AS (UPDATE executions e SET status = o.final,"
    "   output = CASE WHEN o.final = 'SUCCESS' THEN o.output ELSE e.output END,"
    "   completed_at = CASE WHEN o.final = 'RETRYING' THEN NULL ELSE now() END,"
    "   duration_ms = CASE WHEN o.final = 'RETRYING' THEN NULL"
    "     ELSE floor(extract(epoch FROM now() - e.started_at) * 1000)::INT END,"
    "   run_at = CASE WHEN o.final = 'RETRYING'"
    "     THEN now() + o.delay_ms * INTERVAL '1 millisecond' ELSE e.run_at END,"
    "   worker_id = CASE WHEN o.final = 'RETRYING' THEN NULL ELSE e.worker_id END,"
    "   lease_expires_at = NULL"
    "   FROM o WHERE e.execution_id = o.execution_id AND e.status = 'RUNNING'"
    "   AND e.worker_id = $2 AND e.attempt_count = o.attempt RETURNING e.execution_id),"
    " a AS (INSERT INTO attempts (attempt_id, crdb_region, execution_id, attempt_number, status,"
    "   started_at, completed_at, duration_ms, output, error)"
    "   SELECT o.attempt_id, $3, o.execution_id, o.attempt, o.status,"
    "   to_timestamp(o.started_ms / 1000.0), now(), o.duration_ms, o.output, o.error"
    "   FROM o JOIN u ON u.execution_id = o.execution_id"
    "   ON CONFLICT (execution_id, attempt_number) DO NOTHING),"
    " l AS (INSERT INTO execution_logs (log_id, crdb_region, execution_id, attempt_number, level,"
    "   message) SELECT o.log_id, $3, o.execution_id, o.attempt, o.level, o.message"
    "   FROM o JOIN u ON u.execution_id = o.execution_id)"
    " SELECT count(*) FROM u");

static void outbox_send(struct outbox *o);
static void outbox_finish_close(struct outbox *o);

unsigned outbox_pending(const struct outbox *o)
{
    return o->queued + o->sending_n;
}

/* Appends "key":<text redacted of the delivery's secrets> — text is JSON or a plain string. */
static int put_redacted(struct buf *b, const struct exec *e, const char *key, const char *text,
                        bool as_string)
{
    struct buf clean = BUF_INIT;
    int rc = buf_printf(b, ",\"%s\":", key);
    if (!text)
        return rc | buf_puts(b, "null");
    rc |= template_redact(text, strlen(text), (const char *const *)e->secrets, e->nsecrets, &clean);
    if (rc == 0)
        rc = as_string
                 ? buf_json_str(b, clean.data ? clean.data : "", clean.len)
                 : buf_append(b, clean.data ? clean.data : "null", clean.data ? clean.len : 4);
    buf_free(&clean);
    return rc;
}

static char *build_row(const struct exec *e, const struct outcome *oc)
{
    static const char *const finals[] = {"SUCCESS", "RETRYING", "FAILED"};
    char att[ID_MAX], log_id[ID_MAX];
    int64_t now = time_now_ms();
    struct buf b = BUF_INIT;
    id_new("att", now, att);
    id_new("log", now, log_id);
    int rc =
        buf_printf(&b,
                   "{\"execution_id\":\"%s\",\"attempt_id\":\"%s\",\"attempt\":%d,"
                   "\"status\":\"%s\",\"final\":\"%s\",\"started_ms\":%lld,"
                   "\"duration_ms\":%lld,\"delay_ms\":%lld,\"log_id\":\"%s\",\"level\":\"%s\"",
                   e->id, att, e->attempt, oc->status == OUTCOME_SUCCESS ? "SUCCESS" : "FAILED",
                   finals[oc->status], (long long)e->started_ms, (long long)oc->duration_ms,
                   (long long)oc->retry_delay_ms, log_id, oc->log_level);
    rc |= put_redacted(&b, e, "output", oc->output_json, false);
    rc |= put_redacted(&b, e, "error", oc->error_json, false);
    rc |= put_redacted(&b, e, "message", oc->log_message, true);
    rc |= buf_putc(&b, '}');
    if (rc) {
        buf_free(&b);
        return NULL;
    }
    return buf_steal(&b);
}

static void on_linger(uv_timer_t *t)
{
    outbox_send(t->data);
}

void outbox_add(struct outbox *o, struct exec *e, const struct outcome *oc,
                void (*done)(struct exec *e))
{
    struct item *it = calloc(1, sizeof(*it));
    char *row = it ? build_row(e, oc) : NULL;
    if (!row) {
        /* Out of memory: the lease expiry will hand the execution back. */
        log_ctx(LOG_ERROR, "execution_id", e->id, "worker: out of memory recording the outcome");
        free(it);
        done(e);
        return;
    }
    it->e = e;
    it->done = done;
    it->row = row;
    if (o->tail)
        o->tail->next = it;
    else
        o->head = it;
    o->tail = it;
    o->queued++;
    if (o->sending)
        return; /* sent after the batch in flight */
    if (o->queued >= OUTBOX_BATCH)
        outbox_send(o);
    else if (!uv_is_active((uv_handle_t *)&o->timer))
        uv_timer_start(&o->timer, on_linger, OUTBOX_LINGER_MS, 0);
}

/* Runs the done callbacks of a list of items and frees them. */
static void release_items(struct item *it)
{
    while (it) {
        struct item *next = it->next;
        it->done(it->e);
        free(it->row);
        free(it);
        it = next;
    }
}

static void finish_batch(struct outbox *o)
{
    struct item *it = o->sending;
    o->sending = NULL;
    o->sending_n = 0;
    o->tries = 0;
    release_items(it);
}

static void on_written(void *arg, const char *err, PGresult *res)
{
    struct outbox *o = arg;
    o->writing = false;
    if (err && !o->closing && ++o->tries < OUTBOX_MAX_TRIES) {
        if (o->tries == 1)
            log_warn("worker: cannot record %u outcome(s) (%s%s%s); retrying", o->sending_n, err,
                     res ? ": " : "", res ? db_errmsg(res) : "");
        uv_timer_start(&o->timer, on_linger, OUTBOX_RETRY_MS, 0);
        return;
    }
    if (err)
        log_error("worker: dropped %u outcome(s) after %d tries; leases will expire", o->sending_n,
                  o->tries);
    else if (strtol(PQgetvalue(res, 0, 0), NULL, 10) < (long)o->sending_n)
        log_warn("worker: %ld of %u outcome(s) were no longer ours (lease expired)",
                 (long)o->sending_n - strtol(PQgetvalue(res, 0, 0), NULL, 10), o->sending_n);
    finish_batch(o);
    if (o->closing)
        outbox_finish_close(o);
    else if (o->head)
        outbox_send(o);
}

/* Sends the queued outcomes (or re-sends the batch whose write failed). */
static void outbox_send(struct outbox *o)
{
    if (!o->sending) {
        if (!o->head)
            return;
        o->sending = o->head;
        o->sending_n = o->queued;
        o->head = o->tail = NULL;
        o->queued = 0;
    }
    struct buf rows = BUF_INIT;
    int rc = buf_putc(&rows, '[');
    for (struct item *it = o->sending; it; it = it->next)
        rc |= (it != o->sending ? buf_putc(&rows, ',') : 0) | buf_puts(&rows, it->row);
    rc |= buf_putc(&rows, ']');
    const char *params[] = {rows.data, o->cfg->worker_id, o->cfg->region};
    if (rc == 0 && db_exec(o->db, &q_write, 3, params, on_written, o) == 0)
        o->writing = true;
    else
        on_written(o, DB_ERR_UNAVAILABLE, NULL);
    buf_free(&rows);
}

void outbox_flush(struct outbox *o)
{
    uv_timer_stop(&o->timer);
    if (!o->sending)
        outbox_send(o);
}

int outbox_new(uv_loop_t *loop, struct db_pool *db, const struct config *cfg, struct outbox **out)
{
    struct outbox *o = calloc(1, sizeof(*o));
    if (!o)
        return -1;
    o->loop = loop;
    o->db = db;
    o->cfg = cfg;
    uv_timer_init(loop, &o->timer);
    o->timer.data = o;
    *out = o;
    return 0;
}

static void on_timer_closed(uv_handle_t *h)
{
    struct outbox *o = h->data;
    void (*done)(void *) = o->close_done;
    void *arg = o->close_arg;
    free(o);
    if (done)
        done(arg);
}

/* Outcomes not written by now are dropped: their executions go back by lease expiry. */
static void outbox_finish_close(struct outbox *o)
{
    if (o->head) {
        log_warn("worker: %u outcome(s) not recorded at shutdown", o->queued);
        struct item *it = o->head;
        o->head = o->tail = NULL;
        o->queued = 0;
        release_items(it);
    }
    finish_batch(o);
    uv_close((uv_handle_t *)&o->timer, on_timer_closed);
}

/* Waits for a write in flight, then closes; `done` runs after the timer handle closed. */
void outbox_close(struct outbox *o, void (*done)(void *arg), void *arg)
{
    o->closing = true;
    o->close_done = done;
    o->close_arg = arg;
    uv_timer_stop(&o->timer);
    if (!o->writing)
        outbox_finish_close(o);
}
