/* SPDX-License-Identifier: MIT */
/*
 * The non-interactive profile (agent_env.c): environment variables that
 * stop common tools from waiting for a person (pagers, editors, password
 * and confirmation prompts). The CLI adds it with --agent-env; the MCP
 * server adds it to every run unless told not to.
 */
#ifndef BSH_FRONT_AGENT_ENV_H
#define BSH_FRONT_AGENT_ENV_H

#include <bsh/bsh.h>

/* Puts the profile in front of `o`'s environment, so that a variable the
 * caller sets wins; TERM=dumb only in pipe mode. Returns the new array,
 * which `o->env` now points to (free() it after bsh_run(); the strings
 * are static or the caller's), or NULL when out of memory (`o` as it
 * was). */
struct bsh_env_var *agent_env_apply(struct bsh_run_opts *o);

#endif
