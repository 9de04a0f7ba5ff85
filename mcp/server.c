/* SPDX-License-Identifier: MIT */
/*
 * The MCP server's loop: one poll over the transport's fds (stdin and
 * stdout today, see stdio.h) and every run's own fds, so a long run never
 * delays the answer to another request; the poll's timeout is when a
 * waiting call is next due (its yield, progress, a look at a quiet
 * terminal). The end of the input kills every run and ends the server
 * with status 0; a stop signal (read from the caller's signalfd) does the
 * same with 128+N.
 */
#include "call.h"
#include "catalog.h"
#include "era.h"
#include "mono.h"
#include "orphans.h"
#include "signal_read.h"
#include "stdio_transport.h"
#include "task.h"
#include "tool.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The fds of the transport at the start of the poll array, then the
 * stop signal's and the exited children's, then the runs'. */
#define TRANSPORT_FDS_MAX 4
struct server {
    const struct mcp_config *cfg;
    struct registry runs; /* the runs and tasks held */
    struct calls calls;   /* the tools/call requests waiting on runs */
    int advance_ms;       /* when the runs must be looked at next; -1 */
    struct transport *conn;
    struct pollfd *pfds; /* the poll set, grown as calls are added */
    size_t pfds_cap;
    int stop_signal; /* a signal that asked the server to stop, or 0 */
    struct spill_dir spill;
};

/* How long ending the orphans of calls may take. */
#define ORPHANS_MAX_MS 1000

#define INSTRUCTIONS                                                      \
    "bash_run runs a bash command line (bash -c) and returns its output " \
    "and exit status."

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

static json_t *tools_list_result(bool modern)
{
    json_t *r = json_pack("{s:o}", "tools", catalog_tools(!modern));
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

static void serve(struct server *sv, const char *method, json_t *id,
                  json_t *params, bool modern)
{
    bool request = id != NULL;
    if (strcmp(method, "initialize") == 0 && request) {
        rpc_result(id, initialize_result(params));
    } else if (strcmp(method, "server/discover") == 0 && request) {
        rpc_result(id, discover_result());
    } else if (strcmp(method, "ping") == 0 && request) {
        rpc_result(id, json_object());
    } else if (strcmp(method, "tools/list") == 0 && request) {
        rpc_result(id, tools_list_result(modern));
    } else if (strcmp(method, "tools/call") == 0 && request) {
        if (!json_is_object(params))
            rpc_error(id, RPC_INVALID_PARAMS, "tools/call needs params");
        else
            tool_call(&sv->runs, &sv->calls, id, params, modern);
    } else if (strncmp(method, "tasks/", 6) == 0 && request) {
        task_request(&sv->runs, method, id, params, modern);
    } else if (strcmp(method, "notifications/cancelled") == 0) {
        call_cancel(&sv->calls, json_object_get(params, "requestId"));
        sessions_cancel(&sv->runs.sessions,
                        json_object_get(params, "requestId"));
    } else if (request) {
        char why[160];
        snprintf(why, sizeof(why), "Method not found: %.100s", method);
        rpc_error(id, RPC_METHOD_NOT_FOUND, why);
    } /* other notifications, e.g. notifications/initialized: nothing to do */
}

/* A request is of the modern era when its _meta names a version (and
 * server/discover is one even without); the rest is legacy. */
static void dispatch(struct server *sv, const char *method, json_t *id,
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
    serve(sv, method, id, params, modern);
    rpc_answer_modern(was);
}

static void handle_message(void *ctx, const char *text, size_t len)
{
    struct server *sv = ctx;
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
        /* Replies from a client (result/error without method) are fine. */
        if (!(json_is_object(msg) && method == NULL &&
              (json_object_get(msg, "result") != NULL ||
               json_object_get(msg, "error") != NULL)))
            rpc_error(id_ok ? id : NULL, RPC_INVALID_REQUEST,
                      "Invalid Request: expected a JSON-RPC 2.0 object "
                      "with a string method");
    } else {
        dispatch(sv, json_string_value(method), id,
                 json_object_get(msg, "params"));
    }
    json_decref(msg);
}

/* A message the transport could not take (too long). */
static void refuse_message(void *ctx, const char *why)
{
    (void)ctx;
    rpc_error(NULL, RPC_PARSE_ERROR, why);
}

/* Which children of ours to leave alone when a run has ended: the runs
 * still going (their bash), and any process that may have come from one
 * of them. An orphan does not say which run it came from, but it was
 * started while the run it came from was going: one started (within a
 * clock tick) before every run still going began came from a run that
 * has ended, and is killed. */
static bool keep_child(pid_t pid, void *ctx)
{
    const struct registry *g = ctx;
    double born = -2;
    for (const struct mcp_run *r = g->runs; r != NULL; r = r->next) {
        if (r->ended)
            continue;
        if (bsh_stream_pid(r->stream) == (int)pid)
            return true;
        if (born == -2)
            born = orphans_born_ms(pid);
        if (born < 0 || r->boot_started_ms <= born + orphans_tick_ms())
            return true;
    }
    return false;
}

/* The runs' own bash, which the library reaps with its status. */
static bool run_leader(pid_t pid, void *ctx)
{
    const struct registry *g = ctx;
    for (const struct mcp_run *r = g->runs; r != NULL; r = r->next)
        if (!r->ended && bsh_stream_pid(r->stream) == (int)pid)
            return true;
    return false;
}

static void soonest(double *next, double ms)
{
    if (ms >= 0 && (*next < 0 || ms < *next))
        *next = ms;
}

/* Moves every run, call and task forward without blocking: takes what
 * the runs have ready, answers the calls whose moment has come, sends
 * progress, follows the tasks, drops the runs that are done with; then
 * when something is next due. */
static void advance_runs(struct server *sv)
{
    struct registry *g = &sv->runs;
    int going = registry_runs_going(g);
    registry_pump(g);
    double next = tool_resume_waiting(g, &sv->calls);
    soonest(&next, call_advance(g, &sv->calls));
    soonest(&next, task_advance(g));
    soonest(&next, registry_drop_forgotten(g));
    sv->advance_ms = next < 0 ? -1 : next > 1e9 ? 1000000000 : (int)next + 1;
    if (sv->cfg->subreaper && registry_runs_going(g) < going)
        orphans_end_but(-1, ORPHANS_MAX_MS, NULL, keep_child, &sv->runs);
}

/* What the poll found: a stop signal, exited children, then the
 * transport's requests and replies. */
static void take_events(struct server *sv, const struct pollfd *p, int nconn)
{
    if (p[nconn].revents != 0)
        sv->stop_signal = signal_read(sv->cfg->stop_fd);
    /* Orphans are reaped as they exit, as init would: a held run's
     * short-lived helpers must not pile up as zombies. */
    if (p[nconn + 1].revents != 0)
        orphans_reap(sv->cfg->child_fd, run_leader, &sv->runs);
    sv->conn->ops->polled(sv->conn, p, nconn);
}

/* Waits for a request, a run's progress, a writable output, a stop
 * signal or the moment a call is due. */
static void wait_for_work(struct server *sv)
{
    size_t need =
        (size_t)sv->runs.nruns * BSH_POLLFDS_MAX + TRANSPORT_FDS_MAX + 2;
    if (need > sv->pfds_cap) {
        struct pollfd *grown = realloc(sv->pfds, need * 2 * sizeof(*grown));
        if (grown == NULL)
            return;
        sv->pfds = grown;
        sv->pfds_cap = need * 2;
    }
    struct pollfd *p = sv->pfds;
    int timeout = sv->advance_ms;
    int nconn =
        sv->conn->ops->pollfds(sv->conn, p, TRANSPORT_FDS_MAX, &timeout);
    p[nconn] = (struct pollfd){sv->cfg->stop_fd, POLLIN, 0};
    p[nconn + 1] = (struct pollfd){sv->cfg->child_fd, POLLIN, 0};
    nfds_t n = (nfds_t)nconn + 2;
    /* Each run's own fds, in this one array: no epoll set, timer or
     * eventfd per run, and the runs read only what this poll found. */
    for (struct mcp_run *r = sv->runs.runs; r != NULL; r = r->next) {
        if (r->ended)
            continue;
        int wait_ms = -1;
        r->poll_first = (int)n;
        r->poll_count =
            bsh_stream_pollfds(r->stream, p + n, BSH_POLLFDS_MAX, &wait_ms);
        if (r->poll_count < 0)
            r->poll_count = 0;
        n += (nfds_t)r->poll_count;
        if (wait_ms >= 0 && (timeout < 0 || wait_ms < timeout))
            timeout = wait_ms;
    }
    int ready = poll(p, n, timeout);
    for (struct mcp_run *r = sv->runs.runs; r != NULL; r = r->next)
        if (!r->ended)
            bsh_stream_polled(r->stream, p + r->poll_first, r->poll_count);
    if (ready < 0)
        for (nfds_t i = 0; i < n; i++)
            p[i].revents = 0;
    take_events(sv, p, nconn);
}

/* The client is gone: kill every run, drop every call. */
static void end_server(struct server *sv)
{
    task_end_all(&sv->runs);
    call_end_all(&sv->calls);
    registry_end_all(&sv->runs);
    if (sv->cfg->subreaper)
        orphans_end(-1, ORPHANS_MAX_MS, NULL);
    free(sv->pfds);
    spill_dir_finish(&sv->spill);
}

/* Opens the transport; false when out of memory. */
static bool start_server(struct server *sv, const struct mcp_config *cfg)
{
    memset(sv, 0, sizeof(*sv));
    sv->cfg = cfg;
    registry_init(&sv->runs, cfg, &sv->spill);
    sv->advance_ms = -1;
    spill_dir_init(&sv->spill, cfg->keep_logs, SPILL_FILE_MAX, SPILL_TOTAL_MAX);
    struct transport_handler on = {handle_message, refuse_message, sv};
    sv->conn = stdio_open(cfg->max_line, on);
    rpc_open(sv->conn);
    return sv->conn != NULL;
}

/* The last replies go out (unless a stop signal came, or comes while
 * they wait), then the transport is let go. */
static void stop_server(struct server *sv)
{
    if (sv->stop_signal == 0 &&
        sv->conn->ops->flush(sv->conn, sv->cfg->stop_fd))
        sv->stop_signal = signal_read(sv->cfg->stop_fd);
    rpc_open(NULL);
    sv->conn->ops->close(sv->conn);
}

int mcp_serve(const struct mcp_config *cfg)
{
    struct server sv;
    if (!start_server(&sv, cfg)) {
        mcp_log("out of memory");
        return 1;
    }
    mcp_log("serving bash_run on stdio (bsh %s)", bsh_version());
    while (!sv.conn->ops->ended(sv.conn) && sv.stop_signal == 0) {
        wait_for_work(&sv);
        advance_runs(&sv);
    }
    end_server(&sv);
    stop_server(&sv);
    return sv.stop_signal != 0 ? 128 + sv.stop_signal : 0;
}

void mcp_feed(const struct mcp_config *cfg, const char *data, size_t len)
{
    struct server sv;
    if (!start_server(&sv, cfg))
        return;
    while (len > 0) {
        size_t n = stdio_feed(sv.conn, data, len);
        data += n;
        len -= n;
        advance_runs(&sv);
        while (stdio_backlog(sv.conn)) {
            stdio_feed(sv.conn, NULL, 0);
            advance_runs(&sv);
        }
    }
    stdio_end_input(sv.conn);
    end_server(&sv);
    rpc_open(NULL);
    sv.conn->ops->close(sv.conn);
}
