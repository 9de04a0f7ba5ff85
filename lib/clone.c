/* SPDX-License-Identifier: MIT */
/*
 * The child that becomes bash: a vfork of our own, for every run.
 *
 * CLONE_VM | CLONE_VFORK, as glibc's posix_spawn, so no page table is
 * copied and the parent waits until the exec. Unlike posix_spawn it runs
 * our code in the child, which a cgroup, limits and the sandbox need, and
 * it costs the parent less: its stack is heap memory that stays mapped
 * from one run to the next (posix_spawn maps and unmaps one per spawn,
 * about 15 us of the parent's time here), and it makes none of the
 * getrlimit calls that posix_spawn's file actions do.
 *
 * clone3 with CLONE_INTO_CGROUP starts it inside the run's cgroup; where
 * that is missing (old kernels, valgrind) the child writes itself into
 * cgroup.procs before anything else. Either way there is no moment at
 * which bash, or anything it forks, runs outside the cgroup. The child
 * then follows the recipe in spawn.c: new session, default signals,
 * stdio, directory, sandbox, limits, every other fd closed, empty signal
 * mask, exec. It shares our memory, so it writes only its own locals and
 * the failure it reports back, and calls only async-signal-safe
 * functions.
 */
#define _GNU_SOURCE
#include "internal.h"
#include "sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

/* The child's stack: its frames (the deepest, exec_bash, holds a
 * PATH_MAX buffer) with room to spare. Below glibc's mmap threshold, so
 * malloc serves it from memory that is already mapped. */
#define CHILD_STACK_SIZE ((size_t)64 * 1024)
/* The child's stack pointer starts at its top: arm64 faults on one that
 * is not 16-byte aligned (malloc's blocks are). */
_Static_assert(CHILD_STACK_SIZE % 16 == 0,
               "the child's stack top must be 16-byte aligned");

/* The child shares our memory and runs before our sanitizers could know:
 * it calls the kernel directly (no libc function that a sanitizer
 * intercepts and that might take a lock in our memory), and its own code
 * is not instrumented. It reports failures as errno values. */
#define CHILD_CODE __attribute__((no_sanitize("address", "undefined")))

/* One system call; the result, or -1 with `*err` set. */
CHILD_CODE static long sys(int *err, long nr, long a, long b, long c, long d)
{
    long r = syscall(nr, a, b, c, d);
    if (r < 0)
        *err = errno;
    return r;
}

/* Runs bash found in `path` (our PATH, as posix_spawnp searches it): each
 * directory in turn, on to the next where it is not. Returns only on
 * failure, with the most telling errno in `*err`. */
CHILD_CODE static void exec_bash(const char *path, char *const *argv,
                                 char *const *envp, int *err)
{
    char file[PATH_MAX];
    int best = ENOENT, e = 0;
    for (const char *p = path;;) {
        size_t n = 0;
        for (; *p != '\0' && *p != ':'; p++)
            if (n + 6 < sizeof(file))
                file[n++] = *p;
        if (n > 0)
            file[n++] = '/';
        for (const char *b = "bash"; *b != '\0'; b++)
            file[n++] = *b;
        file[n] = '\0';
        sys(&e, SYS_execve, (long)file, (long)argv, (long)envp, 0);
        if (e != ENOENT && e != ENOTDIR)
            best = e; /* e.g. EACCES: remembered, the search goes on */
        if (*p++ == '\0')
            break;
    }
    *err = best;
}

/* `slack` above the soft limit for the hard one: RLIMIT_CPU sends
 * SIGXCPU at the soft limit, which says why, and SIGKILL at the hard. */
CHILD_CODE static long set_limit(int *err, long resource, int64_t value,
                                 int64_t slack)
{
    struct rlimit rl = {(rlim_t)value, (rlim_t)(value + slack)};
    return value > 0 ? sys(err, SYS_prlimit64, 0, resource, (long)&rl, 0) : 0;
}

CHILD_CODE static long open_stdin(int *err, const struct bsh__child_plan *p)
{
    if (p->in_fd >= 0)
        return sys(err, SYS_dup3, p->in_fd, 0, 0, 0);
    long fd = sys(err, SYS_openat, AT_FDCWD, (long)p->in_path, p->in_flags, 0);
    if (fd <= 0)
        return fd;
    long rc = sys(err, SYS_dup3, fd, 0, 0, 0);
    syscall(SYS_close, fd);
    return rc;
}

#define LANDLOCK_LAYERS \
    (BSH_LAYER_LANDLOCK_FS | BSH_LAYER_LANDLOCK_NET | BSH_LAYER_LANDLOCK_SCOPE)

/* One layer: done, or marked failed (in strict mode: the child fails). */
CHILD_CODE static bool layer(struct bsh__sandbox *b, unsigned bits, long rc,
                             int *err)
{
    if (rc >= 0)
        return true;
    b->failed |= b->planned & bits;
    b->error = errno;
    *err = errno;
    return !b->strict;
}

/* Sends the seccomp listener `fd` to the parent over `sock`, then closes
 * it here: only the supervisor may answer the run's calls. */
CHILD_CODE static long send_listener(int sock, long fd)
{
    if (fd < 0)
        return fd;
    char byte = 0;
    struct iovec iov = {&byte, 1};
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    memset(&ctl, 0, sizeof(ctl)); /* a builtin: no libc call */
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = ctl.buf,
                         .msg_controllen = sizeof(ctl.buf)};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    int the_fd = (int)fd;
    memcpy(CMSG_DATA(c), &the_fd, sizeof(int));
    long rc = syscall(SYS_sendmsg, sock, &msg, 0L);
    syscall(SYS_close, fd);
    return rc;
}

/* The capabilities a run has no use for, dropped as the parent planned
 * (sandbox.c): from the sets it holds first (capset needs no privilege),
 * then from the bounding set (that needs CAP_SETPCAP, which is kept). */
CHILD_CODE static long drop_capabilities(const struct bsh__sandbox *b)
{
    if (b->drop_held) {
        struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
        struct __user_cap_data_struct data[2] = {
            {b->caps[0], b->caps[1], b->caps[2]},
            {b->caps[3], b->caps[4], b->caps[5]}};
        if (syscall(SYS_capset, &head, data) < 0)
            return -1;
    }
    /* One the set no longer holds is fine, though without CAP_SETPCAP
     * its drop fails. */
    for (long cap = 0; cap < 64; cap++)
        if (((b->drop >> cap) & 1) &&
            syscall(SYS_prctl, PR_CAPBSET_DROP, cap, 0L, 0L, 0L) < 0 &&
            syscall(SYS_prctl, PR_CAPBSET_READ, cap, 0L, 0L, 0L) != 0)
            return -1;
    return 0;
}

/* The sandbox, last before bash: the capabilities, no new privileges
 * (which the next two need without CAP_SYS_ADMIN), the Landlock ruleset,
 * the seccomp filter with its listener for the supervisor. False when
 * strict mode must fail. */
CHILD_CODE static bool confine(struct bsh__sandbox *b, int *err)
{
    return layer(b, BSH_LAYER_CAPABILITIES, drop_capabilities(b), err) &&
           layer(b, BSH_LAYER_NO_NEW_PRIVS,
                 syscall(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L),
                 err) &&
           (b->ruleset_fd < 0 ||
            layer(b, LANDLOCK_LAYERS,
                  syscall(SYS_landlock_restrict_self, b->ruleset_fd, 0L),
                  err)) &&
           (b->prog.len == 0 ||
            layer(b, BSH_LAYER_SECCOMP,
                  send_listener(b->notify_sock[1],
                                syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                                        SECCOMP_FILTER_FLAG_NEW_LISTENER,
                                        &b->prog)),
                  err));
}

/* Into the cgroup v1 cgroups that hold the memory and pids limits
 * ("0": the writer itself), before anything else. */
CHILD_CODE static bool join_v1(const struct bsh__placement *place, int *err)
{
    for (int i = 0; i < 2; i++)
        if (place->v1_procs[i] >= 0 &&
            sys(err, SYS_write, place->v1_procs[i], (long)"0", 1, 0) != 1)
            return false;
    return true;
}

/* The decimal number a /proc/self/fd entry names; -1 for "." and "..". */
CHILD_CODE static long fd_number(const char *name)
{
    long fd = 0;
    if (*name == '\0')
        return -1;
    for (; *name != '\0'; name++) {
        if (*name < '0' || *name > '9')
            return -1;
        fd = fd * 10 + (*name - '0');
    }
    return fd;
}

/* Whether `fd` is one of a session run's state fds, which stay open. */
CHILD_CODE static bool state_fd(long fd, bool keep)
{
    return keep && (fd == BSH_STATE_FD_IN || fd == BSH_STATE_FD_OUT);
}

/* Closes every fd above 2 but a session run's state fds (`keep`): one
 * close_range (two around them), or, on kernels before 5.9, each fd that
 * /proc/self/fd lists (as glibc's closefrom does there). Our fds are
 * close-on-exec anyway; this drops the ones the caller leaked. */
CHILD_CODE static long close_above_stdio(int *err, bool keep)
{
    long rc =
        keep ? sys(err, SYS_close_range, 3, BSH_STATE_FD_IN - 1, 0, 0) : 0;
    if (rc == 0)
        rc = sys(err, SYS_close_range, keep ? BSH_STATE_FD_OUT + 1 : 3, ~0U, 0,
                 0);
    if (rc == 0 || *err != ENOSYS)
        return rc;
    *err = 0;
    long dir = sys(err, SYS_openat, AT_FDCWD, (long)"/proc/self/fd",
                   O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
    if (dir < 0)
        return dir;
    union {
        struct dirent64 entry;
        char bytes[1024];
    } buf;
    long n;
    /* The listing goes by fd number, so closing what it has shown does
     * not move what it has yet to show. */
    while ((n = sys(err, SYS_getdents64, dir, (long)buf.bytes,
                    sizeof(buf.bytes), 0)) > 0)
        for (long at = 0; at < n;) {
            const struct dirent64 *e = (const void *)(buf.bytes + at);
            long fd = fd_number(e->d_name);
            if (fd > 2 && fd != dir && !state_fd(fd, keep))
                syscall(SYS_close, fd);
            at += e->d_reclen;
        }
    syscall(SYS_close, dir);
    return n;
}

/* A session run's state fds onto BSH_STATE_FD_IN and _OUT, inheritable.
 * Through fresh copies first: the parent's fds may have those numbers.
 * A run that saves nothing has no out fd: whatever the parent leaked as
 * BSH_STATE_FD_OUT is closed instead. */
CHILD_CODE static long place_state_fds(int *err, const int fds[2])
{
    if (fds[0] < 0)
        return 0;
    long a = sys(err, SYS_fcntl, fds[0], F_DUPFD, BSH_STATE_FD_OUT + 1, 0);
    long b = a < 0        ? a
             : fds[1] < 0 ? 0
                          : sys(err, SYS_fcntl, fds[1], F_DUPFD,
                                BSH_STATE_FD_OUT + 1, 0);
    if (b < 0 || sys(err, SYS_dup3, a, BSH_STATE_FD_IN, 0, 0) < 0)
        return -1;
    if (fds[1] < 0) {
        syscall(SYS_close, BSH_STATE_FD_OUT);
        return 0;
    }
    return sys(err, SYS_dup3, b, BSH_STATE_FD_OUT, 0, 0) < 0 ? -1 : 0;
}

/* What the child needs, and where it reports a failure. */
struct child_job {
    const struct bsh__child_plan *plan;
    const char *path; /* PATH, where bash is looked for */
    int procs;        /* the run's cgroup.procs, or -1 */
    int err;          /* written by the child before it exits on a failure */
    bool in_cwd;      /* the failure was its chdir */
};

/* The child: runs bash or exits 127 with job->err set. */
CHILD_CODE static int run_child(void *arg)
{
    struct child_job *job = arg;
    const struct bsh__child_plan *p = job->plan;
    /* The kernel's struct sigaction, all zero: SIG_DFL, no flags, no
     * restorer, an empty mask. */
    const long dfl[4] = {0, 0, 0, 0};
    unsigned long none = 0;
    int err = 0;
    if ((job->procs >= 0 &&
         sys(&err, SYS_write, job->procs, (long)"0", 1, 0) != 1) ||
        !join_v1(p->place, &err) || sys(&err, SYS_setsid, 0, 0, 0, 0) < 0)
        goto fail;
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            syscall(SYS_rt_sigaction, sig, dfl, NULL, sizeof(none));
    if (open_stdin(&err, p) < 0 ||
        sys(&err, SYS_dup3, p->out_fd, 1, 0, 0) < 0 ||
        sys(&err, SYS_dup3, p->err_fd, 2, 0, 0) < 0)
        goto fail;
    if (p->cwd != NULL && sys(&err, SYS_chdir, (long)p->cwd, 0, 0, 0) < 0) {
        job->in_cwd = true;
        goto fail;
    }
    /* Before the fds are closed: the ruleset is one of them. */
    if (p->place->sandbox != NULL && !confine(p->place->sandbox, &err))
        goto fail;
    if (set_limit(&err, RLIMIT_CPU, p->place->cpu_seconds, 1) < 0 ||
        set_limit(&err, RLIMIT_FSIZE, p->place->fsize_bytes, 0) < 0 ||
        place_state_fds(&err, p->state_fds) < 0 ||
        close_above_stdio(&err, p->state_fds[0] >= 0) < 0)
        goto fail;

    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, sizeof(none));
    exec_bash(job->path, p->argv, p->envp != NULL ? p->envp : environ, &err);
fail:
    job->err = err;
    syscall(SYS_exit, 127);
    return 127;
}

#if defined(__x86_64__) || defined(__aarch64__)
/* The arguments of clone3(CLONE_VM | CLONE_VFORK | CLONE_INTO_CGROUP) on
 * `stack`, into `cgroup`. */
static struct clone_args clone3_args(int cgroup, const char *stack, size_t size)
{
    struct clone_args ca;
    memset(&ca, 0, sizeof(ca));
    ca.flags = (uint64_t)(CLONE_VM | CLONE_VFORK) | (uint64_t)CLONE_INTO_CGROUP;
    ca.exit_signal = SIGCHLD;
    ca.stack = (uint64_t)(uintptr_t)stack;
    ca.stack_size = size;
    ca.cgroup = (uint64_t)(unsigned)cgroup;
    return ca;
}
#endif

/* clone3 into `cgroup` on `stack`, running fn(arg) in the child; the pid,
 * or a negative errno. No C library has a clone3 wrapper that runs a
 * function on a new stack, so this is its own: the child comes back from
 * the system call on the new stack, where no frame of ours exists, and
 * must call fn at once and exit with its result. */
#if defined(__x86_64__)
static long clone3_into(int cgroup, const char *stack, size_t size,
                        int (*fn)(void *), void *arg)
{
    struct clone_args ca = clone3_args(cgroup, stack, size);
    long ret;
    register int (*r12)(void *) __asm__("r12") = fn;
    register void *r13 __asm__("r13") = arg;
    __asm__ volatile("syscall\n\t"
                     "test %%rax, %%rax\n\t"
                     "jnz 1f\n\t"
                     "xor %%ebp, %%ebp\n\t" /* the child: no frame above */
                     "mov %%r13, %%rdi\n\t"
                     "call *%%r12\n\t"
                     "mov %%eax, %%edi\n\t"
                     "mov $60, %%eax\n\t" /* SYS_exit */
                     "syscall\n\t"
                     "hlt\n\t"
                     "1:\n\t"
                     : "=a"(ret)
                     : "a"((long)SYS_clone3), "D"(&ca), "S"(sizeof(ca)),
                       "r"(r12), "r"(r13)
                     : "rcx", "r11", "memory");
    return ret;
}
#elif defined(__aarch64__)
static long clone3_into(int cgroup, const char *stack, size_t size,
                        int (*fn)(void *), void *arg)
{
    struct clone_args ca = clone3_args(cgroup, stack, size);
    register long x0 __asm__("x0") = (long)&ca;
    register long x1 __asm__("x1") = (long)sizeof(ca);
    register long x8 __asm__("x8") = (long)SYS_clone3;
    register int (*x19)(void *) __asm__("x19") = fn;
    register void *x20 __asm__("x20") = arg;
    __asm__ volatile("svc #0\n\t"
                     "cbnz x0, 1f\n\t"
                     "mov x29, xzr\n\t" /* the child: no frame above */
                     "mov x30, xzr\n\t"
                     "mov x0, x20\n\t"
                     "blr x19\n\t"
                     "mov x8, #93\n\t" /* SYS_exit, with fn's result in w0 */
                     "svc #0\n\t"
                     "brk #0\n\t"
                     "1:\n\t"
                     : "+r"(x0)
                     : "r"(x1), "r"(x8), "r"(x19), "r"(x20)
                     : "memory");
    return x0;
}
#else
static long clone3_into(int cgroup, const char *stack, size_t size,
                        int (*fn)(void *), void *arg)
{
    (void)cgroup, (void)stack, (void)size, (void)fn, (void)arg;
    return -ENOSYS;
}
#endif

/* The run's cgroup.procs, above stdio so that the child's dup2 calls
 * leave it alone; or -errno. */
static int open_procs(int cgroup)
{
    int fd = openat(cgroup, "cgroup.procs", O_WRONLY | O_CLOEXEC);
    return fd < 0 ? -errno : bsh__above_stdio(fd);
}

/* Starts the child: straight into its cgroup where clone3 can (no
 * migration: it would take the cgroup's global lock, slow), else a plain
 * vfork whose child writes itself into cgroup.procs. The pid, or
 * -errno. */
static pid_t start_child(struct child_job *job, int cgroup, char *stack)
{
    if (cgroup >= 0) {
        long r = clone3_into(cgroup, stack, CHILD_STACK_SIZE, run_child, job);
        if (r >= 0)
            return (pid_t)r;
        if (r != -ENOSYS && r != -EINVAL && r != -E2BIG)
            return (pid_t)r;
        job->procs = open_procs(cgroup); /* old kernel, or valgrind */
        if (job->procs < 0)
            return job->procs;
    }
    pid_t pid = clone(run_child, stack + CHILD_STACK_SIZE,
                      CLONE_VM | CLONE_VFORK | SIGCHLD, job);
    return pid < 0 ? -errno : pid;
}

int bsh__clone_bash(const struct bsh__child_plan *plan, pid_t *pid,
                    bool *in_cwd)
{
    const char *path = getenv("PATH");
    struct child_job job = {
        plan, path != NULL && *path ? path : "/bin:/usr/bin", -1, 0, false};
    *in_cwd = false;
    char *stack = malloc(CHILD_STACK_SIZE);
    if (stack == NULL)
        return -ENOMEM;
    sigset_t all, old;
    sigfillset(&all);
    /* No handler of ours may run in the child before its reset. */
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t r = start_child(&job, plan->place->cgroup_dir, stack);
    int err = r < 0 ? r : -job.err;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    free(stack);
    bsh__close(job.procs);
    if (r > 0 && err != 0) /* it failed before exec: reap it */
        while (waitpid(r, NULL, 0) < 0 && errno == EINTR)
            ;
    if (err == 0)
        *pid = r;
    *in_cwd = r > 0 && job.in_cwd;
    return err;
}
