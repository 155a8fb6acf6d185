/*
 * Secrets at rest and API keys, on libsodium.
 *
 * Secrets: XChaCha20-Poly1305 (IETF AEAD) under a 32-byte key, a fresh
 * random 24-byte nonce per seal, and the secret's name bound as associated
 * data (a sealed value copied onto another name does not open). Stored form:
 * 0x01 | nonce(24) | ciphertext+tag.
 *
 * API keys: only keyed BLAKE2b hashes (the hashing key is random per process)
 * are kept in memory; a presented key is hashed and compared against every
 * stored hash in constant time.
 */
#ifndef TE_CRYPTO_CRYPTO_H
#define TE_CRYPTO_CRYPTO_H

#include "core/buf.h"
#include "core/common.h"

#define CRYPTO_KEY_BYTES 32

int crypto_init(void) TE_MUSTCHECK;

struct secret_key {
    uint8_t k[CRYPTO_KEY_BYTES];
};

/* Accepts 64 hex digits or base64 (standard or URL-safe, padding optional) of 32 bytes. */
int secret_key_parse(const char *text, struct secret_key *out) TE_MUSTCHECK;
void secret_key_wipe(struct secret_key *k);
int secret_seal(const struct secret_key *k, const char *name, const void *plain, size_t len,
                struct buf *out) TE_MUSTCHECK;
/* Returns -1 when the value was not sealed under this key and name (or is damaged). */
int secret_open(const struct secret_key *k, const char *name, const void *sealed, size_t len,
                struct buf *out) TE_MUSTCHECK;

struct api_keys;
/* Keys from a comma-separated list and/or a file (one per line, '#' comments). */
int api_keys_load(const char *csv, const char *file, struct api_keys **out, char *err,
                  size_t errlen) TE_MUSTCHECK;
bool api_keys_check(const struct api_keys *ks, const char *key, size_t len);
size_t api_keys_count(const struct api_keys *ks);
void api_keys_free(struct api_keys *ks);

#endif
