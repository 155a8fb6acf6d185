/* Job JSON shared by the jobs and executions handlers. */
#ifndef TE_API_JOBS_H
#define TE_API_JOBS_H

#include "api/api.h"

/* Writes row `row` of a result selected with the jobs module's column list. */
int jobs_put_row(struct app *app, struct buf *b, const PGresult *res, int row) TE_MUSTCHECK;

#endif
