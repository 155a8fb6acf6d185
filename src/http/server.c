/*
 * HTTP server lifecycle: listener, accept, graceful drain and close.
 * Connections live in conn.c; this file owns the list and counts handles so
 * that `done` runs exactly once, from a close callback, after the last one.
 */
#include "http/http_int.h"

#include "core/log.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LISTEN_BACKLOG 511

/* Used when a config field is 0. */
#define DEFAULT_MAX_HEADER_BYTES (16 * 1024)
#define DEFAULT_MAX_BODY_BYTES (1024 * 1024)
#define DEFAULT_MAX_CONNECTIONS 1024
#define DEFAULT_IDLE_TIMEOUT_MS 60000
#define DEFAULT_REQUEST_TIMEOUT_MS 30000

static void srv_maybe_free(struct http_server *srv)
{
    if (srv->state == HTTP_SRV_CLOSED && !srv->conns)
        free(srv);
}

void http__server_handle_closed(struct http_server *srv)
{
    if (--srv->handles_open > 0 || srv->state != HTTP_SRV_CLOSING)
        return;
    srv->state = HTTP_SRV_CLOSED;
    if (srv->done)
        srv->done(srv->done_arg);
    srv_maybe_free(srv);
}

static void srv_on_handle_closed(uv_handle_t *h)
{
    http__server_handle_closed(h->data);
}

void http__server_unlink(struct http_server *srv, struct http_conn *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        srv->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    srv_maybe_free(srv);
}

/* "host:port", "[v6]:port"; an empty host or "*" means any IPv4 address. */
static int srv_parse_addr(const char *s, struct sockaddr_storage *ss)
{
    char host[64];
    const char *port;
    size_t hlen;
    bool v6 = false;
    if (!s)
        return UV_EINVAL;
    if (s[0] == '[') {
        const char *end = strchr(s, ']');
        if (!end || end[1] != ':')
            return UV_EINVAL;
        hlen = (size_t)(end - s - 1);
        memcpy(host, s + 1, hlen < sizeof(host) ? hlen : 0);
        port = end + 2;
        v6 = true;
    } else {
        const char *colon = strrchr(s, ':');
        if (!colon)
            return UV_EINVAL;
        hlen = (size_t)(colon - s);
        memcpy(host, s, hlen < sizeof(host) ? hlen : 0);
        port = colon + 1;
    }
    if (hlen >= sizeof(host) || (!v6 && memchr(host, ':', hlen)))
        return UV_EINVAL;
    host[hlen] = '\0';
    char *end;
    long p = strtol(port, &end, 10);
    if (!*port || *end || p < 0 || p > 65535 || port[0] == '-' || port[0] == '+')
        return UV_EINVAL;
    if (v6)
        return uv_ip6_addr(host, (int)p, (struct sockaddr_in6 *)ss);
    if (!host[0] || strcmp(host, "*") == 0)
        snprintf(host, sizeof(host), "0.0.0.0");
    else if (strcmp(host, "localhost") == 0)
        snprintf(host, sizeof(host), "127.0.0.1");
    return uv_ip4_addr(host, (int)p, (struct sockaddr_in *)ss);
}

static void srv_apply_defaults(struct http_server_config *cfg)
{
    if (!cfg->max_header_bytes)
        cfg->max_header_bytes = DEFAULT_MAX_HEADER_BYTES;
    if (!cfg->max_body_bytes)
        cfg->max_body_bytes = DEFAULT_MAX_BODY_BYTES;
    if (!cfg->max_connections)
        cfg->max_connections = DEFAULT_MAX_CONNECTIONS;
    if (!cfg->idle_timeout_ms)
        cfg->idle_timeout_ms = DEFAULT_IDLE_TIMEOUT_MS;
    if (!cfg->request_timeout_ms)
        cfg->request_timeout_ms = DEFAULT_REQUEST_TIMEOUT_MS;
}

static void srv_on_connection(uv_stream_t *l, int status)
{
    struct http_server *srv = l->data;
    if (status < 0) {
        log_warn("http: accept: %s", uv_strerror(status));
        return;
    }
    http__conn_accept(srv);
}

static int srv_bind(struct http_server *srv, const struct sockaddr_storage *ss)
{
    struct sockaddr_storage bound;
    int len = sizeof(bound);
    int rc = uv_tcp_bind(&srv->listener, (const struct sockaddr *)ss, 0);
    if (rc == 0)
        rc = uv_listen((uv_stream_t *)&srv->listener, LISTEN_BACKLOG, srv_on_connection);
    if (rc == 0)
        rc = uv_tcp_getsockname(&srv->listener, (struct sockaddr *)&bound, &len);
    if (rc < 0)
        return rc;
    if (bound.ss_family == AF_INET6)
        srv->port = ntohs(((struct sockaddr_in6 *)&bound)->sin6_port);
    else
        srv->port = ntohs(((struct sockaddr_in *)&bound)->sin_port);
    return 0;
}

int http_server_start(uv_loop_t *loop, const struct http_server_config *cfg,
                      struct http_server **out)
{
    struct sockaddr_storage ss;
    struct http_server *srv = NULL;
    int rc = srv_parse_addr(cfg->listen_addr, &ss);
    if (rc < 0 || !cfg->on_request) {
        log_error("http: invalid listen address '%s'", cfg->listen_addr ? cfg->listen_addr : "");
        return UV_EINVAL;
    }
    srv = calloc(1, sizeof(*srv));
    if (!srv)
        return UV_ENOMEM;
    srv->loop = loop;
    srv->cfg = *cfg;
    srv->cfg.listen_addr = NULL; /* not ours to keep */
    srv_apply_defaults(&srv->cfg);
    http__conn_settings(&srv->settings);
    uv_timer_init(loop, &srv->sentinel);
    uv_tcp_init(loop, &srv->listener);
    srv->sentinel.data = srv->listener.data = srv;
    srv->handles_open = 2;
    rc = srv_bind(srv, &ss);
    if (rc < 0)
        goto fail;
    log_info("http: listening on %s (port %d)", cfg->listen_addr, srv->port);
    *out = srv;
    return 0;
fail:
    log_error("http: cannot listen on %s: %s", cfg->listen_addr, uv_strerror(rc));
    srv->state = HTTP_SRV_CLOSING; /* freed by the close callbacks; no `done` */
    uv_close((uv_handle_t *)&srv->listener, srv_on_handle_closed);
    uv_close((uv_handle_t *)&srv->sentinel, srv_on_handle_closed);
    return rc;
}

int http_server_port(const struct http_server *srv)
{
    return srv->port;
}

unsigned http_server_open_connections(const struct http_server *srv)
{
    return srv->nconns;
}

void http_server_stop_accepting(struct http_server *srv)
{
    if (srv->state != HTTP_SRV_RUNNING)
        return;
    srv->state = HTTP_SRV_DRAINING;
    uv_close((uv_handle_t *)&srv->listener, srv_on_handle_closed);
    for (struct http_conn *c = srv->conns; c; c = c->next)
        http__conn_drain(c);
    log_info("http: stopped accepting; %u connections open", srv->nconns);
}

void http_server_close(struct http_server *srv, void (*done)(void *arg), void *arg)
{
    if (srv->state == HTTP_SRV_CLOSING || srv->state == HTTP_SRV_CLOSED)
        return;
    if (srv->state == HTTP_SRV_RUNNING)
        uv_close((uv_handle_t *)&srv->listener, srv_on_handle_closed);
    srv->state = HTTP_SRV_CLOSING;
    srv->done = done;
    srv->done_arg = arg;
    for (struct http_conn *c = srv->conns; c; c = c->next)
        http__conn_close(c);
    uv_close((uv_handle_t *)&srv->sentinel, srv_on_handle_closed);
}
