/* cron_next — batch front end to cron_parse()/cron_next() for differential tests.
 *
 * Reads lines "EXPR<TAB>ZONE<TAB>START_EPOCH" on stdin and prints, per line, the next fire
 * time as an epoch or "ERR <message>". One process serves thousands of cases, so zones
 * come from a tz_cache. Usage: cron_next [ZONEINFO_ROOT] < cases.tsv
 */
#include "domain/cron.h"
#include "domain/tz.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Splits line in place into three tab-separated fields. */
static int split3(char *line, char *f[3])
{
    f[0] = line;
    f[1] = strchr(f[0], '\t');
    if (!f[1])
        return -1;
    *f[1]++ = '\0';
    f[2] = strchr(f[1], '\t');
    if (!f[2])
        return -1;
    *f[2]++ = '\0';
    return 0;
}

static const char *next_error(int rc)
{
    switch (rc) {
    case -ENOENT:
        return "no fire time within 400 years";
    case -ERANGE:
        return "time out of range";
    default:
        return "invalid argument";
    }
}

static void run_line(struct tz_cache *cache, char *line)
{
    char err[256], *f[3], *end;
    const struct tz *zone;
    struct cron_expr c;
    int64_t start, next;
    int rc;

    if (split3(line, f)) {
        puts("ERR bad input line");
        return;
    }
    errno = 0;
    start = strtoll(f[2], &end, 10);
    if (errno || end == f[2] || *end) {
        puts("ERR bad start time");
        return;
    }
    if (tz_cache_get(cache, f[1], &zone, err, sizeof(err))) {
        printf("ERR %s\n", err);
        return;
    }
    if (cron_parse(f[0], &c, err, sizeof(err))) {
        printf("ERR %s\n", err);
        return;
    }
    rc = cron_next(&c, zone, start, &next);
    if (rc)
        printf("ERR %s\n", next_error(rc));
    else
        printf("%" PRId64 "\n", next);
}

int main(int argc, char **argv)
{
    struct tz_cache *cache;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;

    if (tz_cache_new(argc > 1 ? argv[1] : NULL, &cache)) {
        fputs("cron_next: out of memory\n", stderr);
        return 1;
    }
    while ((len = getline(&line, &cap, stdin)) >= 0) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        run_line(cache, line);
    }
    free(line);
    tz_cache_free(cache);
    return fflush(stdout) == 0 ? 0 : 1;
}
