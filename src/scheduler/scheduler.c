/*
 * Scheduler lifecycle, the loop driver shared by the three loops, and the heartbeat stub.
 *
 * Each loop is a one-shot uv_timer that, when it fires, starts one round (a chain of
 * queries); the round re-arms the timer when its last query has answered. A loop can
 * therefore never overlap itself, and stopping only has to wait for the rounds in
 * flight.
 */
#include "scheduler/sched_int.h"

#include "core/config.h"
#include "core/log.h"
#include "core/timefmt.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct db_stmt q_heartbeat =
    DB_STMT("INSERT INTO region_heartbeats (region, component, last_beat_at, status)"
            " VALUES ($1, $2, now(), $3)"
            " ON CONFLICT (region, component) DO UPDATE"
            " SET last_beat_at = now(), status = excluded.status");

static void sched_maybe_stopped(struct scheduler *s);

static void sched_set_state(struct scheduler *s, enum sched_state st)
{
    s->state = st;
}

static void loop_set_state(struct sched_loop *l, enum sched_loop_state st)
{
    l->state = st;
}

bool sched_running(const struct scheduler *s)
{
    return s->state == SCHED_RUNNING;
}

/* ---------------------------------------------------------------- loop driver */

static void on_loop_timer(uv_timer_t *t)
{
    struct sched_loop *l = t->data;
    if (l->state != SLS_WAITING || !sched_running(l->s))
        return;
    loop_set_state(l, SLS_RUNNING);
    if (l->round(l) < 0) {
        sched_loop_failed(l, DB_ERR_UNAVAILABLE, NULL);
        sched_loop_done(l, l->period_ms);
    }
}

void sched_loop_done(struct sched_loop *l, uint64_t delay_ms)
{
    switch (l->state) {
    case SLS_RUNNING:
        break;
    case SLS_RERUN:
        delay_ms = 0;
        break;
    case SLS_WAITING:
    case SLS_STOPPED:
        log_error("scheduler: %s: round ended twice (bug)", l->name);
        return;
    }
    if (!sched_running(l->s)) {
        loop_set_state(l, SLS_STOPPED);
        sched_maybe_stopped(l->s);
        return;
    }
    loop_set_state(l, SLS_WAITING);
    uv_timer_start(&l->timer, on_loop_timer, delay_ms, 0);
}

static void loop_poke(struct sched_loop *l)
{
    switch (l->state) {
    case SLS_WAITING:
        uv_timer_start(&l->timer, on_loop_timer, 0, 0);
        break;
    case SLS_RUNNING:
        loop_set_state(l, SLS_RERUN);
        break;
    case SLS_RERUN:
    case SLS_STOPPED:
        break;
    }
}

void sched_loop_ok(struct sched_loop *l)
{
    if (l->failures > 0)
        log_info("scheduler: %s: working again after %u failed round%s", l->name, l->failures,
                 l->failures == 1 ? "" : "s");
    l->failures = 0;
}

void sched_loop_failed(struct sched_loop *l, const char *err, const PGresult *res)
{
    const char *msg = err == DB_ERR_QUERY ? db_errmsg(res) : "";
    const char *state = err == DB_ERR_QUERY ? db_sqlstate(res) : "";
    if (l->failures++ == 0)
        log_warn("scheduler: %s: %s%s%s%s%s%s (will keep retrying)", l->name, err, *msg ? ": " : "",
                 msg, *state ? " (SQLSTATE " : "", state, *state ? ")" : "");
    else
        log_debug("scheduler: %s: %s%s%s (failure %u)", l->name, err, *msg ? ": " : "", msg,
                  l->failures);
}

/* ---------------------------------------------------------------- heartbeat stub */

/* Brief, "What to Stub": written every 5 s, read by nobody yet. */
static void on_heartbeat(void *arg, const char *err, PGresult *res)
{
    struct sched_loop *l = arg;
    if (err)
        sched_loop_failed(l, err, res);
    else
        sched_loop_ok(l);
    sched_loop_done(l, l->period_ms);
}

static int heartbeat_round(struct sched_loop *l)
{
    struct scheduler *s = l->s;
    const char *params[] = {s->cfg->region, s->component, "ALIVE"};
    return db_exec(s->db, &q_heartbeat, 3, params, on_heartbeat, l);
}

/* ---------------------------------------------------------------- lifecycle */

static void loop_init(struct scheduler *s, enum sched_loop_id id, const char *name,
                      int (*round)(struct sched_loop *), uint64_t period_ms)
{
    struct sched_loop *l = &s->loops[id];
    l->s = s;
    l->name = name;
    l->round = round;
    l->period_ms = period_ms;
    loop_set_state(l, SLS_WAITING);
    uv_timer_init(s->loop, &l->timer);
    l->timer.data = l;
}

int scheduler_start(uv_loop_t *loop, struct db_pool *db, struct tz_cache *tz,
                    const struct config *cfg, struct scheduler **out)
{
    struct scheduler *s = calloc(1, sizeof(*s));
    if (!s)
        return -1;
    size_t n = strlen("scheduler:") + strlen(cfg->worker_id) + 1;
    s->component = malloc(n);
    if (!s->component)
        goto fail;
    snprintf(s->component, n, "scheduler:%s", cfg->worker_id);
    s->loop = loop;
    s->db = db;
    s->tz = tz;
    s->cfg = cfg;
    s->promote_hint_ms = INT64_MAX;
    sched_set_state(s, SCHED_RUNNING);
    loop_init(s, SL_CRON, "cron materializer", sched_cron_round,
              (uint64_t)cfg->cron_tick_interval_sec * 1000);
    loop_init(s, SL_PROMOTE, "delayed promoter", sched_promote_round,
              (uint64_t)cfg->promote_interval_ms);
    loop_init(s, SL_RECLAIM, "lease reclaimer", sched_reclaim_round,
              (uint64_t)cfg->reclaim_interval_sec * 1000);
    loop_init(s, SL_BEAT, "heartbeat", heartbeat_round, SCHED_HEARTBEAT_MS);
    for (int i = 0; i < SL_COUNT; i++)
        uv_timer_start(&s->loops[i].timer, on_loop_timer, 0, 0);
    log_info("scheduler: started (cron every %d s, batch %d; promoter fallback %d ms; "
             "reclaimer every %d s)",
             cfg->cron_tick_interval_sec, cfg->cron_batch_size, cfg->promote_interval_ms,
             cfg->reclaim_interval_sec);
    *out = s;
    return 0;
fail:
    free(s->component);
    free(s);
    return -1;
}

static void sched_free(struct scheduler *s)
{
    for (int i = 0; i < s->n_bad_jobs; i++)
        free(s->bad_jobs[i]);
    free(s->bad_jobs);
    free(s->component);
    free(s);
}

static void on_timer_closed(uv_handle_t *h)
{
    struct sched_loop *l = h->data;
    struct scheduler *s = l->s;
    if (--s->closes_pending > 0)
        return;
    void (*done)(void *) = s->stop_done;
    void *arg = s->stop_arg;
    sched_free(s);
    log_info("scheduler: stopped");
    if (done)
        done(arg);
}

static void sched_close(struct scheduler *s)
{
    sched_set_state(s, SCHED_CLOSING);
    s->closes_pending = SL_COUNT;
    for (int i = 0; i < SL_COUNT; i++)
        uv_close((uv_handle_t *)&s->loops[i].timer, on_timer_closed);
}

static void on_farewell(void *arg, const char *err, PGresult *res)
{
    struct scheduler *s = arg;
    if (err)
        log_debug("scheduler: final heartbeat not written: %s %s", err,
                  err == DB_ERR_QUERY ? db_errmsg(res) : "");
    sched_close(s);
}

/* Once no round is in flight: the 'DEAD' heartbeat, then the handles. */
static void sched_maybe_stopped(struct scheduler *s)
{
    if (s->state != SCHED_STOPPING)
        return;
    for (int i = 0; i < SL_COUNT; i++) {
        if (s->loops[i].state != SLS_STOPPED)
            return;
    }
    sched_set_state(s, SCHED_FAREWELL);
    const char *params[] = {s->cfg->region, s->component, "DEAD"};
    if (db_exec(s->db, &q_heartbeat, 3, params, on_farewell, s) < 0)
        sched_close(s);
}

void scheduler_stop(struct scheduler *s, void (*done)(void *arg), void *arg)
{
    if (s->state != SCHED_RUNNING)
        return; /* already stopping: the first call's done() runs */
    s->stop_done = done;
    s->stop_arg = arg;
    sched_set_state(s, SCHED_STOPPING);
    for (int i = 0; i < SL_COUNT; i++) {
        struct sched_loop *l = &s->loops[i];
        uv_timer_stop(&l->timer);
        if (l->state == SLS_WAITING)
            loop_set_state(l, SLS_STOPPED);
    }
    sched_maybe_stopped(s);
}

void scheduler_poke(struct scheduler *s)
{
    if (!sched_running(s))
        return;
    loop_poke(&s->loops[SL_CRON]);
    loop_poke(&s->loops[SL_PROMOTE]);
}

void scheduler_note_pending(struct scheduler *s, int64_t run_at_ms)
{
    struct sched_loop *l = &s->loops[SL_PROMOTE];
    if (!sched_running(s))
        return;
    int64_t delay = run_at_ms - time_now_ms();
    switch (l->state) {
    case SLS_WAITING:
        if (delay <= 0)
            loop_poke(l);
        else if ((uint64_t)delay < uv_timer_get_due_in(&l->timer))
            uv_timer_start(&l->timer, on_loop_timer, (uint64_t)delay, 0);
        break;
    case SLS_RUNNING:
    case SLS_RERUN:
        /* The round's own look at the earliest run_at may miss it; promoter.c uses this. */
        if (run_at_ms < s->promote_hint_ms)
            s->promote_hint_ms = run_at_ms;
        break;
    case SLS_STOPPED:
        break;
    }
}

/* ---------------------------------------------------------------- SQL helpers */

static int array_sep(struct buf *b)
{
    return buf_putc(b, b->len == 0 ? '{' : ',');
}

int sched_array_text(struct buf *b, const char *v)
{
    if (!v)
        return sched_array_null(b);
    if (array_sep(b) < 0 || buf_putc(b, '"') < 0)
        return -1;
    for (const char *p = v; *p; p++) {
        if ((*p == '"' || *p == '\\') && buf_putc(b, '\\') < 0)
            return -1;
        if (buf_putc(b, *p) < 0)
            return -1;
    }
    return buf_putc(b, '"');
}

int sched_array_i64(struct buf *b, int64_t v)
{
    if (array_sep(b) < 0)
        return -1;
    return buf_printf(b, "%" PRId64, v);
}

int sched_array_null(struct buf *b)
{
    if (array_sep(b) < 0)
        return -1;
    return buf_puts(b, "NULL");
}

int sched_array_end(struct buf *b)
{
    if (b->len == 0)
        return buf_puts(b, "{}");
    return buf_putc(b, '}');
}

int sched_i64(const PGresult *res, int row, int col, int64_t *out)
{
    const char *v = db_val(res, row, col);
    char *end;
    if (!v)
        return -1;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (errno || end == v || *end)
        return -1;
    *out = n;
    return 0;
}
