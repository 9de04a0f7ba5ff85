/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "process.h"

#include "mono.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

void process_take_over(void)
{
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    struct sigaction ign = {.sa_handler = SIG_IGN};
    sigaction(SIGCHLD, &dfl, NULL);
    sigaction(SIGPIPE, &ign, NULL);
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

int process_become_subreaper(void)
{
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

/* The pids of our children, from /proc (up to `max`); how many. */
static int list_children(pid_t *pids, int max)
{
    char path[64], text[4096];
    snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return 0;
    size_t len = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[len] = '\0';
    int n = 0;
    for (char *p = text, *end; n < max; p = end) {
        long pid = strtol(p, &end, 10);
        if (end == p)
            break;
        pids[n++] = (pid_t)pid;
    }
    return n;
}

int process_end_orphans(pid_t pgid, int max_ms)
{
    struct timespec end = mono_add_ms(mono_now(), max_ms);
    int killed = 0;
    for (;;) {
        pid_t pids[256];
        int n = list_children(pids, 256), live = 0;
        for (int i = 0; i < n; i++) {
            if (waitpid(pids[i], NULL, WNOHANG) == pids[i])
                continue; /* had exited: reaped */
            if (kill(pids[i], SIGKILL) == 0) {
                killed++;
                live++;
                if (getpgid(pids[i]) == pids[i])
                    kill(-pids[i], SIGKILL); /* its own group too */
            }
        }
        /* The run's group dies asynchronously; its orphans come to us as
         * each member exits. */
        bool group_left = pgid > 0 && kill(-pgid, 0) == 0;
        if ((live == 0 && !group_left) || mono_ns_until(end) <= 0)
            return killed;
        struct timespec pause = {0, 2000000};
        nanosleep(&pause, NULL);
    }
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
