/* SPDX-License-Identifier: MIT */
/*
 * The command policy at a bash_run call, and the bash_policy tool
 * (policy_call.c).
 */
#ifndef BSH_MCP_POLICY_CALL_H
#define BSH_MCP_POLICY_CALL_H

#include "registry.h"

#include <jansson.h>

enum policy_gate {
    GATE_RUN,      /* start the run as asked */
    GATE_READONLY, /* start it read-only instead of asking (--ask sandbox) */
    GATE_WAITING,  /* a person is asked; the call waits (approval.h) */
    GATE_ANSWERED, /* refused, or answered with a question (modern) */
};

/* The bash_run call being decided. */
struct gate_call {
    json_t *id, *params;
    bool modern;
    const char *command;
    const struct bsh_session *session; /* its shell state, or NULL */
    const char *session_name;          /* or NULL */
    int64_t timeout_ms;                /* the call's own; < 0: none */
    const char *cwd;                   /* the call's `cwd`, or NULL */
    const struct bsh_env_var *env;     /* the call's `env`, on top */
    size_t env_count;
    /* GATE_READONLY: the note of its first reply, and the verdict
     * (malloc'd, and a new reference: the caller frees them). */
    char *readonly_note;
    json_t *readonly_policy;
};

enum policy_gate policy_gate(struct registry *g, struct gate_call *gc);

/* bash_policy: the verdict for `command` (explain --json), nothing run. */
void policy_tool(struct registry *g, json_t *id, const char *command,
                 const struct bsh_session *session);

#endif
