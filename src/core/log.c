#include "core/log.h"

#include "core/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

enum log_level log_min_level = LOG_INFO;
static bool log_json;

static const char *const level_names[] = {"debug", "info", "warn", "error"};

void log_setup(enum log_level min, bool json)
{
    log_min_level = min;
    log_json = json;
}

int log_level_parse(const char *s, enum log_level *out)
{
    for (size_t i = 0; i < TE_ARRAY_LEN(level_names); i++) {
        if (strcasecmp(s, level_names[i]) == 0) {
            *out = (enum log_level)i;
            return 0;
        }
    }
    return -1;
}

static void format_time(char *out, size_t n)
{
    struct timeval tv;
    struct tm tm;
    gettimeofday(&tv, NULL);
    gmtime_r(&tv.tv_sec, &tm);
    size_t k = strftime(out, n, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + k, n - k, ".%03dZ", (int)(tv.tv_usec / 1000));
}

/* One event, one line: line breaks and tabs (libpq writes multi-line messages) become spaces. */
static void flatten(char *s)
{
    char *w = s;
    bool space = false;
    for (char *r = s; *r; r++) {
        bool ws = *r == '\n' || *r == '\r' || *r == '\t';
        if (ws) {
            if (!space && w != s)
                *w++ = ' ';
            space = true;
            continue;
        }
        space = false;
        *w++ = *r;
    }
    while (w > s && w[-1] == ' ')
        w--;
    *w = '\0';
}

void log_emit(enum log_level lvl, const char *ctx_key, const char *ctx_val, const char *fmt, ...)
{
    char msg[2048];
    char ts[40];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    flatten(msg);
    format_time(ts, sizeof(ts));

    struct buf b = BUF_INIT;
    int rc = 0;
    if (log_json) {
        rc |= buf_printf(&b, "{\"ts\":\"%s\",\"level\":\"%s\"", ts, level_names[lvl]);
        if (ctx_key && ctx_val) {
            rc |= buf_printf(&b, ",\"%s\":", ctx_key);
            rc |= buf_json_str(&b, ctx_val, strlen(ctx_val));
        }
        rc |= buf_puts(&b, ",\"msg\":");
        rc |= buf_json_str(&b, msg, strlen(msg));
        rc |= buf_puts(&b, "}\n");
    } else {
        rc |= buf_printf(&b, "%s %-5s ", ts, level_names[lvl]);
        if (ctx_key && ctx_val)
            rc |= buf_printf(&b, "[%s=%s] ", ctx_key, ctx_val);
        rc |= buf_puts(&b, msg);
        rc |= buf_putc(&b, '\n');
    }
    if (rc == 0) {
        ssize_t w = write(STDERR_FILENO, b.data, b.len);
        (void)w;
    }
    buf_free(&b);
}
