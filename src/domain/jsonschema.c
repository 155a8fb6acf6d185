/*
 * JSON Schema: checking (meta-schema rules, keyword by keyword), compiling (documents,
 * base URIs, anchors and references resolved once) and validating (annotation-aware
 * evaluation for unevaluated*).
 *
 * Compilation turns every reachable schema object into a struct js_node with resolved
 * pointers, so validation never looks anything up by URI, except $dynamicRef, whose target
 * depends on the dynamic scope (the chain of schema resources entered so far). Schema nodes
 * are compiled from a work queue, so long $ref chains do not deepen the C stack.
 *
 * Evaluation returns 1 (valid), 0 (invalid) or a negative abort code. Subschemas whose
 * failure does not fail the parent (anyOf, oneOf, not, if, contains) are evaluated
 * "quietly": they record no errors and stop at their first failure. Annotations (which
 * properties/items were evaluated) are collected in bitsets only when some schema on the
 * in-place path has unevaluatedItems/unevaluatedProperties.
 */
#include "domain/jsonschema.h"

#include "core/buf.h"
#include "domain/regex.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SCHEMA_DEPTH 512u
#define MAX_META_CHAIN 4u
#define E_ABORT (-3) /* internal: depth limit or regex budget, details in the context */

enum draft { D7 = 1, D19 = 2, D20 = 4 };
#define DALL (D7 | D19 | D20)
#define D1920 (D19 | D20)

enum vocab {
    V_CORE = 1,
    V_APPLICATOR = 2,
    V_UNEVALUATED = 4,
    V_VALIDATION = 8,
    V_METADATA = 16,
    V_FORMAT_ANNOTATION = 32,
    V_FORMAT_ASSERTION = 64,
    V_CONTENT = 128,
};
#define V_ALL                                                                                      \
    (V_CORE | V_APPLICATOR | V_UNEVALUATED | V_VALIDATION | V_METADATA | V_FORMAT_ANNOTATION |     \
     V_CONTENT)

/* ------------------------------------------------------------------ small helpers */

/* Bump allocator for everything a compiled schema keeps; freed in one go. */
struct chunk {
    struct chunk *next;
    size_t used, cap;
    max_align_t data[];
};

struct arena {
    struct chunk *head;
};

static void *arena_alloc(struct arena *a, size_t n)
{
    void *p;

    n = (n + 15) & ~(size_t)15;
    if (!a->head || a->head->cap - a->head->used < n) {
        size_t cap = n > 16384 ? n : 16384;
        struct chunk *c = malloc(sizeof(*c) + cap);
        if (!c)
            return NULL;
        c->next = a->head;
        c->used = 0;
        c->cap = cap;
        a->head = c;
    }
    p = (char *)a->head->data + a->head->used;
    a->head->used += n;
    memset(p, 0, n);
    return p;
}

static void arena_free(struct arena *a)
{
    while (a->head) {
        struct chunk *next = a->head->next;
        free(a->head);
        a->head = next;
    }
}

static char *arena_strdup(struct arena *a, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = arena_alloc(a, n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static uint64_t hash_bytes(const void *p, size_t n, uint64_t h)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

#define HASH_SEED 0xcbf29ce484222325ull

/* String-keyed map (keys copied) and pointer-keyed map, open addressing. */
struct smap_ent {
    char *key;
    void *val;
};

struct smap {
    struct smap_ent *e;
    size_t cap, n;
};

static struct smap_ent *smap_slot(const struct smap *m, const char *key)
{
    size_t i = hash_bytes(key, strlen(key), HASH_SEED) & (m->cap - 1);
    while (m->e[i].key && strcmp(m->e[i].key, key) != 0)
        i = (i + 1) & (m->cap - 1);
    return &m->e[i];
}

static void *smap_get(const struct smap *m, const char *key)
{
    return m->cap ? smap_slot(m, key)->val : NULL;
}

static int smap_grow(struct smap *m)
{
    struct smap old = *m;
    m->cap = old.cap ? old.cap * 2 : 32;
    m->n = 0;
    m->e = calloc(m->cap, sizeof(*m->e));
    if (!m->e) {
        *m = old;
        return JSONSCHEMA_ENOMEM;
    }
    for (size_t i = 0; i < old.cap; i++) {
        if (old.e[i].key) {
            *smap_slot(m, old.e[i].key) = old.e[i];
            m->n++;
        }
    }
    free(old.e);
    return 0;
}

/* Adds key -> val unless key exists; *existing gets the stored value either way. */
static int smap_put(struct smap *m, const char *key, void *val, void **existing)
{
    struct smap_ent *e;

    if ((m->n + 1) * 2 > m->cap && smap_grow(m))
        return JSONSCHEMA_ENOMEM;
    e = smap_slot(m, key);
    if (!e->key) {
        e->key = strdup(key);
        if (!e->key)
            return JSONSCHEMA_ENOMEM;
        e->val = val;
        m->n++;
    }
    if (existing)
        *existing = e->val;
    return 0;
}

static void smap_free(struct smap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->e[i].key);
    free(m->e);
    memset(m, 0, sizeof(*m));
}

struct pmap {
    const void **k;
    void **v;
    size_t cap, n;
};

static size_t pmap_index(const struct pmap *m, const void *key)
{
    uintptr_t x = (uintptr_t)key;
    size_t i = (size_t)((x >> 4) * 0x9E3779B97F4A7C15ull) & (m->cap - 1);
    while (m->k[i] && m->k[i] != key)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static void *pmap_get(const struct pmap *m, const void *key)
{
    return m->cap ? m->v[pmap_index(m, key)] : NULL;
}

static int pmap_put(struct pmap *m, const void *key, void *val)
{
    size_t i;

    if ((m->n + 1) * 2 > m->cap) {
        struct pmap old = *m;
        m->cap = old.cap ? old.cap * 2 : 64;
        m->n = 0;
        m->k = calloc(m->cap, sizeof(*m->k));
        m->v = calloc(m->cap, sizeof(*m->v));
        if (!m->k || !m->v) {
            free(m->k);
            free(m->v);
            *m = old;
            return JSONSCHEMA_ENOMEM;
        }
        for (size_t j = 0; j < old.cap; j++) {
            if (old.k[j] && pmap_put(m, old.k[j], old.v[j]))
                return JSONSCHEMA_ENOMEM; /* cannot happen: capacity was just doubled */
        }
        free(old.k);
        free(old.v);
    }
    i = pmap_index(m, key);
    if (!m->k[i]) {
        m->k[i] = key;
        m->v[i] = val;
        m->n++;
    }
    return 0;
}

static void pmap_free(struct pmap *m)
{
    free(m->k);
    free(m->v);
    memset(m, 0, sizeof(*m));
}

/* A location inside a JSON document, as a chain of frames on the C stack. */
struct js_path {
    const struct js_path *up;
    const char *key; /* NULL: array index */
    size_t index;
};

static int path_append(struct buf *b, const struct js_path *p)
{
    if (!p)
        return 0;
    if (path_append(b, p->up) || buf_putc(b, '/'))
        return JSONSCHEMA_ENOMEM;
    if (!p->key)
        return buf_printf(b, "%zu", p->index) ? JSONSCHEMA_ENOMEM : 0;
    for (const char *s = p->key; *s; s++) {
        int rc = *s == '~' ? buf_puts(b, "~0") : *s == '/' ? buf_puts(b, "~1") : buf_putc(b, *s);
        if (rc)
            return JSONSCHEMA_ENOMEM;
    }
    return 0;
}

/* JSON Pointer of p as a malloc'd string ("" for the root). */
static char *path_str(const struct js_path *p)
{
    struct buf b = BUF_INIT;
    if (path_append(&b, p) || buf_putc(&b, '\0')) {
        buf_free(&b);
        return NULL;
    }
    return buf_steal(&b);
}

static bool is_int_value(double d)
{
    return isfinite(d) && floor(d) == d;
}

/* Non-negative integer keyword values, saturated (a limit of 1e300 means "no limit"). */
static uint64_t to_count(double d)
{
    if (d >= 18446744073709551615.0)
        return UINT64_MAX;
    return d <= 0 ? 0 : (uint64_t)d;
}

/* ------------------------------------------------------------------ URIs (RFC 3986) */

struct uref {
    const char *scheme, *auth, *path, *query, *frag;
    size_t scheme_n, auth_n, path_n, query_n, frag_n;
    bool has_scheme, has_auth, has_query, has_frag;
};

static void uri_parse(const char *s, struct uref *u)
{
    const char *p = s, *q;

    memset(u, 0, sizeof(*u));
    if (isalpha((unsigned char)*p)) {
        for (q = p + 1; isalnum((unsigned char)*q) || *q == '+' || *q == '-' || *q == '.'; q++)
            ;
        if (*q == ':') {
            u->has_scheme = true;
            u->scheme = p;
            u->scheme_n = (size_t)(q - p);
            p = q + 1;
        }
    }
    if (p[0] == '/' && p[1] == '/') {
        u->has_auth = true;
        u->auth = p += 2;
        p += strcspn(p, "/?#");
        u->auth_n = (size_t)(p - u->auth);
    }
    u->path = p;
    p += strcspn(p, "?#");
    u->path_n = (size_t)(p - u->path);
    if (*p == '?') {
        u->has_query = true;
        u->query = ++p;
        p += strcspn(p, "#");
        u->query_n = (size_t)(p - u->query);
    }
    if (*p == '#') {
        u->has_frag = true;
        u->frag = ++p;
        u->frag_n = strlen(p);
    }
}

/* RFC 3986 5.2.4 remove_dot_segments, appending the result to out. */
static int remove_dots(struct buf *out, const char *path, size_t n)
{
    size_t start = out->len;
    char *in = strndup(path, n);
    char *p = in;
    int rc = 0;

    if (!in)
        return JSONSCHEMA_ENOMEM;
    while (*p && rc == 0) {
        if (strncmp(p, "../", 3) == 0) {
            p += 3;
        } else if (strncmp(p, "./", 2) == 0) {
            p += 2;
        } else if (strncmp(p, "/./", 3) == 0) {
            p += 2;
        } else if (strcmp(p, "/.") == 0) {
            p += 1;
            *p = '/';
        } else if (strncmp(p, "/../", 4) == 0 || strcmp(p, "/..") == 0) {
            p += p[3] ? 3 : 2;
            *p = '/';
            while (out->len > start && out->data[out->len - 1] != '/')
                out->len--;
            if (out->len > start)
                out->len--;
        } else if (strcmp(p, ".") == 0 || strcmp(p, "..") == 0) {
            break;
        } else {
            size_t seg = 1 + strcspn(p + 1, "/");
            if (*p != '/')
                seg = strcspn(p, "/");
            rc = buf_append(out, p, seg);
            p += seg;
        }
    }
    free(in);
    return rc ? JSONSCHEMA_ENOMEM : 0;
}

static int uri_path(struct buf *out, const struct uref *b, const struct uref *r)
{
    struct buf merged = BUF_INIT;
    int rc;

    if (r->path_n == 0)
        return buf_append(out, b->path, b->path_n) ? JSONSCHEMA_ENOMEM : 0;
    if (r->path[0] == '/' || r->has_scheme || r->has_auth)
        return remove_dots(out, r->path, r->path_n);
    if (b->has_auth && b->path_n == 0) {
        rc = buf_putc(&merged, '/');
    } else {
        size_t keep = b->path_n;
        while (keep > 0 && b->path[keep - 1] != '/')
            keep--;
        rc = buf_append(&merged, b->path, keep);
    }
    if (rc == 0)
        rc = buf_append(&merged, r->path, r->path_n);
    if (rc == 0)
        rc = remove_dots(out, merged.data ? merged.data : "", merged.len);
    buf_free(&merged);
    return rc ? JSONSCHEMA_ENOMEM : 0;
}

/* Resolves ref against base (RFC 3986 5.2.2); the scheme is lower-cased and an empty
 * fragment dropped, so equal resources compare equal as strings. */
static char *uri_resolve(const char *base, const char *ref)
{
    struct uref b, r;
    const struct uref *sa, *au, *qu;
    struct buf out = BUF_INIT;
    int rc = 0;

    uri_parse(base, &b);
    uri_parse(ref, &r);
    sa = r.has_scheme ? &r : &b;
    au = (r.has_scheme || r.has_auth) ? &r : &b;
    qu = (r.has_scheme || r.has_auth || r.path_n || r.has_query) ? &r : &b;
    if (sa->has_scheme) {
        for (size_t i = 0; i < sa->scheme_n && rc == 0; i++)
            rc = buf_putc(&out, (char)tolower((unsigned char)sa->scheme[i]));
        rc = rc ? rc : buf_putc(&out, ':');
    }
    if (rc == 0 && au->has_auth)
        rc = buf_puts(&out, "//") || buf_append(&out, au->auth, au->auth_n);
    if (rc == 0)
        rc = uri_path(&out, &b, &r);
    if (rc == 0 && qu->has_query)
        rc = buf_putc(&out, '?') || buf_append(&out, qu->query, qu->query_n);
    if (rc == 0 && r.has_frag && r.frag_n)
        rc = buf_putc(&out, '#') || buf_append(&out, r.frag, r.frag_n);
    if (rc == 0)
        rc = buf_putc(&out, '\0');
    if (rc) {
        buf_free(&out);
        return NULL;
    }
    return buf_steal(&out);
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)tolower((unsigned char)c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Decodes %XX in place. */
static void percent_decode(char *s)
{
    char *o = s;
    for (; *s; s++) {
        if (s[0] == '%' && hex_digit(s[1]) >= 0 && hex_digit(s[2]) >= 0) {
            *o++ = (char)(hex_digit(s[1]) * 16 + hex_digit(s[2]));
            s += 2;
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
}

/* ------------------------------------------------------------------ compiled form */

enum js_kind { JS_TRUE, JS_FALSE, JS_OBJECT };

enum js_type {
    T_NULL = 1,
    T_BOOLEAN = 2,
    T_OBJECT = 4,
    T_ARRAY = 8,
    T_NUMBER = 16,
    T_STRING = 32,
    T_INTEGER = 64,
};

static const char *const type_names[] = {"null",   "boolean", "object", "array",
                                         "number", "string",  "integer"};

/* Which optional keywords a node has. */
enum js_flag {
    F_TYPE = 1u << 0,
    F_CONST = 1u << 1,
    F_ENUM = 1u << 2,
    F_MULTIPLE_OF = 1u << 3,
    F_MAXIMUM = 1u << 4,
    F_EXCL_MAXIMUM = 1u << 5,
    F_MINIMUM = 1u << 6,
    F_EXCL_MINIMUM = 1u << 7,
    F_MAX_LENGTH = 1u << 8,
    F_MIN_LENGTH = 1u << 9,
    F_MAX_ITEMS = 1u << 10,
    F_MIN_ITEMS = 1u << 11,
    F_MAX_CONTAINS = 1u << 12,
    F_MIN_CONTAINS = 1u << 13,
    F_MAX_PROPS = 1u << 14,
    F_MIN_PROPS = 1u << 15,
    F_UNIQUE = 1u << 16,
    F_UNEVAL = 1u << 17,
    F_ITEMS_ARRAY = 1u << 18,
};

struct js_node;
struct js_res;
struct vctx;
struct ann;
struct js_path;

/* One keyword's evaluation: 1 valid, 0 invalid, <0 abort. */
typedef int (*kw_eval_fn)(struct vctx *c, const struct js_node *n, const cJSON *inst,
                          const struct js_path *path, struct ann *ann);

#define MAX_PLAN 24

struct js_list {
    struct js_node **v;
    size_t n;
};

struct js_kv { /* properties, dependentSchemas */
    const char *name;
    struct js_node *schema;
};

struct js_pat { /* patternProperties */
    struct regex *re;
    const char *src;
    struct js_node *schema;
};

struct js_dep { /* dependentRequired, and the array form of dependencies */
    const char *name;
    const char **names;
    size_t n;
    const char *keyword;
};

struct js_node {
    enum js_kind kind;
    const cJSON *src;
    struct js_res *res; /* the schema resource this node belongs to (dynamic scope) */
    uint32_t flags;
    unsigned types;
    const cJSON *const_v, *enum_v;
    double multiple_of, maximum, excl_maximum, minimum, excl_minimum;
    uint64_t max_length, min_length, max_items, min_items, max_contains, min_contains;
    uint64_t max_props, min_props;
    struct regex *pattern;
    const char *pattern_src;
    const char **required;
    size_t nrequired;
    struct js_dep *dep_req;
    size_t ndep_req;
    struct js_kv *dep_schemas;
    size_t ndep_schemas;
    struct js_list all_of, any_of, one_of, prefix_items;
    struct js_node *not_, *if_, *then_, *else_;
    struct js_node *items, *additional_items, *contains;
    struct js_kv *props; /* sorted by name */
    size_t nprops;
    struct js_pat *pat_props;
    size_t npat_props;
    struct js_node *additional_props, *property_names;
    struct js_node *uneval_items, *uneval_props;
    struct js_node *ref, *dyn_ref;
    const char *dyn_name; /* $dynamicRef to a $dynamicAnchor: look it up in the dynamic scope */
    kw_eval_fn plan[MAX_PLAN]; /* the keyword evaluators this node needs, in order */
    size_t nplan;
};

struct js_dyn {
    const char *name;
    const cJSON *src;
    struct js_node *node;
};

/* A schema resource: a document root or a subschema with $id. */
struct js_res {
    const char *uri; /* absolute, no fragment; "" when the root has no base URI */
    const cJSON *root;
    uint8_t draft;
    uint16_t vocab;
    struct js_dyn *dyn; /* $dynamicAnchor names of this resource (malloc'd) */
    size_t ndyn, dyncap;
};

struct jsonschema {
    struct arena arena;
    cJSON **docs; /* owned copies of every document used */
    size_t ndocs;
    struct regex **regexes;
    size_t nregexes;
    struct js_res **res;
    size_t nres;
    struct js_node *root;
    unsigned max_depth;
    uint32_t regex_steps;
    uint64_t max_evals, regex_total;
};

/* Compile-time state; only the struct jsonschema survives. */
struct cctx {
    struct jsonschema *s;
    const struct jsonschema_options *opts;
    char *err;
    size_t errlen;
    struct smap resources; /* uri -> struct js_res * */
    struct smap anchors;   /* uri#name -> const cJSON * */
    struct pmap info;      /* indexed schema node -> struct js_res * */
    struct pmap compiled;  /* schema node -> struct js_node * */
    struct js_node **queue;
    size_t nqueue, qcap;
};

/* ------------------------------------------------------------------ keyword table */

enum kw_kind {
    K_SCHEMA,
    K_SCHEMA_ARRAY,
    K_SCHEMA_MAP,
    K_PATTERN_MAP,
    K_ITEMS_OLD,
    K_DEPENDENCIES,
    K_STRING,
    K_ID,
    K_ANCHOR,
    K_BOOL,
    K_NUMBER,
    K_POSITIVE,
    K_NONNEG_INT,
    K_TYPE,
    K_STRING_SET,
    K_DEP_REQUIRED,
    K_ARRAY,
    K_ANY,
    K_VOCABULARY,
    K_PATTERN,
};

struct kw_def;
typedef int (*kw_compile_fn)(struct cctx *c, struct js_node *n, const cJSON *v,
                             const struct kw_def *d);

struct kw_def {
    const char *name;
    uint8_t drafts;
    uint8_t vocab;
    uint8_t kind;
    kw_compile_fn compile; /* NULL: annotation or container only */
    size_t off;            /* field of struct js_node for the generic compilers */
    uint32_t flag;
};

static int kc_schema(struct cctx *, struct js_node *, const cJSON *, const struct kw_def *);
static int kc_list(struct cctx *, struct js_node *, const cJSON *, const struct kw_def *);
static int kc_items_old(struct cctx *, struct js_node *, const cJSON *, const struct kw_def *);
static int kc_props(struct cctx *, struct js_node *, const cJSON *, const struct kw_def *);
static int kc_pattern_props(struct cctx *, struct js_node *, const cJSON *, const struct kw_def *);
static int kc_dep_schemas(struct cctx *, struct js_node *, const cJSON *, const struct kw_def *);
static int kc_dependencies(struct cctx *, struct js_node *, const cJSON *, const struct kw_def *);
static int kc_dep_required(struct cctx *, struct js_node *, const cJSON *, const struct kw_def *);
static int kc_type(struct cctx *, struct js_node *, const cJSON *, const struct kw_def *);
static int kc_value(struct cctx *, struct js_node *, const cJSON *, const struct kw_def *);
static int kc_number(struct cctx *, struct js_node *, const cJSON *, const struct kw_def *);
static int kc_count(struct cctx *, struct js_node *, const cJSON *, const struct kw_def *);
static int kc_unique(struct cctx *, struct js_node *, const cJSON *, const struct kw_def *);
static int kc_pattern(struct cctx *, struct js_node *, const cJSON *, const struct kw_def *);
static int kc_required(struct cctx *, struct js_node *, const cJSON *, const struct kw_def *);
static int kc_ref(struct cctx *, struct js_node *, const cJSON *, const struct kw_def *);
static int kc_dyn_ref(struct cctx *, struct js_node *, const cJSON *, const struct kw_def *);
static int kc_unsupported(struct cctx *, struct js_node *, const cJSON *, const struct kw_def *);

#define OFF(f) offsetof(struct js_node, f)
#define VA V_APPLICATOR
#define VV V_VALIDATION
#define VU V_UNEVALUATED
#define VC V_CORE
#define VM (V_METADATA | V_FORMAT_ANNOTATION | V_CONTENT | V_FORMAT_ASSERTION)

/* Every keyword the supported drafts define; the same name may appear once per draft
 * group with different rules (items). */
static const struct kw_def kw_defs[] = {
    {"$id", DALL, VC, K_ID, NULL, 0, 0},
    {"$schema", DALL, VC, K_STRING, NULL, 0, 0},
    {"$ref", DALL, VC, K_STRING, kc_ref, 0, 0},
    {"$comment", DALL, VC, K_STRING, NULL, 0, 0},
    {"$anchor", D1920, VC, K_ANCHOR, NULL, 0, 0},
    {"$dynamicAnchor", D20, VC, K_ANCHOR, NULL, 0, 0},
    {"$dynamicRef", D20, VC, K_STRING, kc_dyn_ref, 0, 0},
    {"$recursiveAnchor", D19, VC, K_BOOL, NULL, 0, 0},
    {"$recursiveRef", D19, VC, K_STRING, kc_unsupported, 0, 0},
    {"$vocabulary", D1920, VC, K_VOCABULARY, NULL, 0, 0},
    {"$defs", D1920, VC, K_SCHEMA_MAP, NULL, 0, 0},
    {"definitions", DALL, VC, K_SCHEMA_MAP, NULL, 0, 0},
    {"allOf", DALL, VA, K_SCHEMA_ARRAY, kc_list, OFF(all_of), 0},
    {"anyOf", DALL, VA, K_SCHEMA_ARRAY, kc_list, OFF(any_of), 0},
    {"oneOf", DALL, VA, K_SCHEMA_ARRAY, kc_list, OFF(one_of), 0},
    {"not", DALL, VA, K_SCHEMA, kc_schema, OFF(not_), 0},
    {"if", DALL, VA, K_SCHEMA, kc_schema, OFF(if_), 0},
    {"then", DALL, VA, K_SCHEMA, kc_schema, OFF(then_), 0},
    {"else", DALL, VA, K_SCHEMA, kc_schema, OFF(else_), 0},
    {"prefixItems", D20, VA, K_SCHEMA_ARRAY, kc_list, OFF(prefix_items), 0},
    {"items", D20, VA, K_SCHEMA, kc_schema, OFF(items), 0},
    {"items", D7 | D19, VA, K_ITEMS_OLD, kc_items_old, 0, 0},
    {"additionalItems", D7 | D19, VA, K_SCHEMA, kc_schema, OFF(additional_items), 0},
    {"contains", DALL, VA, K_SCHEMA, kc_schema, OFF(contains), 0},
    {"properties", DALL, VA, K_SCHEMA_MAP, kc_props, 0, 0},
    {"patternProperties", DALL, VA, K_PATTERN_MAP, kc_pattern_props, 0, 0},
    {"additionalProperties", DALL, VA, K_SCHEMA, kc_schema, OFF(additional_props), 0},
    {"propertyNames", DALL, VA, K_SCHEMA, kc_schema, OFF(property_names), 0},
    {"dependentSchemas", D1920, VA, K_SCHEMA_MAP, kc_dep_schemas, 0, 0},
    {"dependencies", D7 | D20, VA, K_DEPENDENCIES, kc_dependencies, 0, 0},
    {"unevaluatedItems", D1920, VU, K_SCHEMA, kc_schema, OFF(uneval_items), F_UNEVAL},
    {"unevaluatedProperties", D1920, VU, K_SCHEMA, kc_schema, OFF(uneval_props), F_UNEVAL},
    {"contentSchema", D1920, VM, K_SCHEMA, NULL, 0, 0},
    {"type", DALL, VV, K_TYPE, kc_type, 0, F_TYPE},
    {"enum", DALL, VV, K_ARRAY, kc_value, OFF(enum_v), F_ENUM},
    {"const", DALL, VV, K_ANY, kc_value, OFF(const_v), F_CONST},
    {"multipleOf", DALL, VV, K_POSITIVE, kc_number, OFF(multiple_of), F_MULTIPLE_OF},
    {"maximum", DALL, VV, K_NUMBER, kc_number, OFF(maximum), F_MAXIMUM},
    {"exclusiveMaximum", DALL, VV, K_NUMBER, kc_number, OFF(excl_maximum), F_EXCL_MAXIMUM},
    {"minimum", DALL, VV, K_NUMBER, kc_number, OFF(minimum), F_MINIMUM},
    {"exclusiveMinimum", DALL, VV, K_NUMBER, kc_number, OFF(excl_minimum), F_EXCL_MINIMUM},
    {"maxLength", DALL, VV, K_NONNEG_INT, kc_count, OFF(max_length), F_MAX_LENGTH},
    {"minLength", DALL, VV, K_NONNEG_INT, kc_count, OFF(min_length), F_MIN_LENGTH},
    {"pattern", DALL, VV, K_PATTERN, kc_pattern, 0, 0},
    {"maxItems", DALL, VV, K_NONNEG_INT, kc_count, OFF(max_items), F_MAX_ITEMS},
    {"minItems", DALL, VV, K_NONNEG_INT, kc_count, OFF(min_items), F_MIN_ITEMS},
    {"uniqueItems", DALL, VV, K_BOOL, kc_unique, 0, F_UNIQUE},
    {"maxContains", D1920, VV, K_NONNEG_INT, kc_count, OFF(max_contains), F_MAX_CONTAINS},
    {"minContains", D1920, VV, K_NONNEG_INT, kc_count, OFF(min_contains), F_MIN_CONTAINS},
    {"maxProperties", DALL, VV, K_NONNEG_INT, kc_count, OFF(max_props), F_MAX_PROPS},
    {"minProperties", DALL, VV, K_NONNEG_INT, kc_count, OFF(min_props), F_MIN_PROPS},
    {"required", DALL, VV, K_STRING_SET, kc_required, 0, 0},
    {"dependentRequired", D1920, VV, K_DEP_REQUIRED, kc_dep_required, 0, 0},
    {"format", DALL, VM, K_STRING, NULL, 0, 0},
    {"title", DALL, VM, K_STRING, NULL, 0, 0},
    {"description", DALL, VM, K_STRING, NULL, 0, 0},
    {"default", DALL, VM, K_ANY, NULL, 0, 0},
    {"deprecated", D1920, VM, K_BOOL, NULL, 0, 0},
    {"readOnly", DALL, VM, K_BOOL, NULL, 0, 0},
    {"writeOnly", DALL, VM, K_BOOL, NULL, 0, 0},
    {"examples", DALL, VM, K_ARRAY, NULL, 0, 0},
    {"contentEncoding", DALL, VM, K_STRING, NULL, 0, 0},
    {"contentMediaType", DALL, VM, K_STRING, NULL, 0, 0},
};

static const struct kw_def *find_kw(const char *name, unsigned draft)
{
    for (size_t i = 0; i < TE_ARRAY_LEN(kw_defs); i++) {
        if ((kw_defs[i].drafts & draft) && strcmp(kw_defs[i].name, name) == 0)
            return &kw_defs[i];
    }
    return NULL;
}

static bool holds_schemas(enum kw_kind k)
{
    return k == K_SCHEMA || k == K_SCHEMA_ARRAY || k == K_SCHEMA_MAP || k == K_PATTERN_MAP ||
           k == K_ITEMS_OLD || k == K_DEPENDENCIES;
}

static bool same_uri(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    if (na && a[na - 1] == '#')
        na--;
    if (nb && b[nb - 1] == '#')
        nb--;
    return na == nb && memcmp(a, b, na) == 0;
}

/* The dialects this module implements, by their meta-schema URI. */
static bool known_dialect(const char *uri, uint8_t *draft)
{
    if (same_uri(uri, "https://json-schema.org/draft/2020-12/schema"))
        *draft = D20;
    else if (same_uri(uri, "http://json-schema.org/draft-07/schema"))
        *draft = D7;
    else if (same_uri(uri, "https://json-schema.org/draft/2019-09/schema"))
        *draft = D19;
    else
        return false;
    return true;
}

/* ------------------------------------------------------------------ jsonschema_check */

struct chk {
    char *err;
    size_t errlen;
};

static int chk_fail(struct chk *k, const struct js_path *p, const char *fmt, ...) TE_PRINTF(3, 4);

static int chk_fail(struct chk *k, const struct js_path *p, const char *fmt, ...)
{
    char msg[256];
    char *ptr = path_str(p);
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (k->err && k->errlen)
        snprintf(k->err, k->errlen, "%s: %s", !ptr ? "?" : *ptr ? ptr : "(root)", msg);
    free(ptr);
    return JSONSCHEMA_EINVALID;
}

static int check_schema(struct chk *k, const cJSON *v, unsigned draft, const struct js_path *p,
                        unsigned depth);

static bool is_anchor_name(const char *s)
{
    if (!(isalpha((unsigned char)*s) || *s == '_'))
        return false;
    for (s++; *s; s++) {
        if (!(isalnum((unsigned char)*s) || *s == '-' || *s == '_' || *s == '.'))
            return false;
    }
    return true;
}

static bool is_type_name(const cJSON *v)
{
    if (!cJSON_IsString(v))
        return false;
    for (size_t i = 0; i < TE_ARRAY_LEN(type_names); i++) {
        if (strcmp(v->valuestring, type_names[i]) == 0)
            return true;
    }
    return false;
}

static int find_duplicate(const cJSON *arr, size_t *a, size_t *b);

/* Arrays whose items all pass ok() and are pairwise unequal (out of memory: false). */
static bool unique_array_of(const cJSON *v, bool (*ok)(const cJSON *))
{
    size_t a, b;
    if (!cJSON_IsArray(v))
        return false;
    for (const cJSON *e = v->child; e; e = e->next) {
        if (!ok(e))
            return false;
    }
    return find_duplicate(v, &a, &b) == 0;
}

static bool is_string(const cJSON *v)
{
    return cJSON_IsString(v);
}

static bool is_string_set(const cJSON *v)
{
    return unique_array_of(v, is_string);
}

static int check_regex(struct chk *k, const char *src, const struct js_path *p)
{
    struct regex *re = NULL;
    char msg[160];
    int rc = regex_compile(src, strlen(src), &re, msg, sizeof(msg));

    regex_free(re);
    if (rc == REGEX_ENOMEM)
        return JSONSCHEMA_ENOMEM;
    return rc ? chk_fail(k, p, "invalid regular expression: %s", msg) : 0;
}

static int check_schema_array(struct chk *k, const cJSON *v, unsigned draft,
                              const struct js_path *p, unsigned depth)
{
    size_t i = 0;
    if (!cJSON_IsArray(v) || !v->child)
        return chk_fail(k, p, "must be a non-empty array of schemas");
    for (const cJSON *e = v->child; e; e = e->next, i++) {
        struct js_path sub = {p, NULL, i};
        int rc = check_schema(k, e, draft, &sub, depth + 1);
        if (rc)
            return rc;
    }
    return 0;
}

/* Objects of schemas; with_regex: the names are patterns (patternProperties). */
static int check_schema_map(struct chk *k, const cJSON *v, unsigned draft, const struct js_path *p,
                            unsigned depth, bool with_regex)
{
    if (!cJSON_IsObject(v))
        return chk_fail(k, p, "must be an object of schemas");
    for (const cJSON *e = v->child; e; e = e->next) {
        struct js_path sub = {p, e->string, 0};
        int rc = with_regex ? check_regex(k, e->string, &sub) : 0;
        if (rc == 0)
            rc = check_schema(k, e, draft, &sub, depth + 1);
        if (rc)
            return rc;
    }
    return 0;
}

static int check_object_of(struct chk *k, const cJSON *v, const struct js_path *p,
                           bool (*ok)(const cJSON *), const char *what)
{
    if (!cJSON_IsObject(v))
        return chk_fail(k, p, "must be an object");
    for (const cJSON *e = v->child; e; e = e->next) {
        struct js_path sub = {p, e->string, 0};
        if (!ok(e))
            return chk_fail(k, &sub, "must be %s", what);
    }
    return 0;
}

static bool is_bool(const cJSON *v)
{
    return cJSON_IsBool(v);
}

static int check_dependencies(struct chk *k, const cJSON *v, unsigned draft,
                              const struct js_path *p, unsigned depth)
{
    if (!cJSON_IsObject(v))
        return chk_fail(k, p, "must be an object");
    for (const cJSON *e = v->child; e; e = e->next) {
        struct js_path sub = {p, e->string, 0};
        int rc;
        if (cJSON_IsArray(e)) {
            if (!is_string_set(e))
                return chk_fail(k, &sub, "must be an array of unique strings or a schema");
            continue;
        }
        rc = check_schema(k, e, draft, &sub, depth + 1);
        if (rc)
            return rc;
    }
    return 0;
}

static int check_type(struct chk *k, const cJSON *v, const struct js_path *p)
{
    if (is_type_name(v) || (cJSON_IsArray(v) && v->child && unique_array_of(v, is_type_name)))
        return 0;
    return chk_fail(k, p,
                    "must be a type name (null, boolean, object, array, number, string, "
                    "integer) or a non-empty array of unique type names");
}

static int check_id(struct chk *k, const cJSON *v, unsigned draft, const struct js_path *p)
{
    const char *hash;
    if (!cJSON_IsString(v))
        return chk_fail(k, p, "must be a string");
    hash = strchr(v->valuestring, '#');
    if (draft != D7 && hash && hash[1])
        return chk_fail(k, p, "must not contain a non-empty fragment");
    return 0;
}

/* Non-schema keyword values: type and range rules of the meta-schemas. */
static int check_scalar(struct chk *k, const struct kw_def *d, const cJSON *v, unsigned draft,
                        const struct js_path *p)
{
    switch ((enum kw_kind)d->kind) {
    case K_STRING:
        return cJSON_IsString(v) ? 0 : chk_fail(k, p, "must be a string");
    case K_ID:
        return check_id(k, v, draft, p);
    case K_ANCHOR:
        if (cJSON_IsString(v) && is_anchor_name(v->valuestring))
            return 0;
        return chk_fail(k, p, "must be a string matching ^[A-Za-z_][-A-Za-z0-9._]*$");
    case K_BOOL:
        return cJSON_IsBool(v) ? 0 : chk_fail(k, p, "must be a boolean");
    case K_NUMBER:
        return cJSON_IsNumber(v) ? 0 : chk_fail(k, p, "must be a number");
    case K_POSITIVE:
        if (cJSON_IsNumber(v) && v->valuedouble > 0)
            return 0;
        return chk_fail(k, p, "must be a number greater than 0");
    case K_NONNEG_INT:
        if (cJSON_IsNumber(v) && is_int_value(v->valuedouble) && v->valuedouble >= 0)
            return 0;
        return chk_fail(k, p, "must be a non-negative integer");
    case K_TYPE:
        return check_type(k, v, p);
    case K_STRING_SET:
        return is_string_set(v) ? 0 : chk_fail(k, p, "must be an array of unique strings");
    case K_DEP_REQUIRED:
        return check_object_of(k, v, p, is_string_set, "an array of unique strings");
    case K_ARRAY:
        return cJSON_IsArray(v) ? 0 : chk_fail(k, p, "must be an array");
    case K_VOCABULARY:
        return check_object_of(k, v, p, is_bool, "a boolean");
    case K_PATTERN:
        if (!cJSON_IsString(v))
            return chk_fail(k, p, "must be a string");
        return check_regex(k, v->valuestring, p);
    default:
        return 0;
    }
}

static int check_keyword(struct chk *k, const struct kw_def *d, const cJSON *v, unsigned draft,
                         const struct js_path *p, unsigned depth)
{
    switch ((enum kw_kind)d->kind) {
    case K_SCHEMA:
        return check_schema(k, v, draft, p, depth + 1);
    case K_SCHEMA_ARRAY:
        return check_schema_array(k, v, draft, p, depth);
    case K_SCHEMA_MAP:
        return check_schema_map(k, v, draft, p, depth, false);
    case K_PATTERN_MAP:
        return check_schema_map(k, v, draft, p, depth, true);
    case K_ITEMS_OLD:
        if (cJSON_IsArray(v))
            return check_schema_array(k, v, draft, p, depth);
        return check_schema(k, v, draft, p, depth + 1);
    case K_DEPENDENCIES:
        return check_dependencies(k, v, draft, p, depth);
    default:
        return check_scalar(k, d, v, draft, p);
    }
}

static int check_schema(struct chk *k, const cJSON *v, unsigned draft, const struct js_path *p,
                        unsigned depth)
{
    const cJSON *sch;
    uint8_t d8;

    if (cJSON_IsBool(v))
        return 0;
    if (!cJSON_IsObject(v))
        return chk_fail(k, p, "schema must be an object or a boolean");
    if (depth > MAX_SCHEMA_DEPTH)
        return chk_fail(k, p, "schema nested too deeply");
    /* as in compilation, only a resource root may change the dialect */
    sch = cJSON_GetObjectItemCaseSensitive(v, "$schema");
    if (cJSON_IsString(sch) && known_dialect(sch->valuestring, &d8) &&
        (!p || cJSON_IsString(cJSON_GetObjectItemCaseSensitive(v, "$id"))))
        draft = d8;
    for (const cJSON *e = v->child; e; e = e->next) {
        const struct kw_def *d = find_kw(e->string, draft);
        struct js_path sub = {p, e->string, 0};
        int rc = d ? check_keyword(k, d, e, draft, &sub, depth) : 0;
        if (rc)
            return rc;
    }
    return 0;
}

static int check_doc(const cJSON *schema, unsigned draft, char *err, size_t errlen)
{
    struct chk k = {err, errlen};
    if (err && errlen)
        err[0] = '\0';
    return check_schema(&k, schema, draft, NULL, 0);
}

int jsonschema_check(const cJSON *schema, char *err, size_t errlen)
{
    return check_doc(schema, D20, err, errlen);
}

/*
 * Minimal copies of the meta-schemas (2020-12 and its vocabularies, draft-07), so that
 * schemas can $ref them without any network access. Titles and keywords as published;
 * $comment and descriptive text left out.
 */
struct builtin_doc {
    const char *uri;
    const char *text;
};

static const struct builtin_doc builtin_docs[] = {
    {"https://json-schema.org/draft/2020-12/schema",
     "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"$id\":\"https://json"
     "-schema.org/draft/2020-12/schema\",\"$vocabulary\":{\"https://json-schema.org/draft/"
     "2020-12/vocab/core\":true,\"https://json-schema.org/draft/2020-12/vocab/applicator\""
     ":true,\"https://json-schema.org/draft/2020-12/vocab/unevaluated\":true,\"https://jso"
     "n-schema.org/draft/2020-12/vocab/validation\":true,\"https://json-schema.org/draft/2"
     "020-12/vocab/meta-data\":true,\"https://json-schema.org/draft/2020-12/vocab/format-a"
     "nnotation\":true,\"https://json-schema.org/draft/2020-12/vocab/content\":true},\"$dy"
     "namicAnchor\":\"meta\",\"title\":\"Core and Validation specifications meta-schema\","
     "\"allOf\":[{\"$ref\":\"meta/core\"},{\"$ref\":\"meta/applicator\"},{\"$ref\":\"meta/"
     "unevaluated\"},{\"$ref\":\"meta/validation\"},{\"$ref\":\"meta/meta-data\"},{\"$ref"
     "\":\"meta/format-annotation\"},{\"$ref\":\"meta/content\"}],\"type\":[\"object\",\"b"
     "oolean\"],\"properties\":{\"definitions\":{\"type\":\"object\",\"additionalPropertie"
     "s\":{\"$dynamicRef\":\"#meta\"},\"deprecated\":true,\"default\":{}},\"dependencies\""
     ":{\"type\":\"object\",\"additionalProperties\":{\"anyOf\":[{\"$dynamicRef\":\"#meta"
     "\"},{\"$ref\":\"meta/validation#/$defs/stringArray\"}]},\"deprecated\":true,\"defaul"
     "t\":{}},\"$recursiveAnchor\":{\"$ref\":\"meta/core#/$defs/anchorString\",\"deprecate"
     "d\":true},\"$recursiveRef\":{\"$ref\":\"meta/core#/$defs/uriReferenceString\",\"depr"
     "ecated\":true}}}"},
    {"https://json-schema.org/draft/2020-12/meta/core",
     "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"$id\":\"https://json"
     "-schema.org/draft/2020-12/meta/core\",\"$vocabulary\":{\"https://json-schema.org/dra"
     "ft/2020-12/vocab/core\":true},\"$dynamicAnchor\":\"meta\",\"title\":\"Core vocabular"
     "y meta-schema\",\"type\":[\"object\",\"boolean\"],\"properties\":{\"$id\":{\"$ref\":"
     "\"#/$defs/uriReferenceString\",\"$comment\":\"Non-empty fragments not allowed.\",\"p"
     "attern\":\"^[^#]*#?$\"},\"$schema\":{\"$ref\":\"#/$defs/uriString\"},\"$ref\":{\"$re"
     "f\":\"#/$defs/uriReferenceString\"},\"$anchor\":{\"$ref\":\"#/$defs/anchorString\"},"
     "\"$dynamicRef\":{\"$ref\":\"#/$defs/uriReferenceString\"},\"$dynamicAnchor\":{\"$ref"
     "\":\"#/$defs/anchorString\"},\"$vocabulary\":{\"type\":\"object\",\"propertyNames\":"
     "{\"$ref\":\"#/$defs/uriString\"},\"additionalProperties\":{\"type\":\"boolean\"}},\""
     "$comment\":{\"type\":\"string\"},\"$defs\":{\"type\":\"object\",\"additionalProperti"
     "es\":{\"$dynamicRef\":\"#meta\"}}},\"$defs\":{\"anchorString\":{\"type\":\"string\","
     "\"pattern\":\"^[A-Za-z_][-A-Za-z0-9._]*$\"},\"uriString\":{\"type\":\"string\",\"for"
     "mat\":\"uri\"},\"uriReferenceString\":{\"type\":\"string\",\"format\":\"uri-referenc"
     "e\"}}}"},
    {"https://json-schema.org/draft/2020-12/meta/applicator",
     "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"$id\":\"https://json"
     "-schema.org/draft/2020-12/meta/applicator\",\"$vocabulary\":{\"https://json-schema.o"
     "rg/draft/2020-12/vocab/applicator\":true},\"$dynamicAnchor\":\"meta\",\"title\":\"Ap"
     "plicator vocabulary meta-schema\",\"type\":[\"object\",\"boolean\"],\"properties\":{"
     "\"prefixItems\":{\"$ref\":\"#/$defs/schemaArray\"},\"items\":{\"$dynamicRef\":\"#met"
     "a\"},\"contains\":{\"$dynamicRef\":\"#meta\"},\"additionalProperties\":{\"$dynamicRe"
     "f\":\"#meta\"},\"properties\":{\"type\":\"object\",\"additionalProperties\":{\"$dyna"
     "micRef\":\"#meta\"},\"default\":{}},\"patternProperties\":{\"type\":\"object\",\"add"
     "itionalProperties\":{\"$dynamicRef\":\"#meta\"},\"propertyNames\":{\"format\":\"rege"
     "x\"},\"default\":{}},\"dependentSchemas\":{\"type\":\"object\",\"additionalPropertie"
     "s\":{\"$dynamicRef\":\"#meta\"},\"default\":{}},\"propertyNames\":{\"$dynamicRef\":"
     "\"#meta\"},\"if\":{\"$dynamicRef\":\"#meta\"},\"then\":{\"$dynamicRef\":\"#meta\"},"
     "\"else\":{\"$dynamicRef\":\"#meta\"},\"allOf\":{\"$ref\":\"#/$defs/schemaArray\"},\""
     "anyOf\":{\"$ref\":\"#/$defs/schemaArray\"},\"oneOf\":{\"$ref\":\"#/$defs/schemaArray"
     "\"},\"not\":{\"$dynamicRef\":\"#meta\"}},\"$defs\":{\"schemaArray\":{\"type\":\"arra"
     "y\",\"minItems\":1,\"items\":{\"$dynamicRef\":\"#meta\"}}}}"},
    {"https://json-schema.org/draft/2020-12/meta/unevaluated",
     "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"$id\":\"https://json"
     "-schema.org/draft/2020-12/meta/unevaluated\",\"$vocabulary\":{\"https://json-schema."
     "org/draft/2020-12/vocab/unevaluated\":true},\"$dynamicAnchor\":\"meta\",\"title\":\""
     "Unevaluated applicator vocabulary meta-schema\",\"type\":[\"object\",\"boolean\"],\""
     "properties\":{\"unevaluatedItems\":{\"$dynamicRef\":\"#meta\"},\"unevaluatedProperti"
     "es\":{\"$dynamicRef\":\"#meta\"}}}"},
    {"https://json-schema.org/draft/2020-12/meta/validation",
     "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"$id\":\"https://json"
     "-schema.org/draft/2020-12/meta/validation\",\"$vocabulary\":{\"https://json-schema.o"
     "rg/draft/2020-12/vocab/validation\":true},\"$dynamicAnchor\":\"meta\",\"title\":\"Va"
     "lidation vocabulary meta-schema\",\"type\":[\"object\",\"boolean\"],\"properties\":{"
     "\"type\":{\"anyOf\":[{\"$ref\":\"#/$defs/simpleTypes\"},{\"type\":\"array\",\"items"
     "\":{\"$ref\":\"#/$defs/simpleTypes\"},\"minItems\":1,\"uniqueItems\":true}]},\"const"
     "\":true,\"enum\":{\"type\":\"array\",\"items\":true},\"multipleOf\":{\"type\":\"numb"
     "er\",\"exclusiveMinimum\":0},\"maximum\":{\"type\":\"number\"},\"exclusiveMaximum\":"
     "{\"type\":\"number\"},\"minimum\":{\"type\":\"number\"},\"exclusiveMinimum\":{\"type"
     "\":\"number\"},\"maxLength\":{\"$ref\":\"#/$defs/nonNegativeInteger\"},\"minLength\""
     ":{\"$ref\":\"#/$defs/nonNegativeIntegerDefault0\"},\"pattern\":{\"type\":\"string\","
     "\"format\":\"regex\"},\"maxItems\":{\"$ref\":\"#/$defs/nonNegativeInteger\"},\"minIt"
     "ems\":{\"$ref\":\"#/$defs/nonNegativeIntegerDefault0\"},\"uniqueItems\":{\"type\":\""
     "boolean\",\"default\":false},\"maxContains\":{\"$ref\":\"#/$defs/nonNegativeInteger"
     "\"},\"minContains\":{\"$ref\":\"#/$defs/nonNegativeInteger\",\"default\":1},\"maxPro"
     "perties\":{\"$ref\":\"#/$defs/nonNegativeInteger\"},\"minProperties\":{\"$ref\":\"#/"
     "$defs/nonNegativeIntegerDefault0\"},\"required\":{\"$ref\":\"#/$defs/stringArray\"},"
     "\"dependentRequired\":{\"type\":\"object\",\"additionalProperties\":{\"$ref\":\"#/$d"
     "efs/stringArray\"}}},\"$defs\":{\"nonNegativeInteger\":{\"type\":\"integer\",\"minim"
     "um\":0},\"nonNegativeIntegerDefault0\":{\"$ref\":\"#/$defs/nonNegativeInteger\",\"de"
     "fault\":0},\"simpleTypes\":{\"enum\":[\"array\",\"boolean\",\"integer\",\"null\",\"n"
     "umber\",\"object\",\"string\"]},\"stringArray\":{\"type\":\"array\",\"items\":{\"typ"
     "e\":\"string\"},\"uniqueItems\":true,\"default\":[]}}}"},
    {"https://json-schema.org/draft/2020-12/meta/meta-data",
     "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"$id\":\"https://json"
     "-schema.org/draft/2020-12/meta/meta-data\",\"$vocabulary\":{\"https://json-schema.or"
     "g/draft/2020-12/vocab/meta-data\":true},\"$dynamicAnchor\":\"meta\",\"title\":\"Meta"
     "-data vocabulary meta-schema\",\"type\":[\"object\",\"boolean\"],\"properties\":{\"t"
     "itle\":{\"type\":\"string\"},\"description\":{\"type\":\"string\"},\"default\":true,"
     "\"deprecated\":{\"type\":\"boolean\",\"default\":false},\"readOnly\":{\"type\":\"boo"
     "lean\",\"default\":false},\"writeOnly\":{\"type\":\"boolean\",\"default\":false},\"e"
     "xamples\":{\"type\":\"array\",\"items\":true}}}"},
    {"https://json-schema.org/draft/2020-12/meta/format-annotation",
     "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"$id\":\"https://json"
     "-schema.org/draft/2020-12/meta/format-annotation\",\"$vocabulary\":{\"https://json-s"
     "chema.org/draft/2020-12/vocab/format-annotation\":true},\"$dynamicAnchor\":\"meta\","
     "\"title\":\"Format vocabulary meta-schema for annotation results\",\"type\":[\"objec"
     "t\",\"boolean\"],\"properties\":{\"format\":{\"type\":\"string\"}}}"},
    {"https://json-schema.org/draft/2020-12/meta/format-assertion",
     "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"$id\":\"https://json"
     "-schema.org/draft/2020-12/meta/format-assertion\",\"$vocabulary\":{\"https://json-sc"
     "hema.org/draft/2020-12/vocab/format-assertion\":true},\"$dynamicAnchor\":\"meta\",\""
     "title\":\"Format vocabulary meta-schema for assertion results\",\"type\":[\"object\""
     ",\"boolean\"],\"properties\":{\"format\":{\"type\":\"string\"}}}"},
    {"https://json-schema.org/draft/2020-12/meta/content",
     "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"$id\":\"https://json"
     "-schema.org/draft/2020-12/meta/content\",\"$vocabulary\":{\"https://json-schema.org/"
     "draft/2020-12/vocab/content\":true},\"$dynamicAnchor\":\"meta\",\"title\":\"Content "
     "vocabulary meta-schema\",\"type\":[\"object\",\"boolean\"],\"properties\":{\"content"
     "Encoding\":{\"type\":\"string\"},\"contentMediaType\":{\"type\":\"string\"},\"conten"
     "tSchema\":{\"$dynamicRef\":\"#meta\"}}}"},
    {"http://json-schema.org/draft-07/schema",
     "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"$id\":\"http://json-schem"
     "a.org/draft-07/schema#\",\"title\":\"Core schema meta-schema\",\"definitions\":{\"sc"
     "hemaArray\":{\"type\":\"array\",\"minItems\":1,\"items\":{\"$ref\":\"#\"}},\"nonNega"
     "tiveInteger\":{\"type\":\"integer\",\"minimum\":0},\"nonNegativeIntegerDefault0\":{"
     "\"allOf\":[{\"$ref\":\"#/definitions/nonNegativeInteger\"},{\"default\":0}]},\"simpl"
     "eTypes\":{\"enum\":[\"array\",\"boolean\",\"integer\",\"null\",\"number\",\"object\""
     ",\"string\"]},\"stringArray\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\""
     "uniqueItems\":true,\"default\":[]}},\"type\":[\"object\",\"boolean\"],\"properties\""
     ":{\"$id\":{\"type\":\"string\",\"format\":\"uri-reference\"},\"$schema\":{\"type\":"
     "\"string\",\"format\":\"uri\"},\"$ref\":{\"type\":\"string\",\"format\":\"uri-refere"
     "nce\"},\"$comment\":{\"type\":\"string\"},\"title\":{\"type\":\"string\"},\"descript"
     "ion\":{\"type\":\"string\"},\"default\":true,\"readOnly\":{\"type\":\"boolean\",\"de"
     "fault\":false},\"writeOnly\":{\"type\":\"boolean\",\"default\":false},\"examples\":{"
     "\"type\":\"array\",\"items\":true},\"multipleOf\":{\"type\":\"number\",\"exclusiveMi"
     "nimum\":0},\"maximum\":{\"type\":\"number\"},\"exclusiveMaximum\":{\"type\":\"number"
     "\"},\"minimum\":{\"type\":\"number\"},\"exclusiveMinimum\":{\"type\":\"number\"},\"m"
     "axLength\":{\"$ref\":\"#/definitions/nonNegativeInteger\"},\"minLength\":{\"$ref\":"
     "\"#/definitions/nonNegativeIntegerDefault0\"},\"pattern\":{\"type\":\"string\",\"for"
     "mat\":\"regex\"},\"additionalItems\":{\"$ref\":\"#\"},\"items\":{\"anyOf\":[{\"$ref"
     "\":\"#\"},{\"$ref\":\"#/definitions/schemaArray\"}],\"default\":true},\"maxItems\":{"
     "\"$ref\":\"#/definitions/nonNegativeInteger\"},\"minItems\":{\"$ref\":\"#/definition"
     "s/nonNegativeIntegerDefault0\"},\"uniqueItems\":{\"type\":\"boolean\",\"default\":fa"
     "lse},\"contains\":{\"$ref\":\"#\"},\"maxProperties\":{\"$ref\":\"#/definitions/nonNe"
     "gativeInteger\"},\"minProperties\":{\"$ref\":\"#/definitions/nonNegativeIntegerDefau"
     "lt0\"},\"required\":{\"$ref\":\"#/definitions/stringArray\"},\"additionalProperties"
     "\":{\"$ref\":\"#\"},\"definitions\":{\"type\":\"object\",\"additionalProperties\":{"
     "\"$ref\":\"#\"},\"default\":{}},\"properties\":{\"type\":\"object\",\"additionalProp"
     "erties\":{\"$ref\":\"#\"},\"default\":{}},\"patternProperties\":{\"type\":\"object\""
     ",\"additionalProperties\":{\"$ref\":\"#\"},\"propertyNames\":{\"format\":\"regex\"},"
     "\"default\":{}},\"dependencies\":{\"type\":\"object\",\"additionalProperties\":{\"an"
     "yOf\":[{\"$ref\":\"#\"},{\"$ref\":\"#/definitions/stringArray\"}]}},\"propertyNames"
     "\":{\"$ref\":\"#\"},\"const\":true,\"enum\":{\"type\":\"array\",\"items\":true},\"ty"
     "pe\":{\"anyOf\":[{\"$ref\":\"#/definitions/simpleTypes\"},{\"type\":\"array\",\"item"
     "s\":{\"$ref\":\"#/definitions/simpleTypes\"},\"minItems\":1,\"uniqueItems\":true}]},"
     "\"format\":{\"type\":\"string\"},\"contentMediaType\":{\"type\":\"string\"},\"conten"
     "tEncoding\":{\"type\":\"string\"},\"if\":{\"$ref\":\"#\"},\"then\":{\"$ref\":\"#\"},"
     "\"else\":{\"$ref\":\"#\"},\"allOf\":{\"$ref\":\"#/definitions/schemaArray\"},\"anyOf"
     "\":{\"$ref\":\"#/definitions/schemaArray\"},\"oneOf\":{\"$ref\":\"#/definitions/sche"
     "maArray\"},\"not\":{\"$ref\":\"#\"}},\"default\":true}"},
};

/* ------------------------------------------------------------------ compile: documents */

static int cfail(struct cctx *c, const char *fmt, ...) TE_PRINTF(2, 3);

static int cfail(struct cctx *c, const char *fmt, ...)
{
    va_list ap;
    if (c->err && c->errlen && !c->err[0]) {
        va_start(ap, fmt);
        vsnprintf(c->err, c->errlen, fmt, ap);
        va_end(ap);
    }
    return JSONSCHEMA_EINVALID;
}

/* Puts "where: " in front of the message already in err. */
static void cprefix(struct cctx *c, const char *where)
{
    char *old;
    if (!c->err || !c->errlen || !(old = strdup(c->err)))
        return;
    snprintf(c->err, c->errlen, "%s: %s", where, old);
    free(old);
}

static int cnomem(struct cctx *c)
{
    if (c->err && c->errlen && !c->err[0])
        snprintf(c->err, c->errlen, "out of memory");
    return JSONSCHEMA_ENOMEM;
}

static bool find_node(const cJSON *root, const cJSON *node, struct js_path *p, struct buf *b,
                      unsigned depth)
{
    size_t i = 0;
    if (root == node)
        return path_append(b, p) == 0;
    if (depth > MAX_SCHEMA_DEPTH || !(cJSON_IsObject(root) || cJSON_IsArray(root)))
        return false;
    for (const cJSON *e = root->child; e; e = e->next, i++) {
        struct js_path sub = {p, cJSON_IsObject(root) ? e->string : NULL, i};
        if (find_node(e, node, &sub, b, depth + 1))
            return true;
    }
    return false;
}

/* Where a schema node is, for messages: "/pointer" in the root document, "uri#/pointer" in
 * another one. Searched only when reporting an error. */
static void locate(struct cctx *c, const cJSON *node, char *out, size_t outlen)
{
    struct buf b = BUF_INIT;

    snprintf(out, outlen, "?");
    for (size_t d = 0; d < c->s->ndocs; d++) {
        buf_reset(&b);
        if (!find_node(c->s->docs[d], node, NULL, &b, 0))
            continue;
        if (d > 0) {
            struct js_res *r = pmap_get(&c->info, c->s->docs[d]);
            snprintf(out, outlen, "%s#%s", r ? r->uri : "?", b.data ? b.data : "");
        } else {
            snprintf(out, outlen, "%s", b.len ? b.data : "(root)");
        }
        break;
    }
    buf_free(&b);
}

static int cfail_at(struct cctx *c, const cJSON *node, const char *fmt, ...) TE_PRINTF(3, 4);

/* cfail with the location of node in front. */
static int cfail_at(struct cctx *c, const cJSON *node, const char *fmt, ...)
{
    char loc[256], msg[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    locate(c, node, loc, sizeof(loc));
    return cfail(c, "%s: %s", loc, msg);
}

static int add_doc(struct cctx *c, cJSON *doc)
{
    cJSON **nd = realloc(c->s->docs, (c->s->ndocs + 1) * sizeof(*nd));
    if (!nd) {
        cJSON_Delete(doc);
        return cnomem(c);
    }
    c->s->docs = nd;
    nd[c->s->ndocs++] = doc;
    return 0;
}

static int res_new(struct cctx *c, const char *uri, const cJSON *root, uint8_t draft,
                   uint16_t vocab, struct js_res **out)
{
    struct js_res *r = arena_alloc(&c->s->arena, sizeof(*r)), **nl;
    void *existing = NULL;

    if (!r || !(r->uri = arena_strdup(&c->s->arena, uri)))
        return cnomem(c);
    r->root = root;
    r->draft = draft;
    r->vocab = vocab;
    /* room in the list first: a mapped resource must also be listed, to be freed */
    nl = realloc(c->s->res, (c->s->nres + 1) * sizeof(*nl));
    if (!nl)
        return cnomem(c);
    c->s->res = nl;
    if (smap_put(&c->resources, uri, r, &existing))
        return cnomem(c);
    if (existing != r) {
        if (((struct js_res *)existing)->root != root)
            return cfail_at(c, root, "duplicate schema resource \"%s\"", uri);
        *out = existing;
        return 0;
    }
    nl[c->s->nres++] = r;
    *out = r;
    return 0;
}

static const char *const vocab_names[] = {
    "core",      "applicator",        "unevaluated",      "validation",
    "meta-data", "format-annotation", "format-assertion", "content"};

/* Vocabulary bit for a 2019-09 or 2020-12 vocabulary URI, 0 if unknown. */
static uint16_t vocab_bit(const char *uri)
{
    static const char *const prefixes[] = {"https://json-schema.org/draft/2020-12/vocab/",
                                           "https://json-schema.org/draft/2019-09/vocab/"};
    for (size_t p = 0; p < TE_ARRAY_LEN(prefixes); p++) {
        size_t n = strlen(prefixes[p]);
        if (strncmp(uri, prefixes[p], n) != 0)
            continue;
        if (strcmp(uri + n, "format") == 0)
            return V_FORMAT_ANNOTATION;
        for (size_t i = 0; i < TE_ARRAY_LEN(vocab_names); i++) {
            if (strcmp(uri + n, vocab_names[i]) == 0)
                return (uint16_t)(1u << i);
        }
    }
    return 0;
}

/* The vocabularies a custom meta-schema declares. Requiring one we cannot honour is an
 * error, as the spec demands; optional unknown ones are ignored. */
static int meta_vocab(struct cctx *c, const struct js_res *meta, uint16_t *vocab)
{
    const cJSON *voc = cJSON_GetObjectItemCaseSensitive(meta->root, "$vocabulary");

    *vocab = meta->vocab;
    if (!cJSON_IsObject(voc))
        return 0;
    *vocab = V_CORE;
    for (const cJSON *e = voc->child; e; e = e->next) {
        uint16_t bit = vocab_bit(e->string);
        if ((bit == 0 || bit == V_FORMAT_ASSERTION) && cJSON_IsTrue(e))
            return cfail(c, "meta-schema \"%s\" requires unsupported vocabulary \"%s\"", meta->uri,
                         e->string);
        *vocab |= bit;
    }
    return 0;
}

static int load_doc(struct cctx *c, const char *uri, uint8_t draft, uint16_t vocab, unsigned chain,
                    struct js_res **out);

/* Dialect named by a $schema value: a known draft, or a meta-schema we can load. */
static int dialect_of(struct cctx *c, const char *schema_uri, unsigned chain, uint8_t *draft,
                      uint16_t *vocab)
{
    struct js_res *meta;
    char *uri;
    int rc;

    if (known_dialect(schema_uri, draft)) {
        *vocab = V_ALL;
        return 0;
    }
    if (chain >= MAX_META_CHAIN)
        return cfail(c, "$schema \"%s\": meta-schema chain too long", schema_uri);
    uri = uri_resolve("", schema_uri);
    if (!uri)
        return cnomem(c);
    *strchrnul(uri, '#') = '\0';
    rc = load_doc(c, uri, D20, V_ALL, chain + 1, &meta);
    free(uri);
    if (rc == JSONSCHEMA_EINVALID)
        cprefix(c, "unsupported $schema (not draft 2020-12, 2019-09 or 07, nor a meta-schema "
                   "that can be loaded)");
    if (rc)
        return rc;
    *draft = meta->draft;
    return meta_vocab(c, meta, vocab);
}

/* Applies a resource root's own $schema, if any, over the inherited dialect. */
static int root_dialect(struct cctx *c, const cJSON *node, unsigned chain, uint8_t *draft,
                        uint16_t *vocab)
{
    const cJSON *sch = cJSON_GetObjectItemCaseSensitive(node, "$schema");
    if (!cJSON_IsString(sch))
        return 0;
    return dialect_of(c, sch->valuestring, chain, draft, vocab);
}

static const char *builtin_text(const char *uri)
{
    for (size_t i = 0; i < TE_ARRAY_LEN(builtin_docs); i++) {
        if (same_uri(uri, builtin_docs[i].uri))
            return builtin_docs[i].text;
    }
    return NULL;
}

/* A private copy of the document at uri: built in, or from the caller's resolver. */
static int fetch_doc(struct cctx *c, const char *uri, cJSON **out, bool *trusted)
{
    const char *text = builtin_text(uri);
    const cJSON *src;
    struct uref u;

    *trusted = text != NULL;
    if (text) {
        *out = cJSON_Parse(text);
        return *out ? add_doc(c, *out) : cnomem(c);
    }
    uri_parse(uri, &u);
    if (!u.has_scheme || !c->opts || !c->opts->resolve)
        return cfail(c, "cannot resolve \"%s\"", uri);
    src = c->opts->resolve(c->opts->resolve_arg, uri);
    if (!src)
        return cfail(c, "cannot resolve \"%s\"", uri);
    *out = cJSON_Duplicate(src, 1);
    return *out ? add_doc(c, *out) : cnomem(c);
}

static int index_schema(struct cctx *c, const cJSON *node, struct js_res *res, unsigned depth);

/* Loads, checks and indexes the document at uri (absolute, no fragment) unless known.
 * A document without $schema is read in the dialect of whoever referenced it. */
static int load_doc(struct cctx *c, const char *uri, uint8_t draft, uint16_t vocab, unsigned chain,
                    struct js_res **out)
{
    char msg[256];
    bool trusted;
    cJSON *doc = NULL;
    int rc;

    *out = smap_get(&c->resources, uri);
    if (*out)
        return 0;
    rc = fetch_doc(c, uri, &doc, &trusted);
    if (rc)
        return rc;
    if (cJSON_IsObject(doc) && (rc = root_dialect(c, doc, chain, &draft, &vocab)))
        return rc;
    if (!trusted && check_doc(doc, draft, msg, sizeof(msg)))
        return cfail(c, "%s: %s", uri, msg);
    rc = res_new(c, uri, doc, draft, vocab, out);
    return rc ? rc : index_schema(c, doc, *out, 0);
}

/* ------------------------------------------------------------------ compile: index */

static int add_anchor(struct cctx *c, struct js_res *res, const char *name, const cJSON *node,
                      bool dynamic)
{
    struct buf key = BUF_INIT;
    void *existing = NULL;
    int rc;

    if (buf_printf(&key, "%s#%s", res->uri, name))
        return cnomem(c);
    rc = smap_put(&c->anchors, key.data, (void *)node, &existing);
    buf_free(&key);
    if (rc)
        return cnomem(c);
    if (existing != node)
        return cfail_at(c, node, "duplicate anchor \"%s\" in \"%s\"", name, res->uri);
    if (!dynamic)
        return 0;
    if (res->ndyn == res->dyncap) {
        size_t ncap = res->dyncap ? res->dyncap * 2 : 4;
        struct js_dyn *nd = realloc(res->dyn, ncap * sizeof(*nd));
        if (!nd)
            return cnomem(c);
        res->dyn = nd;
        res->dyncap = ncap;
    }
    res->dyn[res->ndyn].name = arena_strdup(&c->s->arena, name);
    res->dyn[res->ndyn].src = node;
    res->dyn[res->ndyn].node = NULL;
    return res->dyn[res->ndyn++].name ? 0 : cnomem(c);
}

/* $id: a new resource (or, in draft-07, "#name" as a plain-name anchor). */
static int index_id(struct cctx *c, const cJSON *node, struct js_res **res)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(node, "$id");
    uint8_t draft = (*res)->draft;
    uint16_t vocab = (*res)->vocab;
    char *abs, *frag;
    int rc = 0;

    if (!cJSON_IsString(id))
        return 0;
    abs = uri_resolve((*res)->uri, id->valuestring);
    if (!abs)
        return cnomem(c);
    frag = strchr(abs, '#');
    if (frag)
        *frag++ = '\0';
    if (draft == D7 && id->valuestring[0] == '#') {
        rc = frag ? add_anchor(c, *res, frag, node, false) : 0;
        goto done;
    }
    if (strcmp(abs, (*res)->uri) != 0) {
        rc = root_dialect(c, node, 0, &draft, &vocab);
        if (rc == 0)
            rc = res_new(c, abs, node, draft, vocab, res);
    }
    if (rc == 0 && frag && *frag)
        rc = add_anchor(c, *res, frag, node, false);
done:
    free(abs);
    return rc;
}

static int index_anchors(struct cctx *c, const cJSON *node, struct js_res *res)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(node, "$anchor");
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(node, "$dynamicAnchor");
    int rc = 0;

    if (cJSON_IsString(a))
        rc = add_anchor(c, res, a->valuestring, node, false);
    if (rc == 0 && cJSON_IsString(d) && res->draft == D20)
        rc = add_anchor(c, res, d->valuestring, node, true);
    return rc;
}

static int index_children(struct cctx *c, const struct kw_def *d, const cJSON *v,
                          struct js_res *res, unsigned depth)
{
    int rc = 0;
    switch ((enum kw_kind)d->kind) {
    case K_SCHEMA:
        return index_schema(c, v, res, depth + 1);
    case K_ITEMS_OLD:
        if (!cJSON_IsArray(v))
            return index_schema(c, v, res, depth + 1);
        /* fall through */
    case K_SCHEMA_ARRAY:
    case K_SCHEMA_MAP:
    case K_PATTERN_MAP:
    case K_DEPENDENCIES:
        if (!cJSON_IsArray(v) && !cJSON_IsObject(v))
            return 0;
        for (const cJSON *e = v->child; e && rc == 0; e = e->next) {
            if (cJSON_IsObject(e) || cJSON_IsBool(e))
                rc = index_schema(c, e, res, depth + 1);
        }
        return rc;
    default:
        return 0;
    }
}

/* Records base URIs, resources and anchors of every subschema in a known keyword
 * (subschemas inside unknown keywords, enum or const are not schemas). */
static int index_schema(struct cctx *c, const cJSON *node, struct js_res *res, unsigned depth)
{
    bool ref_only;
    int rc;

    if (depth > MAX_SCHEMA_DEPTH)
        return cfail(c, "schema nested too deeply");
    if (!cJSON_IsObject(node))
        return cJSON_IsBool(node) && pmap_put(&c->info, node, res) ? cnomem(c) : 0;
    /* draft-07: $ref makes every sibling keyword, $id included, ignored */
    ref_only = res->draft == D7 && cJSON_GetObjectItemCaseSensitive(node, "$ref");
    if (!ref_only && (rc = index_id(c, node, &res)))
        return rc;
    if (pmap_put(&c->info, node, res))
        return cnomem(c);
    if (ref_only)
        return 0;
    if ((res->draft & D1920) && (rc = index_anchors(c, node, res)))
        return rc;
    for (const cJSON *e = node->child; e; e = e->next) {
        const struct kw_def *d = find_kw(e->string, res->draft);
        if (d && holds_schemas(d->kind) && (rc = index_children(c, d, e, res, depth)))
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------------------ compile: references */

static const cJSON *pointer_step(const cJSON *cur, const char *tok)
{
    char *end;
    unsigned long idx;

    if (cJSON_IsObject(cur))
        return cJSON_GetObjectItemCaseSensitive(cur, tok);
    if (!cJSON_IsArray(cur) || !isdigit((unsigned char)tok[0]) || (tok[0] == '0' && tok[1]))
        return NULL;
    idx = strtoul(tok, &end, 10);
    if (*end || idx > INT32_MAX)
        return NULL;
    return cJSON_GetArrayItem(cur, (int)idx);
}

/* Evaluates a (percent-decoded) JSON Pointer from root; *res follows the resources it
 * crosses, so the target gets the right base URI even inside unknown keywords. */
static const cJSON *walk_pointer(struct cctx *c, const cJSON *root, const char *ptr,
                                 struct js_res **res)
{
    const cJSON *cur = root;
    char *tok;

    if (*ptr && *ptr != '/')
        return NULL;
    tok = malloc(strlen(ptr) + 1);
    if (!tok)
        return NULL;
    while (cur && *ptr == '/') {
        size_t n = 0;
        struct js_res *r;
        for (ptr++; *ptr && *ptr != '/'; ptr++) {
            if (*ptr == '~' && (ptr[1] == '0' || ptr[1] == '1'))
                tok[n++] = *++ptr == '0' ? '~' : '/';
            else
                tok[n++] = *ptr;
        }
        tok[n] = '\0';
        cur = pointer_step(cur, tok);
        r = cur ? pmap_get(&c->info, cur) : NULL;
        if (r)
            *res = r;
    }
    free(tok);
    return cur;
}

/* Resolves ref against n's base URI. *anchor gets the plain-name fragment, if any. */
static int resolve_ref(struct cctx *c, const struct js_node *n, const char *ref,
                       const cJSON **target, struct js_res **tres, const char **anchor)
{
    char loc[256], *abs = uri_resolve(n->res->uri, ref), *frag;
    struct js_res *r = NULL;
    int rc;

    if (!abs)
        return cnomem(c);
    frag = strchr(abs, '#');
    if (frag)
        *frag++ = '\0';
    rc = load_doc(c, abs, n->res->draft, n->res->vocab, 0, &r);
    if (rc == JSONSCHEMA_EINVALID) {
        locate(c, n->src, loc, sizeof(loc));
        cprefix(c, loc);
    }
    if (rc == 0 && frag && *frag && *frag != '/') {
        frag[-1] = '#';
        *target = smap_get(&c->anchors, abs);
        *anchor = arena_strdup(&c->s->arena, frag);
        if (*target && !*anchor)
            rc = cnomem(c);
        r = *target ? pmap_get(&c->info, *target) : NULL;
    } else if (rc == 0) {
        if (frag)
            percent_decode(frag);
        *target = walk_pointer(c, r->root, frag ? frag : "", &r);
    }
    free(abs);
    if (rc == 0 && (!*target || !r))
        rc = cfail_at(c, n->src, "cannot resolve reference \"%s\"", ref);
    *tres = r;
    return rc;
}

static int get_node(struct cctx *c, const cJSON *src, struct js_res *res, struct js_node **out);

static int kc_ref(struct cctx *c, struct js_node *n, const cJSON *v, const struct kw_def *d)
{
    const cJSON *target = NULL;
    const char *anchor = NULL;
    struct js_res *r = NULL;
    int rc;

    (void)d;
    if (!cJSON_IsString(v))
        return 0;
    rc = resolve_ref(c, n, v->valuestring, &target, &r, &anchor);
    return rc ? rc : get_node(c, target, r, &n->ref);
}

/* $dynamicRef resolves like $ref; only if it lands on a $dynamicAnchor of the same name
 * does the dynamic scope get a say at validation time. */
static int kc_dyn_ref(struct cctx *c, struct js_node *n, const cJSON *v, const struct kw_def *d)
{
    const cJSON *target = NULL, *dyn;
    const char *anchor = NULL;
    struct js_res *r = NULL;
    int rc;

    (void)d;
    if (!cJSON_IsString(v))
        return 0;
    rc = resolve_ref(c, n, v->valuestring, &target, &r, &anchor);
    if (rc == 0)
        rc = get_node(c, target, r, &n->dyn_ref);
    dyn = cJSON_GetObjectItemCaseSensitive(target, "$dynamicAnchor");
    if (rc == 0 && anchor && cJSON_IsString(dyn) && strcmp(dyn->valuestring, anchor) == 0)
        n->dyn_name = anchor;
    return rc;
}

static int kc_unsupported(struct cctx *c, struct js_node *n, const cJSON *v, const struct kw_def *d)
{
    (void)v;
    return cfail_at(c, n->src, "keyword %s is not supported", d->name);
}

static int kc_schema(struct cctx *c, struct js_node *n, const cJSON *v, const struct kw_def *d)
{
    return get_node(c, v, n->res, (struct js_node **)(void *)((char *)n + d->off));
}

static int compile_list(struct cctx *c, struct js_node *n, const cJSON *v, struct js_list *l)
{
    size_t i = 0;
    int rc = 0;

    l->n = (size_t)cJSON_GetArraySize(v);
    l->v = arena_alloc(&c->s->arena, (l->n ? l->n : 1) * sizeof(*l->v));
    if (!l->v)
        return cnomem(c);
    for (const cJSON *e = v->child; e && rc == 0; e = e->next)
        rc = get_node(c, e, n->res, &l->v[i++]);
    return rc;
}

static int kc_list(struct cctx *c, struct js_node *n, const cJSON *v, const struct kw_def *d)
{
    if (!cJSON_IsArray(v))
        return 0;
    return compile_list(c, n, v, (struct js_list *)(void *)((char *)n + d->off));
}

/* draft-07/2019-09 items: a schema for all items, or a tuple (then additionalItems). */
static int kc_items_old(struct cctx *c, struct js_node *n, const cJSON *v, const struct kw_def *d)
{
    (void)d;
    if (!cJSON_IsArray(v))
        return get_node(c, v, n->res, &n->items);
    n->flags |= F_ITEMS_ARRAY;
    return compile_list(c, n, v, &n->prefix_items);
}

static int cmp_kv(const void *a, const void *b)
{
    return strcmp(((const struct js_kv *)a)->name, ((const struct js_kv *)b)->name);
}

static int compile_kv(struct cctx *c, struct js_node *n, const cJSON *v, struct js_kv **out,
                      size_t *count)
{
    size_t i = 0;
    int rc = 0;

    if (!cJSON_IsObject(v))
        return 0;
    *count = (size_t)cJSON_GetArraySize(v);
    *out = arena_alloc(&c->s->arena, (*count ? *count : 1) * sizeof(**out));
    if (!*out)
        return cnomem(c);
    for (const cJSON *e = v->child; e && rc == 0; e = e->next, i++) {
        (*out)[i].name = e->string;
        rc = get_node(c, e, n->res, &(*out)[i].schema);
    }
    return rc;
}

static int kc_props(struct cctx *c, struct js_node *n, const cJSON *v, const struct kw_def *d)
{
    int rc = compile_kv(c, n, v, &n->props, &n->nprops);
    (void)d;
    if (rc == 0 && n->nprops > 1)
        qsort(n->props, n->nprops, sizeof(*n->props), cmp_kv);
    return rc;
}

static int kc_dep_schemas(struct cctx *c, struct js_node *n, const cJSON *v, const struct kw_def *d)
{
    (void)d;
    return compile_kv(c, n, v, &n->dep_schemas, &n->ndep_schemas);
}

static int add_regex(struct cctx *c, const struct js_node *n, const char *src, struct regex **out)
{
    char msg[160];
    struct regex **nr;
    int rc = regex_compile(src, strlen(src), out, msg, sizeof(msg));

    if (rc == REGEX_ENOMEM)
        return cnomem(c);
    if (rc)
        return cfail_at(c, n->src, "invalid regular expression \"%s\": %s", src, msg);
    nr = realloc(c->s->regexes, (c->s->nregexes + 1) * sizeof(*nr));
    if (!nr) {
        regex_free(*out);
        return cnomem(c);
    }
    c->s->regexes = nr;
    nr[c->s->nregexes++] = *out;
    return 0;
}

static int kc_pattern(struct cctx *c, struct js_node *n, const cJSON *v, const struct kw_def *d)
{
    (void)d;
    if (!cJSON_IsString(v))
        return 0;
    n->pattern_src = v->valuestring;
    return add_regex(c, n, v->valuestring, &n->pattern);
}

static int kc_pattern_props(struct cctx *c, struct js_node *n, const cJSON *v,
                            const struct kw_def *d)
{
    size_t i = 0;
    int rc = 0;

    (void)d;
    if (!cJSON_IsObject(v))
        return 0;
    n->npat_props = (size_t)cJSON_GetArraySize(v);
    n->pat_props = arena_alloc(&c->s->arena, (n->npat_props + 1) * sizeof(*n->pat_props));
    if (!n->pat_props)
        return cnomem(c);
    for (const cJSON *e = v->child; e && rc == 0; e = e->next, i++) {
        n->pat_props[i].src = e->string;
        rc = add_regex(c, n, e->string, &n->pat_props[i].re);
        if (rc == 0)
            rc = get_node(c, e, n->res, &n->pat_props[i].schema);
    }
    return rc;
}

static const char **compile_names(struct cctx *c, const cJSON *v, size_t *count)
{
    const char **names;
    size_t i = 0;

    *count = (size_t)cJSON_GetArraySize(v);
    names = arena_alloc(&c->s->arena, (*count + 1) * sizeof(*names));
    if (!names)
        return NULL;
    for (const cJSON *e = v->child; e; e = e->next) {
        if (cJSON_IsString(e))
            names[i++] = e->valuestring;
    }
    *count = i;
    return names;
}

static int kc_required(struct cctx *c, struct js_node *n, const cJSON *v, const struct kw_def *d)
{
    (void)d;
    if (!cJSON_IsArray(v))
        return 0;
    n->required = compile_names(c, v, &n->nrequired);
    return n->required ? 0 : cnomem(c);
}

/* Appends one property -> required names entry; the arena array is reallocated by copy
 * (dependentRequired and dependencies may both contribute). */
static int add_dep(struct cctx *c, struct js_node *n, const cJSON *e, const char *keyword)
{
    struct js_dep *nd = arena_alloc(&c->s->arena, (n->ndep_req + 1) * sizeof(*nd));
    if (!nd)
        return cnomem(c);
    if (n->ndep_req)
        memcpy(nd, n->dep_req, n->ndep_req * sizeof(*nd));
    nd[n->ndep_req].name = e->string;
    nd[n->ndep_req].keyword = keyword;
    nd[n->ndep_req].names = compile_names(c, e, &nd[n->ndep_req].n);
    if (!nd[n->ndep_req].names)
        return cnomem(c);
    n->dep_req = nd;
    n->ndep_req++;
    return 0;
}

static int kc_dep_required(struct cctx *c, struct js_node *n, const cJSON *v,
                           const struct kw_def *d)
{
    int rc = 0;
    if (!cJSON_IsObject(v))
        return 0;
    for (const cJSON *e = v->child; e && rc == 0; e = e->next) {
        if (cJSON_IsArray(e))
            rc = add_dep(c, n, e, d->name);
    }
    return rc;
}

/* draft-07 dependencies (also honoured in 2020-12): arrays are dependentRequired,
 * schemas dependentSchemas. */
static int kc_dependencies(struct cctx *c, struct js_node *n, const cJSON *v,
                           const struct kw_def *d)
{
    size_t nschemas = 0, i;
    int rc = 0;

    if (!cJSON_IsObject(v))
        return 0;
    for (const cJSON *e = v->child; e; e = e->next)
        nschemas += !cJSON_IsArray(e);
    if (nschemas) {
        struct js_kv *kv = arena_alloc(&c->s->arena, (n->ndep_schemas + nschemas) * sizeof(*kv));
        if (!kv)
            return cnomem(c);
        if (n->ndep_schemas)
            memcpy(kv, n->dep_schemas, n->ndep_schemas * sizeof(*kv));
        n->dep_schemas = kv;
    }
    i = n->ndep_schemas;
    for (const cJSON *e = v->child; e && rc == 0; e = e->next) {
        if (cJSON_IsArray(e)) {
            rc = add_dep(c, n, e, d->name);
            continue;
        }
        n->dep_schemas[i].name = e->string;
        rc = get_node(c, e, n->res, &n->dep_schemas[i++].schema);
    }
    n->ndep_schemas = i;
    return rc;
}

static unsigned type_bit(const char *name)
{
    for (size_t i = 0; i < TE_ARRAY_LEN(type_names); i++) {
        if (strcmp(name, type_names[i]) == 0)
            return 1u << i;
    }
    return 0;
}

static int kc_type(struct cctx *c, struct js_node *n, const cJSON *v, const struct kw_def *d)
{
    (void)c, (void)d;
    if (cJSON_IsString(v))
        n->types = type_bit(v->valuestring);
    for (const cJSON *e = cJSON_IsArray(v) ? v->child : NULL; e; e = e->next) {
        if (cJSON_IsString(e))
            n->types |= type_bit(e->valuestring);
    }
    return 0;
}

static int kc_value(struct cctx *c, struct js_node *n, const cJSON *v, const struct kw_def *d)
{
    (void)c;
    *(const cJSON **)(void *)((char *)n + d->off) = v;
    return 0;
}

static int kc_number(struct cctx *c, struct js_node *n, const cJSON *v, const struct kw_def *d)
{
    (void)c;
    if (!cJSON_IsNumber(v))
        return 0;
    memcpy((char *)n + d->off, &v->valuedouble, sizeof(double));
    n->flags |= d->flag;
    return 0;
}

static int kc_count(struct cctx *c, struct js_node *n, const cJSON *v, const struct kw_def *d)
{
    uint64_t x;
    (void)c;
    if (!cJSON_IsNumber(v))
        return 0;
    x = to_count(v->valuedouble);
    memcpy((char *)n + d->off, &x, sizeof(x));
    n->flags |= d->flag;
    return 0;
}

static int kc_unique(struct cctx *c, struct js_node *n, const cJSON *v, const struct kw_def *d)
{
    (void)c, (void)d;
    if (cJSON_IsTrue(v))
        n->flags |= F_UNIQUE;
    return 0;
}

/* ------------------------------------------------------------------ compile: nodes */

static int get_node(struct cctx *c, const cJSON *src, struct js_res *res, struct js_node **out)
{
    struct js_node *n = pmap_get(&c->compiled, src);
    struct js_res *indexed;
    char msg[256];

    if (n) {
        *out = n;
        return 0;
    }
    indexed = pmap_get(&c->info, src);
    if (!cJSON_IsObject(src) && !cJSON_IsBool(src))
        return cfail_at(c, src, "schema must be an object or a boolean");
    /* reached through a pointer into a non-schema location: never checked yet */
    if (!indexed && check_doc(src, res->draft, msg, sizeof(msg)))
        return cfail_at(c, src, "%s", msg);
    n = arena_alloc(&c->s->arena, sizeof(*n));
    if (!n || pmap_put(&c->compiled, src, n))
        return cnomem(c);
    n->src = src;
    n->res = indexed ? indexed : res;
    n->kind = cJSON_IsTrue(src) ? JS_TRUE : cJSON_IsFalse(src) ? JS_FALSE : JS_OBJECT;
    *out = n;
    if (n->kind != JS_OBJECT)
        return 0;
    if (c->nqueue == c->qcap) {
        size_t ncap = c->qcap ? c->qcap * 2 : 64;
        struct js_node **nq = realloc(c->queue, ncap * sizeof(*nq));
        if (!nq)
            return cnomem(c);
        c->queue = nq;
        c->qcap = ncap;
    }
    c->queue[c->nqueue++] = n;
    return 0;
}

static void plan_node(struct js_node *n);

static int fill_node(struct cctx *c, struct js_node *n)
{
    const struct js_res *r = n->res;
    bool ref_only = r->draft == D7 && cJSON_GetObjectItemCaseSensitive(n->src, "$ref");
    int rc;

    for (const cJSON *e = n->src->child; e; e = e->next) {
        const struct kw_def *d = find_kw(e->string, r->draft);
        if (!d || !d->compile || !(r->vocab & d->vocab))
            continue;
        if (ref_only && strcmp(e->string, "$ref") != 0)
            continue;
        rc = d->compile(c, n, e, d);
        if (rc)
            return rc;
        n->flags |= d->flag & (F_TYPE | F_CONST | F_ENUM | F_UNEVAL);
    }
    if (n->flags & F_ITEMS_ARRAY)
        n->items = n->additional_items;
    plan_node(n);
    return 0;
}

static int drain(struct cctx *c)
{
    while (c->nqueue) {
        int rc = fill_node(c, c->queue[--c->nqueue]);
        if (rc)
            return rc;
    }
    return 0;
}

/* Any $dynamicAnchor may become a $dynamicRef target at validation time, so all of them
 * are compiled up front (compiling may load documents, hence the growing bound). */
static int compile_dynamic_anchors(struct cctx *c)
{
    for (size_t i = 0; i < c->s->nres; i++) {
        for (size_t j = 0; j < c->s->res[i]->ndyn; j++) {
            struct js_res *r = c->s->res[i];
            struct js_node *node;
            int rc = get_node(c, r->dyn[j].src, r, &node);
            if (rc == 0)
                rc = drain(c);
            if (rc)
                return rc;
            c->s->res[i]->dyn[j].node = node;
        }
    }
    return 0;
}

void jsonschema_free(struct jsonschema *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->ndocs; i++)
        cJSON_Delete(s->docs[i]);
    for (size_t i = 0; i < s->nregexes; i++)
        regex_free(s->regexes[i]);
    for (size_t i = 0; i < s->nres; i++)
        free(s->res[i]->dyn);
    free(s->docs);
    free(s->regexes);
    free(s->res);
    arena_free(&s->arena);
    free(s);
}

static int compile_root(struct cctx *c, const cJSON *schema)
{
    const char *base = c->opts && c->opts->base_uri ? c->opts->base_uri : "";
    uint16_t vocab = V_ALL;
    uint8_t draft = c->opts && c->opts->default_draft == JSONSCHEMA_DRAFT_7 ? D7 : D20;
    struct js_res *res;
    cJSON *doc = cJSON_Duplicate(schema, 1);
    char *uri;
    int rc;

    if (!doc)
        return cnomem(c);
    if ((rc = add_doc(c, doc)))
        return rc;
    if (cJSON_IsObject(doc) && (rc = root_dialect(c, doc, 0, &draft, &vocab)))
        return rc;
    if ((rc = check_doc(doc, draft, c->err, c->errlen)))
        return rc;
    uri = uri_resolve("", base);
    if (!uri)
        return cnomem(c);
    *strchrnul(uri, '#') = '\0';
    rc = res_new(c, uri, doc, draft, vocab, &res);
    free(uri);
    if (rc == 0)
        rc = index_schema(c, doc, res, 0);
    if (rc == 0)
        rc = get_node(c, doc, res, &c->s->root);
    if (rc == 0)
        rc = drain(c);
    return rc ? rc : compile_dynamic_anchors(c);
}

int jsonschema_compile(const cJSON *schema, const struct jsonschema_options *opts,
                       struct jsonschema **out, char *err, size_t errlen)
{
    struct cctx c;
    int rc;

    memset(&c, 0, sizeof(c));
    *out = NULL;
    if (err && errlen)
        err[0] = '\0';
    c.opts = opts;
    c.err = err;
    c.errlen = errlen;
    c.s = calloc(1, sizeof(*c.s));
    if (!c.s)
        return cnomem(&c);
    c.s->max_depth = opts && opts->max_depth ? opts->max_depth : JSONSCHEMA_DEFAULT_DEPTH;
    c.s->regex_steps = opts && opts->regex_steps ? opts->regex_steps : REGEX_DEFAULT_STEPS;
    c.s->max_evals =
        opts && opts->max_evaluations ? opts->max_evaluations : JSONSCHEMA_DEFAULT_EVALUATIONS;
    c.s->regex_total =
        opts && opts->regex_total_steps ? opts->regex_total_steps : JSONSCHEMA_DEFAULT_REGEX_TOTAL;
    rc = compile_root(&c, schema);
    smap_free(&c.resources);
    smap_free(&c.anchors);
    pmap_free(&c.info);
    pmap_free(&c.compiled);
    free(c.queue);
    if (rc) {
        jsonschema_free(c.s);
        return rc;
    }
    *out = c.s;
    return 0;
}

/* ------------------------------------------------------------------ JSON values */

static bool object_has(const cJSON *obj, const char *name)
{
    for (const cJSON *e = obj->child; e; e = e->next) {
        if (strcmp(e->string, name) == 0)
            return true;
    }
    return false;
}

static const cJSON *object_get(const cJSON *obj, const char *name)
{
    for (const cJSON *e = obj->child; e; e = e->next) {
        if (strcmp(e->string, name) == 0)
            return e;
    }
    return NULL;
}

static int cmp_member(const void *a, const void *b)
{
    return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

/* Members sorted by name, so that name lookups and comparisons of large objects stay
 * O(n log n) instead of quadratic. NULL if out of memory. */
static const cJSON **sorted_members(const cJSON *obj, size_t n)
{
    const cJSON **m = malloc((n ? n : 1) * sizeof(*m));
    size_t i = 0;
    if (!m)
        return NULL;
    for (const cJSON *e = obj->child; e; e = e->next)
        m[i++] = e;
    qsort(m, n, sizeof(*m), cmp_member);
    return m;
}

static bool json_equal(const cJSON *a, const cJSON *b);

static bool objects_equal_sorted(const cJSON *a, const cJSON *b, size_t n)
{
    const cJSON **x = sorted_members(a, n), **y = sorted_members(b, n);
    bool eq = x && y;

    for (size_t i = 0; eq && i < n; i++)
        eq = strcmp(x[i]->string, y[i]->string) == 0 && json_equal(x[i], y[i]);
    free(x);
    free(y);
    return eq;
}

static bool objects_equal(const cJSON *a, const cJSON *b)
{
    size_t n = (size_t)cJSON_GetArraySize(a);

    if (n != (size_t)cJSON_GetArraySize(b))
        return false;
    if (n > 16) {
        const cJSON **x = sorted_members(a, n);
        free(x);
        if (x) /* memory is there: take the fast path */
            return objects_equal_sorted(a, b, n);
    }
    for (const cJSON *x = a->child; x; x = x->next) {
        const cJSON *y = object_get(b, x->string);
        if (!y || !json_equal(x, y))
            return false;
    }
    return true;
}

/* JSON equality: numbers by value (1 == 1.0), objects regardless of member order. */
static bool json_equal(const cJSON *a, const cJSON *b)
{
    int ta = a->type & 0xFF, tb = b->type & 0xFF;
    const cJSON *x, *y;

    if (ta != tb)
        return false;
    switch (ta) {
    case cJSON_Number:
        return a->valuedouble == b->valuedouble;
    case cJSON_String:
    case cJSON_Raw:
        return strcmp(a->valuestring, b->valuestring) == 0;
    case cJSON_Array:
        for (x = a->child, y = b->child; x && y; x = x->next, y = y->next) {
            if (!json_equal(x, y))
                return false;
        }
        return !x && !y;
    case cJSON_Object:
        return objects_equal(a, b);
    default:
        return true;
    }
}

/* Consistent with json_equal: equal values hash equally. */
static uint64_t json_hash(const cJSON *v)
{
    uint64_t h = (uint64_t)(v->type & 0xFF) * 0x9E3779B97F4A7C15ull;
    double d;

    switch (v->type & 0xFF) {
    case cJSON_Number:
        d = v->valuedouble == 0 ? 0 : v->valuedouble;
        return hash_bytes(&d, sizeof(d), h);
    case cJSON_String:
    case cJSON_Raw:
        return hash_bytes(v->valuestring, strlen(v->valuestring), h);
    case cJSON_Array:
        for (const cJSON *e = v->child; e; e = e->next)
            h = h * 31 + json_hash(e);
        return h;
    case cJSON_Object:
        for (const cJSON *e = v->child; e; e = e->next)
            h += hash_bytes(e->string, strlen(e->string), HASH_SEED) ^ json_hash(e);
        return h;
    default:
        return h;
    }
}

static size_t utf8_length(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

static unsigned instance_types(const cJSON *v)
{
    switch (v->type & 0xFF) {
    case cJSON_NULL:
        return T_NULL;
    case cJSON_True:
    case cJSON_False:
        return T_BOOLEAN;
    case cJSON_Object:
        return T_OBJECT;
    case cJSON_Array:
        return T_ARRAY;
    case cJSON_String:
        return T_STRING;
    case cJSON_Number:
        return T_NUMBER | (is_int_value(v->valuedouble) ? T_INTEGER : 0);
    default:
        return 0;
    }
}

static const char *instance_type_name(const cJSON *v)
{
    unsigned t = instance_types(v) & ~(unsigned)T_INTEGER;
    for (size_t i = 0; i < TE_ARRAY_LEN(type_names); i++) {
        if (t == 1u << i)
            return type_names[i];
    }
    return "invalid value";
}

/* x is a multiple of m. Division with a tolerance of a few ulps absorbs binary rounding
 * (0.0075 / 0.0001 = 74.99999999999999); when the quotient overflows, fmod (exact)
 * decides, so 1e308 is a multiple of 0.5 but not of 0.123456789. */
static bool is_multiple(double x, double m)
{
    double q = x / m;
    if (!isfinite(q))
        return fmod(x, m) == 0;
    if (fabs(q) >= 9007199254740992.0) /* 2^53: every such double is an integer */
        return true;
    return fabs(q - nearbyint(q)) <= 4 * DBL_EPSILON * fabs(q);
}

/* ------------------------------------------------------------------ validation context */

/* Which object members / array items were evaluated, for unevaluated*. */
struct ann {
    uint8_t *bits;
    size_t n;
};

struct vctx {
    const struct jsonschema *s;
    struct jsonschema_errors *errs;
    unsigned quiet; /* > 0: inside anyOf/oneOf/not/if/contains, or nobody wants errors */
    unsigned depth;
    const struct js_res **scope; /* dynamic scope, outermost first */
    size_t nscope, scopecap;
    uint64_t evals;      /* schema evaluations so far */
    uint64_t regex_used; /* regex steps so far */
    char abort_msg[256];
    const char *abort_kw;
    char *abort_path;
};

static int ann_init(struct ann *a, const cJSON *inst)
{
    a->n = 0;
    a->bits = NULL;
    if (!cJSON_IsObject(inst) && !cJSON_IsArray(inst))
        return 0;
    a->n = (size_t)cJSON_GetArraySize(inst);
    if (a->n == 0)
        return 0;
    a->bits = calloc((a->n + 7) / 8, 1);
    return a->bits ? 0 : JSONSCHEMA_ENOMEM;
}

static void ann_set(struct ann *a, size_t i)
{
    if (a && i < a->n)
        a->bits[i / 8] |= (uint8_t)(1u << (i % 8));
}

static bool ann_has(const struct ann *a, size_t i)
{
    return a && i < a->n && (a->bits[i / 8] & (1u << (i % 8)));
}

static void ann_merge(struct ann *dst, const struct ann *src)
{
    for (size_t i = 0; dst && i < (src->n + 7) / 8 && i < (dst->n + 7) / 8; i++)
        dst->bits[i] |= src->bits[i];
}

static size_t errors_max(const struct jsonschema_errors *e)
{
    return e->max ? e->max : JSONSCHEMA_DEFAULT_MAX_ERRORS;
}

/* Once the error list is full, the first failure ends a schema's evaluation. */
static bool stop(const struct vctx *c)
{
    return c->quiet || c->errs->count >= errors_max(c->errs);
}

static int push_error(struct jsonschema_errors *e, const struct js_path *path, const char *kw,
                      const char *msg)
{
    struct jsonschema_error *ni = realloc(e->items, (e->count + 1) * sizeof(*ni));
    if (!ni)
        return JSONSCHEMA_ENOMEM;
    e->items = ni;
    ni[e->count].path = path_str(path);
    ni[e->count].keyword = kw;
    ni[e->count].message = strdup(msg);
    if (!ni[e->count].path || !ni[e->count].message) {
        free(ni[e->count].path);
        free(ni[e->count].message);
        return JSONSCHEMA_ENOMEM;
    }
    e->count++;
    return 0;
}

static int fail(struct vctx *c, const struct js_path *path, const char *kw, const char *fmt, ...)
    TE_PRINTF(4, 5);

/* Records a failure (unless quiet) and returns the keyword result: 0, or an error code. */
static int fail(struct vctx *c, const struct js_path *path, const char *kw, const char *fmt, ...)
{
    char msg[320];
    va_list ap;
    int rc;

    if (c->quiet)
        return 0;
    if (c->errs->count >= errors_max(c->errs)) {
        c->errs->truncated = true;
        return 0;
    }
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    rc = push_error(c->errs, path, kw, msg);
    if (c->errs->count >= errors_max(c->errs))
        c->errs->truncated = true;
    return rc;
}

static int abort_eval(struct vctx *c, const struct js_path *path, const char *kw, const char *fmt,
                      ...) TE_PRINTF(4, 5);

/* Ends the whole validation: a result under a depth or regex budget cutoff would be a
 * guess, and inside not/anyOf a guess could turn into "valid". */
static int abort_eval(struct vctx *c, const struct js_path *path, const char *kw, const char *fmt,
                      ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->abort_msg, sizeof(c->abort_msg), fmt, ap);
    va_end(ap);
    c->abort_kw = kw;
    free(c->abort_path);
    c->abort_path = path_str(path);
    return c->abort_path ? E_ABORT : JSONSCHEMA_ENOMEM;
}

static int scope_enter(struct vctx *c, const struct js_res *r, bool *pushed)
{
    *pushed = false;
    if (c->nscope && c->scope[c->nscope - 1] == r)
        return 0;
    if (c->nscope == c->scopecap) {
        size_t ncap = c->scopecap ? c->scopecap * 2 : 16;
        const struct js_res **ns = realloc(c->scope, ncap * sizeof(*ns));
        if (!ns)
            return JSONSCHEMA_ENOMEM;
        c->scope = ns;
        c->scopecap = ncap;
    }
    c->scope[c->nscope++] = r;
    *pushed = true;
    return 0;
}

static int eval(struct vctx *c, const struct js_node *n, const cJSON *inst,
                const struct js_path *path, struct ann *ann);

static int eval_quiet(struct vctx *c, const struct js_node *n, const cJSON *inst,
                      const struct js_path *path, struct ann *ann)
{
    int rc;
    c->quiet++;
    rc = eval(c, n, inst, path, ann);
    c->quiet--;
    return rc;
}

/* Evaluates a branch whose annotations count only if it passes. */
static int eval_branch(struct vctx *c, const struct js_node *n, const cJSON *inst,
                       const struct js_path *path, struct ann *ann)
{
    struct ann tmp = {NULL, 0};
    int rc = ann ? ann_init(&tmp, inst) : 0;

    if (rc == 0)
        rc = eval_quiet(c, n, inst, path, ann ? &tmp : NULL);
    if (rc == 1)
        ann_merge(ann, &tmp);
    free(tmp.bits);
    return rc;
}

/* Short JSON text of v for messages. */
static void json_excerpt(const cJSON *v, char *out, size_t outlen)
{
    char *text = cJSON_PrintUnformatted(v);
    size_t n = text ? strlen(text) : 0;

    if (!text)
        snprintf(out, outlen, "(value)");
    else if (n < outlen)
        snprintf(out, outlen, "%s", text);
    else
        snprintf(out, outlen, "%.*s...", (int)(outlen - 4), text);
    free(text);
}

/* ------------------------------------------------------------------ keywords: any type */

static int kv_ref(struct vctx *c, const struct js_node *n, const cJSON *inst,
                  const struct js_path *path, struct ann *ann)
{
    return n->ref ? eval(c, n->ref, inst, path, ann) : 1;
}

static const struct js_node *dynamic_target(const struct vctx *c, const struct js_node *n)
{
    for (size_t i = 0; n->dyn_name && i < c->nscope; i++) {
        const struct js_res *r = c->scope[i];
        for (size_t j = 0; j < r->ndyn; j++) {
            if (r->dyn[j].node && strcmp(r->dyn[j].name, n->dyn_name) == 0)
                return r->dyn[j].node;
        }
    }
    return n->dyn_ref;
}

static int kv_dyn_ref(struct vctx *c, const struct js_node *n, const cJSON *inst,
                      const struct js_path *path, struct ann *ann)
{
    return n->dyn_ref ? eval(c, dynamic_target(c, n), inst, path, ann) : 1;
}

static void type_list(unsigned types, char *out, size_t outlen)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < TE_ARRAY_LEN(type_names); i++) {
        if ((types & (1u << i)) && used < outlen) {
            used += (size_t)snprintf(out + used, outlen - used, "%s%s", used ? " or " : "",
                                     type_names[i]);
        }
    }
}

static int kv_type(struct vctx *c, const struct js_node *n, const cJSON *inst,
                   const struct js_path *path, struct ann *ann)
{
    char want[96];
    unsigned have = instance_types(inst);

    (void)ann;
    if (!(n->flags & F_TYPE) || (have & n->types))
        return 1;
    type_list(n->types, want, sizeof(want));
    return fail(c, path, "type", "expected %s, got %s", want, instance_type_name(inst));
}

static int kv_const(struct vctx *c, const struct js_node *n, const cJSON *inst,
                    const struct js_path *path, struct ann *ann)
{
    char text[80];
    (void)ann;
    if (!(n->flags & F_CONST) || json_equal(n->const_v, inst))
        return 1;
    json_excerpt(n->const_v, text, sizeof(text));
    return fail(c, path, "const", "must be equal to %s", text);
}

static int kv_enum(struct vctx *c, const struct js_node *n, const cJSON *inst,
                   const struct js_path *path, struct ann *ann)
{
    char text[120];
    (void)ann;
    if (!(n->flags & F_ENUM))
        return 1;
    for (const cJSON *e = n->enum_v->child; e; e = e->next) {
        if (json_equal(e, inst))
            return 1;
    }
    json_excerpt(n->enum_v, text, sizeof(text));
    return fail(c, path, "enum", "must be one of %s", text);
}

static int kv_all_of(struct vctx *c, const struct js_node *n, const cJSON *inst,
                     const struct js_path *path, struct ann *ann)
{
    int ok = 1;
    for (size_t i = 0; i < n->all_of.n; i++) {
        int rc = eval(c, n->all_of.v[i], inst, path, ann);
        if (rc < 0)
            return rc;
        if (rc == 0) {
            ok = 0;
            if (stop(c))
                break;
        }
    }
    return ok;
}

/* Every passing branch contributes annotations, so with annotations wanted all branches
 * are evaluated; otherwise the first passing one settles it. */
static int kv_any_of(struct vctx *c, const struct js_node *n, const cJSON *inst,
                     const struct js_path *path, struct ann *ann)
{
    bool matched = false;

    if (!n->any_of.n)
        return 1;
    for (size_t i = 0; i < n->any_of.n && ((ann && ann->n) || !matched); i++) {
        int rc = eval_branch(c, n->any_of.v[i], inst, path, ann);
        if (rc < 0)
            return rc;
        matched |= rc == 1;
    }
    if (matched)
        return 1;
    return fail(c, path, "anyOf", "must match at least one of the %zu schemas in anyOf",
                n->any_of.n);
}

static int kv_one_of(struct vctx *c, const struct js_node *n, const cJSON *inst,
                     const struct js_path *path, struct ann *ann)
{
    size_t first = 0, count = 0;
    struct ann tmp = {NULL, 0};
    int rc = 0;

    if (!n->one_of.n)
        return 1;
    for (size_t i = 0; i < n->one_of.n && count < 2; i++) {
        if (ann && (rc = ann_init(&tmp, inst)))
            return rc;
        rc = eval_quiet(c, n->one_of.v[i], inst, path, ann ? &tmp : NULL);
        if (rc == 1 && count++ == 0) {
            first = i;
            ann_merge(ann, &tmp);
        }
        free(tmp.bits);
        tmp.bits = NULL;
        if (rc < 0)
            return rc;
        if (rc == 1 && count == 2)
            return fail(c, path, "oneOf",
                        "must match exactly one schema in oneOf, but matches %zu and %zu", first,
                        i);
    }
    if (count == 1)
        return 1;
    return fail(c, path, "oneOf", "must match exactly one of the %zu schemas in oneOf",
                n->one_of.n);
}

static int kv_not(struct vctx *c, const struct js_node *n, const cJSON *inst,
                  const struct js_path *path, struct ann *ann)
{
    int rc;
    (void)ann;
    if (!n->not_)
        return 1;
    rc = eval_quiet(c, n->not_, inst, path, NULL);
    if (rc <= 0)
        return rc < 0 ? rc : 1;
    return fail(c, path, "not", "must not match the schema in not");
}

static int kv_if(struct vctx *c, const struct js_node *n, const cJSON *inst,
                 const struct js_path *path, struct ann *ann)
{
    int rc;
    if (!n->if_)
        return 1;
    rc = eval_branch(c, n->if_, inst, path, ann);
    if (rc < 0)
        return rc;
    if (rc == 1)
        return n->then_ ? eval(c, n->then_, inst, path, ann) : 1;
    return n->else_ ? eval(c, n->else_, inst, path, ann) : 1;
}

/* ------------------------------------------------------------------ keywords: scalars */

/* The numeric bounds, in the order their failures are reported. */
static const struct {
    uint32_t flag;
    const char *keyword;
    const char *relation;
} number_rules[] = {
    {F_MULTIPLE_OF, "multipleOf", "a multiple of"},
    {F_MAXIMUM, "maximum", "less than or equal to"},
    {F_EXCL_MAXIMUM, "exclusiveMaximum", "less than"},
    {F_MINIMUM, "minimum", "greater than or equal to"},
    {F_EXCL_MINIMUM, "exclusiveMinimum", "greater than"},
};

/* Whether x breaks the bound of the given flag; *limit gets the bound. */
static bool number_fails(const struct js_node *n, uint32_t flag, double x, double *limit)
{
    switch (flag) {
    case F_MULTIPLE_OF:
        *limit = n->multiple_of;
        return !is_multiple(x, n->multiple_of);
    case F_MAXIMUM:
        *limit = n->maximum;
        return x > n->maximum;
    case F_EXCL_MAXIMUM:
        *limit = n->excl_maximum;
        return x >= n->excl_maximum;
    case F_MINIMUM:
        *limit = n->minimum;
        return x < n->minimum;
    default:
        *limit = n->excl_minimum;
        return x <= n->excl_minimum;
    }
}

static int kv_number(struct vctx *c, const struct js_node *n, const cJSON *inst,
                     const struct js_path *path, struct ann *ann)
{
    double limit;
    int ok = 1;

    (void)ann;
    if (!cJSON_IsNumber(inst))
        return 1;
    for (size_t i = 0; i < TE_ARRAY_LEN(number_rules); i++) {
        int rc;
        if (!(n->flags & number_rules[i].flag) ||
            !number_fails(n, number_rules[i].flag, inst->valuedouble, &limit))
            continue;
        ok = 0;
        rc = fail(c, path, number_rules[i].keyword, "must be %s %.15g", number_rules[i].relation,
                  limit);
        if (rc || stop(c))
            return rc;
    }
    return ok;
}

/* Each match is bounded by the per-match budget and by what is left of the validation's
 * total, so many patterns times many strings cannot add up to a hang either. */
static int match_pattern(struct vctx *c, const struct regex *re, const char *src, const char *s,
                         const struct js_path *path, const char *kw)
{
    uint64_t left = c->regex_used < c->s->regex_total ? c->s->regex_total - c->regex_used : 0;
    struct regex_limits lim = {c->s->regex_steps, 0, &c->regex_used};
    int rc = REGEX_EBUDGET;

    if (left < lim.max_steps)
        lim.max_steps = (uint32_t)left;
    if (left > 0)
        rc = regex_search_limits(re, s, strlen(s), &lim);
    if (rc == REGEX_ENOMEM)
        return JSONSCHEMA_ENOMEM;
    if (rc < 0)
        return abort_eval(c, path, kw, "pattern \"%.100s\" exceeded its matching budget", src);
    return rc;
}

static int check_length(struct vctx *c, const struct js_node *n, const char *s,
                        const struct js_path *path)
{
    size_t len;

    if (!(n->flags & (F_MIN_LENGTH | F_MAX_LENGTH)))
        return 1;
    len = utf8_length(s);
    if ((n->flags & F_MIN_LENGTH) && len < n->min_length)
        return fail(c, path, "minLength", "must be at least %llu characters long",
                    (unsigned long long)n->min_length);
    if ((n->flags & F_MAX_LENGTH) && len > n->max_length)
        return fail(c, path, "maxLength", "must be at most %llu characters long",
                    (unsigned long long)n->max_length);
    return 1;
}

static int kv_string(struct vctx *c, const struct js_node *n, const cJSON *inst,
                     const struct js_path *path, struct ann *ann)
{
    int ok = 1, rc;

    (void)ann;
    if (!cJSON_IsString(inst))
        return 1;
    rc = check_length(c, n, inst->valuestring, path);
    if (rc <= 0) {
        if (rc < 0 || stop(c))
            return rc;
        ok = 0;
    }
    if (!n->pattern)
        return ok;
    rc = match_pattern(c, n->pattern, n->pattern_src, inst->valuestring, path, "pattern");
    if (rc != 0)
        return rc < 0 ? rc : ok;
    rc = fail(c, path, "pattern", "does not match pattern \"%.200s\"", n->pattern_src);
    return rc ? rc : 0;
}

/* ------------------------------------------------------------------ keywords: arrays */

static int kv_items(struct vctx *c, const struct js_node *n, const cJSON *inst,
                    const struct js_path *path, struct ann *ann)
{
    size_t i = 0;
    int ok = 1;

    if (!cJSON_IsArray(inst) || (!n->prefix_items.n && !n->items))
        return 1;
    for (const cJSON *e = inst->child; e; e = e->next, i++) {
        const struct js_node *sch = i < n->prefix_items.n ? n->prefix_items.v[i] : n->items;
        struct js_path sub = {path, NULL, i};
        int rc;
        if (!sch)
            break;
        if (sch->kind == JS_FALSE && i >= n->prefix_items.n)
            rc = fail(c, path, n->flags & F_ITEMS_ARRAY ? "additionalItems" : "items",
                      "must have at most %zu items", n->prefix_items.n);
        else
            rc = eval(c, sch, e, &sub, NULL);
        if (rc < 0)
            return rc;
        ann_set(ann, i);
        if (rc == 0) {
            ok = 0;
            if (stop(c))
                break;
        }
    }
    return ok;
}

static int kv_contains(struct vctx *c, const struct js_node *n, const cJSON *inst,
                       const struct js_path *path, struct ann *ann)
{
    uint64_t min = n->flags & F_MIN_CONTAINS ? n->min_contains : 1;
    uint64_t max = n->flags & F_MAX_CONTAINS ? n->max_contains : UINT64_MAX;
    uint64_t count = 0;
    size_t i = 0;

    if (!n->contains || !cJSON_IsArray(inst))
        return 1;
    for (const cJSON *e = inst->child; e; e = e->next, i++) {
        struct js_path sub = {path, NULL, i};
        int rc = eval_quiet(c, n->contains, e, &sub, NULL);
        if (rc < 0)
            return rc;
        if (rc == 1) {
            count++;
            ann_set(ann, i);
        }
        if (!ann && count >= min && max == UINT64_MAX)
            break;
    }
    if (count < min)
        return fail(c, path, n->flags & F_MIN_CONTAINS ? "minContains" : "contains",
                    "must contain at least %llu matching item(s), found %llu",
                    (unsigned long long)min, (unsigned long long)count);
    if (count > max)
        return fail(c, path, "maxContains",
                    "must contain at most %llu matching item(s), found %llu",
                    (unsigned long long)max, (unsigned long long)count);
    return 1;
}

static int kv_array_size(struct vctx *c, const struct js_node *n, const cJSON *inst,
                         const struct js_path *path, struct ann *ann)
{
    uint64_t size;
    int rc;

    (void)ann;
    if (!cJSON_IsArray(inst) || !(n->flags & (F_MIN_ITEMS | F_MAX_ITEMS)))
        return 1;
    size = (uint64_t)cJSON_GetArraySize(inst);
    if ((n->flags & F_MIN_ITEMS) && size < n->min_items) {
        rc = fail(c, path, "minItems", "must have at least %llu items",
                  (unsigned long long)n->min_items);
        if (rc || stop(c))
            return rc;
    }
    if ((n->flags & F_MAX_ITEMS) && size > n->max_items) {
        rc = fail(c, path, "maxItems", "must have at most %llu items",
                  (unsigned long long)n->max_items);
        return rc;
    }
    return !((n->flags & F_MIN_ITEMS) && size < n->min_items);
}

struct hitem {
    uint64_t h;
    size_t i;
    const cJSON *v;
};

static int cmp_hitem(const void *a, const void *b)
{
    const struct hitem *x = a, *y = b;
    if (x->h != y->h)
        return x->h < y->h ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Sorting by hash keeps this O(n log n) on large arrays; equal hashes are compared. */
static int find_duplicate(const cJSON *arr, size_t *a, size_t *b)
{
    size_t n = (size_t)cJSON_GetArraySize(arr), i = 0;
    struct hitem *h;

    if (n < 2)
        return 0;
    h = malloc(n * sizeof(*h));
    if (!h)
        return JSONSCHEMA_ENOMEM;
    for (const cJSON *e = arr->child; e; e = e->next, i++) {
        h[i].h = json_hash(e);
        h[i].i = i;
        h[i].v = e;
    }
    qsort(h, n, sizeof(*h), cmp_hitem);
    for (i = 0; i < n; i++) {
        for (size_t j = i + 1; j < n && h[j].h == h[i].h; j++) {
            if (json_equal(h[i].v, h[j].v)) {
                *a = h[i].i;
                *b = h[j].i;
                free(h);
                return 1;
            }
        }
    }
    free(h);
    return 0;
}

static int kv_unique(struct vctx *c, const struct js_node *n, const cJSON *inst,
                     const struct js_path *path, struct ann *ann)
{
    size_t a, b;
    int rc;

    (void)ann;
    if (!(n->flags & F_UNIQUE) || !cJSON_IsArray(inst))
        return 1;
    rc = find_duplicate(inst, &a, &b);
    if (rc <= 0)
        return rc < 0 ? rc : 1;
    return fail(c, path, "uniqueItems", "items %zu and %zu are equal", a, b);
}

static int kv_uneval_items(struct vctx *c, const struct js_node *n, const cJSON *inst,
                           const struct js_path *path, struct ann *ann)
{
    size_t i = 0;
    int ok = 1;

    if (!n->uneval_items || !cJSON_IsArray(inst))
        return 1;
    for (const cJSON *e = inst->child; e; e = e->next, i++) {
        struct js_path sub = {path, NULL, i};
        int rc;
        if (ann_has(ann, i))
            continue;
        if (n->uneval_items->kind == JS_FALSE)
            rc = fail(c, &sub, "unevaluatedItems", "item %zu is not allowed", i);
        else
            rc = eval(c, n->uneval_items, e, &sub, NULL);
        if (rc < 0)
            return rc;
        ann_set(ann, i);
        if (rc == 0) {
            ok = 0;
            if (stop(c))
                break;
        }
    }
    return ok;
}

/* ------------------------------------------------------------------ keywords: objects */

static const struct js_node *find_prop(const struct js_node *n, const char *name)
{
    size_t lo = 0, hi = n->nprops;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int cmp = strcmp(name, n->props[mid].name);
        if (cmp == 0)
            return n->props[mid].schema;
        if (cmp < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* The patternProperties matching a member name; *applied is set if any matched. */
static int eval_patterns(struct vctx *c, const struct js_node *n, const cJSON *m,
                         const struct js_path *sub, bool *applied)
{
    int ok = 1;

    for (size_t i = 0; i < n->npat_props; i++) {
        const struct js_pat *pp = &n->pat_props[i];
        int rc = match_pattern(c, pp->re, pp->src, m->string, sub, "patternProperties");
        if (rc == 1) {
            *applied = true;
            rc = eval(c, pp->schema, m, sub, NULL);
            if (rc == 0) {
                ok = 0;
                if (stop(c))
                    return 0;
                continue;
            }
        }
        if (rc < 0)
            return rc;
    }
    return ok;
}

/* properties, patternProperties and additionalProperties for one member; *applied tells
 * whether any of them evaluated it (an annotation for unevaluatedProperties). */
static int eval_member(struct vctx *c, const struct js_node *n, const cJSON *m,
                       const struct js_path *path, bool *applied)
{
    struct js_path sub = {path, m->string, 0};
    const struct js_node *p = find_prop(n, m->string);
    int ok = 1, rc;

    *applied = p != NULL;
    if (p) {
        ok = eval(c, p, m, &sub, NULL);
        if (ok < 0 || (ok == 0 && stop(c)))
            return ok;
    }
    rc = eval_patterns(c, n, m, &sub, applied);
    if (rc <= 0 && (rc < 0 || stop(c)))
        return rc;
    ok = ok && rc;
    if (*applied || !n->additional_props)
        return ok;
    *applied = true;
    if (n->additional_props->kind == JS_FALSE)
        rc = fail(c, path, "additionalProperties", "property \"%.200s\" is not allowed", m->string);
    else
        rc = eval(c, n->additional_props, m, &sub, NULL);
    return rc < 0 ? rc : ok && rc;
}

static int kv_properties(struct vctx *c, const struct js_node *n, const cJSON *inst,
                         const struct js_path *path, struct ann *ann)
{
    size_t i = 0;
    int ok = 1;

    if (!cJSON_IsObject(inst) || (!n->nprops && !n->npat_props && !n->additional_props))
        return 1;
    for (const cJSON *m = inst->child; m; m = m->next, i++) {
        bool applied;
        int rc = eval_member(c, n, m, path, &applied);
        if (rc < 0)
            return rc;
        if (applied)
            ann_set(ann, i);
        if (rc == 0) {
            ok = 0;
            if (stop(c))
                break;
        }
    }
    return ok;
}

static int kv_property_names(struct vctx *c, const struct js_node *n, const cJSON *inst,
                             const struct js_path *path, struct ann *ann)
{
    int ok = 1;

    (void)ann;
    if (!n->property_names || !cJSON_IsObject(inst))
        return 1;
    for (const cJSON *m = inst->child; m; m = m->next) {
        struct js_path sub = {path, m->string, 0};
        cJSON name;
        int rc;
        memset(&name, 0, sizeof(name));
        name.type = cJSON_String;
        name.valuestring = m->string;
        if (n->property_names->kind == JS_FALSE)
            rc = fail(c, &sub, "propertyNames", "property name \"%.200s\" is not allowed",
                      m->string);
        else
            rc = eval(c, n->property_names, &name, &sub, NULL);
        if (rc < 0)
            return rc;
        if (rc == 0) {
            ok = 0;
            if (stop(c))
                break;
        }
    }
    return ok;
}

/* Member lookups by name; sorted only when the object and the number of lookups are large
 * enough for linear scans to add up. */
struct members {
    const cJSON *obj;
    const cJSON **sorted;
    size_t n;
};

static int members_init(struct members *m, const cJSON *obj, size_t lookups)
{
    m->obj = obj;
    m->sorted = NULL;
    m->n = (size_t)cJSON_GetArraySize(obj);
    if (m->n > 16 && lookups > 16) {
        m->sorted = sorted_members(obj, m->n);
        if (!m->sorted)
            return JSONSCHEMA_ENOMEM;
    }
    return 0;
}

static bool members_has(const struct members *m, const char *name)
{
    cJSON key;
    const cJSON *k = &key;

    if (!m->sorted)
        return object_has(m->obj, name);
    key.string = (char *)name;
    return bsearch(&k, m->sorted, m->n, sizeof(*m->sorted), cmp_member) != NULL;
}

static int kv_required(struct vctx *c, const struct js_node *n, const cJSON *inst,
                       const struct js_path *path, struct ann *ann)
{
    struct members m;
    int ok = 1, rc;

    (void)ann;
    if (!n->nrequired || !cJSON_IsObject(inst))
        return 1;
    if ((rc = members_init(&m, inst, n->nrequired)))
        return rc;
    for (size_t i = 0; i < n->nrequired && rc == 0; i++) {
        if (members_has(&m, n->required[i]))
            continue;
        ok = 0;
        rc = fail(c, path, "required", "missing required property \"%.200s\"", n->required[i]);
        if (stop(c))
            break;
    }
    free(m.sorted);
    return rc ? rc : ok;
}

static int check_dep(struct vctx *c, const struct js_dep *d, const struct members *m,
                     const struct js_path *path)
{
    int ok = 1;

    if (!members_has(m, d->name))
        return 1;
    for (size_t j = 0; j < d->n; j++) {
        int rc;
        if (members_has(m, d->names[j]))
            continue;
        ok = 0;
        rc = fail(c, path, d->keyword,
                  "missing property \"%.120s\", required when \"%.120s\" is present", d->names[j],
                  d->name);
        if (rc || stop(c))
            return rc;
    }
    return ok;
}

static int kv_dep_required(struct vctx *c, const struct js_node *n, const cJSON *inst,
                           const struct js_path *path, struct ann *ann)
{
    struct members m;
    int ok = 1, rc;

    (void)ann;
    if (!n->ndep_req || !cJSON_IsObject(inst))
        return 1;
    if ((rc = members_init(&m, inst, n->ndep_req)))
        return rc;
    for (size_t i = 0; i < n->ndep_req; i++) {
        rc = check_dep(c, &n->dep_req[i], &m, path);
        if (rc < 0)
            break;
        if (rc == 0) {
            ok = 0;
            if (stop(c))
                break;
        }
    }
    free(m.sorted);
    return rc < 0 ? rc : ok;
}

static int kv_dep_schemas(struct vctx *c, const struct js_node *n, const cJSON *inst,
                          const struct js_path *path, struct ann *ann)
{
    int ok = 1;

    if (!n->ndep_schemas || !cJSON_IsObject(inst))
        return 1;
    for (size_t i = 0; i < n->ndep_schemas; i++) {
        int rc;
        if (!object_has(inst, n->dep_schemas[i].name))
            continue;
        rc = eval(c, n->dep_schemas[i].schema, inst, path, ann);
        if (rc < 0)
            return rc;
        if (rc == 0) {
            ok = 0;
            if (stop(c))
                break;
        }
    }
    return ok;
}

static int kv_object_size(struct vctx *c, const struct js_node *n, const cJSON *inst,
                          const struct js_path *path, struct ann *ann)
{
    uint64_t size;
    int rc;

    (void)ann;
    if (!cJSON_IsObject(inst) || !(n->flags & (F_MIN_PROPS | F_MAX_PROPS)))
        return 1;
    size = (uint64_t)cJSON_GetArraySize(inst);
    if ((n->flags & F_MIN_PROPS) && size < n->min_props) {
        rc = fail(c, path, "minProperties", "must have at least %llu properties",
                  (unsigned long long)n->min_props);
        if (rc || stop(c))
            return rc;
    }
    if ((n->flags & F_MAX_PROPS) && size > n->max_props)
        return fail(c, path, "maxProperties", "must have at most %llu properties",
                    (unsigned long long)n->max_props);
    return !((n->flags & F_MIN_PROPS) && size < n->min_props);
}

static int kv_uneval_props(struct vctx *c, const struct js_node *n, const cJSON *inst,
                           const struct js_path *path, struct ann *ann)
{
    size_t i = 0;
    int ok = 1;

    if (!n->uneval_props || !cJSON_IsObject(inst))
        return 1;
    for (const cJSON *m = inst->child; m; m = m->next, i++) {
        struct js_path sub = {path, m->string, 0};
        int rc;
        if (ann_has(ann, i))
            continue;
        if (n->uneval_props->kind == JS_FALSE)
            rc = fail(c, path, "unevaluatedProperties", "property \"%.200s\" is not allowed",
                      m->string);
        else
            rc = eval(c, n->uneval_props, m, &sub, NULL);
        if (rc < 0)
            return rc;
        ann_set(ann, i);
        if (rc == 0) {
            ok = 0;
            if (stop(c))
                break;
        }
    }
    return ok;
}

/* ------------------------------------------------------------------ evaluation */

/* Evaluation order: cheap assertions first (a quiet evaluation stops at the first failure,
 * which also keeps self-referencing schemas that fail early from recursing), then
 * applicators; unevaluated* come last: they see the annotations of everything before. */
static const kw_eval_fn kw_evals[] = {
    kv_type,       kv_const,    kv_enum,         kv_number,         kv_string,
    kv_array_size, kv_unique,   kv_object_size,  kv_required,       kv_dep_required,
    kv_items,      kv_contains, kv_properties,   kv_property_names, kv_dep_schemas,
    kv_ref,        kv_dyn_ref,  kv_all_of,       kv_any_of,         kv_one_of,
    kv_not,        kv_if,       kv_uneval_items, kv_uneval_props,
};

static bool uses(const struct js_node *n, kw_eval_fn fn)
{
    uint32_t f = n->flags;

    if (fn == kv_ref)
        return n->ref;
    if (fn == kv_dyn_ref)
        return n->dyn_ref;
    if (fn == kv_type)
        return f & F_TYPE;
    if (fn == kv_const)
        return f & F_CONST;
    if (fn == kv_enum)
        return f & F_ENUM;
    if (fn == kv_number)
        return f & (F_MULTIPLE_OF | F_MAXIMUM | F_EXCL_MAXIMUM | F_MINIMUM | F_EXCL_MINIMUM);
    if (fn == kv_string)
        return (f & (F_MIN_LENGTH | F_MAX_LENGTH)) || n->pattern;
    if (fn == kv_items)
        return n->prefix_items.n || n->items;
    if (fn == kv_contains)
        return n->contains;
    if (fn == kv_array_size)
        return f & (F_MIN_ITEMS | F_MAX_ITEMS);
    if (fn == kv_unique)
        return f & F_UNIQUE;
    if (fn == kv_properties)
        return n->nprops || n->npat_props || n->additional_props;
    if (fn == kv_property_names)
        return n->property_names;
    if (fn == kv_required)
        return n->nrequired;
    if (fn == kv_dep_required)
        return n->ndep_req;
    if (fn == kv_dep_schemas)
        return n->ndep_schemas;
    if (fn == kv_object_size)
        return f & (F_MIN_PROPS | F_MAX_PROPS);
    if (fn == kv_all_of)
        return n->all_of.n;
    if (fn == kv_any_of)
        return n->any_of.n;
    if (fn == kv_one_of)
        return n->one_of.n;
    if (fn == kv_not)
        return n->not_;
    if (fn == kv_if)
        return n->if_;
    if (fn == kv_uneval_items)
        return n->uneval_items;
    return fn == kv_uneval_props && n->uneval_props;
}

/* Keeps only the evaluators a node needs, so validation does not probe every keyword of
 * every schema it passes through. */
static void plan_node(struct js_node *n)
{
    _Static_assert(TE_ARRAY_LEN(kw_evals) <= MAX_PLAN, "MAX_PLAN must hold every evaluator");
    n->nplan = 0;
    for (size_t i = 0; i < TE_ARRAY_LEN(kw_evals); i++) {
        if (uses(n, kw_evals[i]))
            n->plan[n->nplan++] = kw_evals[i];
    }
}

static int eval_keywords(struct vctx *c, const struct js_node *n, const cJSON *inst,
                         const struct js_path *path, struct ann *ann)
{
    int ok = 1;
    for (size_t i = 0; i < n->nplan; i++) {
        int rc = n->plan[i](c, n, inst, path, ann);
        if (rc < 0)
            return rc;
        if (rc == 0) {
            ok = 0;
            if (stop(c))
                break;
        }
    }
    return ok;
}

/* ann: where the caller wants this schema's annotations, or NULL. */
static int eval(struct vctx *c, const struct js_node *n, const cJSON *inst,
                const struct js_path *path, struct ann *ann)
{
    struct ann local = {NULL, 0};
    bool pushed = false;
    int rc;

    if (n->kind == JS_TRUE)
        return 1;
    if (n->kind == JS_FALSE)
        return fail(c, path, "false", "no value is allowed here (schema is false)");
    if (c->depth >= c->s->max_depth)
        return abort_eval(c, path, "$ref",
                          "schema evaluation deeper than %u levels (recursive $ref?)",
                          c->s->max_depth);
    if (++c->evals > c->s->max_evals)
        return abort_eval(c, path, "$ref", "validation needs more than %llu schema evaluations",
                          (unsigned long long)c->s->max_evals);
    c->depth++;
    rc = scope_enter(c, n->res, &pushed);
    /* unevaluated* must only see annotations from this schema's own subtree */
    if (rc == 0 && (n->flags & F_UNEVAL))
        rc = ann_init(&local, inst);
    if (rc == 0)
        rc = eval_keywords(c, n, inst, path, (n->flags & F_UNEVAL) ? &local : ann);
    if (rc == 1 && (n->flags & F_UNEVAL))
        ann_merge(ann, &local);
    free(local.bits);
    if (pushed)
        c->nscope--;
    c->depth--;
    return rc;
}

int jsonschema_validate(const struct jsonschema *s, const cJSON *instance,
                        struct jsonschema_errors *errs)
{
    struct jsonschema_errors none = {NULL, 0, 0, false};
    struct vctx c;
    int rc;

    memset(&c, 0, sizeof(c));
    c.s = s;
    c.errs = errs ? errs : &none;
    c.quiet = errs ? 0 : 1;
    rc = eval(&c, s->root, instance, NULL, NULL);
    if (rc == E_ABORT && errs && push_error(errs, NULL, c.abort_kw, c.abort_msg) == 0) {
        free(errs->items[errs->count - 1].path);
        errs->items[errs->count - 1].path = c.abort_path;
        c.abort_path = NULL;
    }
    free(c.abort_path);
    free(c.scope);
    if (rc == JSONSCHEMA_ENOMEM)
        return rc;
    return rc == 1 ? 0 : JSONSCHEMA_EINVALID;
}

/* ------------------------------------------------------------------ error lists */

void jsonschema_errors_init(struct jsonschema_errors *e, size_t max)
{
    memset(e, 0, sizeof(*e));
    e->max = max;
}

void jsonschema_errors_free(struct jsonschema_errors *e)
{
    for (size_t i = 0; i < e->count; i++) {
        free(e->items[i].path);
        free(e->items[i].message);
    }
    free(e->items);
    e->items = NULL;
    e->count = 0;
    e->truncated = false;
}

cJSON *jsonschema_errors_to_json(const struct jsonschema_errors *e)
{
    cJSON *arr = cJSON_CreateArray();

    for (size_t i = 0; arr && i < e->count; i++) {
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(arr, o)) {
            cJSON_Delete(o);
            goto fail;
        }
        if (!cJSON_AddStringToObject(o, "path", e->items[i].path) ||
            !cJSON_AddStringToObject(o, "keyword", e->items[i].keyword) ||
            !cJSON_AddStringToObject(o, "message", e->items[i].message))
            goto fail;
    }
    return arr;
fail:
    cJSON_Delete(arr);
    return NULL;
}
