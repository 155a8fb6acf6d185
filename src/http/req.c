/*
 * Request accessors (headers, query string), request ids, method and status
 * names, and the API error shape.
 */
#include "http/http_int.h"

#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

const char *http_req_header(const struct http_req *req, const char *name)
{
    const struct http_conn *c = TE_CONTAINER_OF(req, const struct http_conn, req);
    for (unsigned i = 0; i < c->nhdrs; i++) {
        if (strcasecmp(c->arena.data + c->hdrs[i].name, name) == 0)
            return c->arena.data + c->hdrs[i].value;
    }
    return NULL;
}

bool http_req_gone(const struct http_req *req)
{
    const struct http_conn *c = TE_CONTAINER_OF(req, const struct http_conn, req);
    return c->req_state == HTTP_REQ_ORPHANED;
}

static bool is_token_char(unsigned char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

static bool header_name_ok(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++) {
        if (!is_token_char((unsigned char)*s))
            return false;
    }
    return true;
}

/* No CR or LF: a value must not be able to start a new header or the body. */
static bool header_value_ok(const char *s)
{
    return strpbrk(s, "\r\n") == NULL;
}

int http_req_add_header(struct http_req *req, const char *name, const char *value)
{
    struct http_conn *c = TE_CONTAINER_OF(req, struct http_conn, req);
    if (!header_name_ok(name) || !header_value_ok(value))
        return -1;
    if (c->req_state != HTTP_REQ_HELD)
        return 0; /* the response will be dropped anyway */
    size_t old = c->resp_hdrs.len;
    if (buf_printf(&c->resp_hdrs, "%s: %s\r\n", name, value) < 0) {
        c->resp_hdrs.len = old;
        return -1;
    }
    return 0;
}

/* ---- query string ---- */

static int hex_val(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/*
 * Decodes s[0..n) ('+' is a space, %XX a byte) into out, NUL-terminated.
 * Returns the decoded length, -1 on a malformed escape (or %00), -2 when it
 * does not fit.
 */
static int qs_decode(const char *s, size_t n, char *out, size_t outlen)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (ch == '+') {
            ch = ' ';
        } else if (ch == '%') {
            if (n - i < 3)
                return -1;
            int h = hex_val(s[i + 1]), l = hex_val(s[i + 2]);
            if (h < 0 || l < 0 || (h == 0 && l == 0))
                return -1;
            ch = (char)(h * 16 + l);
            i += 2;
        }
        if (o + 1 >= outlen)
            return -2;
        out[o++] = ch;
    }
    if (outlen == 0)
        return -2;
    out[o] = '\0';
    return (int)o;
}

/* True when the encoded key s[0..n) decodes to exactly `name`. */
static bool qs_key_is(const char *s, size_t n, const char *name)
{
    char key[128];
    size_t want = strlen(name);
    if (want >= sizeof(key))
        return n == want && memcmp(s, name, n) == 0;
    int k = qs_decode(s, n, key, sizeof(key));
    return k >= 0 && (size_t)k == want && memcmp(key, name, want) == 0;
}

int http_req_query(const struct http_req *req, const char *name, char *out, size_t outlen)
{
    const char *p = req->query ? req->query : "";
    while (*p) {
        size_t len = strcspn(p, "&");
        const char *eq = memchr(p, '=', len);
        size_t klen = eq ? (size_t)(eq - p) : len;
        if (qs_key_is(p, klen, name)) {
            const char *v = eq ? eq + 1 : p + len;
            int rc = qs_decode(v, (size_t)(p + len - v), out, outlen);
            return rc < 0 ? -2 : 0;
        }
        p += len;
        if (*p == '&')
            p++;
    }
    return -1;
}

/* ---- request ids ---- */

bool http__request_id_ok(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++) {
        unsigned char ch = (unsigned char)s[n];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                  (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == ':' || ch == '-';
        if (!ok || n >= 64)
            return false;
    }
    return n >= 1;
}

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/*
 * "req_" + 26 Crockford base32 chars, ULID-like: 48 bits of wall-clock
 * milliseconds, then 80 bits derived from a per-process random seed and a
 * counter. mix64 is a bijection, so ids never repeat inside one process; the
 * seed keeps processes apart. One getrandom() per process, none per request.
 */
void http__request_id_new(char *out, size_t outlen)
{
    static const char alphabet[] = "0123456789abcdefghjkmnpqrstvwxyz";
    static uint64_t seed[2];
    static uint64_t counter;
    static bool seeded;
    if (!seeded) {
        if (sodium_init() >= 0)
            randombytes_buf(seed, sizeof(seed));
        seed[0] ^= uv_hrtime();
        seeded = true;
    }
    uint64_t n = counter++;
    uint64_t r1 = mix64(seed[0] + n * 0x9e3779b97f4a7c15ULL);
    uint64_t r2 = mix64(seed[1] ^ n);
    uv_timeval64_t tv = {0, 0};
    (void)uv_gettimeofday(&tv);
    uint64_t ms = (uint64_t)tv.tv_sec * 1000u + (uint64_t)tv.tv_usec / 1000u;

    char id[4 + 26 + 1] = "req_";
    for (int i = 9; i >= 0; i--, ms >>= 5)
        id[4 + i] = alphabet[ms & 31];
    /* 80 random bits: 64 from r1, 16 from r2, 5 bits per char. */
    uint64_t hi = r2 & 0xffff; /* bits 79..64 */
    for (int i = 15; i >= 0; i--) {
        id[14 + i] = alphabet[r1 & 31];
        r1 = (r1 >> 5) | (hi << 59);
        hi >>= 5;
    }
    id[30] = '\0';
    snprintf(out, outlen, "%s", id);
}

/* ---- names ---- */

enum http_method http__method_from_llhttp(uint8_t m)
{
    switch (m) {
    case HTTP_GET:
        return HTTP_M_GET;
    case HTTP_HEAD:
        return HTTP_M_HEAD;
    case HTTP_POST:
        return HTTP_M_POST;
    case HTTP_PUT:
        return HTTP_M_PUT;
    case HTTP_PATCH:
        return HTTP_M_PATCH;
    case HTTP_DELETE:
        return HTTP_M_DELETE;
    case HTTP_OPTIONS:
        return HTTP_M_OPTIONS;
    default:
        return HTTP_M_OTHER;
    }
}

const char *http_method_name(enum http_method m)
{
    switch (m) {
    case HTTP_M_GET:
        return "GET";
    case HTTP_M_HEAD:
        return "HEAD";
    case HTTP_M_POST:
        return "POST";
    case HTTP_M_PUT:
        return "PUT";
    case HTTP_M_PATCH:
        return "PATCH";
    case HTTP_M_DELETE:
        return "DELETE";
    case HTTP_M_OPTIONS:
        return "OPTIONS";
    case HTTP_M_OTHER:
        return "OTHER";
    }
    return "OTHER";
}

const char *http_status_text(int status)
{
    switch (status) {
    case 100:
        return "Continue";
    case 200:
        return "OK";
    case 201:
        return "Created";
    case 202:
        return "Accepted";
    case 204:
        return "No Content";
    case 301:
        return "Moved Permanently";
    case 302:
        return "Found";
    case 304:
        return "Not Modified";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 406:
        return "Not Acceptable";
    case 408:
        return "Request Timeout";
    case 409:
        return "Conflict";
    case 410:
        return "Gone";
    case 411:
        return "Length Required";
    case 412:
        return "Precondition Failed";
    case 413:
        return "Payload Too Large";
    case 415:
        return "Unsupported Media Type";
    case 417:
        return "Expectation Failed";
    case 422:
        return "Unprocessable Entity";
    case 428:
        return "Precondition Required";
    case 429:
        return "Too Many Requests";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 502:
        return "Bad Gateway";
    case 503:
        return "Service Unavailable";
    case 504:
        return "Gateway Timeout";
    default:
        return "Unknown";
    }
}

int http__error_json(struct buf *b, const char *code, const char *message, const char *request_id)
{
    int rc = buf_puts(b, "{\"error\":{\"code\":");
    rc |= buf_json_str(b, code, strlen(code));
    rc |= buf_puts(b, ",\"message\":");
    rc |= buf_json_str(b, message, strlen(message));
    rc |= buf_puts(b, ",\"request_id\":");
    rc |= buf_json_str(b, request_id, strlen(request_id));
    rc |= buf_puts(b, "}}");
    return rc ? -1 : 0;
}
