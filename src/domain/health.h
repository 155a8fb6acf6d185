/*
 * Job health for GET /jobs/{id}/status: HEALTHY (mostly succeeding),
 * DEGRADED (elevated failures), FAILING (mostly failing), IDLE (no recent
 * executions), from the job's last-24h counts.
 */
#ifndef TE_DOMAIN_HEALTH_H
#define TE_DOMAIN_HEALTH_H

#include "core/common.h"

enum job_health { HEALTH_IDLE, HEALTH_HEALTHY, HEALTH_DEGRADED, HEALTH_FAILING };

/* A failure streak this long makes a job at least DEGRADED. */
#define HEALTH_STREAK 3

struct health_stats {
    int64_t succeeded; /* executions finished SUCCESS in the last 24 h */
    int64_t failed;    /* executions finished FAILED in the last 24 h */
    /*
     * How many of the job's most recent finished executions failed in a row,
     * whatever their age (counting may stop at HEALTH_STREAK).
     */
    int64_t failure_streak;
};

/*
 * Only finished executions count: pending, running or cancelled ones say
 * nothing about the endpoint. With finished = succeeded + failed over 24 h:
 *     finished == 0              IDLE
 *     failed / finished <  5 %   HEALTHY
 *     failed / finished < 50 %   DEGRADED
 *     otherwise (>= 50 %)        FAILING
 * then a failure_streak >= HEALTH_STREAK turns IDLE or HEALTHY into DEGRADED:
 * a job failing its last runs is not healthy however good its day was, and a
 * weekly job whose last three runs failed must not hide behind IDLE.
 * Negative counts count as 0. Exact integer arithmetic, no overflow.
 */
enum job_health health_classify(const struct health_stats *s);
/* "HEALTHY", "DEGRADED", "FAILING", "IDLE": the API's values. */
const char *health_name(enum job_health h);
/*
 * Nearest-rank 99th percentile of n values sorted ascending: the value at
 * rank ceil(0.99 n). -1 when n == 0.
 */
int64_t health_p99(const int64_t *sorted, size_t n);

#endif
