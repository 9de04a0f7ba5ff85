/* SPDX-License-Identifier: MIT */
/*
 * The stream of one run: its step loop and its lifecycle.
 *
 * One poll loop moves a stream forward. It waits on whatever can tell it
 * something (pollset.h): the output fds (two pipes, or the PTY master), the
 * child's exit watch once output has ended, and an eventfd that a cancel
 * writes to; the next wake-up (deadline.h) is the wait's bound. No thread,
 * no SIGCHLD, no waitpid(-1) (child.h).
 *
 * Order of precedence on every step: a cancel, then a passed deadline or
 * idle timeout (must_end()), then data. Reads are at most BSH_CHUNK_MAX
 * bytes into the stream's one buffer and alternate between stdout and
 * stderr, so neither starves.
 *
 * Where the next features plug in: stdin (a writable slot in the poll set
 * and a bounded buffer flushed by this loop), signals and resize (calls on
 * the child and the master), containment and limits (the spawn and the
 * child's end), the end report (filled at the status item), the sandbox
 * (the spawn).
 */
#define _GNU_SOURCE
#include "stream.h"
#include "graveyard.h"
#include "procinfo.h"
#include "runstate.h"
#include "tmpdir.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

/* A step that changed the phase: dispatch again. */
#define STEP_AGAIN 2

/* Makes the stream poll readable without an fd event, for the phases
 * that have an item ready at once, and for a cancel. */
static void wake(struct bsh_stream *s)
{
    int fd = atomic_load(&s->wakefd);
    if (fd < 0)
        return;
    uint64_t one = 1;
    ssize_t n = write(fd, &one, sizeof(one));
    (void)n; /* a full counter is still readable */
}

/* Makes the eventfd through which a cancel (or a phase with an item ready)
 * wakes a wait: false when it cannot be had. A cancel that came before it
 * existed is passed on. */
static bool make_wakefd(struct bsh_stream *s)
{
    if (atomic_load(&s->wakefd) >= 0)
        return true;
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (fd < 0)
        return false;
    if (bsh__pollset_watch(&s->polls, SLOT_WAKE, fd) < 0) {
        close(fd);
        return false;
    }
    atomic_store(&s->wakefd, fd);
    if (atomic_load(&s->cancelled) > s->cancels_seen)
        wake(s);
    return true;
}

static void set_error_v(struct bsh_stream *s, enum bsh_error_kind kind,
                        const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

static void set_error_v(struct bsh_stream *s, enum bsh_error_kind kind,
                        const char *fmt, va_list ap)
{
    if (vsnprintf(s->error, sizeof(s->error), fmt, ap) < 0)
        s->error[0] = '\0';
    s->error_kind = kind;
}

static void set_error(struct bsh_stream *s, enum bsh_error_kind kind,
                      const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_error(struct bsh_stream *s, enum bsh_error_kind kind,
                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error_v(s, kind, fmt, ap);
    va_end(ap);
}

void bsh__stream_fail(struct bsh_stream *s, enum bsh_error_kind kind,
                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error_v(s, kind, fmt, ap);
    va_end(ap);
    s->phase = PHASE_ERROR;
    wake(s);
}

/* Records why waiting for the child failed. ECHILD and ESRCH mean that
 * something else reaped it: a caller that ignores SIGCHLD gets its
 * children reaped by the kernel. */
static void wait_error(struct bsh_stream *s, int err)
{
    set_error(s, BSH_ERR_WAIT, "failed to wait for bash process: %s",
              err == ECHILD || err == ESRCH
                  ? "the child was reaped elsewhere (is SIGCHLD ignored?)"
                  : strerror(err));
}

/* Ends the stream with its error (or silently, for the wrapper). */
static int end_with_error(struct bsh_stream *s)
{
    s->phase = PHASE_DONE;
    return s->quiet ? 0 : BSH_ESTREAM;
}

/* ---- time -------------------------------------------------------------- */

/* Whether the run's command may still be going: running, or in its
 * grace after SIGTERM (its output is read, its stdin written). */
static bool live(const struct bsh_stream *s)
{
    return s->phase == PHASE_RUNNING || s->phase == PHASE_GRACE;
}

/* When the stream must look again without an fd event; false: never. */
static bool next_wake(const struct bsh_stream *s, struct timespec *at)
{
    bool has = false;
    if (s->phase == PHASE_ENDING) {
        *at = s->kill_deadline;
        has = true;
    } else if (s->phase == PHASE_GRACE) {
        *at = s->grace_until;
        has = true;
    } else if (s->phase == PHASE_RUNNING) {
        if (s->deadline.set) {
            *at = s->deadline.at;
            has = true;
        }
        if (s->idle_ms > 0) {
            struct timespec idle = mono_add_ms(s->last_output, s->idle_ms);
            if (!has || mono_before(idle, *at))
                *at = idle;
            has = true;
        }
    }
    /* A hung-up master, or an ending without an exit watch, or a connect
     * of the run that the supervisor waits on: look soon. */
    int soon_ms = live(s) && s->master_hup ? BSH__HUP_RECHECK_MS
                  : s->phase == PHASE_ENDING && s->child.watch < 0 ? 2
                  : bsh__supervisor_busy(&s->sup) ? BSH__PENDING_LOOK_MS
                                                  : -1;
    if (soon_ms > 0) {
        struct timespec soon = mono_add_ms(mono_now(), soon_ms);
        if (!has || mono_before(soon, *at))
            *at = soon;
        has = true;
    }
    return has;
}

/* Keeps the pollable fd's timer on the next wake-up (no-op until the
 * pollable fd exists). */
static void sync_timer(struct bsh_stream *s)
{
    if (s->polls.epfd < 0)
        return;
    struct timespec at = {0, 0};
    bool want = next_wake(s, &at);
    if (!want && s->deadline.timerfd < 0)
        return; /* no timer wanted, none made */
    int fd = bsh__deadline_timer(&s->deadline, want, at);
    if (fd >= 0)
        bsh__pollset_watch(&s->polls, SLOT_TIMER, fd);
}

/* ---- stdin ----------------------------------------------------------------
 */

/* Keeps SLOT_IN watched exactly while stdin bytes wait; an fd that is done
 * with leaves the poll set before it is closed (for a PTY it is a second
 * fd of the master, which the epoll set would otherwise go on reporting). */
static void settle_input(struct bsh_stream *s)
{
    if (bsh__input_done(&s->input))
        bsh__pollset_unwatch(&s->polls, SLOT_IN);
    int fd = bsh__input_settle(&s->input);
    if (fd >= 0)
        bsh__pollset_watch(&s->polls, SLOT_IN, fd);
    else if (s->polls.fd[SLOT_IN] >= 0)
        bsh__pollset_unwatch(&s->polls, SLOT_IN);
}

static void flush_input(struct bsh_stream *s)
{
    bsh__input_flush(&s->input);
    settle_input(s);
}

static void release_input(struct bsh_stream *s)
{
    bsh__pollset_unwatch(&s->polls, SLOT_IN);
    bsh__input_release(&s->input);
}

/* ---- waiting ------------------------------------------------------------- */

/* The exit watch polled readable. Once the child has exited the watch
 * stays readable, so it leaves the poll set. */
static void note_exit(struct bsh_stream *s)
{
    if (bsh__child_check_exit(&s->child))
        bsh__pollset_unwatch(&s->polls, SLOT_EXIT);
}

static void release_supervisor(struct bsh_stream *s);

/* A blocking wait of a run younger than this looks at the cancel flag
 * when it is over instead of making an eventfd for a cancel to write to:
 * most runs end sooner, and an fd costs two system calls and kernel
 * memory. A cancel in that time is seen when it is over. */
#define CANCEL_LOOK_MS 10

/* Moves `at` (a wake-up, if `has`) so that a cancel is not missed: no
 * later than the young run's first CANCEL_LOOK_MS; then, when no eventfd
 * can be made, every CANCEL_LOOK_MS. */
static void bound_for_cancel(struct bsh_stream *s, bool *has,
                             struct timespec *at)
{
    if (atomic_load(&s->wakefd) >= 0)
        return;
    struct timespec now = mono_now(),
                    look = mono_add_ms(s->started, CANCEL_LOOK_MS);
    if (!mono_before(now, look)) {
        if (make_wakefd(s))
            return;
        look = mono_add_ms(now, CANCEL_LOOK_MS);
    }
    if (!*has || mono_before(look, *at))
        *at = look;
    *has = true;
}

/* Waits for events (or only looks, when !block) and takes them in.
 * Returns the number of ready slots. */
static int wait_events(struct bsh_stream *s, bool block)
{
    struct timespec at = {0, 0}, left, zero = {0, 0};
    bool has = block && next_wake(s, &at);
    if (block)
        bound_for_cancel(s, &has, &at);
    const struct timespec *timeout =
        !block ? &zero : bsh__deadline_left(has, at, &left);
    int n;
    if (!block && s->by_pollfds) /* what the caller's poll found, once */
        n = __builtin_popcount(s->polls.ready);
    else
        n = bsh__pollset_wait(&s->polls, timeout);
    for (int i = 0; i < 2; i++)
        if (bsh__pollset_take(&s->polls, (enum bsh__slot)(SLOT_OUT + i)))
            s->ready[i] = true;
    if (bsh__pollset_take(&s->polls, SLOT_EXIT))
        note_exit(s);
    if (bsh__pollset_take(&s->polls, SLOT_IN))
        flush_input(s);
    if (bsh__pollset_take(&s->polls, SLOT_NOTIFY) &&
        !bsh__supervisor_serve(&s->sup))
        release_supervisor(s);
    if (bsh__supervisor_busy(&s->sup))
        bsh__supervisor_follow(&s->sup);
    /* SLOT_WAKE: a cancel, seen through its flag; SLOT_TIMER: the clock. */
    s->polls.ready = 0;
    return n;
}

/* Starts watching for the child's exit; -1 with errno when it cannot. */
static int watch_exit(struct bsh_stream *s)
{
    if (s->polls.fd[SLOT_EXIT] >= 0 || s->child.exited)
        return 0;
    int fd = bsh__child_watch(&s->child);
    return fd < 0 ? -1 : bsh__pollset_watch(&s->polls, SLOT_EXIT, fd);
}

/* The exit cannot be watched (out of fds): the run ends with an error. */
static int watch_failed(struct bsh_stream *s, int err);

/* ---- the end of a run ---------------------------------------------------- */

static void close_outputs(struct bsh_stream *s)
{
    release_input(s);
    bsh__pollset_forget(&s->polls, SLOT_OUT);
    bsh__pollset_forget(&s->polls, SLOT_ERR);
    s->out[0] = bsh__close(s->out[0]);
    s->out[1] = bsh__close(s->out[1]);
    s->held_master = bsh__close(s->held_master);
    s->master_hup = false;
}

/* The calls that wait on the sandbox's supervisor, answered now: a
 * caller of try_next woke on the stream's fd, perhaps for one of them,
 * and the guessing reads below never ask the poll set. Bounded, so that a
 * listener that stays readable cannot hold the caller. */
static void serve_notifications(struct bsh_stream *s)
{
    if (bsh__supervisor_busy(&s->sup))
        bsh__supervisor_follow(&s->sup);
    for (int i = 0; i < 64 && s->sup.listener >= 0; i++) {
        struct pollfd p = {s->sup.listener, POLLIN, 0};
        if (poll(&p, 1, 0) <= 0)
            return;
        if (!bsh__supervisor_serve(&s->sup))
            release_supervisor(s);
    }
}

/* The run is over: a call still waiting on the supervisor fails. */
static void release_supervisor(struct bsh_stream *s)
{
    if (s->sup.listener >= 0)
        bsh__pollset_forget(&s->polls, SLOT_NOTIFY);
    bsh__supervisor_release(&s->sup);
}

/* The run is over and its status was handed out (or never will be): its
 * private temporary directory goes. Not before the status: on a disk
 * file system removing a directory costs more than a tenth of a
 * millisecond, which the caller need not wait for. */
static void remove_tmpdir(struct bsh_stream *s)
{
    if (s->tmpdir != NULL)
        bsh__tmpdir_remove(s->tmpdir);
    free(s->tmpdir);
    s->tmpdir = NULL;
}

static void release_all(struct bsh_stream *s)
{
    bsh__contain_unlist(&s->contain);
    release_supervisor(s);
    close_outputs(s);
    bsh__pollset_unwatch(&s->polls, SLOT_EXIT);
    bsh__child_release(&s->child);
}

/* Kills the run and starts the bounded wait for the child: the status
 * (or the timeout item) comes once it has been reaped. Output still
 * unread is dropped: the run is over. */
static int finish(struct bsh_stream *s)
{
    s->phase = PHASE_ENDING;
    bsh__contain_unlist(&s->contain);
    if (s->want_report)
        s->killed = bsh__contain_pids(&s->contain, false, NULL, 1 << 20);
    /* Killed before the PTY master closes, whose hang-up would otherwise
     * reach the session first as SIGHUP. */
    s->kill_errno = bsh__contain_signal(&s->contain, &s->child, SIGKILL);
    close_outputs(s);
    /* A group we may not signal at all (its processes turned into another
     * user) will not die: no use waiting for it. */
    s->kill_deadline =
        mono_add_ms(mono_now(), s->kill_errno == EPERM ? 0 : BSH__KILL_WAIT_MS);
    return STEP_AGAIN;
}

/* A cancel's eventfd count, read so that the pollable fd stops polling
 * readable while the run ends gracefully. */
static void drain_wake(struct bsh_stream *s)
{
    uint64_t n;
    int fd = atomic_load(&s->wakefd);
    if (fd >= 0 && read(fd, &n, sizeof(n)) < 0)
        n = 0;
}

/* Ends the run for `why` (timeout, idle or cancel): with a grace period,
 * SIGTERM to the whole run and on with its output until the period is
 * over; otherwise SIGKILL at once. */
static int end_run(struct bsh_stream *s, enum bsh_end_reason why)
{
    s->end_reason = why;
    s->end_timed_out =
        why == BSH_END_TIMEOUT || why == BSH_END_IDLE || why == BSH_END_LIMIT;
    if (why == BSH_END_CANCEL)
        drain_wake(s);
    bsh__report_diagnose(s);
    if (s->grace_ms > 0 &&
        bsh__contain_signal(&s->contain, &s->child, SIGTERM) == 0) {
        s->phase = PHASE_GRACE;
        s->grace_until = mono_add_ms(mono_now(), s->grace_ms);
        s->cancels_seen = atomic_load(&s->cancelled);
        return 0;
    }
    return finish(s);
}

/* Whether the run must end now, and why (BSH_END_NONE: not yet). */
static enum bsh_end_reason must_end(struct bsh_stream *s)
{
    if (s->phase == PHASE_GRACE) /* over, or a second cancel: SIGKILL now */
        return mono_ns_until(s->grace_until) <= 0 ||
                       atomic_load(&s->cancelled) > s->cancels_seen
                   ? BSH_END_CANCEL
                   : BSH_END_NONE;
    if (atomic_load(&s->cancelled))
        return BSH_END_CANCEL;
    if (s->limit_hit == BSH_LIMIT_OUTPUT)
        return BSH_END_LIMIT;
    if (bsh__deadline_passed(&s->deadline))
        return BSH_END_TIMEOUT;
    if (s->idle_ms > 0 &&
        mono_ns_until(mono_add_ms(s->last_output, s->idle_ms)) <= 0)
        return BSH_END_IDLE;
    return BSH_END_NONE;
}

/* Gives up on a child that will not die: the graveyard reaps it later,
 * without blocking anyone; the stream ends with an error that says so. */
static int abandon(struct bsh_stream *s)
{
    if (s->kill_errno != 0)
        set_error(s, BSH_ERR_KILL,
                  "failed to kill the run: %s; process %d (which may have "
                  "changed its user id) was left running",
                  strerror(s->kill_errno), (int)s->child.pid);
    else
        set_error(s, BSH_ERR_KILL,
                  "process %d did not exit within %d ms of SIGKILL; it was "
                  "left running",
                  (int)s->child.pid, BSH__KILL_WAIT_MS);
    bsh__pollset_unwatch(&s->polls, SLOT_EXIT);
    bsh__child_abandon(&s->child);
    release_all(s);
    bsh__report_finish(s, NULL);
    return end_with_error(s);
}

/* PHASE_ENDING: reap the killed child, or give up when the wait is over. */
static int step_ending(struct bsh_stream *s, struct bsh_item *item, bool block)
{
    for (;;) {
        int r = bsh__child_reap(&s->child);
        if (r == 1) {
            release_all(s);
            s->phase = PHASE_DONE;
            bsh__child_status_item(&s->child, s->end_timed_out, item);
            if (s->end_reason == BSH_END_NONE)
                s->end_reason =
                    item->has_signal ? BSH_END_SIGNAL : BSH_END_EXIT;
            bsh__report_finish(s, item);
            return 1;
        }
        if (r < 0) {
            wait_error(s, errno);
            s->child.pid = -1;
            release_all(s);
            return end_with_error(s);
        }
        if (mono_ns_until(s->kill_deadline) <= 0)
            return abandon(s);
        if (watch_exit(s) < 0)
            bsh__child_release(&s->child); /* look every 2 ms instead */
        if (wait_events(s, block) == 0 && !block)
            return BSH_EAGAIN;
    }
}

/* Kills, reaps (bounded) and closes whatever the stream still runs; its
 * status, if any, is dropped. */
static void abort_run(struct bsh_stream *s)
{
    struct bsh_item dropped;
    if (live(s))
        finish(s);
    while (s->phase == PHASE_ENDING)
        step_ending(s, &dropped, true);
    release_all(s);
}

/* ---- output -------------------------------------------------------------- */

static int watch_failed(struct bsh_stream *s, int err)
{
    abort_run(s);
    wait_error(s, err);
    return end_with_error(s);
}

static int read_error(struct bsh_stream *s, int err)
{
    abort_run(s);
    set_error(s, BSH_ERR_READ, "failed to read output: %s", strerror(err));
    return end_with_error(s);
}

/* Stops reading output `i`. A pipe is closed; a PTY master stays open
 * until the end, because closing it would hang up the terminal and send
 * SIGHUP to a child that merely closed its own terminal fds. */
static void end_output(struct bsh_stream *s, int i)
{
    if (s->pty) {
        bsh__pollset_unwatch(&s->polls, SLOT_OUT);
        s->held_master = s->out[i];
    } else {
        bsh__pollset_forget(&s->polls, (enum bsh__slot)(SLOT_OUT + i));
        bsh__close(s->out[i]);
    }
    s->out[i] = -1;
    s->master_hup = false;
}

/* Every slave fd of the PTY is closed (EIO), yet the child lives: a
 * process may still open /dev/tty again, so the master stays; it is
 * looked at every BSH__HUP_RECHECK_MS and read to its end once the child
 * has exited. */
static int master_hung_up(struct bsh_stream *s)
{
    if (!s->master_hup) {
        s->master_hup = true;
        bsh__pollset_unwatch(&s->polls, SLOT_OUT);
    }
    return watch_exit(s) < 0 ? watch_failed(s, errno) : 0;
}

/* The master answered again: a slave was opened. */
static void master_back(struct bsh_stream *s)
{
    if (s->master_hup) {
        s->master_hup = false;
        bsh__pollset_watch(&s->polls, SLOT_OUT, s->out[0]);
    }
}

/* Cuts a read of `n` bytes to what the output limit leaves; notes when
 * the limit is passed (the run then ends, see must_end()). The bytes past
 * it are dropped: the run is over. */
static ssize_t within_output_limit(struct bsh_stream *s, ssize_t n)
{
    uint64_t used = s->bytes[0] + s->bytes[1];
    uint64_t room = (uint64_t)s->limits.output_bytes - used;
    if ((uint64_t)n > room) {
        s->limit_hit = BSH_LIMIT_OUTPUT;
        return (ssize_t)room;
    }
    return n;
}

/* Reads one chunk from output `i`. Returns 1 with an item, 0 when nothing
 * was read (drained or EOF), or an error. */
static int read_chunk(struct bsh_stream *s, int i, struct bsh_item *item)
{
    ssize_t n;
    do
        n = read(s->out[i], s->buf, sizeof(s->buf));
    while (n < 0 && errno == EINTR);
    if (n > 0 || (n < 0 && errno == EAGAIN))
        master_back(s);
    if (s->guessing) { /* learn which outputs are busy */
        s->idle[i] = n < 0 && errno == EAGAIN ? s->idle[i] + 1 : 0;
        s->got_data |= n > 0;
    }
    if (n > 0 && s->limits.output_bytes > 0 &&
        (n = within_output_limit(s, n)) == 0)
        return 0; /* still ready: the step loop sees the limit next */
    if (n > 0) {
        s->bytes[i] += (uint64_t)n;
        s->last_output = mono_now();
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
    if (n < 0 && errno == EAGAIN)
        return 0;
    /* EIO: how a PTY master says that no slave fd is open. It is the end
     * only once the child has exited. */
    if (n < 0 && errno == EIO && s->pty && !s->child.exited)
        return master_hung_up(s);
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
        if (s->out[i] < 0 || !s->ready[i])
            continue;
        int rc = read_chunk(s, i, item);
        if (rc != 0 || !live(s)) {
            s->turn = 1 - i;
            return rc;
        }
    }
    return 0;
}

static bool outputs_open(const struct bsh_stream *s)
{
    return s->out[0] >= 0 || s->out[1] >= 0;
}

static bool outputs_ready(const struct bsh_stream *s)
{
    return (s->out[0] >= 0 && s->ready[0]) || (s->out[1] >= 0 && s->ready[1]);
}

/* Both outputs have ended: the child's exit is what is left to see. A
 * child that has exited by now needs no exit watch at all. One look: a
 * process closes its files a little before it becomes a zombie, but
 * looking again for 20 us (tried) found it in no more runs here and
 * cost 9 % more CPU per run of `true`. */
static int await_exit(struct bsh_stream *s)
{
    if (!s->child.exited && s->polls.fd[SLOT_EXIT] < 0 &&
        !bsh__child_exited_now(&s->child) && watch_exit(s) < 0)
        return watch_failed(s, errno);
    return s->child.exited ? finish(s) : 0;
}

/* An output that had nothing on this many guesses in a row is read on a
 * wake only when the others had nothing either. */
#define IDLE_GUESSES 2

/* Marks open outputs as ready to read: those not believed idle
 * (`all` false), or every one. Returns how many it marked. */
static int guess_ready(struct bsh_stream *s, bool all)
{
    int n = 0;
    for (int i = 0; i < 2; i++) {
        if (s->out[i] >= 0 && !s->ready[i] &&
            (all || s->idle[i] < IDLE_GUESSES)) {
            s->ready[i] = true;
            n++;
        }
    }
    return n;
}

/* Waits, or without blocking decides that nothing is ready.
 *
 * A caller of try_next polls the stream's fd between BSH_EAGAIN and its
 * next call, and while output flows that fd is readable because of an
 * output. So the next call reads the open outputs straight away instead
 * of asking the poll set what it already told the caller: first those
 * that had data last time, then, if none had, the others. It looks
 * through the poll set only for the child's exit. */
static int wait_or_give_up(struct bsh_stream *s, bool block)
{
    if (block) {
        wait_events(s, true);
        return 0;
    }
    if (s->by_pollfds) /* what the caller's poll found, once */
        return wait_events(s, false) > 0 ? 0 : BSH_EAGAIN;
    serve_notifications(s);
    bool second_pass = s->guessing && !s->got_data;
    s->guessing = false;
    if (second_pass && guess_ready(s, true) > 0)
        return 0; /* the outputs believed idle, once */
    if (s->polls.fd[SLOT_EXIT] >= 0 && !s->looked) {
        s->looked = true;
        if (wait_events(s, false) > 0)
            return 0;
    }
    s->looked = false;
    s->woken = true;
    return BSH_EAGAIN;
}

/* The first non-blocking step after a BSH_EAGAIN: the caller's poll most
 * likely woke for output. */
static void take_wake(struct bsh_stream *s, bool block)
{
    if (block || !s->woken)
        return;
    s->woken = false;
    s->guessing = true;
    s->got_data = false;
    if (guess_ready(s, false) == 0)
        guess_ready(s, true);
}

static int step_running(struct bsh_stream *s, struct bsh_item *item, bool block)
{
    if (bsh__input_buffered(&s->input) > 0)
        flush_input(s);
    take_wake(s, block);
    for (;;) {
        enum bsh_end_reason why = must_end(s);
        if (why != BSH_END_NONE) {
            int rc = s->phase == PHASE_GRACE ? finish(s) : end_run(s, why);
            if (rc != 0)
                return rc;
        }
        if (s->master_hup)
            s->ready[0] = true; /* look again */
        if (outputs_open(s)) {
            int rc = read_ready_output(s, item);
            if (rc != 0 || !live(s))
                return rc;
            if (outputs_ready(s) || !outputs_open(s))
                continue;
        } else {
            int rc = await_exit(s);
            if (rc != 0 || !live(s))
                return rc;
        }
        int rc = wait_or_give_up(s, block);
        if (rc != 0)
            return rc;
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
            s->end_reason = BSH_END_TIMEOUT;
            bsh__child_status_item(&s->child, true, item);
            return 1;
        case PHASE_RUNNING:
        case PHASE_GRACE:
            rc = step_running(s, item, block);
            break;
        case PHASE_ENDING:
            rc = step_ending(s, item, block);
            break;
        case PHASE_DONE:
            remove_tmpdir(s);
            return 0;
        }
        if (rc == BSH_EAGAIN)
            sync_timer(s);
        if (rc != STEP_AGAIN)
            return rc;
    }
}

/* ---- the public calls ------------------------------------------------------
 */

int bsh_stream_next(struct bsh_stream *s, struct bsh_item *item)
{
    return next_item(s, item, true);
}

int bsh_stream_try_next(struct bsh_stream *s, struct bsh_item *item)
{
    return next_item(s, item, false);
}

int bsh_stream_fd(struct bsh_stream *s)
{
    if (s == NULL)
        return -1;
    if (s->polls.epfd < 0) {
        if (!make_wakefd(s) || bsh__pollset_pollable(&s->polls) < 0)
            return -1;
        if (s->phase == PHASE_ERROR || s->phase == PHASE_TIMEOUT)
            wake(s); /* an item is ready at once */
        sync_timer(s);
    }
    return s->polls.epfd;
}

/* The longest a caller of bsh_stream_pollfds may sleep: 0 when there is
 * something to do now, -1 without a bound. */
static int pollfds_timeout(const struct bsh_stream *s)
{
    if (!live(s) && s->phase != PHASE_ENDING)
        return 0; /* an item (or the end) is ready at once */
    if (s->polls.ready != 0 ||
        (live(s) && (outputs_ready(s) || s->limit_hit != BSH_LIMIT_NONE ||
                     atomic_load(&s->cancelled) > s->cancels_seen)))
        return 0;
    struct timespec at;
    if (!next_wake(s, &at))
        return -1;
    int64_t ns = mono_ns_until(at);
    if (ns <= 0)
        return 0;
    int64_t ms = (ns + 999999) / 1000000; /* never wake early */
    return ms > INT_MAX ? INT_MAX : (int)ms;
}

int bsh_stream_pollfds(struct bsh_stream *s, struct pollfd *fds, int max,
                       int *timeout_ms)
{
    if (s == NULL || timeout_ms == NULL || max < 0 || (fds == NULL && max > 0))
        return BSH_EINVAL;
    int n = 0;
    for (int i = 0; i < SLOT_COUNT; i++)
        n += i != SLOT_TIMER && s->polls.fd[i] >= 0;
    if (n > max)
        return BSH_EINVAL;
    s->by_pollfds = true;
    n = 0;
    for (int i = 0; i < SLOT_COUNT; i++)
        if (i != SLOT_TIMER && s->polls.fd[i] >= 0)
            fds[n++] = (struct pollfd){s->polls.fd[i],
                                       i == SLOT_IN ? POLLOUT : POLLIN, 0};
    *timeout_ms = pollfds_timeout(s);
    return n;
}

int bsh_stream_polled(struct bsh_stream *s, const struct pollfd *fds, int n)
{
    if (s == NULL || n < 0 || (fds == NULL && n > 0))
        return BSH_EINVAL;
    /* Taken, and cleared, by the next step's wait_events(). */
    for (int k = 0; k < n; k++) {
        if (fds[k].revents == 0 || fds[k].fd < 0)
            continue;
        for (int i = 0; i < SLOT_COUNT; i++)
            if (s->polls.fd[i] == fds[k].fd)
                s->polls.ready |= 1u << i;
    }
    return BSH_OK;
}

void bsh_stream_cancel(struct bsh_stream *s)
{
    if (s == NULL)
        return;
    atomic_fetch_add(&s->cancelled, 1);
    wake(s);
}

int64_t bsh_stream_write(struct bsh_stream *s, const void *data, size_t len)
{
    if (s == NULL || (data == NULL && len > 0) || !s->stdin_asked)
        return BSH_EINVAL;
    if (!live(s))
        return BSH_ECLOSED;
    int64_t n = bsh__input_write(&s->input, data, len);
    int err = errno;
    settle_input(s);
    if (n < 0)
        return err == ENOMEM && bsh__input_open_for_writes(&s->input)
                   ? BSH_ENOMEM
                   : BSH_ECLOSED;
    return n;
}

int bsh_stream_close_stdin(struct bsh_stream *s)
{
    if (s == NULL || !s->stdin_asked)
        return BSH_EINVAL;
    if (!live(s) || bsh__input_close(&s->input) < 0)
        return BSH_ECLOSED;
    settle_input(s);
    return BSH_OK;
}

int bsh_stream_signal(struct bsh_stream *s, int sig)
{
    if (s == NULL || sig <= 0 || sig >= NSIG)
        return BSH_EINVAL;
    if (!live(s))
        return BSH_ECLOSED;
    bsh__contain_signal(&s->contain, &s->child, sig);
    return BSH_OK;
}

/* The PTY master while the run goes on, or -1. */
int bsh__stream_master(const struct bsh_stream *s)
{
    if (!s->pty || !live(s))
        return -1;
    return s->out[0] >= 0 ? s->out[0] : s->held_master;
}

int bsh_stream_resize(struct bsh_stream *s, int rows, int cols)
{
    if (s == NULL || !s->pty || rows <= 0 || cols <= 0 || rows > 0xffff ||
        cols > 0xffff)
        return BSH_EINVAL;
    struct winsize ws = {(unsigned short)rows, (unsigned short)cols, 0, 0};
    int m = bsh__stream_master(s);
    if (m < 0 || ioctl(m, TIOCSWINSZ, &ws) < 0)
        return BSH_ECLOSED;
    return BSH_OK;
}

const char *bsh_stream_error(const struct bsh_stream *s)
{
    return s != NULL && s->error_kind != BSH_ERR_NONE ? s->error : NULL;
}

enum bsh_end_reason bsh_stream_end_reason(const struct bsh_stream *s)
{
    return s != NULL && s->phase == PHASE_DONE && s->error_kind == BSH_ERR_NONE
               ? s->end_reason
               : BSH_END_NONE;
}

enum bsh_error_kind bsh_stream_error_kind(const struct bsh_stream *s)
{
    return s != NULL ? s->error_kind : BSH_ERR_NONE;
}

int bsh_stream_pid(const struct bsh_stream *s)
{
    return s != NULL ? (int)s->child.pid : -1;
}

/* ---- lifecycle --------------------------------------------------------------
 */

struct bsh_stream *bsh__stream_new(bool quiet)
{
    /* On a cache line, and with it the read buffer at its start. */
    void *mem = NULL;
    if (posix_memalign(&mem, 64, sizeof(struct bsh_stream)) != 0)
        return NULL;
    struct bsh_stream *s = mem;
    memset(s, 0, sizeof(*s));
    s->phase = PHASE_DONE; /* until run.c has started something */
    s->quiet = quiet;
    bsh__child_init(&s->child, -1);
    bsh__contain_init(&s->contain);
    s->killed = -1;
    s->out[0] = s->out[1] = s->held_master = -1;
    bsh__input_init(&s->input);
    bsh__supervisor_init(&s->sup);
    bsh__pollset_init(&s->polls);
    bsh__deadline_init(&s->deadline);
    atomic_init(&s->cancelled, 0);
    atomic_init(&s->wakefd, -1); /* made when a wait needs it */
    return s;
}

void bsh__stream_configure(struct bsh_stream *s,
                           const struct bsh__stream_config *cfg)
{
    if (cfg->timeout_ms > 0)
        bsh__deadline_start(&s->deadline, cfg->started, cfg->timeout_ms);
    s->started = cfg->started;
    s->idle_ms = cfg->idle_ms;
    s->grace_ms = cfg->grace_ms;
    s->want_report = cfg->report;
    s->stdin_asked = cfg->stdin_asked;
}

void bsh__stream_set_limits(struct bsh_stream *s,
                            const struct bsh_limits *limits,
                            const struct bsh_limits *defaults)
{
    s->limits = *limits;
    s->default_limits = *defaults;
}

void bsh__stream_start(struct bsh_stream *s, const struct bsh__started *p)
{
    bsh__child_init(&s->child, p->pid);
    bsh__contain_enter(&s->contain, p->pid);
    s->pty = p->pty;
    s->out[0] = p->out_fd;
    s->out[1] = p->err_fd;
    if (p->in_fd >= 0)
        bsh__input_open(&s->input, p->in_fd, p->pty);
    for (int i = 0; i < 2; i++)
        if (s->out[i] >= 0)
            bsh__pollset_watch(&s->polls, (enum bsh__slot)(SLOT_OUT + i),
                               s->out[i]);
    s->woken = true; /* the first try_next reads at once */
    s->last_output = mono_now();
    s->phase = PHASE_RUNNING;
}

void bsh__stream_note_sandbox(struct bsh_stream *s,
                              const struct bsh_sandbox_report *r)
{
    s->report.sandbox = *r;
}

void bsh__stream_supervise(struct bsh_stream *s, struct bsh__supervisor *sup)
{
    s->sup = *sup;
    bsh__supervisor_init(sup); /* moved: the caller's is empty now */
    if (bsh__pollset_watch(&s->polls, SLOT_NOTIFY, s->sup.listener) < 0)
        bsh__supervisor_release(&s->sup); /* its calls then fail */
}

void bsh__stream_own_tmpdir(struct bsh_stream *s, char *tmpdir)
{
    remove_tmpdir(s);
    s->tmpdir = tmpdir;
}

void bsh__stream_time_out_now(struct bsh_stream *s)
{
    abort_run(s);
    s->phase = PHASE_TIMEOUT;
    wake(s);
}

void bsh_stream_free(struct bsh_stream *s)
{
    if (s == NULL)
        return;
    abort_run(s);
    release_input(s);
    release_supervisor(s);
    remove_tmpdir(s);
    bsh__contain_release(&s->contain, 0);
    free(s->diagnosis);
    bsh__pollset_release(&s->polls);
    bsh__deadline_release(&s->deadline);
    bsh__close(atomic_load(&s->wakefd));
    free(s);
    bsh__graveyard_sweep();
}
