#include "domain/template.h"

#include "core/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_seg_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

static const struct {
    const char *name;
    enum template_ns ns;
} namespaces[] = {{"input", TPL_INPUT}, {"config", TPL_CONFIG}, {"secret", TPL_SECRET}};

/* Parses the placeholder starting at s[i] == "{{"; fills ref or returns -1. */
static int parse_placeholder(const char *s, size_t len, size_t i, struct template_ref *ref)
{
    size_t p = i + 2;
    while (p < len && s[p] == ' ')
        p++;
    size_t ns_start = p;
    while (p < len && s[p] >= 'a' && s[p] <= 'z')
        p++;
    size_t ns_len = p - ns_start;
    bool found = false;
    for (size_t k = 0; k < TE_ARRAY_LEN(namespaces); k++) {
        if (strlen(namespaces[k].name) == ns_len &&
            memcmp(namespaces[k].name, s + ns_start, ns_len) == 0) {
            ref->ns = namespaces[k].ns;
            found = true;
        }
    }
    if (!found || p >= len || s[p] != '.')
        return -1;
    size_t path_start = ++p;
    for (;;) {
        size_t seg = p;
        while (p < len && is_seg_char(s[p]))
            p++;
        if (p == seg)
            return -1;
        if (p < len && s[p] == '.') {
            p++;
            continue;
        }
        break;
    }
    ref->path = s + path_start;
    ref->path_len = p - path_start;
    while (p < len && s[p] == ' ')
        p++;
    if (p + 1 >= len || s[p] != '}' || s[p + 1] != '}')
        return -1;
    ref->start = i;
    ref->end = p + 2;
    return 0;
}

int template_scan(const char *s, size_t len, template_ref_cb cb, void *arg, char *err,
                  size_t errlen)
{
    for (size_t i = 0; i + 1 < len; i++) {
        if (s[i] != '{' || s[i + 1] != '{')
            continue;
        struct template_ref ref;
        if (parse_placeholder(s, len, i, &ref) < 0) {
            snprintf(err, errlen,
                     "malformed placeholder at character %zu (expected {{input.x}}, "
                     "{{config.x}} or {{secret.x}})",
                     i + 1);
            return -1;
        }
        int rc = cb ? cb(arg, &ref) : 0;
        if (rc)
            return rc;
        i = ref.end - 1;
    }
    return 0;
}

static int scan_node(const cJSON *v, char *path, size_t cap, template_ref_cb cb, void *arg,
                     char *err, size_t errlen)
{
    size_t base = strlen(path);
    if (cJSON_IsString(v)) {
        char msg[200];
        msg[0] = '\0'; /* stays empty when -1 came from the callback, not from a bad placeholder */
        int rc = template_scan(v->valuestring, strlen(v->valuestring), cb, arg, msg, sizeof(msg));
        if (rc == -1 && msg[0])
            snprintf(err, errlen, "%s: %s", path, msg);
        return rc;
    }
    int idx = 0;
    for (const cJSON *c = v->child; c && (cJSON_IsObject(v) || cJSON_IsArray(v)); c = c->next) {
        if (cJSON_IsObject(v))
            snprintf(path + base, cap - base, ".%s", c->string);
        else
            snprintf(path + base, cap - base, "[%d]", idx);
        idx++;
        int rc = scan_node(c, path, cap, cb, arg, err, errlen);
        path[base] = '\0';
        if (rc)
            return rc;
    }
    return 0;
}

int template_scan_json(const cJSON *v, const char *where, template_ref_cb cb, void *arg, char *err,
                       size_t errlen)
{
    char path[512];
    snprintf(path, sizeof(path), "%s", where);
    return scan_node(v, path, sizeof(path), cb, arg, err, errlen);
}

/* ---- Rendering ---- */

/* One placeholder of the string being rendered and what it resolved to. */
struct slot {
    struct template_ref ref;
    const cJSON *json; /* input or config value (borrowed from vars) */
    const char *text;  /* or secret plaintext (borrowed from the callback) */
};

struct slots {
    struct slot *v;
    size_t n, cap;
};

static int collect_ref(void *arg, const struct template_ref *ref)
{
    struct slots *sl = arg;
    if (sl->n == sl->cap) {
        size_t cap = sl->cap ? sl->cap * 2 : 8;
        struct slot *v = realloc(sl->v, cap * sizeof(*v));
        if (!v)
            return TEMPLATE_ENOMEM;
        sl->v = v;
        sl->cap = cap;
    }
    sl->v[sl->n++] = (struct slot){.ref = *ref};
    return 0;
}

static const cJSON *member(const cJSON *obj, const char *name, size_t len)
{
    for (const cJSON *c = obj->child; c; c = c->next) {
        if (c->string && strlen(c->string) == len && memcmp(c->string, name, len) == 0)
            return c;
    }
    return NULL;
}

/* Canonical decimal index ("0", "12", not "01"); NULL when not one or out of range. */
static const cJSON *element(const cJSON *arr, const char *seg, size_t len)
{
    if (len == 0 || len > 9 || (seg[0] == '0' && len > 1))
        return NULL;
    int idx = 0;
    for (size_t i = 0; i < len; i++) {
        if (seg[i] < '0' || seg[i] > '9')
            return NULL;
        idx = idx * 10 + (seg[i] - '0');
    }
    const cJSON *c = arr->child;
    while (c && idx-- > 0)
        c = c->next;
    return c;
}

/* Walks "a.b.0.c" from root; NULL when any step does not exist. */
static const cJSON *walk(const cJSON *root, const char *path, size_t len)
{
    const cJSON *v = root;
    size_t i = 0;
    while (v && i <= len) {
        const char *dot = memchr(path + i, '.', len - i);
        size_t seg_len = dot ? (size_t)(dot - (path + i)) : len - i;
        if (cJSON_IsObject(v))
            v = member(v, path + i, seg_len);
        else if (cJSON_IsArray(v))
            v = element(v, path + i, seg_len);
        else
            v = NULL;
        i += seg_len + 1;
    }
    return v;
}

static const char *ns_prefix(enum template_ns ns)
{
    for (size_t k = 0; k < TE_ARRAY_LEN(namespaces); k++) {
        if (namespaces[k].ns == ns)
            return namespaces[k].name;
    }
    return "?";
}

static int resolve_slot(struct slot *s, const struct template_vars *vars, char *err, size_t errlen)
{
    const struct template_ref *r = &s->ref;
    if (r->ns == TPL_SECRET) {
        s->text = vars->secret ? vars->secret(vars->secret_arg, r->path, r->path_len) : NULL;
    } else {
        const cJSON *root = r->ns == TPL_INPUT ? vars->input : vars->config;
        s->json = root ? walk(root, r->path, r->path_len) : NULL;
    }
    if (s->json || s->text)
        return 0;
    snprintf(err, errlen, "unresolvable template variable {{%s.%.*s}}", ns_prefix(r->ns),
             (int)r->path_len, r->path);
    return TEMPLATE_EINVAL;
}

/*
 * Config and secret placeholders first, then input ones: the brief's order.
 * Values are only looked up here, never scanned, which is what keeps a
 * substituted value from being expanded again.
 */
static int resolve_all(struct slots *sl, const struct template_vars *vars, char *err, size_t errlen)
{
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < sl->n; i++) {
            bool input = sl->v[i].ref.ns == TPL_INPUT;
            if (input != (pass == 1))
                continue;
            int rc = resolve_slot(&sl->v[i], vars, err, errlen);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

/* Scans s and resolves every placeholder in it into sl (emptied first). */
static int resolve_string(const char *s, size_t len, const struct template_vars *vars,
                          struct slots *sl, char *err, size_t errlen)
{
    sl->n = 0;
    int rc = template_scan(s, len, collect_ref, sl, err, errlen);
    if (rc == TEMPLATE_ENOMEM)
        snprintf(err, errlen, "out of memory");
    if (rc < 0)
        return rc;
    return resolve_all(sl, vars, err, errlen);
}

static int append_value(struct buf *b, const struct slot *s)
{
    if (s->text)
        return buf_puts(b, s->text);
    if (cJSON_IsString(s->json))
        return buf_puts(b, s->json->valuestring);
    return json_print(b, s->json);
}

/* Appends s with each resolved placeholder replaced by its stringified value. */
static int assemble(const char *s, size_t len, const struct slots *sl, struct buf *b)
{
    size_t pos = 0;
    for (size_t i = 0; i < sl->n; i++) {
        const struct slot *x = &sl->v[i];
        if (buf_append(b, s + pos, x->ref.start - pos) < 0 || append_value(b, x) < 0)
            return TEMPLATE_ENOMEM;
        pos = x->ref.end;
    }
    return buf_append(b, s + pos, len - pos) < 0 ? TEMPLATE_ENOMEM : 0;
}

/* Drops what was appended after `len` (the buffer's state before a failed append). */
static void truncate_to(struct buf *b, size_t len)
{
    if (b->data) {
        b->len = len;
        b->data[len] = '\0';
    }
}

static int render_string_to(const char *s, const struct template_vars *vars, struct slots *sl,
                            struct buf *out, char *err, size_t errlen)
{
    size_t len = strlen(s), mark = out->len;
    int rc = resolve_string(s, len, vars, sl, err, errlen);
    if (rc < 0)
        goto fail;
    rc = assemble(s, len, sl, out);
    if (rc < 0) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    return 0;
fail:
    truncate_to(out, mark);
    return rc;
}

int template_render_string(const char *s, const struct template_vars *vars, struct buf *out,
                           char *err, size_t errlen)
{
    struct slots sl = {0};
    int rc = render_string_to(s, vars, &sl, out, err, errlen);
    free(sl.v);
    return rc;
}

/* A copy without the member name the source node carried in its parent. */
static cJSON *copy_value(const cJSON *v)
{
    cJSON *c = cJSON_Duplicate(v, true);
    if (c && c->string) {
        if (!(c->type & cJSON_StringIsConst))
            cJSON_free(c->string);
        c->string = NULL;
        c->type &= ~cJSON_StringIsConst;
    }
    return c;
}

/* The whole string is one placeholder: the value keeps its JSON type. */
static cJSON *typed_value(const struct slot *s)
{
    return s->text ? cJSON_CreateString(s->text) : copy_value(s->json);
}

struct render {
    const struct template_vars *vars;
    struct slots slots; /* reused for every string of the tree */
    struct buf tmp;
    char *err;
    size_t errlen;
};

static int render_string_node(struct render *r, const char *s, cJSON **out)
{
    size_t len = strlen(s);
    int rc = resolve_string(s, len, r->vars, &r->slots, r->err, r->errlen);
    if (rc < 0)
        return rc;
    const struct slot *one = r->slots.n == 1 ? &r->slots.v[0] : NULL;
    if (one && one->ref.start == 0 && one->ref.end == len) {
        *out = typed_value(one);
    } else {
        buf_reset(&r->tmp);
        if (assemble(s, len, &r->slots, &r->tmp) < 0)
            return TEMPLATE_ENOMEM;
        *out = cJSON_CreateString(r->tmp.data ? r->tmp.data : "");
    }
    return *out ? 0 : TEMPLATE_ENOMEM;
}

static int render_node(struct render *r, const cJSON *v, cJSON **out);

static int render_children(struct render *r, const cJSON *v, cJSON *dst)
{
    for (const cJSON *c = v->child; c; c = c->next) {
        cJSON *item = NULL;
        int rc = render_node(r, c, &item);
        if (rc < 0)
            return rc;
        bool ok = cJSON_IsObject(v) ? cJSON_AddItemToObject(dst, c->string, item)
                                    : cJSON_AddItemToArray(dst, item);
        if (!ok) {
            cJSON_Delete(item);
            return TEMPLATE_ENOMEM;
        }
    }
    return 0;
}

static int render_node(struct render *r, const cJSON *v, cJSON **out)
{
    *out = NULL;
    if (cJSON_IsString(v))
        return render_string_node(r, v->valuestring, out);
    if (!cJSON_IsObject(v) && !cJSON_IsArray(v)) {
        *out = copy_value(v);
        return *out ? 0 : TEMPLATE_ENOMEM;
    }
    cJSON *dst = cJSON_IsObject(v) ? cJSON_CreateObject() : cJSON_CreateArray();
    if (!dst)
        return TEMPLATE_ENOMEM;
    int rc = render_children(r, v, dst);
    if (rc < 0) {
        cJSON_Delete(dst);
        return rc;
    }
    *out = dst;
    return 0;
}

int template_render(const cJSON *tpl, const struct template_vars *vars, cJSON **out, char *err,
                    size_t errlen)
{
    struct render r = {.vars = vars, .tmp = BUF_INIT, .err = err, .errlen = errlen};
    int rc = render_node(&r, tpl, out);
    if (rc == TEMPLATE_ENOMEM)
        snprintf(err, errlen, "out of memory");
    free(r.slots.v);
    buf_free(&r.tmp);
    return rc;
}

/* ---- Redaction ---- */

/*
 * Decodes the UTF-8 character at p (NUL-terminated) and sets *len to its
 * length. A byte that does not start a valid sequence is -1 of length 1: it
 * can only match itself, since JSON text cannot escape it.
 */
static int32_t utf8_next(const unsigned char *p, size_t *len)
{
    static const struct {
        unsigned char mask, lead;
        size_t n;
        uint32_t min;
    } forms[] = {{0xE0, 0xC0, 2, 0x80}, {0xF0, 0xE0, 3, 0x800}, {0xF8, 0xF0, 4, 0x10000}};
    *len = 1;
    if (p[0] < 0x80)
        return p[0];
    for (size_t f = 0; f < TE_ARRAY_LEN(forms); f++) {
        if ((p[0] & forms[f].mask) != forms[f].lead)
            continue;
        uint32_t cp = p[0] & (unsigned char)~forms[f].mask;
        for (size_t i = 1; i < forms[f].n; i++) {
            if ((p[i] & 0xC0) != 0x80) /* also stops at the terminating NUL */
                return -1;
            cp = cp << 6 | (p[i] & 0x3F);
        }
        if (cp < forms[f].min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return -1;
        *len = forms[f].n;
        return (int32_t)cp;
    }
    return -1;
}

static int32_t hex4(const char *t, size_t n)
{
    if (n < 4)
        return -1;
    int32_t v = 0;
    for (size_t i = 0; i < 4; i++) {
        char c = t[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* The code point of a \uXXXX escape (a surrogate pair when one follows) at t. */
static int32_t unicode_escape_at(const char *t, size_t n, size_t *used)
{
    int32_t hi = hex4(t + 2, n - 2);
    if (hi < 0)
        return -1;
    *used = 6;
    if (hi < 0xD800 || hi > 0xDBFF || n < 12 || t[6] != '\\' || t[7] != 'u')
        return hi; /* a lone surrogate matches no character of a valid secret */
    int32_t lo = hex4(t + 8, n - 8);
    if (lo < 0xDC00 || lo > 0xDFFF)
        return hi;
    *used = 12;
    return 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
}

/* The code point of the JSON string escape at t and its length, or -1 when there is none. */
static int32_t json_escape_at(const char *t, size_t n, size_t *used)
{
    static const char pairs[][2] = {{'"', '"'},  {'\\', '\\'}, {'/', '/'},  {'b', '\b'},
                                    {'f', '\f'}, {'n', '\n'},  {'r', '\r'}, {'t', '\t'}};
    if (n < 2 || t[0] != '\\')
        return -1;
    for (size_t i = 0; i < TE_ARRAY_LEN(pairs); i++) {
        if (t[1] == pairs[i][0]) {
            *used = 2;
            return (unsigned char)pairs[i][1];
        }
    }
    return t[1] == 'u' ? unicode_escape_at(t, n, used) : -1;
}

/* Matches one secret character c[0..k) (code point cp) as JSON string content. */
static size_t match_char_json(const char *t, size_t n, const unsigned char *c, size_t k, int32_t cp)
{
    if (c[0] != '\\' && k <= n && memcmp(t, c, k) == 0)
        return k;
    size_t used = 0;
    if (cp >= 0 && json_escape_at(t, n, &used) == cp)
        return used;
    return 0;
}

/*
 * Length of the text at t that spells the secret as JSON string content.
 * Linear: a literal backslash is never accepted for a backslash of the
 * secret, so a character matches one way at most and nothing backtracks.
 */
static size_t match_json(const char *t, size_t n, const char *secret)
{
    const unsigned char *s = (const unsigned char *)secret;
    size_t j = 0;
    while (*s) {
        size_t k;
        int32_t cp = utf8_next(s, &k);
        size_t m = match_char_json(t + j, n - j, s, k, cp);
        if (m == 0)
            return 0;
        j += m;
        s += k;
    }
    return j;
}

static size_t match_secret(const char *t, size_t n, const char *secret)
{
    if (t[0] != secret[0] && t[0] != '\\')
        return 0;
    size_t raw = strlen(secret);
    if (raw > n || memcmp(t, secret, raw) != 0)
        raw = 0;
    size_t json = match_json(t, n, secret);
    return raw > json ? raw : json;
}

static size_t longest_at(const char *t, size_t n, const char *const *secrets, int nsecrets)
{
    size_t best = 0;
    for (int i = 0; i < nsecrets; i++) {
        if (!secrets[i] || !secrets[i][0])
            continue;
        size_t m = match_secret(t, n, secrets[i]);
        if (m > best)
            best = m;
    }
    return best;
}

/*
 * End of the run of occurrences starting at i, extended by every occurrence
 * that starts inside it or right at its end; i when none starts at i.
 */
static size_t hidden_run(const char *t, size_t n, size_t i, const char *const *secrets,
                         int nsecrets)
{
    size_t end = i + longest_at(t + i, n - i, secrets, nsecrets);
    for (size_t j = i + 1; j <= end && j < n; j++) {
        size_t e = j + longest_at(t + j, n - j, secrets, nsecrets);
        if (e > end)
            end = e;
    }
    return end;
}

int template_redact(const char *text, size_t len, const char *const *secrets, int nsecrets,
                    struct buf *out)
{
    size_t mark = out->len, lit = 0, i = 0;
    while (i < len) {
        size_t end = hidden_run(text, len, i, secrets, nsecrets);
        if (end == i) {
            i++;
            continue;
        }
        if (buf_append(out, text + lit, i - lit) < 0 || buf_puts(out, "***") < 0)
            goto fail;
        i = lit = end;
    }
    if (buf_append(out, text + lit, len - lit) < 0)
        goto fail;
    return 0;
fail:
    truncate_to(out, mark);
    return -1;
}
