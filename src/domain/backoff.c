#include "domain/backoff.h"

/*
 * Bases saturate at BASE_CAP: far above any max_delay_ms (validated to at most
 * RETRY_MAX_DELAY_MS), so the clamp still gives max_delay_ms, while
 * base + base/4 cannot overflow.
 */
#define BASE_CAP (INT64_MAX / 4)

static int64_t base_delay(const struct retry_policy *p, int attempt)
{
    int64_t initial = p->initial_delay_ms > 0 ? p->initial_delay_ms : 0;
    if (initial > BASE_CAP)
        return BASE_CAP;
    switch (p->backoff) {
    case BACKOFF_FIXED:
        return initial;
    case BACKOFF_LINEAR:
        return initial > BASE_CAP / attempt ? BASE_CAP : initial * attempt;
    case BACKOFF_EXPONENTIAL:
        if (initial == 0)
            return 0;
        if (attempt - 1 >= 62 || initial > BASE_CAP >> (attempt - 1))
            return BASE_CAP;
        return initial << (attempt - 1);
    }
    return initial;
}

/* floor(span * random / 2^32) without 128-bit arithmetic: span < 2^62, random < 2^32. */
static uint64_t scale(uint64_t span, uint32_t random)
{
    return (span >> 32) * random + (((span & 0xFFFFFFFFu) * random) >> 32);
}

int64_t backoff_delay_ms(const struct retry_policy *p, int attempt, uint32_t random)
{
    int64_t base = base_delay(p, attempt < 1 ? 1 : attempt);
    int64_t quarter = base / 4;
    uint64_t span = 2 * (uint64_t)quarter + 1;
    int64_t delay = base - quarter + (int64_t)scale(span, random); /* >= 0: base is */
    int64_t max = p->max_delay_ms > 0 ? p->max_delay_ms : 0;
    return delay > max ? max : delay;
}
