/* SPDX-License-Identifier: MIT */
/*
 * The end report of a run: why it ended, what it cost, what bsh had to
 * kill, and, for a run that bsh ended, what its processes were doing just
 * before. What is cheap is always filled (the clock, the counters, the
 * cgroup's files); what scans /proc only for callers that ask.
 */
#define _GNU_SOURCE
#include "report.h"
#include "mono.h"
#include "procinfo.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How many processes a diagnosis describes at most. */
#define DIAGNOSIS_MAX 32

struct bsh_proc_info *bsh__report_diagnose(const struct bsh__contain *c,
                                           size_t *count)
{
    int pids[DIAGNOSIS_MAX];
    int n = bsh__contain_pids(c, false, pids, DIAGNOSIS_MAX);
    struct bsh_proc_info *info = calloc(n > 0 ? (size_t)n : 1, sizeof(*info));
    *count = 0;
    if (info == NULL)
        return NULL;
    for (int i = 0; i < n; i++)
        if (bsh__proc_describe(pids[i], &info[*count]))
            ++*count;
    return info;
}

static int64_t ms_of(struct timeval tv)
{
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* The limit that the kernel enforced, from the status and the cgroup. */
static enum bsh_limit kernel_limit(const struct bsh__report_input *in,
                                   const struct bsh_report *r)
{
    const struct bsh_limits *l = in->limits;
    int sig = r->has_signal                            ? r->signal
              : r->has_exit_code && r->exit_code > 128 ? r->exit_code - 128
                                                       : 0;
    if (l->cpu_seconds > 0 &&
        (sig == SIGXCPU || (sig == SIGKILL && r->cpu_user_ms + r->cpu_sys_ms >=
                                                  l->cpu_seconds * 1000)))
        return BSH_LIMIT_CPU;
    if (l->fsize_bytes > 0 && sig == SIGXFSZ)
        return BSH_LIMIT_FSIZE;
    if (l->memory_bytes > 0 && bsh__contain_oom_killed(in->contain))
        return BSH_LIMIT_MEMORY;
    if (l->pids > 0 && bsh__contain_pids_refused(in->contain))
        return BSH_LIMIT_PIDS;
    return BSH_LIMIT_NONE;
}

/* CPU and memory: of the whole cgroup for a caller that asked for the
 * report (it costs two file reads), else of bash and what it waited for. */
static void fill_usage(const struct bsh__report_input *in, struct bsh_report *r)
{
    const struct rusage *u = &in->child->usage;
    int64_t cpu[2] = {-1, -1}, peak = -1;
    if (in->costly)
        bsh__contain_usage(in->contain, cpu, &peak);
    r->cpu_user_ms = cpu[0] >= 0 ? cpu[0] / 1000 : ms_of(u->ru_utime);
    r->cpu_sys_ms = cpu[1] >= 0 ? cpu[1] / 1000 : ms_of(u->ru_stime);
    r->memory_peak_bytes = peak >= 0          ? peak
                           : u->ru_maxrss > 0 ? (int64_t)u->ru_maxrss * 1024
                                              : -1;
}

void bsh__report_fill(struct bsh_report *r, const struct bsh__report_input *in,
                      const struct bsh_item *status)
{
    r->wall_ms = -mono_ns_until(in->started) / 1000000;
    if (status != NULL) {
        r->has_exit_code = status->has_exit_code;
        r->exit_code = status->exit_code;
        r->has_signal = status->has_signal;
        r->signal = status->signal;
    }
    r->stdout_bytes = in->outputs->bytes[0];
    r->stderr_bytes = in->outputs->bytes[1];
    fill_usage(in, r);
    r->limit = in->outputs->limit_hit ? BSH_LIMIT_OUTPUT : kernel_limit(in, r);
    r->containment =
        in->contain->cgroup.dir >= 0 ? BSH_CONTAIN_CGROUP : BSH_CONTAIN_SESSION;
}

void bsh__report_escaped(struct bsh_report *r, int left, bool waited)
{
    /* Without a wait, what is still dying is removed by a later sweep, and
     * the count is unknown. */
    if (r->containment == BSH_CONTAIN_CGROUP)
        r->escaped = waited || left == 0 ? left : -1;
    else /* the session alone cannot see what left it: known survivors,
            or unknown, never a 0 it could not check */
        r->escaped = left > 0 ? left : -1;
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
