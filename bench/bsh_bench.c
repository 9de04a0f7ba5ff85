/* SPDX-License-Identifier: MIT */
/*
 * bsh-bench: drives libbsh directly. Runs COMMAND --repeat times in
 * sequence, or --parallel runs at once from one thread through the
 * streams' pollable fds (with --pollfds: through each stream's own fds in
 * one poll array); consumes every item; prints the report of common.h.
 */
#include "harness.h"

#include <bsh/bsh.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void take(struct bench_run *r, const struct bsh_item *it)
{
    if (it->kind != BSH_ITEM_STATUS) {
        bench_chunk(r, it->kind == BSH_ITEM_STDERR, it->len);
        return;
    }
    r->end_ms = mono_ms();
    r->has_exit = it->has_exit_code;
    r->exit_code = it->exit_code;
    r->has_signal = it->has_signal;
    r->signal = it->signal;
}

static struct bsh_stream *start(const struct bench_args *a, struct bench_run *r)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = a->command;
    o.timeout_ms = a->timeout_ms;
    o.pty = a->pty;
    if (a->containment != NULL)
        o.containment =
            strcmp(a->containment, "cgroup") == 0    ? BSH_CONTAIN_CGROUP
            : strcmp(a->containment, "session") == 0 ? BSH_CONTAIN_SESSION
                                                     : BSH_CONTAIN_AUTO;
    o.report = a->report;
    o.session = a->session;
    if (a->sandbox)
        o.sandbox.mode = BSH_SANDBOX_STRICT;
    if (a->no_limit != NULL && strcmp(a->no_limit, "pids") != 0)
        o.limits.memory_bytes = BSH_NO_LIMIT;
    if (a->no_limit != NULL && strcmp(a->no_limit, "memory") != 0)
        o.limits.pids = BSH_NO_LIMIT;
    struct bsh_stream *s = NULL;
    struct bsh_error err;
    r->start_ms = mono_ms();
    if (bsh_run(&o, &s, &err) != BSH_OK) {
        fprintf(stderr, "bsh-bench: %s\n", err.text_err);
        exit(1);
    }
    return s;
}

static void finish(struct bsh_stream *s, struct bench_run *r, int rc)
{
    if (rc < 0) {
        fprintf(stderr, "bsh-bench: %s\n", bsh_stream_error(s));
        exit(1);
    }
    if (r->end_ms == 0)
        r->end_ms = mono_ms();
    const struct bsh_report *rep = bsh_stream_report(s);
    if (rep == NULL) {
        fprintf(stderr, "bsh-bench: no report after the status\n");
        exit(1);
    }
    bsh_stream_free(s);
}

static void run_sequential(const struct bench_args *a, struct bench_run *runs)
{
    for (int i = 0; i < a->repeat; i++) {
        struct bsh_stream *s = start(a, &runs[i]);
        struct bsh_item it;
        int rc;
        while ((rc = bsh_stream_next(s, &it)) == 1)
            take(&runs[i], &it);
        finish(s, &runs[i], rc);
    }
}

static void run_parallel(const struct bench_args *a, struct bench_run *runs)
{
    int n = a->parallel, left = n;
    struct bsh_stream **s = calloc((size_t)n, sizeof(*s));
    struct pollfd *pfd = calloc((size_t)n, sizeof(*pfd));
    for (int i = 0; i < n; i++) {
        s[i] = start(a, &runs[i]);
        pfd[i].fd = bsh_stream_fd(s[i]);
        pfd[i].events = POLLIN;
    }
    while (left > 0) {
        poll(pfd, (nfds_t)n, -1);
        for (int i = 0; i < n; i++) {
            if (pfd[i].fd < 0 || !(pfd[i].revents & POLLIN))
                continue;
            struct bsh_item it;
            int rc;
            while ((rc = bsh_stream_try_next(s[i], &it)) == 1)
                take(&runs[i], &it);
            if (rc != BSH_EAGAIN) {
                finish(s[i], &runs[i], rc);
                pfd[i].fd = -1;
                left--;
            }
        }
    }
    free(s);
    free(pfd);
}

/* Takes the items of run `i` until it would block; false once it ended. */
static bool take_ready(struct bsh_stream *s, struct bench_run *r)
{
    struct bsh_item it;
    int rc;
    while ((rc = bsh_stream_try_next(s, &it)) == 1)
        take(r, &it);
    if (rc == BSH_EAGAIN)
        return true;
    finish(s, r, rc);
    return false;
}

/* The event loop of a caller that polls every stream's own fds at once:
 * one poll array, rebuilt before each poll. */
static void run_pollfds(const struct bench_args *a, struct bench_run *runs)
{
    int n = a->parallel, left = n;
    struct bsh_stream **s = calloc((size_t)n, sizeof(*s));
    struct pollfd *pfd = calloc((size_t)n * BSH_POLLFDS_MAX, sizeof(*pfd));
    int *first = calloc((size_t)n, sizeof(int));
    int *count = calloc((size_t)n, sizeof(int));
    int *bound = calloc((size_t)n, sizeof(int)); /* each run's timeout */
    for (int i = 0; i < n; i++)
        s[i] = start(a, &runs[i]);
    while (left > 0) {
        int used = 0, wait_ms = -1;
        for (int i = 0; i < n; i++) {
            int t = -1;
            first[i] = used;
            count[i] = s[i] != NULL ? bsh_stream_pollfds(s[i], pfd + used,
                                                         BSH_POLLFDS_MAX, &t)
                                    : 0;
            bound[i] = t;
            if (t >= 0 && (wait_ms < 0 || t < wait_ms))
                wait_ms = t;
            used += count[i];
        }
        bool timed_out = poll(pfd, (nfds_t)used, wait_ms) == 0;
        for (int i = 0; i < n; i++) {
            if (s[i] == NULL)
                continue;
            bool any = false;
            for (int k = 0; k < count[i]; k++)
                any |= pfd[first[i] + k].revents != 0;
            if (!any && bound[i] != 0 && !(timed_out && bound[i] > 0))
                continue; /* nothing for this run, and its time is not up */
            bsh_stream_polled(s[i], pfd + first[i], count[i]);
            if (!take_ready(s[i], &runs[i])) {
                s[i] = NULL;
                left--;
            }
        }
    }
    free(s);
    free(pfd);
    free(first);
    free(count);
    free(bound);
}

static void run_parallel_any(const struct bench_args *a, struct bench_run *runs)
{
    if (a->pollfds)
        run_pollfds(a, runs);
    else
        run_parallel(a, runs);
}

/* One run to its end and freed: the ms until its status, and until it
 * was freed (its clean-up done). */
static void one_cycle(const struct bench_args *a, double *status_ms,
                      double *cycle_ms)
{
    struct bench_run r;
    memset(&r, 0, sizeof(r));
    struct bsh_stream *s = start(a, &r);
    struct bsh_item it;
    int rc;
    while ((rc = bsh_stream_next(s, &it)) == 1)
        take(&r, &it);
    finish(s, &r, rc);
    *status_ms = r.end_ms - r.start_ms;
    *cycle_ms = mono_ms() - r.start_ms;
}

/* What --pair-session's session holds: 200 variables (half of them
 * exported), 50 functions and 20 aliases. */
static const char session_setup[] =
    "for i in $(seq 100); do export \"EV$i=value number $i with some "
    "text\"; eval \"PV$i='value number $i with some text'\"; done; "
    "for i in $(seq 50); do eval \"fn$i() { echo function $i; local "
    "x=\\$1; [[ -n \\$x ]] && echo \\$x; }\"; done; "
    "for i in $(seq 20); do alias al$i=\"echo alias $i\"; done";

/* The session of --pair-session, made and filled; exits on failure. */
static struct bsh_session *filled_session(const char *setup)
{
    struct bsh_session *s = NULL;
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    struct bsh_stream *st = NULL;
    struct bsh_item it;
    if (bsh_session_new(NULL, NULL, &s) != BSH_OK)
        exit(1);
    o.command = setup != NULL ? setup : session_setup;
    o.session = s;
    if (bsh_run(&o, &st, NULL) != BSH_OK)
        exit(1);
    while (bsh_stream_next(st, &it) == 1)
        ;
    if (bsh_stream_session_state(st) != BSH_SESSION_SAVED) {
        fprintf(stderr, "bsh-bench: the session could not be filled\n");
        exit(1);
    }
    bsh_stream_free(st);
    fprintf(stderr, "session: %zu variables, %zu functions, %zu aliases\n",
            bsh_session_count(s, BSH_SESSION_VARIABLES),
            bsh_session_count(s, BSH_SESSION_FUNCTIONS),
            bsh_session_count(s, BSH_SESSION_ALIASES));
    return s;
}

/* --pair-sandbox: a plain run and a sandboxed one, side by side, --repeat
 * times, which goes first changing each time, so that a machine that
 * slows down or speeds up meets both alike; the medians of each and of
 * the per-pair ratios, to the status and to the end of the clean-up.
 * --pair-session: the same with a run in a session for the sandboxed. */
static int run_pairs(struct bench_args *a)
{
    struct bsh_session *session =
        a->pair_session ? filled_session(a->session_setup) : NULL;
    int n = a->repeat;
    double *v = calloc((size_t)n * 6, sizeof(*v));
    if (v == NULL)
        return 2;
    double *plain_s = v, *plain_c = v + n, *box_s = v + 2 * n,
           *box_c = v + 3 * n, *ratio_s = v + 4 * n, *ratio_c = v + 5 * n;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 2; k++) {
            bool other = (k == 0) == (i % 2 == 0);
            a->sandbox = other && !a->pair_session;
            a->session = other ? session : NULL;
            if (other)
                one_cycle(a, &box_s[i], &box_c[i]);
            else
                one_cycle(a, &plain_s[i], &plain_c[i]);
        }
        ratio_s[i] = box_s[i] / plain_s[i];
        ratio_c[i] = box_c[i] / plain_c[i];
    }
    const char *name = a->pair_session ? "session" : "sandbox";
    printf("pairs=%d plain_status_ms=%.3f %s_status_ms=%.3f "
           "ratio_status=%.4f plain_cycle_ms=%.3f %s_cycle_ms=%.3f "
           "ratio_cycle=%.4f\n",
           n, bench_median(plain_s, n), name, bench_median(box_s, n),
           bench_median(ratio_s, n), bench_median(plain_c, n), name,
           bench_median(box_c, n), bench_median(ratio_c, n));
    free(v);
    bsh_session_free(session);
    return 0;
}

int main(int argc, char **argv)
{
    struct bench_args a;
    bench_parse(argc, argv, &a);
    if (a.pair_sandbox || a.pair_session) {
        bench_prepare(&a);
        return run_pairs(&a);
    }
    return bench_main(argc, argv, run_sequential, run_parallel_any);
}
