/* SPDX-License-Identifier: MIT */
/*
 * `bsh run`: one stream, rendered as it arrives. SIGINT, SIGTERM and
 * SIGHUP are blocked and read from a signalfd in the same poll loop as
 * the stream's fd, so no handler runs and the child (which gets an empty
 * mask from the engine) still sees them by default; on one of them the
 * run is cancelled, which kills the command's whole group.
 */
#define _GNU_SOURCE
#include "commands.h"
#include "output.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

struct run_state {
    const struct cli_args *args;
    int exit_status;
    int caught_signal; /* 0, or the signal that asked us to stop */
    bool output_lost;  /* our stdout or stderr went away */
};

static int status_exit(const struct bsh_item *item)
{
    if (item->has_signal && item->signal == -1)
        return EXIT_TIMED_OUT;
    if (item->has_signal)
        return EXIT_SIGNAL_BASE + item->signal;
    return item->exit_code;
}

static void render(struct run_state *st, const struct bsh_item *item)
{
    int rc = 0;
    if (item->kind == BSH_ITEM_STATUS)
        st->exit_status = status_exit(item);
    if (st->args->json)
        rc = json_write_item(item);
    else if (item->kind != BSH_ITEM_STATUS)
        rc = write_all(item->kind == BSH_ITEM_STDOUT ? 1 : 2, item->data,
                       item->len);
    if (rc < 0)
        st->output_lost = true;
}

static void render_stream_error(const struct run_state *st, const char *msg)
{
    if (st->args->json)
        (void)json_write_error(msg, "stream");
    else
        cli_error(msg);
}

static int open_signalfd(sigset_t *stop)
{
    sigemptyset(stop);
    sigaddset(stop, SIGINT);
    sigaddset(stop, SIGTERM);
    sigaddset(stop, SIGHUP);
    if (sigprocmask(SIG_BLOCK, stop, NULL) < 0)
        return -1;
    return signalfd(-1, stop, SFD_CLOEXEC | SFD_NONBLOCK);
}

static void take_signal(struct run_state *st, int sfd, struct bsh_stream *s)
{
    struct signalfd_siginfo si;
    while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        if (st->caught_signal == 0)
            st->caught_signal = (int)si.ssi_signo;
        bsh_stream_cancel(s);
    }
}

/* Drives the stream to its end; returns 0, or -1 after a stream error. */
static int pump(struct run_state *st, struct bsh_stream *s, int sfd)
{
    struct pollfd pfd[2] = {{bsh_stream_fd(s), POLLIN, 0}, {sfd, POLLIN, 0}};
    struct bsh_item item;
    for (;;) {
        int rc = bsh_stream_try_next(s, &item);
        if (rc == 1) {
            render(st, &item);
            if (st->output_lost)
                bsh_stream_cancel(s);
        } else if (rc == BSH_EAGAIN) {
            /* Without a pollable fd (none could be made: out of fds),
             * look again every 10 ms rather than wait for a signal. */
            if (poll(pfd, 2, pfd[0].fd < 0 ? 10 : -1) < 0 && errno != EINTR)
                bsh_stream_cancel(s);
            if (pfd[1].revents & POLLIN)
                take_signal(st, sfd, s);
        } else if (rc == 0) {
            return 0;
        } else {
            const char *msg = bsh_stream_error(s);
            render_stream_error(st, msg != NULL ? msg : "stream failed");
            return -1;
        }
    }
}

static int start_run(const struct cli_args *a, struct bsh_stream **s)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = a->text;
    o.cwd = a->cwd;
    o.env = a->env;
    o.env_count = a->env_count;
    o.timeout_ms = a->timeout_ms;
    o.pty = a->pty;
    struct bsh_error err;
    int rc = bsh_run(&o, s, &err);
    if (rc == BSH_EGUARD) {
        if (a->json)
            (void)json_write_error(err.text_err, "guard");
        else
            cli_error(err.text_err);
        return EXIT_GUARD;
    }
    if (rc != BSH_OK) {
        cli_error(rc == BSH_ENOMEM ? "out of memory" : "invalid run options");
        return EXIT_BSH_FAILED;
    }
    return 0;
}

int cmd_run(const struct cli_args *a)
{
    struct run_state st = {a, EXIT_BSH_FAILED, 0, false};
    sigset_t stop;
    /* A reader that goes away must show up as EPIPE, not kill us before
     * we have killed the command. */
    struct sigaction ignore = {.sa_handler = SIG_IGN};
    sigaction(SIGPIPE, &ignore, NULL);
    int sfd = open_signalfd(&stop);
    if (sfd < 0) {
        cli_error(strerror(errno));
        return EXIT_BSH_FAILED;
    }
    struct bsh_stream *s = NULL;
    int rc = start_run(a, &s);
    if (rc == 0 && pump(&st, s, sfd) < 0)
        st.exit_status = EXIT_BSH_FAILED;
    else if (rc != 0)
        st.exit_status = rc;
    bsh_stream_free(s);
    close(sfd);
    if (st.caught_signal != 0)
        return EXIT_SIGNAL_BASE + st.caught_signal;
    if (st.output_lost) /* as a pipeline member killed by SIGPIPE */
        return EXIT_SIGNAL_BASE + SIGPIPE;
    return st.exit_status;
}
