/* cron — see cron.h. Parsing turns each field into a bit set; cron_next searches local
 * wall-clock minutes with those bit sets and maps the first match to UTC through tz. */
#include "domain/cron.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { F_MINUTE, F_HOUR, F_DOM, F_MONTH, F_DOW, F_COUNT };

struct cron_field {
    const char *name;
    int min, max;
    const char *const *names; /* names[i] is value min + i, or NULL */
};

static const char *const month_names[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL",
                                          "AUG", "SEP", "OCT", "NOV", "DEC", NULL};
static const char *const dow_names[] = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT", NULL};

static const struct cron_field cron_fields[F_COUNT] = {
    {"minute", 0, 59, NULL},          {"hour", 0, 23, NULL},
    {"day-of-month", 1, 31, NULL},    {"month", 1, 12, month_names},
    {"day-of-week", 0, 7, dow_names},
};

static const struct {
    const char *name, *expr;
} cron_nicknames[] = {
    {"@yearly", "0 0 1 1 *"}, {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"},
    {"@weekly", "0 0 * * 0"}, {"@daily", "0 0 * * *"},    {"@midnight", "0 0 * * *"},
    {"@hourly", "0 * * * *"},
};

/* A text slice of the expression being parsed. */
struct span {
    const char *p, *end;
};

TE_PRINTF(3, 4) static int cron_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (err && errlen) {
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -EINVAL;
}

/* Prefixes "field N (name): " so every field error says where it is. */
TE_PRINTF(4, 5) static int field_err(char *err, size_t errlen, int idx, const char *fmt, ...)
{
    char msg[128];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return cron_err(err, errlen, "field %d (%s): %s", idx + 1, cron_fields[idx].name, msg);
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static char upper(char c)
{
    return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

/* ASCII-only, so the result never depends on the process locale. */
static bool ieq(const char *a, const char *b, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (upper(a[i]) != upper(b[i]))
            return false;
    return true;
}

static int unexpected(char *err, size_t errlen, int idx, const struct span *s)
{
    unsigned char c = (unsigned char)*s->p;

    if (c > 0x20 && c < 0x7f)
        return field_err(err, errlen, idx, "unexpected character '%c'", c);
    return field_err(err, errlen, idx, "unexpected byte 0x%02x", c);
}

/* Digits; values above 9999 saturate, which keeps them out of range without overflow. */
static int lex_number(struct span *s)
{
    int v = 0;

    while (s->p < s->end && is_digit(*s->p)) {
        if (v <= 9999)
            v = v * 10 + (*s->p - '0');
        s->p++;
    }
    return v;
}

static int lookup_name(const struct cron_field *f, const char *tok, size_t len)
{
    for (int i = 0; f->names && f->names[i]; i++) {
        size_t j = 0;
        while (j < len && j < 3 && upper(tok[j]) == f->names[i][j])
            j++;
        if (j == len && len == 3)
            return f->min + i;
    }
    return -1;
}

/* One value: a number in the field's range, or a name where the field has names. */
static int parse_value(int idx, struct span *s, int *out, char *err, size_t errlen)
{
    const struct cron_field *f = &cron_fields[idx];
    const char *tok = s->p;
    int len;

    if (s->p == s->end)
        return field_err(err, errlen, idx, "missing value");
    if (is_digit(*s->p)) {
        *out = lex_number(s);
        len = (int)(s->p - tok);
        if (*out < f->min || *out > f->max)
            return field_err(err, errlen, idx, "value %.*s out of range %d-%d", len > 12 ? 12 : len,
                             tok, f->min, f->max);
        return 0;
    }
    if (!is_alpha(*s->p))
        return unexpected(err, errlen, idx, s);
    while (s->p < s->end && is_alpha(*s->p))
        s->p++;
    len = (int)(s->p - tok);
    if (!f->names)
        return field_err(err, errlen, idx, "names are not allowed, got '%.*s'", len > 12 ? 12 : len,
                         tok);
    *out = lookup_name(f, tok, (size_t)len);
    if (*out < 0)
        return field_err(err, errlen, idx, "unknown name '%.*s'", len > 12 ? 12 : len, tok);
    return 0;
}

static int parse_step(int idx, struct span *s, int *out, char *err, size_t errlen)
{
    const struct cron_field *f = &cron_fields[idx];
    int span = f->max - f->min + 1;

    const char *tok = s->p;
    int len;

    if (s->p == s->end || !is_digit(*s->p))
        return field_err(err, errlen, idx, "step must be a number");
    *out = lex_number(s);
    len = (int)(s->p - tok);
    if (*out == 0)
        return field_err(err, errlen, idx, "step must be positive");
    if (*out > span)
        return field_err(err, errlen, idx, "step %.*s out of range 1-%d", len > 12 ? 12 : len, tok,
                         span);
    return 0;
}

/* "*", "a", "a-b" or "a/" (a through max) before an optional "/step". */
static int parse_bounds(int idx, struct span *s, int *lo, int *hi, char *err, size_t errlen)
{
    const struct cron_field *f = &cron_fields[idx];

    if (s->p < s->end && *s->p == '*') {
        s->p++;
        *lo = f->min;
        *hi = f->max;
        return 0;
    }
    if (parse_value(idx, s, lo, err, errlen))
        return -EINVAL;
    *hi = s->p < s->end && *s->p == '/' ? f->max : *lo;
    if (s->p == s->end || *s->p != '-')
        return 0;
    s->p++;
    if (parse_value(idx, s, hi, err, errlen))
        return -EINVAL;
    if (idx == F_DOW && *hi == 0 && *lo > 0)
        *hi = 7; /* "FRI-SUN": Sunday as the end of a range is 7 */
    if (*lo > *hi)
        return field_err(err, errlen, idx, "range start %d greater than end %d", *lo, *hi);
    return 0;
}

/* One list element: bounds, optional step, nothing else. */
static int parse_element(int idx, struct span s, uint64_t *bits, char *err, size_t errlen)
{
    int lo, hi, step = 1;

    if (s.p == s.end)
        return field_err(err, errlen, idx, "empty list element");
    if (parse_bounds(idx, &s, &lo, &hi, err, errlen))
        return -EINVAL;
    if (s.p < s.end && *s.p == '/') {
        s.p++;
        if (parse_step(idx, &s, &step, err, errlen))
            return -EINVAL;
    }
    if (s.p != s.end)
        return unexpected(err, errlen, idx, &s);
    for (int v = lo; v <= hi; v += step)
        *bits |= UINT64_C(1) << v;
    return 0;
}

static int parse_field(int idx, struct span s, uint64_t *bits, char *err, size_t errlen)
{
    *bits = 0;
    for (;;) {
        const char *comma = memchr(s.p, ',', (size_t)(s.end - s.p));
        struct span el = {s.p, comma ? comma : s.end};
        if (parse_element(idx, el, bits, err, errlen))
            return -EINVAL;
        if (!comma)
            return 0;
        s.p = comma + 1;
    }
}

/* Splits on whitespace; counts every field so the error can say how many there were. */
static int split_fields(const char *expr, struct span f[F_COUNT])
{
    const char *p = expr;
    int n = 0;

    for (;;) {
        while (is_space(*p))
            p++;
        if (!*p)
            return n;
        if (n < F_COUNT)
            f[n].p = p;
        while (*p && !is_space(*p))
            p++;
        if (n < F_COUNT)
            f[n].end = p;
        n++;
    }
}

static int parse_nickname(const char *p, struct cron_expr *out, char *err, size_t errlen)
{
    const char *end = p;
    size_t len;

    while (*end && !is_space(*end))
        end++;
    len = (size_t)(end - p);
    for (const char *q = end; *q; q++)
        if (!is_space(*q))
            return cron_err(err, errlen, "unexpected text after %.*s", (int)len, p);
    if (len == 7 && ieq(p, "@reboot", 7))
        return cron_err(err, errlen, "@reboot is not supported: it has no fire time");
    for (size_t i = 0; i < TE_ARRAY_LEN(cron_nicknames); i++)
        if (strlen(cron_nicknames[i].name) == len && ieq(p, cron_nicknames[i].name, len))
            return cron_parse(cron_nicknames[i].expr, out, err, errlen);
    return cron_err(err, errlen, "unknown nickname '%.*s'", len > 16 ? 16 : (int)len, p);
}

int cron_parse(const char *expr, struct cron_expr *out, char *err, size_t errlen)
{
    struct span f[F_COUNT];
    uint64_t bits[F_COUNT];
    const char *p = expr;
    int n;

    if (!expr || !out)
        return cron_err(err, errlen, "missing expression");
    memset(out, 0, sizeof(*out));
    while (is_space(*p))
        p++;
    if (*p == '@')
        return parse_nickname(p, out, err, errlen);
    n = split_fields(p, f);
    if (n != F_COUNT)
        return cron_err(err, errlen, "expected 5 fields, got %d", n);
    for (int i = 0; i < F_COUNT; i++)
        if (parse_field(i, f[i], &bits[i], err, errlen))
            return -EINVAL;
    out->minutes = bits[F_MINUTE];
    out->hours = (uint32_t)bits[F_HOUR];
    out->days = (uint32_t)bits[F_DOM];
    out->months = (uint16_t)bits[F_MONTH];
    out->weekdays = (uint8_t)((bits[F_DOW] | bits[F_DOW] >> 7) & 0x7f);
    out->flags = (uint8_t)((*f[F_DOM].p == '*' ? CRON_DOM_STAR : 0) |
                           (*f[F_DOW].p == '*' ? CRON_DOW_STAR : 0));
    return 0;
}

/* ---- next fire time ----------------------------------------------------------------- */

/* Bounds the wall minutes cron_next() may pass over because they already fired in the
 * first pass of a repeated (fall-back) period; real repeats last at most a day. */
#define CRON_SKIP_MAX (4 * 1440)

/* A local wall-clock position during the search. */
struct cursor {
    int64_t year;
    int month, day, hour, minute;
};

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;

    if (a % b != 0 && (a < 0) != (b < 0))
        q--;
    return q;
}

/* Lowest set bit at or above `from`, or -1. */
static int next_bit(uint64_t mask, int from)
{
    if (from < 0 || from > 63)
        return -1;
    mask &= ~UINT64_C(0) << from;
    return mask ? __builtin_ctzll(mask) : -1;
}

static int month_len(int64_t year, int month)
{
    static const int len[13] = {0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;

    return month == 2 && leap ? 29 : len[month];
}

static bool cron_valid(const struct cron_expr *c)
{
    return c->minutes && !(c->minutes >> 60) && c->hours && !(c->hours >> 24) && c->days &&
           !(c->days & 1) && c->months && !(c->months & ~0x1ffe) && c->weekdays &&
           !(c->weekdays & 0x80);
}

/* Exact test for "never fires". With the OR rule any weekday occurs every month. With the
 * AND rule every valid (month, day) meets every weekday within 400 years, so the
 * expression fires iff some selected month has a selected day (February counts 29). */
static bool cron_can_fire(const struct cron_expr *c)
{
    if (!(c->flags & (CRON_DOM_STAR | CRON_DOW_STAR)))
        return true;
    for (int m = 1; m <= 12; m++) {
        uint32_t days_in_month = (UINT32_C(2) << month_len(2000, m)) - 2;
        if ((c->months >> m & 1) && (c->days & days_in_month))
            return true;
    }
    return false;
}

static bool day_matches(const struct cron_expr *c, const struct cursor *k)
{
    int64_t days = tz_days_from_civil(k->year, k->month, k->day);
    int wd = (int)((days % 7 + 11) % 7); /* 0 = Sunday; 1970-01-01 was a Thursday */
    bool dom = c->days >> k->day & 1;
    bool dow = c->weekdays >> wd & 1;

    if (c->flags & (CRON_DOM_STAR | CRON_DOW_STAR))
        return dom && dow;
    return dom || dow;
}

static void next_day(struct cursor *k)
{
    k->day++;
    k->hour = 0;
    k->minute = 0;
}

/* First selected month after the current one (possibly next year), at its first minute. */
static void next_month(const struct cron_expr *c, struct cursor *k)
{
    int m = next_bit(c->months, k->month + 1);

    if (m < 0) {
        k->year++;
        m = next_bit(c->months, 1);
    }
    k->month = m;
    k->day = 1;
    k->hour = 0;
    k->minute = 0;
}

/* One search step: true if k is a match, else moves k forward by the largest unit
 * (month, day, hour) that is known not to match. */
static bool cursor_step(const struct cron_expr *c, struct cursor *k)
{
    int h, m;

    if (!(c->months >> k->month & 1) || k->day > month_len(k->year, k->month)) {
        next_month(c, k);
        return false;
    }
    h = day_matches(c, k) ? next_bit(c->hours, k->hour) : -1;
    if (h < 0) {
        next_day(k);
        return false;
    }
    if (h != k->hour) {
        k->hour = h;
        k->minute = 0;
    }
    m = next_bit(c->minutes, k->minute);
    if (m < 0) {
        k->hour++;
        k->minute = 0;
        return false;
    }
    k->minute = m;
    return true;
}

/* Smallest matching wall-clock minute >= from (local seconds). */
static int find_wall(const struct cron_expr *c, int64_t from, int64_t *out)
{
    int64_t days = floor_div(from, 86400), last_year;
    int sod = (int)(from - days * 86400);
    struct cursor k = {.hour = sod / 3600, .minute = sod / 60 % 60};

    tz_civil_from_days(days, &k.year, &k.month, &k.day);
    last_year = k.year + CRON_MAX_YEARS;
    while (k.year <= last_year) {
        if (cursor_step(c, &k)) {
            days = tz_days_from_civil(k.year, k.month, k.day);
            *out = days * 86400 + (int64_t)k.hour * 3600 + (int64_t)k.minute * 60;
            return 0;
        }
    }
    return -ENOENT;
}

/* Fire time of wall time w is the earliest instant whose wall clock reaches w: the
 * instant itself, the first of two in an overlap, the end of a gap. That map never
 * decreases, so the answer is the first matching w whose fire time is after `after`.
 * Matches at or before the current wall minute cannot qualify; the loop below only skips
 * the few wall times of a repeated hour that already fired in its first pass. */
int cron_next(const struct cron_expr *c, const struct tz *zone, int64_t after_utc,
              int64_t *next_utc)
{
    struct tz_local loc;
    int64_t w;
    int rc;

    if (!c || !zone || !next_utc || !cron_valid(c))
        return -EINVAL;
    if (after_utc < CRON_AFTER_MIN || after_utc > CRON_AFTER_MAX)
        return -ERANGE;
    if (!cron_can_fire(c))
        return -ENOENT;
    w = (floor_div(after_utc + tz_offset_at(zone, after_utc), 60) + 1) * 60;
    for (int i = 0; i < CRON_SKIP_MAX; i++) {
        rc = find_wall(c, w, &w);
        if (rc)
            return rc;
        rc = tz_local_to_utc(zone, w, &loc);
        if (rc)
            return rc;
        if (loc.utc > after_utc) {
            *next_utc = loc.utc;
            return 0;
        }
        w += 60;
    }
    return -ERANGE;
}
