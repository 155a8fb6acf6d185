/*
 * The scheduler: three independent loops on the event loop, plus a heartbeat.
 *
 *   cron materializer  every cron_tick_interval_sec: due CRON ticks -> QUEUED executions
 *   delayed promoter   PENDING executions whose run_at passed -> QUEUED; its timer is
 *                      armed for the earliest PENDING run_at (promote_interval_ms at most)
 *   lease reclaimer    every reclaim_interval_sec: RUNNING executions whose lease expired
 *                      -> RETRYING (attempts left) or FAILED, with an attempt and a log row
 *   heartbeat (stub)   every 5 s: region_heartbeats (region, "scheduler:<worker_id>")
 *
 * Each loop has at most one query chain in flight and re-arms its timer when it ends.
 * Every statement is safe with any number of schedulers running against the same
 * database at once (compare-and-set, SKIP LOCKED, ON CONFLICT), so there is no leader.
 * Database errors are logged once per outage; the loops keep going.
 */
#ifndef TE_SCHEDULER_SCHEDULER_H
#define TE_SCHEDULER_SCHEDULER_H

#include "core/common.h"

#include <uv.h>

struct config;
struct db_pool;
struct tz_cache;
struct scheduler;

/* Starts the loops (their first rounds run at once). db, tz and cfg must outlive the
 * scheduler: stop it (and wait for `done`) before closing the pool. Returns 0 or -1. */
int scheduler_start(uv_loop_t *loop, struct db_pool *db, struct tz_cache *tz,
                    const struct config *cfg, struct scheduler **out) TE_MUSTCHECK;

/* Stops the timers, waits for the queries in flight, writes the final 'DEAD' heartbeat,
 * closes the handles, frees the scheduler, then calls done(arg). A second call while it
 * stops is ignored. The pool may be closed meanwhile: queries in flight then fail and no
 * new one is started. */
void scheduler_stop(struct scheduler *s, void (*done)(void *arg), void *arg);

/* Runs the cron materializer and the delayed promoter now (or right after the round in
 * flight). */
void scheduler_poke(struct scheduler *s);

/* A PENDING execution due at run_at_ms (Unix ms) was just committed in this process:
 * the promoter's timer is shortened to fire then if it would fire later. */
void scheduler_note_pending(struct scheduler *s, int64_t run_at_ms);

#endif
