/* SPDX-License-Identifier: MIT */
#include "registry.h"
#include "mono.h"

#include <stdio.h>
#include <string.h>

void registry_init(struct registry *g, const struct mcp_config *cfg,
                   struct spill_dir *spill)
{
    memset(g, 0, sizeof(*g));
    g->cfg = cfg;
    g->spill = spill;
}

struct mcp_run *registry_start_run(struct registry *g,
                                   const struct run_request *rq, char *why,
                                   size_t why_size)
{
    if (g->nruns >= g->cfg->max_runs) {
        snprintf(why, why_size,
                 "too many runs held (at most %d at once); end one with "
                 "bash_kill, or read the ended ones with bash_output",
                 g->cfg->max_runs);
        return NULL;
    }
    struct mcp_run *r =
        run_start(g->cfg, g->spill, rq, ++g->next_number, why, why_size);
    if (r == NULL)
        return NULL;
    r->next = g->runs;
    g->runs = r;
    g->nruns++;
    return r;
}

struct mcp_run *registry_find_run(struct registry *g, const char *id)
{
    for (struct mcp_run *r = g->runs; r != NULL; r = r->next)
        if (strcmp(r->id, id) == 0)
            return r;
    return NULL;
}

/* The one place a run leaves the list. */
static void unlink_run(struct registry *g, struct mcp_run **link)
{
    struct mcp_run *r = *link;
    *link = r->next;
    g->nruns--;
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
    sessions_end_all(&g->sessions);
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
