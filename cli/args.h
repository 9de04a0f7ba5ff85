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
    CLI_SESSION,
    CLI_POLICY_EXPLAIN,
    CLI_POLICY_CHECK,
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
    /* The options of a run, filled by the parser itself: cwd, env (names
     * and values point into `env_text`), timeout_ms (BSH_NO_TIMEOUT when
     * not given), idle_timeout_ms, grace_ms, limits, pty, containment (as
     * the engine is asked: see `containment` below) and sandbox (its
     * lists are `sandbox_write` and `sandbox_socket`). `bsh run` adds the
     * command and what only it has; the MCP server takes them as the
     * options of every call. */
    struct bsh_run_opts run;
    struct bsh_env_var *env; /* run.env, owned */
    char **env_text;
    bool timeout_given;
    enum cli_containment containment;
    bool report; /* run: the end report, after the status */
    bool json;
    bool keep_logs;   /* mcp: leave the spill directory at exit */
    bool stdin_given; /* run: -i, bsh's stdin is the command's */
    bool agent_env;   /* the non-interactive profile (mcp: on by default) */
    int64_t yield_ms; /* mcp: when a call returns a run still going */
    bool yield_given;
    int max_runs;               /* mcp: runs held at once; 0: the default */
    const char *session_file;   /* run --session, session show|reset */
    const char *session_action; /* session: "show" or "reset" */
    bool no_sessions;           /* mcp: a fresh shell for every call */
    bool raw_output;            /* mcp: replies not reduced (SPEC 10) */
    int max_sessions;           /* mcp: sessions held; 0: the default */
    /* mcp over HTTP: --listen and what goes with it; 0: the default. */
    const char *listen, *token_file, *instance;
    const char **allow_origin; /* owned */
    size_t allow_origin_count;
    int64_t max_body, max_header_bytes, client_timeout_ms, drain_timeout_ms;
    int64_t ask_timeout_ms; /* mcp --ask-timeout; 0: not given */
    bool ask_timeout_given;
    int max_connections;
    bool client_timeout_given, drain_timeout_given;
    /* The command policy: --policy files (owned array), the default, and
     * where else to look; run --ask; policy explain's input; policy
     * check's files (argv). */
    bool no_policy, project_policy, trust_project_policy;
    bool each_line; /* policy explain --each-line */
    int check_count;
    const char **policy_files;
    size_t policy_count;
    const char *policy_default; /* "allow", "ask", "deny" or NULL */
    const char *ask;            /* run: tty, refuse or allow; NULL: tty */
    const char *input_file;     /* policy explain --file FILE|- */
    char **check_files;
    const char **sandbox_write;  /* run.sandbox.write_dirs, owned */
    const char **sandbox_socket; /* run.sandbox.sockets, owned */
    char error[512];             /* the usage error, when cli_parse fails */
};

/* Parses argv. Returns 0, or -1 with a message in `a->error`; either way
 * cli_args_release() frees what was allocated. */
int cli_parse(int argc, char **argv, struct cli_args *a);

void cli_args_release(struct cli_args *a);

/* The options' part of --help, written from the same table that parses
 * them into `buf` (cut at `size`); returns the length it needs. */
size_t cli_options_help(char *buf, size_t size);

#endif
