/* SPDX-License-Identifier: MIT */
#include "registry.h"
#include "mono.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void registry_init(struct registry *g, const struct mcp_config *cfg,
                   struct spill_dir *spill, struct registry_shared *shared)
{
    memset(g, 0, sizeof(*g));
    g->cfg = cfg;
    g->spill = spill;
    g->shared = shared;
}

bool registry_foreign_id(const struct registry *g, const char *kind,
                         const char *id, char *why, size_t why_size)
{
    const char *at = id != NULL ? strrchr(id, '@') : NULL;
    const char *mine = g->cfg->instance;
    if (at == NULL || (mine != NULL && strcmp(at + 1, mine) == 0))
        return false;
    if (mine != NULL)
        snprintf(why, why_size,
                 "%s '%.100s' belongs to instance '%.64s', not to this one "
                 "('%.64s'): send its calls there",
                 kind, id, at + 1, mine);
    else
        snprintf(why, why_size,
                 "%s '%.100s' belongs to instance '%.64s', not to this "
                 "server (which has no instance name): send its calls there",
                 kind, id, at + 1);
    return true;
}

struct mcp_run *registry_start_run(struct registry *g,
                                   const struct run_request *rq, char *why,
                                   size_t why_size)
{
    if (g->shared->nruns >= g->cfg->max_runs) {
        snprintf(why, why_size,
                 "too many runs held (at most %d at once); end one with "
                 "bash_kill, or read the ended ones with bash_output",
                 g->cfg->max_runs);
        return NULL;
    }
    struct mcp_run *r = run_start(g->cfg, g->spill, rq,
                                  ++g->shared->next_number, why, why_size);
    if (r == NULL)
        return NULL;
    r->next = g->runs;
    g->runs = r;
    g->nruns++;
    g->shared->nruns++;
    return r;
}

struct mcp_run *registry_find_run(struct registry *g, const char *id)
{
    for (struct mcp_run *r = g->runs; r != NULL; r = r->next)
        if (strcmp(r->id, id) == 0)
            return r;
    return NULL;
}

const struct kept_log *registry_find_log(const struct registry *g,
                                         const char *id)
{
    for (const struct kept_log *k = g->kept; k != NULL; k = k->next)
        if (strcmp(k->id, id) == 0)
            return k;
    return NULL;
}

/* Keeps the log of `r`, dropping the oldest past KEPT_LOGS_MAX. */
static void keep_log(struct registry *g, const struct mcp_run *r)
{
    if (r->cap.spill_fd < 0)
        return;
    struct kept_log *k = calloc(1, sizeof(*k));
    if (k == NULL)
        return; /* the log stays on disk; only paging it is lost */
    snprintf(k->id, sizeof(k->id), "%s", r->id);
    snprintf(k->path, sizeof(k->path), "%s", r->cap.spill_path);
    k->size = r->cap.spilled;
    k->cut = r->cap.spill_cut || r->cap.spill_failed;
    k->next = g->kept;
    g->kept = k;
    if (++g->nkept <= KEPT_LOGS_MAX)
        return;
    struct kept_log **pp = &g->kept;
    while ((*pp)->next != NULL)
        pp = &(*pp)->next;
    free(*pp);
    *pp = NULL;
    g->nkept--;
}

/* The one place a run leaves the list. */
static void unlink_run(struct registry *g, struct mcp_run **link)
{
    struct mcp_run *r = *link;
    *link = r->next;
    g->nruns--;
    g->shared->nruns--;
    keep_log(g, r);
    run_free(r);
}

void registry_drop_run(struct registry *g, const struct mcp_run *r)
{
    for (struct mcp_run **pp = &g->runs; *pp != NULL; pp = &(*pp)->next)
        if (*pp == r) {
            unlink_run(g, pp);
            return;
        }
}

void registry_pump(struct registry *g)
{
    for (struct mcp_run *r = g->runs; r != NULL; r = r->next)
        run_pump(r);
}

double registry_drop_forgotten(struct registry *g)
{
    double now = mono_ms(), next = -1;
    for (struct mcp_run **pp = &g->runs; *pp != NULL;) {
        struct mcp_run *r = *pp;
        if (!r->ended || r->waited_on) {
            pp = &r->next;
            continue;
        }
        double due = r->ended_ms + RUN_KEEP_ENDED_MS - now;
        if (r->discard || due < 0) {
            unlink_run(g, pp);
            continue;
        }
        if (next < 0 || due + 1 < next) /* looked at again once forgotten */
            next = due + 1;
        pp = &r->next;
    }
    return next;
}

int registry_runs_going(const struct registry *g)
{
    int n = 0;
    for (const struct mcp_run *r = g->runs; r != NULL; r = r->next)
        n += !r->ended;
    return n;
}

void registry_end_all(struct registry *g)
{
    while (g->runs != NULL)
        unlink_run(g, &g->runs);
    while (g->kept != NULL) {
        struct kept_log *k = g->kept;
        g->kept = k->next;
        free(k);
    }
    g->nkept = 0;
    sessions_end_all(&g->sessions);
    approval_end_all(g);
}

struct mcp_run *registry_attached_run(struct registry *g,
                                      const struct mcp_session *s)
{
    for (struct mcp_run *r = g->runs; r != NULL; r = r->next)
        if (r->session == s &&
            bsh_stream_session_state(r->stream) == BSH_SESSION_PENDING)
            return r;
    return NULL;
}
