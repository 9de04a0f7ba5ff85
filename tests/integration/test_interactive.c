/* SPDX-License-Identifier: MIT */
/*
 * Interactive runs (SPEC 6.1): a writable stdin in both modes with exact
 * bytes, close of stdin, a write after the command closed its end, a
 * signal to the whole run, PTY resize, and the run's state: idle time,
 * input-wait kind (and no false alarm), listening ports.
 */
#define _GNU_SOURCE
#include "../harness/run_util.h"
#include "../harness/tap.h"

#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

/* Starts `command` with a writable stdin. */
static struct bsh_stream *start(const char *command, bool pty)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = command;
    o.pty = pty;
    o.stdin_pipe = true;
    o.timeout_ms = 60000;
    struct bsh_stream *s = NULL;
    if (bsh_run(&o, &s, NULL) != BSH_OK)
        return NULL;
    return s;
}

/* Takes every item ready now (or within `wait_ms`) into `r`; false once
 * the stream has ended. */
static bool pump(struct bsh_stream *s, struct result *r, int wait_ms)
{
    struct pollfd p = {bsh_stream_fd(s), POLLIN, 0};
    poll(&p, 1, wait_ms);
    struct bsh_item it;
    int rc;
    while ((rc = bsh_stream_try_next(s, &it)) == 1) {
        if (it.kind == BSH_ITEM_STATUS) {
            r->statuses++;
            r->status = it;
        } else {
            unsigned char **buf =
                it.kind == BSH_ITEM_STDOUT ? &r->out : &r->err;
            size_t *len =
                it.kind == BSH_ITEM_STDOUT ? &r->out_len : &r->err_len;
            *buf = realloc(*buf, *len + it.len + 1);
            memcpy(*buf + *len, it.data, it.len);
            *len += it.len;
            (*buf)[*len] = '\0';
        }
    }
    return rc == BSH_EAGAIN;
}

/* Pumps until the output holds `text` (or 10 s pass). */
static bool wait_for(struct bsh_stream *s, struct result *r, const char *text)
{
    double until = mono_ms() + 10000;
    while (mono_ms() < until) {
        if (r->out != NULL && strstr((char *)r->out, text) != NULL)
            return true;
        if (!pump(s, r, 20))
            return r->out != NULL && strstr((char *)r->out, text) != NULL;
    }
    return false;
}

static void finish(struct bsh_stream *s, struct result *r)
{
    while (pump(s, r, 100))
        ;
}

static unsigned char *random_bytes(size_t n)
{
    unsigned char *d = malloc(n);
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        d[i] = (unsigned char)x;
    }
    return d;
}

/* Writes all of `d` through the stream's stdin while draining its output
 * (the stream's own loop flushes what the pipe did not take). */
static bool feed(struct bsh_stream *s, struct result *r, const unsigned char *d,
                 size_t n)
{
    size_t off = 0;
    while (off < n) {
        int64_t k =
            bsh_stream_write(s, d + off, n - off > 100000 ? 100000 : n - off);
        if (k < 0)
            return false;
        off += (size_t)k;
        if (!pump(s, r, k == 0 ? 50 : 0))
            return false;
    }
    return true;
}

/* sha256sum of a file, through a plain run: the expected hash. */
static void file_hash(const unsigned char *d, size_t n, char *hash)
{
    char path[] = "/tmp/bsh-interactive-XXXXXX";
    int fd = mkstemp(path);
    ssize_t w = write(fd, d, n);
    (void)w;
    close(fd);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "sha256sum < %s | cut -c1-64", path);
    struct result r;
    run_simple(cmd, 30000, &r);
    snprintf(hash, 65, "%.64s", r.out != NULL ? (char *)r.out : "");
    result_free(&r);
    unlink(path);
}

static void test_pipe_bytes(void)
{
    size_t n = 8u << 20;
    unsigned char *d = random_bytes(n);
    struct result r = {0};
    struct bsh_stream *s = start("cat", false);
    ok(feed(s, &r, d, n), "pipe: 8 MiB written without blocking");
    is_int(bsh_stream_close_stdin(s), BSH_OK, "pipe: stdin closed");
    finish(s, &r);
    ok(r.out_len == n && memcmp(r.out, d, n) == 0,
       "pipe: cat gives back every byte, in order");
    ok(r.statuses == 1 && r.status.has_exit_code && r.status.exit_code == 0,
       "pipe: cat ends at EOF with exit 0");
    is_int(bsh_stream_write(s, "x", 1), BSH_ECLOSED, "write after the end");
    bsh_stream_free(s);
    result_free(&r);

    char want[65];
    file_hash(d, n, want);
    memset(&r, 0, sizeof(r));
    s = start("sha256sum | cut -c1-64", false);
    feed(s, &r, d, n);
    bsh_stream_close_stdin(s);
    finish(s, &r);
    if (r.out != NULL && r.out_len > 64)
        r.out[64] = '\0';
    is_str(r.out != NULL ? (char *)r.out : "", want,
           "pipe: sha256sum of 8 MiB written through stdin");
    bsh_stream_free(s);
    result_free(&r);
    free(d);
}

static void test_pty_bytes(void)
{
    size_t n = 2u << 20;
    unsigned char *d = random_bytes(n);
    char want[65], cmd[128];
    file_hash(d, n, want);
    struct result r = {0};
    snprintf(cmd, sizeof(cmd),
             "stty raw -echo; echo ready; head -c %zu | sha256sum | cut -c1-64",
             n);
    struct bsh_stream *s = start(cmd, true);
    ok(wait_for(s, &r, "ready"), "pty: raw mode set");
    ok(feed(s, &r, d, n), "pty: 2 MiB typed without blocking");
    finish(s, &r);
    ok(r.out != NULL && strstr((char *)r.out, want) != NULL,
       "pty: sha256sum of 2 MiB typed in raw mode");
    bsh_stream_free(s);
    result_free(&r);
    free(d);
}

static int count_of(const struct result *r, const char *text)
{
    int n = 0;
    for (const char *p = (const char *)r->out;
         p != NULL && (p = strstr(p, text)); p += strlen(text))
        n++;
    return n;
}

static void test_close(void)
{
    struct result r = {0};
    struct bsh_stream *s = start("cat; echo end", true);
    bsh_stream_write(s, "hello\n", 6);
    bsh_stream_write(s, "abc", 3);
    is_int(bsh_stream_close_stdin(s), BSH_OK, "pty: close types EOF");
    is_int(bsh_stream_close_stdin(s), BSH_ECLOSED, "a second close");
    is_int(bsh_stream_write(s, "x", 1), BSH_ECLOSED, "a write after close");
    finish(s, &r);
    /* Echo and cat's output interleave as the scheduler likes: count. */
    ok(count_of(&r, "hello") == 2 && count_of(&r, "abc") == 2 &&
           count_of(&r, "end") == 1,
       "pty: the line, the unfinished line (echoed and read), then EOF");
    ok(r.statuses == 1 && r.status.has_exit_code && r.status.exit_code == 0,
       "pty: cat ended at EOF");
    bsh_stream_free(s);
    result_free(&r);

    memset(&r, 0, sizeof(r));
    s = start("exec 0<&-; echo closed; sleep 0.3; echo on", false);
    ok(wait_for(s, &r, "closed"), "the command closed its stdin");
    int64_t w = bsh_stream_write(s, "data", 4);
    ok(w == BSH_ECLOSED, "a write after the command closed its end fails");
    finish(s, &r);
    ok(r.out != NULL && strstr((char *)r.out, "on") != NULL &&
           r.statuses == 1 && r.status.exit_code == 0,
       "... and the stream goes on to its status (no SIGPIPE)");
    bsh_stream_free(s);
    result_free(&r);

    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = "true";
    bsh_run(&o, &s, NULL);
    is_int(bsh_stream_write(s, "x", 1), BSH_EINVAL, "no stdin asked for");
    bsh_stream_free(s);
}

static void test_signal_resize(void)
{
    struct result r = {0};
    struct bsh_stream *s = start("trap 'echo got-INT; exit 3' INT; echo ready; "
                                 "while :; do sleep 0.05; done",
                                 false);
    ok(wait_for(s, &r, "ready"), "signal: started");
    is_int(bsh_stream_signal(s, SIGINT), BSH_OK, "SIGINT sent to the run");
    finish(s, &r);
    ok(strstr((char *)r.out, "got-INT") != NULL && r.status.has_exit_code &&
           r.status.exit_code == 3,
       "the trap ran and the run ended with its exit");
    is_int(bsh_stream_signal(s, SIGINT), BSH_ECLOSED, "signal after the end");
    is_int(bsh_stream_signal(s, 0), BSH_EINVAL, "signal 0 is not one");
    bsh_stream_free(s);
    result_free(&r);

    memset(&r, 0, sizeof(r));
    s = start("trap 'stty size' WINCH; echo ready; read x; stty size", true);
    ok(wait_for(s, &r, "ready"), "resize: started");
    is_int(bsh_stream_resize(s, 40, 100), BSH_OK, "resized to 40x100");
    wait_for(s, &r, "40 100");
    bsh_stream_write(s, "\n", 1);
    finish(s, &r);
    ok(r.out != NULL && strstr((char *)r.out, "40 100") != NULL,
       "stty size sees the new size");
    bsh_stream_free(s);
    result_free(&r);
}

/* Pumps until the state says `kind`; the ms it took, or -1. */
static double wait_input(struct bsh_stream *s, struct result *r,
                         enum bsh_input_wait kind, int max_ms)
{
    double t0 = mono_ms();
    struct bsh_run_state st;
    while (mono_ms() - t0 < max_ms) {
        bsh_stream_state(s, &st, false);
        if (st.input_wait == kind)
            return mono_ms() - t0;
        if (!pump(s, r, 20))
            break;
    }
    return -1;
}

static void test_input_wait(void)
{
    static const struct {
        const char *command;
        enum bsh_input_wait kind;
        const char *what;
    } cases[] = {
        {"read -s -p 'Password: ' x; echo got", BSH_INPUT_PASSWORD,
         "read -s: password"},
        {"read -p 'Name? ' x; echo got", BSH_INPUT_LINE, "read: line"},
        {"stty raw -echo; head -c1 >/dev/null; echo got", BSH_INPUT_RAW,
         "raw mode: raw"},
        {"printf 'Continue? [y/N] '; read -n1 x; echo got", BSH_INPUT_RAW,
         "read -n1 (no canonical mode): raw"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct result r = {0};
        struct bsh_stream *s = start(cases[i].command, true);
        double ms = wait_input(s, &r, cases[i].kind, 5000);
        ok(ms >= 0 && ms < 2000, cases[i].what);
        printf("# %s: reported after %.0f ms (prompt to report)\n",
               cases[i].what, ms);
        bsh_stream_write(s, "y\n", 2);
        finish(s, &r);
        ok(r.out != NULL && strstr((char *)r.out, "got") != NULL,
           "... and it goes on once input is written");
        bsh_stream_free(s);
        result_free(&r);
    }
    static const char *const quiet[] = {
        "sleep 1.5",
        "sleep 3 & wait",
        "sleep 1.5 | cat",
        "x=0; while [ $x -lt 300000 ]; do x=$((x+1)); done",
    };
    for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++) {
        struct result r = {0};
        struct bsh_stream *s = start(quiet[i], true);
        char what[128];
        snprintf(what, sizeof(what), "no false alarm: %s", quiet[i]);
        bool alarm = false;
        double t0 = mono_ms();
        struct bsh_run_state st;
        while (mono_ms() - t0 < 1200 && pump(s, &r, 50)) {
            bsh_stream_state(s, &st, false);
            alarm |= st.input_wait != BSH_INPUT_NONE;
        }
        ok(!alarm, what);
        bsh_stream_cancel(s);
        finish(s, &r);
        bsh_stream_free(s);
        result_free(&r);
    }
}

/* A real editor in raw mode: vim (vim.tiny) waits for keys. */
static void test_vim(void)
{
    if (access("/usr/bin/vim.tiny", X_OK) != 0) {
        skip("vim waits for keys: raw", "vim.tiny is not installed");
        return;
    }
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    struct bsh_env_var term = {"TERM", "xterm"};
    o.command = "vim.tiny -u NONE -N -n /tmp/bsh-vim-test.txt";
    o.pty = true;
    o.stdin_pipe = true;
    o.timeout_ms = 60000;
    o.env = &term;
    o.env_count = 1;
    struct bsh_stream *s = NULL;
    bsh_run(&o, &s, NULL);
    struct result r = {0};
    double ms = wait_input(s, &r, BSH_INPUT_RAW, 10000);
    ok(ms >= 0, "vim waits for keys: raw");
    bsh_stream_write(s, "\x1b:q!\r", 5);
    finish(s, &r);
    ok(r.statuses == 1 && r.status.has_exit_code && r.status.exit_code == 0,
       "... and :q! ends it");
    bsh_stream_free(s);
    result_free(&r);
}

/* A compile that prints nothing for a while is not waiting for input. */
static void test_silent_compile(void)
{
    struct result r = {0};
    struct bsh_stream *s = start(
        "d=$(mktemp -d); for i in $(seq 1500); do "
        "echo \"int f$i(int x) { return x * $i + (x >> 3); }\"; done "
        "> $d/big.c; cc -O2 -c $d/big.c -o $d/big.o; rm -rf $d; echo built",
        true);
    bool alarm = false;
    struct bsh_run_state st;
    while (pump(s, &r, 50)) {
        bsh_stream_state(s, &st, false);
        alarm |= st.input_wait != BSH_INPUT_NONE;
    }
    ok(!alarm && r.out != NULL && strstr((char *)r.out, "built") != NULL,
       "no false alarm: a silent compile (cc -O2 of 1500 functions)");
    bsh_stream_free(s);
    result_free(&r);
}

static void test_state(void)
{
    if (access("/usr/bin/python3", X_OK) != 0) { /* the arm64 VM has none */
        skip("the state of a run that listens on a port",
             "python3 is not installed");
        return;
    }
    struct result r = {0};
    struct bsh_stream *s =
        start("echo hi; exec python3 -c 'import socket,time\n"
              "s=socket.socket(); s.bind((\"127.0.0.1\",0)); s.listen()\n"
              "print(s.getsockname()[1], flush=True); time.sleep(30)'",
              false);
    ok(wait_for(s, &r, "\n") && wait_for(s, &r, "hi\n"), "server started");
    double t0 = mono_ms();
    while (mono_ms() - t0 < 5000 &&
           (r.out_len < 4 || r.out[r.out_len - 1] != '\n' ||
            strchr((char *)r.out + 3, '\n') == NULL))
        pump(s, &r, 20);
    int port = atoi((char *)r.out + 3);
    usleep(400 * 1000);
    struct bsh_run_state st;
    is_int(bsh_stream_state(s, &st, true), BSH_OK, "state");
    ok(st.running, "running");
    ok(st.idle_ms >= 300 && st.elapsed_ms >= st.idle_ms,
       "idle time since the last output byte");
    ok(st.port_count == 1 && st.ports[0] == port, "the port it listens on");
    printf("# port %d, state says %d (%zu ports)\n", port,
           st.port_count > 0 ? st.ports[0] : -1, st.port_count);
    ok(st.input_wait == BSH_INPUT_NONE, "pipe mode: no input wait");
    bsh_stream_cancel(s);
    finish(s, &r);
    bsh_stream_state(s, &st, true);
    ok(!st.running && st.port_count == 0, "over: not running, no ports");
    bsh_stream_free(s);
    result_free(&r);
}

int main(void)
{
    int fds = count_fds();
    test_pipe_bytes();
    test_pty_bytes();
    test_close();
    test_signal_resize();
    test_input_wait();
    test_vim();
    test_silent_compile();
    test_state();
    is_int(count_fds(), fds, "no fd left behind");
    ok(no_children(), "no child left behind");
    return tap_done();
}
