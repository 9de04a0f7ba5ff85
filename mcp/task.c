/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "task.h"
#include "approval.h"
#include "era.h"
#include "mono.h"
#include "reply.h"
#include "rpc.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

/* How often a client should poll, and how long a task is kept by default
 * and at most (from its creation; an ended task at least a minute). */
#define TASK_POLL_MS        500
#define TASK_TTL_DEFAULT_MS ((int64_t)RUN_KEEP_ENDED_MS)
#define TASK_TTL_MIN_MS     1000
#define TASK_TTL_MAX_MS     ((int64_t)3600000)
#define TASK_ENDED_KEEP_MS  60000.0

static const char *const status_names[] = {"working", "input_required",
                                           "completed", "failed", "cancelled"};

static bool terminal(enum task_status s)
{
    return s == TASK_COMPLETED || s == TASK_FAILED || s == TASK_CANCELLED;
}

/* Now as ISO 8601 in UTC with milliseconds. */
static void stamp(char *buf, size_t size)
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, size - n, ".%03ldZ", ts.tv_nsec / 1000000);
}

static void touch(struct task *t, enum task_status s)
{
    t->status = s;
    t->updated_ms = mono_ms();
    stamp(t->updated, sizeof(t->updated));
}

static struct task *find(struct registry *g, json_t *params)
{
    json_t *id = json_object_get(params, "taskId");
    for (struct task *t = g->tasks; json_is_string(id) && t != NULL;
         t = t->next)
        if (strcmp(t->id, json_string_value(id)) == 0)
            return t;
    return NULL;
}

struct task *task_of_run(struct registry *g, const struct mcp_run *r)
{
    for (struct task *t = g->tasks; t != NULL; t = t->next)
        if (t->run == r)
            return t;
    return NULL;
}

/* What the task is doing, for a person. */
static void status_message(const struct task *t, char *buf, size_t size)
{
    const struct mcp_run *r = t->run;
    if (t->status == TASK_CANCELLED)
        snprintf(buf, size, "cancelled: %s",
                 t->ran ? "its run was killed" : "its command never ran");
    else if (terminal(t->status) && !t->ran)
        snprintf(buf, size, "its command did not run: the result says why");
    else if (terminal(t->status))
        snprintf(buf, size, "the command ended%s",
                 t->status == TASK_FAILED ? " with an error or a non-zero "
                                            "exit"
                                          : "");
    else if (r == NULL && t->status == TASK_INPUT_REQUIRED)
        snprintf(buf, size,
                 "the command waits for a person's approval "
                 "(elicitation/create)");
    else if (r == NULL)
        snprintf(buf, size,
                 "the command waits for a person's approval or "
                 "for its session");
    else if (t->status == TASK_INPUT_REQUIRED)
        snprintf(buf, size, "run %s waits for input (%s); %s", r->id,
                 bsh_input_wait_name(r->input_wait),
                 t->modern ? "answer its input request with tasks/update"
                           : "type with bash_write");
    else
        snprintf(buf, size, "running as run %s, %llu bytes of output", r->id,
                 (unsigned long long)r->bytes);
}

/* The PTY run waits for input: one form whose answer is typed. */
static json_t *input_requests(const struct task *t)
{
    char key[32], message[400];
    snprintf(key, sizeof(key), "input-%u", t->input_round);
    snprintf(message, sizeof(message),
             "The command waits for input (%s): %.300s",
             bsh_input_wait_name(t->run->input_wait), t->run->command);
    return json_pack(
        "{s:{s:s, s:{s:s, s:s, s:{s:s, s:{s:{s:s, s:s}}, s:[s]}}}}", key,
        "method", "elicitation/create", "params", "mode", "form", "message",
        message, "requestedSchema", "type", "object", "properties", "input",
        "type", "string", "description",
        "Typed into the command's terminal; end a line with a newline.",
        "required", "input");
}

/* The task as tasks/get, tasks/cancel and the status notification show
 * it; in the modern era with its payload inlined. */
static json_t *task_json(const struct task *t)
{
    char msg[300];
    status_message(t, msg, sizeof(msg));
    json_t *o =
        json_pack("{s:s, s:s, s:s, s:s, s:s}", "taskId", t->id, "status",
                  status_names[t->status], "statusMessage", msg, "createdAt",
                  t->created, "lastUpdatedAt", t->updated);
    json_object_set_new(o, t->modern ? "ttlMs" : "ttl",
                        json_integer(t->ttl_ms));
    json_object_set_new(o, t->modern ? "pollIntervalMs" : "pollInterval",
                        json_integer(TASK_POLL_MS));
    if (t->modern && t->status == TASK_COMPLETED && t->result != NULL) {
        json_t *result = json_deep_copy(t->result);
        era_mark_result(result);
        json_object_set_new(o, "result", result);
    }
    if (t->modern && t->status == TASK_INPUT_REQUIRED)
        json_object_set_new(o, "inputRequests", input_requests(t));
    return o;
}

/* A new task, working, without a run yet. NULL when out of memory. */
static struct task *task_new(struct registry *g, json_t *ttl, bool modern)
{
    struct task *t = calloc(1, sizeof(*t));
    if (t == NULL || (t->waiters = json_array()) == NULL) {
        free(t);
        return NULL;
    }
    unsigned char rnd[6] = {0};
    if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) < 0)
        memset(rnd, 0, sizeof(rnd));
    t->number = ++g->shared->next_task;
    const char *instance = g->cfg->instance;
    snprintf(t->id, sizeof(t->id), "task-%u-%02x%02x%02x%02x%02x%02x%s%s",
             t->number, rnd[0], rnd[1], rnd[2], rnd[3], rnd[4], rnd[5],
             instance != NULL ? "@" : "", instance != NULL ? instance : "");
    t->modern = modern;
    t->ttl_ms = TASK_TTL_DEFAULT_MS;
    if (json_is_integer(ttl))
        t->ttl_ms = json_integer_value(ttl) < TASK_TTL_MIN_MS ? TASK_TTL_MIN_MS
                    : json_integer_value(ttl) > TASK_TTL_MAX_MS
                        ? TASK_TTL_MAX_MS
                        : json_integer_value(ttl);
    t->created_ms = mono_ms();
    stamp(t->created, sizeof(t->created));
    touch(t, TASK_WORKING);
    t->next = g->tasks;
    g->tasks = t;
    return t;
}

/* The answer to the call that made task `t`. */
static void answer_created(const struct task *t, json_t *id)
{
    json_t *shown = task_json(t);
    if (t->modern) {
        json_object_set_new(shown, "resultType", json_string("task"));
        rpc_result(id, shown);
    } else {
        rpc_result(id, json_pack("{s:o}", "task", shown));
    }
}

static void follow_run(struct task *t, struct mcp_run *r)
{
    t->run = r;
    t->ran = true;
    r->waited_on = true; /* the task reads it; no call may */
}

void task_start(struct registry *g, json_t *id, struct mcp_run *r, json_t *ttl,
                bool modern)
{
    struct task *t = task_new(g, ttl, modern);
    if (t == NULL) {
        rpc_result(id, reply_tool_error("out of memory"));
        return;
    }
    follow_run(t, r);
    answer_created(t, id);
}

/* The result tasks/result gives: the call's own, tied to the task. */
static json_t *payload(const struct task *t)
{
    json_t *result =
        t->result != NULL ? json_deep_copy(t->result)
        : t->ran
            ? reply_tool_error("the task was cancelled: its run was killed")
            : reply_tool_error("the task was cancelled before its "
                               "command ran");
    json_t *meta = json_object_get(result, "_meta");
    if (meta == NULL) {
        meta = json_object();
        json_object_set_new(result, "_meta", meta);
    }
    json_object_set_new(meta, META_RELATED_TASK,
                        json_pack("{s:s}", "taskId", t->id));
    return result;
}

static void answer_waiters(struct task *t)
{
    bool was = rpc_answer_modern(false);
    for (size_t i = 0; i < json_array_size(t->waiters); i++)
        rpc_result(json_array_get(t->waiters, i), payload(t));
    rpc_answer_modern(was);
    json_array_clear(t->waiters);
}

static void notify_status(struct task *t)
{
    if (!t->modern)
        rpc_notify("notifications/tasks/status", task_json(t));
}

static void task_free(struct task *t)
{
    json_decref(t->result);
    json_decref(t->waiters);
    free(t);
}

/* Drops the oldest ended tasks (the list is newest first) while more
 * than TASKS_ENDED_MAX or TASKS_ENDED_BYTES_MAX of them are kept, so that
 * a client that makes tasks faster than they expire cannot grow the
 * server without bound. */
static void bound_ended(struct registry *g)
{
    for (;;) {
        size_t count = 0, bytes = 0;
        struct task **oldest = NULL;
        for (struct task **pp = &g->tasks; *pp != NULL; pp = &(*pp)->next) {
            if (!terminal((*pp)->status) || json_array_size((*pp)->waiters) > 0)
                continue;
            count++;
            bytes += (*pp)->bytes;
            oldest = pp;
        }
        if (oldest == NULL ||
            (count <= TASKS_ENDED_MAX && bytes <= TASKS_ENDED_BYTES_MAX))
            return;
        struct task *t = *oldest;
        *oldest = t->next;
        task_free(t);
    }
}

/* The run is done with by the task: its end read into the result. */
static void finish(struct registry *g, struct task *t)
{
    struct mcp_run *r = t->run;
    t->result = reply_for_run(r, RUN_EXITED, 0);
    bool failed = json_is_true(json_object_get(t->result, "isError"));
    t->run = NULL;
    r->waited_on = false;
    registry_drop_run(g, r);
    /* Modern: failed is for JSON-RPC errors only; a tool error is a
     * completed call whose result says so. */
    t->bytes = json_dumpb(t->result, NULL, 0, JSON_COMPACT);
    touch(t, failed && !t->modern ? TASK_FAILED : TASK_COMPLETED);
    notify_status(t);
    answer_waiters(t);
}

static void cancel(struct task *t)
{
    struct mcp_run *r = t->run;
    if (r != NULL) {
        bsh_stream_cancel(r->stream);
        r->discard = true;
        r->waited_on = false;
        t->run = NULL;
    }
    touch(t, TASK_CANCELLED);
    notify_status(t);
    answer_waiters(t);
}

/* ---- tasks whose command waits for approval --------------------------------
 */

static json_t *held_id_of(const struct task *t)
{
    return json_pack("{s:s}", "taskId", t->id);
}

/* The task a held call's id names, while it has not ended. */
static struct task *held_task(struct registry *g, json_t *held_id)
{
    struct task *t = find(g, held_id);
    return t != NULL && !terminal(t->status) ? t : NULL;
}

struct task *task_pending(struct registry *g, json_t *ttl, json_t **held_id)
{
    struct task *t = task_new(g, ttl, false);
    if (t != NULL && (*held_id = held_id_of(t)) == NULL) {
        task_pending_drop(g, t);
        t = NULL;
    }
    return t;
}

void task_pending_created(struct registry *g, struct task *t, json_t *id)
{
    (void)g;
    answer_created(t, id);
    touch(t, TASK_INPUT_REQUIRED);
    notify_status(t);
}

void task_pending_drop(struct registry *g, struct task *t)
{
    for (struct task **pp = &g->tasks; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == t) {
            *pp = t->next;
            task_free(t);
            return;
        }
    }
}

bool task_pending_approved(struct registry *g, json_t *held_id)
{
    struct task *t = held_task(g, held_id);
    if (t == NULL || t->run != NULL)
        return false;
    if (t->status != TASK_WORKING) {
        touch(t, TASK_WORKING);
        notify_status(t);
    }
    return true;
}

bool task_pending_attach(struct registry *g, json_t *held_id, struct mcp_run *r)
{
    if (!task_pending_approved(g, held_id))
        return false;
    follow_run(held_task(g, held_id), r);
    return true;
}

void task_answer(void *ctx, json_t *held_id, json_t *result, const char *error)
{
    struct task *t = held_task(ctx, held_id);
    if (t == NULL || t->run != NULL) { /* its answer is the run's */
        json_decref(result);
        return;
    }
    t->result = result != NULL
                    ? result
                    : reply_tool_error(error != NULL ? error : "error");
    bool failed = json_is_true(json_object_get(t->result, "isError"));
    t->bytes = json_dumpb(t->result, NULL, 0, JSON_COMPACT);
    touch(t, failed ? TASK_FAILED : TASK_COMPLETED);
    notify_status(t);
    answer_waiters(t);
}

/* ---- requests -------------------------------------------------------------
 */

/* tasks/update: the answer to the shown input request is typed. */
static void update(struct task *t, json_t *id, json_t *params)
{
    char key[32];
    snprintf(key, sizeof(key), "input-%u", t->input_round);
    json_t *answer =
        json_object_get(json_object_get(params, "inputResponses"), key);
    json_t *input =
        json_object_get(json_object_get(answer, "content"), "input");
    const char *action = json_string_value(json_object_get(answer, "action"));
    if (t->run != NULL && json_is_string(input) && action != NULL &&
        strcmp(action, "accept") == 0) {
        char why[300];
        if (run_write(t->run, json_string_value(input),
                      json_string_length(input), false, why, sizeof(why)) < 0) {
            rpc_error(id, RPC_INVALID_PARAMS, why);
            return;
        }
        t->input_round++; /* the next wait is a new request */
        touch(t, TASK_WORKING);
    }
    rpc_result(id, json_object()); /* unknown keys are ignored */
}

/* The cursor of tasks/list: the number of the last task of the page
 * before (the list is newest first); UINT_MAX for the first page, 0 when
 * it is not one of ours. */
static unsigned list_cursor(json_t *params)
{
    json_t *c = json_object_get(params, "cursor");
    if (c == NULL || json_is_null(c))
        return UINT_MAX;
    const char *text = json_string_value(c);
    char *end = NULL;
    unsigned long v = text != NULL ? strtoul(text, &end, 10) : 0;
    return text != NULL && text[0] >= '1' && text[0] <= '9' && *end == '\0' &&
                   v < UINT_MAX
               ? (unsigned)v
               : 0;
}

static void list(struct registry *g, json_t *id, json_t *params)
{
    unsigned after = list_cursor(params);
    if (after == 0) {
        rpc_error(id, RPC_INVALID_PARAMS, "Invalid cursor");
        return;
    }
    json_t *tasks = json_array();
    const struct task *last = NULL;
    bool more = false;
    for (const struct task *t = g->tasks; t != NULL; t = t->next) {
        if (t->modern || t->number >= after) /* modern: no tasks/list */
            continue;
        if (json_array_size(tasks) == TASKS_PAGE) {
            more = true;
            break;
        }
        json_array_append_new(tasks, task_json(t));
        last = t;
    }
    json_t *result = json_pack("{s:o}", "tasks", tasks);
    if (more && last != NULL) { /* a page is never empty */
        char cursor[16];
        snprintf(cursor, sizeof(cursor), "%u", last->number);
        json_object_set_new(result, "nextCursor", json_string(cursor));
    }
    rpc_result(id, result);
}

void task_request(struct registry *g, const char *method, json_t *id,
                  json_t *params, bool modern)
{
    if (strcmp(method, "tasks/list") == 0 && !modern) {
        list(g, id, params);
        return;
    }
    struct task *t = find(g, params);
    char why[300];
    if (t == NULL &&
        registry_foreign_id(
            g, "task", json_string_value(json_object_get(params, "taskId")),
            why, sizeof(why))) {
        rpc_error(id, RPC_INVALID_PARAMS, why);
        return;
    }
    if (t == NULL || t->modern != modern) {
        rpc_error(id, RPC_INVALID_PARAMS,
                  "Unknown taskId: no such task, or it has expired");
        return;
    }
    if (strcmp(method, "tasks/get") == 0) {
        rpc_result(id, task_json(t));
    } else if (strcmp(method, "tasks/cancel") == 0) {
        if (terminal(t->status)) {
            rpc_error(id, RPC_INVALID_PARAMS,
                      "The task has already ended: it cannot be cancelled");
            return;
        }
        bool held = t->run == NULL && !t->ran;
        cancel(t);
        if (held) { /* its question, or its approved call that waits for
                       the session, goes too (after: the task has ended) */
            json_t *h = held_id_of(t);
            approval_cancel(g, h);
            sessions_cancel(&g->sessions, h);
            json_decref(h);
        }
        rpc_result(id, modern ? json_object() : task_json(t));
        bound_ended(g); /* t was answered: it may go now */
    } else if (strcmp(method, "tasks/result") == 0 && !modern) {
        if (terminal(t->status))
            rpc_result(id, payload(t));
        else
            json_array_append(t->waiters, id);
    } else if (strcmp(method, "tasks/update") == 0 && modern) {
        update(t, id, params);
    } else {
        rpc_error(id, RPC_METHOD_NOT_FOUND, "Method not found");
    }
}

/* ---- moving forward -------------------------------------------------------
 */

static void follow(struct registry *g, struct task *t)
{
    enum run_phase p = run_phase(t->run, RUN_LOOK_MS);
    if (p == RUN_EXITED) {
        finish(g, t);
        return;
    }
    enum task_status s =
        p == RUN_AWAITING_INPUT ? TASK_INPUT_REQUIRED : TASK_WORKING;
    if (s != t->status) {
        touch(t, s);
        notify_status(t);
    }
}

double task_advance(struct registry *g)
{
    double now = mono_ms(), next = -1;
    bool ended = false;
    for (struct task **pp = &g->tasks; *pp != NULL;) {
        struct task *t = *pp;
        if (t->run != NULL) {
            follow(g, t);
            ended |= t->run == NULL;
        }
        if (t->run != NULL) { /* its end wakes the server; a wait not */
            if (t->run->pty && (next < 0 || RUN_LOOK_MS < next))
                next = RUN_LOOK_MS;
            pp = &t->next;
            continue;
        }
        if (!terminal(t->status)) { /* waits for approval: kept */
            pp = &t->next;
            continue;
        }
        double until = t->created_ms + (double)t->ttl_ms;
        if (until < t->updated_ms + TASK_ENDED_KEEP_MS)
            until = t->updated_ms + TASK_ENDED_KEEP_MS;
        if (now >= until && json_array_size(t->waiters) == 0) {
            *pp = t->next;
            task_free(t);
            continue;
        }
        if (next < 0 || until - now < next)
            next = until - now;
        pp = &t->next;
    }
    if (ended) /* after the walk: it frees tasks the walk would hold */
        bound_ended(g);
    return next;
}

void task_end_all(struct registry *g)
{
    while (g->tasks != NULL) {
        struct task *t = g->tasks;
        g->tasks = t->next;
        task_free(t); /* the runs are killed with the registry's */
    }
}
