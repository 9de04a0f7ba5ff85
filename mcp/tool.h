/* SPDX-License-Identifier: MIT */
/*
 * The tools (tool.c): bash_run, bash_output, bash_write, bash_kill and
 * bash_list over the runs the server holds. A tools/call on a run becomes
 * a call that waits until the run ends, waits for input, or the call's
 * time is up (bash_run's yield, bash_output's wait), and is then answered
 * from the run (reply.h).
 */
#ifndef BSH_MCP_TOOL_H
#define BSH_MCP_TOOL_H

#include "held_run.h"
#include "rpc.h"

#include <jansson.h>

/* A tools/call waiting on a run. */
struct call {
    struct call *next;
    json_t *id;
    json_t *progress_token; /* NULL: no progress notifications */
    struct mcp_run *run;
    double since_ms, return_at_ms, last_progress_ms;
    json_int_t last_progress;
    uint64_t bytes_at_progress;
    bool starts_run;    /* bash_run's own: a cancel kills the run */
    bool modern;        /* asked in the modern era */
    bool task_on_yield; /* modern, tasks extension: a yield makes a task */
};

/* The runs and the calls on them. */
struct registry {
    const struct mcp_config *cfg;
    struct spill_dir *spill;
    struct mcp_run *runs;
    int nruns;
    unsigned next_number;
    struct call *calls;
    struct task *tasks;
    unsigned next_task;
};

/* Handles a tools/call: answers it at once, adds a waiting call, or
 * starts a task. `modern`: the request is of the modern era. */
void tool_call(struct registry *g, json_t *id, json_t *params, bool modern);

/* Frees run `r` and takes it out of the registry. */
void tool_drop_run(struct registry *g, struct mcp_run *r);

/* notifications/cancelled: the call is dropped without a reply, and the
 * run it started is killed. */
void tool_cancel(struct registry *g, json_t *request_id);

/* Moves every run and call forward without blocking: answers the calls
 * whose moment has come, sends progress, drops runs that are done with.
 * Returns the milliseconds until something is next due, or -1. */
int tool_advance(struct registry *g);

/* Kills every run and drops every call (end of input, a stop signal). */
void tool_end_all(struct registry *g);

#endif
