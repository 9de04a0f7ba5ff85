/* SPDX-License-Identifier: MIT */
/*
 * The end report of a run: why it ended, what it cost, what bsh had to
 * kill, and, for a run that bsh ended, what its processes were doing just
 * before. What is cheap is always filled (the clock, the counters, the
 * cgroup's files); what scans /proc only for callers that ask.
 */
#define _GNU_SOURCE
#include "procinfo.h"
#include "stream.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How many processes a diagnosis describes at most. */
#define DIAGNOSIS_MAX 32

/* How long the end waits for killed processes to be gone before it
 * counts them as escaped. */
#define GONE_WAIT_MS 200

void bsh__report_diagnose(struct bsh_stream *s)
{
    if (!s->want_report || s->diagnosis != NULL)
        return;
    int pids[DIAGNOSIS_MAX];
    int n = bsh__contain_pids(&s->contain, false, pids, DIAGNOSIS_MAX);
    s->diagnosis = calloc(n > 0 ? (size_t)n : 1, sizeof(*s->diagnosis));
    if (s->diagnosis == NULL)
        return;
    size_t k = 0;
    for (int i = 0; i < n; i++)
        if (bsh__proc_describe(pids[i], &s->diagnosis[k]))
            k++;
    s->report.diagnosis = s->diagnosis;
    s->report.diagnosis_count = k;
}

static int64_t ms_of(struct timeval tv)
{
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* The limit that the kernel enforced, from the status and the cgroup. */
static enum bsh_limit kernel_limit(const struct bsh_stream *s,
                                   const struct bsh_report *r)
{
    int sig = r->has_signal                            ? r->signal
              : r->has_exit_code && r->exit_code > 128 ? r->exit_code - 128
                                                       : 0;
    if (s->limits.cpu_seconds > 0 &&
        (sig == SIGXCPU ||
         (sig == SIGKILL &&
          r->cpu_user_ms + r->cpu_sys_ms >= s->limits.cpu_seconds * 1000)))
        return BSH_LIMIT_CPU;
    if (s->limits.fsize_bytes > 0 && sig == SIGXFSZ)
        return BSH_LIMIT_FSIZE;
    if (s->limits.memory_bytes > 0 && bsh__contain_oom_killed(&s->contain))
        return BSH_LIMIT_MEMORY;
    if (s->limits.pids > 0 && bsh__contain_pids_refused(&s->contain))
        return BSH_LIMIT_PIDS;
    return BSH_LIMIT_NONE;
}

/* CPU and memory: of the whole cgroup for a caller that asked for the
 * report (it costs two file reads), else of bash and what it waited for. */
static void fill_usage(const struct bsh_stream *s, struct bsh_report *r)
{
    int64_t cpu[2] = {-1, -1}, peak = -1;
    if (s->want_report)
        bsh__contain_usage(&s->contain, cpu, &peak);
    r->cpu_user_ms =
        cpu[0] >= 0 ? cpu[0] / 1000 : ms_of(s->child.usage.ru_utime);
    r->cpu_sys_ms =
        cpu[1] >= 0 ? cpu[1] / 1000 : ms_of(s->child.usage.ru_stime);
    r->memory_peak_bytes = peak >= 0 ? peak
                           : s->child.usage.ru_maxrss > 0
                               ? (int64_t)s->child.usage.ru_maxrss * 1024
                               : -1;
}

void bsh__report_finish(struct bsh_stream *s, const struct bsh_item *status)
{
    struct bsh_report *r = &s->report;
    r->wall_ms = -mono_ns_until(s->started) / 1000000;
    if (status != NULL) {
        r->has_exit_code = status->has_exit_code;
        r->exit_code = status->exit_code;
        r->has_signal = status->has_signal;
        r->signal = status->signal;
    }
    r->stdout_bytes = s->bytes[0];
    r->stderr_bytes = s->bytes[1];
    fill_usage(s, r);
    r->limit =
        s->limit_hit != BSH_LIMIT_NONE ? s->limit_hit : kernel_limit(s, r);
    if (r->limit != BSH_LIMIT_NONE)
        s->end_reason = BSH_END_LIMIT;
    bsh__contain_release_limits(&s->contain);
    r->reason = s->end_reason;
    r->killed = s->killed;
    r->containment =
        s->contain.cgroup.dir >= 0 ? BSH_CONTAIN_CGROUP : BSH_CONTAIN_SESSION;
    /* Without a report asked for, no wait: what is still dying is removed
     * by a later sweep, and the count is unknown. */
    int left =
        bsh__contain_release(&s->contain, s->want_report ? GONE_WAIT_MS : 0);
    if (r->containment == BSH_CONTAIN_CGROUP)
        r->escaped = s->want_report || left == 0 ? left : -1;
    else /* the session alone cannot see what left it: known survivors,
            or unknown, never a 0 it could not check */
        r->escaped = left > 0 ? left : -1;
    s->has_report = true;
}

const struct bsh_report *bsh_stream_report(const struct bsh_stream *s)
{
    return s != NULL && s->has_report ? &s->report : NULL;
}

const char *bsh_end_reason_name(enum bsh_end_reason reason)
{
    static const char *const names[] = {"",     "exit",   "signal", "timeout",
                                        "idle", "cancel", "limit"};
    return (unsigned)reason < sizeof(names) / sizeof(names[0]) ? names[reason]
                                                               : "";
}

const char *bsh_limit_name(enum bsh_limit limit)
{
    static const char *const names[] = {NULL,  "memory", "pids",
                                        "cpu", "fsize",  "output"};
    return (unsigned)limit < sizeof(names) / sizeof(names[0]) ? names[limit]
                                                              : NULL;
}
