#include "http/router.h"

#include <stdio.h>
#include <string.h>

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Percent-decodes seg[0..len) into out; -1 on bad escapes, NUL bytes or overflow. */
static int decode_segment(const char *seg, size_t len, char *out, size_t outlen)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        char c = seg[i];
        if (c == '%') {
            if (i + 2 >= len)
                return -1;
            int h = hexval(seg[i + 1]), l = hexval(seg[i + 2]);
            if (h < 0 || l < 0 || (h == 0 && l == 0))
                return -1;
            c = (char)(h * 16 + l);
            i += 2;
        }
        if (o + 1 >= outlen)
            return -1;
        out[o++] = c;
    }
    out[o] = '\0';
    return 0;
}

/* 1 match, 0 no match, -1 malformed parameter. */
static int match_pattern(const char *pattern, const char *path, struct route_match *m)
{
    m->n = 0;
    const char *p = pattern, *s = path;
    while (*p && *s) {
        if (*p != '/' || *s != '/')
            return 0;
        p++;
        s++;
        size_t plen = strcspn(p, "/"), slen = strcspn(s, "/");
        if (p[0] == '{') {
            if (slen == 0 || m->n == ROUTE_MAX_PARAMS)
                return 0;
            if (decode_segment(s, slen, m->params[m->n], ROUTE_PARAM_MAX) < 0)
                return -1;
            m->n++;
        } else if (plen != slen || memcmp(p, s, plen) != 0) {
            return 0;
        }
        p += plen;
        s += slen;
    }
    return *p == '\0' && *s == '\0';
}

enum router_result router_match(const struct route *routes, size_t n, enum http_method method,
                                const char *path, const struct route **out, struct route_match *m,
                                char *allow, size_t allowlen)
{
    bool path_seen = false, bad = false;
    size_t used = 0;
    allow[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        struct route_match tmp;
        int r = match_pattern(routes[i].pattern, path, &tmp);
        if (r < 0)
            bad = true;
        if (r <= 0)
            continue;
        path_seen = true;
        if (routes[i].method == method ||
            (method == HTTP_M_HEAD && routes[i].method == HTTP_M_GET)) {
            *out = &routes[i];
            *m = tmp;
            return ROUTE_FOUND;
        }
        int w = snprintf(allow + used, allowlen - used, "%s%s", used ? ", " : "",
                         http_method_name(routes[i].method));
        if (w > 0 && (size_t)w < allowlen - used)
            used += (size_t)w;
    }
    if (bad)
        return ROUTE_BAD;
    return path_seen ? ROUTE_NO_METHOD : ROUTE_NO_PATH;
}
