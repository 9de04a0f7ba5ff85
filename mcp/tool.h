/* SPDX-License-Identifier: MIT */
/*
 * The bash_run tool (tool.c): one call in flight, from its tools/call to
 * its reply.
 */
#ifndef BSH_MCP_TOOL_H
#define BSH_MCP_TOOL_H

#include "capture.h"
#include "mcp.h"
#include "rpc.h"

#include <jansson.h>

/* One tools/call of bash_run in flight. */
struct call {
    struct call *next;
    json_t *id;
    json_t *progress_token; /* NULL: no progress notifications */
    struct bsh_stream *stream;
    struct capture cap;
    int64_t timeout_ms;
    int64_t idle_ms;
    bool pty;
    bool subreaper; /* the server kills orphans: say so in the report */
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

#endif
