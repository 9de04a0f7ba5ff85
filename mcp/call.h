/* SPDX-License-Identifier: MIT */
/*
 * The tools/call requests in flight (call.c). A call on a run waits until
 * the run ends, waits for input, or the call's time is up (bash_run's
 * yield, bash_output's wait), sending progress notifications meanwhile,
 * and is then answered from the run (reply.h); a modern bash_run call
 * whose client takes tasks becomes a task instead of yielding. A cancel
 * drops the call without a reply and kills the run it started.
 */
#ifndef BSH_MCP_CALL_H
#define BSH_MCP_CALL_H

#include "registry.h"

#include <jansson.h>

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
    size_t max_output;  /* the reply's characters; 0: the server's budget */
};

struct calls {
    struct call *first;
};

/* The call `id` (with its request's `params`) waits on `r` for up to
 * `wait_ms`. A call that already waits on `r` is answered first, with
 * what there is; if that answer was the run's end, this one gets a tool
 * error. NULL when it was answered at once. */
struct call *call_wait_on(struct registry *g, struct calls *cs, json_t *id,
                          json_t *params, struct mcp_run *r, int64_t wait_ms);

/* notifications/cancelled for `request_id`. */
void call_cancel(struct calls *cs, json_t *request_id);

/* Answers the calls whose moment has come and sends progress for the
 * others. The ms until one is next due, or -1. */
double call_advance(struct registry *g, struct calls *cs);

/* Drops every call unanswered (the server is ending). */
void call_end_all(struct calls *cs);

#endif
