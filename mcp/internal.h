/* SPDX-License-Identifier: MIT */
/*
 * Pieces of the MCP server shared between its files.
 */
#ifndef BSH_MCP_INTERNAL_H
#define BSH_MCP_INTERNAL_H

#include "capture.h"
#include "mcp.h"
#include "sink.h"

#include <jansson.h>

/* JSON-RPC error codes. */
enum {
    RPC_PARSE_ERROR = -32700,
    RPC_INVALID_REQUEST = -32600,
    RPC_METHOD_NOT_FOUND = -32601,
    RPC_INVALID_PARAMS = -32602,
    RPC_SERVER_BUSY = -32000,
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
void rpc_notify(const char *method, json_t *params);
void mcp_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One tools/call of bash_run in flight. */
struct call {
    struct call *next;
    json_t *id;
    json_t *progress_token; /* NULL: no progress notifications */
    struct bsh_stream *stream;
    struct capture cap;
    int64_t timeout_ms;
    bool pty;
    bool cancelled; /* by notifications/cancelled: end without a reply */
    double last_progress_ms;
    uint64_t bytes;
};

/* tool.c */
json_t *tool_description(void);
/* Validates a tools/call and starts it. Returns a new call, or NULL after
 * it has answered the request itself (an error or a guard rejection). */
struct call *tool_start(const struct mcp_config *cfg, struct spill_dir *dir,
                        json_t *id, json_t *params);
/* Moves the call forward without blocking; true once it has ended and
 * been answered (or dropped, when cancelled). */
bool tool_pump(struct call *c);
/* Answers a tools/call with a tool error (isError) carrying `message`. */
void tool_answer_error(json_t *id, const char *message);
void tool_free(struct call *c);

double mcp_now_ms(void);

#endif
