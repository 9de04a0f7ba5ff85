/* SPDX-License-Identifier: MIT */
/*
 * Children that could not be reaped in time (graveyard.c).
 */
#ifndef BSH_GRAVEYARD_H
#define BSH_GRAVEYARD_H

#include <sys/types.h>

/* Remembers our child `pid` (and its pidfd, or -1; the graveyard owns it)
 * so that a later sweep reaps it without blocking. */
void bsh__graveyard_add(pid_t pid, int pidfd);

/* Reaps, without blocking, every remembered child that has exited. */
void bsh__graveyard_sweep(void);

#endif
