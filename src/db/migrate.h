/*
 * Schema migrations: the numbered files in schema/ are embedded at build time
 * (build/gen/migrations.c) and applied in one transaction under a
 * transaction-scoped advisory lock, each recorded in schema_migrations, so
 * replicas starting together apply every migration exactly once.
 */
#ifndef TE_DB_MIGRATE_H
#define TE_DB_MIGRATE_H

#include "core/common.h"

#include <uv.h>

struct db_migration {
    int version;
    const char *name;
    const char *sql;
};

extern const struct db_migration db_migrations[];
extern const int db_migrations_count;

struct db_migrate_config {
    const char *conninfo;
    int connect_timeout_ms;
    bool retry; /* keep retrying while the database is unreachable */
};

/* done(arg, err): err NULL on success, else a message. Called exactly once if this returns 0. */
int db_migrate_start(uv_loop_t *loop, const struct db_migrate_config *cfg,
                     void (*done)(void *arg, const char *err), void *arg) TE_MUSTCHECK;

#endif
