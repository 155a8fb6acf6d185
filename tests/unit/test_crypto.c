/*
 * crypto: key parsing (hex, base64 variants), sealing secrets (round trip,
 * name bound as associated data, wrong key, tampering, truncation, fresh
 * nonces) and API keys (csv, file, limits, exact matching).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "crypto/crypto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

#define SEAL_OVERHEAD (1 + 24 + 16)

/* ---- secret_key_parse ---- */

/* bytes e0..ff: base64 of these uses '+' and '/' (standard) or '-' and '_' (URL-safe) */
#define HEX_E0 "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"
#define B64_E0 "4OHi4+Tl5ufo6err7O3u7/Dx8vP09fb3+Pn6+/z9/v8="
#define B64URL_E0 "4OHi4-Tl5ufo6err7O3u7_Dx8vP09fb3-Pn6-_z9_v8="
#define HEX_00 "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
#define B64_00 "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="

struct key_case {
    const char *text;
    int first; /* -1: must fail; else the key is bytes first..first+31 */
};

static const struct key_case key_cases[] = {
    {HEX_00, 0x00},
    {HEX_E0, 0xe0},
    {"E0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF", 0xe0},
    {HEX_00 "\n", 0x00},
    {HEX_00 "  \n", 0x00},
    {B64_00, 0x00},
    {B64_E0, 0xe0},
    {"4OHi4+Tl5ufo6err7O3u7/Dx8vP09fb3+Pn6+/z9/v8", 0xe0}, /* no padding */
    {B64URL_E0, 0xe0},
    {"4OHi4-Tl5ufo6err7O3u7_Dx8vP09fb3-Pn6-_z9_v8", 0xe0}, /* URL-safe, no padding */
    {B64_E0 "\n", 0xe0},
    /* wrong lengths */
    {"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1", -1},
    {HEX_00 "2", -1},
    {HEX_00 "20", -1},
    {"0001020304", -1},
    {"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==", -1}, /* 31 bytes */
    {"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", -1}, /* 33 bytes */
    {B64_00 B64_00, -1},
    /* garbage */
    {"", -1},
    {"\n", -1},
    {"not a key", -1},
    {"g00102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", -1},
    {" " HEX_00, -1},
    {HEX_00 "\t", -1},
    {"4OHi4+Tl5ufo6err7O3u7_Dx8vP09fb3+Pn6+/z9/v8=", -1}, /* mixed alphabets */
    {"4OHi4+Tl5ufo6err7O3u7/Dx8vP09fb3+Pn6+/z9/v8==", -1},
    {"4OHi4+Tl5ufo6err7O3u7/Dx8vP0 9fb3+Pn6+/z9/v8=", -1},
    {"!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!", -1},
};

static void test_key_parse_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(key_cases); i++) {
        const struct key_case *c = &key_cases[i];
        struct secret_key k;
        memset(&k, 0x55, sizeof(k));
        int rc = secret_key_parse(c->text, &k);
        if (c->first < 0) {
            if (rc != -1)
                fail_msg("case %zu '%s' accepted", i, c->text);
            /* nothing half-decoded is left behind */
            for (size_t j = 0; j < sizeof(k.k); j++)
                assert_int_equal(k.k[j], 0);
            continue;
        }
        if (rc != 0)
            fail_msg("case %zu '%s' rejected", i, c->text);
        for (size_t j = 0; j < sizeof(k.k); j++)
            assert_int_equal(k.k[j], c->first + (int)j);
    }
    struct secret_key k;
    assert_int_equal(secret_key_parse(NULL, &k), -1);
}

static void test_key_wipe(void **state)
{
    (void)state;
    struct secret_key k;
    assert_int_equal(secret_key_parse(HEX_E0, &k), 0);
    secret_key_wipe(&k);
    for (size_t j = 0; j < sizeof(k.k); j++)
        assert_int_equal(k.k[j], 0);
}

/* ---- seal / open ---- */

static struct secret_key key_a, key_b;

static int setup_keys(void **state)
{
    (void)state;
    if (secret_key_parse(HEX_00, &key_a) != 0 || secret_key_parse(HEX_E0, &key_b) != 0)
        return -1;
    return 0;
}

static void seal_ok(const struct secret_key *k, const char *name, const void *p, size_t n,
                    struct buf *out)
{
    assert_int_equal(secret_seal(k, name, p, n, out), 0);
}

static void test_seal_open_round_trip(void **state)
{
    (void)state;
    static const size_t lens[] = {0, 1, 15, 16, 17, 100, 4096, 70000};
    for (size_t i = 0; i < N_ELEMS(lens); i++) {
        size_t n = lens[i];
        uint8_t *plain = malloc(n + 1);
        assert_non_null(plain);
        for (size_t j = 0; j < n; j++)
            plain[j] = (uint8_t)(j * 7); /* includes NUL bytes */
        struct buf sealed = BUF_INIT, opened = BUF_INIT;
        seal_ok(&key_a, "db-password", plain, n, &sealed);
        assert_int_equal(sealed.len, n + SEAL_OVERHEAD);
        assert_int_equal((uint8_t)sealed.data[0], 0x01);
        if (n >= 16)
            assert_memory_not_equal(sealed.data + 25, plain, 16); /* not stored in clear */
        assert_int_equal(secret_open(&key_a, "db-password", sealed.data, sealed.len, &opened), 0);
        assert_int_equal(opened.len, n);
        if (n)
            assert_memory_equal(opened.data, plain, n);
        assert_int_equal(opened.data[n], '\0');
        buf_free(&sealed);
        buf_free(&opened);
        free(plain);
    }
}

static void test_seal_open_append(void **state)
{
    (void)state;
    struct buf sealed = BUF_INIT, opened = BUF_INIT;
    assert_int_equal(buf_puts(&sealed, "HDR"), 0);
    seal_ok(&key_a, "n", "value", 5, &sealed);
    assert_int_equal(sealed.len, 3 + 5 + SEAL_OVERHEAD);
    assert_memory_equal(sealed.data, "HDR", 3);
    assert_int_equal(buf_puts(&opened, "plain:"), 0);
    assert_int_equal(secret_open(&key_a, "n", sealed.data + 3, sealed.len - 3, &opened), 0);
    assert_string_equal(opened.data, "plain:value");
    buf_free(&sealed);
    buf_free(&opened);
}

static void expect_open_fails(const struct secret_key *k, const char *name, const void *s, size_t n)
{
    struct buf out = BUF_INIT;
    assert_int_equal(buf_puts(&out, "keep"), 0);
    if (secret_open(k, name, s, n, &out) != -1)
        fail_msg("secret_open succeeded (name %s, len %zu)", name, n);
    /* output untouched on failure */
    assert_int_equal(out.len, 4);
    assert_string_equal(out.data, "keep");
    buf_free(&out);
}

static void test_open_other_name_fails(void **state)
{
    (void)state;
    struct buf sealed = BUF_INIT;
    seal_ok(&key_a, "api-token", "s3cr3t", 6, &sealed);
    static const char *const others[] = {"api-toke", "api-token2", "API-TOKEN",
                                         "",         "other",      "api-token "};
    for (size_t i = 0; i < N_ELEMS(others); i++)
        expect_open_fails(&key_a, others[i], sealed.data, sealed.len);
    buf_free(&sealed);

    /* the empty name is a name like any other */
    seal_ok(&key_a, "", "x", 1, &sealed);
    expect_open_fails(&key_a, "x", sealed.data, sealed.len);
    struct buf out = BUF_INIT;
    assert_int_equal(secret_open(&key_a, "", sealed.data, sealed.len, &out), 0);
    assert_string_equal(out.data, "x");
    buf_free(&out);
    buf_free(&sealed);
}

static void test_open_other_key_fails(void **state)
{
    (void)state;
    struct buf sealed = BUF_INIT;
    seal_ok(&key_a, "name", "value", 5, &sealed);
    expect_open_fails(&key_b, "name", sealed.data, sealed.len);
    struct secret_key k = key_a;
    k.k[31] ^= 1;
    expect_open_fails(&k, "name", sealed.data, sealed.len);
    buf_free(&sealed);
}

static void test_open_tampered_fails(void **state)
{
    (void)state;
    struct buf sealed = BUF_INIT;
    seal_ok(&key_a, "name", "a secret value", 14, &sealed);
    /* flip one bit in every byte position: version, nonce, ciphertext, tag */
    for (size_t i = 0; i < sealed.len; i++) {
        for (int bit = 0; bit < 8; bit += 7) {
            char *copy = malloc(sealed.len);
            assert_non_null(copy);
            memcpy(copy, sealed.data, sealed.len);
            copy[i] ^= (char)(1 << bit);
            expect_open_fails(&key_a, "name", copy, sealed.len);
            free(copy);
        }
    }
    buf_free(&sealed);
}

static void test_open_truncated_or_extended_fails(void **state)
{
    (void)state;
    struct buf sealed = BUF_INIT;
    seal_ok(&key_a, "name", "value", 5, &sealed);
    for (size_t n = 0; n < sealed.len; n++) {
        /* exact-size copies so ASan catches reads past the given length */
        char *copy = malloc(n ? n : 1);
        assert_non_null(copy);
        memcpy(copy, sealed.data, n);
        expect_open_fails(&key_a, "name", copy, n);
        free(copy);
    }
    char *longer = malloc(sealed.len + 1);
    assert_non_null(longer);
    memcpy(longer, sealed.data, sealed.len);
    longer[sealed.len] = 0;
    expect_open_fails(&key_a, "name", longer, sealed.len + 1);
    free(longer);
    expect_open_fails(&key_a, "name", NULL, 0);
    buf_free(&sealed);
}

static void test_seal_nonce_fresh(void **state)
{
    (void)state;
    struct buf s1 = BUF_INIT, s2 = BUF_INIT;
    seal_ok(&key_a, "name", "same value", 10, &s1);
    seal_ok(&key_a, "name", "same value", 10, &s2);
    assert_int_equal(s1.len, s2.len);
    assert_memory_not_equal(s1.data + 1, s2.data + 1, 24);            /* nonce */
    assert_memory_not_equal(s1.data + 25, s2.data + 25, s1.len - 25); /* ciphertext+tag */
    struct buf o1 = BUF_INIT, o2 = BUF_INIT;
    assert_int_equal(secret_open(&key_a, "name", s1.data, s1.len, &o1), 0);
    assert_int_equal(secret_open(&key_a, "name", s2.data, s2.len, &o2), 0);
    assert_string_equal(o1.data, "same value");
    assert_string_equal(o2.data, "same value");
    buf_free(&s1);
    buf_free(&s2);
    buf_free(&o1);
    buf_free(&o2);
}

/* ---- API keys ---- */

#define K1 "key-one-0123456789"
#define K2 "key-two-abcdefghij"
#define K3 "0123456789abcdef" /* exactly 16 */

static struct api_keys *load_ok(const char *csv, const char *file)
{
    struct api_keys *ks = NULL;
    char err[256] = "";
    if (api_keys_load(csv, file, &ks, err, sizeof(err)) != 0)
        fail_msg("api_keys_load: %s", err);
    assert_non_null(ks);
    return ks;
}

static bool check(const struct api_keys *ks, const char *k)
{
    return api_keys_check(ks, k, strlen(k));
}

static void test_keys_csv(void **state)
{
    (void)state;
    struct api_keys *ks = load_ok(K1 "," K2 "," K3, NULL);
    assert_int_equal(api_keys_count(ks), 3);
    assert_true(check(ks, K1));
    assert_true(check(ks, K2));
    assert_true(check(ks, K3));
    api_keys_free(ks);

    /* blanks around keys and empty items are ignored */
    ks = load_ok(" " K1 " ,,\t" K2 "\t,", NULL);
    assert_int_equal(api_keys_count(ks), 2);
    assert_true(check(ks, K1));
    assert_true(check(ks, K2));
    assert_false(check(ks, " " K1));
    api_keys_free(ks);

    /* duplicates are harmless */
    ks = load_ok(K1 "," K1, "");
    assert_true(check(ks, K1));
    api_keys_free(ks);
}

static void test_keys_reject_others(void **state)
{
    (void)state;
    struct api_keys *ks = load_ok(K1 "," K2, NULL);
    static const char *const bad[] = {
        "",
        "key-one-012345678",   /* prefix */
        "ey-one-0123456789",   /* suffix */
        "key-one-01234567890", /* longer */
        "xkey-one-0123456789",
        "KEY-ONE-0123456789", /* case */
        "key-one-0123456789 ",
        K1 "," K2,
        K1 K2,
        "key-two-abcdefghi",
        K3,
    };
    for (size_t i = 0; i < N_ELEMS(bad); i++) {
        if (check(ks, bad[i]))
            fail_msg("'%s' accepted", bad[i]);
    }
    /* the length given is what counts, not a NUL */
    assert_false(api_keys_check(ks, K1, strlen(K1) - 1));
    assert_true(api_keys_check(ks, K1 "trailing", strlen(K1)));
    assert_false(api_keys_check(ks, NULL, 0));
    api_keys_free(ks);
}

static char *write_temp(const char *content)
{
    static char path[64];
    snprintf(path, sizeof(path), "/tmp/te_keys_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    size_t n = strlen(content);
    assert_int_equal(write(fd, content, n), (ssize_t)n);
    close(fd);
    return path;
}

static void test_keys_file(void **state)
{
    (void)state;
    char *path = write_temp("# API keys for staging\n"
                            "\n" K1 "\n"
                            "   \n"
                            "  " K2 "  \r\n"
                            "#" K3 "\n"
                            "\r\n" K3); /* last line without newline */
    struct api_keys *ks = load_ok(NULL, path);
    assert_int_equal(api_keys_count(ks), 3);
    assert_true(check(ks, K1));
    assert_true(check(ks, K2));
    assert_true(check(ks, K3));
    assert_false(check(ks, "#" K3));
    assert_false(check(ks, "# API keys for staging"));
    api_keys_free(ks);

    /* csv and file add up */
    ks = load_ok("another-key-000000", path);
    assert_int_equal(api_keys_count(ks), 4);
    assert_true(check(ks, "another-key-000000"));
    assert_true(check(ks, K1));
    api_keys_free(ks);
    unlink(path);
}

struct keys_err_case {
    const char *csv;
    const char *file_content; /* NULL: no file */
    const char *err;
};

static const struct keys_err_case keys_err_cases[] = {
    {NULL, NULL, "TE_API_KEYS: no API key configured (set TE_API_KEYS or TE_API_KEYS_FILE)"},
    {"", NULL, "TE_API_KEYS: no API key configured (set TE_API_KEYS or TE_API_KEYS_FILE)"},
    {" , ,", NULL, "TE_API_KEYS: no API key configured (set TE_API_KEYS or TE_API_KEYS_FILE)"},
    {NULL, "# only comments\n\n",
     "TE_API_KEYS: no API key configured (set TE_API_KEYS or "
     "TE_API_KEYS_FILE)"},
    {"short", NULL, "TE_API_KEYS: every key must be at least 16 characters"},
    {K1 ",0123456789abcde", NULL, "TE_API_KEYS: every key must be at least 16 characters"},
    {" 0123456789abcde ", NULL, "TE_API_KEYS: every key must be at least 16 characters"},
    {K1, K2 "\nshort-key\n", "TE_API_KEYS: every key must be at least 16 characters"},
};

static void test_keys_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(keys_err_cases); i++) {
        const struct keys_err_case *c = &keys_err_cases[i];
        char *path = c->file_content ? write_temp(c->file_content) : NULL;
        struct api_keys *ks = (struct api_keys *)0x1;
        char err[256] = "";
        int rc = api_keys_load(c->csv, path, &ks, err, sizeof(err));
        if (rc != -1 || strcmp(err, c->err) != 0)
            fail_msg("case %zu: rc %d err '%s', want '%s'", i, rc, err, c->err);
        assert_ptr_equal(ks, (struct api_keys *)0x1); /* not written on failure */
        if (path)
            unlink(path);
    }
}

/* A line too long for the reader is refused, never split into keys that each work. */
static void test_keys_file_long_line(void **state)
{
    (void)state;
    char content[1600];
    memset(content, 'k', 1501);
    snprintf(content + 1501, sizeof(content) - 1501, "\n");
    char *path = write_temp(content);
    struct api_keys *ks = NULL;
    char err[512] = "", want[600];
    assert_int_equal(api_keys_load(NULL, path, &ks, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "TE_API_KEYS_FILE: %s line 1 is longer than 1022 characters",
             path);
    assert_string_equal(err, want);
    assert_null(ks);
    unlink(path);
    /* 1022 characters and the newline fit */
    memset(content, 'k', 1022);
    snprintf(content + 1022, sizeof(content) - 1022, "\n");
    path = write_temp(content);
    ks = load_ok(NULL, path);
    assert_int_equal(api_keys_count(ks), 1);
    api_keys_free(ks);
    unlink(path);
}

static void test_keys_missing_file(void **state)
{
    (void)state;
    struct api_keys *ks = NULL;
    char err[256];
    assert_int_equal(api_keys_load(K1, "/nonexistent/te/keys", &ks, err, sizeof(err)), -1);
    assert_string_equal(err, "TE_API_KEYS_FILE: cannot open /nonexistent/te/keys: No such file "
                             "or directory");
    assert_null(ks);
}

static void test_keys_limit(void **state)
{
    (void)state;
    struct buf csv = BUF_INIT;
    for (int i = 0; i < 64; i++)
        assert_int_equal(buf_printf(&csv, "%s%016d", i ? "," : "", i), 0);
    struct api_keys *ks = load_ok(csv.data, NULL);
    assert_int_equal(api_keys_count(ks), 64);
    assert_true(check(ks, "0000000000000000"));
    assert_true(check(ks, "0000000000000063"));
    assert_false(check(ks, "0000000000000064"));
    api_keys_free(ks);
    assert_int_equal(buf_puts(&csv, ",0000000000000064"), 0);
    char err[256];
    ks = NULL;
    assert_int_equal(api_keys_load(csv.data, NULL, &ks, err, sizeof(err)), -1);
    assert_string_equal(err, "TE_API_KEYS: more than 64 keys");
    assert_null(ks);
    buf_free(&csv);
    api_keys_free(NULL);
}

/* Two loads hash with different random keys but both accept the same keys. */
static void test_keys_independent_sets(void **state)
{
    (void)state;
    struct api_keys *a = load_ok(K1, NULL), *b = load_ok(K2, NULL);
    assert_true(check(a, K1));
    assert_false(check(a, K2));
    assert_true(check(b, K2));
    assert_false(check(b, K1));
    api_keys_free(a);
    api_keys_free(b);
}

int main(void)
{
    if (crypto_init() != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_parse_table),
        cmocka_unit_test(test_key_wipe),
        cmocka_unit_test(test_seal_open_round_trip),
        cmocka_unit_test(test_seal_open_append),
        cmocka_unit_test(test_open_other_name_fails),
        cmocka_unit_test(test_open_other_key_fails),
        cmocka_unit_test(test_open_tampered_fails),
        cmocka_unit_test(test_open_truncated_or_extended_fails),
        cmocka_unit_test(test_seal_nonce_fresh),
        cmocka_unit_test(test_keys_csv),
        cmocka_unit_test(test_keys_reject_others),
        cmocka_unit_test(test_keys_file),
        cmocka_unit_test(test_keys_errors),
        cmocka_unit_test(test_keys_file_long_line),
        cmocka_unit_test(test_keys_missing_file),
        cmocka_unit_test(test_keys_limit),
        cmocka_unit_test(test_keys_independent_sets),
    };
    return cmocka_run_group_tests(tests, setup_keys, NULL);
}
