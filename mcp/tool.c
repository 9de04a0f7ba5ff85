/* SPDX-License-Identifier: MIT */
/*
 * The tools over the server's runs. Arguments that are not what the
 * catalog says, and a call that cannot be carried out (an unknown run, too
 * many runs, a guard's rejection), are tool errors; an unknown tool is a
 * -32602 error.
 */
#define _GNU_SOURCE
#include "tool.h"
#include "catalog.h"
#include "era.h"
#include "mono.h"
#include "page.h"
#include "policy_call.h"
#include "reply.h"
#include "task.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The wait of bash_write and bash_kill when the call does not say. */
#define SHORT_WAIT_MS 1000

/* What one tools/call is about: its request, its checked arguments, and
 * what the server holds. */
struct tool_ctx {
    struct registry *g;
    struct calls *calls;
    json_t *id, *params;
    bool modern;
    struct tool_args args;
};

static void tool_error(json_t *id, const char *message)
{
    rpc_result(id, reply_tool_error(message));
}

/* A tool error of a tool whose result is not a run's: the text alone. */
static void plain_error(json_t *id, const char *message)
{
    rpc_result(id, json_pack("{s:[{s:s, s:s}], s:b}", "content", "type", "text",
                             "text", message, "isError", 1));
}

/* An argument a known tool cannot take: a tool error that says which,
 * so that the model sees it and can correct the call (SEP-1303). */
static void bad_argument(const struct tool_ctx *t, const char *what)
{
    char why[260];
    snprintf(why, sizeof(why), "%s: %s",
             json_string_value(json_object_get(t->params, "name")), what);
    if (t->args.tool == TOOL_BASH_SESSION || t->args.tool == TOOL_BASH_LIST)
        plain_error(t->id, why);
    else
        tool_error(t->id, why);
}

static int64_t integer_arg(const struct tool_ctx *t, const char *name,
                           int64_t otherwise)
{
    json_t *v = tool_arg(&t->args, name);
    return v != NULL ? json_integer_value(v) : otherwise;
}

static bool boolean_arg(const struct tool_ctx *t, const char *name)
{
    return json_is_true(tool_arg(&t->args, name));
}

/* The run that the call's run_id names; NULL after answering. */
static struct mcp_run *named_run(const struct tool_ctx *t)
{
    const char *rid = json_string_value(tool_arg(&t->args, "run_id"));
    struct mcp_run *r = registry_find_run(t->g, rid);
    char why[300];
    if (r == NULL && registry_foreign_id(t->g, "run", rid, why, sizeof(why))) {
        tool_error(t->id, why);
    } else if (r == NULL) {
        snprintf(why, sizeof(why),
                 "no run '%.60s': unknown, or it ended and its end was "
                 "already read (bash_list shows the runs held)",
                 rid);
        tool_error(t->id, why);
    }
    return r;
}

static void wait_on(const struct tool_ctx *t, struct mcp_run *r,
                    int64_t wait_ms)
{
    call_wait_on(t->g, t->calls, t->id, t->params, r, wait_ms);
}

/* A string argument without NUL; NULL (after answering) when it has
 * one, or is empty or longer than `max` bytes. */
static const char *plain_string(const struct tool_ctx *t, const char *name,
                                size_t max)
{
    json_t *v = tool_arg(&t->args, name);
    size_t len = json_string_length(v);
    if (len > 0 && len <= max && strlen(json_string_value(v)) == len)
        return json_string_value(v);
    char why[160];
    snprintf(why, sizeof(why),
             "%s must be a string of 1 to %zu bytes without a NUL character",
             name, max);
    bad_argument(t, why);
    return NULL;
}

/* The call's `env` object as variables (malloc'd, `*count`); NULL after
 * answering a bad one. */
static struct bsh_env_var *call_env(const struct tool_ctx *t, size_t *count)
{
    json_t *env = tool_arg(&t->args, "env");
    *count = 0;
    struct bsh_env_var *vars = calloc(json_object_size(env) + 1, sizeof(*vars));
    if (vars == NULL) {
        tool_error(t->id, "out of memory");
        return NULL;
    }
    for (void *it = json_object_iter(env); it != NULL;
         it = json_object_iter_next(env, it)) {
        const char *name = json_object_iter_key(it);
        json_t *value = json_object_iter_value(it);
        char why[200];
        if (!bsh_env_name_valid(name))
            snprintf(why, sizeof(why),
                     "env: '%.100s' is not a valid "
                     "variable name",
                     name);
        else if (!json_is_string(value) ||
                 strlen(json_string_value(value)) != json_string_length(value))
            snprintf(why, sizeof(why),
                     "env: the value of %.100s must be a "
                     "string without a NUL character",
                     name);
        else {
            vars[(*count)++] =
                (struct bsh_env_var){name, json_string_value(value)};
            continue;
        }
        bad_argument(t, why);
        free(vars);
        return NULL;
    }
    return vars;
}

/* The session a bash_run call names (or "default"); NULL with
 * `*answered` when the call was answered, or with sessions off. */
static struct mcp_session *call_session(const struct tool_ctx *t,
                                        bool *answered)
{
    *answered = false;
    if (t->g->cfg->no_sessions)
        return NULL;
    const char *name = "default";
    if (tool_arg(&t->args, "session") != NULL &&
        (name = plain_string(t, "session", MCP_SESSION_NAME_MAX)) == NULL) {
        *answered = true;
        return NULL;
    }
    char why[300];
    struct mcp_session *s =
        sessions_get(&t->g->sessions, t->g->cfg, name, true, why, sizeof(why));
    if (s == NULL) {
        tool_error(t->id, why);
        *answered = true;
    }
    return s;
}

/* ---- the tools ------------------------------------------------------------
 */

static void bash_run(const struct tool_ctx *t)
{
    const struct mcp_config *cfg = t->g->cfg;
    /* a call held for its task, approved: nothing if the task was
     * cancelled meanwhile */
    if (json_is_object(t->id) && !task_pending_approved(t->g, t->id))
        return;
    json_t *cmd = tool_arg(&t->args, "command");
    json_t *input = tool_arg(&t->args, "input");
    if (strlen(json_string_value(cmd)) != json_string_length(cmd)) {
        tool_error(t->id, "bash_run: a command cannot contain a NUL character");
        return;
    }
    const char *cwd = NULL;
    if (tool_arg(&t->args, "cwd") != NULL &&
        (cwd = plain_string(t, "cwd", 4096)) == NULL)
        return;
    bool answered;
    struct mcp_session *session = call_session(t, &answered);
    if (answered)
        return;
    int64_t timeout_ms = integer_arg(t, "timeout_ms", cfg->run.timeout_ms);
    if (session != NULL && !cfg->dry_run &&
        (bsh_session_busy(session->state) ||
         (!t->g->sessions.resuming &&
          sessions_must_wait(&t->g->sessions, session)))) {
        if (!sessions_wait(&t->g->sessions, session, t->id, t->params,
                           t->modern, timeout_ms))
            tool_error(t->id, "out of memory");
        return;
    }
    size_t env_count;
    struct bsh_env_var *env = call_env(t, &env_count);
    if (env == NULL)
        return;
    struct run_request rq = {
        .command = json_string_value(cmd),
        .timeout_ms = integer_arg(t, "timeout_ms", cfg->run.timeout_ms),
        .idle_ms = integer_arg(t, "idle_timeout_ms", cfg->run.idle_timeout_ms),
        .input = input != NULL ? json_string_value(input) : NULL,
        .input_len = input != NULL ? json_string_length(input) : 0,
        .keep_stdin = boolean_arg(t, "stdin"),
        .session = session,
        .cwd = cwd,
        .env = env,
        .env_count = env_count,
        .max_output = (size_t)integer_arg(t, "max_output", 0),
        .rows = (int)integer_arg(t, "rows", 0),
        .cols = (int)integer_arg(t, "cols", 0),
    };
    if ((rq.rows > 0 || rq.cols > 0) && !cfg->run.pty) {
        tool_error(t->id, "bash_run: rows and cols size a PTY run's terminal; "
                          "this server runs commands on pipes (bsh mcp -p "
                          "runs them in a PTY)");
        free(env);
        return;
    }
    struct gate_call gc = {
        .id = t->id,
        .params = t->params,
        .modern = t->modern,
        .command = rq.command,
        .session = session != NULL ? session->state : NULL,
        .session_name = session != NULL ? session->name : NULL,
        .timeout_ms =
            tool_arg(&t->args, "timeout_ms") != NULL ? rq.timeout_ms : -1,
        .cwd = cwd,
        .env = env,
        .env_count = env_count,
    };
    enum policy_gate gate = cfg->dry_run ? GATE_RUN : policy_gate(t->g, &gc);
    if (gate == GATE_ANSWERED || gate == GATE_WAITING) {
        free(env);
        return;
    }
    rq.readonly_note = gc.readonly_note;
    rq.readonly_policy = gc.readonly_policy;
    if (gate == GATE_READONLY && rq.readonly_note == NULL) {
        json_decref(gc.readonly_policy);
        tool_error(t->id, "out of memory");
        free(env);
        return;
    }
    if (cfg->dry_run) {
        struct bsh_error err;
        tool_error(t->id,
                   bsh_check(rq.command, strlen(rq.command), &err) == BSH_EGUARD
                       ? err.text_err
                       : "dry run: nothing was run");
        free(env);
        return;
    }
    char why[BSH_ERROR_MAX];
    struct mcp_run *r = registry_start_run(t->g, &rq, why, sizeof(why));
    free(env);
    free(gc.readonly_note);
    json_decref(gc.readonly_policy);
    if (r == NULL) {
        tool_error(t->id, why);
        return;
    }
    json_t *task = json_object_get(t->params, "task");
    if (json_is_object(t->id)) { /* held for its task: approved (task.h) */
        if (!task_pending_attach(t->g, t->id, r))
            registry_drop_run(t->g, r);
        return;
    }
    if (json_is_object(task)) { /* legacy: the client asked for a task */
        task_start(t->g, t->id, r, json_object_get(task, "ttl"), false);
        return;
    }
    struct call *c = call_wait_on(t->g, t->calls, t->id, t->params, r,
                                  integer_arg(t, "yield_ms", cfg->yield_ms));
    if (c != NULL) {
        c->starts_run = true;
        c->task_on_yield =
            c->modern && era_client_has_extension(t->params, TASKS_EXTENSION);
    }
}

/* bash_output with `offset`: a slice of the run's log, also once the
 * run was dropped (its log is kept). */
static void page_output(const struct tool_ctx *t)
{
    const char *rid = json_string_value(tool_arg(&t->args, "run_id"));
    int64_t offset = integer_arg(t, "offset", 0);
    int64_t length = integer_arg(t, "length", -1);
    size_t max = (size_t)integer_arg(t, "max_output", 0);
    struct mcp_run *r = registry_find_run(t->g, rid);
    const struct kept_log *k = r == NULL ? registry_find_log(t->g, rid) : NULL;
    if (k != NULL) {
        rpc_result(t->id,
                   reply_for_kept_page(k, offset, length,
                                       max > 0 ? max : t->g->cfg->budget));
        return;
    }
    if ((r = named_run(t)) == NULL)
        return;
    run_pump(r);
    rpc_result(t->id, reply_for_page(r, run_phase(r, 0), offset, length, max));
}

/* bash_output with `screen`: the run's terminal as it stands. */
static void screen_output(const struct tool_ctx *t)
{
    struct mcp_run *r = named_run(t);
    if (r == NULL)
        return;
    if (r->screen == NULL) {
        char why[200];
        snprintf(why, sizeof(why),
                 "bash_output: run %s has no screen: it runs on pipes (a PTY "
                 "server, bsh mcp -p, gives its runs a terminal)",
                 r->id);
        tool_error(t->id, why);
        return;
    }
    run_pump(r);
    rpc_result(t->id,
               reply_for_screen(r, run_phase(r, RUN_LOOK_MS),
                                (size_t)integer_arg(t, "max_output", 0)));
}

static void bash_output(const struct tool_ctx *t)
{
    if (tool_arg(&t->args, "offset") != NULL) {
        page_output(t);
        return;
    }
    if (boolean_arg(t, "screen")) {
        screen_output(t);
        return;
    }
    struct mcp_run *r = named_run(t);
    struct task *task = r != NULL ? task_of_run(t->g, r) : NULL;
    if (task != NULL) {
        char why[500];
        snprintf(why, sizeof(why),
                 "run %s belongs to task %s: its output comes with the "
                 "task's result",
                 r->id, task->id);
        tool_error(t->id, why);
    } else if (r != NULL) {
        wait_on(t, r, integer_arg(t, "wait_ms", 0));
    }
}

/* bash_write or bash_kill on a task's run: done, and said so at once;
 * the output stays with the task. */
static bool answered_for_task(const struct tool_ctx *t, struct mcp_run *r,
                              const char *done)
{
    struct task *task = task_of_run(t->g, r);
    if (task == NULL)
        return false;
    char text[500];
    snprintf(text, sizeof(text), "%s run %s; its output comes with task %s",
             done, r->id, task->id);
    rpc_result(t->id, reply_text(text));
    return true;
}

static void bash_write(const struct tool_ctx *t)
{
    struct mcp_run *r = named_run(t);
    if (r == NULL)
        return;
    json_t *input = tool_arg(&t->args, "input");
    char why[300];
    run_pump(r); /* an end that came is seen before the write */
    if (run_write(r, json_string_value(input), json_string_length(input),
                  boolean_arg(t, "close_stdin"), why, sizeof(why)) < 0) {
        tool_error(t->id, why);
        return;
    }
    if (!answered_for_task(t, r, "wrote to"))
        wait_on(t, r, integer_arg(t, "wait_ms", SHORT_WAIT_MS));
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
    enum run_phase p = run_phase(r, RUN_LOOK_MS);
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

static void bash_kill(const struct tool_ctx *t)
{
    int sig = signal_number(tool_arg(&t->args, "signal"));
    if (sig == 0) {
        bad_argument(t, "signal must be a signal name (INT, TERM, KILL...) "
                        "or a number from 1");
        return;
    }
    struct mcp_run *r = named_run(t);
    if (r == NULL)
        return;
    if (!r->ended && bsh_stream_signal(r->stream, sig) == BSH_OK)
        r->killed_with = sig;
    if (!answered_for_task(t, r, "signalled"))
        wait_on(t, r, SHORT_WAIT_MS);
}

/* A session as bash_session and bash_list show it. */
static json_t *session_json(struct registry *g, const struct mcp_session *s,
                            bool names)
{
    const struct mcp_run *r = registry_attached_run(g, s);
    json_t *o = json_pack("{s:s, s:s, s:s, s:o, s:I}", "session", s->name,
                          "cwd", bsh_session_cwd(s->state), "base_dir",
                          bsh_session_base_dir(s->state), "attached_run",
                          r != NULL ? json_string(r->id) : json_null(), "bytes",
                          (json_int_t)bsh_session_bytes(s->state));
    static const struct {
        enum bsh_session_kind kind;
        const char *key;
    } kinds[] = {{BSH_SESSION_VARIABLES, "variables"},
                 {BSH_SESSION_FUNCTIONS, "functions"},
                 {BSH_SESSION_ALIASES, "aliases"}};
    for (size_t k = 0; names && k < 3; k++) {
        json_t *list = json_array();
        for (size_t i = 0; i < bsh_session_count(s->state, kinds[k].kind); i++)
            json_array_append_new(list, json_string(bsh_session_name(
                                            s->state, kinds[k].kind, i)));
        json_object_set_new(o, kinds[k].key, list);
    }
    return o;
}

/* The text of a session: its directory and what it holds. */
static void session_text(const json_t *o, FILE *f)
{
    fprintf(f, "session %s: %s\n",
            json_string_value(json_object_get(o, "session")),
            json_string_value(json_object_get(o, "cwd")));
    static const char *const keys[] = {"variables", "functions", "aliases"};
    for (size_t k = 0; k < 3; k++) {
        json_t *list = json_object_get(o, keys[k]);
        fprintf(f, "%s (%zu):", keys[k], json_array_size(list));
        for (size_t i = 0; i < json_array_size(list); i++)
            fprintf(f, " %s", json_string_value(json_array_get(list, i)));
        fputc('\n', f);
    }
}

static void bash_session(const struct tool_ctx *t)
{
    const char *action = json_string_value(tool_arg(&t->args, "action"));
    if (strcmp(action, "show") != 0 && strcmp(action, "reset") != 0) {
        bad_argument(t, "action must be \"show\" or \"reset\"");
        return;
    }
    if (t->g->cfg->no_sessions) {
        plain_error(t->id, "bash_session: the server runs without sessions "
                           "(--no-sessions): every call is a fresh shell");
        return;
    }
    const char *name = "default";
    if (tool_arg(&t->args, "session") != NULL &&
        (name = plain_string(t, "session", MCP_SESSION_NAME_MAX)) == NULL)
        return;
    char why[600];
    bool reset = strcmp(action, "reset") == 0;
    struct mcp_session *s =
        sessions_get(&t->g->sessions, t->g->cfg, name,
                     strcmp(name, "default") == 0, why, sizeof(why));
    if (s == NULL) {
        plain_error(t->id, why);
        return;
    }
    const struct mcp_run *r = registry_attached_run(t->g, s);
    if (reset && r != NULL) {
        snprintf(why, sizeof(why),
                 "bash_session: the session '%s' is busy: run %s is attached "
                 "to it; reset it once that run has ended",
                 s->name, r->id);
        plain_error(t->id, why);
        return;
    }
    if (reset && bsh_session_reset(s->state) != BSH_OK) {
        plain_error(t->id, "bash_session: the session could not be reset");
        return;
    }
    json_t *o = session_json(t->g, s, true);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f != NULL) {
        if (reset)
            fprintf(f, "session %s reset\n", s->name);
        session_text(o, f);
        fclose(f);
    }
    rpc_result(t->id,
               json_pack("{s:[{s:s, s:s%}], s:b, s:o}", "content", "type",
                         "text", "text", text ? text : "", text ? len : 0,
                         "isError", 0, "structuredContent", o));
    free(text);
}

static void bash_list(const struct tool_ctx *t)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL) {
        tool_error(t->id, "out of memory");
        return;
    }
    json_t *runs = json_array();
    double now = mono_ms();
    for (struct mcp_run *r = t->g->runs; r != NULL; r = r->next)
        json_array_append_new(runs, list_entry(r, now, f));
    if (t->g->runs == NULL)
        fputs("no runs held\n", f);
    json_t *sessions = json_array();
    for (struct mcp_session *s = t->g->sessions.first; s != NULL; s = s->next) {
        json_t *o = session_json(t->g, s, false);
        json_t *att = json_object_get(o, "attached_run");
        fprintf(f, "session %s\t%s%s%s\n", s->name, bsh_session_cwd(s->state),
                json_is_string(att) ? "\tattached: " : "",
                json_is_string(att) ? json_string_value(att) : "");
        json_array_append_new(sessions, o);
    }
    fclose(f);
    rpc_result(t->id,
               json_pack("{s:[{s:s, s:s%}], s:b, s:{s:o, s:o}}", "content",
                         "type", "text", "text", text != NULL ? text : "",
                         text != NULL ? len : 0, "isError", 0,
                         "structuredContent", "runs", runs, "sessions",
                         sessions));
    free(text);
}

/* bash_policy: what the policy decides, nothing run. */
static void bash_policy(const struct tool_ctx *t)
{
    json_t *cmd = tool_arg(&t->args, "command");
    if (strlen(json_string_value(cmd)) != json_string_length(cmd)) {
        plain_error(t->id,
                    "bash_policy: a command cannot contain a NUL character");
        return;
    }
    const struct mcp_session *session = NULL;
    if (!t->g->cfg->no_sessions) {
        const char *name = "default";
        if (tool_arg(&t->args, "session") != NULL &&
            (name = plain_string(t, "session", MCP_SESSION_NAME_MAX)) == NULL)
            return;
        char why[300];
        session = sessions_get(&t->g->sessions, t->g->cfg, name, false, why,
                               sizeof(why));
    }
    policy_tool(t->g, t->id, json_string_value(cmd),
                session != NULL ? session->state : NULL);
}

static void (*const handlers[TOOL_COUNT])(const struct tool_ctx *) = {
    [TOOL_BASH_RUN] = bash_run,       [TOOL_BASH_OUTPUT] = bash_output,
    [TOOL_BASH_WRITE] = bash_write,   [TOOL_BASH_KILL] = bash_kill,
    [TOOL_BASH_LIST] = bash_list,     [TOOL_BASH_SESSION] = bash_session,
    [TOOL_BASH_POLICY] = bash_policy,
};

void tool_call(struct registry *g, struct calls *calls, json_t *id,
               json_t *params, bool modern)
{
    json_t *name = json_object_get(params, "name");
    if (!json_is_string(name)) {
        rpc_error(id, RPC_INVALID_PARAMS, "tools/call needs a string 'name'");
        return;
    }
    int tool = catalog_find(name, g->cfg->policy != NULL);
    if (modern) /* no task parameter in the modern era */
        json_object_del(params, "task");
    if (json_object_get(params, "task") != NULL && tool != TOOL_BASH_RUN) {
        rpc_error(id, RPC_METHOD_NOT_FOUND,
                  "Only bash_run can run as a task (execution.taskSupport)");
        return;
    }
    if (tool < 0) {
        char why[200];
        snprintf(why, sizeof(why), "Unknown tool: %.100s",
                 json_string_value(name));
        rpc_error(id, RPC_INVALID_PARAMS, why);
        return;
    }
    struct tool_ctx t = {g, calls, id, params, modern, {0}};
    char why[500];
    if (!catalog_read_args((enum tool_id)tool,
                           json_object_get(params, "arguments"), &t.args, why,
                           sizeof(why))) {
        bad_argument(&t, why);
        return;
    }
    handlers[tool](&t);
}

/* A call that waited past its bound for its session. */
static void give_up(struct registry *g, struct mcp_waiting *w)
{
    const struct mcp_run *r = registry_attached_run(g, w->session);
    char why[700];
    snprintf(why, sizeof(why),
             "bash_run: the session '%s' is busy: run %s is still attached "
             "to it, and this call could not start within its timeout_ms "
             "(%.0f ms); try again, pass another \"session\", or end run %s "
             "with bash_kill",
             w->session->name, r != NULL ? r->id : "(gone)",
             mono_ms() - w->since_ms, r != NULL ? r->id : "(gone)");
    bool was = rpc_answer_modern(w->modern);
    tool_error(w->id, why);
    rpc_answer_modern(was);
}

/* How often a call that waits for its session hears that it waits (a
 * client with a request timeout resets it on progress). */
#define WAITING_PROGRESS_MS 5000.0

/* Progress for the calls that wait and asked for it; the ms until the
 * next is due, or -1. */
static double waiting_progress(struct registry *g)
{
    double now = mono_ms(), next = -1;
    for (struct mcp_waiting *w = g->sessions.waiting; w != NULL; w = w->next) {
        json_t *token = json_object_get(json_object_get(w->params, "_meta"),
                                        "progressToken");
        if (!json_is_string(token) && !json_is_integer(token))
            continue;
        double due = w->last_progress_ms + WAITING_PROGRESS_MS;
        if (now >= due) {
            const struct mcp_run *r = registry_attached_run(g, w->session);
            json_int_t elapsed = (json_int_t)(now - w->since_ms);
            if (elapsed <= w->last_progress)
                elapsed = w->last_progress + 1;
            w->last_progress = elapsed;
            w->last_progress_ms = now;
            char msg[500];
            snprintf(msg, sizeof(msg),
                     "waiting for session '%s': run %s is still attached",
                     w->session->name, r != NULL ? r->id : "(ending)");
            bool was = rpc_answer_modern(w->modern);
            rpc_notify("notifications/progress",
                       json_pack("{s:O, s:I, s:s}", "progressToken", token,
                                 "progress", elapsed, "message", msg));
            rpc_answer_modern(was);
            due = now + WAITING_PROGRESS_MS;
        }
        if (next < 0 || due - now < next)
            next = due - now;
    }
    return next;
}

double tool_resume_waiting(struct registry *g, struct calls *calls)
{
    struct mcp_waiting *w;
    double next = waiting_progress(g);
    while ((w = sessions_next_expired(&g->sessions, &next)) != NULL) {
        give_up(g, w);
        sessions_waiting_free(w);
    }
    while ((w = sessions_next_ready(&g->sessions)) != NULL) {
        bool was = rpc_answer_modern(w->modern);
        g->sessions.resuming = true;
        tool_call(g, calls, w->id, w->params, w->modern);
        g->sessions.resuming = false;
        rpc_answer_modern(was);
        sessions_waiting_free(w);
        registry_pump(g);
    }
    return next;
}
