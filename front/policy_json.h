/* SPDX-License-Identifier: MIT */
/*
 * A policy verdict as JSON, as `bsh policy explain --json`, `bsh check
 * --json` and the MCP server show it: the decision, the guard's message
 * (or null), and every simple command with its words, range, nesting,
 * decision, rule and reason.
 */
#ifndef BSH_FRONT_POLICY_JSON_H
#define BSH_FRONT_POLICY_JSON_H

#include <bsh/bsh.h>

/* The explain object; `guard` is the guard's message when a guard
 * rejected the command (then `v` may be NULL). malloc'd; NULL when out of
 * memory. */
char *policy_verdict_json(const struct bsh_policy_verdict *v,
                          const char *guard);

/* The "commands" array alone. */
char *policy_commands_json(const struct bsh_policy_verdict *v);

#endif
