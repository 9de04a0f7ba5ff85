/* SPDX-License-Identifier: MIT */
/*
 * The MCP server's shell sessions (SPEC 9.3, sessions.c): made on first
 * use from the server's start directory and environment, named by the
 * calls ("default" when a call names none), at most cfg->max_sessions.
 * And the bash_run calls that wait for their session: one run at a time
 * per session, in the order the calls came.
 */
#ifndef BSH_MCP_SESSIONS_H
#define BSH_MCP_SESSIONS_H

#include "held_run.h"

#include <jansson.h>

/* The longest session name, in bytes. */
#define MCP_SESSION_NAME_MAX 128

struct mcp_session {
    struct mcp_session *next;
    char name[MCP_SESSION_NAME_MAX + 1];
    struct bsh_session *state;
};

/* A bash_run call that waits for its session. */
struct mcp_waiting {
    struct mcp_waiting *next;
    json_t *id, *params;
    bool modern;
    struct mcp_session *session;
    double since_ms, give_up_ms; /* give_up_ms < 0: no bound */
    double last_progress_ms;     /* when it was last told it waits */
    json_int_t last_progress;
};

struct mcp_sessions {
    struct mcp_session *first;
    int count;
    struct mcp_waiting *waiting; /* oldest first */
    bool resuming; /* a waiting call is being started: it is next */
};

/* The session named `name`; made when `create` and there is room. NULL
 * with the reason in `why`. */
struct mcp_session *sessions_get(struct mcp_sessions *ss,
                                 const struct mcp_config *cfg, const char *name,
                                 bool create, char *why, size_t why_size);

/* Whether a call for `s` must wait: a run is attached, or an earlier
 * call waits for it. */
bool sessions_must_wait(const struct mcp_sessions *ss,
                        const struct mcp_session *s);

/* Queues the call `id` (`params`) for `s`, giving up after `wait_ms`
 * (-1: never). False when out of memory. */
bool sessions_wait(struct mcp_sessions *ss, struct mcp_session *s, json_t *id,
                   json_t *params, bool modern, int64_t wait_ms);

/* The first waiting call whose session is free now, taken out of the
 * queue (the caller frees it), or NULL. */
struct mcp_waiting *sessions_next_ready(struct mcp_sessions *ss);

/* The first waiting call past its bound, taken out, or NULL; `*next_ms`
 * gets when the next one will be (or stays). */
struct mcp_waiting *sessions_next_expired(struct mcp_sessions *ss,
                                          double *next_ms);

void sessions_waiting_free(struct mcp_waiting *w);

/* notifications/cancelled for a call that waits: dropped unanswered. */
void sessions_cancel(struct mcp_sessions *ss, json_t *request_id);

/* Whether call `request_id` waits for its session. */
bool sessions_has_waiting(const struct mcp_sessions *ss, json_t *request_id);

/* Frees every session and waiting call. */
void sessions_end_all(struct mcp_sessions *ss);

#endif
