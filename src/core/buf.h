/*
 * Growable byte buffer. The buffer owns `data`; buf_free() releases it.
 * data is always NUL-terminated when len > 0 or after any append, so it can be
 * used as a C string. Appends return 0 or -1 (out of memory; the buffer is
 * unchanged).
 */
#ifndef TE_CORE_BUF_H
#define TE_CORE_BUF_H

#include "core/common.h"

struct buf {
    char *data;
    size_t len;
    size_t cap;
};

#define BUF_INIT                                                                                   \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

int buf_reserve(struct buf *b, size_t extra) TE_MUSTCHECK;
int buf_append(struct buf *b, const void *p, size_t n) TE_MUSTCHECK;
int buf_puts(struct buf *b, const char *s) TE_MUSTCHECK;
int buf_putc(struct buf *b, char c) TE_MUSTCHECK;
int buf_printf(struct buf *b, const char *fmt, ...) TE_PRINTF(2, 3) TE_MUSTCHECK;
/* Appends s as a JSON string literal, quotes included. */
int buf_json_str(struct buf *b, const char *s, size_t n) TE_MUSTCHECK;
void buf_consume(struct buf *b, size_t n);
void buf_reset(struct buf *b);
void buf_free(struct buf *b);
/* Hands the storage to the caller (who frees it with free()); the buffer is emptied. */
char *buf_steal(struct buf *b);

#endif
