/* Wall-clock time as Unix milliseconds, RFC 3339 formatting and parsing. */
#ifndef TE_CORE_TIMEFMT_H
#define TE_CORE_TIMEFMT_H

#include "core/common.h"

#define TIME_RFC3339_LEN 32

int64_t time_now_ms(void);
/* "2026-03-15T10:00:00.123Z" */
void time_format_ms(int64_t ms, char out[TIME_RFC3339_LEN]);
/*
 * Parses RFC 3339 / ISO 8601 date-times with a zone designator:
 * "2026-03-15T18:00:00Z", "...:00.5+05:30", lowercase t/z, space separator.
 * Returns 0 or -1 when malformed or out of range.
 */
int time_parse_rfc3339(const char *s, int64_t *ms) TE_MUSTCHECK;
/* Days since 1970-01-01 for a proleptic Gregorian date. */
int64_t time_days_from_civil(int64_t y, unsigned m, unsigned d);
void time_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d);

#endif
