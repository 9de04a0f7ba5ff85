/* SPDX-License-Identifier: MIT */
/*
 * No SIGCHLD handler and no waitpid(-1): the library learns that its own
 * child exited through an fd a poll set can hold, and reaps only that
 * child. The watch is made only when a wait is needed: a child that has
 * exited by the time its output ends is reaped at once, with no pidfd.
 */
#define _GNU_SOURCE
#include "child.h"
#include "graveyard.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#    define SYS_pidfd_open 434 /* the same on every architecture */
#endif

/* How often the fallback looks at the child. */
#define POLL_INTERVAL_NS 2000000L

void bsh__child_init(struct bsh__child *c, pid_t pid)
{
    memset(c, 0, sizeof(*c));
    c->pid = pid;
    c->watch = -1;
}

int bsh__child_reap(struct bsh__child *c)
{
    int status;
    pid_t r;
    do
        r = wait4(c->pid, &status, WNOHANG, &c->usage);
    while (r < 0 && errno == EINTR);
    if (r == 0)
        return 0;
    if (r < 0)
        return -errno;
    c->status = status;
    c->pid = -1;
    c->exited = true;
    return 1;
}

static int open_timer(struct bsh__child *c)
{
    int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    if (fd < 0)
        return -errno;
    struct itimerspec its = {{0, POLL_INTERVAL_NS}, {0, POLL_INTERVAL_NS}};
    timerfd_settime(fd, 0, &its, NULL);
    c->watch_is_timer = true;
    return fd;
}

int bsh__child_watch(struct bsh__child *c)
{
    if (c->watch >= 0)
        return c->watch;
    /* The raw call: glibc wraps it only from 2.36 (PIDFD_NONBLOCK is
     * O_NONBLOCK), and the build must run on older ones. */
    c->watch = (int)syscall(SYS_pidfd_open, c->pid, O_NONBLOCK);
    if (c->watch >= 0)
        return c->watch;
    int err = -errno, fd = open_timer(c);
    if (fd < 0)
        return err; /* why the pidfd could not be had */
    return c->watch = fd;
}

bool bsh__child_exited_now(struct bsh__child *c)
{
    siginfo_t info;
    info.si_pid = 0;
    int rc = waitid(P_PID, (id_t)c->pid, &info, WEXITED | WNOHANG | WNOWAIT);
    /* ECHILD: reaped elsewhere; the reap that follows reports it. */
    c->exited = (rc < 0 && errno != EINTR) || info.si_pid == c->pid;
    return c->exited;
}

bool bsh__child_check_exit(struct bsh__child *c)
{
    if (!c->watch_is_timer)
        return c->exited = true;
    uint64_t ticks;
    ssize_t n = read(c->watch, &ticks, sizeof(ticks));
    (void)n; /* only to rearm the level-triggered readiness */
    return bsh__child_exited_now(c);
}

int bsh__child_signal_group(const struct bsh__child *c, int sig)
{
    if (c->pid <= 0)
        return 0;
    return kill(-c->pid, sig) < 0 ? -errno : 0;
}

void bsh__child_abandon(struct bsh__child *c)
{
    bool pidfd = c->watch >= 0 && !c->watch_is_timer;
    bsh__graveyard_add(c->pid, pidfd ? c->watch : -1);
    if (pidfd)
        c->watch = -1;
    c->pid = -1;
    bsh__child_release(c);
}

void bsh__child_release(struct bsh__child *c)
{
    if (c->watch >= 0)
        close(c->watch);
    c->watch = -1;
}

void bsh__child_status_item(const struct bsh__child *c, bool timed_out,
                            struct bsh_item *item)
{
    memset(item, 0, sizeof(*item));
    item->kind = BSH_ITEM_STATUS;
    if (timed_out) {
        item->has_signal = true;
        item->signal = -1;
    } else if (WIFSIGNALED(c->status)) {
        item->has_signal = true;
        item->signal = WTERMSIG(c->status);
    } else {
        item->has_exit_code = true;
        item->exit_code = WEXITSTATUS(c->status);
    }
}
