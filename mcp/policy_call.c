/* SPDX-License-Identifier: MIT */
/*
 * The command policy at a bash_run call (SPEC 13.9), and the bash_policy
 * tool. The server decides before the library runs anything: allow goes
 * on; deny is a tool error that names the rule and its justification; ask
 * is put to a person when the client can elicit (approval.h), run
 * read-only when the server says so, or else a tool error saying that
 * approval is needed. The guards come first and keep their own messages.
 */
#define _GNU_SOURCE
#include "policy_call.h"
#include "approval.h"
#include "era.h"
#include "policy_json.h"
#include "reply.h"
#include "rpc.h"
#include "task.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NEEDS_A_PERSON                                                       \
    "This command needs a person's approval and this client cannot ask for " \
    "it; ask the user to run it, or to allow it in the policy."

/* CMD and WHY of the deciding command, malloc'd. */
static void cmd_and_why(const struct bsh_policy_verdict *v, char **cmd,
                        char **why)
{
    *cmd = *why = NULL;
    if (v->decider >= v->ncommands)
        return;
    const struct bsh_policy_command *c = &v->commands[v->decider];
    size_t tn = bsh_policy_command_text(c, NULL, 0);
    size_t wn = bsh_policy_command_why(c, NULL, 0);
    *cmd = malloc(tn + 1);
    *why = malloc(wn + 1);
    if (*cmd != NULL)
        bsh_policy_command_text(c, *cmd, tn + 1);
    if (*why != NULL)
        bsh_policy_command_why(c, *why, wn + 1);
}

/* structuredContent.policy: the decision and every simple command. */
static json_t *policy_object(const struct bsh_policy_verdict *v)
{
    char *commands = policy_commands_json(v);
    json_t *list = commands != NULL ? json_loads(commands, 0, NULL) : NULL;
    free(commands);
    return json_pack("{s:s, s:o}", "decision", bsh_decision_name(v->decision),
                     "commands", list != NULL ? list : json_array());
}

/* A refusal: `text` as a tool error, with the verdict. */
static void refusal(json_t *id, const char *text, json_t *policy)
{
    json_t *r = reply_tool_error(text);
    json_object_set_new(json_object_get(r, "structuredContent"), "policy",
                        policy);
    rpc_result(id, r);
}

/* "policy: denied: CMD" / "rule: FILE:LINE" / "reason: ...". */
static void deny(json_t *id, const struct bsh_policy_verdict *v,
                 const char *cmd)
{
    const struct bsh_policy_command *c = &v->commands[v->decider];
    char *text = NULL;
    char rule[600] = "", reason[700] = "";
    if (c->reason != NULL) {
        snprintf(reason, sizeof(reason), "\nreason: opaque: %s", c->reason);
    } else if (c->rule != NULL) {
        snprintf(rule, sizeof(rule), "\nrule: %s:%u", c->rule->file,
                 c->rule->line);
        if (c->rule->justification != NULL)
            snprintf(reason, sizeof(reason), "\nreason: %s",
                     c->rule->justification);
    }
    if (asprintf(&text, "policy: denied: %s%s%s", cmd, rule, reason) < 0)
        text = NULL;
    refusal(id, text != NULL ? text : "policy: denied", policy_object(v));
    free(text);
}

/* The words to remember when a person says so: those of the command the
 * question showed (CMD), when a rule or the default asked about it (an
 * opaque one is never remembered). Other commands of the line that ask
 * run this once, with the line, and ask again next time. */
static json_t *words_to_remember(const struct bsh_policy_verdict *v)
{
    json_t *list = json_array();
    for (size_t i = v->decider; i < v->ncommands && i == v->decider; i++) {
        const struct bsh_policy_command *c = &v->commands[i];
        if (c->decision != BSH_ASK || c->reason != NULL || c->nwords == 0)
            continue;
        json_t *words = json_array();
        for (size_t k = 0; k < c->nwords; k++)
            json_array_append_new(words, json_string(c->words[k]));
        json_array_append_new(list, words);
    }
    return list;
}

/* Whether a modern request's client declared elicitation (form). */
static bool modern_client_elicits(json_t *params)
{
    json_t *caps =
        json_object_get(json_object_get(params, "_meta"), META_CLIENT_CAPS);
    json_t *e = json_object_get(caps, "elicitation");
    return json_is_object(e) &&
           (json_object_size(e) == 0 || json_object_get(e, "form") != NULL);
}

/* Legacy, a call that asked for a task: the task is made at once and
 * waits in input_required; the question is about it, and the call is held
 * under the task's private id until a person answers (task.h). */
static bool ask_for_task(struct registry *g, struct gate_call *gc,
                         struct approval_question *q)
{
    json_t *held = NULL;
    struct task *t = task_pending(
        g, json_object_get(json_object_get(gc->params, "task"), "ttl"), &held);
    if (t == NULL)
        return false;
    q->task_id = t->id;
    /* the question first: over HTTP it goes on the call's own stream,
     * which the call's answer ends */
    if (!approval_ask(g, held, gc->params, q)) {
        task_pending_drop(g, t);
        json_decref(held);
        return false;
    }
    json_decref(held);
    task_pending_created(g, t, gc->id);
    return true;
}

static enum policy_gate ask(struct registry *g, struct gate_call *gc,
                            const struct bsh_policy_verdict *v, const char *cmd,
                            const char *why)
{
    const struct mcp_config *cfg = g->cfg;
    bool elicits = gc->modern ? modern_client_elicits(gc->params)
                              : g->approvals.client_elicits;
    if (cfg->ask_elicit && elicits &&
        approval_waiting(g) >= APPROVALS_WAITING_MAX) {
        char *text = NULL;
        if (asprintf(&text,
                     "policy: approval needed: %s (%s)\n%d commands already "
                     "wait for a person's approval; answer those first.",
                     cmd, why, APPROVALS_WAITING_MAX) < 0)
            text = NULL;
        refusal(gc->id, text != NULL ? text : "policy: approval needed",
                policy_object(v));
        free(text);
        return GATE_ANSWERED;
    }
    if (cfg->ask_elicit && elicits) {
        struct approval_question q = {
            .command = gc->command,
            .session = gc->session_name,
            .cmd_text = cmd,
            .why = why,
            .policy = policy_object(v),
            .remember = words_to_remember(v),
            .call_timeout_ms = gc->timeout_ms,
            .arguments = json_object_get(gc->params, "arguments"),
        };
        bool ok = true;
        if (gc->modern)
            approval_ask_modern(g, gc->id, &q);
        else if (json_is_object(json_object_get(gc->params, "task")) &&
                 !json_is_object(gc->id))
            ok = ask_for_task(g, gc, &q);
        else
            ok = approval_ask(g, gc->id, gc->params, &q);
        json_decref(q.policy);
        json_decref(q.remember);
        if (!ok) {
            rpc_result(gc->id, reply_tool_error("out of memory"));
            return GATE_ANSWERED;
        }
        return gc->modern ? GATE_ANSWERED : GATE_WAITING;
    }
    if (cfg->ask_sandbox) {
        json_t *policy = policy_object(v);
        json_object_set_new(policy, "ran", json_string("readonly"));
        gc->readonly_policy = policy;
        if (asprintf(&gc->readonly_note,
                     "policy: ran read-only instead of asking: %s (%s)", cmd,
                     why) < 0)
            gc->readonly_note = NULL;
        return GATE_READONLY;
    }
    char *text = NULL;
    if (asprintf(&text, "policy: approval needed: %s (%s)\n" NEEDS_A_PERSON,
                 cmd, why) < 0)
        text = NULL;
    refusal(gc->id, text != NULL ? text : "policy: approval needed",
            policy_object(v));
    free(text);
    return GATE_ANSWERED;
}

enum policy_gate policy_gate(struct registry *g, struct gate_call *gc)
{
    const struct bsh_policy *p = g->cfg->policy;
    struct bsh_error err;
    if (p == NULL || bsh_check(gc->command, strlen(gc->command), &err) != 0)
        return GATE_RUN; /* no policy; or a guard, which says its own */
    bool approved = approval_take(g, gc->id, gc->command);
    if (gc->modern && !approved) {
        int answer = approval_modern_answer(g, gc->id, gc->params, gc->command,
                                            gc->session_name);
        if (answer == 0)
            return GATE_ANSWERED;
        approved = answer == 1;
    }
    struct bsh_policy_verdict v;
    /* relative write targets: from the call's directory, else the
     * session's, else the server's (where such a run starts) */
    char *cwd = gc->cwd != NULL       ? realpath(gc->cwd, NULL)
                : gc->session == NULL ? getcwd(NULL, 0)
                                      : NULL;
    int d = bsh_policy_decide_run(p, g->approvals.overlay, gc->command,
                                  strlen(gc->command), gc->session, cwd,
                                  gc->env, gc->env_count, &v);
    free(cwd);
    if (d < 0) {
        rpc_result(gc->id, reply_tool_error("out of memory"));
        return GATE_ANSWERED;
    }
    enum policy_gate gate = GATE_RUN;
    if (d != BSH_ALLOW && !(d == BSH_ASK && approved)) {
        char *cmd, *why;
        cmd_and_why(&v, &cmd, &why);
        if (cmd == NULL || why == NULL) {
            rpc_result(gc->id, reply_tool_error("out of memory"));
            gate = GATE_ANSWERED;
        } else if (d == BSH_DENY) {
            deny(gc->id, &v, cmd);
            gate = GATE_ANSWERED;
        } else {
            gate = ask(g, gc, &v, cmd, why);
        }
        free(cmd);
        free(why);
    }
    bsh_policy_verdict_free(&v);
    return gate;
}

void policy_tool(struct registry *g, json_t *id, const char *command,
                 const struct bsh_session *session)
{
    struct bsh_error err;
    const char *guard =
        bsh_check(command, strlen(command), &err) != 0 ? err.text_err : NULL;
    struct bsh_policy_verdict v;
    memset(&v, 0, sizeof(v));
    if (guard == NULL &&
        bsh_policy_decide_with(g->cfg->policy, g->approvals.overlay, command,
                               strlen(command), session, &v) < 0) {
        rpc_result(id, reply_tool_error("out of memory"));
        return;
    }
    char *text = policy_verdict_json(guard != NULL ? NULL : &v, guard);
    json_t *verdict = text != NULL ? json_loads(text, 0, NULL) : NULL;
    if (verdict == NULL) {
        free(text);
        bsh_policy_verdict_free(&v);
        rpc_result(id, reply_tool_error("out of memory"));
        return;
    }
    rpc_result(id, json_pack("{s:[{s:s, s:s}], s:b, s:o}", "content", "type",
                             "text", "text", text, "isError", 0,
                             "structuredContent", verdict));
    free(text);
    bsh_policy_verdict_free(&v);
}
