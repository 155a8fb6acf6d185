/*
 * Scheduler internals shared by scheduler.c (lifecycle, loop driver, heartbeat) and the
 * three loops (cron_tick.c, promoter.c, reclaimer.c). Not for other modules.
 */
#ifndef TE_SCHEDULER_SCHED_INT_H
#define TE_SCHEDULER_SCHED_INT_H

#include "core/buf.h"
#include "db/db.h"
#include "scheduler/scheduler.h"

/* SQL for a timestamp as Unix milliseconds (same as api.h's SQL_MS). */
#define SCHED_SQL_MS(col) "floor(extract(epoch from " col ") * 1000)::INT8"
/* SQL for Unix milliseconds (an INT8 expression) as a TIMESTAMPTZ, exact to the ms. */
#define SCHED_SQL_TS(ms) "('epoch'::TIMESTAMPTZ + (" ms ") * INTERVAL '1 millisecond')"

/* Rows one promoter or reclaimer round handles at most; a full round runs again at once. */
#define SCHED_PROMOTE_BATCH 1000
#define SCHED_RECLAIM_BATCH 500
/* Cron: ticks one job materializes per round, and ticks per round in all. */
#define SCHED_CRON_TICKS_PER_JOB 100
#define SCHED_CRON_TICKS_PER_ROUND 5000
/* Jobs whose expression or zone stopped parsing, left out of the due query. */
#define SCHED_HEARTBEAT_MS 5000

enum sched_loop_id { SL_CRON, SL_PROMOTE, SL_RECLAIM, SL_BEAT, SL_COUNT };

/* One loop's phase. WAITING: its timer is armed (or about to be). RUNNING: one query
 * chain is in flight. RERUN: in flight and poked meanwhile, so the next round starts as
 * soon as this one ends. STOPPED: the scheduler is stopping and nothing is in flight. */
enum sched_loop_state { SLS_WAITING, SLS_RUNNING, SLS_RERUN, SLS_STOPPED };

struct sched_loop {
    struct scheduler *s;
    const char *name;
    uv_timer_t timer;
    enum sched_loop_state state;
    /* Starts a round that ends with sched_loop_done(); < 0 when nothing was started. */
    int (*round)(struct sched_loop *l);
    uint64_t period_ms;
    unsigned failures; /* consecutive failed rounds: warn at the first, info at recovery */
};

/* The scheduler's phase. RUNNING: loops run. STOPPING: timers stopped, waiting for the
 * rounds in flight. FAREWELL: the final 'DEAD' heartbeat is in flight. CLOSING: the timer
 * handles are closing; the scheduler is freed when the last one has closed. */
enum sched_state { SCHED_RUNNING, SCHED_STOPPING, SCHED_FAREWELL, SCHED_CLOSING };

struct scheduler {
    uv_loop_t *loop;
    struct db_pool *db;
    struct tz_cache *tz;
    const struct config *cfg;
    enum sched_state state;
    struct sched_loop loops[SL_COUNT];
    char *component; /* "scheduler:<worker_id>" */
    int closes_pending;
    void (*stop_done)(void *arg);
    void *stop_arg;
    /* promoter: earliest run_at (Unix ms) announced while a round was in flight */
    int64_t promote_hint_ms;
    /* reclaimer: rows the round in flight found (a full batch runs again at once) */
    int reclaim_fetched;
    /* cron: the round in flight's planned jobs, and whether ticks are left due after it */
    int cron_planned;
    bool cron_more;
    /* cron: ids of jobs skipped because their expression or zone does not parse */
    char **bad_jobs; /* grows as needed: a bad job left in would be re-read every round */
    int n_bad_jobs;
};

/* Ends the round in flight: the loop runs again after delay_ms (at once when poked). */
void sched_loop_done(struct sched_loop *l, uint64_t delay_ms);
/* Records a successful round (logs the recovery after failed ones). */
void sched_loop_ok(struct sched_loop *l);
/* Records a failed round: a warning at the first failure of a streak, debug after. */
void sched_loop_failed(struct sched_loop *l, const char *err, const PGresult *res);
/* Stops a chain between its steps when the scheduler is stopping. */
bool sched_running(const struct scheduler *s);

/* PostgreSQL array literals, one element at a time: "{a,NULL,"b c"}". Finish with
 * sched_array_end (also turns an empty buffer into "{}"). Return 0 or -1 (out of memory). */
int sched_array_text(struct buf *b, const char *v) TE_MUSTCHECK; /* NULL → NULL */
int sched_array_i64(struct buf *b, int64_t v) TE_MUSTCHECK;
int sched_array_null(struct buf *b) TE_MUSTCHECK;
int sched_array_end(struct buf *b) TE_MUSTCHECK;

/* Parses an INT8 column value; returns 0, or -1 when NULL or malformed. */
int sched_i64(const PGresult *res, int row, int col, int64_t *out) TE_MUSTCHECK;

int sched_cron_round(struct sched_loop *l) TE_MUSTCHECK;
int sched_promote_round(struct sched_loop *l) TE_MUSTCHECK;
int sched_reclaim_round(struct sched_loop *l) TE_MUSTCHECK;

#endif
