/* SPDX-License-Identifier: MIT */
/*
 * The fds a stream waits on, in one table (pollset.c), for both ways a
 * stream is driven: its own blocking wait (ppoll over the table) and the
 * pollable fd for outside event loops (an epoll set kept in step with the
 * table, made on demand). A slot per role (all wait for input but SLOT_IN,
 * which waits for room to write); an fd may sit in the stream
 * without being watched (a PTY master that hung up).
 */
#ifndef BSH_POLLSET_H
#define BSH_POLLSET_H

#include <stdbool.h>
#include <time.h>

enum bsh__slot {
    SLOT_OUT,    /* stdout pipe, or the PTY master */
    SLOT_ERR,    /* stderr pipe */
    SLOT_EXIT,   /* the child's exit watch */
    SLOT_WAKE,   /* the eventfd a cancel writes to */
    SLOT_TIMER,  /* the stream's next wake-up, for outside pollers only */
    SLOT_IN,     /* stdin, watched for writability while bytes wait */
    SLOT_NOTIFY, /* the sandbox's seccomp listener (supervise.c) */
    SLOT_COUNT,
};

struct bsh__pollset {
    int fd[SLOT_COUNT]; /* watched fds; -1: none */
    int epfd;           /* the pollable fd; -1 until made */
    unsigned ready;     /* a bit per slot that polled ready */
};

void bsh__pollset_init(struct bsh__pollset *ps);

/* Watches `fd` in `slot` (replacing what was there). 0, or -errno when
 * the epoll set refuses it. */
int bsh__pollset_watch(struct bsh__pollset *ps, enum bsh__slot slot, int fd);

/* Stops watching `slot` (its fd stays open). */
void bsh__pollset_unwatch(struct bsh__pollset *ps, enum bsh__slot slot);

/* Forgets `slot` whose fd is about to be closed: closing it takes it out
 * of the epoll set, so no epoll_ctl is needed. */
void bsh__pollset_forget(struct bsh__pollset *ps, enum bsh__slot slot);

/* Waits until a watched fd is ready or `timeout` passes (NULL: no bound;
 * zero: only looks) and records the ready slots in ps->ready. Once the
 * epoll set exists, a look asks it, which already knows what is ready,
 * instead of polling every fd again. Returns the number of ready slots. */
int bsh__pollset_wait(struct bsh__pollset *ps, const struct timespec *timeout);

/* Takes the ready bit of `slot`: true if it was set. */
bool bsh__pollset_take(struct bsh__pollset *ps, enum bsh__slot slot);

/* Makes the epoll set over the watched fds; the epfd or -errno. */
int bsh__pollset_pollable(struct bsh__pollset *ps);

/* Closes the epoll set (the watched fds belong to their owners). */
void bsh__pollset_release(struct bsh__pollset *ps);

#endif
