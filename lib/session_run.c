/* SPDX-License-Identifier: MIT */
/*
 * One run in a session: where it starts, the two memfds that carry the
 * state (the script in, the saved state out: files of no path, which no
 * command can reach but through the fds bash holds; a stateless command
 * has the first alone), and what its end makes of the session. A memfd
 * never blocks its writer and is read from its start once bash has
 * exited, so a background process that kept the fd open cannot delay the
 * end of the run.
 */
#define _GNU_SOURCE
#include "session.h"
#include "stream.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* More than this is not read: four times the bound (every byte escaped)
 * and room for the names. */
#define CAPTURE_MAX (4 * BSH_SESSION_BOUND + ((size_t)4 << 20))

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int make_memfd(const char *name)
{
    int fd = memfd_create(name, MFD_CLOEXEC);
    return fd < 0 ? -errno : bsh__above_stdio(fd);
}

int bsh__session_run_prepare(struct bsh__session_run *r,
                             const struct bsh_run_opts *o,
                             struct bsh_stream *stream, const char **cwd)
{
    struct bsh_session *s = o->session;
    r->used = true;
    r->state = BSH_SESSION_PENDING;
    r->session = s;
    r->readonly = o->sandbox.readonly;
    s->attached = stream;
    const char *start = o->cwd != NULL && o->cwd[0] != '\0' ? o->cwd : NULL;
    if (start == NULL && is_dir(s->cwd))
        start = s->cwd;
    if (start == NULL) {
        start = s->base_dir;
        if ((r->missing = strdup(s->cwd)) == NULL)
            return -ENOMEM;
    }
    *cwd = start;
    r->start_dir = realpath(start, NULL); /* NULL: the spawn says why */
    r->stateless = bsh__session_stateless(o->command, s->state, s->env) &&
                   bsh__session_call_env_plain(s->state, o->env, o->env_count);
    /* A command may move the directory it runs in (`mv`): the session
     * follows it there, as bash's `pwd -P` at a save would. */
    if (r->stateless)
        r->start_fd = open(start, O_PATH | O_DIRECTORY | O_CLOEXEC);
    r->fds[0] = make_memfd("bsh-session-in");
    if (r->stateless || r->fds[0] < 0)
        return r->fds[0] < 0 ? r->fds[0] : 0;
    r->fds[1] = make_memfd("bsh-session-out");
    return r->fds[1] < 0 ? r->fds[1] : 0;
}

/* The state's launch base, built at its first run. The parts of both
 * kinds of script are built together: they need the same `in_env`. */
static struct bsh__launch_base *launch_base(const struct bsh_session *s)
{
    struct bsh__state *st = s->state;
    if (st->base != NULL)
        return st->base;
    struct bsh__launch_base *b = calloc(1, sizeof(*b));
    bool *in_env = b != NULL ? calloc(st->count + 1, sizeof(bool)) : NULL;
    if (in_env != NULL)
        b->envp = bsh__session_env(s, in_env, &b->envp_bytes);
    bool built = b != NULL && b->envp != NULL;
    for (int lean = 0; built && lean < 2; lean++)
        built =
            bsh__session_script_parts(st, in_env, lean, &b->parts[lean]) == 0;
    free(in_env);
    if (!built) {
        bsh__launch_base_free(b);
        return NULL;
    }
    st->base = b;
    return b;
}

int bsh__session_run_launch(struct bsh__session_run *r,
                            const struct bsh_run_opts *o, const char *tmpdir,
                            struct bsh__session_launch *out)
{
    size_t count = 0, len = 0;
    const struct bsh__launch_base *b = launch_base(r->session);
    out->envp =
        b != NULL ? bsh__session_env_copy(b->envp, b->envp_bytes) : NULL;
    struct bsh_env_var *vars =
        out->envp != NULL ? bsh__env_with_tmpdir(o, tmpdir, &count) : NULL;
    char *script = vars != NULL
                       ? bsh__session_script(&b->parts[r->stateless], vars,
                                             count, r->stateless, &len)
                       : NULL;
    free(vars);
    int rc = script != NULL ? bsh__write_all(r->fds[0], script, len) : -ENOMEM;
    free(script);
    if (rc == 0 && lseek(r->fds[0], 0, SEEK_SET) < 0)
        rc = -errno;
    size_t pl = strlen(bsh__session_prelude), cl = strlen(o->command);
    out->command = rc == 0 ? malloc(pl + cl + 1) : NULL;
    if (out->command == NULL) {
        free(out->envp);
        out->envp = NULL;
        return rc < 0 ? rc : -ENOMEM;
    }
    memcpy(out->command, bsh__session_prelude, pl);
    memcpy(out->command + pl, o->command, cl + 1);
    return 0;
}

/* Whether bash wrote the whole state: it ends "\0end\0". */
static bool saved_whole(int fd)
{
    struct stat st;
    char tail[5];
    return fstat(fd, &st) == 0 && st.st_size >= 5 &&
           pread(fd, tail, 5, st.st_size - 5) == 5 &&
           memcmp(tail, "\0end\0", 5) == 0;
}

void bsh__session_run_peek(struct bsh__session_run *r, pid_t pid)
{
    if (r->session == NULL || r->stateless || r->fds[1] < 0 ||
        saved_whole(r->fds[1]))
        return;
    char path[64], name[32];
    bsh__format(path, sizeof(path), "/proc/%d/comm", (int)pid);
    ssize_t n = bsh__read_file(AT_FDCWD, path, name, sizeof(name));
    if (n <= 0)
        return;
    if (name[n - 1] == '\n')
        name[n - 1] = '\0';
    bsh__format(r->comm, sizeof(r->comm), "%s", name);
}

/* The saved state, whole, or NULL (`*len` 0 when there was none). */
static char *read_saved(int fd, size_t *len)
{
    struct stat st;
    *len = 0;
    if (fstat(fd, &st) < 0 || st.st_size <= 0 ||
        (size_t)st.st_size > CAPTURE_MAX)
        return NULL;
    char *buf = bsh__pread_all(fd, (size_t)st.st_size);
    if (buf != NULL)
        *len = (size_t)st.st_size;
    return buf;
}

static void set_note(struct bsh__session_run *r, enum bsh_unsaved why)
{
    static const char *const text[] = {
        [BSH_UNSAVED_TIMEOUT] = "killed by SIGKILL at the timeout",
        [BSH_UNSAVED_CANCEL] = "killed by SIGKILL at a cancel",
        [BSH_UNSAVED_MEMORY] = "ended by the memory limit",
        [BSH_UNSAVED_OUTPUT] = "killed by SIGKILL at the output limit",
        [BSH_UNSAVED_EXEC] = "bash was replaced by exec",
        [BSH_UNSAVED_NOT_SAVED] = "bash ended without saving",
        [BSH_UNSAVED_NOT_READ] = "the state bash saved could not be read",
        [BSH_UNSAVED_NOT_STARTED] = "the run did not start",
        [BSH_UNSAVED_READONLY] = "a read-only run changes nothing",
    };
    r->state = BSH_SESSION_UNCHANGED;
    r->unsaved = why;
    if (why == BSH_UNSAVED_TOO_BIG)
        bsh__format(r->note, sizeof(r->note),
                    "the state is %zu bytes, over the 4 MiB bound", r->too_big);
    else
        bsh__format(r->note, sizeof(r->note), "%s", text[why]);
}

/* Why a run whose bash saved nothing ended. */
static enum bsh_unsaved why_not_saved(const struct bsh__session_run *r,
                                      int status, enum bsh_end_reason reason,
                                      enum bsh_limit limit)
{
    if (status == BSH__NOT_STARTED)
        return BSH_UNSAVED_NOT_STARTED;
    if (reason == BSH_END_TIMEOUT || reason == BSH_END_IDLE)
        return BSH_UNSAVED_TIMEOUT;
    if (reason == BSH_END_CANCEL)
        return BSH_UNSAVED_CANCEL;
    if (limit == BSH_LIMIT_MEMORY)
        return BSH_UNSAVED_MEMORY;
    if (limit == BSH_LIMIT_OUTPUT)
        return BSH_UNSAVED_OUTPUT;
    if (r->comm[0] != '\0' && strcmp(r->comm, "bash") != 0)
        return BSH_UNSAVED_EXEC;
    return BSH_UNSAVED_NOT_SAVED;
}

/* The call's variables that the command left as they were keep the
 * session's earlier value (or absence). */
static int keep_earlier(struct bsh__state *next, const struct bsh__state *old,
                        char *keep)
{
    for (char *name = strtok(keep, " "); name != NULL;
         name = strtok(NULL, " ")) {
        for (size_t i = 0; i < next->count; i++)
            if (next->recs[i].kind == REC_VAR &&
                strcmp(next->recs[i].name, name) == 0)
                next->recs[i].kind = 0; /* dropped when copied */
        const struct bsh__rec *was = bsh__state_find(old, REC_VAR, name);
        if (was != NULL &&
            bsh__state_add(next, REC_VAR, was->name, strlen(was->name),
                           was->text, was->len, was->raw) < 0)
            return -ENOMEM;
    }
    return 0;
}

/* The captured state, with dropped records left out, as the session's. */
static int adopt(struct bsh__session_run *r, struct bsh__capture *c)
{
    struct bsh_session *s = r->session;
    if (keep_earlier(c->state, s->state, c->keep) < 0)
        return -ENOMEM;
    struct bsh__state *next = calloc(1, sizeof(*next));
    for (size_t i = 0; next != NULL && i < c->state->count; i++) {
        const struct bsh__rec *x = &c->state->recs[i];
        if (x->kind != 0 &&
            bsh__state_add(next, x->kind, x->name, strlen(x->name), x->text,
                           x->len, x->raw) < 0) {
            bsh__state_free(next);
            next = NULL;
        }
    }
    if (next == NULL)
        return -ENOMEM;
    if (next->raw > BSH_SESSION_BOUND) {
        r->too_big = next->raw;
        bsh__state_free(next);
        return -EFBIG;
    }
    if (c->cwd != NULL && r->start_dir != NULL &&
        strcmp(c->cwd, r->start_dir) != 0) {
        free(s->cwd);
        s->cwd = c->cwd;
        c->cwd = NULL;
    }
    bsh__state_free(s->state);
    s->state = next;
    s->pristine = false;
    return 0;
}

/* Where the start directory is now, when a stateless run moved it (not
 * when it removed it: a name that ends " (deleted)" may be real). */
static void follow_start_dir(struct bsh__session_run *r)
{
    char link[64], *now = malloc(PATH_MAX);
    struct stat st;
    bsh__format(link, sizeof(link), "/proc/self/fd/%d", r->start_fd);
    ssize_t n = now != NULL && r->start_fd >= 0 &&
                        fstat(r->start_fd, &st) == 0 && st.st_nlink > 0
                    ? readlink(link, now, PATH_MAX - 1)
                    : -1;
    if (n > 0) {
        now[n] = '\0';
        if (now[0] == '/' && r->start_dir != NULL &&
            strcmp(now, r->start_dir) != 0) {
            free(r->session->cwd);
            r->session->cwd = now;
            now = NULL;
        }
    }
    free(now);
}

/* A stateless run left the state it started from: it counts as saved
 * where bash would have saved it, so its report reads like any run's,
 * and as a save makes the session's state its own (not its env's). */
static void end_stateless(struct bsh__session_run *r, int status,
                          enum bsh_end_reason reason, enum bsh_limit limit)
{
    /* bash stays the parent (its EXIT trap): a SIGKILL of bash is what
     * a full run could not have saved through. */
    bool saved =
        status >= 0 && !(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    if (saved) {
        r->state = BSH_SESSION_SAVED;
        r->note[0] = '\0';
        r->session->pristine = false;
        follow_start_dir(r);
    } else {
        set_note(r, why_not_saved(r, status, reason, limit));
    }
}

static void save(struct bsh__session_run *r, int status,
                 enum bsh_end_reason reason, enum bsh_limit limit)
{
    size_t len;
    bool started = status != BSH__NOT_STARTED;
    char *data = started ? read_saved(r->fds[1], &len) : NULL;
    struct bsh__capture c;
    int rc = data != NULL ? bsh__capture_read(data, len, &c) : -EAGAIN;
    struct stat sb;
    if (data == NULL && started && fstat(r->fds[1], &sb) == 0 &&
        (size_t)sb.st_size > CAPTURE_MAX) {  /* too big to read at all */
        r->too_big = (size_t)sb.st_size / 4; /* at least this many bytes */
        rc = -EFBIG;
    }
    free(data);
    if (rc == 0) {
        rc = adopt(r, &c);
        bsh__capture_release(&c);
    }
    if (rc == 0) {
        r->state = BSH_SESSION_SAVED;
        r->note[0] = '\0';
    } else {
        set_note(r, rc == -EFBIG    ? BSH_UNSAVED_TOO_BIG
                    : rc == -EAGAIN ? why_not_saved(r, status, reason, limit)
                                    : BSH_UNSAVED_NOT_READ);
    }
}

void bsh__session_run_end(struct bsh__session_run *r, int status,
                          enum bsh_end_reason reason, enum bsh_limit limit)
{
    if (!r->used || r->state != BSH_SESSION_PENDING)
        return;
    if (r->session == NULL) {
        r->state = BSH_SESSION_DETACHED;
        return;
    }
    if (r->readonly) /* not even its shell state: a later run must not
                        inherit what it set (PATH, a function) */
        set_note(r, BSH_UNSAVED_READONLY);
    else if (r->stateless)
        end_stateless(r, status, reason, limit);
    else
        save(r, status, reason, limit);
    free(r->end_cwd);
    r->end_cwd = strdup(r->session->cwd);
    r->session->attached = NULL;
    r->session = NULL;
    r->fds[0] = bsh__close(r->fds[0]);
    r->fds[1] = bsh__close(r->fds[1]);
    r->start_fd = bsh__close(r->start_fd);
}

void bsh__session_run_detach(struct bsh__session_run *r)
{
    if (r->session != NULL)
        r->session->attached = NULL;
    r->session = NULL;
    if (r->used && r->state == BSH_SESSION_PENDING)
        r->state = BSH_SESSION_DETACHED;
}

void bsh__session_run_release(struct bsh__session_run *r)
{
    bsh__session_run_detach(r);
    bsh__close(r->fds[0]);
    bsh__close(r->fds[1]);
    bsh__close(r->start_fd);
    r->fds[0] = r->fds[1] = r->start_fd = -1;
    free(r->start_dir);
    free(r->missing);
    free(r->end_cwd);
    r->start_dir = r->missing = r->end_cwd = NULL;
}

/* ---- the public view of a stream's session ------------------------------ */

enum bsh_session_state bsh_stream_session_state(const struct bsh_stream *s)
{
    return s != NULL ? s->sess.state : BSH_SESSION_NONE;
}

enum bsh_unsaved bsh_stream_session_unsaved(const struct bsh_stream *s)
{
    return s != NULL && s->sess.state == BSH_SESSION_UNCHANGED
               ? s->sess.unsaved
               : BSH_UNSAVED_NONE;
}

const char *bsh_stream_session_note(const struct bsh_stream *s)
{
    return s != NULL && s->sess.state == BSH_SESSION_UNCHANGED ? s->sess.note
                                                               : "";
}

const char *bsh_stream_session_missing_dir(const struct bsh_stream *s)
{
    return s != NULL ? s->sess.missing : NULL;
}

const char *bsh_stream_session_cwd(const struct bsh_stream *s)
{
    return s != NULL ? s->sess.end_cwd : NULL;
}

int bsh_stream_detach_session(struct bsh_stream *s)
{
    if (s == NULL)
        return BSH_EINVAL;
    bsh__session_run_detach(&s->sess);
    return BSH_OK;
}
