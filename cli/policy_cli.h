/* SPDX-License-Identifier: MIT */
/*
 * The command policy for the CLI's commands: loaded from the options
 * (warnings and a bad file reported on stderr), and a person's approval
 * asked on the terminal for `bsh run --ask tty`.
 */
#ifndef BSH_CLI_POLICY_CLI_H
#define BSH_CLI_POLICY_CLI_H

#include "args.h"

/* Loads the policy the options name into `*out` (NULL: none configured).
 * 0, or the exit status to end with (`bad_file_status` for a bad file,
 * 125 for a bad BSH_POLICY_DEFAULT), the message already on stderr. */
int cli_policy_load(const struct cli_args *a, int bad_file_status,
                    struct bsh_policy **out);

/* `bsh: approve? CMD (WHY) [y/N] ` on /dev/tty; BSH_APPROVAL_RUN for y or
 * yes. `data` is unused. */
enum bsh_approval cli_policy_ask_tty(const struct bsh_policy_verdict *v,
                                     void *data);

/* Whether /dev/tty can be opened. */
bool cli_policy_has_tty(void);

/* Runs read-only instead of asking (--ask sandbox): says so on stderr,
 * "policy: ran read-only instead of asking: CMD (WHY)". */
enum bsh_approval cli_policy_readonly(const struct bsh_policy_verdict *v,
                                      void *data);

/* An approval that always runs (--ask allow). */
enum bsh_approval cli_policy_approve_all(const struct bsh_policy_verdict *v,
                                         void *data);

#endif
