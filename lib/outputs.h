/* SPDX-License-Identifier: MIT */
/*
 * A run's two outputs (outputs.c): the stdout and stderr pipes, or the
 * PTY master, with the one read buffer, the bytes delivered, the output
 * limit and a PTY master's hang-up. Reads only: which fd the stream's poll
 * set watches follows from bsh__outputs_watched(), and the stream keeps
 * the two in step.
 */
#ifndef BSH_OUTPUTS_H
#define BSH_OUTPUTS_H

#include "bsh/bsh.h"

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct bsh__outputs {
    /* First, so that the stream's cache-line aligned allocation puts it on
     * a cache line: the kernel copies into it on every read. */
    unsigned char buf[BSH_CHUNK_MAX];
    int fd[2];     /* stdout, stderr (PTY: master, -1); -1 once ended */
    bool ready[2]; /* believed readable without polling */
    int turn;      /* which output to read first */
    bool pty;
    int held_master;   /* PTY master after its EOF, kept open until the end */
    bool master_hup;   /* PTY: no slave fd open (EIO), the child alive */
    uint64_t bytes[2]; /* delivered: stdout, stderr */
    int64_t limit;     /* on stdout + stderr; 0: none */
    bool limit_hit;    /* the limit was passed: the run must end */
    int read_err;      /* READ_FAILED: -errno of the read */
    struct timespec last_output; /* when output last came (or the start) */
};

/* What one read found. */
enum bsh__read {
    READ_DATA,    /* bytes in buf */
    READ_EMPTY,   /* nothing now (EAGAIN) */
    READ_LIMITED, /* the output limit left no room: nothing delivered */
    READ_ENDED,   /* the output ended (EOF; EIO of a PTY whose child exited) */
    READ_HUNG_UP, /* a PTY master without a slave fd, the child alive */
    READ_FAILED,  /* a read error: -errno in read_err */
};

void bsh__outputs_init(struct bsh__outputs *o);

/* Starts reading `out_fd` and `err_fd` (-1: none), owned from now on. */
void bsh__outputs_open(struct bsh__outputs *o, int out_fd, int err_fd, bool pty,
                       struct timespec now);

/* Reads one chunk of output `i` into o->buf; `child_exited` decides
 * whether a PTY master's EIO is its end. READ_DATA sets *len. */
enum bsh__read bsh__outputs_read(struct bsh__outputs *o, int i,
                                 bool child_exited, size_t *len);

/* Output `i` gave an item (or ended the run): the other goes first next
 * time, so that neither starves. */
void bsh__outputs_took_turn(struct bsh__outputs *o, int i);

/* A hung-up PTY master is read again on the next step: the kernel cannot
 * say when a slave is opened again. */
void bsh__outputs_recheck(struct bsh__outputs *o);

bool bsh__outputs_any_open(const struct bsh__outputs *o);
bool bsh__outputs_any_ready(const struct bsh__outputs *o);

/* The fd that the stream's poll set should watch for output `i`: -1 when
 * it has ended, or while a PTY master is hung up. */
int bsh__outputs_watched(const struct bsh__outputs *o, int i);

/* The PTY master while it is open (read or held), or -1. */
int bsh__outputs_master(const struct bsh__outputs *o);

/* Closes every output (the run is over; unread output is dropped). */
void bsh__outputs_close(struct bsh__outputs *o);

#endif
