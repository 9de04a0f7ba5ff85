/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "sink.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A file description of our own on the same pipe or terminal, with
 * O_NONBLOCK; -1 when there is none (no /proc, no permission: the pipe or
 * terminal belongs to another user, a FIFO without a reader). */
static int reopen_nonblocking(int fd)
{
    char path[32];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    return open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
}

/* Whether `fd` is the master side of a pseudo-terminal: reopening its
 * /proc link would open /dev/ptmx, a new terminal pair. */
static bool pty_master(int fd)
{
    /* TIOCGPTN by the system call: the C libraries' ioctl differ in the
     * request's type (musl's int cannot hold it), and ptsname_r also wants
     * the slave's /dev/pts node, which need not be visible here. */
    unsigned int n;
    return syscall(SYS_ioctl, fd, TIOCGPTN, &n) == 0;
}

/* Whether O_NONBLOCK can be set on `fd`'s file description (and is left
 * as it was). */
static bool can_toggle(int fd, int flags)
{
    if (fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
        return false;
    fcntl(fd, F_SETFL, flags);
    return true;
}

/* Only what reopens to the same object: a pipe or FIFO, a terminal's
 * slave side. Never a pty master or another character device. */
static bool reopens_safely(int fd, const struct stat *st)
{
    return S_ISFIFO(st->st_mode) ||
           (S_ISCHR(st->st_mode) && isatty(fd) && !pty_master(fd));
}

void sink_open(struct sink *k, int fd, size_t limit)
{
    memset(k, 0, sizeof(*k));
    k->fd = fd;
    k->limit = limit;
    k->mode = SINK_AS_IS;
    struct stat st;
    int flags = fcntl(fd, F_GETFL);
    if (fstat(fd, &st) < 0 || flags < 0 || (flags & O_NONBLOCK))
        return; /* a bad fd fails at the first write; O_NONBLOCK: as is */
    if (S_ISSOCK(st.st_mode)) {
        k->mode = SINK_SOCKET;
        return;
    }
    if (!S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode))
        return; /* files: their writes do not wait on a reader */
    int own = reopens_safely(fd, &st) ? reopen_nonblocking(fd) : -1;
    if (own >= 0) {
        k->fd = own;
        k->owned = true;
    } else if (S_ISFIFO(st.st_mode)) {
        k->mode = SINK_PIPE_CHUNKS;
    } else if (can_toggle(fd, flags)) {
        k->mode = SINK_TOGGLE;
    } else {
        k->blocking = true;
    }
}

/* A pipe that polls writable has room for PIPE_BUF bytes at least: that
 * much goes in without blocking. Another writer of the same pipe could
 * take the room between the poll and the write; then the write waits for
 * the reader, as theirs do. Setting O_NONBLOCK on the shared description
 * instead would make that writer's writes fail with EAGAIN. */
static ssize_t write_pipe_chunk(int fd, const char *p, size_t n)
{
    struct pollfd pfd = {fd, POLLOUT, 0};
    if (poll(&pfd, 1, 0) < 0)
        return -1;
    if (pfd.revents == 0) {
        errno = EAGAIN;
        return -1;
    }
    return write(fd, p, n < PIPE_BUF ? n : PIPE_BUF);
}

/* O_NONBLOCK on the shared file description for one write only, so the
 * others who write to it (the terminal's shell) find it as it was. */
static ssize_t write_toggled(int fd, const char *p, size_t n)
{
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
        return write(fd, p, n);
    ssize_t w = write(fd, p, n);
    int saved = errno;
    fcntl(fd, F_SETFL, flags);
    errno = saved;
    return w;
}

static ssize_t write_once(const struct sink *k, const char *p, size_t n)
{
    switch (k->mode) {
    case SINK_SOCKET:
        return send(k->fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
    case SINK_PIPE_CHUNKS:
        return write_pipe_chunk(k->fd, p, n);
    case SINK_TOGGLE:
        return write_toggled(k->fd, p, n);
    default:
        return write(k->fd, p, n);
    }
}

/* One write of up to `n` bytes; the count written, 0 when the fd would
 * block, -1 on error. */
static ssize_t write_some(struct sink *k, const char *p, size_t n)
{
    ssize_t w;
    do
        w = write_once(k, p, n);
    while (w < 0 && errno == EINTR);
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return 0;
    if (w < 0)
        k->error = errno;
    return w;
}

int sink_flush(struct sink *k)
{
    if (k->error != 0)
        return -1;
    while (k->off < k->len) {
        ssize_t w = write_some(k, k->buf + k->off, k->len - k->off);
        if (w < 0)
            return -1;
        if (w == 0)
            return 1;
        k->off += (size_t)w;
    }
    k->off = k->len = 0;
    return 0;
}

static int enqueue(struct sink *k, const char *p, size_t n)
{
    if (k->off > 0 && k->len + n > k->cap) { /* reuse the flushed front */
        memmove(k->buf, k->buf + k->off, k->len - k->off);
        k->len -= k->off;
        k->off = 0;
    }
    if (k->len + n > k->cap) {
        size_t cap = k->cap ? k->cap : 4096;
        while (cap < k->len + n)
            cap *= 2;
        char *b = realloc(k->buf, cap);
        if (b == NULL) {
            k->error = ENOMEM;
            return -1;
        }
        k->buf = b;
        k->cap = cap;
    }
    memcpy(k->buf + k->len, p, n);
    k->len += n;
    return 0;
}

int sink_write(struct sink *k, const void *data, size_t n)
{
    const char *p = data;
    if (k->error != 0)
        return -1;
    while (n > 0 && k->off == k->len) { /* nothing queued: write directly */
        ssize_t w = write_some(k, p, n);
        if (w < 0)
            return -1;
        if (w == 0)
            break;
        p += w;
        n -= (size_t)w;
    }
    return n > 0 ? enqueue(k, p, n) : 0;
}

void sink_close(struct sink *k)
{
    if (k->owned)
        close(k->fd);
    free(k->buf);
    memset(k, 0, sizeof(*k));
    k->fd = -1;
}

int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}
