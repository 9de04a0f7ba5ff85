/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "cgroup_v1.h"
#include "cgroupfs.h"
#include "graveyard.h"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- where this process's v1 cgroups are --------------------------------- */

static char memory_home[PATH_MAX], pids_home[PATH_MAX]; /* "": none */
static pthread_once_t homes_once = PTHREAD_ONCE_INIT;

static void find_homes(void)
{
    bsh__cgroup_home("memory", memory_home, sizeof(memory_home));
    bsh__cgroup_home("pids", pids_home, sizeof(pids_home));
    if (memory_home[0] != '\0')
        bsh__cgroup_remove_stale(memory_home);
    if (pids_home[0] != '\0')
        bsh__cgroup_remove_stale(pids_home);
}

bool bsh__v1_available(const char *controller)
{
    pthread_once(&homes_once, find_homes);
    const char *home = strcmp(controller, "memory") == 0 ? memory_home
                       : strcmp(controller, "pids") == 0 ? pids_home
                                                         : "";
    return home[0] != '\0' && access(home, W_OK) == 0;
}

/* ---- a run's v1 cgroups ---------------------------------------------------
 */

static void group_init(struct bsh__v1_group *g)
{
    memset(g, 0, sizeof(*g));
    g->parent = g->dir = g->procs = -1;
}

void bsh__v1_init(struct bsh__v1 *v)
{
    group_init(&v->memory);
    group_init(&v->pids);
}

static int write_value(int dir, const char *file, int64_t value)
{
    char text[32];
    bsh__format(text, sizeof(text), "%lld", (long long)value);
    return bsh__cgroup_write_at(dir, file, text);
}

static void group_release(struct bsh__v1_group *g)
{
    g->procs = bsh__close(g->procs);
    g->dir = bsh__close(g->dir);
    g->parent = bsh__close(g->parent);
    g->controller = NULL;
}

/* Makes `g` in `home` for `controller`: 0, or -1 with errno. */
static int group_make(struct bsh__v1_group *g, const char *controller,
                      const char *home)
{
    static atomic_uint serial;
    g->controller = controller;
    g->parent = open(home, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (g->parent < 0)
        return -1;
    bsh__format(g->name, sizeof(g->name), "bsh-%d-v1-%u", (int)getpid(),
                atomic_fetch_add(&serial, 1));
    if (mkdirat(g->parent, g->name, 0755) < 0)
        return -1;
    g->dir = openat(g->parent, g->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (g->dir >= 0)
        g->procs = bsh__above_stdio(
            openat(g->dir, "cgroup.procs", O_WRONLY | O_CLOEXEC));
    if (g->procs < 0) {
        int saved = errno;
        unlinkat(g->parent, g->name, AT_REMOVEDIR);
        errno = saved;
        return -1;
    }
    return 0;
}

/* Fills `why` for a limit that cannot be had, undoes what was made. */
static int refuse(struct bsh__v1 *v, bool v2_cgroup, const char *limit,
                  const char *reason, char *why, size_t len)
{
    char v2[128];
    if (v2_cgroup)
        bsh__format(v2, sizeof(v2),
                    "the cgroup v2 %s controller is not enabled for the run's "
                    "cgroup",
                    limit);
    else
        bsh__format(v2, sizeof(v2), "the run has no cgroup v2 of its own");
    bsh__format(why, len, "cannot enforce the %s limit: %s, and %s", limit, v2,
                reason);
    bsh__v1_remove(v);
    return -1;
}

static int make_limited(struct bsh__v1 *v, bool v2_cgroup,
                        struct bsh__v1_group *g, const char *controller,
                        const char *home, const char *file, int64_t value,
                        char *why, size_t len)
{
    char reason[256];
    if (home[0] == '\0') {
        bsh__format(reason, sizeof(reason),
                    "no cgroup v1 %s hierarchy is mounted here", controller);
        return refuse(v, v2_cgroup, controller, reason, why, len);
    }
    if (group_make(g, controller, home) < 0 ||
        write_value(g->dir, file, value) < 0) {
        bsh__format(reason, sizeof(reason),
                    "its cgroup v1 hierarchy cannot be used: %s",
                    strerror(errno));
        return refuse(v, v2_cgroup, controller, reason, why, len);
    }
    return 0;
}

int bsh__v1_make(struct bsh__v1 *v, bool v2_cgroup, int64_t memory_bytes,
                 int64_t pids, char *why, size_t len)
{
    pthread_once(&homes_once, find_homes);
    if (memory_bytes > 0) {
        if (make_limited(v, v2_cgroup, &v->memory, "memory", memory_home,
                         "memory.limit_in_bytes", memory_bytes, why, len) < 0)
            return -1;
        /* Swap would let the run outgrow its limit: memory and swap
         * together get the same bound (where swap is accounted). */
        write_value(v->memory.dir, "memory.memsw.limit_in_bytes", memory_bytes);
    }
    if (pids > 0 && make_limited(v, v2_cgroup, &v->pids, "pids", pids_home,
                                 "pids.max", pids, why, len) < 0)
        return -1;
    return 0;
}

void bsh__v1_procs(const struct bsh__v1 *v, int fds[2])
{
    fds[0] = v->memory.procs;
    fds[1] = v->pids.procs;
}

/* The number after `key` in a "key value" file of `g`; -1 when none. */
static int64_t group_stat(const struct bsh__v1_group *g, const char *file,
                          const char *key)
{
    int64_t value;
    bsh__cgroup_stats_at(g->dir, file, &key, &value, 1);
    return value;
}

int64_t bsh__v1_oom_kills(const struct bsh__v1 *v)
{
    return group_stat(&v->memory, "memory.oom_control", "oom_kill");
}

int64_t bsh__v1_pids_refused(const struct bsh__v1 *v)
{
    return group_stat(&v->pids, "pids.events", "max");
}

int64_t bsh__v1_memory_peak(const struct bsh__v1 *v)
{
    char text[32];
    if (v->memory.dir < 0 ||
        bsh__read_file(v->memory.dir, "memory.max_usage_in_bytes", text,
                       sizeof(text)) <= 0)
        return -1;
    return strtoll(text, NULL, 10);
}

/* How long the removal waits for killed processes to be gone. */
#define V1_GONE_WAIT_MS 20

/* What is left in a v1 cgroup at its removal: killed one by one (v1 has
 * no cgroup.kill). */
static int end_left(void *ctx)
{
    const struct bsh__v1_group *g = ctx;
    bsh__cgroup_kill_each(g->dir);
    return 0;
}

static void group_remove(struct bsh__v1_group *g)
{
    if (g->parent < 0 || g->name[0] == '\0' || g->dir < 0) {
        group_release(g);
        return;
    }
    g->procs = bsh__close(g->procs);
    bsh__cgroup_rmdir(&g->parent, g->name, V1_GONE_WAIT_MS, end_left, g);
    group_release(g);
}

void bsh__v1_remove(struct bsh__v1 *v)
{
    group_remove(&v->memory);
    group_remove(&v->pids);
}
