/* SPDX-License-Identifier: MIT */
/*
 * Where the MCP server's messages come from and where its replies go: a
 * connection that hands over whole JSON-RPC messages and queues replies
 * without ever blocking the server. stdio_transport.c is one (a message per
 * line on stdin and stdout); a network transport is another implementation of
 * the same operations. The protocol code (server.c, rpc.c) sees messages only,
 * never framing, fds or buffers; the transport sees no JSON.
 */
#ifndef BSH_MCP_TRANSPORT_H
#define BSH_MCP_TRANSPORT_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

struct transport;

/* What the server does with what comes in: a whole message (without its
 * framing), or a message that could not be taken, with why (to be
 * answered with a parse error). */
struct transport_handler {
    void (*message)(void *ctx, const char *text, size_t len);
    void (*refused)(void *ctx, const char *why);
    void *ctx;
};

struct transport_ops {
    /* The fds the server's poll must watch for the transport: at most
     * `max` into `p`; returns how many. `*timeout_ms` is lowered (0: at
     * once) when the transport has work without waiting. */
    int (*pollfds)(struct transport *t, struct pollfd *p, int max,
                   int *timeout_ms);
    /* After the poll, with what it found for those fds: reads and writes
     * what is ready and hands over messages, for a bounded time. */
    void (*polled)(struct transport *t, const struct pollfd *p, int n);
    /* Queues one message to go out. `text[len]` is the string's NUL,
     * which the transport may overwrite (with its framing). A
     * `droppable` one (a notification) may be dropped while the peer
     * lags. */
    void (*send)(struct transport *t, char *text, size_t len, bool droppable);
    /* Whether no message will come any more (the peer closed). */
    bool (*ended)(const struct transport *t);
    /* At the end: what is queued goes out, for a bounded time or until
     * `stop_fd` (-1: none) is readable; true in that last case. */
    bool (*flush)(struct transport *t, int stop_fd);
    /* Lets everything go; `t` is freed. */
    void (*close)(struct transport *t);
    /* A stop signal came: new requests are refused from now on and
     * ended() becomes true once what is under way has been answered (or
     * the transport's bound has passed). NULL: the server stops at once. */
    void (*drain)(struct transport *t);
};

struct transport {
    const struct transport_ops *ops;
    struct transport_handler on;
};

#endif
