// cron — standard 5-field cron expressions and their next fire time in a time zone.
//
// Syntax (crontab(5), Vixie/cronie):
//   minute(0-59) hour(0-23) day-of-month(1-31) month(1-12) day-of-week(0-7, 0 and 7 = Sunday)
//   each field a comma list of: *  n  a-b  */n  a-b/n  a/n   (a/n = a through the field
//   maximum, step n; the day-of-week maximum is 7, so "1/2" is Mon,Wed,Fri,Sun).
//   Month names JAN-DEC and day names SUN-SAT, case-insensitive, also in ranges ("MON-FRI");
//   a day-of-week range may end in Sunday written as 0 or SUN ("FRI-SUN" = 5-7).
//   Steps run from 1 to the size of the field (60, 24, 31, 12, 8); larger ones are refused
//   as typos (Vixie would accept them and select only the first value).
//   Nicknames: @yearly @annually @monthly @weekly @daily @midnight @hourly (case-insensitive).
//   Not supported: @reboot, seconds fields, L, W, #, ?, H.
//
// Day matching, as crontab(5) states it: when both the day-of-month and the day-of-week
// field are restricted ("don't start with *"), a day matches if EITHER matches. Otherwise
// a day must match both, which for a plain "*" means only the other field applies. Like
// Vixie cron and cronie, the test is on the text: "*/2" counts as starting with "*", so
// "0 0 */2 * MON" is odd-numbered Mondays, while "1-31" counts as restricted, so
// "0 0 1-31 * MON" is every day.
//
// Time zones and DST (cron_next): the expression selects local wall-clock minutes in the
// zone. Each selected wall time fires at most once:
//   - a wall time that occurs once fires then;
//   - a wall time repeated by a backward shift (fall-back) fires only at its first
//     occurrence, so "30 1 * * *" fires once at 01:30 EDT on the fall-back day;
//   - a wall time skipped by a forward shift (spring-forward) fires at the first instant
//     after the gap, so "30 2 * * *" fires at 03:00 EDT (07:00Z) on the spring-forward day.
//     Several skipped times collapse into that one firing.
// The rule does not look at which fields are wildcards. "*/15 * * * *" in America/New_York
// on a fall-back day fires 01:00, 01:15, 01:30, 01:45 EDT and then 02:00 EST: the repeated
// hour (01:00-01:59 EST) is skipped, leaving a 75-minute interval; on a spring-forward day
// it fires 01:45 EST and then 03:00 EDT once. For comparison: Vixie cron/cronie run
// jobs with '*' in the minute or hour field in both copies of a repeated hour and do not
// catch up their skipped times, but run skipped fixed-time jobs right after a forward jump
// (as our gap rule does) and do not rerun them in a repeated hour (cron(8)). croniter
// 1.3.5 skips the repeated hour for "*/15" as we do, but shifts "30 2" on spring-forward day
// to 03:30 and fires "30 1" on the day after fall-back at 02:30.
//
// Pure: no clock reads, no I/O; the caller passes the zone and "now".

#ifndef TE_DOMAIN_CRON_H
#define TE_DOMAIN_CRON_H

#include "core/common.h"
#include "domain/tz.h"

#define CRON_DOM_STAR 0x01 /* day-of-month field starts with '*' */
#define CRON_DOW_STAR 0x02 /* day-of-week field starts with '*' */

/* Over 400 years (one Gregorian cycle) every (month, day, weekday) combination recurs, so
 * an expression that finds nothing in that window never fires. */
#define CRON_MAX_YEARS 400

/* The accepted range of `after`: years 0001 to 9999 (UTC). */
#define CRON_AFTER_MIN INT64_C(-62135596800)
#define CRON_AFTER_MAX INT64_C(253402300799)

/* A parsed expression: one bit per allowed value. Plain data; copy freely. */
struct cron_expr {
    uint64_t minutes; /* bits 0-59 */
    uint32_t hours;   /* bits 0-23 */
    uint32_t days;    /* bits 1-31 (day of month) */
    uint16_t months;  /* bits 1-12 */
    uint8_t weekdays; /* bits 0-6, 0 = Sunday (7 is folded into 0) */
    uint8_t flags;    /* CRON_DOM_STAR | CRON_DOW_STAR */
};

/* Parses expr. On error returns -EINVAL and writes a message such as
 * "field 2 (hour): value 24 out of range 0-23" or "expected 5 fields, got 6" to err.
 * Syntax only: "0 0 30 2 *" parses; cron_next() reports that it never fires. */
TE_MUSTCHECK int cron_parse(const char *expr, struct cron_expr *out, char *err, size_t errlen);

/* The first fire time strictly after after_utc (always a whole minute), evaluated in zone's
 * local time with the DST rule above. Returns 0, -ENOENT if the expression never fires
 * (e.g. "0 0 30 2 *"), -ERANGE if after_utc lies outside CRON_AFTER_MIN..CRON_AFTER_MAX, or
 * -EINVAL for a NULL argument or a cron_expr with an empty or out-of-range field. Cost is
 * bounded: whole months and days that cannot match are skipped, never minute by minute. */
TE_MUSTCHECK int cron_next(const struct cron_expr *c, const struct tz *zone, int64_t after_utc,
                           int64_t *next_utc);

#endif
