/*
 * The operations the four named setup resources (payload specs, configs,
 * secrets, endpoints) share: get, list, delete-unless-referenced, and
 * insert/update returning the row. Each resource supplies its statements and
 * a row writer.
 */
#ifndef TE_API_RESOURCE_H
#define TE_API_RESOURCE_H

#include "api/api.h"

struct resource {
    const char *title;      /* "Payload spec" — for messages */
    const char *not_found;  /* "PAYLOAD_SPEC_NOT_FOUND" */
    struct db_stmt *get;    /* $1 name → the row */
    struct db_stmt *list;   /* $1 after-name or NULL, $2 limit+1 → rows by name */
    struct db_stmt *del;    /* $1 name → (deleted INT8, dependents TEXT or NULL) */
    const char *dependents; /* "endpoints" — what blocks a delete */
    /* Writes one row (as selected by get/list/writes) as a JSON object. */
    int (*put_row)(struct buf *b, const PGresult *res, int row);
    /* Answers a foreign-key violation of a write; NULL → 500. */
    void (*on_fk)(struct http_req *req, const PGresult *res);
};

void resource_get(struct http_req *req, const struct resource *r, const char *name);
void resource_list(struct http_req *req, const struct resource *r);
void resource_delete(struct http_req *req, const struct resource *r, const char *name);
/*
 * Runs an INSERT or UPDATE ... RETURNING the row; answers `status` with it,
 * 404 when no row matched, 409 CONFLICT on a duplicate name.
 */
void resource_write(struct http_req *req, const struct resource *r, struct db_stmt *stmt, int n,
                    const char *const *params, const char *name, int status);

/*
 * The name a write is about: for a create (path_name NULL) the body's "name",
 * for an update the path's (a body "name" must then match). Answers 400 and
 * returns NULL when missing or mismatched.
 */
const char *resource_body_name(struct http_req *req, const cJSON *body, const char *path_name);

/*
 * Validates a {"name"?, <field>} body and turns the field's value into the
 * statement's second parameter (malloc'd text); answers the request itself
 * and returns -1 when the value is not acceptable.
 */
typedef int (*resource_value_fn)(struct http_req *req, const char *name, const cJSON *value,
                                 char **param);

/*
 * POST (path_name NULL: the name comes from the body; runs `insert`, 201) or
 * PUT (the path's name; a body name must match; runs `update`, 200) of a
 * resource whose body is {"name", <field>}. Both statements take ($1 name, $2 value).
 */
void resource_put_value(struct http_req *req, const struct resource *r, const char *path_name,
                        const char *field, resource_value_fn value_fn, struct db_stmt *insert,
                        struct db_stmt *update);

#endif
