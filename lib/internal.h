/* SPDX-License-Identifier: MIT */
/*
 * Declarations shared inside libbsh. Nothing here is exported.
 */
#ifndef BSH_INTERNAL_H
#define BSH_INTERNAL_H

#include "bsh/bsh.h"

#include <stdarg.h>
#include <stdint.h>
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

/* env.c: the run's variables (`o->env`) and, when `tmpdir` is not NULL,
 * TMPDIR last (so it wins): a malloc'd array of `*count`, or NULL when
 * out of memory. */
struct bsh_env_var *bsh__env_with_tmpdir(const struct bsh_run_opts *o,
                                         const char *tmpdir, size_t *count);

/* env.c: the value `envp` (NULL: `environ`) gives `name`, or NULL. */
const char *bsh__env_value(char *const *envp, const char *name);

/* A started process, as spawn.c hands it to the stream. */
struct bsh__started {
    pid_t pid;
    int out_fd, err_fd; /* PTY: the master and -1 */
    int in_fd;          /* the writable stdin (PTY: a dup of the master), -1 */
    bool pty;
};

/* spawn.c: start bash -c -- `command`. On success fills `sp` and returns
 * 0; on failure returns -errno with the kind and reason in `why`. */
struct bsh__spawn_error {
    enum bsh_error_kind kind;
    int err; /* the errno of the clone or exec itself, or 0 */
    char text[BSH_ERROR_MAX];
};

/* Where a child goes beyond the common recipe: its own cgroup and its
 * resource limits. */
struct bsh__placement {
    int cgroup_dir;               /* -1: the child stays in ours */
    int64_t cpu_seconds;          /* RLIMIT_CPU; 0: none */
    int64_t fsize_bytes;          /* RLIMIT_FSIZE; 0: none */
    struct bsh__sandbox *sandbox; /* NULL: none (sandbox.h) */
    int v1_procs[2]; /* cgroup v1 cgroup.procs the child joins; -1: none */
};

/* The run's command line and where it runs. */
struct bsh__launch {
    const char *command;
    const char *cwd;           /* NULL: ours */
    char **envp;               /* NULL: ours */
    bool stdin_pipe;           /* a writable stdin (sp->in_fd) */
    unsigned short rows, cols; /* the PTY's size */
    const struct bsh__placement *place;
    int state_fds[2]; /* a session run's (bsh__child_plan); -1: none */
};

int bsh__spawn_pipes(const struct bsh__launch *l, struct bsh__started *sp,
                     struct bsh__spawn_error *why);
int bsh__spawn_pty(const struct bsh__launch *l, struct bsh__started *sp,
                   struct bsh__spawn_error *why);

/* What the child does before it runs bash, in this order: fd 0 opened
 * from a path (or duplicated from in_fd), fds 1 and 2 duplicated from
 * ours, then the directory. */
struct bsh__child_plan {
    const char *in_path;
    int in_flags;
    int in_fd; /* >= 0: stdin is this fd, not in_path */
    int out_fd, err_fd;
    const char *cwd;
    char *const *argv;
    char *const *envp;
    const struct bsh__placement *place;
    /* A session run's state fds, which bash gets as BSH_STATE_FD_IN and
     * BSH_STATE_FD_OUT; -1: none. */
    int state_fds[2];
};

/* clone.c: starts the plan in a vfork child of our own (clone3 straight
 * into its cgroup where it has one, with its limits and sandbox). Returns
 * 0, or -errno with `*in_cwd` saying whether it was the child's chdir
 * that failed (rather than the clone or the exec). */
int bsh__clone_bash(const struct bsh__child_plan *plan, pid_t *pid,
                    bool *in_cwd);

/* util.c: closes `fd` if it is open; returns -1, so that `fd =
 * bsh__close(fd)` leaves no stale number behind. */
int bsh__close(int fd);
/* ioctl(2) with the request as the kernel takes it: musl declares the
 * request an int, which requests with the top bit set overflow. */
int bsh__ioctl(int fd, unsigned long request, void *arg);

/* util.c: whether the real (absolute, resolved) path `path` is directory
 * `dir` or lies under it. */
bool bsh__path_within(const char *path, const char *dir);

/* Reads the small file `path` (relative to `dirfd`, or AT_FDCWD) whole
 * into `buf`, NUL-terminated, cut at `size` - 1 bytes: /proc and cgroup
 * files, which give all they hold in one read: a short read ends it. Its
 * length, or -errno when it cannot be opened or read (`buf` then holds
 * what was read before). */
ssize_t bsh__read_file(int dirfd, const char *path, char *buf, size_t size);

/* util.c: writes all `len` bytes to `fd` (again after EINTR or a short
 * write): 0, or -errno (-EIO when nothing could be written). */
int bsh__write_all(int fd, const void *data, size_t len);

/* util.c: the first `size` bytes of the file at `fd`, read with pread
 * from its start into a malloc'd buffer of `size` + 1; NULL when it
 * cannot be read whole (errno says why) or out of memory. */
char *bsh__pread_all(int fd, size_t size);

/* Moves an fd of ours that landed on 0, 1 or 2 (the caller had closed its
 * own stdio) above 2, close-on-exec, so that the child's dup2 calls cannot
 * clobber it: the fd, or -errno (a negative `fd` is handed back). */
int bsh__above_stdio(int fd);

/* Formats into a fixed buffer, always NUL-terminated, truncating. */
/* policy/gate.c: the run's policy (opts->policy set): BSH_OK to go on
 * (`*readonly`: under the read-only sandbox, as the approval said), or
 * BSH_EPOLICY with the message in `err`; BSH_ENOMEM. */
int bsh__policy_gate(const struct bsh_run_opts *o, struct bsh_error *err,
                     bool *readonly);

void bsh__format(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* stream.c: a stream for the wrapper, which drops the raw errors. */
int bsh__run_quiet(const struct bsh_run_opts *opts, struct bsh_stream **out,
                   struct bsh_error *err);

#endif
