/* SPDX-License-Identifier: MIT */
/*
 * Declarations shared inside libbsh. Nothing here is exported.
 */
#ifndef BSH_INTERNAL_H
#define BSH_INTERNAL_H

#include "bsh/bsh.h"

#include <stdarg.h>
#include <sys/types.h>

/* The kernel's limit on one argument (MAX_ARG_STRLEN), with its NUL. */
#define BSH_ARG_MAX 131072

/* guard.c: whether pattern `index` (0-based, < bsh_pattern_count())
 * matches; its DFA decides. */
bool bsh__pattern_matches(size_t index, const char *s, size_t len);

/* env.c: the child's environment, `environ` overlaid with `vars` (later
 * duplicates win); a NULL-terminated array in one allocation, or NULL when
 * out of memory. Callers have validated the names. */
char **bsh__env_build(const struct bsh_env_var *vars, size_t count);

/* A started process, as spawn.c hands it to the stream. */
struct bsh__started {
    pid_t pid;
    int out_fd, err_fd; /* PTY: the master and -1 */
    bool pty;
};

/* spawn.c: start bash -c -- `command`. On success fills `sp` and returns
 * 0; on failure returns -1 with the kind and reason in `why`. */
struct bsh__spawn_error {
    enum bsh_error_kind kind;
    char text[BSH_ERROR_MAX];
};
int bsh__spawn_pipes(const char *command, const char *cwd, char **envp,
                     struct bsh__started *sp, struct bsh__spawn_error *why);
int bsh__spawn_pty(const char *command, const char *cwd, char **envp,
                   struct bsh__started *sp, struct bsh__spawn_error *why);

/* util.c: closes `fd` if it is open; returns -1, so that `fd =
 * bsh__close(fd)` leaves no stale number behind. */
int bsh__close(int fd);

/* Formats into a fixed buffer, always NUL-terminated, truncating. */
void bsh__format(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* stream.c: a stream for the wrapper, which drops the raw errors. */
int bsh__run_quiet(const struct bsh_run_opts *opts, struct bsh_stream **out,
                   struct bsh_error *err);

#endif
