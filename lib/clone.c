/* SPDX-License-Identifier: MIT */
/*
 * Starting bash in a cgroup of its own, or with resource limits: what
 * posix_spawn cannot do, since it runs no code of ours in the child.
 *
 * clone3(CLONE_INTO_CGROUP) starts the child inside the run's cgroup, so
 * there is no moment at which bash, or anything it forks, runs outside
 * it. Where clone3 is missing (old kernels, valgrind), a plain fork-style
 * clone is used and the child writes itself into cgroup.procs before it
 * runs anything else. The child then follows spawn.c's recipe by hand:
 * new session, default signals, stdio, directory, limits, every other fd
 * closed on exec, empty signal mask, exec. It calls only async-signal-
 * safe functions, as a child of a threaded caller must. A failure is sent
 * back as an errno through a close-on-exec pipe, so the parent learns it
 * as posix_spawn would report it.
 *
 * This is a fork, not a vfork: the page tables are copied. It is used
 * only for runs that need it (see spawn.c).
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The path of `bash` in our PATH, as posix_spawnp would find it. */
static bool find_bash(char *out, size_t size)
{
    const char *path = getenv("PATH");
    if (path == NULL || *path == '\0')
        path = "/bin:/usr/bin";
    for (const char *p = path;; p++) {
        size_t len = strcspn(p, ":");
        bsh__format(out, size, "%.*s%sbash", (int)len, p, len ? "/" : "");
        if (access(out, X_OK) == 0)
            return true;
        p += len;
        if (*p == '\0')
            return false;
    }
}

/* `slack` above the soft limit for the hard one: RLIMIT_CPU sends
 * SIGXCPU at the soft limit, which says why, and SIGKILL at the hard. */
static int set_limit(int resource, int64_t value, int64_t slack)
{
    struct rlimit rl = {(rlim_t)value, (rlim_t)(value + slack)};
    return value > 0 ? setrlimit(resource, &rl) : 0;
}

static int open_stdin(const struct bsh__child_plan *p)
{
    int fd = open(p->in_path, p->in_flags);
    if (fd < 0 || fd == 0)
        return fd;
    int rc = dup2(fd, 0);
    close(fd);
    return rc;
}

/* The child: never returns. */
__attribute__((noreturn)) static void run_child(const struct bsh__child_plan *p,
                                                const char *bash, int report,
                                                int procs)
{
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigset_t none;
    sigemptyset(&none);
    if (procs >= 0 && write(procs, "0", 1) != 1)
        goto fail;
    if (setsid() < 0)
        goto fail;
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            sigaction(sig, &dfl, NULL); /* glibc's own two: EINVAL, fine */
    if (open_stdin(p) < 0 || dup2(p->out_fd, 1) < 0 || dup2(p->err_fd, 2) < 0)
        goto fail;
    if (p->cwd != NULL && chdir(p->cwd) < 0)
        goto fail;
    if (set_limit(RLIMIT_CPU, p->place->cpu_seconds, 1) < 0 ||
        set_limit(RLIMIT_FSIZE, p->place->fsize_bytes, 0) < 0)
        goto fail;
    /* Close-on-exec rather than closed: `report` must stay until exec. */
    if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
        goto fail;
    sigprocmask(SIG_SETMASK, &none, NULL);
    execve(bash, p->argv, p->envp != NULL ? p->envp : environ);
fail:;
    int err = errno;
    ssize_t n = write(report, &err, sizeof(err));
    (void)n;
    _exit(127);
}

static long clone_into(int cgroup_dir)
{
    struct clone_args args;
    memset(&args, 0, sizeof(args));
    args.exit_signal = SIGCHLD;
    if (cgroup_dir >= 0) {
        args.flags = (uint64_t)CLONE_INTO_CGROUP;
        args.cgroup = (uint64_t)(unsigned)cgroup_dir;
    }
    return syscall(SYS_clone3, &args, sizeof(args));
}

int bsh__clone_bash(const struct bsh__child_plan *plan, pid_t *pid)
{
    char bash[PATH_MAX];
    if (!find_bash(bash, sizeof(bash)))
        return ENOENT;
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) < 0)
        return errno;
    /* Above stdio, so that the child's dup2 calls leave it alone. */
    int report = fcntl(pipefd[1], F_DUPFD_CLOEXEC, 3);
    close(pipefd[1]);
    if (report < 0) {
        int err = errno;
        close(pipefd[0]);
        return err;
    }
    int procs = -1, cgroup = plan->place->cgroup_dir;
    sigset_t all, old;
    sigfillset(&all);
    /* No handler of ours may run in the child before its reset. */
    pthread_sigmask(SIG_SETMASK, &all, &old);
    long r = clone_into(cgroup);
    if (r < 0 && (errno == ENOSYS || errno == EINVAL)) {
        if (cgroup >= 0)
            procs = openat(cgroup, "cgroup.procs", O_WRONLY | O_CLOEXEC);
        r = cgroup >= 0 && procs < 0 ? -1
                                     : syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
    }
    if (r == 0)
        run_child(plan, bash, report, procs);
    int err = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close(report);
    bsh__close(procs);
    if (r < 0) {
        close(pipefd[0]);
        return err;
    }
    ssize_t n;
    do
        n = read(pipefd[0], &err, sizeof(err));
    while (n < 0 && errno == EINTR);
    close(pipefd[0]);
    if (n == (ssize_t)sizeof(err)) { /* it failed before exec: reap it */
        while (waitpid((pid_t)r, NULL, 0) < 0 && errno == EINTR)
            ;
        return err;
    }
    *pid = (pid_t)r;
    return 0;
}
