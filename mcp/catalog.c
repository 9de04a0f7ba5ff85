/* SPDX-License-Identifier: MIT */
#include "catalog.h"

#include <bsh/bsh.h>

#include <stdio.h>
#include <string.h>

#define INT_OR_NULL "{\"type\":[\"integer\",\"null\"]}"

/* The end report (SPEC 5.3), as structuredContent.report carries it. */
#define REPORT_SCHEMA                                                     \
    "{\"type\":\"object\",\"properties\":{"                               \
    "\"reason\":{\"type\":\"string\",\"enum\":[\"exit\",\"signal\","      \
    "\"timeout\",\"idle\",\"cancel\",\"limit\"]},"                        \
    "\"limit\":{\"type\":[\"string\",\"null\"]},"                         \
    "\"exit_code\":" INT_OR_NULL ",\"signal\":" INT_OR_NULL ","           \
    "\"wall_ms\":{\"type\":\"number\"},\"cpu_user_ms\":{\"type\":"        \
    "\"number\"},\"cpu_sys_ms\":{\"type\":\"number\"},"                   \
    "\"memory_peak_bytes\":" INT_OR_NULL ","                              \
    "\"stdout_bytes\":{\"type\":\"integer\"},\"stderr_bytes\":{\"type\":" \
    "\"integer\"},\"containment\":{\"type\":\"string\",\"enum\":"         \
    "[\"cgroup\",\"subreaper\",\"session\"]},"                            \
    "\"killed\":" INT_OR_NULL ",\"escaped\":" INT_OR_NULL ","             \
    "\"diagnosis\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}}," \
    "\"sandbox\":{\"type\":[\"object\",\"null\"]},"                       \
    "\"session_state\":{\"type\":[\"string\",\"null\"]}},"                \
    "\"required\":[\"reason\",\"wall_ms\",\"containment\"]}"

/* One shell session: bash_session's result, an item of bash_list's. */
#define SESSION_SCHEMA                                                    \
    "{\"type\":\"object\",\"properties\":{"                               \
    "\"session\":{\"type\":\"string\"},\"cwd\":{\"type\":\"string\"},"    \
    "\"base_dir\":{\"type\":\"string\"},"                                 \
    "\"attached_run\":{\"type\":[\"string\",\"null\"]},"                  \
    "\"variables\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}," \
    "\"functions\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}," \
    "\"aliases\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"   \
    "\"bytes\":{\"type\":\"integer\"}},"                                  \
    "\"required\":[\"session\",\"cwd\",\"attached_run\",\"bytes\"]}"

/* A policy's verdict (bsh policy explain --json): bash_policy's result,
 * and structuredContent.policy of a refused or read-only bash_run. */
#define POLICY_SCHEMA                                                    \
    "{\"type\":\"object\",\"properties\":{"                              \
    "\"decision\":{\"type\":\"string\",\"enum\":[\"allow\",\"ask\","     \
    "\"deny\"]},"                                                        \
    "\"guard\":{\"type\":[\"string\",\"null\"]},"                        \
    "\"ran\":{\"type\":\"string\",\"enum\":[\"readonly\"]},"             \
    "\"commands\":{\"type\":\"array\",\"items\":{\"type\":\"object\","   \
    "\"properties\":{"                                                   \
    "\"words\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"    \
    "\"dynamic\":{\"type\":\"array\",\"items\":{\"type\":\"boolean\"}}," \
    "\"start\":{\"type\":\"integer\"},\"end\":{\"type\":\"integer\"},"   \
    "\"via\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"      \
    "\"decision\":{\"type\":\"string\",\"enum\":[\"allow\",\"ask\","     \
    "\"deny\"]},"                                                        \
    "\"rule\":{\"type\":[\"object\",\"null\"]},"                         \
    "\"reason\":{\"type\":[\"string\",\"null\"]}}}}},"                   \
    "\"required\":[\"decision\",\"commands\"]}"

/* What bash_run, bash_output, bash_write and bash_kill return. */
static const char run_result_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"state\":{\"type\":\"string\",\"enum\":[\"running\","
    "\"awaiting_input\",\"exited\"]},"
    "\"run_id\":{\"type\":\"string\"},"
    "\"input_kind\":{\"type\":\"string\",\"enum\":[\"password\",\"line\","
    "\"raw\"]},"
    "\"exit_code\":" INT_OR_NULL ",\"signal\":" INT_OR_NULL ","
    "\"timed_out\":{\"type\":\"boolean\"},"
    "\"stdout\":{\"type\":\"string\"},\"stderr\":{\"type\":\"string\"},"
    "\"truncated_bytes\":{\"type\":\"integer\",\"minimum\":0},"
    "\"error\":{\"type\":\"string\"},"
    "\"session\":{\"type\":[\"string\",\"null\"]},"
    "\"cwd\":{\"type\":[\"string\",\"null\"]},"
    "\"session_state\":{\"type\":[\"string\",\"null\"],\"enum\":[\"saved\","
    "\"unchanged\",\"detached\",\"pending\",null]},"
    "\"screen\":{\"type\":\"object\",\"properties\":{"
    "\"lines\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"cursor\":{\"type\":\"object\",\"properties\":{"
    "\"row\":{\"type\":\"integer\"},\"col\":{\"type\":\"integer\"}}},"
    "\"alternate\":{\"type\":\"boolean\"},"
    "\"rows\":{\"type\":\"integer\"},\"cols\":{\"type\":\"integer\"}}},"
    "\"log_bytes\":{\"type\":\"integer\",\"minimum\":0},"
    "\"offset\":{\"type\":\"integer\",\"minimum\":0},"
    "\"length\":{\"type\":\"integer\",\"minimum\":0},"
    "\"reduced\":{\"type\":\"object\",\"properties\":{"
    "\"progress_frames\":{\"type\":\"integer\"},"
    "\"escape_sequences\":{\"type\":\"integer\"},"
    "\"repeated_lines\":{\"type\":\"integer\"},"
    "\"control_characters\":{\"type\":\"integer\"},"
    "\"invalid_utf8\":{\"type\":\"integer\"}}},"
    "\"report\":" REPORT_SCHEMA ","
    "\"policy\":" POLICY_SCHEMA "},"
    "\"required\":[\"exit_code\",\"signal\",\"timed_out\",\"stdout\","
    "\"stderr\",\"truncated_bytes\"]}";

static const char list_result_schema[] =
    "{\"type\":\"object\",\"properties\":{\"runs\":{\"type\":\"array\","
    "\"items\":{\"type\":\"object\",\"properties\":{"
    "\"run_id\":{\"type\":\"string\"},\"command\":{\"type\":\"string\"},"
    "\"state\":{\"type\":\"string\",\"enum\":[\"running\","
    "\"awaiting_input\",\"exited\"]},"
    "\"input_kind\":{\"type\":\"string\"},"
    "\"elapsed_ms\":{\"type\":\"integer\"},"
    "\"output_bytes\":{\"type\":\"integer\"},"
    "\"ports\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"}}},"
    "\"required\":[\"run_id\",\"command\",\"state\",\"elapsed_ms\","
    "\"output_bytes\",\"ports\"]}},"
    "\"sessions\":{\"type\":\"array\",\"items\":" SESSION_SCHEMA "}},"
    "\"required\":[\"runs\",\"sessions\"]}";

/* What bash_session returns. */
static const char session_result_schema[] = SESSION_SCHEMA;

static const char policy_result_schema[] = POLICY_SCHEMA;

enum arg_type { ARG_STRING, ARG_INTEGER, ARG_BOOLEAN, ARG_SIGNAL, ARG_OBJECT };

struct arg_def {
    const char *name; /* NULL: past the last */
    enum arg_type type;
    json_int_t minimum; /* of an ARG_INTEGER */
    bool required;
    const char *description; /* NULL: as the library's bash_run says */
};

/* The integer arguments that have an upper bound too. */
static json_int_t arg_maximum(const struct arg_def *a)
{
    static const struct {
        const char *name;
        json_int_t maximum;
    } maxima[] = {{"max_output", 1000000}, {"rows", 200}, {"cols", 500}};
    for (size_t i = 0; i < sizeof(maxima) / sizeof(maxima[0]); i++)
        if (strcmp(a->name, maxima[i].name) == 0)
            return maxima[i].maximum;
    return 0;
}

#define MAX_OUTPUT_ARG                                                     \
    {                                                                      \
        "max_output", ARG_INTEGER, 200, false,                             \
            "The most characters of text this reply may hold (200 to "     \
            "1000000; default: the server's budget, 30000): the output's " \
            "head and tail are kept, and a marker says how much was left " \
            "out and which log file has it."                               \
    }

struct tool_def {
    const char *name, *title;
    /* Runs or touches commands, which can do anything (else only reads):
     * what a client may tell a person before the tool runs. */
    bool acts;
    const char *description; /* bash_run: what follows the library's */
    const char *output_schema;
    struct arg_def args[TOOL_ARGS_MAX];
};

#define RUN_ID_ARG                                      \
    {                                                   \
        "run_id", ARG_STRING, 0, true,                  \
            "The id of a run, as bash_run returned it." \
    }

static const struct tool_def tools[TOOL_COUNT] = {
    [TOOL_BASH_RUN] =
        {"bash_run",
         "Run a bash command",
         true,
         "The shell's state persists from one call to the next, as in one "
         "terminal: the working directory, variables, functions, aliases and "
         "options a command leaves hold for the next call in its session; "
         "background jobs and traps do not. A command still running after "
         "yield_ms (or, in PTY mode, waiting for input) is left running as a "
         "run whose id the reply gives, detached from its session: read it "
         "with bash_output, type into it with bash_write, end it with "
         "bash_kill. The reply shows output as a terminal would (progress "
         "bars as their last frame, no colour codes, repeated lines "
         "folded) and says what it left out; the log keeps every byte.",
         run_result_schema,
         {{"command", ARG_STRING, 0, true, NULL},
          {"timeout_ms", ARG_INTEGER, 0, false, NULL},
          {"yield_ms", ARG_INTEGER, 0, false,
           "Return after this many milliseconds if the command is still "
           "running; it goes on as a run (default: the server's, 30000)."},
          {"input", ARG_STRING, 0, false,
           "Written to the command's stdin, which is then closed."},
          {"stdin", ARG_BOOLEAN, 0, false,
           "Pipe mode: keep stdin open for bash_write (default: /dev/null). "
           "PTY runs always take input."},
          {"idle_timeout_ms", ARG_INTEGER, 1, false, NULL},
          {"session", ARG_STRING, 0, false,
           "The shell session to run in (1 to 128 bytes); calls without one "
           "share the server's session \"default\". What a command does to "
           "its shell (cd, export, functions, aliases, set -o, shopt, "
           "umask) holds for the next call in the same session."},
          {"cwd", ARG_STRING, 0, false,
           "The directory to start this call in (this call only; cd in the "
           "command persists)."},
          {"env", ARG_OBJECT, 0, false,
           "Variables for this call only, names to strings (export in the "
           "command persists)."},
          MAX_OUTPUT_ARG,
          {"rows", ARG_INTEGER, 2, false,
           "PTY server (bsh mcp -p): the terminal's rows (2 to 200, "
           "default 24)."},
          {"cols", ARG_INTEGER, 10, false,
           "PTY server: the terminal's columns (10 to 500, default 80)."}}},
    [TOOL_BASH_OUTPUT] =
        {"bash_output",
         "Read a run's output",
         false,
         "The output of a run since it was last read, and its state "
         "(running, awaiting_input or exited with its status). With offset: "
         "a page of the run's whole log instead (what a cut reply left "
         "out). With screen: a PTY run's terminal as it looks now.",
         run_result_schema,
         {RUN_ID_ARG,
          {"wait_ms", ARG_INTEGER, 0, false,
           "Wait up to this many milliseconds for the run to end or wait "
           "for input (default 0)."},
          MAX_OUTPUT_ARG,
          {"offset", ARG_INTEGER, 0, false,
           "Page through the run's log instead: the bytes from this "
           "offset (stdout and stderr as they came), reduced, within "
           "max_output; structuredContent gives log_bytes and the length "
           "returned, so the next page starts at offset + length. The "
           "run's new output stays unread."},
          {"length", ARG_INTEGER, 0, false,
           "With offset: at most this many bytes (default: to the end)."},
          {"screen", ARG_BOOLEAN, 0, false,
           "A PTY run's terminal as a person would see it now: its rows as "
           "text, the cursor and whether a full-screen program (vi, less, "
           "top, a REPL) is on the alternate screen. Drive it with "
           "bash_write. The run's output stays unread."}}},
    [TOOL_BASH_WRITE] =
        {"bash_write",
         "Type into a run",
         true,
         "Write to a run's stdin (in PTY mode: typed, so send \"\\n\" to "
         "end a line), optionally close it, then return like bash_output.",
         run_result_schema,
         {RUN_ID_ARG,
          {"input", ARG_STRING, 0, true, "The bytes to write."},
          {"close_stdin", ARG_BOOLEAN, 0, false,
           "Close stdin after the input (EOF)."},
          {"wait_ms", ARG_INTEGER, 0, false,
           "How long to wait for the run to answer (default 1000)."},
          MAX_OUTPUT_ARG}},
    [TOOL_BASH_KILL] =
        {"bash_kill",
         "Signal a run",
         true,
         "Send a signal to every process of a run (default KILL), then "
         "return like bash_output.",
         run_result_schema,
         {RUN_ID_ARG,
          {"signal", ARG_SIGNAL, 0, false,
           "A signal name (INT, TERM, KILL, HUP...) or number."}}},
    [TOOL_BASH_LIST] = {"bash_list",
                        "List the runs",
                        false,
                        "The runs the server holds: id, command, state, "
                        "elapsed milliseconds, bytes of output and the TCP "
                        "ports it listens on; and the shell sessions, with "
                        "their working directory and the run attached.",
                        list_result_schema,
                        {{NULL, ARG_STRING, 0, false, NULL}}},
    [TOOL_BASH_SESSION] = {"bash_session",
                           "Show or reset a shell session",
                           true,
                           "show: a session's working directory and the names "
                           "of the variables, functions and aliases it holds "
                           "(read-only). reset: empty it, back to the server's "
                           "start directory and environment.",
                           session_result_schema,
                           {{"action", ARG_STRING, 0, true,
                             "\"show\" or \"reset\"."},
                            {"session", ARG_STRING, 0, false,
                             "The session (default: \"default\")."}}},
    [TOOL_BASH_POLICY] =
        {"bash_policy",
         "Check a command against the policy",
         false,
         "What the user's command policy decides for a command, without "
         "running it: allow, ask (a person must approve it) or deny, for "
         "each simple command in it, with the rule or the reason. Check a "
         "command before bash_run when unsure.",
         policy_result_schema,
         {{"command", ARG_STRING, 0, true, "The command, as for bash_run."},
          {"session", ARG_STRING, 0, false,
           "The session whose aliases and functions count (default: "
           "\"default\")."}}},
};

int catalog_find(json_t *name, bool policy)
{
    const char *n = json_string_value(name);
    if (n == NULL || strlen(n) != json_string_length(name))
        return -1;
    for (int i = 0; i < TOOL_COUNT; i++)
        if (strcmp(n, tools[i].name) == 0)
            return i == TOOL_BASH_POLICY && !policy ? -1 : i;
    return -1;
}

static bool arg_fits(const struct arg_def *a, json_t *v)
{
    switch (a->type) {
    case ARG_STRING:
        return json_is_string(v);
    case ARG_INTEGER:
        return json_is_integer(v) && json_integer_value(v) >= a->minimum &&
               (arg_maximum(a) == 0 || json_integer_value(v) <= arg_maximum(a));
    case ARG_BOOLEAN:
        return json_is_boolean(v);
    case ARG_SIGNAL:
        return json_is_string(v) || json_is_integer(v);
    case ARG_OBJECT:
        return json_is_object(v);
    }
    return false;
}

/* What is wrong with an argument that does not fit, for the model to
 * correct its call (SEP-1303). */
static void arg_problem(const struct arg_def *a, char *why, size_t size)
{
    switch (a->type) {
    case ARG_STRING:
        snprintf(why, size, "needs arguments.%s, a string", a->name);
        break;
    case ARG_INTEGER:
        if (arg_maximum(a) != 0)
            snprintf(why, size, "%s must be an integer from %lld to %lld",
                     a->name, (long long)a->minimum, (long long)arg_maximum(a));
        else
            snprintf(why, size, "%s must be an integer >= %lld", a->name,
                     (long long)a->minimum);
        break;
    case ARG_BOOLEAN:
        snprintf(why, size, "%s must be true or false", a->name);
        break;
    case ARG_SIGNAL:
        snprintf(why, size,
                 "%s must be a signal name (INT, TERM, KILL...) or a number "
                 "from 1",
                 a->name);
        break;
    case ARG_OBJECT:
        snprintf(why, size, "%s must be an object of names to strings",
                 a->name);
        break;
    }
}

bool catalog_read_args(enum tool_id tool, json_t *args, struct tool_args *out,
                       char *why, size_t why_size)
{
    memset(out, 0, sizeof(*out));
    out->tool = tool;
    const struct arg_def *defs = tools[tool].args;
    for (int i = 0; i < TOOL_ARGS_MAX && defs[i].name != NULL; i++) {
        json_t *v = json_object_get(args, defs[i].name);
        if (json_is_null(v))
            v = NULL;
        if (v == NULL && !defs[i].required)
            continue;
        if (!arg_fits(&defs[i], v)) {
            arg_problem(&defs[i], why, why_size);
            return false;
        }
        out->value[i] = v;
    }
    return true;
}

json_t *tool_arg(const struct tool_args *a, const char *name)
{
    const struct arg_def *defs = tools[a->tool].args;
    for (int i = 0; i < TOOL_ARGS_MAX && defs[i].name != NULL; i++)
        if (strcmp(defs[i].name, name) == 0)
            return a->value[i];
    return NULL;
}

/* ---- tools/list ---------------------------------------------------------- */

static json_t *arg_schema(const struct arg_def *a, json_t *library_props)
{
    static const char *const type_names[] = {"string", "integer", "boolean"};
    json_t *o = json_object();
    if (a->type == ARG_SIGNAL)
        json_object_set_new(o, "type",
                            json_pack("[s, s]", "string", "integer"));
    else if (a->type == ARG_OBJECT)
        json_object_set_new(o, "type", json_string("object"));
    else
        json_object_set_new(o, "type", json_string(type_names[a->type]));
    if (a->type == ARG_INTEGER)
        json_object_set_new(o, "minimum", json_integer(a->minimum));
    if (a->type == ARG_INTEGER && arg_maximum(a) != 0)
        json_object_set_new(o, "maximum", json_integer(arg_maximum(a)));
    if (a->type == ARG_OBJECT)
        json_object_set_new(o, "additionalProperties",
                            json_pack("{s:s}", "type", "string"));
    if (a->type == ARG_STRING && strcmp(a->name, "action") == 0)
        json_object_set_new(o, "enum", json_pack("[s, s]", "show", "reset"));
    const char *text =
        a->description != NULL
            ? a->description
            : json_string_value(json_object_get(
                  json_object_get(library_props, a->name), "description"));
    if (text != NULL)
        json_object_set_new(o, "description", json_string(text));
    return o;
}

/* The header a modern client mirrors run_id into (Mcp-Param-Run-Id), so
 * that a gateway can send a run's calls to the server that holds it. */
#define RUN_ID_HEADER "Run-Id"

static json_t *input_schema(const struct tool_def *t, json_t *library_props,
                            bool modern)
{
    json_t *props = json_object(), *required = json_array();
    for (int i = 0; i < TOOL_ARGS_MAX && t->args[i].name != NULL; i++) {
        json_t *arg = arg_schema(&t->args[i], library_props);
        if (modern && strcmp(t->args[i].name, "run_id") == 0)
            json_object_set_new(arg, "x-mcp-header",
                                json_string(RUN_ID_HEADER));
        json_object_set_new(props, t->args[i].name, arg);
        if (t->args[i].required)
            json_array_append_new(required, json_string(t->args[i].name));
    }
    json_t *schema =
        json_pack("{s:s, s:o}", "type", "object", "properties", props);
    if (json_array_size(required) > 0)
        json_object_set_new(schema, "required", required);
    else
        json_decref(required);
    return schema;
}

static json_t *annotations(bool acts)
{
    return acts
               ? json_pack("{s:b, s:b, s:b, s:b}", "readOnlyHint", 0,
                           "destructiveHint", 1, "idempotentHint", 0,
                           "openWorldHint", 1)
               : json_pack("{s:b, s:b}", "readOnlyHint", 1, "openWorldHint", 0);
}

/* bash_run's description: the library's, then what the server adds. */
static json_t *run_description(json_t *library, const char *more, bool policy)
{
    const char *base =
        json_string_value(json_object_get(library, "description"));
    char text[1400];
    snprintf(text, sizeof(text), "%s %s%s", base != NULL ? base : "", more,
             policy ? " Commands are checked against the user's command "
                      "policy, and a refusal says which rule refused it and "
                      "why (bash_policy checks a command without running it)."
                    : "");
    return json_string(text);
}

json_t *catalog_tools(bool legacy_tasks, bool policy)
{
    json_t *library = json_loads(bsh_bash_tool_json(), 0, NULL);
    json_t *library_props =
        json_object_get(json_object_get(library, "inputSchema"), "properties");
    json_t *list = json_array();
    for (int i = 0; i < TOOL_COUNT; i++) {
        const struct tool_def *t = &tools[i];
        if (i == TOOL_BASH_POLICY && !policy)
            continue;
        json_t *tool = json_pack("{s:s, s:s, s:o}", "name", t->name, "title",
                                 t->title, "annotations", annotations(t->acts));
        json_object_set_new(
            tool, "description",
            i == TOOL_BASH_RUN
                ? run_description(library, t->description, policy)
                : json_string(t->description));
        json_object_set_new(tool, "inputSchema",
                            input_schema(t, library_props, !legacy_tasks));
        json_object_set_new(tool, "outputSchema",
                            json_loads(t->output_schema, 0, NULL));
        if (legacy_tasks && i == TOOL_BASH_RUN) /* it may run as a task */
            json_object_set_new(tool, "execution",
                                json_pack("{s:s}", "taskSupport", "optional"));
        json_array_append_new(list, tool);
    }
    json_decref(library);
    return list;
}
