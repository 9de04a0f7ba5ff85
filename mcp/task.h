/* SPDX-License-Identifier: MIT */
/*
 * Tasks (task.c): a bash_run whose result is fetched later, in both eras.
 * Legacy (2025-11-25, experimental): the client asks for a task with
 * `params.task`; tasks/get, tasks/result (waits for the end), tasks/list,
 * tasks/cancel, and notifications/tasks/status on each change. Modern
 * (2026-07-28, the io.modelcontextprotocol/tasks extension): the server
 * turns a call that would yield into a task when the client declared the
 * extension; tasks/get (the result inlined once ended), tasks/update
 * (answers to the input requests of a PTY run waiting for input),
 * tasks/cancel. Each task is a run of the server; cancelling a task kills
 * its run.
 */
#ifndef BSH_MCP_TASK_H
#define BSH_MCP_TASK_H

#include "registry.h"

#include <jansson.h>

enum task_status {
    TASK_WORKING,
    TASK_INPUT_REQUIRED,
    TASK_COMPLETED,
    TASK_FAILED,
    TASK_CANCELLED,
};

struct task {
    struct task *next;
    char id[48 + MCP_INSTANCE_MAX];
    struct mcp_run *run; /* until it ends or the task is cancelled */
    enum task_status status;
    bool modern;
    json_t *result;  /* the tools/call result, once ended */
    json_t *waiters; /* ids of tasks/result requests waiting for the end */
    char created[32], updated[32];
    double created_ms, updated_ms;
    int64_t ttl_ms;
    bool ran;             /* a run was started for it */
    unsigned input_round; /* modern: the input request now shown */
    unsigned number;      /* in order of creation: tasks/list's cursor */
    size_t bytes;         /* of `result`, as JSON */
};

/* Ended tasks are kept (for their ttl) up to this many and this many
 * bytes of results together; past either, the oldest ended go first. */
#define TASKS_ENDED_MAX       256
#define TASKS_ENDED_BYTES_MAX ((size_t)32 << 20)

/* tasks/list answers at most this many a page, then a nextCursor. */
#define TASKS_PAGE 100

/* Makes `r` (a run just started or still going) a task and answers the
 * tools/call `id` with the task created. `ttl` is the legacy request's
 * `params.task.ttl`, or NULL. */
void task_start(struct registry *g, json_t *id, struct mcp_run *r, json_t *ttl,
                bool modern);

/* Legacy: a bash_run task whose command waits for a person's approval
 * (SPEC 13.9). task_pending() makes the task, without a run, and its
 * private id: the call is held under that id (rpc_sink()), so that what
 * would answer it (the run, a refusal, an error) goes to the task.
 * task_pending_created() then answers the client's call `id` with the
 * task and puts it in input_required. */
struct task *task_pending(struct registry *g, json_t *ttl, json_t **held_id);
void task_pending_created(struct registry *g, struct task *t, json_t *id);
/* Drops a pending task that was never shown. */
void task_pending_drop(struct registry *g, struct task *t);

/* The held call was approved: the task is working again. False when the
 * task is gone or ended (cancelled): then nothing must start. */
bool task_pending_approved(struct registry *g, json_t *held_id);

/* The held call's run started: the task follows it from now on. False
 * when the task is gone or ended; the caller drops the run. */
bool task_pending_attach(struct registry *g, json_t *held_id,
                         struct mcp_run *r);

/* rpc_sink(): an answer to a held call ends its task with it. */
void task_answer(void *ctx, json_t *held_id, json_t *result, const char *error);

/* The tasks/... requests; `modern` is the era of the request. */
void task_request(struct registry *g, const char *method, json_t *id,
                  json_t *params, bool modern);

/* Follows every task's run: status changes (notified in the legacy era),
 * ends, waiting tasks/result requests, expiry. The ms until a task is
 * next due, or -1. */
double task_advance(struct registry *g);

/* The task holding run `r`, or NULL. */
struct task *task_of_run(struct registry *g, const struct mcp_run *r);

void task_end_all(struct registry *g);

#endif
