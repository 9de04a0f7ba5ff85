/* SPDX-License-Identifier: MIT */
/*
 * The stream of one run: its step loop and its lifecycle.
 *
 * One poll loop moves a stream forward. It polls whatever can: the output
 * fds (two pipes, or the PTY master), the child's exit watch once output
 * has ended, and an eventfd that a cancel writes to; the deadline is the
 * poll's timeout. No thread, no SIGCHLD, no waitpid(-1): the exit watch
 * says when our own child has exited.
 *
 * Order of precedence on every step: a cancel, then a passed deadline,
 * then data. Reads are at most BSH_CHUNK_MAX bytes into the stream's one
 * buffer and alternate between stdout and stderr, so neither starves.
 */
#define _GNU_SOURCE
#include "stream.h"
#include "graveyard.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <unistd.h>

/* A step that changed the phase: dispatch again. */
#define STEP_AGAIN 2

/* Makes the stream poll readable without an fd event, for the phases
 * that have an item ready at once, and for a cancel. */
void bsh__stream_wake(struct bsh_stream *s)
{
    if (s->wakefd < 0)
        return;
    uint64_t one = 1;
    ssize_t n = write(s->wakefd, &one, sizeof(one));
    (void)n; /* a full counter is still readable */
}

/* Records an error found before the run could start. */
void bsh__stream_fail(struct bsh_stream *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vsnprintf(s->error, sizeof(s->error), fmt, ap) < 0)
        s->error[0] = '\0';
    va_end(ap);
    s->has_error = true;
    s->phase = PHASE_ERROR;
    bsh__stream_wake(s);
}

static bool deadline_passed(struct bsh_stream *s)
{
    if (!s->deadline_set)
        return false;
    if (!s->deadline_hit)
        s->deadline_hit = mono_ns_until(s->deadline) <= 0;
    return s->deadline_hit;
}

/* The exit watch polled readable. Once the child has exited its fd stays
 * readable, so it leaves the pollable fd's set. */
static void note_exit(struct bsh_stream *s)
{
    s->exited = bsh__exitwatch_exited(&s->exit);
    if (s->exited)
        bsh__stream_fd_remove(s, s->exit.fd);
}

bool bsh__stream_next_wake(const struct bsh_stream *s, struct timespec *at)
{
    if (s->phase == PHASE_ENDING) {
        *at = s->kill_deadline;
        if (s->exit.fd < 0) { /* no exit watch: look every 2 ms */
            struct timespec soon = mono_add_ms(mono_now(), 2);
            if (mono_before(soon, *at))
                *at = soon;
        }
        return true;
    }
    if (s->phase != PHASE_RUNNING)
        return false;
    bool has = s->deadline_set;
    if (has)
        *at = s->deadline;
    if (s->master_hup) {
        struct timespec soon = mono_add_ms(mono_now(), BSH__HUP_RECHECK_MS);
        if (!has || mono_before(soon, *at))
            *at = soon;
        has = true;
    }
    return has;
}

/* The time left until the next wake-up, for ppoll (nanosecond precision:
 * the timeout item is due the moment the deadline passes); NULL without
 * one. */
static const struct timespec *time_left(const struct bsh_stream *s,
                                        struct timespec *left)
{
    struct timespec at;
    if (!bsh__stream_next_wake(s, &at))
        return NULL;
    int64_t ns = mono_ns_until(at);
    if (ns < 0)
        ns = 0;
    left->tv_sec = (time_t)(ns / 1000000000);
    left->tv_nsec = (long)(ns % 1000000000);
    return left;
}

/* Waits for events (or only looks, when !block) and records them. Returns
 * the number of fds that polled ready. */
static int wait_events(struct bsh_stream *s, bool block)
{
    struct pollfd p[4];
    enum bsh__tag tags[4];
    nfds_t n = 0;
    for (int i = 0; i < 2; i++) {
        if (s->fds[i] >= 0 && !(i == 0 && s->master_hup)) {
            p[n] = (struct pollfd){s->fds[i], POLLIN, 0};
            tags[n++] = (enum bsh__tag)i;
        }
    }
    if (s->exit_watched && !s->exited && s->exit.fd >= 0) {
        p[n] = (struct pollfd){s->exit.fd, POLLIN, 0};
        tags[n++] = TAG_EXIT;
    }
    p[n] = (struct pollfd){s->wakefd, POLLIN, 0};
    tags[n++] = TAG_WAKE;
    struct timespec left, zero = {0, 0};
    int rc = ppoll(p, n, block ? time_left(s, &left) : &zero, NULL);
    for (nfds_t k = 0; rc > 0 && k < n; k++) {
        if (p[k].revents == 0)
            continue;
        if (tags[k] == TAG_OUT || tags[k] == TAG_ERR)
            s->ready[tags[k]] = true;
        else if (tags[k] == TAG_EXIT)
            note_exit(s);
        /* TAG_WAKE: a cancel, seen through its flag. */
    }
    return rc > 0 ? rc : 0;
}

static void release_fds(struct bsh_stream *s)
{
    s->fds[0] = bsh__close(s->fds[0]);
    s->fds[1] = bsh__close(s->fds[1]);
    s->held_master = bsh__close(s->held_master);
    bsh__exitwatch_close(&s->exit);
}

static void status_item(struct bsh_item *item, int status, bool timed_out)
{
    memset(item, 0, sizeof(*item));
    item->kind = BSH_ITEM_STATUS;
    if (timed_out) {
        item->has_signal = true;
        item->signal = -1;
    } else if (WIFSIGNALED(status)) {
        item->has_signal = true;
        item->signal = WTERMSIG(status);
    } else {
        item->has_exit_code = true;
        item->exit_code = WEXITSTATUS(status);
    }
}

/* Records why waiting for the child failed. ECHILD and ESRCH mean that
 * something else reaped it: a caller that ignores SIGCHLD gets its
 * children reaped by the kernel. */
static void wait_error(struct bsh_stream *s, int err)
{
    const char *why = err == ECHILD || err == ESRCH
                          ? "the child was reaped elsewhere (is SIGCHLD "
                            "ignored?)"
                          : strerror(err);
    bsh__format(s->error, sizeof(s->error),
                "failed to wait for bash process: %s", why);
    s->has_error = true;
}

/* Ends the stream with an error (or silently, for the wrapper). */
static int end_with_error(struct bsh_stream *s)
{
    s->phase = PHASE_DONE;
    return s->quiet ? 0 : BSH_ESTREAM;
}

/* Kills the run and starts the bounded wait for the child: the status
 * (or the timeout item) comes once it has been reaped. Output still
 * unread is dropped: the run is over. */
static int finish(struct bsh_stream *s, bool timed_out)
{
    s->end_timed_out = timed_out;
    s->phase = PHASE_ENDING;
    /* The leader is not reaped yet, so its pid still names our group.
     * Killed before the PTY master closes, whose hang-up would otherwise
     * reach the session first as SIGHUP. */
    s->kill_errno = kill(-s->pid, SIGKILL) < 0 ? errno : 0;
    s->fds[0] = bsh__close(s->fds[0]);
    s->fds[1] = bsh__close(s->fds[1]);
    s->held_master = bsh__close(s->held_master);
    s->master_hup = false;
    /* A group we may not signal at all (its processes turned into another
     * user) will not die: no use waiting for it. */
    s->kill_deadline =
        mono_add_ms(mono_now(), s->kill_errno == EPERM ? 0 : BSH__KILL_WAIT_MS);
    if (!s->exit_watched) {
        s->exit_watched = true;
        int fd = bsh__exitwatch_arm(&s->exit);
        if (fd >= 0)
            bsh__stream_fd_add(s, fd, TAG_EXIT);
        /* Without an exit watch the wait is a poll of waitpid. */
    }
    return STEP_AGAIN;
}

/* Gives up on a child that will not die: the graveyard reaps it later,
 * without blocking anyone; the stream ends with an error that says so. */
static int abandon(struct bsh_stream *s)
{
    if (s->kill_errno != 0)
        bsh__format(s->error, sizeof(s->error),
                    "failed to kill the run: %s; process %d (which may have "
                    "changed its user id) was left running",
                    strerror(s->kill_errno), (int)s->pid);
    else
        bsh__format(s->error, sizeof(s->error),
                    "process %d did not exit within %d ms of SIGKILL; it "
                    "was left running",
                    (int)s->pid, BSH__KILL_WAIT_MS);
    s->has_error = true;
    bsh__stream_fd_remove(s, s->exit.fd);
    bsh__graveyard_add(s->pid, s->exit.polling ? -1 : s->exit.fd);
    if (!s->exit.polling)
        s->exit.fd = -1;
    s->pid = -1;
    release_fds(s);
    return end_with_error(s);
}

/* PHASE_ENDING: reap the killed child, or give up when the wait is over. */
static int step_ending(struct bsh_stream *s, struct bsh_item *item, bool block)
{
    for (;;) {
        int status = 0;
        pid_t r = waitpid(s->pid, &status, WNOHANG);
        if (r == s->pid) {
            s->pid = -1;
            release_fds(s);
            s->phase = PHASE_DONE;
            status_item(item, status, s->end_timed_out);
            return 1;
        }
        if (r < 0 && errno != EINTR) {
            int err = errno;
            s->pid = -1;
            release_fds(s);
            wait_error(s, err);
            return end_with_error(s);
        }
        if (mono_ns_until(s->kill_deadline) <= 0)
            return abandon(s);
        if (wait_events(s, block) == 0 && !block)
            return BSH_EAGAIN;
    }
}

static int read_error(struct bsh_stream *s, int err)
{
    bsh__format(s->error, sizeof(s->error), "failed to read output: %s",
                strerror(err));
    s->has_error = true;
    bsh__stream_abort(s);
    return end_with_error(s);
}

/* Stops reading output `i`. A pipe is closed; a PTY master stays open
 * until the end, because closing it would hang up the terminal and send
 * SIGHUP to a child that merely closed its own terminal fds. */
static void end_output(struct bsh_stream *s, int i)
{
    bsh__stream_fd_remove(s, s->fds[i]);
    if (s->pty) {
        s->held_master = s->fds[i];
        s->fds[i] = -1;
    } else {
        s->fds[i] = bsh__close(s->fds[i]);
    }
    s->master_hup = false;
}

/* Starts watching for the child's exit. The exit watch is polled only
 * once output has ended (or the PTY hung up): while output flows, an
 * exited child would keep it readable and spin the loop. */
static int watch_exit(struct bsh_stream *s)
{
    if (s->exit_watched)
        return 0;
    s->exit_watched = true;
    int fd = bsh__exitwatch_arm(&s->exit);
    if (fd < 0 || bsh__stream_fd_add(s, fd, TAG_EXIT) < 0) {
        wait_error(s, errno);
        bsh__stream_abort(s);
        return -1;
    }
    return 0;
}

/* Every slave fd of the PTY is closed (EIO), yet the child lives: a
 * process may still open /dev/tty again, so the master stays; it is
 * looked at every BSH__HUP_RECHECK_MS and read to its end once the child
 * has exited. */
static int master_hung_up(struct bsh_stream *s, int i)
{
    if (!s->master_hup) {
        s->master_hup = true;
        bsh__stream_fd_remove(s, s->fds[i]);
    }
    return watch_exit(s);
}

/* Reads one chunk from an output that polled readable. Returns 1 with an
 * item, 0 when nothing was read (drained or EOF), or an error. */
static int read_chunk(struct bsh_stream *s, int i, struct bsh_item *item)
{
    ssize_t n;
    do
        n = read(s->fds[i], s->buf, sizeof(s->buf));
    while (n < 0 && errno == EINTR);
    if (n > 0) {
        if (s->master_hup) { /* a slave was opened again */
            s->master_hup = false;
            bsh__stream_fd_add(s, s->fds[i], (enum bsh__tag)i);
        }
        /* A full read suggests more is waiting: read again before polling. */
        s->ready[i] = n == (ssize_t)sizeof(s->buf);
        memset(item, 0, sizeof(*item));
        item->kind = i == 0 ? BSH_ITEM_STDOUT : BSH_ITEM_STDERR;
        item->data = s->buf;
        item->len = (size_t)n;
        item->truncated = n == (ssize_t)sizeof(s->buf);
        return 1;
    }
    s->ready[i] = false;
    if (n < 0 && errno == EAGAIN) {
        if (s->master_hup) { /* reopened, nothing written yet */
            s->master_hup = false;
            bsh__stream_fd_add(s, s->fds[i], (enum bsh__tag)i);
        }
        return 0;
    }
    /* EIO: how a PTY master says that no slave fd is open. It is the end
     * only once the child has exited (SPEC 2.4). */
    if (n < 0 && errno == EIO && s->pty && !s->exited)
        return master_hung_up(s, i) < 0 ? end_with_error(s) : 0;
    if (n == 0 || errno == EIO) {
        end_output(s, i);
        return 0;
    }
    return read_error(s, errno);
}

static int read_ready_output(struct bsh_stream *s, struct bsh_item *item)
{
    for (int k = 0; k < 2; k++) {
        int i = (s->turn + k) % 2;
        if (s->fds[i] < 0 || !s->ready[i])
            continue;
        int rc = read_chunk(s, i, item);
        if (rc != 0 || s->phase != PHASE_RUNNING) {
            s->turn = 1 - i;
            return rc;
        }
    }
    return 0;
}

static bool outputs_open(const struct bsh_stream *s)
{
    return s->fds[0] >= 0 || s->fds[1] >= 0;
}

static bool outputs_ready(const struct bsh_stream *s)
{
    return (s->fds[0] >= 0 && s->ready[0]) || (s->fds[1] >= 0 && s->ready[1]);
}

static int step_running(struct bsh_stream *s, struct bsh_item *item, bool block)
{
    for (;;) {
        if (atomic_load(&s->cancelled))
            return finish(s, false);
        if (deadline_passed(s))
            return finish(s, true);
        if (s->master_hup)
            s->ready[0] = true; /* look again */
        if (outputs_open(s)) {
            int rc = read_ready_output(s, item);
            if (rc != 0 || s->phase != PHASE_RUNNING)
                return rc;
            if (outputs_ready(s) || !outputs_open(s))
                continue;
        } else {
            if (watch_exit(s) < 0)
                return end_with_error(s);
            if (s->exited)
                return finish(s, false);
        }
        if (wait_events(s, block) == 0 && !block)
            return BSH_EAGAIN;
    }
}

static int next_item(struct bsh_stream *s, struct bsh_item *item, bool block)
{
    if (s == NULL || item == NULL)
        return BSH_EINVAL;
    for (;;) {
        int rc = 0;
        switch (s->phase) {
        case PHASE_ERROR:
            return end_with_error(s);
        case PHASE_TIMEOUT:
            s->phase = PHASE_DONE;
            status_item(item, 0, true);
            return 1;
        case PHASE_RUNNING:
            rc = step_running(s, item, block);
            break;
        case PHASE_ENDING:
            rc = step_ending(s, item, block);
            break;
        case PHASE_DONE:
            return 0;
        }
        if (rc == BSH_EAGAIN)
            bsh__stream_fd_sync_timer(s);
        if (rc != STEP_AGAIN)
            return rc;
    }
}

int bsh_stream_next(struct bsh_stream *s, struct bsh_item *item)
{
    return next_item(s, item, true);
}

int bsh_stream_try_next(struct bsh_stream *s, struct bsh_item *item)
{
    return next_item(s, item, false);
}

/* Kills, reaps (bounded) and closes whatever the stream still runs; the
 * status, if any, is dropped. */
void bsh__stream_abort(struct bsh_stream *s)
{
    struct bsh_item dropped;
    if (s->phase == PHASE_RUNNING && s->pid > 0)
        finish(s, false);
    while (s->phase == PHASE_ENDING)
        step_ending(s, &dropped, true);
    release_fds(s);
}

void bsh_stream_cancel(struct bsh_stream *s)
{
    if (s == NULL)
        return;
    atomic_store(&s->cancelled, 1);
    bsh__stream_wake(s);
}

const char *bsh_stream_error(const struct bsh_stream *s)
{
    return s != NULL && s->has_error ? s->error : NULL;
}

int bsh_stream_pid(const struct bsh_stream *s)
{
    return s != NULL ? (int)s->pid : -1;
}

struct bsh_stream *bsh__stream_new(bool quiet)
{
    struct bsh_stream *s = aligned_alloc(64, sizeof(*s));
    if (s == NULL)
        return NULL;
    memset(s, 0, sizeof(*s));
    s->phase = PHASE_DONE; /* until run.c has started something */
    s->quiet = quiet;
    s->pid = -1;
    s->fds[0] = s->fds[1] = -1;
    s->held_master = s->epfd = s->timerfd = -1;
    s->exit.fd = -1;
    atomic_init(&s->cancelled, 0);
    s->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (s->wakefd < 0) /* e.g. out of fds: an error of the stream */
        bsh__stream_fail(s, "failed to start the run: %s", strerror(errno));
    return s;
}

void bsh_stream_free(struct bsh_stream *s)
{
    if (s == NULL)
        return;
    bsh__stream_abort(s);
    bsh__stream_fd_release(s);
    bsh__close(s->wakefd);
    free(s);
    bsh__graveyard_sweep();
}
