/* SPDX-License-Identifier: MIT */
/*
 * The orphans of runs, for the two programs that own their process (the
 * CLI and the MCP server) and may be child subreapers: what leaves a
 * run's session comes to them when its parent dies, to be killed.
 */
#define _GNU_SOURCE
#include "orphans.h"
#include "mono.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHILDREN_MAX 1024

/* What is never a run's: the children this process had before it became
 * the subreaper (a process keeps the children of its earlier image across
 * execve: `tail -f log & exec bsh mcp`), and whatever was started before
 * the first run. Process-wide, as the subreaper itself is. */
static struct {
    pid_t pids[CHILDREN_MAX];
    int count;
    pid_t session;       /* ours: a run's processes are never in it */
    double first_run_ms; /* CLOCK_BOOTTIME of the first run; -1: none */
} before = {.first_run_ms = -1};

static int list_children(pid_t *pids, int max);

int orphans_become_subreaper(void)
{
    before.count = list_children(before.pids, CHILDREN_MAX);
    before.session = getsid(0);
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

double orphans_run_starts(void)
{
    struct timespec boot;
    clock_gettime(CLOCK_BOOTTIME, &boot);
    double now = (double)boot.tv_sec * 1e3 + (double)boot.tv_nsec / 1e6;
    if (before.first_run_ms < 0)
        before.first_run_ms = now;
    return now;
}

/* The pids of our children, from /proc (up to `max`); how many. */
static int list_children(pid_t *pids, int max)
{
    char path[64], text[16384];
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

/* Whether `pid` is among the first `n` of `seen`; adds it if not (and
 * there is room). */
static bool seen_before(pid_t *seen, int *n, int cap, pid_t pid)
{
    for (int i = 0; i < *n; i++)
        if (seen[i] == pid)
            return true;
    if (*n < cap)
        seen[(*n)++] = pid;
    return false;
}

double orphans_tick_ms(void)
{
    long hz = sysconf(_SC_CLK_TCK);
    return 1000.0 / (double)(hz > 0 ? hz : 100);
}

double orphans_born_ms(pid_t pid)
{
    char path[64], text[1024];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return -1;
    size_t len = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[len] = '\0';
    /* After the command name (which may hold spaces): field 22 is the
     * start time in clock ticks since boot, the 20th after ")". */
    char *p = strrchr(text, ')');
    for (int field = 2; p != NULL && field < 22; field++)
        p = strchr(p + 1, ' ');
    if (p == NULL)
        return -1;
    return (double)strtoull(p + 1, NULL, 10) * orphans_tick_ms();
}

/* Where `pid` is among the children from before, or -1. */
static int index_before(pid_t pid)
{
    for (int i = 0; i < before.count; i++)
        if (before.pids[i] == pid)
            return i;
    return -1;
}

/* A child from before has been reaped: its pid may come back as a run's. */
static void forget(pid_t pid)
{
    int i = index_before(pid);
    if (i >= 0)
        before.pids[i] = before.pids[--before.count];
}

/* Whether child `pid` cannot be a run's: it was ours before, it is in
 * our own session (each run starts a session of its own, and no process
 * can join another session), or it was born more than a clock tick before
 * the first run (start times have a tick's granularity). What this cannot
 * tell: a descendant of a child from before that left our session after
 * the first run began is taken for a run's. */
static bool foreign(pid_t pid)
{
    if (index_before(pid) >= 0)
        return true;
    if (before.session > 0 && getsid(pid) == before.session)
        return true;
    if (before.first_run_ms < 0)
        return true;
    double born = orphans_born_ms(pid);
    return born >= 0 && born + orphans_tick_ms() < before.first_run_ms;
}

int orphans_end(pid_t pgid, int max_ms, int *left)
{
    return orphans_end_but(pgid, max_ms, left, NULL, NULL);
}

int orphans_end_but(pid_t pgid, int max_ms, int *left,
                    bool (*keep)(pid_t pid, void *ctx), void *ctx)
{
    struct timespec end = mono_add_ms(mono_now(), max_ms);
    pid_t killed[CHILDREN_MAX];
    int nkilled = 0, stuck = 0;
    for (;;) {
        pid_t pids[CHILDREN_MAX];
        int n = list_children(pids, CHILDREN_MAX), live = 0;
        stuck = 0;
        for (int i = 0; i < n; i++) {
            if (keep != NULL && keep(pids[i], ctx))
                continue;
            if (waitpid(pids[i], NULL, WNOHANG) == pids[i]) {
                forget(pids[i]); /* had exited: reaped */
                continue;
            }
            if (foreign(pids[i]))
                continue; /* never signalled */
            live++;
            if (kill(pids[i], SIGKILL) < 0) {
                stuck++; /* it turned into another user */
                continue;
            }
            seen_before(killed, &nkilled, CHILDREN_MAX, pids[i]);
            if (getpgid(pids[i]) == pids[i])
                kill(-pids[i], SIGKILL); /* its own group too */
        }
        /* The run's group dies asynchronously; its orphans come to us as
         * each member exits. */
        bool group_left = pgid > 0 && kill(-pgid, 0) == 0;
        if ((live == stuck && !group_left) || mono_ns_until(end) <= 0)
            break;
        struct timespec pause = {0, 2000000};
        nanosleep(&pause, NULL);
    }
    if (left != NULL)
        *left = stuck;
    return nkilled;
}

int orphans_signal_fd(void)
{
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    if (sigprocmask(SIG_BLOCK, &chld, NULL) < 0)
        return -1;
    return signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
}

/* Reaps child `pid` if it has exited; whether it did. */
static bool reap(pid_t pid)
{
    siginfo_t info = {0};
    if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG) < 0 ||
        info.si_pid == 0)
        return false;
    forget(pid);
    return true;
}

/* The slow look: every child but the kept, one by one. */
static int reap_each(bool (*keep)(pid_t pid, void *ctx), void *ctx)
{
    pid_t pids[CHILDREN_MAX];
    int n = list_children(pids, CHILDREN_MAX), reaped = 0;
    for (int i = 0; i < n; i++)
        if (!(keep != NULL && keep(pids[i], ctx)) && reap(pids[i]))
            reaped++;
    return reaped;
}

int orphans_reap(int signal_fd, bool (*keep)(pid_t pid, void *ctx), void *ctx)
{
    struct signalfd_siginfo si;
    while (signal_fd >= 0 && read(signal_fd, &si, sizeof(si)) > 0)
        ; /* one wake-up may stand for many exits: look at them all */
    int reaped = 0;
    for (;;) {
        siginfo_t info = {0};
        /* A look that leaves the child a zombie: a run's own process is
         * the library's to reap, with its status. */
        if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) < 0 ||
            info.si_pid == 0)
            return reaped;
        if (keep != NULL && keep(info.si_pid, ctx))
            return reaped + reap_each(keep, ctx); /* others may hide behind */
        if (!reap(info.si_pid))
            return reaped;
        reaped++;
    }
}
