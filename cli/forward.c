/* SPDX-License-Identifier: MIT */
#include "forward.h"

#include <errno.h>
#include <unistd.h>

void forward_init(struct forward *f, int fd)
{
    f->fd = fd;
    f->closed = false;
    f->off = f->len = 0;
}

int forward_poll_fd(const struct forward *f)
{
    return !f->closed && f->len == 0 ? f->fd : -1;
}

void forward_read(struct forward *f)
{
    ssize_t n = read(f->fd, f->buf, sizeof(f->buf));
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) { /* the end, or an input that cannot be read: EOF */
        f->fd = -1;
        return;
    }
    f->off = 0;
    f->len = (size_t)n;
}

void forward_push(struct forward *f, struct bsh_stream *s)
{
    if (f->closed)
        return;
    if (f->len > 0) {
        int64_t n = bsh_stream_write(s, f->buf + f->off, f->len);
        if (n < 0) { /* the command closed its stdin, or the run ended */
            f->closed = true;
            f->len = 0;
            return;
        }
        f->off += (size_t)n;
        f->len -= (size_t)n;
    }
    if (f->len == 0 && f->fd < 0) {
        bsh_stream_close_stdin(s);
        f->closed = true;
    }
}
