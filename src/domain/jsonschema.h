/*
 * JSON Schema validation on cJSON documents: Draft 2020-12 by default, draft-07 when the
 * root's $schema is http://json-schema.org/draft-07/schema (with or without "#") or when
 * the caller picks it as the default (jsonschema_options.default_draft). Documents that
 * declare draft 2019-09 are processed with its rules (items/additionalItems) except
 * $recursiveRef, which is rejected. A $schema naming another meta-schema is loaded through
 * the resolver and its $vocabulary honoured. In 2020-12 the old `dependencies` keyword is
 * still applied, as the official suite expects.
 *
 * Typical use, by whoever accepts a schema from a user:
 *   jsonschema_check(doc, err, sizeof(err))          -> 0, or -1 with "/ptr: problem"
 *   jsonschema_compile(doc, &opts, &s, err, ...)     -> compiled, self-contained schema
 *   jsonschema_validate(s, instance, &errs)          -> 0 valid, JSONSCHEMA_EINVALID + errs
 *   jsonschema_errors_to_json(&errs)                 -> [{"path","keyword","message"}]
 *
 * Safety: patterns use domain/regex (ECMA-262, bounded by a step budget per match and per
 * validation); evaluation depth and the number of schema evaluations are bounded (an
 * infinite $ref loop or an exponential fan-out ends in a validation error, not a crash or
 * a hang); documents are only obtained from the built-in meta-schemas and the caller's
 * resolver, never the network.
 * A compiled schema owns copies of every document it uses and is immutable, so one may be
 * shared by concurrent validations.
 *
 * Not supported: `format` assertion (format is an annotation; a meta-schema requiring the
 * format-assertion vocabulary is rejected), content* assertion (annotations), $recursiveRef
 * (2019-09), draft-06 and older (rejected), and any vocabulary not listed above when a
 * meta-schema requires it.
 */
#ifndef TE_DOMAIN_JSONSCHEMA_H
#define TE_DOMAIN_JSONSCHEMA_H

#include "core/common.h"

#include <cjson/cJSON.h>

#define JSONSCHEMA_EINVALID (-1) /* invalid schema / instance does not validate */
#define JSONSCHEMA_ENOMEM (-2)

#define JSONSCHEMA_DEFAULT_MAX_ERRORS 50u
#define JSONSCHEMA_DEFAULT_DEPTH 1000u           /* nesting of schema evaluations */
#define JSONSCHEMA_DEFAULT_EVALUATIONS 5000000u  /* schema evaluations per validation */
#define JSONSCHEMA_DEFAULT_REGEX_TOTAL 50000000u /* regex steps per validation */

/*
 * Returns the document for an absolute URI without fragment (e.g.
 * "http://localhost:1234/tree.json"), or NULL if unknown. The result is copied during
 * jsonschema_compile, so it only has to live until the resolver is called again.
 */
typedef const cJSON *(*jsonschema_resolve_fn)(void *arg, const char *absolute_uri);

enum jsonschema_draft {
    JSONSCHEMA_DRAFT_2020_12 = 0,
    JSONSCHEMA_DRAFT_7 = 1,
};

struct jsonschema_options {
    jsonschema_resolve_fn resolve; /* NULL: only the built-in meta-schemas resolve */
    void *resolve_arg;
    const char *base_uri;                /* base URI of a root without $id; NULL: none */
    unsigned max_depth;                  /* 0: JSONSCHEMA_DEFAULT_DEPTH */
    uint32_t regex_steps;                /* per pattern match; 0: REGEX_DEFAULT_STEPS */
    enum jsonschema_draft default_draft; /* dialect of a root without $schema */
    /* Whole-validation budgets, against schemas whose $refs fan out exponentially or that
     * match many patterns against many strings; 0: the defaults above. */
    uint64_t max_evaluations;
    uint64_t regex_total_steps;
};

struct jsonschema;

struct jsonschema_error {
    char *path;          /* JSON Pointer into the instance, "" for the root */
    const char *keyword; /* static string, e.g. "required" */
    char *message;       /* e.g. missing required property "user_id" */
};

struct jsonschema_errors {
    struct jsonschema_error *items;
    size_t count;
    size_t max;     /* keep at most this many (0: JSONSCHEMA_DEFAULT_MAX_ERRORS) */
    bool truncated; /* the list filled up: evaluation stopped collecting there */
};

/*
 * Checks that schema is a valid schema of its draft (2020-12 unless the root's $schema
 * names draft-07 or 2019-09) for every keyword it uses (types, ranges, uniqueness, regex
 * syntax), recursing into all subschemas; unknown keywords are allowed. Returns 0, or
 * JSONSCHEMA_EINVALID with e.g. "/properties/age/minimum: must be a number" in err
 * ("(root): ..." for the document itself). jsonschema_compile runs the same check.
 */
int jsonschema_check(const cJSON *schema, char *err, size_t errlen) TE_MUSTCHECK;

/*
 * Checks and compiles schema, resolving every $ref (through opts->resolve for external
 * documents). opts may be NULL. Returns 0 and *out (free with jsonschema_free), or
 * JSONSCHEMA_EINVALID with a message in err, or JSONSCHEMA_ENOMEM.
 */
int jsonschema_compile(const cJSON *schema, const struct jsonschema_options *opts,
                       struct jsonschema **out, char *err, size_t errlen) TE_MUSTCHECK;

/*
 * Returns 0 if instance is valid, JSONSCHEMA_EINVALID if not (failures appended to errs
 * when errs is not NULL), JSONSCHEMA_ENOMEM. Exceeding the depth limit or a budget makes
 * the instance invalid with an explanatory error (keyword "$ref", "pattern" or
 * "patternProperties").
 */
int jsonschema_validate(const struct jsonschema *s, const cJSON *instance,
                        struct jsonschema_errors *errs) TE_MUSTCHECK;

void jsonschema_free(struct jsonschema *s);

void jsonschema_errors_init(struct jsonschema_errors *e, size_t max);
void jsonschema_errors_free(struct jsonschema_errors *e); /* leaves e empty, reusable */
/* [{"path": "/a", "keyword": "type", "message": "..."}]; NULL if out of memory. */
cJSON *jsonschema_errors_to_json(const struct jsonschema_errors *e);

#endif
