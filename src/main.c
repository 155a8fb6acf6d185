/*
 * taskexec: argv, wiring, signals and shutdown order. Everything runs on one
 * libuv loop; see docs/ and DESIGN.md for the architecture.
 */
#include "api/api.h"
#include "core/config.h"
#include "core/log.h"
#include "crypto/crypto.h"
#include "db/conn.h"
#include "db/db.h"
#include "db/migrate.h"
#include "domain/tz.h"
#include "http/http.h"
#include "scheduler/scheduler.h"
#include "worker/worker.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TASKEXEC_VERSION "0.1.0"
#define SHUTDOWN_POLL_MS 50

enum run_state { RUN_STARTING, RUN_SERVING, RUN_DRAINING, RUN_CLOSING, RUN_DONE };

struct proc {
    uv_loop_t *loop;
    struct config cfg;
    struct app app;
    struct http_server *http;
    struct worker *worker;
    struct scheduler *sched; /* NULL until the schema is ready, and again once stopped */
    uv_signal_t sigint, sigterm;
    uv_timer_t shutdown_timer;
    uint64_t shutdown_deadline;
    enum run_state state;
    int exit_code;
    int closes_pending;
};

static struct proc P;

static void proc_set_state(struct proc *p, enum run_state s)
{
    p->state = s;
}

static void fatal_config(const char *msg)
{
    fprintf(stderr, "taskexec: %s\n", msg);
    exit(2);
}

static void on_closed_step(void *arg)
{
    struct proc *p = arg;
    if (--p->closes_pending == 0)
        proc_set_state(p, RUN_DONE);
}

static void on_handle_closed(uv_handle_t *h)
{
    on_closed_step(h->data);
}

static void on_sched_stopped(void *arg)
{
    struct proc *p = arg;
    p->sched = NULL;
}

/* Closes every handle; uv_run returns once they are gone. */
static void proc_close_all(struct proc *p)
{
    proc_set_state(p, RUN_CLOSING);
    p->closes_pending = 4;
    uv_close((uv_handle_t *)&p->sigint, on_handle_closed);
    uv_close((uv_handle_t *)&p->sigterm, on_handle_closed);
    uv_close((uv_handle_t *)&p->shutdown_timer, on_handle_closed);
    if (p->http) {
        p->closes_pending++;
        http_server_close(p->http, on_closed_step, p);
        p->http = NULL;
    }
    if (p->worker) {
        p->closes_pending++;
        worker_close(p->worker, on_closed_step, p);
        p->worker = NULL;
    }
    if (p->sched) /* before the pool closes; a no-op when already stopping */
        scheduler_stop(p->sched, on_sched_stopped, p);
    db_pool_close(p->app.db, on_closed_step, p);
}

static void on_shutdown_tick(uv_timer_t *t)
{
    struct proc *p = t->data;
    bool idle = (!p->http || http_server_open_connections(p->http) == 0) &&
                (!p->worker || worker_inflight(p->worker) == 0) && !p->sched &&
                db_pool_busy(p->app.db) == 0;
    if (idle || uv_now(p->loop) >= p->shutdown_deadline) {
        if (!idle)
            log_warn("shutdown: deadline reached with work in flight");
        uv_timer_stop(t);
        proc_close_all(p);
    }
}

static void begin_shutdown(struct proc *p, const char *why)
{
    if (p->state == RUN_DRAINING || p->state == RUN_CLOSING || p->state == RUN_DONE) {
        log_warn("shutdown: second signal, closing now");
        if (p->state == RUN_DRAINING) {
            uv_timer_stop(&p->shutdown_timer);
            proc_close_all(p);
        }
        return;
    }
    log_info("shutdown: %s received; draining", why);
    proc_set_state(p, RUN_DRAINING);
    p->app.draining = true;
    if (p->http)
        http_server_stop_accepting(p->http);
    if (p->worker)
        worker_drain(p->worker);
    if (p->sched)
        scheduler_stop(p->sched, on_sched_stopped, p);
    p->shutdown_deadline = uv_now(p->loop) + (uint64_t)p->cfg.worker_shutdown_timeout_sec * 1000;
    uv_timer_start(&p->shutdown_timer, on_shutdown_tick, 0, SHUTDOWN_POLL_MS);
}

static void on_signal(uv_signal_t *s, int signum)
{
    begin_shutdown(s->data, signum == SIGINT ? "SIGINT" : "SIGTERM");
}

/* The engine starts once the schema is there. */
static void start_engine(struct proc *p)
{
    if ((p->cfg.roles & ROLE_WORKER) && p->state != RUN_DRAINING &&
        worker_start(p->loop, p->app.db, &p->cfg, &p->app.secret_key, &p->worker) < 0) {
        p->exit_code = 1;
        begin_shutdown(p, "worker failure");
    }
    if ((p->cfg.roles & ROLE_SCHEDULER) && (p->state == RUN_STARTING || p->state == RUN_SERVING) &&
        scheduler_start(p->loop, p->app.db, p->app.tz, &p->cfg, &p->sched) < 0) {
        p->exit_code = 1;
        begin_shutdown(p, "scheduler failure");
    }
}

static void on_migrated(void *arg, const char *err)
{
    struct proc *p = arg;
    if (err) {
        log_error("database: %s", err);
        p->exit_code = 1;
        if (p->state == RUN_STARTING || p->state == RUN_SERVING)
            begin_shutdown(p, "migration failure");
        return;
    }
    p->app.schema_ready = true;
    log_info("database: schema ready");
    start_engine(p);
}

static void load_secrets(struct proc *p)
{
    char err[256];
    if (!p->cfg.secret_encryption_key)
        fatal_config("TE_SECRET_ENCRYPTION_KEY is not set (32 bytes as 64 hex digits or "
                     "base64; e.g. `openssl rand -hex 32`)");
    if (secret_key_parse(p->cfg.secret_encryption_key, &p->app.secret_key) < 0)
        fatal_config("TE_SECRET_ENCRYPTION_KEY must be 32 bytes as 64 hex digits or base64");
    if (p->cfg.roles & ROLE_API) {
        if (api_keys_load(p->cfg.api_keys, p->cfg.api_keys_file, &p->app.keys, err, sizeof(err)) <
            0)
            fatal_config(err);
    }
}

static int start_http(struct proc *p)
{
    struct http_server_config hc = {
        .listen_addr = p->cfg.listen_addr,
        .max_header_bytes = (size_t)p->cfg.max_header_bytes,
        .max_body_bytes = (size_t)p->cfg.max_body_bytes,
        .max_connections = (unsigned)p->cfg.max_connections,
        .idle_timeout_ms = (unsigned)p->cfg.http_idle_timeout_sec * 1000,
        .request_timeout_ms = (unsigned)p->cfg.http_request_timeout_sec * 1000,
        .on_request = api_on_request,
        .app = &p->app,
    };
    if (http_server_start(p->loop, &hc, &p->http) < 0) {
        log_error("http: cannot listen on %s", p->cfg.listen_addr);
        return -1;
    }
    return 0;
}

static int start_db(struct proc *p)
{
    struct db_pool_config pc = {
        .conninfo = p->cfg.database_url,
        .size = p->cfg.db_pool_size,
        .connect_timeout_ms = p->cfg.db_connect_timeout_ms,
        .statement_timeout_ms = p->cfg.db_statement_timeout_ms,
        .queue_max = p->cfg.db_queue_max,
    };
    if (db_pool_new(p->loop, &pc, &p->app.db) < 0) {
        log_error("database: cannot create the connection pool");
        return -1;
    }
    if (!p->cfg.auto_migrate) {
        p->app.schema_ready = true;
        start_engine(p);
        return 0;
    }
    struct db_migrate_config mc = {p->cfg.database_url, p->cfg.db_connect_timeout_ms, true};
    return db_migrate_start(p->loop, &mc, on_migrated, p);
}

static int serve(struct proc *p)
{
    p->loop = uv_default_loop();
    p->app.loop = p->loop;
    p->app.cfg = &p->cfg;
    p->app.worker = &p->worker;
    p->app.sched = &p->sched;
    if (tz_cache_new(p->cfg.zoneinfo_dir, &p->app.tz) < 0) {
        log_error("cannot create the time zone cache");
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    uv_signal_init(p->loop, &p->sigint);
    uv_signal_init(p->loop, &p->sigterm);
    uv_timer_init(p->loop, &p->shutdown_timer);
    p->sigint.data = p->sigterm.data = p->shutdown_timer.data = p;
    uv_signal_start(&p->sigint, on_signal, SIGINT);
    uv_signal_start(&p->sigterm, on_signal, SIGTERM);
    if (start_db(p) < 0)
        return 1;
    if ((p->cfg.roles & ROLE_API) && start_http(p) < 0) {
        p->exit_code = 1;
        proc_close_all(p);
    } else {
        proc_set_state(p, RUN_SERVING);
        log_info("taskexec %s started (roles: %s, worker id %s)", TASKEXEC_VERSION,
                 p->cfg.roles_str, p->cfg.worker_id);
    }
    uv_run(p->loop, UV_RUN_DEFAULT);
    int rc = uv_loop_close(p->loop);
    if (rc != 0)
        log_warn("event loop closed with open handles: %s", uv_strerror(rc));
    api_keys_free(p->app.keys);
    tz_cache_free(p->app.tz);
    secret_key_wipe(&p->app.secret_key);
    log_info("taskexec stopped");
    return p->exit_code;
}

static void on_migrate_cmd_done(void *arg, const char *err)
{
    struct proc *p = arg;
    if (err) {
        fprintf(stderr, "taskexec migrate: %s\n", err);
        p->exit_code = 1;
    } else {
        log_info("migrations: schema is up to date");
    }
}

static int migrate_cmd(struct proc *p)
{
    p->loop = uv_default_loop();
    struct db_migrate_config mc = {p->cfg.database_url, p->cfg.db_connect_timeout_ms, false};
    if (db_migrate_start(p->loop, &mc, on_migrate_cmd_done, p) < 0)
        return 1;
    uv_run(p->loop, UV_RUN_DEFAULT);
    uv_loop_close(p->loop);
    return p->exit_code;
}

int main(int argc, char **argv)
{
    char err[512];
    const char *cmd = argc > 1 ? argv[1] : "serve";
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        config_print_help(argv[0]);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("taskexec %s\n", TASKEXEC_VERSION);
        return 0;
    }
    if (strcmp(cmd, "serve") != 0 && strcmp(cmd, "migrate") != 0) {
        fprintf(stderr, "taskexec: unknown command '%s' (try --help)\n", cmd);
        return 2;
    }
    if (config_load(&P.cfg, err, sizeof(err)) < 0)
        fatal_config(err);
    enum log_level lvl = LOG_INFO;
    if (log_level_parse(P.cfg.log_level, &lvl) < 0)
        fatal_config("TE_LOG_LEVEL: invalid");
    log_setup(lvl, strcmp(P.cfg.log_format, "json") == 0);
    if (crypto_init() < 0)
        fatal_config("cannot initialise libsodium");
    if (!P.cfg.database_url || !*P.cfg.database_url)
        fatal_config("TE_DATABASE_URL is not set (a PostgreSQL URI such as "
                     "postgresql://user@host:5432/taskexec)");
    if (db_conninfo_check(P.cfg.database_url, err, sizeof(err)) < 0) {
        char msg[600];
        snprintf(msg, sizeof(msg), "TE_DATABASE_URL: %s", err);
        fatal_config(msg);
    }
    int rc;
    if (strcmp(cmd, "migrate") == 0) {
        rc = migrate_cmd(&P);
    } else {
        load_secrets(&P);
        rc = serve(&P);
    }
    config_free(&P.cfg);
    return rc;
}
