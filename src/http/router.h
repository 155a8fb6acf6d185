/*
 * Path routing: a route is a method and a pattern of literal segments and
 * `{param}` segments. The whole API's table lives in api/routes.c.
 */
#ifndef TE_HTTP_ROUTER_H
#define TE_HTTP_ROUTER_H

#include "http/http.h"

#define ROUTE_MAX_PARAMS 4
#define ROUTE_PARAM_MAX 256

struct route_match {
    int n;
    char params[ROUTE_MAX_PARAMS][ROUTE_PARAM_MAX]; /* percent-decoded */
};

struct route {
    enum http_method method;
    const char *pattern;
    void (*handler)(struct http_req *req, const struct route_match *m);
    bool public; /* no API key needed */
};

enum router_result { ROUTE_FOUND = 0, ROUTE_NO_PATH = -1, ROUTE_NO_METHOD = -2, ROUTE_BAD = -3 };

/*
 * Finds the route for method + path. On ROUTE_NO_METHOD, `allow` lists the
 * path's methods ("GET, PUT, DELETE"). ROUTE_BAD: a parameter is too long or
 * badly percent-encoded.
 */
enum router_result router_match(const struct route *routes, size_t n, enum http_method method,
                                const char *path, const struct route **out, struct route_match *m,
                                char *allow, size_t allowlen);

#endif
