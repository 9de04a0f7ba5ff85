/* SPDX-License-Identifier: MIT */
/*
 * `bsh mcp`: maps the options onto the server's configuration.
 */
#include "mcp.h"
#include "commands.h"

#include <signal.h>
#include <stdio.h>

int cmd_mcp(const struct cli_args *a)
{
    /* A client that goes away must show up as EPIPE, not kill the server
     * before it has killed the running calls. */
    struct sigaction ignore = {.sa_handler = SIG_IGN};
    sigaction(SIGPIPE, &ignore, NULL);
    struct mcp_config cfg = {
        .cwd = a->cwd,
        .env = a->env,
        .env_count = a->env_count,
        .timeout_ms = a->timeout_given ? a->timeout_ms : MCP_DEFAULT_TIMEOUT_MS,
        .pty = a->pty,
        .budget = MCP_DEFAULT_BUDGET,
        .max_line = MCP_DEFAULT_MAX_LINE,
        .max_calls = MCP_DEFAULT_MAX_CALLS,
    };
    for (size_t i = 0; i < a->env_count; i++) {
        if (!bsh_env_name_valid(a->env[i].name)) {
            char msg[300];
            snprintf(msg, sizeof(msg), "invalid env variable name: %.200s",
                     a->env[i].name);
            cli_error(msg);
            return EXIT_BSH_FAILED;
        }
    }
    return mcp_serve(&cfg);
}
