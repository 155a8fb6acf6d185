/*
 * Delayed promoter: PENDING executions whose run_at has passed become QUEUED.
 *
 * One batch per round: the bounded promotion (which also wakes idle workers with a
 * NOTIFY when it promoted anything and TE_DB_NOTIFY is on), then the delay until the
 * earliest PENDING run_at, read after the promotion in the same transaction. The timer
 * is armed for that instant, capped by promote_interval_ms: the cap is what notices
 * delayed jobs created by other processes. Several promoters split the due rows with
 * SKIP LOCKED; `status = 'PENDING'` in the UPDATE makes a second promotion a no-op.
 */
#include "scheduler/sched_int.h"

#include "core/config.h"
#include "core/log.h"
#include "core/timefmt.h"

#include <inttypes.h>
#include <stdio.h>

/* When due rows were left (locked by another transaction), look again this soon. */
#define PROMOTE_BUSY_RETRY_MS 25

/* clang-format off */
/* $1 batch size. Two variants: with TE_DB_NOTIFY off (CockroachDB) pg_notify must not even
 * appear in the text. */
#define PROMOTE_SQL(notify)                                                                        \
    "WITH due AS MATERIALIZED ("                                                                   \
    "   SELECT execution_id FROM executions"                                                       \
    "   WHERE status = 'PENDING' AND run_at <= now()"                                              \
    "   ORDER BY run_at LIMIT $1::INT"                                                             \
    "   FOR UPDATE SKIP LOCKED"                                                                    \
    "), up AS ("                                                                                   \
    "   UPDATE executions e SET status = 'QUEUED'"                                                 \
    "   FROM due WHERE e.execution_id = due.execution_id AND e.status = 'PENDING'"                 \
    "   RETURNING 1"                                                                               \
    ")"                                                                                            \
    " SELECT c.n" notify " FROM (SELECT count(*) AS n FROM up) c"
static struct db_stmt q_promote = DB_STMT(PROMOTE_SQL(""));
static struct db_stmt q_promote_notify =
    DB_STMT(PROMOTE_SQL(", CASE WHEN c.n > 0 THEN pg_notify('taskexec_work', '')::TEXT END"));

/* Milliseconds until the earliest PENDING run_at (NULL when none; <= 0 when overdue). */
static struct db_stmt q_pending_next =
    DB_STMT("SELECT ceil(extract(epoch FROM min(run_at) - now()) * 1000)::INT8"
            " FROM executions WHERE status = 'PENDING'");
/* clang-format on */

/* The timer delay after a round that promoted `promoted` rows. */
static uint64_t next_delay(struct scheduler *s, int64_t promoted, const PGresult *next)
{
    struct sched_loop *l = &s->loops[SL_PROMOTE];
    int64_t delay = (int64_t)l->period_ms, due;
    if (promoted >= SCHED_PROMOTE_BATCH)
        delay = 0;
    else if (sched_i64(next, 0, 0, &due) == 0)
        delay = due <= 0 ? PROMOTE_BUSY_RETRY_MS : due + 1;
    if (s->promote_hint_ms != INT64_MAX) {
        int64_t hint = s->promote_hint_ms - time_now_ms();
        s->promote_hint_ms = INT64_MAX;
        if (hint < delay)
            delay = hint < 0 ? 0 : hint;
    }
    if (delay > (int64_t)l->period_ms)
        delay = (int64_t)l->period_ms;
    return (uint64_t)delay;
}

static void on_promoted(void *arg, const char *err, PGresult *const *res, int n)
{
    struct sched_loop *l = arg;
    int64_t promoted = 0;
    if (err) {
        const PGresult *bad = NULL;
        for (int i = 0; i < n && !bad; i++) {
            if (res[i] && PQresultStatus(res[i]) == PGRES_FATAL_ERROR)
                bad = res[i];
        }
        sched_loop_failed(l, err, bad);
        sched_loop_done(l, l->period_ms);
        return;
    }
    sched_loop_ok(l);
    if (sched_i64(res[0], 0, 0, &promoted) < 0)
        promoted = 0;
    uint64_t delay = next_delay(l->s, promoted, res[1]);
    if (promoted > 0)
        log_debug("scheduler: promoter: %" PRId64 " execution%s PENDING -> QUEUED; next look in "
                  "%" PRIu64 " ms",
                  promoted, promoted == 1 ? "" : "s", delay);
    sched_loop_done(l, delay);
}

int sched_promote_round(struct sched_loop *l)
{
    struct scheduler *s = l->s;
    char limit[16];
    snprintf(limit, sizeof(limit), "%d", SCHED_PROMOTE_BATCH);
    const char *p1[] = {limit};
    struct db_call calls[] = {
        {s->cfg->db_notify ? &q_promote_notify : &q_promote, 1, p1},
        {&q_pending_next, 0, NULL},
    };
    return db_exec_batch(s->db, calls, 2, on_promoted, l);
}
