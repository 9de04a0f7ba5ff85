/* SPDX-License-Identifier: MIT */
/*
 * Runs driven through their own fds in the caller's poll
 * (bsh_stream_pollfds, bsh_stream_polled): every byte, the exit watch,
 * stdin, the deadline, a cancel, errors and many runs in one poll array,
 * with the stream never polling again itself. Ends with the fd and
 * zombie check.
 */
#define _GNU_SOURCE
#include "../harness/run_util.h"
#include "../harness/tap.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct bsh_stream *start(struct bsh_run_opts *o)
{
    struct bsh_stream *s = NULL;
    if (bsh_run(o, &s, NULL) != BSH_OK)
        abort();
    return s;
}

/* Runs `o` to its end through drain_pollfds. */
static void run_pollfds(struct bsh_run_opts *o, struct result *r)
{
    memset(r, 0, sizeof(*r));
    double t0 = mono_ms();
    struct bsh_stream *s = start(o);
    drain_pollfds(s, r);
    r->ms = mono_ms() - t0;
    bsh_stream_free(s);
}

/* What `seq 1 N` prints. */
static char *seq_text(int n, size_t *len)
{
    char *t = malloc((size_t)n * 8 + 1);
    size_t at = 0;
    for (int i = 1; i <= n; i++)
        at += (size_t)sprintf(t + at, "%d\n", i);
    *len = at;
    return t;
}

static void test_both_outputs(void)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = "seq 1 200000; seq 1 100000 >&2; for i in 1 2 3; do echo o$i; "
                "echo e$i >&2; done; exit 7";
    struct result r;
    run_pollfds(&o, &r);
    size_t lo, le;
    char *eo = seq_text(200000, &lo), *ee = seq_text(100000, &le);
    ok(result_well_formed(&r), "items well formed, one status, last");
    ok(r.out_len == lo + 9 && memcmp(r.out, eo, lo) == 0 &&
           memcmp(r.out + lo, "o1\no2\no3\n", 9) == 0,
       "every stdout byte, in order");
    ok(r.err_len == le + 9 && memcmp(r.err, ee, le) == 0 &&
           memcmp(r.err + le, "e1\ne2\ne3\n", 9) == 0,
       "every stderr byte, in order");
    ok(result_exit(&r, 7), "exit code 7");
    ok(!r.stalled, "no wait went unanswered");
    free(eo);
    free(ee);
    result_free(&r);
}

/* Outputs closed while the run goes on: the exit watch is one of the fds. */
static void test_exit_after_outputs(void)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = "echo bye; exec >&- 2>&-; sleep 0.3; exit 4";
    struct result r;
    run_pollfds(&o, &r);
    ok(result_exit(&r, 4) && r.out_len == 4 && !r.stalled,
       "outputs closed early: the exit still wakes the poll, code 4");
    /* Without pidfd_open (valgrind), the exit is looked at every 2 ms. */
    ok(r.polls < (UNDER_VALGRIND ? 400 : 20),
       "and the caller slept instead of spinning");
    diag("%d polls for a run of 0.3 s", r.polls);
    result_free(&r);
}

static void test_deadline(void)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = "sleep 100";
    o.timeout_ms = 300;
    struct bsh_stream *s = start(&o);
    struct pollfd p[BSH_POLLFDS_MAX];
    int timeout_ms = -1;
    int n = bsh_stream_pollfds(s, p, BSH_POLLFDS_MAX, &timeout_ms);
    ok(n >= 2 && timeout_ms > 0 && timeout_ms <= 300,
       "a running run: its outputs to poll and the deadline as the bound");
    ok(bsh_stream_pollfds(s, p, 1, &timeout_ms) == BSH_EINVAL,
       "too small an array: BSH_EINVAL");
    struct result r = {0};
    double t0 = mono_ms();
    drain_pollfds(s, &r);
    ok(result_signal(&r, -1) && mono_ms() - t0 < 3000,
       "the deadline ends the run through the timeout the caller polled with");
    n = bsh_stream_pollfds(s, p, BSH_POLLFDS_MAX, &timeout_ms);
    ok(n == 0 && timeout_ms == 0, "an ended run: no fd, nothing to wait for");
    result_free(&r);
    bsh_stream_free(s);
}

static void test_grace(void)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = "trap 'echo bye; exit 3' TERM; sleep 100 & wait";
    o.timeout_ms = 300;
    o.grace_ms = 2000;
    struct result r;
    run_pollfds(&o, &r);
    ok(result_signal(&r, -1) && r.out != NULL &&
           strcmp((char *)r.out, "bye\n") == 0 && r.ms < 2000,
       "grace: SIGTERM at the deadline, the last words, then the end");
    result_free(&r);
}

static void test_stdin(void)
{
    enum { LEN = 200000 }; /* more than a pipe holds: writability is polled */
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = "cat";
    o.stdin_pipe = true;
    struct bsh_stream *s = start(&o);
    char *data = malloc(LEN);
    for (int i = 0; i < LEN; i++)
        data[i] = (char)('a' + i % 26);
    ok(bsh_stream_write(s, data, LEN) == LEN, "200 KB written at once");
    ok(bsh_stream_close_stdin(s) == BSH_OK, "stdin closed");
    struct result r = {0};
    drain_pollfds(s, &r);
    ok(r.out_len == LEN && memcmp(r.out, data, LEN) == 0 && result_exit(&r, 0),
       "cat gives back every byte: the buffered rest went out on POLLOUT");
    free(data);
    result_free(&r);
    bsh_stream_free(s);
}

static void test_pty(void)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = "echo hi; exit 2";
    o.pty = true;
    struct result r;
    run_pollfds(&o, &r);
    ok(r.out != NULL && strcmp((char *)r.out, "hi\r\n") == 0 &&
           result_exit(&r, 2),
       "PTY: the terminal's bytes and the code");
    result_free(&r);
}

static void test_cancel_and_error(void)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = "sleep 100";
    struct bsh_stream *s = start(&o);
    struct pollfd p[BSH_POLLFDS_MAX];
    int timeout_ms = 0;
    bsh_stream_pollfds(s, p, BSH_POLLFDS_MAX, &timeout_ms);
    ok(timeout_ms == -1, "no deadline: no bound on the wait");
    bsh_stream_cancel(s);
    bsh_stream_pollfds(s, p, BSH_POLLFDS_MAX, &timeout_ms);
    ok(timeout_ms == 0, "a cancel: the caller must not sleep");
    struct result r = {0};
    drain_pollfds(s, &r);
    ok(result_signal(&r, 9) && !r.stalled, "and the run is killed");
    result_free(&r);
    bsh_stream_free(s);

    /* Found before anything starts (a bad cwd would do too, but under
     * valgrind its spawn is a fork, whose child reports it instead). */
    struct bsh_env_var bad = {"NOT=A NAME", "x"};
    o.command = "true";
    o.env = &bad;
    o.env_count = 1;
    s = start(&o);
    bsh_stream_pollfds(s, p, BSH_POLLFDS_MAX, &timeout_ms);
    ok(timeout_ms == 0, "a run that failed to start: ready at once");
    memset(&r, 0, sizeof(r));
    drain_pollfds(s, &r);
    ok(r.end_rc == BSH_ESTREAM && r.error_kind == BSH_ERR_ENV_NAME,
       "and its error comes through try_next");
    result_free(&r);
    bsh_stream_free(s);
    ok(bsh_stream_pollfds(NULL, p, 1, &timeout_ms) == BSH_EINVAL &&
           bsh_stream_polled(NULL, p, 1) == BSH_EINVAL,
       "NULL stream: BSH_EINVAL");
}

/* Many runs in one poll array, rebuilt from each run's fds before every
 * poll, as an event loop would. */
static void test_many_in_one_poll(void)
{
    enum { N = 64 };
    struct bsh_stream *s[N];
    struct pollfd p[N * BSH_POLLFDS_MAX];
    int first[N], count[N], got[N];
    bool done[N];
    for (int i = 0; i < N; i++) {
        char cmd[64];
        snprintf(cmd, sizeof(cmd), "sleep 0.2; echo %d", i);
        struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
        o.command = cmd;
        o.timeout_ms = 20000;
        s[i] = start(&o);
        done[i] = false;
        got[i] = -1;
    }
    int left = N, good = 0, rounds = 0;
    double t0 = mono_ms();
    while (left > 0 && mono_ms() - t0 < 30000) {
        int n = 0, wait_ms = -1;
        for (int i = 0; i < N; i++) {
            struct bsh_item it;
            int rc;
            while (!done[i] &&
                   (rc = bsh_stream_try_next(s[i], &it)) != BSH_EAGAIN) {
                if (rc == 1 && it.kind == BSH_ITEM_STDOUT)
                    got[i] = atoi((const char *)it.data);
                if (rc == 1 && it.kind == BSH_ITEM_STATUS && it.has_exit_code &&
                    it.exit_code == 0 && got[i] == i)
                    good++;
                if (rc <= 0) {
                    done[i] = true;
                    left--;
                }
            }
            count[i] = 0;
            if (done[i])
                continue;
            int t;
            first[i] = n;
            count[i] = bsh_stream_pollfds(s[i], p + n, BSH_POLLFDS_MAX, &t);
            n += count[i];
            if (t >= 0 && (wait_ms < 0 || t < wait_ms))
                wait_ms = t;
        }
        if (left == 0)
            break;
        rounds++;
        poll(p, (nfds_t)n, wait_ms < 0 || wait_ms > 1000 ? 1000 : wait_ms);
        for (int i = 0; i < N; i++)
            if (!done[i])
                bsh_stream_polled(s[i], p + first[i], count[i]);
    }
    is_int(good, N, "64 runs in one poll array, all complete");
    diag("64 x sleep 0.2 in %.0f ms, %d polls", mono_ms() - t0, rounds);
    for (int i = 0; i < N; i++)
        bsh_stream_free(s[i]);
}

/* The first step reads the outputs at once, whatever the caller's poll
 * said: output that came before the caller polled is not left for a
 * second round trip. */
static void test_first_step_reads(void)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = "echo hi; sleep 5";
    o.timeout_ms = 20000;
    struct bsh_stream *s = start(&o);
    struct pollfd fds[8];
    int timeout = 0;
    struct pollfd one;
    int n = bsh_stream_pollfds(s, fds, 8, &timeout);
    /* Wait for the output by our own poll of stdout, then say nothing. */
    one = fds[0];
    poll(&one, 1, 10000);
    bsh_stream_polled(s, fds, 0);
    struct bsh_item item;
    int rc = bsh_stream_try_next(s, &item);
    ok(n > 0 && rc == 1 && item.kind == BSH_ITEM_STDOUT,
       "the first non-blocking step reads what is there");
    bsh_stream_cancel(s);
    while (bsh_stream_next(s, &item) == 1)
        ;
    bsh_stream_free(s);
}

int main(void)
{
    int fds_before = count_fds();
    test_both_outputs();
    test_exit_after_outputs();
    test_deadline();
    test_grace();
    test_stdin();
    test_pty();
    test_cancel_and_error();
    test_many_in_one_poll();
    test_first_step_reads();
    is_int(count_fds(), fds_before, "no fd left open");
    ok(no_children(), "no child or zombie left");
    return tap_done();
}
