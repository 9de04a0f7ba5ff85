/* SPDX-License-Identifier: MIT */
/*
 * The sandbox's supervisor (supervise.c): Landlock has no right for a
 * file's mode or times, so the seccomp filter hands chmod, fchmod,
 * fchmodat, fchmodat2 and utimensat of the run to the stream, which
 * carries each out itself when the file really lies in a writable place
 * (checked on the opened file, not on the path the run gave) and refuses
 * it otherwise. Setuid and setgid modes are always refused.
 *
 * connect() is handed over too, for every socket: Landlock does not cover
 * connecting to a Unix socket by path. The supervisor makes each
 * connection itself, on the run's socket taken with pidfd_getfd and with
 * the address read once, and answers with its result; it never lets the
 * kernel continue the call, which would read the fd and the address again
 * after the check (a run could swap a Unix socket onto the fd number in
 * between). It never blocks: a connect that cannot complete at once on a
 * blocking socket stays pending and is answered when it has. A Unix
 * socket is connected to only when the run may reach it (sockets.h): so
 * bind() passes here too, to note the run's own sockets.
 */
#ifndef BSH_SUPERVISE_H
#define BSH_SUPERVISE_H

#include "sockets.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A connect() of the run on a blocking socket that could not complete at
 * once: answered when it has (see bsh__supervisor_follow()). */
struct bsh__pending_connect {
    uint64_t id; /* the notification's */
    int sock;    /* the run's socket, taken */
    int target;  /* a Unix socket file opened here (retried); -1: TCP and
                    the like (waited for until writable) */
};

#define BSH__PENDING_MAX 16

/* How often pending connects are looked at. */
#define BSH__PENDING_LOOK_MS 5

struct bsh__supervisor {
    int listener;  /* the seccomp notification fd; -1: none */
    char **places; /* real paths of the writable places */
    size_t count;
    /* The running kernel's sizes of a notification and its answer (they
     * may outgrow our headers'), asked once; 0 until then. */
    size_t req_size, resp_size;
    struct bsh__pending_connect pending[BSH__PENDING_MAX];
    size_t npending;
    bool allow_net; /* IPv4/IPv6 connects are made (else EACCES) */
    struct bsh__socket_reach reach; /* the Unix sockets it may connect to */
};

void bsh__supervisor_init(struct bsh__supervisor *sv);

/* Adds a writable place, given by its real path. */
void bsh__supervisor_allow(struct bsh__supervisor *sv, const char *real_path);

/* Takes one notification that waits (call when the listener polled
 * ready) and answers it. False once no process of the run can make such
 * a call any more (the listener hung up): release it then. */
bool bsh__supervisor_serve(struct bsh__supervisor *sv);

/* Answers the pending connects that have completed; call at least every
 * BSH__PENDING_LOOK_MS while bsh__supervisor_busy(). */
void bsh__supervisor_follow(struct bsh__supervisor *sv);

static inline bool bsh__supervisor_busy(const struct bsh__supervisor *sv)
{
    return sv->npending > 0;
}

/* Closes the listener (pending calls fail) and frees the places. */
void bsh__supervisor_release(struct bsh__supervisor *sv);

#endif
