/* SPDX-License-Identifier: MIT */
/*
 * The memory and pids limits through cgroup v1 (cgroup_v1.c), for hosts
 * whose cgroup v2 has no such controller because the v1 hierarchies hold
 * them (systems booted with the hybrid layout, many containers and VMs).
 * Only the limits: the run's containment stays its v2 cgroup or session.
 * The child writes itself into each v1 cgroup before it runs bash, so
 * nothing it forks is ever outside them.
 */
#ifndef BSH_CGROUP_V1_H
#define BSH_CGROUP_V1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One v1 cgroup of a run, in the hierarchy of one controller. A cgroup
 * that an earlier run left empty is used again (cgroup_pool.h): its
 * counts are read as differences from where they stood. */
struct bsh__v1_group {
    const char *controller; /* "memory" or "pids"; NULL: none */
    int parent;             /* the directory it was made in */
    int dir;                /* the cgroup */
    int procs;              /* its cgroup.procs, written by the child */
    int64_t count_base;     /* oom_kill or pids.events max at the start */
    int64_t usage_base;     /* memory charged to it at the start (bytes) */
    char name[64];
};

struct bsh__v1 {
    struct bsh__v1_group memory, pids;
    /* Groups come from the pool and go back to it: only a sandboxed
     * run's, which can change nothing in its groups (it may not write
     * to the cgroup file system), so the next run finds them as the
     * kernel made them. */
    bool pooled;
};

void bsh__v1_init(struct bsh__v1 *v);

/* Whether this process may make cgroups in its v1 hierarchy of
 * `controller` ("memory" or "pids"). */
bool bsh__v1_available(const char *controller);

/* Makes the run's v1 cgroups for the limits that are > 0 (bytes, and
 * processes) under the v1 cgroups this process is in: 0, or -errno with
 * "cannot enforce the ... limit: ..." in `why`, which also says why
 * cgroup v2 could not (`v2_cgroup`: the run has a v2 cgroup, without
 * that controller). */
int bsh__v1_make(struct bsh__v1 *v, bool v2_cgroup, int64_t memory_bytes,
                 int64_t pids, bool sandboxed, char *why, size_t len);

/* The cgroup.procs fds the child must write itself into (-1: none). */
void bsh__v1_procs(const struct bsh__v1 *v, int fds[2]);

/* The limits' own counts: out-of-memory kills, forks refused at the
 * limit; the largest memory use in bytes (in a cgroup used before, above
 * what earlier runs left charged to it). -1 where unknown. */
int64_t bsh__v1_oom_kills(const struct bsh__v1 *v);
int64_t bsh__v1_pids_refused(const struct bsh__v1 *v);
int64_t bsh__v1_memory_peak(const struct bsh__v1 *v);

/* Pools those that are empty (a memory cgroup only while little is
 * charged to it); kills what is left in the others, then removes them
 * (those that are still busy go to the graveyard, which removes them
 * later). */
void bsh__v1_remove(struct bsh__v1 *v);

#endif
