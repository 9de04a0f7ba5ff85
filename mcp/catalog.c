/* SPDX-License-Identifier: MIT */
#include "catalog.h"

#define RUN_ID                                                               \
    "\"run_id\":{\"type\":\"string\",\"description\":\"The id of a run, as " \
    "bash_run returned it.\"}"

/* What a client may tell a person before the tool runs: these run or
 * touch commands, which can do anything; the others only read. */
#define ACTS                                                            \
    "\"annotations\":{\"readOnlyHint\":false,\"destructiveHint\":true," \
    "\"idempotentHint\":false,\"openWorldHint\":true},"
#define READS "\"annotations\":{\"readOnlyHint\":true,\"openWorldHint\":false},"

#define WAIT_MS(what)                                                         \
    "\"wait_ms\":{\"type\":\"integer\",\"minimum\":0,\"description\":\"" what \
    "\"}"

static const char *const tools[] = {
    "{\"name\":\"bash_run\",\"title\":\"Run a bash command\"," ACTS
    "\"description\":\"Run a bash command (bash -c) and return its output "
    "and exit status. Commands are checked against tripwires for "
    "catastrophic mistakes first; absolute command paths are rejected. A "
    "command still running after yield_ms (or, in PTY mode, waiting for "
    "input) is left running as a run whose id the reply gives: read it "
    "with bash_output, type into it with bash_write, end it with "
    "bash_kill.\","
    "\"inputSchema\":{\"type\":\"object\",\"properties\":{"
    "\"command\":{\"type\":\"string\",\"description\":\"The bash command "
    "line to run.\"},"
    "\"timeout_ms\":{\"type\":\"integer\",\"minimum\":0,\"description\":"
    "\"Deadline of the run in milliseconds; everything it started is "
    "killed when it passes.\"},"
    "\"yield_ms\":{\"type\":\"integer\",\"minimum\":0,\"description\":"
    "\"Return after this many milliseconds if the command is still "
    "running; it goes on as a run (default: the server's, 30000).\"},"
    "\"input\":{\"type\":\"string\",\"description\":\"Written to the "
    "command's stdin, which is then closed.\"},"
    "\"stdin\":{\"type\":\"boolean\",\"description\":\"Pipe mode: keep "
    "stdin open for bash_write (default: /dev/null). PTY runs always "
    "take input.\"},"
    "\"idle_timeout_ms\":{\"type\":\"integer\",\"minimum\":1,"
    "\"description\":\"End the run when it has printed nothing for this "
    "many milliseconds.\"}},"
    "\"required\":[\"command\"]}}",

    "{\"name\":\"bash_output\",\"title\":\"Read a run's output\"," READS
    "\"description\":\"The output of a run since it was last read, and its "
    "state (running, awaiting_input or exited with its status).\","
    "\"inputSchema\":{\"type\":\"object\",\"properties\":{" RUN_ID
    "," WAIT_MS("Wait up to this many milliseconds for the run to end or "
                "wait for input (default 0).") "},"
                                               "\"required\":[\"run_id\"]}}",

    "{\"name\":\"bash_write\",\"title\":\"Type into a run\"," ACTS
    "\"description\":\"Write to a run's stdin (in PTY mode: typed, so "
    "send \\\"\\\\n\\\" to end a line), optionally close it, then return "
    "like bash_output.\","
    "\"inputSchema\":{\"type\":\"object\",\"properties\":{" RUN_ID
    ",\"input\":{\"type\":\"string\",\"description\":\"The bytes to "
    "write.\"},"
    "\"close_stdin\":{\"type\":\"boolean\",\"description\":\"Close stdin "
    "after the input (EOF).\"}," WAIT_MS(
        "How long to wait for the run to answer (default 1000).") "},"
                                                                  "\"required\""
                                                                  ":[\"run_"
                                                                  "id\","
                                                                  "\"input\"]}"
                                                                  "}",

    "{\"name\":\"bash_kill\",\"title\":\"Signal a run\"," ACTS
    "\"description\":\"Send a signal to every process of a run (default "
    "KILL), then return like bash_output.\","
    "\"inputSchema\":{\"type\":\"object\",\"properties\":{" RUN_ID
    ",\"signal\":{\"type\":[\"string\",\"integer\"],\"description\":\"A "
    "signal name (INT, TERM, KILL, HUP...) or number.\"}},"
    "\"required\":[\"run_id\"]}}",

    "{\"name\":\"bash_list\",\"title\":\"List the runs\"," READS
    "\"description\":\"The runs the server holds: id, command, state, "
    "elapsed milliseconds, bytes of output and the TCP ports it listens "
    "on.\","
    "\"inputSchema\":{\"type\":\"object\",\"properties\":{}}}",
};

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
    "\"sandbox\":{\"type\":[\"object\",\"null\"]}},"                      \
    "\"required\":[\"reason\",\"wall_ms\",\"containment\"]}"

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
    "\"report\":" REPORT_SCHEMA "},"
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
    "\"output_bytes\",\"ports\"]}}},"
    "\"required\":[\"runs\"]}";

json_t *catalog_tools(bool legacy_tasks)
{
    json_t *list = json_array();
    size_t n = sizeof(tools) / sizeof(tools[0]);
    for (size_t i = 0; i < n; i++) {
        json_t *tool = json_loads(tools[i], 0, NULL);
        /* bash_list is last; the others answer about one run. */
        json_object_set_new(
            tool, "outputSchema",
            json_loads(i + 1 < n ? run_result_schema : list_result_schema, 0,
                       NULL));
        if (legacy_tasks && i == 0) /* bash_run may run as a task */
            json_object_set_new(tool, "execution",
                                json_pack("{s:s}", "taskSupport", "optional"));
        json_array_append_new(list, tool);
    }
    return list;
}
