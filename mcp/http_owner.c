/* SPDX-License-Identifier: MIT */
/*
 * The owners of spaces over HTTP: each legacy MCP session (its random id,
 * the token that made it) and each token of the modern era has one space
 * of runs, tasks and shell sessions.
 */
#include "http_internal.h"
#include "server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

static struct owner *new_owner(struct http_server *hs, int token)
{
    struct owner *o = malloc(sizeof(*o));
    if (o == NULL)
        return NULL;
    owner_init(o, &hs->next_stream);
    o->token = token;
    if ((o->space = server_space_new(hs->sv, &o->out)) == NULL) {
        free(o);
        return NULL;
    }
    o->space->owner = o;
    o->next = hs->owners;
    hs->owners = o;
    return o;
}

void http_drop_owner(struct http_server *hs, struct owner *o)
{
    for (struct owner **pp = &hs->owners; *pp != NULL; pp = &(*pp)->next)
        if (*pp == o) {
            *pp = o->next;
            break;
        }
    owner_end(o); /* its readers see their stream gone */
    server_space_drop(hs->sv, o->space);
    if (o->session[0] != '\0')
        hs->sessions--;
    free(o);
}

/* The modern era's owner of `token`: made on first use. */
struct owner *http_token_owner(struct http_server *hs, int token)
{
    for (struct owner *o = hs->owners; o != NULL; o = o->next)
        if (o->session[0] == '\0' && o->token == token)
            return o;
    return new_owner(hs, token);
}

/* The legacy session `id` that `token` made, or NULL: another token's
 * session is as unknown as one that never was. */
struct owner *http_session_owner(struct http_server *hs, const char *id,
                                 int token)
{
    for (struct owner *o = hs->owners; id != NULL && o != NULL; o = o->next)
        if (o->session[0] != '\0' && o->token == token &&
            strcmp(o->session, id) == 0)
            return o;
    return NULL;
}

/* Whether `o` holds nothing that goes on: it may be let go for room. */
static bool owner_idle(const struct owner *o)
{
    if (o->space->runs.nruns > 0)
        return false;
    for (const struct stream *s = o->streams; s != NULL; s = s->next)
        if (s->reader != NULL)
            return false;
    return true;
}

/* A new legacy session, making room from the idlest one when needed. */
struct owner *http_new_session(struct http_server *hs, int token)
{
    if (hs->sessions >= (int)hs->opts->max_connections) {
        /* Only a session of the same token makes room: one tenant never
         * ends another's. */
        struct owner *oldest = NULL;
        for (struct owner *o = hs->owners; o != NULL; o = o->next)
            if (o->session[0] != '\0' && o->token == token && owner_idle(o) &&
                (oldest == NULL || o->used_ms < oldest->used_ms))
                oldest = o;
        if (oldest == NULL)
            return NULL;
        http_drop_owner(hs, oldest);
    }
    unsigned char rnd[16];
    if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
        return NULL;
    struct owner *o = new_owner(hs, token);
    if (o == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof(rnd); i++)
        snprintf(o->session + 2 * i, 3, "%02x", rnd[i]);
    hs->sessions++;
    return o;
}
