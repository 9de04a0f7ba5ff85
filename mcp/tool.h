/* SPDX-License-Identifier: MIT */
/*
 * The tools (tool.c): bash_run, bash_output, bash_write, bash_kill and
 * bash_list over the runs the server holds, their arguments checked
 * against the catalog (catalog.h). A tool that waits on a run hands the
 * request to call.h, which answers it when its moment comes.
 */
#ifndef BSH_MCP_TOOL_H
#define BSH_MCP_TOOL_H

#include "call.h"
#include "registry.h"
#include "rpc.h"

#include <jansson.h>

/* Handles a tools/call: answers it at once, adds a waiting call, or
 * starts a task. `modern`: the request is of the modern era. */
void tool_call(struct registry *g, struct calls *calls, json_t *id,
               json_t *params, bool modern);

/* Starts the bash_run calls that waited for their session, now free,
 * in the order they came, and answers those that waited too long. The
 * ms until the next one gives up, or -1. */
double tool_resume_waiting(struct registry *g, struct calls *calls);

#endif
