/* SPDX-License-Identifier: MIT */
#include "stdio_transport.h"
#include "mono.h"
#include "rpc.h"
#include "sink.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The input buffer holds one line of up to max_line bytes plus one read. */
#define READ_SIZE 65536

/* How long lines are handed over at a stretch before the runs move on: a
 * flood of requests must not hold a call past its deadline. */
#define LINES_BUDGET_MS 20.0

/* Replies wait in the queue while the client does not read; requests
 * are not read once this much waits, notifications are dropped. */
#define QUEUE_LIMIT  (1u << 20)
#define NOTIFY_LIMIT (64u << 10)

/* How long the end waits for a client that does not read its replies. */
#define FINAL_FLUSH_MS 10000

struct stdio_conn {
    struct transport t; /* first: the server's handle */
    struct sink out;
    size_t max_line;
    char *line;
    size_t len;
    bool skipping; /* inside a line that was too long */
    bool backlog;  /* complete lines wait: handed over on the next turn */
    bool eof;
    bool told; /* a failed write was logged */
};

static struct stdio_conn *conn_of(struct transport *t)
{
    return (struct stdio_conn *)t;
}

/* Hands over the complete lines in the buffer, for at most
 * LINES_BUDGET_MS; what is left waits for the next turn (backlog). */
static void take_lines(struct stdio_conn *c)
{
    size_t start = 0;
    double until = mono_ms() + LINES_BUDGET_MS;
    c->backlog = false;
    for (;;) {
        char *nl = memchr(c->line + start, '\n', c->len - start);
        if (nl == NULL)
            break;
        if (mono_ms() > until) {
            c->backlog = true;
            break;
        }
        size_t end = (size_t)(nl - c->line), n = end - start;
        if (n > 0 && c->line[end - 1] == '\r')
            n--;
        if (c->skipping)
            c->skipping = false;
        else if (n > 0)
            c->t.on.message(c->t.on.ctx, c->line + start, n);
        start = end + 1;
    }
    memmove(c->line, c->line + start, c->len - start);
    c->len -= start;
    if (!c->backlog && c->len > c->max_line) {
        if (!c->skipping) {
            char why[128];
            snprintf(why, sizeof(why),
                     "Parse error: message longer than %zu bytes", c->max_line);
            c->t.on.refused(c->t.on.ctx, why);
        }
        c->skipping = true;
        c->len = 0;
    }
}

void stdio_end_input(struct transport *t)
{
    struct stdio_conn *c = conn_of(t);
    c->eof = true;
    if (c->len > 0 && !c->skipping)
        c->t.on.message(c->t.on.ctx, c->line, c->len);
    c->len = 0;
}

static void read_input(struct stdio_conn *c)
{
    size_t room = c->max_line + READ_SIZE - c->len;
    ssize_t n = read(0, c->line + c->len, room < READ_SIZE ? room : READ_SIZE);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        stdio_end_input(&c->t);
        return;
    }
    c->len += (size_t)n;
    take_lines(c);
}

size_t stdio_feed(struct transport *t, const char *data, size_t len)
{
    struct stdio_conn *c = conn_of(t);
    size_t room = c->max_line + READ_SIZE - c->len;
    size_t n = len < room ? len : room;
    if (n > 0)
        memcpy(c->line + c->len, data, n);
    c->len += n;
    take_lines(c);
    return n;
}

bool stdio_backlog(const struct transport *t)
{
    return ((const struct stdio_conn *)t)->backlog;
}

/* stdin while requests may be read (not at its end, not while lines
 * wait, not while replies pile up unread); stdout while replies wait. */
static int stdio_pollfds(struct transport *t, struct pollfd *p, int max,
                         int *timeout_ms)
{
    struct stdio_conn *c = conn_of(t);
    if (max < 2)
        return 0;
    bool full = sink_full(&c->out);
    p[0] = (struct pollfd){c->eof || c->backlog || full ? -1 : 0, POLLIN, 0};
    p[1] = (struct pollfd){sink_pending(&c->out) ? c->out.fd : -1, POLLOUT, 0};
    if (c->backlog && !full)
        *timeout_ms = 0; /* more requests wait in the buffer */
    return 2;
}

static void stdio_polled(struct transport *t, const struct pollfd *p, int n)
{
    struct stdio_conn *c = conn_of(t);
    if (n < 2)
        return;
    if (p[1].revents != 0)
        sink_flush(&c->out);
    if (p[0].revents != 0)
        read_input(c);
    else if (c->backlog && !sink_full(&c->out))
        take_lines(c);
}

static void stdio_send(struct transport *t, char *text, size_t len,
                       bool droppable)
{
    struct stdio_conn *c = conn_of(t);
    if (droppable && sink_pending(&c->out) &&
        sink_queued(&c->out) >= NOTIFY_LIMIT)
        return;       /* advisory: dropped while the client lags */
    text[len] = '\n'; /* the line goes out in one write */
    if (sink_write(&c->out, text, len + 1) < 0 && c->out.error != EPIPE &&
        !c->told) {
        mcp_log("cannot write to stdout: %s", strerror(c->out.error));
        c->told = true;
    }
}

static bool stdio_ended(const struct transport *t)
{
    return ((const struct stdio_conn *)t)->eof;
}

/* Every reply still queued goes out, unless the client stops reading for
 * FINAL_FLUSH_MS or `stop_fd` becomes readable. */
static bool stdio_flush(struct transport *t, int stop_fd)
{
    struct stdio_conn *c = conn_of(t);
    while (sink_pending(&c->out)) {
        struct pollfd p[2] = {{c->out.fd, POLLOUT, 0}, {stop_fd, POLLIN, 0}};
        if (poll(p, 2, FINAL_FLUSH_MS) <= 0) {
            mcp_log("the client stopped reading; %zu bytes of replies "
                    "dropped",
                    sink_queued(&c->out));
            return false;
        }
        if (p[1].revents != 0)
            return true;
        sink_flush(&c->out);
    }
    return false;
}

static void stdio_close(struct transport *t)
{
    struct stdio_conn *c = conn_of(t);
    sink_close(&c->out);
    free(c->line);
    free(c);
}

static const struct transport_ops stdio_ops = {
    stdio_pollfds, stdio_polled, stdio_send, stdio_ended,
    stdio_flush,   stdio_close,  NULL,
};

struct transport *stdio_open(size_t max_line, struct transport_handler on)
{
    struct stdio_conn *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return NULL;
    c->line = malloc(max_line + READ_SIZE);
    if (c->line == NULL) {
        free(c);
        return NULL;
    }
    c->t = (struct transport){&stdio_ops, on};
    c->max_line = max_line;
    c->out.fd = -1;
    sink_open(&c->out, 1, QUEUE_LIMIT);
    if (c->out.blocking)
        mcp_log("stdout cannot be written without blocking: a client that "
                "stops reading will hold the server up");
    return &c->t;
}
