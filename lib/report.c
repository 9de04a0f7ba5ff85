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

/* The run's processes from its cgroup, else from its session scan (which
 * can leave out the leader). */
static int members(const struct bsh_stream *s, bool others, int *pids, int max)
{
    if (s->cgroup.dir >= 0)
        return bsh__cgroup_pids(&s->cgroup, pids, max);
    if (s->sid <= 0)
        return 0;
    return others ? bsh__session_others(s->sid, pids, max)
                  : bsh__session_pids(s->sid, pids, max);
}

int bsh__run_pids(const struct bsh_stream *s, int *pids, int max)
{
    return members(s, false, pids, max);
}

int bsh__run_others(const struct bsh_stream *s, int *pids, int max)
{
    return members(s, true, pids, max);
}

void bsh__report_diagnose(struct bsh_stream *s)
{
    if (!s->want_report || s->diagnosis != NULL)
        return;
    int pids[DIAGNOSIS_MAX];
    int n = bsh__run_pids(s, pids, DIAGNOSIS_MAX);
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

/* Session mode: processes of the run's session still alive after the
 * kill (waiting a little for the killed to go). */
static int session_left(int sid)
{
    int left = 0;
    for (int waited = 0; waited <= GONE_WAIT_MS; waited++) {
        left = bsh__session_pids(sid, NULL, 1 << 20);
        if (left == 0)
            break;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    return left;
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
    if (s->limits.memory_bytes > 0 &&
        (bsh__cgroup_stat(&s->cgroup, "memory.events", "oom_kill") > 0 ||
         bsh__v1_oom_kills(&s->v1) > 0))
        return BSH_LIMIT_MEMORY;
    if (s->limits.pids > 0 &&
        (bsh__cgroup_stat(&s->cgroup, "pids.events", "max") > 0 ||
         bsh__v1_pids_refused(&s->v1) > 0))
        return BSH_LIMIT_PIDS;
    return BSH_LIMIT_NONE;
}

/* CPU and memory: of the whole cgroup for a caller that asked for the
 * report (it costs two file reads), else of bash and what it waited for. */
static void fill_usage(const struct bsh_stream *s, struct bsh_report *r)
{
    int64_t cpu[2] = {-1, -1}, peak = -1;
    if (s->want_report && s->cgroup.dir >= 0) {
        bsh__cgroup_cpu(&s->cgroup, cpu);
        peak = bsh__cgroup_value(&s->cgroup, "memory.peak");
    }
    if (s->want_report && peak < 0)
        peak = bsh__v1_memory_peak(&s->v1);
    /* A pooled cgroup has served runs before: count from this one's start. */
    r->cpu_user_ms = cpu[0] >= 0 ? (cpu[0] - s->cgroup.base_cpu[0]) / 1000
                                 : ms_of(s->child.usage.ru_utime);
    r->cpu_sys_ms = cpu[1] >= 0 ? (cpu[1] - s->cgroup.base_cpu[1]) / 1000
                                : ms_of(s->child.usage.ru_stime);
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
    bsh__v1_remove(&s->v1);
    r->reason = s->end_reason;
    r->killed = s->killed;
    if (s->cgroup.dir >= 0) {
        /* Without a report asked for, no wait: what is still dying is
         * removed by a later sweep, and the count is unknown. */
        r->containment = BSH_CONTAIN_CGROUP;
        int left =
            bsh__cgroup_remove(&s->cgroup, s->want_report ? GONE_WAIT_MS : 0);
        r->escaped = s->want_report || left == 0 ? left : -1;
    } else {
        /* The session alone cannot see what left it: known survivors, or
         * unknown, never a 0 it could not check. */
        r->containment = BSH_CONTAIN_SESSION;
        int left = s->want_report ? session_left(s->sid) : 0;
        r->escaped = left > 0 ? left : -1;
    }
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
