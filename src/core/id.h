/*
 * Ids: a resource prefix and a UUIDv7 in 32 lowercase hex digits,
 * e.g. "job_0193a4c1e2f07c3d9a1b2c3d4e5f6a7b". The first 48 bits are the
 * creation time in milliseconds, so ids sort by creation time; within one
 * millisecond a per-process counter keeps them increasing.
 */
#ifndef TE_CORE_ID_H
#define TE_CORE_ID_H

#include "core/common.h"

#define ID_MAX 48

void id_new(const char *prefix, int64_t now_ms, char out[ID_MAX]);
/* True when s is prefix + "_" + 32 lowercase hex digits. */
bool id_valid(const char *prefix, const char *s);

#endif
