#include "domain/health.h"

/* failed / finished < 1 / den, without computing failed * den when it could overflow. */
static bool rate_below(uint64_t failed, uint64_t finished, uint64_t den)
{
    if (failed > finished / den)
        return false; /* failed * den >= den * (finished / den + 1) > finished */
    return failed * den < finished;
}

static enum job_health by_rate(uint64_t failed, uint64_t finished)
{
    if (finished == 0)
        return HEALTH_IDLE;
    if (rate_below(failed, finished, 20))
        return HEALTH_HEALTHY;
    if (rate_below(failed, finished, 2))
        return HEALTH_DEGRADED;
    return HEALTH_FAILING;
}

enum job_health health_classify(const struct health_stats *s)
{
    uint64_t ok = s->succeeded > 0 ? (uint64_t)s->succeeded : 0;
    uint64_t failed = s->failed > 0 ? (uint64_t)s->failed : 0;
    enum job_health h = by_rate(failed, ok + failed);
    if (s->failure_streak >= HEALTH_STREAK && (h == HEALTH_IDLE || h == HEALTH_HEALTHY))
        h = HEALTH_DEGRADED;
    return h;
}

const char *health_name(enum job_health h)
{
    switch (h) {
    case HEALTH_IDLE:
        return "IDLE";
    case HEALTH_HEALTHY:
        return "HEALTHY";
    case HEALTH_DEGRADED:
        return "DEGRADED";
    case HEALTH_FAILING:
        return "FAILING";
    }
    return "?";
}

int64_t health_p99(const int64_t *sorted, size_t n)
{
    if (n == 0)
        return -1;
    return sorted[n - n / 100 - 1]; /* ceil(0.99 n) = n - floor(n / 100) */
}
