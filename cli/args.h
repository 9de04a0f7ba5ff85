/* SPDX-License-Identifier: MIT */
/*
 * The command line of `bsh` (SPEC 3), parsed into one structure. The
 * parser prints nothing: usage errors come back as text.
 */
#ifndef BSH_CLI_ARGS_H
#define BSH_CLI_ARGS_H

#include "bsh/bsh.h"

enum cli_command {
    CLI_RUN = 1,
    CLI_CHECK,
    CLI_PATTERNS,
    CLI_MCP,
    CLI_DOCTOR,
    CLI_VERSION,
    CLI_HELP,
};

/* How runs are contained: a cgroup where one can be made, else bsh as
 * the child subreaper; or one of the two, required. */
enum cli_containment {
    CLI_CONTAIN_AUTO,
    CLI_CONTAIN_CGROUP,
    CLI_CONTAIN_SUBREAPER,
};

struct cli_args {
    enum cli_command command;
    const char *text; /* COMMAND of run and check */
    const char *cwd;
    struct bsh_env_var *env; /* names and values point into `env_text` */
    size_t env_count;
    char **env_text;
    int64_t timeout_ms; /* BSH_NO_TIMEOUT when not given */
    bool timeout_given;
    int64_t idle_timeout_ms; /* 0: none */
    int64_t grace_ms;        /* 0: SIGKILL at once */
    struct bsh_limits limits;
    enum cli_containment containment;
    bool report; /* run: the end report, after the status */
    bool pty;
    bool json;
    bool keep_logs;   /* mcp: leave the spill directory at exit */
    bool stdin_given; /* run: -i, bsh's stdin is the command's */
    bool agent_env;   /* the non-interactive profile (mcp: on by default) */
    int64_t yield_ms; /* mcp: when a call returns a run still going */
    bool yield_given;
    int max_runs;                  /* mcp: runs held at once; 0: the default */
    enum bsh_sandbox_mode sandbox; /* --sandbox[=best-effort] */
    const char **sandbox_write;    /* --sandbox-write DIR, each */
    size_t sandbox_write_count;
    const char **sandbox_socket; /* --sandbox-socket PATH, each */
    size_t sandbox_socket_count;
    bool sandbox_net;
    char error[512]; /* the usage error, when cli_parse fails */
};

/* Parses argv. Returns 0, or -1 with a message in `a->error`; either way
 * cli_args_release() frees what was allocated. */
int cli_parse(int argc, char **argv, struct cli_args *a);

void cli_args_release(struct cli_args *a);

/* What the engine is asked for: the subreaper is the CLI's, so the engine
 * keeps to the session then. */
enum bsh_containment cli_engine_containment(const struct cli_args *a);

/* The sandbox the engine is asked for. */
struct bsh_sandbox cli_engine_sandbox(const struct cli_args *a);

#endif
