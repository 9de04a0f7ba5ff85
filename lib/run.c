/* SPDX-License-Identifier: MIT */
/*
 * Starting a run: the guards, the environment check, the deadline and the
 * spawn. Errors after the guards become errors of the stream, reported by
 * its first bsh_stream_next(), as the reference's stream reports them.
 */
#define _GNU_SOURCE
#include "graveyard.h"
#include "sandbox.h"
#include "session.h"
#include "stream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The documented cap is the clock's own (two names, one value). */
// NOLINTNEXTLINE(misc-redundant-expression)
_Static_assert(BSH_TIMEOUT_MAX_MS == MONO_MAX_MS, "one cap");

/* A NULL value is caller misuse, not a bad name: the call fails. */
static bool env_values_present(const struct bsh_run_opts *o)
{
    for (size_t i = 0; o->env != NULL && i < o->env_count; i++)
        if (o->env[i].value == NULL)
            return false;
    return true;
}

static bool limits_valid(const struct bsh_limits *l)
{
    return l->memory_bytes >= BSH_NO_LIMIT && l->pids >= BSH_NO_LIMIT &&
           l->cpu_seconds >= 0 && l->fsize_bytes >= 0 && l->output_bytes >= 0;
}

static const char *invalid_env_name(const struct bsh_run_opts *o)
{
    for (size_t i = 0; o->env != NULL && i < o->env_count; i++)
        if (!bsh_env_name_valid(o->env[i].name))
            return o->env[i].name != NULL ? o->env[i].name : "(null)";
    return NULL;
}

/* Half the machine's memory (BSH_SANDBOX_MEMORY_PERCENT), or 0. */
static int64_t sandbox_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0
               ? (int64_t)pages * page / 100 * BSH_SANDBOX_MEMORY_PERCENT
               : 0;
}

void bsh_sandbox_default_limits(struct bsh_limits *out)
{
    *out = (struct bsh_limits){.pids = BSH_SANDBOX_PIDS,
                               .memory_bytes = sandbox_memory()};
}

/* The run's limits: the caller's, with a sandbox's defaults where it set
 * none (noted in `defaults`: they apply where they can be had). */
static struct bsh_limits run_limits(const struct bsh_run_opts *o,
                                    struct bsh_limits *defaults)
{
    struct bsh_limits l = o->limits, sandboxed;
    *defaults = (struct bsh_limits){0};
    bsh_sandbox_default_limits(&sandboxed);
    if (o->sandbox.mode != BSH_SANDBOX_OFF && l.pids == 0)
        l.pids = defaults->pids = sandboxed.pids;
    if (o->sandbox.mode != BSH_SANDBOX_OFF && l.memory_bytes == 0)
        l.memory_bytes = defaults->memory_bytes = sandboxed.memory_bytes;
    if (l.pids < 0)
        l.pids = 0;
    if (l.memory_bytes < 0)
        l.memory_bytes = 0;
    return l;
}

/* Makes the run's cgroups as the options ask, with its limits (settled
 * into `limits`), and says where the child goes; false after failing the
 * stream. */
static bool contain(struct bsh_stream *s, const struct bsh_run_opts *o,
                    struct bsh_limits *limits, struct bsh__placement *place)
{
    char why[BSH_ERROR_MAX - 16];
    struct bsh_limits defaults;
    *limits = run_limits(o, &defaults);
    struct bsh__contain_ask ask = {
        o->containment, o->cgroup_parent,
        o->report,      o->sandbox.mode != BSH_SANDBOX_OFF,
        limits,         &defaults};
    if (bsh__contain_make(&s->contain, &ask, place, why, sizeof(why)) < 0) {
        bsh__stream_fail(s, BSH_ERR_CONTAIN, "%s", why);
        return false;
    }
    bsh__stream_set_limits(s, limits);
    return true;
}

/* The child's environment with TMPDIR set to the sandbox's private
 * directory, in place of `*envp`; false when out of memory. */
static bool use_private_tmpdir(const struct bsh_run_opts *o,
                               const struct bsh__sandbox *box, char ***envp)
{
    size_t count;
    struct bsh_env_var *vars = bsh__env_with_tmpdir(o, box->tmpdir, &count);
    if (vars == NULL)
        return false;
    char **with = bsh__env_build(vars, count);
    free(vars);
    if (with == NULL)
        return false;
    free(*envp);
    *envp = with;
    return true;
}

/* A session run: its command line and environment in place of the
 * plain ones in `l`, its state fds; false after failing the stream. */
static bool launch_in_session(struct bsh_stream *s,
                              const struct bsh_run_opts *o, const char *tmpdir,
                              struct bsh__launch *l,
                              struct bsh__session_launch *sl)
{
    int rc = bsh__session_run_launch(&s->sess, o, tmpdir, sl);
    if (rc < 0) {
        bsh__stream_fail(s, BSH_ERR_RESOURCES,
                         "failed to start the session's shell: %s",
                         strerror(-rc));
        return false;
    }
    l->command = sl->command;
    l->envp = sl->envp;
    l->state_fds[0] = s->sess.fds[0];
    l->state_fds[1] = s->sess.fds[1];
    return true;
}

static void spawn_child(struct bsh_stream *s, const struct bsh_run_opts *o)
{
    const char *prefix = o->pty ? "failed to spawn command in pty"
                                : "failed to spawn bash process";
    size_t len = strlen(o->command) +
                 (o->session != NULL ? strlen(bsh__session_prelude) : 0);
    if (len >= BSH_ARG_MAX) {
        bsh__stream_fail(s, BSH_ERR_SPAWN,
                         "%s: command is %zu bytes; the kernel takes at most "
                         "%d bytes in one argument",
                         prefix, len, BSH_ARG_MAX - 1);
        return;
    }
    char **envp = NULL;
    if (o->env != NULL && o->env_count > 0) {
        envp = bsh__env_build(o->env, o->env_count);
        if (envp == NULL) {
            bsh__stream_fail(s, BSH_ERR_RESOURCES, "%s: out of memory", prefix);
            return;
        }
    }
    const char *cwd = o->cwd != NULL && o->cwd[0] != '\0' ? o->cwd : NULL;
    if (o->session != NULL) {
        int rc = bsh__session_run_prepare(&s->sess, o, s, &cwd);
        if (rc < 0) {
            free(envp);
            bsh__stream_fail(s, BSH_ERR_RESOURCES,
                             "failed to prepare the session's run: %s",
                             strerror(-rc));
            return;
        }
    }
    struct bsh__started sp = {-1, -1, -1, -1, o->pty};
    struct bsh__spawn_error why;
    struct bsh__placement place = {
        -1, o->limits.cpu_seconds, o->limits.fsize_bytes, NULL, {-1, -1}};
    struct bsh_limits limits;
    if (!contain(s, o, &limits, &place)) {
        free(envp);
        return;
    }
    struct bsh__sandbox box;
    const char *tmpdir = NULL; /* the sandbox's private TMPDIR */
    if (o->sandbox.mode != BSH_SANDBOX_OFF) {
        char sandbox_why[BSH_ERROR_MAX - 32];
        if (bsh__sandbox_prepare(&box, &o->sandbox, cwd, envp, sandbox_why,
                                 sizeof(sandbox_why)) < 0) {
            bsh__sandbox_release(&box);
            free(envp);
            bsh__stream_fail(s, BSH_ERR_SANDBOX, "%s", sandbox_why);
            return;
        }
        place.sandbox = &box;
        tmpdir = box.tmpdir;
        if (o->session == NULL && !use_private_tmpdir(o, &box, &envp)) {
            bsh__sandbox_release(&box);
            bsh__stream_fail(s, BSH_ERR_RESOURCES, "%s: out of memory", prefix);
            return;
        }
    }
    struct bsh__launch launch = {
        o->command,
        cwd,
        envp,
        o->stdin_pipe,
        (unsigned short)(o->pty_rows > 0 ? o->pty_rows : BSH_PTY_ROWS),
        (unsigned short)(o->pty_cols > 0 ? o->pty_cols : BSH_PTY_COLS),
        &place,
        {-1, -1}};
    struct bsh__session_launch sl = {NULL, NULL};
    if (o->session != NULL && !launch_in_session(s, o, tmpdir, &launch, &sl)) {
        if (place.sandbox != NULL)
            bsh__sandbox_release(&box);
        free(envp);
        return;
    }
    why.err = 0;
    int rc = o->pty ? bsh__spawn_pty(&launch, &sp, &why)
                    : bsh__spawn_pipes(&launch, &sp, &why);
    free(envp);
    free(sl.envp);
    free(sl.command);
    if (place.sandbox != NULL) {
        bsh__sandbox_settle(&box);
        bsh__stream_note_sandbox(s, &box.report);
        if (rc == 0 && bsh__sandbox_take_listener(&box))
            bsh__stream_supervise(s, &box.sup);
        if (rc == 0) {
            bsh__stream_own_tmpdir(s, box.tmpdir);
            box.tmpdir = NULL;
        }
        bsh__sandbox_release(&box);
        if (rc < 0 && box.strict && box.failed != 0) {
            bsh__stream_fail(s, BSH_ERR_SANDBOX,
                             "sandbox: %s could not be applied: %s",
                             bsh_sandbox_layer_name(box.failed & -box.failed),
                             strerror(box.error));
            return;
        }
    }
    if (rc < 0 && why.err == ENOMEM && limits.memory_bytes > 0) {
        /* The run's cgroup refused bash its first pages. */
        bsh__stream_fail(s, BSH_ERR_CONTAIN,
                         "%s: the memory limit (memory=%lld bytes) is too "
                         "small for bash to start",
                         prefix, (long long)limits.memory_bytes);
        return;
    }
    if (rc < 0) {
        bsh__stream_fail(s, why.kind, "%s", why.text);
        return;
    }
    bsh__stream_start(s, &sp);
}

static void start(struct bsh_stream *s, const struct bsh_run_opts *o,
                  struct timespec started)
{
    const char *bad = invalid_env_name(o);
    if (bad != NULL) {
        bsh__stream_fail(s, BSH_ERR_ENV_NAME, "invalid env variable name: %s",
                         bad);
        return;
    }
    if (o->timeout_ms == 0 && o->pty) {
        bsh__stream_time_out_now(s); /* nothing is opened or spawned */
        return;
    }
    struct bsh__stream_config cfg = {
        started,     o->timeout_ms, o->idle_timeout_ms,
        o->grace_ms, o->report,     o->stdin_pipe};
    bsh__stream_configure(s, &cfg);
    spawn_child(s, o);
    /* The reference spawns, then kills at once: one timeout item. */
    if (o->timeout_ms == 0 && bsh_stream_pid(s) > 0)
        bsh__stream_time_out_now(s);
}

static int run(const struct bsh_run_opts *o, struct bsh_stream **out,
               struct bsh_error *err, bool quiet)
{
    struct timespec started = mono_now();
    bsh__graveyard_sweep();
    if (out != NULL)
        *out = NULL;
    if (o == NULL || o->command == NULL || out == NULL ||
        (o->env == NULL && o->env_count > 0) || o->timeout_ms < -1 ||
        o->idle_timeout_ms < 0 || o->grace_ms < 0 || !env_values_present(o) ||
        !limits_valid(&o->limits) || o->pty_rows < 0 || o->pty_cols < 0 ||
        o->pty_rows > 0xffff || o->pty_cols > 0xffff ||
        (unsigned)o->containment > BSH_CONTAIN_SESSION ||
        (unsigned)o->sandbox.mode > BSH_SANDBOX_BEST_EFFORT ||
        (o->sandbox.write_dirs == NULL && o->sandbox.write_count > 0) ||
        (o->sandbox.sockets == NULL && o->sandbox.socket_count > 0))
        return BSH_EINVAL;
    int rc = bsh_check(o->command, strlen(o->command), err);
    if (rc != BSH_OK)
        return rc;
    bool readonly = false;
    if (o->policy != NULL &&
        (rc = bsh__policy_gate(o, err, &readonly)) != BSH_OK)
        return rc;
    struct bsh_run_opts instead; /* approved to run read-only */
    if (readonly) {
        instead = *o;
        instead.sandbox =
            (struct bsh_sandbox){.mode = BSH_SANDBOX_STRICT, .readonly = true};
        o = &instead;
    }
    if (bsh_session_busy(o->session)) {
        if (err != NULL)
            bsh__format(err->text_err, sizeof(err->text_err),
                        "the session is busy: run %d is attached to it",
                        bsh_stream_pid(o->session->attached));
        return BSH_EBUSY;
    }
    struct bsh_stream *s = bsh__stream_new(quiet);
    if (s == NULL)
        return BSH_ENOMEM;
    if (bsh_stream_error_kind(s) ==
        BSH_ERR_NONE) /* else it could not be made */
        start(s, o, started);
    *out = s;
    return BSH_OK;
}

int bsh_run(const struct bsh_run_opts *opts, struct bsh_stream **out,
            struct bsh_error *err)
{
    return run(opts, out, err, false);
}

int bsh__run_quiet(const struct bsh_run_opts *opts, struct bsh_stream **out,
                   struct bsh_error *err)
{
    return run(opts, out, err, true);
}
