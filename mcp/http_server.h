/* SPDX-License-Identifier: MIT */
/*
 * The MCP server over Streamable HTTP (http_server.c), on GNU
 * libmicrohttpd in its external-event mode: the library's epoll fd is one
 * more fd in the server's one poll, a request that waits for a run is
 * suspended (no thread, no busy loop) and resumed when its answer or a
 * notification about it comes. One endpoint, /mcp (POST, GET, DELETE),
 * and the probes /healthz and /readyz.
 */
#ifndef BSH_MCP_HTTP_SERVER_H
#define BSH_MCP_HTTP_SERVER_H

#include "mcp.h"
#include "transport.h"

struct server;

/* Listens as cfg->http says; NULL with the reason in `why` (a bad
 * address, a token file that cannot be used, a non-loopback address
 * without one). With no cfg->http->listen it listens nowhere: clients
 * come only through http_add_client() (the fuzzer). */
struct transport *http_open(const struct mcp_config *cfg, struct server *sv,
                            char *why, size_t why_size);

/* Serves a connected socket `fd` (taken over) as a client from
 * 127.0.0.1; false when it cannot. */
bool http_add_client(struct transport *t, int fd);

#endif
