#include "crypto/crypto.h"

#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEAL_VERSION 0x01
#define NONCE_BYTES crypto_aead_xchacha20poly1305_ietf_NPUBBYTES
#define TAG_BYTES crypto_aead_xchacha20poly1305_ietf_ABYTES
#define AD_PREFIX "taskexec-secret:v1:"
#define MAX_API_KEYS 64
#define HASH_BYTES 32

int crypto_init(void)
{
    return sodium_init() < 0 ? -1 : 0;
}

static int decode_hex_key(const char *text, size_t len, struct secret_key *out)
{
    size_t bin_len = 0;
    if (len != CRYPTO_KEY_BYTES * 2)
        return -1;
    if (sodium_hex2bin(out->k, sizeof(out->k), text, len, NULL, &bin_len, NULL) != 0)
        return -1;
    return bin_len == CRYPTO_KEY_BYTES ? 0 : -1;
}

static int decode_b64_key(const char *text, size_t len, struct secret_key *out)
{
    static const int variants[] = {
        sodium_base64_VARIANT_ORIGINAL, sodium_base64_VARIANT_ORIGINAL_NO_PADDING,
        sodium_base64_VARIANT_URLSAFE, sodium_base64_VARIANT_URLSAFE_NO_PADDING};
    for (size_t i = 0; i < TE_ARRAY_LEN(variants); i++) {
        size_t bin_len = 0;
        uint8_t tmp[CRYPTO_KEY_BYTES + 8];
        if (sodium_base642bin(tmp, sizeof(tmp), text, len, NULL, &bin_len, NULL, variants[i]) ==
                0 &&
            bin_len == CRYPTO_KEY_BYTES) {
            memcpy(out->k, tmp, CRYPTO_KEY_BYTES);
            sodium_memzero(tmp, sizeof(tmp));
            return 0;
        }
        sodium_memzero(tmp, sizeof(tmp));
    }
    return -1;
}

int secret_key_parse(const char *text, struct secret_key *out)
{
    if (!text)
        return -1;
    size_t len = strlen(text);
    while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
        len--;
    if (decode_hex_key(text, len, out) == 0 || decode_b64_key(text, len, out) == 0)
        return 0;
    sodium_memzero(out, sizeof(*out));
    return -1;
}

void secret_key_wipe(struct secret_key *k)
{
    sodium_memzero(k, sizeof(*k));
}

static int build_ad(const char *name, struct buf *ad)
{
    return buf_puts(ad, AD_PREFIX) | buf_puts(ad, name);
}

int secret_seal(const struct secret_key *k, const char *name, const void *plain, size_t len,
                struct buf *out)
{
    struct buf ad = BUF_INIT;
    int rc = -1;
    if (build_ad(name, &ad) < 0 || buf_reserve(out, 1 + NONCE_BYTES + len + TAG_BYTES) < 0)
        goto done;
    uint8_t *p = (uint8_t *)out->data + out->len;
    p[0] = SEAL_VERSION;
    randombytes_buf(p + 1, NONCE_BYTES);
    unsigned long long clen = 0;
    if (crypto_aead_xchacha20poly1305_ietf_encrypt(p + 1 + NONCE_BYTES, &clen, plain, len,
                                                   (const uint8_t *)ad.data, ad.len, NULL, p + 1,
                                                   k->k) != 0)
        goto done;
    out->len += 1 + NONCE_BYTES + (size_t)clen;
    out->data[out->len] = '\0';
    rc = 0;
done:
    buf_free(&ad);
    return rc;
}

int secret_open(const struct secret_key *k, const char *name, const void *sealed, size_t len,
                struct buf *out)
{
    const uint8_t *s = sealed;
    struct buf ad = BUF_INIT;
    int rc = -1;
    if (len < 1 + NONCE_BYTES + TAG_BYTES || s[0] != SEAL_VERSION)
        goto done;
    size_t clen = len - 1 - NONCE_BYTES;
    if (build_ad(name, &ad) < 0 || buf_reserve(out, clen) < 0)
        goto done;
    unsigned long long plen = 0;
    if (crypto_aead_xchacha20poly1305_ietf_decrypt(
            (uint8_t *)out->data + out->len, &plen, NULL, s + 1 + NONCE_BYTES, clen,
            (const uint8_t *)ad.data, ad.len, s + 1, k->k) != 0)
        goto done;
    out->len += (size_t)plen;
    out->data[out->len] = '\0';
    rc = 0;
done:
    buf_free(&ad);
    return rc;
}

struct api_keys {
    uint8_t hash_key[crypto_generichash_KEYBYTES];
    uint8_t hashes[MAX_API_KEYS][HASH_BYTES];
    size_t n;
};

static void key_hash(const struct api_keys *ks, const char *key, size_t len,
                     uint8_t out[HASH_BYTES])
{
    crypto_generichash(out, HASH_BYTES, (const uint8_t *)key, len, ks->hash_key,
                       sizeof(ks->hash_key));
}

static int add_key(struct api_keys *ks, const char *s, size_t len, char *err, size_t errlen)
{
    while (len && (*s == ' ' || *s == '\t')) {
        s++;
        len--;
    }
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
        len--;
    if (!len)
        return 0;
    if (ks->n == MAX_API_KEYS) {
        snprintf(err, errlen, "TE_API_KEYS: more than %d keys", MAX_API_KEYS);
        return -1;
    }
    if (len < 16) {
        snprintf(err, errlen, "TE_API_KEYS: every key must be at least 16 characters");
        return -1;
    }
    key_hash(ks, s, len, ks->hashes[ks->n++]);
    return 0;
}

static int load_key_file(struct api_keys *ks, const char *file, char *err, size_t errlen)
{
    FILE *f = fopen(file, "r");
    if (!f) {
        snprintf(err, errlen, "TE_API_KEYS_FILE: cannot open %s: %s", file, strerror(errno));
        return -1;
    }
    char line[1024];
    int rc = 0, lineno = 0;
    while (rc == 0 && fgets(line, sizeof(line), f)) {
        size_t len = strcspn(line, "\n");
        lineno++;
        if (line[len] != '\n' && !feof(f)) {
            /* never split a long line into several keys that would each work */
            snprintf(err, errlen, "TE_API_KEYS_FILE: %s line %d is longer than %zu characters",
                     file, lineno, sizeof(line) - 2);
            rc = -1;
            break;
        }
        if (line[0] == '#')
            continue;
        rc = add_key(ks, line, len, err, errlen);
    }
    sodium_memzero(line, sizeof(line));
    fclose(f);
    return rc;
}

int api_keys_load(const char *csv, const char *file, struct api_keys **out, char *err,
                  size_t errlen)
{
    struct api_keys *ks = calloc(1, sizeof(*ks));
    if (!ks) {
        snprintf(err, errlen, "TE_API_KEYS: out of memory");
        return -1;
    }
    randombytes_buf(ks->hash_key, sizeof(ks->hash_key));
    for (const char *p = csv; p && *p;) {
        size_t n = strcspn(p, ",");
        if (add_key(ks, p, n, err, errlen) < 0)
            goto fail;
        p += n;
        if (*p == ',')
            p++;
    }
    if (file && *file && load_key_file(ks, file, err, errlen) < 0)
        goto fail;
    if (ks->n == 0) {
        snprintf(err, errlen,
                 "TE_API_KEYS: no API key configured (set TE_API_KEYS or "
                 "TE_API_KEYS_FILE)");
        goto fail;
    }
    *out = ks;
    return 0;
fail:
    api_keys_free(ks);
    return -1;
}

bool api_keys_check(const struct api_keys *ks, const char *key, size_t len)
{
    uint8_t h[HASH_BYTES];
    key_hash(ks, key, len, h);
    int match = 0;
    /* Compare with every stored hash, so timing does not depend on which one matched. */
    for (size_t i = 0; i < ks->n; i++)
        match |= sodium_memcmp(h, ks->hashes[i], HASH_BYTES) == 0;
    return match != 0;
}

size_t api_keys_count(const struct api_keys *ks)
{
    return ks->n;
}

void api_keys_free(struct api_keys *ks)
{
    if (!ks)
        return;
    sodium_memzero(ks, sizeof(*ks));
    free(ks);
}
