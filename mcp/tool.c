/* SPDX-License-Identifier: MIT */
/*
 * The tools over the server's runs. Arguments that are not what the
 * schema says, and a call that cannot be carried out (an unknown run, too
 * many runs, a guard's rejection), are tool errors; an unknown tool is a
 * -32602 error.
 */
#define _GNU_SOURCE
#include "tool.h"
#include "era.h"
#include "mono.h"
#include "reply.h"
#include "task.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Progress while output flows at most this often, and while the command
 * is silent at least this often (SPEC: at least every 10 s). */
#define PROGRESS_BUSY_MS   100.0
#define PROGRESS_SILENT_MS 5000.0

/* How often a quiet PTY run's terminal is looked at for an input wait. */
#define LOOK_MS 50.0

/* The wait of bash_write and bash_kill when the call does not say. */
#define SHORT_WAIT_MS 1000

/* Arguments a known tool cannot take: a tool error that says which, so
 * that the model sees it and can correct the call (SEP-1303). */
static void bad_params(json_t *id, const char *tool, const char *what)
{
    char why[200];
    snprintf(why, sizeof(why), "%s: %s", tool, what);
    rpc_result(id, reply_tool_error(why));
}

/* Reads the optional integer `key` (at least `min`) into `*v`; false
 * after answering a -32602 error. */
static bool integer_argument(json_t *id, const char *tool, json_t *args,
                             const char *key, json_int_t min, int64_t *v)
{
    json_t *t = json_object_get(args, key);
    if (t == NULL || json_is_null(t))
        return true;
    if (!json_is_integer(t) || json_integer_value(t) < min) {
        char what[96];
        snprintf(what, sizeof(what), "%s must be an integer >= %lld", key,
                 (long long)min);
        bad_params(id, tool, what);
        return false;
    }
    *v = json_integer_value(t);
    return true;
}

/* Reads the string `key` (required or not); false after answering. */
static bool string_argument(json_t *id, const char *tool, json_t *args,
                            const char *key, bool required, json_t **v)
{
    json_t *t = json_object_get(args, key);
    *v = NULL;
    if ((t == NULL || json_is_null(t)) && !required)
        return true;
    if (!json_is_string(t)) {
        char what[96];
        snprintf(what, sizeof(what), "needs arguments.%s, a string", key);
        bad_params(id, tool, what);
        return false;
    }
    *v = t;
    return true;
}

static bool boolean_argument(json_t *id, const char *tool, json_t *args,
                             const char *key, bool *v)
{
    json_t *t = json_object_get(args, key);
    if (t == NULL || json_is_null(t))
        return true;
    if (!json_is_boolean(t)) {
        char what[96];
        snprintf(what, sizeof(what), "%s must be true or false", key);
        bad_params(id, tool, what);
        return false;
    }
    *v = json_is_true(t);
    return true;
}

static void tool_error(json_t *id, const char *message)
{
    rpc_result(id, reply_tool_error(message));
}

/* ---- calls ----------------------------------------------------------------
 */

static struct call *add_call(struct registry *g, json_t *id, json_t *params,
                             struct mcp_run *r, int64_t wait_ms)
{
    struct call *c = calloc(1, sizeof(*c));
    if (c == NULL) {
        tool_error(id, "out of memory");
        return NULL;
    }
    c->id = json_incref(id);
    json_t *token =
        json_object_get(json_object_get(params, "_meta"), "progressToken");
    if (json_is_string(token) || json_is_integer(token))
        c->progress_token = json_incref(token);
    c->run = r;
    c->modern = era_requested_version(params) != NULL;
    c->since_ms = c->last_progress_ms = mono_ms();
    c->return_at_ms = c->since_ms + (double)wait_ms;
    c->bytes_at_progress = r->bytes;
    c->next = g->calls;
    g->calls = c;
    r->waited_on = true;
    return c;
}

static void free_call(struct call *c)
{
    json_decref(c->id);
    json_decref(c->progress_token);
    free(c);
}

void tool_drop_run(struct registry *g, struct mcp_run *r)
{
    for (struct mcp_run **pp = &g->runs; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == r) {
            *pp = r->next;
            g->nruns--;
            run_free(r);
            return;
        }
    }
}

/* Answers `c` from its run as it stands; a run whose end is answered is
 * done with. */
static void answer(struct registry *g, struct call *c, enum run_phase phase)
{
    struct mcp_run *r = c->run;
    bool was = rpc_answer_modern(c->modern);
    r->waited_on = false;
    if (c->task_on_yield && phase != RUN_EXITED) {
        task_start(g, c->id, r, NULL, true);
        rpc_answer_modern(was);
        return;
    }
    rpc_result(c->id, reply_for_run(r, phase));
    rpc_answer_modern(was);
    if (phase == RUN_EXITED)
        tool_drop_run(g, r);
}

static struct mcp_run *find_run(struct registry *g, json_t *id, json_t *rid)
{
    for (struct mcp_run *r = g->runs; r != NULL; r = r->next)
        if (strcmp(r->id, json_string_value(rid)) == 0)
            return r;
    char why[200];
    snprintf(why, sizeof(why),
             "no run '%.60s': unknown, or it ended and its end was already "
             "read (bash_list shows the runs held)",
             json_string_value(rid));
    tool_error(id, why);
    return NULL;
}

/* A second call on a run that one already waits on: the first is
 * answered now with what is there. False when that answer was the run's
 * end, so the run is gone. */
static bool answer_waiting(struct registry *g, struct mcp_run *r)
{
    for (struct call **pp = &g->calls; *pp != NULL; pp = &(*pp)->next) {
        struct call *c = *pp;
        if (c->run == r) {
            *pp = c->next;
            bool ended = r->ended;
            answer(g, c, run_phase(r, 0));
            free_call(c);
            return !ended;
        }
    }
    return true;
}

/* The call waits on `r` for up to `wait_ms`. */
static void wait_on(struct registry *g, json_t *id, json_t *params,
                    struct mcp_run *r, int64_t wait_ms)
{
    if (r->waited_on && !answer_waiting(g, r)) {
        tool_error(id, "the run ended and its end went to an earlier call");
        return;
    }
    add_call(g, id, params, r, wait_ms);
}

/* ---- the tools ------------------------------------------------------------
 */

static void bash_run(struct registry *g, json_t *id, json_t *params,
                     json_t *args)
{
    const struct mcp_config *cfg = g->cfg;
    json_t *cmd, *input;
    struct run_request rq = {
        NULL, cfg->run.timeout_ms, cfg->run.idle_timeout_ms, NULL, 0, false};
    int64_t yield_ms = cfg->yield_ms;
    if (!string_argument(id, "bash_run", args, "command", true, &cmd) ||
        !integer_argument(id, "bash_run", args, "timeout_ms", 0,
                          &rq.timeout_ms) ||
        !integer_argument(id, "bash_run", args, "idle_timeout_ms", 1,
                          &rq.idle_ms) ||
        !integer_argument(id, "bash_run", args, "yield_ms", 0, &yield_ms) ||
        !string_argument(id, "bash_run", args, "input", false, &input) ||
        !boolean_argument(id, "bash_run", args, "stdin", &rq.keep_stdin))
        return;
    if (strlen(json_string_value(cmd)) != json_string_length(cmd)) {
        tool_error(id, "bash_run: a command cannot contain a NUL character");
        return;
    }
    rq.command = json_string_value(cmd);
    if (input != NULL) {
        rq.input = json_string_value(input);
        rq.input_len = json_string_length(input);
    }
    if (cfg->dry_run) {
        struct bsh_error err;
        tool_error(id,
                   bsh_check(rq.command, strlen(rq.command), &err) == BSH_EGUARD
                       ? err.text_err
                       : "dry run: nothing was run");
        return;
    }
    if (g->nruns >= cfg->max_runs) {
        char why[200];
        snprintf(why, sizeof(why),
                 "too many runs held (at most %d at once); end one with "
                 "bash_kill, or read the ended ones with bash_output",
                 cfg->max_runs);
        tool_error(id, why);
        return;
    }
    char why[BSH_ERROR_MAX];
    struct mcp_run *r =
        run_start(cfg, g->spill, &rq, ++g->next_number, why, sizeof(why));
    if (r == NULL) {
        tool_error(id, why);
        return;
    }
    r->next = g->runs;
    g->runs = r;
    g->nruns++;
    json_t *task = json_object_get(params, "task");
    if (json_is_object(task)) { /* legacy: the client asked for a task */
        task_start(g, id, r, json_object_get(task, "ttl"), false);
        return;
    }
    struct call *c = add_call(g, id, params, r, yield_ms);
    if (c != NULL) {
        c->starts_run = true;
        c->task_on_yield =
            c->modern && era_client_has_extension(params, TASKS_EXTENSION);
    }
}

static void bash_output(struct registry *g, json_t *id, json_t *params,
                        json_t *args)
{
    json_t *rid;
    int64_t wait_ms = 0;
    if (!string_argument(id, "bash_output", args, "run_id", true, &rid) ||
        !integer_argument(id, "bash_output", args, "wait_ms", 0, &wait_ms))
        return;
    struct mcp_run *r = find_run(g, id, rid);
    struct task *t = r != NULL ? task_of_run(g, r) : NULL;
    if (t != NULL) {
        char why[200];
        snprintf(why, sizeof(why),
                 "run %s belongs to task %s: its output comes with the "
                 "task's result",
                 r->id, t->id);
        tool_error(id, why);
    } else if (r != NULL) {
        wait_on(g, id, params, r, wait_ms);
    }
}

/* bash_write or bash_kill on a task's run: done, and said so at once;
 * the output stays with the task. */
static bool answered_for_task(struct registry *g, json_t *id, struct mcp_run *r,
                              const char *done)
{
    struct task *t = task_of_run(g, r);
    if (t == NULL)
        return false;
    char text[200];
    snprintf(text, sizeof(text), "%s run %s; its output comes with task %s",
             done, r->id, t->id);
    rpc_result(id, json_pack("{s:[{s:s, s:s}], s:b}", "content", "type", "text",
                             "text", text, "isError", 0));
    return true;
}

static void bash_write(struct registry *g, json_t *id, json_t *params,
                       json_t *args)
{
    json_t *rid, *input;
    bool close = false;
    int64_t wait_ms = SHORT_WAIT_MS;
    if (!string_argument(id, "bash_write", args, "run_id", true, &rid) ||
        !string_argument(id, "bash_write", args, "input", true, &input) ||
        !boolean_argument(id, "bash_write", args, "close_stdin", &close) ||
        !integer_argument(id, "bash_write", args, "wait_ms", 0, &wait_ms))
        return;
    struct mcp_run *r = find_run(g, id, rid);
    if (r == NULL)
        return;
    char why[300];
    run_pump(r); /* an end that came is seen before the write */
    if (run_write(r, json_string_value(input), json_string_length(input), close,
                  why, sizeof(why)) < 0) {
        tool_error(id, why);
        return;
    }
    if (!answered_for_task(g, id, r, "wrote to"))
        wait_on(g, id, params, r, wait_ms);
}

/* "INT", "SIGINT", "int" or a number; 0 when not a signal. */
static int signal_number(json_t *v)
{
    static const struct {
        const char *name;
        int number;
    } names[] = {
        {"HUP", SIGHUP},   {"INT", SIGINT},   {"QUIT", SIGQUIT},
        {"KILL", SIGKILL}, {"TERM", SIGTERM}, {"USR1", SIGUSR1},
        {"USR2", SIGUSR2}, {"ALRM", SIGALRM}, {"STOP", SIGSTOP},
        {"CONT", SIGCONT}, {"TSTP", SIGTSTP}, {"WINCH", SIGWINCH},
        {"PIPE", SIGPIPE}, {"ABRT", SIGABRT},
    };
    if (v == NULL || json_is_null(v))
        return SIGKILL;
    if (json_is_integer(v))
        return json_integer_value(v) > 0 && json_integer_value(v) < NSIG
                   ? (int)json_integer_value(v)
                   : 0;
    if (!json_is_string(v))
        return 0;
    const char *s = json_string_value(v);
    if (strncasecmp(s, "SIG", 3) == 0)
        s += 3;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcasecmp(s, names[i].name) == 0)
            return names[i].number;
    return 0;
}

static void bash_kill(struct registry *g, json_t *id, json_t *params,
                      json_t *args)
{
    json_t *rid;
    if (!string_argument(id, "bash_kill", args, "run_id", true, &rid))
        return;
    int sig = signal_number(json_object_get(args, "signal"));
    if (sig == 0) {
        bad_params(id, "bash_kill",
                   "signal must be a signal name (INT, TERM, KILL...) or a "
                   "number from 1");
        return;
    }
    struct mcp_run *r = find_run(g, id, rid);
    if (r == NULL)
        return;
    if (!r->ended)
        bsh_stream_signal(r->stream, sig);
    if (!answered_for_task(g, id, r, "signalled"))
        wait_on(g, id, params, r, SHORT_WAIT_MS);
}

/* The TCP ports a run's processes listen on (a dev server's, say). */
static json_t *listening_ports(const struct mcp_run *r)
{
    json_t *ports = json_array();
    struct bsh_run_state st;
    if (!r->ended && bsh_stream_state(r->stream, &st, true) == BSH_OK)
        for (size_t i = 0; i < st.port_count; i++)
            json_array_append_new(ports, json_integer(st.ports[i]));
    return ports;
}

/* One run as bash_list shows it: an object, and a line of the text. */
static json_t *list_entry(struct mcp_run *r, double now, FILE *text)
{
    run_pump(r);
    enum run_phase p = run_phase(r, LOOK_MS);
    json_int_t elapsed =
        (json_int_t)((r->ended ? r->ended_ms : now) - r->started_ms);
    json_t *o =
        json_pack("{s:s, s:s, s:s, s:I, s:I}", "run_id", r->id, "command",
                  r->command, "state", run_phase_name(p), "elapsed_ms", elapsed,
                  "output_bytes", (json_int_t)r->bytes);
    if (p == RUN_AWAITING_INPUT)
        json_object_set_new(o, "input_kind",
                            json_string(bsh_input_wait_name(r->input_wait)));
    json_object_set_new(o, "ports", listening_ports(r));
    fprintf(text, "%s\t%s\t%lld ms\t%llu bytes\t%.200s\n", r->id,
            run_phase_name(p), (long long)elapsed, (unsigned long long)r->bytes,
            r->command);
    return o;
}

static void bash_list(struct registry *g, json_t *id)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL) {
        tool_error(id, "out of memory");
        return;
    }
    json_t *runs = json_array();
    double now = mono_ms();
    for (struct mcp_run *r = g->runs; r != NULL; r = r->next)
        json_array_append_new(runs, list_entry(r, now, f));
    if (g->runs == NULL)
        fputs("no runs held\n", f);
    fclose(f);
    rpc_result(id, json_pack("{s:[{s:s, s:s%}], s:b, s:{s:o}}", "content",
                             "type", "text", "text", text != NULL ? text : "",
                             text != NULL ? len : 0, "isError", 0,
                             "structuredContent", "runs", runs));
    free(text);
}

void tool_call(struct registry *g, json_t *id, json_t *params, bool modern)
{
    json_t *name = json_object_get(params, "name");
    json_t *args = json_object_get(params, "arguments");
    if (!json_is_string(name)) {
        rpc_error(id, RPC_INVALID_PARAMS, "tools/call needs a string 'name'");
        return;
    }
    const char *n = json_string_value(name);
    bool whole = strlen(n) == json_string_length(name);
    if (modern) /* no task parameter in the modern era */
        json_object_del(params, "task");
    if (json_object_get(params, "task") != NULL &&
        !(whole && strcmp(n, "bash_run") == 0)) {
        rpc_error(id, RPC_METHOD_NOT_FOUND,
                  "Only bash_run can run as a task (execution.taskSupport)");
        return;
    }
    if (whole && strcmp(n, "bash_run") == 0) {
        bash_run(g, id, params, args);
    } else if (whole && strcmp(n, "bash_output") == 0) {
        bash_output(g, id, params, args);
    } else if (whole && strcmp(n, "bash_write") == 0) {
        bash_write(g, id, params, args);
    } else if (whole && strcmp(n, "bash_kill") == 0) {
        bash_kill(g, id, params, args);
    } else if (whole && strcmp(n, "bash_list") == 0) {
        bash_list(g, id);
    } else {
        char why[200];
        snprintf(why, sizeof(why), "Unknown tool: %.100s", n);
        rpc_error(id, RPC_INVALID_PARAMS, why);
    }
}

void tool_cancel(struct registry *g, json_t *request_id)
{
    for (struct call **pp = &g->calls; *pp != NULL;) {
        struct call *c = *pp;
        if (request_id == NULL || !json_equal(c->id, request_id)) {
            pp = &c->next;
            continue;
        }
        *pp = c->next;
        c->run->waited_on = false;
        if (c->starts_run) { /* the call's command dies with it */
            bsh_stream_cancel(c->run->stream);
            c->run->discard = true;
        }
        free_call(c);
    }
}

/* ---- moving forward -------------------------------------------------------
 */

static void send_progress(struct call *c, double now)
{
    json_int_t elapsed = (json_int_t)(now - c->since_ms);
    if (elapsed <= c->last_progress)
        elapsed = c->last_progress + 1; /* strictly increasing */
    c->last_progress = elapsed;
    c->last_progress_ms = now;
    c->bytes_at_progress = c->run->bytes;
    char msg[96];
    snprintf(msg, sizeof(msg), "%.1f s, %llu bytes of output",
             (double)elapsed / 1000.0, (unsigned long long)c->run->bytes);
    rpc_notify("notifications/progress",
               json_pack("{s:O, s:I, s:s}", "progressToken", c->progress_token,
                         "progress", elapsed, "message", msg));
}

/* Progress for a call that waits; the ms until it is next due. */
static double progress(struct call *c, double now)
{
    if (c->progress_token == NULL)
        return -1;
    bool busy = c->run->bytes != c->bytes_at_progress;
    double due =
        c->last_progress_ms + (busy ? PROGRESS_BUSY_MS : PROGRESS_SILENT_MS);
    if (now >= due) {
        send_progress(c, now);
        due = now + PROGRESS_SILENT_MS;
    }
    return due - now;
}

static void soonest(double *next, double ms)
{
    if (ms >= 0 && (*next < 0 || ms < *next))
        *next = ms;
}

/* Answers a call whose moment has come; else the ms until it may. */
static double advance_call(struct registry *g, struct call *c, bool *done)
{
    double now = mono_ms();
    enum run_phase p = run_phase(c->run, LOOK_MS);
    *done = p != RUN_RUNNING || now >= c->return_at_ms;
    if (*done) {
        answer(g, c, p);
        return -1;
    }
    double next = c->return_at_ms - now;
    soonest(&next, progress(c, now));
    if (c->run->pty && !c->run->ended) /* an input wait shows in time */
        soonest(&next, LOOK_MS);
    return next;
}

/* Runs nobody will read: cancelled, or ended long ago. */
static void drop_forgotten(struct registry *g, double now)
{
    for (struct mcp_run **pp = &g->runs; *pp != NULL;) {
        struct mcp_run *r = *pp;
        bool forgotten = r->ended && !r->waited_on &&
                         (r->discard || now - r->ended_ms > RUN_KEEP_ENDED_MS);
        if (forgotten) {
            *pp = r->next;
            g->nruns--;
            run_free(r);
        } else {
            pp = &r->next;
        }
    }
}

int tool_advance(struct registry *g)
{
    for (struct mcp_run *r = g->runs; r != NULL; r = r->next)
        run_pump(r);
    double next = -1;
    for (struct call **pp = &g->calls; *pp != NULL;) {
        struct call *c = *pp;
        bool done;
        double ms = advance_call(g, c, &done);
        if (done) {
            *pp = c->next;
            free_call(c);
        } else {
            soonest(&next, ms);
            pp = &c->next;
        }
    }
    soonest(&next, task_advance(g));
    double now = mono_ms();
    drop_forgotten(g, now);
    for (struct mcp_run *r = g->runs; r != NULL; r = r->next)
        if (r->ended && !r->waited_on) /* look again when it is forgotten */
            soonest(&next, r->ended_ms + RUN_KEEP_ENDED_MS - now + 1);
    return next < 0 ? -1 : next > 1e9 ? 1000000000 : (int)next + 1;
}

void tool_end_all(struct registry *g)
{
    task_end_all(g);
    while (g->calls != NULL) {
        struct call *c = g->calls;
        g->calls = c->next;
        free_call(c);
    }
    while (g->runs != NULL) {
        struct mcp_run *r = g->runs;
        g->runs = r->next;
        run_free(r);
    }
    g->nruns = 0;
}
