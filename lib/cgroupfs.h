/* SPDX-License-Identifier: MIT */
/*
 * The cgroup file system, without policy (cgroupfs.c): where this
 * process's cgroups are, and what can be done to a cgroup directory by
 * its fd, for the run's cgroup v2 (cgroup.c), its v1 groups
 * (cgroup_v1.c) and the pool (cgroup_pool.c).
 */
#ifndef BSH_CGROUPFS_H
#define BSH_CGROUPFS_H

#include <stddef.h>
#include <stdint.h>

/* The directory of this process's cgroup v2 (found once), or NULL. */
const char *bsh__cgroup_own(void);

/* The path of `name` in it, into `path`. */
void bsh__cgroup_own_child(char *path, size_t size, const char *name);

/* By a cgroup directory's fd, v2 or v1: writes `value` to `file` (0, or
 * -errno); the pids in its cgroup.procs; SIGKILL to each of them (0, or
 * -errno of a kill). */
int bsh__cgroup_write_at(int dir, const char *file, const char *value);
int bsh__cgroup_pids_at(int dir, int *pids, int max);
int bsh__cgroup_kill_each(int dir);

/* The numbers after `keys` in the "key value" file `file` of the cgroup
 * directory `dir` (-1 each where none): 0, or -errno when it cannot be
 * read. */
int bsh__cgroup_stats_at(int dir, const char *file, const char *const *keys,
                         int64_t *values, int n);

/* Removes the cgroup `name` in the directory `parent`: 0, or -errno
 * (-EBUSY while processes are in it). The cgroups below it, which a run
 * that may write the cgroup file system can make, are killed and removed
 * first, deepest first, within the same cgroup mount only, and up to a
 * bound on their number and depth (what is left waits for a later try). */
int bsh__cgroup_rmdir_at(int parent, const char *name);

/* Removes the cgroup `name` in the directory `*parent`. While it is busy,
 * `end_left(ctx)` kills what is left in it and says how many that was,
 * and the removal is tried again every 1 ms for up to `wait_ms`; then the
 * graveyard takes it over, with `*parent` (set to -1). Returns how many
 * were left then, or 0. */
int bsh__cgroup_rmdir(int *parent, const char *name, int wait_ms,
                      int (*end_left)(void *ctx), void *ctx);

/* The directory of this process's cgroup in the cgroup2 hierarchy
 * (`controller` NULL) or in the v1 hierarchy holding `controller`, from
 * /proc/self/cgroup and mountinfo; "" where there is none (no such mount,
 * or our cgroup lies outside what this mount namespace shows). */
void bsh__cgroup_home(const char *controller, char *home, size_t size);

/* Removes the empty cgroups named bsh-PID-... in `dir` whose process has
 * died (a run's cgroup left by a process that was killed), with what a
 * run made below them. */
void bsh__cgroup_remove_stale(const char *dir);

#endif
