/* SPDX-License-Identifier: MIT */
/*
 * The result of a tools/call on a run (reply.c): the output since the
 * run was last read, within the text budget, and where the run stands:
 * its state line first while it goes on, its ending last once it has
 * ended; and the same as structured content.
 */
#ifndef BSH_MCP_REPLY_H
#define BSH_MCP_REPLY_H

#include "capture.h"
#include "held_run.h"

#include <jansson.h>

/* The result for `r` in `phase` (a new reference), its text within
 * `max_output` characters (0: the server's budget). The run's output
 * since its last read is then consumed. */
json_t *reply_for_run(struct mcp_run *r, enum run_phase phase,
                      size_t max_output);

/* The result for a slice of `r`'s log (page.c): `slice` as the text and
 * stdout, the reduction's line after it, `page` (log_bytes, offset,
 * length; a reference taken) added to structuredContent. */
json_t *reply_for_slice(struct mcp_run *r, enum run_phase phase,
                        const struct capture_part *slice,
                        const struct capture_reduced *rd, json_t *page);

/* The result that shows the screen of PTY run `r` (SPEC 10.1): its state
 * line, then the screen's lines, within `max_output` characters (0: the
 * server's budget); the run's output stays unread. */
json_t *reply_for_screen(struct mcp_run *r, enum run_phase phase,
                         size_t max_output);

/* A tool error (isError) carrying `message`. */
json_t *reply_tool_error(const char *message);

/* A result that is only `text` (not an error): what was done for a run
 * whose output goes to its task. */
json_t *reply_text(const char *text);

#endif
