/* SPDX-License-Identifier: MIT */
/*
 * A run's outputs: reads into the one buffer, alternating between stdout
 * and stderr so that neither starves, counted and cut at the output
 * limit. A PTY master needs care at its end: closing it would hang up the
 * terminal and send SIGHUP to a child that merely closed its own terminal
 * fds, and its EIO means "no slave fd open", which is the end only once
 * the child has exited.
 */
#define _GNU_SOURCE
#include "outputs.h"
#include "internal.h"
#include "mono.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

void bsh__outputs_init(struct bsh__outputs *o)
{
    memset(o, 0, sizeof(*o));
    o->fd[0] = o->fd[1] = o->held_master = -1;
}

void bsh__outputs_open(struct bsh__outputs *o, int out_fd, int err_fd, bool pty,
                       struct timespec now)
{
    o->fd[0] = out_fd;
    o->fd[1] = err_fd;
    o->pty = pty;
    o->last_output = now;
}

/* Stops reading output `i`: a pipe is closed, a PTY master is held. */
static void end_output(struct bsh__outputs *o, int i)
{
    if (o->pty)
        o->held_master = o->fd[i];
    else
        bsh__close(o->fd[i]);
    o->fd[i] = -1;
    o->ready[i] = false;
    o->master_hup = false;
}

/* Cuts a read of `n` bytes to what the output limit leaves; notes when
 * the limit is passed (the run then ends). The bytes past it are
 * dropped: the run is over. */
static ssize_t within_limit(struct bsh__outputs *o, ssize_t n)
{
    uint64_t used = o->bytes[0] + o->bytes[1];
    uint64_t room = (uint64_t)o->limit - used;
    if ((uint64_t)n > room) {
        o->limit_hit = true;
        return (ssize_t)room;
    }
    return n;
}

enum bsh__read bsh__outputs_read(struct bsh__outputs *o, int i,
                                 bool child_exited, size_t *len)
{
    ssize_t n;
    do
        n = read(o->fd[i], o->buf, sizeof(o->buf));
    while (n < 0 && errno == EINTR);
    if (n > 0 || (n < 0 && errno == EAGAIN))
        o->master_hup = false; /* a slave was opened again */
    if (n > 0 && o->limit > 0 && (n = within_limit(o, n)) == 0)
        return READ_LIMITED; /* still ready: the run ends next */
    if (n > 0) {
        o->bytes[i] += (uint64_t)n;
        o->last_output = mono_now();
        /* A full read suggests more is waiting: read again before polling. */
        o->ready[i] = n == (ssize_t)sizeof(o->buf);
        *len = (size_t)n;
        return READ_DATA;
    }
    o->ready[i] = false;
    if (n < 0 && errno == EAGAIN)
        return READ_EMPTY;
    if (n < 0 && errno == EIO && o->pty && !child_exited) {
        o->master_hup = true;
        return READ_HUNG_UP;
    }
    if (n == 0 || errno == EIO) {
        end_output(o, i);
        return READ_ENDED;
    }
    o->read_err = -errno;
    return READ_FAILED;
}

void bsh__outputs_took_turn(struct bsh__outputs *o, int i)
{
    o->turn = 1 - i;
}

void bsh__outputs_recheck(struct bsh__outputs *o)
{
    if (o->master_hup)
        o->ready[0] = true;
}

bool bsh__outputs_any_open(const struct bsh__outputs *o)
{
    return o->fd[0] >= 0 || o->fd[1] >= 0;
}

bool bsh__outputs_any_ready(const struct bsh__outputs *o)
{
    return (o->fd[0] >= 0 && o->ready[0]) || (o->fd[1] >= 0 && o->ready[1]);
}

int bsh__outputs_watched(const struct bsh__outputs *o, int i)
{
    return o->master_hup ? -1 : o->fd[i];
}

int bsh__outputs_master(const struct bsh__outputs *o)
{
    if (!o->pty)
        return -1;
    return o->fd[0] >= 0 ? o->fd[0] : o->held_master;
}

void bsh__outputs_close(struct bsh__outputs *o)
{
    o->fd[0] = bsh__close(o->fd[0]);
    o->fd[1] = bsh__close(o->fd[1]);
    o->held_master = bsh__close(o->held_master);
    o->ready[0] = o->ready[1] = false;
    o->master_hup = false;
}
