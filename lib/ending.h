/* SPDX-License-Identifier: MIT */
/*
 * How a run ends (ending.c): why and when it must end (a cancel, the
 * output limit, the deadline, the idle timeout; in the grace, its end or a
 * second cancel), the SIGTERM that starts a grace, the SIGKILL, and the
 * bounded wait for the killed child after which it is abandoned.
 */
#ifndef BSH_ENDING_H
#define BSH_ENDING_H

#include "bsh/bsh.h"
#include "child.h"
#include "contain.h"
#include "deadline.h"

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* How long the end waits for the child to die after SIGKILL before it is
 * abandoned (to the graveyard) with an error. SIGKILL takes microseconds
 * unless the process sleeps uninterruptibly in the kernel. */
#define BSH__KILL_WAIT_MS 1000

struct bsh__ending {
    enum bsh_end_reason reason;    /* BSH_END_NONE until it is known */
    bool timed_out;                /* yield the timeout item, not the status */
    int64_t idle_ms;               /* idle timeout; 0: none */
    int64_t grace_ms;              /* SIGTERM first, SIGKILL after this */
    struct timespec grace_until;   /* in the grace: SIGKILL then */
    int cancels_seen;              /* cancels when the grace began */
    int kill_err;                  /* why the SIGKILL failed (-errno), or 0 */
    struct timespec kill_deadline; /* after the SIGKILL: give up then */
    int killed; /* processes killed, -1 unknown (not counted) */
};

void bsh__ending_init(struct bsh__ending *e, int64_t idle_ms, int64_t grace_ms);

/* Whether the run must end now, and why (BSH_END_NONE: not yet), from
 * what the stream knows: `in_grace` after the SIGTERM, the number of
 * cancels asked for, whether output passed its limit, the deadline and
 * when output last came. A cancel comes first, then the limit, the
 * deadline, the idle timeout; in the grace only its end or a second
 * cancel count. */
enum bsh_end_reason bsh__ending_due(const struct bsh__ending *e, bool in_grace,
                                    int cancelled, bool limit_hit,
                                    struct bsh__deadline *d,
                                    struct timespec last_output);

/* When the idle timeout falls (false: there is none). */
bool bsh__ending_idle_at(const struct bsh__ending *e,
                         struct timespec last_output, struct timespec *at);

/* The run ends for `why`: with a grace, SIGTERM to the whole run (true:
 * the grace began); false: the caller kills it now. */
bool bsh__ending_begin(struct bsh__ending *e, enum bsh_end_reason why,
                       struct bsh__contain *c, const struct bsh__child *leader,
                       int cancelled);

/* SIGKILL to the whole run (counted first when `count`), and the bound
 * on the wait for it: none for a group we may not signal at all (its
 * processes turned into another user), which will not die. */
void bsh__ending_kill(struct bsh__ending *e, struct bsh__contain *c,
                      const struct bsh__child *leader, bool count);

/* The wait after the SIGKILL is over: the child is abandoned. */
bool bsh__ending_gave_up(const struct bsh__ending *e);

/* The child was reaped: the reason of a run that ended by itself. */
void bsh__ending_reaped(struct bsh__ending *e, const struct bsh_item *status);

#endif
