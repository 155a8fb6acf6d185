#include "db/db.h"

#include "core/log.h"
#include "db/conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DB_MAX_STMTS 512

const char DB_ERR_QUERY[] = "query failed";
const char DB_ERR_UNAVAILABLE[] = "database unavailable";

static struct db_stmt *stmt_by_slot[DB_MAX_STMTS + 1];
static int stmt_slots_used;

/* One expected result stream of a job in flight: a PREPARE or an EXECUTE. */
struct job_item {
    int stmt;
    bool prepare;
};

struct db_job {
    struct db_job *next;
    db_cb cb;
    db_batch_cb bcb;
    void *arg;
    int n;
    struct db_call *calls; /* params point into this allocation */
    PGresult **results;
    struct job_item *items;
    int nitems;
    int item; /* the stream now being read */
    bool failed;
};

struct pool_conn {
    struct db_pool *pool;
    struct db_conn *dc;
    struct db_job *job;
    bool ready;
    uint8_t prepared[DB_MAX_STMTS / 8 + 1];
};

struct db_pool {
    uv_loop_t *loop;
    struct pool_conn *conns;
    int size;
    int n_ready;
    bool down; /* no connection works and an attempt failed: refuse jobs at once */
    bool closing;
    struct db_job *head, *tail;
    unsigned queued;
    unsigned inflight;
    unsigned queue_max;
    int closes_pending;
    void (*close_done)(void *);
    void *close_arg;
};

static void pool_dispatch(struct db_pool *p);

const char *db_sqlstate(const PGresult *res)
{
    const char *s = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    return s ? s : "";
}

const char *db_errmsg(const PGresult *res)
{
    const char *s = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    return s ? s : "";
}

bool db_pool_ready(const struct db_pool *p)
{
    return p->n_ready > 0;
}

unsigned db_pool_busy(const struct db_pool *p)
{
    return p->queued + p->inflight;
}

static int stmt_slot(struct db_stmt *s)
{
    if (s->slot)
        return s->slot;
    if (stmt_slots_used >= DB_MAX_STMTS)
        return -1;
    s->slot = ++stmt_slots_used;
    stmt_by_slot[s->slot] = s;
    return s->slot;
}

static bool conn_has_prepared(const struct pool_conn *pc, int slot)
{
    return pc->prepared[slot / 8] & (1u << (slot % 8));
}

static void conn_mark_prepared(struct pool_conn *pc, int slot, bool on)
{
    if (on)
        pc->prepared[slot / 8] |= (uint8_t)(1u << (slot % 8));
    else
        pc->prepared[slot / 8] &= (uint8_t) ~(1u << (slot % 8));
}

static void job_free(struct db_job *j)
{
    if (j->results) {
        for (int i = 0; i < j->n; i++)
            PQclear(j->results[i]);
    }
    free(j);
}

/* Runs the job's callback once, then frees it. */
static void job_finish(struct db_job *j, const char *err)
{
    PGresult *first = j->results[0];
    if (err == DB_ERR_QUERY) {
        /* Pass the failing statement's error result. */
        for (int i = 0; i < j->n; i++) {
            ExecStatusType st = j->results[i] ? PQresultStatus(j->results[i]) : PGRES_EMPTY_QUERY;
            if (st == PGRES_FATAL_ERROR || st == PGRES_NONFATAL_ERROR || st == PGRES_BAD_RESPONSE) {
                first = j->results[i];
                break;
            }
        }
    }
    if (j->bcb)
        j->bcb(j->arg, err, j->results, j->n);
    else
        j->cb(j->arg, err, err == DB_ERR_UNAVAILABLE ? NULL : first);
    job_free(j);
}

/* Copies calls and their parameters into one allocation owned by the job. */
static struct db_job *job_new(const struct db_call *calls, int n)
{
    size_t strings = 0, nparams = 0;
    for (int i = 0; i < n; i++) {
        nparams += (size_t)calls[i].nparams;
        for (int k = 0; k < calls[i].nparams; k++)
            strings += calls[i].params[k] ? strlen(calls[i].params[k]) + 1 : 0;
    }
    size_t size = sizeof(struct db_job) + (size_t)n * sizeof(struct db_call) +
                  (size_t)n * sizeof(PGresult *) + (size_t)n * 2 * sizeof(struct job_item) +
                  nparams * sizeof(char *) + strings;
    struct db_job *j = calloc(1, size);
    if (!j)
        return NULL;
    char *mem = (char *)(j + 1);
    j->n = n;
    j->calls = (struct db_call *)mem;
    mem += (size_t)n * sizeof(struct db_call);
    j->results = (PGresult **)mem;
    mem += (size_t)n * sizeof(PGresult *);
    j->items = (struct job_item *)mem;
    mem += (size_t)n * 2 * sizeof(struct job_item);
    const char **pv = (const char **)mem;
    char *str = mem + nparams * sizeof(char *);
    for (int i = 0; i < n; i++) {
        j->calls[i].stmt = calls[i].stmt;
        j->calls[i].nparams = calls[i].nparams;
        j->calls[i].params = pv;
        for (int k = 0; k < calls[i].nparams; k++) {
            const char *v = calls[i].params[k];
            if (v) {
                size_t len = strlen(v) + 1;
                memcpy(str, v, len);
                *pv++ = str;
                str += len;
            } else {
                *pv++ = NULL;
            }
        }
    }
    return j;
}

static void conn_send_job(struct pool_conn *pc, struct db_job *j)
{
    PGconn *pg = db_conn_pg(pc->dc);
    char name[16];
    pc->job = j;
    j->nitems = 0;
    j->item = 0;
    for (int i = 0; i < j->n; i++) {
        const struct db_call *c = &j->calls[i];
        int slot = c->stmt->slot;
        snprintf(name, sizeof(name), "te%d", slot);
        if (!conn_has_prepared(pc, slot)) {
            if (!PQsendPrepare(pg, name, c->stmt->sql, 0, NULL))
                goto broken;
            conn_mark_prepared(pc, slot, true);
            j->items[j->nitems++] = (struct job_item){i, true};
        }
        if (!PQsendQueryPrepared(pg, name, c->nparams, c->params, NULL, NULL, 0))
            goto broken;
        j->items[j->nitems++] = (struct job_item){i, false};
    }
    if (!PQpipelineSync(pg))
        goto broken;
    db_conn_sent(pc->dc, j->nitems + 1);
    return;
broken:
    db_conn_fail(pc->dc, PQerrorMessage(pg));
}

static struct pool_conn *pool_idle_conn(struct db_pool *p)
{
    for (int i = 0; i < p->size; i++) {
        struct pool_conn *pc = &p->conns[i];
        if (pc->ready && !pc->job)
            return pc;
    }
    return NULL;
}

static void pool_dispatch(struct db_pool *p)
{
    struct pool_conn *pc;
    while (p->head && (pc = pool_idle_conn(p)) != NULL) {
        struct db_job *j = p->head;
        p->head = j->next;
        if (!p->head)
            p->tail = NULL;
        p->queued--;
        p->inflight++;
        conn_send_job(pc, j);
    }
}

static int pool_submit(struct db_pool *p, struct db_job *j)
{
    if (p->closing || (p->n_ready == 0 && p->down) || p->queued >= p->queue_max) {
        job_free(j);
        return -1;
    }
    j->next = NULL;
    if (p->tail)
        p->tail->next = j;
    else
        p->head = j;
    p->tail = j;
    p->queued++;
    pool_dispatch(p);
    return 0;
}

int db_exec_batch(struct db_pool *p, const struct db_call *calls, int n, db_batch_cb cb, void *arg)
{
    if (n <= 0)
        return -1;
    for (int i = 0; i < n; i++) {
        if (stmt_slot(calls[i].stmt) < 0) {
            log_error("db: too many distinct statements (max %d)", DB_MAX_STMTS);
            return -1;
        }
    }
    struct db_job *j = job_new(calls, n);
    if (!j)
        return -1;
    j->bcb = cb;
    j->arg = arg;
    return pool_submit(p, j);
}

int db_exec(struct db_pool *p, struct db_stmt *stmt, int nparams, const char *const *params,
            db_cb cb, void *arg)
{
    struct db_call call = {stmt, nparams, params};
    if (stmt_slot(stmt) < 0)
        return -1;
    struct db_job *j = job_new(&call, 1);
    if (!j)
        return -1;
    j->cb = cb;
    j->arg = arg;
    return pool_submit(p, j);
}

static void fail_queue(struct db_pool *p)
{
    struct db_job *j = p->head;
    p->head = p->tail = NULL;
    p->queued = 0;
    while (j) {
        struct db_job *next = j->next;
        job_finish(j, DB_ERR_UNAVAILABLE);
        j = next;
    }
}

static void on_conn_ready(struct db_conn *dc)
{
    struct pool_conn *pc = db_conn_owner(dc);
    struct db_pool *p = pc->pool;
    memset(pc->prepared, 0, sizeof(pc->prepared));
    pc->ready = true;
    if (p->n_ready++ == 0)
        log_info("database: connected%s", p->down ? " again" : "");
    p->down = false;
    pool_dispatch(p);
}

static void on_conn_down(struct db_conn *dc, const char *why)
{
    struct pool_conn *pc = db_conn_owner(dc);
    struct db_pool *p = pc->pool;
    struct db_job *j = pc->job;
    if (pc->ready) {
        pc->ready = false;
        p->n_ready--;
        log_warn("database: connection lost (%d left): %s", p->n_ready, why);
    } else if (!p->down) {
        log_warn("database: cannot connect: %s", why);
    } else {
        log_debug("database: cannot connect: %s", why);
    }
    pc->job = NULL;
    if (p->n_ready == 0) {
        p->down = true;
        fail_queue(p);
    }
    if (j) {
        p->inflight--;
        job_finish(j, DB_ERR_UNAVAILABLE);
    }
}

/* Attaches one result to the job item being read; NULL ends the item, SYNC the job. */
static void on_conn_result(struct db_conn *dc, PGresult *res)
{
    struct pool_conn *pc = db_conn_owner(dc);
    struct db_job *j = pc->job;
    if (!j) {
        PQclear(res);
        db_conn_fail(dc, "unexpected result from the database");
        return;
    }
    if (!res) {
        j->item++;
        return;
    }
    ExecStatusType st = PQresultStatus(res);
    if (st == PGRES_PIPELINE_SYNC) {
        PQclear(res);
        pc->job = NULL;
        pc->pool->inflight--;
        job_finish(j, j->failed ? DB_ERR_QUERY : NULL);
        if (db_conn_state(dc) == DBC_READY)
            pool_dispatch(pc->pool);
        return;
    }
    if (j->item >= j->nitems) {
        PQclear(res);
        db_conn_fail(dc, "database sent more results than expected");
        return;
    }
    struct job_item *it = &j->items[j->item];
    bool error = st == PGRES_FATAL_ERROR || st == PGRES_BAD_RESPONSE;
    if (error)
        j->failed = true;
    if (st == PGRES_PIPELINE_ABORTED) {
        j->failed = true;
        PQclear(res);
    } else if (it->prepare) {
        if (error) {
            conn_mark_prepared(pc, j->calls[it->stmt].stmt->slot, false);
            PQclear(j->results[it->stmt]);
            j->results[it->stmt] = res;
        } else {
            PQclear(res);
        }
    } else {
        /* Keep a failed PREPARE's error: it explains why this EXECUTE did not run. */
        PGresult *prev = j->results[it->stmt];
        if (prev && PQresultStatus(prev) == PGRES_FATAL_ERROR) {
            PQclear(res);
        } else {
            PQclear(prev);
            j->results[it->stmt] = res;
        }
    }
}

static const struct db_conn_ops pool_conn_ops = {
    .on_ready = on_conn_ready,
    .on_result = on_conn_result,
    .on_down = on_conn_down,
    .on_notify = NULL,
};

int db_pool_new(uv_loop_t *loop, const struct db_pool_config *cfg, struct db_pool **out)
{
    struct db_pool *p = calloc(1, sizeof(*p));
    if (!p)
        return -1;
    p->loop = loop;
    p->size = cfg->size;
    p->queue_max = (unsigned)cfg->queue_max;
    p->conns = calloc((size_t)cfg->size, sizeof(*p->conns));
    if (!p->conns)
        goto fail;
    struct db_conn_config cc = {
        .conninfo = cfg->conninfo,
        .pipeline = true,
        .connect_timeout_ms = cfg->connect_timeout_ms,
        .statement_timeout_ms = cfg->statement_timeout_ms,
        .application_name = "taskexec",
    };
    for (int i = 0; i < p->size; i++) {
        p->conns[i].pool = p;
        if (db_conn_new(loop, &cc, &pool_conn_ops, &p->conns[i], &p->conns[i].dc) < 0)
            goto fail;
    }
    for (int i = 0; i < p->size; i++)
        db_conn_start(p->conns[i].dc);
    *out = p;
    return 0;
fail:
    for (int i = 0; p->conns && i < p->size; i++) {
        if (p->conns[i].dc)
            db_conn_close(p->conns[i].dc, NULL, NULL);
    }
    free(p->conns);
    free(p);
    return -1;
}

static void on_conn_closed(void *arg)
{
    struct db_pool *p = arg;
    if (--p->closes_pending > 0)
        return;
    void (*done)(void *) = p->close_done;
    void *darg = p->close_arg;
    free(p->conns);
    free(p);
    if (done)
        done(darg);
}

void db_pool_close(struct db_pool *p, void (*done)(void *arg), void *arg)
{
    p->closing = true;
    p->close_done = done;
    p->close_arg = arg;
    fail_queue(p);
    p->closes_pending = p->size;
    for (int i = 0; i < p->size; i++) {
        struct pool_conn *pc = &p->conns[i];
        struct db_job *j = pc->job;
        pc->job = NULL;
        pc->ready = false;
        if (j) {
            p->inflight--;
            job_finish(j, DB_ERR_UNAVAILABLE);
        }
        db_conn_close(pc->dc, on_conn_closed, p);
    }
}
