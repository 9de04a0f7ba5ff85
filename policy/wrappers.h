/* SPDX-License-Identifier: MIT */
/*
 * Commands that run another command: the transparent wrappers (env,
 * timeout, xargs, ...), the privilege wrappers (sudo, su, ...), and what
 * their options are, so the inner command is found where the wrapper
 * finds it. An option this table does not know may take an argument, so
 * the inner command cannot be known: the caller makes it opaque.
 */
#ifndef BSH_POLICY_WRAPPERS_H
#define BSH_POLICY_WRAPPERS_H

#include "bash_tree.h"

#include <stdbool.h>
#include <stddef.h>

struct pol_wrapper;

/* The wrapper named `name` (a basename; `command`, `builtin` and `exec`
 * only as written), or NULL. */
const struct pol_wrapper *pol_wrapper_find(const char *name, bool *privilege);
const char *pol_wrapper_name(const struct pol_wrapper *w);
/* Whether it is a builtin, found only by its name as written. */
bool pol_wrapper_exact(const struct pol_wrapper *w);

struct pol_unwrap {
    size_t next;         /* the first word of the inner command; n: none */
    const char *unknown; /* an option not in the table, or NULL */
    bool dynamic;        /* a dynamic word where an option may be */
    bool no_command;     /* a mode that runs nothing (`command -v`, pids) */
    bool query;          /* `command -v`/`-V` */
    bool skip_functions; /* `command`, `builtin` */
    bool user_command;   /* `runuser -u USER CMD...` */
    /* `env -S STRING`, `su -c STRING`: the string (NULL: none) */
    const char *script;
    bool script_dynamic;
    /* `su -s SHELL`: the program that runs the -c string (NULL: none) */
    const char *shell;
    bool shell_dynamic;
    /* `time -o FILE`: the file (NULL: none) */
    const char *output;
    bool output_dynamic;
    const char *replace;           /* `xargs -I R`: R, or NULL */
    bool reads_stdin_args;         /* xargs: words come from stdin too */
    bool bare_runs_nothing;        /* with no inner command nothing runs */
    bool bare_echo;                /* xargs with no command runs echo */
    size_t assign_from, assign_to; /* NAME=VALUE operands (env, sudo) */
};

/* Reads the options and operands of wrapper `w` at words[0] (its name). */
void pol_unwrap(const struct pol_wrapper *w, const struct pol_word *words,
                size_t n, struct pol_unwrap *u);

#endif
