/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "http_server.h"
#include "http_internal.h"
#include "listen_addr.h"
#include "mono.h"
#include "rpc.h"

#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* How often the clients' deadlines and the kept streams are looked at. */
#define SWEEP_MS 250.0

/* ---- the library's callbacks -------------------------------------------- */

/* The request's head has come: admitted, or answered at once. */
static enum MHD_Result begin(struct http_server *hs, struct MHD_Connection *c,
                             const char *url, const char *method, void **cls)
{
    struct exchange *ex = calloc(1, sizeof(*ex));
    if (ex == NULL)
        return MHD_NO;
    ex->hs = hs;
    ex->conn = c;
    ex->token = -1;
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    ex->client = info != NULL ? info->socket_context : NULL;
    *cls = ex;
    if (!http_admitted(ex, url))
        return MHD_YES;
    if (ex->kind == EX_MCP && strcmp(method, MHD_HTTP_METHOD_POST) == 0)
        http_post_head_ok(ex);
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
                                  const char *url, const char *method,
                                  const char *version, const char *data,
                                  size_t *size, void **req_cls)
{
    (void)version;
    struct exchange *ex = *req_cls;
    if (ex == NULL)
        return begin(cls, c, url, method, req_cls);
    if (*size > 0) {
        /* Past the bound the rest is read and dropped (the client's
         * deadline bounds that): the library cannot answer mid-body. */
        if (!ex->answered && !ex->too_large &&
            !http_take_body(ex, data, *size)) {
            ex->too_large = true;
            free(ex->body);
            ex->body = NULL;
            ex->len = ex->cap = 0;
        }
        *size = 0;
        return MHD_YES;
    }
    if (ex->client != NULL)
        ex->client->deadline_ms = -1; /* the whole request has come */
    if (ex->answered)
        return MHD_YES;
    if (ex->too_large)
        return http_too_large(ex);
    if (ex->gone)
        return MHD_NO; /* the library closes the connection */
    if (ex->stream != NULL || ex->counted)
        return http_answer_from_stream(ex);
    if (ex->kind == EX_PROBE)
        return http_answer_probe(ex, url);
    /* A request whose head came before the drain, its body after. */
    if (ex->hs->draining || ex->hs->closing)
        return http_unavailable(ex, "the server is shutting down");
    if (strcmp(method, MHD_HTTP_METHOD_POST) == 0)
        return http_handle_post(ex);
    if (strcmp(method, MHD_HTTP_METHOD_GET) == 0)
        return http_handle_get(ex);
    if (strcmp(method, MHD_HTTP_METHOD_DELETE) == 0)
        return http_handle_delete(ex);
    static const char *const h[] = {MHD_HTTP_HEADER_ALLOW, "POST, GET, DELETE",
                                    NULL};
    return http_refuse(ex, MHD_HTTP_METHOD_NOT_ALLOWED, RPC_SERVER_BUSY,
                       "Method Not Allowed", json_null(), h);
}

/* The request is over (answered, or its connection gone). */
static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
                         enum MHD_RequestTerminationCode why)
{
    (void)c, (void)why;
    struct http_server *hs = cls;
    struct exchange *ex = *req_cls;
    if (ex == NULL)
        return;
    *req_cls = NULL;
    if (ex->stream != NULL && ex->stream->reader == ex)
        ex->stream->reader = NULL; /* its stream goes on, to be resumed */
    if (ex->counted)
        hs->answering--;
    if (ex->client != NULL)
        ex->client->deadline_ms =
            mono_ms() + (double)hs->opts->client_timeout_ms;
    free(ex->chunk);
    free(ex->body);
    free(ex);
}

static void on_connection(void *cls, struct MHD_Connection *c,
                          void **socket_ctx,
                          enum MHD_ConnectionNotificationCode code)
{
    struct http_server *hs = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        struct client *cl = calloc(1, sizeof(*cl));
        const union MHD_ConnectionInfo *info =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (cl == NULL)
            return;
        cl->fd = info != NULL ? info->connect_fd : -1;
        cl->deadline_ms = mono_ms() + (double)hs->opts->client_timeout_ms;
        cl->over = ++hs->nclients > hs->opts->max_connections;
        cl->next = hs->clients;
        hs->clients = cl;
        *socket_ctx = cl;
        return;
    }
    struct client *cl = *socket_ctx;
    if (cl == NULL)
        return;
    for (struct client **pp = &hs->clients; *pp != NULL; pp = &(*pp)->next)
        if (*pp == cl) {
            *pp = cl->next;
            break;
        }
    hs->nclients--;
    free(cl);
}

/* ---- the transport the server loop sees --------------------------------- */

/* Drops the clients that have not sent a whole request in time (408
 * where it can still be said), and the streams kept past their time. */
static void sweep(struct http_server *hs)
{
    double now = mono_ms();
    if (now < hs->next_sweep_ms)
        return;
    hs->next_sweep_ms = now + SWEEP_MS;
    static const char timeout[] = "HTTP/1.1 408 Request Timeout\r\n"
                                  "Connection: close\r\nContent-Length: 0\r\n"
                                  "\r\n";
    for (struct client *cl = hs->clients; cl != NULL; cl = cl->next)
        if (cl->deadline_ms >= 0 && now > cl->deadline_ms && cl->fd >= 0) {
            (void)!send(cl->fd, timeout, sizeof(timeout) - 1,
                        MSG_DONTWAIT | MSG_NOSIGNAL);
            shutdown(cl->fd, SHUT_RDWR);
            cl->deadline_ms = -1;
        }
    for (struct owner *o = hs->owners; o != NULL; o = o->next) {
        owner_sweep(o, now);
        http_keep_alive(o, now, false);
    }
}

static struct http_server *hs_of(struct transport *t)
{
    return (struct http_server *)t;
}

static int http_pollfds(struct transport *t, struct pollfd *p, int max,
                        int *timeout_ms)
{
    struct http_server *hs = hs_of(t);
    if (max < 1)
        return 0;
    p[0] = (struct pollfd){hs->epoll_fd, POLLIN, 0};
    MHD_UNSIGNED_LONG_LONG ms;
    int want = (int)SWEEP_MS;
    if (MHD_get_timeout(hs->d, &ms) == MHD_YES && ms < (unsigned)want)
        want = (int)ms;
    if (hs->draining) {
        double left = hs->drain_until_ms - mono_ms();
        if (left < want)
            want = left < 0 ? 0 : (int)left + 1;
    }
    if (hs->woken) /* the library takes resumed connections in its run */
        want = 0;
    if (*timeout_ms < 0 || want < *timeout_ms)
        *timeout_ms = want;
    return 1;
}

static void http_polled(struct transport *t, const struct pollfd *p, int n)
{
    (void)p, (void)n;
    struct http_server *hs = hs_of(t);
    hs->woken = false;
    MHD_run(hs->d);
    sweep(hs);
}

// NOLINTNEXTLINE(readability-non-const-parameter): the transport's signature
static void http_send(struct transport *t, char *text, size_t len,
                      bool droppable)
{
    (void)t, (void)text, (void)len, (void)droppable; /* spaces use outboxes */
}

static bool http_ended(const struct transport *t)
{
    const struct http_server *hs = (const struct http_server *)t;
    return hs->draining &&
           (hs->answering == 0 || mono_ms() >= hs->drain_until_ms);
}

static bool http_flush(struct transport *t, int stop_fd)
{
    (void)t, (void)stop_fd;
    return false;
}

static void http_drain(struct transport *t)
{
    struct http_server *hs = hs_of(t);
    hs->draining = true;
    hs->drain_until_ms = mono_ms() + (double)hs->opts->drain_timeout_ms;
    for (struct owner *o = hs->owners; o != NULL; o = o->next)
        for (struct stream *s = o->streams; s != NULL; s = s->next)
            if (s->request_id == NULL)
                stream_end(s); /* the owner's own streams end now */
    mcp_log("draining: new requests get 503, runs are ended");
}

static void http_close(struct transport *t)
{
    struct http_server *hs = hs_of(t);
    /* The streams go (their readers are resumed); the stop then closes
     * every connection, suspended ones included, and the listening socket:
     * no request is served any more, none can start a run. */
    hs->closing = true;
    while (hs->owners != NULL) {
        struct owner *o = hs->owners;
        hs->owners = o->next;
        owner_end(o);
        free(o); /* its space was dropped by the server loop */
    }
    if (hs->d != NULL)
        MHD_stop_daemon(hs->d);
    else if (hs->listen_fd >= 0)
        close(hs->listen_fd);
    if (hs->opts->listen != NULL)
        listen_close(-1, hs->opts->listen); /* a unix socket's file */
    tokens_free(&hs->tokens);
    free(hs);
}

bool http_add_client(struct transport *t, int fd)
{
    struct sockaddr_in from = {.sin_family = AF_INET,
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    return MHD_add_connection(hs_of(t)->d, fd, (struct sockaddr *)&from,
                              sizeof(from)) == MHD_YES;
}

static const struct transport_ops http_ops = {
    http_pollfds, http_polled, http_send,  http_ended,
    http_flush,   http_close,  http_drain,
};

/* ---- opening ------------------------------------------------------------ */

static void log_error(void *cls, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

static void log_error(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char line[512];
    vsnprintf(line, sizeof(line), fmt, ap);
    /* On a unix socket the library's TCP corking fails, harmlessly. */
    if (strncmp(line, "Failed to push the data", 23) == 0)
        return;
    line[strcspn(line, "\n")] = '\0';
    mcp_log("http: %s", line);
}

static bool start_daemon(struct http_server *hs, char *why, size_t why_size)
{
    const struct mcp_http_opts *o = hs->opts;
    unsigned timeout_s = (unsigned)((o->client_timeout_ms + 999) / 1000);
    bool listening = hs->listen_fd >= 0;
    hs->d = MHD_start_daemon(
        MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_TURBO |
            MHD_USE_ERROR_LOG | (listening ? 0 : MHD_USE_NO_LISTEN_SOCKET),
        0, NULL, NULL, on_request, hs, MHD_OPTION_EXTERNAL_LOGGER, log_error,
        hs, MHD_OPTION_CONNECTION_LIMIT,
        o->max_connections + OVERFLOW_CONNECTIONS,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_s,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, o->max_header_bytes + 16384,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, hs,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, hs,
        MHD_OPTION_SIGPIPE_HANDLED_BY_APP, 1,
        /* last: without a socket of its own, the list ends here */
        listening ? MHD_OPTION_LISTEN_SOCKET : MHD_OPTION_END, hs->listen_fd,
        MHD_OPTION_END);
    if (hs->d == NULL) {
        snprintf(why, why_size,
                 "--listen %.200s: the HTTP server did not start",
                 o->listen != NULL ? o->listen : "(none)");
        return false;
    }
    const union MHD_DaemonInfo *info =
        MHD_get_daemon_info(hs->d, MHD_DAEMON_INFO_EPOLL_FD);
    hs->epoll_fd = info != NULL ? info->epoll_fd : -1;
    if (hs->epoll_fd >= 0)
        return true;
    snprintf(why, why_size, "the HTTP library has no epoll fd to poll");
    MHD_stop_daemon(hs->d); /* it closed the listening socket */
    hs->d = NULL;
    hs->listen_fd = -1;
    return false;
}

struct transport *http_open(const struct mcp_config *cfg, struct server *sv,
                            char *why, size_t why_size)
{
    struct http_server *hs = calloc(1, sizeof(*hs));
    if (hs == NULL) {
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    hs->t.ops = &http_ops;
    hs->cfg = cfg;
    hs->opts = cfg->http;
    hs->sv = sv;
    hs->listen_fd = -1;
    bool loopback = true;
    if (hs->opts->token_file != NULL &&
        !tokens_load(&hs->tokens, hs->opts->token_file, why, why_size))
        goto fail;
    if (hs->opts->listen != NULL &&
        (hs->listen_fd =
             listen_open(hs->opts->listen, &loopback, why, why_size)) < 0)
        goto fail;
    if (!loopback && hs->tokens.count == 0) {
        snprintf(why, why_size,
                 "--listen %.200s: not a loopback address, so every request "
                 "needs a token: give --token-file FILE",
                 hs->opts->listen);
        goto fail;
    }
    if (!start_daemon(hs, why, why_size))
        goto fail;
    if (hs->listen_fd >= 0) {
        char name[300];
        listen_name(hs->listen_fd, hs->opts->listen, name, sizeof(name));
        mcp_log("serving bash_run over HTTP on %s/mcp (bsh %s)", name,
                bsh_version());
    }
    return &hs->t;
fail:
    if (hs->listen_fd >= 0)
        listen_close(hs->listen_fd, hs->opts->listen);
    tokens_free(&hs->tokens);
    free(hs);
    return NULL;
}
