/* SPDX-License-Identifier: MIT */
/*
 * Containment, limits and the end report through the library (SPEC 5):
 * the escape cells that only the library can end (cancel, early free)
 * beside the others, with a cgroup and with the session alone; each limit
 * this machine can enforce; the report's keys. Survivors are counted by a
 * marker unique to each cell, found in any command line.
 */
#define _GNU_SOURCE
#include "../harness/run_util.h"
#include "../harness/tap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Live processes (zombies aside) whose command line holds `marker`; kills
 * them when `kill_them`. */
static int with_marker(const char *marker, bool kill_them)
{
    DIR *d = opendir("/proc");
    int n = 0;
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        int pid = atoi(e->d_name);
        char path[64], text[4096], stat[512];
        if (pid <= 0)
            continue;
        snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t len = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;
        if (fd >= 0)
            close(fd);
        if (len <= 0)
            continue;
        for (ssize_t i = 0; i < len; i++)
            if (text[i] == '\0')
                text[i] = ' ';
        text[len] = '\0';
        if (strstr(text, marker) == NULL)
            continue;
        snprintf(path, sizeof(path), "/proc/%d/stat", pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        len = fd >= 0 ? read(fd, stat, sizeof(stat) - 1) : -1;
        if (fd >= 0)
            close(fd);
        stat[len > 0 ? len : 0] = '\0';
        const char *paren = strrchr(stat, ')');
        if (paren == NULL || paren[2] == 'Z')
            continue;
        n++;
        if (kill_them)
            kill(pid, SIGKILL);
    }
    if (d != NULL)
        closedir(d);
    return n;
}

/* Survivors of a cell, waiting up to 2 s for the killed to go (or, where
 * survivors are expected, 100 ms); then kills what is left so that the
 * next cell starts clean. */
static int survivors(const char *marker, bool expected)
{
    int n = 0;
    for (int i = 0;
         i < (expected ? 5 : 100) && (n = with_marker(marker, false)) > 0; i++)
        nanosleep(&(struct timespec){0, 20000000}, NULL);
    for (int i = 0; i < 50 && with_marker(marker, true) > 0; i++)
        nanosleep(&(struct timespec){0, 20000000}, NULL);
    return n;
}

/* The techniques, shared with the CLI's and the MCP server's suites: a
 * name, a tab and a command in which @M@ stands for the marker. */
#define TECHNIQUES_MAX 32
static char technique_names[TECHNIQUES_MAX][64];
static char techniques[TECHNIQUES_MAX][512];
static size_t technique_count;

static void load_techniques(void)
{
    FILE *f = fopen(BSH_TEST_DATA "/escape_techniques.tsv", "re");
    char line[600];
    while (f != NULL && technique_count < TECHNIQUES_MAX &&
           fgets(line, sizeof(line), f) != NULL) {
        char *tab = strchr(line, '\t');
        if (line[0] == '#' || tab == NULL)
            continue;
        *tab = '\0';
        tab[strcspn(tab + 1, "\n") + 1] = '\0';
        snprintf(technique_names[technique_count], 64, "%.63s", line);
        snprintf(techniques[technique_count], 512, "%.511s", tab + 1);
        technique_count++;
    }
    if (f != NULL)
        fclose(f);
}

enum end { END_NORMAL, END_TIMEOUT, END_IDLE, END_CANCEL, END_FREE, END_COUNT };
static const char *const end_names[] = {"normal end", "timeout", "idle timeout",
                                        "cancel", "early free"};

/* Runs one cell; the report's escaped count, or -2 when it has none. */
static int run_cell(enum bsh_containment how, size_t t, enum end e,
                    const char *marker, bool *ran)
{
    char tech[512], command[1024], flag[64];
    /* The technique with its marker in place of each "@M@". */
    size_t n = 0;
    for (const char *p = techniques[t]; *p != '\0' && n + 32 < sizeof(tech);)
        if (strncmp(p, "@M@", 3) == 0) {
            n += (size_t)snprintf(tech + n, sizeof(tech) - n, "%s", marker);
            p += 3;
        } else {
            tech[n++] = *p++;
        }
    tech[n] = '\0';
    snprintf(flag, sizeof(flag), "/tmp/bsh-contain-%d", (int)getpid());
    unlink(flag);
    if (e == END_NORMAL)
        snprintf(command, sizeof(command),
                 "{\n%s\n} >/dev/null 2>&1\ntouch %s\nsleep 0.2", tech, flag);
    else
        snprintf(command, sizeof(command), "%s\ntouch %s\nsleep 30", tech,
                 flag);
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = command;
    o.containment = how;
    o.report = true;
    o.timeout_ms = e == END_TIMEOUT ? 500 : 20000;
    o.idle_timeout_ms = e == END_IDLE ? 400 : 0;
    struct bsh_stream *s = NULL;
    struct bsh_error err;
    if (bsh_run(&o, &s, &err) != BSH_OK)
        return -2;
    if (e == END_FREE || e == END_CANCEL)
        nanosleep(&(struct timespec){0, 500000000}, NULL);
    if (e == END_CANCEL)
        bsh_stream_cancel(s);
    int escaped = -2;
    if (e != END_FREE) {
        struct result r = {0};
        drain(s, &r);
        const struct bsh_report *rep = bsh_stream_report(s);
        escaped = rep != NULL ? rep->escaped : -2;
        result_free(&r);
    }
    bsh_stream_free(s);
    *ran = access(flag, F_OK) == 0;
    unlink(flag);
    return escaped;
}

static bool have_cgroup(void)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = "true";
    o.containment = BSH_CONTAIN_CGROUP;
    struct result r;
    run_collect(&o, &r);
    bool yes = r.end_rc == 0;
    if (!yes)
        printf("# no cgroup here: %s\n", r.error);
    result_free(&r);
    return yes;
}

static void test_escapes(enum bsh_containment how, const char *label)
{
    for (size_t t = 0; t < technique_count; t++) {
        int bad = 0, claimed_none = 0, left_total = 0;
        for (int e = 0; e < END_COUNT; e++) {
            char marker[64];
            snprintf(marker, sizeof(marker), "98%d%02zu%d.25", (int)how, t, e);
            bool ran = false;
            int escaped = run_cell(how, t, (enum end)e, marker, &ran);
            int left = survivors(marker, how == BSH_CONTAIN_SESSION);
            left_total += left;
            if (!ran) {
                printf("#   %s: the technique did not run\n", end_names[e]);
                bad++;
            }
            if (how == BSH_CONTAIN_CGROUP && left > 0) {
                printf("#   %s: %d left\n", end_names[e], left);
                bad++;
            }
            if (how == BSH_CONTAIN_CGROUP && e != END_FREE && escaped != 0) {
                printf("#   %s: the report says %d escaped\n", end_names[e],
                       escaped);
                bad++;
            }
            /* The session alone cannot see what left it: its report must
             * not claim that nothing did. What stays in the session (a
             * group of its own, nohup, a subshell) it kills. */
            if (how == BSH_CONTAIN_SESSION && left > 0 && escaped == 0)
                claimed_none++;
            if (how == BSH_CONTAIN_SESSION && left > 0 &&
                strstr(techniques[t], "setsid") == NULL &&
                strstr(techniques[t], "daemon") == NULL) {
                printf("#   %s: %d left in the session\n", end_names[e], left);
                bad++;
            }
        }
        char what[300];
        if (how == BSH_CONTAIN_CGROUP)
            snprintf(
                what, sizeof(what),
                "%.20s: %.60s: nothing left after a normal end, timeout, idle "
                "timeout, cancel or early free; the report says 0",
                label, technique_names[t]);
        else
            snprintf(what, sizeof(what),
                     "%.20s: %.60s: %d left by the library alone (only what "
                     "left the session), and no report claims that none was",
                     label, technique_names[t], left_total);
        ok(bad == 0 && claimed_none == 0, what);
    }
}

/* Runs `o` and takes every item into `r`; the stream, for its report
 * (the caller frees it). */
static struct bsh_stream *run_drained(const struct bsh_run_opts *o,
                                      struct result *r)
{
    struct bsh_stream *s = NULL;
    struct bsh_error err;
    memset(r, 0, sizeof(*r));
    bsh_run(o, &s, &err);
    drain(s, r);
    return s;
}

static void test_report_keys(bool cgroup)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.command = "printf 12345; printf 678 >&2; exit 3";
    struct result r;
    struct bsh_stream *s = NULL;
    struct bsh_error err;
    bsh_run(&o, &s, &err);
    ok(bsh_stream_report(s) == NULL, "no report before the status");
    memset(&r, 0, sizeof(r));
    drain(s, &r);
    const struct bsh_report *rep = bsh_stream_report(s);
    ok(rep != NULL, "a report after the status");
    if (rep != NULL) {
        is_str(bsh_end_reason_name(rep->reason), "exit", "reason exit");
        ok(rep->limit == BSH_LIMIT_NONE, "no limit");
        ok(rep->has_exit_code && rep->exit_code == 3 && !rep->has_signal,
           "exit code 3, as the status");
        is_int(rep->stdout_bytes, 5, "stdout bytes");
        is_int(rep->stderr_bytes, 3, "stderr bytes");
        ok(rep->wall_ms >= 0 && rep->wall_ms < 5000, "wall time");
        ok(rep->cpu_user_ms >= 0 && rep->cpu_sys_ms >= 0, "CPU time");
        ok(rep->memory_peak_bytes > 0, "memory peak (largest RSS or cgroup)");
        is_int(rep->containment,
               cgroup ? BSH_CONTAIN_CGROUP : BSH_CONTAIN_SESSION,
               "containment as used");
        is_int(rep->diagnosis_count, 0, "no diagnosis for a run that ended");
    }
    result_free(&r);
    bsh_stream_free(s);

    o.command = "echo go; sleep 20";
    o.timeout_ms = 300;
    o.report = true;
    s = run_drained(&o, &r);
    rep = bsh_stream_report(s);
    ok(rep != NULL && rep->reason == BSH_END_TIMEOUT && rep->has_signal &&
           rep->signal == -1,
       "timeout: reason timeout, signal -1");
    ok(rep != NULL && rep->diagnosis_count == 1 &&
           strcmp(rep->diagnosis[0].comm, "sleep") == 0 &&
           rep->diagnosis[0].state == 'S' &&
           strcmp(rep->diagnosis[0].fds[0], "/dev/null") == 0 &&
           strncmp(rep->diagnosis[0].fds[1], "pipe:", 5) == 0,
       "timeout: the diagnosis names sleep, sleeping, and its fds");
    ok(rep != NULL && rep->killed == 1, "timeout: one process killed");
    result_free(&r);
    bsh_stream_free(s);
}

/* A run past its memory or pids limit, where the kernel enforces it (a
 * cgroup v2 controller, or a cgroup v1 hierarchy): bash is killed by the
 * out-of-memory killer, or its forks are refused; the report names it. */
static void test_limit_hit(bool memory, bool sandboxed)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    struct result r;
    o.report = true;
    if (sandboxed)
        o.sandbox.mode = BSH_SANDBOX_BEST_EFFORT;
    if (memory) {
        o.limits.memory_bytes = 32 << 20;
        o.command = "a=$(head -c 200000000 /dev/zero | tr '\\0' x); "
                    "echo survived";
    } else {
        o.limits.pids = 5;
        o.command = "for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.3 & done; wait";
    }
    struct bsh_stream *s = run_drained(&o, &r);
    const struct bsh_report *rep = bsh_stream_report(s);
    bool named = rep != NULL && rep->reason == BSH_END_LIMIT &&
                 rep->limit == (memory ? BSH_LIMIT_MEMORY : BSH_LIMIT_PIDS);
    if (memory)
        ok(named && result_signal(&r, SIGKILL) &&
               (r.out_len == 0 ||
                memmem(r.out, r.out_len, "survived", 8) == NULL) &&
               rep->memory_peak_bytes > 0 &&
               rep->memory_peak_bytes <= (int64_t)(33 << 20),
           "memory limit: the kernel kills the run at 32 MiB, the report "
           "names it and its peak");
    else
        ok(named && r.err_len > 0 &&
               memmem(r.err, r.err_len, "fork", 4) != NULL,
           "pids limit: forks past 5 processes refused, the report names it");
    result_free(&r);
    bsh_stream_free(s);
}

/* After a limit was hit, the next sandboxed runs may get the same cgroup
 * v1 groups again (an empty one is pooled): they must see a limit of
 * their own, raised or lowered, and counts of their own, not the earlier
 * run's kill. */
static void test_limits_after_a_hit(void)
{
    test_limit_hit(true, true);
    test_limit_hit(false, true);
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    struct result r;
    o.report = true;
    o.sandbox.mode = BSH_SANDBOX_BEST_EFFORT;
    o.command = "true";
    o.limits.memory_bytes = 96 << 20; /* above the 32 MiB of the hit */
    o.limits.pids = 50;
    for (int i = 0; i < 3; i++) {
        struct bsh_stream *s = run_drained(&o, &r);
        const struct bsh_report *rep = bsh_stream_report(s);
        char what[128];
        snprintf(what, sizeof(what),
                 "limits after a hit, run %d: exit 0, no limit named, a "
                 "peak of its own",
                 i + 1);
        ok(result_exit(&r, 0) && rep != NULL && rep->limit == BSH_LIMIT_NONE &&
               rep->reason == BSH_END_EXIT && rep->memory_peak_bytes >= 0 &&
               rep->memory_peak_bytes < (int64_t)(32 << 20),
           what);
        result_free(&r);
        bsh_stream_free(s);
    }
    test_limit_hit(true, true);  /* lowered again: still enforced */
    test_limit_hit(false, true); /* and the pids limit too */
}

/* The memory cgroup v1 line of /proc/self/cgroup, by bash builtins only
 * (nothing read through the page cache). */
#define MEMORY_GROUP                                                        \
    "while read -r l; do if [[ $l == *:memory:* ]]; then echo \"$l\"; fi; " \
    "done < /proc/self/cgroup"

/* Whether the memory cgroup v1 that `r` printed ("4:memory:/path\n")
 * still exists, that is, went back to the pool after its run. */
static bool memory_group_pooled(const struct result *r)
{
    const char *out = (const char *)r->out;
    const char *at =
        r->out_len > 0 ? memmem(out, r->out_len, ":memory:", 8) : NULL;
    if (at == NULL)
        return false;
    at += 8;
    size_t len = r->out_len - (size_t)(at - out);
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "/sys/fs/cgroup/memory%.*s", (int)len - 1, at);
    return access(path, F_OK) == 0;
}

/* The two runs of test_small_limit_after_leftovers, in a process whose
 * pool starts empty: 1 when they passed, 2 when the first run's group was
 * not pooled (the case did not arise), 0 when they failed. */
static int small_limit_after_leftovers(const char *dir)
{
    const char *dirs[] = {dir};
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    struct result first, second;
    o.report = true;
    o.sandbox.mode = BSH_SANDBOX_BEST_EFFORT;
    o.sandbox.write_dirs = dirs;
    o.sandbox.write_count = 1;
    o.limits.memory_bytes = 50 << 20;
    o.command =
        "printf '%400000s' '' > /dev/shm/bsh-test-pool-left/f && " MEMORY_GROUP;
    run_collect(&o, &first);
    bool pooled = memory_group_pooled(&first);
    o.command = MEMORY_GROUP;
    o.limits.memory_bytes = 6 << 20; /* < 16 x 400 kB */
    struct bsh_stream *s = run_drained(&o, &second);
    const struct bsh_report *rep = bsh_stream_report(s);
    /* (no memory line at all: no cgroup v1 memory hierarchy, no pool) */
    bool same_group = first.out_len > 0 && first.out_len == second.out_len &&
                      memcmp(first.out, second.out, first.out_len) == 0;
    bool passed = result_exit(&first, 0) && result_exit(&second, 0) &&
                  !same_group && rep != NULL && rep->limit == BSH_LIMIT_NONE;
    if (same_group)
        printf("#   both ran in %.*s", (int)first.out_len, first.out);
    result_free(&first);
    result_free(&second);
    bsh_stream_free(s);
    return !passed ? 0 : pooled ? 1 : 2;
}

/* A pooled memory group with files left charged to it (a tmpfs the run
 * could write) is not handed to a run whose limit that would crowd: a run
 * limited to less than 16 times what is left runs in a memory cgroup of
 * its own. The limit stays several times above what a fresh run needs
 * (about 1.5 MiB at its peak) so that only a reused group could fail. In
 * a child, whose pool starts empty: the first run gets a new group, which
 * its 400 kB leave under the pool's 1 MiB. */
static void test_small_limit_after_leftovers(void)
{
    const char *dir = "/dev/shm/bsh-test-pool-left";
    mkdir(dir, 0700);
    fflush(stdout);
    pid_t child = fork();
    if (child == 0)
        exit(small_limit_after_leftovers(dir));
    int status = 0;
    waitpid(child, &status, 0);
    int got = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    ok(got == 1 || got == 2,
       "a run with a small memory limit after one that left 400 kB "
       "in a tmpfs: not in that group, exit 0, no limit named");
    if (got == 2)
        printf("#   (the first run's group did not go back to the pool: the "
               "case did not arise)\n");
    unlink("/dev/shm/bsh-test-pool-left/f");
    rmdir(dir);
}

static void test_limits(bool cgroup)
{
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    struct result r;
    o.command = "seq 1 100000; echo after >&2";
    o.limits.output_bytes = 1000;
    o.report = true;
    struct bsh_stream *s = run_drained(&o, &r);
    const struct bsh_report *rep = bsh_stream_report(s);
    ok(r.out_len + r.err_len == 1000 && result_signal(&r, -1),
       "output limit: exactly 1000 bytes, then the timeout item");
    ok(rep != NULL && rep->reason == BSH_END_LIMIT &&
           rep->limit == BSH_LIMIT_OUTPUT,
       "output limit: the report names it");
    result_free(&r);
    bsh_stream_free(s);

    o = (struct bsh_run_opts)BSH_RUN_OPTS_INIT;
    o.command = "while :; do :; done";
    o.limits.cpu_seconds = 1;
    o.timeout_ms = 10000;
    s = run_drained(&o, &r);
    rep = bsh_stream_report(s);
    ok(result_signal(&r, SIGXCPU), "cpu limit: the command's own SIGXCPU");
    ok(rep != NULL && rep->reason == BSH_END_LIMIT &&
           rep->limit == BSH_LIMIT_CPU,
       "cpu limit: the report names it");
    result_free(&r);
    bsh_stream_free(s);

    o.command = "exec head -c 100000 /dev/zero > /dev/shm/bsh-fsize-test";
    o.limits = (struct bsh_limits){.fsize_bytes = 4096};
    s = run_drained(&o, &r);
    rep = bsh_stream_report(s);
    struct stat st;
    ok(result_signal(&r, SIGXFSZ) &&
           stat("/dev/shm/bsh-fsize-test", &st) == 0 && st.st_size == 4096,
       "fsize limit: the file stops at 4096 bytes, SIGXFSZ");
    ok(rep != NULL && rep->limit == BSH_LIMIT_FSIZE,
       "fsize limit: the report names it");
    unlink("/dev/shm/bsh-fsize-test");
    result_free(&r);
    bsh_stream_free(s);

    /* memory and pids need the cgroup's controllers: where they are not
     * enabled (or there is no cgroup), a clear error, never ignored. */
    static const char *const names[] = {"memory", "pids"};
    int enforced_count = 0;
    for (int i = 0; i < 2; i++) {
        o = (struct bsh_run_opts)BSH_RUN_OPTS_INIT;
        o.command = "true";
        if (i == 0)
            o.limits.memory_bytes = 64 << 20;
        else
            o.limits.pids = 50;
        run_collect(&o, &r);
        char want[64], what[128];
        snprintf(want, sizeof(want), "cannot enforce the %s limit: ", names[i]);
        bool enforced = r.end_rc == 0 && result_exit(&r, 0);
        bool refused = r.end_rc == BSH_ESTREAM &&
                       r.error_kind == BSH_ERR_CONTAIN &&
                       strncmp(r.error, want, strlen(want)) == 0;
        snprintf(what, sizeof(what), "%s limit: %s", names[i],
                 enforced  ? "enforced through the cgroup"
                 : refused ? "a clear error here (no controller or no cgroup)"
                           : "neither enforced nor refused");
        ok(enforced || refused, what);
        if (refused)
            printf("#   %s\n", r.error);
        result_free(&r);
        if (enforced) {
            test_limit_hit(i == 0, false);
            enforced_count++;
        }
    }
    if (enforced_count == 2) {
        test_limits_after_a_hit();
        test_small_limit_after_leftovers();
    }
    (void)cgroup;
}

/* A run that may write the cgroup file system (root, no sandbox) makes
 * cgroups below its own and moves itself and a background process into
 * them: at its end they are killed and removed with its cgroup, whether
 * the end waits for them (a report) or leaves them to a later sweep. */
static void test_cgroups_made_by_the_run(bool report)
{
    /* Where cgroup2 is mounted: beside v1 (hybrid) or alone. */
    const char *mount = "/sys/fs/cgroup/unified";
    struct stat st;
    if (stat(mount, &st) < 0)
        mount = "/sys/fs/cgroup";
    char probe[64];
    snprintf(probe, sizeof(probe), "%s/cgroup.procs", mount);
    if (geteuid() != 0 || stat(probe, &st) < 0) {
        skip("a run's own sub-cgroups", "not root, or no cgroup2 here");
        return;
    }
    char command[512], marker[64];
    snprintf(marker, sizeof(marker), "bsh-made-cgroup-%d-%d", (int)getpid(),
             report);
    snprintf(command, sizeof(command),
             "p=%s$(sed -n 's/^0:://p' /proc/self/cgroup); mkdir -p "
             "$p/sub/deeper && echo $$ > $p/sub/deeper/cgroup.procs && (exec "
             "-a %s sleep 60 &) ; printf %%s $p",
             mount, marker);
    struct bsh_run_opts o = BSH_RUN_OPTS_INIT;
    o.containment = BSH_CONTAIN_CGROUP;
    o.report = report;
    o.command = command;
    struct result r;
    run_collect(&o, &r);
    char path[512] = "";
    if (r.out_len > 0 && r.out_len < sizeof(path))
        memcpy(path, r.out, r.out_len);
    if (!ok(result_exit(&r, 0) && path[0] == '/',
            "the run made cgroups below its own"))
        printf("# stdout '%s', stderr '%.*s', error '%s'\n", path,
               (int)r.err_len, r.err != NULL ? (char *)r.err : "", r.error);
    result_free(&r);
    /* Without a report the end does not wait: the next run's sweep, or
     * the graveyard's, removes what was still dying. */
    bool gone = false;
    for (int i = 0; i < 300 && !gone; i++) {
        run_simple("true", 10000, &r);
        result_free(&r);
        gone = stat(path, &st) < 0 && errno == ENOENT;
        if (!gone)
            usleep(10000);
    }
    ok(gone, "they are removed with the run's cgroup");
    is_int(survivors(marker, false), 0, "and what ran in them was killed");
}

int main(void)
{
    int fds = count_fds();
    load_techniques();
    ok(technique_count >= 12, "the twelve escape techniques are loaded");
    bool cgroup = have_cgroup();
    if (cgroup)
        test_escapes(BSH_CONTAIN_CGROUP, "cgroup");
    else
        skip("the cgroup escape cells", "no cgroup here");
    test_escapes(BSH_CONTAIN_SESSION, "session");
    test_report_keys(cgroup);
    test_limits(cgroup);
    if (cgroup) {
        test_cgroups_made_by_the_run(true);
        test_cgroups_made_by_the_run(false);
    }
    is_int(count_fds(), fds, "no fd left behind");
    ok(no_children(), "no child left behind");
    return tap_done();
}
