/* SPDX-License-Identifier: MIT */
/*
 * JSON-RPC 2.0 output: every message is one compact JSON line on stdout,
 * queued whole and written without blocking, so a client that does not
 * read never stalls the server. Logs go to stderr; nothing else is ever
 * written to stdout.
 */
#include "rpc.h"

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

void rpc_result(json_t *id, json_t *result)
{
    write_line(json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id",
                         id != NULL ? id : json_null(), "result", result));
}

void rpc_error(json_t *id, int code, const char *message)
{
    write_line(json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0", "id",
                         id != NULL ? id : json_null(), "error", "code", code,
                         "message", message));
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
