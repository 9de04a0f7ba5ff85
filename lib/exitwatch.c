/* SPDX-License-Identifier: MIT */
/*
 * Knowing when our child has exited, through an fd that a poll set can
 * hold, without a SIGCHLD handler and without reaping it early.
 *
 * A pidfd polls readable when the child exits. Where pidfd_open is not
 * available (old kernels, seccomp filters, valgrind), a periodic timerfd
 * stands in: on each tick waitid(WNOWAIT) looks at the child without
 * reaping it, so its pid keeps naming our process group until the group
 * has been killed.
 */
#define _GNU_SOURCE
#include "exitwatch.h"

#include <errno.h>
#include <stdint.h>
#include <sys/pidfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

/* How often the fallback looks at the child. */
#define POLL_INTERVAL_NS 2000000L

void bsh__exitwatch_open(struct bsh__exitwatch *w, pid_t pid)
{
    w->pid = pid;
    w->polling = false;
    w->fd = pidfd_open(pid, PIDFD_NONBLOCK);
    w->open_errno = w->fd < 0 ? errno : 0;
}

int bsh__exitwatch_arm(struct bsh__exitwatch *w)
{
    if (w->fd >= 0)
        return w->fd;
    w->fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    if (w->fd < 0) {
        errno = w->open_errno;
        return -1;
    }
    struct itimerspec its = {{0, POLL_INTERVAL_NS}, {0, POLL_INTERVAL_NS}};
    timerfd_settime(w->fd, 0, &its, NULL);
    w->polling = true;
    return w->fd;
}

bool bsh__exitwatch_exited(struct bsh__exitwatch *w)
{
    if (!w->polling)
        return true;
    uint64_t ticks;
    ssize_t n = read(w->fd, &ticks, sizeof(ticks));
    (void)n; /* only to rearm the level-triggered readiness */
    siginfo_t info;
    info.si_pid = 0;
    int rc = waitid(P_PID, (id_t)w->pid, &info, WEXITED | WNOHANG | WNOWAIT);
    /* ECHILD: reaped elsewhere; the reap that follows reports it. */
    return (rc < 0 && errno != EINTR) || info.si_pid == w->pid;
}

void bsh__exitwatch_close(struct bsh__exitwatch *w)
{
    if (w->fd >= 0)
        close(w->fd);
    w->fd = -1;
}
