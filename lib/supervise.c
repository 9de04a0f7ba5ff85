/* SPDX-License-Identifier: MIT */
/*
 * Carrying out the run's mode and time changes (see supervise.h). The
 * file is opened here with O_PATH, relative to the run's own working
 * directory or fd (through /proc/PID), and judged by where that open file
 * really is: a path that a symlink or `..` leads elsewhere, or that the
 * run swaps after asking, cannot change the outcome, because the call
 * is then made on the opened file (/proc/self/fd/N), not on the path.
 */
#define _GNU_SOURCE
#include "supervise.h"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef SYS_fchmodat2
#    define SYS_fchmodat2 452
#endif

void bsh__supervisor_init(struct bsh__supervisor *sv)
{
    memset(sv, 0, sizeof(*sv));
    sv->listener = -1;
    bsh__socket_reach_init(&sv->reach);
}

void bsh__supervisor_allow(struct bsh__supervisor *sv, const char *real_path)
{
    char *real = real_path != NULL ? strdup(real_path) : NULL;
    char **grown = real != NULL
                       ? realloc(sv->places, (sv->count + 1) * sizeof(*grown))
                       : NULL;
    if (grown == NULL) {
        free(real);
        return;
    }
    sv->places = grown;
    sv->places[sv->count++] = real;
}

void bsh__supervisor_release(struct bsh__supervisor *sv)
{
    for (size_t i = 0; i < sv->npending; i++) { /* their calls fail */
        bsh__close(sv->pending[i].sock);
        bsh__close(sv->pending[i].target);
    }
    sv->npending = 0;
    sv->listener = bsh__close(sv->listener);
    for (size_t i = 0; i < sv->count; i++)
        free(sv->places[i]);
    free(sv->places);
    sv->places = NULL;
    sv->count = 0;
    bsh__socket_reach_release(&sv->reach);
}

/* Whether `real` is a writable place or lies under one. */
static bool allowed(const struct bsh__supervisor *sv, const char *real)
{
    for (size_t i = 0; i < sv->count; i++)
        if (bsh__path_within(real, sv->places[i]))
            return true;
    return false;
}

/* Reads `size` bytes at `addr` of process `pid`; false when it cannot. */
static bool peek(pid_t pid, uint64_t addr, void *buf, size_t size)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = pread(fd, buf, size, (off_t)addr);
    close(fd);
    return n == (ssize_t)size;
}

/* The NUL-terminated path at `addr`, read a page piece at a time (a
 * string may end just before an unmapped page). */
static bool peek_path(pid_t pid, uint64_t addr, char *buf, size_t size)
{
    size_t len = 0;
    while (len < size - 1) {
        size_t in_page = 4096 - (size_t)((addr + len) % 4096);
        size_t n = in_page < size - 1 - len ? in_page : size - 1 - len;
        if (!peek(pid, addr + len, buf + len, n))
            return false;
        void *nul = memchr(buf + len, '\0', n);
        if (nul != NULL)
            return true;
        len += n;
    }
    return false; /* longer than PATH_MAX */
}

/* `path` as the run means it where it names the asking process itself
 * (/proc/self, /proc/thread-self, /dev/fd): bsh resolving it would find
 * its own. In `buf`; `path` itself when nothing is to be changed. */
static const char *as_the_run(pid_t pid, const char *path, char *buf,
                              size_t size)
{
    static const char *const selves[] = {"/proc/self", "/proc/thread-self",
                                         "/dev/fd"};
    for (size_t i = 0; i < sizeof(selves) / sizeof(selves[0]); i++) {
        size_t n = strlen(selves[i]);
        if (strncmp(path, selves[i], n) != 0 ||
            (path[n] != '/' && path[n] != '\0'))
            continue;
        int len = snprintf(buf, size, "/proc/%d%s%s", (int)pid,
                           i == 2 ? "/fd" : "", path + n);
        return len > 0 && (size_t)len < size ? buf : path;
    }
    return path;
}

/* The run's file named by (`dirfd`, `path`) opened here with O_PATH, or
 * -errno. A NULL path means `dirfd` itself. */
static int open_target(pid_t pid, int dirfd, const char *path, bool follow)
{
    char base[64];
    if (dirfd == AT_FDCWD)
        snprintf(base, sizeof(base), "/proc/%d/cwd", (int)pid);
    else
        snprintf(base, sizeof(base), "/proc/%d/fd/%d", (int)pid, dirfd);
    int b = open(base, O_PATH | O_CLOEXEC);
    if (b < 0)
        return -errno;
    if (path == NULL || path[0] == '\0')
        return b;
    char own[PATH_MAX];
    int fd = openat(b, as_the_run(pid, path, own, sizeof(own)),
                    O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
    int err = fd < 0 ? -errno : 0;
    close(b);
    return err < 0 ? err : fd;
}

/* Whether our fd `fd` really lies in a writable place, by the path its
 * /proc/self/fd link names (set in `self`). */
static bool fd_in_place(const struct bsh__supervisor *sv, int fd, char self[64])
{
    char real[PATH_MAX];
    snprintf(self, 64, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(self, real, sizeof(real) - 1);
    if (n <= 0)
        return false;
    real[n] = '\0';
    return allowed(sv, real);
}

/* The run's file (see open_target()) when its real path lies in a
 * writable place: the fd, with `self` naming it as /proc/self/fd/N; or
 * -errno (-EACCES outside, as Landlock answers a write there). */
static int open_in_place(const struct bsh__supervisor *sv, pid_t pid, int dirfd,
                         const char *path, bool follow, char self[64])
{
    int fd = open_target(pid, dirfd, path, follow);
    if (fd < 0)
        return fd;
    if (!fd_in_place(sv, fd, self)) {
        close(fd);
        return -EACCES;
    }
    return fd;
}

/* What the run asked: which file, and what to do to it. */
struct request {
    int dirfd;
    bool has_path, follow;
    uint64_t path_addr;
    bool chmod;          /* else utimensat */
    mode_t mode;         /* chmod */
    uint64_t times_addr; /* utimensat: the times; 0: now */
};

static bool parse(const struct seccomp_data *d, struct request *rq)
{
    memset(rq, 0, sizeof(*rq));
    rq->follow = true;
    rq->chmod = true;
    switch (d->nr) {
#ifdef SYS_chmod /* aarch64 has fchmodat alone */
    case SYS_chmod:
        rq->dirfd = AT_FDCWD, rq->has_path = true;
        rq->path_addr = d->args[0], rq->mode = (mode_t)d->args[1];
        return true;
#endif
    case SYS_fchmod:
        rq->dirfd = (int)d->args[0], rq->mode = (mode_t)d->args[1];
        return true;
    case SYS_fchmodat:
    case SYS_fchmodat2:
        rq->dirfd = (int)d->args[0], rq->has_path = true;
        rq->path_addr = d->args[1], rq->mode = (mode_t)d->args[2];
        rq->follow =
            d->nr == SYS_fchmodat || !((int)d->args[3] & AT_SYMLINK_NOFOLLOW);
        return true;
    case SYS_utimensat:
        rq->chmod = false;
        rq->dirfd = (int)d->args[0];
        rq->has_path = d->args[1] != 0;
        rq->path_addr = d->args[1], rq->times_addr = d->args[2];
        rq->follow = !((int)d->args[3] & AT_SYMLINK_NOFOLLOW);
        return true;
    default:
        return false;
    }
}

/* Carries out `rq` if its file lies in a writable place: 0 or -errno. */
static int carry_out(struct bsh__supervisor *sv, pid_t pid,
                     const struct request *rq, const char *path)
{
    if (rq->chmod && (rq->mode & (S_ISUID | S_ISGID)))
        return -EPERM; /* no setuid or setgid file, anywhere */
    struct timespec times[2];
    if (!rq->chmod && rq->times_addr != 0 &&
        !peek(pid, rq->times_addr, times, sizeof(times)))
        return -EFAULT;
    char self[64];
    int fd = open_in_place(sv, pid, rq->dirfd, rq->has_path ? path : NULL,
                           rq->follow, self);
    if (fd < 0)
        return fd;
    int err = 0;
    struct stat st;
    if (fstat(fd, &st) < 0)
        err = -EACCES;
    else if (S_ISLNK(st.st_mode))
        err = rq->chmod ? -EOPNOTSUPP : 0;
    else if (rq->chmod ? chmod(self, rq->mode) < 0
                       : utimensat(AT_FDCWD, self,
                                   rq->times_addr != 0 ? times : NULL, 0) < 0)
        err = -errno;
    close(fd);
    return err;
}

#ifndef PIDFD_THREAD
#    define PIDFD_THREAD O_EXCL /* Linux 6.9 */
#endif

/* The thread group of thread `tid` (its Tgid), or -1. */
static pid_t thread_group(pid_t tid)
{
    char path[64], text[1024];
    snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
    if (bsh__read_file(AT_FDCWD, path, text, sizeof(text)) < 0)
        return -1;
    const char *line = strstr(text, "\nTgid:");
    return line != NULL ? (pid_t)strtol(line + 6, NULL, 10) : -1;
}

/* A pidfd of the thread `tid` that made the call (a notification names
 * the thread, not its process): of that thread where the kernel has
 * thread pidfds, else of its thread group, whose fd table threads share.
 * The pidfd, or -errno. */
static int pidfd_of(pid_t tid)
{
    int pidfd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
    if (pidfd >= 0 || errno != EINVAL)
        return pidfd >= 0 ? pidfd : -errno;
    pidfd = (int)syscall(SYS_pidfd_open, tid, 0);
    if (pidfd >= 0 || errno != EINVAL)
        return pidfd >= 0 ? pidfd : -errno;
    pid_t tgid = thread_group(tid); /* not a leader, on an older kernel */
    if (tgid <= 0)
        return -ESRCH;
    pidfd = (int)syscall(SYS_pidfd_open, tgid, 0);
    return pidfd >= 0 ? pidfd : -errno;
}

/* The run's fd `fd` (of the thread `pid` that asked) as an fd of ours on
 * the same open file (pidfd_getfd), or -errno. */
static int take_fd(pid_t pid, int fd)
{
    int pidfd = pidfd_of(pid);
    if (pidfd < 0)
        return pidfd;
    int sock = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
    int err = sock < 0 ? -errno : 0;
    close(pidfd);
    return err < 0 ? err : sock;
}

/* Opens the socket file a Unix address names, when the run may reach it
 * (sockets.h): the fd (connected to through /proc/self/fd, so the path
 * cannot be swapped after the check), or -errno. An abstract
 * address is refused (bsh connecting in the run's stead would pass over
 * the Landlock scope). */
static int unix_target(struct bsh__supervisor *sv, pid_t pid,
                       const struct sockaddr_un *sun, int len)
{
    if (len <= (int)sizeof(sa_family_t) || sun->sun_family != AF_UNIX)
        return -EINVAL;
    if (sun->sun_path[0] == '\0')
        return -EACCES;
    char path[sizeof(sun->sun_path) + 1]; /* 108 bytes may lack a NUL */
    memcpy(path, sun->sun_path, sizeof(sun->sun_path));
    path[sizeof(sun->sun_path)] = '\0';
    int fd = open_target(pid, AT_FDCWD, path, true);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) &&
        !bsh__socket_reachable(&sv->reach, &st)) {
        close(fd);
        return -EACCES; /* as Landlock answers what it does not allow */
    }
    return fd; /* not a socket: the connect says so */
}

static bool still_waiting(const struct bsh__supervisor *sv, uint64_t id);

/* bind() of the run: a Unix socket is noted as the run's. No decision
 * is taken, so the call goes on as the run made it (true). */
static bool note_bind(struct bsh__supervisor *sv, pid_t pid, uint64_t id,
                      const struct seccomp_data *d)
{
    int sock = take_fd(pid, (int)d->args[0]);
    if (sock < 0)
        return true;
    if (!still_waiting(sv, id)) { /* the pid may be another's by now */
        close(sock);
        return true;
    }
    int domain = -1;
    uint64_t cookie = 0;
    socklen_t dlen = sizeof(domain), clen = sizeof(cookie);
    struct stat st;
    if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &domain, &dlen) == 0 &&
        domain == AF_UNIX &&
        getsockopt(sock, SOL_SOCKET, SO_COOKIE, &cookie, &clen) == 0 &&
        fstat(sock, &st) == 0)
        bsh__socket_reach_note(&sv->reach, st.st_ino, cookie);
    close(sock);
    return true;
}

/* One connect attempt that does not block: to the opened socket file
 * `target` (>= 0), or to `addr`. `*wait` says that a blocking socket must
 * wait for it (a connect in progress, a listener's full backlog). 0 or
 * -errno. */
static int try_connect(int sock, int target, const void *addr, int len,
                       bool *wait)
{
    int flags = fcntl(sock, F_GETFL);
    bool blocking = flags >= 0 && !(flags & O_NONBLOCK);
    /* O_NONBLOCK for this attempt only (the run sees its flags back). The
     * flag is the run's file description's: should another of its threads
     * clear it in between, a send timeout of a millisecond still bounds
     * the connect (the kernel's connect looks at both). */
    struct timeval saved_timeout = {0, 0}, brief = {0, 1000};
    socklen_t tlen = sizeof(saved_timeout);
    bool timed = blocking && getsockopt(sock, SOL_SOCKET, SO_SNDTIMEO,
                                        &saved_timeout, &tlen) == 0;
    if (timed)
        setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &brief, sizeof(brief));
    if (blocking)
        fcntl(sock, F_SETFL, flags | O_NONBLOCK);
    int rc;
    if (target >= 0) {
        struct sockaddr_un via = {.sun_family = AF_UNIX};
        snprintf(via.sun_path, sizeof(via.sun_path), "/proc/self/fd/%d",
                 target);
        rc = connect(sock, (const struct sockaddr *)&via, sizeof(via));
    } else {
        rc = connect(sock, (const struct sockaddr *)addr, (socklen_t)len);
    }
    int err = rc < 0 ? -errno : 0;
    if (blocking)
        fcntl(sock, F_SETFL, flags);
    if (timed)
        setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &saved_timeout,
                   sizeof(saved_timeout));
    /* EALREADY: the call was restarted (a signal) while an attempt of
     * ours was in progress; the kernel would go on waiting, so do we. */
    *wait = blocking && (err == -EINPROGRESS || err == -EALREADY ||
                         (target >= 0 && err == -EAGAIN));
    return err;
}

static void answer(const struct bsh__supervisor *sv, uint64_t id, int err);

/* Whether the run's call `id` still waits for its answer. */
static bool still_waiting(const struct bsh__supervisor *sv, uint64_t id)
{
    return bsh__ioctl(sv->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* connect() of the run, on any socket: made here (see supervise.h). 0 or
 * -errno; `*deferred` when it will be answered later. */
static int connect_for(struct bsh__supervisor *sv, pid_t pid, uint64_t id,
                       const struct seccomp_data *d, bool *deferred)
{
    *deferred = false;
    int sock = take_fd(pid, (int)d->args[0]);
    if (sock < 0)
        return sock == -EBADF ? -EBADF : -EACCES;
    struct sockaddr_storage addr;
    memset(&addr, 0, sizeof(addr));
    int len = (int)d->args[2]; /* the kernel takes an int */
    int domain = -1, target = -1, err = 0;
    socklen_t dlen = sizeof(domain);
    if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &domain, &dlen) < 0)
        domain = -1; /* not a socket: connect() says so (ENOTSOCK) */
    if (len < 0 || len > (int)sizeof(addr))
        err = -EINVAL;
    else if (len > 0 && !peek(pid, d->args[1], &addr, (size_t)len))
        err = -EFAULT; /* read once: what is connected to is what was read */
    else if (!sv->allow_net && (domain == AF_INET || domain == AF_INET6))
        err = -EACCES; /* as Landlock answers a TCP connect without it */
    else if (domain == AF_UNIX &&
             (target = unix_target(sv, pid, (struct sockaddr_un *)&addr, len)) <
                 0) {
        err = target;
        target = -1;
    }
    /* What was read is the asking process's only while its call still
     * waits (its pid may have been reused since). */
    if (err == 0 && !still_waiting(sv, id))
        err = -ENOENT;
    bool wait = false;
    if (err == 0)
        err = try_connect(sock, target, &addr, len, &wait);
    if (wait && sv->npending < BSH__PENDING_MAX) {
        sv->pending[sv->npending++] =
            (struct bsh__pending_connect){id, sock, target};
        *deferred = true;
        return 0;
    }
    if (wait)
        err = -EAGAIN; /* too many waiting at once */
    bsh__close(target);
    close(sock);
    return err;
}

/* Whether pending connect `p` is done, with its outcome (0 or -errno) in
 * `*err`. */
static bool completed(struct bsh__pending_connect *p, int *err)
{
    bool wait = false;
    if (p->target >= 0) { /* a full backlog: try again */
        *err = try_connect(p->sock, p->target, NULL, 0, &wait);
        return !wait;
    }
    struct pollfd pfd = {p->sock, POLLOUT, 0};
    if (poll(&pfd, 1, 0) <= 0)
        return false;
    int so_error = 0;
    socklen_t elen = sizeof(so_error);
    *err = getsockopt(p->sock, SOL_SOCKET, SO_ERROR, &so_error, &elen) < 0
               ? -errno
               : -so_error;
    return true;
}

void bsh__supervisor_follow(struct bsh__supervisor *sv)
{
    for (size_t i = 0; i < sv->npending;) {
        struct bsh__pending_connect *p = &sv->pending[i];
        int err = 0;
        /* A call that was interrupted (a signal) or whose process died is
         * no longer waited for. */
        bool waiting = still_waiting(sv, p->id);
        if (waiting && !completed(p, &err)) {
            i++;
            continue;
        }
        if (waiting)
            answer(sv, p->id, err);
        bsh__close(p->target);
        close(p->sock);
        sv->pending[i] = sv->pending[--sv->npending];
    }
}

/* Sizes the notifications as the running kernel's structures. */
static bool ask_sizes(struct bsh__supervisor *sv)
{
    struct seccomp_notif_sizes sizes;
    if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0)
        return false;
    sv->req_size = sizes.seccomp_notif > sizeof(struct seccomp_notif)
                       ? sizes.seccomp_notif
                       : sizeof(struct seccomp_notif);
    sv->resp_size = sizes.seccomp_notif_resp > sizeof(struct seccomp_notif_resp)
                        ? sizes.seccomp_notif_resp
                        : sizeof(struct seccomp_notif_resp);
    return true;
}

/* Inode flags that take a capability to change: the supervisor, which
 * may hold it, never changes them for the run (its capabilities may have
 * been dropped). */
#define FLAGS_PRIVILEGED (FS_IMMUTABLE_FL | FS_APPEND_FL | FS_JOURNAL_DATA_FL)

/* chattr (FS_IOC_SETFLAGS) of the run, which no Landlock right covers:
 * carried out on the run's own open file, taken with pidfd_getfd, when
 * that file lies in a writable place; the flags are read once. 0 or
 * -errno. */
static int set_flags_for(const struct bsh__supervisor *sv, pid_t pid,
                         uint64_t id, const struct seccomp_data *d)
{
    int flags, old;
    if ((unsigned int)d->args[1] != (unsigned int)FS_IOC_SETFLAGS)
        return -EPERM;
    if (!peek(pid, d->args[2], &flags, sizeof(flags)))
        return -EFAULT;
    int fd = take_fd(pid, (int)d->args[0]);
    if (fd < 0)
        return fd == -EBADF ? -EBADF : -EACCES;
    char self[64];
    int err = 0;
    if (!still_waiting(sv, id))
        err = -ENOENT;
    else if (!fd_in_place(sv, fd, self))
        err = -EACCES; /* as Landlock answers a write outside */
    else if (bsh__ioctl(fd, FS_IOC_GETFLAGS, &old) < 0)
        err = -errno;
    else
        err = ((flags ^ old) & FLAGS_PRIVILEGED) != 0       ? -EPERM
              : bsh__ioctl(fd, FS_IOC_SETFLAGS, &flags) < 0 ? -errno
                                                            : 0;
    close(fd);
    return err;
}

/* The run's call `id` fails with `err` (-errno; 0: success), or, with
 * `go_on`, is made by the kernel as the run asked. */
static void respond(const struct bsh__supervisor *sv, uint64_t id, int err,
                    bool go_on)
{
    /* On the stack: an answer is never lost to a failed allocation (the
     * run's call would wait until the run ends). */
    union {
        struct seccomp_notif_resp resp;
        char room[256]; // cppcheck-suppress unusedStructMember
    } buf;
    memset(&buf, 0, sizeof(buf));
    if (sv->resp_size > sizeof(buf))
        return; /* a kernel's answer larger than 256 bytes: not yet */
    buf.resp.id = id;
    buf.resp.error = err;
    buf.resp.flags = go_on ? SECCOMP_USER_NOTIF_FLAG_CONTINUE : 0;
    bsh__ioctl(sv->listener, SECCOMP_IOCTL_NOTIF_SEND, &buf.resp);
}

static void answer(const struct bsh__supervisor *sv, uint64_t id, int err)
{
    respond(sv, id, err, false);
}

static void let_continue(const struct bsh__supervisor *sv, uint64_t id)
{
    respond(sv, id, 0, true);
}

bool bsh__supervisor_serve(struct bsh__supervisor *sv)
{
    struct pollfd p = {sv->listener, POLLIN, 0};
    if (poll(&p, 1, 0) < 0 || (p.revents & (POLLHUP | POLLERR | POLLNVAL)))
        return false; /* the last filtered process is gone */
    if (!(p.revents & POLLIN))
        return true;
    if (sv->req_size == 0 && !ask_sizes(sv))
        return false;
    struct seccomp_notif *req = calloc(1, sv->req_size);
    if (req != NULL &&
        bsh__ioctl(sv->listener, SECCOMP_IOCTL_NOTIF_RECV, req) == 0) {
        struct request rq;
        char path[PATH_MAX] = "";
        int err = -EPERM;
        bool deferred = false, go_on = false;
        pid_t pid = (pid_t)req->pid;
        /* The process may have gone and its pid been reused since it
         * asked: only an id that is still valid is carried out. */
        bool valid = bsh__ioctl(sv->listener, SECCOMP_IOCTL_NOTIF_ID_VALID,
                                &req->id) == 0;
        if (!valid)
            err = -ENOENT;
        else if (req->data.nr == SYS_connect)
            err = connect_for(sv, pid, req->id, &req->data, &deferred);
        else if (req->data.nr == SYS_bind)
            go_on = note_bind(sv, pid, req->id, &req->data);
        else if (req->data.nr == SYS_ioctl)
            err = set_flags_for(sv, pid, req->id, &req->data);
        else if (parse(&req->data, &rq) &&
                 (!rq.has_path ||
                  peek_path(pid, rq.path_addr, path, sizeof(path))))
            err = carry_out(sv, pid, &rq, path);
        if (go_on)
            let_continue(sv, req->id);
        else if (!deferred)
            answer(sv, req->id, err);
    }
    free(req);
    return true;
}
