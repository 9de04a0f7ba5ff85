/* SPDX-License-Identifier: MIT */
/*
 * The stream's pollable fd, for callers that drive streams from their own
 * event loop. It is an epoll set over the same fds the step loop polls
 * (outputs, exit watch, cancel eventfd) plus a timerfd armed at the
 * stream's next wake-up (the deadline, or the end of the kill wait), and it is
 * made only when asked for: a caller that just pulls items with
 * bsh_stream_next() pays none of its syscalls.
 */
#define _GNU_SOURCE
#include "stream.h"

#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

int bsh__stream_fd_add(struct bsh_stream *s, int fd, enum bsh__tag tag)
{
    if (s->epfd < 0)
        return 0;
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = tag};
    return epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev);
}

void bsh__stream_fd_remove(struct bsh_stream *s, int fd)
{
    if (s->epfd >= 0)
        epoll_ctl(s->epfd, EPOLL_CTL_DEL, fd, NULL);
}

void bsh__stream_fd_release(struct bsh_stream *s)
{
    s->timer_armed = false;
    s->timerfd = bsh__close(s->timerfd);
    s->epfd = bsh__close(s->epfd);
}

int bsh__stream_fd_sync_timer(struct bsh_stream *s)
{
    if (s->epfd < 0)
        return 0;
    struct timespec at = {0, 0};
    bool want = bsh__stream_next_wake(s, &at);
    if (!want && !s->timer_armed)
        return 0;
    if (want && s->timer_armed && at.tv_sec == s->timer_at.tv_sec &&
        at.tv_nsec == s->timer_at.tv_nsec)
        return 0;
    if (s->timerfd < 0) {
        s->timerfd =
            timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
        if (s->timerfd < 0 || bsh__stream_fd_add(s, s->timerfd, TAG_TIMER) < 0)
            return -1;
    }
    /* An all-zero value disarms; setting it also clears past expiries. */
    struct itimerspec its = {.it_value = want ? at : (struct timespec){0, 0}};
    if (want && its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
        its.it_value.tv_nsec = 1;
    if (timerfd_settime(s->timerfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
        return -1;
    s->timer_armed = want;
    s->timer_at = at;
    return 0;
}

static int make_pollable(struct bsh_stream *s)
{
    s->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (s->epfd < 0)
        return -1;
    int rc = bsh__stream_fd_add(s, s->wakefd, TAG_WAKE);
    for (int i = 0; rc == 0 && i < 2; i++)
        if (s->fds[i] >= 0 && !(i == 0 && s->master_hup))
            rc = bsh__stream_fd_add(s, s->fds[i], (enum bsh__tag)i);
    if (rc == 0 && s->exit_watched && !s->exited && s->exit.fd >= 0)
        rc = bsh__stream_fd_add(s, s->exit.fd, TAG_EXIT);
    if (rc == 0)
        rc = bsh__stream_fd_sync_timer(s);
    return rc;
}

int bsh_stream_fd(struct bsh_stream *s)
{
    if (s == NULL)
        return -1;
    if (s->epfd < 0 && make_pollable(s) < 0) {
        bsh__stream_fd_release(s);
        return -1;
    }
    return s->epfd;
}
