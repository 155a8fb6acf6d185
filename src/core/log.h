/*
 * Logging. One line per event on stderr: readable text by default, JSON lines
 * when TE_LOG_FORMAT=json. Each call may carry one context pair (request_id,
 * execution_id, ...). Debug calls cost one comparison when debug is off.
 * Never pass a secret value, an Authorization header or a URL with credentials.
 */
#ifndef TE_CORE_LOG_H
#define TE_CORE_LOG_H

#include "core/common.h"

enum log_level { LOG_DEBUG = 0, LOG_INFO, LOG_WARN, LOG_ERROR };

extern enum log_level log_min_level;

void log_setup(enum log_level min, bool json);
int log_level_parse(const char *s, enum log_level *out) TE_MUSTCHECK;
void log_emit(enum log_level lvl, const char *ctx_key, const char *ctx_val, const char *fmt, ...)
    TE_PRINTF(4, 5);

#define log_at(lvl, key, val, ...)                                                                 \
    do {                                                                                           \
        if ((lvl) >= log_min_level)                                                                \
            log_emit((lvl), (key), (val), __VA_ARGS__);                                            \
    } while (0)

#define log_debug(...) log_at(LOG_DEBUG, NULL, NULL, __VA_ARGS__)
#define log_info(...) log_at(LOG_INFO, NULL, NULL, __VA_ARGS__)
#define log_warn(...) log_at(LOG_WARN, NULL, NULL, __VA_ARGS__)
#define log_error(...) log_at(LOG_ERROR, NULL, NULL, __VA_ARGS__)

/* With a context pair, e.g. log_ctx(LOG_WARN, "request_id", req->id, "...") */
#define log_ctx(lvl, key, val, ...) log_at(lvl, key, val, __VA_ARGS__)

#endif
