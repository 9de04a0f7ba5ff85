/* SPDX-License-Identifier: MIT */
/*
 * What /proc says about a run's processes (procinfo.c): which are in its
 * session, and what each is doing (the end report, the run's state).
 */
#ifndef BSH_PROCINFO_H
#define BSH_PROCINFO_H

#include "bsh/bsh.h"

/* The processes of session `sid` (zombies aside), up to `max`; how
 * many. `pids` may be NULL to count. */
int bsh__session_pids(int sid, int *pids, int max);

/* The same without the leader (`sid` itself): those that a kill of the
 * leader's group may not reach. Costs one read of /proc when no process
 * was made after the leader. */
int bsh__session_others(int sid, int *pids, int max);

/* The leaders of this process's runs without a cgroup, from their start
 * until their reap: the scans above skip them. */
void bsh__leader_add(int pid);
void bsh__leader_remove(int pid);

/* The state letter and process group of `pid`; false when it is gone. */
bool bsh__proc_stat(int pid, char *state, int *pgrp);

/* What fd `fd` of `pid` points to (its /proc link, cut to fit `size`);
 * false, with "" in `buf`, when it is closed or the process is gone. */
bool bsh__proc_fd(int pid, long fd, char *buf, size_t size);

/* Fills `info` for process `pid`; false when it is gone. */
bool bsh__proc_describe(int pid, struct bsh_proc_info *info);

#endif
