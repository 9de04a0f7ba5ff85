/* SPDX-License-Identifier: MIT */
/*
 * `bsh check`: the pre-spawn guards, and the policy when one is
 * configured. The verdict goes to stdout as a line (the refusal message)
 * or, with --json, as one JSON object. Without a policy nothing is parsed
 * and the output is the guards' alone.
 */
#include "commands.h"
#include "policy_cli.h"
#include "session_lock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { EXIT_DENIED = 1, EXIT_BAD_POLICY = 2, EXIT_ASKS = 3 };

/* The guards alone, as before there were policies. */
static int check_guards(const struct cli_args *a)
{
    struct bsh_error err;
    int rc = bsh_check(a->text, strlen(a->text), &err);
    const char *msg = rc == BSH_EGUARD ? err.text_err : NULL;
    int written = 0;
    if (a->json) {
        written = write_json_check(msg);
    } else if (msg != NULL) {
        char line[BSH_ERROR_MAX + 2];
        int n = snprintf(line, sizeof(line), "%s\n", msg);
        written = write_all(1, line, (size_t)n);
    }
    if (written < 0)
        return cli_output_status("stdout", errno);
    return msg != NULL ? EXIT_DENIED : 0;
}

static int report(const struct cli_args *a, const char *msg,
                  const char *decision, const char *stage)
{
    int written;
    if (a->json) {
        written = write_line(format_json_verdict(msg, decision, stage));
    } else if (msg != NULL) {
        char line[BSH_ERROR_MAX + 2];
        int n = snprintf(line, sizeof(line), "%s\n", msg);
        written = write_all(1, line, (size_t)n);
    } else {
        written = 0;
    }
    if (written < 0)
        return cli_output_status("stdout", errno);
    return strcmp(decision, "allow") == 0 ? 0
           : strcmp(decision, "ask") == 0 ? EXIT_ASKS
                                          : EXIT_DENIED;
}

int cmd_check(const struct cli_args *a)
{
    struct bsh_policy *p = NULL;
    int rc = cli_policy_load(a, EXIT_BAD_POLICY, &p);
    if (rc != 0)
        return rc;
    if (p == NULL)
        return check_guards(a);
    struct bsh_error err;
    if (bsh_check(a->text, strlen(a->text), &err) == BSH_EGUARD) {
        bsh_policy_free(p);
        return report(a, err.text_err, "deny", "guard");
    }
    struct cli_session cs = {NULL, -1, NULL};
    char why[1024];
    if (a->session_file != NULL &&
        cli_session_open(&cs, a->session_file, NULL, false, why, sizeof(why)) <
            0) {
        cli_error(why);
        bsh_policy_free(p);
        return EXIT_BSH_FAILED;
    }
    struct bsh_policy_verdict v;
    /* relative write targets: from here, or from the session's place */
    char *cwd = cs.session == NULL ? getcwd(NULL, 0) : NULL;
    int d = bsh_policy_decide_run(p, NULL, a->text, strlen(a->text), cs.session,
                                  cwd, NULL, 0, &v);
    free(cwd);
    if (cs.session != NULL)
        cli_session_close(&cs, false, NULL, 0);
    if (d < 0) {
        bsh_policy_free(p);
        cli_error("out of memory");
        return EXIT_BSH_FAILED;
    }
    char msg[BSH_ERROR_MAX];
    bsh_policy_message(&v, false, msg, sizeof(msg));
    bsh_policy_verdict_free(&v); /* before the policy its rules belong to */
    bsh_policy_free(p);
    return report(a, d == BSH_ALLOW ? NULL : msg,
                  bsh_decision_name((enum bsh_decision)d), "policy");
}
