/* SPDX-License-Identifier: MIT */
/*
 * stdin throughput: bytes written through a run's stdin by bsh against
 * the floor, the same command fed by hand through a plain pipe and a
 * plain PTY (forkpty), in pairs whose order alternates. Prints the
 * medians and the median of the paired ratios (bsh / floor throughput).
 * Usage: bsh-stdin-bench [MIB_PIPE] [MIB_PTY] [ROUNDS]
 */
#define _GNU_SOURCE
#include <bsh/bsh.h>

#include "harness.h"
#include "mono.h"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHUNK 65536

extern char **environ;

static unsigned char chunk[CHUNK];

static void write_all_blocking(int fd, size_t total)
{
    for (size_t done = 0; done < total;) {
        size_t n = total - done < CHUNK ? total - done : CHUNK;
        ssize_t w = write(fd, chunk, n);
        if (w < 0)
            return;
        done += (size_t)w;
    }
}

/* The floor, pipes: cat reads a pipe we write. */
static double floor_pipe(size_t total)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, p[0], 0);
    char *argv[] = {(char *)"bash", (char *)"-c", (char *)"cat >/dev/null",
                    NULL};
    double t0 = mono_ms();
    pid_t pid;
    posix_spawnp(&pid, "bash", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(p[0]);
    write_all_blocking(p[1], total);
    close(p[1]);
    waitpid(pid, NULL, 0);
    return mono_ms() - t0;
}

/* The floor, PTY: the same command typed into a terminal of our own. */
static double floor_pty(size_t total)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "stty raw -echo; echo R; head -c %zu >/dev/null",
             total);
    int master;
    double t0 = mono_ms();
    pid_t pid = forkpty(&master, NULL, NULL, NULL);
    if (pid == 0) {
        execlp("bash", "bash", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    char buf[256];
    ssize_t n;
    while ((n = read(master, buf, sizeof(buf))) > 0 &&
           !memchr(buf, 'R', (size_t)n))
        ;
    write_all_blocking(master, total);
    while (read(master, buf, sizeof(buf)) > 0)
        ;
    waitpid(pid, NULL, 0);
    close(master);
    return mono_ms() - t0;
}

/* Takes ready items; sets *seen when the output held `mark`; false at
 * the end. */
static bool take(struct bsh_stream *s, char mark, bool *seen)
{
    struct bsh_item it;
    int rc;
    while ((rc = bsh_stream_try_next(s, &it)) == 1)
        if (it.kind != BSH_ITEM_STATUS && memchr(it.data, mark, it.len))
            *seen = true;
    return rc == BSH_EAGAIN;
}

static double bsh_feed(size_t total, bool pty)
{
    char cmd[128];
    if (pty)
        snprintf(cmd, sizeof(cmd),
                 "stty raw -echo; echo R; head -c %zu >/dev/null", total);
    else
        snprintf(cmd, sizeof(cmd), "cat >/dev/null");
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = cmd;
    o.pty = pty;
    o.stdin_pipe = true;
    o.containment = BSH_CONTAIN_SESSION; /* the floor has no cgroup */
    double t0 = mono_ms();
    struct bsh_stream *s;
    if (bsh_run(&o, &s, NULL) != BSH_OK)
        return -1;
    struct pollfd p = {bsh_stream_fd(s), POLLIN, 0};
    bool ready = !pty, live = true;
    while (!ready && live) {
        poll(&p, 1, -1);
        live = take(s, 'R', &ready);
    }
    for (size_t done = 0; done < total && live;) {
        size_t n = total - done < CHUNK ? total - done : CHUNK;
        int64_t w = bsh_stream_write(s, chunk, n);
        if (w < 0)
            break;
        done += (size_t)w;
        if ((size_t)w < n) { /* the buffer is full: let the loop flush */
            poll(&p, 1, -1);
            live = take(s, 0, &ready);
        }
    }
    if (!pty)
        bsh_stream_close_stdin(s);
    while (live) {
        poll(&p, 1, -1);
        live = take(s, 0, &ready);
    }
    bsh_stream_free(s);
    return mono_ms() - t0;
}

static void pair(const char *name, size_t total, bool pty, int rounds)
{
    double f[64], b[64], r[64];
    for (int i = 0; i < rounds; i++) {
        if (i % 2 == 0) {
            f[i] = pty ? floor_pty(total) : floor_pipe(total);
            b[i] = bsh_feed(total, pty);
        } else {
            b[i] = bsh_feed(total, pty);
            f[i] = pty ? floor_pty(total) : floor_pipe(total);
        }
        r[i] = f[i] / b[i]; /* throughput of bsh / of the floor */
    }
    double mib = (double)total / (1 << 20);
    double fm = bench_median(f, rounds), bm = bench_median(b, rounds);
    printf("| %s | %.0f MiB | floor %.0f MiB/s | bsh %.0f MiB/s | %.3f x |\n",
           name, mib, mib / fm * 1000, mib / bm * 1000,
           bench_median(r, rounds));
}

int main(int argc, char **argv)
{
    size_t pipe_mib = argc > 1 ? (size_t)atoi(argv[1]) : 512;
    size_t pty_mib = argc > 2 ? (size_t)atoi(argv[2]) : 64;
    int rounds = argc > 3 ? atoi(argv[3]) : 11;
    if (rounds < 1 || rounds > 64)
        rounds = 11;
    memset(chunk, 'x', sizeof(chunk));
    printf("| stdin through | bytes | floor | bsh | bsh / floor |\n");
    printf("|---|---|---|---|---|\n");
    pair("pipe (cat)", pipe_mib << 20, false, rounds);
    pair("PTY, raw (head -c)", pty_mib << 20, true, rounds);
    return 0;
}
