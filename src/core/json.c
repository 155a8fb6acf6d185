#include "core/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * cJSON decodes \u0000 to a NUL byte inside a C string, where everything after
 * it would silently vanish (a secret cut short, two idempotency keys made one).
 * Such strings are refused, as PostgreSQL refuses them in jsonb. Called on a
 * document cJSON accepted, so every backslash is inside a string.
 */
static long find_nul_escape(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\0')
            return (long)i;
        if (text[i] != '\\' || i + 1 >= len)
            continue;
        if (text[i + 1] == 'u' && i + 5 < len && memcmp(text + i + 2, "0000", 4) == 0)
            return (long)i;
        i++; /* the escaped character */
    }
    return -1;
}

int json_parse(const char *text, size_t len, cJSON **out, char *err, size_t errlen)
{
    const char *end = NULL;
    cJSON *v = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (!v) {
        size_t off = end && end >= text ? (size_t)(end - text) : 0;
        snprintf(err, errlen, "malformed JSON at byte %zu", off);
        return -1;
    }
    /* Trailing bytes other than whitespace make the document invalid. */
    for (const char *p = end; p && p < text + len; p++) {
        if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
            snprintf(err, errlen, "malformed JSON: unexpected data at byte %zu",
                     (size_t)(p - text));
            cJSON_Delete(v);
            return -1;
        }
    }
    long nul = find_nul_escape(text, len);
    if (nul >= 0) {
        snprintf(err, errlen, "JSON strings must not contain NUL (\\u0000) characters (byte %ld)",
                 nul);
        cJSON_Delete(v);
        return -1;
    }
    *out = v;
    return 0;
}

bool json_is_int(const cJSON *v)
{
    if (!cJSON_IsNumber(v))
        return false;
    double d = v->valuedouble;
    return isfinite(d) && d == floor(d) && fabs(d) <= 9007199254740992.0;
}

unsigned json_type_of(const cJSON *v)
{
    if (cJSON_IsNull(v))
        return JT_NULL;
    if (cJSON_IsBool(v))
        return JT_BOOL;
    if (cJSON_IsNumber(v))
        return json_is_int(v) ? (JT_INT | JT_NUMBER) : JT_NUMBER;
    if (cJSON_IsString(v))
        return JT_STRING;
    if (cJSON_IsArray(v))
        return JT_ARRAY;
    if (cJSON_IsObject(v))
        return JT_OBJECT;
    return 0;
}

const char *json_type_name(unsigned types)
{
    types &= ~(unsigned)JT_NULL;
    switch (types) {
    case JT_BOOL:
        return "a boolean";
    case JT_INT:
        return "an integer";
    case JT_NUMBER:
    case JT_NUMBER | JT_INT:
        return "a number";
    case JT_STRING:
        return "a string";
    case JT_ARRAY:
        return "an array";
    case JT_OBJECT:
        return "an object";
    case JT_STRING | JT_INT:
        return "a string or an integer";
    case JT_OBJECT | JT_BOOL:
        return "an object or a boolean";
    case JT_OBJECT | JT_ARRAY:
        return "an object or an array";
    case JT_ANY & ~(unsigned)JT_NULL:
        return "a value other than null";
    default:
        return "a JSON value of another type";
    }
}

static const struct json_field *find_field(const struct json_field *f, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(f[i].name, name) == 0)
            return &f[i];
    }
    return NULL;
}

int json_check_fields(const cJSON *obj, const struct json_field *fields, size_t n,
                      const char *where, char *err, size_t errlen)
{
    if (!cJSON_IsObject(obj)) {
        if (*where)
            snprintf(err, errlen, "field '%.*s' must be an object", (int)strlen(where) - 1, where);
        else
            snprintf(err, errlen, "request body must be a JSON object");
        return -1;
    }
    for (const cJSON *it = obj->child; it; it = it->next) {
        const struct json_field *f = find_field(fields, n, it->string);
        if (!f) {
            snprintf(err, errlen, "unknown field '%s%s'", where, it->string);
            return -1;
        }
        for (const cJSON *dup = it->next; dup; dup = dup->next) {
            if (strcmp(dup->string, it->string) == 0) {
                snprintf(err, errlen, "field '%s%s' appears twice", where, it->string);
                return -1;
            }
        }
        unsigned t = json_type_of(it);
        if (t == JT_NULL && !f->required)
            continue;
        if (!(t & f->types)) {
            snprintf(err, errlen, "field '%s%s' must be %s", where, it->string,
                     json_type_name(f->types));
            return -1;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (fields[i].required && !json_get(obj, fields[i].name)) {
            snprintf(err, errlen, "missing required field '%s%s'", where, fields[i].name);
            return -1;
        }
    }
    return 0;
}

int json_print(struct buf *b, const cJSON *v)
{
    char *s = cJSON_PrintUnformatted(v);
    if (!s)
        return -1;
    int rc = buf_puts(b, s);
    cJSON_free(s);
    return rc;
}

const cJSON *json_get(const cJSON *obj, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    return v && !cJSON_IsNull(v) ? v : NULL;
}
