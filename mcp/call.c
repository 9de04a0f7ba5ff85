/* SPDX-License-Identifier: MIT */
#include "call.h"
#include "era.h"
#include "mono.h"
#include "reply.h"
#include "rpc.h"
#include "task.h"

#include <stdio.h>
#include <stdlib.h>

/* Progress while output flows at most this often, and while the command
 * is silent at least this often (SPEC: at least every 10 s). */
#define PROGRESS_BUSY_MS   100.0
#define PROGRESS_SILENT_MS 5000.0

static void free_call(struct call *c)
{
    json_decref(c->id);
    json_decref(c->progress_token);
    free(c);
}

static struct call *add_call(struct calls *cs, json_t *id, json_t *params,
                             struct mcp_run *r, int64_t wait_ms)
{
    struct call *c = calloc(1, sizeof(*c));
    if (c == NULL) {
        rpc_result(id, reply_tool_error("out of memory"));
        return NULL;
    }
    c->id = json_incref(id);
    json_t *token =
        json_object_get(json_object_get(params, "_meta"), "progressToken");
    if (json_is_string(token) || json_is_integer(token))
        c->progress_token = json_incref(token);
    c->run = r;
    json_t *max = json_object_get(json_object_get(params, "arguments"),
                                  "max_output"); /* checked by the catalog */
    c->max_output = json_is_integer(max) ? (size_t)json_integer_value(max) : 0;
    c->modern = era_requested_version(params) != NULL;
    c->since_ms = c->last_progress_ms = mono_ms();
    c->return_at_ms = c->since_ms + (double)wait_ms;
    c->bytes_at_progress = r->bytes;
    c->next = cs->first;
    cs->first = c;
    r->waited_on = true;
    return c;
}

/* Answers `c` from its run as it stands; a run whose end is answered is
 * done with. */
static void answer(struct registry *g, struct call *c, enum run_phase phase)
{
    struct mcp_run *r = c->run;
    bool was = rpc_answer_modern(c->modern);
    r->waited_on = false;
    if (c->task_on_yield && phase != RUN_EXITED) {
        task_start(g, c->id, r, NULL, true);
        rpc_answer_modern(was);
        return;
    }
    rpc_result(c->id, reply_for_run(r, phase, c->max_output));
    rpc_answer_modern(was);
    if (phase == RUN_EXITED)
        registry_drop_run(g, r);
}

/* The call already waiting on `r` is answered now with what is there.
 * False when that answer was the run's end, so the run is gone. */
static bool answer_waiting(struct registry *g, struct calls *cs,
                           struct mcp_run *r)
{
    for (struct call **pp = &cs->first; *pp != NULL; pp = &(*pp)->next) {
        struct call *c = *pp;
        if (c->run == r) {
            *pp = c->next;
            bool ended = r->ended;
            answer(g, c, run_phase(r, 0));
            free_call(c);
            return !ended;
        }
    }
    return true;
}

struct call *call_wait_on(struct registry *g, struct calls *cs, json_t *id,
                          json_t *params, struct mcp_run *r, int64_t wait_ms)
{
    if (r->waited_on && !answer_waiting(g, cs, r)) {
        rpc_result(id, reply_tool_error("the run ended and its end went to "
                                        "an earlier call"));
        return NULL;
    }
    /* The call answered first may have made the run a task (a yield of
     * a client that takes tasks): the task reads it now, no call may. */
    const struct task *t = task_of_run(g, r);
    if (t != NULL) {
        char text[400];
        snprintf(text, sizeof(text),
                 "run %s became task %s: its output comes with the task's "
                 "result",
                 r->id, t->id);
        rpc_result(id, reply_text(text));
        return NULL;
    }
    return add_call(cs, id, params, r, wait_ms);
}

void call_cancel(struct calls *cs, json_t *request_id)
{
    for (struct call **pp = &cs->first; *pp != NULL;) {
        struct call *c = *pp;
        if (request_id == NULL || !json_equal(c->id, request_id)) {
            pp = &c->next;
            continue;
        }
        *pp = c->next;
        c->run->waited_on = false;
        if (c->starts_run) { /* the call's command dies with it */
            bsh_stream_cancel(c->run->stream);
            c->run->discard = true;
        }
        free_call(c);
    }
}

static void send_progress(struct call *c, double now)
{
    json_int_t elapsed = (json_int_t)(now - c->since_ms);
    if (elapsed <= c->last_progress)
        elapsed = c->last_progress + 1; /* strictly increasing */
    c->last_progress = elapsed;
    c->last_progress_ms = now;
    c->bytes_at_progress = c->run->bytes;
    char msg[96];
    snprintf(msg, sizeof(msg), "%.1f s, %llu bytes of output",
             (double)elapsed / 1000.0, (unsigned long long)c->run->bytes);
    rpc_notify("notifications/progress",
               json_pack("{s:O, s:I, s:s}", "progressToken", c->progress_token,
                         "progress", elapsed, "message", msg));
}

/* Progress for a call that waits; the ms until it is next due. */
static double progress(struct call *c, double now)
{
    if (c->progress_token == NULL)
        return -1;
    bool busy = c->run->bytes != c->bytes_at_progress;
    double due =
        c->last_progress_ms + (busy ? PROGRESS_BUSY_MS : PROGRESS_SILENT_MS);
    if (now >= due) {
        send_progress(c, now);
        due = now + PROGRESS_SILENT_MS;
    }
    return due - now;
}

/* Answers a call whose moment has come; else the ms until it may. */
static double advance_call(struct registry *g, struct call *c, bool *done)
{
    double now = mono_ms();
    enum run_phase p = run_phase(c->run, RUN_LOOK_MS);
    *done = p != RUN_RUNNING || now >= c->return_at_ms;
    if (*done) {
        answer(g, c, p);
        return -1;
    }
    double next = c->return_at_ms - now;
    mono_soonest(&next, progress(c, now));
    if (c->run->pty && !c->run->ended) /* an input wait shows in time */
        mono_soonest(&next, RUN_LOOK_MS);
    return next;
}

double call_advance(struct registry *g, struct calls *cs)
{
    double next = -1;
    for (struct call **pp = &cs->first; *pp != NULL;) {
        struct call *c = *pp;
        bool done;
        double ms = advance_call(g, c, &done);
        if (done) {
            *pp = c->next;
            free_call(c);
        } else {
            mono_soonest(&next, ms);
            pp = &c->next;
        }
    }
    return next;
}

void call_end_all(struct calls *cs)
{
    while (cs->first != NULL) {
        struct call *c = cs->first;
        cs->first = c->next;
        free_call(c);
    }
}
