/* SPDX-License-Identifier: MIT */
/*
 * Writing a run's stdin without blocking and without SIGPIPE.
 *
 * A write to a pipe whose reader is gone raises SIGPIPE in the writing
 * thread, which by default ends the caller's process. The library may not
 * change the process's signal dispositions, so each pipe write blocks
 * SIGPIPE in the calling thread only, and a SIGPIPE that this write
 * raised is taken back (sigtimedwait) before the mask is restored.
 */
#define _GNU_SOURCE
#include "input.h"
#include "bsh/bsh.h"
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/* Room past the bound for the EOF characters of a close. */
#define EOF_ROOM 2

void bsh__input_init(struct bsh__input *in)
{
    memset(in, 0, sizeof(*in));
    in->fd = -1;
    in->at_line_start = true;
}

void bsh__input_open(struct bsh__input *in, int fd, bool pty)
{
    in->fd = fd;
    in->pty = pty;
}

/* One write(2) that raises no SIGPIPE in the caller. A SIGPIPE that was
 * unblocked before cannot have been pending (it would have been taken),
 * so one that is pending after EPIPE is this write's own. */
static ssize_t write_quietly(int fd, const void *data, size_t len)
{
    sigset_t pipe_only, old;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
    ssize_t n;
    do
        n = write(fd, data, len);
    while (n < 0 && errno == EINTR);
    if (n < 0 && errno == EPIPE && !sigismember(&old, SIGPIPE)) {
        int saved = errno;
        struct timespec zero = {0, 0};
        while (sigtimedwait(&pipe_only, NULL, &zero) < 0 && errno == EINTR)
            ;
        errno = saved;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return n;
}

/* The command's end is gone: nothing more can be written. The fd is
 * closed by the stream (bsh__input_settle), which first stops watching
 * it. */
static void close_input(struct bsh__input *in)
{
    in->ended = true;
    in->len = in->head = 0;
}

/* Writes from `data`; the bytes written (0 when none fit), or -EPIPE
 * when the command's end is gone. */
static ssize_t write_now(struct bsh__input *in, const void *data, size_t len)
{
    ssize_t n =
        in->pty ? write(in->fd, data, len) : write_quietly(in->fd, data, len);
    if (n >= 0)
        return n;
    if (errno == EAGAIN || errno == EINTR)
        return 0;
    close_input(in); /* EPIPE, EIO: the command closed it or exited */
    return -EPIPE;
}

static bool buffer_append(struct bsh__input *in, const unsigned char *d,
                          size_t n)
{
    if (in->buf == NULL &&
        (in->buf = malloc(BSH_STDIN_BUFFER_MAX + EOF_ROOM)) == NULL)
        return false;
    if (in->head + in->len + n > BSH_STDIN_BUFFER_MAX + EOF_ROOM) {
        memmove(in->buf, in->buf + in->head, in->len);
        in->head = 0;
    }
    memcpy(in->buf + in->head + in->len, d, n);
    in->len += n;
    return true;
}

static void note_typed(struct bsh__input *in, const unsigned char *d, size_t n)
{
    if (n > 0)
        in->at_line_start = d[n - 1] == '\n' || d[n - 1] == '\r';
}

int64_t bsh__input_write(struct bsh__input *in, const void *data, size_t len)
{
    if (!bsh__input_open_for_writes(in))
        return -EPIPE;
    const unsigned char *d = data;
    size_t done = 0;
    if (in->len > 0) /* what waits goes first */
        bsh__input_flush(in);
    if (in->ended)
        return -EPIPE;
    if (in->len == 0 && len > 0) { /* nothing queued: straight through */
        ssize_t n = write_now(in, d, len);
        if (n < 0)
            return n;
        done = (size_t)n;
    }
    size_t room = BSH_STDIN_BUFFER_MAX - in->len;
    size_t keep = len - done < room ? len - done : room;
    if (keep > 0 && !buffer_append(in, d + done, keep))
        return done > 0 ? (int64_t)done : -ENOMEM;
    note_typed(in, d, done + keep);
    return (int64_t)(done + keep);
}

/* Types the terminal's EOF character: once at the start of a line, twice
 * after an unfinished one (the first only ends the line). */
static void queue_eof(struct bsh__input *in)
{
    struct termios t;
    unsigned char eof[2] = {4, 4}; /* ^D, the usual VEOF */
    if (tcgetattr(in->fd, &t) == 0 && t.c_cc[VEOF] != 0)
        eof[0] = eof[1] = t.c_cc[VEOF];
    buffer_append(in, eof, in->at_line_start ? 1 : 2);
    in->at_line_start = true;
}

void bsh__input_flush(struct bsh__input *in)
{
    while (in->fd >= 0 && !in->ended && in->len > 0) {
        ssize_t n = write_now(in, in->buf + in->head, in->len);
        if (n <= 0)
            break;
        in->head += (size_t)n;
        in->len -= (size_t)n;
        if (in->len == 0)
            in->head = 0;
    }
}

bool bsh__input_done(const struct bsh__input *in)
{
    return in->fd >= 0 && (in->ended || (in->close_pending && in->len == 0));
}

int bsh__input_settle(struct bsh__input *in)
{
    if (bsh__input_done(in)) {
        in->fd = bsh__close(in->fd);
        in->ended = true;
        in->len = in->head = 0;
    }
    return in->fd >= 0 && in->len > 0 ? in->fd : -1;
}

int bsh__input_close(struct bsh__input *in)
{
    if (!bsh__input_open_for_writes(in))
        return -EPIPE;
    if (in->pty)
        queue_eof(in);
    in->close_pending = true;
    bsh__input_flush(in);
    return 0;
}

size_t bsh__input_buffered(const struct bsh__input *in)
{
    return in->len;
}

bool bsh__input_open_for_writes(const struct bsh__input *in)
{
    return in->fd >= 0 && !in->ended && !in->close_pending;
}

void bsh__input_release(struct bsh__input *in)
{
    in->fd = bsh__close(in->fd);
    in->ended = true;
    in->len = in->head = 0;
    free(in->buf);
    in->buf = NULL;
}
