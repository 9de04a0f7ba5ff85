/* SPDX-License-Identifier: MIT */
/*
 * The orphans of runs, for the two programs that own their process (the
 * CLI and the MCP server) and may be child subreapers: what leaves a
 * run's session comes to them when its parent dies, to be killed.
 */
#define _GNU_SOURCE
#include "orphans.h"
#include "mono.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int orphans_become_subreaper(void)
{
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
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

int orphans_end(pid_t pgid, int max_ms, int *left)
{
    return orphans_end_but(pgid, max_ms, left, NULL, NULL);
}

int orphans_end_but(pid_t pgid, int max_ms, int *left,
                    bool (*keep)(pid_t pid, void *ctx), void *ctx)
{
    struct timespec end = mono_add_ms(mono_now(), max_ms);
    pid_t killed[1024];
    int nkilled = 0, stuck = 0;
    for (;;) {
        pid_t pids[1024];
        int n = list_children(pids, 1024), live = 0;
        stuck = 0;
        for (int i = 0; i < n; i++) {
            if (keep != NULL && keep(pids[i], ctx))
                continue;
            if (waitpid(pids[i], NULL, WNOHANG) == pids[i])
                continue; /* had exited: reaped */
            live++;
            if (kill(pids[i], SIGKILL) < 0) {
                stuck++; /* it turned into another user */
                continue;
            }
            seen_before(killed, &nkilled, 1024, pids[i]);
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
