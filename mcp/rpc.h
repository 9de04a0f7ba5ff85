/* SPDX-License-Identifier: MIT */
/*
 * JSON-RPC 2.0 messages of the MCP server (rpc.c): the error codes, and
 * results, errors and notifications, each one compact JSON text handed to
 * the server's transport (transport.h). The log goes to stderr.
 */
#ifndef BSH_MCP_RPC_H
#define BSH_MCP_RPC_H

#include "transport.h"

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

/* Where messages go from now on (NULL: nowhere). Each call below takes
 * ownership of the json_t it is given (result, params, data). */
void rpc_open(struct transport *t);
void rpc_result(json_t *id, json_t *result);
void rpc_error(json_t *id, int code, const char *message);
void rpc_error_data(json_t *id, int code, const char *message, json_t *data);

/* Answers to a request the server made itself (a private id: a JSON
 * object, which no client can send) go to `sink` instead of the client;
 * `sink` takes the result, or gets the error's message. Set after each
 * rpc_open(), which clears it. */
typedef void rpc_sink_fn(void *ctx, json_t *id, json_t *result,
                         const char *error);
void rpc_sink(rpc_sink_fn *sink, void *ctx);

/* Results from now on answer a request of the modern era (true) or the
 * legacy one; returns what was set before. */
bool rpc_answer_modern(bool modern);
/* A request of the server's own (`id` taken too): never dropped. */
void rpc_request(json_t *id, const char *method, json_t *params);
/* A notification: dropped while the client lags (transport.h). */
void rpc_notify(const char *method, json_t *params);
void mcp_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
