/* SPDX-License-Identifier: MIT */
/*
 * How a stream waits: one poll set for both ways a stream is driven (its
 * own blocking ppoll, an outside loop's poll of the stream's fd or of its
 * pollfds), the eventfd of a cancel, and the guesses of non-blocking
 * steps, which save a caller's poll from being repeated by the stream.
 */
#define _GNU_SOURCE
#include "waiter.h"
#include "internal.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* ---- guesses ------------------------------------------------------------- */

void bsh__guess_start(struct bsh__guess *g)
{
    memset(g, 0, sizeof(*g));
    g->woken = true;
}

/* Marks open outputs as ready to read: those not believed idle (`all`
 * false), or every one. Returns how many it marked. */
static int guess_ready(const struct bsh__guess *g, const int fd[2],
                       bool ready[2], bool all)
{
    int n = 0;
    for (int i = 0; i < 2; i++) {
        if (fd[i] >= 0 && !ready[i] &&
            (all || g->idle[i] < BSH__IDLE_GUESSES)) {
            ready[i] = true;
            n++;
        }
    }
    return n;
}

void bsh__guess_wake(struct bsh__guess *g, const int fd[2], bool ready[2])
{
    if (!g->woken)
        return;
    g->woken = false;
    g->guessing = true;
    g->got_data = false;
    if (guess_ready(g, fd, ready, false) == 0)
        guess_ready(g, fd, ready, true);
}

void bsh__guess_saw(struct bsh__guess *g, int i, bool empty, bool data)
{
    if (!g->guessing)
        return;
    g->idle[i] = empty ? g->idle[i] + 1 : 0;
    g->got_data |= data;
}

enum bsh__give_up bsh__guess_give_up(struct bsh__guess *g, const int fd[2],
                                     bool ready[2], bool exit_watched)
{
    bool second_pass = g->guessing && !g->got_data;
    g->guessing = false;
    if (second_pass && guess_ready(g, fd, ready, true) > 0)
        return GIVE_UP_READ; /* the outputs believed idle, once */
    /* The child's exit is the one thing the guesses cannot see. */
    if (exit_watched && !g->looked) {
        g->looked = true;
        return GIVE_UP_LOOK;
    }
    g->looked = false;
    g->woken = true;
    return GIVE_UP_AGAIN;
}

/* ---- the poll set and its fds -------------------------------------------- */

void bsh__waiter_init(struct bsh__waiter *w)
{
    bsh__pollset_init(&w->polls);
    atomic_init(&w->wakefd, -1); /* made when a wait needs it */
    w->by_pollfds = false;
    bsh__guess_start(&w->guess);
}

void bsh__waiter_wake(struct bsh__waiter *w)
{
    int fd = atomic_load(&w->wakefd);
    if (fd < 0)
        return;
    uint64_t one = 1;
    ssize_t n = write(fd, &one, sizeof(one));
    (void)n; /* a full counter is still readable */
}

int bsh__waiter_make_wakefd(struct bsh__waiter *w)
{
    if (atomic_load(&w->wakefd) >= 0)
        return 0;
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (fd < 0)
        return -errno;
    int err = bsh__pollset_watch(&w->polls, SLOT_WAKE, fd);
    if (err < 0) {
        bsh__pollset_forget(&w->polls, SLOT_WAKE);
        close(fd);
        return err;
    }
    atomic_store(&w->wakefd, fd);
    return 0;
}

bool bsh__waiter_has_wakefd(struct bsh__waiter *w)
{
    return atomic_load(&w->wakefd) >= 0;
}

void bsh__waiter_drain(struct bsh__waiter *w)
{
    uint64_t n;
    int fd = atomic_load(&w->wakefd);
    if (fd >= 0 && read(fd, &n, sizeof(n)) < 0)
        n = 0;
}

int bsh__waiter_wait(struct bsh__waiter *w, bool block,
                     const struct timespec *timeout)
{
    static const struct timespec zero = {0, 0};
    if (!block && w->by_pollfds) /* what the caller's poll found, once */
        return __builtin_popcount(w->polls.ready);
    return bsh__pollset_wait(&w->polls, block ? timeout : &zero);
}

void bsh__waiter_set_timer(struct bsh__waiter *w, struct bsh__deadline *d,
                           bool want, struct timespec at)
{
    if (w->polls.epfd < 0)
        return;
    if (!want && d->timerfd < 0)
        return; /* no timer wanted, none made */
    int fd = bsh__deadline_timer(d, want, at);
    if (fd >= 0)
        bsh__pollset_watch(&w->polls, SLOT_TIMER, fd);
}

int bsh__waiter_pollable(struct bsh__waiter *w)
{
    if (w->polls.epfd >= 0)
        return w->polls.epfd;
    int err = bsh__waiter_make_wakefd(w);
    return err < 0 ? err : bsh__pollset_pollable(&w->polls);
}

int bsh__waiter_pollfds_count(const struct bsh__waiter *w)
{
    int n = 0;
    for (int i = 0; i < SLOT_COUNT; i++)
        n += i != SLOT_TIMER && w->polls.fd[i] >= 0;
    return n;
}

int bsh__waiter_pollfds(struct bsh__waiter *w, struct pollfd *fds)
{
    w->by_pollfds = true;
    int n = 0;
    for (int i = 0; i < SLOT_COUNT; i++)
        if (i != SLOT_TIMER && w->polls.fd[i] >= 0)
            fds[n++] = (struct pollfd){w->polls.fd[i],
                                       i == SLOT_IN ? POLLOUT : POLLIN, 0};
    return n;
}

void bsh__waiter_polled(struct bsh__waiter *w, const struct pollfd *fds, int n)
{
    for (int k = 0; k < n; k++) {
        if (fds[k].revents == 0 || fds[k].fd < 0)
            continue;
        for (int i = 0; i < SLOT_COUNT; i++)
            if (w->polls.fd[i] == fds[k].fd)
                w->polls.ready |= 1u << i;
    }
}

void bsh__waiter_release(struct bsh__waiter *w)
{
    bsh__pollset_release(&w->polls);
    int fd = atomic_exchange(&w->wakefd, -1);
    bsh__close(fd);
}
