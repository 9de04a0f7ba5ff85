/* SPDX-License-Identifier: MIT */
#include "held_run.h"
#include "agent_env.h"
#include "mono.h"
#include "orphans.h"
#include "sessions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* After typing, a silent terminal may only be waiting for the command to
 * read what was typed: input wait counts again after this long. */
#define TYPED_SETTLE_MS BSH_INPUT_WAIT_MIN_MS

static struct bsh_stream *start_stream(const struct mcp_config *cfg,
                                       const struct run_request *rq, char *why,
                                       size_t why_size)
{
    struct bsh_run_opts o = cfg->run;
    o.command = rq->command;
    o.timeout_ms = rq->timeout_ms;
    o.idle_timeout_ms = rq->idle_ms;
    o.report = true;
    if (rq->rows > 0)
        o.pty_rows = rq->rows;
    if (rq->cols > 0)
        o.pty_cols = rq->cols;
    o.stdin_pipe = cfg->run.pty || rq->input != NULL || rq->keep_stdin;
    if (rq->session != NULL) { /* the server's -C made its base directory */
        o.session = rq->session->state;
        o.cwd = NULL;
    }
    if (rq->cwd != NULL)
        o.cwd = rq->cwd;
    if (rq->readonly_note != NULL) { /* instead of asking: read-only */
        o.sandbox =
            (struct bsh_sandbox){.mode = BSH_SANDBOX_STRICT, .readonly = true};
    }
    /* The server's variables, then the call's (later ones win). */
    size_t base = o.env != NULL ? o.env_count : 0;
    struct bsh_env_var *vars = calloc(base + rq->env_count + 1, sizeof(*vars));
    if (vars == NULL) {
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    if (base > 0)
        memcpy(vars, o.env, base * sizeof(*vars));
    if (rq->env_count > 0)
        memcpy(vars + base, rq->env, rq->env_count * sizeof(*vars));
    o.env = vars;
    o.env_count = base + rq->env_count;
    struct bsh_env_var *env = cfg->agent_env ? agent_env_apply(&o) : NULL;
    if (cfg->agent_env && env == NULL) {
        free(vars);
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    struct bsh_stream *s = NULL;
    struct bsh_error err;
    int rc = bsh_run(&o, &s, &err);
    free(env);
    free(vars);
    if (rc != BSH_OK)
        snprintf(why, why_size, "%s",
                 rc == BSH_EGUARD ? err.text_err
                                  : "bsh could not start the run");
    return s;
}

struct mcp_run *run_start(const struct mcp_config *cfg, struct spill_dir *dir,
                          const struct run_request *rq, unsigned number,
                          char *why, size_t why_size)
{
    struct mcp_run *r = calloc(1, sizeof(*r));
    /* The capture keeps what the largest reply asked so far can show. */
    size_t budget = rq->max_output > cfg->budget ? rq->max_output : cfg->budget;
    if (r == NULL || capture_init(&r->cap, budget, dir) < 0 ||
        (!cfg->raw_output && capture_reduce(&r->cap) < 0) ||
        (r->command = strdup(rq->command)) == NULL) {
        snprintf(why, why_size, "out of memory");
        run_free(r);
        return NULL;
    }
    r->budget = cfg->budget;
    if (cfg->run.pty && (r->screen = screen_new(
                             rq->rows > 0 ? rq->rows : BSH_PTY_ROWS,
                             rq->cols > 0 ? rq->cols : BSH_PTY_COLS)) == NULL) {
        snprintf(why, why_size, "out of memory");
        run_free(r);
        return NULL;
    }
    r->boot_started_ms = orphans_run_starts();
    r->stream = start_stream(cfg, rq, why, why_size);
    if (r->stream == NULL) {
        run_free(r);
        return NULL;
    }
    snprintf(r->id, sizeof(r->id), "r%u%s%s", number,
             cfg->instance != NULL ? "@" : "",
             cfg->instance != NULL ? cfg->instance : "");
    r->session = rq->session;
    r->pty = cfg->run.pty;
    r->subreaper = cfg->subreaper;
    r->has_stdin = cfg->run.pty || rq->input != NULL || rq->keep_stdin;
    r->timeout_ms = rq->timeout_ms;
    r->idle_ms = rq->idle_ms;
    r->started_ms = mono_ms();
    if (rq->readonly_note != NULL) {
        r->policy_note = strdup(rq->readonly_note);
        r->policy = json_incref(rq->readonly_policy);
    }
    if (rq->input != NULL)
        run_write(r, rq->input, rq->input_len, true, why, why_size);
    return r;
}

/* Hands the stream what it had no room for before. */
static void push_input(struct mcp_run *r)
{
    if (r->unsent_len > 0) {
        int64_t n = bsh_stream_write(r->stream, r->unsent + r->unsent_off,
                                     r->unsent_len);
        if (n < 0) { /* closed: what is left cannot be delivered */
            r->unsent_len = 0;
            r->close_after_unsent = false;
        } else {
            r->unsent_off += (size_t)n;
            r->unsent_len -= (size_t)n;
        }
    }
    if (r->unsent_len == 0) {
        free(r->unsent);
        r->unsent = NULL;
        r->unsent_off = 0;
        if (r->close_after_unsent)
            bsh_stream_close_stdin(r->stream);
        r->close_after_unsent = false;
    }
}

static void note_end(struct mcp_run *r, int rc, const struct bsh_item *it)
{
    r->ended = true;
    r->ended_ms = mono_ms();
    if (rc == 1) {
        r->status = *it;
    } else {
        const char *e = bsh_stream_error(r->stream);
        r->error = strdup(e != NULL ? e : "the run ended without a status");
    }
}

void run_pump(struct mcp_run *r)
{
    if (r->ended)
        return;
    if (r->unsent != NULL)
        push_input(r);
    struct bsh_item it;
    int rc;
    while ((rc = bsh_stream_try_next(r->stream, &it)) == 1 &&
           it.kind != BSH_ITEM_STATUS) {
        capture_add(&r->cap, it.kind == BSH_ITEM_STDERR, it.data, it.len);
        if (r->screen != NULL)
            screen_feed(r->screen, it.data, it.len);
        r->bytes += it.len;
        r->unread += it.len;
    }
    if (rc == BSH_EAGAIN)
        return;
    note_end(r, rc, &it);
    /* The call after the status lets the stream go of what the run left
     * (a sandboxed run's private TMPDIR), though the end is read later. */
    if (rc == 1)
        bsh_stream_try_next(r->stream, &it);
}

enum run_phase run_phase(struct mcp_run *r, double look_ms)
{
    if (r->ended)
        return RUN_EXITED;
    double now = mono_ms();
    if (r->pty && now - r->last_look_ms >= look_ms) {
        r->last_look_ms = now;
        struct bsh_run_state st;
        bsh_stream_state(r->stream, &st, false);
        r->input_wait = now - r->last_write_ms >= TYPED_SETTLE_MS
                            ? st.input_wait
                            : BSH_INPUT_NONE;
    }
    return r->input_wait != BSH_INPUT_NONE ? RUN_AWAITING_INPUT : RUN_RUNNING;
}

int run_write(struct mcp_run *r, const char *data, size_t len, bool close,
              char *why, size_t why_size)
{
    if (!r->has_stdin || r->ended) {
        snprintf(why, why_size,
                 r->ended ? "run %s has ended; its stdin is closed"
                          : "run %s has no stdin: in pipe mode, start it "
                            "with \"stdin\": true (or \"input\")",
                 r->id);
        return -1;
    }
    if (r->unsent_len > 0 && r->unsent_len + len > RUN_UNSENT_MAX) {
        snprintf(why, why_size,
                 "run %s does not read its stdin: %zu bytes of earlier input "
                 "still wait (at most %u may); this input (%zu bytes) was "
                 "not written",
                 r->id, r->unsent_len, RUN_UNSENT_MAX, len);
        return -1;
    }
    r->last_write_ms = mono_ms();
    r->input_wait = BSH_INPUT_NONE;
    size_t taken = 0;
    if (r->unsent == NULL) {
        int64_t n = len > 0 ? bsh_stream_write(r->stream, data, len) : 0;
        if (n < 0) {
            snprintf(why, why_size, "the stdin of run %s is closed", r->id);
            return -1;
        }
        taken = (size_t)n;
    }
    if (taken < len) { /* kept until the stream has room */
        if (r->unsent != NULL && r->unsent_off > 0) { /* what was sent goes */
            memmove(r->unsent, r->unsent + r->unsent_off, r->unsent_len);
            r->unsent_off = 0;
        }
        size_t have = r->unsent_len;
        unsigned char *grown = realloc(r->unsent, have + len - taken);
        if (grown == NULL) {
            snprintf(why, why_size, "out of memory");
            return -1;
        }
        memcpy(grown + have, data + taken, len - taken);
        r->unsent = grown;
        r->unsent_len += len - taken;
    }
    if (close && r->unsent == NULL)
        bsh_stream_close_stdin(r->stream);
    else if (close)
        r->close_after_unsent = true;
    return 0;
}

const char *run_phase_name(enum run_phase p)
{
    return p == RUN_RUNNING          ? "running"
           : p == RUN_AWAITING_INPUT ? "awaiting_input"
                                     : "exited";
}

void run_free(struct mcp_run *r)
{
    if (r == NULL)
        return;
    bsh_stream_free(r->stream);
    capture_release(&r->cap);
    screen_free(r->screen);
    free(r->command);
    free(r->policy_note);
    json_decref(r->policy);
    free(r->error);
    free(r->unsent);
    free(r);
}
