/* SPDX-License-Identifier: MIT */
/*
 * The MCP server's tool table: the arguments a tools/call is checked
 * against are the ones tools/list shows, each declared once, and
 * bash_run is described as the library describes it.
 */
#define _GNU_SOURCE
#include "../harness/tap.h"
#include "catalog.h"

#include <bsh/bsh.h>

#include <stdlib.h>
#include <string.h>

static json_t *args_of(const char *text)
{
    json_t *v = json_loads(text, 0, NULL);
    if (v == NULL)
        abort();
    return v;
}

/* Checks `text` as bash_run's arguments: the message, or "" when fine. */
static const char *check_run(const char *text, struct tool_args *out)
{
    static char why[200];
    json_t *args = args_of(text);
    why[0] = '\0';
    if (catalog_read_args(TOOL_BASH_RUN, args, out, why, sizeof(why)))
        why[0] = '\0';
    json_decref(args);
    return why;
}

static void test_arguments(void)
{
    struct tool_args a;
    is_str(check_run("{\"command\":\"ls\",\"timeout_ms\":5}", &a), "",
           "bash_run: a command and a timeout fit");
    is_str(check_run("{}", &a), "needs arguments.command, a string",
           "bash_run: the command is required");
    is_str(check_run("{\"command\":null}", &a),
           "needs arguments.command, a string",
           "bash_run: a null command is none");
    is_str(check_run("{\"command\":\"ls\",\"timeout_ms\":-1}", &a),
           "timeout_ms must be an integer >= 0",
           "bash_run: timeout_ms is bounded below by 0");
    is_str(check_run("{\"command\":\"ls\",\"idle_timeout_ms\":0}", &a),
           "idle_timeout_ms must be an integer >= 1",
           "bash_run: idle_timeout_ms is bounded below by 1");
    is_str(check_run("{\"command\":\"ls\",\"stdin\":\"yes\"}", &a),
           "stdin must be true or false", "bash_run: stdin is a boolean");
    is_str(check_run("{\"command\":\"ls\",\"yield_ms\":null}", &a), "",
           "bash_run: a null optional argument is absent");

    json_t *args = args_of("{\"run_id\":\"r1\",\"signal\":[1]}");
    char why[200];
    ok(!catalog_read_args(TOOL_BASH_KILL, args, &a, why, sizeof(why)) &&
           strstr(why, "signal must be a signal name") == why,
       "bash_kill: a signal is a name or a number");
    json_decref(args);

    args = args_of("{\"run_id\":\"r1\",\"input\":\"x\",\"wait_ms\":7}");
    ok(catalog_read_args(TOOL_BASH_WRITE, args, &a, why, sizeof(why)) &&
           json_integer_value(tool_arg(&a, "wait_ms")) == 7 &&
           strcmp(json_string_value(tool_arg(&a, "run_id")), "r1") == 0 &&
           tool_arg(&a, "close_stdin") == NULL &&
           tool_arg(&a, "no_such") == NULL,
       "bash_write: the checked values are read by name");
    json_decref(args);

    args = json_string("not an object");
    ok(!catalog_read_args(TOOL_BASH_OUTPUT, args, &a, why, sizeof(why)) &&
           strcmp(why, "needs arguments.run_id, a string") == 0,
       "arguments that are not an object count as none");
    json_decref(args);
}

static void test_names(void)
{
    json_t *n = json_string("bash_list");
    is_int(catalog_find(n, false), TOOL_BASH_LIST, "bash_list is found");
    json_decref(n);
    n = json_stringn("bash_run\0x", 10);
    is_int(catalog_find(n, false), -1, "a name with a NUL inside is no tool's");
    json_decref(n);
    n = json_integer(1);
    is_int(catalog_find(n, false), -1,
           "a name that is not a string is no tool's");
    json_decref(n);
}

/* tools/list shows, for every tool, exactly the arguments it checks. */
static void test_schemas_match_checks(void)
{
    json_t *tools = catalog_tools(true, true);
    is_int((int)json_array_size(tools), TOOL_COUNT,
           "every tool is listed (with a policy)");
    json_t *plain = catalog_tools(true, false);
    is_int((int)json_array_size(plain), TOOL_COUNT - 1,
           "without a policy, bash_policy is not listed");
    json_t *bp = json_string("bash_policy");
    is_int(catalog_find(bp, false), -1, "nor found");
    is_int(catalog_find(bp, true), TOOL_BASH_POLICY, "but found with one");
    json_decref(bp);
    json_decref(plain);
    bool all = true;
    for (size_t i = 0; i < json_array_size(tools); i++) {
        json_t *tool = json_array_get(tools, i);
        json_t *schema = json_object_get(tool, "inputSchema");
        json_t *props = json_object_get(schema, "properties");
        json_t *required = json_object_get(schema, "required");
        int id = catalog_find(json_object_get(tool, "name"), true);
        /* An empty object misses every required argument, and only
         * those: the first one missing is the first required listed. */
        json_t *none = json_object();
        struct tool_args a;
        char why[200] = "";
        bool fine =
            catalog_read_args((enum tool_id)id, none, &a, why, sizeof(why));
        char want[200] = "";
        if (json_array_size(required) > 0)
            snprintf(want, sizeof(want), "needs arguments.%s, a string",
                     json_string_value(json_array_get(required, 0)));
        all &= id == (int)i && fine == (json_array_size(required) == 0) &&
               (fine || strcmp(why, want) == 0);
        const char *key;
        json_t *p;
        json_object_foreach(props, key, p) all &=
            json_string_value(json_object_get(p, "description")) != NULL &&
            json_object_get(p, "type") != NULL;
        json_decref(none);
    }
    ok(all, "each tool's schema and its checks agree; every argument is "
            "described");

    json_t *library = json_loads(bsh_bash_tool_json(), 0, NULL);
    json_t *run = json_array_get(tools, TOOL_BASH_RUN);
    const char *base =
        json_string_value(json_object_get(library, "description"));
    const char *shown = json_string_value(json_object_get(run, "description"));
    ok(base != NULL && shown != NULL && strncmp(shown, base, strlen(base)) == 0,
       "bash_run's description starts with the library's");
    json_t *lib_props =
        json_object_get(json_object_get(library, "inputSchema"), "properties");
    json_t *run_props =
        json_object_get(json_object_get(run, "inputSchema"), "properties");
    const char *key;
    json_t *p;
    bool same = json_object_size(lib_props) > 0;
    json_object_foreach(lib_props, key, p) same &= json_equal(
        json_object_get(p, "description"),
        json_object_get(json_object_get(run_props, key), "description"));
    ok(same, "bash_run's shared arguments are described as the library "
             "describes them");
    ok(json_object_get(run, "execution") != NULL &&
           json_object_get(json_array_get(tools, TOOL_BASH_LIST),
                           "execution") == NULL,
       "only bash_run may run as a task");
    json_decref(library);
    json_decref(tools);
}

int main(void)
{
    test_arguments();
    test_names();
    test_schemas_match_checks();
    return tap_done();
}
