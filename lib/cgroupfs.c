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
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
