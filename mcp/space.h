/* SPDX-License-Identifier: MIT */
/*
 * One client's world in the MCP server (space.c): its runs, tasks, shell
 * sessions and kept logs, the calls waiting on them, and where its
 * replies go. Over stdio the server has one. Over HTTP each legacy MCP
 * session, and each token (or the one anonymous owner) of the modern era,
 * has its own: an id made in one space is unknown in every other, with
 * the same words as an id that never existed.
 */
#ifndef BSH_MCP_SPACE_H
#define BSH_MCP_SPACE_H

#include "call.h"
#include "registry.h"
#include "transport.h"

struct mcp_space {
    struct mcp_space *next;
    struct registry runs;
    struct calls calls;
    struct transport *out; /* where its replies and notifications go */
    void *owner;           /* who made it (the HTTP layer's) */
};

void space_init(struct mcp_space *s, const struct mcp_config *cfg,
                struct spill_dir *spill, struct registry_shared *shared,
                struct transport *out);

/* One message from the client: a request, a notification or a reply. */
void space_message(struct mcp_space *s, const char *text, size_t len);

/* A message that could not be taken, answered with a parse error. */
void space_refused(struct mcp_space *s, const char *why);

/* Moves the space's runs, calls and tasks forward without blocking; the
 * ms until something is next due, or -1. */
double space_advance(struct mcp_space *s);

/* Asks every run still going to end (SIGTERM, then SIGKILL after the
 * grace): its calls are then answered with its end. */
void space_cancel_runs(struct mcp_space *s);

/* Kills every run and drops every call and task, unanswered. */
void space_end(struct mcp_space *s);

#endif
