/* SPDX-License-Identifier: MIT */
/*
 * `bsh run`: one stream, rendered as it arrives, from one poll loop over
 * the stream's fd, a signalfd and bsh's own stdout and stderr.
 *
 * bsh is the subreaper of its run: whatever leaves the run's process group
 * (setsid, double forks, daemons) is re-parented to bsh when its parent
 * dies, and killed when the run ends, however it ends.
 *
 * Every signal that would end bsh is blocked and read from the signalfd,
 * so no handler runs; the child gets an empty mask and default
 * dispositions from the engine. On one of them the run is cancelled,
 * which kills the command's whole group, and bsh exits 128+N.
 *
 * Output goes through sinks that never block (common/sink.h). While a
 * reader does not take what bsh has, bsh stops pulling items (the command
 * then blocks on its own pipe, as in any pipeline), but keeps watching its
 * signals and the deadline, which win over a reader that does not read.
 *
 * With -i, bsh's stdin is forwarded to the command's (forward.h); with -p
 * on a terminal, that terminal is in raw mode for the run and its size is
 * followed (terminal.h).
 */
#define _GNU_SOURCE
#include "agent_env.h"
#include "commands.h"
#include "forward.h"
#include "mono.h"
#include "orphans.h"
#include "output.h"
#include "policy_cli.h"
#include "process.h"
#include "session_lock.h"
#include "signal_read.h"
#include "sink.h"
#include "terminal.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How long the end of a run may spend ending the orphans it left. */
#define ORPHANS_MAX_MS 1000

/* Output bsh may hold for a slow reader before it stops pulling items. */
#define SINK_LIMIT 65536

struct run_state {
    const struct cli_args *args;
    struct bsh_stream *stream;
    pid_t group; /* the run's process group, for its orphans */
    struct sink out, err;
    int exit_status;
    int caught_signal; /* 0, or the signal that asked us to stop */
    bool ended;        /* the stream has ended (status or error) */
    bool has_deadline;
    struct timespec deadline;    /* at or after the engine's own */
    bool forwarding;             /* -i: bsh's stdin goes to the command */
    struct bsh_session *session; /* --session FILE's, or NULL */
    struct bsh_policy *policy;   /* the command policy, or NULL */
    bool refused;                /* the policy refused the run */
    struct forward in;
    struct terminal term; /* -p -i on a terminal */
    int child_fd;         /* SIGCHLD's signalfd: orphans are reaped as they
                             exit, or -1 */
};

static int status_exit(const struct bsh_item *item)
{
    if (bsh_item_timed_out(item))
        return EXIT_TIMED_OUT;
    if (item->has_signal)
        return EXIT_SIGNAL_BASE + item->signal;
    return item->exit_code;
}

static bool output_failed(const struct run_state *st)
{
    return st->out.error != 0 || st->err.error != 0;
}

/* A signal to bsh or a failed output asks the run to stop. */
static bool stopping(const struct run_state *st)
{
    return st->caught_signal != 0 || output_failed(st);
}

/* The end report after the status item: the last JSON line, or one line
 * on stderr. `orphans`: what bsh, as the subreaper, killed and could not
 * kill. As the subreaper bsh sees everything that left the session, so
 * it knows what escaped. */
static void render_report(struct run_state *st, int orphans, int stuck)
{
    const struct bsh_report *lib = bsh_stream_report(st->stream);
    if (lib == NULL)
        return;
    struct bsh_report r = *lib;
    if (r.killed >= 0)
        r.killed += orphans;
    if (r.containment == BSH_CONTAIN_SESSION)
        r.escaped = (r.escaped > 0 ? r.escaped : 0) + stuck;
    const char *held =
        report_containment(&r, st->args->containment != CLI_CONTAIN_CGROUP);
    char *text = st->args->json ? report_json(&r, held) : report_text(&r, held);
    const char *state =
        bsh_session_state_name(bsh_stream_session_state(st->stream));
    char *line = NULL;
    size_t tl = text != NULL ? strlen(text) : 0;
    /* session_state closes the report: "saved" or null outside one. */
    if (text != NULL && st->args->json && tl > 0 && text[tl - 1] == '}')
        text[tl - 1] = '\0';
    if (text != NULL &&
        (st->args->json
             ? asprintf(&line, "{\"report\":%s,\"session_state\":%s%s%s}}\n",
                        text, state ? "\"" : "", state ? state : "null",
                        state ? "\"" : "")
             : asprintf(&line, "bsh: report: %s%s%s\n", text,
                        state ? ", session state " : "", state ? state : "")) <
            0)
        line = NULL;
    if (line != NULL)
        sink_write(st->args->json ? &st->out : &st->err, line, strlen(line));
    free(line);
    free(text);
}

/* What became of the session's state, on stderr, when it is worth a
 * line: a directory that was gone, a state not saved. */
static void render_session(struct run_state *st)
{
    char line[1024];
    const char *missing = bsh_stream_session_missing_dir(st->stream);
    if (missing != NULL) {
        snprintf(line, sizeof(line),
                 "bsh: the session's directory %s no longer exists; the run "
                 "started in %s\n",
                 missing, bsh_session_base_dir(st->session));
        sink_write(&st->err, line, strlen(line));
    }
    if (bsh_stream_session_state(st->stream) == BSH_SESSION_UNCHANGED) {
        snprintf(line, sizeof(line),
                 "bsh: session state not saved: %s; the session keeps the "
                 "state it had before this run\n",
                 bsh_stream_session_note(st->stream));
        sink_write(&st->err, line, strlen(line));
    }
}

static void render(struct run_state *st, const struct bsh_item *item)
{
    int orphans = 0, stuck = 0;
    if (item->kind == BSH_ITEM_STATUS) {
        st->exit_status = status_exit(item);
        st->ended = true;
        /* What left the run's session dies with it, before the status. */
        orphans = orphans_end(st->group, ORPHANS_MAX_MS, &stuck);
    }
    if (stopping(st))
        return;
    if (st->args->json) {
        char line[JSON_ITEM_MAX];
        size_t n = format_json_item(item, line);
        sink_write(&st->out, line, n);
    } else if (item->kind != BSH_ITEM_STATUS) {
        sink_write(item->kind == BSH_ITEM_STDOUT ? &st->out : &st->err,
                   item->data, item->len);
    }
    if (item->kind == BSH_ITEM_STATUS && st->session != NULL)
        render_session(st);
    if (item->kind == BSH_ITEM_STATUS && st->args->report)
        render_report(st, orphans, stuck);
}

/* A message of bsh's own, in the form the mode asks for. */
static void render_error(struct run_state *st, const char *msg,
                         const char *stage)
{
    char *line =
        st->args->json ? format_json_error(msg, stage) : cli_format_error(msg);
    if (line != NULL)
        sink_write(st->args->json ? &st->out : &st->err, line, strlen(line));
    free_line(line);
}

/* A policy refusal: `bsh: policy: ...` on stderr, or the JSON line. */
static void render_refusal(struct run_state *st, const char *msg)
{
    if (!st->args->json) {
        render_error(st, msg, "policy");
        return;
    }
    const char *decision =
        strncmp(msg, "policy: denied:", 15) == 0 ? "deny" : "ask";
    char *line = format_json_refusal(msg, decision);
    if (line != NULL)
        sink_write(&st->out, line, strlen(line));
    free_line(line);
}

static bool deadline_passed(const struct run_state *st)
{
    return st->has_deadline && mono_ns_until(st->deadline) <= 0;
}

/* Milliseconds until our deadline (rounded up), or -1 without one. */
static int ms_to_deadline(const struct run_state *st)
{
    if (!st->has_deadline)
        return -1;
    int64_t ms = (mono_ns_until(st->deadline) + 999999) / 1000000;
    return ms < 0 ? 0 : ms > 1000000000 ? 1000000000 : (int)ms;
}

static bool sinks_full(const struct run_state *st)
{
    return sink_full(&st->out) || sink_full(&st->err);
}

static bool sinks_pending(const struct run_state *st)
{
    return sink_pending(&st->out) || sink_pending(&st->err);
}

/* Pulls what the stream has ready. Returns false when it would block. */
static bool pull(struct run_state *st, struct bsh_stream *s)
{
    struct bsh_item item;
    int rc = bsh_stream_try_next(s, &item);
    if (rc == BSH_EAGAIN)
        return false;
    if (rc == 1) {
        render(st, &item);
    } else {
        st->ended = true;
        if (rc < 0) {
            const char *msg = bsh_stream_error(s);
            st->exit_status = EXIT_BSH_FAILED;
            render_error(st, msg != NULL ? msg : "stream failed", "stream");
        }
    }
    if (stopping(st))
        bsh_stream_cancel(s);
    return true;
}

/* Whether to take more items now: not while the reader lags behind,
 * unless the run must end anyway (signal, failed output, deadline). */
static bool may_pull(const struct run_state *st)
{
    return !st->ended &&
           (!sinks_full(st) || stopping(st) || deadline_passed(st));
}

/* -i: input for the command, and the terminal's new size. */
static void take_input(struct run_state *st, struct bsh_stream *s,
                       const struct pollfd *in, const struct pollfd *winch)
{
    int rows, cols;
    if (in->revents != 0)
        forward_read(&st->in);
    if (winch->revents != 0 && terminal_resized(&st->term, &rows, &cols))
        bsh_stream_resize(s, rows, cols);
    if (!st->ended)
        forward_push(&st->in, s);
}

/* The run's own bash, which the engine reaps with its status. */
static bool is_leader(pid_t pid, void *ctx)
{
    return pid == bsh_stream_pid(ctx);
}

/* Waits for the stream, a signal, a writable output or input. The stream
 * is watched whenever items may be taken: also once the run must stop,
 * when the outputs may be full for good (a reader that never reads). */
static void wait_for_work(struct run_state *st, struct bsh_stream *s, int sfd)
{
    bool watch_stream = may_pull(st);
    bool input = st->forwarding && !st->ended;
    /* Input read earlier goes to the engine before we sleep: taking items
     * may have made room for it (the engine's stdin buffer drained), and
     * nothing would wake us for that, since our stdin is not watched
     * while input waits here. */
    if (input)
        forward_push(&st->in, s);
    struct pollfd pfd[7] = {
        {watch_stream ? bsh_stream_fd(s) : -1, POLLIN, 0},
        {sfd, POLLIN, 0},
        {sink_pending(&st->out) ? st->out.fd : -1, POLLOUT, 0},
        {sink_pending(&st->err) ? st->err.fd : -1, POLLOUT, 0},
        {input ? forward_poll_fd(&st->in) : -1, POLLIN, 0},
        {input ? st->term.winch_fd : -1, POLLIN, 0},
        {st->child_fd, POLLIN, 0},
    };
    /* Once past the deadline the engine bounds what is left (the grace,
     * the kill): wait for the stream, not for a clock that has run out. */
    int timeout = deadline_passed(st) && watch_stream ? -1 : ms_to_deadline(st);
    /* Without a pollable fd (none could be made: out of fds), look again
     * every 10 ms rather than wait for a signal. */
    if (watch_stream && pfd[0].fd < 0 && (timeout < 0 || timeout > 10))
        timeout = 10;
    if (poll(pfd, 7, timeout) < 0 && errno != EINTR)
        bsh_stream_cancel(s);
    int sig = (pfd[1].revents & POLLIN) ? signal_read(sfd) : 0;
    if (sig != 0) {
        if (st->caught_signal == 0)
            st->caught_signal = sig;
        bsh_stream_cancel(s);
    }
    if (pfd[2].revents != 0)
        sink_flush(&st->out);
    if (pfd[3].revents != 0)
        sink_flush(&st->err);
    if (input)
        take_input(st, s, &pfd[4], &pfd[5]);
    if (pfd[6].revents != 0)
        orphans_reap(st->child_fd, is_leader, s);
}

/* Drives the stream to its end and delivers its output. */
static void pump(struct run_state *st, struct bsh_stream *s, int sfd)
{
    for (;;) {
        while (may_pull(st) && pull(st, s))
            ;
        if (st->ended && (!sinks_pending(st) || stopping(st)))
            return;
        if (st->ended && deadline_passed(st)) {
            /* The command ended in time, but its output could not be
             * delivered before the deadline: the run timed out. */
            st->exit_status = EXIT_TIMED_OUT;
            return;
        }
        wait_for_work(st, s, sfd);
    }
}

static void set_deadline(struct run_state *st, int64_t timeout_ms)
{
    if (timeout_ms < 0)
        return;
    st->deadline = mono_add_ms(mono_now(), timeout_ms);
    st->has_deadline = true;
}

static int start_run(struct run_state *st, struct bsh_stream **s)
{
    const struct cli_args *a = st->args;
    struct bsh_run_opts o = a->run;
    o.command = a->text;
    o.report = a->report;
    o.stdin_pipe = a->stdin_given;
    o.session = st->session;
    if (st->term.fd >= 0) { /* the command's terminal starts at our size */
        o.pty_rows = st->term.rows;
        o.pty_cols = st->term.cols;
    }
    struct bsh_env_var *env = a->agent_env ? agent_env_apply(&o) : NULL;
    if (a->agent_env && env == NULL) {
        render_error(st, "out of memory", "stream");
        return EXIT_BSH_FAILED;
    }
    o.policy = st->policy;
    if (st->policy != NULL) {
        const char *ask = a->ask != NULL ? a->ask : "tty";
        if (strcmp(ask, "allow") == 0)
            o.approve = cli_policy_approve_all;
        else if (strcmp(ask, "sandbox") == 0)
            o.approve = cli_policy_readonly;
        else if (strcmp(ask, "tty") == 0 && !a->json && cli_policy_has_tty())
            o.approve = cli_policy_ask_tty;
    }
    struct bsh_error err;
    int rc = bsh_run(&o, s, &err);
    free(env);
    if (rc == BSH_EGUARD) {
        render_error(st, err.text_err, "guard");
        return EXIT_GUARD;
    }
    if (rc == BSH_EPOLICY) {
        st->refused = true;
        render_refusal(st, err.text_err);
        return EXIT_GUARD;
    }
    if (rc != BSH_OK) {
        render_error(st,
                     rc == BSH_ENOMEM ? "out of memory" : "invalid run options",
                     "stream");
        return EXIT_BSH_FAILED;
    }
    /* Taken after the engine's start, so never before its deadline. */
    set_deadline(st, a->run.timeout_ms);
    return 0;
}

/* The exit status once the run is over: a signal to bsh first, then a
 * failed output, then the run's own. */
static int final_status(struct run_state *st)
{
    if (st->caught_signal != 0)
        return EXIT_SIGNAL_BASE + st->caught_signal;
    if (st->out.error != 0)
        return cli_output_status("stdout", st->out.error);
    if (st->err.error != 0)
        return cli_output_status("stderr", st->err.error);
    return st->exit_status;
}

int cmd_run(const struct cli_args *a)
{
    struct run_state st = {.args = a,
                           .exit_status = EXIT_BSH_FAILED,
                           .term = {.fd = -1, .winch_fd = -1},
                           .child_fd = -1};
    int sfd = process_stop_signals();
    if (sfd < 0) {
        cli_error(strerror(errno));
        return EXIT_BSH_FAILED;
    }
    sink_open(&st.out, 1, SINK_LIMIT);
    sink_open(&st.err, 2, SINK_LIMIT);
    if (st.out.blocking || st.err.blocking)
        cli_error("warning: the output cannot be written without blocking: "
                  "a reader that stops reading will hold the run up");
    /* Orphans of the run come to us, to be ended with it, and are reaped
     * as they exit. */
    orphans_become_subreaper();
    st.child_fd = orphans_signal_fd();
    if (a->stdin_given) {
        st.forwarding = true;
        forward_init(&st.in, 0);
        if (a->run.pty)
            terminal_take(&st.term, 0);
    }
    struct bsh_stream *s = NULL;
    struct cli_session cs = {NULL, -1, NULL};
    char why[1024];
    int rc = cli_policy_load(a, EXIT_BSH_FAILED, &st.policy);
    if (rc == 0 && a->session_file != NULL &&
        cli_session_open(&cs, a->session_file, a->run.cwd, true, why,
                         sizeof(why)) < 0) {
        render_error(&st, why, "session");
        rc = EXIT_BSH_FAILED;
    }
    st.session = cs.session;
    orphans_run_starts();
    if (rc == 0)
        rc = start_run(&st, &s);
    st.stream = s;
    st.group = bsh_stream_pid(s);
    if (rc == 0) {
        pump(&st, s, sfd);
    } else {
        st.exit_status = rc;
        st.ended = true;
        pump(&st, NULL, sfd); /* delivers the message */
    }
    bsh_stream_free(s);
    /* A refused run leaves the session file as it was. */
    if (cs.session != NULL &&
        cli_session_close(&cs, !st.refused, why, sizeof(why)) < 0)
        cli_error(why);
    bsh_policy_free(st.policy);
    terminal_restore(&st.term);
    orphans_end(st.group, ORPHANS_MAX_MS, NULL);
    close(sfd);
    if (st.child_fd >= 0)
        close(st.child_fd);
    int status = final_status(&st);
    sink_close(&st.out);
    sink_close(&st.err);
    return status;
}
