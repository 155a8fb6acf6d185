/*
 * Lease reclaimer: RUNNING executions whose worker stopped renewing its lease.
 *
 * A round is two queries. The first lists (bounded, SKIP LOCKED) RUNNING rows whose
 * lease_expires_at has passed, plus legacy rows without a lease that started more than
 * stuck_execution_timeout_sec ago. The second, one statement for all of them, returns
 * each to RETRYING (run now) or, when its attempts are spent, FAILS it, and writes the
 * lost attempt (FAILED, LEASE_EXPIRED) and a WARN log row with ids made here (time-ordered
 * UUIDv7). As the worker's own finalize does, a FAILED execution keeps its worker_id and
 * output (the error is in the attempt row); a RETRYING one loses its worker_id and is due
 * at once. That statement repeats every condition of the first under its own row locks —
 * still RUNNING, same attempt, same worker, lease still expired — so a worker that renewed
 * its lease or finished in between, or a reclaimer in another process that got there
 * first, leaves nothing for it to do. Rows whose lease has not expired are never touched.
 */
#include "scheduler/sched_int.h"

#include "core/config.h"
#include "core/id.h"
#include "core/log.h"
#include "core/timefmt.h"

#include <inttypes.h>
#include <stdio.h>

/* clang-format off */
/* $1 stuck timeout (s) for rows without a lease, $2 batch size */
static struct db_stmt q_expired = DB_STMT(
    "SELECT execution_id, attempt_count, worker_id FROM executions"
    " WHERE status = 'RUNNING'"
    "   AND (lease_expires_at < now()"
    "        OR (lease_expires_at IS NULL"
    "            AND started_at < now() - $1::INT * INTERVAL '1 second'))"
    " LIMIT $2::INT"
    " FOR UPDATE SKIP LOCKED");

/* $1 execution ids, $2 their attempt_count, $3 their worker_id, $4 attempt ids, $5 log ids,
 * $6 stuck timeout (s), $7 region. Two variants, as in promoter.c: with and without
 * pg_notify. */
#define RECLAIM_SQL(notify)                                                                        \
    "WITH r AS ("                                                                                  \
    "   SELECT * FROM unnest($1::TEXT[], $2::INT[], $3::TEXT[], $4::TEXT[], $5::TEXT[])"           \
    "     AS r(execution_id, attempt_count, worker_id, attempt_id, log_id)"                        \
    "), locked AS MATERIALIZED ("                                                                  \
    "   SELECT e.execution_id, e.lease_expires_at IS NULL AS no_lease FROM executions e"           \
    "   JOIN r ON r.execution_id = e.execution_id"                                                 \
    "   WHERE e.status = 'RUNNING' AND e.attempt_count = r.attempt_count"                          \
    "     AND e.worker_id IS NOT DISTINCT FROM r.worker_id"                                        \
    "     AND (e.lease_expires_at < now()"                                                         \
    "          OR (e.lease_expires_at IS NULL"                                                     \
    "              AND e.started_at < now() - $6::INT * INTERVAL '1 second'))"                     \
    "   FOR UPDATE OF e SKIP LOCKED"                                                               \
    "), m AS ("                                                                                    \
    "   SELECT r.*, jsonb_build_object('type', 'LEASE_EXPIRED', 'message',"                        \
    "     CASE WHEN l.no_lease"                                                                    \
    "       THEN 'worker ' || coalesce(r.worker_id, '(unknown)') || ' held it for over ' || $6"    \
    "            || ' s without a lease'"                                                          \
    "       ELSE 'worker ' || coalesce(r.worker_id, '(unknown)')"                                  \
    "            || ' stopped renewing its lease' END) AS error"                                   \
    "   FROM r JOIN locked l ON l.execution_id = r.execution_id"                                   \
    "), upd AS ("                                                                                  \
    "   UPDATE executions e SET"                                                                   \
    "     status = CASE WHEN e.attempt_count >= e.max_attempts THEN 'FAILED' ELSE 'RETRYING' END," \
    "     run_at = CASE WHEN e.attempt_count >= e.max_attempts THEN e.run_at ELSE now() END,"      \
    "     completed_at = CASE WHEN e.attempt_count >= e.max_attempts THEN now() END,"              \
    "     duration_ms = CASE WHEN e.attempt_count >= e.max_attempts"                               \
    "       THEN floor(extract(epoch FROM now() - e.started_at) * 1000)::INT END,"                 \
    "     worker_id = CASE WHEN e.attempt_count >= e.max_attempts THEN e.worker_id END,"           \
    "     lease_expires_at = NULL"                                                                 \
    "   FROM m WHERE e.execution_id = m.execution_id AND e.status = 'RUNNING'"                     \
    "     AND e.attempt_count = m.attempt_count"                                                   \
    "   RETURNING e.execution_id, e.status, e.attempt_count, e.max_attempts, e.started_at,"        \
    "     m.attempt_id, m.log_id, m.error"                                                         \
    "), att AS ("                                                                                  \
    "   INSERT INTO attempts (attempt_id, crdb_region, execution_id, attempt_number, status,"      \
    "     started_at, completed_at, duration_ms, error)"                                           \
    "   SELECT attempt_id, $7, execution_id, attempt_count, 'FAILED', coalesce(started_at, now()),"\
    "     now(), floor(extract(epoch FROM now() - coalesce(started_at, now())) * 1000)::INT,"      \
    "     error"                                                                                   \
    "   FROM upd"                                                                                  \
    "   ON CONFLICT DO NOTHING"                                                                    \
    "), lg AS ("                                                                                   \
    "   INSERT INTO execution_logs (log_id, crdb_region, execution_id, attempt_number, level,"     \
    "     message)"                                                                                \
    "   SELECT log_id, $7, execution_id, attempt_count, 'WARN',"                                   \
    "     'attempt ' || attempt_count || ' of ' || max_attempts || ' lost: '"                      \
    "     || (error->>'message') || CASE WHEN status = 'FAILED'"                                   \
    "       THEN '; no attempts left, execution FAILED'"                                           \
    "       ELSE '; execution returned to the queue (RETRYING)' END"                               \
    "   FROM upd"                                                                                  \
    ")"                                                                                            \
    " SELECT c.retrying, c.failed" notify                                                          \
    " FROM (SELECT count(*) FILTER (WHERE status = 'RETRYING') AS retrying,"                       \
    "              count(*) FILTER (WHERE status = 'FAILED') AS failed FROM upd) c"
static struct db_stmt q_reclaim = DB_STMT(RECLAIM_SQL(""));
static struct db_stmt q_reclaim_notify = DB_STMT(
    RECLAIM_SQL(", CASE WHEN c.retrying > 0 THEN pg_notify('taskexec_work', '')::TEXT END"));
/* clang-format on */

struct reclaim_arrays {
    struct buf exec_ids, counts, workers, attempt_ids, log_ids;
};

static void arrays_free(struct reclaim_arrays *a)
{
    buf_free(&a->exec_ids);
    buf_free(&a->counts);
    buf_free(&a->workers);
    buf_free(&a->attempt_ids);
    buf_free(&a->log_ids);
}

static int arrays_fill(struct reclaim_arrays *a, const PGresult *res)
{
    int64_t now = time_now_ms(), count;
    char att[ID_MAX], log[ID_MAX];
    for (int i = 0; i < PQntuples(res); i++) {
        if (sched_i64(res, i, 1, &count) < 0)
            count = 0;
        id_new("att", now, att);
        id_new("log", now, log);
        if (sched_array_text(&a->exec_ids, db_val(res, i, 0)) < 0 ||
            sched_array_i64(&a->counts, count) < 0 ||
            sched_array_text(&a->workers, db_val(res, i, 2)) < 0 ||
            sched_array_text(&a->attempt_ids, att) < 0 || sched_array_text(&a->log_ids, log) < 0)
            return -1;
    }
    if (sched_array_end(&a->exec_ids) < 0 || sched_array_end(&a->counts) < 0 ||
        sched_array_end(&a->workers) < 0 || sched_array_end(&a->attempt_ids) < 0 ||
        sched_array_end(&a->log_ids) < 0)
        return -1;
    return 0;
}

static void on_reclaimed(void *arg, const char *err, PGresult *res)
{
    struct sched_loop *l = arg;
    int64_t retrying = 0, failed = 0;
    if (err) {
        sched_loop_failed(l, err, res);
        sched_loop_done(l, l->period_ms);
        return;
    }
    sched_loop_ok(l);
    if (sched_i64(res, 0, 0, &retrying) < 0 || sched_i64(res, 0, 1, &failed) < 0)
        retrying = failed = 0;
    if (retrying + failed > 0)
        log_info("scheduler: reclaimer: %" PRId64 " execution%s with an expired lease: %" PRId64
                 " RETRYING, %" PRId64 " FAILED",
                 retrying + failed, retrying + failed == 1 ? "" : "s", retrying, failed);
    /* A full batch that made progress: more may be waiting. */
    bool more = l->s->reclaim_fetched >= SCHED_RECLAIM_BATCH && retrying + failed > 0;
    sched_loop_done(l, more ? 0 : l->period_ms);
}

static void on_expired(void *arg, const char *err, PGresult *res)
{
    struct sched_loop *l = arg;
    struct scheduler *s = l->s;
    struct reclaim_arrays a = {BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT, BUF_INIT};
    if (err) {
        sched_loop_failed(l, err, res);
        goto done;
    }
    if (PQntuples(res) == 0 || !sched_running(s)) {
        sched_loop_ok(l);
        goto done;
    }
    s->reclaim_fetched = PQntuples(res);
    if (arrays_fill(&a, res) < 0) {
        log_warn("scheduler: reclaimer: out of memory");
        goto done;
    }
    char stuck[16];
    snprintf(stuck, sizeof(stuck), "%d", s->cfg->stuck_execution_timeout_sec);
    const char *params[] = {a.exec_ids.data, a.counts.data, a.workers.data, a.attempt_ids.data,
                            a.log_ids.data,  stuck,         s->cfg->region};
    struct db_stmt *q = s->cfg->db_notify ? &q_reclaim_notify : &q_reclaim;
    if (db_exec(s->db, q, 7, params, on_reclaimed, l) < 0) {
        sched_loop_failed(l, DB_ERR_UNAVAILABLE, NULL);
        goto done;
    }
    arrays_free(&a);
    return;
done:
    arrays_free(&a);
    sched_loop_done(l, l->period_ms);
}

int sched_reclaim_round(struct sched_loop *l)
{
    struct scheduler *s = l->s;
    char stuck[16], limit[16];
    snprintf(stuck, sizeof(stuck), "%d", s->cfg->stuck_execution_timeout_sec);
    snprintf(limit, sizeof(limit), "%d", SCHED_RECLAIM_BATCH);
    const char *params[] = {stuck, limit};
    return db_exec(s->db, &q_expired, 2, params, on_expired, l);
}
