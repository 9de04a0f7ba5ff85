/* SPDX-License-Identifier: MIT */
/*
 * What the MCP server holds (registry.c): its runs and its tasks. A run
 * is added when bash_run starts it and taken out in one place,
 * registry_drop_run(), whoever is done with it: the call that read its
 * end, the task that took its result, or the sweep of runs nobody will
 * read. The calls waiting on runs are call.h's; what a task does is
 * task.h's.
 */
#ifndef BSH_MCP_REGISTRY_H
#define BSH_MCP_REGISTRY_H

#include "approval.h"
#include "held_run.h"
#include "sessions.h"

struct task;

/* The log of a run already dropped, kept so that bash_output can page
 * through it (SPEC 10.1) until the server ends; the newest
 * KEPT_LOGS_MAX. */
struct kept_log {
    struct kept_log *next;
    char id[RUN_ID_MAX];
    char path[PATH_MAX];
    uint64_t size;
    bool cut; /* the log stopped at its size limit */
};
#define KEPT_LOGS_MAX 256

/* What the registries of one server share (over HTTP, each MCP session
 * has its own registry): the numbers of runs and tasks, so that no id is
 * ever given twice, and the count of runs held, which cfg->max_runs
 * bounds for the whole server. */
struct registry_shared {
    unsigned next_number, next_task;
    int nruns;
};

struct registry {
    const struct mcp_config *cfg;
    struct spill_dir *spill;
    struct registry_shared *shared;
    struct mcp_run *runs;
    int nruns;
    struct task *tasks;           /* newest first; task.c keeps them */
    struct mcp_sessions sessions; /* the shell sessions and their queue */
    struct kept_log *kept;        /* newest first */
    int nkept;
    struct approvals approvals; /* questions to a person (SPEC 13.9) */
};

void registry_init(struct registry *g, const struct mcp_config *cfg,
                   struct spill_dir *spill, struct registry_shared *shared);

/* Whether `id` (of a run or a task) names another server than this one
 * (cfg->instance): then `why` says which. */
bool registry_foreign_id(const struct registry *g, const char *kind,
                         const char *id, char *why, size_t why_size);

/* Starts a run for `rq` and holds it. NULL with the reason in `why`:
 * too many runs held, a guard's message, or what failed. */
struct mcp_run *registry_start_run(struct registry *g,
                                   const struct run_request *rq, char *why,
                                   size_t why_size);

/* The run whose id is `id`, or NULL. */
struct mcp_run *registry_find_run(struct registry *g, const char *id);

/* The kept log of dropped run `id`, or NULL. */
const struct kept_log *registry_find_log(const struct registry *g,
                                         const char *id);

/* Takes run `r` out of the registry and frees it (killing it if it is
 * still going); its log, if it has one, is kept. */
void registry_drop_run(struct registry *g, const struct mcp_run *r);

/* Takes what every run has ready; never blocks. */
void registry_pump(struct registry *g);

/* Drops the runs nobody will read: cancelled, or ended more than
 * RUN_KEEP_ENDED_MS ago with nothing waiting on them. The ms until the
 * next one would be, or -1. */
double registry_drop_forgotten(struct registry *g);

/* How many runs have not ended. */
int registry_runs_going(const struct registry *g);

/* Drops every run and session (the tasks are task_end_all()'s). */
void registry_end_all(struct registry *g);

/* The run attached to session `s` (SPEC 9.2), or NULL. */
struct mcp_run *registry_attached_run(struct registry *g,
                                      const struct mcp_session *s);

#endif
