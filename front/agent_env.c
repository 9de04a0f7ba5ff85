/* SPDX-License-Identifier: MIT */
#include "agent_env.h"

#include <stdlib.h>
#include <string.h>

/* Each entry with the tool it is for; docs/bsh.1 lists the same. */
static const struct bsh_env_var profile[] = {
    {"PAGER", "cat"},                      /* man, git, psql and most others */
    {"GIT_PAGER", "cat"},                  /* git log, diff, show */
    {"MANPAGER", "cat"},                   /* man */
    {"SYSTEMD_PAGER", "cat"},              /* systemctl, journalctl */
    {"GIT_EDITOR", "true"},                /* git commit, rebase -i, merge */
    {"EDITOR", "true"},                    /* crontab -e, and tools that edit */
    {"VISUAL", "true"},                    /* the same, where VISUAL wins */
    {"GIT_TERMINAL_PROMPT", "0"},          /* git asking for a password */
    {"DEBIAN_FRONTEND", "noninteractive"}, /* apt, dpkg, debconf */
    {"PIP_NO_INPUT", "1"},                 /* pip prompts */
    {"GCM_INTERACTIVE", "never"},          /* git credential manager */
    {"GH_PROMPT_DISABLED", "1"},           /* GitHub CLI prompts */
    {"AWS_PAGER", ""},                     /* the AWS CLI's own pager */
    {"APT_LISTCHANGES_FRONTEND", "none"},  /* apt-listchanges' pager */
};

#define PROFILE_COUNT (sizeof(profile) / sizeof(profile[0]))

struct bsh_env_var *agent_env_apply(struct bsh_run_opts *o)
{
    size_t count = o->env != NULL ? o->env_count : 0;
    struct bsh_env_var *all = calloc(PROFILE_COUNT + 1 + count, sizeof(*all));
    if (all == NULL)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < PROFILE_COUNT; i++)
        all[n++] = profile[i];
    if (!o->pty) /* a pipe is no terminal: tools should not draw */
        all[n++] = (struct bsh_env_var){"TERM", "dumb"};
    if (count > 0)
        memcpy(all + n, o->env, count * sizeof(*o->env));
    o->env = all;
    o->env_count = n + count;
    return all;
}
