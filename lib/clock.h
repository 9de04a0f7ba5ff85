/* SPDX-License-Identifier: MIT */
/*
 * The monotonic clock of the engine: absolute times and what is left until
 * them, saturating instead of overflowing (clock.c).
 */
#ifndef BSH_CLOCK_H
#define BSH_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "bsh/bsh.h"

/* Longer timeouts are cut to this (about 100 years): far beyond any run,
 * and small enough that no deadline arithmetic can overflow. */
#define BSH__TIMEOUT_MAX_MS BSH_TIMEOUT_MAX_MS

struct timespec bsh__clock_now(void);

/* `t` plus `ms` milliseconds (ms >= 0, saturated at BSH__TIMEOUT_MAX_MS). */
struct timespec bsh__clock_add_ms(struct timespec t, int64_t ms);

/* Nanoseconds from now until `t`; <= 0 once it has passed. */
int64_t bsh__clock_ns_until(struct timespec t);

bool bsh__clock_before(struct timespec a, struct timespec b);

#endif
