/* SPDX-License-Identifier: MIT */
/*
 * JSON-RPC 2.0 output: every message is one compact JSON line on stdout,
 * queued whole and written without blocking, so a client that does not
 * read never stalls the server. Logs go to stderr; nothing else is ever
 * written to stdout.
 */
#include "rpc.h"
#include "era.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Replies wait here while the client does not read; the server stops
 * reading requests once RPC_QUEUE_LIMIT bytes wait. */
static struct sink out = {.fd = -1};

void rpc_open(int fd)
{
    sink_open(&out, fd, RPC_QUEUE_LIMIT);
    if (out.blocking)
        mcp_log("stdout cannot be written without blocking: a client that "
                "stops reading will hold the server up");
}

void rpc_close(void)
{
    sink_close(&out);
}

struct sink *rpc_sink(void)
{
    return &out;
}

static void write_line(json_t *msg)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    if (text == NULL) {
        mcp_log("cannot encode a reply (out of memory?)");
        return;
    }
    size_t len = strlen(text);
    text[len] = '\n'; /* replaces the NUL; len + 1 bytes go out */
    if (out.fd < 0)
        rpc_open(1);
    static bool told;
    if (sink_write(&out, text, len + 1) < 0 && out.error != EPIPE && !told) {
        mcp_log("cannot write to stdout: %s", strerror(out.error));
        told = true;
    }
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
    if (answering_modern)
        era_mark_result(result);
    write_line(json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id",
                         id != NULL ? id : json_null(), "result", result));
}

/* An error reply; `id` NULL when the request's id could not be read. The
 * id is then left out: the current schemas (2025-11-25, 2026-07-28) take
 * an error without one, and none takes `"id": null`. */
void rpc_error_data(json_t *id, int code, const char *message, json_t *data)
{
    json_t *error = json_pack("{s:i, s:s}", "code", code, "message", message);
    if (data != NULL)
        json_object_set_new(error, "data", data);
    json_t *msg = json_pack("{s:s, s:o}", "jsonrpc", "2.0", "error", error);
    if (id != NULL)
        json_object_set(msg, "id", id);
    write_line(msg);
}

void rpc_error(json_t *id, int code, const char *message)
{
    rpc_error_data(id, code, message, NULL);
}

void rpc_notify(const char *method, json_t *params)
{
    if (sink_pending(&out) && sink_queued(&out) >= RPC_NOTIFY_LIMIT) {
        json_decref(params); /* advisory: dropped while the client lags */
        return;
    }
    write_line(json_pack("{s:s, s:s, s:o}", "jsonrpc", "2.0", "method", method,
                         "params", params));
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
