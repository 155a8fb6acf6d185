/* tz — IANA time zones: TZif data (RFC 8536, versions 1-4) plus the POSIX TZ rule in the
 * footer, which covers instants after the last explicit transition (so year 2090 works
 * with both "fat" and "slim" zoneinfo files).
 *
 * Pure: tz_parse() and tz_parse_posix() work on bytes/strings; the only I/O in the module is
 * tz_load(), which reads one file. No function reads the clock or the TZ environment
 * variable, and nothing calls localtime(), so any thread may use a loaded zone.
 *
 * Times:
 *   - "utc" values are POSIX seconds since 1970-01-01T00:00:00Z (leap seconds ignored).
 *   - "local" values are wall-clock seconds counted the same way, as if the wall clock
 *     were UTC: local = utc + offset. tz_days_from_civil() converts dates to that scale.
 *   - Offsets are seconds EAST of UTC (+19800 for Asia/Kolkata), unlike POSIX TZ strings.
 *
 * Errors: functions return 0 or a negative errno value:
 *   -EINVAL bad argument, zone name or data (details in err), -ENOENT unknown zone,
 *   -ENOMEM, -EIO read failure, -ERANGE value outside the supported range, -ENOSPC output
 *   buffer too small.
 */
#ifndef TE_DOMAIN_TZ_H
#define TE_DOMAIN_TZ_H

#include "core/common.h"

#define TZ_DEFAULT_ROOT "/usr/share/zoneinfo"
/* Longest zone name accepted (IANA's longest is 32 characters). */
#define TZ_NAME_MAX 128
/* Buffer size that always fits tz_format_rfc3339() output ("2026-03-16T09:00:00+05:30"). */
#define TZ_RFC3339_SIZE 26

struct tz; /* immutable once built; free with tz_free() */

/* How a local wall-clock time maps onto UTC. */
enum tz_local_kind {
    TZ_LOCAL_UNIQUE,  /* occurs exactly once: utc == utc_later */
    TZ_LOCAL_GAP,     /* skipped by a forward shift: utc == utc_later == first instant after */
    TZ_LOCAL_OVERLAP, /* repeated by a backward shift: utc = earliest, utc_later = latest */
};

struct tz_local {
    enum tz_local_kind kind;
    int64_t utc;
    int64_t utc_later;
};

/* Builds a zone from TZif bytes. On success *out is owned by the caller (tz_free). err gets
 * a one-line reason on failure (may be NULL). Zones with leap-second tables ("right/...")
 * are rejected because every time in this program is POSIX time. */
TE_MUSTCHECK int tz_parse(const void *data, size_t len, struct tz **out, char *err, size_t errlen);

/* Builds a zone from a POSIX TZ string alone ("EST5EDT,M3.2.0,M11.1.0",
 * "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0", "IST-5:30"), including the TZif v3 extensions
 * (transition times from -167 to 167 hours). A DST zone without a rule gets the US rule
 * ",M3.2.0,M11.1.0", as tzcode does. */
TE_MUSTCHECK int tz_parse_posix(const char *spec, struct tz **out, char *err, size_t errlen);

/* True if name is an acceptable zone name: 1..TZ_NAME_MAX characters from
 * [A-Za-z0-9_+-/], no leading or trailing '/', no empty, "." or ".." component. */
bool tz_name_valid(const char *name);

/* Reads <root>/<name> (root NULL = TZ_DEFAULT_ROOT) and parses it. "UTC" and "Etc/UTC" are
 * built in and never touch the file system. Blocking file I/O: call at configuration or
 * job-creation time, not per tick (see tz_cache). */
TE_MUSTCHECK int tz_load(const char *root, const char *name, struct tz **out, char *err,
                         size_t errlen);

/* The built-in UTC zone; static, tz_free() ignores it. */
const struct tz *tz_utc(void);

void tz_free(struct tz *z);

/* The name given to tz_load() ("" for tz_parse(), the spec for tz_parse_posix()). */
const char *tz_name(const struct tz *z);

/* True if the zone is UTC in all but name: every offset it can produce is 0 with no DST
 * (UTC, Etc/UTC, Etc/GMT, "UTC0"). Such zones format as "...Z". */
bool tz_is_utc(const struct tz *z);

/* UTC offset in seconds east, in effect at the instant utc. */
int tz_offset_at(const struct tz *z, int64_t utc);

/* Resolves a local wall-clock time (see "local" above) to UTC. Returns -ERANGE outside
 * roughly +-30,000 years. */
TE_MUSTCHECK int tz_local_to_utc(const struct tz *z, int64_t local, struct tz_local *out);

/* Formats utc as RFC 3339 local time with numeric offset, "2026-03-16T09:00:00+05:30".
 * Offset 0 is written "+00:00" (Europe/London in winter), except for zones where
 * tz_is_utc() holds, which are written with "Z". RFC 3339 offsets have no seconds: a
 * historical offset such as LMT -4:56:02 is rounded to the minute and the printed wall
 * time adjusted with it, so the string still denotes exactly the instant utc.
 * Years outside 0000-9999 give -ERANGE; n < needed gives -ENOSPC. */
TE_MUSTCHECK int tz_format_rfc3339(const struct tz *z, int64_t utc, char *out, size_t n);

/* Proleptic Gregorian calendar helpers (days since 1970-01-01; month 1-12, day 1-31). */
int64_t tz_days_from_civil(int64_t year, int month, int day);
void tz_civil_from_days(int64_t days, int64_t *year, int *month, int *day);

/* A small name -> zone cache so hot paths never read files. Not thread-safe: the owner
 * (the event-loop thread) uses it alone. Zones stay valid until tz_cache_free(). */
struct tz_cache;

TE_MUSTCHECK int tz_cache_new(const char *root, struct tz_cache **out);
TE_MUSTCHECK int tz_cache_get(struct tz_cache *c, const char *name, const struct tz **out,
                              char *err, size_t errlen);
void tz_cache_free(struct tz_cache *c);

#endif
