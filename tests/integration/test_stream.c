/* SPDX-License-Identifier: MIT */
/*
 * The piped path through the library: SPEC 1.1-1.5 and 1.7, and each fix
 * of SPEC 2, with real bash commands. Ends with the fd and zombie check.
 */
#define _GNU_SOURCE
#include "../harness/run_util.h"
#include "../harness/tap.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_basic_stream(void)
{
    struct result r;
    run_simple("printf out; printf err >&2; exit 3", BSH_NO_TIMEOUT, &r);
    ok(result_well_formed(&r), "items are well formed, status last, once");
    is_str((char *)r.out, "out", "stdout bytes on stdout items");
    is_str((char *)r.err, "err", "stderr bytes on stderr items");
    ok(result_exit(&r, 3), "exit code 3");
    is_int(r.end_rc, 0, "ends without error");
    result_free(&r);

    run_simple("true", BSH_NO_TIMEOUT, &r);
    ok(result_exit(&r, 0) && r.out_chunks == 0 && r.err_chunks == 0,
       "true: only the status item");
    result_free(&r);
}

static void test_exit_fidelity(void)
{
    static const int codes[] = {0, 1, 2, 42, 126, 127, 128, 200, 255};
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        char cmd[32], what[32];
        snprintf(cmd, sizeof(cmd), "exit %d", codes[i]);
        snprintf(what, sizeof(what), "exit %d", codes[i]);
        struct result r;
        run_simple(cmd, BSH_NO_TIMEOUT, &r);
        ok(result_exit(&r, codes[i]), what);
        result_free(&r);
    }
    struct result r;
    run_simple("exit 137", BSH_NO_TIMEOUT, &r);
    ok(result_exit(&r, 137), "exit 137 is an exit code, not a signal");
    result_free(&r);
    run_simple("kill -KILL $$", BSH_NO_TIMEOUT, &r);
    ok(result_signal(&r, 9), "death by SIGKILL is signal 9, no exit code");
    result_free(&r);
    run_simple("kill -TERM $$", BSH_NO_TIMEOUT, &r);
    ok(result_signal(&r, 15), "death by SIGTERM is signal 15");
    result_free(&r);
}

static void test_raw_bytes(void)
{
    struct result r;
    run_simple("printf 'a\\0b\\377\\376c'; printf '\\0\\200' >&2",
               BSH_NO_TIMEOUT, &r);
    ok(r.out_len == 6 && memcmp(r.out, "a\0b\377\376c", 6) == 0,
       "NUL and invalid UTF-8 pass unchanged on stdout");
    ok(r.err_len == 2 && memcmp(r.err, "\0\200", 2) == 0, "and on stderr");
    result_free(&r);
}

static bool all_repeat(const unsigned char *b, size_t len, const char *unit)
{
    size_t ul = strlen(unit);
    for (size_t i = 0; i < len; i++)
        if (b[i] != (unsigned char)unit[i % ul])
            return false;
    return true;
}

static void test_ten_megabytes_both(void)
{
    struct result r;
    run_simple("yes abcdefghi | head -c 10000000 & "
               "yes 012345678 | head -c 10000000 >&2; wait",
               BSH_NO_TIMEOUT, &r);
    ok(result_well_formed(&r), "10 MB on both pipes: well formed");
    is_int(r.out_len, 10000000, "all 10 MB of stdout");
    is_int(r.err_len, 10000000, "all 10 MB of stderr");
    ok(all_repeat(r.out, r.out_len, "abcdefghi\n"), "stdout order kept");
    ok(all_repeat(r.err, r.err_len, "012345678\n"), "stderr order kept");
    ok(r.max_chunk <= BSH_CHUNK_MAX, "chunks at most 4096 bytes");
    ok(!r.bad_truncated, "truncated exactly on 4096-byte chunks");
    ok(result_exit(&r, 0), "exit 0");
    diag("chunks: %d out, %d err", r.out_chunks, r.err_chunks);
    result_free(&r);
}

static void test_timeouts(void)
{
    struct result r;
    run_simple("echo ok", INT64_MAX, &r);
    ok(result_exit(&r, 0) && r.out_len == 3,
       "the largest timeout neither overflows nor times out at once");
    result_free(&r);

    run_simple("-x", BSH_NO_TIMEOUT, &r);
    ok(result_exit(&r, 127) && strstr((char *)r.err, "-x: command not found"),
       "a command that starts with '-' is a command, not a bash option");
    result_free(&r);

    run_simple("sleep 10", 300, &r);
    ok(result_signal(&r, -1), "timeout: final item is signal -1");
    ok(r.ms < 3000, "timeout of 300 ms ends well within 3 s");
    result_free(&r);

    run_simple("echo before; sleep 10", 500, &r);
    is_str((char *)r.out, "before\n", "output before the deadline is kept");
    ok(result_signal(&r, -1) && !r.after_status, "then the timeout item");
    result_free(&r);

    run_simple("echo never", 0, &r);
    ok(r.out_chunks == 0 && r.err_chunks == 0 && result_signal(&r, -1),
       "timeout 0: exactly one item, the timeout");
    result_free(&r);

    /* The reference waits for the child without a deadline once the pipes
     * close; here the deadline covers the whole run. */
    run_simple("exec >/dev/null 2>&1; sleep 100", 1000, &r);
    ok(result_signal(&r, -1), "closed pipes then sleep: timed out");
    ok(r.ms < 5000, "the wait after EOF is bounded by the deadline");
    result_free(&r);

    run_simple("sleep 30 & echo hi", 500, &r);
    is_str((char *)r.out, "hi\n", "background child holding stdout: output");
    ok(result_signal(&r, -1) && r.ms < 5000, "bounded by the deadline");
    result_free(&r);
}

/* Starts `sleep 100 & echo $!; wait` and returns the stream after reading
 * the grandchild's pid from its first chunk. */
static struct bsh_stream *start_with_grandchild(pid_t *grandchild,
                                                int64_t timeout_ms)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = "sleep 100 & echo $!; wait";
    o.timeout_ms = timeout_ms;
    struct bsh_stream *s = NULL;
    struct bsh_item it;
    *grandchild = -1;
    if (bsh_run(&o, &s, NULL) != BSH_OK)
        return NULL;
    if (bsh_stream_next(s, &it) == 1 && it.kind == BSH_ITEM_STDOUT)
        *grandchild = (pid_t)atoi((const char *)it.data);
    return s;
}

static void test_group_kill(void)
{
    pid_t gc;
    struct bsh_stream *s = start_with_grandchild(&gc, 300);
    struct result r;
    memset(&r, 0, sizeof(r));
    drain(s, &r);
    bsh_stream_free(s);
    ok(gc > 0 && result_signal(&r, -1), "timeout with a grandchild");
    ok(!process_lingers(gc), "timeout killed the grandchild too");
    result_free(&r);

    s = start_with_grandchild(&gc, BSH_NO_TIMEOUT);
    bsh_stream_cancel(s);
    memset(&r, 0, sizeof(r));
    drain(s, &r);
    bsh_stream_free(s);
    ok(gc > 0 && result_signal(&r, 9), "cancel: the child's real death (9)");
    ok(!process_lingers(gc), "cancel killed the grandchild too");
    result_free(&r);

    s = start_with_grandchild(&gc, BSH_NO_TIMEOUT);
    pid_t child = bsh_stream_pid(s);
    bsh_stream_free(s);
    ok(gc > 0 && !process_lingers(gc), "early free killed the grandchild");
    ok(!process_lingers(child), "and the child");
    ok(no_children(), "and reaped it");

    /* A normal end leaves nothing in the group either. */
    run_simple("(exec >/dev/null 2>&1; sleep 100) & echo $!", BSH_NO_TIMEOUT,
               &r);
    gc = (pid_t)atoi((const char *)r.out);
    ok(result_exit(&r, 0) && gc > 0, "detached background child, exit 0");
    ok(!process_lingers(gc), "leftovers of the group are killed at the end");
    result_free(&r);
}

static struct bsh_stream *signal_target;

static void on_alarm(int sig)
{
    (void)sig;
    bsh_stream_cancel(signal_target);
}

static void *cancel_later(void *arg)
{
    usleep(200000);
    bsh_stream_cancel(arg);
    return NULL;
}

static void test_cancel_contexts(void)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = "sleep 100";
    struct result r;

    memset(&r, 0, sizeof(r));
    bsh_run(&o, &signal_target, NULL);
    struct sigaction sa = {.sa_handler = on_alarm}, old;
    sigaction(SIGALRM, &sa, &old);
    struct itimerval tv = {{0, 0}, {0, 200000}};
    setitimer(ITIMER_REAL, &tv, NULL);
    double t0 = mono_ms();
    drain(signal_target, &r);
    ok(result_signal(&r, 9) && mono_ms() - t0 < 3000,
       "cancel from a signal handler wakes the blocked stream");
    bsh_stream_free(signal_target);
    sigaction(SIGALRM, &old, NULL);
    result_free(&r);

    memset(&r, 0, sizeof(r));
    struct bsh_stream *s;
    bsh_run(&o, &s, NULL);
    pthread_t th;
    pthread_create(&th, NULL, cancel_later, s);
    t0 = mono_ms();
    drain(s, &r);
    pthread_join(th, NULL);
    ok(result_signal(&r, 9) && mono_ms() - t0 < 3000,
       "cancel from another thread wakes the blocked stream");
    bsh_stream_free(s);
    result_free(&r);
}

static void test_clean_child(void)
{
    /* An inheritable fd in the parent, SIGPIPE ignored, signals blocked. */
    int leak = dup(1);
    int leak_high = fcntl(1, F_DUPFD, 100);
    sigset_t block, old_mask;
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGUSR1);
    sigprocmask(SIG_BLOCK, &block, &old_mask);
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_pipe, old_usr2;
    sigaction(SIGPIPE, &ign, &old_pipe);
    sigaction(SIGUSR2, &ign, &old_usr2);

    struct result r;
    /* No pipeline: while bash sets one up it holds the pipe's fds. */
    run_simple("ls /proc/$$/fd; true", BSH_NO_TIMEOUT, &r);
    is_str((char *)r.out, "0\n1\n2\n", "only fds 0, 1 and 2 reach bash");
    result_free(&r);
    run_simple("grep -E '^Sig(Blk|Ign)' /proc/self/status", BSH_NO_TIMEOUT, &r);
    is_str((char *)r.out,
           "SigBlk:\t0000000000000000\n"
           "SigIgn:\t0000000000000000\n",
           "empty mask, nothing ignored in the child");
    result_free(&r);
    run_simple("readlink /proc/$$/fd/0; read -a f < /proc/$$/stat; "
               "[ \"${f[0]}\" = \"${f[4]}\" ] && echo own-group",
               BSH_NO_TIMEOUT, &r);
    is_str((char *)r.out, "/dev/null\nown-group\n",
           "stdin is /dev/null; bash leads its own process group");
    result_free(&r);
    run_simple("cat", BSH_NO_TIMEOUT, &r);
    ok(result_exit(&r, 0) && r.out_len == 0, "a stdin reader sees EOF at once");
    result_free(&r);

    sigaction(SIGPIPE, &old_pipe, NULL);
    sigaction(SIGUSR2, &old_usr2, NULL);
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    close(leak);
    close(leak_high);
}

/* In a forked process whose kernel answers close_range with ENOSYS (as
 * before Linux 5.9): exit 0 when bash still sees only fds 0, 1 and 2. */
static int only_stdio_without_close_range(void)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (ctx == NULL ||
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(close_range),
                         0) < 0 ||
        seccomp_load(ctx) < 0)
        return 2;
    seccomp_release(ctx);
    int leak = fcntl(1, F_DUPFD, 3), leak_high = fcntl(1, F_DUPFD, 100);
    struct result r;
    run_simple("ls /proc/$$/fd; true", BSH_NO_TIMEOUT, &r);
    bool only_stdio = r.out_len == 6 && memcmp(r.out, "0\n1\n2\n", 6) == 0;
    result_free(&r);
    close(leak);
    close(leak_high);
    return only_stdio ? 0 : 1;
}

static void test_no_close_range(void)
{
    if (UNDER_VALGRIND) {
        skip("fds closed without close_range", "seccomp under valgrind");
        return;
    }
    pid_t pid = fork();
    if (pid == 0)
        _exit(only_stdio_without_close_range());
    int status = -1;
    waitpid(pid, &status, 0);
    ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
       "without close_range (kernels before 5.9), the child closes what "
       "/proc/self/fd lists: only fds 0, 1 and 2 reach bash");
}

static void test_environment(void)
{
    setenv("BSH_TEST_INHERITED", "inherited", 1);
    struct bsh_env_var vars[] = {
        {"A", "1"}, {"B", "x y"}, {"A", "2"}, {"BSH_TEST_INHERITED", "over"}};
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = "printf '%s|%s|%s|%s' \"$A\" \"$B\" \"$BSH_TEST_INHERITED\" "
                "\"$HOME\"";
    o.env = vars;
    o.env_count = 4;
    struct result r;
    run_collect(&o, &r);
    char want[512];
    snprintf(want, sizeof(want), "2|x y|over|%s", getenv("HOME"));
    is_str((char *)r.out, want, "vars on top of the inherited env, last wins");
    result_free(&r);

    o.env = NULL;
    o.env_count = 0;
    o.command = "printf %s \"$BSH_TEST_INHERITED\"";
    run_collect(&o, &r);
    is_str((char *)r.out, "inherited", "no vars: inherited unchanged");
    result_free(&r);

    struct bsh_env_var null_value[] = {{"A", NULL}};
    struct bsh_stream *none = NULL;
    o.env = null_value;
    o.env_count = 1;
    is_int(bsh_run(&o, &none, NULL), BSH_EINVAL,
           "a NULL env value is caller misuse");
    ok(none == NULL, "and makes no stream");

    static const char *const bad[] = {"1A", "A-B", "A\n", ""};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct bsh_env_var v[] = {{"OK", "1"}, {bad[i], "x"}};
        o.env = v;
        o.env_count = 2;
        o.command = "touch should-not-exist";
        run_collect(&o, &r);
        char msg[64];
        snprintf(msg, sizeof(msg), "invalid env variable name: %s", bad[i]);
        ok(r.end_rc == BSH_ESTREAM && r.statuses == 0 && r.out_len == 0,
           "bad env name: the stream yields an error and ends");
        is_str(r.error, msg, "with the reference's message");
        is_int(r.error_kind, BSH_ERR_ENV_NAME, "and its kind");
        ok(r.pid == -1 && access("should-not-exist", F_OK) != 0,
           "and nothing was spawned");
        result_free(&r);
    }
}

/* The idle timeout and the kill sequence with a grace period. */
static void test_idle_and_grace(void)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    struct bsh_stream *s;
    struct result r;
    o.command = "echo a; sleep 10";
    o.idle_timeout_ms = 300;
    memset(&r, 0, sizeof(r));
    double t0 = mono_ms();
    bsh_run(&o, &s, NULL);
    drain(s, &r);
    ok(result_signal(&r, -1) && mono_ms() - t0 < 3000,
       "idle timeout: no output for 300 ms ends the run (timeout item)");
    is_str((char *)r.out, "a\n", "output before it is kept");
    is_int(bsh_stream_end_reason(s), BSH_END_IDLE, "end reason: idle");
    bsh_stream_free(s);
    result_free(&r);

    o.command = "for i in 1 2 3 4 5 6 7 8; do echo $i; sleep 0.1; done";
    o.idle_timeout_ms = 400;
    run_collect(&o, &r);
    ok(result_exit(&r, 0) && r.out_len == 16,
       "steady output keeps an idle timeout from firing");
    result_free(&r);

    o.command = "trap 'echo bye; exit 7' TERM; echo up; sleep 10 & wait";
    o.idle_timeout_ms = 0;
    o.timeout_ms = 300;
    o.grace_ms = 2000;
    memset(&r, 0, sizeof(r));
    t0 = mono_ms();
    bsh_run(&o, &s, NULL);
    drain(s, &r);
    is_str((char *)r.out, "up\nbye\n",
           "grace: SIGTERM first, and the command's last words arrive");
    ok(result_signal(&r, -1) && mono_ms() - t0 < 2000,
       "then the timeout item, as soon as the command has gone");
    is_int(bsh_stream_end_reason(s), BSH_END_TIMEOUT, "end reason: timeout");
    bsh_stream_free(s);
    result_free(&r);

    o.command =
        "trap '' TERM; echo up; sleep 0.1; while :; do sleep 0.05; done";
    o.grace_ms = 500;
    memset(&r, 0, sizeof(r));
    t0 = mono_ms();
    bsh_run(&o, &s, NULL);
    drain(s, &r);
    double ms = mono_ms() - t0;
    ok(result_signal(&r, -1) && ms >= 700 && ms < 3000,
       "a command that ignores SIGTERM gets SIGKILL after the grace period");
    diag("ended after %.0f ms (300 ms deadline + 500 ms grace)", ms);
    bsh_stream_free(s);
    result_free(&r);

    o.command = "trap '' TERM; echo up; sleep 10";
    o.timeout_ms = BSH_NO_TIMEOUT;
    o.grace_ms = 5000;
    bsh_run(&o, &s, NULL);
    memset(&r, 0, sizeof(r));
    struct bsh_item it;
    bsh_stream_next(s, &it); /* "up": the trap is set */
    t0 = mono_ms();
    bsh_stream_cancel(s);
    int rc = bsh_stream_try_next(s, &it);
    bsh_stream_cancel(s); /* a second cancel: SIGKILL now */
    drain(s, &r);
    ok(rc == BSH_EAGAIN && result_signal(&r, 9) && mono_ms() - t0 < 3000,
       "a second cancel during the grace period kills at once");
    if (!(rc == BSH_EAGAIN && result_signal(&r, 9)))
        diag("rc %d, statuses %d, signal %d", rc, r.statuses, r.status.signal);
    is_int(bsh_stream_end_reason(s), BSH_END_CANCEL, "end reason: cancel");
    bsh_stream_free(s);
    result_free(&r);

    o.grace_ms = -1;
    is_int(bsh_run(&o, &s, NULL), BSH_EINVAL, "a negative grace is misuse");
}

/* The public contract that lets callers grow with the library. */
/* Every run is a session of its own, in pipe mode too, with no
 * controlling terminal: /dev/tty cannot be opened. */
static void test_own_session(void)
{
    struct result r;
    run_simple("read -a f < /proc/$$/stat; "
               "[ \"${f[0]}\" = \"${f[5]}\" ] && echo leader; "
               "[ \"${f[6]}\" = 0 ] && echo no-tty; "
               "exec 3</dev/tty || echo no-ctty",
               BSH_NO_TIMEOUT, &r);
    is_str((char *)r.out, "leader\nno-tty\nno-ctty\n",
           "pipe mode: bash leads its own session, without a terminal");
    result_free(&r);
}

static void test_contract(void)
{
    struct bsh_run_opts o;
    memset(&o, 0x5a, sizeof(o));
    bsh_run_opts_init(&o);
    ok(o.command == NULL && o.cwd == NULL && o.env == NULL &&
           o.env_count == 0 && o.timeout_ms == BSH_NO_TIMEOUT && !o.pty,
       "bsh_run_opts_init: every field at its default");
    struct bsh_run_opts lit = BSH_RUN_OPTS_INIT;
    ok(memcmp(&lit, &o, offsetof(struct bsh_run_opts, pty) + 1) == 0,
       "BSH_RUN_OPTS_INIT: the same defaults");
    is_int(BSH_VERSION_NUMBER,
           BSH_VERSION_MAJOR * 10000 + BSH_VERSION_MINOR * 100 +
               BSH_VERSION_PATCH,
           "BSH_VERSION_NUMBER");
    struct result r;
    run_simple("exit 0", BSH_NO_TIMEOUT, &r);
    ok(r.error_kind == BSH_ERR_NONE && !bsh_item_timed_out(&r.status),
       "a clean run: no error kind, not timed out");
    result_free(&r);
    run_simple("sleep 5", 100, &r);
    ok(bsh_item_timed_out(&r.status), "bsh_item_timed_out on a timeout");
    result_free(&r);
}

static void test_cwd_and_spawn_errors(void)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    struct result r;
    o.command = "pwd";
    o.cwd = "/tmp";
    run_collect(&o, &r);
    is_str((char *)r.out, "/tmp\n", "runs in the given directory");
    result_free(&r);

    char here[4096], want[4200];
    if (getcwd(here, sizeof(here)) == NULL)
        here[0] = '\0';
    snprintf(want, sizeof(want), "%s\n", here);
    o.cwd = "";
    run_collect(&o, &r);
    is_str((char *)r.out, want, "empty cwd inherits the parent's");
    result_free(&r);

    o.cwd = "/nonexistent/dir";
    run_collect(&o, &r);
    if (UNDER_VALGRIND) {
        skip("missing working directory is a spawn error", "valgrind");
    } else {
        ok(r.end_rc == BSH_ESTREAM && r.statuses == 0 &&
               strncmp(r.error, "failed to spawn bash process: ", 30) == 0 &&
               strstr(r.error, "/nonexistent/dir") != NULL,
           "missing working directory: a spawn error naming it, no status");
        is_int(r.error_kind, BSH_ERR_CWD, "of kind BSH_ERR_CWD");
        diag("%s", r.error);
    }
    result_free(&r);

    size_t big = 131072;
    char *cmd = malloc(big + 1);
    memcpy(cmd, "echo ", 5);
    memset(cmd + 5, 'a', big - 5);
    cmd[big] = '\0';
    o.cwd = NULL;
    o.command = cmd;
    run_collect(&o, &r);
    ok(r.end_rc == BSH_ESTREAM &&
           strstr(r.error, "at most 131071 bytes") != NULL,
       "a command over the kernel's 128 KiB argument limit: clear error");
    diag("%s", r.error);
    result_free(&r);
    cmd[100000] = '\0';
    run_collect(&o, &r);
    ok(result_exit(&r, 0) && r.out_len == 100000 - 5 + 1,
       "a 100 KB command runs, all its output arrives");
    result_free(&r);
    free(cmd);
}

static void test_guards_and_wrapper(void)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = "rm -rf /";
    struct bsh_stream *s = (struct bsh_stream *)&o; /* must be reset */
    struct bsh_error err;
    is_int(bsh_run(&o, &s, &err), BSH_EGUARD, "run: guard rejects");
    ok(s == NULL, "and starts nothing");

    struct bsh_env_var bad[] = {{"1BAD", "x"}};
    o.command = "echo hi";
    o.env = bad;
    o.env_count = 1;
    struct bsh_bash *bash = bsh_bash_new(&o);
    struct result r;
    memset(&r, 0, sizeof(r));
    is_int(bsh_bash_run(bash, "echo hi", &s, &err), BSH_OK,
           "wrapper run fails only on guards");
    drain(s, &r);
    ok(r.end_rc == 0 && r.statuses == 0 && r.out_len == 0,
       "wrapper drops stream errors: an empty stream");
    bsh_stream_free(s);
    result_free(&r);
    is_int(bsh_bash_run(bash, "/bin/ls", &s, &err), BSH_EGUARD,
           "wrapper run: guard error");
    is_str(err.text_err, "absolute command not allowed, use relative path",
           "with text_err set");
    ok(!err.has_exec_err, "and no exec_err");
    bsh_bash_free(bash);

    o.env = NULL;
    o.env_count = 0;
    o.cwd = "/tmp";
    o.timeout_ms = 5000;
    bash = bsh_bash_new(&o);
    memset(&r, 0, sizeof(r));
    bsh_bash_run(bash, "pwd", &s, &err);
    drain(s, &r);
    is_str((char *)r.out, "/tmp\n", "wrapper keeps its working directory");
    bsh_stream_free(s);
    result_free(&r);
    bsh_bash_free(bash);

    const char *tool = bsh_bash_tool_json();
    ok(strstr(tool, "\"name\":\"bash_run\"") != NULL &&
           strstr(tool, "\"required\":[\"command\"]") != NULL &&
           strstr(tool, "\"command\":{\"type\":\"string\"") != NULL,
       "tool description: bash_run, required string command");
}

/* Many streams from one thread through their pollable fds. */
static void test_many_from_one_thread(void)
{
    enum { N = 64 };
    struct bsh_stream *s[N];
    struct pollfd pfd[N];
    char out[N][32];
    int done = 0, good = 0;
    for (int i = 0; i < N; i++) {
        char cmd[64];
        snprintf(cmd, sizeof(cmd), "sleep 0.2; echo %d", i);
        struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
        o.command = cmd;
        o.timeout_ms = 20000;
        bsh_run(&o, &s[i], NULL);
        pfd[i].fd = bsh_stream_fd(s[i]);
        pfd[i].events = POLLIN;
        out[i][0] = '\0';
    }
    double t0 = mono_ms();
    while (done < N && mono_ms() - t0 < 30000) {
        poll(pfd, N, 1000);
        for (int i = 0; i < N; i++) {
            struct bsh_item it;
            int rc;
            while (pfd[i].fd >= 0 &&
                   (rc = bsh_stream_try_next(s[i], &it)) != BSH_EAGAIN) {
                if (rc == 1 && it.kind == BSH_ITEM_STDOUT)
                    snprintf(out[i], sizeof(out[i]), "%.*s", (int)it.len,
                             (const char *)it.data);
                if (rc == 1 && it.kind == BSH_ITEM_STATUS && it.has_exit_code &&
                    atoi(out[i]) == i)
                    good++;
                if (rc <= 0) {
                    pfd[i].fd = -1;
                    done++;
                }
            }
        }
    }
    is_int(good, N, "64 concurrent runs from one thread, all complete");
    diag("64 x sleep 0.2 in %.0f ms", mono_ms() - t0);
    for (int i = 0; i < N; i++)
        bsh_stream_free(s[i]);
}

/* The pollable fd wakes an outside loop for the deadline and for a
 * cancel, not only for output. */
static void test_pollable_fd_wakes(void)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = "sleep 100";
    o.timeout_ms = 300;
    struct bsh_stream *s;
    bsh_run(&o, &s, NULL);
    struct pollfd p = {bsh_stream_fd(s), POLLIN, 0};
    struct bsh_item it;
    double t0 = mono_ms();
    int rc = BSH_EAGAIN;
    while (rc == BSH_EAGAIN && mono_ms() - t0 < 5000) {
        poll(&p, 1, 5000);
        rc = bsh_stream_try_next(s, &it);
    }
    ok(rc == 1 && bsh_item_timed_out(&it) && mono_ms() - t0 < 3000,
       "an outside poll wakes for the deadline: timeout item");
    bsh_stream_free(s);

    o.timeout_ms = BSH_NO_TIMEOUT;
    bsh_run(&o, &s, NULL);
    p.fd = bsh_stream_fd(s);
    ok(poll(&p, 1, 0) == 0, "nothing ready while sleep runs");
    bsh_stream_cancel(s);
    ok(poll(&p, 1, 1000) == 1, "a cancel makes the fd readable");
    t0 = mono_ms();
    while ((rc = bsh_stream_try_next(s, &it)) == BSH_EAGAIN &&
           mono_ms() - t0 < 3000)
        poll(&p, 1, 1000); /* the killed child's exit comes a moment later */
    if (!ok(rc == 1 && it.has_signal && it.signal == 9, "and yields the kill"))
        diag("rc %d, kind %d, signal %d (%d), exit %d (%d)", rc, (int)it.kind,
             it.signal, (int)it.has_signal, it.exit_code,
             (int)it.has_exit_code);
    bsh_stream_free(s);
}

static void test_sigchld_ignored(void)
{
    struct sigaction ign = {.sa_handler = SIG_IGN}, old;
    sigaction(SIGCHLD, &ign, &old);
    struct result r;
    run_simple("true", 10000, &r);
    ok(r.end_rc == BSH_ESTREAM && strstr(r.error, "SIGCHLD") != NULL,
       "SIGCHLD ignored by the caller: a clear error, not a hang");
    diag("%s", r.error);
    result_free(&r);
    sigaction(SIGCHLD, &old, NULL);
}

int main(void)
{
    int fds_before = count_fds();
    test_basic_stream();
    test_exit_fidelity();
    test_raw_bytes();
    test_ten_megabytes_both();
    test_own_session();
    test_idle_and_grace();
    test_contract();
    test_timeouts();
    test_group_kill();
    test_cancel_contexts();
    test_clean_child();
    test_no_close_range();
    test_environment();
    test_cwd_and_spawn_errors();
    test_guards_and_wrapper();
    test_many_from_one_thread();
    test_pollable_fd_wakes();
    test_sigchld_ignored();
    is_int(count_fds(), fds_before, "no fd left open");
    ok(no_children(), "no child or zombie left");
    return tap_done();
}
