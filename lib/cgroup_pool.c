/* SPDX-License-Identifier: MIT */
/*
 * The pool of empty run cgroups (see cgroup_pool.h).
 */
#define _GNU_SOURCE
#include "cgroup_pool.h"
#include "cgroupfs.h"

#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

/* Making and removing a cgroup costs the kernel about 80 us; a run that
 * ends with its cgroup empty leaves it here for the next run instead.
 * Only cgroups of our own cgroup with no controllers enabled are pooled
 * (their only state is cpu.stat, which a report reads as a difference).
 * The pool belongs to the process that filled it: a forked child starts
 * anew. What is left is removed at exit; cgroups left by a process that
 * died are removed by the next process's first run. */
#define POOL_MAX 8

static char pool[POOL_MAX][64]; /* names; no fd is held between runs */
static int pool_count;
static pid_t pool_owner;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

bool bsh__cgroup_pool_take(char name[64])
{
    bool got = false;
    pthread_mutex_lock(&pool_lock);
    if (pool_owner == getpid() && pool_count > 0) {
        pool_count--;
        memcpy(name, pool[pool_count], 64);
        got = true;
    }
    pthread_mutex_unlock(&pool_lock);
    return got;
}

bool bsh__cgroup_pool_has_room(void)
{
    pthread_mutex_lock(&pool_lock);
    bool room = pool_owner != getpid() || pool_count < POOL_MAX;
    pthread_mutex_unlock(&pool_lock);
    return room;
}

bool bsh__cgroup_pool_give(const char name[64])
{
    bool kept = false;
    pthread_mutex_lock(&pool_lock);
    if (pool_owner != getpid()) {
        pool_owner = getpid();
        pool_count = 0; /* a forked child's copy: not ours to use */
    }
    if (pool_count < POOL_MAX) {
        memcpy(pool[pool_count++], name, 64);
        kept = true;
    }
    pthread_mutex_unlock(&pool_lock);
    return kept;
}

__attribute__((destructor)) static void pool_drain(void)
{
    pthread_mutex_lock(&pool_lock);
    char path[PATH_MAX + 128];
    for (int i = 0; pool_owner == getpid() && i < pool_count; i++) {
        bsh__cgroup_own_child(path, sizeof(path), pool[i]);
        rmdir(path);
    }
    pool_count = 0;
    pthread_mutex_unlock(&pool_lock);
}
