/* SPDX-License-Identifier: MIT */
/*
 * The MCP server's loop (server.c) as a transport that serves many
 * clients sees it: it makes and drops the spaces (space.h) of its
 * clients, all moved forward by the one poll loop.
 */
#ifndef BSH_MCP_SERVER_H
#define BSH_MCP_SERVER_H

#include "space.h"

struct server;

/* A new space whose replies go to `out`; NULL when out of memory. */
struct mcp_space *server_space_new(struct server *sv, struct transport *out);

/* Kills the space's runs, drops its calls and tasks, and frees it. */
void server_space_drop(struct server *sv, struct mcp_space *s);

/* How many runs the server holds, and at most. */
int server_runs_held(const struct server *sv);

/* The server must look at its runs again at once (a message was handed
 * to a space outside the loop's own turn). */
void server_wake(struct server *sv);

#endif
