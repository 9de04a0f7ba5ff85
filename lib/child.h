/* SPDX-License-Identifier: MIT */
/*
 * The end of a run's child (child.c): knowing that it exited, killing its
 * group, reaping it, and its status as an item. The only code that waits
 * for or signals the child.
 */
#ifndef BSH_CHILD_H
#define BSH_CHILD_H

#include "bsh/bsh.h"

#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

struct bsh__child {
    pid_t pid;           /* -1: none, or reaped */
    int watch;           /* pidfd, or the fallback's timerfd; -1 */
    bool watch_is_timer; /* the fallback: waitid(WNOWAIT) on each tick */
    bool exited;         /* seen exited, not yet reaped */
    int status;          /* the wait status, once reaped */
    struct rusage usage; /* its resources and those it waited for */
};

void bsh__child_init(struct bsh__child *c, pid_t pid);

/* Reaps the child if it has exited, without blocking: 1 when reaped
 * (c->status set, c->pid -1), 0 while it runs, or -errno. */
int bsh__child_reap(struct bsh__child *c);

/* Looks, without reaping or blocking, whether the child has exited; sets
 * c->exited. The pid then still names our process group. */
bool bsh__child_exited_now(struct bsh__child *c);

/* An fd that polls readable once the child has exited: a pidfd, opened
 * now (our unreaped child keeps its pid, so this is safe at any time), or
 * where pidfd_open fails (old kernels, seccomp, valgrind) a 2 ms timer;
 * -errno when neither can be had. Made once. */
int bsh__child_watch(struct bsh__child *c);

/* The watch polled readable: true once the child has exited. */
bool bsh__child_check_exit(struct bsh__child *c);

/* Sends `sig` to the child's process group: 0, or -errno of kill(2).
 * The leader is not reaped yet, so its pid still names our group. */
int bsh__child_signal_group(const struct bsh__child *c, int sig);

/* Gives an unreaped child to the graveyard, which reaps it later without
 * blocking anyone (with its pidfd, when there is one). */
void bsh__child_abandon(struct bsh__child *c);

void bsh__child_release(struct bsh__child *c);

/* The status item of the reaped child, or the timeout item. */
void bsh__child_status_item(const struct bsh__child *c, bool timed_out,
                            struct bsh_item *item);

#endif
