/* SPDX-License-Identifier: MIT */
/*
 * The sandbox of a run (sandbox.c): prepared in the parent, where memory
 * may be allocated and libseccomp may run, and applied by the child just
 * before it runs bash (clone.c), with three system calls that allocate
 * nothing: no new privileges, the Landlock ruleset, the seccomp filter.
 */
#ifndef BSH_SANDBOX_H
#define BSH_SANDBOX_H

#include "bsh/bsh.h"
#include "supervise.h"

#include <linux/filter.h>
#include <stddef.h>
#include <stdint.h>

struct bsh__sandbox {
    bool strict;
    int ruleset_fd;         /* Landlock; -1: none */
    struct sock_fprog prog; /* the seccomp filter (shared); len 0: none */
    /* Capabilities to drop: the sets to keep (capset's effective,
     * permitted and inheritable, each as two 32-bit halves), given when
     * `drop_held`, and what leaves the bounding set (root's: it gets it
     * back at exec otherwise), one bit per capability. */
    bool drop_held;
    uint32_t caps[6];
    uint64_t drop;
    unsigned planned; /* layers the child applies */
    /* Written by the child: the layers it could not apply (best effort
     * goes on without them), and in strict mode the errno that failed. */
    unsigned failed;
    int error;
    struct bsh_sandbox_report report; /* planned and missing before spawn */
    /* The seccomp listener goes from the child to us over this pair; the
     * supervisor then answers the run's mode and time changes. */
    int notify_sock[2];
    struct bsh__supervisor sup;
    char *tmpdir; /* the run's private TMPDIR (tmpdir.h); NULL: none */
};

/* Prepares the sandbox `sb` for a run in `cwd` (NULL: ours) with the
 * environment `envp` (NULL: ours). 0, or -errno with the reason in `why`: a
 * layer that strict mode cannot have here, a --sandbox-write directory
 * that cannot be opened, or no memory. */
int bsh__sandbox_prepare(struct bsh__sandbox *box, const struct bsh_sandbox *sb,
                         const char *cwd, char *const *envp, char *why,
                         size_t why_size);

/* places.c: a place that may be made writable, opened once (O_PATH), so
 * that what is checked is what the Landlock rule and the supervisor get,
 * whatever happens to the path in between. */
struct bsh__place {
    const char *what; /* "the working directory", for a message */
    const char *path; /* as given */
    int fd;           /* -1: missing (it gives nothing) */
    int err;          /* why it could not be opened */
    char *real;       /* where the open directory really is; NULL: missing */
};

void bsh__place_open(struct bsh__place *p, const char *what, const char *path);
void bsh__place_close(struct bsh__place *p);

/* places.c: whether the working directory `dir`, `tmp` and the
 * `count` places `writes` may be writable: none may be /, a system
 * directory, one that holds the home directory (from the user database or
 * the run's HOME), and TMPDIR must lie in /tmp, /var/tmp, /dev/shm, `dir`
 * or one of `writes`. 0, or -EPERM with the reason in `why`. */
int bsh__places_check(const struct bsh__place *dir,
                      const struct bsh__place *tmp,
                      const struct bsh__place *writes, size_t count,
                      char *const *envp, char *why, size_t why_size);

/* Lets the run write the file `path` (its terminal); best effort. */
void bsh__sandbox_allow_file(struct bsh__sandbox *box, const char *path);

/* After a spawn: the supervisor with the listener the child sent, or
 * false when there is none (no seccomp layer). */
bool bsh__sandbox_take_listener(struct bsh__sandbox *box);

/* Frees what prepare made (and the supervisor and the temporary
 * directory, unless they were moved). */
void bsh__sandbox_release(struct bsh__sandbox *box);

/* The layers in force after the child ran: planned less failed. */
void bsh__sandbox_settle(struct bsh__sandbox *box);

/* The seccomp filter into `prog`, built once per process and kept (the
 * caller must not free it): 0, or -errno when libseccomp cannot (the
 * reason in `why`). */
int bsh__seccomp_build(bool allow_net, struct sock_fprog *prog, char *why,
                       size_t why_size);

/* Which layers a kernel with Landlock ABI `abi` and seccomp (or not)
 * offers for `sb`: the planned ones, the missing ones, the ones off. */
void bsh__sandbox_layers(const struct bsh_sandbox *sb, int abi, bool seccomp,
                         unsigned *planned, unsigned *missing, unsigned *off);

#endif
