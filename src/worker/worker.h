/*
 * The worker: claims due executions in batches (FOR UPDATE SKIP LOCKED, never
 * more in flight than TE_WORKER_MAX_CONCURRENT), runs each through the
 * pipeline (templates → dispatch → outcome) and writes outcomes in batches.
 * Wakes on LISTEN/NOTIFY when available, and polls as a fallback.
 */
#ifndef TE_WORKER_WORKER_H
#define TE_WORKER_WORKER_H

#include "core/common.h"
#include "core/config.h"
#include "crypto/crypto.h"
#include "db/db.h"

#include <uv.h>

struct worker;

int worker_start(uv_loop_t *loop, struct db_pool *db, const struct config *cfg,
                 const struct secret_key *key, struct worker **out) TE_MUSTCHECK;
/* Claim now (e.g. after this process created work). */
void worker_poke(struct worker *w);
/* Executions being processed by this process. */
unsigned worker_inflight(const struct worker *w);
/*
 * Stops claiming, lets in-flight executions finish (bounded by the caller's
 * deadline: call worker_close when it passes), flushes outcomes.
 */
void worker_drain(struct worker *w);
/* Closes everything; executions still in flight are left to lease expiry. */
void worker_close(struct worker *w, void (*done)(void *arg), void *arg);

#endif
