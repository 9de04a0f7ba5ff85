/* SPDX-License-Identifier: MIT */
/*
 * The MCP server's loop: one poll over stdin and every run's stream fd,
 * so a long run never delays the answer to another request; the poll's
 * timeout is when a waiting call is next due (its yield, progress, a look
 * at a quiet terminal).
 * Messages are lines of at most cfg->max_line bytes; a longer line is
 * answered with a parse error and skipped. EOF on stdin kills every run
 * and ends the server with status 0; a stop
 * signal (read from the caller's signalfd) does the same with 128+N.
 */
#include "call.h"
#include "catalog.h"
#include "era.h"
#include "mono.h"
#include "orphans.h"
#include "signal_read.h"
#include "task.h"
#include "tool.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The input buffer holds one line of up to max_line bytes plus one read. */
#define READ_SIZE 65536

/* How long requests are handled at a stretch before the runs move on: a
 * flood of requests must not hold a call past its deadline. */
#define LINES_BUDGET_MS 20.0

struct server {
    const struct mcp_config *cfg;
    struct registry runs; /* the runs and tasks held */
    struct calls calls;   /* the tools/call requests waiting on runs */
    int advance_ms;       /* when the runs must be looked at next; -1 */
    char *line;
    size_t len;
    struct pollfd *pfds; /* the poll set, grown as calls are added */
    size_t pfds_cap;
    bool skipping; /* inside a line that was too long */
    bool backlog;  /* complete lines wait: taken after the runs moved */
    bool eof;
    int stop_signal; /* a signal that asked the server to stop, or 0 */
    struct spill_dir spill;
};

/* How long the end waits for a client that does not read its replies. */
#define FINAL_FLUSH_MS 10000

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

static void handle_message(struct server *sv, const char *text, size_t len)
{
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

/* Takes the complete lines out of the input buffer, for at most
 * LINES_BUDGET_MS; what is left waits for the next turn (sv->backlog). */
static void take_lines(struct server *sv)
{
    size_t start = 0;
    double until = mono_ms() + LINES_BUDGET_MS;
    sv->backlog = false;
    for (;;) {
        char *nl = memchr(sv->line + start, '\n', sv->len - start);
        if (nl == NULL)
            break;
        if (mono_ms() > until) {
            sv->backlog = true;
            break;
        }
        size_t end = (size_t)(nl - sv->line), n = end - start;
        if (n > 0 && sv->line[end - 1] == '\r')
            n--;
        if (sv->skipping)
            sv->skipping = false;
        else if (n > 0)
            handle_message(sv, sv->line + start, n);
        start = end + 1;
    }
    memmove(sv->line, sv->line + start, sv->len - start);
    sv->len -= start;
    if (!sv->backlog && sv->len > sv->cfg->max_line) {
        if (!sv->skipping) {
            char why[128];
            snprintf(why, sizeof(why),
                     "Parse error: message longer than %zu "
                     "bytes",
                     sv->cfg->max_line);
            rpc_error(NULL, RPC_PARSE_ERROR, why);
        }
        sv->skipping = true;
        sv->len = 0;
    }
}

/* The input has ended: a last line without its newline still counts. */
static void end_input(struct server *sv)
{
    sv->eof = true;
    if (sv->len > 0 && !sv->skipping)
        handle_message(sv, sv->line, sv->len);
    /* clang-analyzer sees mcp_feed()'s buffer leak on the next line;
     * end_server() frees it on every path. */
    sv->len = 0; // NOLINT(clang-analyzer-unix.Malloc)
}

static void read_input(struct server *sv)
{
    size_t room = sv->cfg->max_line + READ_SIZE - sv->len;
    ssize_t n =
        read(0, sv->line + sv->len, room < READ_SIZE ? room : READ_SIZE);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        end_input(sv);
        return;
    }
    sv->len += (size_t)n;
    take_lines(sv);
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
    double next = call_advance(g, &sv->calls);
    soonest(&next, task_advance(g));
    soonest(&next, registry_drop_forgotten(g));
    sv->advance_ms = next < 0 ? -1 : next > 1e9 ? 1000000000 : (int)next + 1;
    if (sv->cfg->subreaper && registry_runs_going(g) < going)
        orphans_end_but(-1, ORPHANS_MAX_MS, NULL, keep_child, &sv->runs);
}

/* What the poll found: a writable stdout, a stop signal, exited
 * children, requests. */
static void take_events(struct server *sv, const struct pollfd *p)
{
    struct sink *out = rpc_sink();
    if (p[1].revents != 0)
        sink_flush(out);
    if (p[2].revents != 0)
        sv->stop_signal = signal_read(sv->cfg->stop_fd);
    /* Orphans are reaped as they exit, as init would: a held run's
     * short-lived helpers must not pile up as zombies. */
    if (p[3].revents != 0)
        orphans_reap(sv->cfg->child_fd, run_leader, &sv->runs);
    if (p[0].revents != 0)
        read_input(sv);
}

/* Waits for a request, a run's progress, a writable stdout, a stop signal
 * or the moment a call is due. Requests are not read while replies pile
 * up unread. */
static void wait_for_work(struct server *sv)
{
    size_t need = (size_t)sv->runs.nruns * BSH_POLLFDS_MAX + 4;
    if (need > sv->pfds_cap) {
        struct pollfd *grown = realloc(sv->pfds, need * 2 * sizeof(*grown));
        if (grown == NULL)
            return;
        sv->pfds = grown;
        sv->pfds_cap = need * 2;
    }
    struct sink *out = rpc_sink();
    struct pollfd *p = sv->pfds;
    int timeout = sv->advance_ms;
    p[0] = (struct pollfd){sv->eof || sv->backlog || sink_full(out) ? -1 : 0,
                           POLLIN, 0};
    p[1] = (struct pollfd){sink_pending(out) ? out->fd : -1, POLLOUT, 0};
    p[2] = (struct pollfd){sv->cfg->stop_fd, POLLIN, 0};
    p[3] = (struct pollfd){sv->cfg->child_fd, POLLIN, 0};
    nfds_t n = 4;
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
    if (sv->backlog && !sink_full(out))
        timeout = 0; /* more requests are waiting in the buffer */
    int ready = poll(p, n, timeout);
    for (struct mcp_run *r = sv->runs.runs; r != NULL; r = r->next)
        if (!r->ended)
            bsh_stream_polled(r->stream, p + r->poll_first, r->poll_count);
    if (ready > 0)
        take_events(sv, p);
    if (sv->backlog && !sink_full(out) && p[0].revents == 0)
        take_lines(sv); /* (not when read_input() just took lines) */
}

/* After the last request: every reply still queued goes out, unless the
 * client stops reading for FINAL_FLUSH_MS or a stop signal comes. */
static void flush_replies(struct server *sv)
{
    struct sink *out = rpc_sink();
    while (sink_pending(out) && sv->stop_signal == 0) {
        struct pollfd p[2] = {{out->fd, POLLOUT, 0},
                              {sv->cfg->stop_fd, POLLIN, 0}};
        if (poll(p, 2, FINAL_FLUSH_MS) <= 0) {
            mcp_log("the client stopped reading; %zu bytes of replies "
                    "dropped",
                    sink_queued(out));
            return;
        }
        if (p[1].revents != 0)
            sv->stop_signal = signal_read(sv->cfg->stop_fd);
        if (p[0].revents != 0)
            sink_flush(out);
    }
}

/* The client is gone: kill every run, drop every call. */
static void end_server(struct server *sv)
{
    task_end_all(&sv->runs);
    call_end_all(&sv->calls);
    registry_end_all(&sv->runs);
    if (sv->cfg->subreaper)
        orphans_end(-1, ORPHANS_MAX_MS, NULL);
    free(sv->line);
    free(sv->pfds);
    spill_dir_finish(&sv->spill);
}

/* Allocates the input buffer; false when out of memory. */
static bool start_server(struct server *sv, const struct mcp_config *cfg)
{
    memset(sv, 0, sizeof(*sv));
    sv->cfg = cfg;
    registry_init(&sv->runs, cfg, &sv->spill);
    sv->advance_ms = -1;
    spill_dir_init(&sv->spill, cfg->keep_logs, SPILL_FILE_MAX, SPILL_TOTAL_MAX);
    sv->line = malloc(cfg->max_line + READ_SIZE);
    return sv->line != NULL;
}

int mcp_serve(const struct mcp_config *cfg)
{
    struct server sv;
    if (!start_server(&sv, cfg)) {
        mcp_log("out of memory");
        return 1;
    }
    rpc_open(1);
    mcp_log("serving bash_run on stdio (bsh %s)", bsh_version());
    while (!sv.eof && sv.stop_signal == 0) {
        wait_for_work(&sv);
        advance_runs(&sv);
    }
    end_server(&sv);
    flush_replies(&sv);
    rpc_close();
    return sv.stop_signal != 0 ? 128 + sv.stop_signal : 0;
}

void mcp_feed(const struct mcp_config *cfg, const char *data, size_t len)
{
    struct server sv;
    if (!start_server(&sv, cfg))
        return;
    while (len > 0) {
        size_t room = cfg->max_line + READ_SIZE - sv.len;
        size_t n = len < room ? len : room;
        memcpy(sv.line + sv.len, data, n);
        sv.len += n;
        data += n;
        len -= n;
        do {
            take_lines(&sv);
            advance_runs(&sv);
        } while (sv.backlog);
    }
    end_input(&sv);
    end_server(&sv);
}
