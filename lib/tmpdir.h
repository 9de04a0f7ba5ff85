/* SPDX-License-Identifier: MIT */
/*
 * A sandboxed run's private temporary directory (tmpdir.c): made before
 * the run in its temporary place, given to it as TMPDIR, and removed with
 * all that is in it when the run is over.
 */
#ifndef BSH_TMPDIR_H
#define BSH_TMPDIR_H

#include <stddef.h>

/* Makes a directory of ours alone (0700) in `base`, its path (malloc'd)
 * in `*made`: 0, or -errno (`*made` NULL). */
int bsh__tmpdir_make(const char *base, char **made);

/* Removes the directory `path` and everything in it, following no
 * symbolic link, at any depth, whatever modes the run left on it; best
 * effort (what cannot be removed stays). */
void bsh__tmpdir_remove(const char *path);

#endif
