/* SPDX-License-Identifier: MIT */
/*
 * Inside the HTTP transport (http_*.c): the server, its connections and
 * its requests (exchanges), and what each file offers the others.
 * http_server.c runs the library and is the server loop's transport;
 * http_request.c admits requests and handles POST, GET and DELETE;
 * http_answer.c answers them (at once, as JSON, or as an event stream
 * from a stream of http_stream.c), and the probes; http_owner.c keeps
 * the owners of spaces: legacy MCP sessions and the tokens of the modern
 * era.
 */
#ifndef BSH_MCP_HTTP_INTERNAL_H
#define BSH_MCP_HTTP_INTERNAL_H

#include "http_auth.h"
#include "http_stream.h"
#include "mcp.h"
#include "transport.h"

#include <microhttpd.h>

struct server;

/* Connections beyond --max-connections that are still taken, to be told
 * 503; past these the library closes new ones at once. */
#define OVERFLOW_CONNECTIONS 64
/* A quiet event stream gets a comment this often. */
#define KEEPALIVE_MS 15000.0
/* What Retry-After says, in seconds. */
#define RETRY_AFTER "1"

/* One connection, from accept to close. */
struct client {
    struct client *next;
    int fd;
    double deadline_ms; /* a whole request must have come by then; -1 */
    bool over;          /* beyond --max-connections */
};

enum exchange_kind { EX_MCP, EX_PROBE };

/* One request, from its head to its answer's last byte. */
struct exchange {
    struct http_server *hs;
    struct MHD_Connection *conn;
    struct client *client;
    enum exchange_kind kind;
    int token; /* the token it carried; -1 */
    char *body;
    size_t len, cap;
    bool answered;  /* a response is queued */
    bool suspended; /* waits for its stream */
    bool streaming; /* its answer is an event stream */
    bool keepalive; /* a comment is due, to find out if the client is there */
    bool gone;      /* its client left while it waited: close it */
    double suspended_ms; /* since when it waits */
    bool counted;        /* in hs->answering */
    bool too_large;      /* the body went past the bound: 413 at its end */
    bool sse_ok;
    bool modern;
    struct stream *stream; /* what answers it */
    uint64_t seq;          /* the next event it writes */
    char *chunk;           /* the event being written */
    size_t chunk_len, chunk_off;
    struct owner *made; /* a legacy session it made: its id goes back */
};

/* The server: the library's daemon, who may connect, the owners of
 * spaces, the connections, and the drain. */
struct http_server {
    struct transport t; /* first: the server loop's handle */
    const struct mcp_config *cfg;
    const struct mcp_http_opts *opts;
    struct server *sv;
    struct MHD_Daemon *d;
    int listen_fd, epoll_fd;
    struct tokens tokens; /* none: every request may come */
    struct owner *owners;
    int sessions; /* legacy owners */
    uint64_t next_stream;
    struct client *clients;
    unsigned nclients;
    unsigned answering; /* requests being answered (or waiting to be) */
    bool woken;   /* a suspended connection was resumed: run the library */
    bool closing; /* the spaces are gone: nothing may reach them */
    bool draining;
    double drain_until_ms, next_sweep_ms;
};

/* ---- http_answer.c ------------------------------------------------------ */

/* Queues a response of `len` bytes of `body` (`headers`: name, value
 * pairs, NULL-ended). */
enum MHD_Result http_queue(struct exchange *ex, unsigned status,
                           const char *type, const char *body, size_t len,
                           const char *const *headers);

/* An HTTP error whose body is a JSON-RPC error (`id` may be NULL). */
enum MHD_Result http_refuse(struct exchange *ex, unsigned status, int code,
                            const char *message, json_t *id,
                            const char *const *headers);

/* 401 with WWW-Authenticate: Bearer and nothing else. */
enum MHD_Result http_unauthorized(struct exchange *ex);

/* 503 with Retry-After. */
enum MHD_Result http_unavailable(struct exchange *ex, const char *why);

/* 413. */
enum MHD_Result http_too_large(struct exchange *ex);

/* The exchange answers from `s` from now on, from event `seq`. */
void http_attach(struct exchange *ex, struct stream *s, uint64_t seq);

/* Answers from the exchange's stream: as JSON when the answer came
 * alone, as events once anything else came first (or for the owner's
 * own stream); else waits, suspended. */
enum MHD_Result http_answer_from_stream(struct exchange *ex);

/* The response that is the exchange's event stream. */
enum MHD_Result http_answer_events(struct exchange *ex);

/* /healthz or /readyz. */
enum MHD_Result http_answer_probe(struct exchange *ex, const char *url);

/* ---- http_owner.c ------------------------------------------------------- */

/* The modern era's owner of `token` (-1: none): made on first use. */
struct owner *http_token_owner(struct http_server *hs, int token);

/* The legacy session `id` that `token` made, or NULL: another token's
 * session is as unknown as one that never was. */
struct owner *http_session_owner(struct http_server *hs, const char *id,
                                 int token);

/* A new legacy session of `token`, making room from that token's idlest
 * session when the server holds as many as it may; NULL when it cannot. */
struct owner *http_new_session(struct http_server *hs, int token);

/* Ends an owner: its streams, its space (runs killed), itself. */
void http_drop_owner(struct http_server *hs, struct owner *o);

/* ---- http_request.c ----------------------------------------------------- */

/* Whether a request may come in at all: answers it (early) when not. */
bool http_admitted(struct exchange *ex, const char *url);

/* The checks of a POST's head (media types, length): answers when not. */
bool http_post_head_ok(struct exchange *ex);

/* Takes a piece of the body; false when the body is over the bound. */
bool http_take_body(struct exchange *ex, const char *data, size_t n);

/* The three methods of /mcp, on a whole request. */
enum MHD_Result http_handle_post(struct exchange *ex);
enum MHD_Result http_handle_get(struct exchange *ex);
enum MHD_Result http_handle_delete(struct exchange *ex);

/* Looks at the quiet event streams of `o` (all of them when `all`): a
 * keep-alive comment, or the connection shut when its client left. */
void http_keep_alive(struct owner *o, double now, bool all);

#endif
