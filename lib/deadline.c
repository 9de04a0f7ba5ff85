/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "deadline.h"

#include <errno.h>
#include <sys/timerfd.h>
#include <unistd.h>

void bsh__deadline_init(struct bsh__deadline *d)
{
    *d = (struct bsh__deadline){.timerfd = -1};
}

void bsh__deadline_start(struct bsh__deadline *d, struct timespec start,
                         int64_t timeout_ms)
{
    d->at = mono_add_ms(start, timeout_ms);
    d->set = true;
}

bool bsh__deadline_passed(struct bsh__deadline *d)
{
    if (d->set && !d->hit)
        d->hit = mono_ns_until(d->at) <= 0;
    return d->hit;
}

const struct timespec *bsh__deadline_left(bool want, struct timespec at,
                                          struct timespec *buf)
{
    if (!want)
        return NULL;
    int64_t ns = mono_ns_until(at);
    if (ns < 0)
        ns = 0;
    buf->tv_sec = (time_t)(ns / 1000000000);
    buf->tv_nsec = (long)(ns % 1000000000);
    return buf;
}

int bsh__deadline_timer(struct bsh__deadline *d, bool want, struct timespec at)
{
    if (d->timerfd < 0) {
        d->timerfd =
            timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
        if (d->timerfd < 0)
            return -errno;
    }
    bool same = want == d->timer_armed &&
                (!want || (at.tv_sec == d->timer_at.tv_sec &&
                           at.tv_nsec == d->timer_at.tv_nsec));
    if (same)
        return d->timerfd;
    /* All zero disarms; setting the timer also clears past expiries. */
    struct itimerspec its = {.it_value = want ? at : (struct timespec){0, 0}};
    if (want && at.tv_sec == 0 && at.tv_nsec == 0)
        its.it_value.tv_nsec = 1;
    if (timerfd_settime(d->timerfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
        return -errno;
    d->timer_armed = want;
    d->timer_at = at;
    return d->timerfd;
}

void bsh__deadline_release(struct bsh__deadline *d)
{
    if (d->timerfd >= 0)
        close(d->timerfd);
    d->timerfd = -1;
    d->timer_armed = false;
}
