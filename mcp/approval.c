/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "approval.h"
#include "era.h"
#include "mono.h"
#include "registry.h"
#include "reply.h"
#include "rpc.h"
#include "tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* How often a call that waits for a person hears that it waits. */
#define APPROVAL_PROGRESS_MS 5000

/* The question's form: approve, and remember for this session. */
static json_t *requested_schema(void)
{
    return json_pack("{s:s, s:{s:{s:s, s:s, s:b}, s:{s:s, s:s, s:b}}, s:[s]}",
                     "type", "object", "properties", "approve", "type",
                     "boolean", "title", "Run it", "default", 0, "remember",
                     "type", "boolean", "title",
                     "Allow this exact command again in this session",
                     "default", 0, "required", "approve");
}

static json_t *elicit_params(const struct approval_question *q)
{
    size_t n = strlen(q->cmd_text) + strlen(q->why) + 32;
    char *message = malloc(n);
    if (message == NULL)
        return NULL;
    snprintf(message, n, "Run this command?\n\n%s\n\n%s", q->cmd_text, q->why);
    json_t *p = json_pack("{s:s, s:s, s:o}", "mode", "form", "message", message,
                          "requestedSchema", requested_schema());
    free(message);
    if (p != NULL && q->task_id != NULL) /* the task that waits for it */
        json_object_set_new(
            p, "_meta",
            json_pack("{s:{s:s}}", META_RELATED_TASK, "taskId", q->task_id));
    return p;
}

static void approval_free(struct approval *a)
{
    if (a == NULL)
        return;
    json_decref(a->call_id);
    json_decref(a->params);
    json_decref(a->policy);
    json_decref(a->remember);
    free(a->command);
    free(a->session);
    free(a->arguments);
    free(a->refusal);
    free(a);
}

static struct approval *approval_new(const struct approval_question *q,
                                     int64_t ask_timeout_ms)
{
    struct approval *a = calloc(1, sizeof(*a));
    if (a == NULL)
        return NULL;
    size_t n = strlen(q->cmd_text) + strlen(q->why) + 32;
    a->refusal = malloc(n);
    a->command = strdup(q->command);
    a->session = strdup(q->session != NULL ? q->session : "");
    if (a->refusal == NULL || a->command == NULL || a->session == NULL) {
        approval_free(a);
        return NULL;
    }
    snprintf(a->refusal, n, "policy: not approved: %s (%s)", q->cmd_text,
             q->why);
    a->policy = json_incref(q->policy);
    a->remember = json_incref(q->remember);
    a->since_ms = a->last_progress_ms = mono_ms();
    int64_t wait = ask_timeout_ms;
    if (q->call_timeout_ms >= 0 && q->call_timeout_ms < wait)
        wait = q->call_timeout_ms;
    a->deadline_ms = a->since_ms + (double)wait;
    return a;
}

/* The refusal of call `id`: a tool error with the policy's verdict. */
static void refuse(json_t *id, const struct approval *a, bool modern)
{
    json_t *r = reply_tool_error(a->refusal);
    json_t *sc = json_object_get(r, "structuredContent");
    json_object_set(sc, "policy", a->policy);
    bool was = rpc_answer_modern(modern);
    rpc_result(id, r);
    rpc_answer_modern(was);
}

bool approval_ask(struct registry *g, json_t *call_id, json_t *params,
                  const struct approval_question *q)
{
    struct approvals *as = &g->approvals;
    struct approval *a = approval_new(q, g->cfg->ask_timeout_ms);
    json_t *ep = elicit_params(q);
    if (a == NULL || ep == NULL) {
        approval_free(a);
        json_decref(ep);
        return false;
    }
    snprintf(a->key, sizeof(a->key), "bsh-approve-%u", ++as->next_number);
    a->call_id = json_incref(call_id);
    a->params = json_incref(params);
    a->next = as->first;
    as->first = a;
    rpc_request(json_string(a->key), "elicitation/create", ep);
    return true;
}

/* 128 random bits as hex: a requestState a client cannot guess. */
static void random_key(char *out, size_t size)
{
    unsigned char raw[16] = {0};
    if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
        for (size_t i = 0; i < sizeof(raw); i++) /* never: /dev/urandom */
            raw[i] = (unsigned char)(mono_ms() * (double)(i + 1));
    size_t o = 0;
    for (size_t i = 0; i < sizeof(raw) && o + 3 <= size; i++)
        o += (size_t)snprintf(out + o, size - o, "%02x", raw[i]);
}

void approval_ask_modern(struct registry *g, json_t *call_id,
                         const struct approval_question *q)
{
    struct approvals *as = &g->approvals;
    struct approval *a = approval_new(q, g->cfg->ask_timeout_ms);
    json_t *ep = elicit_params(q);
    if (a == NULL || ep == NULL) {
        approval_free(a);
        json_decref(ep);
        rpc_result(call_id, reply_tool_error("out of memory"));
        return;
    }
    a->modern = true;
    a->arguments = json_dumps(q->arguments,
                              JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY);
    if (a->arguments == NULL) {
        approval_free(a);
        json_decref(ep);
        rpc_result(call_id, reply_tool_error("out of memory"));
        return;
    }
    random_key(a->key, sizeof(a->key));
    a->next = as->first;
    as->first = a;
    rpc_result(call_id, json_pack("{s:s, s:{s:{s:s, s:o}}, s:s}", "resultType",
                                  "input_required", "inputRequests", "approve",
                                  "method", "elicitation/create", "params", ep,
                                  "requestState", a->key));
}

/* Removes and returns the question under `key`, or NULL. */
static struct approval *take(struct approvals *as, const char *key, bool modern)
{
    for (struct approval **p = &as->first; *p != NULL; p = &(*p)->next) {
        if ((*p)->modern == modern && strcmp((*p)->key, key) == 0) {
            struct approval *a = *p;
            *p = a->next;
            return a;
        }
    }
    return NULL;
}

/* Whether an elicitation result approves; remembers when asked to. */
static bool approves(struct approvals *as, const struct approval *a,
                     json_t *result)
{
    const char *action = json_string_value(json_object_get(result, "action"));
    json_t *content = json_object_get(result, "content");
    if (action == NULL || strcmp(action, "accept") != 0 ||
        !json_is_true(json_object_get(content, "approve")))
        return false;
    if (json_is_true(json_object_get(content, "remember"))) {
        if (as->overlay == NULL)
            as->overlay = bsh_policy_overlay_new();
        size_t i;
        json_t *words;
        json_array_foreach(a->remember, i, words)
        {
            size_t n = json_array_size(words);
            const char **v = calloc(n + 1, sizeof(*v));
            if (v == NULL || as->overlay == NULL) {
                free(v);
                break;
            }
            for (size_t k = 0; k < n; k++)
                v[k] = json_string_value(json_array_get(words, k));
            bsh_policy_overlay_add(as->overlay, v, n);
            free(v);
        }
    }
    return true;
}

static bool mark_approved(struct approvals *as, json_t *id, const char *command)
{
    struct approved_call *c = calloc(1, sizeof(*c));
    if (c == NULL || (c->command = strdup(command)) == NULL) {
        free(c);
        return false;
    }
    c->call_id = json_incref(id);
    c->next = as->approved;
    as->approved = c;
    return true;
}

bool approval_take(struct registry *g, json_t *id, const char *command)
{
    for (struct approved_call **p = &g->approvals.approved; *p != NULL;
         p = &(*p)->next) {
        struct approved_call *c = *p;
        if (json_equal(c->call_id, id) && strcmp(c->command, command) == 0) {
            *p = c->next;
            json_decref(c->call_id);
            free(c->command);
            free(c);
            return true;
        }
    }
    return false;
}

bool approval_reply(struct registry *g, struct calls *calls, json_t *id,
                    json_t *result, const json_t *error)
{
    const char *key = json_string_value(id);
    struct approval *a = key != NULL ? take(&g->approvals, key, false) : NULL;
    if (a == NULL)
        return false;
    if (error == NULL && approves(&g->approvals, a, result) &&
        mark_approved(&g->approvals, a->call_id, a->command)) {
        /* the call goes through the policy again (with the session as it
         * is now), and this approval counts for its `ask` */
        bool was = rpc_answer_modern(a->modern);
        tool_call(g, calls, a->call_id, a->params, a->modern);
        rpc_answer_modern(was);
        /* unless it waits for its session, the call has passed the policy
         * or ended before it: the approval must not outlive it */
        if (!sessions_has_waiting(&g->sessions, a->call_id))
            approval_take(g, a->call_id, a->command);
        registry_pump(g);
    } else {
        refuse(a->call_id, a, false);
    }
    approval_free(a);
    return true;
}

int approval_modern_answer(struct registry *g, json_t *call_id, json_t *params,
                           const char *command, const char *session)
{
    const char *state =
        json_string_value(json_object_get(params, "requestState"));
    if (state == NULL)
        return -1;
    struct approval *a = take(&g->approvals, state, true);
    if (a == NULL)
        return -1;
    /* The answer counts for the call that was asked about, no other: the
     * same command, session, cwd, env and the rest. */
    char *args = json_dumps(json_object_get(params, "arguments"),
                            JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY);
    bool same = args != NULL && strcmp(args, a->arguments) == 0;
    free(args);
    if (!same || strcmp(a->command, command) != 0 ||
        strcmp(a->session, session != NULL ? session : "") != 0 ||
        mono_ms() > a->deadline_ms) {
        refuse(call_id, a, true);
        approval_free(a);
        return 0;
    }
    json_t *answer =
        json_object_get(json_object_get(params, "inputResponses"), "approve");
    bool yes = approves(&g->approvals, a, answer);
    if (!yes)
        refuse(call_id, a, true);
    approval_free(a);
    return yes ? 1 : 0;
}

void approval_cancel(struct registry *g, json_t *call_id)
{
    for (struct approved_call **p = &g->approvals.approved; *p != NULL;) {
        struct approved_call *c = *p; /* approved, not yet started */
        if (json_equal(c->call_id, call_id)) {
            *p = c->next;
            json_decref(c->call_id);
            free(c->command);
            free(c);
        } else {
            p = &c->next;
        }
    }
    for (struct approval **p = &g->approvals.first; *p != NULL;) {
        struct approval *a = *p;
        if (!a->modern && json_equal(a->call_id, call_id)) {
            *p = a->next;
            rpc_notify("notifications/cancelled",
                       json_pack("{s:s, s:s}", "requestId", a->key, "reason",
                                 "the tool call was cancelled"));
            approval_free(a);
        } else {
            p = &a->next;
        }
    }
}

/* Progress for a call that waits, when it asked for progress. */
static void tell_waiting(struct approval *a, double now)
{
    json_t *token =
        json_object_get(json_object_get(a->params, "_meta"), "progressToken");
    if (a->modern || (!json_is_string(token) && !json_is_integer(token)))
        return;
    json_int_t elapsed = (json_int_t)(now - a->since_ms);
    if (elapsed <= a->last_progress)
        elapsed = a->last_progress + 1;
    a->last_progress = elapsed;
    a->last_progress_ms = now;
    rpc_notify("notifications/progress",
               json_pack("{s:O, s:I, s:s}", "progressToken", token, "progress",
                         elapsed, "message",
                         "waiting for a person to approve the command"));
}

double approval_advance(struct registry *g)
{
    double now = mono_ms(), next = -1;
    for (struct approval **p = &g->approvals.first; *p != NULL;) {
        struct approval *a = *p;
        if (now >= a->deadline_ms) {
            *p = a->next;
            if (!a->modern) {
                rpc_notify("notifications/cancelled",
                           json_pack("{s:s, s:s}", "requestId", a->key,
                                     "reason", "no answer in time"));
                refuse(a->call_id, a, false);
            }
            approval_free(a);
            continue;
        }
        if (now >= a->last_progress_ms + APPROVAL_PROGRESS_MS)
            tell_waiting(a, now);
        double due = a->deadline_ms;
        if (!a->modern && a->last_progress_ms + APPROVAL_PROGRESS_MS < due)
            due = a->last_progress_ms + APPROVAL_PROGRESS_MS;
        if (next < 0 || due - now < next)
            next = due - now < 0 ? 0 : due - now;
        p = &a->next;
    }
    return next;
}

size_t approval_waiting(const struct registry *g)
{
    size_t n = 0;
    for (const struct approval *a = g->approvals.first; a != NULL; a = a->next)
        n++;
    return n;
}

bool approval_client_elicits(json_t *init_params)
{
    json_t *e = json_object_get(json_object_get(init_params, "capabilities"),
                                "elicitation");
    if (!json_is_object(e))
        return false;
    /* {} is form mode; {"url": {}} alone is not */
    return json_object_size(e) == 0 || json_object_get(e, "form") != NULL;
}

void approval_end_all(struct registry *g)
{
    struct approvals *as = &g->approvals;
    while (as->first != NULL) {
        struct approval *a = as->first;
        as->first = a->next;
        approval_free(a);
    }
    while (as->approved != NULL) {
        struct approved_call *c = as->approved;
        as->approved = c->next;
        json_decref(c->call_id);
        free(c->command);
        free(c);
    }
    bsh_policy_overlay_free(as->overlay);
    as->overlay = NULL;
}
