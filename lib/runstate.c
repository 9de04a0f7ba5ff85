/* SPDX-License-Identifier: MIT */
/*
 * Input wait, from the terminal itself rather than from prompt text: the
 * foreground process group of the run's terminal is blocked reading it.
 * /proc/PID/syscall says which system call a sleeping process is in and
 * on which fd; where it cannot be read (it needs ptrace access), the
 * kernel function it sleeps in (wchan) stands in. A silent `sleep`, a
 * compile or a background job sleep elsewhere, so they never count.
 */
#define _GNU_SOURCE
#include "runstate.h"
#include "internal.h"
#include "procinfo.h"
#include "stream.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

/* Whether fd `fd` of `pid` is the terminal `tty`. */
static bool fd_is(int pid, long fd, const char *tty)
{
    char link[128];
    return bsh__proc_fd(pid, fd, link, sizeof(link)) && strcmp(link, tty) == 0;
}

static bool is_read_call(long nr)
{
    return nr == SYS_read || nr == SYS_readv || nr == SYS_pread64;
}

/* The calls that wait on several fds (a REPL, an editor): they count when
 * the process's stdin is the terminal. */
static bool is_poll_call(long nr)
{
    switch (nr) {
#ifdef SYS_poll
    case SYS_poll:
#endif
#ifdef SYS_select
    case SYS_select:
#endif
#ifdef SYS_epoll_wait
    case SYS_epoll_wait:
#endif
    case SYS_ppoll:
    case SYS_pselect6:
    case SYS_epoll_pwait:
        return true;
    default:
        return false;
    }
}

/* From /proc/PID/syscall ("NR ARG1 ARG2 ..." while blocked): 1 when the
 * process waits on the terminal, 0 when not, -1 when it cannot be read. */
static int syscall_reads(int pid, const char *tty)
{
    char path[64], text[256];
    snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
    if (bsh__read_file(AT_FDCWD, path, text, sizeof(text)) <= 0)
        return -1;
    char *end;
    long nr = strtol(text, &end, 10);
    if (end == text)
        return 0; /* "running" */
    long fd = strtol(end, NULL, 16);
    if (is_read_call(nr))
        return fd_is(pid, fd, tty);
    return is_poll_call(nr) && fd_is(pid, 0, tty);
}

/* Without ptrace access: the kernel function it sleeps in. */
static bool wchan_reads(int pid, const char *tty)
{
    static const char *const waits[] = {"wait_woken", "n_tty_read", "do_select",
                                        "do_sys_poll", "ep_poll"};
    char path[64], text[64];
    snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
    if (bsh__read_file(AT_FDCWD, path, text, sizeof(text)) <= 0)
        return false;
    for (size_t i = 0; i < sizeof(waits) / sizeof(waits[0]); i++)
        if (strcmp(text, waits[i]) == 0)
            return fd_is(pid, 0, tty);
    return false;
}

static bool waits_on_terminal(int pid, const char *tty)
{
    int r = syscall_reads(pid, tty);
    return r < 0 ? wchan_reads(pid, tty) : r == 1;
}

enum bsh_input_wait bsh__input_wait(int master, const int *pids, int n)
{
    char tty[64];
    struct termios t;
    pid_t fg = tcgetpgrp(master);
    if (fg <= 0 || ptsname_r(master, tty, sizeof(tty)) != 0 ||
        tcgetattr(master, &t) < 0)
        return BSH_INPUT_NONE;
    bool waiting = false;
    for (int i = 0; i < n && !waiting; i++) {
        char state;
        int pgrp;
        waiting = bsh__proc_stat(pids[i], &state, &pgrp) && pgrp == fg &&
                  state == 'S' && waits_on_terminal(pids[i], tty);
    }
    if (!waiting)
        return BSH_INPUT_NONE;
    if (!(t.c_lflag & ICANON))
        return BSH_INPUT_RAW;
    return (t.c_lflag & ECHO) ? BSH_INPUT_LINE : BSH_INPUT_PASSWORD;
}

/* ---- listening ports ---------------------------------------------------- */

#define SOCKETS_MAX 512

/* The socket inodes among the fds of `pid`, appended to `inodes`. */
static size_t socket_inodes(int pid, unsigned long *inodes, size_t have)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/fd", pid);
    DIR *d = opendir(path);
    if (d == NULL)
        return have;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && have < SOCKETS_MAX) {
        char link[64];
        ssize_t n = readlinkat(dirfd(d), e->d_name, link, sizeof(link) - 1);
        if (n <= 8 || strncmp(link, "socket:[", 8) != 0)
            continue;
        link[n] = '\0';
        inodes[have++] = strtoul(link + 8, NULL, 10);
    }
    closedir(d);
    return have;
}

static bool has_inode(const unsigned long *inodes, size_t n, unsigned long v)
{
    for (size_t i = 0; i < n; i++)
        if (inodes[i] == v)
            return true;
    return false;
}

static void add_port(int *ports, size_t *count, size_t max, int port)
{
    size_t i = 0;
    while (i < *count && ports[i] < port)
        i++;
    if ((i < *count && ports[i] == port) || *count >= max)
        return;
    memmove(ports + i + 1, ports + i, (*count - i) * sizeof(*ports));
    ports[i] = port;
    (*count)++;
}

/* One line of /proc/net/tcp: "sl local rem st tx:rx tr:tm retr uid
 * timeout inode ...". The port of a listening socket we own, or -1. */
static int listening_port(char *line, const unsigned long *inodes, size_t n)
{
    char *field[10], *save = NULL;
    int k = 0;
    for (char *f = strtok_r(line, " \t\n", &save); f != NULL && k < 10;
         f = strtok_r(NULL, " \t\n", &save))
        field[k++] = f;
    if (k < 10 || strcmp(field[3], "0A") != 0) /* TCP_LISTEN */
        return -1;
    char *colon = strrchr(field[1], ':');
    if (colon == NULL || !has_inode(inodes, n, strtoul(field[9], NULL, 10)))
        return -1;
    return (int)strtol(colon + 1, NULL, 16);
}

static void scan_table(const char *path, const unsigned long *inodes, size_t n,
                       int *ports, size_t *count, size_t max)
{
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return;
    char line[512];
    while (fgets(line, sizeof(line), f) != NULL) {
        int port = listening_port(line, inodes, n);
        if (port > 0)
            add_port(ports, count, max, port);
    }
    fclose(f);
}

size_t bsh__listening_ports(const int *pids, int n, int *ports, size_t max)
{
    unsigned long *inodes = malloc(SOCKETS_MAX * sizeof(*inodes));
    size_t have = 0, count = 0;
    if (inodes == NULL)
        return 0;
    for (int i = 0; i < n; i++)
        have = socket_inodes(pids[i], inodes, have);
    if (have > 0) {
        /* The run's own network namespace, through its first process. */
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/net/tcp", pids[0]);
        scan_table(path, inodes, have, ports, &count, max);
        snprintf(path, sizeof(path), "/proc/%d/net/tcp6", pids[0]);
        scan_table(path, inodes, have, ports, &count, max);
    }
    free(inodes);
    return count;
}

/* ---- the public calls ------------------------------------------------------
 */

/* Processes of a run looked at for its state, at most. */
#define STATE_PIDS_MAX 256

int bsh_stream_state(const struct bsh_stream *s, struct bsh_run_state *st,
                     bool ports)
{
    if (s == NULL || st == NULL)
        return BSH_EINVAL;
    memset(st, 0, sizeof(*st));
    st->running = s->phase == PHASE_RUNNING || s->phase == PHASE_GRACE ||
                  s->phase == PHASE_ENDING;
    struct timespec now = mono_now();
    st->elapsed_ms = mono_diff_ms(now, s->started);
    st->idle_ms = mono_diff_ms(now, s->out.last_output);
    st->stdin_open = bsh__input_open_for_writes(&s->input);
    st->stdin_buffered = bsh__input_buffered(&s->input);
    int m = bsh__stream_master(s);
    bool quiet = m >= 0 && st->idle_ms >= BSH_INPUT_WAIT_MIN_MS;
    if (!quiet && !(ports && st->running))
        return BSH_OK;
    int pids[STATE_PIDS_MAX];
    int n = bsh__contain_pids(&s->contain, false, pids, STATE_PIDS_MAX);
    if (n > STATE_PIDS_MAX)
        n = STATE_PIDS_MAX;
    if (quiet)
        st->input_wait = bsh__input_wait(m, pids, n);
    if (ports && n > 0)
        st->port_count =
            bsh__listening_ports(pids, n, st->ports, BSH_PORTS_MAX);
    return BSH_OK;
}

const char *bsh_input_wait_name(enum bsh_input_wait kind)
{
    switch (kind) {
    case BSH_INPUT_PASSWORD:
        return "password";
    case BSH_INPUT_LINE:
        return "line";
    case BSH_INPUT_RAW:
        return "raw";
    case BSH_INPUT_NONE:
        break;
    }
    return "";
}
