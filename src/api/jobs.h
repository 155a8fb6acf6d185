/* Job JSON shared by the jobs and executions handlers. */
#ifndef TE_API_JOBS_H
#define TE_API_JOBS_H

#include "api/api.h"

/* Writes row `row` of a result selected with the jobs module's column list. */
int jobs_put_row(struct app *app, struct buf *b, const PGresult *res, int row) TE_MUSTCHECK;

/*
 * Reads an optional query parameter into out; `allowed` (NULL-terminated, or
 * NULL for any value) lists the accepted values. An invalid value answers 400
 * and returns -1.
 */
int jobs_query_filter(struct http_req *req, const char *name, char *out, size_t n,
                      const char *const *allowed, bool *present) TE_MUSTCHECK;

#endif
