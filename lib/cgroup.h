/* SPDX-License-Identifier: MIT */
/*
 * A run's own cgroup v2 (cgroup.c): made beside nothing else, under the
 * cgroup this process is in (or a parent the caller names), entered by
 * the child before it runs bash, ended with cgroup.kill and removed.
 */
#ifndef BSH_CGROUP_H
#define BSH_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bsh/bsh.h"

struct bsh__cgroup {
    int dir;           /* the run's cgroup directory; -1: none */
    int parent;        /* the directory it was made in; -1 until needed */
    bool poolable;     /* may serve another run once empty */
    bool pool_checked; /* came from the pool: known to have no controllers */
    bool killed;       /* cgroup.kill was written: never pooled */
    bool emptied;      /* seen empty once: nothing can enter it again */
    bool controllers_read; /* `controllers` holds cgroup.controllers */
    char controllers[128];
    int64_t base_cpu[2]; /* cpu.stat user, system (us) when the run began */
    char name[64];
};

void bsh__cgroup_init(struct bsh__cgroup *cg);

/* Makes the run's cgroup under `parent` (NULL: the cgroup this process is
 * in). Returns 0, or -errno with the reason in `why`. */
int bsh__cgroup_make(struct bsh__cgroup *cg, const char *parent, char *why,
                     size_t len);

/* Whether the cgroup offers `controller` ("memory", "pids"). */
bool bsh__cgroup_has(struct bsh__cgroup *cg, const char *controller);

/* Sets the memory and pids limits of `l` (0: none) through the cgroup's
 * controllers: 0, or -errno with "cannot enforce the memory limit: ..." in
 * `why` when a controller is not enabled or its file cannot be written. */
int bsh__cgroup_set_limits(struct bsh__cgroup *cg, const struct bsh_limits *l,
                           char *why, size_t len);

/* How many processes the cgroup holds. */
int bsh__cgroup_count(const struct bsh__cgroup *cg);

/* The pids it holds, up to `max`; how many. */
int bsh__cgroup_pids(const struct bsh__cgroup *cg, int *pids, int max);

/* Kills every process in it (cgroup.kill), if any: 0, or -errno. */
int bsh__cgroup_kill(struct bsh__cgroup *cg);

/* Reads a number from a "key value" file (cpu.stat, memory.events);
 * -1 when there is none. */
int64_t bsh__cgroup_stat(const struct bsh__cgroup *cg, const char *file,
                         const char *key);

/* The CPU time of everything that ran in it, user and system, in us
 * (cpu.stat); -1 each where unknown. */
void bsh__cgroup_cpu(const struct bsh__cgroup *cg, int64_t usec[2]);

/* Reads a file that holds one number (memory.peak); -1 when none. */
int64_t bsh__cgroup_value(const struct bsh__cgroup *cg, const char *file);

/* Removes the cgroup once it is empty, waiting for its killed processes
 * to be gone at most `wait_ms`; one that is still busy is left to the
 * graveyard. Returns how many processes were still in it. */
int bsh__cgroup_remove(struct bsh__cgroup *cg, int wait_ms);

#endif
