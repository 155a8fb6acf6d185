/*
 * Template placeholders: {{input.a.b}}, {{config.x}}, {{secret.y}} inside
 * strings (spaces inside the braces are allowed: {{ input.a }}). A "{{" that
 * does not start a well-formed placeholder is an error, so typos such as
 * {{inptu.x}} or {{input.x} are caught when an endpoint is registered.
 */
#ifndef TE_DOMAIN_TEMPLATE_H
#define TE_DOMAIN_TEMPLATE_H

#include "core/buf.h"
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
int template_scan_json(const cJSON *v, const char *where, template_ref_cb cb, void *arg, char *err,
                       size_t errlen);

/* ---- Rendering ---- */

/* Results of the render functions besides 0. */
#define TEMPLATE_EINVAL (-1) /* malformed placeholder or unresolvable variable (err says which) */
#define TEMPLATE_ENOMEM (-2)

/*
 * Returns the plaintext of the secret named name[0..len) (not NUL-terminated),
 * or NULL when there is no such secret. The string must stay valid until the
 * render call returns; it is copied into the output.
 *
 * The callback is also how the caller learns which secrets went into a
 * rendered request: every plaintext it returns may appear in the output, so
 * recording them there gives exactly the list to pass to template_redact()
 * for everything recorded about the delivery. It may be called more than once
 * for the same name.
 */
typedef const char *(*template_secret_fn)(void *arg, const char *name, size_t len);

struct template_vars {
    const cJSON *input;        /* the job's input; NULL: no {{input.*}} resolves */
    const cJSON *config;       /* the endpoint's config object; NULL: no {{config.*}} resolves */
    template_secret_fn secret; /* NULL: no {{secret.*}} resolves */
    void *secret_arg;
};

/*
 * Rendering rules (the brief: {{config.*}} and {{secret.*}} resolve first,
 * then {{input.*}}):
 *  - Each string is scanned once. All its config and secret placeholders are
 *    resolved first, then its input placeholders (so an execution that has
 *    both kinds unresolvable reports the config/secret one), and every value
 *    is substituted exactly once: substituted text is never scanned again.
 *    A config or input value containing "{{secret.x}}" stays literal, so job
 *    input cannot pull a secret into a request by naming it.
 *  - A string that is exactly one placeholder (nothing else, not even spaces
 *    around the braces) becomes the variable's JSON value with its type:
 *    number, bool, null, object or array (copied verbatim, not rendered).
 *    A secret is a string.
 *  - A placeholder inside a longer string is stringified: strings are
 *    inserted raw, anything else as compact JSON ("42", "true", "null",
 *    "{\"a\":1}").
 *  - Paths: "a.b.c" walks object members (first member of that name); a
 *    segment of decimal digits indexes an array ({{input.items.0.id}}). A
 *    member present with value null resolves to null.
 *  - A missing member, an index out of range, a step into a scalar, an
 *    unknown secret or a NULL source fails with "unresolvable template
 *    variable {{input.user.name}}".
 */

/*
 * Deep-copies the template (any JSON value), rendering every string value;
 * object member names are left as they are. *out is a new tree the caller
 * deletes with cJSON_Delete (NULL on failure). Returns 0, TEMPLATE_EINVAL or
 * TEMPLATE_ENOMEM.
 */
int template_render(const cJSON *tpl, const struct template_vars *vars, cJSON **out, char *err,
                    size_t errlen) TE_MUSTCHECK;
/*
 * Renders one plain string (URL, header value, topic, key), every value
 * stringified, appending the result to `out`. On failure `out` is left as it
 * was. Returns 0, TEMPLATE_EINVAL or TEMPLATE_ENOMEM.
 */
int template_render_string(const char *s, const struct template_vars *vars, struct buf *out,
                           char *err, size_t errlen) TE_MUSTCHECK;

/*
 * Appends text[0..len) to `out` with every occurrence of every secret hidden
 * behind "***". Used on everything recorded about a delivery (response
 * bodies, error messages, log lines) before it is stored or embedded
 * anywhere else (text escaped twice is not recognized).
 *  - NULL and empty entries in `secrets` are skipped; any other length
 *    counts, so a one-character secret hides every such character.
 *  - A secret matches raw, or as any JSON encoder may write it inside a
 *    string: each character literal or escaped (\" \\ \/ \b \f \n \r \t, or
 *    \uXXXX with hex digits in either case and surrogate pairs), except that
 *    a backslash must then be escaped. So the secret p"w\ is also found as
 *    p\"w\\ or p\u0022w\u005C, and pä as p\u00e4.
 *  - At each position the longest match wins, and occurrences that overlap
 *    or touch are hidden together behind one "***" (replacing secrets one
 *    after another would leave visible the tail of a secret that overlaps
 *    another one, and one "***" per run shows nothing of how many there were).
 * Returns 0 or -1 (out of memory; `out` is left as it was).
 */
int template_redact(const char *text, size_t len, const char *const *secrets, int nsecrets,
                    struct buf *out) TE_MUSTCHECK;

#endif
