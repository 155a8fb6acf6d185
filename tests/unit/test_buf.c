/*
 * core/buf: growth, NUL termination, printf past the 256-byte stack buffer,
 * JSON string escaping, consume/reset/steal.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "core/buf.h"

#include <cjson/cJSON.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_pow2(size_t x)
{
    return x && (x & (x - 1)) == 0;
}

/* ---- empty buffers ---- */

static void test_empty_buffer_ops(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    assert_null(b.data);
    buf_reset(&b);
    buf_consume(&b, 0);
    buf_consume(&b, 10);
    assert_null(b.data);
    assert_int_equal(b.len, 0);
    buf_free(&b);
    buf_free(&b); /* idempotent */
    assert_null(b.data);
    assert_int_equal(b.cap, 0);
}

static void test_append_nothing_allocates_terminated(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    assert_int_equal(buf_append(&b, "", 0), 0);
    assert_non_null(b.data);
    assert_int_equal(b.len, 0);
    assert_string_equal(b.data, "");
    assert_int_equal(buf_puts(&b, ""), 0);
    assert_string_equal(b.data, "");
    buf_free(&b);
}

/* ---- growth ---- */

static void test_growth_byte_by_byte(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    size_t last_cap = 0;
    unsigned reallocs = 0;
    for (size_t i = 0; i < 10000; i++) {
        assert_int_equal(buf_putc(&b, (char)('a' + i % 26)), 0);
        assert_int_equal(b.len, i + 1);
        assert_true(b.cap >= b.len + 1);
        assert_true(is_pow2(b.cap));
        assert_int_equal(b.data[b.len], '\0');
        if (b.cap != last_cap) {
            reallocs++;
            last_cap = b.cap;
        }
    }
    for (size_t i = 0; i < 10000; i++)
        assert_int_equal(b.data[i], (char)('a' + i % 26));
    assert_int_equal(strlen(b.data), 10000);
    /* geometric growth: 64 .. 16384 is 9 sizes */
    assert_true(reallocs <= 9);
    buf_free(&b);
}

static void test_growth_big_appends(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    static const size_t sizes[] = {0, 1, 63, 64, 65, 127, 128, 1000, 4096, 100000};
    size_t total = 0;
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        char *chunk = malloc(sizes[k] + 1);
        assert_non_null(chunk);
        memset(chunk, 'A' + (int)k, sizes[k]);
        assert_int_equal(buf_append(&b, chunk, sizes[k]), 0);
        total += sizes[k];
        assert_int_equal(b.len, total);
        assert_true(b.cap > b.len);
        assert_int_equal(b.data[b.len], '\0');
        free(chunk);
    }
    size_t off = 0;
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        for (size_t i = 0; i < sizes[k]; i++)
            assert_int_equal(b.data[off + i], 'A' + (int)k);
        off += sizes[k];
    }
    buf_free(&b);
}

static void test_reserve(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    assert_int_equal(buf_reserve(&b, 0), 0);
    assert_int_equal(b.cap, 64);
    assert_int_equal(buf_reserve(&b, 63), 0);
    assert_int_equal(b.cap, 64); /* 63 + NUL fits */
    assert_int_equal(buf_reserve(&b, 64), 0);
    assert_int_equal(b.cap, 128);
    assert_int_equal(b.len, 0);
    char *before = b.data;
    /* reserved room is usable without another reallocation */
    for (int i = 0; i < 127; i++)
        assert_int_equal(buf_putc(&b, 'x'), 0);
    assert_ptr_equal(b.data, before);
    assert_int_equal(b.cap, 128);
    buf_free(&b);
}

static void test_reserve_overflow_fails(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    assert_int_equal(buf_puts(&b, "hello"), 0);
    size_t cap = b.cap;
    /* len + extra + 1 would wrap around */
    assert_int_equal(buf_reserve(&b, SIZE_MAX), -1);
    assert_int_equal(buf_reserve(&b, SIZE_MAX - 5), -1);
    assert_int_equal(buf_reserve(&b, SIZE_MAX - 6), -1); /* no wrap, but too large */
    assert_int_equal(buf_reserve(&b, SIZE_MAX / 2 + 2), -1);
    /* unchanged on failure */
    assert_int_equal(b.len, 5);
    assert_int_equal(b.cap, cap);
    assert_string_equal(b.data, "hello");
    buf_free(&b);
}

/* ---- puts / putc / printf ---- */

static void test_puts_putc(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    assert_int_equal(buf_puts(&b, "abc"), 0);
    assert_int_equal(buf_putc(&b, '-'), 0);
    assert_int_equal(buf_puts(&b, "def"), 0);
    assert_string_equal(b.data, "abc-def");
    assert_int_equal(b.len, 7);
    /* a NUL byte via putc is stored and counted */
    assert_int_equal(buf_putc(&b, '\0'), 0);
    assert_int_equal(b.len, 8);
    assert_int_equal(buf_putc(&b, 'z'), 0);
    assert_int_equal(b.len, 9);
    assert_memory_equal(b.data, "abc-def\0z", 10);
    buf_free(&b);
}

static void test_printf_short(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    assert_int_equal(buf_printf(&b, "%d-%s-%zu", -42, "x", (size_t)7), 0);
    assert_string_equal(b.data, "-42-x-7");
    assert_int_equal(buf_printf(&b, "%s", ""), 0);
    assert_string_equal(b.data, "-42-x-7");
    assert_int_equal(buf_printf(&b, "|%05.1f|", 3.14159), 0);
    assert_string_equal(b.data, "-42-x-7|003.1|");
    assert_int_equal(b.len, strlen(b.data));
    buf_free(&b);
}

/* Outputs at and around the 256-byte stack buffer, on empty and non-empty buffers. */
static void test_printf_long_table(void **state)
{
    (void)state;
    static const size_t lens[] = {254, 255, 256, 257, 300, 511, 1000, 5000, 70000};
    static const char *const prefixes[] = {"", "p", "0123456789012345678901234567890123456789"};
    for (size_t pi = 0; pi < sizeof(prefixes) / sizeof(prefixes[0]); pi++) {
        for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
            size_t n = lens[li];
            char *arg = malloc(n + 1);
            assert_non_null(arg);
            for (size_t i = 0; i < n; i++)
                arg[i] = (char)('0' + i % 10);
            arg[n] = '\0';
            struct buf b = BUF_INIT;
            assert_int_equal(buf_puts(&b, prefixes[pi]), 0);
            size_t plen = strlen(prefixes[pi]);
            assert_int_equal(buf_printf(&b, "<%s>%d", arg, 7), 0);
            assert_int_equal(b.len, plen + n + 3);
            assert_int_equal(b.data[b.len], '\0');
            assert_int_equal(strlen(b.data), b.len);
            assert_memory_equal(b.data, prefixes[pi], plen);
            assert_int_equal(b.data[plen], '<');
            assert_memory_equal(b.data + plen + 1, arg, n);
            assert_string_equal(b.data + plen + 1 + n, ">7");
            /* and something after it */
            assert_int_equal(buf_puts(&b, "!"), 0);
            assert_int_equal(b.data[b.len - 1], '!');
            buf_free(&b);
            free(arg);
        }
    }
}

static void test_printf_repeated_long(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    char line[301];
    memset(line, 'q', 300);
    line[300] = '\0';
    for (int i = 0; i < 50; i++)
        assert_int_equal(buf_printf(&b, "%s%02d", line, i), 0);
    assert_int_equal(b.len, 50 * 302);
    for (int i = 0; i < 50; i++) {
        char tail[3];
        snprintf(tail, sizeof(tail), "%02d", i);
        assert_memory_equal(b.data + i * 302 + 300, tail, 2);
        assert_int_equal(b.data[i * 302], 'q');
    }
    buf_free(&b);
}

/* ---- JSON strings ---- */

struct json_case {
    const char *in;
    size_t len;
    const char *out;
};

/* clang-format off */
#define JC(lit, out) {lit, sizeof(lit) - 1, out}
/* clang-format on */

static const struct json_case json_cases[] = {
    JC("", "\"\""),
    JC("plain text", "\"plain text\""),
    JC("say \"hi\"", "\"say \\\"hi\\\"\""),
    JC("back\\slash", "\"back\\\\slash\""),
    JC("\\\"", "\"\\\\\\\"\""),
    JC("a\nb", "\"a\\nb\""),
    JC("\r\t\b\f", "\"\\r\\t\\b\\f\""),
    JC("\x01", "\"\\u0001\""),
    JC("\x1f", "\"\\u001f\""),
    JC("\x0b", "\"\\u000b\""),
    JC("x\x00y", "\"x\\u0000y\""),
    JC("\x7f", "\"\x7f\""),
    JC("/slash/", "\"/slash/\""),
    JC("caf\xc3\xa9", "\"caf\xc3\xa9\""),
    JC("\xe2\x82\xac 5", "\"\xe2\x82\xac 5\""),
    JC("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\""),
    JC("<script>&'", "\"<script>&'\""),
};

static void test_json_str_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(json_cases) / sizeof(json_cases[0]); i++) {
        const struct json_case *c = &json_cases[i];
        struct buf b = BUF_INIT;
        assert_int_equal(buf_json_str(&b, c->in, c->len), 0);
        if (strcmp(b.data, c->out) != 0)
            fail_msg("case %zu: got %s, want %s", i, b.data, c->out);
        assert_int_equal(b.len, strlen(c->out));
        /* the literal is valid JSON that decodes back to the input (no NUL inside) */
        if (!memchr(c->in, '\0', c->len)) {
            cJSON *v = cJSON_Parse(b.data);
            assert_non_null(v);
            assert_true(cJSON_IsString(v));
            assert_string_equal(v->valuestring, c->in);
            cJSON_Delete(v);
        }
        buf_free(&b);
    }
}

static void test_json_str_appends_and_respects_n(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    assert_int_equal(buf_puts(&b, "{\"k\":"), 0);
    assert_int_equal(buf_json_str(&b, "value\"ignored", 5), 0);
    assert_int_equal(buf_putc(&b, '}'), 0);
    assert_string_equal(b.data, "{\"k\":\"value\"}");
    buf_free(&b);
}

static void test_json_str_all_bytes_roundtrip(void **state)
{
    (void)state;
    /* every ASCII byte 1..127: output is valid JSON and decodes back */
    char in[127];
    for (int i = 0; i < 127; i++)
        in[i] = (char)(i + 1);
    struct buf b = BUF_INIT;
    assert_int_equal(buf_json_str(&b, in, sizeof(in)), 0);
    for (size_t i = 0; i < b.len; i++)
        assert_true((unsigned char)b.data[i] >= 0x20);
    cJSON *v = cJSON_Parse(b.data);
    assert_non_null(v);
    assert_int_equal(strlen(v->valuestring), sizeof(in));
    assert_memory_equal(v->valuestring, in, sizeof(in));
    cJSON_Delete(v);
    buf_free(&b);
}

static void test_json_str_long(void **state)
{
    (void)state;
    size_t n = 5000;
    char *in = malloc(n);
    assert_non_null(in);
    for (size_t i = 0; i < n; i++)
        in[i] = i % 3 == 0 ? '"' : (i % 3 == 1 ? '\n' : 'a');
    struct buf b = BUF_INIT;
    assert_int_equal(buf_json_str(&b, in, n), 0);
    assert_int_equal(b.len, 2 + n / 3 * 5 + (n % 3 >= 1 ? 2 : 0) + (n % 3 >= 2 ? 2 : 0));
    cJSON *v = cJSON_Parse(b.data);
    assert_non_null(v);
    assert_memory_equal(v->valuestring, in, n);
    cJSON_Delete(v);
    buf_free(&b);
    free(in);
}

/* ---- consume / reset / steal ---- */

struct consume_case {
    const char *start;
    size_t n;
    const char *left;
};

static const struct consume_case consume_cases[] = {
    {"hello world", 0, "hello world"}, {"hello world", 1, "ello world"},
    {"hello world", 6, "world"},       {"hello world", 10, "d"},
    {"hello world", 11, ""},           {"hello world", 12, ""},
    {"hello world", SIZE_MAX, ""},     {"x", 1, ""},
};

static void test_consume_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(consume_cases) / sizeof(consume_cases[0]); i++) {
        const struct consume_case *c = &consume_cases[i];
        struct buf b = BUF_INIT;
        assert_int_equal(buf_puts(&b, c->start), 0);
        size_t cap = b.cap;
        buf_consume(&b, c->n);
        assert_string_equal(b.data, c->left);
        assert_int_equal(b.len, strlen(c->left));
        assert_int_equal(b.cap, cap);
        buf_free(&b);
    }
}

static void test_consume_then_append(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    for (int round = 0; round < 100; round++) {
        assert_int_equal(buf_printf(&b, "%03d;", round), 0);
        if (round % 2 == 1)
            buf_consume(&b, 4);
    }
    /* every odd round consumed one record: 50 remain, the last 50 written */
    assert_int_equal(b.len, 200);
    assert_memory_equal(b.data, "050;051;", 8);
    assert_string_equal(b.data + 196, "099;");
    buf_free(&b);
}

static void test_reset_keeps_storage(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    assert_int_equal(buf_puts(&b, "some content"), 0);
    char *p = b.data;
    size_t cap = b.cap;
    buf_reset(&b);
    assert_int_equal(b.len, 0);
    assert_ptr_equal(b.data, p);
    assert_int_equal(b.cap, cap);
    assert_string_equal(b.data, "");
    assert_int_equal(buf_puts(&b, "new"), 0);
    assert_string_equal(b.data, "new");
    buf_free(&b);
}

static void test_steal(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    assert_int_equal(buf_printf(&b, "%s=%d", "answer", 42), 0);
    char *s = buf_steal(&b);
    assert_string_equal(s, "answer=42");
    assert_null(b.data);
    assert_int_equal(b.len, 0);
    assert_int_equal(b.cap, 0);
    /* the buffer is usable again and independent of the stolen storage */
    assert_int_equal(buf_puts(&b, "again"), 0);
    assert_string_equal(b.data, "again");
    assert_string_equal(s, "answer=42");
    free(s);
    buf_free(&b);
}

static void test_steal_empty(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    char *s = buf_steal(&b);
    assert_non_null(s);
    assert_string_equal(s, "");
    free(s);
    assert_null(b.data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_buffer_ops),
        cmocka_unit_test(test_append_nothing_allocates_terminated),
        cmocka_unit_test(test_growth_byte_by_byte),
        cmocka_unit_test(test_growth_big_appends),
        cmocka_unit_test(test_reserve),
        cmocka_unit_test(test_reserve_overflow_fails),
        cmocka_unit_test(test_puts_putc),
        cmocka_unit_test(test_printf_short),
        cmocka_unit_test(test_printf_long_table),
        cmocka_unit_test(test_printf_repeated_long),
        cmocka_unit_test(test_json_str_table),
        cmocka_unit_test(test_json_str_appends_and_respects_n),
        cmocka_unit_test(test_json_str_all_bytes_roundtrip),
        cmocka_unit_test(test_json_str_long),
        cmocka_unit_test(test_consume_table),
        cmocka_unit_test(test_consume_then_append),
        cmocka_unit_test(test_reset_keeps_storage),
        cmocka_unit_test(test_steal),
        cmocka_unit_test(test_steal_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
