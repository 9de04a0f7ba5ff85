/* SPDX-License-Identifier: MIT */
/*
 * A pool of empty run cgroups (cgroup_pool.c): making and removing a
 * cgroup costs the kernel 80 us to several hundred (a v1 memory cgroup
 * most, with work it finishes later on a kernel thread), so a run that
 * ends with its cgroup empty leaves it in a pool for the next run. Who
 * pools decides what is fit (cgroup.c for v2, cgroup_v1.c for v1). A
 * pool holds names, no fd, and belongs to the process that filled it (a
 * forked child starts anew); what is left is removed at exit.
 */
#ifndef BSH_CGROUP_POOL_H
#define BSH_CGROUP_POOL_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#define BSH__CGROUP_POOL_MAX 8

struct bsh__cgroup_pool {
    pthread_mutex_t lock;
    pid_t owner; /* the process whose runs filled it */
    int count;
    char names[BSH__CGROUP_POOL_MAX][64];
};

#define BSH__CGROUP_POOL_INIT             \
    {                                     \
        .lock = PTHREAD_MUTEX_INITIALIZER \
    }

/* A pooled cgroup's name into `name`; false: none. */
bool bsh__cgroup_pool_take(struct bsh__cgroup_pool *p, char name[64]);

/* Whether one more would be kept. */
bool bsh__cgroup_pool_has_room(struct bsh__cgroup_pool *p);

/* Keeps the empty cgroup `name` for a later run; false when full. */
bool bsh__cgroup_pool_give(struct bsh__cgroup_pool *p, const char name[64]);

/* Removes every pooled cgroup; they are in the directory that `home`
 * names (asked only when there is one). */
void bsh__cgroup_pool_drain(struct bsh__cgroup_pool *p,
                            const char *(*home)(void));

#endif
