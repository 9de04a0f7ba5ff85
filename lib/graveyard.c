/* SPDX-License-Identifier: MIT */
/*
 * A child that outlives its stream: one that turned into another user and
 * so cannot be killed, or one that did not die within the bounded wait
 * after SIGKILL. No call may block on it, and it must not stay a zombie
 * once it exits, so it is kept here and reaped by a later sweep, which
 * bsh_run() and bsh_stream_free() do. The pidfd, where there is one, pins
 * the child: its pid may be reused only after we reaped it, but a caller
 * that reaps children it did not start could free the pid earlier.
 *
 * This is the only state the library shares between streams; a mutex
 * guards it, since streams may live on different threads.
 */
#define _GNU_SOURCE
#include "graveyard.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef P_PIDFD
#    define P_PIDFD 3 /* linux/wait.h, which clashes with sys/wait.h */
#endif

struct grave {
    pid_t pid;
    int pidfd;
};

struct cgroup_grave {
    int parent;
    char name[64];
    bsh__cgroup_remover remove;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct grave *graves;
static size_t count, capacity;
static struct cgroup_grave *cgroups;
static size_t cgroup_count, cgroup_capacity;

void bsh__graveyard_add(pid_t pid, int pidfd)
{
    pthread_mutex_lock(&lock);
    if (count == capacity) {
        size_t cap = capacity ? capacity * 2 : 8;
        struct grave *g = realloc(graves, cap * sizeof(*g));
        if (g != NULL) {
            graves = g;
            capacity = cap;
        }
    }
    if (count < capacity) /* else out of memory: it stays a zombie */
        graves[count++] = (struct grave){pid, pidfd};
    else if (pidfd >= 0)
        close(pidfd);
    pthread_mutex_unlock(&lock);
}

void bsh__graveyard_add_cgroup(int parent, const char *name,
                               bsh__cgroup_remover remove)
{
    pthread_mutex_lock(&lock);
    if (cgroup_count == cgroup_capacity) {
        size_t cap = cgroup_capacity ? cgroup_capacity * 2 : 4;
        struct cgroup_grave *g = realloc(cgroups, cap * sizeof(*g));
        if (g != NULL) {
            cgroups = g;
            cgroup_capacity = cap;
        }
    }
    if (cgroup_count < cgroup_capacity) {
        struct cgroup_grave *g = &cgroups[cgroup_count++];
        g->parent = parent;
        g->remove = remove;
        snprintf(g->name, sizeof(g->name), "%s", name);
    } else {
        close(parent); /* out of memory: the empty cgroup stays */
    }
    pthread_mutex_unlock(&lock);
}

/* True once the child has been reaped (or is no longer ours to reap). */
static bool reaped(const struct grave *g)
{
    siginfo_t info = {0};
    int rc = g->pidfd >= 0
                 ? waitid((idtype_t)P_PIDFD, (id_t)g->pidfd, &info,
                          WEXITED | WNOHANG)
                 : waitid(P_PID, (id_t)g->pid, &info, WEXITED | WNOHANG);
    return (rc < 0 && errno != EINTR) || info.si_pid != 0;
}

void bsh__graveyard_sweep(void)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < count;) {
        if (reaped(&graves[i])) {
            if (graves[i].pidfd >= 0)
                close(graves[i].pidfd);
            graves[i] = graves[--count];
        } else {
            i++;
        }
    }
    /* The cgroups are taken out and removed without the lock: a removal
     * may have a tree to walk, and other threads' runs must not wait. */
    struct cgroup_grave *mine = cgroups;
    size_t n = cgroup_count;
    if (n > 0) {
        cgroups = NULL;
        cgroup_count = cgroup_capacity = 0;
    }
    pthread_mutex_unlock(&lock);
    for (size_t i = 0; i < n; i++) {
        struct cgroup_grave *g = &mine[i];
        if (g->remove(g->parent, g->name) == -EBUSY)
            bsh__graveyard_add_cgroup(g->parent, g->name, g->remove);
        else
            close(g->parent);
    }
    if (n > 0)
        free(mine);
}
