#include "db/migrate.h"

#include "core/buf.h"
#include "core/log.h"
#include "db/conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Arbitrary constant naming taskexec's migration lock. */
#define MIGRATION_LOCK_KEY "7379023611"

enum migrate_phase {
    MIG_CONNECTING,
    MIG_LOCKING,  /* BEGIN, lock, read applied versions */
    MIG_APPLYING, /* pending migrations + COMMIT */
    MIG_DONE,
};

struct migrator {
    struct db_conn *dc;
    enum migrate_phase phase;
    bool retry;
    bool failed;
    char err[1024];
    bool applied[256];
    int max_applied;
    int applied_now;
    PGresult *last; /* the last row set of the command being read */
    void (*done)(void *arg, const char *err);
    void *arg;
};

static void mig_set_phase(struct migrator *m, enum migrate_phase ph)
{
    m->phase = ph;
}

static void mig_closed(void *arg)
{
    struct migrator *m = arg;
    m->done(m->arg, m->failed ? m->err : NULL);
    free(m);
}

static void mig_finish(struct migrator *m, const char *err)
{
    if (m->phase == MIG_DONE)
        return;
    mig_set_phase(m, MIG_DONE);
    if (err) {
        m->failed = true;
        snprintf(m->err, sizeof(m->err), "%s", err);
    }
    db_conn_close(m->dc, mig_closed, m);
}

static void mig_send(struct migrator *m, const char *sql)
{
    PGconn *pg = db_conn_pg(m->dc);
    if (!PQsendQuery(pg, sql)) {
        db_conn_fail(m->dc, PQerrorMessage(pg));
        return;
    }
    db_conn_sent(m->dc, 1);
}

static void mig_on_ready(struct db_conn *dc)
{
    struct migrator *m = db_conn_owner(dc);
    memset(m->applied, 0, sizeof(m->applied));
    mig_set_phase(m, MIG_LOCKING);
    mig_send(m, "BEGIN;"
                "SELECT pg_advisory_xact_lock(" MIGRATION_LOCK_KEY ");"
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                "  version INT NOT NULL PRIMARY KEY,"
                "  name TEXT NOT NULL,"
                "  applied_at TIMESTAMPTZ NOT NULL DEFAULT now());"
                "SELECT version FROM schema_migrations ORDER BY version;");
}

static int mig_build_pending(struct migrator *m, struct buf *sql)
{
    int rc = 0;
    for (int i = 0; i < db_migrations_count; i++) {
        const struct db_migration *mg = &db_migrations[i];
        if (mg->version < (int)TE_ARRAY_LEN(m->applied) && m->applied[mg->version])
            continue;
        rc |= buf_puts(sql, mg->sql);
        rc |=
            buf_printf(sql, ";\nINSERT INTO schema_migrations (version, name) VALUES (%d, '%s');\n",
                       mg->version, mg->name);
        m->applied_now++;
    }
    rc |= buf_puts(sql, "COMMIT;");
    return rc;
}

static void mig_locked(struct migrator *m, PGresult *versions)
{
    for (int r = 0; r < PQntuples(versions); r++) {
        int v = atoi(PQgetvalue(versions, r, 0));
        if (v > m->max_applied)
            m->max_applied = v;
        if (v >= 0 && v < (int)TE_ARRAY_LEN(m->applied))
            m->applied[v] = true;
    }
    int newest = db_migrations_count ? db_migrations[db_migrations_count - 1].version : 0;
    if (m->max_applied > newest) {
        char msg[160];
        snprintf(
            msg, sizeof(msg),
            "database schema version %d is newer than this binary knows (%d); upgrade taskexec",
            m->max_applied, newest);
        mig_finish(m, msg);
        return;
    }
    struct buf sql = BUF_INIT;
    m->applied_now = 0;
    if (mig_build_pending(m, &sql) < 0) {
        buf_free(&sql);
        mig_finish(m, "out of memory");
        return;
    }
    mig_set_phase(m, MIG_APPLYING);
    mig_send(m, sql.data);
    buf_free(&sql);
}

/*
 * Simple-protocol results arrive one per statement, then NULL. We keep the
 * last row set (the applied versions) and the first error.
 */
static void mig_on_result(struct db_conn *dc, PGresult *res)
{
    struct migrator *m = db_conn_owner(dc);
    if (res) {
        ExecStatusType st = PQresultStatus(res);
        if (st == PGRES_FATAL_ERROR && !m->failed) {
            m->failed = true;
            snprintf(m->err, sizeof(m->err), "migration failed: %s", PQresultErrorMessage(res));
        }
        if (st == PGRES_TUPLES_OK) {
            PQclear(m->last);
            m->last = res;
        } else {
            PQclear(res);
        }
        return;
    }
    PGresult *last = m->last;
    m->last = NULL;
    if (m->failed) {
        char msg[1024];
        snprintf(msg, sizeof(msg), "%s", m->err);
        m->failed = false;
        PQclear(last);
        mig_finish(m, msg);
        return;
    }
    if (m->phase == MIG_LOCKING && last) {
        mig_locked(m, last);
    } else if (m->phase == MIG_APPLYING) {
        if (m->applied_now)
            log_info("database: applied %d migration(s); schema at version %d", m->applied_now,
                     db_migrations[db_migrations_count - 1].version);
        mig_finish(m, NULL);
    } else {
        mig_finish(m, "unexpected reply while reading schema_migrations");
    }
    PQclear(last);
}

static void mig_on_down(struct db_conn *dc, const char *why)
{
    struct migrator *m = db_conn_owner(dc);
    PQclear(m->last);
    m->last = NULL;
    if (m->retry) {
        log_warn("database: migrations waiting for the database: %s", why);
        mig_set_phase(m, MIG_CONNECTING);
        return;
    }
    char msg[600];
    snprintf(msg, sizeof(msg), "cannot reach the database: %s", why);
    mig_finish(m, msg);
}

static const struct db_conn_ops mig_ops = {
    .on_ready = mig_on_ready,
    .on_result = mig_on_result,
    .on_down = mig_on_down,
};

int db_migrate_start(uv_loop_t *loop, const struct db_migrate_config *cfg,
                     void (*done)(void *arg, const char *err), void *arg)
{
    struct migrator *m = calloc(1, sizeof(*m));
    if (!m)
        return -1;
    m->retry = cfg->retry;
    m->done = done;
    m->arg = arg;
    struct db_conn_config cc = {
        .conninfo = cfg->conninfo,
        .pipeline = false,
        .connect_timeout_ms = cfg->connect_timeout_ms,
        .statement_timeout_ms = 0,
        .application_name = "taskexec-migrate",
    };
    if (db_conn_new(loop, &cc, &mig_ops, m, &m->dc) < 0) {
        free(m);
        return -1;
    }
    db_conn_start(m->dc);
    return 0;
}
