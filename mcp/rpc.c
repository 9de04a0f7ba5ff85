/* SPDX-License-Identifier: MIT */
/*
 * JSON-RPC 2.0 output: every message is one compact JSON line on stdout,
 * written whole. Logs go to stderr; nothing else is ever written to
 * stdout.
 */
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    const char *p = text;
    size_t left = len + 1;
    while (left > 0) {
        ssize_t n = write(1, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            mcp_log("cannot write to stdout: %s", strerror(errno));
            break;
        }
        p += n;
        left -= (size_t)n;
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
