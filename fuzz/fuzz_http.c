/* SPDX-License-Identifier: MIT */
/*
 * Fuzz the MCP server's HTTP request path: the input is what one client
 * sends on a connection (request line, headers, body, pipelined requests)
 * before it closes its side; the server runs in dry-run mode (tools/call
 * is validated and answered without spawning) with a token file, so the
 * bytes meet the parser, the checks, the sessions and the streams.
 */
#include "mcp.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char token_file[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(token_file, sizeof(token_file), "/tmp/bsh-fuzz-http-%d",
             (int)getpid());
    FILE *f = fopen(token_file, "w");
    if (f == NULL)
        abort();
    fputs("fuzz-token\n", f);
    fclose(f);
    chmod(token_file, 0600);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Every other input goes without a token file: both paths are fed. */
    bool tokens = size > 0 && (data[0] & 1);
    struct mcp_http_opts http = {
        .token_file = tokens ? token_file : NULL,
        .max_body = 65536,
        .max_header_bytes = 8192,
        .max_connections = 8,
        .client_timeout_ms = 1000,
        .drain_timeout_ms = 100,
    };
    struct mcp_config cfg = {
        .run = BSH_RUN_OPTS_INIT,
        .budget = 1000,
        .max_line = 4096,
        .max_runs = 4,
        .max_sessions = 4,
        .yield_ms = 30000,
        .dry_run = true,
        .stop_fd = -1,
        .child_fd = -1,
        .instance = "fuzz",
        .http = &http,
    };
    cfg.run.timeout_ms = 1000;
    mcp_http_feed(&cfg, (const char *)data, size);
    return 0;
}
