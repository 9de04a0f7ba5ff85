/* SPDX-License-Identifier: MIT */
/*
 * A session's aliases and functions as the policy sees them
 * (session_lookup.c).
 */
#ifndef BSH_POLICY_SESSION_LOOKUP_H
#define BSH_POLICY_SESSION_LOOKUP_H

#include "decide.h"

#include <bsh/bsh.h>
#include <stdbool.h>

/* Fills `lookup` for `session`; `*state` is freed with
 * pol_session_lookup_free(). 0, or -1 when memory ran out. */
int pol_session_lookup(const struct bsh_session *session,
                       struct pol_lookup *lookup, void **state);
void pol_session_lookup_free(void *state);

/* Whether the session's saved functions' text only defines functions. */
bool pol_session_defines_only(void *state);

/* Whether the session's shell has history expansion on (set -o history
 * and histexpand): then `!` and a leading `^` re-read the command. */
bool pol_session_expands_history(void *state);

#endif
