/* SPDX-License-Identifier: MIT */
#include "clock.h"

struct timespec bsh__clock_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t;
}

struct timespec bsh__clock_add_ms(struct timespec t, int64_t ms)
{
    if (ms > BSH__TIMEOUT_MAX_MS)
        ms = BSH__TIMEOUT_MAX_MS;
    t.tv_sec += (time_t)(ms / 1000);
    t.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

int64_t bsh__clock_ns_until(struct timespec t)
{
    struct timespec now = bsh__clock_now();
    /* Deadlines are at most BSH__TIMEOUT_MAX_MS away: no overflow here. */
    return (int64_t)(t.tv_sec - now.tv_sec) * 1000000000 +
           (t.tv_nsec - now.tv_nsec);
}

bool bsh__clock_before(struct timespec a, struct timespec b)
{
    return a.tv_sec < b.tv_sec ||
           (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}
