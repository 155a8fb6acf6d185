/*
 * Delay before the next attempt of a failed delivery: the brief's
 * compute_backoff, made pure by taking the random number as an argument.
 */
#ifndef TE_DOMAIN_BACKOFF_H
#define TE_DOMAIN_BACKOFF_H

#include "core/common.h"
#include "domain/endpoint.h"

/*
 * `attempt` is the 1-based number of the attempt that just failed (values
 * below 1 count as 1). The base delay is
 *     fixed:        initial
 *     linear:       initial * attempt
 *     exponential:  initial * 2^(attempt - 1)
 * saturating instead of overflowing for any attempt. Jitter then adds an
 * offset in [-(base/4), +(base/4)] (integer division, as in the brief) chosen
 * by `random` scaled onto that range: 0 gives the lowest offset, UINT32_MAX the
 * highest. The result is clamped to [0, max_delay_ms]; a negative initial or
 * max delay counts as 0.
 */
int64_t backoff_delay_ms(const struct retry_policy *p, int attempt, uint32_t random);

#endif
