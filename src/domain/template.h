/*
 * Template placeholders: {{input.a.b}}, {{config.x}}, {{secret.y}} inside
 * strings (spaces inside the braces are allowed: {{ input.a }}). A "{{" that
 * does not start a well-formed placeholder is an error, so typos such as
 * {{inptu.x}} or {{input.x} are caught when an endpoint is registered.
 */
#ifndef TE_DOMAIN_TEMPLATE_H
#define TE_DOMAIN_TEMPLATE_H

#include "core/common.h"

#include <cjson/cJSON.h>

enum template_ns { TPL_INPUT, TPL_CONFIG, TPL_SECRET };

struct template_ref {
    enum template_ns ns;
    const char *path; /* "a.b" — not NUL-terminated */
    size_t path_len;
    size_t start, end; /* the placeholder's byte range in the string, braces included */
};

/* Returns non-zero to stop the scan (template_scan then returns that value). */
typedef int (*template_ref_cb)(void *arg, const struct template_ref *ref);

/* Scans one string. 0 ok, -1 malformed (err says where), or the callback's non-zero value. */
int template_scan(const char *s, size_t len, template_ref_cb cb, void *arg, char *err,
                  size_t errlen);
/*
 * Scans every string value in a JSON tree; `where` names the root in messages
 * ("spec" gives "spec.headers.Authorization").
 */
int template_scan_json(const cJSON *v, const char *where, template_ref_cb cb, void *arg,
                       char *err, size_t errlen);

#endif
