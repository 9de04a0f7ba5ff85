/* SPDX-License-Identifier: MIT */
/*
 * The stream object (stream.c), the one owner of a run's state: only
 * stream.c changes its phase. It is made of the modules below it: the
 * child's end (child.h), the fds it waits on (pollset.h) and its time
 * (deadline.h). run.c validates a run and spawns it, then hands the
 * started process over with bsh__stream_start().
 */
#ifndef BSH_STREAM_H
#define BSH_STREAM_H

#include "child.h"
#include "contain.h"
#include "deadline.h"
#include "input.h"
#include "internal.h"
#include "pollset.h"
#include "supervise.h"

#include <stdatomic.h>

enum bsh__phase {
    PHASE_ERROR,   /* an error found before spawning waits to be reported */
    PHASE_TIMEOUT, /* the timeout item waits to be yielded */
    PHASE_RUNNING,
    PHASE_GRACE,  /* SIGTERM sent: output still read until grace_until */
    PHASE_ENDING, /* the run was killed: reaping the child, bounded */
    PHASE_DONE,
};

/* How long the end waits for the child to die after SIGKILL before it is
 * abandoned (to the graveyard) with an error. SIGKILL takes microseconds
 * unless the process sleeps uninterruptibly in the kernel. */
#define BSH__KILL_WAIT_MS 1000

/* How often a PTY master whose slave fds are all closed is looked at
 * again: the kernel reports it as hung up, which poll cannot wait on. */
#define BSH__HUP_RECHECK_MS 10

struct bsh_stream {
    /* First, so that the stream's cache-line aligned allocation puts it on
     * a cache line: the kernel copies into it on every read. */
    unsigned char buf[BSH_CHUNK_MAX];
    enum bsh__phase phase;
    bool quiet;       /* the wrapper's stream: errors end it silently */
    bool stdin_asked; /* opts.stdin_pipe: a writable stdin */
    bool pty;
    struct bsh__child child;
    int out[2];      /* stdout, stderr (PTY: master, -1) */
    bool ready[2];   /* believed readable without polling */
    int turn;        /* which output to read first */
    int held_master; /* PTY master after its EOF, kept open until the end */
    bool master_hup; /* PTY: no slave fd open (EIO), the child alive */
    /* Non-blocking steps (see wait_or_give_up): */
    bool woken;    /* try_next returned EAGAIN: its caller has polled */
    bool guessing; /* reading outputs on a guess since that wake */
    bool got_data; /* and one of them had data */
    int idle[2];   /* guesses in a row that found an output empty */
    bool looked;   /* the poll set was asked since the last EAGAIN */
    /* Driven through bsh_stream_pollfds (the caller polls our fds): */
    bool by_pollfds;    /* no guessing: the caller's poll says what is ready */
    bool end_timed_out; /* PHASE_ENDING: yield the timeout item */
    bool want_report;   /* gather the costly parts too */
    bool has_report;
    struct bsh__pollset polls;
    struct bsh__deadline deadline;
    struct bsh__input input; /* the writable stdin */
    enum bsh_end_reason end_reason;
    int64_t idle_ms;               /* idle timeout, 0: none */
    struct timespec last_output;   /* when output last came (or the start) */
    int64_t grace_ms;              /* SIGTERM first, SIGKILL after this */
    struct timespec grace_until;   /* PHASE_GRACE: SIGKILL then */
    int cancels_seen;              /* cancels when the grace began */
    int kill_errno;                /* why the kill failed, or 0 */
    struct timespec kill_deadline; /* PHASE_ENDING: when to give up */
    atomic_int wakefd;             /* eventfd written by a cancel; -1 */
    struct bsh__supervisor sup;    /* the sandbox's, listener -1: none */
    char *tmpdir;                  /* the sandbox's private TMPDIR, or NULL */
    atomic_int cancelled;          /* how many cancels were asked for */
    enum bsh_error_kind error_kind;
    char error[BSH_ERROR_MAX];
    /* Containment, limits and the end report (report.c): */
    struct bsh__contain contain; /* its cgroups and session */
    struct timespec started;     /* when bsh_run() was called */
    struct bsh_limits limits;
    struct bsh_limits default_limits; /* of those, a sandbox's defaults */
    enum bsh_limit limit_hit;         /* the output limit, once passed */
    uint64_t bytes[2];                /* delivered: stdout, stderr */
    int killed; /* processes killed at the end, -1 unknown */
    struct bsh_report report;
    struct bsh_proc_info *diagnosis;
};

struct bsh_stream *bsh__stream_new(bool quiet);

/* The PTY master of a running PTY run (for its state and its size); -1
 * for a pipe run or once it has ended. */
int bsh__stream_master(const struct bsh_stream *s);

/* report.c: what the end report needs, taken at the end of a run. */
/* Notes the live processes before the run is ended (opts.report). */
void bsh__report_diagnose(struct bsh_stream *s);
/* Fills the report once the child has been reaped (or abandoned); removes
 * the cgroup. */
void bsh__report_finish(struct bsh_stream *s, const struct bsh_item *status);

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

/* The run's limits as its containment settled them (`defaults`: which of
 * them are a sandbox's defaults), before it starts. */
void bsh__stream_set_limits(struct bsh_stream *s,
                            const struct bsh_limits *limits,
                            const struct bsh_limits *defaults);

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
