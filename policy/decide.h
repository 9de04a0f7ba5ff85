/* SPDX-License-Identifier: MIT */
/*
 * Deciding a command against a policy (decide.c), into a verdict that is
 * built entry by entry (verdict.c): each simple command with its words,
 * where it came from, its decision and the rule or reason behind it.
 */
#ifndef BSH_POLICY_DECIDE_H
#define BSH_POLICY_DECIDE_H

#include "bash_tree.h"
#include "policy.h"

/* The aliases and functions a command may call, from its session. */
struct pol_lookup {
    const void *data;
    /* the value of alias `name`, or NULL */
    const char *(*alias)(const void *data, const char *name, size_t *len);
    /* the body of function `name`, or NULL */
    const char *(*function)(const void *data, const char *name, size_t *len);
    const char *cwd; /* the session's directory, or NULL */
    /* a relative cd may go elsewhere than the operand says (the session
     * keeps CDPATH, or cdable_vars on) */
    bool cd_elsewhere;
};

/* What a lookup returns for a definition that exists but cannot be read
 * (decided opaque). */
extern const char pol_unreadable[];

struct pol_verdict_builder;

struct pol_verdict_builder *pol_verdict_new(void);
/* Adds an entry (its words and via copied); its index, or SIZE_MAX. */
size_t pol_verdict_add(struct pol_verdict_builder *vb, size_t start, size_t end,
                       const char *const *via, size_t nvia,
                       const struct pol_word *words, size_t nwords);
/* How many entries it holds. */
size_t pol_verdict_count(const struct pol_verdict_builder *vb);
void pol_verdict_set(struct pol_verdict_builder *vb, size_t index,
                     enum bsh_decision d, const struct bsh_policy_rule *rule,
                     const char *reason);
/* A copy of `s` that lives as long as the verdict ("" when memory ran
 * out). */
const char *pol_intern(struct pol_verdict_builder *vb, const char *s);
/* "assignment to NAME", "unknown option OPT of WRAPPER", kept likewise. */
const char *pol_reason_assignment(struct pol_verdict_builder *vb,
                                  const char *name);
const char *pol_reason_unknown_option(struct pol_verdict_builder *vb,
                                      const char *wrapper, const char *option);
/* Moves what was built into `out` (and frees the builder). */
/* Puts the commands of `extra` (taken, and emptied) before those of `v`,
 * with `decision` for the whole; 0, or -1 when memory ran out (`extra`
 * freed, `v` as it was). */
int pol_verdict_prepend(struct bsh_policy_verdict *v,
                        struct bsh_policy_verdict *extra,
                        enum bsh_decision decision);

int pol_verdict_finish(struct pol_verdict_builder *vb,
                       enum bsh_decision decision,
                       struct bsh_policy_verdict *out);
void pol_verdict_discard(struct pol_verdict_builder *vb);

/* Whether `overlay` holds exactly the static words `w` (then `*rule` is
 * its rule). */
bool pol_overlay_allows(const struct bsh_policy_overlay *overlay,
                        const struct pol_word *w, size_t n,
                        const struct bsh_policy_rule **rule);

/* Decides `command`; 0 with `*decision`, or -1 when memory ran out. */
int pol_decide(const struct bsh_policy *policy,
               const struct bsh_policy_overlay *overlay,
               const struct pol_lookup *lookup, const char *cwd,
               const char *command, size_t len, struct pol_verdict_builder *vb,
               enum bsh_decision *decision);

#endif
