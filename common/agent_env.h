/* SPDX-License-Identifier: MIT */
/*
 * The non-interactive profile (agent_env.c): environment variables that
 * stop common tools from waiting for a person (pagers, editors, password
 * and confirmation prompts). The CLI adds it with --agent-env; the MCP
 * server adds it to every run unless told not to.
 */
#ifndef BSH_COMMON_AGENT_ENV_H
#define BSH_COMMON_AGENT_ENV_H

#include <bsh/bsh.h>

/* `env` (`count` variables) with the profile in front of it, so that a
 * variable the caller sets wins; TERM=dumb only when !pty. A new array
 * (free() it; the strings are static or the caller's), its length in
 * `*out_count`; NULL when out of memory. */
struct bsh_env_var *agent_env_add(const struct bsh_env_var *env, size_t count,
                                  bool pty, size_t *out_count);

#endif
