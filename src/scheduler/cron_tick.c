/*
 * Cron materializer: due CRON ticks become QUEUED executions.
 *
 * A round is two queries. The first lists due ACTIVE CRON jobs (cron_next_run_at <= now(),
 * oldest first, at most cron_batch_size, SKIP LOCKED so that rows another scheduler is
 * writing right now are left to it). For each, the ticks are computed here (cron_next in
 * the job's zone, see domain/cron.h) from the stored tick, never from now(), so a
 * scheduler that was down fires every missed tick in order: T0 = cron_next_run_at, T1 =
 * cron_next(T0), ... while Ti <= now, at most SCHED_CRON_TICKS_PER_JOB per job and
 * SCHED_CRON_TICKS_PER_ROUND per round (a round that left ticks due runs again at once).
 * Ticks before cron_starts_at never fire; ticks at or after cron_ends_at never fire, and
 * a job with no tick left before cron_ends_at gets cron_next_run_at NULL (it leaves the
 * due index). A job that was due before its ends_at still gets its missed ticks.
 *
 * The second query is one statement for the whole round: for every job a compare-and-set
 * (cron_next_run_at still the T0 we read, job still ACTIVE) under a SKIP LOCKED row lock
 * advances cron_next_run_at past the last tick, and only the jobs it advanced get their
 * executions inserted, with the brief's key 'job_' || job_id || '_' || epoch_ms(tick) and
 * ON CONFLICT DO NOTHING on (job_id, idempotency_key). Two schedulers that read the same
 * job: one advances it, the other's CAS finds nothing (or its lock attempt is skipped),
 * and the unique key would stop a duplicate even then. Insert and CAS commit together.
 */
#include "scheduler/sched_int.h"

#include "core/config.h"
#include "core/id.h"
#include "core/log.h"
#include "core/timefmt.h"
#include "domain/cron.h"
#include "domain/tz.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TICK_NEVER INT64_MIN

/* clang-format off */
/* $1 job ids to leave out (their expression or zone does not parse), $2 batch size */
static struct db_stmt q_due = DB_STMT(
    "SELECT job_id, cron_expression, cron_timezone, " SCHED_SQL_MS("cron_next_run_at") ", "
    SCHED_SQL_MS("cron_starts_at") ", " SCHED_SQL_MS("cron_ends_at") ", " SCHED_SQL_MS("now()")
    " FROM jobs"
    " WHERE trigger_type = 'CRON' AND status = 'ACTIVE' AND cron_next_run_at <= now()"
    "   AND job_id <> ALL ($1::TEXT[])"
    " ORDER BY cron_next_run_at"
    " LIMIT $2::INT"
    " FOR UPDATE SKIP LOCKED");

enum due_col { DC_ID, DC_EXPR, DC_ZONE, DC_NEXT, DC_STARTS, DC_ENDS, DC_NOW };

/* Per job: $1 job_id, $2 T0 (ms, the CAS value), $3 new cron_next_run_at (ms or NULL),
 * $4 last tick fired (ms or NULL). Per execution: $5 job_id, $6 execution_id, $7 tick (ms).
 * $8 region. Answers (jobs advanced, executions inserted). */
static struct db_stmt q_advance = DB_STMT(
    "WITH a AS ("
    "   SELECT * FROM unnest($1::TEXT[], $2::INT8[], $3::INT8[], $4::INT8[])"
    "     AS a(job_id, t0, next_ms, last_ms)"
    "), locked AS MATERIALIZED ("
    "   SELECT j.job_id FROM jobs j JOIN a ON a.job_id = j.job_id"
    "   WHERE j.status = 'ACTIVE' AND j.trigger_type = 'CRON'"
    "     AND " SCHED_SQL_MS("j.cron_next_run_at") " = a.t0"
    "   FOR UPDATE OF j SKIP LOCKED"
    "), adv AS ("
    "   UPDATE jobs j SET"
    "     cron_next_run_at = " SCHED_SQL_TS("a.next_ms") ","
    "     cron_last_tick_at = coalesce(" SCHED_SQL_TS("a.last_ms") ", j.cron_last_tick_at)"
    "   FROM a WHERE j.job_id = a.job_id AND j.job_id IN (SELECT job_id FROM locked)"
    "     AND j.status = 'ACTIVE' AND " SCHED_SQL_MS("j.cron_next_run_at") " = a.t0"
    "   RETURNING j.job_id, j.endpoint, j.endpoint_type, j.endpoint_version, j.input"
    "), ins AS ("
    "   INSERT INTO executions (execution_id, crdb_region, job_id, endpoint, endpoint_type,"
    "     idempotency_key, status, input, max_attempts, run_at)"
    "   SELECT t.execution_id, $8, adv.job_id, adv.endpoint, adv.endpoint_type,"
    "     'job_' || adv.job_id || '_' || t.tick_ms, 'QUEUED', adv.input,"
    "     coalesce(CASE WHEN jsonb_typeof(ev.retry_policy->'max_attempts') = 'number'"
    "       THEN greatest(1, (ev.retry_policy->>'max_attempts')::NUMERIC::INT) END, 1),"
    "     " SCHED_SQL_TS("t.tick_ms")
    "   FROM unnest($5::TEXT[], $6::TEXT[], $7::INT8[]) AS t(job_id, execution_id, tick_ms)"
    "   JOIN adv ON adv.job_id = t.job_id"
    "   LEFT JOIN endpoint_versions ev"
    "     ON ev.endpoint = adv.endpoint AND ev.version = adv.endpoint_version"
    "   ORDER BY t.tick_ms"
    "   ON CONFLICT (job_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING"
    "   RETURNING 1"
    ")"
    " SELECT (SELECT count(*) FROM adv), (SELECT count(*) FROM ins)");
/* clang-format on */

/* What one round writes: one element per advanced job, one per execution. */
struct cron_plan {
    struct buf job_ids, t0s, nexts, lasts;
    struct buf tick_jobs, exec_ids, ticks;
    int jobs, execs;
    int leftover; /* jobs that still have due ticks after this round */
};

static void plan_free(struct cron_plan *p)
{
    buf_free(&p->job_ids);
    buf_free(&p->t0s);
    buf_free(&p->nexts);
    buf_free(&p->lasts);
    buf_free(&p->tick_jobs);
    buf_free(&p->exec_ids);
    buf_free(&p->ticks);
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* The first tick strictly after after_s (seconds), in ms; TICK_NEVER when there is none
 * (never fires again, or beyond year 9999). < 0 only for an unusable expression. */
static int tick_after(const struct cron_expr *e, const struct tz *z, int64_t after_s,
                      int64_t *next_ms)
{
    int64_t n;
    int rc = cron_next(e, z, after_s, &n);
    if (rc == -ENOENT || rc == -ERANGE) {
        *next_ms = TICK_NEVER;
        return 0;
    }
    if (rc < 0)
        return rc;
    *next_ms = n * 1000;
    return 0;
}

static int add_opt_i64(struct buf *b, int64_t v)
{
    return v == TICK_NEVER ? sched_array_null(b) : sched_array_i64(b, v);
}

struct due_job {
    const char *id;
    struct cron_expr expr;
    const struct tz *zone;
    int64_t t0, starts, ends; /* ms; starts/ends TICK_NEVER when NULL */
};

/* Adds up to cap ticks of one job (cap >= 1) and its advance to the plan. */
static int plan_job(struct cron_plan *p, const struct due_job *j, int64_t now, int cap)
{
    int64_t t = j->t0, last = TICK_NEVER, made = time_now_ms();
    char exec_id[ID_MAX];
    int n = 0;
    if (j->starts != TICK_NEVER && t < j->starts &&
        tick_after(&j->expr, j->zone, floor_div(j->starts + 999, 1000) - 1, &t) < 0)
        return -EINVAL;
    while (t != TICK_NEVER && t <= now && (j->ends == TICK_NEVER || t < j->ends) && n < cap) {
        id_new("exec", made, exec_id);
        if (sched_array_text(&p->tick_jobs, j->id) < 0 ||
            sched_array_text(&p->exec_ids, exec_id) < 0 || sched_array_i64(&p->ticks, t) < 0)
            return -ENOMEM;
        last = t;
        n++;
        if (tick_after(&j->expr, j->zone, floor_div(t, 1000), &t) < 0)
            return -EINVAL;
    }
    if (t != TICK_NEVER && j->ends != TICK_NEVER && t >= j->ends)
        t = TICK_NEVER;
    if (sched_array_text(&p->job_ids, j->id) < 0 || sched_array_i64(&p->t0s, j->t0) < 0 ||
        add_opt_i64(&p->nexts, t) < 0 || add_opt_i64(&p->lasts, last) < 0)
        return -ENOMEM;
    p->jobs++;
    p->execs += n;
    if (t != TICK_NEVER && t <= now)
        p->leftover++;
    return 0;
}

static bool is_bad_job(const struct scheduler *s, const char *id)
{
    for (int i = 0; i < s->n_bad_jobs; i++) {
        if (strcmp(s->bad_jobs[i], id) == 0)
            return true;
    }
    return false;
}

/* A job whose expression or zone stopped parsing: warned about once and left out of
 * later rounds (nothing is retired; an operator has to look at it). */
static void skip_bad_job(struct scheduler *s, const char *id, const char *why)
{
    if (is_bad_job(s, id))
        return;
    log_ctx(LOG_WARN, "job_id", id, "scheduler: cron: skipping job: %s", why);
    char **grown = realloc(s->bad_jobs, (size_t)(s->n_bad_jobs + 1) * sizeof(*grown));
    char *copy = grown ? strdup(id) : NULL;
    if (grown)
        s->bad_jobs = grown;
    if (copy)
        s->bad_jobs[s->n_bad_jobs++] = copy;
}

static int read_ms(const PGresult *res, int row, int col, int64_t *out)
{
    if (PQgetisnull(res, row, col)) {
        *out = TICK_NEVER;
        return 0;
    }
    return sched_i64(res, row, col, out);
}

/* Reads row i into j; on failure writes why (the job is skipped). */
static int load_job(struct scheduler *s, const PGresult *res, int i, struct due_job *j, char *why,
                    size_t n)
{
    const char *expr = db_val(res, i, DC_EXPR), *zone = db_val(res, i, DC_ZONE);
    char err[200];
    j->id = db_val(res, i, DC_ID);
    if (!expr || !zone) {
        snprintf(why, n, "no cron expression or time zone");
        return -1;
    }
    if (cron_parse(expr, &j->expr, err, sizeof(err)) < 0) {
        snprintf(why, n, "cron expression '%s' does not parse: %s", expr, err);
        return -1;
    }
    if (tz_cache_get(s->tz, zone, &j->zone, err, sizeof(err)) < 0) {
        snprintf(why, n, "time zone '%s' cannot be loaded: %s", zone, err);
        return -1;
    }
    if (sched_i64(res, i, DC_NEXT, &j->t0) < 0 || read_ms(res, i, DC_STARTS, &j->starts) < 0 ||
        read_ms(res, i, DC_ENDS, &j->ends) < 0) {
        snprintf(why, n, "unreadable schedule times");
        return -1;
    }
    return 0;
}

static int plan_round(struct scheduler *s, const PGresult *res, struct cron_plan *p)
{
    int64_t now;
    char why[400];
    int budget = SCHED_CRON_TICKS_PER_ROUND;
    if (PQntuples(res) == 0 || sched_i64(res, 0, DC_NOW, &now) < 0)
        return 0;
    for (int i = 0; i < PQntuples(res); i++) {
        struct due_job j;
        if (budget <= 0) {
            p->leftover++;
            continue;
        }
        if (load_job(s, res, i, &j, why, sizeof(why)) < 0) {
            skip_bad_job(s, db_val(res, i, DC_ID), why);
            continue;
        }
        int before = p->execs;
        int cap = budget < SCHED_CRON_TICKS_PER_JOB ? budget : SCHED_CRON_TICKS_PER_JOB;
        int rc = plan_job(p, &j, now, cap);
        if (rc == -ENOMEM)
            return -1;
        if (rc < 0) {
            skip_bad_job(s, j.id, "cron_next failed on its expression");
            continue;
        }
        budget -= p->execs - before;
    }
    return 0;
}

static void on_advanced(void *arg, const char *err, PGresult *res)
{
    struct sched_loop *l = arg;
    struct scheduler *s = l->s;
    int64_t advanced = 0, inserted = 0;
    if (err) {
        sched_loop_failed(l, err, res);
        sched_loop_done(l, l->period_ms);
        return;
    }
    sched_loop_ok(l);
    if (sched_i64(res, 0, 0, &advanced) < 0 || sched_i64(res, 0, 1, &inserted) < 0)
        advanced = inserted = 0;
    log_debug("scheduler: cron: %" PRId64 " of %d due job%s advanced, %" PRId64
              " execution%s created",
              advanced, s->cron_planned, s->cron_planned == 1 ? "" : "s", inserted,
              inserted == 1 ? "" : "s");
    /* Ticks left due, or a full batch: go on at once, unless nothing moved (another
     * scheduler holds those jobs; retrying in a tight loop would only spin). */
    bool more = s->cron_more && advanced > 0;
    sched_loop_done(l, more ? 0 : l->period_ms);
}

static void on_due(void *arg, const char *err, PGresult *res)
{
    struct sched_loop *l = arg;
    struct scheduler *s = l->s;
    struct cron_plan p = {0};
    if (err) {
        sched_loop_failed(l, err, res);
        goto done;
    }
    if (PQntuples(res) == 0 || !sched_running(s)) {
        sched_loop_ok(l);
        goto done;
    }
    if (plan_round(s, res, &p) < 0) {
        log_warn("scheduler: cron: out of memory");
        goto done;
    }
    if (p.jobs == 0) {
        sched_loop_ok(l);
        goto done;
    }
    if (sched_array_end(&p.job_ids) < 0 || sched_array_end(&p.t0s) < 0 ||
        sched_array_end(&p.nexts) < 0 || sched_array_end(&p.lasts) < 0 ||
        sched_array_end(&p.tick_jobs) < 0 || sched_array_end(&p.exec_ids) < 0 ||
        sched_array_end(&p.ticks) < 0) {
        log_warn("scheduler: cron: out of memory");
        goto done;
    }
    s->cron_planned = p.jobs;
    s->cron_more = p.leftover > 0 || PQntuples(res) >= s->cfg->cron_batch_size;
    const char *params[] = {p.job_ids.data,   p.t0s.data,      p.nexts.data, p.lasts.data,
                            p.tick_jobs.data, p.exec_ids.data, p.ticks.data, s->cfg->region};
    if (db_exec(s->db, &q_advance, 8, params, on_advanced, l) < 0) {
        sched_loop_failed(l, DB_ERR_UNAVAILABLE, NULL);
        goto done;
    }
    plan_free(&p);
    return;
done:
    plan_free(&p);
    sched_loop_done(l, l->period_ms);
}

int sched_cron_round(struct sched_loop *l)
{
    struct scheduler *s = l->s;
    struct buf skip = BUF_INIT;
    char limit[16];
    int rc = -1;
    for (int i = 0; i < s->n_bad_jobs; i++) {
        if (sched_array_text(&skip, s->bad_jobs[i]) < 0)
            goto fail;
    }
    if (sched_array_end(&skip) < 0)
        goto fail;
    snprintf(limit, sizeof(limit), "%d", s->cfg->cron_batch_size);
    const char *params[] = {skip.data, limit};
    rc = db_exec(s->db, &q_due, 2, params, on_due, l);
fail:
    buf_free(&skip);
    return rc;
}
