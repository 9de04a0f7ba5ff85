/* SPDX-License-Identifier: MIT */
/*
 * The MCP server's loop: one poll over the transport's fds (stdin and
 * stdout, or the HTTP listener's) and every run's own fds, so a long run
 * never delays the answer to another request; the poll's timeout is when
 * a waiting call is next due (its yield, progress, a look at a quiet
 * terminal). Over stdio the end of the input kills every run and ends the
 * server with status 0, and a stop signal does the same with 128+N; over
 * HTTP a stop signal drains the transport first and the server ends
 * with 0.
 */
#include "server.h"
#include "http_server.h"
#include "mono.h"
#include "orphans.h"
#include "rpc.h"
#include "signal_read.h"
#include "stdio_transport.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The fds of the transport at the start of the poll array, then the
 * stop signal's and the exited children's, then the runs'. */
#define TRANSPORT_FDS_MAX 4
struct server {
    const struct mcp_config *cfg;
    struct mcp_space *spaces;
    struct registry_shared shared; /* run and task numbers, runs held */
    int advance_ms; /* when the runs must be looked at next; -1 */
    struct transport *conn;
    struct pollfd *pfds; /* the poll set, grown as calls are added */
    size_t pfds_cap;
    int stop_signal; /* a signal that asked the server to stop, or 0 */
    bool draining;   /* since the first stop signal (HTTP) */
    bool drain_over; /* a second stop signal: no more waiting */
    struct spill_dir spill;
};

/* How long ending the orphans of calls may take. */
#define ORPHANS_MAX_MS 1000

struct mcp_space *server_space_new(struct server *sv, struct transport *out)
{
    struct mcp_space *s = malloc(sizeof(*s));
    if (s == NULL)
        return NULL;
    space_init(s, sv->cfg, &sv->spill, &sv->shared, out);
    s->next = sv->spaces;
    sv->spaces = s;
    return s;
}

void server_space_drop(struct server *sv, struct mcp_space *s)
{
    for (struct mcp_space **pp = &sv->spaces; *pp != NULL; pp = &(*pp)->next)
        if (*pp == s) {
            *pp = s->next;
            space_end(s);
            free(s);
            return;
        }
}

int server_runs_held(const struct server *sv)
{
    return sv->shared.nruns;
}

void server_wake(struct server *sv)
{
    sv->advance_ms = 0;
}

/* Whether `pid` is the bash of a run still going, or was started
 * (within a clock tick) after one began: it may have come from it. */
static bool keep_child_of(const struct registry *g, pid_t pid, double *born)
{
    for (const struct mcp_run *r = g->runs; r != NULL; r = r->next) {
        if (r->ended)
            continue;
        if (bsh_stream_pid(r->stream) == (int)pid)
            return true;
        if (*born == -2)
            *born = orphans_born_ms(pid);
        if (*born < 0 || r->boot_started_ms <= *born + orphans_tick_ms())
            return true;
    }
    return false;
}

/* Which children of ours to leave alone when a run has ended: the runs
 * still going (their bash), and any process that may have come from one
 * of them. An orphan does not say which run it came from, but it was
 * started while the run it came from was going: one started (within a
 * clock tick) before every run still going began came from a run that
 * has ended, and is killed. */
static bool keep_child(pid_t pid, void *ctx)
{
    const struct server *sv = ctx;
    double born = -2;
    for (const struct mcp_space *s = sv->spaces; s != NULL; s = s->next)
        if (keep_child_of(&s->runs, pid, &born))
            return true;
    return false;
}

/* The runs' own bash, which the library reaps with its status. */
static bool run_leader(pid_t pid, void *ctx)
{
    const struct server *sv = ctx;
    for (const struct mcp_space *s = sv->spaces; s != NULL; s = s->next)
        for (const struct mcp_run *r = s->runs.runs; r != NULL; r = r->next)
            if (!r->ended && bsh_stream_pid(r->stream) == (int)pid)
                return true;
    return false;
}

static int runs_going(const struct server *sv)
{
    int n = 0;
    for (const struct mcp_space *s = sv->spaces; s != NULL; s = s->next)
        n += registry_runs_going(&s->runs);
    return n;
}

/* Moves every space forward without blocking: takes what the runs have
 * ready, answers the calls whose moment has come, sends progress,
 * follows the tasks, drops the runs that are done with; then when
 * something is next due. */
static void advance_runs(struct server *sv)
{
    int going = runs_going(sv);
    double next = -1;
    for (struct mcp_space *s = sv->spaces; s != NULL; s = s->next)
        mono_soonest(&next, space_advance(s));
    sv->advance_ms = next < 0 ? -1 : next > 1e9 ? 1000000000 : (int)next + 1;
    if (sv->cfg->subreaper && runs_going(sv) < going)
        orphans_end_but(-1, ORPHANS_MAX_MS, NULL, keep_child, sv);
}

/* What the poll found: a stop signal, exited children, then the
 * transport's requests and replies. */
static void take_events(struct server *sv, const struct pollfd *p, int nconn)
{
    if (p[nconn].revents != 0) {
        int sig = signal_read(sv->cfg->stop_fd);
        if (sig != 0 && sv->draining)
            sv->drain_over = true;
        if (sig != 0)
            sv->stop_signal = sig;
    }
    /* Orphans are reaped as they exit, as init would: a held run's
     * short-lived helpers must not pile up as zombies. */
    if (p[nconn + 1].revents != 0)
        orphans_reap(sv->cfg->child_fd, run_leader, sv);
    sv->conn->ops->polled(sv->conn, p, nconn);
}

/* Room in the poll set for every run's fds. */
static bool grow_pollset(struct server *sv)
{
    size_t need =
        (size_t)sv->shared.nruns * BSH_POLLFDS_MAX + TRANSPORT_FDS_MAX + 2;
    if (need <= sv->pfds_cap)
        return true;
    struct pollfd *grown = realloc(sv->pfds, need * 2 * sizeof(*grown));
    if (grown == NULL)
        return false;
    sv->pfds = grown;
    sv->pfds_cap = need * 2;
    return true;
}

/* Adds each run's own fds to the poll set at `*n`, lowering `*timeout`
 * to when a run is next due. */
static void add_run_fds(struct registry *g, struct pollfd *p, nfds_t *n,
                        int *timeout)
{
    for (struct mcp_run *r = g->runs; r != NULL; r = r->next) {
        if (r->ended)
            continue;
        int wait_ms = -1;
        r->poll_first = (int)*n;
        r->poll_count =
            bsh_stream_pollfds(r->stream, p + *n, BSH_POLLFDS_MAX, &wait_ms);
        if (r->poll_count < 0)
            r->poll_count = 0;
        *n += (nfds_t)r->poll_count;
        if (wait_ms >= 0 && (*timeout < 0 || wait_ms < *timeout))
            *timeout = wait_ms;
    }
}

/* Waits for a request, a run's progress, a writable output, a stop
 * signal or the moment a call is due. */
static void wait_for_work(struct server *sv)
{
    if (!grow_pollset(sv))
        return;
    struct pollfd *p = sv->pfds;
    int timeout = sv->advance_ms;
    int nconn =
        sv->conn->ops->pollfds(sv->conn, p, TRANSPORT_FDS_MAX, &timeout);
    p[nconn] = (struct pollfd){sv->cfg->stop_fd, POLLIN, 0};
    p[nconn + 1] = (struct pollfd){sv->cfg->child_fd, POLLIN, 0};
    nfds_t n = (nfds_t)nconn + 2;
    /* Each run's own fds, in this one array: no epoll set, timer or
     * eventfd per run, and the runs read only what this poll found. */
    for (struct mcp_space *s = sv->spaces; s != NULL; s = s->next)
        add_run_fds(&s->runs, p, &n, &timeout);
    int ready = poll(p, n, timeout);
    for (struct mcp_space *s = sv->spaces; s != NULL; s = s->next)
        for (struct mcp_run *r = s->runs.runs; r != NULL; r = r->next)
            if (!r->ended)
                bsh_stream_polled(r->stream, p + r->poll_first, r->poll_count);
    if (ready < 0)
        for (nfds_t i = 0; i < n; i++)
            p[i].revents = 0;
    take_events(sv, p, nconn);
}

/* The clients are gone: kill every run, drop every call. */
static void end_server(struct server *sv)
{
    while (sv->spaces != NULL)
        server_space_drop(sv, sv->spaces);
    if (sv->cfg->subreaper)
        orphans_end(-1, ORPHANS_MAX_MS, NULL);
    free(sv->pfds);
    spill_dir_finish(&sv->spill);
}

static void stdio_message(void *ctx, const char *text, size_t len)
{
    space_message(ctx, text, len);
}

static void stdio_refused(void *ctx, const char *why)
{
    space_refused(ctx, why);
}

/* The one client on stdin and stdout, in the one space. */
static bool open_stdio(struct server *sv)
{
    struct mcp_space *s = server_space_new(sv, NULL);
    if (s == NULL)
        return false;
    struct transport_handler on = {stdio_message, stdio_refused, s};
    s->out = sv->conn = stdio_open(sv->cfg->max_line, on);
    return sv->conn != NULL;
}

static void init_server(struct server *sv, const struct mcp_config *cfg)
{
    memset(sv, 0, sizeof(*sv));
    sv->cfg = cfg;
    sv->advance_ms = -1;
    spill_dir_init(&sv->spill, cfg->keep_logs, SPILL_FILE_MAX, SPILL_TOTAL_MAX);
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

/* Whether the loop goes on. After a stop signal, a transport that drains
 * (HTTP) refuses what is new while the runs are ended and what is under
 * way is answered; a second signal ends that wait. */
static bool keep_serving(struct server *sv)
{
    if (sv->conn->ops->ended(sv->conn))
        return false;
    if (sv->stop_signal == 0)
        return true;
    if (sv->conn->ops->drain == NULL || sv->drain_over)
        return false;
    if (!sv->draining) {
        sv->draining = true;
        sv->conn->ops->drain(sv->conn);
        for (struct mcp_space *s = sv->spaces; s != NULL; s = s->next)
            space_cancel_runs(s);
        sv->advance_ms = 0;
    }
    return true;
}

int mcp_serve(const struct mcp_config *cfg)
{
    struct server sv;
    init_server(&sv, cfg);
    bool http = cfg->http != NULL;
    if (http) {
        char why[512];
        sv.conn = http_open(cfg, &sv, why, sizeof(why));
        if (sv.conn == NULL) {
            mcp_log("%s", why);
            end_server(&sv);
            return 125;
        }
    } else if (!open_stdio(&sv)) {
        mcp_log("out of memory");
        end_server(&sv);
        return 1;
    }
    if (!http)
        mcp_log("serving bash_run on stdio (bsh %s)", bsh_version());
    while (keep_serving(&sv)) {
        wait_for_work(&sv);
        advance_runs(&sv);
    }
    end_server(&sv);
    if (http) {
        rpc_open(NULL);
        sv.conn->ops->close(sv.conn);
        return 0;
    }
    stop_server(&sv);
    return sv.stop_signal != 0 ? 128 + sv.stop_signal : 0;
}

/* Hands `fd` what of data it takes now; the rest waits. */
static void feed_some(int fd, const char **data, size_t *len)
{
    ssize_t n = *len > 0 ? write(fd, *data, *len) : 0;
    if (n > 0) {
        *data += n;
        *len -= (size_t)n;
        if (*len == 0)
            shutdown(fd, SHUT_WR);
    }
}

/* The turns a fed HTTP client gets: enough for every answer of a dry run. */
#define HTTP_FEED_TURNS 64

void mcp_http_feed(const struct mcp_config *cfg, const char *data, size_t len)
{
    struct server sv;
    init_server(&sv, cfg);
    char why[512];
    int fds[2] = {-1, -1};
    sv.conn = http_open(cfg, &sv, why, sizeof(why));
    if (sv.conn == NULL ||
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
                   fds) < 0 ||
        !http_add_client(sv.conn, fds[0])) {
        if (fds[0] >= 0)
            close(fds[0]);
    } else {
        if (len == 0)
            shutdown(fds[1], SHUT_WR);
        char sink[4096];
        for (int turn = 0; turn < HTTP_FEED_TURNS; turn++) {
            feed_some(fds[1], &data, &len);
            sv.advance_ms = 0;
            wait_for_work(&sv);
            advance_runs(&sv);
            if (read(fds[1], sink, sizeof(sink)) == 0)
                break; /* the server closed the connection */
        }
    }
    if (fds[1] >= 0)
        close(fds[1]);
    end_server(&sv);
    rpc_open(NULL);
    if (sv.conn != NULL)
        sv.conn->ops->close(sv.conn);
}

void mcp_feed(const struct mcp_config *cfg, const char *data, size_t len)
{
    struct server sv;
    init_server(&sv, cfg);
    if (!open_stdio(&sv)) {
        end_server(&sv);
        return;
    }
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
