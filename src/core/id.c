#include "core/id.h"

#include <sodium.h>
#include <stdio.h>
#include <string.h>

static int64_t last_ms = -1;
static uint16_t seq;

void id_new(const char *prefix, int64_t now_ms, char out[ID_MAX])
{
    uint8_t b[16];
    randombytes_buf(b, sizeof(b));
    if (now_ms <= last_ms) {
        now_ms = last_ms;
        seq++;
        if (seq > 0x0fff) {
            /* 4096 ids in one millisecond: borrow the next one. */
            now_ms = ++last_ms;
            seq = (uint16_t)(b[6] & 0x03);
        }
    } else {
        seq = (uint16_t)(((b[6] & 0x03) << 8) | b[7]); /* random start, room to count up */
    }
    last_ms = now_ms;
    uint64_t t = (uint64_t)now_ms;
    for (int i = 0; i < 6; i++)
        b[i] = (uint8_t)(t >> (40 - 8 * i));
    b[6] = (uint8_t)(0x70 | (seq >> 8));
    b[7] = (uint8_t)(seq & 0xff);
    b[8] = (uint8_t)(0x80 | (b[8] & 0x3f));
    static const char hex[] = "0123456789abcdef";
    size_t n = (size_t)snprintf(out, ID_MAX, "%s_", prefix);
    if (n >= ID_MAX)
        n = ID_MAX - 1; /* prefix too long: snprintf truncated it */
    for (int i = 0; i < 16 && n + 2 < ID_MAX; i++) {
        out[n++] = hex[b[i] >> 4];
        out[n++] = hex[b[i] & 15];
    }
    out[n] = '\0';
}

bool id_valid(const char *prefix, const char *s)
{
    size_t pl = strlen(prefix);
    if (strncmp(s, prefix, pl) != 0 || s[pl] != '_')
        return false;
    s += pl + 1;
    for (int i = 0; i < 32; i++) {
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    }
    return s[32] == '\0';
}
