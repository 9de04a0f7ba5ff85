/* SPDX-License-Identifier: MIT */
/*
 * The result of a tools/call on a run (reply.c): the output since the
 * run was last read, within the text budget, and where the run stands:
 * its state line first while it goes on, its ending last once it has
 * ended; and the same as structured content.
 */
#ifndef BSH_MCP_REPLY_H
#define BSH_MCP_REPLY_H

#include "held_run.h"

#include <jansson.h>

/* The result for `r` in `phase` (a new reference). The run's output
 * since its last read is then consumed. */
json_t *reply_for_run(struct mcp_run *r, enum run_phase phase);

/* A tool error (isError) carrying `message`. */
json_t *reply_tool_error(const char *message);

/* A result that is only `text` (not an error): what was done for a run
 * whose output goes to its task. */
json_t *reply_text(const char *text);

#endif
