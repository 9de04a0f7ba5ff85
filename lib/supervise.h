/* SPDX-License-Identifier: MIT */
/*
 * The sandbox's supervisor (supervise.c): Landlock has no right for a
 * file's mode or times, so the seccomp filter hands chmod, fchmod,
 * fchmodat, fchmodat2 and utimensat of the run to the stream, which
 * carries each out itself when the file really lies in a writable place
 * (checked on the opened file, not on the path the run gave) and refuses
 * it otherwise. Setuid and setgid modes are always refused.
 */
#ifndef BSH_SUPERVISE_H
#define BSH_SUPERVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct bsh__supervisor {
    int listener;  /* the seccomp notification fd; -1: none */
    char **places; /* real paths of the writable places */
    size_t count;
    /* The running kernel's sizes of a notification and its answer (they
     * may outgrow our headers'), asked once; 0 until then. */
    size_t req_size, resp_size;
};

void bsh__supervisor_init(struct bsh__supervisor *sv);

/* Adds a writable place by its real path; missing ones are skipped. */
void bsh__supervisor_allow(struct bsh__supervisor *sv, const char *path);

/* Takes one notification that waits (call when the listener polled
 * ready) and answers it. False once no process of the run can make such
 * a call any more (the listener hung up): release it then. */
bool bsh__supervisor_serve(struct bsh__supervisor *sv);

/* Closes the listener (pending calls fail) and frees the places. */
void bsh__supervisor_release(struct bsh__supervisor *sv);

#endif
