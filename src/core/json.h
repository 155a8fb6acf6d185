/*
 * JSON helpers on cJSON: parsing request bodies, checking an object's fields
 * (types, required, unknown names), printing into a buf.
 */
#ifndef TE_CORE_JSON_H
#define TE_CORE_JSON_H

#include "core/buf.h"
#include "core/common.h"

#include <cjson/cJSON.h>

enum json_type {
    JT_NULL = 1 << 0,
    JT_BOOL = 1 << 1,
    JT_INT = 1 << 2, /* a number with an integral value in int64 range */
    JT_NUMBER = 1 << 3,
    JT_STRING = 1 << 4,
    JT_ARRAY = 1 << 5,
    JT_OBJECT = 1 << 6,
    JT_ANY = (1 << 7) - 1,
};

struct json_field {
    const char *name;
    unsigned types; /* enum json_type bits */
    bool required;  /* present and not null */
};

/* Parses a complete JSON document. On error writes a message with the byte offset. */
int json_parse(const char *text, size_t len, cJSON **out, char *err, size_t errlen) TE_MUSTCHECK;
unsigned json_type_of(const cJSON *v);
const char *json_type_name(unsigned types);
bool json_is_int(const cJSON *v);
/*
 * Checks that obj is an object holding only the listed fields, each of an
 * allowed type, the required ones present, no name twice. `where` prefixes
 * field names in messages ("spec." gives "spec.method"). Returns 0 or -1.
 */
int json_check_fields(const cJSON *obj, const struct json_field *fields, size_t n,
                      const char *where, char *err, size_t errlen) TE_MUSTCHECK;
/* Appends the compact serialization of v. */
int json_print(struct buf *b, const cJSON *v) TE_MUSTCHECK;
/* Object member, or NULL when absent or JSON null. */
const cJSON *json_get(const cJSON *obj, const char *name);

#endif
