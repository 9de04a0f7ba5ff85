/* SPDX-License-Identifier: MIT */
/*
 * Starting `bash -c COMMAND` on pipes or a PTY. The child is clone.c's
 * vfork: no page-table copy, so a parent with a large heap spawns as fast
 * as a small one. Everything that allocates (argv, envp, the pipes, the
 * PTY) is done here before; the child only follows the recipe.
 *
 * The recipe, both modes:
 *  - every fd of ours is close-on-exec, and the child closes every fd
 *    above 2 (close_range), so only 0, 1 and 2 reach bash, whatever the
 *    caller leaked;
 *  - all signal dispositions back to SIG_DFL and an empty signal mask, even
 *    if the caller ignores SIGPIPE or blocks signals;
 *  - a new session (so a new process group, pgid = sid = pid): pipes with
 *    stdin from /dev/null and no controlling terminal at all, so that
 *    nothing in the run can read or stop on the caller's terminal; PTY:
 *    the slave as the controlling terminal, acquired by opening it in the
 *    child after setsid;
 *  - the child changes to the working directory, so a bad one fails the
 *    spawn instead of running somewhere else.
 */
#define _GNU_SOURCE
#include "internal.h"
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

/* A pipe above stdio: 0, or -errno. */
static int make_pipe(int fds[2])
{
    if (pipe2(fds, O_CLOEXEC) < 0)
        return -errno;
    fds[0] = bsh__above_stdio(fds[0]);
    fds[1] = bsh__above_stdio(fds[1]);
    int err = fds[0] < 0 ? fds[0] : fds[1] < 0 ? fds[1] : 0;
    if (err < 0) {
        fds[0] = bsh__close(fds[0]);
        fds[1] = bsh__close(fds[1]);
    }
    return err;
}

/* For fds we have just made: their status flags are known (no O_APPEND
 * and the like), so one F_SETFL does it. */
static int set_nonblocking(int fd)
{
    return fcntl(fd, F_SETFL, O_NONBLOCK) < 0 ? -errno : 0;
}

/* The kind of error an errno stands for, outside the working directory. */
static enum bsh_error_kind kind_of(int err, enum bsh_error_kind otherwise)
{
    return err == EMFILE || err == ENFILE || err == ENOMEM || err == EAGAIN
               ? BSH_ERR_RESOURCES
               : otherwise;
}

/* Fills `why` for a failure of ours (-errno `err`) and hands `err` back. */
static int fail(struct bsh__spawn_error *why, int err,
                enum bsh_error_kind otherwise, const char *prefix)
{
    why->kind = kind_of(-err, otherwise);
    why->err = 0;
    bsh__format(why->text, sizeof(why->text), "%s: %s", prefix, strerror(-err));
    return err;
}

/* A failed spawn (-errno `err`) in words: the child says whether its
 * chdir failed. Hands `err` back. */
static int explain_failure(int err, bool in_cwd, const char *cwd,
                           const char *prefix, struct bsh__spawn_error *why)
{
    if (!in_cwd) {
        fail(why, err, BSH_ERR_SPAWN, prefix);
        why->err = -err; /* the clone or the exec itself */
        return err;
    }
    why->kind = BSH_ERR_CWD;
    why->err = -err;
    bsh__format(why->text, sizeof(why->text),
                "%s: cannot use working directory '%s': %s", prefix, cwd,
                strerror(-err));
    return err;
}

/* Spawns `bash -c command`; returns 0 or -errno, with `*in_cwd` saying
 * whether the child's chdir failed. */
static int spawn_bash(const struct bsh__child_plan *io, const char *command,
                      pid_t *pid, bool *in_cwd)
{
    /* "--": a COMMAND that starts with '-' is a command, not an option of
     * bash. */
    char *argv[] = {(char *)"bash", (char *)"-c", (char *)"--", (char *)command,
                    NULL};
    struct bsh__child_plan plan = *io;
    plan.argv = argv;
    return bsh__clone_bash(&plan, pid, in_cwd);
}

/* Whether this root has a /dev/null: a bare root (a container's scratch
 * image, a chroot) may have no /dev at all. Asked once per process. */
static bool dev_null_present;
static pthread_once_t dev_null_once = PTHREAD_ONCE_INIT;

static void look_for_dev_null(void)
{
    dev_null_present = access("/dev/null", R_OK) == 0;
}

/* Without /dev/null, stdin is a pipe whose write end is already closed:
 * bash reads end of file from it just the same. */
static int empty_stdin(int in[2])
{
    pthread_once(&dev_null_once, look_for_dev_null);
    if (dev_null_present)
        return 0;
    int rc = make_pipe(in);
    if (rc == 0)
        in[1] = bsh__close(in[1]);
    return rc;
}

int bsh__spawn_pipes(const struct bsh__launch *l, struct bsh__started *sp,
                     struct bsh__spawn_error *why)
{
    static const char prefix[] = "failed to spawn bash process";
    int out[2] = {-1, -1}, err[2] = {-1, -1}, in[2] = {-1, -1};
    int rc = make_pipe(out);
    if (rc == 0)
        rc = make_pipe(err);
    if (rc == 0)
        rc = l->stdin_pipe ? make_pipe(in) : empty_stdin(in);
    if (rc < 0) {
        fail(why, rc, BSH_ERR_SPAWN, prefix);
        goto cleanup;
    }
    struct bsh__child_plan io = {
        "/dev/null", O_RDONLY,
        in[0],       out[1],
        err[1],      l->cwd,
        NULL,        l->envp,
        l->place,    {l->state_fds[0], l->state_fds[1]}};
    bool in_cwd;
    rc = spawn_bash(&io, l->command, &sp->pid, &in_cwd);
    if (rc < 0) {
        explain_failure(rc, in_cwd, l->cwd, prefix, why);
        goto cleanup;
    }
    rc = set_nonblocking(out[0]);
    if (rc == 0)
        rc = set_nonblocking(err[0]);
    if (rc == 0 && in[1] >= 0)
        rc = set_nonblocking(in[1]);
    if (rc < 0) { /* cannot happen on a fresh pipe; keep the path honest */
        fail(why, rc, BSH_ERR_SPAWN, prefix);
        kill(-sp->pid, SIGKILL);
        goto cleanup;
    }
    sp->out_fd = out[0];
    sp->err_fd = err[0];
    sp->in_fd = in[1];
    sp->pty = false;
    out[0] = err[0] = in[1] = -1;
cleanup:
    bsh__close(in[0]);
    bsh__close(in[1]);
    bsh__close(out[0]);
    bsh__close(out[1]);
    bsh__close(err[0]);
    bsh__close(err[1]);
    return rc;
}

/* Opens a PTY master (close-on-exec, non-blocking) of the launch's size
 * and returns it, with the slave's path in `name`; or -errno. */
static int open_master(const struct bsh__launch *l, char *name, size_t len)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (m < 0)
        return -errno;
    m = bsh__above_stdio(m);
    if (m < 0)
        return m;
    struct winsize ws = {l->rows, l->cols, 0, 0};
    int rc = grantpt(m) < 0 || unlockpt(m) < 0 ? -errno : 0;
    if (rc == 0)
        rc = -ptsname_r(m, name, len);
    if (rc == 0 && ioctl(m, TIOCSWINSZ, &ws) < 0)
        rc = -errno;
    if (rc == 0)
        rc = set_nonblocking(m);
    if (rc < 0) {
        bsh__close(m);
        return rc;
    }
    return m;
}

int bsh__spawn_pty(const struct bsh__launch *l, struct bsh__started *sp,
                   struct bsh__spawn_error *why)
{
    char slave[128];
    int master = open_master(l, slave, sizeof(slave));
    /* Typed input goes through a second fd of the master: the stream
     * watches it for writability apart from the master's output. */
    int typed =
        master >= 0 && l->stdin_pipe ? fcntl(master, F_DUPFD_CLOEXEC, 3) : -1;
    if (master < 0 || (l->stdin_pipe && typed < 0)) {
        int err = master < 0 ? master : -errno;
        bsh__close(master);
        return fail(why, err, BSH_ERR_PTY,
                    err == -ENOENT ? "failed to open pty: no /dev/ptmx here"
                                   : "failed to open pty");
    }
    /* Opening the slave without O_NOCTTY after setsid makes it the
     * session's controlling terminal. */
    struct bsh__child_plan io = {
        slave,  O_RDWR, -1,      0,        0,
        l->cwd, NULL,   l->envp, l->place, {l->state_fds[0], l->state_fds[1]}};
    bsh__sandbox_allow_file(l->place->sandbox, slave); /* its terminal */
    bool in_cwd;
    int rc = spawn_bash(&io, l->command, &sp->pid, &in_cwd);
    if (rc < 0) {
        explain_failure(rc, in_cwd, l->cwd, "failed to spawn command in pty",
                        why);
        master = bsh__close(master);
        typed = bsh__close(typed);
    }
    sp->out_fd = master;
    sp->err_fd = -1;
    sp->in_fd = typed;
    sp->pty = true;
    return rc;
}
