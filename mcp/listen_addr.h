/* SPDX-License-Identifier: MIT */
/*
 * Where `bsh mcp --listen` listens (listen_addr.c): "ADDR:PORT" for IPv4,
 * "[ADDR]:PORT" for IPv6, "unix:PATH" for a local socket.
 */
#ifndef BSH_MCP_LISTEN_ADDR_H
#define BSH_MCP_LISTEN_ADDR_H

#include <stdbool.h>
#include <stddef.h>

/* Opens a listening socket (non-blocking, close-on-exec) at `spec`: its
 * fd, or -1 with the reason in `why`. `*loopback` tells whether only this
 * machine can reach it (127.0.0.0/8, ::1, or a unix socket, made for
 * its owner only). A stale unix socket (nobody accepts on it) is
 * replaced; another file is not. */
int listen_open(const char *spec, bool *loopback, char *why, size_t why_size);

/* Where clients reach the socket: "http://HOST:PORT" with the port it
 * got (for port 0), or the "unix:PATH" as given. */
void listen_name(int fd, const char *spec, char *buf, size_t size);

/* Takes the unix socket's file away again (at the end); a no-op for IP. */
void listen_close(int fd, const char *spec);

#endif
