/* SPDX-License-Identifier: MIT */
/*
 * The pool of empty run cgroups (cgroup_pool.c): making and removing a
 * cgroup costs the kernel about 80 us, so a run that ends with its cgroup
 * empty leaves it here for the next run. Only cgroups of our own cgroup
 * with no controllers enabled are pooled (cgroup.c decides); the pool
 * holds names, no fd, and belongs to the process that filled it (a forked
 * child starts anew); what is left is removed at exit.
 */
#ifndef BSH_CGROUP_POOL_H
#define BSH_CGROUP_POOL_H

#include <stdbool.h>

/* A pooled cgroup's name (in our own cgroup) into `name`; false: none. */
bool bsh__cgroup_pool_take(char name[64]);

/* Whether one more would be kept. */
bool bsh__cgroup_pool_has_room(void);

/* Keeps the empty cgroup `name` for a later run; false when full. */
bool bsh__cgroup_pool_give(const char name[64]);

#endif
