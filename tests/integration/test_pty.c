/* SPDX-License-Identifier: MIT */
/*
 * The PTY path (SPEC 1.6 and the SPEC 2 fixes that matter there): a real
 * 24x80 controlling terminal, lossless drain, status parity with the piped
 * path, timeouts and kills of the whole session, and errors that are never
 * silent.
 */
#define _GNU_SOURCE
#include "../harness/run_util.h"
#include "../harness/tap.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

static void run_pty(const char *command, int64_t timeout_ms, struct result *r)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = command;
    o.timeout_ms = timeout_ms;
    o.pty = true;
    run_collect(&o, r);
}

/* PTY output is all stdout: no stderr chunk may appear. */
static bool well_formed(const struct result *r)
{
    return result_well_formed(r) && r->err_chunks == 0;
}

static void test_terminal(void)
{
    struct result r;
    run_pty("tty; stty size; test -t 0 && test -t 1 && test -t 2 && "
            "echo all-tty; echo err >&2",
            BSH_NO_TIMEOUT, &r);
    ok(well_formed(&r), "well formed, stderr always empty");
    ok(strncmp((char *)r.out, "/dev/pts/", 9) == 0, "tty is /dev/pts/N");
    ok(strstr((char *)r.out, "\r\n24 80\r\nall-tty\r\nerr\r\n") != NULL,
       "24x80, stdin/stdout/stderr all the terminal, stderr merged, CRLF");
    ok(result_exit(&r, 0), "exit 0");
    result_free(&r);

    run_pty("read -a f < /proc/$$/stat; "
            "[ \"${f[0]}\" = \"${f[5]}\" ] && echo leader; "
            "exec 3</dev/tty && echo ctty",
            BSH_NO_TIMEOUT, &r);
    is_str((char *)r.out, "leader\r\nctty\r\n",
           "bash leads its session and has the PTY as controlling terminal");
    result_free(&r);

    run_pty("printf 'a\\0b\\377\\033[31mc'", BSH_NO_TIMEOUT, &r);
    ok(r.out_len == 10 && memcmp(r.out, "a\0b\377\033[31mc", 10) == 0,
       "NUL, invalid UTF-8 and control codes pass through");
    result_free(&r);

    run_pty("ls -1 /proc/$$/fd; true", BSH_NO_TIMEOUT, &r);
    is_str((char *)r.out, "0\r\n1\r\n2\r\n", "only fds 0, 1 and 2 reach bash");
    result_free(&r);
}

static void test_lossless(void)
{
    int exact = 0, well = 0;
    for (int i = 0; i < 50; i++) {
        struct result r;
        run_pty("head -c 8292 /dev/zero | tr '\\0' a", BSH_NO_TIMEOUT, &r);
        exact += r.out_len == 8292 && result_exit(&r, 0);
        well += well_formed(&r);
        result_free(&r);
    }
    is_int(exact, 50, "8292 bytes, 50 runs: every byte every time");
    is_int(well, 50, "chunks at most 4096, truncated exactly at 4096");

    struct result r;
    run_pty("head -c 1000000 /dev/zero | tr '\\0' a", BSH_NO_TIMEOUT, &r);
    is_int(r.out_len, 1000000, "1 MB through the PTY, every byte");
    ok(well_formed(&r) && r.max_chunk <= BSH_CHUNK_MAX, "in <= 4096 chunks");
    result_free(&r);

    run_pty("seq 1 20000", BSH_NO_TIMEOUT, &r);
    /* 20000 lines of 1..5 digits: 88894 digits + 20000 CRLFs. */
    is_int(r.out_len, 88894 + 40000, "seq through the PTY, CRLF counted");
    result_free(&r);

    run_pty("printf tail-without-newline; exit 4", BSH_NO_TIMEOUT, &r);
    is_str((char *)r.out, "tail-without-newline",
           "the last bytes before exit arrive");
    ok(result_exit(&r, 4), "exit 4");
    result_free(&r);
}

/* Every slave fd closed once, then a process opens the terminal again:
 * its output still arrives (the master is read to EIO after the exit),
 * through the blocking calls and through the pollable fd. */
static void test_output_after_hangup(void)
{
    static const char cmd[] = "echo EARLY; exec </dev/null >/dev/null 2>&1; "
                              "sleep 0.3; echo LATE >/dev/tty";
    struct result r;
    run_pty(cmd, BSH_NO_TIMEOUT, &r);
    is_str((char *)r.out, "EARLY\r\nLATE\r\n",
           "output after every slave fd closed once is kept");
    ok(result_exit(&r, 0), "exit 0");
    result_free(&r);

    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = cmd;
    o.pty = true;
    struct bsh_stream *s;
    memset(&r, 0, sizeof(r));
    bsh_run(&o, &s, NULL);
    drain_pollable(s, &r);
    bsh_stream_free(s);
    is_str((char *)r.out, "EARLY\r\nLATE\r\n", "and through the pollable fd");
    ok(result_exit(&r, 0) && !r.stalled, "which woke for it");
    diag("%d waits on the pollable fd", r.polls);
    result_free(&r);

    memset(&r, 0, sizeof(r));
    bsh_run(&o, &s, NULL);
    drain_pollfds(s, &r);
    bsh_stream_free(s);
    is_str((char *)r.out, "EARLY\r\nLATE\r\n",
           "and through the stream's own fds");
    ok(result_exit(&r, 0) && !r.stalled && r.polls < 200,
       "whose timeout brought the caller back, without a spin");
    diag("%d polls of the stream's own fds", r.polls);
    result_free(&r);

    run_pty("exec >/dev/null 2>&1 </dev/null; sleep 0.2; exit 3", 5000, &r);
    ok(result_exit(&r, 3) && r.ms < 3000,
       "terminal closed, then a silent exit: its status, promptly");
    result_free(&r);
}

static void test_status_parity(void)
{
    static const char *const cmds[] = {"exit 0",        "exit 3",
                                       "exit 137",      "kill -TERM $$",
                                       "kill -KILL $$", "kill -INT $$"};
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        struct result p, t;
        run_simple(cmds[i], BSH_NO_TIMEOUT, &p);
        run_pty(cmds[i], BSH_NO_TIMEOUT, &t);
        char what[96];
        snprintf(what, sizeof(what), "same status in both modes: %s", cmds[i]);
        ok(p.statuses == 1 && t.statuses == 1 &&
               p.status.has_exit_code == t.status.has_exit_code &&
               p.status.exit_code == t.status.exit_code &&
               p.status.has_signal == t.status.has_signal &&
               p.status.signal == t.status.signal,
           what);
        result_free(&p);
        result_free(&t);
    }
}

static bool fd_points_to_ptmx(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    bool found = false;
    while (d != NULL && (e = readdir(d)) != NULL) {
        char path[300], target[256];
        snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(path, target, sizeof(target) - 1);
        if (n > 0) {
            target[n] = '\0';
            found |= strstr(target, "ptmx") != NULL;
        }
    }
    if (d != NULL)
        closedir(d);
    return found;
}

static void test_timeouts_and_kills(void)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = "touch pty-timeout-0-ran";
    o.pty = true;
    o.timeout_ms = 0;
    struct bsh_stream *s;
    bsh_run(&o, &s, NULL);
    ok(bsh_stream_pid(s) == -1 && !fd_points_to_ptmx(),
       "timeout 0: no PTY opened, nothing spawned");
    struct result r;
    memset(&r, 0, sizeof(r));
    drain(s, &r);
    bsh_stream_free(s);
    ok(r.out_chunks == 0 && result_signal(&r, -1),
       "and exactly the timeout item");
    ok(access("pty-timeout-0-ran", F_OK) != 0, "the command never ran");

    run_pty("echo before; sleep 100 & echo $!; wait", 500, &r);
    pid_t gc = 0;
    const char *nl = strstr((char *)r.out, "\r\n");
    if (nl != NULL)
        gc = (pid_t)atoi(nl + 2);
    ok(strncmp((char *)r.out, "before\r\n", 8) == 0 && result_signal(&r, -1),
       "timeout: output first, then the timeout item");
    ok(r.ms < 3000, "500 ms deadline ends well within 3 s");
    ok(gc > 0 && !process_lingers(gc), "the session's grandchild is killed");
    result_free(&r);

    run_pty("exec >/dev/null 2>&1 </dev/null; sleep 100", 500, &r);
    ok(result_signal(&r, -1) && r.ms < 3000,
       "terminal closed early, then sleep: bounded by the deadline");
    result_free(&r);

    o.command = "sleep 100 & echo $!; wait";
    o.timeout_ms = BSH_NO_TIMEOUT;
    bsh_run(&o, &s, NULL);
    struct bsh_item it;
    gc = bsh_stream_next(s, &it) == 1 ? (pid_t)atoi((const char *)it.data) : 0;
    bsh_stream_cancel(s);
    memset(&r, 0, sizeof(r));
    drain(s, &r);
    bsh_stream_free(s);
    ok(result_signal(&r, 9), "cancel: killed by SIGKILL");
    ok(gc > 0 && !process_lingers(gc), "cancel kills the whole session");
    result_free(&r);

    bsh_run(&o, &s, NULL);
    gc = bsh_stream_next(s, &it) == 1 ? (pid_t)atoi((const char *)it.data) : 0;
    bsh_stream_free(s);
    ok(gc > 0 && !process_lingers(gc) && no_children(),
       "early free kills the session and reaps");
}

static void test_errors(void)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.pty = true;
    o.command = "pwd";
    o.cwd = "/nonexistent/dir";
    struct result r;
    run_collect(&o, &r);
    if (UNDER_VALGRIND) {
        skip("missing working directory is an error", "valgrind");
    } else {
        ok(r.end_rc == BSH_ESTREAM && r.statuses == 0 &&
               strncmp(r.error, "failed to spawn command in pty: ", 32) == 0,
           "missing working directory is an error, no fallback to $HOME");
        diag("%s", r.error);
    }
    result_free(&r);

    struct bsh_env_var bad[] = {{"A B", "x"}};
    o.cwd = NULL;
    o.env = bad;
    o.env_count = 1;
    run_collect(&o, &r);
    is_str(r.error, "invalid env variable name: A B", "bad env name");
    result_free(&r);

    /* Room for exactly one fd (the stream's eventfd): none is left for
     * the master, so the PTY cannot be opened. */
    o.env = NULL;
    o.env_count = 0;
    struct rlimit old, low;
    getrlimit(RLIMIT_NOFILE, &old);
    low = old;
    low.rlim_cur = 256;
    setrlimit(RLIMIT_NOFILE, &low);
    int fillers[256], nfill = 0;
    while (nfill < 256 && (fillers[nfill] = open("/dev/null", O_RDONLY)) >= 0)
        nfill++;
    close(fillers[--nfill]);
    struct bsh_stream *s = NULL;
    int rc = bsh_run(&o, &s, NULL);
    memset(&r, 0, sizeof(r));
    if (rc == BSH_OK)
        drain(s, &r);
    bsh_stream_free(s);
    while (nfill > 0)
        close(fillers[--nfill]);
    setrlimit(RLIMIT_NOFILE, &old);
    ok(rc == BSH_OK && r.end_rc == BSH_ESTREAM &&
           strncmp(r.error, "failed to open pty: ", 20) == 0,
       "a PTY that cannot be opened is a stream error");
    diag("%s", r.error);
    result_free(&r);
}

int main(void)
{
    int fds_before = count_fds();
    test_terminal();
    test_lossless();
    test_output_after_hangup();
    test_status_parity();
    test_timeouts_and_kills();
    test_errors();
    is_int(count_fds(), fds_before, "no fd left open");
    ok(no_children(), "no child or zombie left");
    return tap_done();
}
