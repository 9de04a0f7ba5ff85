/* SPDX-License-Identifier: MIT */
/*
 * `bsh mcp`: maps the options onto the server's configuration.
 */
#include "commands.h"
#include "mcp.h"
#include "orphans.h"
#include "policy_cli.h"
#include "process.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FDS_PER_RUN       8
#define FDS_RESERVED      32
#define HTTP_OVERFLOW_FDS 64

/* Why `dir` cannot be a working directory (an errno), or 0. */
static int directory_error(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) < 0)
        return errno;
    if (!S_ISDIR(st.st_mode))
        return ENOTDIR;
    return access(dir, X_OK) < 0 ? errno : 0;
}

/* The HTTP options, their defaults filled in; the connections bounded
 * by the fds left after the runs'. */
static void http_options(const struct cli_args *a, struct mcp_http_opts *h,
                         long fds_left)
{
    *h = (struct mcp_http_opts){
        .listen = a->listen,
        .token_file = a->token_file,
        .allow_origins = a->allow_origin,
        .allow_origin_count = a->allow_origin_count,
        .max_body =
            a->max_body > 0 ? (size_t)a->max_body : MCP_HTTP_DEFAULT_MAX_BODY,
        .max_header_bytes = a->max_header_bytes > 0
                                ? (size_t)a->max_header_bytes
                                : MCP_HTTP_DEFAULT_MAX_HEADER_BYTES,
        .max_connections = a->max_connections > 0
                               ? (unsigned)a->max_connections
                               : MCP_HTTP_DEFAULT_MAX_CONNECTIONS,
        .client_timeout_ms = a->client_timeout_given
                                 ? a->client_timeout_ms
                                 : MCP_HTTP_DEFAULT_CLIENT_TIMEOUT,
        .drain_timeout_ms = a->drain_timeout_given
                                ? a->drain_timeout_ms
                                : MCP_HTTP_DEFAULT_DRAIN_TIMEOUT,
    };
    /* Each connection is one fd, and the overflow told 503 too. */
    long fit = fds_left - HTTP_OVERFLOW_FDS;
    if (fit < (long)h->max_connections)
        h->max_connections = fit < 1 ? 1 : (unsigned)fit;
}

int cmd_mcp(const struct cli_args *a)
{
    /* Each run holds up to about FDS_PER_RUN fds (output pipes, stdin,
     * pidfd, cgroup, sandbox listener, spill file; 5 for a plain call):
     * the run limit follows the fd limit too; over HTTP the connections
     * get what the runs leave. */
    long fds = process_raise_fd_limit();
    int asked = a->max_runs > 0 ? a->max_runs : MCP_DEFAULT_MAX_RUNS;
    long conns = a->listen == NULL        ? 0
                 : a->max_connections > 0 ? a->max_connections
                                          : MCP_HTTP_DEFAULT_MAX_CONNECTIONS;
    if (conns > 0)
        conns += HTTP_OVERFLOW_FDS;
    long fit = (fds - FDS_RESERVED - conns) / FDS_PER_RUN;
    int max_runs = fit < 1 ? 1 : fit < asked ? (int)fit : asked;
    struct mcp_http_opts http;
    struct mcp_config cfg = {
        .run = a->run,
        .budget = MCP_DEFAULT_BUDGET,
        .max_line = MCP_DEFAULT_MAX_LINE,
        .max_runs = max_runs,
        .yield_ms = a->yield_given ? a->yield_ms : MCP_DEFAULT_YIELD_MS,
        .agent_env = a->agent_env,
        .stop_fd = -1,
        .child_fd = -1,
        .keep_logs = a->keep_logs,
        .no_sessions = a->no_sessions,
        .raw_output = a->raw_output,
        .max_sessions =
            a->max_sessions > 0 ? a->max_sessions : MCP_DEFAULT_MAX_SESSIONS,
        .instance = a->instance,
    };
    char *doctor = NULL;
    if (a->listen != NULL) {
        http_options(a, &http,
                     fds - FDS_RESERVED - (long)max_runs * FDS_PER_RUN);
        /* The probes answer with the machine's facts, found once. */
        http.doctor_json = doctor = doctor_json();
        cfg.http = &http;
    }
    if (!a->timeout_given)
        cfg.run.timeout_ms = MCP_DEFAULT_TIMEOUT_MS;
    /* A sandbox this kernel cannot give fails now, not every call. */
    struct bsh_sandbox_report probe;
    bsh_sandbox_probe(&cfg.run.sandbox, &probe);
    if (cfg.run.sandbox.mode == BSH_SANDBOX_STRICT && probe.missing != 0) {
        char msg[200];
        snprintf(msg, sizeof(msg),
                 "mcp: sandbox: %s cannot be applied on this kernel (Landlock "
                 "ABI %d); --sandbox=best-effort runs without it",
                 bsh_sandbox_layer_name(probe.missing & -probe.missing),
                 probe.landlock_abi);
        cli_error(msg);
        return EXIT_BSH_FAILED;
    }
    /* A bad directory fails now, not every call later. */
    const char *cwd = cfg.run.cwd;
    int bad = cwd != NULL && cwd[0] != '\0' ? directory_error(cwd) : 0;
    if (bad != 0) {
        char msg[PATH_MAX + 100];
        snprintf(msg, sizeof(msg), "mcp: cannot use working directory '%s': %s",
                 cwd, strerror(bad));
        cli_error(msg);
        return EXIT_BSH_FAILED;
    }
    for (size_t i = 0; i < cfg.run.env_count; i++) {
        if (!bsh_env_name_valid(cfg.run.env[i].name)) {
            char msg[300];
            snprintf(msg, sizeof(msg), "invalid env variable name: %.200s",
                     cfg.run.env[i].name);
            cli_error(msg);
            return EXIT_BSH_FAILED;
        }
    }
    /* The policy is read once, now: nothing a run writes changes it. */
    struct bsh_policy *policy = NULL;
    int bad_policy = cli_policy_load(a, EXIT_BSH_FAILED, &policy);
    if (bad_policy != 0)
        return bad_policy;
    cfg.policy = policy;
    cfg.ask_timeout_ms =
        a->ask_timeout_given ? a->ask_timeout_ms : MCP_DEFAULT_ASK_TIMEOUT;
    cfg.ask_elicit = a->ask == NULL || strncmp(a->ask, "elicit", 6) == 0;
    cfg.ask_sandbox = a->ask != NULL && strstr(a->ask, "sandbox") != NULL;
    cfg.stop_fd = process_stop_signals();
    if (cfg.stop_fd < 0) {
        cli_error(strerror(errno));
        bsh_policy_free(policy);
        return EXIT_BSH_FAILED;
    }
    /* Without a cgroup per call, orphans come to us, to be ended. */
    cfg.subreaper =
        a->containment != CLI_CONTAIN_CGROUP && orphans_become_subreaper() == 0;
    if (cfg.subreaper)
        cfg.child_fd = orphans_signal_fd();
    int status = mcp_serve(&cfg);
    bsh_policy_free(policy);
    free(doctor);
    close(cfg.stop_fd);
    if (cfg.child_fd >= 0)
        close(cfg.child_fd);
    return status;
}
