/* SPDX-License-Identifier: MIT */
/* What a simple command does besides running its program
 * (command_effects.c). */
#ifndef BSH_POLICY_COMMAND_EFFECTS_H
#define BSH_POLICY_COMMAND_EFFECTS_H

#include "bash_tree.h"

#include <stdbool.h>
#include <stddef.h>

/* Whether an assignment to `name` makes a command opaque (PATH, LD_*,
 * BASH_ENV, GIT_SSH_COMMAND, ...). */
bool pol_listed_name(const char *name);

/* Whether assigning `value` (NULL: not known) to `name` does: as
 * pol_listed_name(), but a locale (LANG, LC_ALL, LC_CTYPE) only when it
 * is neither C nor UTF-8. */
bool pol_listed_assignment(const char *name, const char *value);

/* The opaque reason of such an effect of words `w` (whose first word's
 * basename is `base`), or NULL. `buf` holds a reason made for it. */
const char *pol_command_effect(const struct pol_word *w, size_t n,
                               const char *base, char *buf, size_t size);

#endif
