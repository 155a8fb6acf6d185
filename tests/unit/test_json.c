/*
 * core/json: parsing whole documents (trailing data, error offsets), field
 * checking (unknown, wrong type, missing, null, duplicates, `where`),
 * integers, type names, printing and lookup.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static cJSON *parse_ok(const char *text)
{
    cJSON *v = NULL;
    char err[128] = "";
    if (json_parse(text, strlen(text), &v, err, sizeof(err)) != 0)
        fail_msg("json_parse(%s): %s", text, err);
    assert_non_null(v);
    return v;
}

/* ---- json_parse ---- */

struct parse_case {
    const char *text;
    int rc;
    const char *err; /* exact message when rc != 0; NULL: any "malformed JSON" message */
};

static const struct parse_case parse_cases[] = {
    {"{}", 0, NULL},
    {"[]", 0, NULL},
    {"null", 0, NULL},
    {"0", 0, NULL},
    {"\"s\"", 0, NULL},
    {"  {\"a\":[1,2,{\"b\":null}]}  ", 0, NULL},
    {"{\"a\":1}\n\t\r ", 0, NULL},
    {"", -1, "malformed JSON at byte 0"},
    {"   ", -1, NULL},
    {"{", -1, NULL},
    {"tru", -1, "malformed JSON at byte 0"},
    {"{\"a\":}", -1, "malformed JSON at byte 5"},
    {"[1,2,]", -1, "malformed JSON at byte 5"},
    {"{\"a\":1,}", -1, "malformed JSON at byte 7"},
    {"  [1,  x]", -1, "malformed JSON at byte 7"},
    {"{\"a\" 1}", -1, "malformed JSON at byte 5"},
    /* trailing garbage after a complete value */
    {"{\"a\":1} x", -1, "malformed JSON: unexpected data at byte 8"},
    {"{\"a\":1}{}", -1, "malformed JSON: unexpected data at byte 7"},
    {"1 2", -1, "malformed JSON: unexpected data at byte 2"},
    {"[1] ]", -1, "malformed JSON: unexpected data at byte 4"},
    {"true,", -1, "malformed JSON: unexpected data at byte 4"},
    {"null\n\n#", -1, "malformed JSON: unexpected data at byte 6"},
    {"\"x\"\x0b", -1, "malformed JSON: unexpected data at byte 3"},
    /* NUL characters in strings are refused (C strings would cut them short) */
    {"{\"a\":\"x\\u0000y\"}", -1,
     "JSON strings must not contain NUL (\\u0000) characters (byte 7)"},
    {"{\"a\\u0000\":1}", -1, "JSON strings must not contain NUL (\\u0000) characters (byte 3)"},
    {"[\"\\\\u0000\"]", 0, NULL}, /* an escaped backslash, then text "u0000" */
    {"[\"\\\\\\u0000\"]", -1, "JSON strings must not contain NUL (\\u0000) characters (byte 4)"},
    {"[\"\\u0001\\u00000\"]", -1,
     "JSON strings must not contain NUL (\\u0000) characters (byte 8)"},
    {"[\"\\u00001\"]", -1, "JSON strings must not contain NUL (\\u0000) characters (byte 2)"},
    {"[\"\\u1000\\u0100\"]", 0, NULL},
};

static void test_parse_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(parse_cases); i++) {
        const struct parse_case *c = &parse_cases[i];
        cJSON *v = NULL;
        char err[128] = "";
        int rc = json_parse(c->text, strlen(c->text), &v, err, sizeof(err));
        if (rc != c->rc)
            fail_msg("case %zu '%s': rc %d, want %d (%s)", i, c->text, rc, c->rc, err);
        if (rc == 0) {
            assert_non_null(v);
            cJSON_Delete(v);
            continue;
        }
        assert_null(v);
        if (c->err && strcmp(err, c->err) != 0)
            fail_msg("case %zu '%s': err '%s', want '%s'", i, c->text, err, c->err);
        if (!c->err && strncmp(err, "malformed JSON", 14) != 0)
            fail_msg("case %zu '%s': err '%s'", i, c->text, err);
    }
}

static void test_parse_uses_len_not_nul(void **state)
{
    (void)state;
    cJSON *v = NULL;
    char err[128];
    /* bytes after len are not looked at */
    assert_int_equal(json_parse("[1,2]xyz", 5, &v, err, sizeof(err)), 0);
    assert_int_equal(cJSON_GetArraySize(v), 2);
    cJSON_Delete(v);
    /* a NUL byte inside len after the value is trailing data */
    v = NULL;
    assert_int_equal(json_parse("{\"a\":1}\0x", 9, &v, err, sizeof(err)), -1);
    assert_string_equal(err, "malformed JSON: unexpected data at byte 7");
    assert_null(v);
    /* a document cut short by len */
    assert_int_equal(json_parse("[1,2]", 4, &v, err, sizeof(err)), -1);
    assert_null(v);
}

static void test_parse_error_truncated_to_errlen(void **state)
{
    (void)state;
    cJSON *v = NULL;
    char err[8];
    memset(err, 'X', sizeof(err));
    assert_int_equal(json_parse("{\"a\":1} x", 9, &v, err, sizeof(err)), -1);
    assert_string_equal(err, "malform");
}

static void test_parse_deep_and_big(void **state)
{
    (void)state;
    /* 100 nested arrays and a long string */
    struct buf b = BUF_INIT;
    for (int i = 0; i < 100; i++)
        assert_int_equal(buf_putc(&b, '['), 0);
    for (int i = 0; i < 100; i++)
        assert_int_equal(buf_putc(&b, ']'), 0);
    cJSON *v = parse_ok(b.data);
    cJSON_Delete(v);
    buf_reset(&b);
    assert_int_equal(buf_putc(&b, '"'), 0);
    for (int i = 0; i < 100000; i++)
        assert_int_equal(buf_putc(&b, 'a'), 0);
    assert_int_equal(buf_putc(&b, '"'), 0);
    v = parse_ok(b.data);
    assert_int_equal(strlen(v->valuestring), 100000);
    cJSON_Delete(v);
    buf_free(&b);
}

/* ---- json_is_int / json_type_of / json_type_name ---- */

struct int_case {
    const char *text;
    bool is_int;
};

static const struct int_case int_cases[] = {
    {"1", true},
    {"1.0", true},
    {"1.5", false},
    {"0", true},
    {"-0", true},
    {"-17", true},
    {"1e2", true},
    {"0.1", false},
    {"-2.5", false},
    {"9007199254740991", true},  /* 2^53 - 1 */
    {"9007199254740992", true},  /* 2^53 */
    {"-9007199254740992", true}, /* -2^53 */
    {"1e300", false},
    {"-1e300", false},
    {"1e-300", false},
    {"\"1\"", false},
    {"true", false},
    {"null", false},
    {"[1]", false},
    {"{}", false},
};

static void test_is_int_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(int_cases); i++) {
        cJSON *v = parse_ok(int_cases[i].text);
        if (json_is_int(v) != int_cases[i].is_int)
            fail_msg("json_is_int(%s) = %d", int_cases[i].text, !int_cases[i].is_int);
        unsigned t = json_type_of(v);
        if (cJSON_IsNumber(v))
            assert_int_equal(t, int_cases[i].is_int ? (JT_INT | JT_NUMBER) : JT_NUMBER);
        cJSON_Delete(v);
    }
    assert_false(json_is_int(NULL));
}

static void test_type_of(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        unsigned type;
    } cases[] = {
        {"null", JT_NULL},   {"true", JT_BOOL},   {"false", JT_BOOL}, {"3", JT_INT | JT_NUMBER},
        {"3.25", JT_NUMBER}, {"\"\"", JT_STRING}, {"[]", JT_ARRAY},   {"{}", JT_OBJECT},
    };
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        cJSON *v = parse_ok(cases[i].text);
        assert_int_equal(json_type_of(v), cases[i].type);
        cJSON_Delete(v);
    }
}

static void test_type_name(void **state)
{
    (void)state;
    static const struct {
        unsigned types;
        const char *name;
    } cases[] = {
        {JT_BOOL, "a boolean"},
        {JT_INT, "an integer"},
        {JT_NUMBER, "a number"},
        {JT_NUMBER | JT_INT, "a number"},
        {JT_STRING, "a string"},
        {JT_STRING | JT_NULL, "a string"},
        {JT_ARRAY, "an array"},
        {JT_OBJECT, "an object"},
        {JT_STRING | JT_INT, "a string or an integer"},
        {JT_OBJECT | JT_BOOL, "an object or a boolean"},
        {JT_OBJECT | JT_ARRAY, "an object or an array"},
        {JT_ANY, "a value other than null"},
        {JT_ANY & ~(unsigned)JT_NULL, "a value other than null"},
        {JT_STRING | JT_ARRAY, "a JSON value of another type"},
    };
    for (size_t i = 0; i < N_ELEMS(cases); i++)
        assert_string_equal(json_type_name(cases[i].types), cases[i].name);
}

/* ---- json_check_fields ---- */

static const struct json_field fields[] = {
    {"name", JT_STRING, true},
    {"count", JT_INT, false},
    {"ratio", JT_NUMBER, false},
    {"enabled", JT_BOOL, false},
    {"tags", JT_ARRAY, false},
    {"meta", JT_OBJECT, false},
    {"limit", JT_STRING | JT_INT, false},
    {"anything", JT_ANY, false},
    {"doc", JT_OBJECT | JT_ARRAY, false},
    {"value", JT_ANY & ~(unsigned)JT_NULL, false},
};

struct check_case {
    const char *text;
    const char *where;
    const char *err; /* NULL: accepted */
};

static const struct check_case check_cases[] = {
    {"{\"name\":\"a\"}", "", NULL},
    {"{\"name\":\"\"}", "", NULL},
    {"{\"name\":\"a\",\"count\":3,\"ratio\":0.5,\"enabled\":false,\"tags\":[],\"meta\":{},"
     "\"limit\":\"{{config.x}}\",\"anything\":[1]}",
     "", NULL},
    {"{\"name\":\"a\",\"ratio\":2}", "", NULL},
    {"{\"name\":\"a\",\"limit\":5}", "", NULL},
    {"{\"name\":\"a\",\"count\":9007199254740992}", "", NULL},
    {"{\"name\":\"a\",\"anything\":\"s\"}", "", NULL},
    {"{\"name\":\"a\",\"anything\":{}}", "", NULL},
    /* null for an optional field is "absent" */
    {"{\"name\":\"a\",\"count\":null,\"tags\":null,\"anything\":null}", "", NULL},
    /* unknown fields are named, with the prefix */
    {"{\"name\":\"a\",\"x\":1}", "", "unknown field 'x'"},
    {"{\"name\":\"a\",\"x\":1}", "spec.", "unknown field 'spec.x'"},
    {"{\"x\":null}", "spec.", "unknown field 'spec.x'"},
    {"{\"Name\":\"a\"}", "", "unknown field 'Name'"},
    {"{\"name \":\"a\"}", "", "unknown field 'name '"},
    {"{\"\":1}", "", "unknown field ''"},
    /* wrong types */
    {"{\"name\":1}", "", "field 'name' must be a string"},
    {"{\"name\":[\"a\"]}", "spec.", "field 'spec.name' must be a string"},
    {"{\"name\":\"a\",\"count\":1.5}", "", "field 'count' must be an integer"},
    {"{\"name\":\"a\",\"count\":\"1\"}", "", "field 'count' must be an integer"},
    {"{\"name\":\"a\",\"count\":1e300}", "", "field 'count' must be an integer"},
    {"{\"name\":\"a\",\"count\":true}", "", "field 'count' must be an integer"},
    {"{\"name\":\"a\",\"ratio\":\"0.5\"}", "", "field 'ratio' must be a number"},
    {"{\"name\":\"a\",\"enabled\":1}", "", "field 'enabled' must be a boolean"},
    {"{\"name\":\"a\",\"enabled\":\"true\"}", "", "field 'enabled' must be a boolean"},
    {"{\"name\":\"a\",\"tags\":{}}", "", "field 'tags' must be an array"},
    {"{\"name\":\"a\",\"meta\":[]}", "retry_policy.",
     "field 'retry_policy.meta' must be an object"},
    {"{\"name\":\"a\",\"limit\":true}", "", "field 'limit' must be a string or an integer"},
    {"{\"name\":\"a\",\"limit\":1.5}", "", "field 'limit' must be a string or an integer"},
    {"{\"name\":\"a\",\"doc\":\"x\"}", "", "field 'doc' must be an object or an array"},
    {"{\"name\":\"a\",\"value\":null}", "", NULL},
    {"{\"name\":\"a\",\"doc\":[],\"value\":false}", "", NULL},
    /* missing required, and required given as null */
    {"{}", "", "missing required field 'name'"},
    {"{\"count\":1}", "spec.", "missing required field 'spec.name'"},
    {"{\"name\":null}", "", "field 'name' must be a string"},
    /* duplicate keys */
    {"{\"name\":\"a\",\"name\":\"b\"}", "", "field 'name' appears twice"},
    {"{\"name\":\"a\",\"count\":1,\"tags\":[],\"count\":null}", "spec.",
     "field 'spec.count' appears twice"},
    /* unknown is reported before missing */
    {"{\"zzz\":1}", "", "unknown field 'zzz'"},
    /* not an object */
    {"[]", "", "request body must be a JSON object"},
    {"null", "", "request body must be a JSON object"},
    {"\"{}\"", "", "request body must be a JSON object"},
    {"[]", "spec.", "field 'spec' must be an object"},
    {"7", "retry_policy.", "field 'retry_policy' must be an object"},
};

static void test_check_fields_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(check_cases); i++) {
        const struct check_case *c = &check_cases[i];
        cJSON *v = parse_ok(c->text);
        char err[200] = "";
        int rc = json_check_fields(v, fields, N_ELEMS(fields), c->where, err, sizeof(err));
        if (!c->err && rc != 0)
            fail_msg("case %zu %s: rejected: %s", i, c->text, err);
        if (c->err && (rc != -1 || strcmp(err, c->err) != 0))
            fail_msg("case %zu %s: rc %d err '%s', want '%s'", i, c->text, rc, err, c->err);
        cJSON_Delete(v);
    }
}

static void test_check_fields_empty_table(void **state)
{
    (void)state;
    cJSON *v = parse_ok("{}");
    char err[100];
    assert_int_equal(json_check_fields(v, NULL, 0, "", err, sizeof(err)), 0);
    cJSON_Delete(v);
    v = parse_ok("{\"a\":1}");
    assert_int_equal(json_check_fields(v, NULL, 0, "", err, sizeof(err)), -1);
    assert_string_equal(err, "unknown field 'a'");
    cJSON_Delete(v);
    assert_int_equal(json_check_fields(NULL, fields, N_ELEMS(fields), "", err, sizeof(err)), -1);
    assert_string_equal(err, "request body must be a JSON object");
}

/* A required field of any type: null is named as the problem. */
static void test_check_fields_required_any(void **state)
{
    (void)state;
    static const struct json_field f[] = {{"value", JT_ANY & ~(unsigned)JT_NULL, true}};
    static const char *const ok[] = {"{\"value\":0}", "{\"value\":\"\"}", "{\"value\":[]}",
                                     "{\"value\":{}}", "{\"value\":false}"};
    char err[100];
    for (size_t i = 0; i < N_ELEMS(ok); i++) {
        cJSON *v = parse_ok(ok[i]);
        assert_int_equal(json_check_fields(v, f, 1, "", err, sizeof(err)), 0);
        cJSON_Delete(v);
    }
    cJSON *v = parse_ok("{\"value\":null}");
    assert_int_equal(json_check_fields(v, f, 1, "", err, sizeof(err)), -1);
    assert_string_equal(err, "field 'value' must be a value other than null");
    cJSON_Delete(v);
    v = parse_ok("{}");
    assert_int_equal(json_check_fields(v, f, 1, "", err, sizeof(err)), -1);
    assert_string_equal(err, "missing required field 'value'");
    cJSON_Delete(v);
}

static void test_check_fields_long_name_truncated(void **state)
{
    (void)state;
    char text[600];
    char name[500];
    memset(name, 'k', sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    snprintf(text, sizeof(text), "{\"%s\":1}", name);
    cJSON *v = parse_ok(text);
    char err[32];
    assert_int_equal(json_check_fields(v, fields, N_ELEMS(fields), "spec.", err, sizeof(err)), -1);
    assert_int_equal(strlen(err), sizeof(err) - 1);
    assert_memory_equal(err, "unknown field 'spec.kkk", 23);
    cJSON_Delete(v);
}

/* ---- json_print / json_get ---- */

static void test_print_compact(void **state)
{
    (void)state;
    cJSON *v = parse_ok("{ \"a\" : [ 1 , 2.5 , null ],\n \"b\" : \"x\\\"y\\u00e9\", \"c\": {} }");
    struct buf b = BUF_INIT;
    assert_int_equal(buf_puts(&b, ">"), 0);
    assert_int_equal(json_print(&b, v), 0);
    assert_string_equal(b.data, ">{\"a\":[1,2.5,null],\"b\":\"x\\\"y\xc3\xa9\",\"c\":{}}");
    cJSON_Delete(v);
    buf_free(&b);
}

static void test_get(void **state)
{
    (void)state;
    cJSON *v = parse_ok("{\"a\":1,\"n\":null,\"s\":\"x\",\"A\":2}");
    const cJSON *a = json_get(v, "a");
    assert_non_null(a);
    assert_int_equal(a->valueint, 1);
    assert_int_equal(json_get(v, "A")->valueint, 2);
    assert_string_equal(json_get(v, "s")->valuestring, "x");
    assert_null(json_get(v, "n"));
    assert_null(json_get(v, "missing"));
    assert_null(json_get(v, ""));
    assert_null(json_get(NULL, "a"));
    cJSON_Delete(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_table),
        cmocka_unit_test(test_parse_uses_len_not_nul),
        cmocka_unit_test(test_parse_error_truncated_to_errlen),
        cmocka_unit_test(test_parse_deep_and_big),
        cmocka_unit_test(test_is_int_table),
        cmocka_unit_test(test_type_of),
        cmocka_unit_test(test_type_name),
        cmocka_unit_test(test_check_fields_table),
        cmocka_unit_test(test_check_fields_empty_table),
        cmocka_unit_test(test_check_fields_required_any),
        cmocka_unit_test(test_check_fields_long_name_truncated),
        cmocka_unit_test(test_print_compact),
        cmocka_unit_test(test_get),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
