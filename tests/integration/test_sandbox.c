/* SPDX-License-Identifier: MIT */
/*
 * The sandbox through the library (SPEC 8): the layers a kernel of each
 * Landlock ABI offers, what a run's report says against what the kernel
 * enforces (each layer tried from inside the run), strict failures before
 * anything starts, and no fd left behind. The attack and workload suites
 * are tests/sandbox/attacks.sh.
 */
#define _GNU_SOURCE
#include "../harness/run_util.h"
#include "../harness/tap.h"
#include "sandbox.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void layers_by_abi(void)
{
    struct bsh_sandbox sb = {.mode = BSH_SANDBOX_STRICT};
    const struct {
        int abi;
        bool seccomp;
        unsigned missing;
    } rows[] = {
        {0, true,
         BSH_LAYER_LANDLOCK_FS | BSH_LAYER_LANDLOCK_NET |
             BSH_LAYER_LANDLOCK_SCOPE},
        {2, true,
         BSH_LAYER_LANDLOCK_FS | BSH_LAYER_LANDLOCK_NET |
             BSH_LAYER_LANDLOCK_SCOPE},
        {3, true, BSH_LAYER_LANDLOCK_NET | BSH_LAYER_LANDLOCK_SCOPE},
        {5, true, BSH_LAYER_LANDLOCK_SCOPE},
        {6, true, 0},
        {7, false, BSH_LAYER_SECCOMP},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        unsigned planned, missing, off;
        bsh__sandbox_layers(&sb, rows[i].abi, rows[i].seccomp, &planned,
                            &missing, &off);
        char what[80];
        snprintf(what, sizeof(what), "ABI %d%s: the missing layers",
                 rows[i].abi, rows[i].seccomp ? "" : " without seccomp");
        is_int(missing, rows[i].missing, what);
        ok((planned | missing) == (1u << BSH_SANDBOX_LAYERS) - 1 && off == 0,
           "every layer is planned or missing");
    }
    sb.allow_net = true;
    unsigned planned, missing, off;
    bsh__sandbox_layers(&sb, 7, true, &planned, &missing, &off);
    is_int(off, BSH_LAYER_LANDLOCK_NET, "allow_net: the TCP layer is off");
    is_int(missing, 0, "and nothing is missing");
}

/* Runs `command` in a sandbox; the report's sandbox and the output. */
static void sandboxed(const char *command, enum bsh_sandbox_mode mode, bool net,
                      struct result *r, struct bsh_sandbox_report *rep)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = command;
    o.timeout_ms = 10000;
    o.report = true;
    o.sandbox.mode = mode;
    o.sandbox.allow_net = net;
    struct bsh_stream *s = NULL;
    struct bsh_error err;
    memset(r, 0, sizeof(*r));
    r->guard_rc = bsh_run(&o, &s, &err);
    drain(s, r);
    const struct bsh_report *p = bsh_stream_report(s);
    *rep = p != NULL ? p->sandbox : (struct bsh_sandbox_report){0};
    bsh_stream_free(s);
}

/* Each layer the report claims is checked from inside the run. */
static void report_matches_the_kernel(void)
{
    struct bsh_sandbox sb = {.mode = BSH_SANDBOX_BEST_EFFORT};
    struct bsh_sandbox_report probe, rep;
    bsh_sandbox_probe(&sb, &probe);
    struct result r;
    sandboxed(
        "grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status; "
        "echo x > /etc/bsh-sandbox-probe 2>/dev/null || echo fs-denied; "
        "(exec 3<>/dev/tcp/127.0.0.1/9) 2>&1 | grep -q 'not permitted' && "
        "echo net-denied; "
        "kill -0 1 2>/dev/null || echo signal-denied",
        BSH_SANDBOX_BEST_EFFORT, false, &r, &rep);
    ok(result_exit(&r, 0), "a best-effort run ends");
    is_int(rep.mode, BSH_SANDBOX_BEST_EFFORT, "the report has the mode");
    is_int(rep.applied, probe.applied, "it applied what the probe offered");
    is_int(rep.landlock_abi, bsh_landlock_abi(), "and names the ABI");
    const char *out = r.out != NULL ? (const char *)r.out : "";
    if (rep.applied & BSH_LAYER_NO_NEW_PRIVS)
        ok(strstr(out, "NoNewPrivs:\t1") != NULL, "no_new_privs is in force");
    if (rep.applied & BSH_LAYER_SECCOMP)
        ok(strstr(out, "Seccomp:\t2") != NULL, "a seccomp filter is in force");
    if (rep.applied & BSH_LAYER_LANDLOCK_FS)
        ok(strstr(out, "fs-denied") != NULL, "writing /etc is denied");
    if (rep.applied & (BSH_LAYER_LANDLOCK_NET | BSH_LAYER_SECCOMP))
        ok(strstr(out, "net-denied") != NULL, "TCP is denied");
    if (rep.applied & BSH_LAYER_LANDLOCK_SCOPE)
        ok(strstr(out, "signal-denied") != NULL,
           "a signal out of the run is denied");
    result_free(&r);
    sandboxed("grep '^Seccomp:' /proc/self/status", BSH_SANDBOX_STRICT, true,
              &r, &rep);
    ok(result_exit(&r, 0), "a strict run with the network ends");
    is_int(rep.off, BSH_LAYER_LANDLOCK_NET, "its TCP layer is off");
    result_free(&r);
    sandboxed("true", BSH_SANDBOX_OFF, false, &r, &rep);
    is_int(rep.mode, BSH_SANDBOX_OFF, "without a sandbox the report says so");
    result_free(&r);
}

static void bad_write_dir(void)
{
    const char *dirs[] = {"/nonexistent/bsh-sandbox"};
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = "echo started";
    o.sandbox = (struct bsh_sandbox){
        .mode = BSH_SANDBOX_STRICT, .write_dirs = dirs, .write_count = 1};
    int fds = count_fds();
    struct result r;
    run_collect(&o, &r);
    is_int(r.error_kind, BSH_ERR_SANDBOX, "a missing --sandbox-write dir");
    ok(strstr(r.error, "/nonexistent/bsh-sandbox") != NULL, r.error);
    is_int(r.out_len, 0, "nothing started");
    result_free(&r);
    is_int(count_fds(), fds, "no fd left behind");
    o.sandbox.write_count = 1;
    o.sandbox.write_dirs = NULL;
    struct bsh_stream *s = NULL;
    struct bsh_error err;
    is_int(bsh_run(&o, &s, &err), BSH_EINVAL, "write_count without dirs");
}

/* How a test drives its stream. */
enum drive { BLOCKING, POLLABLE_FD, POLLFDS };

/* Mode changes go through the stream's supervisor, in every way of
 * driving the stream. */
static void supervised_chmod(enum drive drive)
{
    char dir[] = "/var/tmp/bsh-sandbox-XXXXXX", cmd[400];
    char other[] = "/var/tmp/bsh-sandbox-XXXXXX";
    ok(mkdtemp(dir) != NULL && mkdtemp(other) != NULL,
       "a writable directory and another one, outside /tmp");
    snprintf(cmd, sizeof(cmd),
             "cd %s && touch mine && chmod 700 mine && stat -c %%a mine && "
             "chmod 755 %s; echo $?",
             dir, other);
    const char *dirs[] = {dir};
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = cmd;
    o.timeout_ms = 10000;
    o.sandbox = (struct bsh_sandbox){
        .mode = BSH_SANDBOX_STRICT, .write_dirs = dirs, .write_count = 1};
    struct result r;
    if (drive != BLOCKING) {
        memset(&r, 0, sizeof(r));
        struct bsh_stream *s = NULL;
        struct bsh_error err;
        r.guard_rc = bsh_run(&o, &s, &err);
        if (drive == POLLABLE_FD)
            drain_pollable(s, &r);
        else
            drain_pollfds(s, &r);
        bsh_stream_free(s);
    } else {
        run_collect(&o, &r);
    }
    const char *how = drive == BLOCKING      ? "(blocking)"
                      : drive == POLLABLE_FD ? "(pollable fd)"
                                             : "(the stream's own fds)";
    ok(result_exit(&r, 0), how);
    ok(r.out_len == 6 && memcmp(r.out, "700\n1\n", 6) == 0,
       "chmod in a writable place done, outside refused");
    result_free(&r);
    struct stat st;
    ok(stat(other, &st) == 0 && (st.st_mode & 07777) == 0700,
       "the other directory kept its mode (mkdtemp's 0700)");
    snprintf(cmd, sizeof(cmd), "rm -f %s/mine", dir);
    ok(system(cmd) == 0 && rmdir(dir) == 0 && rmdir(other) == 0, "cleaned up");
}

static void writable_places(void)
{
    char dir[] = "/var/tmp/bsh-sandbox-XXXXXX";
    ok(mkdtemp(dir) != NULL, "a directory outside /tmp");
    const char *dirs[] = {dir};
    char cmd[256];
    snprintf(
        cmd, sizeof(cmd),
        "echo a > %s/granted && cat %s/granted && "
        "echo b > /tmp/bsh-sandbox-$$ && rm /tmp/bsh-sandbox-$$ && echo tmp",
        dir, dir);
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = cmd;
    o.sandbox = (struct bsh_sandbox){
        .mode = BSH_SANDBOX_STRICT, .write_dirs = dirs, .write_count = 1};
    struct result r;
    run_collect(&o, &r);
    ok(result_exit(&r, 0), "--sandbox-write and /tmp are writable");
    ok(r.out_len == 6 && memcmp(r.out, "a\ntmp\n", 6) == 0, "both written");
    result_free(&r);
    snprintf(cmd, sizeof(cmd), "rm -f %s/granted", dir);
    ok(system(cmd) == 0 && rmdir(dir) == 0, "cleaned up");
}

/* A Unix socket that one sandboxed run bound is reached by another run of
 * the same process (an MCP server's later call), not only by its own. */
static void socket_of_another_run(void)
{
    if (access("/usr/bin/python3", X_OK) != 0) { /* the arm64 VM has none */
        skip("a run connects to another run's socket",
             "python3 is not installed");
        return;
    }
    char dir[] = "/var/tmp/bsh-sandbox-XXXXXX", serve[600], client[600];
    ok(mkdtemp(dir) != NULL, "a directory for the socket");
    const char *dirs[] = {dir};
    snprintf(serve, sizeof(serve),
             "python3 -c 'import socket\n"
             "s = socket.socket(socket.AF_UNIX); s.bind(\"%s/srv.sock\"); "
             "s.listen(1); print(\"ready\", flush=True)\n"
             "c, _ = s.accept(); c.sendall(b\"served\"); c.close()'",
             dir);
    snprintf(client, sizeof(client),
             "python3 -c 'import socket\n"
             "s = socket.socket(socket.AF_UNIX); s.connect(\"%s/srv.sock\"); "
             "print(s.recv(6).decode())'",
             dir);
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = serve;
    o.timeout_ms = 20000;
    o.sandbox = (struct bsh_sandbox){
        .mode = BSH_SANDBOX_STRICT, .write_dirs = dirs, .write_count = 1};
    struct bsh_stream *server = NULL;
    struct bsh_error err;
    struct bsh_item item;
    bool ready = false;
    int rc = bsh_run(&o, &server, &err);
    while (rc == BSH_OK && !ready && bsh_stream_next(server, &item) == 1)
        ready = item.kind == BSH_ITEM_STDOUT && item.len >= 5 &&
                memcmp(item.data, "ready", 5) == 0;
    ok(ready, "the first run listens on its socket");
    o.command = client;
    struct result r;
    run_collect(&o, &r);
    ok(result_exit(&r, 0) && r.out_len == 7 &&
           memcmp(r.out, "served\n", 7) == 0,
       "a second run connects to it");
    result_free(&r);
    while (server != NULL && bsh_stream_next(server, &item) == 1)
        ;
    bsh_stream_free(server);
    snprintf(serve, sizeof(serve), "rm -rf %s", dir);
    ok(system(serve) == 0, "cleaned up");
}

int main(void)
{
    layers_by_abi();
    report_matches_the_kernel();
    bad_write_dir();
    writable_places();
    supervised_chmod(BLOCKING);
    supervised_chmod(POLLABLE_FD);
    supervised_chmod(POLLFDS);
    socket_of_another_run();
    return tap_done();
}
