/* SPDX-License-Identifier: MIT */
/*
 * The stream object, shared by the files that make it: stream.c (the
 * step loop and lifecycle), stream_fd.c (the pollable fd for outside
 * event loops) and run.c (starting a run).
 */
#ifndef BSH_STREAM_H
#define BSH_STREAM_H

#include "exitwatch.h"
#include "internal.h"
#include "mono.h"

#include <stdatomic.h>
#include <time.h>

enum bsh__phase {
    PHASE_ERROR,   /* an error found before spawning waits to be reported */
    PHASE_TIMEOUT, /* the timeout item waits to be yielded */
    PHASE_RUNNING,
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

/* What an fd in the poll set stands for. */
enum bsh__tag { TAG_OUT, TAG_ERR, TAG_EXIT, TAG_TIMER, TAG_WAKE };

struct bsh_stream {
    enum bsh__phase phase;
    bool quiet; /* the wrapper's stream: errors end it silently */
    bool pty;
    pid_t pid;       /* -1 once reaped or never spawned */
    int fds[2];      /* stdout, stderr (PTY: master, -1) */
    bool ready[2];   /* believed readable without polling */
    int turn;        /* which output to read first */
    int held_master; /* PTY master after its EOF, kept open until the end */
    int wakefd;      /* eventfd: written by a cancel */
    int epfd;        /* the pollable fd, made on demand; -1 */
    int timerfd;     /* the deadline for epfd's pollers; -1 */
    struct bsh__exitwatch exit;
    bool exit_watched; /* the exit watch is in the poll set */
    bool exited;       /* the child has exited, still unreaped */
    bool master_hup;   /* PTY: no slave fd open (EIO), the child alive */
    bool deadline_set, deadline_hit;
    struct timespec deadline;
    bool end_timed_out;            /* PHASE_ENDING: yield the timeout item */
    int kill_errno;                /* why the kill failed, or 0 */
    struct timespec kill_deadline; /* PHASE_ENDING: when to give up */
    bool timer_armed;              /* the timerfd is set to `timer_at` */
    struct timespec timer_at;
    atomic_int cancelled;
    char error[BSH_ERROR_MAX];
    bool has_error;
    /* Cache-line aligned: the kernel copies into it on every read. */
    _Alignas(64) unsigned char buf[BSH_CHUNK_MAX];
};

/* stream.c */
struct bsh_stream *bsh__stream_new(bool quiet);
void bsh__stream_fail(struct bsh_stream *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void bsh__stream_wake(struct bsh_stream *s);
void bsh__stream_abort(struct bsh_stream *s);
/* When the stream must look again without an fd event (deadline, end of
 * the kill wait, next look at a hung-up PTY master); false: never. */
bool bsh__stream_next_wake(const struct bsh_stream *s, struct timespec *at);

/* stream_fd.c: keep the pollable fd's set in step with the stream. Both
 * are no-ops until bsh_stream_fd() has been called. */
int bsh__stream_fd_add(struct bsh_stream *s, int fd, enum bsh__tag tag);
void bsh__stream_fd_remove(struct bsh_stream *s, int fd);
void bsh__stream_fd_release(struct bsh_stream *s);
/* Sets the pollable fd's timer to the stream's next wake-up. */
int bsh__stream_fd_sync_timer(struct bsh_stream *s);

#endif
