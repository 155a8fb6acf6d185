/* tz — see tz.h. Layout of this file: calendar helpers, POSIX TZ rules, TZif parsing,
 * offset lookup, local->UTC resolution, formatting, file loading, cache. */
#include "domain/tz.h"

#include "core/timefmt.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Real TZif files are a few KiB; anything much larger is not a zone file. */
#define TZ_FILE_MAX (256 * 1024)
#define TZ_FOOTER_MAX 256
/* RFC 8536 section 3.2: -25:59:59 <= utoff <= 25:59:59 is the interoperable range. The
 * local->UTC search below relies on every offset being smaller than TZ_WINDOW. */
#define TZ_OFF_LIMIT 93599
#define TZ_WINDOW (2 * 86400)
/* Instants are clamped to about +-34,000 years so calendar arithmetic cannot overflow. */
#define TZ_T_LIMIT ((int64_t)1 << 40)
/* Bounds the segment walk in tz_local_to_utc() against hostile files with a transition
 * every second; real data has at most a handful of transitions in four days. */
#define TZ_WALK_MAX 512

enum tz_date_kind {
    TZ_DATE_JULIAN1, /* Jn: 1-365, February 29 never counted */
    TZ_DATE_JULIAN0, /* n: 0-365, February 29 counted in leap years */
    TZ_DATE_MWD,     /* Mm.w.d: day d of week w (5 = last) of month m */
};

struct tz_date {
    enum tz_date_kind kind;
    int day, month, week, wday;
    int32_t secs; /* local time of day, -167h..+167h (TZif v3) */
};

/* A POSIX TZ string; offsets already converted to seconds east. */
struct tz_rule {
    int32_t std_off, dst_off;
    bool has_dst;
    struct tz_date start, end; /* start: standard -> DST, end: DST -> standard */
};

struct tz {
    char name[TZ_NAME_MAX + 1];
    bool is_utc;
    bool has_rule;
    int32_t initial_off; /* before the first transition: time type 0 */
    struct tz_rule rule; /* after the last transition, if has_rule */
    size_t ntrans;
    int64_t *trans; /* ascending transition instants */
    int32_t *offs;  /* offs[i] applies from trans[i] to trans[i + 1] */
};

/* An interval [start, end) of constant offset (not necessarily maximal). */
struct tz_seg {
    int64_t start, end;
    int32_t off;
};

static const struct tz tz_utc_zone = {.name = "UTC", .is_utc = true};

TE_PRINTF(4, 5) static int tz_err(char *err, size_t errlen, int rc, const char *fmt, ...)
{
    va_list ap;

    if (err && errlen) {
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

/* ---- calendar ---------------------------------------------------------------------- */

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;

    if (a % b != 0 && (a < 0) != (b < 0))
        q--;
    return q;
}

static int64_t clamp_t(int64_t t)
{
    if (t > TZ_T_LIMIT)
        return TZ_T_LIMIT;
    if (t < -TZ_T_LIMIT)
        return -TZ_T_LIMIT;
    return t;
}

/* The calendar arithmetic lives in core/timefmt; these keep the zone code's int types. */
int64_t tz_days_from_civil(int64_t year, int month, int day)
{
    return time_days_from_civil(year, (unsigned)month, (unsigned)day);
}

void tz_civil_from_days(int64_t days, int64_t *year, int *month, int *day)
{
    unsigned m, d;
    time_civil_from_days(days, year, &m, &d);
    *month = (int)m;
    *day = (int)d;
}

static int month_days(int64_t year, int month)
{
    int64_t next =
        month == 12 ? tz_days_from_civil(year + 1, 1, 1) : tz_days_from_civil(year, month + 1, 1);

    return (int)(next - tz_days_from_civil(year, month, 1));
}

static bool is_leap(int64_t year)
{
    return month_days(year, 2) == 29;
}

/* 0 = Sunday; 1970-01-01 was a Thursday. */
static int weekday(int64_t days)
{
    return (int)((days % 7 + 11) % 7);
}

/* ---- POSIX TZ rules ---------------------------------------------------------------- */

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* 1..maxdigits decimal digits. */
static int pp_num(const char **pp, int maxdigits, int *out)
{
    const char *p = *pp;
    int v = 0;

    while (is_digit(*p) && p - *pp < maxdigits)
        v = v * 10 + (*p++ - '0');
    if (p == *pp || is_digit(*p))
        return -1;
    *out = v;
    *pp = p;
    return 0;
}

/* A zone abbreviation: 3+ letters, or <...> with letters, digits, '+' and '-'. */
static int pp_name(const char **pp)
{
    const char *p = *pp;
    const char *s;

    if (*p == '<') {
        s = ++p;
        while (is_alpha(*p) || is_digit(*p) || *p == '+' || *p == '-')
            p++;
        if (*p != '>' || p - s < 3)
            return -1;
        *pp = p + 1;
        return 0;
    }
    s = p;
    while (is_alpha(*p))
        p++;
    if (p - s < 3)
        return -1;
    *pp = p;
    return 0;
}

/* [+-]hh[:mm[:ss]] with hh <= maxh; result in seconds with the written sign. */
static int pp_hms(const char **pp, int maxh, int32_t *out)
{
    const char *p = *pp;
    int sign = 1, h, m = 0, s = 0;

    if (*p == '+' || *p == '-')
        sign = *p++ == '-' ? -1 : 1;
    if (pp_num(&p, 3, &h) || h > maxh)
        return -1;
    if (*p == ':') {
        p++;
        if (pp_num(&p, 2, &m) || m > 59)
            return -1;
        if (*p == ':') {
            p++;
            if (pp_num(&p, 2, &s) || s > 59)
                return -1;
        }
    }
    *out = sign * (h * 3600 + m * 60 + s);
    *pp = p;
    return 0;
}

static int pp_mwd(const char **pp, struct tz_date *d)
{
    const char *p = *pp;

    if (pp_num(&p, 2, &d->month) || d->month < 1 || d->month > 12 || *p++ != '.')
        return -1;
    if (pp_num(&p, 1, &d->week) || d->week < 1 || d->week > 5 || *p++ != '.')
        return -1;
    if (pp_num(&p, 1, &d->wday) || d->wday > 6)
        return -1;
    *pp = p;
    return 0;
}

/* date[/time]: Jn | n | Mm.w.d; the time defaults to 02:00:00. */
static int pp_date(const char **pp, struct tz_date *d)
{
    const char *p = *pp;

    if (*p == 'M') {
        p++;
        d->kind = TZ_DATE_MWD;
        if (pp_mwd(&p, d))
            return -1;
    } else if (*p == 'J') {
        p++;
        d->kind = TZ_DATE_JULIAN1;
        if (pp_num(&p, 3, &d->day) || d->day < 1 || d->day > 365)
            return -1;
    } else {
        d->kind = TZ_DATE_JULIAN0;
        if (pp_num(&p, 3, &d->day) || d->day > 365)
            return -1;
    }
    d->secs = 7200;
    if (*p == '/') {
        p++;
        if (pp_hms(&p, 167, &d->secs))
            return -1;
    }
    *pp = p;
    return 0;
}

static int rule_parse_dates(const char *p, struct tz_rule *r, char *err, size_t errlen)
{
    if (*p++ != ',' || pp_date(&p, &r->start))
        return tz_err(err, errlen, -EINVAL, "bad DST start rule");
    if (*p++ != ',' || pp_date(&p, &r->end))
        return tz_err(err, errlen, -EINVAL, "bad DST end rule");
    if (*p != '\0')
        return tz_err(err, errlen, -EINVAL, "unexpected text after DST rule");
    return 0;
}

/* std offset [dst [offset] [,start[/time],end[/time]]]. POSIX offsets count hours WEST. */
static int rule_parse(const char *spec, struct tz_rule *r, char *err, size_t errlen)
{
    const char *p = spec;
    int32_t off;

    memset(r, 0, sizeof(*r));
    if (pp_name(&p))
        return tz_err(err, errlen, -EINVAL, "bad standard time name");
    if (pp_hms(&p, 24, &off))
        return tz_err(err, errlen, -EINVAL, "bad or missing standard time offset");
    r->std_off = r->dst_off = -off;
    if (*p == '\0')
        return 0;
    if (pp_name(&p))
        return tz_err(err, errlen, -EINVAL, "bad DST name");
    r->has_dst = true;
    r->dst_off = r->std_off + 3600;
    if (*p != ',' && *p != '\0') {
        if (pp_hms(&p, 24, &off))
            return tz_err(err, errlen, -EINVAL, "bad DST offset");
        r->dst_off = -off;
    }
    /* No rule: tzcode's TZDEFRULESTRING, the US rules since 2007. */
    return rule_parse_dates(*p ? p : ",M3.2.0,M11.1.0", r, err, errlen);
}

/* The local date (days since the epoch) a rule date falls on in a given year. */
static int64_t rule_day(const struct tz_date *d, int64_t year)
{
    int64_t first;
    int day, mdays;

    switch (d->kind) {
    case TZ_DATE_JULIAN1:
        return tz_days_from_civil(year, 1, 1) + d->day - 1 + (is_leap(year) && d->day >= 60);
    case TZ_DATE_JULIAN0:
        return tz_days_from_civil(year, 1, 1) + d->day;
    case TZ_DATE_MWD:
        first = tz_days_from_civil(year, d->month, 1);
        day = 1 + (d->wday - weekday(first) + 7) % 7 + 7 * (d->week - 1);
        mdays = month_days(year, d->month);
        while (day > mdays)
            day -= 7;
        return first + day - 1;
    }
    return tz_days_from_civil(year, 1, 1);
}

struct tz_event {
    int64_t at;
    bool to_dst;
};

/* Rule transitions of years y-2..y+2, sorted. At equal instants the switch to standard time
 * sorts first, so "DST all year" rules (start Jan 1 0:00, end Dec 31 25:00) stay in DST. */
static size_t rule_events(const struct tz_rule *r, int64_t y, struct tz_event ev[10])
{
    size_t n = 0;

    for (int64_t yy = y - 2; yy <= y + 2; yy++) {
        ev[n].at = rule_day(&r->start, yy) * 86400 + r->start.secs - r->std_off;
        ev[n++].to_dst = true;
        ev[n].at = rule_day(&r->end, yy) * 86400 + r->end.secs - r->dst_off;
        ev[n++].to_dst = false;
    }
    for (size_t i = 1; i < n; i++) {
        struct tz_event e = ev[i];
        size_t j = i;
        while (j > 0 &&
               (ev[j - 1].at > e.at || (ev[j - 1].at == e.at && ev[j - 1].to_dst && !e.to_dst))) {
            ev[j] = ev[j - 1];
            j--;
        }
        ev[j] = e;
    }
    return n;
}

static void rule_seg_at(const struct tz_rule *r, int64_t t, struct tz_seg *seg)
{
    struct tz_event ev[10];
    int64_t y;
    int m, d;
    size_t n, i;

    seg->start = INT64_MIN;
    seg->end = INT64_MAX;
    seg->off = r->std_off;
    if (!r->has_dst)
        return;
    tz_civil_from_days(floor_div(t, 86400), &y, &m, &d);
    n = rule_events(r, y, ev);
    for (i = 0; i < n && ev[i].at <= t; i++)
        ;
    if (i == 0) { /* cannot happen for t inside year y; keep a sane answer anyway */
        seg->end = ev[0].at;
        seg->off = ev[0].to_dst ? r->std_off : r->dst_off;
        return;
    }
    seg->start = ev[i - 1].at;
    seg->off = ev[i - 1].to_dst ? r->dst_off : r->std_off;
    if (i < n)
        seg->end = ev[i].at;
}

static bool rule_is_utc(const struct tz_rule *r)
{
    return !r->has_dst && r->std_off == 0;
}

/* ---- zone objects ------------------------------------------------------------------ */

static struct tz *tz_alloc(size_t ntrans)
{
    size_t head = (sizeof(struct tz) + 7) & ~(size_t)7;
    struct tz *z;

    if (ntrans > (SIZE_MAX - head) / 12)
        return NULL;
    z = calloc(1, head + ntrans * 12);
    if (!z)
        return NULL;
    z->ntrans = ntrans;
    z->trans = (int64_t *)(void *)((char *)z + head);
    z->offs = (int32_t *)(void *)(z->trans + ntrans);
    return z;
}

static void tz_set_name(struct tz *z, const char *name)
{
    snprintf(z->name, sizeof(z->name), "%s", name);
}

void tz_free(struct tz *z)
{
    if (z != &tz_utc_zone)
        free(z);
}

const struct tz *tz_utc(void)
{
    return &tz_utc_zone;
}

const char *tz_name(const struct tz *z)
{
    return z->name;
}

bool tz_is_utc(const struct tz *z)
{
    return z->is_utc;
}

int tz_parse_posix(const char *spec, struct tz **out, char *err, size_t errlen)
{
    struct tz_rule rule;
    struct tz *z;
    int rc;

    *out = NULL;
    if (!spec)
        return tz_err(err, errlen, -EINVAL, "missing TZ string");
    rc = rule_parse(spec, &rule, err, errlen);
    if (rc)
        return rc;
    z = tz_alloc(0);
    if (!z)
        return tz_err(err, errlen, -ENOMEM, "out of memory");
    z->has_rule = true;
    z->rule = rule;
    z->initial_off = rule.std_off;
    z->is_utc = rule_is_utc(&rule);
    tz_set_name(z, spec);
    *out = z;
    return 0;
}

/* ---- TZif parsing (RFC 8536) -------------------------------------------------------- */

struct tzif_counts {
    uint32_t isut, isstd, leap, time, type, chars;
};

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int64_t be_time(const uint8_t *p, size_t tsize)
{
    uint64_t v;

    if (tsize == 4)
        return (int32_t)be32(p);
    v = (uint64_t)be32(p) << 32 | be32(p + 4);
    return (int64_t)v;
}

static size_t tzif_body_len(const struct tzif_counts *c, size_t tsize)
{
    return (size_t)c->time * (tsize + 1) + (size_t)c->type * 6 + c->chars +
           (size_t)c->leap * (tsize + 4) + c->isstd + c->isut;
}

/* Reads a 44-byte header at p; *body_len is the size of the data block after it. */
static int tzif_header(const uint8_t *p, size_t avail, size_t tsize, uint8_t *version,
                       struct tzif_counts *c, char *err, size_t errlen)
{
    if (avail < 44 || memcmp(p, "TZif", 4) != 0)
        return tz_err(err, errlen, -EINVAL, "not a TZif file");
    *version = p[4];
    if (*version != 0 && (*version < '2' || *version > '4'))
        return tz_err(err, errlen, -EINVAL, "unsupported TZif version 0x%02x", *version);
    c->isut = be32(p + 20);
    c->isstd = be32(p + 24);
    c->leap = be32(p + 28);
    c->time = be32(p + 32);
    c->type = be32(p + 36);
    c->chars = be32(p + 40);
    if (c->type == 0 || c->type > 256 || c->chars == 0)
        return tz_err(err, errlen, -EINVAL, "bad TZif type or character count");
    if ((c->isstd != 0 && c->isstd != c->type) || (c->isut != 0 && c->isut != c->type))
        return tz_err(err, errlen, -EINVAL, "bad TZif indicator count");
    if (avail - 44 < tzif_body_len(c, tsize))
        return tz_err(err, errlen, -EINVAL, "truncated TZif data");
    return 0;
}

/* Local time types: offsets (validated) and whether any of them is not plain UTC. */
static int tzif_types(const uint8_t *p, const struct tzif_counts *c, int32_t offs[256],
                      bool *all_utc, char *err, size_t errlen)
{
    *all_utc = true;
    for (uint32_t i = 0; i < c->type; i++, p += 6) {
        int32_t off = (int32_t)be32(p);
        if (off < -TZ_OFF_LIMIT || off > TZ_OFF_LIMIT)
            return tz_err(err, errlen, -EINVAL, "UT offset %ld out of range", (long)off);
        if (p[4] > 1 || p[5] >= c->chars)
            return tz_err(err, errlen, -EINVAL, "bad local time type %u", (unsigned)i);
        offs[i] = off;
        if (off != 0 || p[4] != 0)
            *all_utc = false;
    }
    return 0;
}

static int tzif_transitions(const uint8_t *body, const struct tzif_counts *c, size_t tsize,
                            const int32_t type_off[256], struct tz *z, char *err, size_t errlen)
{
    const uint8_t *idx = body + (size_t)c->time * tsize;

    for (uint32_t i = 0; i < c->time; i++) {
        z->trans[i] = be_time(body + (size_t)i * tsize, tsize);
        if (i > 0 && z->trans[i] <= z->trans[i - 1])
            return tz_err(err, errlen, -EINVAL, "TZif transitions not ascending");
        if (idx[i] >= c->type)
            return tz_err(err, errlen, -EINVAL, "bad TZif transition type");
        z->offs[i] = type_off[idx[i]];
    }
    return 0;
}

/* The footer is "\n<POSIX TZ string>\n"; an empty string means "no rule". */
static int tzif_footer(const uint8_t *p, size_t avail, struct tz_rule *rule, bool *has_rule,
                       char *err, size_t errlen)
{
    char buf[TZ_FOOTER_MAX + 1];
    const uint8_t *nl;
    size_t len;

    *has_rule = false;
    if (avail < 2 || p[0] != '\n')
        return tz_err(err, errlen, -EINVAL, "missing TZif footer");
    nl = memchr(p + 1, '\n', avail - 1);
    if (!nl)
        return tz_err(err, errlen, -EINVAL, "unterminated TZif footer");
    len = (size_t)(nl - (p + 1));
    if (len == 0)
        return 0;
    if (len > TZ_FOOTER_MAX || memchr(p + 1, '\0', len))
        return tz_err(err, errlen, -EINVAL, "bad TZif footer");
    memcpy(buf, p + 1, len);
    buf[len] = '\0';
    *has_rule = true;
    return rule_parse(buf, rule, err, errlen);
}

/* Locates the data block to use: the 64-bit one for version 2+, else the 32-bit one. */
static int tzif_locate(const uint8_t *p, size_t len, const uint8_t **body, size_t *tsize,
                       struct tzif_counts *c, uint8_t *version, char *err, size_t errlen)
{
    size_t off;
    uint8_t v2;
    int rc;

    rc = tzif_header(p, len, 4, version, c, err, errlen);
    if (rc)
        return rc;
    *body = p + 44;
    *tsize = 4;
    if (*version == 0)
        return 0;
    off = 44 + tzif_body_len(c, 4);
    rc = tzif_header(p + off, len - off, 8, &v2, c, err, errlen);
    if (rc)
        return rc;
    *body = p + off + 44;
    *tsize = 8;
    return 0;
}

int tz_parse(const void *data, size_t len, struct tz **out, char *err, size_t errlen)
{
    const uint8_t *p = data, *body;
    struct tzif_counts c;
    struct tz_rule rule;
    int32_t type_off[256];
    struct tz *z = NULL;
    size_t tsize, blen;
    uint8_t version;
    bool has_rule = false, all_utc;
    int rc;

    *out = NULL;
    if (!data)
        return tz_err(err, errlen, -EINVAL, "no TZif data");
    rc = tzif_locate(p, len, &body, &tsize, &c, &version, err, errlen);
    if (rc)
        goto fail;
    if (c.leap != 0) {
        rc = tz_err(err, errlen, -EINVAL, "leap-second zones (right/...) are not supported");
        goto fail;
    }
    blen = tzif_body_len(&c, tsize);
    if (version != 0) {
        rc = tzif_footer(body + blen, len - (size_t)(body + blen - p), &rule, &has_rule, err,
                         errlen);
        if (rc)
            goto fail;
    }
    rc = tzif_types(body + (size_t)c.time * (tsize + 1), &c, type_off, &all_utc, err, errlen);
    if (rc)
        goto fail;
    z = tz_alloc(c.time);
    if (!z) {
        rc = tz_err(err, errlen, -ENOMEM, "out of memory");
        goto fail;
    }
    rc = tzif_transitions(body, &c, tsize, type_off, z, err, errlen);
    if (rc)
        goto fail;
    z->initial_off = type_off[0];
    z->has_rule = has_rule;
    if (has_rule)
        z->rule = rule;
    z->is_utc = all_utc && (!has_rule || rule_is_utc(&rule));
    *out = z;
    return 0;
fail:
    tz_free(z);
    return rc;
}

/* ---- lookups ------------------------------------------------------------------------ */

static void tz_seg_at(const struct tz *z, int64_t t, struct tz_seg *seg)
{
    size_t n = z->ntrans, lo = 0, hi;

    t = clamp_t(t);
    seg->start = INT64_MIN;
    seg->end = INT64_MAX;
    seg->off = z->initial_off;
    if (n == 0) {
        if (z->has_rule)
            rule_seg_at(&z->rule, t, seg);
        return;
    }
    if (t < z->trans[0]) {
        seg->end = z->trans[0];
        return;
    }
    hi = n; /* find the last transition <= t */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (z->trans[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    if (lo + 1 < n || !z->has_rule) {
        seg->start = z->trans[lo];
        seg->end = lo + 1 < n ? z->trans[lo + 1] : INT64_MAX;
        seg->off = z->offs[lo];
        return;
    }
    rule_seg_at(&z->rule, t, seg);
    if (seg->start < z->trans[n - 1])
        seg->start = z->trans[n - 1];
}

int tz_offset_at(const struct tz *z, int64_t utc)
{
    struct tz_seg seg;

    tz_seg_at(z, utc, &seg);
    return seg.off;
}

/* Walks the constant-offset segments around `local` in time order. A segment [s, e) with
 * offset o contains the candidate local - o if s <= local - o < e. With no candidate, the
 * first segment whose wall clock starts after `local` marks the end of the gap. */
int tz_local_to_utc(const struct tz *z, int64_t local, struct tz_local *out)
{
    struct tz_seg s;
    int64_t t, gap_at = 0;
    int found = 0;
    bool gap = false;

    if (!z || !out)
        return -EINVAL;
    if (local < -TZ_T_LIMIT + 2 * TZ_WINDOW || local > TZ_T_LIMIT - 2 * TZ_WINDOW)
        return -ERANGE;
    t = local - TZ_WINDOW;
    for (int steps = 0; steps < TZ_WALK_MAX; steps++) {
        int64_t cand;
        tz_seg_at(z, t, &s);
        cand = local - s.off;
        if (cand >= s.start && cand < s.end) {
            if (!found++)
                out->utc = cand;
            out->utc_later = cand;
        } else if (!found && !gap && s.start != INT64_MIN && s.start + s.off > local) {
            gap = true;
            gap_at = s.start;
        }
        if (s.end > local + TZ_WINDOW)
            break;
        t = s.end;
    }
    if (found) {
        out->kind = found == 1 ? TZ_LOCAL_UNIQUE : TZ_LOCAL_OVERLAP;
        return 0;
    }
    if (!gap)
        return -ERANGE;
    out->kind = TZ_LOCAL_GAP;
    out->utc = out->utc_later = gap_at;
    return 0;
}

/* ---- formatting --------------------------------------------------------------------- */

int tz_format_rfc3339(const struct tz *z, int64_t utc, char *out, size_t n)
{
    int off, off_min, month, day, sod, len;
    int64_t local, days, year;

    if (!z || !out)
        return -EINVAL;
    if (utc < -TZ_T_LIMIT || utc > TZ_T_LIMIT)
        return -ERANGE;
    off = tz_offset_at(z, utc);
    off_min = off >= 0 ? (off + 30) / 60 : -((30 - off) / 60);
    local = utc + (int64_t)off_min * 60;
    days = floor_div(local, 86400);
    sod = (int)(local - days * 86400);
    tz_civil_from_days(days, &year, &month, &day);
    if (year < 0 || year > 9999)
        return -ERANGE;
    if (z->is_utc)
        len = snprintf(out, n, "%04d-%02d-%02dT%02d:%02d:%02dZ", (int)year, month, day, sod / 3600,
                       sod / 60 % 60, sod % 60);
    else
        len = snprintf(out, n, "%04d-%02d-%02dT%02d:%02d:%02d%c%02d:%02d", (int)year, month, day,
                       sod / 3600, sod / 60 % 60, sod % 60, off_min < 0 ? '-' : '+',
                       abs(off_min) / 60, abs(off_min) % 60);
    if (len < 0 || (size_t)len >= n)
        return -ENOSPC;
    return 0;
}

/* ---- loading ------------------------------------------------------------------------ */

static bool name_char_ok(char c)
{
    return is_alpha(c) || is_digit(c) || c == '_' || c == '+' || c == '-' || c == '/';
}

bool tz_name_valid(const char *name)
{
    size_t len, comp = 0;

    if (!name)
        return false;
    len = strnlen(name, TZ_NAME_MAX + 1);
    if (len == 0 || len > TZ_NAME_MAX || name[0] == '/' || name[len - 1] == '/')
        return false;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || name[i] == '/') {
            /* '.' is not in the alphabet, so "." and ".." cannot occur; empty can. */
            if (i == comp)
                return false;
            comp = i + 1;
        } else if (!name_char_ok(name[i])) {
            return false;
        }
    }
    return true;
}

/* The one place this module touches the file system. */
static int tz_read_file(const char *path, uint8_t **out, size_t *len)
{
    struct stat st;
    uint8_t *buf = NULL;
    size_t got = 0, size;
    int fd, rc;

    /* O_NONBLOCK: a FIFO planted in the zone directory must not block the caller. */
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -errno;
    if (fstat(fd, &st) != 0) {
        rc = -errno;
        goto fail;
    }
    rc = !S_ISREG(st.st_mode) ? -EISDIR : st.st_size > TZ_FILE_MAX ? -EFBIG : 0;
    if (rc)
        goto fail;
    size = (size_t)st.st_size;
    buf = malloc(size ? size : 1);
    if (!buf) {
        rc = -ENOMEM;
        goto fail;
    }
    while (got < size) {
        ssize_t r = read(fd, buf + got, size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = -EIO;
            goto fail;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    *out = buf;
    *len = got;
    return 0;
fail:
    free(buf);
    close(fd);
    return rc;
}

static int tz_make_utc(const char *name, struct tz **out, char *err, size_t errlen)
{
    struct tz *z = tz_alloc(0);

    if (!z)
        return tz_err(err, errlen, -ENOMEM, "out of memory");
    z->is_utc = true;
    tz_set_name(z, name);
    *out = z;
    return 0;
}

static int tz_read_error(const char *name, int rc, char *err, size_t errlen)
{
    switch (rc) {
    case -ENOENT:
    case -ENOTDIR:
    case -EISDIR:
        return tz_err(err, errlen, -ENOENT, "unknown time zone '%s'", name);
    case -ENOMEM:
        return tz_err(err, errlen, -ENOMEM, "out of memory");
    case -EFBIG:
        return tz_err(err, errlen, -EINVAL, "time zone '%s': file too large", name);
    case -EACCES:
        return tz_err(err, errlen, -EIO, "time zone '%s': permission denied", name);
    default:
        return tz_err(err, errlen, -EIO, "time zone '%s': read error (%d)", name, -rc);
    }
}

int tz_load(const char *root, const char *name, struct tz **out, char *err, size_t errlen)
{
    char path[PATH_MAX], why[128];
    uint8_t *data = NULL;
    size_t len = 0;
    int rc, n;

    *out = NULL;
    if (!tz_name_valid(name))
        return tz_err(err, errlen, -EINVAL, "invalid time zone name");
    if (strcmp(name, "UTC") == 0 || strcmp(name, "Etc/UTC") == 0)
        return tz_make_utc(name, out, err, errlen);
    n = snprintf(path, sizeof(path), "%s/%s", root ? root : TZ_DEFAULT_ROOT, name);
    if (n < 0 || (size_t)n >= sizeof(path))
        return tz_err(err, errlen, -EINVAL, "time zone path too long");
    rc = tz_read_file(path, &data, &len);
    if (rc)
        return tz_read_error(name, rc, err, errlen);
    rc = tz_parse(data, len, out, why, sizeof(why));
    free(data);
    if (rc)
        return tz_err(err, errlen, rc, "time zone '%s': %s", name, why);
    tz_set_name(*out, name);
    return 0;
}

/* ---- cache -------------------------------------------------------------------------- */

struct tz_cache {
    char *root;
    struct tz **zones; /* sorted by name */
    size_t n, cap;
};

int tz_cache_new(const char *root, struct tz_cache **out)
{
    struct tz_cache *c = calloc(1, sizeof(*c));

    *out = NULL;
    if (!c)
        return -ENOMEM;
    c->root = strdup(root ? root : TZ_DEFAULT_ROOT);
    if (!c->root) {
        free(c);
        return -ENOMEM;
    }
    *out = c;
    return 0;
}

void tz_cache_free(struct tz_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++)
        tz_free(c->zones[i]);
    free(c->zones);
    free(c->root);
    free(c);
}

/* Index of name, or of where it would be inserted; *found tells which. */
static size_t cache_find(const struct tz_cache *c, const char *name, bool *found)
{
    size_t lo = 0, hi = c->n;

    *found = false;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int cmp = strcmp(name, c->zones[mid]->name);
        if (cmp == 0) {
            *found = true;
            return mid;
        }
        if (cmp < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static int cache_reserve(struct tz_cache *c)
{
    struct tz **zones;
    size_t cap;

    if (c->n < c->cap)
        return 0;
    cap = c->cap ? c->cap * 2 : 16;
    zones = realloc(c->zones, cap * sizeof(*zones));
    if (!zones)
        return -ENOMEM;
    c->zones = zones;
    c->cap = cap;
    return 0;
}

int tz_cache_get(struct tz_cache *c, const char *name, const struct tz **out, char *err,
                 size_t errlen)
{
    struct tz *z;
    bool found;
    size_t at;
    int rc;

    *out = NULL;
    if (!tz_name_valid(name))
        return tz_err(err, errlen, -EINVAL, "invalid time zone name");
    at = cache_find(c, name, &found);
    if (found) {
        *out = c->zones[at];
        return 0;
    }
    if (cache_reserve(c))
        return tz_err(err, errlen, -ENOMEM, "out of memory");
    rc = tz_load(c->root, name, &z, err, errlen);
    if (rc)
        return rc;
    memmove(&c->zones[at + 1], &c->zones[at], (c->n - at) * sizeof(*c->zones));
    c->zones[at] = z;
    c->n++;
    *out = z;
    return 0;
}
