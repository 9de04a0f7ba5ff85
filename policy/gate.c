/* SPDX-License-Identifier: MIT */
/*
 * The policy at the door of a run (bsh_run with opts->policy): decided
 * after the guards; a refusal starts nothing and says why.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int bsh__policy_gate(const struct bsh_run_opts *o, struct bsh_error *err,
                     bool *readonly)
{
    *readonly = false;
    struct bsh_policy_verdict v;
    /* where relative write targets are: the run's own directory, else its
     * session's, else this process's */
    char *cwd = NULL;
    if (o->cwd != NULL && o->cwd[0] != '\0')
        cwd = realpath(o->cwd, NULL);
    else if (o->session == NULL)
        cwd = getcwd(NULL, 0);
    int d =
        bsh_policy_decide_run(o->policy, NULL, o->command, strlen(o->command),
                              o->session, cwd, o->env, o->env_count, &v);
    free(cwd);
    if (d < 0)
        return d;
    bool asked = false;
    if (d == BSH_ASK && o->approve != NULL) {
        asked = true;
        enum bsh_approval a = o->approve(&v, o->approve_data);
        if (a == BSH_APPROVAL_RUN || a == BSH_APPROVAL_READONLY)
            d = BSH_ALLOW;
        *readonly = a == BSH_APPROVAL_READONLY;
    }
    if (d != BSH_ALLOW && err != NULL) {
        memset(err, 0, sizeof(*err));
        bsh_policy_message(&v, asked, err->text_err, sizeof(err->text_err));
    }
    bsh_policy_verdict_free(&v);
    return d == BSH_ALLOW ? BSH_OK : BSH_EPOLICY;
}
