/* SPDX-License-Identifier: MIT */
/*
 * The end report of a run (report.c), filled from what the stream's parts
 * hold at the end, read and never changed here: the outputs' counters,
 * the reaped child, the containment's files, the limits.
 */
#ifndef BSH_REPORT_H
#define BSH_REPORT_H

#include "bsh/bsh.h"
#include "child.h"
#include "contain.h"
#include "outputs.h"

/* How long the end waits for killed processes to be gone before it
 * counts them as escaped (a report asked for; else no wait). */
#define BSH__GONE_WAIT_MS 200

/* What the end report is filled from. */
struct bsh__report_input {
    struct timespec started; /* when bsh_run() was called */
    const struct bsh__outputs *outputs;
    const struct bsh__child *child;
    const struct bsh__contain *contain;
    const struct bsh_limits *limits;
    bool costly; /* the report was asked for: read the cgroup's files */
};

/* The run's live processes, described just before bsh ends it (scans
 * /proc): a malloc'd array of *count, or NULL. */
struct bsh_proc_info *bsh__report_diagnose(const struct bsh__contain *c,
                                           size_t *count);

/* Fills the report at the run's end: the clock, the status (NULL: none),
 * the bytes, the usage, the limit that ended it and the containment. */
void bsh__report_fill(struct bsh_report *r, const struct bsh__report_input *in,
                      const struct bsh_item *status);

/* How many processes outlived the run, from what the containment's
 * release found `left` (-1: unknown); `waited` for them to go. */
void bsh__report_escaped(struct bsh_report *r, int left, bool waited);

#endif
