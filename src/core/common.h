/* Shared macros for every module. */
#ifndef TE_CORE_COMMON_H
#define TE_CORE_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define TE_MUSTCHECK __attribute__((warn_unused_result))
#define TE_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define TE_UNUSED __attribute__((unused))
#define TE_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define TE_CONTAINER_OF(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

#endif
