/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "sink.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* A file description of our own on the same pipe or terminal, with
 * O_NONBLOCK; -1 when there is none (no /proc, no permission, a FIFO
 * without a reader). */
static int reopen_nonblocking(int fd)
{
    char path[32];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    return open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
}

void sink_open(struct sink *k, int fd, size_t limit)
{
    memset(k, 0, sizeof(*k));
    k->fd = fd;
    k->limit = limit;
    struct stat st;
    int flags = fcntl(fd, F_GETFL);
    if (fstat(fd, &st) < 0 || flags < 0 || (flags & O_NONBLOCK))
        return; /* a bad fd fails at the first write; O_NONBLOCK: as is */
    if (S_ISSOCK(st.st_mode)) {
        k->socket = true;
    } else if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
        int own = reopen_nonblocking(fd);
        k->owned = own >= 0;
        k->blocking = own < 0;
        if (own >= 0)
            k->fd = own;
    }
}

/* One write of up to `n` bytes; the count written, 0 when the fd would
 * block, -1 on error. */
static ssize_t write_some(struct sink *k, const char *p, size_t n)
{
    ssize_t w;
    do
        w = k->socket ? send(k->fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL)
                      : write(k->fd, p, n);
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
