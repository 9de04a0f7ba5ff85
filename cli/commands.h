/* SPDX-License-Identifier: MIT */
/*
 * The subcommands of `bsh`. Each returns the process exit status.
 */
#ifndef BSH_CLI_COMMANDS_H
#define BSH_CLI_COMMANDS_H

#include "args.h"
#include "output.h" /* cli_error */

/* Exit statuses of SPEC 3, after timeout(1). */
enum {
    EXIT_TIMED_OUT = 124,
    EXIT_BSH_FAILED = 125,
    EXIT_GUARD = 126,
    EXIT_SIGNAL_BASE = 128,
};

int cmd_run(const struct cli_args *a);
int cmd_check(const struct cli_args *a);
int cmd_patterns(void);
int cmd_mcp(const struct cli_args *a);
int cmd_doctor(const struct cli_args *a);
/* `bsh doctor --json`'s facts as one line of JSON (malloc'd), or NULL. */
char *doctor_json(void);
int cmd_session(const struct cli_args *a);
int cmd_policy_explain(const struct cli_args *a);
int cmd_policy_check(const struct cli_args *a);

#endif
