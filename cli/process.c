/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "process.h"

#include "mono.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

/* Opens /dev/null on each of fds 0-2 that is closed, before anything else
 * takes its number (an internal fd on fd 1 would get bsh's output); the
 * mask of those that were closed (bit N for fd N). */
static unsigned open_standard_fds(void)
{
    unsigned closed = 0;
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        closed |= 1u << fd;
        int got = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (got >= 0 && got != fd) /* cannot happen: fd was the lowest */
            close(got);
    }
    return closed;
}

unsigned process_take_over(void)
{
    unsigned closed = open_standard_fds();
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    struct sigaction ign = {.sa_handler = SIG_IGN};
    sigaction(SIGCHLD, &dfl, NULL);
    sigaction(SIGPIPE, &ign, NULL);
    return closed;
}

/* Signals whose default action does not end the process. SIGPIPE is
 * ignored by process_take_over(). */
static bool harmless_by_default(int sig)
{
    switch (sig) {
    case SIGKILL: /* cannot be caught; nothing to do */
    case SIGSTOP:
    case SIGTSTP:
    case SIGTTIN:
    case SIGTTOU:
    case SIGCONT:
    case SIGCHLD:
    case SIGURG:
    case SIGWINCH:
    case SIGPIPE:
        return true;
    default:
        return false;
    }
}

int process_stop_signals(void)
{
    sigset_t stop;
    sigemptyset(&stop);
    /* Faults (SIGSEGV and the like) raised by bsh itself are forced
     * through by the kernel even when blocked; sent from outside, they
     * are read like any other. glibc refuses its two internal signals. */
    for (int sig = 1; sig <= SIGRTMAX; sig++)
        if (!harmless_by_default(sig))
            sigaddset(&stop, sig);
    if (sigprocmask(SIG_BLOCK, &stop, NULL) < 0)
        return -1;
    return signalfd(-1, &stop, SFD_CLOEXEC | SFD_NONBLOCK);
}

long process_raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return 1024;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
            getrlimit(RLIMIT_NOFILE, &rl);
    }
    return rl.rlim_cur > 1L << 30 ? 1L << 30 : (long)rl.rlim_cur;
}
