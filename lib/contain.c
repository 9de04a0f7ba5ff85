/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "contain.h"
#include "procinfo.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void bsh__contain_init(struct bsh__contain *c)
{
    bsh__cgroup_init(&c->cgroup);
    bsh__v1_init(&c->v1);
    c->sid = 0;
    c->listed = false;
}

/* ---- making it ------------------------------------------------------------
 */

/* A default limit that neither the run's cgroup v2 nor a cgroup v1 of
 * its own can enforce here is left out, not failed on. */
static void drop_unreachable_defaults(struct bsh__contain *c,
                                      const struct bsh__contain_ask *ask)
{
    bool v2 = c->cgroup.dir >= 0;
    struct bsh_limits *l = ask->limits, *d = ask->defaults;
    if (d->memory_bytes > 0 && !(v2 && bsh__cgroup_has(&c->cgroup, "memory")) &&
        !bsh__v1_available("memory"))
        l->memory_bytes = d->memory_bytes = 0;
    if (d->pids > 0 && !(v2 && bsh__cgroup_has(&c->cgroup, "pids")) &&
        !bsh__v1_available("pids"))
        l->pids = d->pids = 0;
}

/* The memory and pids limits: through the run's cgroup v2 where it has
 * the controller, else through cgroup v1 hierarchies that have it. */
static int limit_memory_and_pids(struct bsh__contain *c,
                                 const struct bsh__contain_ask *ask,
                                 struct bsh__placement *place, char *why,
                                 size_t len)
{
    struct bsh_limits *l = ask->limits, *d = ask->defaults;
    bool v2 = c->cgroup.dir >= 0;
    struct bsh_limits by_v2 = *l, by_v1 = {0};
    if (l->memory_bytes > 0 && !(v2 && bsh__cgroup_has(&c->cgroup, "memory"))) {
        by_v1.memory_bytes = l->memory_bytes;
        by_v2.memory_bytes = 0;
    }
    if (l->pids > 0 && !(v2 && bsh__cgroup_has(&c->cgroup, "pids"))) {
        by_v1.pids = l->pids;
        by_v2.pids = 0;
    }
    int err = v2 ? bsh__cgroup_set_limits(&c->cgroup, &by_v2, why, len) : 0;
    if (err < 0)
        return err;
    if ((by_v1.memory_bytes > 0 || by_v1.pids > 0) &&
        bsh__v1_make(&c->v1, v2, by_v1.memory_bytes, by_v1.pids, ask->sandboxed,
                     why, len) < 0) {
        /* A sandbox's default that cannot be had after all is left out;
         * a limit the caller asked for fails the run. */
        if (by_v1.memory_bytes == d->memory_bytes)
            by_v1.memory_bytes = l->memory_bytes = 0;
        if (by_v1.pids == d->pids)
            by_v1.pids = l->pids = 0;
        if (by_v1.memory_bytes > 0 || by_v1.pids > 0)
            err = bsh__v1_make(&c->v1, v2, by_v1.memory_bytes, by_v1.pids,
                               ask->sandboxed, why, len);
        if (err < 0)
            return err;
    }
    bsh__v1_procs(&c->v1, place->v1_procs);
    return 0;
}

int bsh__contain_make(struct bsh__contain *c,
                      const struct bsh__contain_ask *ask,
                      struct bsh__placement *place, char *why, size_t len)
{
    char detail[BSH_ERROR_MAX - 64];
    int err = ask->mode != BSH_CONTAIN_SESSION
                  ? bsh__cgroup_make(&c->cgroup, ask->cgroup_parent, detail,
                                     sizeof(detail))
                  : 0;
    if (err < 0 && ask->mode == BSH_CONTAIN_CGROUP) {
        bsh__format(why, len, "cannot contain the run in a cgroup: %s", detail);
        return err;
    }
    if (c->cgroup.dir >= 0) {
        if (ask->report) /* a pooled cgroup has run others before */
            bsh__cgroup_cpu(&c->cgroup, c->cgroup.base_cpu);
        place->cgroup_dir = c->cgroup.dir;
    }
    if (ask->defaults->memory_bytes > 0 || ask->defaults->pids > 0)
        drop_unreachable_defaults(c, ask);
    return limit_memory_and_pids(c, ask, place, why, len);
}

/* ---- its processes --------------------------------------------------------
 */

void bsh__contain_enter(struct bsh__contain *c, int sid)
{
    c->sid = sid;
    /* Without a cgroup the end scans the session; with one, the cgroup. */
    c->listed = c->cgroup.dir < 0;
    if (c->listed)
        bsh__leader_add(sid);
}

void bsh__contain_unlist(struct bsh__contain *c)
{
    if (c->listed)
        bsh__leader_remove(c->sid);
    c->listed = false;
}

int bsh__contain_pids(const struct bsh__contain *c, bool others, int *pids,
                      int max)
{
    if (c->cgroup.dir >= 0)
        return bsh__cgroup_pids(&c->cgroup, pids, max);
    if (c->sid <= 0)
        return 0;
    return others ? bsh__session_others(c->sid, pids, max)
                  : bsh__session_pids(c->sid, pids, max);
}

/* Scans of the session at a kill, at most. */
#define KILL_PASSES 4

int bsh__contain_signal(struct bsh__contain *c, const struct bsh__child *leader,
                        int sig)
{
    if (c->cgroup.dir >= 0 && sig == SIGKILL) {
        bsh__cgroup_kill(&c->cgroup);
        /* The group too, unless nothing is left of it but its leader's
         * zombie: an empty cgroup whose leader has exited. */
        if (!c->cgroup.emptied || !leader->exited)
            bsh__child_signal_group(leader, sig);
        return 0;
    }
    /* The group first (one call), while its leader lives, then whatever
     * else is in the cgroup or, without one, in the session: processes
     * that moved to a group of their own (setpgid) are still there. Once
     * the leader has exited, its group is signalled only when the
     * session has other members (usually none: nothing to do). */
    bool leader_gone = leader->exited;
    int err = leader_gone ? 0 : bsh__child_signal_group(leader, sig);
    bool found = false;
    /* A member that forked between the scan and its kill left a child the
     * scan did not see: look again while a pass finds pids newer than
     * the last (a killed process forks no more). */
    int newest = 0;
    for (int pass = 0; pass < KILL_PASSES; pass++) {
        int pids[512];
        int n = bsh__contain_pids(c, true, pids, 512);
        found = found || n > 0;
        bool fresh = false;
        for (int i = 0; i < n; i++) {
            /* A catchable signal goes once to each process: the group's
             * members had it from the group kill (twice, bash would run
             * a trap twice). */
            if (pids[i] <= 0 || (sig != SIGKILL && !leader_gone && err == 0 &&
                                 getpgid(pids[i]) == leader->pid))
                continue;
            kill(pids[i], sig);
            if (pids[i] > newest) {
                newest = pids[i];
                fresh = true;
            }
        }
        if (!fresh || sig != SIGKILL || c->cgroup.dir >= 0)
            break;
    }
    if (leader_gone && found && sig == SIGKILL) /* the others had it */
        err = bsh__child_signal_group(leader, sig);
    return err;
}

/* ---- what it counted, and the end -----------------------------------------
 */

bool bsh__contain_oom_killed(const struct bsh__contain *c)
{
    return bsh__cgroup_stat(&c->cgroup, "memory.events", "oom_kill") > 0 ||
           bsh__v1_oom_kills(&c->v1) > 0;
}

bool bsh__contain_pids_refused(const struct bsh__contain *c)
{
    return bsh__cgroup_stat(&c->cgroup, "pids.events", "max") > 0 ||
           bsh__v1_pids_refused(&c->v1) > 0;
}

void bsh__contain_usage(const struct bsh__contain *c, int64_t cpu[2],
                        int64_t *peak)
{
    cpu[0] = cpu[1] = *peak = -1;
    if (c->cgroup.dir >= 0) {
        bsh__cgroup_cpu(&c->cgroup, cpu);
        *peak = bsh__cgroup_value(&c->cgroup, "memory.peak");
        /* A pooled cgroup has served runs before: from this one's start. */
        for (int i = 0; i < 2; i++)
            if (cpu[i] >= 0)
                cpu[i] -= c->cgroup.base_cpu[i];
    }
    if (*peak < 0)
        *peak = bsh__v1_memory_peak(&c->v1);
}

void bsh__contain_release_limits(struct bsh__contain *c)
{
    bsh__v1_remove(&c->v1);
}

/* Processes of the session still alive after the kill, waiting up to
 * `wait_ms` for the killed to go. */
static int session_left(int sid, int wait_ms)
{
    int left = 0;
    for (int waited = 0; waited <= wait_ms; waited++) {
        left = bsh__session_pids(sid, NULL, 1 << 20);
        if (left == 0)
            break;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    return left;
}

int bsh__contain_release(struct bsh__contain *c, int wait_ms)
{
    bsh__v1_remove(&c->v1);
    if (c->cgroup.dir >= 0)
        return bsh__cgroup_remove(&c->cgroup, wait_ms);
    return wait_ms > 0 && c->sid > 0 ? session_left(c->sid, wait_ms) : 0;
}
