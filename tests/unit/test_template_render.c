/*
 * domain/template rendering and redaction: tables of template + variables ->
 * rendered JSON or error, plain strings, the secret callback as the record of
 * secrets used, and text + secrets -> redacted text.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/buf.h"
#include "domain/template.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define UNRESOLVABLE(v) "unresolvable template variable " v

static cJSON *parse(const char *text)
{
    cJSON *v = cJSON_Parse(text);
    if (!v)
        fail_msg("bad test JSON: %s", text);
    return v;
}

static char *print(const cJSON *v)
{
    char *s = cJSON_PrintUnformatted(v);
    assert_non_null(s);
    return s;
}

/* ---- secrets: a fixed store whose lookups are recorded ---- */

static const struct {
    const char *name, *value;
} store[] = {
    {"token", "s3cr3t"},
    {"quote", "p\"w\\"},
    {"braces", "{{input.n}}"},
    {"db-pass", "hunter2"},
};

struct lookups {
    struct buf names; /* "token;quote;" */
    const char *used[16];
    int nused;
};

static const char *lookup(void *arg, const char *name, size_t len)
{
    struct lookups *l = arg;
    if (l && buf_printf(&l->names, "%.*s;", (int)len, name) < 0)
        fail_msg("out of memory");
    for (size_t i = 0; i < N_ELEMS(store); i++) {
        if (strlen(store[i].name) == len && memcmp(store[i].name, name, len) == 0) {
            if (l && l->nused < (int)N_ELEMS(l->used))
                l->used[l->nused++] = store[i].value;
            return store[i].value;
        }
    }
    return NULL;
}

static const char *input_doc =
    "{\"n\":42,\"f\":1.5,\"neg\":-7,\"b\":true,\"no\":false,\"z\":null,\"s\":\"hi\","
    "\"e\":\"\",\"o\":{\"a\":[1,2]},\"arr\":[10,\"x\"],"
    "\"user\":{\"name\":\"Ann\",\"tags\":[\"a\",\"b\"],\"addr\":{\"city\":\"Oslo\"}},"
    "\"items\":[{\"id\":\"i0\"},{\"id\":\"i1\",\"qty\":3}],\"m\":[[1,2],[3,4]],"
    "\"num_keys\":{\"0\":\"zero\",\"01\":\"zero-one\"},"
    "\"evil\":\"{{secret.token}}\",\"evil2\":\"x {{config.host}} {{input.n}}\","
    "\"nested_evil\":{\"k\":\"{{secret.token}}\"}}";

static const char *config_doc = "{\"host\":\"api.example.com\",\"port\":8443,\"retry\":{\"max\":3},"
                                "\"mirror\":\"{{input.n}}\",\"peek\":\"{{secret.token}}\"}";

/* ---- template_render ---- */

struct render_case {
    const char *tpl;
    const char *want;  /* rendered, compact JSON; NULL: error */
    const char *err;   /* the message when want is NULL */
    const char *looks; /* the secret names looked up, in order ("" when none) */
};

static const struct render_case render_cases[] = {
    /* a string that is exactly one placeholder keeps the value's type */
    {"\"{{input.n}}\"", "42", NULL, ""},
    {"\"{{input.f}}\"", "1.5", NULL, ""},
    {"\"{{input.neg}}\"", "-7", NULL, ""},
    {"\"{{input.b}}\"", "true", NULL, ""},
    {"\"{{input.no}}\"", "false", NULL, ""},
    {"\"{{input.z}}\"", "null", NULL, ""},
    {"\"{{input.s}}\"", "\"hi\"", NULL, ""},
    {"\"{{input.e}}\"", "\"\"", NULL, ""},
    {"\"{{input.o}}\"", "{\"a\":[1,2]}", NULL, ""},
    {"\"{{input.arr}}\"", "[10,\"x\"]", NULL, ""},
    {"\"{{ input.n }}\"", "42", NULL, ""},
    {"\"{{config.port}}\"", "8443", NULL, ""},
    {"\"{{config.retry}}\"", "{\"max\":3}", NULL, ""},
    {"\"{{secret.token}}\"", "\"s3cr3t\"", NULL, "token;"},
    {"[\"{{input.n}}\",\"{{input.o}}\"]", "[42,{\"a\":[1,2]}]", NULL, ""},
    /* anything around the placeholder makes it a string */
    {"\" {{input.n}}\"", "\" 42\"", NULL, ""},
    {"\"{{input.n}} \"", "\"42 \"", NULL, ""},
    {"\"{{input.n}}{{input.n}}\"", "\"4242\"", NULL, ""},
    {"\"n={{input.n}} f={{input.f}} b={{input.b}} z={{input.z}} s={{input.s}}\"",
     "\"n=42 f=1.5 b=true z=null s=hi\"", NULL, ""},
    {"\"o={{input.o}} a={{input.arr}} e=[{{input.e}}]\"",
     "\"o={\\\"a\\\":[1,2]} a=[10,\\\"x\\\"] e=[]\"", NULL, ""},
    {"\"Bearer {{secret.token}}\"", "\"Bearer s3cr3t\"", NULL, "token;"},
    {"\"https://{{config.host}}:{{config.port}}/u/{{input.user.name}}\"",
     "\"https://api.example.com:8443/u/Ann\"", NULL, ""},
    /* nested paths and array indexes */
    {"\"{{input.user.name}}\"", "\"Ann\"", NULL, ""},
    {"\"{{input.user.addr.city}}\"", "\"Oslo\"", NULL, ""},
    {"\"{{input.user.tags.1}}\"", "\"b\"", NULL, ""},
    {"\"{{input.items.0.id}}\"", "\"i0\"", NULL, ""},
    {"\"{{input.items.1.qty}}\"", "3", NULL, ""},
    {"\"{{input.items.1}}\"", "{\"id\":\"i1\",\"qty\":3}", NULL, ""},
    {"\"{{input.m.1.0}}\"", "3", NULL, ""},
    {"\"{{input.arr.0}}-{{input.arr.1}}\"", "\"10-x\"", NULL, ""},
    {"\"{{input.num_keys.0}}\"", "\"zero\"", NULL, ""}, /* digits are a name in an object */
    {"\"{{input.num_keys.01}}\"", "\"zero-one\"", NULL, ""},
    /* the tree: keys untouched, other scalars copied, every string rendered */
    {"{\"{{input.n}}\":\"{{input.n}}\",\"k\":[1,2.5,true,null,\"x{{input.s}}\",{\"d\":\"{{input.b}}"
     "\"}]}",
     "{\"{{input.n}}\":42,\"k\":[1,2.5,true,null,\"xhi\",{\"d\":true}]}", NULL, ""},
    {"{\"a\":1,\"a\":\"{{input.s}}\"}", "{\"a\":1,\"a\":\"hi\"}", NULL, ""},
    {"{}", "{}", NULL, ""},
    {"[]", "[]", NULL, ""},
    {"7", "7", NULL, ""},
    {"null", "null", NULL, ""},
    {"\"no placeholders { } {x} }}\"", "\"no placeholders { } {x} }}\"", NULL, ""},
    {"{\"method\":\"POST\",\"url\":\"https://{{config.host}}/v1/{{input.user.name}}\","
     "\"headers\":{\"Authorization\":\"Bearer {{secret.token}}\",\"X-Db\":\"{{secret.db-pass}}\"},"
     "\"body\":{\"user\":\"{{input.user}}\",\"qty\":\"{{input.items.1.qty}}\"}}",
     "{\"method\":\"POST\",\"url\":\"https://api.example.com/v1/Ann\","
     "\"headers\":{\"Authorization\":\"Bearer s3cr3t\",\"X-Db\":\"hunter2\"},"
     "\"body\":{\"user\":{\"name\":\"Ann\",\"tags\":[\"a\",\"b\"],\"addr\":{\"city\":\"Oslo\"}},"
     "\"qty\":3}}",
     NULL, "token;db-pass;"},
    /* substituted values are never expanded again */
    {"\"{{input.evil}}\"", "\"{{secret.token}}\"", NULL, ""},
    {"\"a {{input.evil}} b\"", "\"a {{secret.token}} b\"", NULL, ""},
    {"\"{{input.evil2}}\"", "\"x {{config.host}} {{input.n}}\"", NULL, ""},
    {"\"{{input.nested_evil}}\"", "{\"k\":\"{{secret.token}}\"}", NULL, ""},
    {"\"{{config.mirror}}/{{config.peek}}\"", "\"{{input.n}}/{{secret.token}}\"", NULL, ""},
    {"\"{{secret.braces}}\"", "\"{{input.n}}\"", NULL, "braces;"},
    {"\"<{{secret.braces}}>\"", "\"<{{input.n}}>\"", NULL, "braces;"},
    /* unresolvable variables */
    {"\"{{input.missing}}\"", NULL, UNRESOLVABLE("{{input.missing}}"), ""},
    {"\"{{input.user.nme}}\"", NULL, UNRESOLVABLE("{{input.user.nme}}"), ""},
    {"\"x {{ input.user.name.first }} y\"", NULL, UNRESOLVABLE("{{input.user.name.first}}"), ""},
    {"\"{{input.n.x}}\"", NULL, UNRESOLVABLE("{{input.n.x}}"), ""},
    {"\"{{input.z.x}}\"", NULL, UNRESOLVABLE("{{input.z.x}}"), ""},
    {"\"{{input.items.2}}\"", NULL, UNRESOLVABLE("{{input.items.2}}"), ""},
    {"\"{{input.items.01}}\"", NULL, UNRESOLVABLE("{{input.items.01}}"), ""},
    {"\"{{input.items.x}}\"", NULL, UNRESOLVABLE("{{input.items.x}}"), ""},
    {"\"{{input.items.99999999999}}\"", NULL, UNRESOLVABLE("{{input.items.99999999999}}"), ""},
    {"\"{{input.User}}\"", NULL, UNRESOLVABLE("{{input.User}}"), ""},
    {"\"{{config.nope}}\"", NULL, UNRESOLVABLE("{{config.nope}}"), ""},
    {"\"{{secret.nope}}\"", NULL, UNRESOLVABLE("{{secret.nope}}"), "nope;"},
    {"\"{{secret.token.x}}\"", NULL, UNRESOLVABLE("{{secret.token.x}}"), "token.x;"},
    {"{\"a\":[\"ok {{input.n}}\",{\"b\":\"{{input.gone}}\"}]}", NULL,
     UNRESOLVABLE("{{input.gone}}"), ""},
    /* config and secrets resolve before input: their failure is the one reported */
    {"\"{{input.missing}} {{config.nope}}\"", NULL, UNRESOLVABLE("{{config.nope}}"), ""},
    {"\"{{input.missing}} {{secret.nope}}\"", NULL, UNRESOLVABLE("{{secret.nope}}"), "nope;"},
    {"\"{{input.n}} {{secret.token}} {{input.gone}} {{config.host}}\"", NULL,
     UNRESOLVABLE("{{input.gone}}"), "token;"},
    /* malformed placeholders (caught at registration; still refused here) */
    {"\"{{inptu.x}}\"", NULL,
     "malformed placeholder at character 1 (expected {{input.x}}, {{config.x}} or {{secret.x}})",
     ""},
};

static void check_render(const struct render_case *c, const struct template_vars *vars,
                         struct lookups *l)
{
    cJSON *tpl = parse(c->tpl), *out = (cJSON *)1;
    char err[200] = "";
    int rc = template_render(tpl, vars, &out, err, sizeof(err));
    if (c->want) {
        if (rc != 0)
            fail_msg("%s: rc %d: %s", c->tpl, rc, err);
        char *got = print(out);
        if (strcmp(got, c->want) != 0)
            fail_msg("%s: got %s, want %s", c->tpl, got, c->want);
        cJSON_free(got);
        cJSON_Delete(out);
    } else if (rc != TEMPLATE_EINVAL || strcmp(err, c->err) != 0) {
        fail_msg("%s: rc %d err '%s', want '%s'", c->tpl, rc, err, c->err);
    }
    if (strcmp(l->names.data, c->looks) != 0)
        fail_msg("%s: secrets looked up '%s', want '%s'", c->tpl, l->names.data, c->looks);
    cJSON_Delete(tpl);
}

static void test_render_table(void **state)
{
    (void)state;
    cJSON *input = parse(input_doc), *config = parse(config_doc);
    for (size_t i = 0; i < N_ELEMS(render_cases); i++) {
        struct lookups l = {.names = BUF_INIT};
        assert_int_equal(buf_puts(&l.names, ""), 0);
        struct template_vars vars = {input, config, lookup, &l};
        check_render(&render_cases[i], &vars, &l);
        buf_free(&l.names);
    }
    cJSON_Delete(input);
    cJSON_Delete(config);
}

/* Without a source, every placeholder of that namespace is unresolvable. */
static void test_render_missing_sources(void **state)
{
    (void)state;
    static const struct {
        const char *tpl, *err;
    } cases[] = {
        {"\"{{input.n}}\"", UNRESOLVABLE("{{input.n}}")},
        {"\"{{config.host}}\"", UNRESOLVABLE("{{config.host}}")},
        {"\"x{{secret.token}}\"", UNRESOLVABLE("{{secret.token}}")},
    };
    struct template_vars none = {NULL, NULL, NULL, NULL};
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        cJSON *tpl = parse(cases[i].tpl), *out = NULL;
        char err[200] = "";
        assert_int_equal(template_render(tpl, &none, &out, err, sizeof(err)), TEMPLATE_EINVAL);
        assert_string_equal(err, cases[i].err);
        assert_null(out);
        cJSON_Delete(tpl);
    }
    cJSON *tpl = parse("{\"a\":[\"plain\",1]}"), *out = NULL;
    char err[200];
    assert_int_equal(template_render(tpl, &none, &out, err, sizeof(err)), 0);
    char *got = print(out);
    assert_string_equal(got, "{\"a\":[\"plain\",1]}");
    cJSON_free(got);
    cJSON_Delete(out);
    cJSON_Delete(tpl);
}

/* The output is a deep copy: it outlives the template and the variables. */
static void test_render_deep_copy(void **state)
{
    (void)state;
    cJSON *input = parse(input_doc), *config = parse(config_doc);
    cJSON *tpl = parse("{\"u\":\"{{input.user}}\",\"k\":[\"{{config.retry}}\"]}"), *out = NULL;
    struct template_vars vars = {input, config, lookup, NULL};
    char err[200];
    assert_int_equal(template_render(tpl, &vars, &out, err, sizeof(err)), 0);
    cJSON_Delete(input);
    cJSON_Delete(config);
    cJSON_Delete(tpl);
    char *got = print(out);
    assert_string_equal(got, "{\"u\":{\"name\":\"Ann\",\"tags\":[\"a\",\"b\"],"
                             "\"addr\":{\"city\":\"Oslo\"}},\"k\":[{\"max\":3}]}");
    /* an array element taken from an object member carries no member name */
    assert_null(cJSON_GetArrayItem(cJSON_GetObjectItem(out, "k"), 0)->string);
    cJSON_free(got);
    cJSON_Delete(out);
}

/* The callback is the caller's record of the secrets that went into the request. */
static void test_render_records_secrets(void **state)
{
    (void)state;
    cJSON *tpl = parse("{\"h\":\"Bearer {{secret.token}}\",\"p\":\"{{secret.quote}}\","
                       "\"again\":\"{{secret.token}}\",\"n\":\"{{input.n}}\"}");
    cJSON *input = parse(input_doc), *out = NULL;
    struct lookups l = {.names = BUF_INIT};
    struct template_vars vars = {input, NULL, lookup, &l};
    char err[200];
    assert_int_equal(template_render(tpl, &vars, &out, err, sizeof(err)), 0);
    assert_int_equal(l.nused, 3);
    assert_string_equal(l.used[0], "s3cr3t");
    assert_string_equal(l.used[1], "p\"w\\");

    /* what was recorded is what redaction needs for the printed request */
    char *printed = print(out);
    struct buf red = BUF_INIT;
    assert_int_equal(template_redact(printed, strlen(printed), l.used, l.nused, &red), 0);
    assert_string_equal(red.data,
                        "{\"h\":\"Bearer ***\",\"p\":\"***\",\"again\":\"***\",\"n\":42}");
    buf_free(&red);
    cJSON_free(printed);
    buf_free(&l.names);
    cJSON_Delete(out);
    cJSON_Delete(input);
    cJSON_Delete(tpl);
}

/* ---- template_render_string ---- */

static void test_render_string(void **state)
{
    (void)state;
    static const struct {
        const char *s, *want, *err;
    } cases[] = {
        {"", "", NULL},
        {"plain", "plain", NULL},
        {"{{input.n}}", "42", NULL}, /* always text, even when alone */
        {"{{input.z}}", "null", NULL},
        {"{{input.o}}", "{\"a\":[1,2]}", NULL},
        {"{{input.s}}", "hi", NULL},
        {"{{secret.quote}}", "p\"w\\", NULL},
        {"orders-{{config.retry.max}}-{{input.items.0.id}}", "orders-3-i0", NULL},
        {"https://{{config.host}}/{{input.evil}}", "https://api.example.com/{{secret.token}}",
         NULL},
        {"k-{{input.nope}}", NULL, UNRESOLVABLE("{{input.nope}}")},
        {"{{input.nope}}{{secret.nope}}", NULL, UNRESOLVABLE("{{secret.nope}}")},
        {"{{bad}}", NULL,
         "malformed placeholder at character 1 (expected {{input.x}}, {{config.x}} or "
         "{{secret.x}})"},
    };
    cJSON *input = parse(input_doc), *config = parse(config_doc);
    struct template_vars vars = {input, config, lookup, NULL};
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        struct buf out = BUF_INIT;
        assert_int_equal(buf_puts(&out, "pre:"), 0); /* appends, and keeps it on failure */
        char err[200] = "";
        int rc = template_render_string(cases[i].s, &vars, &out, err, sizeof(err));
        if (cases[i].want) {
            if (rc != 0)
                fail_msg("'%s': rc %d: %s", cases[i].s, rc, err);
            if (strncmp(out.data, "pre:", 4) != 0 || strcmp(out.data + 4, cases[i].want) != 0)
                fail_msg("'%s': got '%s', want 'pre:%s'", cases[i].s, out.data, cases[i].want);
        } else {
            if (rc != TEMPLATE_EINVAL || strcmp(err, cases[i].err) != 0)
                fail_msg("'%s': rc %d err '%s', want '%s'", cases[i].s, rc, err, cases[i].err);
            assert_string_equal(out.data, "pre:");
            assert_int_equal(out.len, 4);
        }
        buf_free(&out);
    }
    cJSON_Delete(input);
    cJSON_Delete(config);
}

/* A failure after part of the string was resolved leaves an empty buffer untouched too. */
static void test_render_string_many(void **state)
{
    (void)state;
    cJSON *input = parse(input_doc);
    struct template_vars vars = {input, NULL, NULL, NULL};
    struct buf tpl = BUF_INIT, out = BUF_INIT, want = BUF_INIT;
    for (int i = 0; i < 50; i++) { /* more placeholders than the first allocation holds */
        assert_int_equal(buf_printf(&tpl, "[{{input.arr.%d}}]", i % 2), 0);
        assert_int_equal(buf_puts(&want, i % 2 ? "[x]" : "[10]"), 0);
    }
    char err[200];
    assert_int_equal(template_render_string(tpl.data, &vars, &out, err, sizeof(err)), 0);
    assert_string_equal(out.data, want.data);
    buf_free(&out);
    assert_int_equal(buf_puts(&tpl, "{{input.arr.2}}"), 0);
    assert_int_equal(template_render_string(tpl.data, &vars, &out, err, sizeof(err)),
                     TEMPLATE_EINVAL);
    assert_string_equal(err, UNRESOLVABLE("{{input.arr.2}}"));
    assert_int_equal(out.len, 0);
    buf_free(&out);
    buf_free(&tpl);
    buf_free(&want);
    cJSON_Delete(input);
}

/* ---- template_redact ---- */

struct redact_case {
    const char *text;
    const char *secrets[4]; /* up to the first NULL... */
    int n;                  /* ...or exactly n entries, NULLs included, when n > 0 */
    const char *want;
};

static const struct redact_case redact_cases[] = {
    {"", {"s3cr3t"}, 0, ""},
    {"nothing here", {"s3cr3t"}, 0, "nothing here"},
    {"Authorization: Bearer s3cr3t", {"s3cr3t"}, 0, "Authorization: Bearer ***"},
    {"s3cr3t", {"s3cr3t"}, 0, "***"},
    {"s3cr3t and s3cr3t.", {"s3cr3t"}, 0, "*** and ***."},
    {"s3cr3 s3cr3t3", {"s3cr3t"}, 0, "s3cr3 ***3"},
    {"no secrets given", {NULL}, 0, "no secrets given"},
    {"skip empty and NULL", {"", NULL, "NULL"}, 3, "skip empty and ***"},
    /* longest first, overlapping and touching occurrences hidden together */
    {"xabcdefx", {"abc", "abcdef"}, 0, "x***x"},
    {"xabcdefx", {"abcdef", "abc"}, 0, "x***x"},
    {"xabcdex", {"abc", "cde"}, 0, "x***x"},
    {"xabcdex", {"cde", "abc"}, 0, "x***x"},
    {"abcdef", {"abc", "def"}, 0, "***"},
    {"abc-def", {"abc", "def"}, 0, "***-***"},
    {"aaaa", {"aa"}, 0, "***"},
    {"aaa", {"aa"}, 0, "***"},
    {"banana", {"a"}, 0, "b***n***n***"},
    {"hunter2 s3cr3t", {"hunter2", "s3cr3t"}, 0, "*** ***"},
    /* JSON-escaped forms */
    {"{\"password\":\"p\\\"w\\\\\"}", {"p\"w\\"}, 0, "{\"password\":\"***\"}"},
    {"raw p\"w\\ in a log line", {"p\"w\\"}, 0, "raw *** in a log line"},
    {"p\\u0022w\\u005C and p\\u0022w\\\\", {"p\"w\\"}, 0, "*** and ***"},
    {"{\"k\":\"a\\/b\"} a/b", {"a/b"}, 0, "{\"k\":\"***\"} ***"},
    {"\"l1\\nl2\\tend\"", {"l1\nl2\tend"}, 0, "\"***\""},
    {"\"x\\u0001y\" \"x\\u0001Y\"", {"x\001y"}, 0, "\"***\" \"x\\u0001Y\""},
    {"\"b\\b\\f\\r\"", {"b\b\f\r"}, 0, "\"***\""},
    {"\"p\\u00e4\" \"p\\u00E4\" \"p\xc3\xa4\"", {"p\xc3\xa4"}, 0, "\"***\" \"***\" \"***\""},
    {"\"a\\ud83d\\ude00\" a\xf0\x9f\x98\x80", {"a\xf0\x9f\x98\x80"}, 0, "\"***\" ***"},
    {"\"a\\ud83d\" \"a\\ud83dx\"", {"a\xf0\x9f\x98\x80"}, 0, "\"a\\ud83d\" \"a\\ud83dx\""},
    {"\\u0073\\u0033cr3t", {"s3cr3t"}, 0, "***"},
    /* a backslash of the secret: raw, or escaped as JSON, not half of each */
    {"C:\\dir C:\\\\dir", {"C:\\dir"}, 0, "*** ***"},
    {"\"\\\\n\" and \\n", {"\\n"}, 0, "\"***\" and ***"},
    {"\\\\\\", {"\\\\"}, 0, "***"},
    /* partial escapes and other bytes are not matches */
    {"p\\u002w", {"p\"w"}, 0, "p\\u002w"},
    {"p\\x22w p\\", {"p\"w"}, 0, "p\\x22w p\\"},
    /* bytes that are not UTF-8 match only themselves */
    {"x\xff\xfe y\\u00ff", {"\xff\xfe"}, 0, "x*** y\\u00ff"},
};

static void test_redact_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(redact_cases); i++) {
        const struct redact_case *c = &redact_cases[i];
        int n = c->n;
        if (n == 0) {
            while (n < 4 && c->secrets[n])
                n++;
        }
        struct buf out = BUF_INIT;
        assert_int_equal(buf_puts(&out, "<"), 0);
        assert_int_equal(template_redact(c->text, strlen(c->text), c->secrets, n, &out), 0);
        if (strcmp(out.data + 1, c->want) != 0 || out.data[0] != '<')
            fail_msg("case %zu '%s': got '%s', want '<%s'", i, c->text, out.data, c->want);
        buf_free(&out);
    }
}

/* The text is a byte range: NULs inside are kept, nothing past len is read. */
static void test_redact_len(void **state)
{
    (void)state;
    const char *secrets[] = {"s3cr3t"};
    static const char text[] = "a\0s3cr3t|s3cr3t";
    struct buf out = BUF_INIT;
    assert_int_equal(template_redact(text, 9, secrets, 1, &out), 0);
    assert_int_equal(out.len, 6);
    assert_memory_equal(out.data, "a\0***|", 6);
    buf_reset(&out);
    char *cut = malloc(5);
    assert_non_null(cut);
    memcpy(cut, "s3cr3", 5); /* a prefix of the secret at the very end */
    assert_int_equal(template_redact(cut, 5, secrets, 1, &out), 0);
    assert_string_equal(out.data, "s3cr3");
    free(cut);
    buf_reset(&out);
    assert_int_equal(template_redact("", 0, secrets, 1, &out), 0);
    assert_int_equal(out.len, 0);
    buf_free(&out);
}

/* Redacting a whole printed document: the secret inside a JSON string value. */
static void test_redact_printed_json(void **state)
{
    (void)state;
    static const char *const secrets[] = {"a\"b\\c\nd/\xc3\xa9", "tok"};
    cJSON *doc = cJSON_CreateObject();
    assert_non_null(cJSON_AddStringToObject(doc, "echo", secrets[0]));
    assert_non_null(cJSON_AddStringToObject(doc, "err", "bad tok: tok"));
    char *printed = print(doc);
    struct buf out = BUF_INIT;
    assert_int_equal(template_redact(printed, strlen(printed), secrets, 2, &out), 0);
    assert_string_equal(out.data, "{\"echo\":\"***\",\"err\":\"bad ***: ***\"}");
    buf_free(&out);
    cJSON_free(printed);
    cJSON_Delete(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_render_table),        cmocka_unit_test(test_render_missing_sources),
        cmocka_unit_test(test_render_deep_copy),    cmocka_unit_test(test_render_records_secrets),
        cmocka_unit_test(test_render_string),       cmocka_unit_test(test_render_string_many),
        cmocka_unit_test(test_redact_table),        cmocka_unit_test(test_redact_len),
        cmocka_unit_test(test_redact_printed_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
