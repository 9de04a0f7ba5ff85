/* SPDX-License-Identifier: MIT */
/*
 * Children that could not be reaped in time, and cgroups that could not
 * be removed yet (graveyard.c).
 */
#ifndef BSH_GRAVEYARD_H
#define BSH_GRAVEYARD_H

#include <sys/types.h>

/* Remembers our child `pid` (and its pidfd, or -1; the graveyard owns it)
 * so that a later sweep reaps it without blocking. */
void bsh__graveyard_add(pid_t pid, int pidfd);

/* How a remembered cgroup is removed: 0, or -errno (-EBUSY: try again
 * at a later sweep). */
typedef int (*bsh__cgroup_remover)(int parent, const char *name);

/* Remembers a run's cgroup `name` in the directory `parent` (the
 * graveyard owns the fd) that still held dying processes, so that a
 * later sweep removes it with `remove`. */
void bsh__graveyard_add_cgroup(int parent, const char *name,
                               bsh__cgroup_remover remove);

/* Reaps, without blocking, every remembered child that has exited, and
 * removes every remembered cgroup that has emptied. */
void bsh__graveyard_sweep(void);

#endif
