/* SPDX-License-Identifier: MIT */
/*
 * The cgroup file system, without policy (see cgroupfs.h): where this
 * process's cgroup is in the v2 hierarchy and in a v1 one, and the files
 * of a cgroup directory: write one, list its processes, kill each, read
 * "key value" numbers, remove it when its processes are gone, and clear
 * what a dead process of ours left.
 */
#define _GNU_SOURCE
#include "cgroupfs.h"
#include "graveyard.h"
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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

const char *bsh__cgroup_own(void)
{
    pthread_once(&own_once, find_own);
    return own_error == 0 ? own_path : NULL;
}

void bsh__cgroup_own_child(char *path, size_t size, const char *name)
{
    snprintf(path, size, "%s/%.63s", bsh__cgroup_own() ? own_path : "", name);
}

int bsh__cgroup_write_at(int dir, const char *file, const char *value)
{
    int fd = openat(dir, file, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t len = strlen(value);
    ssize_t n = write(fd, value, len);
    int err = n < 0 ? -errno : n == (ssize_t)len ? 0 : -EIO;
    close(fd);
    return err;
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

int bsh__cgroup_kill_each(int dir)
{
    int pids[512], n = bsh__cgroup_pids_at(dir, pids, 512), err = 0;
    for (int i = 0; i < n; i++)
        if (pids[i] > 0 && kill(pids[i], SIGKILL) < 0 && errno != ESRCH)
            err = -errno;
    return err;
}

/* Reads the values of `n` keys from a "key value" file in one read;
 * missing ones are -1. 0, or -errno when the file cannot be read. */
int bsh__cgroup_stats_at(int dir, const char *file, const char *const *keys,
                         int64_t *values, int n)
{
    char text[2048];
    for (int i = 0; i < n; i++)
        values[i] = -1;
    ssize_t got =
        dir < 0 ? -EBADF : bsh__read_file(dir, file, text, sizeof(text));
    if (got < 0)
        return (int)got;
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

/* How deep below a run's cgroup, and how many, the cgroups that it made
 * are removed at most: a run could make them faster than bsh removes
 * them, and the graveyard's sweep comes back for what is left. */
#define PRUNE_DEPTH_MAX   32
#define PRUNE_ENTRIES_MAX 4096

/* The mount that `name` in `dir` (or `dir` itself: "") lies on; 0 when
 * the kernel does not say (before Linux 5.8). */
static uint64_t mount_of(int dir, const char *name)
{
    /* The system call itself, into the kernel's 256-byte struct statx,
     * read at its fixed offsets: C libraries differ in whether and how
     * they declare it (musl before 1.2.5 has no statx at all). */
    enum { SX_BYTES = 256, SX_MASK_AT = 0x00, SX_MNT_ID_AT = 0x90 };
    const unsigned mnt_id_bit = 0x1000U; /* STATX_MNT_ID, Linux 5.8 */
    uint64_t sx[SX_BYTES / sizeof(uint64_t)] = {0};
    int flags = AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT |
                (name[0] == '\0' ? AT_EMPTY_PATH : 0);
    uint32_t mask;
    uint64_t id;
    if (syscall(SYS_statx, dir, name, flags, mnt_id_bit, sx) < 0)
        return 0;
    memcpy(&mask, (const char *)sx + SX_MASK_AT, sizeof(mask));
    memcpy(&id, (const char *)sx + SX_MNT_ID_AT, sizeof(id));
    return (mask & mnt_id_bit) ? id : 0;
}

static bool is_cgroupfs(int fd)
{
    struct statfs sf;
    return fstatfs(fd, &sf) == 0 && (sf.f_type == CGROUP2_SUPER_MAGIC ||
                                     sf.f_type == CGROUP_SUPER_MAGIC);
}

/* Kills what is in the cgroup `dir` (its subtree, in v2; else each). */
static void kill_all_at(int dir)
{
    if (bsh__cgroup_write_at(dir, "cgroup.kill", "1") < 0)
        bsh__cgroup_kill_each(dir);
}

/* Removes the cgroups below the cgroup directory `dir` (closed here),
 * deepest first, killing what is in them when `kill`. Only directories of
 * the same cgroup mount are entered: a run that may mount (root, no
 * sandbox) could put anything there. */
static void prune(int dir, uint64_t mount, bool kill, int depth, int *budget)
{
    DIR *d = fdopendir(dir);
    if (d == NULL) {
        close(dir);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL && *budget > 0) {
        if (e->d_type != DT_DIR || strcmp(e->d_name, ".") == 0 ||
            strcmp(e->d_name, "..") == 0)
            continue;
        --*budget;
        int sub = openat(dirfd(d), e->d_name,
                         O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0)
            continue;
        if (mount_of(sub, "") != mount || !is_cgroupfs(sub)) {
            close(sub); /* a mount point: neither entered nor removed */
            continue;
        }
        if (kill)
            kill_all_at(sub);
        if (depth < PRUNE_DEPTH_MAX)
            prune(sub, mount, kill, depth + 1, budget);
        else
            close(sub);
        unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
    }
    closedir(d);
}

/* The mount of the directory that holds `name` (in `parent`, or an
 * absolute path): its "..", which leads out of a mount put over `name`. */
static uint64_t parent_mount(int parent, const char *name)
{
    if (parent != AT_FDCWD)
        return mount_of(parent, "");
    char up[PATH_MAX + 64];
    int n = snprintf(up, sizeof(up), "%s/..", name);
    return n > 0 && (size_t)n < sizeof(up) ? mount_of(AT_FDCWD, up) : 0;
}

/* rmdir of the cgroup `name`; while it is busy with cgroups below it,
 * those are removed first (their processes killed when `kill`). */
static int remove_tree(int parent, const char *name, bool kill)
{
    if (unlinkat(parent, name, AT_REMOVEDIR) == 0)
        return 0;
    int err = -errno;
    struct stat st;
    /* Busy, with cgroups inside (two links: no directory below). A run
     * that may write the cgroup file system (root, no sandbox) made them. */
    if (err != -EBUSY || fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
        st.st_nlink <= 2)
        return err;
    int dir =
        openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir < 0)
        return err;
    uint64_t mount = mount_of(dir, "");
    if (mount == 0 || mount != parent_mount(parent, name) ||
        !is_cgroupfs(dir)) {
        close(dir);
        return err;
    }
    int budget = PRUNE_ENTRIES_MAX;
    prune(dir, mount, kill, 1, &budget);
    return unlinkat(parent, name, AT_REMOVEDIR) == 0 ? 0 : -errno;
}

int bsh__cgroup_rmdir_at(int parent, const char *name)
{
    return remove_tree(parent, name, true);
}

int bsh__cgroup_rmdir(int *parent, const char *name, int wait_ms,
                      int (*end_left)(void *ctx), void *ctx)
{
    for (int waited = 0;; waited++) {
        if (bsh__cgroup_rmdir_at(*parent, name) != -EBUSY)
            return 0;
        int left = end_left(ctx); /* forked before the kill landed */
        if (waited >= wait_ms) {
            /* Still dying (or unkillable): a later sweep removes it. */
            bsh__graveyard_add_cgroup(*parent, name, bsh__cgroup_rmdir_at);
            *parent = -1;
            return left;
        }
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
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
            remove_tree(fd, e->d_name, false); /* its run may live on */
    }
    closedir(d);
}
