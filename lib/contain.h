/* SPDX-License-Identifier: MIT */
/*
 * A run's containment (contain.c): where its processes are, how every one
 * of them gets a signal, what its memory and pids limits counted, and how
 * it is cleaned up. It is made of the run's own cgroup v2 where one can
 * be made (cgroup.c, pooled), the cgroup v1 groups of the limits that v2
 * cannot enforce here (cgroup_v1.c), and always the run's session, which
 * is scanned in /proc when there is no cgroup (procinfo.c).
 */
#ifndef BSH_CONTAIN_H
#define BSH_CONTAIN_H

#include "cgroup.h"
#include "cgroup_v1.h"
#include "child.h"
#include "internal.h"

struct bsh__contain {
    struct bsh__cgroup cgroup; /* the run's own, or dir -1 */
    struct bsh__v1 v1;         /* cgroup v1 limits where v2 has none */
    int sid;                   /* the run's session (its leader's pid) */
    bool listed;               /* sid is in the list the session scans skip */
};

/* What a run asks of its containment. */
struct bsh__contain_ask {
    enum bsh_containment mode;
    const char *cgroup_parent; /* NULL: the cgroup this process is in */
    bool report;               /* the end report will read its counts */
    bool sandboxed;            /* the run cannot write to cgroup files */
    /* The memory and pids limits (0: none), and which of them are a
     * sandbox's defaults, which are left out (cleared in both) where the
     * machine cannot give them. */
    struct bsh_limits *limits, *defaults;
};

void bsh__contain_init(struct bsh__contain *c);

/* Makes the run's cgroups as `ask` says and says in `place` where the
 * child goes. 0, or -errno with the whole message in `why` ("cannot contain
 * the run in a cgroup: ...", "cannot enforce the memory limit: ..."). */
int bsh__contain_make(struct bsh__contain *c,
                      const struct bsh__contain_ask *ask,
                      struct bsh__placement *place, char *why, size_t len);

/* The run's leader started: its session is `sid`. */
void bsh__contain_enter(struct bsh__contain *c, int sid);

/* The leader is about to be reaped (its pid is ours until then) or the
 * run ends: other runs' session scans look at its pid again. */
void bsh__contain_unlist(struct bsh__contain *c);

/* The run's live processes, up to `max`; how many (`pids` may be NULL
 * to count). `others`: a session scan leaves out the leader; a cgroup's
 * list is one read either way, the leader included. */
int bsh__contain_pids(const struct bsh__contain *c, bool others, int *pids,
                      int max);

/* Sends `sig` to every process of the run: with a cgroup, SIGKILL goes
 * through cgroup.kill, which nothing escapes and which needs no
 * permission on each process; the leader's process group gets it too.
 * Returns 0, or -errno of the group's signal (-EPERM: a process turned
 * into another user). */
int bsh__contain_signal(struct bsh__contain *c, const struct bsh__child *leader,
                        int sig);

/* Whether the kernel enforced the memory limit (an out-of-memory kill)
 * or the pids limit (a fork refused) in this run. */
bool bsh__contain_oom_killed(const struct bsh__contain *c);
bool bsh__contain_pids_refused(const struct bsh__contain *c);

/* The run's CPU time (us, user and system, since it began) and memory
 * peak (bytes) as its cgroups counted them; -1 each where unknown. */
void bsh__contain_usage(const struct bsh__contain *c, int64_t cpu[2],
                        int64_t *peak);

/* Lets the limits' groups go, once their counts were read. */
void bsh__contain_release_limits(struct bsh__contain *c);

/* Lets everything go: removes the run's cgroup (what is left in it is
 * killed; what still dies after `wait_ms` goes to the graveyard) and its
 * limits' groups. Returns the processes left: of the cgroup, or, without
 * one and when `wait_ms` > 0, of the session (-1: unknown). */
int bsh__contain_release(struct bsh__contain *c, int wait_ms);

#endif
