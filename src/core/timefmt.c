#include "core/timefmt.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int64_t time_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Howard Hinnant's civil-calendar algorithms: exact for every proleptic Gregorian date. */
int64_t time_days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

void time_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

void time_format_ms(int64_t ms, char out[TIME_RFC3339_LEN])
{
    int64_t secs = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
    int frac = (int)(ms - secs * 1000);
    int64_t days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
    int64_t rem = secs - days * 86400;
    int64_t y;
    unsigned mo, d;
    time_civil_from_days(days, &y, &mo, &d);
    snprintf(out, TIME_RFC3339_LEN, "%04lld-%02u-%02uT%02d:%02d:%02d.%03dZ", (long long)y, mo, d,
             (int)(rem / 3600), (int)(rem / 60 % 60), (int)(rem % 60), frac);
}

static int take_digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)(*p)[i]))
            return -1;
        v = v * 10 + ((*p)[i] - '0');
    }
    *p += n;
    *out = v;
    return 0;
}

static int days_in_month(int y, int m)
{
    static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : dm[m - 1];
}

int time_parse_rfc3339(const char *s, int64_t *ms)
{
    int y, mo, d, h, mi, sec, frac = 0;
    const char *p = s;
    if (take_digits(&p, 4, &y) || *p++ != '-' || take_digits(&p, 2, &mo) || *p++ != '-' ||
        take_digits(&p, 2, &d))
        return -1;
    if (*p != 'T' && *p != 't' && *p != ' ')
        return -1;
    p++;
    if (take_digits(&p, 2, &h) || *p++ != ':' || take_digits(&p, 2, &mi) || *p++ != ':' ||
        take_digits(&p, 2, &sec))
        return -1;
    if (*p == '.' || *p == ',') {
        p++;
        int ndig = 0;
        while (isdigit((unsigned char)*p)) {
            if (ndig < 3)
                frac = frac * 10 + (*p - '0');
            ndig++;
            p++;
        }
        if (ndig == 0)
            return -1;
        for (int i = ndig; i < 3; i++)
            frac *= 10;
    }
    int off = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int sign = *p++ == '-' ? -1 : 1, oh, om;
        if (take_digits(&p, 2, &oh) || *p++ != ':' || take_digits(&p, 2, &om) || oh > 23 || om > 59)
            return -1;
        off = sign * (oh * 60 + om);
    } else {
        return -1;
    }
    if (*p || y < 1 || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 ||
        mi > 59 || sec > 60)
        return -1;
    if (sec == 60)
        sec = 59; /* a leap second is clamped to the last representable instant */
    int64_t days = time_days_from_civil(y, (unsigned)mo, (unsigned)d);
    int64_t t = days * 86400 + h * 3600 + mi * 60 + sec - (int64_t)off * 60;
    *ms = t * 1000 + frac;
    return 0;
}
