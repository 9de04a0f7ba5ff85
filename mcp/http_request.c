/* SPDX-License-Identifier: MIT */
/*
 * Requests of the HTTP transport: who may come in (bounds, framing,
 * token, Origin, path), the checks of a POST's head, and the three
 * methods of /mcp: POST hands a message to its owner's space, GET opens
 * or resumes a stream, DELETE ends a legacy session.
 */
#define _GNU_SOURCE
#include "era.h"
#include "http_checks.h"
#include "http_internal.h"
#include "mono.h"
#include "rpc.h"
#include "server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

static const char *header(struct exchange *ex, const char *name)
{
    return MHD_lookup_connection_value(ex->conn, MHD_HEADER_KIND, name);
}

static const char *header_of(void *ctx, const char *name)
{
    return header(ctx, name);
}

/* Takes a piece of the body; false when the body is over the bound. */
bool http_take_body(struct exchange *ex, const char *data, size_t n)
{
    if (n > ex->hs->opts->max_body - ex->len)
        return false;
    if (ex->len + n > ex->cap) {
        size_t cap = ex->cap == 0 ? 4096 : ex->cap;
        while (cap < ex->len + n)
            cap *= 2;
        char *grown = realloc(ex->body, cap);
        if (grown == NULL)
            return false;
        ex->body = grown;
        ex->cap = cap;
    }
    memcpy(ex->body + ex->len, data, n);
    ex->len += n;
    return true;
}

enum MHD_Result http_too_large(struct exchange *ex)
{
    return http_refuse(ex, MHD_HTTP_CONTENT_TOO_LARGE, RPC_INVALID_REQUEST,
                       "Payload Too Large: the body is over the server's "
                       "bound (--max-body)",
                       NULL, NULL);
}

/* What one pass over a request's headers finds. */
struct head_facts {
    const struct http_server *hs;
    size_t size;            /* bytes, as sent (roughly) */
    bool foreign_origin;    /* an Origin header that is not allowed */
    const char *length;     /* the first Content-Length */
    bool lengths_differ;    /* a second Content-Length says otherwise */
    bool transfer_encoding; /* a Transfer-Encoding header */
};

static enum MHD_Result look_at_header(void *cls, enum MHD_ValueKind kind,
                                      const char *key, const char *value)
{
    (void)kind;
    struct head_facts *f = cls;
    value = value != NULL ? value : "";
    f->size += strlen(key) + strlen(value) + 4;
    if (strcasecmp(key, "Origin") == 0 &&
        !origin_allowed(value, (const char *const *)f->hs->opts->allow_origins,
                        f->hs->opts->allow_origin_count))
        f->foreign_origin = true; /* every Origin counts, not the first */
    if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0) {
        if (f->length != NULL && strcmp(f->length, value) != 0)
            f->lengths_differ = true;
        f->length = value;
    }
    if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0)
        f->transfer_encoding = true;
    return MHD_YES;
}

static struct head_facts look_at_head(struct exchange *ex, const char *url)
{
    struct head_facts f = {.hs = ex->hs, .size = strlen(url) + 16};
    MHD_get_connection_values(ex->conn, MHD_HEADER_KIND, look_at_header, &f);
    return f;
}

/* Whether the client of `ex` has closed its side (or its socket failed). */
static bool client_left(const struct exchange *ex)
{
    char c;
    int fd = ex->client != NULL ? ex->client->fd : -1;
    ssize_t n = fd >= 0 ? recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) : 1;
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

/* Shuts the connection of a stream's reader whose client has left, and
 * wakes it: its next write fails and the library lets it go. True when it
 * had left. */
static bool shut_if_left(struct exchange *ex)
{
    if (!client_left(ex))
        return false;
    shutdown(ex->client->fd, SHUT_RDWR);
    ex->keepalive = true;
    exchange_wake(ex);
    return true;
}

/* An event stream that has been quiet KEEPALIVE_MS gets a comment, so that
 * proxies keep it open; one whose client has left is shut, so that its
 * connection (and fd) is let go rather than held for an event that may
 * never come. */
void http_keep_alive(struct owner *o, double now, bool all)
{
    for (struct stream *s = o->streams; s != NULL; s = s->next) {
        struct exchange *ex = s->reader;
        if (ex == NULL || !ex->suspended ||
            (!all && now - ex->suspended_ms < KEEPALIVE_MS))
            continue;
        if (!ex->streaming) {
            /* A request waiting for its answer: the library does not see
             * its client leave; the call goes on, the connection goes. */
            ex->suspended_ms = now;
            if (client_left(ex)) {
                s->reader = NULL;
                ex->stream = NULL;
                ex->gone = true;
                exchange_wake(ex);
            }
        } else if (!shut_if_left(ex) && !all) {
            ex->keepalive = true;
            exchange_wake(ex);
        }
    }
}

/* Whether the request may come in at all: answers it (early) when not. */
bool http_admitted(struct exchange *ex, const char *url)
{
    struct http_server *hs = ex->hs;
    struct head_facts head = look_at_head(ex, url);
    if (head.size > hs->opts->max_header_bytes) {
        http_queue(ex, MHD_HTTP_REQUEST_HEADER_FIELDS_TOO_LARGE, NULL, "", 0,
                   NULL);
        return false;
    }
    /* Two ways of framing one body is how requests are smuggled past a
     * proxy: refused, whatever the library would make of it. */
    if (head.lengths_differ ||
        (head.length != NULL && head.transfer_encoding)) {
        http_refuse(ex, MHD_HTTP_BAD_REQUEST, RPC_INVALID_REQUEST,
                    "Bad Request: the body's length is given twice", NULL,
                    NULL);
        return false;
    }
    if (strcmp(url, "/healthz") == 0 || strcmp(url, "/readyz") == 0) {
        ex->kind = EX_PROBE;
        return true;
    }
    if (hs->draining) {
        http_unavailable(ex, "the server is shutting down");
        return false;
    }
    if (ex->client != NULL && ex->client->over) {
        /* Make room for the retry: streams whose clients left are shut. */
        for (struct owner *o = hs->owners; o != NULL; o = o->next)
            http_keep_alive(o, mono_ms(), true);
        http_unavailable(ex, "too many connections: try again");
        return false;
    }
    if (hs->tokens.count > 0 &&
        (ex->token = tokens_match(&hs->tokens, header(ex, "Authorization"))) <
            0) {
        http_unauthorized(ex);
        return false;
    }
    if (head.foreign_origin) {
        http_refuse(ex, MHD_HTTP_FORBIDDEN, RPC_SERVER_BUSY,
                    "Forbidden: this Origin may not use the server", NULL,
                    NULL);
        return false;
    }
    if (strcmp(url, "/mcp") != 0) {
        static const char not_found[] = "not found: the MCP endpoint is /mcp\n";
        http_queue(ex, MHD_HTTP_NOT_FOUND, "text/plain", not_found,
                   sizeof(not_found) - 1, NULL);
        return false;
    }
    return true;
}

/* The checks of a POST's head. */
bool http_post_head_ok(struct exchange *ex)
{
    const char *accept = header(ex, MHD_HTTP_HEADER_ACCEPT);
    if (!media_is_json(header(ex, MHD_HTTP_HEADER_CONTENT_TYPE))) {
        http_refuse(ex, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, RPC_SERVER_BUSY,
                    "Unsupported Media Type: Content-Type must be "
                    "application/json",
                    NULL, NULL);
        return false;
    }
    ex->sse_ok = accept_admits(accept, "text/event-stream");
    if (!ex->sse_ok && !accept_admits(accept, "application/json")) {
        http_refuse(ex, MHD_HTTP_NOT_ACCEPTABLE, RPC_SERVER_BUSY,
                    "Not Acceptable: Accept must admit application/json or "
                    "text/event-stream",
                    NULL, NULL);
        return false;
    }
    const char *length = header(ex, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (length != NULL && strtoull(length, NULL, 10) > ex->hs->opts->max_body) {
        http_too_large(ex);
        return false;
    }
    return true;
}

/* ---- the three methods of /mcp ------------------------------------------ */

static enum MHD_Result no_session(struct exchange *ex)
{
    return http_refuse(ex, MHD_HTTP_NOT_FOUND, -32001, "Session not found",
                       json_null(), NULL);
}

/* The owner a legacy request belongs to; NULL after answering. */
static struct owner *legacy_owner(struct exchange *ex, json_t *msg)
{
    struct http_server *hs = ex->hs;
    const char *method = json_string_value(json_object_get(msg, "method"));
    const char *version = header(ex, "MCP-Protocol-Version");
    if (method != NULL && strcmp(method, "initialize") == 0 &&
        json_object_get(msg, "id") != NULL) {
        if ((ex->made = http_new_session(hs, ex->token)) == NULL)
            http_unavailable(ex,
                             "too many MCP sessions held: end one (DELETE)");
        return ex->made;
    }
    const char *id = header(ex, "Mcp-Session-Id");
    if (id == NULL) {
        http_refuse(ex, MHD_HTTP_BAD_REQUEST, RPC_SERVER_BUSY,
                    "Bad Request: Mcp-Session-Id header is required",
                    json_null(), NULL);
        return NULL;
    }
    struct owner *o = http_session_owner(hs, id, ex->token);
    if (o == NULL) {
        no_session(ex);
        return NULL;
    }
    if (version != NULL && !era_legacy_supported(version)) {
        char why[200];
        snprintf(why, sizeof(why),
                 "Bad Request: Unsupported protocol version: %.60s", version);
        http_refuse(ex, MHD_HTTP_BAD_REQUEST, RPC_SERVER_BUSY, why, json_null(),
                    NULL);
        return NULL;
    }
    return o;
}

/* The owner a modern request belongs to (its token's); NULL after
 * answering. */
static struct owner *modern_owner(struct exchange *ex, json_t *msg)
{
    char why[600];
    const char *wrong =
        modern_headers_mismatch(msg, header_of, ex, why, sizeof(why));
    if (wrong != NULL) {
        http_refuse(ex, MHD_HTTP_BAD_REQUEST, -32020, wrong,
                    json_object_get(msg, "id"), NULL);
        return NULL;
    }
    struct owner *o = http_token_owner(ex->hs, ex->token);
    if (o == NULL)
        http_unavailable(ex, "out of memory");
    return o;
}

/* Hands `msg` to the space of `o` as JSON text. */
static void hand_over(struct owner *o, json_t *msg)
{
    char *text = json_dumps(msg, JSON_COMPACT | JSON_ENCODE_ANY);
    if (text == NULL) {
        mcp_log("out of memory: a request over HTTP is lost");
        return;
    }
    space_message(o->space, text, strlen(text));
    free(text);
}

/* A notification or a reply of the client: 202. A cancellation names the
 * client's id, which the space does not know: it is given the request's
 * number (or dropped when no request of this owner has that id), and the
 * request's stream ends, unanswered, as the call was dropped. */
static enum MHD_Result take_notification(struct exchange *ex, struct owner *o,
                                         json_t *msg)
{
    const char *method = json_string_value(json_object_get(msg, "method"));
    if (method != NULL && strcmp(method, "notifications/cancelled") == 0) {
        struct stream *cancelled = stream_rename_cancel(o, msg);
        if (cancelled != NULL) {
            hand_over(o, msg);
            if (!cancelled->ended)
                stream_end(cancelled);
        }
    } else {
        space_message(o->space, ex->body, ex->len);
    }
    server_wake(ex->hs->sv);
    return http_queue(ex, MHD_HTTP_ACCEPTED, NULL, "", 0, NULL);
}

/* A request: a stream for its answer, then the space. */
static enum MHD_Result take_request(struct exchange *ex, struct owner *o,
                                    json_t *msg)
{
    struct stream *s = stream_new(o, json_object_get(msg, "id"),
                                  json_object_get(msg, "params"), ex->sse_ok);
    if (s == NULL)
        return http_unavailable(ex, "out of memory");
    http_attach(ex, s, 0);
    stream_rename_request(s, msg);
    o->current = s;
    hand_over(o, msg);
    o->current = NULL;
    server_wake(ex->hs->sv);
    return http_answer_from_stream(ex);
}

enum MHD_Result http_handle_post(struct exchange *ex)
{
    json_error_t jerr;
    json_t *msg = json_loadb(ex->body != NULL ? ex->body : "", ex->len,
                             JSON_ALLOW_NUL, &jerr);
    if (msg == NULL || !json_is_object(msg)) {
        char why[300];
        snprintf(why, sizeof(why),
                 msg == NULL ? "Parse error: %s" : "Invalid Request: %s",
                 msg == NULL ? jerr.text
                             : "expected one JSON-RPC message (an object)");
        json_decref(msg);
        return http_refuse(ex, MHD_HTTP_BAD_REQUEST,
                           msg == NULL ? RPC_PARSE_ERROR : RPC_INVALID_REQUEST,
                           why, NULL, NULL);
    }
    json_t *method = json_object_get(msg, "method");
    json_t *params = json_object_get(msg, "params");
    ex->modern = era_requested_version(params) != NULL ||
                 (json_is_string(method) &&
                  strcmp(json_string_value(method), "server/discover") == 0);
    struct owner *o =
        ex->modern ? modern_owner(ex, msg) : legacy_owner(ex, msg);
    if (o == NULL) {
        json_decref(msg);
        return MHD_YES;
    }
    o->used_ms = mono_ms();
    json_t *id = json_object_get(msg, "id");
    enum MHD_Result ok = method == NULL || id == NULL
                             ? take_notification(ex, o, msg)
                             : take_request(ex, o, msg);
    json_decref(msg);
    return ok;
}

/* GET: the owner's own stream, or (Last-Event-ID) the rest of one. */
enum MHD_Result http_handle_get(struct exchange *ex)
{
    if (!accept_admits(header(ex, MHD_HTTP_HEADER_ACCEPT), "text/event-stream"))
        return http_refuse(ex, MHD_HTTP_NOT_ACCEPTABLE, RPC_SERVER_BUSY,
                           "Not Acceptable: Client must accept "
                           "text/event-stream",
                           json_null(), NULL);
    const char *sid = header(ex, "Mcp-Session-Id");
    if (sid == NULL) {
        static const char *const h[] = {MHD_HTTP_HEADER_ALLOW,
                                        "POST, GET, DELETE", NULL};
        return http_refuse(ex, MHD_HTTP_METHOD_NOT_ALLOWED, RPC_SERVER_BUSY,
                           "Method Not Allowed: a GET stream needs an MCP "
                           "session (Mcp-Session-Id)",
                           json_null(), h);
    }
    struct owner *o = http_session_owner(ex->hs, sid, ex->token);
    if (o == NULL)
        return no_session(ex);
    o->used_ms = mono_ms();
    uint64_t seq = 0;
    const char *last = header(ex, "Last-Event-ID");
    struct stream *s = last != NULL ? stream_find(o, last, &seq) : NULL;
    if (last != NULL && s == NULL)
        return no_session(ex);
    if (s == NULL) {
        for (struct stream *t = o->streams; t != NULL; t = t->next) {
            if (t->request_id != NULL || t->reader == NULL || t->ended)
                continue;
            /* A client that reconnects after losing its stream: the old
             * connection is shut and its stream ended. */
            if (shut_if_left(t->reader)) {
                stream_end(t);
                continue;
            }
            return http_refuse(ex, MHD_HTTP_CONFLICT, RPC_SERVER_BUSY,
                               "Conflict: Only one SSE stream is allowed "
                               "per session",
                               json_null(), NULL);
        }
        if ((s = stream_new(o, NULL, NULL, true)) == NULL)
            return http_unavailable(ex, "out of memory");
    } else if (s->reader != NULL) {
        return http_refuse(ex, MHD_HTTP_CONFLICT, RPC_SERVER_BUSY,
                           "Conflict: Stream already has an active connection",
                           json_null(), NULL);
    }
    http_attach(ex, s, seq);
    return http_answer_events(ex);
}

enum MHD_Result http_handle_delete(struct exchange *ex)
{
    const char *sid = header(ex, "Mcp-Session-Id");
    struct owner *o = http_session_owner(ex->hs, sid, ex->token);
    if (sid == NULL)
        return http_refuse(ex, MHD_HTTP_BAD_REQUEST, RPC_SERVER_BUSY,
                           "Bad Request: Mcp-Session-Id header is required",
                           json_null(), NULL);
    if (o == NULL)
        return no_session(ex);
    http_drop_owner(ex->hs, o);
    return http_queue(ex, MHD_HTTP_OK, NULL, "", 0, NULL);
}
