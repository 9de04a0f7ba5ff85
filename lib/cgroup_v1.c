/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "cgroup_v1.h"
#include "cgroup_pool.h"
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

/* Empty v1 cgroups that earlier runs left, per controller. Making and
 * removing a memory cgroup costs far more than a v2 cgroup: the kernel
 * sets up and later tears down its per-CPU state on a kernel thread. */
static struct bsh__cgroup_pool memory_pool = BSH__CGROUP_POOL_INIT,
                               pids_pool = BSH__CGROUP_POOL_INIT;

/* A memory cgroup goes to the pool only while at most this much is still
 * charged to it (page cache the run read or wrote, files it left in a
 * tmpfs): more would count against the next run's limit and blur its
 * peak. A run whose limit is less than POOL_LIMIT_SHARE times what is
 * left gets a new cgroup instead. */
#define POOL_MEMORY_LEFT (1 << 20)
#define POOL_LIMIT_SHARE 16

static const char *memory_dir(void)
{
    return memory_home[0] != '\0' ? memory_home : NULL;
}

static const char *pids_dir(void)
{
    return pids_home[0] != '\0' ? pids_home : NULL;
}

__attribute__((destructor)) static void pools_drain(void)
{
    bsh__cgroup_pool_drain(&memory_pool, memory_dir);
    bsh__cgroup_pool_drain(&pids_pool, pids_dir);
}

static bool is_memory(const struct bsh__v1_group *g)
{
    return strcmp(g->controller, "memory") == 0;
}

static struct bsh__cgroup_pool *pool_of(const struct bsh__v1_group *g)
{
    return is_memory(g) ? &memory_pool : &pids_pool;
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

/* The number after `key` in a "key value" file of `g`; -1 when none. */
static int64_t group_stat(const struct bsh__v1_group *g, const char *file,
                          const char *key)
{
    int64_t value;
    bsh__cgroup_stats_at(g->dir, file, &key, &value, 1);
    return value;
}

/* A number file of `g` (memory.usage_in_bytes...); -1 when unknown. */
static int64_t group_number(const struct bsh__v1_group *g, const char *file)
{
    char text[32];
    if (g->dir < 0 || bsh__read_file(g->dir, file, text, sizeof(text)) <= 0)
        return -1;
    return strtoll(text, NULL, 10);
}

void bsh__v1_init(struct bsh__v1 *v)
{
    group_init(&v->memory);
    group_init(&v->pids);
    v->pooled = false;
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

/* Opens the cgroup `g->name`: 0, or -errno. */
static int group_open(struct bsh__v1_group *g)
{
    g->dir = openat(g->parent, g->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (g->dir < 0)
        return -errno;
    int fd = openat(g->dir, "cgroup.procs", O_WRONLY | O_CLOEXEC);
    fd = fd < 0 ? -errno : bsh__above_stdio(fd);
    if (fd < 0)
        return fd;
    g->procs = fd;
    return 0;
}

/* Where the counts of a pooled `g` stand before this run: the memory
 * peak starts again from what is charged now. */
static void group_mark_start(struct bsh__v1_group *g)
{
    if (is_memory(g)) {
        bsh__cgroup_write_at(g->dir, "memory.max_usage_in_bytes", "0");
        g->usage_base = group_number(g, "memory.usage_in_bytes");
        g->count_base = group_stat(g, "memory.oom_control", "oom_kill");
    } else {
        g->count_base = group_stat(g, "pids.events", "max");
    }
    if (g->usage_base < 0)
        g->usage_base = 0;
    if (g->count_base < 0)
        g->count_base = 0;
}

/* A cgroup from the pool, opened, for a run limited to `limit`; false
 * when there is none. One removed by hand meanwhile is passed over; one
 * with too much left charged for so small a limit is removed. */
static bool group_take_pooled(struct bsh__v1_group *g, int64_t limit)
{
    while (bsh__cgroup_pool_take(pool_of(g), g->name)) {
        if (group_open(g) == 0) {
            group_mark_start(g);
            if (!is_memory(g) || g->usage_base * POOL_LIMIT_SHARE <= limit)
                return true;
            unlinkat(g->parent, g->name, AT_REMOVEDIR);
        }
        g->procs = bsh__close(g->procs);
        g->dir = bsh__close(g->dir);
    }
    return false;
}

/* Makes `g` in `home` for `controller` with `limit` (or takes one from
 * the pool when `pooled`): 0, or -errno. */
static int group_make(struct bsh__v1_group *g, const char *controller,
                      const char *home, int64_t limit, bool pooled)
{
    static atomic_uint serial;
    g->controller = controller;
    g->parent = open(home, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (g->parent < 0)
        return -errno;
    if (pooled && group_take_pooled(g, limit))
        return 0;
    g->count_base = g->usage_base = 0; /* a new cgroup counts from 0 */
    bsh__format(g->name, sizeof(g->name), "bsh-%d-v1-%u", (int)getpid(),
                atomic_fetch_add(&serial, 1));
    if (mkdirat(g->parent, g->name, 0755) < 0)
        return -errno;
    int err = group_open(g);
    if (err < 0)
        unlinkat(g->parent, g->name, AT_REMOVEDIR);
    return err;
}

/* Fills `why` for a limit that cannot be had (-errno `err`), undoes what
 * was made, and hands `err` back. */
static int refuse(struct bsh__v1 *v, bool v2_cgroup, const char *limit, int err,
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
    return err;
}

/* memory.limit_in_bytes may never be above memory.memsw.limit_in_bytes
 * (where swap is accounted): a pooled cgroup's bound is raised swap
 * first. Memory and swap together get the same bound, or swap would let
 * the run outgrow its limit. */
static int set_memory_limit(int dir, int64_t bytes)
{
    int err = write_value(dir, "memory.limit_in_bytes", bytes);
    if (err < 0 &&
        (write_value(dir, "memory.memsw.limit_in_bytes", bytes) < 0 ||
         write_value(dir, "memory.limit_in_bytes", bytes) < 0))
        return err;
    write_value(dir, "memory.memsw.limit_in_bytes", bytes);
    return 0;
}

static int set_pids_limit(int dir, int64_t pids)
{
    return write_value(dir, "pids.max", pids);
}

static int make_limited(struct bsh__v1 *v, bool v2_cgroup,
                        struct bsh__v1_group *g, const char *controller,
                        const char *home, int (*set)(int dir, int64_t value),
                        int64_t value, char *why, size_t len)
{
    char reason[256];
    if (home[0] == '\0') {
        bsh__format(reason, sizeof(reason),
                    "no cgroup v1 %s hierarchy is mounted here", controller);
        return refuse(v, v2_cgroup, controller, -ENOENT, reason, why, len);
    }
    int err = group_make(g, controller, home, value, v->pooled);
    if (err == 0)
        err = set(g->dir, value);
    if (err < 0) {
        bsh__format(reason, sizeof(reason),
                    "its cgroup v1 hierarchy cannot be used: %s",
                    strerror(-err));
        return refuse(v, v2_cgroup, controller, err, reason, why, len);
    }
    return 0;
}

int bsh__v1_make(struct bsh__v1 *v, bool v2_cgroup, int64_t memory_bytes,
                 int64_t pids, bool sandboxed, char *why, size_t len)
{
    pthread_once(&homes_once, find_homes);
    v->pooled = sandboxed;
    int err = 0;
    if (memory_bytes > 0)
        err = make_limited(v, v2_cgroup, &v->memory, "memory", memory_home,
                           set_memory_limit, memory_bytes, why, len);
    if (err == 0 && pids > 0)
        err = make_limited(v, v2_cgroup, &v->pids, "pids", pids_home,
                           set_pids_limit, pids, why, len);
    return err;
}

void bsh__v1_procs(const struct bsh__v1 *v, int fds[2])
{
    fds[0] = v->memory.procs;
    fds[1] = v->pids.procs;
}

/* A count of `g` since this run began; -1 when unknown. */
static int64_t group_count(const struct bsh__v1_group *g, const char *file,
                           const char *key)
{
    int64_t value = group_stat(g, file, key);
    return value >= g->count_base ? value - g->count_base : value;
}

int64_t bsh__v1_oom_kills(const struct bsh__v1 *v)
{
    return group_count(&v->memory, "memory.oom_control", "oom_kill");
}

int64_t bsh__v1_pids_refused(const struct bsh__v1 *v)
{
    return group_count(&v->pids, "pids.events", "max");
}

int64_t bsh__v1_memory_peak(const struct bsh__v1 *v)
{
    int64_t peak = group_number(&v->memory, "memory.max_usage_in_bytes");
    return peak > v->memory.usage_base ? peak - v->memory.usage_base
                                       : (peak < 0 ? -1 : 0);
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

/* Whether `g` may serve the next run: nothing is in it, not even a task
 * that is dying (pids.current), nor a cgroup below it (a directory of
 * its own has 2 links), and a memory cgroup has little charged to it. */
static bool group_fit_for_pool(const struct bsh__v1_group *g)
{
    char member[16];
    struct stat st;
    if (bsh__read_file(g->dir, "cgroup.procs", member, sizeof(member)) != 0 ||
        fstat(g->dir, &st) < 0 || st.st_nlink != 2)
        return false;
    int64_t left = group_number(g, is_memory(g) ? "memory.usage_in_bytes"
                                                : "pids.current");
    if (left < 0 || left > (is_memory(g) ? POOL_MEMORY_LEFT : 0))
        return false;
    return bsh__cgroup_pool_has_room(pool_of(g));
}

static void group_remove(struct bsh__v1_group *g, bool pooled)
{
    if (g->parent < 0 || g->name[0] == '\0' || g->dir < 0) {
        group_release(g);
        return;
    }
    if (pooled && group_fit_for_pool(g) &&
        bsh__cgroup_pool_give(pool_of(g), g->name)) {
        group_release(g);
        return;
    }
    g->procs = bsh__close(g->procs);
    bsh__cgroup_rmdir(&g->parent, g->name, V1_GONE_WAIT_MS, end_left, g);
    group_release(g);
}

void bsh__v1_remove(struct bsh__v1 *v)
{
    group_remove(&v->memory, v->pooled);
    group_remove(&v->pids, v->pooled);
}
