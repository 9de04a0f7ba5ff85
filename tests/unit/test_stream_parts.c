/* SPDX-License-Identifier: MIT */
/*
 * The parts a stream is made of, each on its own, without a run: the
 * waiter's guesses (pure bookkeeping over fd numbers and ready flags),
 * the waiter's fds, the outputs on real pipes and a real PTY, and the
 * ending's decision and signals on a process the test makes itself.
 */
#define _GNU_SOURCE
#include "../harness/tap.h"
#include "ending.h"
#include "mono.h"
#include "outputs.h"
#include "waiter.h"

#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the guesses ----------------------------------------------------------
 */

static void test_guess_wake(void)
{
    struct bsh__guess g;
    int fd[2] = {5, 6};
    bool ready[2] = {false, false};
    bsh__guess_start(&g);
    bsh__guess_wake(&g, fd, ready);
    ok(ready[0] && ready[1], "the first wake reads both open outputs");

    /* stdout stays empty on every guess, stderr has data. */
    for (int round = 0; round < BSH__IDLE_GUESSES; round++) {
        bsh__guess_saw(&g, 0, true, false);
        bsh__guess_saw(&g, 1, false, true);
        ready[0] = ready[1] = false;
        is_int(bsh__guess_give_up(&g, fd, ready, false), GIVE_UP_AGAIN,
               "a guess that found data gives up to the caller's poll");
        bsh__guess_wake(&g, fd, ready);
    }
    ok(!ready[0] && ready[1],
       "after two empty guesses, a wake reads only the busy output");

    /* Now the busy one is empty too: the second pass reads the idle one. */
    bsh__guess_saw(&g, 1, true, false);
    ready[1] = false;
    is_int(bsh__guess_give_up(&g, fd, ready, false), GIVE_UP_READ,
           "a wake whose guess found nothing tries the idle outputs once");
    ok(ready[0] && ready[1], "every open output is marked");
    bsh__guess_saw(&g, 0, false, true);
    is_int(g.idle[0], BSH__IDLE_GUESSES,
           "what the second pass reads teaches nothing: it was no guess");
    ready[0] = false;
    is_int(bsh__guess_give_up(&g, fd, ready, false), GIVE_UP_AGAIN,
           "the second pass is taken once per wake");

    int closed[2] = {-1, 6};
    ready[0] = ready[1] = false;
    g.idle[1] = BSH__IDLE_GUESSES;
    bsh__guess_wake(&g, closed, ready);
    ok(!ready[0] && ready[1],
       "an ended output is never marked, an idle one is when it is all "
       "there is");

    bsh__guess_saw(&g, 1, false, false);
    is_int(g.idle[1], 0, "a read that ended or hung up resets the count");
    bsh__guess_saw(&g, 0, false, true);
    is_int(g.idle[0], 0, "an output that had data on a guess is busy again");
}

static void test_guess_exit_look(void)
{
    struct bsh__guess g;
    int none[2] = {-1, -1};
    bool ready[2] = {false, false};
    bsh__guess_start(&g);
    bsh__guess_wake(&g, none, ready);
    is_int(bsh__guess_give_up(&g, none, ready, true), GIVE_UP_LOOK,
           "with the exit watched, the poll set is looked at once");
    is_int(bsh__guess_give_up(&g, none, ready, true), GIVE_UP_AGAIN,
           "and when that found nothing, the caller polls");
    ok(g.woken, "the next step is a wake");
    is_int(bsh__guess_give_up(&g, none, ready, true), GIVE_UP_LOOK,
           "after an EAGAIN the look is taken again");

    struct bsh__guess blocked;
    bsh__guess_start(&blocked);
    blocked.woken = false;
    bool r2[2] = {false, false};
    int fd[2] = {3, 4};
    bsh__guess_wake(&blocked, fd, r2);
    ok(!r2[0] && !r2[1], "no wake, no guess");
    bsh__guess_saw(&blocked, 0, true, false);
    is_int(blocked.idle[0], 0, "reads outside a guess teach nothing");
}

/* ---- the waiter's fds ------------------------------------------------------
 */

static void test_waiter(void)
{
    struct bsh__waiter w;
    bsh__waiter_init(&w);
    ok(!bsh__waiter_has_wakefd(&w), "the eventfd is made only when needed");
    bsh__waiter_wake(&w); /* no-op without it */
    is_int(bsh__waiter_make_wakefd(&w), 0, "the eventfd is made");
    int wakefd = atomic_load(&w.wakefd);
    is_int(bsh__waiter_make_wakefd(&w), 0, "once");
    is_int(atomic_load(&w.wakefd), wakefd, "the same one");

    struct timespec zero = {0, 0}, ten_ms = {0, 10000000};
    is_int(bsh__waiter_wait(&w, true, &ten_ms), 0, "nothing, until a wake");
    bsh__waiter_wake(&w);
    is_int(bsh__waiter_wait(&w, true, NULL), 1, "a wake ends a wait");
    ok(bsh__pollset_take(&w.polls, SLOT_WAKE), "in the eventfd's slot");
    bsh__waiter_drain(&w);
    is_int(bsh__waiter_wait(&w, false, &zero), 0, "drained, it is quiet");

    int p[2];
    if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
        abort();
    bsh__pollset_watch(&w.polls, SLOT_OUT, p[0]);
    is_int(bsh__waiter_pollfds_count(&w), 2, "two fds for a caller's poll");
    struct pollfd fds[SLOT_COUNT];
    int n = bsh__waiter_pollfds(&w, fds);
    is_int(n, 2, "both handed out");
    ok(w.by_pollfds, "the caller's poll drives the waiter from now on");
    if (write(p[1], "x", 1) != 1)
        abort();
    is_int(poll(fds, (nfds_t)n, 1000), 1, "the caller's poll sees output");
    is_int(bsh__waiter_wait(&w, false, NULL), 0,
           "a look before the caller said what it found sees nothing");
    bsh__waiter_polled(&w, fds, n);
    is_int(bsh__waiter_wait(&w, false, NULL), 1,
           "a look takes what the caller's poll found");
    ok(bsh__pollset_take(&w.polls, SLOT_OUT), "in the output's slot");

    struct bsh__deadline d;
    bsh__deadline_init(&d);
    bsh__waiter_set_timer(&w, &d, true, mono_add_ms(mono_now(), 5));
    is_int(d.timerfd, -1, "no timer before an outside poller needs one");
    int epfd = bsh__waiter_pollable(&w);
    ok(epfd >= 0, "the pollable fd is made");
    is_int(bsh__waiter_pollable(&w), epfd, "once");
    bsh__waiter_set_timer(&w, &d, true, mono_add_ms(mono_now(), 5));
    ok(d.timerfd >= 0 && w.polls.fd[SLOT_TIMER] == d.timerfd,
       "then the timer is made and watched");
    struct pollfd e = {epfd, POLLIN, 0};
    if (read(p[0], fds, 1) != 1) /* the pipe goes quiet */
        abort();
    ok(poll(&e, 1, 2000) == 1, "the pollable fd wakes at the timer");
    bsh__pollset_forget(&w.polls, SLOT_OUT);
    close(p[0]);
    close(p[1]);
    bsh__deadline_release(&d);
    bsh__waiter_release(&w);
    is_int(atomic_load(&w.wakefd), -1, "released, the eventfd is closed");
}

/* ---- the outputs -----------------------------------------------------------
 */

static void test_outputs_pipes(void)
{
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC | O_NONBLOCK) < 0 ||
        pipe2(err, O_CLOEXEC | O_NONBLOCK) < 0)
        abort();
    static struct bsh__outputs o;
    bsh__outputs_init(&o);
    bsh__outputs_open(&o, out[0], err[0], false, mono_now());
    o.limit = 10;
    size_t len = 0;
    is_int(bsh__outputs_read(&o, 0, false, &len), READ_EMPTY,
           "an empty pipe is drained");
    if (write(out[1], "abcdef", 6) != 6 || write(err[1], "123456", 6) != 6)
        abort();
    is_int(bsh__outputs_read(&o, 0, false, &len), READ_DATA, "stdout read");
    ok(len == 6 && memcmp(o.buf, "abcdef", 6) == 0, "all of it");
    is_int(bsh__outputs_read(&o, 1, false, &len), READ_DATA, "stderr read");
    is_int((int)len, 4, "cut to what the limit leaves");
    ok(o.limit_hit, "and the limit is passed");
    ok(o.bytes[0] == 6 && o.bytes[1] == 4, "the bytes delivered are counted");
    if (write(err[1], "7", 1) != 1)
        abort();
    is_int(bsh__outputs_read(&o, 1, false, &len), READ_LIMITED,
           "past the limit, nothing more is delivered");

    o.turn = 0;
    bsh__outputs_took_turn(&o, 0);
    is_int(o.turn, 1, "after stdout, stderr goes first");

    close(out[1]);
    is_int(bsh__outputs_read(&o, 0, false, &len), READ_ENDED, "EOF ends it");
    is_int(o.fd[0], -1, "its pipe is closed");
    ok(bsh__outputs_any_open(&o), "stderr is still open");
    is_int(bsh__outputs_watched(&o, 0), -1, "and only it is watched");
    is_int(bsh__outputs_master(&o), -1, "pipes have no master");
    bsh__outputs_close(&o);
    ok(!bsh__outputs_any_open(&o), "closed, none is open");
    close(err[1]);
}

static void test_outputs_pty(void)
{
    int master, slave;
    if (openpty(&master, &slave, NULL, NULL, NULL) < 0) {
        ok(true, "# SKIP no pty here");
        return;
    }
    fcntl(master, F_SETFL, O_NONBLOCK);
    static struct bsh__outputs o;
    bsh__outputs_init(&o);
    bsh__outputs_open(&o, master, -1, true, mono_now());
    size_t len = 0;
    if (write(slave, "hi", 2) != 2)
        abort();
    struct pollfd p = {master, POLLIN, 0};
    poll(&p, 1, 1000);
    is_int(bsh__outputs_read(&o, 0, false, &len), READ_DATA, "a PTY is read");
    close(slave);
    is_int(bsh__outputs_read(&o, 0, false, &len), READ_HUNG_UP,
           "no slave open and the child alive: hung up, not ended");
    is_int(bsh__outputs_watched(&o, 0), -1, "a hung-up master is not watched");
    is_int(bsh__outputs_master(&o), master, "but it stays open");
    bsh__outputs_recheck(&o);
    ok(o.ready[0], "and it is looked at again");
    is_int(bsh__outputs_read(&o, 0, true, &len), READ_ENDED,
           "once the child has exited, EIO is the end");
    is_int(o.fd[0], -1, "the master is not read any more");
    is_int(bsh__outputs_master(&o), master,
           "but held open until the run is over");
    bsh__outputs_close(&o);
    is_int(bsh__outputs_master(&o), -1, "then closed");
}

/* ---- the ending ------------------------------------------------------------
 */

static void test_ending_decision(void)
{
    struct bsh__ending e;
    struct bsh__deadline d;
    bsh__deadline_init(&d);
    bsh__ending_init(&e, 0, 0);
    struct timespec now = mono_now();
    is_int(bsh__ending_due(&e, false, 0, false, &d, now), BSH_END_NONE,
           "nothing asked, nothing due");
    bsh__deadline_start(&d, mono_add_ms(now, -10), 5);
    bsh__ending_init(&e, 1, 0);
    struct timespec long_ago = mono_add_ms(now, -1000);
    is_int(bsh__ending_due(&e, false, 1, true, &d, long_ago), BSH_END_CANCEL,
           "a cancel comes before everything");
    is_int(bsh__ending_due(&e, false, 0, true, &d, long_ago), BSH_END_LIMIT,
           "then the output limit");
    is_int(bsh__ending_due(&e, false, 0, false, &d, long_ago), BSH_END_TIMEOUT,
           "then the deadline");
    bsh__deadline_init(&d);
    is_int(bsh__ending_due(&e, false, 0, false, &d, long_ago), BSH_END_IDLE,
           "then the idle timeout");
    bsh__ending_init(&e, 60000, 0);
    is_int(bsh__ending_due(&e, false, 0, false, &d, now), BSH_END_NONE,
           "an idle timeout not yet over");
    struct timespec at;
    ok(bsh__ending_idle_at(&e, now, &at) && mono_diff_ms(at, now) == 60000,
       "falls idle_ms after the last output");

    e.grace_until = mono_add_ms(mono_now(), 60000);
    e.cancels_seen = 1;
    is_int(bsh__ending_due(&e, true, 1, true, &d, long_ago), BSH_END_NONE,
           "in the grace, the first cancel and a limit no longer count");
    is_int(bsh__ending_due(&e, true, 2, false, &d, now), BSH_END_CANCEL,
           "a second cancel ends the grace");
    e.grace_until = mono_add_ms(mono_now(), -1);
    is_int(bsh__ending_due(&e, true, 1, false, &d, now), BSH_END_CANCEL,
           "and so does its end");
    bsh__deadline_release(&d);
}

/* A child in a session of its own that sleeps, ignoring SIGTERM when
 * `stubborn`; it writes a byte to `ready` first. */
static pid_t sleeper(bool stubborn, const int ready[2])
{
    pid_t pid = fork();
    if (pid == 0) {
        setsid();
        if (stubborn)
            signal(SIGTERM, SIG_IGN);
        char byte = 'r';
        if (write(ready[1], &byte, 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    char byte;
    if (pid < 0 || read(ready[0], &byte, 1) != 1)
        abort();
    return pid;
}

static int reap(struct bsh__child *c)
{
    for (int i = 0; i < 2000; i++) {
        int r = bsh__child_reap(c);
        if (r != 0)
            return r;
        struct timespec t = {0, 1000000};
        nanosleep(&t, NULL);
    }
    return 0;
}

static void test_ending_signals(void)
{
    int p[2];
    if (pipe(p) < 0)
        abort();
    struct bsh__contain c;
    struct bsh__child child;
    struct bsh__ending e;

    /* Without a grace, the caller kills at once. */
    bsh__contain_init(&c);
    bsh__child_init(&child, sleeper(true, p));
    bsh__contain_enter(&c, child.pid);
    bsh__ending_init(&e, 0, 0);
    ok(!bsh__ending_begin(&e, BSH_END_IDLE, &c, &child, 0),
       "without a grace, no SIGTERM");
    ok(e.timed_out && e.reason == BSH_END_IDLE,
       "an idle end gives the timeout item");
    bsh__ending_kill(&e, &c, &child, true);
    is_int(e.killed, 1, "the killed processes are counted");
    is_int(e.kill_err, 0, "the SIGKILL was sent");
    ok(!bsh__ending_gave_up(&e), "and its wait has just begun");
    is_int(reap(&child), 1, "the child is reaped");
    ok(WIFSIGNALED(child.status) && WTERMSIG(child.status) == SIGKILL,
       "killed by SIGKILL, not SIGTERM");
    bsh__contain_release(&c, 0);

    /* With a grace, SIGTERM; a cancel's status is the real one. */
    bsh__contain_init(&c);
    bsh__child_init(&child, sleeper(false, p));
    bsh__contain_enter(&c, child.pid);
    bsh__ending_init(&e, 0, 60000);
    ok(bsh__ending_begin(&e, BSH_END_CANCEL, &c, &child, 1),
       "with a grace, SIGTERM first");
    ok(!e.timed_out, "a cancel gives the real status");
    is_int(e.cancels_seen, 1, "the cancel that began the grace is noted");
    ok(mono_diff_ms(e.grace_until, mono_now()) > 50000, "the grace is set");
    is_int(reap(&child), 1, "the child is reaped");
    ok(WIFSIGNALED(child.status) && WTERMSIG(child.status) == SIGTERM,
       "it died of the SIGTERM");
    struct bsh_item status = {.kind = BSH_ITEM_STATUS, .has_signal = true};
    bsh__ending_reaped(&e, &status);
    is_int(e.reason, BSH_END_CANCEL, "the reason stays the cancel");
    bsh__ending_init(&e, 0, 0);
    bsh__ending_reaped(&e, &status);
    is_int(e.reason, BSH_END_SIGNAL, "a run that ended by itself: a signal");
    bsh__contain_release(&c, 0);
    close(p[0]);
    close(p[1]);
}

int main(void)
{
    test_guess_wake();
    test_guess_exit_look();
    test_waiter();
    test_outputs_pipes();
    test_outputs_pty();
    test_ending_decision();
    test_ending_signals();
    return tap_done();
}
