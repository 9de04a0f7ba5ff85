/* SPDX-License-Identifier: MIT */
/*
 * How a stream waits (waiter.c): its poll set, blocking (ppoll over it)
 * or not; the eventfd that a cancel writes to; the timer that wakes an
 * outside poller of the stream's fd; the caller's own pollfds
 * (bsh_stream_pollfds); and the guesses that spare a try_next caller a
 * second poll of what its own poll already saw (struct bsh__guess).
 */
#ifndef BSH_WAITER_H
#define BSH_WAITER_H

#include "deadline.h"
#include "pollset.h"

#include <poll.h>
#include <stdatomic.h>
#include <stdbool.h>

/* The guesses of non-blocking steps. A caller of try_next polls the
 * stream's fd between BSH_EAGAIN and its next call, and while output flows
 * that fd is readable because of an output. So the next call reads the
 * open outputs straight away instead of asking the poll set what it
 * already told the caller: first those that had data last time, then, if
 * none had, the others. Pure bookkeeping over the outputs' fds and ready
 * flags, so that it can be tested without a run. */
struct bsh__guess {
    bool woken;    /* try_next returned EAGAIN: its caller has polled */
    bool guessing; /* reading outputs on a guess since that wake */
    bool got_data; /* and one of them had data */
    int idle[2];   /* guesses in a row that found an output empty */
    bool looked;   /* the poll set was asked since the last EAGAIN */
};

/* An output that had nothing on this many guesses in a row is read on a
 * wake only when the others had nothing either. */
#define BSH__IDLE_GUESSES 2

/* What a non-blocking step that found nothing to read does next. */
enum bsh__give_up {
    GIVE_UP_READ,  /* outputs were marked ready: read them */
    GIVE_UP_LOOK,  /* look at the poll set once (the child's exit) */
    GIVE_UP_AGAIN, /* return BSH_EAGAIN: the caller polls */
};

/* The first try_next reads at once. */
void bsh__guess_start(struct bsh__guess *g);

/* The first non-blocking step after a BSH_EAGAIN: marks ready the open
 * outputs (fd[i] >= 0) not believed idle, or all of them if each is. */
void bsh__guess_wake(struct bsh__guess *g, const int fd[2], bool ready[2]);

/* What a read of output `i` found, learned while guessing: `empty` it
 * had nothing (EAGAIN), `data` it had bytes. */
void bsh__guess_saw(struct bsh__guess *g, int i, bool empty, bool data);

/* Nothing is ready to read: guess once more, look, or give up. */
enum bsh__give_up bsh__guess_give_up(struct bsh__guess *g, const int fd[2],
                                     bool ready[2], bool exit_watched);

struct bsh__waiter {
    struct bsh__pollset polls;
    atomic_int wakefd; /* eventfd written by a cancel; -1 until made */
    bool by_pollfds;   /* driven through bsh_stream_pollfds: no guessing */
    struct bsh__guess guess;
};

void bsh__waiter_init(struct bsh__waiter *w);

/* Makes the poll set's fd readable without an fd event (no-op until the
 * eventfd exists). Safe from any thread. */
void bsh__waiter_wake(struct bsh__waiter *w);

/* Makes the eventfd through which a cancel wakes a wait, watched in
 * SLOT_WAKE: 0, or -errno when it cannot be had. */
int bsh__waiter_make_wakefd(struct bsh__waiter *w);

bool bsh__waiter_has_wakefd(struct bsh__waiter *w);

/* Reads the eventfd's count, so that the fd stops polling readable. */
void bsh__waiter_drain(struct bsh__waiter *w);

/* Waits until a watched fd is ready or `timeout` passes (NULL: no bound),
 * or with `block` false only looks; a caller that drives the stream
 * through its pollfds has looked already. Returns the ready slots. */
int bsh__waiter_wait(struct bsh__waiter *w, bool block,
                     const struct timespec *timeout);

/* Keeps SLOT_TIMER on `deadline`'s timerfd, armed at `at` (`want`), once
 * the pollable fd exists: its outside pollers wake when the stream must
 * look again. */
void bsh__waiter_set_timer(struct bsh__waiter *w, struct bsh__deadline *d,
                           bool want, struct timespec at);

/* The pollable fd for outside event loops (an epoll set over the watched
 * fds, with the eventfd), made on first use; or -errno. */
int bsh__waiter_pollable(struct bsh__waiter *w);

/* How many pollfds the watched fds need (the timer is for the pollable
 * fd only). */
int bsh__waiter_pollfds_count(const struct bsh__waiter *w);

/* Fills `fds` (room for bsh__waiter_pollfds_count) with the watched fds;
 * from now on a step takes what the caller's poll found instead of
 * polling. Returns how many. */
int bsh__waiter_pollfds(struct bsh__waiter *w, struct pollfd *fds);

/* What the caller's poll found, taken by the next step's wait. */
void bsh__waiter_polled(struct bsh__waiter *w, const struct pollfd *fds, int n);

/* Closes the eventfd and the epoll set (the watched fds belong to their
 * owners). */
void bsh__waiter_release(struct bsh__waiter *w);

#endif
