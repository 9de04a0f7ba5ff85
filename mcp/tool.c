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
    struct tool_args args;
};

static void tool_error(json_t *id, const char *message)
{
    rpc_result(id, reply_tool_error(message));
}

/* An argument a known tool cannot take: a tool error that says which,
 * so that the model sees it and can correct the call (SEP-1303). */
static void bad_argument(const struct tool_ctx *t, const char *what)
{
    char why[260];
    snprintf(why, sizeof(why), "%s: %s",
             json_string_value(json_object_get(t->params, "name")), what);
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
    if (r == NULL) {
        char why[200];
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

/* ---- the tools ------------------------------------------------------------
 */

static void bash_run(const struct tool_ctx *t)
{
    const struct mcp_config *cfg = t->g->cfg;
    json_t *cmd = tool_arg(&t->args, "command");
    json_t *input = tool_arg(&t->args, "input");
    if (strlen(json_string_value(cmd)) != json_string_length(cmd)) {
        tool_error(t->id, "bash_run: a command cannot contain a NUL character");
        return;
    }
    struct run_request rq = {
        .command = json_string_value(cmd),
        .timeout_ms = integer_arg(t, "timeout_ms", cfg->run.timeout_ms),
        .idle_ms = integer_arg(t, "idle_timeout_ms", cfg->run.idle_timeout_ms),
        .input = input != NULL ? json_string_value(input) : NULL,
        .input_len = input != NULL ? json_string_length(input) : 0,
        .keep_stdin = boolean_arg(t, "stdin"),
    };
    if (cfg->dry_run) {
        struct bsh_error err;
        tool_error(t->id,
                   bsh_check(rq.command, strlen(rq.command), &err) == BSH_EGUARD
                       ? err.text_err
                       : "dry run: nothing was run");
        return;
    }
    char why[BSH_ERROR_MAX];
    struct mcp_run *r = registry_start_run(t->g, &rq, why, sizeof(why));
    if (r == NULL) {
        tool_error(t->id, why);
        return;
    }
    json_t *task = json_object_get(t->params, "task");
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

static void bash_output(const struct tool_ctx *t)
{
    struct mcp_run *r = named_run(t);
    struct task *task = r != NULL ? task_of_run(t->g, r) : NULL;
    if (task != NULL) {
        char why[200];
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
    char text[200];
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
    if (!r->ended)
        bsh_stream_signal(r->stream, sig);
    if (!answered_for_task(t, r, "signalled"))
        wait_on(t, r, SHORT_WAIT_MS);
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
    fclose(f);
    rpc_result(t->id,
               json_pack("{s:[{s:s, s:s%}], s:b, s:{s:o}}", "content", "type",
                         "text", "text", text != NULL ? text : "",
                         text != NULL ? len : 0, "isError", 0,
                         "structuredContent", "runs", runs));
    free(text);
}

static void (*const handlers[TOOL_COUNT])(const struct tool_ctx *) = {
    [TOOL_BASH_RUN] = bash_run,     [TOOL_BASH_OUTPUT] = bash_output,
    [TOOL_BASH_WRITE] = bash_write, [TOOL_BASH_KILL] = bash_kill,
    [TOOL_BASH_LIST] = bash_list,
};

void tool_call(struct registry *g, struct calls *calls, json_t *id,
               json_t *params, bool modern)
{
    json_t *name = json_object_get(params, "name");
    if (!json_is_string(name)) {
        rpc_error(id, RPC_INVALID_PARAMS, "tools/call needs a string 'name'");
        return;
    }
    int tool = catalog_find(name);
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
    struct tool_ctx t = {g, calls, id, params, {0}};
    char why[200];
    if (!catalog_read_args((enum tool_id)tool,
                           json_object_get(params, "arguments"), &t.args, why,
                           sizeof(why))) {
        bad_argument(&t, why);
        return;
    }
    handlers[tool](&t);
}
