/* SPDX-License-Identifier: MIT */
/*
 * An output that never blocks its writer: bytes go out with non-blocking
 * writes, and what the reader has not taken yet waits in a queue that the
 * owner's poll loop flushes when the fd polls writable (sink.c).
 *
 * The CLI and the MCP server write through sinks so that a reader that
 * stops reading (a full pipe, a stalled pager, a terminal stopped with
 * Ctrl-S, a client that does not read) can never keep them from acting on
 * a deadline or a signal.
 */
#ifndef BSH_FRONT_SINK_H
#define BSH_FRONT_SINK_H

#include <stdbool.h>
#include <stddef.h>

/* How a write is kept from blocking. */
enum sink_mode {
    SINK_AS_IS,       /* O_NONBLOCK already, a file, or our own reopened fd */
    SINK_SOCKET,      /* send(MSG_DONTWAIT) */
    SINK_PIPE_CHUNKS, /* a pipe we may not reopen: poll, then <= PIPE_BUF */
    SINK_TOGGLE,      /* a terminal or device we may not reopen: O_NONBLOCK
                         set around each write and cleared after */
};

struct sink {
    int fd;     /* what is written to: `fd` itself or a reopened copy */
    bool owned; /* `fd` was opened here (and is closed by sink_close) */
    enum sink_mode mode;
    bool blocking; /* no non-blocking way found: writes may block (the
                      owner says so at start) */
    char *buf;     /* the queue: bytes [off, len) wait to go out */
    size_t off, len, cap;
    size_t limit; /* sink_full() once this much waits */
    int error;    /* errno of the first failed write, or 0 */
};

/* Prepares writing to `fd` (not taken over). Pipes, FIFOs and terminal
 * slaves are reopened through /proc/self/fd with O_NONBLOCK, which gives
 * a file description of our own, so the flags of one that others share
 * (the caller's terminal) stay as they were. Where that is refused (the
 * pipe or terminal is another user's: sudo -u, runuser, su) or unsafe (a
 * pty master would reopen as a new terminal; other devices), a pipe gets
 * at most PIPE_BUF bytes a write once it polls writable, and a terminal
 * or device O_NONBLOCK around each write. Sockets are written with
 * MSG_DONTWAIT; regular files, whose writes do not wait on a reader, as
 * they are. */
void sink_open(struct sink *k, int fd, size_t limit);

/* Queues `n` bytes and writes what the fd takes now. 0, or -1 once a
 * write has failed (errno in k->error; EPIPE: the reader went away). */
int sink_write(struct sink *k, const void *data, size_t n);

/* Writes what is queued, as far as the fd takes it without blocking.
 * 0 when nothing is left, 1 while bytes wait, -1 after a failed write. */
int sink_flush(struct sink *k);

/* The bytes waiting for the reader. */
static inline size_t sink_queued(const struct sink *k)
{
    return k->len - k->off;
}

static inline bool sink_pending(const struct sink *k)
{
    return k->len > k->off && k->error == 0;
}

/* Enough waits that the producer should pause until a flush. */
static inline bool sink_full(const struct sink *k)
{
    return sink_queued(k) >= k->limit && k->error == 0;
}

void sink_close(struct sink *k);

/* Writes all of `buf` to `fd` (blocking), retrying short writes and EINTR;
 * 0, or -1 with errno (EPIPE when the reader went away). */
int write_all(int fd, const void *buf, size_t len);

#endif
