/* SPDX-License-Identifier: MIT */
/*
 * Ending the orphans of runs (orphans.c), for a process that owns itself.
 */
#ifndef BSH_FRONT_ORPHANS_H
#define BSH_FRONT_ORPHANS_H

#include <stdbool.h>
#include <sys/types.h>

/* Makes this process the reaper of the orphans its runs leave behind
 * (PR_SET_CHILD_SUBREAPER): a process that left the run's process group
 * (setsid, a double fork, a daemon) becomes our child when its parent
 * dies, instead of init's. 0, or -1 with errno. */
int orphans_become_subreaper(void);

/* Called before each run starts: a child born before the first run is
 * never taken for a run's orphan. Returns now, in milliseconds of
 * CLOCK_BOOTTIME (the clock of orphans_born_ms()). */
double orphans_run_starts(void);

/* Blocks SIGCHLD and returns a signalfd that polls readable when a child
 * of ours exits (close-on-exec, non-blocking), or -1 with errno. */
int orphans_signal_fd(void);

/* Reaps, as init does, every child of ours that has exited, except those
 * for which `keep(pid, ctx)` is true (the runs' own processes, which the
 * library reaps with their status). `signal_fd`, from orphans_signal_fd()
 * or -1, is drained first. How many it reaped. Exited orphans must not
 * wait for the end of the run: they would count against its pids limit. */
int orphans_reap(int signal_fd, bool (*keep)(pid_t pid, void *ctx), void *ctx);

/* After a run whose process group was `pgid`: kills (SIGKILL, with their
 * own groups) and reaps every child of ours, that is every orphan the run
 * left (never a child that was ours before the subreaper began, one in our
 * own session, or one born more than a clock tick before the first run:
 * those are only reaped once they have exited), until none is left and the old
 * group is empty, for at most `max_ms`. Children we may not signal are left,
 * and counted in `*left` (may be NULL). Returns how many it killed. */
int orphans_end(pid_t pgid, int max_ms, int *left);

/* The same, but a child for which `keep(pid, ctx)` is true is left alone
 * (a run still going, or what may be its orphan). */
int orphans_end_but(pid_t pgid, int max_ms, int *left,
                    bool (*keep)(pid_t pid, void *ctx), void *ctx);

/* When process `pid` was started, in milliseconds of CLOCK_BOOTTIME, at
 * the kernel's clock tick (orphans_tick_ms()); -1 when it is gone. */
double orphans_born_ms(pid_t pid);

/* The granularity of orphans_born_ms() (one clock tick). */
double orphans_tick_ms(void);

#endif
