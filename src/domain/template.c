#include "domain/template.h"

#include <stdio.h>
#include <string.h>

static bool is_seg_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
}

static const struct {
    const char *name;
    enum template_ns ns;
} namespaces[] = {{"input", TPL_INPUT}, {"config", TPL_CONFIG}, {"secret", TPL_SECRET}};

/* Parses the placeholder starting at s[i] == "{{"; fills ref or returns -1. */
static int parse_placeholder(const char *s, size_t len, size_t i, struct template_ref *ref)
{
    size_t p = i + 2;
    while (p < len && s[p] == ' ')
        p++;
    size_t ns_start = p;
    while (p < len && s[p] >= 'a' && s[p] <= 'z')
        p++;
    size_t ns_len = p - ns_start;
    bool found = false;
    for (size_t k = 0; k < TE_ARRAY_LEN(namespaces); k++) {
        if (strlen(namespaces[k].name) == ns_len &&
            memcmp(namespaces[k].name, s + ns_start, ns_len) == 0) {
            ref->ns = namespaces[k].ns;
            found = true;
        }
    }
    if (!found || p >= len || s[p] != '.')
        return -1;
    size_t path_start = ++p;
    for (;;) {
        size_t seg = p;
        while (p < len && is_seg_char(s[p]))
            p++;
        if (p == seg)
            return -1;
        if (p < len && s[p] == '.') {
            p++;
            continue;
        }
        break;
    }
    ref->path = s + path_start;
    ref->path_len = p - path_start;
    while (p < len && s[p] == ' ')
        p++;
    if (p + 1 >= len || s[p] != '}' || s[p + 1] != '}')
        return -1;
    ref->start = i;
    ref->end = p + 2;
    return 0;
}

int template_scan(const char *s, size_t len, template_ref_cb cb, void *arg, char *err,
                  size_t errlen)
{
    for (size_t i = 0; i + 1 < len; i++) {
        if (s[i] != '{' || s[i + 1] != '{')
            continue;
        struct template_ref ref;
        if (parse_placeholder(s, len, i, &ref) < 0) {
            snprintf(err, errlen,
                     "malformed placeholder at character %zu (expected {{input.x}}, "
                     "{{config.x}} or {{secret.x}})",
                     i + 1);
            return -1;
        }
        int rc = cb ? cb(arg, &ref) : 0;
        if (rc)
            return rc;
        i = ref.end - 1;
    }
    return 0;
}

static int scan_node(const cJSON *v, char *path, size_t cap, template_ref_cb cb, void *arg,
                     char *err, size_t errlen)
{
    size_t base = strlen(path);
    if (cJSON_IsString(v)) {
        char msg[200];
        int rc = template_scan(v->valuestring, strlen(v->valuestring), cb, arg, msg, sizeof(msg));
        if (rc == -1)
            snprintf(err, errlen, "%s: %s", path, msg);
        return rc;
    }
    int idx = 0;
    for (const cJSON *c = v->child; c && (cJSON_IsObject(v) || cJSON_IsArray(v)); c = c->next) {
        if (cJSON_IsObject(v))
            snprintf(path + base, cap - base, ".%s", c->string);
        else
            snprintf(path + base, cap - base, "[%d]", idx);
        idx++;
        int rc = scan_node(c, path, cap, cb, arg, err, errlen);
        path[base] = '\0';
        if (rc)
            return rc;
    }
    return 0;
}

int template_scan_json(const cJSON *v, const char *where, template_ref_cb cb, void *arg,
                       char *err, size_t errlen)
{
    char path[512];
    snprintf(path, sizeof(path), "%s", where);
    return scan_node(v, path, sizeof(path), cb, arg, err, errlen);
}
