/* SPDX-License-Identifier: MIT */
/*
 * Paging a run's log (page.c, SPEC 10.1): bash_output with `offset` reads
 * bytes of the log (both streams in the order they came) instead of new
 * output, reduced as if the log began there, within the reply's budget;
 * the run's read position does not move.
 */
#ifndef BSH_MCP_PAGE_H
#define BSH_MCP_PAGE_H

#include "held_run.h"
#include "registry.h"

#include <jansson.h>

/* The reply for the slice of `r`'s log from `offset`, `length` bytes at
 * most (-1: to the end), its text within `max_output` characters (0: the
 * server's budget). */
json_t *reply_for_page(struct mcp_run *r, enum run_phase phase, int64_t offset,
                       int64_t length, size_t max_output);

/* The same for the kept log of a run already dropped (its exit status is
 * not kept: exit_code and signal are null), within `budget` characters. */
json_t *reply_for_kept_page(const struct kept_log *k, int64_t offset,
                            int64_t length, size_t budget);

#endif
