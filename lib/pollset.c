/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "pollset.h"

#include <errno.h>
#include <poll.h>
#include <sys/epoll.h>
#include <unistd.h>

void bsh__pollset_init(struct bsh__pollset *ps)
{
    for (int i = 0; i < SLOT_COUNT; i++)
        ps->fd[i] = -1;
    ps->epfd = -1;
    ps->ready = 0;
}

static int epoll_add(struct bsh__pollset *ps, enum bsh__slot slot, int fd)
{
    struct epoll_event ev = {.events = slot == SLOT_IN ? EPOLLOUT : EPOLLIN,
                             .data.u32 = slot};
    return epoll_ctl(ps->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

int bsh__pollset_watch(struct bsh__pollset *ps, enum bsh__slot slot, int fd)
{
    if (ps->fd[slot] == fd)
        return 0;
    bsh__pollset_unwatch(ps, slot);
    ps->fd[slot] = fd;
    return ps->epfd >= 0 ? epoll_add(ps, slot, fd) : 0;
}

void bsh__pollset_unwatch(struct bsh__pollset *ps, enum bsh__slot slot)
{
    if (ps->fd[slot] >= 0 && ps->epfd >= 0)
        epoll_ctl(ps->epfd, EPOLL_CTL_DEL, ps->fd[slot], NULL);
    ps->fd[slot] = -1;
    ps->ready &= ~(1u << slot);
}

void bsh__pollset_forget(struct bsh__pollset *ps, enum bsh__slot slot)
{
    ps->fd[slot] = -1;
    ps->ready &= ~(1u << slot);
}

static bool is_zero(const struct timespec *t)
{
    return t != NULL && t->tv_sec == 0 && t->tv_nsec == 0;
}

/* A look through the epoll set: one syscall whatever the number of fds. */
static int look_epoll(struct bsh__pollset *ps)
{
    struct epoll_event ev[SLOT_COUNT];
    int n;
    do
        n = epoll_wait(ps->epfd, ev, SLOT_COUNT, 0);
    while (n < 0 && errno == EINTR);
    for (int i = 0; i < n; i++)
        ps->ready |= 1u << ev[i].data.u32;
    return n > 0 ? n : 0;
}

int bsh__pollset_wait(struct bsh__pollset *ps, const struct timespec *timeout)
{
    if (ps->epfd >= 0 && is_zero(timeout))
        return look_epoll(ps);
    /* The timer slot is for outside pollers: here the timeout stands in. */
    struct pollfd p[SLOT_COUNT];
    for (int i = 0; i < SLOT_COUNT; i++)
        p[i] = (struct pollfd){i == SLOT_TIMER ? -1 : ps->fd[i],
                               i == SLOT_IN ? POLLOUT : POLLIN, 0};
    int rc = ppoll(p, SLOT_COUNT, timeout, NULL);
    for (int i = 0; rc > 0 && i < SLOT_COUNT; i++)
        if (p[i].revents != 0)
            ps->ready |= 1u << i;
    return rc > 0 ? rc : 0;
}

bool bsh__pollset_take(struct bsh__pollset *ps, enum bsh__slot slot)
{
    bool was = ps->ready & (1u << slot);
    ps->ready &= ~(1u << slot);
    return was;
}

int bsh__pollset_pollable(struct bsh__pollset *ps)
{
    if (ps->epfd >= 0)
        return ps->epfd;
    ps->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (ps->epfd < 0)
        return -errno;
    for (int i = 0; i < SLOT_COUNT; i++) {
        int err =
            ps->fd[i] >= 0 ? epoll_add(ps, (enum bsh__slot)i, ps->fd[i]) : 0;
        if (err < 0) {
            bsh__pollset_release(ps);
            return err;
        }
    }
    return ps->epfd;
}

void bsh__pollset_release(struct bsh__pollset *ps)
{
    if (ps->epfd >= 0)
        close(ps->epfd);
    ps->epfd = -1;
}
