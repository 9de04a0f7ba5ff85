/* SPDX-License-Identifier: MIT */
#include "sessions.h"
#include "mono.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mcp_session *sessions_get(struct mcp_sessions *ss,
                                 const struct mcp_config *cfg, const char *name,
                                 bool create, char *why, size_t why_size)
{
    for (struct mcp_session *s = ss->first; s != NULL; s = s->next)
        if (strcmp(s->name, name) == 0)
            return s;
    if (!create) {
        snprintf(why, why_size, "no session '%.128s' (bash_list shows them)",
                 name);
        return NULL;
    }
    int max =
        cfg->max_sessions > 0 ? cfg->max_sessions : MCP_DEFAULT_MAX_SESSIONS;
    if (ss->count >= max) {
        snprintf(why, why_size,
                 "too many sessions (at most %d); use an existing one, or "
                 "start the server with a larger --max-sessions",
                 max);
        return NULL;
    }
    struct mcp_session *s = calloc(1, sizeof(*s));
    if (s == NULL ||
        bsh_session_new(cfg->run.cwd != NULL && cfg->run.cwd[0] != '\0'
                            ? cfg->run.cwd
                            : NULL,
                        NULL, &s->state) != BSH_OK) {
        snprintf(why, why_size, "the session '%.128s' cannot be made", name);
        free(s);
        return NULL;
    }
    snprintf(s->name, sizeof(s->name), "%s", name);
    s->next = ss->first;
    ss->first = s;
    ss->count++;
    return s;
}

bool sessions_must_wait(const struct mcp_sessions *ss,
                        const struct mcp_session *s)
{
    if (bsh_session_busy(s->state))
        return true;
    for (const struct mcp_waiting *w = ss->waiting; w != NULL; w = w->next)
        if (w->session == s)
            return true;
    return false;
}

bool sessions_wait(struct mcp_sessions *ss, struct mcp_session *s, json_t *id,
                   json_t *params, bool modern, int64_t wait_ms)
{
    struct mcp_waiting *w = calloc(1, sizeof(*w));
    if (w == NULL)
        return false;
    w->id = json_incref(id);
    w->params = json_incref(params);
    w->modern = modern;
    w->session = s;
    w->since_ms = w->last_progress_ms = mono_ms();
    w->give_up_ms = wait_ms < 0 ? -1 : w->since_ms + (double)wait_ms;
    struct mcp_waiting **tail = &ss->waiting;
    while (*tail != NULL)
        tail = &(*tail)->next;
    *tail = w;
    return true;
}

/* Takes `*link` out of the queue. */
static struct mcp_waiting *take(struct mcp_waiting **link)
{
    struct mcp_waiting *w = *link;
    *link = w->next;
    w->next = NULL;
    return w;
}

/* Whether `w` is the oldest call waiting for its session. */
static bool first_for_session(const struct mcp_sessions *ss,
                              const struct mcp_waiting *w)
{
    for (const struct mcp_waiting *x = ss->waiting; x != w; x = x->next)
        if (x->session == w->session)
            return false;
    return true;
}

struct mcp_waiting *sessions_next_ready(struct mcp_sessions *ss)
{
    for (struct mcp_waiting **pp = &ss->waiting; *pp != NULL; pp = &(*pp)->next)
        if (!bsh_session_busy((*pp)->session->state) &&
            first_for_session(ss, *pp))
            return take(pp);
    return NULL;
}

struct mcp_waiting *sessions_next_expired(struct mcp_sessions *ss,
                                          double *next_ms)
{
    double now = mono_ms();
    for (struct mcp_waiting **pp = &ss->waiting; *pp != NULL;
         pp = &(*pp)->next) {
        double left = (*pp)->give_up_ms - now;
        if ((*pp)->give_up_ms >= 0 && left <= 0)
            return take(pp);
        if ((*pp)->give_up_ms >= 0 && (*next_ms < 0 || left < *next_ms))
            *next_ms = left;
    }
    return NULL;
}

void sessions_cancel(struct mcp_sessions *ss, json_t *request_id)
{
    for (struct mcp_waiting **pp = &ss->waiting; *pp != NULL;) {
        if (request_id != NULL && json_equal((*pp)->id, request_id))
            sessions_waiting_free(take(pp));
        else
            pp = &(*pp)->next;
    }
}

bool sessions_has_waiting(const struct mcp_sessions *ss, json_t *request_id)
{
    for (const struct mcp_waiting *w = ss->waiting; w != NULL; w = w->next)
        if (json_equal(w->id, request_id))
            return true;
    return false;
}

void sessions_waiting_free(struct mcp_waiting *w)
{
    if (w == NULL)
        return;
    json_decref(w->id);
    json_decref(w->params);
    free(w);
}

void sessions_end_all(struct mcp_sessions *ss)
{
    while (ss->waiting != NULL)
        sessions_waiting_free(take(&ss->waiting));
    while (ss->first != NULL) {
        struct mcp_session *s = ss->first;
        ss->first = s->next;
        bsh_session_free(s->state);
        free(s);
    }
    ss->count = 0;
}
