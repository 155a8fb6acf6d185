/*
 * Worker caches: config values (TTL TE_CONFIG_CACHE_TTL_SEC) and decrypted
 * secrets (TTL TE_SECRET_CACHE_TTL_SEC), keyed by name. Used only on the loop
 * thread, so no locks. A secret known not to exist is cached too (briefly),
 * so a broken endpoint cannot turn every delivery into a database lookup.
 * The tables are small (names of configs and secrets in use); lookups are a
 * linear scan over at most CACHE_MAX entries, oldest evicted first.
 */
#include "worker/worker_int.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_MAX 512
#define MISSING_TTL_MS 5000

struct entry {
    char *name;
    uint64_t expires_ms;
    cJSON *config; /* config entries */
    char *secret;  /* secret entries; NULL = known missing */
    size_t secret_len;
};

struct table {
    struct entry e[CACHE_MAX];
    int n;
};

struct wcache {
    unsigned config_ttl_ms, secret_ttl_ms;
    struct table configs, secrets;
};

int wcache_new(unsigned config_ttl_ms, unsigned secret_ttl_ms, struct wcache **out)
{
    struct wcache *c = calloc(1, sizeof(*c));
    if (!c)
        return -1;
    c->config_ttl_ms = config_ttl_ms;
    c->secret_ttl_ms = secret_ttl_ms;
    *out = c;
    return 0;
}

static void entry_clear(struct entry *e)
{
    free(e->name);
    cJSON_Delete(e->config);
    if (e->secret) {
        sodium_memzero(e->secret, e->secret_len);
        free(e->secret);
    }
    memset(e, 0, sizeof(*e));
}

void wcache_free(struct wcache *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->configs.n; i++)
        entry_clear(&c->configs.e[i]);
    for (int i = 0; i < c->secrets.n; i++)
        entry_clear(&c->secrets.e[i]);
    free(c);
}

static struct entry *find(struct table *t, const char *name)
{
    for (int i = 0; i < t->n; i++) {
        if (t->e[i].name && strcmp(t->e[i].name, name) == 0)
            return &t->e[i];
    }
    return NULL;
}

/* The entry for name, emptied for reuse: an existing one, a free slot, or the oldest. */
static struct entry *slot(struct table *t, const char *name)
{
    struct entry *e = find(t, name);
    for (int i = 0; !e && i < t->n; i++) {
        if (!t->e[i].name)
            e = &t->e[i]; /* emptied after a failed insert */
    }
    if (!e && t->n < CACHE_MAX)
        e = &t->e[t->n++];
    if (!e) {
        e = &t->e[0];
        for (int i = 1; i < t->n; i++) {
            if (t->e[i].expires_ms < e->expires_ms)
                e = &t->e[i];
        }
    }
    entry_clear(e);
    return e;
}

const cJSON *wcache_config(struct wcache *c, const char *name, uint64_t now_ms)
{
    struct entry *e = find(&c->configs, name);
    return e && e->expires_ms > now_ms ? e->config : NULL;
}

int wcache_secret(struct wcache *c, const char *name, uint64_t now_ms, const char **value)
{
    struct entry *e = find(&c->secrets, name);
    if (!e || e->expires_ms <= now_ms)
        return 0;
    *value = e->secret;
    return e->secret ? 1 : -1;
}

int wcache_put_config(struct wcache *c, const char *name, const char *values_json, uint64_t now_ms)
{
    cJSON *v = cJSON_Parse(values_json);
    if (!v)
        return -1;
    struct entry *e = slot(&c->configs, name);
    e->name = strdup(name);
    if (!e->name) {
        cJSON_Delete(v);
        return -1;
    }
    e->config = v;
    e->expires_ms = now_ms + c->config_ttl_ms;
    return 0;
}

int wcache_put_secret(struct wcache *c, const char *name, const char *value, uint64_t now_ms)
{
    struct entry *e = slot(&c->secrets, name);
    e->name = strdup(name);
    if (value) {
        e->secret_len = strlen(value);
        e->secret = malloc(e->secret_len + 1);
        if (e->secret)
            memcpy(e->secret, value, e->secret_len + 1);
    }
    if (!e->name || (value && !e->secret)) {
        entry_clear(e);
        return -1;
    }
    e->expires_ms = now_ms + (value ? c->secret_ttl_ms : MISSING_TTL_MS);
    return 0;
}
