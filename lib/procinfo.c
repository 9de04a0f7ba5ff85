/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "procinfo.h"
#include "internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Past this many pids since the run began, reading /proc is cheaper. */
#define SESSION_SCAN_MAX 4096

/* /proc/PID/stat after the command name, which may hold spaces and
 * parentheses: "S PPID PGRP SID ...". False when the process is gone. */
static bool read_stat(int pid, char *comm, size_t len, char *state, int *ppid,
                      int *pgrp, int *sid)
{
    char path[64], text[1024];
    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    if (bsh__read_file(AT_FDCWD, path, text, sizeof(text)) <= 0)
        return false;
    char *open_paren = strchr(text, '('), *close_paren = strrchr(text, ')');
    if (open_paren == NULL || close_paren == NULL)
        return false;
    if (comm != NULL)
        bsh__format(comm, len, "%.*s", (int)(close_paren - open_paren - 1),
                    open_paren + 1);
    /* ") S PPID PGRP SID" */
    const char *f = close_paren + 2;
    char *end;
    if (*f == '\0')
        return false;
    *state = *f++;
    long v[3];
    for (int i = 0; i < 3; i++, f = end) {
        v[i] = strtol(f, &end, 10);
        if (end == f)
            return false;
    }
    *ppid = (int)v[0];
    if (pgrp != NULL)
        *pgrp = (int)v[1];
    *sid = (int)v[2];
    return true;
}

bool bsh__proc_stat(int pid, char *state, int *pgrp)
{
    int ppid, sid;
    return read_stat(pid, NULL, 0, state, &ppid, pgrp, &sid);
}

/* The last pid handed out in our pid namespace, or -1. */
static int last_pid(void)
{
    char text[32];
    if (bsh__read_file(AT_FDCWD, "/proc/sys/kernel/ns_last_pid", text,
                       sizeof(text)) <= 0)
        return -1;
    return (int)strtol(text, NULL, 10);
}

/* Whether `pid` is a live member of session `sid`. getsid() first: one
 * system call, where reading /proc costs three. */
static bool in_session(int pid, int sid)
{
    if (getsid(pid) != sid)
        return false;
    char state;
    int ppid, s;
    return read_stat(pid, NULL, 0, &state, &ppid, NULL, &s) && s == sid &&
           state != 'Z';
}

/* ---- the leaders of this process's runs ----------------------------------
 *
 * A scan of the pids handed out since a run began meets, when many runs
 * start together, mostly the leaders of the others: each leads a session
 * of its own, so it is skipped without a system call. A leader is known
 * from its start until it is reaped, so its pid cannot have been reused
 * meanwhile. The list belongs to the process that filled it: a forked
 * child starts anew. */

static int *leaders;
static size_t leader_count, leader_capacity;
static pid_t leaders_owner;
static pthread_mutex_t leaders_lock = PTHREAD_MUTEX_INITIALIZER;

/* Where `pid` is or would go in the sorted list. */
static size_t leader_slot(int pid)
{
    size_t lo = 0, hi = leader_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (leaders[mid] < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void own_leaders(void)
{
    if (leaders_owner != getpid()) {
        leaders_owner = getpid();
        leader_count = 0;
    }
}

void bsh__leader_add(int pid)
{
    pthread_mutex_lock(&leaders_lock);
    own_leaders();
    if (leader_count == leader_capacity) {
        size_t cap = leader_capacity ? leader_capacity * 2 : 64;
        int *grown = realloc(leaders, cap * sizeof(*grown));
        if (grown != NULL) {
            leaders = grown;
            leader_capacity = cap;
        }
    }
    if (leader_count < leader_capacity) { /* else: only scanned, not skipped */
        size_t at = leader_slot(pid);
        memmove(&leaders[at + 1], &leaders[at],
                (leader_count - at) * sizeof(*leaders));
        leaders[at] = pid;
        leader_count++;
    }
    pthread_mutex_unlock(&leaders_lock);
}

void bsh__leader_remove(int pid)
{
    pthread_mutex_lock(&leaders_lock); /* a forked child's copy: no harm */
    size_t at = leader_slot(pid);
    if (at < leader_count && leaders[at] == pid) {
        leader_count--;
        memmove(&leaders[at], &leaders[at + 1],
                (leader_count - at) * sizeof(*leaders));
    }
    pthread_mutex_unlock(&leaders_lock);
}

/* Whether `pid` leads another run of ours than session `sid`. `*at` is a
 * place in the sorted leader list at or below `pid` (start it at
 * leader_slot() of the first pid): a scan of ascending pids steps through
 * the list beside them instead of searching it per pid. Called with the
 * lock held and the list known to be this process's. */
static bool other_leader(size_t *at, int pid, int sid)
{
    while (*at < leader_count && leaders[*at] < pid)
        (*at)++;
    return pid != sid && *at < leader_count && leaders[*at] == pid;
}

/* ---- the members of a session ---------------------------------------------
 */

/* Every member of a run's session was made after its leader, so only the
 * pids handed out since then are looked at: a few for a short run, not
 * the whole of /proc. Past a wrap of the pid counter, /proc is read. */
static int scan_session(int sid, bool others, int *pids, int max)
{
    int last = last_pid(), n = 0;
    if (last >= sid && last - sid <= SESSION_SCAN_MAX) {
        if (others && last == sid)
            return 0; /* nothing was made after the leader */
        pthread_mutex_lock(&leaders_lock);
        bool listed = leaders_owner == getpid();
        int first = others ? sid + 1 : sid;
        size_t at = leader_slot(first);
        for (int pid = first; pid <= last && n < max; pid++)
            if (!(listed && other_leader(&at, pid, sid)) &&
                in_session(pid, sid)) {
                if (pids != NULL)
                    pids[n] = pid;
                n++;
            }
        pthread_mutex_unlock(&leaders_lock);
        return n;
    }
    DIR *d = opendir("/proc");
    if (d == NULL)
        return 0;
    struct dirent *e;
    while (n < max && (e = readdir(d)) != NULL) {
        int pid = (int)strtol(e->d_name, NULL, 10);
        if (pid > 0 && !(others && pid == sid) && in_session(pid, sid)) {
            if (pids != NULL)
                pids[n] = pid;
            n++;
        }
    }
    closedir(d);
    return n;
}

int bsh__session_pids(int sid, int *pids, int max)
{
    return scan_session(sid, false, pids, max);
}

int bsh__session_others(int sid, int *pids, int max)
{
    return scan_session(sid, true, pids, max);
}

static void read_line(const char *path, char *out, size_t len)
{
    if (bsh__read_file(AT_FDCWD, path, out, len) < 0)
        out[0] = '\0';
    out[strcspn(out, "\n")] = '\0';
}

bool bsh__proc_fd(int pid, long fd, char *buf, size_t size)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/fd/%ld", pid, fd);
    ssize_t n = readlink(path, buf, size - 1);
    buf[n > 0 ? n : 0] = '\0';
    return n > 0;
}

bool bsh__proc_describe(int pid, struct bsh_proc_info *info)
{
    memset(info, 0, sizeof(*info));
    int sid;
    if (!read_stat(pid, info->comm, sizeof(info->comm), &info->state,
                   &info->ppid, NULL, &sid))
        return false;
    info->pid = pid;
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
    read_line(path, info->wchan, sizeof(info->wchan));
    if (strcmp(info->wchan, "0") == 0)
        info->wchan[0] = '\0'; /* running, not sleeping */
    for (int fd = 0; fd < 3; fd++)
        bsh__proc_fd(pid, fd, info->fds[fd], sizeof(info->fds[fd]));
    return true;
}
