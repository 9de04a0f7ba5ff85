/* SPDX-License-Identifier: MIT */
/*
 * The stream of one run: its lifecycle and its one poll loop.
 *
 * A stream owns an epoll set holding whatever can move it forward: the
 * output fds (two pipes, or the PTY master), the child's pidfd once the
 * output has ended, a timerfd armed at the absolute deadline, and an
 * eventfd that a cancel writes to. The epoll fd is the stream's one
 * pollable fd; bsh_stream_next() blocks in epoll_wait on it, and outside
 * event loops poll it. No thread, no SIGCHLD, no waitpid(-1): the pidfd
 * says when our own child has exited.
 *
 * Order of precedence on every step: a cancel, then a passed deadline,
 * then data. Reads are at most BSH_CHUNK_MAX bytes into the stream's one
 * buffer and alternate between stdout and stderr, so neither starves.
 */
#define _GNU_SOURCE
#include "exitwatch.h"
#include "internal.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum phase {
    PHASE_ERROR,   /* an error found before spawning waits to be reported */
    PHASE_TIMEOUT, /* the timeout item waits to be yielded */
    PHASE_RUNNING,
    PHASE_DONE,
};

enum tag { TAG_OUT, TAG_ERR, TAG_EXIT, TAG_TIMER, TAG_WAKE };

struct bsh_stream {
    enum phase phase;
    bool quiet; /* the wrapper's stream: errors end it silently */
    bool pty;
    int held_master; /* PTY master after its EOF, kept open until the end */
    pid_t pid;       /* -1 once reaped or never spawned */
    int fds[2];      /* stdout, stderr (PTY: master, -1) */
    bool ready[2];
    int turn; /* which output to read first */
    int epfd, wakefd, timerfd;
    struct bsh__exitwatch exit;
    bool exit_watched; /* the exit watch is in the poll set */
    bool exited;       /* the child has exited, still unreaped */
    bool deadline_set, deadline_hit;
    struct timespec deadline;
    atomic_int cancelled;
    char error[BSH_ERROR_MAX];
    bool has_error;
    unsigned char buf[BSH_CHUNK_MAX];
};

static int close_fd(int fd)
{
    if (fd >= 0)
        close(fd);
    return -1;
}

static int watch(struct bsh_stream *s, int fd, enum tag tag)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = tag};
    return epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev);
}

/* Makes the stream fd poll readable without an fd event, for the phases
 * that have an item ready at once. */
static void wake(struct bsh_stream *s)
{
    uint64_t one = 1;
    ssize_t n = write(s->wakefd, &one, sizeof(one));
    (void)n; /* a full counter is still readable */
}

static void fail(struct bsh_stream *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Records an error found before the run could start. */
static void fail(struct bsh_stream *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vsnprintf(s->error, sizeof(s->error), fmt, ap) < 0)
        s->error[0] = '\0';
    va_end(ap);
    s->has_error = true;
    s->phase = PHASE_ERROR;
    wake(s);
}

static bool deadline_passed(struct bsh_stream *s)
{
    if (!s->deadline_set)
        return false;
    if (s->deadline_hit)
        return true;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    s->deadline_hit =
        now.tv_sec > s->deadline.tv_sec || (now.tv_sec == s->deadline.tv_sec &&
                                            now.tv_nsec >= s->deadline.tv_nsec);
    return s->deadline_hit;
}

/* Kills the child's whole process group (its session, in PTY mode). The
 * leader is not reaped yet, so its pid still names our group. */
static void kill_group(struct bsh_stream *s)
{
    if (s->pid > 0)
        kill(-s->pid, SIGKILL);
}

/* Reaps our child; 0 with its wait status, or -1 with errno. */
static int reap(struct bsh_stream *s, int *status)
{
    pid_t r;
    do
        r = waitpid(s->pid, status, 0);
    while (r < 0 && errno == EINTR);
    s->pid = -1;
    return r < 0 ? -1 : 0;
}

static void release_fds(struct bsh_stream *s)
{
    s->fds[0] = close_fd(s->fds[0]);
    s->fds[1] = close_fd(s->fds[1]);
    s->held_master = close_fd(s->held_master);
    bsh__exitwatch_close(&s->exit);
    s->timerfd = close_fd(s->timerfd);
}

static void status_item(struct bsh_item *item, int status, bool timed_out)
{
    memset(item, 0, sizeof(*item));
    item->kind = BSH_ITEM_STATUS;
    if (timed_out) {
        item->has_signal = true;
        item->signal = -1;
    } else if (WIFSIGNALED(status)) {
        item->has_signal = true;
        item->signal = WTERMSIG(status);
    } else {
        item->has_exit_code = true;
        item->exit_code = WEXITSTATUS(status);
    }
}

/* Records why waiting for the child failed. ECHILD and ESRCH mean that
 * something else reaped it: a caller that ignores SIGCHLD gets its
 * children reaped by the kernel. */
static void wait_error(struct bsh_stream *s, int err)
{
    const char *why = err == ECHILD || err == ESRCH
                          ? "the child was reaped elsewhere (is SIGCHLD "
                            "ignored?)"
                          : strerror(err);
    bsh__format(s->error, sizeof(s->error),
                "failed to wait for bash process: %s", why);
    s->has_error = true;
}

/* Ends the stream with an error (or silently, for the wrapper). */
static int end_with_error(struct bsh_stream *s)
{
    s->phase = PHASE_DONE;
    return s->quiet ? 0 : BSH_ESTREAM;
}

/* Ends a running stream: kills what is left of the group, reaps the child
 * and yields its status, or the timeout item. */
static int finish(struct bsh_stream *s, struct bsh_item *item, bool timed_out)
{
    int status = 0;
    kill_group(s);
    int rc = reap(s, &status);
    release_fds(s);
    s->phase = PHASE_DONE;
    if (rc < 0) {
        wait_error(s, errno);
        return end_with_error(s);
    }
    status_item(item, status, timed_out);
    return 1;
}

static int read_error(struct bsh_stream *s, int err)
{
    bsh__format(s->error, sizeof(s->error), "failed to read output: %s",
                strerror(err));
    s->has_error = true;
    kill_group(s);
    int status;
    reap(s, &status);
    release_fds(s);
    return end_with_error(s);
}

/* Stops reading output `i`. A pipe is closed; a PTY master stays open
 * until the end, because closing it would hang up the terminal and send
 * SIGHUP to a child that merely closed its own terminal fds. */
static void end_output(struct bsh_stream *s, int i)
{
    if (s->pty) {
        epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->fds[i], NULL);
        s->held_master = s->fds[i];
        s->fds[i] = -1;
    } else {
        s->fds[i] = close_fd(s->fds[i]);
    }
}

/* Reads one chunk from an output that polled readable. Returns 1 with an
 * item, 0 when nothing was read (drained or EOF), or an error. */
static int read_chunk(struct bsh_stream *s, int i, struct bsh_item *item)
{
    ssize_t n;
    do
        n = read(s->fds[i], s->buf, sizeof(s->buf));
    while (n < 0 && errno == EINTR);
    if (n > 0) {
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
    /* EOF, or EIO: how a PTY master says the last slave fd closed. */
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
        if (s->fds[i] < 0 || !s->ready[i])
            continue;
        int rc = read_chunk(s, i, item);
        if (rc != 0) {
            s->turn = 1 - i;
            return rc;
        }
    }
    return 0;
}

/* Waits for events (or only looks, when !block) and records them. Returns
 * the number of events, 0 when none. */
static int wait_events(struct bsh_stream *s, bool block)
{
    struct epoll_event ev[8];
    int n;
    do
        n = epoll_wait(s->epfd, ev, 8, block ? -1 : 0);
    while (n < 0 && errno == EINTR && block);
    for (int k = 0; k < n; k++) {
        switch (ev[k].data.u32) {
        case TAG_OUT:
        case TAG_ERR:
            s->ready[ev[k].data.u32] = true;
            break;
        case TAG_EXIT:
            s->exited = bsh__exitwatch_exited(&s->exit);
            break;
        case TAG_TIMER:
            s->deadline_hit = true;
            break;
        default: /* the wake eventfd: a cancel, seen through its flag */
            break;
        }
    }
    return n > 0 ? n : 0;
}

static bool outputs_open(const struct bsh_stream *s)
{
    return s->fds[0] >= 0 || s->fds[1] >= 0;
}

static bool outputs_ready(const struct bsh_stream *s)
{
    return (s->fds[0] >= 0 && s->ready[0]) || (s->fds[1] >= 0 && s->ready[1]);
}

/* After both outputs ended, the child's exit is what we wait for. The
 * exit watch joins the poll set only now: while output flows, an exited
 * child would keep it readable and spin the loop. */
static int watch_exit(struct bsh_stream *s)
{
    if (s->exit_watched)
        return 0;
    s->exit_watched = true;
    int fd = bsh__exitwatch_arm(&s->exit);
    if (fd < 0 || watch(s, fd, TAG_EXIT) < 0) {
        wait_error(s, errno);
        kill_group(s);
        int status;
        reap(s, &status);
        release_fds(s);
        return -1;
    }
    return 0;
}

static int step_running(struct bsh_stream *s, struct bsh_item *item, bool block)
{
    for (;;) {
        if (atomic_load(&s->cancelled))
            return finish(s, item, false);
        if (deadline_passed(s))
            return finish(s, item, true);
        if (outputs_open(s)) {
            int rc = read_ready_output(s, item);
            if (rc != 0 || s->phase != PHASE_RUNNING)
                return rc;
            if (outputs_ready(s) || !outputs_open(s))
                continue;
        } else {
            if (watch_exit(s) < 0)
                return end_with_error(s);
            if (s->exited)
                return finish(s, item, false);
        }
        if (wait_events(s, block) == 0 && !block)
            return BSH_EAGAIN;
    }
}

static int next_item(struct bsh_stream *s, struct bsh_item *item, bool block)
{
    if (s == NULL || item == NULL)
        return BSH_EINVAL;
    switch (s->phase) {
    case PHASE_ERROR:
        return end_with_error(s);
    case PHASE_TIMEOUT:
        s->phase = PHASE_DONE;
        status_item(item, 0, true);
        return 1;
    case PHASE_RUNNING:
        return step_running(s, item, block);
    case PHASE_DONE:
        break;
    }
    return 0;
}

int bsh_stream_next(struct bsh_stream *s, struct bsh_item *item)
{
    return next_item(s, item, true);
}

int bsh_stream_try_next(struct bsh_stream *s, struct bsh_item *item)
{
    return next_item(s, item, false);
}

int bsh_stream_fd(const struct bsh_stream *s)
{
    return s != NULL ? s->epfd : -1;
}

void bsh_stream_cancel(struct bsh_stream *s)
{
    if (s == NULL)
        return;
    atomic_store(&s->cancelled, 1);
    wake(s);
}

const char *bsh_stream_error(const struct bsh_stream *s)
{
    return s != NULL && s->has_error ? s->error : NULL;
}

int bsh_stream_pid(const struct bsh_stream *s)
{
    return s != NULL ? (int)s->pid : -1;
}

void bsh_stream_free(struct bsh_stream *s)
{
    if (s == NULL)
        return;
    if (s->pid > 0) {
        int status;
        kill_group(s);
        reap(s, &status);
    }
    release_fds(s);
    close_fd(s->wakefd);
    close_fd(s->epfd);
    free(s);
}

/* ---------------------------------------------------------------------- */
/* Starting a run                                                          */

static struct bsh_stream *stream_new(bool quiet)
{
    struct bsh_stream *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return NULL;
    s->quiet = quiet;
    s->pid = -1;
    s->fds[0] = s->fds[1] = -1;
    s->timerfd = s->held_master = -1;
    s->exit.fd = -1;
    atomic_init(&s->cancelled, 0);
    s->epfd = epoll_create1(EPOLL_CLOEXEC);
    s->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (s->epfd < 0 || s->wakefd < 0 || watch(s, s->wakefd, TAG_WAKE) < 0) {
        bsh_stream_free(s);
        return NULL;
    }
    return s;
}

/* The deadline counts from `start`, the moment bsh_run() was called, so
 * the guards' time is inside it. */
static void set_deadline(struct bsh_stream *s, struct timespec start,
                         int64_t timeout_ms)
{
    s->deadline = start;
    s->deadline.tv_sec += (time_t)(timeout_ms / 1000);
    s->deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (s->deadline.tv_nsec >= 1000000000L) {
        s->deadline.tv_sec++;
        s->deadline.tv_nsec -= 1000000000L;
    }
    s->deadline_set = true;
}

/* Arms the timerfd at the deadline so that the stream fd wakes pollers. */
static int arm_timer(struct bsh_stream *s)
{
    struct itimerspec its = {.it_value = s->deadline};
    s->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    if (s->timerfd < 0 ||
        timerfd_settime(s->timerfd, TFD_TIMER_ABSTIME, &its, NULL) < 0 ||
        watch(s, s->timerfd, TAG_TIMER) < 0)
        return -1;
    return 0;
}

static const char *invalid_env_name(const struct bsh_run_opts *o)
{
    for (size_t i = 0; o->env != NULL && i < o->env_count; i++)
        if (!bsh_env_name_valid(o->env[i].name))
            return o->env[i].name != NULL ? o->env[i].name : "(null)";
    return NULL;
}

static void spawn_child(struct bsh_stream *s, const struct bsh_run_opts *o)
{
    const char *prefix = o->pty ? "failed to spawn command in pty"
                                : "failed to spawn bash process";
    size_t len = strlen(o->command);
    if (len >= BSH_ARG_MAX) {
        char why[160];
        bsh__format(why, sizeof(why),
                    "%s: command is %zu bytes; the kernel takes at most %d "
                    "bytes in one argument",
                    prefix, len, BSH_ARG_MAX - 1);
        fail(s, "%s", why);
        return;
    }
    char **envp = NULL;
    if (o->env != NULL && o->env_count > 0) {
        envp = bsh__env_build(o->env, o->env_count);
        if (envp == NULL) {
            fail(s, "%s: out of memory", prefix);
            return;
        }
    }
    const char *cwd = o->cwd != NULL && o->cwd[0] != '\0' ? o->cwd : NULL;
    struct bsh__spawn sp = {-1, -1, -1};
    char why[BSH_ERROR_MAX];
    int rc =
        o->pty ? bsh__spawn_pty(o->command, cwd, envp, &sp, why, sizeof(why))
               : bsh__spawn_pipes(o->command, cwd, envp, &sp, why, sizeof(why));
    free(envp);
    if (rc < 0) {
        fail(s, "%s", why);
        return;
    }
    s->pid = sp.pid;
    s->pty = o->pty;
    bsh__exitwatch_open(&s->exit, s->pid);
    s->fds[0] = sp.out_fd;
    s->fds[1] = sp.err_fd;
    s->phase = PHASE_RUNNING;
}

/* Registers the outputs and the deadline with the poll set. */
static void start_watching(struct bsh_stream *s)
{
    for (int i = 0; i < 2; i++) {
        if (s->fds[i] >= 0 && watch(s, s->fds[i], (enum tag)i) < 0) {
            int saved = errno;
            kill_group(s);
            int status;
            reap(s, &status);
            release_fds(s);
            fail(s, "failed to watch output: %s", strerror(saved));
            return;
        }
    }
}

static void start(struct bsh_stream *s, const struct bsh_run_opts *o,
                  struct timespec started)
{
    const char *bad = invalid_env_name(o);
    if (bad != NULL) {
        fail(s, "invalid env variable name: %s", bad);
        return;
    }
    if (o->timeout_ms == 0 && o->pty) {
        s->phase = PHASE_TIMEOUT; /* nothing is opened or spawned */
        wake(s);
        return;
    }
    if (o->timeout_ms > 0) {
        set_deadline(s, started, o->timeout_ms);
        if (arm_timer(s) < 0) {
            fail(s, "failed to arm the deadline: %s", strerror(errno));
            return;
        }
    }
    spawn_child(s, o);
    if (s->phase != PHASE_RUNNING)
        return;
    if (o->timeout_ms == 0) {
        /* The reference spawns, then kills at once: one timeout item. */
        int status;
        kill_group(s);
        reap(s, &status);
        release_fds(s);
        s->phase = PHASE_TIMEOUT;
        wake(s);
        return;
    }
    start_watching(s);
}

static int run(const struct bsh_run_opts *o, struct bsh_stream **out,
               struct bsh_error *err, bool quiet)
{
    struct timespec started;
    clock_gettime(CLOCK_MONOTONIC, &started);
    if (out != NULL)
        *out = NULL;
    if (o == NULL || o->command == NULL || out == NULL ||
        (o->env == NULL && o->env_count > 0) || o->timeout_ms < -1)
        return BSH_EINVAL;
    int rc = bsh_check(o->command, strlen(o->command), err);
    if (rc != BSH_OK)
        return rc;
    struct bsh_stream *s = stream_new(quiet);
    if (s == NULL)
        return BSH_ENOMEM;
    start(s, o, started);
    *out = s;
    return BSH_OK;
}

int bsh_run(const struct bsh_run_opts *opts, struct bsh_stream **out,
            struct bsh_error *err)
{
    return run(opts, out, err, false);
}

int bsh__run_quiet(const struct bsh_run_opts *opts, struct bsh_stream **out,
                   struct bsh_error *err)
{
    return run(opts, out, err, true);
}
