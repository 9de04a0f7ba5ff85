/* SPDX-License-Identifier: MIT */
/*
 * `bsh run -i`: bsh's stdin forwarded to the run's stdin as it arrives,
 * and its end forwarded as EOF (forward.c). bsh reads no more than the
 * stream takes, so a command that does not read holds the writer back,
 * as in any pipeline.
 */
#ifndef BSH_CLI_FORWARD_H
#define BSH_CLI_FORWARD_H

#include <bsh/bsh.h>

#define FORWARD_CHUNK 65536

struct forward {
    int fd;      /* bsh's stdin; -1 once its end was read */
    bool closed; /* the run's stdin is closed: nothing more to do */
    size_t off, len;
    unsigned char buf[FORWARD_CHUNK];
};

void forward_init(struct forward *f, int fd);

/* The fd to poll for input: bsh's stdin while all read so far has been
 * taken, else -1. */
int forward_poll_fd(const struct forward *f);

/* bsh's stdin polled readable: read what is there. */
void forward_read(struct forward *f);

/* Hands what was read to the stream, and its end once all is taken. */
void forward_push(struct forward *f, struct bsh_stream *s);

#endif
