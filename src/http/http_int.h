/*
 * Internals of the HTTP server shared by server.c (listener, lifecycle),
 * conn.c (one connection: parser, timers, writes) and req.c (request
 * accessors, ids, status texts). Not for use outside src/http/.
 *
 * Ownership, in one place:
 * - struct http_server owns its listener and a sentinel timer, and the list of
 *   every struct http_conn not yet freed. It is freed once http_server_close()
 *   has seen every handle closed (then `done` ran) and the list is empty.
 * - struct http_conn owns a uv_tcp_t and a uv_timer_t (freed after both close
 *   callbacks) and embeds the one request it parses at a time. It is freed
 *   when its handles are closed and no handler holds that request.
 */
#ifndef TE_HTTP_HTTP_INT_H
#define TE_HTTP_HTTP_INT_H

#include "http/http.h"

#include <llhttp.h>

#define HTTP_MAX_HEADERS 100

enum http_srv_state {
    HTTP_SRV_RUNNING,  /* listening */
    HTTP_SRV_DRAINING, /* listener closed; connections end after their current response */
    HTTP_SRV_CLOSING,  /* every handle is being closed; `done` runs when the last one is */
    HTTP_SRV_CLOSED,   /* `done` ran; memory kept only while handlers hold requests */
};

/*
 * Connection phases. The connection's single timer means something different
 * in each phase (see conn_set_state in conn.c).
 */
enum http_conn_state {
    HTTP_CONN_IDLE,    /* between requests; timer: keep-alive idle limit */
    HTTP_CONN_READING, /* a request is arriving; timer: idle limit from its first byte */
    HTTP_CONN_WAITING, /* the handler holds the request; timer: request deadline (504) */
    HTTP_CONN_WRITING, /* a response is in flight; timer: write stall limit */
    HTTP_CONN_LINGER,  /* last response sent, write side shut; draining until EOF or timer */
    HTTP_CONN_CLOSING, /* uv_close issued on tcp and timer */
    HTTP_CONN_CLOSED,  /* both handles closed; memory kept while a handler holds the request */
};

/* Who owns the request embedded in a connection. */
enum http_req_state {
    HTTP_REQ_FREE,     /* the server: being parsed, or none */
    HTTP_REQ_HELD,     /* the handler; its response will be sent */
    HTTP_REQ_ORPHANED, /* the handler; its response will be dropped (client gone, 504 sent) */
};

/* Where the parser is inside the current request. */
enum http_parse_phase {
    HTTP_PARSE_HEAD,  /* request line, or between two headers */
    HTTP_PARSE_NAME,  /* inside a header name */
    HTTP_PARSE_VALUE, /* inside a header value */
    HTTP_PARSE_BODY,  /* headers done; header callbacks now carry trailers (ignored) */
};

/* A parsed header: offsets of two NUL-terminated strings in conn->arena. */
struct http_hdr {
    uint32_t name;
    uint32_t value;
};

struct http_conn {
    struct http_conn *prev, *next; /* server's list of unfreed connections */
    struct http_server *srv;
    enum http_conn_state state;
    enum http_req_state req_state;
    enum http_parse_phase phase;
    uv_tcp_t tcp;
    uv_timer_t timer;
    int handles_open;
    bool reading;     /* mirrors uv_read_start/stop on tcp */
    bool keep_alive;  /* the current request allows another one after it */
    bool close_after; /* the response in flight is the connection's last */
    llhttp_t parser;
    struct buf rbuf;      /* received bytes not yet given to the parser */
    struct buf arena;     /* url NUL, then name NUL value NUL ... of the current request */
    struct buf body;      /* body of the current request */
    struct buf resp_hdrs; /* "Name: value\r\n" lines added by http_req_add_header */
    struct buf scratch;   /* error bodies */
    struct buf wbuf;      /* the response in flight */
    struct http_hdr hdrs[HTTP_MAX_HEADERS];
    unsigned nhdrs;
    size_t head_bytes; /* request line + headers (or trailers) seen so far */
    size_t path_len;   /* length of the path at arena[0] once the url is complete, else 0 */
    int parse_status;  /* 413/431/500 chosen inside a parser callback; 0 = plain 400 */
    uv_write_t write_req;
    uv_write_t cont_req; /* "100 Continue" */
    uv_shutdown_t shutdown_req;
    char fallback[224]; /* minimal 500 response when building one ran out of memory */
    struct http_req req;
};

struct http_server {
    uv_loop_t *loop;
    struct http_server_config cfg;
    enum http_srv_state state;
    uv_tcp_t listener;
    uv_timer_t sentinel; /* closed by http_server_close so `done` always runs from a callback */
    unsigned handles_open;
    unsigned nconns;         /* connections whose socket is open */
    struct http_conn *conns; /* every connection not yet freed */
    int port;
    void (*done)(void *arg);
    void *done_arg;
    llhttp_settings_t settings;
};

/* conn.c */
void http__conn_accept(struct http_server *srv);
/* Resets the per-request state at the first byte of a request. */
void http__conn_begin_request(struct http_conn *c);
void http__conn_send_continue(struct http_conn *c);
void http__conn_close(struct http_conn *c);
/* Graceful shutdown: closes the connection now if it is between requests. */
void http__conn_drain(struct http_conn *c);

/* parse.c */
void http__conn_settings(llhttp_settings_t *s);
/* Takes an acceptable X-Request-Id from the parsed headers, else makes one. */
void http__conn_assign_id(struct http_conn *c);

/* server.c */
void http__server_handle_closed(struct http_server *srv);
void http__server_unlink(struct http_server *srv, struct http_conn *c);

/* req.c */
enum http_method http__method_from_llhttp(uint8_t m);
bool http__request_id_ok(const char *s);
void http__request_id_new(char *out, size_t outlen);
int http__error_json(struct buf *b, const char *code, const char *message,
                     const char *request_id) TE_MUSTCHECK;

#endif
