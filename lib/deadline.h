/* SPDX-License-Identifier: MIT */
/*
 * A run's time (deadline.c): its absolute deadline on the monotonic
 * clock, and the timerfd that wakes the pollers of the stream's fd at the
 * stream's next wake-up (the deadline, the end of the kill wait, or the
 * next look at a hung-up PTY master).
 */
#ifndef BSH_DEADLINE_H
#define BSH_DEADLINE_H

#include "mono.h"

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct bsh__deadline {
    bool set, hit; /* `hit` stays true once the deadline has passed */
    struct timespec at;
    int timerfd; /* made on first use; -1 */
    bool timer_armed;
    struct timespec timer_at;
};

void bsh__deadline_init(struct bsh__deadline *d);

/* The deadline `timeout_ms` after `start` (saturating, see mono.h). */
void bsh__deadline_start(struct bsh__deadline *d, struct timespec start,
                         int64_t timeout_ms);

/* True once the deadline has passed (never without one). */
bool bsh__deadline_passed(struct bsh__deadline *d);

/* ppoll's timeout until `at`, in `buf` (zero once it passed); NULL when
 * there is no wake-up (`want` false): wait without a bound. */
const struct timespec *bsh__deadline_left(bool want, struct timespec at,
                                          struct timespec *buf);

/* Sets the timerfd to fire at `at`, or disarms it (`want` false), only
 * when that changes. Returns the timerfd, made on first use, or -errno. */
int bsh__deadline_timer(struct bsh__deadline *d, bool want, struct timespec at);

void bsh__deadline_release(struct bsh__deadline *d);

#endif
