/* SPDX-License-Identifier: MIT */
/*
 * `bsh mcp`: the bash_run tool over MCP (JSON-RPC 2.0, one message per
 * line) on stdin/stdout, a thin layer over libbsh (SPEC 4).
 */
#ifndef BSH_MCP_H
#define BSH_MCP_H

#include <bsh/bsh.h>

/* The longest --instance name, and the longest run id ("r" + number +
 * "@" + instance). */
#define MCP_INSTANCE_MAX 63
#define RUN_ID_MAX       (16 + MCP_INSTANCE_MAX)

/* How the server is reached over HTTP (`bsh mcp --listen`). */
struct mcp_http_opts {
    const char *listen;         /* "ADDR:PORT", "[ADDR]:PORT" or "unix:PATH" */
    const char *token_file;     /* NULL: none (loopback and unix: only) */
    const char **allow_origins; /* besides the loopback ones */
    size_t allow_origin_count;
    size_t max_body;         /* bytes of a request's body */
    size_t max_header_bytes; /* bytes of a request's head */
    unsigned max_connections;
    int64_t client_timeout_ms; /* to send a request, or to read an answer */
    int64_t drain_timeout_ms;  /* from SIGTERM to exit */
    const char *doctor_json;   /* `bsh doctor --json`'s facts, for probes */
};

#define MCP_HTTP_DEFAULT_MAX_BODY         (4u << 20)
#define MCP_HTTP_DEFAULT_MAX_HEADER_BYTES (32u << 10)
#define MCP_HTTP_DEFAULT_MAX_CONNECTIONS  1024
#define MCP_HTTP_DEFAULT_CLIENT_TIMEOUT   30000
#define MCP_HTTP_DEFAULT_DRAIN_TIMEOUT    10000

/* The execution context every call runs in: the wrapper's configuration. */
struct mcp_config {
    /* The options of every call: cwd, env, pty, grace_ms, limits,
     * containment, sandbox as they are; timeout_ms (BSH_NO_TIMEOUT for
     * none) and idle_timeout_ms (0: none) the defaults a call may change.
     * A call sets its command, its stdin and its report itself. */
    struct bsh_run_opts run;
    size_t budget;    /* characters of output text per reply */
    size_t max_line;  /* longest accepted message, bytes */
    int max_runs;     /* runs held at once */
    int64_t yield_ms; /* a call returns a run still going after this */
    bool agent_env;   /* add the non-interactive profile to every run */
    bool dry_run;     /* validate tools/call but spawn nothing (fuzzing) */
    int stop_fd;      /* a signalfd of the signals that end the server, -1 */
    int child_fd;     /* a signalfd of SIGCHLD (subreaper only), or -1 */
    bool keep_logs;   /* leave the spill directory at exit */
    /* The server is the child subreaper of its calls: orphans that left
     * a call's session are killed once every call that was going when
     * they started has ended (a cgroup per call ends them with the call
     * itself). */
    bool subreaper;
    /* Every bash_run runs in a shell session (SPEC 9): "default" unless
     * the call names one; no_sessions: a fresh shell for every call. */
    bool no_sessions;
    int max_sessions; /* sessions held at once */
    /* Replies show the raw output (made valid UTF-8, a terminal's escapes
     * removed) instead of the reduced text of SPEC 10. */
    bool raw_output;
    /* This server's name in every run and task id (fleets); NULL: none. */
    const char *instance;
    /* Serve over HTTP rather than stdio; NULL: stdio. */
    const struct mcp_http_opts *http;
    /* The command policy (SPEC 13), loaded once at start and never again;
     * NULL: none. It is applied here, not by the library (run.policy
     * stays NULL), so that an `ask` can be put to a person. */
    const struct bsh_policy *policy;
    int64_t ask_timeout_ms; /* an approval not given by then: refused */
    bool ask_elicit;        /* ask a client that can elicit */
    bool ask_sandbox;       /* else run read-only instead of asking */
};

#define MCP_DEFAULT_TIMEOUT_MS   600000
#define MCP_DEFAULT_BUDGET       30000
#define MCP_DEFAULT_MAX_LINE     (4u << 20)
#define MCP_DEFAULT_MAX_RUNS     64
#define MCP_DEFAULT_YIELD_MS     30000
#define MCP_DEFAULT_MAX_SESSIONS 64
#define MCP_DEFAULT_ASK_TIMEOUT  300000

/* Serves until stdin ends (0) or a signal arrives on cfg->stop_fd
 * (128+N); every running call is killed first. Over HTTP (cfg->http),
 * serves until a stop signal, then drains and returns 0, or 125 with a
 * message on stderr when it cannot listen. */
int mcp_serve(const struct mcp_config *cfg);

/* Handles `len` bytes as if they had come on stdin, then ends as at EOF
 * (for the fuzzer; replies still go to stdout). */
void mcp_feed(const struct mcp_config *cfg, const char *data, size_t len);

/* Handles `len` bytes as if one HTTP client had sent them and closed its
 * side, for a bounded number of turns (for the fuzzer; cfg->http with
 * no listen address; what is answered is read and dropped). */
void mcp_http_feed(const struct mcp_config *cfg, const char *data, size_t len);

#endif
