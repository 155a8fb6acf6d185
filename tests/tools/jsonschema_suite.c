/*
 * Runs the official JSON-Schema-Test-Suite against domain/jsonschema.
 *
 *   jsonschema_suite <suite-dir> <draft2020-12|draft7> [--optional]
 *
 * Runs every .json file at the top of <suite-dir>/<draft>/ (and those in <draft>/optional/, not
 * optional/format/, with --optional). URLs under http://localhost:1234/ are served from
 * <suite-dir>/remotes/ through the resolver callback; nothing is fetched. Prints each
 * failing test and ends with "<draft>: N passed, M failed"; exits 1 on any failure.
 */
#include "domain/jsonschema.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REMOTE_PREFIX "http://localhost:1234/"

struct remote {
    char *uri;
    cJSON *doc;
};

struct suite {
    const char *dir;
    enum jsonschema_draft draft;
    struct remote *remotes;
    size_t nremotes;
    size_t passed, failed;
};

static cJSON *parse_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long len;
    cJSON *doc = NULL;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        text = malloc((size_t)len + 1);
        if (text && fread(text, 1, (size_t)len, f) == (size_t)len) {
            text[len] = '\0';
            doc = cJSON_Parse(text);
        }
    }
    free(text);
    fclose(f);
    return doc;
}

/* Serves http://localhost:1234/<path> from <suite>/remotes/<path>, as the suite's README
 * asks of a harness. */
static const cJSON *resolve(void *arg, const char *uri)
{
    struct suite *s = arg;
    char path[4096];
    struct remote *nr;
    cJSON *doc;

    for (size_t i = 0; i < s->nremotes; i++) {
        if (strcmp(s->remotes[i].uri, uri) == 0)
            return s->remotes[i].doc;
    }
    if (strncmp(uri, REMOTE_PREFIX, strlen(REMOTE_PREFIX)) != 0 || strstr(uri, ".."))
        return NULL;
    snprintf(path, sizeof(path), "%s/remotes/%s", s->dir, uri + strlen(REMOTE_PREFIX));
    doc = parse_file(path);
    if (!doc)
        return NULL;
    nr = realloc(s->remotes, (s->nremotes + 1) * sizeof(*nr));
    if (!nr) {
        cJSON_Delete(doc);
        return NULL;
    }
    s->remotes = nr;
    nr[s->nremotes].uri = strdup(uri);
    nr[s->nremotes].doc = doc;
    s->nremotes++;
    return doc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the *.json files directly in dir. */
static char **list_json(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;

    *count = 0;
    if (!d)
        return NULL;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        char **nn;
        if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0)
            continue;
        nn = realloc(names, (*count + 1) * sizeof(*nn));
        if (!nn)
            break;
        names = nn;
        names[(*count)++] = strdup(e->d_name);
    }
    closedir(d);
    if (names)
        qsort(names, *count, sizeof(*names), cmp_str);
    return names;
}

static void report_failure(const char *file, const cJSON *group, const cJSON *test, const char *why)
{
    printf("FAIL %s / %s / %s: %s\n", file,
           cJSON_GetStringValue(cJSON_GetObjectItem(group, "description")),
           test ? cJSON_GetStringValue(cJSON_GetObjectItem(test, "description")) : "(all)", why);
}

static void run_test(struct suite *s, const struct jsonschema *js, const char *file,
                     const cJSON *group, const cJSON *test)
{
    struct jsonschema_errors errs;
    const cJSON *data = cJSON_GetObjectItem(test, "data");
    bool expect = cJSON_IsTrue(cJSON_GetObjectItem(test, "valid"));
    char why[512];
    int rc;

    jsonschema_errors_init(&errs, 5);
    rc = jsonschema_validate(js, data, &errs);
    if ((rc == 0) == expect && rc != JSONSCHEMA_ENOMEM) {
        s->passed++;
    } else {
        s->failed++;
        snprintf(why, sizeof(why), "expected %s, got %s%s%s%s%s", expect ? "valid" : "invalid",
                 rc == 0 ? "valid" : "invalid", errs.count ? " (" : "",
                 errs.count ? errs.items[0].path : "", errs.count ? ": " : "",
                 errs.count ? errs.items[0].message : "");
        if (errs.count)
            strncat(why, ")", sizeof(why) - strlen(why) - 1);
        report_failure(file, group, test, why);
    }
    jsonschema_errors_free(&errs);
}

static void run_group(struct suite *s, const char *file, const cJSON *group)
{
    const cJSON *tests = cJSON_GetObjectItem(group, "tests");
    struct jsonschema_options opts;
    struct jsonschema *js = NULL;
    const cJSON *t;
    char err[512], why[600];

    memset(&opts, 0, sizeof(opts));
    opts.resolve = resolve;
    opts.resolve_arg = s;
    opts.default_draft = s->draft;

    if (jsonschema_compile(cJSON_GetObjectItem(group, "schema"), &opts, &js, err, sizeof(err)) !=
        0) {
        snprintf(why, sizeof(why), "schema does not compile: %s", err);
        cJSON_ArrayForEach(t, tests)
        {
            s->failed++;
            report_failure(file, group, t, why);
        }
        return;
    }
    cJSON_ArrayForEach(t, tests)
    {
        run_test(s, js, file, group, t);
    }
    jsonschema_free(js);
}

static int run_dir(struct suite *s, const char *dir, const char *label)
{
    size_t n;
    char **names = list_json(dir, &n), path[4096], file[512];

    if (!names) {
        fprintf(stderr, "jsonschema_suite: no test files in %s\n", dir);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        cJSON *doc, *group;
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        snprintf(file, sizeof(file), "%s%s", label, names[i]);
        doc = parse_file(path);
        if (!cJSON_IsArray(doc)) {
            fprintf(stderr, "jsonschema_suite: cannot parse %s\n", path);
            s->failed++;
        }
        cJSON_ArrayForEach(group, doc)
        {
            run_group(s, file, group);
        }
        cJSON_Delete(doc);
        free(names[i]);
    }
    free(names);
    return 0;
}

int main(int argc, char **argv)
{
    struct suite s = {NULL, JSONSCHEMA_DRAFT_2020_12, NULL, 0, 0, 0};
    size_t req_passed, req_failed;
    bool optional = argc == 4 && strcmp(argv[3], "--optional") == 0;
    char dir[4096];
    int rc = 0;

    if (argc < 3 || argc > 4 || (argc == 4 && !optional) ||
        (strcmp(argv[2], "draft2020-12") != 0 && strcmp(argv[2], "draft7") != 0)) {
        fprintf(stderr, "usage: %s <suite-dir> <draft2020-12|draft7> [--optional]\n", argv[0]);
        return 2;
    }
    s.dir = argv[1];
    /* the draft7 tests carry no $schema: they rely on the harness choosing the dialect */
    if (strcmp(argv[2], "draft7") == 0)
        s.draft = JSONSCHEMA_DRAFT_7;
    snprintf(dir, sizeof(dir), "%s/%s", argv[1], argv[2]);
    rc |= run_dir(&s, dir, "");
    req_passed = s.passed;
    req_failed = s.failed;
    if (optional) {
        snprintf(dir, sizeof(dir), "%s/%s/optional", argv[1], argv[2]);
        rc |= run_dir(&s, dir, "optional/");
        printf("%s required: %zu passed, %zu failed\n", argv[2], req_passed, req_failed);
        printf("%s optional: %zu passed, %zu failed\n", argv[2], s.passed - req_passed,
               s.failed - req_failed);
    }
    printf("%s: %zu passed, %zu failed\n", argv[2], s.passed, s.failed);
    for (size_t i = 0; i < s.nremotes; i++) {
        free(s.remotes[i].uri);
        cJSON_Delete(s.remotes[i].doc);
    }
    free(s.remotes);
    return rc || s.failed ? 1 : 0;
}
