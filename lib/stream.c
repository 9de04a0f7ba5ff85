/* SPDX-License-Identifier: MIT */
/*
 * The stream of one run: its phase machine and its lifecycle.
 *
 * Each step dispatches on the phase (next_item()), and every phase change
 * happens here, in the table that docs/design.md mirrors: PHASE_RUNNING and
 * PHASE_GRACE read output (outputs.h) until the run must end
 * (ending.h) or has ended by itself; PHASE_ENDING reaps the killed child,
 * bounded; the other phases hand out one item each. The parts know nothing
 * of phases; this file keeps them in step: the poll set (waiter.h) watches
 * what the outputs, the child's exit watch, stdin and the supervisor say
 * can be waited on.
 *
 * Order of precedence on every step: a cancel, then a passed deadline or
 * idle timeout (bsh__ending_due()), then data. No thread, no SIGCHLD, no
 * waitpid(-1) (child.h).
 */
#define _GNU_SOURCE
#include "stream.h"
#include "graveyard.h"
#include "report.h"
#include "tmpdir.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

/* A step that changed the phase: dispatch again. */
#define STEP_AGAIN 2

/* ---- errors -------------------------------------------------------------- */

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
    bsh__session_run_end(&s->sess, BSH__NOT_STARTED, BSH_END_NONE,
                         BSH_LIMIT_NONE);
    bsh__waiter_wake(&s->wait);
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

/* ---- waking -------------------------------------------------------------- */

/* Whether the run's command may still be going: running, or in its
 * grace after SIGTERM (its output is read, its stdin written). */
static bool live(const struct bsh_stream *s)
{
    return s->phase == PHASE_RUNNING || s->phase == PHASE_GRACE;
}

/* The eventfd through which a cancel (or a phase with an item ready)
 * wakes a wait; false when it cannot be had. A cancel that came before it
 * existed is passed on. */
static bool make_wakefd(struct bsh_stream *s)
{
    if (bsh__waiter_has_wakefd(&s->wait))
        return true;
    if (bsh__waiter_make_wakefd(&s->wait) < 0)
        return false;
    if (atomic_load(&s->cancelled) > s->end.cancels_seen)
        bsh__waiter_wake(&s->wait);
    return true;
}

/* Moves `at` to `t` if `t` comes first (or nothing was there). */
static void earliest(bool *has, struct timespec *at, struct timespec t)
{
    if (!*has || mono_before(t, *at))
        *at = t;
    *has = true;
}

/* When the stream must look again without an fd event; false: never. */
static bool next_wake(const struct bsh_stream *s, struct timespec *at)
{
    bool has = false;
    struct timespec t;
    if (s->phase == PHASE_ENDING)
        earliest(&has, at, s->end.kill_deadline);
    else if (s->phase == PHASE_GRACE)
        earliest(&has, at, s->end.grace_until);
    else if (s->phase == PHASE_RUNNING) {
        if (s->deadline.set)
            earliest(&has, at, s->deadline.at);
        if (bsh__ending_idle_at(&s->end, s->out.last_output, &t))
            earliest(&has, at, t);
    }
    /* A hung-up master, or an ending without an exit watch, or a connect
     * of the run that the supervisor waits on: look soon. */
    int soon_ms = live(s) && s->out.master_hup ? BSH__HUP_RECHECK_MS
                  : s->phase == PHASE_ENDING && s->child.watch < 0 ? 2
                  : bsh__supervisor_busy(&s->sup) ? BSH__PENDING_LOOK_MS
                                                  : -1;
    if (soon_ms > 0)
        earliest(&has, at, mono_add_ms(mono_now(), soon_ms));
    return has;
}

/* Keeps the pollable fd's timer on the next wake-up. */
static void sync_timer(struct bsh_stream *s)
{
    struct timespec at = {0, 0};
    bool want = s->wait.polls.epfd >= 0 && next_wake(s, &at);
    bsh__waiter_set_timer(&s->wait, &s->deadline, want, at);
}

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
    if (bsh__waiter_has_wakefd(&s->wait))
        return;
    struct timespec now = mono_now(),
                    look = mono_add_ms(s->started, CANCEL_LOOK_MS);
    if (!mono_before(now, look)) {
        if (make_wakefd(s))
            return;
        look = mono_add_ms(now, CANCEL_LOOK_MS);
    }
    earliest(has, at, look);
}

/* ---- what the poll set watches --------------------------------------------
 */

/* Keeps SLOT_IN watched exactly while stdin bytes wait; an fd that is done
 * with leaves the poll set before it is closed (for a PTY it is a second
 * fd of the master, which the epoll set would otherwise go on reporting). */
static void settle_input(struct bsh_stream *s)
{
    struct bsh__pollset *ps = &s->wait.polls;
    if (bsh__input_done(&s->input))
        bsh__pollset_unwatch(ps, SLOT_IN);
    int fd = bsh__input_settle(&s->input);
    if (fd >= 0)
        bsh__pollset_watch(ps, SLOT_IN, fd);
    else if (ps->fd[SLOT_IN] >= 0)
        bsh__pollset_unwatch(ps, SLOT_IN);
}

static void flush_input(struct bsh_stream *s)
{
    bsh__input_flush(&s->input);
    settle_input(s);
}

static void release_input(struct bsh_stream *s)
{
    bsh__pollset_unwatch(&s->wait.polls, SLOT_IN);
    bsh__input_release(&s->input);
}

/* Keeps output `i`'s slot on the fd the outputs say is worth waiting on:
 * a pipe that ended was closed (its slot is forgotten); a PTY master that
 * ended or hung up stays open, unwatched, and is watched again when a
 * slave comes back. */
static void sync_output(struct bsh_stream *s, int i)
{
    struct bsh__pollset *ps = &s->wait.polls;
    enum bsh__slot slot = (enum bsh__slot)(SLOT_OUT + i);
    int want = bsh__outputs_watched(&s->out, i);
    if (ps->fd[slot] == want)
        return;
    if (want >= 0)
        bsh__pollset_watch(ps, slot, want);
    else if (s->out.pty)
        bsh__pollset_unwatch(ps, slot);
    else
        bsh__pollset_forget(ps, slot);
}

static void close_outputs(struct bsh_stream *s)
{
    release_input(s);
    bsh__pollset_forget(&s->wait.polls, SLOT_OUT);
    bsh__pollset_forget(&s->wait.polls, SLOT_ERR);
    bsh__outputs_close(&s->out);
}

/* The run is over: a call still waiting on the supervisor fails. */
static void release_supervisor(struct bsh_stream *s)
{
    if (s->sup.listener >= 0)
        bsh__pollset_forget(&s->wait.polls, SLOT_NOTIFY);
    bsh__supervisor_release(&s->sup);
}

/* The calls that wait on the sandbox's supervisor, answered now: a
 * caller of try_next woke on the stream's fd, perhaps for one of them,
 * and the guessing reads never ask the poll set. Bounded, so that a
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

/* Starts watching for the child's exit: 0, or -errno when it cannot. */
static int watch_exit(struct bsh_stream *s)
{
    if (s->wait.polls.fd[SLOT_EXIT] >= 0 || s->child.exited)
        return 0;
    int fd = bsh__child_watch(&s->child);
    return fd < 0 ? fd : bsh__pollset_watch(&s->wait.polls, SLOT_EXIT, fd);
}

/* Waits for events (or only looks, when !block) and takes them in.
 * Returns the number of ready slots. */
static int wait_events(struct bsh_stream *s, bool block)
{
    struct bsh__pollset *ps = &s->wait.polls;
    struct timespec at = {0, 0}, left;
    bool has = block && next_wake(s, &at);
    if (block)
        bound_for_cancel(s, &has, &at);
    int n =
        bsh__waiter_wait(&s->wait, block, bsh__deadline_left(has, at, &left));
    for (int i = 0; i < 2; i++)
        if (bsh__pollset_take(ps, (enum bsh__slot)(SLOT_OUT + i)))
            s->out.ready[i] = true;
    /* Once the child has exited the watch stays readable: it leaves. */
    if (bsh__pollset_take(ps, SLOT_EXIT) && bsh__child_check_exit(&s->child))
        bsh__pollset_unwatch(ps, SLOT_EXIT);
    if (bsh__pollset_take(ps, SLOT_IN))
        flush_input(s);
    if (bsh__pollset_take(ps, SLOT_NOTIFY) && !bsh__supervisor_serve(&s->sup))
        release_supervisor(s);
    if (bsh__supervisor_busy(&s->sup))
        bsh__supervisor_follow(&s->sup);
    /* SLOT_WAKE: a cancel, seen through its flag; SLOT_TIMER: the clock. */
    ps->ready = 0;
    return n;
}

/* ---- the end of a run ---------------------------------------------------- */

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
    bsh__pollset_unwatch(&s->wait.polls, SLOT_EXIT);
    bsh__child_release(&s->child);
}

/* Notes the live processes before bsh ends the run (opts.report). */
static void diagnose(struct bsh_stream *s)
{
    if (!s->want_report || s->diagnosis != NULL)
        return;
    s->diagnosis =
        bsh__report_diagnose(&s->contain, &s->report.diagnosis_count);
    s->report.diagnosis = s->diagnosis;
}

/* Fills the report once the child has been reaped (`status`) or
 * abandoned (NULL), and releases the containment. */
static void finish_report(struct bsh_stream *s, const struct bsh_item *status)
{
    struct bsh__report_input in = {s->started,  &s->out,    &s->child,
                                   &s->contain, &s->limits, s->want_report};
    bsh__report_fill(&s->report, &in, status);
    if (s->report.limit != BSH_LIMIT_NONE)
        s->end.reason = BSH_END_LIMIT;
    s->report.reason = s->end.reason;
    s->report.killed = s->end.killed;
    bsh__session_run_end(&s->sess,
                         status != NULL ? s->child.status : BSH__STATUS_UNKNOWN,
                         s->end.reason, s->report.limit);
    bsh__contain_release_limits(&s->contain);
    int left = bsh__contain_release(&s->contain,
                                    s->want_report ? BSH__GONE_WAIT_MS : 0);
    bsh__report_escaped(&s->report, left, s->want_report);
    s->has_report = true;
}

/* Kills the run and starts the bounded wait for the child: the status
 * (or the timeout item) comes once it has been reaped. Output still
 * unread is dropped: the run is over. Killed before the PTY master
 * closes, whose hang-up would otherwise reach the session first as
 * SIGHUP. */
static int finish(struct bsh_stream *s)
{
    s->phase = PHASE_ENDING;
    bsh__ending_kill(&s->end, &s->contain, &s->child, s->want_report);
    close_outputs(s);
    return STEP_AGAIN;
}

/* Ends the run for `why` (timeout, idle, limit or cancel): with a grace
 * period, SIGTERM to the whole run and on with its output until the
 * period is over; otherwise SIGKILL at once. */
static int end_run(struct bsh_stream *s, enum bsh_end_reason why)
{
    if (why == BSH_END_CANCEL) /* the fd stops polling readable */
        bsh__waiter_drain(&s->wait);
    diagnose(s);
    if (bsh__ending_begin(&s->end, why, &s->contain, &s->child,
                          atomic_load(&s->cancelled))) {
        s->phase = PHASE_GRACE;
        return 0;
    }
    return finish(s);
}

/* Gives up on a child that will not die: the graveyard reaps it later,
 * without blocking anyone; the stream ends with an error that says so. */
static int abandon(struct bsh_stream *s)
{
    if (s->end.kill_err != 0)
        set_error(s, BSH_ERR_KILL,
                  "failed to kill the run: %s; process %d (which may have "
                  "changed its user id) was left running",
                  strerror(-s->end.kill_err), (int)s->child.pid);
    else
        set_error(s, BSH_ERR_KILL,
                  "process %d did not exit within %d ms of SIGKILL; it was "
                  "left running",
                  (int)s->child.pid, BSH__KILL_WAIT_MS);
    bsh__pollset_unwatch(&s->wait.polls, SLOT_EXIT);
    bsh__child_abandon(&s->child);
    release_all(s);
    finish_report(s, NULL);
    return end_with_error(s);
}

/* PHASE_ENDING: reap the killed child, or give up when the wait is over. */
static int step_ending(struct bsh_stream *s, struct bsh_item *item, bool block)
{
    for (;;) {
        if (s->sess.session != NULL && s->child.pid > 0)
            bsh__session_run_peek(&s->sess, s->child.pid);
        int r = bsh__child_reap(&s->child);
        if (r == 1) {
            release_all(s);
            s->phase = PHASE_DONE;
            bsh__child_status_item(&s->child, s->end.timed_out, item);
            bsh__ending_reaped(&s->end, item);
            finish_report(s, item);
            return 1;
        }
        if (r < 0) {
            wait_error(s, -r);
            s->child.pid = -1;
            release_all(s);
            return end_with_error(s);
        }
        if (bsh__ending_gave_up(&s->end))
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

static int watch_failed(struct bsh_stream *s, int err)
{
    abort_run(s);
    wait_error(s, err);
    return end_with_error(s);
}

/* ---- output -------------------------------------------------------------- */

/* Reads one chunk from output `i`. Returns 1 with an item, 0 when nothing
 * was read (drained, at the limit, ended or hung up), or an error. */
static int read_output(struct bsh_stream *s, int i, struct bsh_item *item)
{
    size_t len = 0;
    enum bsh__read r = bsh__outputs_read(&s->out, i, s->child.exited, &len);
    int rc;
    bsh__guess_saw(&s->wait.guess, i, r == READ_EMPTY,
                   r == READ_DATA || r == READ_LIMITED);
    sync_output(s, i);
    switch (r) {
    case READ_DATA:
        memset(item, 0, sizeof(*item));
        item->kind = i == 0 ? BSH_ITEM_STDOUT : BSH_ITEM_STDERR;
        item->data = s->out.buf;
        item->len = len;
        item->truncated = len == sizeof(s->out.buf);
        return 1;
    case READ_EMPTY:
    case READ_LIMITED: /* still ready: the step loop sees the limit next */
    case READ_ENDED:
        return 0;
    case READ_HUNG_UP: /* it is looked at again until the child exits */
        return (rc = watch_exit(s)) < 0 ? watch_failed(s, -rc) : 0;
    case READ_FAILED:
        break;
    }
    abort_run(s);
    set_error(s, BSH_ERR_READ, "failed to read output: %s",
              strerror(-s->out.read_err));
    return end_with_error(s);
}

/* Reads the ready outputs, stdout and stderr in turn so that neither
 * starves, until one gives an item or the run ends. */
static int read_ready_output(struct bsh_stream *s, struct bsh_item *item)
{
    for (int k = 0; k < 2; k++) {
        int i = (s->out.turn + k) % 2;
        if (s->out.fd[i] < 0 || !s->out.ready[i])
            continue;
        int rc = read_output(s, i, item);
        if (rc != 0 || !live(s)) {
            bsh__outputs_took_turn(&s->out, i);
            return rc;
        }
    }
    return 0;
}

/* Both outputs have ended: the child's exit is what is left to see. A
 * child that has exited by now needs no exit watch at all. One look: a
 * process closes its files a little before it becomes a zombie, but
 * looking again for 20 us (tried) found it in no more runs here and
 * cost 9 % more CPU per run of `true`. */
static int await_exit(struct bsh_stream *s)
{
    int rc;
    if (!s->child.exited && s->wait.polls.fd[SLOT_EXIT] < 0 &&
        !bsh__child_exited_now(&s->child) && (rc = watch_exit(s)) < 0)
        return watch_failed(s, -rc);
    return s->child.exited ? finish(s) : 0;
}

/* Nothing is ready to read: waits, or without blocking decides that
 * nothing will be (see struct bsh__guess). */
static int wait_or_give_up(struct bsh_stream *s, bool block)
{
    if (block) {
        wait_events(s, true);
        return 0;
    }
    if (s->wait.by_pollfds) /* what the caller's poll found, once */
        return wait_events(s, false) > 0 ? 0 : BSH_EAGAIN;
    serve_notifications(s);
    for (;;) {
        switch (bsh__guess_give_up(&s->wait.guess, s->out.fd, s->out.ready,
                                   s->wait.polls.fd[SLOT_EXIT] >= 0)) {
        case GIVE_UP_READ:
            return 0;
        case GIVE_UP_LOOK:
            if (wait_events(s, false) > 0)
                return 0;
            continue;
        case GIVE_UP_AGAIN:
            return BSH_EAGAIN;
        }
    }
}

/* PHASE_RUNNING and PHASE_GRACE: output, until the run must end (or, in
 * the grace, the grace is over) or has ended by itself. */
static int step_running(struct bsh_stream *s, struct bsh_item *item, bool block)
{
    if (bsh__input_buffered(&s->input) > 0)
        flush_input(s);
    if (!block) /* the first step after an EAGAIN, or after the start */
        bsh__guess_wake(&s->wait.guess, s->out.fd, s->out.ready);
    for (;;) {
        enum bsh_end_reason why = bsh__ending_due(
            &s->end, s->phase == PHASE_GRACE, atomic_load(&s->cancelled),
            s->out.limit_hit, &s->deadline, s->out.last_output);
        if (why != BSH_END_NONE) {
            int rc = s->phase == PHASE_GRACE ? finish(s) : end_run(s, why);
            if (rc != 0)
                return rc;
        }
        bsh__outputs_recheck(&s->out);
        if (bsh__outputs_any_open(&s->out)) {
            int rc = read_ready_output(s, item);
            if (rc != 0 || !live(s))
                return rc;
            if (bsh__outputs_any_ready(&s->out) ||
                !bsh__outputs_any_open(&s->out))
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
            s->end.reason = BSH_END_TIMEOUT;
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
    if (s->wait.polls.epfd < 0) {
        if (!make_wakefd(s) || bsh__waiter_pollable(&s->wait) < 0)
            return -1;
        if (s->phase == PHASE_ERROR || s->phase == PHASE_TIMEOUT)
            bsh__waiter_wake(&s->wait); /* an item is ready at once */
        sync_timer(s);
    }
    return s->wait.polls.epfd;
}

/* The longest a caller of bsh_stream_pollfds may sleep: 0 when there is
 * something to do now, -1 without a bound. */
static int pollfds_timeout(const struct bsh_stream *s)
{
    if (!live(s) && s->phase != PHASE_ENDING)
        return 0; /* an item (or the end) is ready at once */
    if (s->wait.polls.ready != 0 ||
        (live(s) && (bsh__outputs_any_ready(&s->out) || s->out.limit_hit ||
                     atomic_load(&s->cancelled) > s->end.cancels_seen)))
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
    if (bsh__waiter_pollfds_count(&s->wait) > max)
        return BSH_EINVAL;
    int n = bsh__waiter_pollfds(&s->wait, fds);
    *timeout_ms = pollfds_timeout(s);
    return n;
}

int bsh_stream_polled(struct bsh_stream *s, const struct pollfd *fds, int n)
{
    if (s == NULL || n < 0 || (fds == NULL && n > 0))
        return BSH_EINVAL;
    bsh__waiter_polled(&s->wait, fds, n); /* taken by the next step */
    return BSH_OK;
}

void bsh_stream_cancel(struct bsh_stream *s)
{
    if (s == NULL)
        return;
    atomic_fetch_add(&s->cancelled, 1);
    bsh__waiter_wake(&s->wait);
}

int64_t bsh_stream_write(struct bsh_stream *s, const void *data, size_t len)
{
    if (s == NULL || (data == NULL && len > 0) || !s->stdin_asked)
        return BSH_EINVAL;
    if (!live(s))
        return BSH_ECLOSED;
    int64_t n = bsh__input_write(&s->input, data, len);
    settle_input(s);
    if (n < 0)
        return n == -ENOMEM && bsh__input_open_for_writes(&s->input)
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

int bsh__stream_master(const struct bsh_stream *s)
{
    return live(s) ? bsh__outputs_master(&s->out) : -1;
}

int bsh_stream_resize(struct bsh_stream *s, int rows, int cols)
{
    if (s == NULL || !s->out.pty || rows <= 0 || cols <= 0 || rows > 0xffff ||
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
               ? s->end.reason
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

const struct bsh_report *bsh_stream_report(const struct bsh_stream *s)
{
    return s != NULL && s->has_report ? &s->report : NULL;
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
    bsh__outputs_init(&s->out);
    bsh__child_init(&s->child, -1);
    bsh__waiter_init(&s->wait);
    bsh__deadline_init(&s->deadline);
    bsh__ending_init(&s->end, 0, 0);
    bsh__input_init(&s->input);
    bsh__contain_init(&s->contain);
    bsh__supervisor_init(&s->sup);
    s->sess.fds[0] = s->sess.fds[1] = s->sess.start_fd = -1;
    atomic_init(&s->cancelled, 0);
    return s;
}

void bsh__stream_configure(struct bsh_stream *s,
                           const struct bsh__stream_config *cfg)
{
    if (cfg->timeout_ms > 0)
        bsh__deadline_start(&s->deadline, cfg->started, cfg->timeout_ms);
    s->started = cfg->started;
    bsh__ending_init(&s->end, cfg->idle_ms, cfg->grace_ms);
    s->want_report = cfg->report;
    s->stdin_asked = cfg->stdin_asked;
}

void bsh__stream_set_limits(struct bsh_stream *s,
                            const struct bsh_limits *limits)
{
    s->limits = *limits;
    s->out.limit = limits->output_bytes;
}

void bsh__stream_start(struct bsh_stream *s, const struct bsh__started *p)
{
    bsh__child_init(&s->child, p->pid);
    bsh__contain_enter(&s->contain, p->pid);
    bsh__outputs_open(&s->out, p->out_fd, p->err_fd, p->pty, mono_now());
    if (p->in_fd >= 0)
        bsh__input_open(&s->input, p->in_fd, p->pty);
    for (int i = 0; i < 2; i++)
        sync_output(s, i);
    bsh__guess_start(&s->wait.guess); /* the first try_next reads at once */
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
    if (bsh__pollset_watch(&s->wait.polls, SLOT_NOTIFY, s->sup.listener) < 0)
        bsh__supervisor_release(&s->sup); /* its calls then fail */
}

void bsh__stream_own_tmpdir(struct bsh_stream *s, char *tmpdir)
{
    remove_tmpdir(s);
    s->tmpdir = tmpdir;
}

void bsh__stream_time_out_now(struct bsh_stream *s)
{
    bsh__session_run_end(&s->sess, BSH__STATUS_UNKNOWN, BSH_END_TIMEOUT,
                         BSH_LIMIT_NONE);
    abort_run(s);
    s->phase = PHASE_TIMEOUT;
    bsh__waiter_wake(&s->wait);
}

void bsh_stream_free(struct bsh_stream *s)
{
    if (s == NULL)
        return;
    abort_run(s);
    bsh__session_run_end(&s->sess, BSH__NOT_STARTED, BSH_END_NONE,
                         BSH_LIMIT_NONE);
    bsh__session_run_release(&s->sess);
    release_input(s);
    release_supervisor(s);
    remove_tmpdir(s);
    bsh__contain_release(&s->contain, 0);
    free(s->diagnosis);
    bsh__waiter_release(&s->wait);
    bsh__deadline_release(&s->deadline);
    free(s);
    bsh__graveyard_sweep();
}
