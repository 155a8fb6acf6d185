/*
 * The async PostgreSQL pool.
 *
 * N connections (db/conn.c), each in libpq pipeline mode. A call to db_exec
 * or db_exec_batch becomes one job: its statements are sent back to back,
 * each prepared on first use per connection (PQsendPrepare rides in the same
 * round trip), followed by one Sync. Statements of one job therefore run in
 * one implicit transaction: all commit or none does. Jobs wait in a FIFO when
 * every connection is busy.
 *
 * Errors: a starting call returns 0 (its callback will run exactly once) or a
 * negative value when the job cannot be taken (database unreachable, queue
 * full, out of memory, shutting down) — then the callback is never called.
 * Callbacks receive err == NULL, DB_ERR_QUERY (the server rejected a
 * statement: its error PGresult is passed, see db_sqlstate) or
 * DB_ERR_UNAVAILABLE (the connection broke; the outcome of a write is unknown).
 * PGresults are freed by the pool after the callback returns.
 */
#ifndef TE_DB_DB_H
#define TE_DB_DB_H

#include "core/common.h"

#include <libpq-fe.h>
#include <uv.h>

extern const char DB_ERR_QUERY[];
extern const char DB_ERR_UNAVAILABLE[];

/* A statement: define once as `static struct db_stmt x = DB_STMT("SELECT ...");`. */
struct db_stmt {
    const char *sql;
    int slot; /* assigned on first use */
};
#define DB_STMT(text)                                                                              \
    {                                                                                              \
        (text), 0                                                                                  \
    }

/* One statement of a batch with its text parameters (NULL entries are SQL NULL). */
struct db_call {
    struct db_stmt *stmt;
    int nparams;
    const char *const *params;
};

typedef void (*db_cb)(void *arg, const char *err, PGresult *res);
typedef void (*db_batch_cb)(void *arg, const char *err, PGresult *const *res, int n);

struct db_pool_config {
    const char *conninfo;
    int size;
    int connect_timeout_ms;
    int statement_timeout_ms;
    int queue_max;
};

struct db_pool;

int db_pool_new(uv_loop_t *loop, const struct db_pool_config *cfg,
                struct db_pool **out) TE_MUSTCHECK;
/* Fails queued and in-flight jobs with DB_ERR_UNAVAILABLE, closes all; then done(arg). */
void db_pool_close(struct db_pool *p, void (*done)(void *arg), void *arg);
/* True while at least one connection works. */
bool db_pool_ready(const struct db_pool *p);
/* Jobs in flight plus queued. */
unsigned db_pool_busy(const struct db_pool *p);

int db_exec(struct db_pool *p, struct db_stmt *stmt, int nparams, const char *const *params,
            db_cb cb, void *arg) TE_MUSTCHECK;
int db_exec_batch(struct db_pool *p, const struct db_call *calls, int n, db_batch_cb cb,
                  void *arg) TE_MUSTCHECK;

/* SQLSTATE of an error result ("23505" unique violation, ...), "" if none. */
const char *db_sqlstate(const PGresult *res);
/* The server's primary error message of an error result, "" if none. */
const char *db_errmsg(const PGresult *res);

/* Value of (row, col) or NULL when SQL NULL. */
static inline const char *db_val(const PGresult *res, int row, int col)
{
    return PQgetisnull(res, row, col) ? NULL : PQgetvalue(res, row, col);
}

#endif
