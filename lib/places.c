/* SPDX-License-Identifier: MIT */
/*
 * Which directories a sandboxed run may be given to write (see
 * sandbox.h). The working directory and TMPDIR come from the caller, and
 * through it often from a model (`-e TMPDIR=/`, a session's `cd`): none
 * may open the system, the user's other files or a socket that leads out.
 */
#define _GNU_SOURCE
#include "internal.h"
#include "procinfo.h"
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The system's trees: never writable, nor anything in them (/run holds
 * the user's D-Bus and container sockets). */
static const char *const system_trees[] = {
    "/bin",           "/boot",
    "/dev",           "/etc",
    "/lib",           "/lib32",
    "/lib64",         "/libx32",
    "/proc",          "/run",
    "/sbin",          "/sys",
    "/usr/bin",       "/usr/include",
    "/usr/lib",       "/usr/lib32",
    "/usr/lib64",     "/usr/libexec",
    "/usr/sbin",      "/usr/share",
    "/usr/local/bin", "/usr/local/sbin",
    "/usr/local/lib", "/var/spool",
};

/* Directories that hold others' files: not themselves (a project may lie
 * in them). */
static const char *const shared_dirs[] = {
    "/home",      "/media", "/mnt",     "/opt",     "/srv",       "/usr",
    "/usr/local", "/var",   "/var/lib", "/var/log", "/var/cache",
};

/* Where a TMPDIR may lie (or in the working directory, or in a place
 * named writable). */
static const char *const temporary_dirs[] = {"/tmp", "/var/tmp", "/dev/shm"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Whether directory `real` holds `home` (and is not it). */
static bool holds(const char *real, const char *home)
{
    return home != NULL && strcmp(real, home) != 0 &&
           bsh__path_within(home, real);
}

/* The home directory's real path from the user database, which the run's
 * environment cannot change: looked up once per process (the database
 * may be a network service) and kept; NULL when there is none. */
static char *passwd_home_path;
static pthread_once_t passwd_home_once = PTHREAD_ONCE_INIT;

#if defined(BSH_NO_NSS) && defined(__GLIBC__)
/* A static binary must not load the system's NSS modules (they belong to
 * another glibc), so it reads /etc/passwd itself, as musl's getpwuid_r
 * does (musl has no fgetpwent_r: it takes the branch below). */
static int passwd_entry(uid_t uid, struct passwd *pw, char *buf, size_t size,
                        struct passwd **found)
{
    FILE *file = fopen("/etc/passwd", "re");
    *found = NULL;
    if (file == NULL)
        return errno;
    while (fgetpwent_r(file, pw, buf, size, found) == 0 && *found != NULL &&
           pw->pw_uid != uid)
        *found = NULL;
    fclose(file);
    return 0;
}
#else
static int passwd_entry(uid_t uid, struct passwd *pw, char *buf, size_t size,
                        struct passwd **found)
{
    return getpwuid_r(uid, pw, buf, size, found);
}
#endif

/* A user the database does not know (a static binary that reads only
 * /etc/passwd, a directory service that is down) keeps the HOME this
 * process was started with: never the run's, which its caller sets. */
static void look_up_passwd_home(void)
{
    struct passwd pw, *found = NULL;
    char buf[4096];
    if (passwd_entry(getuid(), &pw, buf, sizeof(buf), &found) == 0 &&
        found != NULL && pw.pw_dir != NULL)
        passwd_home_path = realpath(pw.pw_dir, NULL);
    const char *own = getenv("HOME");
    if (passwd_home_path == NULL && own != NULL && own[0] == '/')
        passwd_home_path = realpath(own, NULL);
}

static const char *passwd_home(void)
{
    pthread_once(&passwd_home_once, look_up_passwd_home);
    return passwd_home_path;
}

/* Why the directory at real path `real` may not be writable, or NULL. */
static const char *refused(const char *real, const char *home,
                           const char *env_home)
{
    if (strcmp(real, "/") == 0)
        return "it is the root directory";
    if (bsh__path_within(real, "/dev/shm"))
        return NULL;
    for (size_t i = 0; i < COUNT(system_trees); i++)
        if (bsh__path_within(real, system_trees[i]))
            return "it is a system directory";
    for (size_t i = 0; i < COUNT(shared_dirs); i++)
        if (strcmp(real, shared_dirs[i]) == 0)
            return "it is a system directory";
    if (holds(real, home) || holds(real, env_home))
        return "it holds the home directory";
    return NULL;
}

/* `path` resolved, when it still names the file open as `fd`; or NULL. */
static char *real_path_of(int fd, const char *path)
{
    char *real = realpath(path, NULL);
    struct stat opened, named;
    if (real != NULL &&
        (fstat(fd, &opened) < 0 || stat(real, &named) < 0 ||
         opened.st_dev != named.st_dev || opened.st_ino != named.st_ino)) {
        free(real);
        real = NULL;
    }
    return real;
}

void bsh__place_open(struct bsh__place *p, const char *what, const char *path)
{
    p->what = what;
    p->path = path;
    p->real = NULL;
    p->fd = path != NULL ? open(path, O_PATH | O_CLOEXEC) : -1;
    p->err = p->fd < 0 ? (path != NULL ? errno : ENOENT) : 0;
    if (p->fd < 0)
        return;
    char real[PATH_MAX];
    if (bsh__proc_fd(getpid(), p->fd, real, sizeof(real)) && real[0] == '/')
        p->real = strdup(real);
    else /* no /proc (a bare root): the resolved path, if it is the same */
        p->real = real_path_of(p->fd, path);
    if (p->real == NULL) { /* unknown where it is: it gives nothing */
        p->fd = bsh__close(p->fd);
        p->err = ENOENT;
    }
}

void bsh__place_close(struct bsh__place *p)
{
    p->fd = bsh__close(p->fd);
    free(p->real);
    p->real = NULL;
}

/* Whether TMPDIR's real path lies where temporary files may. */
static bool temporary_place(const char *real, const struct bsh__place *dir,
                            const struct bsh__place *writes, size_t count)
{
    for (size_t i = 0; i < COUNT(temporary_dirs); i++)
        if (bsh__path_within(real, temporary_dirs[i]))
            return true;
    if (dir->real != NULL && bsh__path_within(real, dir->real))
        return true;
    for (size_t i = 0; i < count; i++)
        if (writes[i].real != NULL && bsh__path_within(real, writes[i].real))
            return true;
    return false;
}

/* One place: -EPERM with `why` when it may not be writable; a missing
 * one passes (it gives nothing). */
static int check(const struct bsh__place *p, const char *home,
                 const char *env_home, char *why, size_t why_size)
{
    if (p->real == NULL)
        return 0;
    const char *reason = refused(p->real, home, env_home);
    if (reason != NULL)
        bsh__format(why, why_size, "sandbox: cannot make %s '%s' writable: %s",
                    p->what, p->path, reason);
    return reason != NULL ? -EPERM : 0;
}

int bsh__places_check(const struct bsh__place *dir,
                      const struct bsh__place *tmp,
                      const struct bsh__place *writes, size_t count,
                      char *const *envp, char *why, size_t why_size)
{
    const char *env_home = bsh__env_value(envp, "HOME");
    char *env_real = env_home != NULL ? realpath(env_home, NULL) : NULL;
    const char *home = passwd_home();
    int rc = check(dir, home, env_real, why, why_size);
    if (rc == 0)
        rc = check(tmp, home, env_real, why, why_size);
    for (size_t i = 0; rc == 0 && i < count; i++)
        rc = check(&writes[i], home, env_real, why, why_size);
    if (rc == 0 && tmp->real != NULL &&
        !temporary_place(tmp->real, dir, writes, count)) {
        bsh__format(why, why_size,
                    "sandbox: cannot make TMPDIR '%s' writable: it lies "
                    "outside /tmp, /var/tmp, /dev/shm, the working directory "
                    "and the directories made writable",
                    tmp->path);
        rc = -EPERM;
    }
    free(env_real);
    return rc;
}
