/* SPDX-License-Identifier: MIT */
/*
 * A pollable fd that tells when our child exits (exitwatch.c).
 */
#ifndef BSH_EXITWATCH_H
#define BSH_EXITWATCH_H

#include <stdbool.h>
#include <sys/types.h>

struct bsh__exitwatch {
    pid_t pid;
    int fd;         /* pidfd, or the fallback's timerfd; -1 */
    bool polling;   /* fd is the fallback timer */
    int open_errno; /* why pidfd_open failed */
};

/* Opens a pidfd for `pid` right after the spawn, while the unreaped child
 * cannot be replaced by another process under the same pid. */
void bsh__exitwatch_open(struct bsh__exitwatch *w, pid_t pid);

/* The fd to poll for the exit (falls back to a timer when there is no
 * pidfd); -1 with errno when neither can be had. */
int bsh__exitwatch_arm(struct bsh__exitwatch *w);

/* Called when the fd polled readable: true once the child has exited
 * (it is still unreaped). */
bool bsh__exitwatch_exited(struct bsh__exitwatch *w);

void bsh__exitwatch_close(struct bsh__exitwatch *w);

#endif
