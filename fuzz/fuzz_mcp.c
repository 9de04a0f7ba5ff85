/* SPDX-License-Identifier: MIT */
/*
 * Fuzz the MCP server's message handling: the input is fed as stdin lines
 * to the server in dry-run mode (tools/call is validated and answered
 * without spawning). Replies go to /dev/null.
 */
#include "mcp.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    dup2(fd, 1); /* replies; libFuzzer reports on stderr */
    close(fd);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mcp_config cfg = {
        .run = BSH_RUN_OPTS_INIT,
        .budget = 1000,
        .max_line = 4096,
        .max_runs = 4,
        .yield_ms = 30000,
        .dry_run = true,
        .stop_fd = -1,
        .child_fd = -1,
    };
    cfg.run.timeout_ms = 1000;
    mcp_feed(&cfg, (const char *)data, size);
    return 0;
}
