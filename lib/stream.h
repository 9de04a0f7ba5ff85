/* SPDX-License-Identifier: MIT */
/*
 * The stream object (stream.c), the one owner of a run's state: only
 * stream.c changes its phase. It is made of the parts below it, each with
 * its own struct: the outputs (outputs.h), how it waits (waiter.h), its
 * time (deadline.h), how the run ends (ending.h), the child (child.h),
 * stdin (input.h), the containment (contain.h) and the sandbox's
 * supervisor (supervise.h). run.c validates a run and spawns it, then hands the
 * started process over with bsh__stream_start().
 */
#ifndef BSH_STREAM_H
#define BSH_STREAM_H

#include "child.h"
#include "contain.h"
#include "deadline.h"
#include "ending.h"
#include "input.h"
#include "internal.h"
#include "outputs.h"
#include "session.h"
#include "supervise.h"
#include "waiter.h"

#include <stdatomic.h>

enum bsh__phase {
    PHASE_ERROR,   /* an error found before spawning waits to be reported */
    PHASE_TIMEOUT, /* the timeout item waits to be yielded */
    PHASE_RUNNING,
    PHASE_GRACE,  /* SIGTERM sent: output still read until the grace ends */
    PHASE_ENDING, /* the run was killed: reaping the child, bounded */
    PHASE_DONE,
};

/* How often a PTY master whose slave fds are all closed is looked at
 * again: the kernel reports it as hung up, which poll cannot wait on. */
#define BSH__HUP_RECHECK_MS 10

struct bsh_stream {
    /* First, so that the stream's cache-line aligned allocation puts the
     * read buffer at its start on a cache line. */
    struct bsh__outputs out;
    enum bsh__phase phase;
    bool quiet;       /* the wrapper's stream: errors end it silently */
    bool stdin_asked; /* opts.stdin_pipe: a writable stdin */
    bool want_report; /* gather the costly parts of the report too */
    bool has_report;
    struct bsh__child child;
    struct bsh__waiter wait;       /* its poll set, eventfd, guesses */
    struct bsh__deadline deadline; /* and the timer at the next wake-up */
    struct bsh__ending end;        /* why, when and how the run ends */
    struct bsh__input input;       /* the writable stdin */
    struct bsh__contain contain;   /* its cgroups and session */
    struct bsh__supervisor sup;    /* the sandbox's, listener -1: none */
    char *tmpdir;                  /* the sandbox's private TMPDIR, or NULL */
    atomic_int cancelled;          /* how many cancels were asked for */
    struct timespec started;       /* when bsh_run() was called */
    struct bsh_limits limits;
    enum bsh_error_kind error_kind;
    char error[BSH_ERROR_MAX];
    struct bsh_report report;
    struct bsh_proc_info *diagnosis;
    struct bsh__session_run sess; /* its session, if it runs in one */
};

struct bsh_stream *bsh__stream_new(bool quiet);

/* The PTY master of a running PTY run (for its state and its size); -1
 * for a pipe run or once it has ended. */
int bsh__stream_master(const struct bsh_stream *s);

/* What run.c settles for a run before it starts, handed to the stream
 * whole instead of written into it field by field. */
struct bsh__stream_config {
    struct timespec started; /* when bsh_run() was called */
    int64_t timeout_ms;      /* from `started`; -1: none */
    int64_t idle_ms;         /* idle timeout; 0: none */
    int64_t grace_ms;        /* SIGTERM first, SIGKILL after this; 0: none */
    bool report;             /* gather the costly parts of the report too */
    bool stdin_asked;        /* opts.stdin_pipe: a writable stdin */
};

void bsh__stream_configure(struct bsh_stream *s,
                           const struct bsh__stream_config *cfg);

/* The run's limits as its containment settled them, before it starts. */
void bsh__stream_set_limits(struct bsh_stream *s,
                            const struct bsh_limits *limits);

/* Takes over a started process: the stream runs. */
void bsh__stream_start(struct bsh_stream *s, const struct bsh__started *p);

/* What the run's sandbox applied and missed, for its report. */
void bsh__stream_note_sandbox(struct bsh_stream *s,
                              const struct bsh_sandbox_report *r);

/* The sandbox's supervisor for the run, moved into the stream, which
 * answers its listener while the run lives. */
void bsh__stream_supervise(struct bsh_stream *s, struct bsh__supervisor *sup);

/* The run's private temporary directory (malloc'd), moved into the
 * stream, which removes it when the run is over. */
void bsh__stream_own_tmpdir(struct bsh_stream *s, char *tmpdir);

/* The stream's only item will be the timeout item (timeout 0). A started
 * process is killed and reaped first. */
void bsh__stream_time_out_now(struct bsh_stream *s);

/* Ends the stream with an error found before the run could start. */
void bsh__stream_fail(struct bsh_stream *s, enum bsh_error_kind kind,
                      const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
