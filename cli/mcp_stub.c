/* SPDX-License-Identifier: MIT */
/*
 * Placeholder until the MCP server lands (issue 5): says so and fails.
 */
#include "commands.h"

int cmd_mcp(const struct cli_args *a)
{
    (void)a;
    cli_error("mcp: the MCP server is not part of this build yet");
    return EXIT_BSH_FAILED;
}
