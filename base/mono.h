/* SPDX-License-Identifier: MIT */
/*
 * The monotonic clock, for every part of bsh (the engine, the CLI, the
 * MCP server, tests and benchmarks): absolute times, what is left until
 * them, and milliseconds, saturating instead of overflowing. Header-only,
 * so that each part gets it without a link dependency.
 */
#ifndef BSH_BASE_MONO_H
#define BSH_BASE_MONO_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* Longer spans are cut to this (about 100 years): far beyond any run,
 * and small enough that no arithmetic below can overflow. */
#define MONO_MAX_MS ((int64_t)100 * 365 * 24 * 3600 * 1000)

static inline struct timespec mono_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t;
}

/* `t` plus `ms` milliseconds (ms >= 0, saturated at MONO_MAX_MS). */
static inline struct timespec mono_add_ms(struct timespec t, int64_t ms)
{
    if (ms > MONO_MAX_MS)
        ms = MONO_MAX_MS;
    t.tv_sec += (time_t)(ms / 1000);
    t.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

/* Nanoseconds from now until `t` (at most MONO_MAX_MS away); <= 0 once it
 * has passed. */
static inline int64_t mono_ns_until(struct timespec t)
{
    struct timespec now = mono_now();
    return (int64_t)(t.tv_sec - now.tv_sec) * 1000000000 +
           (t.tv_nsec - now.tv_nsec);
}

/* a - b in whole milliseconds. */
static inline int64_t mono_diff_ms(struct timespec a, struct timespec b)
{
    return ((int64_t)a.tv_sec - (int64_t)b.tv_sec) * 1000 +
           ((int64_t)a.tv_nsec - (int64_t)b.tv_nsec) / 1000000;
}

static inline bool mono_before(struct timespec a, struct timespec b)
{
    return a.tv_sec < b.tv_sec ||
           (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

/* Lowers `*next` to `ms` when `ms` is sooner: both are milliseconds until
 * something is due, -1 for nothing due. */
static inline void mono_soonest(double *next, double ms)
{
    if (ms >= 0 && (*next < 0 || ms < *next))
        *next = ms;
}

/* Now, in milliseconds, for measuring spans. */
static inline double mono_ms(void)
{
    struct timespec t = mono_now();
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

#endif
