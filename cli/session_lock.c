/* SPDX-License-Identifier: MIT */
/*
 * Session files for the CLI. The lock is on the file itself; since every
 * write renames a new file over the path, a bsh that waited on the old
 * file finds, once it has the lock, that the path names another file,
 * and starts again with that one.
 */
#define _GNU_SOURCE
#include "session_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Tries to take the file's lock again this many times when it moved. */
#define RELOCK_TRIES 16

static int fail(char *why, size_t len, const char *path, const char *what,
                const char *detail)
{
    snprintf(why, len, "session file %s: %s%s", path, what, detail);
    return -1;
}

/* Whether `path` still names the open file `fd`. */
static bool still_named(int fd, const char *path)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* The file, locked: its fd, or -1 with `why`. */
static int open_locked(const char *path, bool create, char *why, size_t len)
{
    for (int tries = 0; tries < RELOCK_TRIES; tries++) {
        int flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
        int fd = open(path, flags | (create ? O_CREAT : 0), 0600);
        if (fd < 0 && errno == EACCES) /* say why it is refused */
            fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0)
            return fail(why, len, path,
                        errno == ELOOP ? "is a symbolic link; refused"
                                       : "cannot open it: ",
                        errno == ELOOP ? "" : strerror(errno));
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
            int err = errno;
            close(fd);
            return fail(why, len, path,
                        err == EWOULDBLOCK
                            ? "the session is busy: another bsh run is using it"
                            : "cannot lock it: ",
                        err == EWOULDBLOCK ? "" : strerror(err));
        }
        if (still_named(fd, path))
            return fd;
        close(fd); /* replaced while we waited: the new file it is */
    }
    return fail(why, len, path, "it keeps being replaced; try again", "");
}

int cli_session_open(struct cli_session *cs, const char *path,
                     const char *base_dir, bool create, char *why,
                     size_t why_len)
{
    cs->path = path;
    cs->session = NULL;
    cs->fd = open_locked(path, create, why, why_len);
    if (cs->fd < 0)
        return -1;
    int rc = bsh_session_new(base_dir, NULL, &cs->session);
    if (rc != BSH_OK) {
        fail(why, why_len, path,
             "cannot use the base directory: ", strerror(errno));
        cli_session_close(cs, false, NULL, 0);
        return -1;
    }
    char reason[512];
    if (bsh_session_load_fd(cs->session, cs->fd, reason, sizeof(reason)) !=
        BSH_OK) {
        fail(why, why_len, path, "refused: ", reason);
        cli_session_close(cs, false, NULL, 0);
        return -1;
    }
    return 0;
}

int cli_session_close(struct cli_session *cs, bool save, char *why,
                      size_t why_len)
{
    int rc = 0;
    if (save && cs->session != NULL &&
        bsh_session_save(cs->session, cs->path, why, why_len) != BSH_OK)
        rc = -1;
    bsh_session_free(cs->session);
    cs->session = NULL;
    if (cs->fd >= 0)
        close(cs->fd); /* and with it the lock */
    cs->fd = -1;
    return rc;
}
