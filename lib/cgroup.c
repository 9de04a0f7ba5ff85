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
#include "graveyard.h"
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

/* ---- where this process's cgroup is ------------------------------------ */

static char own_path[PATH_MAX];
static int own_error; /* errno when it could not be found or opened */
static pthread_once_t own_once = PTHREAD_ONCE_INIT;

/* Whether the comma-separated `list` (`len` bytes) names `word`. */
static bool lists(const char *list, size_t len, const char *word)
{
    size_t wl = strlen(word);
    for (const char *p = list, *end = list + len; p < end;) {
        size_t n = strcspn(p, ",");
        if (n > (size_t)(end - p))
            n = (size_t)(end - p);
        if (n == wl && strncmp(p, word, wl) == 0)
            return true;
        p += n + 1;
    }
    return false;
}

/* The mount point and root of the hierarchy: cgroup2 (`controller`
 * NULL), or the v1 one holding `controller`. From mountinfo lines
 * "ID PARENT DEV ROOT POINT OPTS ... - TYPE SOURCE SUPER". */
static bool find_mount(char *mounts, const char *controller, char *point,
                       size_t size, char *root, size_t rsize)
{
    const char *type = controller == NULL ? " - cgroup2 " : " - cgroup ";
    char *save = NULL;
    for (char *line = strtok_r(mounts, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        char *dash = strstr(line, type);
        if (dash == NULL)
            continue;
        const char *super = strrchr(dash, ' ') + 1;
        char r[PATH_MAX], p[PATH_MAX];
        if ((controller == NULL || lists(super, strlen(super), controller)) &&
            sscanf(line, "%*s %*s %*s %4095s %4095s", r, p) == 2) {
            bsh__format(point, size, "%s", p);
            bsh__format(root, rsize, "%s", r);
            return true;
        }
    }
    return false;
}

/* This process's path in the hierarchy from /proc/self/cgroup lines
 * "ID:CONTROLLERS:PATH" (v2: "0::PATH"); its length, or -1. */
static int find_path(const char *cgroups, const char *controller,
                     const char **path)
{
    for (const char *line = cgroups; *line != '\0';) {
        size_t len = strcspn(line, "\n");
        const char *c = memchr(line, ':', len);
        const char *p =
            c != NULL ? memchr(c + 1, ':', len - (size_t)(c - line) - 1) : NULL;
        bool match =
            controller == NULL
                ? p == c + 1 && c == line + 1 && line[0] == '0'
                : p != NULL && lists(c + 1, (size_t)(p - c - 1), controller);
        if (match) {
            *path = p + 1;
            return (int)(len - (size_t)(p + 1 - line));
        }
        line += len + (line[len] == '\n');
    }
    return -1;
}

void bsh__cgroup_home(const char *controller, char *home, size_t size)
{
    home[0] = '\0';
    enum { MOUNTS_MAX = 65536 };
    char cgroups[4096], point[PATH_MAX], root[PATH_MAX];
    char *mounts = malloc(MOUNTS_MAX);
    const char *path;
    int len;
    if (mounts != NULL &&
        bsh__read_file(AT_FDCWD, "/proc/self/cgroup", cgroups,
                       sizeof(cgroups)) >= 0 &&
        bsh__read_file(AT_FDCWD, "/proc/self/mountinfo", mounts, MOUNTS_MAX) >=
            0 &&
        find_mount(mounts, controller, point, sizeof(point), root,
                   sizeof(root)) &&
        (len = find_path(cgroups, controller, &path)) >= 0) {
        int rl = strcmp(root, "/") == 0 ? 0 : (int)strlen(root);
        /* else our cgroup is outside what this namespace mounted */
        if (len >= rl && strncmp(path, root, (size_t)rl) == 0)
            bsh__format(home, size, "%s%.*s", point, len - rl, path + rl);
    }
    free(mounts);
}

static void find_own(void)
{
    bsh__cgroup_home(NULL, own_path, sizeof(own_path));
    own_error = own_path[0] != '\0' ? 0 : ENOENT;
}

/* ---- one run's cgroup --------------------------------------------------- */

static void open_own(void)
{
    find_own();
    if (own_error == 0)
        bsh__cgroup_remove_stale(own_path);
}

static ssize_t read_file(const struct bsh__cgroup *cg, const char *file,
                         char *buf, size_t size)
{
    return bsh__read_file(cg->dir, file, buf, size);
}

/* `name` in our own cgroup, as a path: runs' cgroups there are made,
 * opened and removed by path, without opening the parent. */
static void own_child(char *path, size_t size, const char *name)
{
    snprintf(path, size, "%s/%.63s", own_path, name);
}

/* ---- a pool of empty cgroups ------------------------------------------- */

/* Making and removing a cgroup costs the kernel about 80 us; a run that
 * ends with its cgroup empty leaves it here for the next run instead.
 * Only cgroups of our own cgroup with no controllers enabled are pooled
 * (their only state is cpu.stat, which a report reads as a difference).
 * The pool belongs to the process that filled it: a forked child starts
 * anew. What is left is removed at exit; cgroups left by a process that
 * died are removed by the next process's first run. */
#define POOL_MAX 8

static char pool[POOL_MAX][64]; /* names; no fd is held between runs */
static int pool_count;
static pid_t pool_owner;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

static bool pool_take(struct bsh__cgroup *cg)
{
    bool got = false;
    pthread_mutex_lock(&pool_lock);
    if (pool_owner == getpid() && pool_count > 0) {
        pool_count--;
        memcpy(cg->name, pool[pool_count], sizeof(cg->name));
        got = true;
    }
    pthread_mutex_unlock(&pool_lock);
    if (got) { /* gone meanwhile (removed by hand)? then make one */
        char path[PATH_MAX + 64];
        own_child(path, sizeof(path), cg->name);
        cg->dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        got = cg->dir >= 0;
    }
    return got;
}

static bool pool_has_room(void)
{
    pthread_mutex_lock(&pool_lock);
    bool room = pool_owner != getpid() || pool_count < POOL_MAX;
    pthread_mutex_unlock(&pool_lock);
    return room;
}

static bool pool_give(const struct bsh__cgroup *cg)
{
    bool kept = false;
    pthread_mutex_lock(&pool_lock);
    if (pool_owner != getpid()) {
        pool_owner = getpid();
        pool_count = 0; /* a forked child's copy: not ours to use */
    }
    if (pool_count < POOL_MAX) {
        memcpy(pool[pool_count++], cg->name, sizeof(cg->name));
        kept = true;
    }
    pthread_mutex_unlock(&pool_lock);
    return kept;
}

__attribute__((destructor)) static void pool_drain(void)
{
    pthread_mutex_lock(&pool_lock);
    char path[PATH_MAX + 128];
    for (int i = 0; pool_owner == getpid() && i < pool_count; i++) {
        own_child(path, sizeof(path), pool[i]);
        rmdir(path);
    }
    pool_count = 0;
    pthread_mutex_unlock(&pool_lock);
}

void bsh__cgroup_remove_stale(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (d == NULL) {
        bsh__close(fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long pid = strncmp(e->d_name, "bsh-", 4) == 0
                       ? strtol(e->d_name + 4, &end, 10)
                       : 0;
        if (pid > 0 && pid <= INT_MAX && *end == '-' &&
            kill((pid_t)pid, 0) < 0 && errno == ESRCH)
            unlinkat(fd, e->d_name, AT_REMOVEDIR);
    }
    closedir(d);
}

/* The directory a caller named for runs' cgroups. */
static int open_parent(const char *parent, char *why, size_t len)
{
    int fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        bsh__format(why, len, "cannot open cgroup '%s': %s", parent,
                    strerror(errno));
    return fd;
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
    own_child(path, size, cg->name);
    return path;
}

static int make_dir(const struct bsh__cgroup *cg)
{
    char path[PATH_MAX + 64];
    int at;
    const char *name = locate(cg, &at, path, sizeof(path));
    return mkdirat(at, name, 0755);
}

static int open_dir(const struct bsh__cgroup *cg)
{
    char path[PATH_MAX + 64];
    int at;
    const char *name = locate(cg, &at, path, sizeof(path));
    return openat(at, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* rmdir of the run's cgroup directory: 0, or -1 with errno. */
static int remove_dir(const struct bsh__cgroup *cg)
{
    char path[PATH_MAX + 64];
    int at;
    const char *name = locate(cg, &at, path, sizeof(path));
    return unlinkat(at, name, AT_REMOVEDIR);
}

int bsh__cgroup_make(struct bsh__cgroup *cg, const char *parent, char *why,
                     size_t len)
{
    static atomic_uint serial;
    cg->poolable = parent == NULL;
    cg->pool_checked = false;
    if (cg->poolable) { /* in our own cgroup: made and opened by path */
        pthread_once(&own_once, open_own);
        if (own_error != 0) {
            bsh__format(why, len, "no cgroup v2 hierarchy is mounted here");
            return -1;
        }
        if (pool_take(cg))
            return cg->pool_checked = true, 0;
    } else if ((cg->parent = open_parent(parent, why, len)) < 0) {
        return -1;
    }
    for (int tries = 0; tries < 4; tries++) {
        bsh__format(cg->name, sizeof(cg->name), "bsh-%d-%u", (int)getpid(),
                    atomic_fetch_add(&serial, 1));
        if (make_dir(cg) == 0)
            break;
        if (errno != EEXIST) { /* EEXIST: left by an earlier process */
            bsh__format(why, len, "cannot make a cgroup for the run: %s",
                        strerror(errno));
            release_parent(cg);
            return -1;
        }
    }
    cg->dir = open_dir(cg);
    if (cg->dir < 0) {
        bsh__format(why, len, "cannot open the run's cgroup: %s",
                    strerror(errno));
        remove_dir(cg);
        release_parent(cg);
        return -1;
    }
    return 0;
}

bool bsh__cgroup_has(const struct bsh__cgroup *cg, const char *controller)
{
    char text[512];
    if (read_file(cg, "cgroup.controllers", text, sizeof(text)) < 0)
        return false;
    size_t len = strlen(controller);
    for (char *p = text; (p = strstr(p, controller)) != NULL; p += len)
        if ((p == text || p[-1] == ' ') &&
            (p[len] == ' ' || p[len] == '\n' || p[len] == '\0'))
            return true;
    return false;
}

/* Writes `value` to the cgroup's file `file`: 0, or -1 with errno. */
int bsh__cgroup_write_at(int dir, const char *file, const char *value)
{
    int fd = openat(dir, file, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = strlen(value);
    ssize_t n = write(fd, value, len);
    int saved = errno;
    close(fd);
    errno = saved;
    return n == (ssize_t)len ? 0 : -1;
}

static int write_file(const struct bsh__cgroup *cg, const char *file,
                      const char *value)
{
    return bsh__cgroup_write_at(cg->dir, file, value);
}

/* One limit through its controller's file: 0, or -1 with the reason. */
static int limit_by(const struct bsh__cgroup *cg, const char *controller,
                    const char *file, int64_t value, char *why, size_t len)
{
    char text[32];
    if (!bsh__cgroup_has(cg, controller)) {
        bsh__format(why, len,
                    "cannot enforce the %s limit: the cgroup v2 %s controller "
                    "is not enabled for the run's cgroup",
                    controller, controller);
        return -1;
    }
    bsh__format(text, sizeof(text), "%lld", (long long)value);
    if (write_file(cg, file, text) < 0) {
        bsh__format(why, len, "cannot enforce the %s limit: %s", controller,
                    strerror(errno));
        return -1;
    }
    return 0;
}

int bsh__cgroup_set_limits(struct bsh__cgroup *cg, const struct bsh_limits *l,
                           char *why, size_t len)
{
    if (l->memory_bytes > 0) {
        if (limit_by(cg, "memory", "memory.max", l->memory_bytes, why, len) < 0)
            return -1;
        /* Swap would let the run outgrow its memory limit. */
        write_file(cg, "memory.swap.max", "0");
    }
    if (l->pids > 0 && limit_by(cg, "pids", "pids.max", l->pids, why, len) < 0)
        return -1;
    if (l->memory_bytes > 0 || l->pids > 0)
        cg->poolable = false; /* its limits are this run's */
    return 0;
}

int bsh__cgroup_pids(const struct bsh__cgroup *cg, int *pids, int max)
{
    return bsh__cgroup_pids_at(cg->dir, pids, max);
}

int bsh__cgroup_pids_at(int dir, int *pids, int max)
{
    char text[8192];
    if (dir < 0 || bsh__read_file(dir, "cgroup.procs", text, sizeof(text)) < 0)
        return 0;
    int n = 0;
    for (char *p = text, *end; n < max; p = end) {
        long pid = strtol(p, &end, 10);
        if (end == p)
            break;
        if (pids != NULL)
            pids[n] = (int)pid;
        n++;
    }
    return n;
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

int bsh__cgroup_kill_each(int dir)
{
    int pids[512], n = bsh__cgroup_pids_at(dir, pids, 512), err = 0;
    for (int i = 0; i < n; i++)
        if (pids[i] > 0 && kill(pids[i], SIGKILL) < 0 && errno != ESRCH)
            err = errno;
    return err;
}

/* Reads the values of `n` keys from a "key value" file in one read;
 * missing ones are -1. 0, or -1 when the file cannot be read. */
int bsh__cgroup_stats_at(int dir, const char *file, const char *const *keys,
                         int64_t *values, int n)
{
    char text[2048];
    for (int i = 0; i < n; i++)
        values[i] = -1;
    if (dir < 0 || bsh__read_file(dir, file, text, sizeof(text)) < 0)
        return -1;
    for (char *line = text; line != NULL && *line != '\0';) {
        for (int i = 0; i < n; i++) {
            size_t len = strlen(keys[i]);
            if (strncmp(line, keys[i], len) == 0 && line[len] == ' ')
                values[i] = strtoll(line + len + 1, NULL, 10);
        }
        line = strchr(line, '\n');
        if (line != NULL)
            line++;
    }
    return 0;
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

int bsh__cgroup_rmdir(int *parent, const char *name, int wait_ms,
                      int (*end_left)(void *ctx), void *ctx)
{
    for (int waited = 0;; waited++) {
        if (unlinkat(*parent, name, AT_REMOVEDIR) == 0 || errno != EBUSY)
            return 0;
        int left = end_left(ctx); /* forked before the kill landed */
        if (waited >= wait_ms) {
            /* Still dying (or unkillable): a later sweep removes it. */
            bsh__graveyard_add_cgroup(*parent, name);
            *parent = -1;
            return left;
        }
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
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
 * cgroup, was not killed, is empty, and has no controllers (whose state
 * and limits would carry over). The last is read only for a cgroup that
 * is about to go in, not for every cgroup a burst of runs makes. */
static bool fit_for_pool(struct bsh__cgroup *cg)
{
    char controllers[256];
    return cg->poolable && !cg->killed &&
           (cg->emptied ||
            bsh__cgroup_stat(cg, "cgroup.events", "populated") == 0) &&
           pool_has_room() &&
           (cg->pool_checked ||
            (read_file(cg, "cgroup.controllers", controllers,
                       sizeof(controllers)) >= 0 &&
             controllers[0] == '\0'));
}

int bsh__cgroup_remove(struct bsh__cgroup *cg, int wait_ms)
{
    if (cg->dir < 0)
        return 0;
    if (fit_for_pool(cg) && pool_give(cg)) {
        cg->dir = bsh__close(cg->dir);
        release_parent(cg);
        return 0;
    }
    if (cg->parent < 0) { /* in our own cgroup: by path, if it is empty */
        if (remove_dir(cg) == 0 || errno != EBUSY) {
            cg->dir = bsh__close(cg->dir);
            return 0;
        }
        cg->parent = open(own_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    int left = bsh__cgroup_rmdir(&cg->parent, cg->name, wait_ms, end_left, cg);
    cg->dir = bsh__close(cg->dir);
    release_parent(cg);
    return left;
}
