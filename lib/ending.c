/* SPDX-License-Identifier: MIT */
/*
 * How a run ends: the decision, taken on every step of the stream, and
 * the signals that carry it out. The order of the decision (a cancel
 * before a limit before the clock) makes a cancel's status the real one,
 * whatever else came due at the same time.
 */
#define _GNU_SOURCE
#include "ending.h"
#include "mono.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

void bsh__ending_init(struct bsh__ending *e, int64_t idle_ms, int64_t grace_ms)
{
    memset(e, 0, sizeof(*e));
    e->reason = BSH_END_NONE;
    e->idle_ms = idle_ms;
    e->grace_ms = grace_ms;
    e->killed = -1;
}

bool bsh__ending_idle_at(const struct bsh__ending *e,
                         struct timespec last_output, struct timespec *at)
{
    if (e->idle_ms <= 0)
        return false;
    *at = mono_add_ms(last_output, e->idle_ms);
    return true;
}

enum bsh_end_reason bsh__ending_due(const struct bsh__ending *e, bool in_grace,
                                    int cancelled, bool limit_hit,
                                    struct bsh__deadline *d,
                                    struct timespec last_output)
{
    if (in_grace) /* over, or a second cancel: SIGKILL now */
        return mono_ns_until(e->grace_until) <= 0 || cancelled > e->cancels_seen
                   ? BSH_END_CANCEL
                   : BSH_END_NONE;
    if (cancelled > 0)
        return BSH_END_CANCEL;
    if (limit_hit)
        return BSH_END_LIMIT;
    if (bsh__deadline_passed(d))
        return BSH_END_TIMEOUT;
    struct timespec idle;
    if (bsh__ending_idle_at(e, last_output, &idle) && mono_ns_until(idle) <= 0)
        return BSH_END_IDLE;
    return BSH_END_NONE;
}

bool bsh__ending_begin(struct bsh__ending *e, enum bsh_end_reason why,
                       struct bsh__contain *c, const struct bsh__child *leader,
                       int cancelled)
{
    e->reason = why;
    e->timed_out =
        why == BSH_END_TIMEOUT || why == BSH_END_IDLE || why == BSH_END_LIMIT;
    if (e->grace_ms <= 0 || bsh__contain_signal(c, leader, SIGTERM) != 0)
        return false;
    e->grace_until = mono_add_ms(mono_now(), e->grace_ms);
    e->cancels_seen = cancelled;
    return true;
}

void bsh__ending_kill(struct bsh__ending *e, struct bsh__contain *c,
                      const struct bsh__child *leader, bool count)
{
    bsh__contain_unlist(c);
    if (count)
        e->killed = bsh__contain_pids(c, false, NULL, 1 << 20);
    e->kill_err = bsh__contain_signal(c, leader, SIGKILL);
    e->kill_deadline =
        mono_add_ms(mono_now(), e->kill_err == -EPERM ? 0 : BSH__KILL_WAIT_MS);
}

bool bsh__ending_gave_up(const struct bsh__ending *e)
{
    return mono_ns_until(e->kill_deadline) <= 0;
}

void bsh__ending_reaped(struct bsh__ending *e, const struct bsh_item *status)
{
    if (e->reason == BSH_END_NONE)
        e->reason = status->has_signal ? BSH_END_SIGNAL : BSH_END_EXIT;
}
