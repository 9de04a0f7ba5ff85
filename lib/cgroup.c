/* SPDX-License-Identifier: MIT */
/*
 * A cgroup v2 per run. Unlike a process group or a session, a cgroup
 * cannot be left: `setsid`, double forks and daemon(3) stay inside it,
 * and cgroup.kill ends all of them at once, even those that keep forking.
 *
 * Where: under the cgroup this process is in, read from /proc/self/cgroup
 * and the cgroup2 mount in /proc/self/mountinfo (found once). Root may
 * write there; a user may where systemd delegated the subtree, e.g. under
 * `systemd-run --user --scope -p Delegate=yes`. A cgroup with processes
 * of its own may still have child cgroups as long as it enables no
 * controllers for them, so no process needs to move.
 */
#define _GNU_SOURCE
#include "cgroup.h"
#include "cgroup_pool.h"
#include "cgroupfs.h"
#include "internal.h"

#include <dirent.h>
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

void bsh__cgroup_init(struct bsh__cgroup *cg)
{
    memset(cg, 0, sizeof(*cg));
    cg->dir = cg->parent = -1;
    cg->name[0] = '\0';
}

/* ---- one run's cgroup --------------------------------------------------- */

/* Our own cgroup, where runs' cgroups are made unless the caller names a
 * parent; on first use, what a dead process of ours left there goes. */
static pthread_once_t own_once = PTHREAD_ONCE_INIT;

static void open_own(void)
{
    const char *own = bsh__cgroup_own();
    if (own != NULL)
        bsh__cgroup_remove_stale(own);
}

static ssize_t read_file(const struct bsh__cgroup *cg, const char *file,
                         char *buf, size_t size)
{
    return bsh__read_file(cg->dir, file, buf, size);
}

/* The directory a caller named for runs' cgroups. */
static int open_parent(const char *parent, char *why, size_t len)
{
    int fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0)
        return fd;
    int err = -errno;
    bsh__format(why, len, "cannot open cgroup '%s': %s", parent,
                strerror(-err));
    return err;
}

static void release_parent(struct bsh__cgroup *cg)
{
    cg->parent = bsh__close(cg->parent);
}

/* Where the run's cgroup directory is named from: `*at` and the returned
 * name, for the *at() calls. Its parent's fd and its name, or, for one in
 * our own cgroup (whose parent is not opened), AT_FDCWD and its path,
 * written into `path`. */
static const char *locate(const struct bsh__cgroup *cg, int *at, char *path,
                          size_t size)
{
    *at = cg->parent >= 0 ? cg->parent : AT_FDCWD;
    if (cg->parent >= 0)
        return cg->name;
    bsh__cgroup_own_child(path, size, cg->name);
    return path;
}

static int make_dir(const struct bsh__cgroup *cg)
{
    char path[PATH_MAX + 64];
    int at;
    const char *name = locate(cg, &at, path, sizeof(path));
    return mkdirat(at, name, 0755) < 0 ? -errno : 0;
}

static int open_dir(const struct bsh__cgroup *cg)
{
    char path[PATH_MAX + 64];
    int at;
    const char *name = locate(cg, &at, path, sizeof(path));
    int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

/* rmdir of the run's cgroup directory, with what the run made below it:
 * 0, or -errno. */
static int remove_dir(const struct bsh__cgroup *cg)
{
    char path[PATH_MAX + 64];
    int at;
    const char *name = locate(cg, &at, path, sizeof(path));
    return bsh__cgroup_rmdir_at(at, name);
}

/* Empty cgroups of our own cgroup, with no controllers enabled (their
 * only state is cpu.stat, which a report reads as a difference). */
static struct bsh__cgroup_pool pool = BSH__CGROUP_POOL_INIT;

__attribute__((destructor)) static void pool_drain(void)
{
    bsh__cgroup_pool_drain(&pool, bsh__cgroup_own);
}

/* A cgroup from the pool, opened; false when there is none (or it was
 * removed meanwhile, by hand: then one is made). */
static bool take_from_pool(struct bsh__cgroup *cg)
{
    if (!bsh__cgroup_pool_take(&pool, cg->name))
        return false;
    char path[PATH_MAX + 64];
    bsh__cgroup_own_child(path, sizeof(path), cg->name);
    cg->dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return cg->dir >= 0;
}

int bsh__cgroup_make(struct bsh__cgroup *cg, const char *parent, char *why,
                     size_t len)
{
    static atomic_uint serial;
    cg->poolable = parent == NULL;
    cg->pool_checked = false;
    cg->controllers_read = false;
    if (cg->poolable) { /* in our own cgroup: made and opened by path */
        pthread_once(&own_once, open_own);
        if (bsh__cgroup_own() == NULL) {
            bsh__format(why, len, "no cgroup v2 hierarchy is mounted here");
            return -ENOENT;
        }
        if (take_from_pool(cg))
            return cg->pool_checked = true, 0;
    } else if ((cg->parent = open_parent(parent, why, len)) < 0) {
        int err = cg->parent;
        cg->parent = -1;
        return err;
    }
    for (int tries = 0; tries < 4; tries++) {
        bsh__format(cg->name, sizeof(cg->name), "bsh-%d-%u", (int)getpid(),
                    atomic_fetch_add(&serial, 1));
        int err = make_dir(cg);
        if (err == 0)
            break;
        if (err != -EEXIST) { /* EEXIST: left by an earlier process */
            bsh__format(why, len, "cannot make a cgroup for the run: %s",
                        strerror(-err));
            release_parent(cg);
            return err;
        }
    }
    cg->dir = open_dir(cg);
    if (cg->dir < 0) {
        int err = cg->dir;
        cg->dir = -1;
        bsh__format(why, len, "cannot open the run's cgroup: %s",
                    strerror(-err));
        remove_dir(cg);
        release_parent(cg);
        return err;
    }
    return 0;
}

bool bsh__cgroup_has(struct bsh__cgroup *cg, const char *controller)
{
    /* Read once per run: asked for each limit, and for each default. */
    const char *text = cg->controllers;
    if (!cg->controllers_read) {
        cg->controllers_read = true;
        if (read_file(cg, "cgroup.controllers", cg->controllers,
                      sizeof(cg->controllers)) < 0)
            cg->controllers[0] = '\0';
    }
    size_t len = strlen(controller);
    for (const char *p = text; (p = strstr(p, controller)) != NULL; p += len)
        if ((p == text || p[-1] == ' ') &&
            (p[len] == ' ' || p[len] == '\n' || p[len] == '\0'))
            return true;
    return false;
}

static int write_file(const struct bsh__cgroup *cg, const char *file,
                      const char *value)
{
    return bsh__cgroup_write_at(cg->dir, file, value);
}

/* One limit through its controller's file: 0, or -errno with the
 * reason. */
static int limit_by(struct bsh__cgroup *cg, const char *controller,
                    const char *file, int64_t value, char *why, size_t len)
{
    char text[32];
    if (!bsh__cgroup_has(cg, controller)) {
        bsh__format(why, len,
                    "cannot enforce the %s limit: the cgroup v2 %s controller "
                    "is not enabled for the run's cgroup",
                    controller, controller);
        return -EOPNOTSUPP;
    }
    bsh__format(text, sizeof(text), "%lld", (long long)value);
    int err = write_file(cg, file, text);
    if (err < 0)
        bsh__format(why, len, "cannot enforce the %s limit: %s", controller,
                    strerror(-err));
    return err;
}

int bsh__cgroup_set_limits(struct bsh__cgroup *cg, const struct bsh_limits *l,
                           char *why, size_t len)
{
    int err = 0;
    if (l->memory_bytes > 0) {
        err = limit_by(cg, "memory", "memory.max", l->memory_bytes, why, len);
        if (err < 0)
            return err;
        /* Swap would let the run outgrow its memory limit. */
        write_file(cg, "memory.swap.max", "0");
    }
    if (l->pids > 0 &&
        (err = limit_by(cg, "pids", "pids.max", l->pids, why, len)) < 0)
        return err;
    if (l->memory_bytes > 0 || l->pids > 0)
        cg->poolable = false; /* its limits are this run's */
    return 0;
}

int bsh__cgroup_pids(const struct bsh__cgroup *cg, int *pids, int max)
{
    return bsh__cgroup_pids_at(cg->dir, pids, max);
}

int bsh__cgroup_count(const struct bsh__cgroup *cg)
{
    return bsh__cgroup_pids(cg, NULL, INT_MAX);
}

int bsh__cgroup_kill(struct bsh__cgroup *cg)
{
    /* An empty cgroup needs no kill, and stays fit for the pool: the
     * kernel kills every child cloned into a cgroup that was once killed
     * (CLONE_INTO_CGROUP compares the kill count with its parent's). No
     * process can enter an empty cgroup but through us. */
    if (cg->emptied ||
        bsh__cgroup_stat(cg, "cgroup.events", "populated") == 0) {
        cg->emptied = true;
        return 0;
    }
    cg->killed = true;
    if (write_file(cg, "cgroup.kill", "1") == 0)
        return 0;
    /* Kernels before 5.14 have no cgroup.kill: kill each process; one
     * that forks meanwhile is caught on the next pass of the wait. */
    return bsh__cgroup_kill_each(cg->dir);
}

int64_t bsh__cgroup_stat(const struct bsh__cgroup *cg, const char *file,
                         const char *key)
{
    int64_t v;
    bsh__cgroup_stats_at(cg->dir, file, &key, &v, 1);
    return v;
}

void bsh__cgroup_cpu(const struct bsh__cgroup *cg, int64_t usec[2])
{
    static const char *const keys[] = {"user_usec", "system_usec"};
    bsh__cgroup_stats_at(cg->dir, "cpu.stat", keys, usec, 2);
}

int64_t bsh__cgroup_value(const struct bsh__cgroup *cg, const char *file)
{
    char text[64];
    if (cg->dir < 0 || read_file(cg, file, text, sizeof(text)) <= 0)
        return -1;
    return strtoll(text, NULL, 10);
}

/* What is left in a run's cgroup at its removal: killed, and counted. */
static int end_left(void *ctx)
{
    struct bsh__cgroup *cg = ctx;
    int left = bsh__cgroup_count(cg);
    if (left > 0)
        bsh__cgroup_kill(cg);
    return left;
}

/* A run's cgroup may serve the next run when it was made in our own
 * cgroup, was not killed, is empty, has no cgroup below it (a run that may
 * write the cgroup file system can make one), and has no controllers
 * (whose state and limits would carry over). The last is read only for a
 * cgroup that is about to go in, not for every cgroup a burst of runs
 * makes. */
static bool fit_for_pool(struct bsh__cgroup *cg)
{
    char controllers[256];
    struct stat st;
    return cg->poolable && !cg->killed &&
           (cg->emptied ||
            bsh__cgroup_stat(cg, "cgroup.events", "populated") == 0) &&
           fstat(cg->dir, &st) == 0 && st.st_nlink == 2 &&
           bsh__cgroup_pool_has_room(&pool) &&
           (cg->pool_checked ||
            (read_file(cg, "cgroup.controllers", controllers,
                       sizeof(controllers)) >= 0 &&
             controllers[0] == '\0'));
}

int bsh__cgroup_remove(struct bsh__cgroup *cg, int wait_ms)
{
    if (cg->dir < 0)
        return 0;
    if (fit_for_pool(cg) && bsh__cgroup_pool_give(&pool, cg->name)) {
        cg->dir = bsh__close(cg->dir);
        release_parent(cg);
        return 0;
    }
    if (cg->parent < 0) { /* in our own cgroup: by path, if it is empty */
        if (remove_dir(cg) != -EBUSY) {
            cg->dir = bsh__close(cg->dir);
            return 0;
        }
        cg->parent =
            open(bsh__cgroup_own(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    int left = bsh__cgroup_rmdir(&cg->parent, cg->name, wait_ms, end_left, cg);
    cg->dir = bsh__close(cg->dir);
    release_parent(cg);
    return left;
}
