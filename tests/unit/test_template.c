/*
 * domain/template: placeholder scanning in strings (a table of inputs and the
 * references or the error they give) and in JSON trees (paths in messages).
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

#define MALFORMED(ch)                                                                              \
    "malformed placeholder at character " #ch                                                      \
    " (expected {{input.x}}, {{config.x}} or {{secret.x}})"

static const char *ns_name(enum template_ns ns)
{
    switch (ns) {
    case TPL_INPUT:
        return "input";
    case TPL_CONFIG:
        return "config";
    case TPL_SECRET:
        return "secret";
    }
    return "?";
}

/* Records every reference as "ns:path@start-end;". */
struct rec {
    struct buf out;
    int stop_at; /* return stop_rc on this reference (1-based); 0: never */
    int stop_rc;
    int seen;
    const char *text; /* when set, check that start..end spans the placeholder */
};

static int rec_cb(void *arg, const struct template_ref *r)
{
    struct rec *rc = arg;
    rc->seen++;
    if (rc->text) {
        assert_memory_equal(rc->text + r->start, "{{", 2);
        assert_memory_equal(rc->text + r->end - 2, "}}", 2);
        assert_true(r->path >= rc->text + r->start && r->path + r->path_len <= rc->text + r->end);
    }
    if (buf_printf(&rc->out, "%s:%.*s@%zu-%zu;", ns_name(r->ns), (int)r->path_len, r->path,
                   r->start, r->end) < 0)
        return -100;
    return rc->seen == rc->stop_at ? rc->stop_rc : 0;
}

/* ---- template_scan ---- */

struct scan_case {
    const char *text;
    const char *refs; /* what was reported before the end or the error */
    const char *err;  /* NULL: accepted */
};

static const struct scan_case scan_cases[] = {
    {"", "", NULL},
    {"plain text", "", NULL},
    {"{single} {brace} }} x}", "", NULL},
    {"{ {input.x} }", "", NULL},
    {"{{input.x}}", "input:x@0-11;", NULL},
    {"{{config.max_len}}", "config:max_len@0-18;", NULL},
    {"{{secret.db-pass}}", "secret:db-pass@0-18;", NULL},
    {"{{input.a.b.c}}", "input:a.b.c@0-15;", NULL},
    {"{{input.User_Id-2.x9}}", "input:User_Id-2.x9@0-22;", NULL},
    /* spaces inside the braces */
    {"{{ input.a }}", "input:a@0-13;", NULL},
    {"{{   config.x}}", "config:x@0-15;", NULL},
    {"{{secret.y   }}", "secret:y@0-15;", NULL},
    /* embedded, several, adjacent */
    {"Bearer {{secret.token}}", "secret:token@7-23;", NULL},
    {"https://h/{{input.id}}?k={{config.k}}", "input:id@10-22;config:k@25-37;", NULL},
    {"{{input.a}}{{config.b}}{{secret.c}}", "input:a@0-11;config:b@11-23;secret:c@23-35;", NULL},
    {"{{input.x}}}", "input:x@0-11;", NULL},
    {"a {{input.x}} b {{input.x}} c", "input:x@2-13;input:x@16-27;", NULL},
    /* malformed placeholders */
    {"{{inptu.x}}", "", MALFORMED(1)},
    {"{{input.}}", "", MALFORMED(1)},
    {"{{input.x}", "", MALFORMED(1)},
    {"{{ input .x}}", "", MALFORMED(1)},
    {"{{input .x}}", "", MALFORMED(1)},
    {"{{input. x}}", "", MALFORMED(1)},
    {"{{input.x y}}", "", MALFORMED(1)},
    {"{{input}}", "", MALFORMED(1)},
    {"{{input..x}}", "", MALFORMED(1)},
    {"{{input.x.}}", "", MALFORMED(1)},
    {"{{.x}}", "", MALFORMED(1)},
    {"{{Input.x}}", "", MALFORMED(1)},
    {"{{INPUT.x}}", "", MALFORMED(1)},
    {"{{env.x}}", "", MALFORMED(1)},
    {"{{inputs.x}}", "", MALFORMED(1)},
    {"{{input.x/y}}", "", MALFORMED(1)},
    {"{{input.x\n}}", "", MALFORMED(1)},
    {"{{\tinput.x}}", "", MALFORMED(1)},
    {"{{}}", "", MALFORMED(1)},
    {"{{", "", MALFORMED(1)},
    {"{{{input.x}}}", "", MALFORMED(1)},
    {"abc {{input.x", "", MALFORMED(5)},
    {"ab {{input.x} }", "", MALFORMED(4)},
    {"{{input.x}} and {{bad}}", "input:x@0-11;", MALFORMED(17)},
    {"x{{config.a}}y{{secret.}}", "config:a@1-13;", MALFORMED(15)},
};

static void test_scan_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(scan_cases); i++) {
        const struct scan_case *c = &scan_cases[i];
        struct rec r = {BUF_INIT, 0, 0, 0, c->text};
        assert_int_equal(buf_puts(&r.out, ""), 0);
        char err[200] = "";
        int rc = template_scan(c->text, strlen(c->text), rec_cb, &r, err, sizeof(err));
        if (strcmp(r.out.data, c->refs) != 0)
            fail_msg("'%s': refs '%s', want '%s'", c->text, r.out.data, c->refs);
        if (!c->err && rc != 0)
            fail_msg("'%s' rejected: %s", c->text, err);
        if (c->err && (rc != -1 || strcmp(err, c->err) != 0))
            fail_msg("'%s': rc %d err '%s', want '%s'", c->text, rc, err, c->err);
        /* the same verdict without a callback */
        assert_int_equal(template_scan(c->text, strlen(c->text), NULL, NULL, err, sizeof(err)),
                         c->err ? -1 : 0);
        buf_free(&r.out);
    }
}

static void test_scan_respects_len(void **state)
{
    (void)state;
    const char *s = "{{input.x}}{{bad";
    char err[200];
    struct rec r = {BUF_INIT, 0, 0, 0, s};
    assert_int_equal(template_scan(s, 11, rec_cb, &r, err, sizeof(err)), 0);
    assert_string_equal(r.out.data, "input:x@0-11;");
    buf_free(&r.out);
    /* cut inside a placeholder: malformed, and nothing past len is read */
    char *exact = malloc(10);
    assert_non_null(exact);
    memcpy(exact, "{{input.x}", 10);
    assert_int_equal(template_scan(exact, 10, NULL, NULL, err, sizeof(err)), -1);
    assert_int_equal(template_scan(exact, 9, NULL, NULL, err, sizeof(err)), -1);
    free(exact);
    assert_int_equal(template_scan("", 0, NULL, NULL, err, sizeof(err)), 0);
    assert_int_equal(template_scan("{", 1, NULL, NULL, err, sizeof(err)), 0);
}

static void test_scan_callback_stops(void **state)
{
    (void)state;
    const char *s = "{{input.a}} {{input.b}} {{input.c}} {{bad";
    struct rec r = {BUF_INIT, 2, 7, 0, s};
    char err[200] = "untouched";
    assert_int_equal(template_scan(s, strlen(s), rec_cb, &r, err, sizeof(err)), 7);
    assert_int_equal(r.seen, 2);
    assert_string_equal(r.out.data, "input:a@0-11;input:b@12-23;");
    assert_string_equal(err, "untouched");
    buf_free(&r.out);
}

static void test_scan_error_truncated(void **state)
{
    (void)state;
    char err[12];
    assert_int_equal(template_scan("{{x}}", 5, NULL, NULL, err, sizeof(err)), -1);
    assert_string_equal(err, "malformed p");
}

/* ---- template_scan_json ---- */

static cJSON *parse(const char *text)
{
    cJSON *v = cJSON_Parse(text);
    if (!v)
        fail_msg("bad test JSON: %s", text);
    return v;
}

struct json_case {
    const char *json;
    const char *where;
    const char *refs;
    const char *err;
};

static const struct json_case json_cases[] = {
    {"{}", "spec", "", NULL},
    {"[]", "spec", "", NULL},
    {"{\"n\":1,\"b\":true,\"z\":null,\"f\":1.5}", "spec", "", NULL},
    {"\"{{input.x}}\"", "spec", "input:x@0-11;", NULL},
    {"{\"url\":\"https://h/{{input.id}}\",\"headers\":{\"Authorization\":\"Bearer "
     "{{secret.tok}}\"},\"items\":[1,\"a\",\"{{config.c}}\"]}",
     "spec", "input:id@10-22;secret:tok@7-21;config:c@0-12;", NULL},
    /* object keys are not templates */
    {"{\"{{bad}}\":\"x\"}", "spec", "", NULL},
    {"{\"headers\":{\"Authorization\":\"Bearer {{secret.tok}\"}}", "spec", "",
     "spec.headers.Authorization: " MALFORMED(8)},
    {"{\"items\":[\"ok\",\"{{input.a}}\",\"{{bad}}\"]}", "spec", "input:a@0-11;",
     "spec.items[2]: " MALFORMED(1)},
    {"{\"a\":[[\"x\",\"{{y}}\"]]}", "spec", "", "spec.a[0][1]: " MALFORMED(1)},
    {"{\"a\":{\"b\":{\"c\":[{\"d\":\"  {{input.}}\"}]}}}", "spec", "",
     "spec.a.b.c[0].d: " MALFORMED(3)},
    {"\"{{bad}}\"", "spec", "", "spec: " MALFORMED(1)},
    {"[\"{{bad}}\"]", "body", "", "body[0]: " MALFORMED(1)},
    {"{\"k\":\"{{bad}}\"}", "", "", ".k: " MALFORMED(1)},
};

static void test_scan_json_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(json_cases); i++) {
        const struct json_case *c = &json_cases[i];
        cJSON *v = parse(c->json);
        struct rec r = {BUF_INIT, 0, 0, 0, NULL};
        assert_int_equal(buf_puts(&r.out, ""), 0);
        char err[300] = "";
        int rc = template_scan_json(v, c->where, rec_cb, &r, err, sizeof(err));
        if (strcmp(r.out.data, c->refs) != 0)
            fail_msg("%s: refs '%s', want '%s'", c->json, r.out.data, c->refs);
        if (!c->err && rc != 0)
            fail_msg("%s rejected: %s", c->json, err);
        if (c->err && (rc != -1 || strcmp(err, c->err) != 0))
            fail_msg("%s: rc %d err '%s', want '%s'", c->json, rc, err, c->err);
        buf_free(&r.out);
        cJSON_Delete(v);
    }
}

/* A callback's own non-zero result (even -1) comes back with its own message intact. */
struct veto {
    char *err;
    size_t errlen;
    int rc;
};

static int veto_cb(void *arg, const struct template_ref *r)
{
    struct veto *v = arg;
    if (r->ns != TPL_SECRET)
        return 0;
    snprintf(v->err, v->errlen, "secret '%.*s' vetoed", (int)r->path_len, r->path);
    return v->rc;
}

static void test_scan_json_callback_result(void **state)
{
    (void)state;
    cJSON *v = parse("{\"a\":\"{{input.x}}\",\"h\":{\"x\":\"{{secret.k}}\"},\"z\":\"{{bad}}\"}");
    static const int rcs[] = {-1, -2, 5};
    for (size_t i = 0; i < N_ELEMS(rcs); i++) {
        char err[300];
        memset(err, 'G', sizeof(err));
        err[sizeof(err) - 1] = '\0';
        struct veto ctx = {err, sizeof(err), rcs[i]};
        assert_int_equal(template_scan_json(v, "spec", veto_cb, &ctx, err, sizeof(err)), rcs[i]);
        assert_string_equal(err, "secret 'k' vetoed");
    }
    cJSON_Delete(v);
}

/* Paths longer than the internal buffer are cut, never overrun. */
static void test_scan_json_long_path(void **state)
{
    (void)state;
    char key[700];
    memset(key, 'k', sizeof(key) - 1);
    key[sizeof(key) - 1] = '\0';
    cJSON *v = cJSON_CreateObject();
    assert_non_null(v);
    cJSON *inner = cJSON_AddObjectToObject(v, key);
    assert_non_null(inner);
    assert_non_null(cJSON_AddStringToObject(inner, key, "{{bad}}"));
    char err[2000] = "";
    assert_int_equal(template_scan_json(v, "spec", NULL, NULL, err, sizeof(err)), -1);
    assert_memory_equal(err, "spec.kkkk", 9);
    assert_non_null(strstr(err, ": malformed placeholder at character 1"));
    cJSON_Delete(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_table),
        cmocka_unit_test(test_scan_respects_len),
        cmocka_unit_test(test_scan_callback_stops),
        cmocka_unit_test(test_scan_error_truncated),
        cmocka_unit_test(test_scan_json_table),
        cmocka_unit_test(test_scan_json_callback_result),
        cmocka_unit_test(test_scan_json_long_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
