/*
 * One non-blocking libpq connection driven by the libuv loop.
 *
 * db_conn owns the connection's life: asynchronous name resolution,
 * PQconnectStartParams/PQconnectPoll, a uv_poll on PQsocket with readable
 * interest always and writable interest while libpq has unsent data, and a
 * reconnect with capped exponential backoff after any failure. The owner
 * sends commands with libpq's PQsend* on db_conn_pg(), tells db_conn how many
 * result streams to expect (db_conn_sent), and receives every PGresult —
 * NULL marks the end of one command's results, PGRES_PIPELINE_SYNC a sync —
 * through ops->on_result. Results are owned by the callee (PQclear them).
 */
#ifndef TE_DB_CONN_H
#define TE_DB_CONN_H

#include "core/common.h"

#include <libpq-fe.h>
#include <uv.h>

enum db_conn_state {
    DBC_IDLE_WAIT,  /* waiting for the reconnect timer */
    DBC_RESOLVING,  /* uv_getaddrinfo in flight */
    DBC_CONNECTING, /* PQconnectPoll handshake */
    DBC_READY,      /* connected; commands may be sent */
    DBC_DRAINING,   /* handles closing after a failure; reconnect follows */
    DBC_CLOSING,    /* db_conn_close called; freed when handles are closed */
};

struct db_conn;

struct db_conn_ops {
    void (*on_ready)(struct db_conn *c);
    void (*on_result)(struct db_conn *c, PGresult *res);
    /* The connection failed or was lost; `why` is a log-safe message. */
    void (*on_down)(struct db_conn *c, const char *why);
    void (*on_notify)(struct db_conn *c, PGnotify *n); /* may be NULL; callee PQfreemem()s */
};

struct db_conn_config {
    const char *conninfo;
    bool pipeline;
    int connect_timeout_ms;
    int statement_timeout_ms;
    const char *application_name;
};

int db_conn_new(uv_loop_t *loop, const struct db_conn_config *cfg, const struct db_conn_ops *ops,
                void *owner, struct db_conn **out) TE_MUSTCHECK;
void db_conn_start(struct db_conn *c);
PGconn *db_conn_pg(struct db_conn *c);
void *db_conn_owner(struct db_conn *c);
enum db_conn_state db_conn_state(const struct db_conn *c);
/* Records that `ends` result streams (NULL ends and syncs) were requested, then flushes. */
void db_conn_sent(struct db_conn *c, int ends);
/* Declares the connection broken (e.g. protocol confusion); it reconnects. */
void db_conn_fail(struct db_conn *c, const char *why);
/* Closes for good; `done` (may be NULL) runs after the handles are closed. */
void db_conn_close(struct db_conn *c, void (*done)(void *arg), void *arg);
/* Checks a conninfo string or URI without connecting. */
int db_conninfo_check(const char *conninfo, char *err, size_t errlen) TE_MUSTCHECK;

#endif
