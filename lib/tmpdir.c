/* SPDX-License-Identifier: MIT */
/*
 * The run's private temporary directory (see tmpdir.h). The removal opens
 * each directory with O_NOFOLLOW relative to its parent, so a symbolic
 * link the run left leads nowhere outside; it makes each directory ours
 * again (the run may have left one without search or write permission)
 * through its O_PATH fd; and it holds at most DEPTH_MAX directories open
 * at once: one deeper is moved up to the top and emptied from there.
 */
#define _GNU_SOURCE
#include "tmpdir.h"
#include "internal.h"
#include "mono.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEPTH_MAX 32

/* How long a removal may take: a run's process that outlived it (one
 * that left a session-contained run) could refill the directory forever,
 * and the caller's loop waits meanwhile. What is left after it stays. */
#define REMOVE_BUDGET_MS 2000

int bsh__tmpdir_make(const char *base, char **made)
{
    size_t size = strlen(base) + sizeof("/bsh-run-XXXXXX");
    char *path = malloc(size);
    *made = NULL;
    if (path == NULL)
        return -ENOMEM;
    snprintf(path, size, "%s/bsh-run-XXXXXX", base);
    if (mkdtemp(path) == NULL) { /* mode 0700 */
        int err = -errno;
        free(path);
        return err;
    }
    *made = path;
    return 0;
}

/* The directory `name` in `parent`, opened for reading after it was made
 * ours (rwx for us); or -errno (-ENOTDIR: not a directory). */
static int open_dir(int parent, const char *name)
{
    int path =
        openat(parent, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
    if (path < 0)
        return -errno;
    char self[64];
    snprintf(self, sizeof(self), "/proc/self/fd/%d", path);
    chmod(self, S_IRWXU); /* the directory itself: the link is not followed */
    int dir = openat(path, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int err = dir < 0 ? -errno : 0;
    close(path);
    return err < 0 ? err : dir;
}

static void empty(int top, int dir, int depth, unsigned *moved,
                  struct timespec until);

/* Removes the entry `name` of `dir` (a directory is emptied first): true
 * when it is gone from there. */
static bool remove_entry(int top, int dir, const char *name, int depth,
                         unsigned *moved, struct timespec until)
{
    if (unlinkat(dir, name, 0) == 0)
        return true;
    if (errno != EISDIR)
        return false;
    if (depth >= DEPTH_MAX) { /* emptied later, from the top */
        char up[32];
        snprintf(up, sizeof(up), ".bsh-deep-%u", (*moved)++);
        return renameat(dir, name, top, up) == 0;
    }
    int sub = open_dir(dir, name);
    if (sub >= 0)
        empty(top, sub, depth + 1, moved, until);
    return unlinkat(dir, name, AT_REMOVEDIR) == 0;
}

/* Removes everything in `dir` (closed here). The top is passed over
 * again while a pass removed something: what moved up is in it. */
static void empty(int top, int dir, int depth, unsigned *moved,
                  struct timespec until)
{
    DIR *d = fdopendir(dir);
    if (d == NULL) {
        close(dir);
        return;
    }
    bool removed = true;
    while (removed) {
        removed = false;
        rewinddir(d);
        const struct dirent *e;
        while ((e = readdir(d)) != NULL && mono_ns_until(until) > 0)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
                remove_entry(top, dirfd(d), e->d_name, depth, moved, until))
                removed = true;
        removed = removed && mono_ns_until(until) > 0;
        if (depth > 0)
            break;
    }
    closedir(d);
}

void bsh__tmpdir_remove(const char *path)
{
    if (rmdir(path) == 0)
        return; /* the run left nothing: the common case, one call */
    int top = open_dir(AT_FDCWD, path);
    unsigned moved = 0;
    if (top >= 0)
        empty(top, top, 0, &moved, mono_add_ms(mono_now(), REMOVE_BUDGET_MS));
    if (rmdir(path) < 0 && errno == ENOTDIR)
        unlink(path); /* the run put a link or a file in its place */
}
