/* SPDX-License-Identifier: MIT */
/*
 * Where the command policy comes from, for the CLI and the MCP server:
 * --policy files, else BSH_POLICY, else the user's own files; a project's
 * .bsh/policy.rules when asked for; the default decision from
 * --policy-default or BSH_POLICY_DEFAULT. Loads them into one policy.
 */
#ifndef BSH_FRONT_POLICY_SETUP_H
#define BSH_FRONT_POLICY_SETUP_H

#include <bsh/bsh.h>

#include <stdbool.h>
#include <stddef.h>

struct policy_options {
    const char *const *files; /* --policy */
    size_t nfiles;
    const char *default_name; /* --policy-default, or NULL */
    bool no_policy, project, trust_project;
    const char *cwd; /* where the project's file is looked for; NULL: . */
};

enum policy_setup_result {
    POLICY_NONE = 0,  /* no policy configured */
    POLICY_LOADED,    /* *out is the policy */
    POLICY_BAD_FILE,  /* `message` says which and why */
    POLICY_BAD_USAGE, /* BSH_POLICY_DEFAULT is not a decision */
    POLICY_NO_MEMORY,
};

/* Resolves and loads the policy. Warnings go to `warn` (may be NULL). */
enum policy_setup_result
policy_setup(const struct policy_options *o, struct bsh_policy **out,
             char *message, size_t size,
             void (*warn)(void *data, const char *text), void *data);

#endif
