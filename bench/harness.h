/* SPDX-License-Identifier: MIT */
/*
 * What bsh-bench and its floor share: the command line
 *   PROG [--timeout MS] [--repeat N] [--parallel N] [--pty] [--touch-mb N]
 *        COMMAND
 * and the two report lines, so that both print exactly the same fields.
 */
#ifndef BSH_BENCH_HARNESS_H
#define BSH_BENCH_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#include "mono.h"

struct bsh_session;

struct bench_args {
    const char *command;
    int64_t timeout_ms; /* -1: none */
    int repeat;         /* sequential runs */
    int parallel;       /* runs at once (replaces repeat when > 1) */
    bool pty;
    long touch_mb;           /* touch this much heap before spawning */
    const char *containment; /* bsh only: auto (NULL), cgroup, session */
    bool report;             /* bsh only: ask for the end report, read it */
    bool sandbox;            /* bsh only: --sandbox (strict) */
    const char *no_limit;    /* bsh only: memory, pids or both opted out */
    bool pair_sandbox;       /* bsh only: plain and --sandbox, run by run */
    bool pair_session;       /* bsh only: plain and in a session, run by run */
    struct bsh_session *session; /* bsh only: the run's session, or NULL */
    const char *session_setup;   /* bsh only: what fills it (NULL: 200/50/20) */
    bool pollfds; /* bsh only: --parallel through bsh_stream_pollfds */
};

/* What one run saw. */
struct bench_run {
    uint64_t chunks_out, bytes_out, chunks_err, bytes_err;
    size_t max_chunk_out, max_chunk_err;
    bool has_exit, has_signal;
    int exit_code, signal; /* signal -1: timeout */
    double start_ms, end_ms;
};

/* Parses argv or exits 2 with a usage message. */
void bench_parse(int argc, char **argv, struct bench_args *a);

/* Raises RLIMIT_NOFILE to its hard limit and touches the requested heap. */
void bench_prepare(const struct bench_args *a);

/* Adds one chunk to `r`. */
void bench_chunk(struct bench_run *r, bool is_err, size_t len);

/* Prints the two report lines for `n` runs, `total_ms` of wall time; the
 * CPU figures count from `before` (taken just before the first run, so
 * that loading the program is not in them). */
/* The median of `v` (sorted in place); `n` > 0. */
double bench_median(double *v, int n);

void bench_report(const struct bench_args *a, const struct rusage *before,
                  const struct bench_run *runs, int n, double total_ms);

/* How a program runs all of `a`'s runs, filling `runs`. */
typedef void bench_runner(const struct bench_args *a, struct bench_run *runs);

/* The whole program: parse, prepare, run (in sequence or in parallel),
 * report. Returns main's status. */
int bench_main(int argc, char **argv, bench_runner *sequential,
               bench_runner *parallel);

#endif
