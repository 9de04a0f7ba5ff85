/* SPDX-License-Identifier: MIT */
/*
 * A space's protocol: the JSON-RPC messages of both eras of MCP taken
 * apart and served (initialize, server/discover, ping, tools/list,
 * tools/call, the tasks, cancellations), and its runs moved forward. Every
 * reply goes to the space's own transport.
 */
#include "space.h"
#include "catalog.h"
#include "era.h"
#include "mono.h"
#include "task.h"
#include "tool.h"

#include <stdio.h>
#include <string.h>

void space_init(struct mcp_space *s, const struct mcp_config *cfg,
                struct spill_dir *spill, struct registry_shared *shared,
                struct transport *out)
{
    memset(s, 0, sizeof(*s));
    registry_init(&s->runs, cfg, spill, shared);
    s->out = out;
}

#define INSTRUCTIONS                                                      \
    "bash_run runs a bash command line (bash -c) and returns its output " \
    "and exit status."

/* Messages go to this space's client from now on; answers to the calls
 * the server holds for a task go to the task. */
static void speak(struct mcp_space *s)
{
    rpc_open(s->out);
    rpc_sink(task_answer, &s->runs);
}

static json_t *initialize_result(json_t *params)
{
    const char *version =
        era_legacy_version(json_object_get(params, "protocolVersion"));
    json_t *caps = json_pack("{s:{s:b}}", "tools", "listChanged", 0);
    if (strcmp(version, "2025-11-25") == 0) /* tasks came with it */
        json_object_set_new(caps, "tasks",
                            json_pack("{s:{}, s:{}, s:{s:{s:{}}}}", "list",
                                      "cancel", "requests", "tools", "call"));
    return json_pack("{s:s, s:o, s:{s:s, s:s}, s:s}", "protocolVersion",
                     version, "capabilities", caps, "serverInfo", "name", "bsh",
                     "version", bsh_version(), "instructions", INSTRUCTIONS);
}

static json_t *discover_result(void)
{
    json_t *r = json_pack(
        "{s:o, s:{s:{s:b}, s:{s:{}}}, s:s}", "supportedVersions",
        era_supported_versions(), "capabilities", "tools", "listChanged", 0,
        "extensions", TASKS_EXTENSION, "instructions", INSTRUCTIONS);
    era_mark_cacheable(r);
    return r;
}

static json_t *tools_list_result(const struct mcp_space *s, bool modern)
{
    json_t *r = json_pack("{s:o}", "tools",
                          catalog_tools(!modern, s->runs.cfg->policy != NULL));
    if (modern)
        era_mark_cacheable(r);
    return r;
}

/* A modern request for a version the server does not speak. */
static void unsupported_version(json_t *id, const char *asked)
{
    rpc_error_data(id, RPC_UNSUPPORTED_VERSION, "Unsupported protocol version",
                   json_pack("{s:o, s:s}", "supported",
                             era_supported_versions(), "requested", asked));
}

static void serve(struct mcp_space *s, const char *method, json_t *id,
                  json_t *params, bool modern)
{
    bool request = id != NULL;
    if (strcmp(method, "initialize") == 0 && request) {
        s->runs.approvals.client_elicits = approval_client_elicits(params);
        rpc_result(id, initialize_result(params));
    } else if (strcmp(method, "server/discover") == 0 && request) {
        rpc_result(id, discover_result());
    } else if (strcmp(method, "ping") == 0 && request) {
        rpc_result(id, json_object());
    } else if (strcmp(method, "tools/list") == 0 && request) {
        rpc_result(id, tools_list_result(s, modern));
    } else if (strcmp(method, "tools/call") == 0 && request) {
        if (!json_is_object(params))
            rpc_error(id, RPC_INVALID_PARAMS, "tools/call needs params");
        else
            tool_call(&s->runs, &s->calls, id, params, modern);
    } else if (strncmp(method, "tasks/", 6) == 0 && request) {
        task_request(&s->runs, method, id, params, modern);
    } else if (strcmp(method, "notifications/cancelled") == 0 && !request) {
        json_t *rid = json_object_get(params, "requestId");
        if (json_is_string(rid) || json_is_integer(rid)) { /* never a call
                                                     the server holds */
            call_cancel(&s->calls, rid);
            approval_cancel(&s->runs, rid);
            sessions_cancel(&s->runs.sessions, rid);
        }
    } else if (request) {
        char why[160];
        snprintf(why, sizeof(why), "Method not found: %.100s", method);
        rpc_error(id, RPC_METHOD_NOT_FOUND, why);
    } /* other notifications, e.g. notifications/initialized: nothing to do */
}

/* A request is of the modern era when its _meta names a version (and
 * server/discover is one even without); the rest is legacy. */
static void dispatch(struct mcp_space *s, const char *method, json_t *id,
                     json_t *params)
{
    const char *asked = era_requested_version(params);
    bool modern = asked != NULL || strcmp(method, "server/discover") == 0;
    if (asked != NULL && !era_modern_supported(asked)) {
        if (id != NULL)
            unsupported_version(id, asked);
        return;
    }
    bool was = rpc_answer_modern(modern);
    serve(s, method, id, params, modern);
    rpc_answer_modern(was);
}

void space_message(struct mcp_space *s, const char *text, size_t len)
{
    speak(s);
    json_error_t jerr;
    /* \u0000 is valid JSON: a command holding it gets a tool error. */
    json_t *msg = json_loadb(text, len, JSON_ALLOW_NUL, &jerr);
    if (msg == NULL) {
        char why[256];
        snprintf(why, sizeof(why), "Parse error: %s", jerr.text);
        rpc_error(NULL, RPC_PARSE_ERROR, why);
        return;
    }
    json_t *id = json_object_get(msg, "id");
    json_t *method = json_object_get(msg, "method");
    json_t *version = json_object_get(msg, "jsonrpc");
    /* A null id is not a request's (JSON-RPC 2.0 reserves it for replies
     * to requests whose id could not be read). */
    bool id_ok = id == NULL || json_is_string(id) || json_is_integer(id);
    if (!json_is_object(msg) || !json_is_string(version) ||
        strcmp(json_string_value(version), "2.0") != 0 || !id_ok ||
        !json_is_string(method) ||
        strlen(json_string_value(method)) != json_string_length(method)) {
        /* Replies from a client (result/error without method) are fine:
         * one may answer a question put to a person. */
        bool reply = json_is_object(msg) && method == NULL &&
                     (json_object_get(msg, "result") != NULL ||
                      json_object_get(msg, "error") != NULL);
        if (reply)
            approval_reply(&s->runs, &s->calls, id,
                           json_object_get(msg, "result"),
                           json_object_get(msg, "error"));
        else
            rpc_error(id_ok ? id : NULL, RPC_INVALID_REQUEST,
                      "Invalid Request: expected a JSON-RPC 2.0 object "
                      "with a string method");
    } else {
        dispatch(s, json_string_value(method), id,
                 json_object_get(msg, "params"));
    }
    json_decref(msg);
}

void space_refused(struct mcp_space *s, const char *why)
{
    speak(s);
    rpc_error(NULL, RPC_PARSE_ERROR, why);
}

double space_advance(struct mcp_space *s)
{
    struct registry *g = &s->runs;
    speak(s);
    registry_pump(g);
    double next = tool_resume_waiting(g, &s->calls);
    mono_soonest(&next, call_advance(g, &s->calls));
    mono_soonest(&next, task_advance(g));
    mono_soonest(&next, registry_drop_forgotten(g));
    mono_soonest(&next, approval_advance(g));
    return next;
}

void space_cancel_runs(struct mcp_space *s)
{
    for (struct mcp_run *r = s->runs.runs; r != NULL; r = r->next)
        if (!r->ended)
            bsh_stream_cancel(r->stream);
}

void space_end(struct mcp_space *s)
{
    speak(s);
    task_end_all(&s->runs);
    call_end_all(&s->calls);
    registry_end_all(&s->runs);
}
