/* SPDX-License-Identifier: MIT */
#include "rpc.h"
#include "era.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct transport *conn;
static rpc_sink_fn *private_sink;
static void *private_ctx;

void rpc_open(struct transport *t)
{
    conn = t;
    private_sink = NULL;
    private_ctx = NULL;
}

void rpc_sink(rpc_sink_fn *sink, void *ctx)
{
    private_sink = sink;
    private_ctx = ctx;
}

static void send_message(json_t *msg, bool droppable)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    if (text == NULL) {
        mcp_log("cannot encode a reply (out of memory?)");
        return;
    }
    if (conn != NULL)
        conn->ops->send(conn, text, strlen(text), droppable);
    free(text);
}

/* The era of the request being answered: a modern one's results carry
 * a resultType and the server's identity. */
static bool answering_modern;

bool rpc_answer_modern(bool modern)
{
    bool was = answering_modern;
    answering_modern = modern;
    return was;
}

void rpc_result(json_t *id, json_t *result)
{
    if (json_is_object(id)) { /* private: never the client's */
        if (private_sink != NULL)
            private_sink(private_ctx, id, result, NULL);
        else
            json_decref(result);
        return;
    }
    if (answering_modern)
        era_mark_result(result);
    send_message(json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id",
                           id != NULL ? id : json_null(), "result", result),
                 false);
}

/* An error reply; `id` NULL when the request's id could not be read. The
 * id is then left out: the current schemas (2025-11-25, 2026-07-28) take
 * an error without one, and none takes `"id": null`. */
void rpc_error_data(json_t *id, int code, const char *message, json_t *data)
{
    if (json_is_object(id)) {
        if (private_sink != NULL)
            private_sink(private_ctx, id, NULL, message);
        json_decref(data);
        return;
    }
    json_t *error = json_pack("{s:i, s:s}", "code", code, "message", message);
    if (data != NULL)
        json_object_set_new(error, "data", data);
    json_t *msg = json_pack("{s:s, s:o}", "jsonrpc", "2.0", "error", error);
    if (id != NULL)
        json_object_set(msg, "id", id);
    send_message(msg, false);
}

void rpc_error(json_t *id, int code, const char *message)
{
    rpc_error_data(id, code, message, NULL);
}

void rpc_request(json_t *id, const char *method, json_t *params)
{
    send_message(json_pack("{s:s, s:o, s:s, s:o}", "jsonrpc", "2.0", "id", id,
                           "method", method, "params", params),
                 false);
}

void rpc_notify(const char *method, json_t *params)
{
    send_message(json_pack("{s:s, s:s, s:o}", "jsonrpc", "2.0", "method",
                           method, "params", params),
                 true);
}

void mcp_log(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof(line) - 1 ? (size_t)n : sizeof(line) - 2;
    line[len++] = '\n';
    fputs("bsh mcp: ", stderr);
    fwrite(line, 1, len, stderr);
    fflush(stderr);
}
