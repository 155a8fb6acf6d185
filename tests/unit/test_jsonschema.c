/* Unit tests for domain/jsonschema: jsonschema_check on good and bad schemas (with the JSON
 * Pointer in the message), compile errors, validation results with the error list (path,
 * keyword, message, JSON form, cap), references through the resolver and the built-in
 * meta-schemas, draft-07 rules, and the guards against $ref loops and regex blow-ups.
 * The full official test suite runs through tests/tools/jsonschema_suite.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain/jsonschema.h"

static cJSON *parse(const char *text)
{
    cJSON *v = cJSON_Parse(text);
    if (!v)
        fail_msg("test JSON does not parse: %s", text);
    return v;
}

/* ---- jsonschema_check ----------------------------------------------------------------- */

static const char *const good_schemas[] = {
    "true",
    "false",
    "{}",
    "{\"type\": \"string\", \"minLength\": 1, \"maxLength\": 10, \"pattern\": \"^[a-z]+$\"}",
    "{\"type\": [\"string\", \"null\"]}",
    "{\"minLength\": 2.0}",
    "{\"required\": [\"a\", \"b\"], \"properties\": {\"a\": true, \"b\": {\"enum\": [1, 2]}}}",
    "{\"patternProperties\": {\"^x-\": {\"type\": \"string\"}}, \"additionalProperties\": false}",
    "{\"prefixItems\": [{\"type\": \"integer\"}], \"items\": false, \"contains\": {}, "
    "\"minContains\": 0}",
    "{\"$defs\": {\"pos\": {\"exclusiveMinimum\": 0}}, \"$ref\": \"#/$defs/pos\"}",
    "{\"dependentRequired\": {\"a\": [\"b\"]}, \"dependentSchemas\": {\"a\": {}}}",
    "{\"x-custom\": {\"type\": 12}, \"title\": \"unknown keywords are annotations\"}",
    "{\"$schema\": \"http://json-schema.org/draft-07/schema#\", \"items\": [{}, true], "
    "\"dependencies\": {\"a\": [\"b\"], \"c\": {}}}",
    "{\"if\": {\"const\": 1}, \"then\": true, \"else\": false, \"not\": {\"type\": \"null\"}}",
};

static void test_check_good(void **state)
{
    char err[256];
    (void)state;
    for (size_t i = 0; i < TE_ARRAY_LEN(good_schemas); i++) {
        cJSON *s = parse(good_schemas[i]);
        if (jsonschema_check(s, err, sizeof(err)) != 0)
            fail_msg("%s: rejected: %s", good_schemas[i], err);
        cJSON_Delete(s);
    }
}

struct bad_schema {
    const char *schema;
    const char *message;
};

static const struct bad_schema bad_schemas[] = {
    {"5", "(root): schema must be an object or a boolean"},
    {"\"x\"", "(root): schema must be an object or a boolean"},
    {"{\"required\": \"x\"}", "/required: must be an array of unique strings"},
    {"{\"required\": [\"a\", \"a\"]}", "/required: must be an array of unique strings"},
    {"{\"pattern\": \"(\"}",
     "/pattern: invalid regular expression: unterminated group at offset 0"},
    {"{\"properties\": {\"age\": {\"minimum\": \"3\"}}}",
     "/properties/age/minimum: must be a number"},
    {"{\"properties\": {\"a/b\": {\"type\": \"text\"}}}",
     "/properties/a~1b/type: must be a type name (null, boolean, object, array, number, "
     "string, integer) or a non-empty array of unique type names"},
    {"{\"minLength\": -1}", "/minLength: must be a non-negative integer"},
    {"{\"maxItems\": 1.5}", "/maxItems: must be a non-negative integer"},
    {"{\"multipleOf\": 0}", "/multipleOf: must be a number greater than 0"},
    {"{\"enum\": 3}", "/enum: must be an array"},
    {"{\"allOf\": []}", "/allOf: must be a non-empty array of schemas"},
    {"{\"anyOf\": [{}, 3]}", "/anyOf/1: schema must be an object or a boolean"},
    {"{\"items\": {\"items\": {\"not\": []}}}",
     "/items/items/not: schema must be an object or a boolean"},
    {"{\"patternProperties\": {\"[a\": {}}}",
     "/patternProperties/[a: invalid regular expression: unterminated character class at "
     "offset 0"},
    {"{\"$ref\": 1}", "/$ref: must be a string"},
    {"{\"$id\": \"http://x/y#frag\"}", "/$id: must not contain a non-empty fragment"},
    {"{\"$anchor\": \"1x\"}", "/$anchor: must be a string matching ^[A-Za-z_][-A-Za-z0-9._]*$"},
    {"{\"dependentRequired\": {\"a\": \"b\"}}",
     "/dependentRequired/a: must be an array of unique strings"},
    {"{\"uniqueItems\": \"yes\"}", "/uniqueItems: must be a boolean"},
    {"{\"type\": []}",
     "/type: must be a type name (null, boolean, object, array, number, string, integer) or "
     "a non-empty array of unique type names"},
    {"{\"$defs\": {\"x\": {\"properties\": 1}}}",
     "/$defs/x/properties: must be an object of schemas"},
};

static void test_check_bad(void **state)
{
    char err[256];
    (void)state;
    for (size_t i = 0; i < TE_ARRAY_LEN(bad_schemas); i++) {
        cJSON *s = parse(bad_schemas[i].schema);
        if (jsonschema_check(s, err, sizeof(err)) != JSONSCHEMA_EINVALID)
            fail_msg("%s: accepted", bad_schemas[i].schema);
        if (strcmp(err, bad_schemas[i].message) != 0)
            fail_msg("%s: message \"%s\", want \"%s\"", bad_schemas[i].schema, err,
                     bad_schemas[i].message);
        cJSON_Delete(s);
    }
}

/* ---- validation ----------------------------------------------------------------------- */

struct vcase {
    const char *schema;
    const char *instance;
    bool valid;
    /* first error, when invalid */
    const char *path;
    const char *keyword;
    const char *message;
};

static const struct vcase vcases[] = {
    {"{\"type\": \"string\"}", "\"x\"", true, NULL, NULL, NULL},
    {"{\"type\": \"string\"}", "12", false, "", "type", "expected string, got number"},
    {"{\"type\": \"integer\"}", "1.0", true, NULL, NULL, NULL},
    {"{\"type\": \"integer\"}", "1.5", false, "", "type", "expected integer, got number"},
    {"{\"type\": [\"string\", \"null\"]}", "true", false, "", "type",
     "expected null or string, got boolean"},
    {"{\"required\": [\"user_id\"]}", "{\"name\": 1}", false, "", "required",
     "missing required property \"user_id\""},
    {"{\"properties\": {\"items\": {\"items\": {\"properties\": {\"name\": {\"type\": "
     "\"string\"}}}}}}",
     "{\"items\": [{\"name\": \"a\"}, {}, {\"name\": 3}]}", false, "/items/2/name", "type",
     "expected string, got number"},
    {"{\"properties\": {\"a~b/c\": {\"const\": 1}}}", "{\"a~b/c\": 2}", false, "/a~0b~1c", "const",
     "must be equal to 1"},
    {"{\"enum\": [1, \"two\", {\"three\": 3}]}", "{\"three\": 3.0}", true, NULL, NULL, NULL},
    {"{\"enum\": [1, \"two\"]}", "2", false, "", "enum", "must be one of [1,\"two\"]"},
    {"{\"minLength\": 2, \"maxLength\": 3}", "\"\xc3\xa9\xc3\xa9\xc3\xa9\"", true, NULL, NULL,
     NULL},
    {"{\"maxLength\": 2}", "\"abc\"", false, "", "maxLength", "must be at most 2 characters long"},
    {"{\"pattern\": \"^\\\\d+$\"}", "\"12a\"", false, "", "pattern",
     "does not match pattern \"^\\d+$\""},
    {"{\"minimum\": 1, \"exclusiveMaximum\": 10}", "10", false, "", "exclusiveMaximum",
     "must be less than 10"},
    {"{\"multipleOf\": 0.01}", "19.99", true, NULL, NULL, NULL},
    {"{\"multipleOf\": 0.01}", "19.995", false, "", "multipleOf", "must be a multiple of 0.01"},
    {"{\"uniqueItems\": true}", "[{\"a\": 1, \"b\": 2}, {\"b\": 2, \"a\": 1.0}]", false, "",
     "uniqueItems", "items 0 and 1 are equal"},
    {"{\"additionalProperties\": false, \"properties\": {\"a\": {}}}", "{\"a\": 1, \"b\": 2}",
     false, "", "additionalProperties", "property \"b\" is not allowed"},
    {"{\"prefixItems\": [{\"type\": \"integer\"}], \"items\": false}", "[1, 2]", false, "", "items",
     "must have at most 1 items"},
    {"{\"contains\": {\"type\": \"string\"}, \"minContains\": 2}", "[\"a\", 1]", false, "",
     "minContains", "must contain at least 2 matching item(s), found 1"},
    {"{\"dependentRequired\": {\"card\": [\"billing\"]}}", "{\"card\": 1}", false, "",
     "dependentRequired", "missing property \"billing\", required when \"card\" is present"},
    {"{\"anyOf\": [{\"type\": \"string\"}, {\"minimum\": 5}]}", "3", false, "", "anyOf",
     "must match at least one of the 2 schemas in anyOf"},
    {"{\"oneOf\": [{\"minimum\": 1}, {\"minimum\": 2}]}", "3", false, "", "oneOf",
     "must match exactly one schema in oneOf, but matches 0 and 1"},
    {"{\"not\": {\"type\": \"null\"}}", "null", false, "", "not",
     "must not match the schema in not"},
    {"{\"if\": {\"properties\": {\"kind\": {\"const\": \"http\"}}}, \"then\": {\"required\": "
     "[\"url\"]}}",
     "{\"kind\": \"http\"}", false, "", "required", "missing required property \"url\""},
    {"{\"propertyNames\": {\"maxLength\": 3}}", "{\"abcd\": 1}", false, "/abcd", "maxLength",
     "must be at most 3 characters long"},
    {"{\"properties\": {\"a\": true}, \"unevaluatedProperties\": false}", "{\"a\": 1, \"b\": 2}",
     false, "", "unevaluatedProperties", "property \"b\" is not allowed"},
    {"{\"allOf\": [{\"properties\": {\"a\": true}}], \"unevaluatedProperties\": false}",
     "{\"a\": 1}", true, NULL, NULL, NULL},
    {"{\"prefixItems\": [true], \"unevaluatedItems\": false}", "[1, 2]", false, "/1",
     "unevaluatedItems", "item 1 is not allowed"},
    {"false", "1", false, "", "false", "no value is allowed here (schema is false)"},
    {"{\"format\": \"email\"}", "\"not an email\"", true, NULL, NULL, NULL},
    {"{\"$defs\": {\"id\": {\"type\": \"integer\", \"minimum\": 1}}, \"properties\": "
     "{\"user_id\": {\"$ref\": \"#/$defs/id\"}}}",
     "{\"user_id\": 0}", false, "/user_id", "minimum", "must be greater than or equal to 1"},
    {"{\"$id\": \"http://example.com/root.json\", \"$defs\": {\"a\": {\"$anchor\": \"pos\", "
     "\"minimum\": 0}}, \"items\": {\"$ref\": \"#pos\"}}",
     "[1, -1]", false, "/1", "minimum", "must be greater than or equal to 0"},
    {"{\"$defs\": {\"a b%\": {\"type\": \"string\"}}, \"$ref\": \"#/$defs/a%20b%25\"}", "1", false,
     "", "type", "expected string, got number"},
    /* draft-07: $ref overrides its siblings; items as a tuple with additionalItems */
    {"{\"$schema\": \"http://json-schema.org/draft-07/schema#\", \"definitions\": {\"s\": "
     "{\"type\": \"string\"}}, \"properties\": {\"a\": {\"$ref\": \"#/definitions/s\", "
     "\"maxLength\": 1}}}",
     "{\"a\": \"long\"}", true, NULL, NULL, NULL},
    {"{\"$schema\": \"http://json-schema.org/draft-07/schema\", \"items\": [{\"type\": "
     "\"string\"}], \"additionalItems\": false}",
     "[\"a\", 2]", false, "", "additionalItems", "must have at most 1 items"},
    /* the built-in meta-schemas resolve without a resolver */
    {"{\"$ref\": \"https://json-schema.org/draft/2020-12/schema\"}", "{\"minLength\": 1}", true,
     NULL, NULL, NULL},
    {"{\"$ref\": \"https://json-schema.org/draft/2020-12/schema\"}", "{\"minLength\": -1}", false,
     "/minLength", "minimum", "must be greater than or equal to 0"},
    {"{\"$ref\": \"http://json-schema.org/draft-07/schema#\"}", "{\"type\": \"text\"}", false,
     "/type", "anyOf", "must match at least one of the 2 schemas in anyOf"},
};

static void check_first_error(const struct vcase *vc, const struct jsonschema_errors *e)
{
    if (e->count == 0)
        fail_msg("%s on %s: no error reported", vc->schema, vc->instance);
    if (strcmp(e->items[0].path, vc->path) != 0 || strcmp(e->items[0].keyword, vc->keyword) ||
        strcmp(e->items[0].message, vc->message) != 0)
        fail_msg("%s on %s: got (%s, %s, %s), want (%s, %s, %s)", vc->schema, vc->instance,
                 e->items[0].path, e->items[0].keyword, e->items[0].message, vc->path, vc->keyword,
                 vc->message);
}

static void test_validate(void **state)
{
    (void)state;
    for (size_t i = 0; i < TE_ARRAY_LEN(vcases); i++) {
        const struct vcase *vc = &vcases[i];
        cJSON *s = parse(vc->schema), *inst = parse(vc->instance);
        struct jsonschema *js = NULL;
        struct jsonschema_errors errs;
        char err[256];
        int rc;

        if (jsonschema_compile(s, NULL, &js, err, sizeof(err)) != 0)
            fail_msg("%s: does not compile: %s", vc->schema, err);
        jsonschema_errors_init(&errs, 0);
        rc = jsonschema_validate(js, inst, &errs);
        if (rc != (vc->valid ? 0 : JSONSCHEMA_EINVALID))
            fail_msg("%s on %s: got %d", vc->schema, vc->instance, rc);
        if (vc->valid)
            assert_int_equal(errs.count, 0);
        else
            check_first_error(vc, &errs);
        /* without an error list the answer is the same */
        assert_int_equal(jsonschema_validate(js, inst, NULL), rc);
        jsonschema_errors_free(&errs);
        jsonschema_free(js);
        cJSON_Delete(s);
        cJSON_Delete(inst);
    }
}

static struct jsonschema *compile_ok(const char *schema, const struct jsonschema_options *o)
{
    cJSON *s = parse(schema);
    struct jsonschema *js = NULL;
    char err[256];

    if (jsonschema_compile(s, o, &js, err, sizeof(err)) != 0)
        fail_msg("%s: does not compile: %s", schema, err);
    cJSON_Delete(s); /* the compiled schema keeps its own copy */
    return js;
}

static int validate_text(const struct jsonschema *js, const char *instance,
                         struct jsonschema_errors *errs)
{
    cJSON *inst = parse(instance);
    int rc = jsonschema_validate(js, inst, errs);
    cJSON_Delete(inst);
    return rc;
}

/* Every failure is listed, in evaluation order, and serialises for a 422 body. */
static void test_error_list(void **state)
{
    struct jsonschema *js =
        compile_ok("{\"type\": \"object\", \"required\": [\"user_id\", \"name\"], \"properties\": {"
                   "\"name\": {\"type\": \"string\"}, \"tags\": {\"type\": \"array\", \"items\": "
                   "{\"type\": \"string\"}}}}",
                   NULL);
    struct jsonschema_errors errs;
    cJSON *json;
    char *text;

    (void)state;
    jsonschema_errors_init(&errs, 0);
    assert_int_equal(validate_text(js, "{\"name\": 5, \"tags\": [\"a\", 2, \"c\", null]}", &errs),
                     JSONSCHEMA_EINVALID);
    assert_int_equal(errs.count, 4);
    assert_false(errs.truncated);
    json = jsonschema_errors_to_json(&errs);
    assert_non_null(json);
    text = cJSON_PrintUnformatted(json);
    assert_string_equal(
        text,
        "[{\"path\":\"\",\"keyword\":\"required\",\"message\":\"missing required property "
        "\\\"user_id\\\"\"},"
        "{\"path\":\"/name\",\"keyword\":\"type\",\"message\":\"expected string, got number\"},"
        "{\"path\":\"/tags/1\",\"keyword\":\"type\",\"message\":\"expected string, got number\"},"
        "{\"path\":\"/tags/3\",\"keyword\":\"type\",\"message\":\"expected string, got null\"}]");
    free(text);
    cJSON_Delete(json);
    jsonschema_errors_free(&errs);
    jsonschema_free(js);
}

static void test_error_cap(void **state)
{
    struct jsonschema *js = compile_ok("{\"items\": {\"type\": \"string\"}}", NULL);
    struct jsonschema_errors errs;
    char inst[256] = "[";

    (void)state;
    for (int i = 0; i < 60; i++)
        strcat(inst, i ? ",1" : "1");
    strcat(inst, "]");
    jsonschema_errors_init(&errs, 3);
    assert_int_equal(validate_text(js, inst, &errs), JSONSCHEMA_EINVALID);
    assert_int_equal(errs.count, 3);
    assert_true(errs.truncated);
    assert_string_equal(errs.items[2].path, "/2");
    jsonschema_errors_free(&errs);
    jsonschema_errors_init(&errs, 0); /* default cap */
    assert_int_equal(validate_text(js, inst, &errs), JSONSCHEMA_EINVALID);
    assert_int_equal(errs.count, JSONSCHEMA_DEFAULT_MAX_ERRORS);
    jsonschema_errors_free(&errs);
    jsonschema_free(js);
}

/* ---- references ----------------------------------------------------------------------- */

static const cJSON *resolve_one(void *arg, const char *uri)
{
    const cJSON *doc = arg;
    return strcmp(uri, "https://schemas.example/common.json") == 0 ? doc : NULL;
}

static void test_resolver(void **state)
{
    cJSON *common = parse("{\"$defs\": {\"id\": {\"type\": \"string\", \"pattern\": \"^u-\"}, "
                          "\"rel\": {\"$ref\": \"#/$defs/id\"}}}");
    struct jsonschema_options o;
    struct jsonschema *js;
    struct jsonschema_errors errs;

    (void)state;
    memset(&o, 0, sizeof(o));
    o.resolve = resolve_one;
    o.resolve_arg = common;
    js = compile_ok("{\"$id\": \"https://schemas.example/task.json\", \"properties\": "
                    "{\"owner\": {\"$ref\": \"common.json#/$defs/rel\"}}}",
                    &o);
    cJSON_Delete(common); /* compiled schemas copy what the resolver returns */
    jsonschema_errors_init(&errs, 0);
    assert_int_equal(validate_text(js, "{\"owner\": \"u-1\"}", &errs), 0);
    assert_int_equal(validate_text(js, "{\"owner\": \"x-1\"}", &errs), JSONSCHEMA_EINVALID);
    assert_string_equal(errs.items[0].path, "/owner");
    assert_string_equal(errs.items[0].keyword, "pattern");
    jsonschema_errors_free(&errs);
    jsonschema_free(js);
}

struct compile_error {
    const char *schema;
    const char *message;
};

static const struct compile_error compile_errors[] = {
    {"{\"properties\": {\"a\": {\"$ref\": \"#/$defs/missing\"}}}",
     "/properties/a: cannot resolve reference \"#/$defs/missing\""},
    {"{\"items\": {\"$ref\": \"https://elsewhere.example/x.json\"}}",
     "/items: cannot resolve \"https://elsewhere.example/x.json\""},
    {"{\"$ref\": \"#nowhere\"}", "(root): cannot resolve reference \"#nowhere\""},
    {"{\"$schema\": \"http://json-schema.org/draft-04/schema#\"}",
     "unsupported $schema (not draft 2020-12, 2019-09 or 07, nor a meta-schema that can be "
     "loaded): cannot resolve \"http://json-schema.org/draft-04/schema\""},
    {"{\"minimum\": \"0\"}", "/minimum: must be a number"},
    {"{\"x\": {\"type\": 3}, \"$ref\": \"#/x\"}",
     "/x: /type: must be a type name (null, "
     "boolean, object, array, number, string, integer) or a non-empty array of unique type "
     "names"},
};

static void test_compile_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < TE_ARRAY_LEN(compile_errors); i++) {
        cJSON *s = parse(compile_errors[i].schema);
        struct jsonschema *js = NULL;
        char err[400];
        if (jsonschema_compile(s, NULL, &js, err, sizeof(err)) != JSONSCHEMA_EINVALID)
            fail_msg("%s: compiled", compile_errors[i].schema);
        assert_null(js);
        if (strcmp(err, compile_errors[i].message) != 0)
            fail_msg("%s: message \"%s\", want \"%s\"", compile_errors[i].schema, err,
                     compile_errors[i].message);
        cJSON_Delete(s);
    }
}

/* A root without $schema is 2020-12 unless the caller picks draft-07. */
static void test_default_draft(void **state)
{
    const char *schema = "{\"items\": [{\"type\": \"string\"}]}";
    struct jsonschema_options o;
    struct jsonschema *js;
    cJSON *s = parse(schema);
    char err[256];

    (void)state;
    assert_int_equal(jsonschema_compile(s, NULL, &js, err, sizeof(err)), JSONSCHEMA_EINVALID);
    assert_string_equal(err, "/items: schema must be an object or a boolean");
    memset(&o, 0, sizeof(o));
    o.default_draft = JSONSCHEMA_DRAFT_7;
    assert_int_equal(jsonschema_compile(s, &o, &js, err, sizeof(err)), 0);
    assert_int_equal(validate_text(js, "[\"a\", 1]", NULL), 0);
    assert_int_equal(validate_text(js, "[1]", NULL), JSONSCHEMA_EINVALID);
    jsonschema_free(js);
    cJSON_Delete(s);
}

/* ---- guards --------------------------------------------------------------------------- */

struct guard_case {
    const char *schema;
    const char *instance;
    const char *keyword;
    const char *message;
};

static const struct guard_case guards[] = {
    {"{\"$ref\": \"#\"}", "1", "$ref",
     "schema evaluation deeper than 1000 levels (recursive $ref?)"},
    /* inside not, a cut-off must not turn into "valid" */
    {"{\"$defs\": {\"a\": {\"$ref\": \"#/$defs/b\"}, \"b\": {\"$ref\": \"#/$defs/a\"}}, "
     "\"not\": {\"$ref\": \"#/$defs/a\"}}",
     "1", "$ref", "schema evaluation deeper than 1000 levels (recursive $ref?)"},
    {"{\"pattern\": \"(a+)+$\"}", "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\"", "pattern",
     "pattern \"(a+)+$\" exceeded its matching budget"},
    {"{\"anyOf\": [{\"patternProperties\": {\"^(a|a)*$\": true}}, true]}",
     "{\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\": 1}", "patternProperties",
     "pattern \"^(a|a)*$\" exceeded its matching budget"},
};

static void test_guards(void **state)
{
    (void)state;
    for (size_t i = 0; i < TE_ARRAY_LEN(guards); i++) {
        struct jsonschema *js = compile_ok(guards[i].schema, NULL);
        struct jsonschema_errors errs;
        jsonschema_errors_init(&errs, 0);
        if (validate_text(js, guards[i].instance, &errs) != JSONSCHEMA_EINVALID)
            fail_msg("%s: not rejected", guards[i].schema);
        assert_int_equal(errs.count, 1);
        assert_string_equal(errs.items[0].keyword, guards[i].keyword);
        assert_string_equal(errs.items[0].message, guards[i].message);
        jsonschema_errors_free(&errs);
        jsonschema_free(js);
    }
}

/* $refs that fan out (each level referring twice to the next) would take 2^40
 * evaluations; the evaluation budget stops them. */
static void test_fan_out(void **state)
{
    char schema[8192], *p = schema;
    struct jsonschema_errors errs;
    struct jsonschema *js;

    (void)state;
    p += sprintf(p, "{\"$ref\": \"#/$defs/a0\", \"$defs\": {");
    for (int i = 0; i < 40; i++)
        p += sprintf(p,
                     "\"a%d\": {\"anyOf\": [{\"$ref\": \"#/$defs/a%d\"}, {\"$ref\": "
                     "\"#/$defs/a%d\"}]},",
                     i, i + 1, i + 1);
    sprintf(p, "\"a40\": false}}");
    js = compile_ok(schema, NULL);
    jsonschema_errors_init(&errs, 0);
    assert_int_equal(validate_text(js, "1", &errs), JSONSCHEMA_EINVALID);
    assert_int_equal(errs.count, 1);
    assert_string_equal(errs.items[0].message,
                        "validation needs more than 5000000 schema evaluations");
    jsonschema_errors_free(&errs);
    jsonschema_free(js);
}

/* Deep instances with a recursive schema stay within the depth limit or fail cleanly. */
static void test_deep_instance(void **state)
{
    struct jsonschema *js = compile_ok("{\"items\": {\"$ref\": \"#\"}}", NULL);
    char text[2 * 900 + 1];
    struct jsonschema_errors errs;

    (void)state;
    memset(text, '[', 300);
    memset(text + 300, ']', 300);
    text[600] = '\0';
    assert_int_equal(validate_text(js, text, NULL), 0);
    memset(text, '[', 900);
    memset(text + 900, ']', 900);
    text[1800] = '\0';
    jsonschema_errors_init(&errs, 0);
    assert_int_equal(validate_text(js, text, &errs), JSONSCHEMA_EINVALID);
    assert_string_equal(errs.items[0].keyword, "$ref");
    jsonschema_errors_free(&errs);
    jsonschema_free(js);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_good),     cmocka_unit_test(test_check_bad),
        cmocka_unit_test(test_validate),       cmocka_unit_test(test_error_list),
        cmocka_unit_test(test_error_cap),      cmocka_unit_test(test_resolver),
        cmocka_unit_test(test_compile_errors), cmocka_unit_test(test_default_draft),
        cmocka_unit_test(test_guards),         cmocka_unit_test(test_fan_out),
        cmocka_unit_test(test_deep_instance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
