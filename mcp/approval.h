/* SPDX-License-Identifier: MIT */
/*
 * Commands that wait for a person's approval (SPEC 13.9): a bash_run whose
 * command the policy says to ask about, put to the client's user with
 * elicitation/create (legacy era: a request of the server's own, answered
 * by a reply; 2026-07-28: an input_required result, answered by the
 * call's retry). An approval starts the call once; "remember" adds its
 * words to this MCP session's overlay, in memory only. A decline, a
 * cancel, an error or no answer in time refuses it.
 */
#ifndef BSH_MCP_APPROVAL_H
#define BSH_MCP_APPROVAL_H

#include <bsh/bsh.h>
#include <jansson.h>

#include <stdbool.h>

struct registry;
struct calls;

/* At most this many questions wait in one space (a client that asks
 * without end must not grow the server); past it an ask is refused. */
#define APPROVALS_WAITING_MAX 64

/* A question put to the client, waiting for its answer. */
struct approval {
    struct approval *next;
    char key[48];    /* our request's id, or the modern requestState */
    json_t *call_id; /* the tools/call (legacy) */
    json_t *params;  /* its params, to start it once approved */
    bool modern;
    char *command;   /* what was asked about */
    char *session;   /* its session's name, "" for none */
    char *arguments; /* modern: all the call's arguments (sorted JSON): the
                        answer counts for exactly this call */
    double since_ms, deadline_ms, last_progress_ms;
    json_int_t last_progress;
    char *refusal;    /* "policy: not approved: CMD (WHY)" */
    json_t *policy;   /* structuredContent.policy of the refusal */
    json_t *remember; /* the words to remember, [[w, ...], ...] */
};

/* A call a person approved, to start once. */
struct approved_call {
    struct approved_call *next;
    json_t *call_id;
    char *command;
};

struct approvals {
    struct approval *first;
    struct approved_call *approved;
    unsigned next_number;
    struct bsh_policy_overlay *overlay; /* remembered for this MCP session */
    bool client_elicits; /* legacy: declared at initialize (form mode) */
};

/* What the question needs: the verdict's deciding command and why. */
struct approval_question {
    const char *command, *session;
    const char *cmd_text, *why; /* CMD and WHY */
    json_t *policy;             /* taken */
    json_t *remember;           /* taken */
    int64_t call_timeout_ms;    /* the call's own deadline; < 0: none */
    const char *task_id;        /* legacy: the task that waits, or NULL */
    json_t *arguments;          /* the call's arguments (borrowed) */
};

/* Legacy: sends elicitation/create for the call and holds it. False when
 * out of memory. */
bool approval_ask(struct registry *g, json_t *call_id, json_t *params,
                  const struct approval_question *q);

/* Modern: answers the call with an input_required result and holds the
 * question under its requestState. */
void approval_ask_modern(struct registry *g, json_t *call_id,
                         const struct approval_question *q);

/* Modern: a tools/call that carries a requestState: 1 approved (the call
 * goes on), 0 refused (answered), -1 no such question (a new call). */
int approval_modern_answer(struct registry *g, json_t *call_id, json_t *params,
                           const char *command, const char *session);

/* A reply of the client (legacy). False when it answers no question. */
bool approval_reply(struct registry *g, struct calls *calls, json_t *id,
                    json_t *result, const json_t *error);

/* Whether a person approved call `id` for `command` (consumed). */
bool approval_take(struct registry *g, json_t *id, const char *command);

/* notifications/cancelled for a tools/call that waits for an answer (or
 * was approved and waits for its session). */
void approval_cancel(struct registry *g, json_t *call_id);

/* Refuses the questions whose time is up, and tells the calls that
 * wait (progress). The ms until the next is due, or -1. */
double approval_advance(struct registry *g);

/* How many questions wait for an answer. */
size_t approval_waiting(const struct registry *g);

/* Whether the client of a legacy session can elicit, from initialize's
 * params. */
bool approval_client_elicits(json_t *init_params);

/* Drops everything (the space ends). */
void approval_end_all(struct registry *g);

#endif
