/* SPDX-License-Identifier: MIT */
/*
 * The MCP transport on stdin and stdout (stdio_transport.c): one JSON-RPC
 * message per line each way. Lines of at most `max_line` bytes are taken; a
 * longer one is refused (a parse error) and skipped. Replies are queued
 * and written without blocking (front/sink.h), so a client that does not
 * read never stalls the server: while 1 MiB waits, no request is read,
 * and notifications are dropped while 64 KiB waits. At the end, what is
 * queued is written for at most 10 s.
 */
#ifndef BSH_MCP_STDIO_TRANSPORT_H
#define BSH_MCP_STDIO_TRANSPORT_H

#include "transport.h"

/* Opens the transport on fds 0 and 1: NULL when out of memory. */
struct transport *stdio_open(size_t max_line, struct transport_handler on);

/* As if they had come on stdin (the fuzzer): takes what of the `len`
 * bytes fits in the buffer, hands over the complete lines for one turn,
 * and returns how many bytes it took. */
size_t stdio_feed(struct transport *t, const char *data, size_t len);

/* Whether complete lines still wait to be handed over. */
bool stdio_backlog(const struct transport *t);

/* The input ends: a last line without its newline still counts. */
void stdio_end_input(struct transport *t);

#endif
