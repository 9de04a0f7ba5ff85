/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the integration tests: run a command to its end and keep
 * everything the stream said, count our fds, and look for processes that
 * should be gone.
 */
#ifndef BSH_RUN_UTIL_H
#define BSH_RUN_UTIL_H

#include "bsh/bsh.h"
#include "mono.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct result {
    int guard_rc; /* bsh_run's return */
    char guard_text[BSH_ERROR_MAX];
    unsigned char *out, *err;
    size_t out_len, err_len;
    int out_chunks, err_chunks;
    size_t max_chunk;
    bool bad_truncated; /* truncated != (len == 4096) somewhere */
    bool bad_chunk;     /* empty or oversized chunk, or stray fields */
    int statuses;       /* status items seen */
    bool after_status;  /* an item came after the status */
    struct bsh_item status;
    int end_rc; /* 0, or BSH_ESTREAM */
    enum bsh_error_kind error_kind;
    char error[BSH_ERROR_MAX];
    double ms;    /* wall time from bsh_run to the end */
    pid_t pid;    /* the child's pid, as first seen */
    int polls;    /* drain_pollable, drain_pollfds: the caller's polls */
    bool stalled; /* drain_pollable: a wait of 10 s saw nothing */
};

/* Runs `opts` to the end (blocking API) and fills `r`. */
void run_collect(const struct bsh_run_opts *opts, struct result *r);

/* Runs `command` with no options besides `timeout_ms`. */
void run_simple(const char *command, int64_t timeout_ms, struct result *r);

/* Drains an existing stream into `r` (adds to what is there). */
void drain(struct bsh_stream *s, struct result *r);

/* Drains a stream through its pollable fd and bsh_stream_try_next(). */
void drain_pollable(struct bsh_stream *s, struct result *r);

/* Drains a stream through its own fds in the caller's poll
 * (bsh_stream_pollfds(), bsh_stream_polled(), bsh_stream_try_next()). */
void drain_pollfds(struct bsh_stream *s, struct result *r);

void result_free(struct result *r);

/* The run ended with exactly one status: exit code `code` / signal `sig`
 * (-1: timeout). */
bool result_exit(const struct result *r, int code);
bool result_signal(const struct result *r, int sig);

/* Guards passed, chunks well formed, status last. */
bool result_well_formed(const struct result *r);

/* The number of open fds of this process. */
int count_fds(void);

/* True when `pid` is a live (not zombie) process; waits up to 2 s for it
 * to die first, since a killed process's reaping by init is asynchronous. */
bool process_lingers(pid_t pid);

/* True when this process has no child left, zombie or not. */
bool no_children(void);

#endif
