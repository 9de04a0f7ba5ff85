/* SPDX-License-Identifier: MIT */
/*
 * The floor: the least code that does bsh's job, written to be as fast as
 * the job allows. posix_spawn of `bash -c COMMAND` in its own session, as
 * every bsh run is (PTY: on a 24x80 terminal), stdin /dev/null, poll
 * on the outputs, reads of at most 4096 bytes, a deadline that kills the
 * group, waitpid. No guards, no item objects, no epoll, no pidfd. Same
 * command line and report as bsh-bench.
 */
#define _GNU_SOURCE
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

extern char **environ;

struct child {
    pid_t pid;
    int fd[2]; /* stdout, stderr (PTY: master, -1) */
    double deadline_ms;
    bool timed_out;
};

static void spawn_piped(const char *cmd, struct child *c)
{
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
        perror("pipe2");
        exit(1);
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID);
    char *argv[] = {(char *)"bash", (char *)"-c", (char *)cmd, NULL};
    if (posix_spawnp(&c->pid, "bash", &fa, &at, argv, environ) != 0) {
        perror("posix_spawnp");
        exit(1);
    }
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(out[1]);
    close(err[1]);
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    fcntl(err[0], F_SETFL, O_NONBLOCK);
    c->fd[0] = out[0];
    c->fd[1] = err[0];
}

static void spawn_pty(const char *cmd, struct child *c)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    char name[64];
    struct winsize ws = {24, 80, 0, 0};
    if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0 ||
        ptsname_r(m, name, sizeof(name)) != 0 ||
        ioctl(m, TIOCSWINSZ, &ws) < 0) {
        perror("pty");
        exit(1);
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, name, O_RDWR, 0);
    posix_spawn_file_actions_adddup2(&fa, 0, 1);
    posix_spawn_file_actions_adddup2(&fa, 0, 2);
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID);
    char *argv[] = {(char *)"bash", (char *)"-c", (char *)cmd, NULL};
    if (posix_spawnp(&c->pid, "bash", &fa, &at, argv, environ) != 0) {
        perror("posix_spawnp");
        exit(1);
    }
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    c->fd[0] = m;
    c->fd[1] = -1;
}

static void start(const struct bench_args *a, struct child *c,
                  struct bench_run *r)
{
    r->start_ms = mono_ms();
    c->deadline_ms =
        a->timeout_ms >= 0 ? r->start_ms + (double)a->timeout_ms : -1;
    c->timed_out = false;
    if (a->pty)
        spawn_pty(a->command, c);
    else
        spawn_piped(a->command, c);
}

/* Reads fd `i` of `c` while reads fill the buffer (a full read means more
 * is likely waiting: no poll in between); closes it at EOF (EIO on a
 * PTY). The fds are non-blocking. */
static void read_one(struct child *c, int i, struct bench_run *r)
{
    static char buf[4096];
    ssize_t n;
    do {
        n = read(c->fd[i], buf, sizeof(buf));
        if (n > 0)
            bench_chunk(r, i == 1, (size_t)n);
    } while (n == (ssize_t)sizeof(buf));
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
        close(c->fd[i]);
        c->fd[i] = -1;
    }
}

static void end(struct child *c, struct bench_run *r)
{
    int st;
    if (c->timed_out)
        kill(-c->pid, SIGKILL);
    for (int i = 0; i < 2; i++)
        if (c->fd[i] >= 0)
            close(c->fd[i]);
    while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
        ;
    r->has_signal = c->timed_out || WIFSIGNALED(st);
    r->signal = c->timed_out ? -1 : WTERMSIG(st);
    r->has_exit = !r->has_signal;
    r->exit_code = WEXITSTATUS(st);
    r->end_ms = mono_ms();
}

static bool open_fds(const struct child *c)
{
    return c->fd[0] >= 0 || c->fd[1] >= 0;
}

static void run_one(const struct bench_args *a, struct bench_run *r)
{
    struct child c;
    start(a, &c, r);
    while (open_fds(&c)) {
        struct pollfd p[2] = {{c.fd[0], POLLIN, 0}, {c.fd[1], POLLIN, 0}};
        struct timespec ts, *tp = NULL;
        if (c.deadline_ms >= 0) {
            double left = c.deadline_ms - mono_ms();
            if (left <= 0) {
                c.timed_out = true;
                break;
            }
            ts.tv_sec = (time_t)(left / 1e3);
            ts.tv_nsec = (long)((left - (double)ts.tv_sec * 1e3) * 1e6);
            tp = &ts;
        }
        if (ppoll(p, 2, tp, NULL) <= 0)
            continue;
        for (int i = 0; i < 2; i++)
            if (p[i].revents)
                read_one(&c, i, r);
    }
    end(&c, r);
}

static void run_sequential(const struct bench_args *a, struct bench_run *runs)
{
    for (int i = 0; i < a->repeat; i++)
        run_one(a, &runs[i]);
}

static void run_parallel(const struct bench_args *a, struct bench_run *runs)
{
    int n = a->parallel, left = n;
    struct child *c = calloc((size_t)n, sizeof(*c));
    struct pollfd *p = calloc((size_t)n * 2, sizeof(*p));
    for (int i = 0; i < n; i++)
        start(a, &c[i], &runs[i]);
    while (left > 0) {
        for (int i = 0; i < n; i++)
            for (int k = 0; k < 2; k++)
                p[2 * i + k] = (struct pollfd){c[i].fd[k], POLLIN, 0};
        poll(p, (nfds_t)n * 2, -1);
        for (int i = 0; i < n; i++) {
            bool was_open = open_fds(&c[i]);
            for (int k = 0; k < 2; k++)
                if (p[2 * i + k].revents)
                    read_one(&c[i], k, &runs[i]);
            if (was_open && !open_fds(&c[i])) {
                end(&c[i], &runs[i]);
                left--;
            }
        }
    }
    free(c);
    free(p);
}

int main(int argc, char **argv)
{
    return bench_main(argc, argv, run_sequential, run_parallel);
}
