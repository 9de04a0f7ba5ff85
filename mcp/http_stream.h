/* SPDX-License-Identifier: MIT */
/*
 * What goes back to an HTTP client (http_stream.c). An owner is one
 * client's world over HTTP (a legacy MCP session, or a token of the
 * modern era) with its space (space.h); its space's replies come to the
 * owner's outbox, which puts each on the stream it belongs to: a
 * request's answer and the notifications about it on the stream of the
 * POST that asked, the rest on the owner's own stream (GET). A stream
 * keeps its events (numbered, for Last-Event-ID) while it is going and
 * for STREAM_KEEP_MS after, whether or not a connection writes it.
 */
#ifndef BSH_MCP_HTTP_STREAM_H
#define BSH_MCP_HTTP_STREAM_H

#include "transport.h"

#include <jansson.h>
#include <stdint.h>

/* A stream is kept this long after its end (or after its reader left). */
#define STREAM_KEEP_MS 60000.0
/* At most this many events are kept per stream (the oldest go first). */
#define STREAM_EVENTS_MAX 256
/* Notifications are dropped while a stream holds this many bytes. */
#define STREAM_BYTES_MAX (1u << 20)

struct owner;
struct exchange;

struct sse_event {
    char *data;
    size_t len;
};

struct stream {
    struct stream *next;
    struct owner *owner;
    uint64_t number;
    json_t *request_id;       /* the request it answers; NULL: the owner's */
    json_t *progress_token;   /* its request's, or NULL */
    bool sse_ok;              /* its client takes an event stream */
    struct sse_event *events; /* a ring of STREAM_EVENTS_MAX */
    uint64_t first_seq;       /* the number of the oldest event kept */
    uint64_t next_seq;        /* the number the next event gets */
    size_t bytes;
    bool ended;              /* its answer is in (or the owner's closed) */
    json_int_t answer_error; /* the JSON-RPC error code of the answer; 0 */
    double idle_since_ms;    /* ended or readerless since; -1: neither */
    struct exchange *reader; /* the connection that writes it now */
};

struct owner {
    struct owner *next;
    struct transport out; /* its space's outbox */
    struct mcp_space *space;
    char session[33]; /* a legacy MCP session's id; "" for the modern era */
    int token;        /* the token that made it; -1: none */
    struct stream *streams;
    struct stream *current; /* the request being handed to the space */
    double used_ms;
    uint64_t *next_stream; /* the server's stream numbering */
};

/* Sets up `o`'s outbox (its space comes later). */
void owner_init(struct owner *o, uint64_t *next_stream);

/* A new stream of `o`: for a request (`request` its JSON-RPC id, with its
 * params for the progress token) or, when NULL, the owner's own. */
struct stream *stream_new(struct owner *o, json_t *request, json_t *params,
                          bool sse_ok);

/* The space knows a request by its stream's number, never by the client's
 * id (clients of one token share a space, and their ids collide): puts
 * that number into request `msg` as its id, and as its progress token
 * when it has one. Replies are given the client's back on their way out. */
void stream_rename_request(const struct stream *s, json_t *msg);

/* For notifications/cancelled `msg`: the newest request stream of `o` still
 * going whose client id is the requestId, which is replaced by the
 * stream's number; NULL (and `msg` unchanged) when there is none. */
struct stream *stream_rename_cancel(struct owner *o, json_t *msg);

/* The stream of `o` that the event id `last` ("N-S") names, or NULL. */
struct stream *stream_find(struct owner *o, const char *last,
                           uint64_t *next_seq);

/* Whether `s`'s answer is in and it alone (answer as plain JSON). */
bool stream_is_one_answer(const struct stream *s);

/* The owner's own stream ends (its events still go out). */
void stream_end(struct stream *s);

/* Frees `s` (its reader, if any, then sees the end). */
void stream_free(struct stream *s);

/* Event `seq` of `s` as text/event-stream ("id: N-S\ndata: ...\n\n"),
 * malloc'd, or NULL when it is no longer kept (`*seq` moves to the
 * oldest kept). */
char *stream_event_text(const struct stream *s, uint64_t *seq, size_t *len);

/* Frees the streams of `o` kept past STREAM_KEEP_MS; `now` in ms. */
void owner_sweep(struct owner *o, double now);

/* Frees every stream of `o`. */
void owner_end(struct owner *o);

/* The HTTP server's (http_server.c): a stream's reader has something to
 * write, or the stream it writes is gone. */
void exchange_wake(struct exchange *reader);
void exchange_lose_stream(struct exchange *reader);

#endif
