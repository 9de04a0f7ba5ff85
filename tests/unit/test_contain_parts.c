/* SPDX-License-Identifier: MIT */
/*
 * A run's containment without a cgroup, on processes the test makes
 * itself: the session is its list of members, and a signal to the run
 * reaches a member that left the leader's process group. (With a
 * cgroup, and the limits, test_contain runs real bash.)
 */
#define _GNU_SOURCE
#include "../harness/tap.h"
#include "contain.h"
#include "procinfo.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A session of its own whose leader sleeps, with one member that moved
 * to a process group of its own (as a job-control shell's job does).
 * The leader writes a byte to `ready` once both are in place. */
static pid_t make_session(int ready)
{
    pid_t leader = fork();
    if (leader != 0)
        return leader;
    setsid();
    pid_t member = fork();
    if (member == 0) {
        setpgid(0, 0);
        char byte = 'm';
        if (write(ready, &byte, 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    char byte = 'l';
    if (write(ready, &byte, 1) != 1)
        _exit(1);
    pause();
    _exit(0);
}

static void wait_ms(int ms)
{
    struct timespec t = {0, (long)ms * 1000000};
    nanosleep(&t, NULL);
}

int main(void)
{
    struct bsh__contain c;
    bsh__contain_init(&c);
    is_int(bsh__contain_pids(&c, false, NULL, 100), 0,
           "before its leader starts, a run has no process");
    is_int(bsh__contain_release(&c, 50), 0, "and nothing is left at release");

    int p[2];
    if (pipe(p) < 0)
        abort();
    pid_t leader = make_session(p[1]);
    char two[2];
    size_t got = 0;
    while (got < 2) {
        ssize_t n = read(p[0], two + got, 2 - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    ok(got == 2, "the session is in place");
    struct bsh__child child;
    bsh__child_init(&child, leader);
    bsh__contain_enter(&c, leader);
    ok(c.listed, "without a cgroup the leader is listed for session scans");
    int pids[8];
    is_int(bsh__contain_pids(&c, false, pids, 8), 2,
           "the session's two processes are the run's");
    int others = bsh__contain_pids(&c, true, pids, 8);
    ok(others == 1 && pids[0] != leader,
       "without the leader: the member alone");
    int member = pids[0];

    is_int(bsh__contain_signal(&c, &child, SIGKILL), 0,
           "SIGKILL to the run: the group's signal went out");
    int status = 0;
    ok(waitpid(leader, &status, 0) == leader && WIFSIGNALED(status) &&
           WTERMSIG(status) == SIGKILL,
       "the leader was killed");
    bool gone = false;
    for (int i = 0; i < 200 && !gone; i++) {
        char state = 0;
        int pgrp;
        /* Dead, or a zombie until whoever inherited it reaps it. */
        gone = !bsh__proc_stat(member, &state, &pgrp) || state == 'Z';
        if (!gone)
            wait_ms(5);
    }
    ok(gone, "the member in a process group of its own was killed too");
    bsh__contain_unlist(&c);
    ok(!c.listed, "unlisted before the reap");
    is_int(bsh__contain_release(&c, 200), 0,
           "nothing of the session is left at release");
    close(p[0]);
    close(p[1]);
    return tap_done();
}
