/* SPDX-License-Identifier: MIT */
/*
 * Answers of the HTTP transport: responses queued at once, the JSON or
 * event-stream answer of a request from its stream (suspending the
 * connection while nothing is there to write), and the probes.
 */
#include "http_internal.h"
#include "mono.h"
#include "rpc.h"
#include "server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum MHD_Result http_queue(struct exchange *ex, unsigned status,
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
enum MHD_Result http_refuse(struct exchange *ex, unsigned status, int code,
                            const char *message, json_t *id,
                            const char *const *headers)
{
    json_t *msg = json_pack("{s:s, s:{s:i, s:s}}", "jsonrpc", "2.0", "error",
                            "code", code, "message", message);
    if (id != NULL)
        json_object_set(msg, "id", id);
    char *text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    enum MHD_Result ok = text != NULL
                             ? http_queue(ex, status, "application/json", text,
                                          strlen(text), headers)
                             : MHD_NO;
    free(text);
    return ok;
}

enum MHD_Result http_unauthorized(struct exchange *ex)
{
    static const char *const h[] = {MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer",
                                    NULL};
    return http_queue(ex, MHD_HTTP_UNAUTHORIZED, NULL, "", 0, h);
}

enum MHD_Result http_unavailable(struct exchange *ex, const char *why)
{
    static const char *const h[] = {MHD_HTTP_HEADER_RETRY_AFTER, RETRY_AFTER,
                                    NULL};
    return http_refuse(ex, MHD_HTTP_SERVICE_UNAVAILABLE, RPC_SERVER_BUSY, why,
                       NULL, h);
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

/* The HTTP status of a modern answer with JSON-RPC error `code` (0:
 * none), as the 2026-07-28 transport says. */
static unsigned modern_status(json_int_t code)
{
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
    unsigned status = ex->modern ? modern_status(s->answer_error) : 200;
    enum MHD_Result ok = http_queue(ex, status, "application/json", e->data,
                                    e->len, ex->made ? h : NULL);
    s->reader = NULL;
    ex->stream = NULL;
    stream_free(s); /* a plain answer is not resumed */
    return ok;
}

enum MHD_Result http_answer_events(struct exchange *ex)
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
enum MHD_Result http_answer_from_stream(struct exchange *ex)
{
    struct stream *s = ex->stream;
    if (s == NULL)
        return http_refuse(ex, MHD_HTTP_NOT_FOUND, -32001, "Session not found",
                           json_null(), NULL);
    if (stream_is_one_answer(s))
        return answer_json(ex, s);
    if (s->ended && s->request_id != NULL && s->next_seq == 0) {
        /* Cancelled: no answer will come. */
        s->reader = NULL;
        ex->stream = NULL;
        stream_free(s);
        return http_queue(ex, MHD_HTTP_NO_CONTENT, NULL, "", 0, NULL);
    }
    if (s->request_id == NULL || (s->sse_ok && s->next_seq > s->first_seq))
        return http_answer_events(ex);
    suspend(ex);
    return MHD_YES;
}

/* The exchange answers from `s` from now on. */
void http_attach(struct exchange *ex, struct stream *s, uint64_t seq)
{
    ex->stream = s;
    ex->seq = seq;
    s->reader = ex;
    if (!ex->counted) {
        ex->counted = true;
        ex->hs->answering++;
    }
}

/* ---- probes ------------------------------------------------------------- */

enum MHD_Result http_answer_probe(struct exchange *ex, const char *url)
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
            ? http_queue(ex, ready ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE,
                         "application/json", text, strlen(text), NULL)
            : MHD_NO;
    free(text);
    return ok;
}
