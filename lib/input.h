/* SPDX-License-Identifier: MIT */
/*
 * A run's stdin as the caller writes it (input.c): the write end of a pipe
 * or a duplicate of the PTY master, non-blocking, and a bounded buffer of
 * what the command has not taken yet. The stream flushes the buffer from
 * its poll loop (slot SLOT_IN, watched for writability while bytes wait).
 */
#ifndef BSH_INPUT_H
#define BSH_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bsh__input {
    int fd;             /* -1: no stdin, or closed */
    bool pty;           /* typed into a terminal */
    bool close_pending; /* close once the buffer is written */
    bool ended;         /* the command's end is gone, or closed */
    bool at_line_start; /* PTY: the last byte typed ended a line */
    unsigned char *buf; /* allocated on first use */
    size_t head, len;   /* bytes waiting: buf[head .. head + len) */
};

void bsh__input_init(struct bsh__input *in);

/* Takes over `fd` (non-blocking, close-on-exec). */
void bsh__input_open(struct bsh__input *in, int fd, bool pty);

/* Writes what fits now and buffers the rest (bounded): the bytes taken,
 * or -EPIPE when stdin is closed (the command's end is gone: EPIPE or EIO
 * ends it), or -ENOMEM. */
int64_t bsh__input_write(struct bsh__input *in, const void *data, size_t len);

/* Writes what it can of the buffered bytes. */
void bsh__input_flush(struct bsh__input *in);

/* After a write, flush or close: closes the fd once it is done with (all
 * written after a close, or the command's end gone), so the caller must
 * stop watching it first. Returns the fd to watch for writability, or -1
 * when nothing waits. */
int bsh__input_settle(struct bsh__input *in);

/* Closes once the buffer is out (PTY: types the EOF character). 0, or
 * -EPIPE when already closed. */
int bsh__input_close(struct bsh__input *in);

/* Whether the fd is done with: all written after a close, or the
 * command's end gone. bsh__input_settle() then closes it. */
bool bsh__input_done(const struct bsh__input *in);

/* Bytes taken but not yet written. */
size_t bsh__input_buffered(const struct bsh__input *in);

/* Whether writes are still taken. */
bool bsh__input_open_for_writes(const struct bsh__input *in);

/* Closes the fd and drops the buffer: the run is over. */
void bsh__input_release(struct bsh__input *in);

#endif
