/* SPDX-License-Identifier: MIT */
/*
 * The tools the MCP server offers (catalog.c): one table that holds each
 * tool's name, description and arguments, from which tools/list renders
 * the input schemas and tools/call checks the arguments, so that an
 * argument is declared once. bash_run is described as the library
 * describes it (bsh_bash_tool_json()), with what the server adds.
 */
#ifndef BSH_MCP_CATALOG_H
#define BSH_MCP_CATALOG_H

#include <jansson.h>

#include <stdbool.h>
#include <stddef.h>

enum tool_id {
    TOOL_BASH_RUN,
    TOOL_BASH_OUTPUT,
    TOOL_BASH_WRITE,
    TOOL_BASH_KILL,
    TOOL_BASH_LIST,
    TOOL_BASH_SESSION,
    TOOL_BASH_POLICY, /* listed only while a policy is active */
    TOOL_COUNT
};

/* The most arguments a tool takes. */
#define TOOL_ARGS_MAX 12

/* A call's arguments, checked against its tool's table. */
struct tool_args {
    enum tool_id tool;
    json_t *value[TOOL_ARGS_MAX]; /* borrowed; NULL: absent (or null) */
};

/* The tool the JSON string `name` names; -1 when none does (bash_policy
 * without a policy included). */
int catalog_find(json_t *name, bool policy);

/* Checks `args` (the call's arguments object; anything else counts as
 * none) against the table of `tool` into `out`: false with what is wrong
 * (e.g. "timeout_ms must be an integer >= 0") in `why`. */
bool catalog_read_args(enum tool_id tool, json_t *args, struct tool_args *out,
                       char *why, size_t why_size);

/* The value of the argument `name` of a checked call; NULL when absent. */
json_t *tool_arg(const struct tool_args *a, const char *name);

/* The array of tool descriptions (a new reference); with `legacy_tasks`
 * bash_run says it may run as a task of the 2025-11-25 kind; with
 * `policy`, bash_run says commands are checked, and bash_policy is
 * listed. */
json_t *catalog_tools(bool legacy_tasks, bool policy);

#endif
