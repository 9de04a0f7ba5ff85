/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "http_server.h"
#include "era.h"
#include "http_auth.h"
#include "http_checks.h"
#include "http_stream.h"
#include "listen_addr.h"
#include "mono.h"
#include "rpc.h"
#include "server.h"

#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>

/* Connections beyond --max-connections that are still taken, to be told
 * 503; past these the library closes new ones at once. */
#define OVERFLOW_CONNECTIONS 64
/* How often the clients' deadlines and the kept streams are looked at. */
#define SWEEP_MS 250.0
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

/* ---- answers ------------------------------------------------------------ */

static enum MHD_Result queue(struct exchange *ex, unsigned status,
                             const char *type, const char *body, size_t len,
                             const char *const *headers)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(
        len, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (r == NULL)
        return MHD_NO;
    if (type != NULL)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    for (; headers != NULL && headers[0] != NULL; headers += 2)
        MHD_add_response_header(r, headers[0], headers[1]);
    enum MHD_Result ok = MHD_queue_response(ex->conn, status, r);
    MHD_destroy_response(r);
    ex->answered = true;
    if (ex->client != NULL) /* answered: no 408 may cut into it */
        ex->client->deadline_ms = -1;
    return ok;
}

/* An HTTP error whose body is a JSON-RPC error (`id` may be NULL). */
static enum MHD_Result rpc_refusal(struct exchange *ex, unsigned status,
                                   int code, const char *message, json_t *id,
                                   const char *const *headers)
{
    json_t *msg = json_pack("{s:s, s:{s:i, s:s}}", "jsonrpc", "2.0", "error",
                            "code", code, "message", message);
    if (id != NULL)
        json_object_set(msg, "id", id);
    char *text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    enum MHD_Result ok = text != NULL ? queue(ex, status, "application/json",
                                              text, strlen(text), headers)
                                      : MHD_NO;
    free(text);
    return ok;
}

static enum MHD_Result unauthorized(struct exchange *ex)
{
    static const char *const h[] = {MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer",
                                    NULL};
    return queue(ex, MHD_HTTP_UNAUTHORIZED, NULL, "", 0, h);
}

static enum MHD_Result unavailable(struct exchange *ex, const char *why)
{
    static const char *const h[] = {MHD_HTTP_HEADER_RETRY_AFTER, RETRY_AFTER,
                                    NULL};
    return rpc_refusal(ex, MHD_HTTP_SERVICE_UNAVAILABLE, RPC_SERVER_BUSY, why,
                       NULL, h);
}

/* ---- owners ------------------------------------------------------------- */

static struct owner *new_owner(struct http_server *hs, int token)
{
    struct owner *o = malloc(sizeof(*o));
    if (o == NULL)
        return NULL;
    owner_init(o, &hs->next_stream);
    o->token = token;
    if ((o->space = server_space_new(hs->sv, &o->out)) == NULL) {
        free(o);
        return NULL;
    }
    o->space->owner = o;
    o->next = hs->owners;
    hs->owners = o;
    return o;
}

static void drop_owner(struct http_server *hs, struct owner *o)
{
    for (struct owner **pp = &hs->owners; *pp != NULL; pp = &(*pp)->next)
        if (*pp == o) {
            *pp = o->next;
            break;
        }
    owner_end(o); /* its readers see their stream gone */
    server_space_drop(hs->sv, o->space);
    if (o->session[0] != '\0')
        hs->sessions--;
    free(o);
}

/* The modern era's owner of `token`: made on first use. */
static struct owner *token_owner(struct http_server *hs, int token)
{
    for (struct owner *o = hs->owners; o != NULL; o = o->next)
        if (o->session[0] == '\0' && o->token == token)
            return o;
    return new_owner(hs, token);
}

/* The legacy session `id` that `token` made, or NULL: another token's
 * session is as unknown as one that never was. */
static struct owner *session_owner(struct http_server *hs, const char *id,
                                   int token)
{
    for (struct owner *o = hs->owners; id != NULL && o != NULL; o = o->next)
        if (o->session[0] != '\0' && o->token == token &&
            strcmp(o->session, id) == 0)
            return o;
    return NULL;
}

/* Whether `o` holds nothing that goes on: it may be let go for room. */
static bool owner_idle(const struct owner *o)
{
    if (o->space->runs.nruns > 0)
        return false;
    for (const struct stream *s = o->streams; s != NULL; s = s->next)
        if (s->reader != NULL)
            return false;
    return true;
}

/* A new legacy session, making room from the idlest one when needed. */
static struct owner *new_session(struct http_server *hs, int token)
{
    if (hs->sessions >= (int)hs->opts->max_connections) {
        /* Only a session of the same token makes room: one tenant never
         * ends another's. */
        struct owner *oldest = NULL;
        for (struct owner *o = hs->owners; o != NULL; o = o->next)
            if (o->session[0] != '\0' && o->token == token && owner_idle(o) &&
                (oldest == NULL || o->used_ms < oldest->used_ms))
                oldest = o;
        if (oldest == NULL)
            return NULL;
        drop_owner(hs, oldest);
    }
    unsigned char rnd[16];
    if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
        return NULL;
    struct owner *o = new_owner(hs, token);
    if (o == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof(rnd); i++)
        snprintf(o->session + 2 * i, 3, "%02x", rnd[i]);
    hs->sessions++;
    return o;
}

/* ---- reading requests --------------------------------------------------- */

static const char *header(struct exchange *ex, const char *name)
{
    return MHD_lookup_connection_value(ex->conn, MHD_HEADER_KIND, name);
}

static const char *header_of(void *ctx, const char *name)
{
    return header(ctx, name);
}

/* Takes a piece of the body; false when the body is over the bound. */
static bool take_body(struct exchange *ex, const char *data, size_t n)
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

static enum MHD_Result too_large(struct exchange *ex)
{
    return rpc_refusal(ex, MHD_HTTP_CONTENT_TOO_LARGE, RPC_INVALID_REQUEST,
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
static void keep_alive(struct owner *o, double now, bool all)
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
static bool admitted(struct exchange *ex, const char *url)
{
    struct http_server *hs = ex->hs;
    struct head_facts head = look_at_head(ex, url);
    if (head.size > hs->opts->max_header_bytes) {
        queue(ex, MHD_HTTP_REQUEST_HEADER_FIELDS_TOO_LARGE, NULL, "", 0, NULL);
        return false;
    }
    /* Two ways of framing one body is how requests are smuggled past a
     * proxy: refused, whatever the library would make of it. */
    if (head.lengths_differ ||
        (head.length != NULL && head.transfer_encoding)) {
        rpc_refusal(ex, MHD_HTTP_BAD_REQUEST, RPC_INVALID_REQUEST,
                    "Bad Request: the body's length is given twice", NULL,
                    NULL);
        return false;
    }
    if (strcmp(url, "/healthz") == 0 || strcmp(url, "/readyz") == 0) {
        ex->kind = EX_PROBE;
        return true;
    }
    if (hs->draining) {
        unavailable(ex, "the server is shutting down");
        return false;
    }
    if (ex->client != NULL && ex->client->over) {
        /* Make room for the retry: streams whose clients left are shut. */
        for (struct owner *o = hs->owners; o != NULL; o = o->next)
            keep_alive(o, mono_ms(), true);
        unavailable(ex, "too many connections: try again");
        return false;
    }
    if (hs->tokens.count > 0 &&
        (ex->token = tokens_match(&hs->tokens, header(ex, "Authorization"))) <
            0) {
        unauthorized(ex);
        return false;
    }
    if (head.foreign_origin) {
        rpc_refusal(ex, MHD_HTTP_FORBIDDEN, RPC_SERVER_BUSY,
                    "Forbidden: this Origin may not use the server", NULL,
                    NULL);
        return false;
    }
    if (strcmp(url, "/mcp") != 0) {
        static const char not_found[] = "not found: the MCP endpoint is /mcp\n";
        queue(ex, MHD_HTTP_NOT_FOUND, "text/plain", not_found,
              sizeof(not_found) - 1, NULL);
        return false;
    }
    return true;
}

/* The checks of a POST's head. */
static bool post_head_ok(struct exchange *ex)
{
    const char *accept = header(ex, MHD_HTTP_HEADER_ACCEPT);
    if (!media_is_json(header(ex, MHD_HTTP_HEADER_CONTENT_TYPE))) {
        rpc_refusal(ex, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, RPC_SERVER_BUSY,
                    "Unsupported Media Type: Content-Type must be "
                    "application/json",
                    NULL, NULL);
        return false;
    }
    ex->sse_ok = accept_admits(accept, "text/event-stream");
    if (!ex->sse_ok && !accept_admits(accept, "application/json")) {
        rpc_refusal(ex, MHD_HTTP_NOT_ACCEPTABLE, RPC_SERVER_BUSY,
                    "Not Acceptable: Accept must admit application/json or "
                    "text/event-stream",
                    NULL, NULL);
        return false;
    }
    const char *length = header(ex, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (length != NULL && strtoull(length, NULL, 10) > ex->hs->opts->max_body) {
        too_large(ex);
        return false;
    }
    return true;
}

/* ---- answering from a stream -------------------------------------------- */

static void suspend(struct exchange *ex)
{
    if (!ex->suspended) {
        MHD_suspend_connection(ex->conn);
        ex->suspended = true;
        ex->suspended_ms = mono_ms();
    }
}

void exchange_wake(struct exchange *ex)
{
    if (ex->suspended) {
        ex->suspended = false;
        ex->hs->woken = true;
        MHD_resume_connection(ex->conn);
    }
}

void exchange_lose_stream(struct exchange *ex)
{
    ex->stream = NULL;
    exchange_wake(ex);
}

/* The event stream's next bytes; suspends the connection while there are
 * none yet. */
static ssize_t read_events(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    struct exchange *ex = cls;
    if (ex->keepalive) {
        static const char comment[] = ": keep-alive\n\n";
        ex->keepalive = false;
        if (max >= sizeof(comment) - 1 &&
            (ex->chunk == NULL || ex->chunk_off == ex->chunk_len)) {
            memcpy(buf, comment, sizeof(comment) - 1);
            return (ssize_t)(sizeof(comment) - 1);
        }
    }
    for (;;) {
        if (ex->chunk != NULL && ex->chunk_off < ex->chunk_len) {
            size_t n = ex->chunk_len - ex->chunk_off;
            n = n < max ? n : max;
            memcpy(buf, ex->chunk + ex->chunk_off, n);
            ex->chunk_off += n;
            return (ssize_t)n;
        }
        free(ex->chunk);
        ex->chunk = NULL;
        struct stream *s = ex->stream;
        if (s == NULL)
            return MHD_CONTENT_READER_END_OF_STREAM;
        ex->chunk = stream_event_text(s, &ex->seq, &ex->chunk_len);
        if (ex->chunk != NULL) {
            ex->chunk_off = 0;
            ex->seq++;
            continue;
        }
        if (s->ended && ex->seq >= s->next_seq)
            return MHD_CONTENT_READER_END_OF_STREAM;
        suspend(ex);
        return 0;
    }
}

/* A modern error's HTTP status (the 2026-07-28 transport's). */
static unsigned modern_status(const char *answer, size_t len)
{
    json_t *msg = json_loadb(answer, len, 0, NULL);
    json_int_t code = json_integer_value(
        json_object_get(json_object_get(msg, "error"), "code"));
    json_decref(msg);
    if (code == RPC_METHOD_NOT_FOUND)
        return MHD_HTTP_NOT_FOUND;
    if (code == RPC_UNSUPPORTED_VERSION || code == RPC_PARSE_ERROR ||
        code == RPC_INVALID_REQUEST)
        return MHD_HTTP_BAD_REQUEST;
    return MHD_HTTP_OK;
}

static enum MHD_Result answer_json(struct exchange *ex, struct stream *s)
{
    const struct sse_event *e = &s->events[0];
    const char *h[] = {"Mcp-Session-Id", ex->made ? ex->made->session : NULL,
                       NULL};
    unsigned status = ex->modern ? modern_status(e->data, e->len) : 200;
    enum MHD_Result ok = queue(ex, status, "application/json", e->data, e->len,
                               ex->made ? h : NULL);
    s->reader = NULL;
    ex->stream = NULL;
    stream_free(s); /* a plain answer is not resumed */
    return ok;
}

static enum MHD_Result answer_events(struct exchange *ex)
{
    struct MHD_Response *r = MHD_create_response_from_callback(
        MHD_SIZE_UNKNOWN, 16384, read_events, ex, NULL);
    if (r == NULL)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                            "text/event-stream");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL,
                            "no-cache, no-transform");
    MHD_add_response_header(r, "X-Accel-Buffering", "no");
    ex->streaming = true;
    if (ex->made != NULL)
        MHD_add_response_header(r, "Mcp-Session-Id", ex->made->session);
    enum MHD_Result ok = MHD_queue_response(ex->conn, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    ex->answered = true;
    return ok;
}

/* Answers from the exchange's stream: as JSON when the answer came
 * alone, as events once anything else came first (or for the owner's
 * own stream); else waits, suspended. */
static enum MHD_Result answer_from_stream(struct exchange *ex)
{
    struct stream *s = ex->stream;
    if (s == NULL)
        return rpc_refusal(ex, MHD_HTTP_NOT_FOUND, -32001, "Session not found",
                           json_null(), NULL);
    if (stream_is_one_answer(s))
        return answer_json(ex, s);
    if (s->ended && s->request_id != NULL && s->next_seq == 0) {
        /* Cancelled: no answer will come. */
        s->reader = NULL;
        ex->stream = NULL;
        stream_free(s);
        return queue(ex, MHD_HTTP_NO_CONTENT, NULL, "", 0, NULL);
    }
    if (s->request_id == NULL || (s->sse_ok && s->next_seq > s->first_seq))
        return answer_events(ex);
    suspend(ex);
    return MHD_YES;
}

/* The exchange answers from `s` from now on. */
static void attach(struct exchange *ex, struct stream *s, uint64_t seq)
{
    ex->stream = s;
    ex->seq = seq;
    s->reader = ex;
    if (!ex->counted) {
        ex->counted = true;
        ex->hs->answering++;
    }
}

/* ---- the three methods of /mcp ------------------------------------------ */

static enum MHD_Result no_session(struct exchange *ex)
{
    return rpc_refusal(ex, MHD_HTTP_NOT_FOUND, -32001, "Session not found",
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
        if ((ex->made = new_session(hs, ex->token)) == NULL)
            unavailable(ex, "too many MCP sessions held: end one (DELETE)");
        return ex->made;
    }
    const char *id = header(ex, "Mcp-Session-Id");
    if (id == NULL) {
        rpc_refusal(ex, MHD_HTTP_BAD_REQUEST, RPC_SERVER_BUSY,
                    "Bad Request: Mcp-Session-Id header is required",
                    json_null(), NULL);
        return NULL;
    }
    struct owner *o = session_owner(hs, id, ex->token);
    if (o == NULL) {
        no_session(ex);
        return NULL;
    }
    json_t *v = json_string(version != NULL ? version : "");
    bool known = version == NULL || strcmp(era_legacy_version(v), version) == 0;
    json_decref(v);
    if (!known) {
        char why[200];
        snprintf(why, sizeof(why),
                 "Bad Request: Unsupported protocol version: %.60s", version);
        rpc_refusal(ex, MHD_HTTP_BAD_REQUEST, RPC_SERVER_BUSY, why, json_null(),
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
        rpc_refusal(ex, MHD_HTTP_BAD_REQUEST, -32020, wrong,
                    json_object_get(msg, "id"), NULL);
        return NULL;
    }
    struct owner *o = token_owner(ex->hs, ex->token);
    if (o == NULL)
        unavailable(ex, "out of memory");
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
    return queue(ex, MHD_HTTP_ACCEPTED, NULL, "", 0, NULL);
}

/* A request: a stream for its answer, then the space. */
static enum MHD_Result take_request(struct exchange *ex, struct owner *o,
                                    json_t *msg)
{
    struct stream *s = stream_new(o, json_object_get(msg, "id"),
                                  json_object_get(msg, "params"), ex->sse_ok);
    if (s == NULL)
        return unavailable(ex, "out of memory");
    attach(ex, s, 0);
    stream_rename_request(s, msg);
    o->current = s;
    hand_over(o, msg);
    o->current = NULL;
    server_wake(ex->hs->sv);
    return answer_from_stream(ex);
}

static enum MHD_Result handle_post(struct exchange *ex)
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
        return rpc_refusal(ex, MHD_HTTP_BAD_REQUEST,
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
static enum MHD_Result handle_get(struct exchange *ex)
{
    if (!accept_admits(header(ex, MHD_HTTP_HEADER_ACCEPT), "text/event-stream"))
        return rpc_refusal(ex, MHD_HTTP_NOT_ACCEPTABLE, RPC_SERVER_BUSY,
                           "Not Acceptable: Client must accept "
                           "text/event-stream",
                           json_null(), NULL);
    const char *sid = header(ex, "Mcp-Session-Id");
    if (sid == NULL) {
        static const char *const h[] = {MHD_HTTP_HEADER_ALLOW,
                                        "POST, GET, DELETE", NULL};
        return rpc_refusal(ex, MHD_HTTP_METHOD_NOT_ALLOWED, RPC_SERVER_BUSY,
                           "Method Not Allowed: a GET stream needs an MCP "
                           "session (Mcp-Session-Id)",
                           json_null(), h);
    }
    struct owner *o = session_owner(ex->hs, sid, ex->token);
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
            return rpc_refusal(ex, MHD_HTTP_CONFLICT, RPC_SERVER_BUSY,
                               "Conflict: Only one SSE stream is allowed "
                               "per session",
                               json_null(), NULL);
        }
        if ((s = stream_new(o, NULL, NULL, true)) == NULL)
            return unavailable(ex, "out of memory");
    } else if (s->reader != NULL) {
        return rpc_refusal(ex, MHD_HTTP_CONFLICT, RPC_SERVER_BUSY,
                           "Conflict: Stream already has an active connection",
                           json_null(), NULL);
    }
    attach(ex, s, seq);
    return answer_events(ex);
}

static enum MHD_Result handle_delete(struct exchange *ex)
{
    const char *sid = header(ex, "Mcp-Session-Id");
    struct owner *o = session_owner(ex->hs, sid, ex->token);
    if (sid == NULL)
        return rpc_refusal(ex, MHD_HTTP_BAD_REQUEST, RPC_SERVER_BUSY,
                           "Bad Request: Mcp-Session-Id header is required",
                           json_null(), NULL);
    if (o == NULL)
        return no_session(ex);
    drop_owner(ex->hs, o);
    return queue(ex, MHD_HTTP_OK, NULL, "", 0, NULL);
}

/* ---- probes ------------------------------------------------------------- */

static enum MHD_Result answer_probe(struct exchange *ex, const char *url)
{
    struct http_server *hs = ex->hs;
    int runs = server_runs_held(hs->sv), max = hs->cfg->max_runs;
    bool ready = strcmp(url, "/healthz") == 0 || (!hs->draining && runs < max);
    const char *status = hs->draining  ? "draining"
                         : runs >= max ? "full"
                                       : "ok";
    if (strcmp(url, "/healthz") == 0)
        status = "ok";
    json_t *doctor = hs->opts->doctor_json != NULL
                         ? json_loads(hs->opts->doctor_json, 0, NULL)
                         : NULL;
    json_t *body = json_pack("{s:s, s:s?, s:b, s:i, s:i, s:s, s:o?}", "status",
                             status, "instance", hs->cfg->instance, "draining",
                             hs->draining, "runs", runs, "max_runs", max, "bsh",
                             bsh_version(), "doctor", doctor);
    char *text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    enum MHD_Result ok =
        text != NULL
            ? queue(ex, ready ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE,
                    "application/json", text, strlen(text), NULL)
            : MHD_NO;
    free(text);
    return ok;
}

/* ---- the library's callbacks -------------------------------------------- */

/* The request's head has come: admitted, or answered at once. */
static enum MHD_Result begin(struct http_server *hs, struct MHD_Connection *c,
                             const char *url, const char *method, void **cls)
{
    struct exchange *ex = calloc(1, sizeof(*ex));
    if (ex == NULL)
        return MHD_NO;
    ex->hs = hs;
    ex->conn = c;
    ex->token = -1;
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    ex->client = info != NULL ? info->socket_context : NULL;
    *cls = ex;
    if (!admitted(ex, url))
        return MHD_YES;
    if (ex->kind == EX_MCP && strcmp(method, MHD_HTTP_METHOD_POST) == 0)
        post_head_ok(ex);
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
                                  const char *url, const char *method,
                                  const char *version, const char *data,
                                  size_t *size, void **req_cls)
{
    (void)version;
    struct exchange *ex = *req_cls;
    if (ex == NULL)
        return begin(cls, c, url, method, req_cls);
    if (*size > 0) {
        /* Past the bound the rest is read and dropped (the client's
         * deadline bounds that): the library cannot answer mid-body. */
        if (!ex->answered && !ex->too_large && !take_body(ex, data, *size)) {
            ex->too_large = true;
            free(ex->body);
            ex->body = NULL;
            ex->len = ex->cap = 0;
        }
        *size = 0;
        return MHD_YES;
    }
    if (ex->client != NULL)
        ex->client->deadline_ms = -1; /* the whole request has come */
    if (ex->answered)
        return MHD_YES;
    if (ex->too_large)
        return too_large(ex);
    if (ex->gone)
        return MHD_NO; /* the library closes the connection */
    if (ex->stream != NULL || ex->counted)
        return answer_from_stream(ex);
    if (ex->kind == EX_PROBE)
        return answer_probe(ex, url);
    /* A request whose head came before the drain, its body after. */
    if (ex->hs->draining || ex->hs->closing)
        return unavailable(ex, "the server is shutting down");
    if (strcmp(method, MHD_HTTP_METHOD_POST) == 0)
        return handle_post(ex);
    if (strcmp(method, MHD_HTTP_METHOD_GET) == 0)
        return handle_get(ex);
    if (strcmp(method, MHD_HTTP_METHOD_DELETE) == 0)
        return handle_delete(ex);
    static const char *const h[] = {MHD_HTTP_HEADER_ALLOW, "POST, GET, DELETE",
                                    NULL};
    return rpc_refusal(ex, MHD_HTTP_METHOD_NOT_ALLOWED, RPC_SERVER_BUSY,
                       "Method Not Allowed", json_null(), h);
}

/* The request is over (answered, or its connection gone). */
static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
                         enum MHD_RequestTerminationCode why)
{
    (void)c, (void)why;
    struct http_server *hs = cls;
    struct exchange *ex = *req_cls;
    if (ex == NULL)
        return;
    *req_cls = NULL;
    if (ex->stream != NULL && ex->stream->reader == ex)
        ex->stream->reader = NULL; /* its stream goes on, to be resumed */
    if (ex->counted)
        hs->answering--;
    if (ex->client != NULL)
        ex->client->deadline_ms =
            mono_ms() + (double)hs->opts->client_timeout_ms;
    free(ex->chunk);
    free(ex->body);
    free(ex);
}

static void on_connection(void *cls, struct MHD_Connection *c,
                          void **socket_ctx,
                          enum MHD_ConnectionNotificationCode code)
{
    struct http_server *hs = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        struct client *cl = calloc(1, sizeof(*cl));
        const union MHD_ConnectionInfo *info =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (cl == NULL)
            return;
        cl->fd = info != NULL ? info->connect_fd : -1;
        cl->deadline_ms = mono_ms() + (double)hs->opts->client_timeout_ms;
        cl->over = ++hs->nclients > hs->opts->max_connections;
        cl->next = hs->clients;
        hs->clients = cl;
        *socket_ctx = cl;
        return;
    }
    struct client *cl = *socket_ctx;
    if (cl == NULL)
        return;
    for (struct client **pp = &hs->clients; *pp != NULL; pp = &(*pp)->next)
        if (*pp == cl) {
            *pp = cl->next;
            break;
        }
    hs->nclients--;
    free(cl);
}

/* ---- the transport the server loop sees --------------------------------- */

/* Drops the clients that have not sent a whole request in time (408
 * where it can still be said), and the streams kept past their time. */
static void sweep(struct http_server *hs)
{
    double now = mono_ms();
    if (now < hs->next_sweep_ms)
        return;
    hs->next_sweep_ms = now + SWEEP_MS;
    static const char timeout[] = "HTTP/1.1 408 Request Timeout\r\n"
                                  "Connection: close\r\nContent-Length: 0\r\n"
                                  "\r\n";
    for (struct client *cl = hs->clients; cl != NULL; cl = cl->next)
        if (cl->deadline_ms >= 0 && now > cl->deadline_ms && cl->fd >= 0) {
            (void)!send(cl->fd, timeout, sizeof(timeout) - 1,
                        MSG_DONTWAIT | MSG_NOSIGNAL);
            shutdown(cl->fd, SHUT_RDWR);
            cl->deadline_ms = -1;
        }
    for (struct owner *o = hs->owners; o != NULL; o = o->next) {
        owner_sweep(o, now);
        keep_alive(o, now, false);
    }
}

static struct http_server *hs_of(struct transport *t)
{
    return (struct http_server *)t;
}

static int http_pollfds(struct transport *t, struct pollfd *p, int max,
                        int *timeout_ms)
{
    struct http_server *hs = hs_of(t);
    if (max < 1)
        return 0;
    p[0] = (struct pollfd){hs->epoll_fd, POLLIN, 0};
    MHD_UNSIGNED_LONG_LONG ms;
    int want = (int)SWEEP_MS;
    if (MHD_get_timeout(hs->d, &ms) == MHD_YES && ms < (unsigned)want)
        want = (int)ms;
    if (hs->draining) {
        double left = hs->drain_until_ms - mono_ms();
        if (left < want)
            want = left < 0 ? 0 : (int)left + 1;
    }
    if (hs->woken) /* the library takes resumed connections in its run */
        want = 0;
    if (*timeout_ms < 0 || want < *timeout_ms)
        *timeout_ms = want;
    return 1;
}

static void http_polled(struct transport *t, const struct pollfd *p, int n)
{
    (void)p, (void)n;
    struct http_server *hs = hs_of(t);
    hs->woken = false;
    MHD_run(hs->d);
    sweep(hs);
}

// NOLINTNEXTLINE(readability-non-const-parameter): the transport's signature
static void http_send(struct transport *t, char *text, size_t len,
                      bool droppable)
{
    (void)t, (void)text, (void)len, (void)droppable; /* spaces use outboxes */
}

static bool http_ended(const struct transport *t)
{
    const struct http_server *hs = (const struct http_server *)t;
    return hs->draining &&
           (hs->answering == 0 || mono_ms() >= hs->drain_until_ms);
}

static bool http_flush(struct transport *t, int stop_fd)
{
    (void)t, (void)stop_fd;
    return false;
}

static void http_drain(struct transport *t)
{
    struct http_server *hs = hs_of(t);
    hs->draining = true;
    hs->drain_until_ms = mono_ms() + (double)hs->opts->drain_timeout_ms;
    for (struct owner *o = hs->owners; o != NULL; o = o->next)
        for (struct stream *s = o->streams; s != NULL; s = s->next)
            if (s->request_id == NULL)
                stream_end(s); /* the owner's own streams end now */
    mcp_log("draining: new requests get 503, runs are ended");
}

static void http_close(struct transport *t)
{
    struct http_server *hs = hs_of(t);
    /* The streams go (their readers are resumed); the stop then closes
     * every connection, suspended ones included, and the listening socket:
     * no request is served any more, none can start a run. */
    hs->closing = true;
    while (hs->owners != NULL) {
        struct owner *o = hs->owners;
        hs->owners = o->next;
        owner_end(o);
        free(o); /* its space was dropped by the server loop */
    }
    if (hs->d != NULL)
        MHD_stop_daemon(hs->d);
    else if (hs->listen_fd >= 0)
        close(hs->listen_fd);
    if (hs->opts->listen != NULL)
        listen_close(-1, hs->opts->listen); /* a unix socket's file */
    tokens_free(&hs->tokens);
    free(hs);
}

bool http_add_client(struct transport *t, int fd)
{
    struct sockaddr_in from = {.sin_family = AF_INET,
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    return MHD_add_connection(hs_of(t)->d, fd, (struct sockaddr *)&from,
                              sizeof(from)) == MHD_YES;
}

static const struct transport_ops http_ops = {
    http_pollfds, http_polled, http_send,  http_ended,
    http_flush,   http_close,  http_drain,
};

/* ---- opening ------------------------------------------------------------ */

static void log_error(void *cls, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

static void log_error(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char line[512];
    vsnprintf(line, sizeof(line), fmt, ap);
    /* On a unix socket the library's TCP corking fails, harmlessly. */
    if (strncmp(line, "Failed to push the data", 23) == 0)
        return;
    line[strcspn(line, "\n")] = '\0';
    mcp_log("http: %s", line);
}

static bool start_daemon(struct http_server *hs, char *why, size_t why_size)
{
    const struct mcp_http_opts *o = hs->opts;
    unsigned timeout_s = (unsigned)((o->client_timeout_ms + 999) / 1000);
    bool listening = hs->listen_fd >= 0;
    hs->d = MHD_start_daemon(
        MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_TURBO |
            MHD_USE_ERROR_LOG | (listening ? 0 : MHD_USE_NO_LISTEN_SOCKET),
        0, NULL, NULL, on_request, hs, MHD_OPTION_EXTERNAL_LOGGER, log_error,
        hs, MHD_OPTION_CONNECTION_LIMIT,
        o->max_connections + OVERFLOW_CONNECTIONS,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_s,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, o->max_header_bytes + 16384,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, hs,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, hs,
        MHD_OPTION_SIGPIPE_HANDLED_BY_APP, 1,
        /* last: without a socket of its own, the list ends here */
        listening ? MHD_OPTION_LISTEN_SOCKET : MHD_OPTION_END, hs->listen_fd,
        MHD_OPTION_END);
    if (hs->d == NULL) {
        snprintf(why, why_size,
                 "--listen %.200s: the HTTP server did not start",
                 o->listen != NULL ? o->listen : "(none)");
        return false;
    }
    const union MHD_DaemonInfo *info =
        MHD_get_daemon_info(hs->d, MHD_DAEMON_INFO_EPOLL_FD);
    hs->epoll_fd = info != NULL ? info->epoll_fd : -1;
    if (hs->epoll_fd >= 0)
        return true;
    snprintf(why, why_size, "the HTTP library has no epoll fd to poll");
    MHD_stop_daemon(hs->d); /* it closed the listening socket */
    hs->d = NULL;
    hs->listen_fd = -1;
    return false;
}

struct transport *http_open(const struct mcp_config *cfg, struct server *sv,
                            char *why, size_t why_size)
{
    struct http_server *hs = calloc(1, sizeof(*hs));
    if (hs == NULL) {
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    hs->t.ops = &http_ops;
    hs->cfg = cfg;
    hs->opts = cfg->http;
    hs->sv = sv;
    hs->listen_fd = -1;
    bool loopback = true;
    if (hs->opts->token_file != NULL &&
        !tokens_load(&hs->tokens, hs->opts->token_file, why, why_size))
        goto fail;
    if (hs->opts->listen != NULL &&
        (hs->listen_fd =
             listen_open(hs->opts->listen, &loopback, why, why_size)) < 0)
        goto fail;
    if (!loopback && hs->tokens.count == 0) {
        snprintf(why, why_size,
                 "--listen %.200s: not a loopback address, so every request "
                 "needs a token: give --token-file FILE",
                 hs->opts->listen);
        goto fail;
    }
    if (!start_daemon(hs, why, why_size))
        goto fail;
    if (hs->listen_fd >= 0) {
        char name[300];
        listen_name(hs->listen_fd, hs->opts->listen, name, sizeof(name));
        mcp_log("serving bash_run over HTTP on %s/mcp (bsh %s)", name,
                bsh_version());
    }
    return &hs->t;
fail:
    if (hs->listen_fd >= 0)
        listen_close(hs->listen_fd, hs->opts->listen);
    tokens_free(&hs->tokens);
    free(hs);
    return NULL;
}
