/* SPDX-License-Identifier: MIT */
/*
 * JSON-RPC 2.0 over stdio for the MCP server (rpc.c): the error codes,
 * the queued output and the log.
 */
#ifndef BSH_MCP_RPC_H
#define BSH_MCP_RPC_H

#include "sink.h"

#include <jansson.h>

/* JSON-RPC error codes. */
enum {
    RPC_PARSE_ERROR = -32700,
    RPC_INVALID_REQUEST = -32600,
    RPC_METHOD_NOT_FOUND = -32601,
    RPC_INVALID_PARAMS = -32602,
    RPC_SERVER_BUSY = -32000,
    RPC_UNSUPPORTED_VERSION = -32022, /* modern era: data.supported */
};

/* rpc.c: queue one message line for stdout. Each takes ownership of the
 * json_t it is given (result, params). Notifications are dropped while
 * more than RPC_NOTIFY_LIMIT bytes wait. */
#define RPC_QUEUE_LIMIT  (1u << 20)
#define RPC_NOTIFY_LIMIT (64u << 10)
void rpc_open(int fd);
void rpc_close(void);
struct sink *rpc_sink(void);
void rpc_result(json_t *id, json_t *result);
void rpc_error(json_t *id, int code, const char *message);
void rpc_error_data(json_t *id, int code, const char *message, json_t *data);

/* Results from now on answer a request of the modern era (true) or the
 * legacy one; returns what was set before. */
bool rpc_answer_modern(bool modern);
void rpc_notify(const char *method, json_t *params);
void mcp_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
