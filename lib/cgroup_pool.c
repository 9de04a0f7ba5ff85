/* SPDX-License-Identifier: MIT */
/*
 * A pool of empty run cgroups (see cgroup_pool.h).
 */
#define _GNU_SOURCE
#include "cgroup_pool.h"
#include "internal.h"

#include <limits.h>
#include <string.h>
#include <unistd.h>

/* A forked child's copy of the pool is not its own: it starts empty. */
static void claim(struct bsh__cgroup_pool *p)
{
    if (p->owner != getpid()) {
        p->owner = getpid();
        p->count = 0;
    }
}

bool bsh__cgroup_pool_take(struct bsh__cgroup_pool *p, char name[64])
{
    bool got = false;
    pthread_mutex_lock(&p->lock);
    claim(p);
    if (p->count > 0) {
        p->count--;
        memcpy(name, p->names[p->count], 64);
        got = true;
    }
    pthread_mutex_unlock(&p->lock);
    return got;
}

bool bsh__cgroup_pool_has_room(struct bsh__cgroup_pool *p)
{
    pthread_mutex_lock(&p->lock);
    claim(p);
    bool room = p->count < BSH__CGROUP_POOL_MAX;
    pthread_mutex_unlock(&p->lock);
    return room;
}

bool bsh__cgroup_pool_give(struct bsh__cgroup_pool *p, const char name[64])
{
    bool kept = false;
    pthread_mutex_lock(&p->lock);
    claim(p);
    if (p->count < BSH__CGROUP_POOL_MAX) {
        memcpy(p->names[p->count++], name, 64);
        kept = true;
    }
    pthread_mutex_unlock(&p->lock);
    return kept;
}

void bsh__cgroup_pool_drain(struct bsh__cgroup_pool *p,
                            const char *(*home)(void))
{
    char path[PATH_MAX + 128];
    /* A forked child has nothing to drain, and must not wait on a lock
     * that a thread of its parent held at the fork. */
    if (p->owner != getpid())
        return;
    pthread_mutex_lock(&p->lock);
    claim(p);
    const char *dir = p->count > 0 ? home() : NULL;
    for (int i = 0; dir != NULL && i < p->count; i++) {
        bsh__format(path, sizeof(path), "%s/%.63s", dir, p->names[i]);
        rmdir(path);
    }
    p->count = 0;
    pthread_mutex_unlock(&p->lock);
}
