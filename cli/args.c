/* SPDX-License-Identifier: MIT */
/*
 * Option parsing for `bsh run`, `bsh check`, `bsh patterns` and `bsh mcp`.
 * A small hand parser rather than getopt_long: it keeps no global state,
 * so it can be fuzzed and called twice, and its errors name the exact
 * argument at fault.
 */
#include "args.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage_error(struct cli_args *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int usage_error(struct cli_args *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->error, sizeof(a->error), fmt, ap);
    va_end(ap);
    return -1;
}

/* A whole number of milliseconds from 0 for option `what` (timeout,
 * idle timeout, grace), into `*ms`. */
static int parse_ms(struct cli_args *a, const char *what, const char *s,
                    int64_t *ms)
{
    if (s == NULL)
        return usage_error(a, "missing %s", what);
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (s[0] >= '0' && s[0] <= '9' && *end == '\0' && errno == ERANGE)
        return usage_error(a, "invalid %s '%s': too large (at most %lld ms)",
                           what, s, (long long)INT64_MAX);
    if (s[0] < '0' || s[0] > '9' || *end != '\0' || errno != 0)
        return usage_error(a,
                           "invalid %s '%s': expected milliseconds, a whole "
                           "number from 0",
                           what, s);
    *ms = (int64_t)v;
    return 0;
}

/* A count from 1 to 100000 (--max-runs). */
static int parse_count(struct cli_args *a, const char *what, const char *s,
                       int *out)
{
    char *end = NULL;
    errno = 0;
    long v = s != NULL ? strtol(s, &end, 10) : 0;
    if (s == NULL || *s == '\0' || end == NULL || *end != '\0' || errno != 0 ||
        v < 1 || v > 100000)
        return usage_error(a,
                           "invalid %s '%s': expected a number from 1 to "
                           "100000",
                           what, s != NULL ? s : "");
    *out = (int)v;
    return 0;
}

/* Splits NAME=VALUE at the first '='. The name is checked by the engine,
 * which reports a bad one as an error of the run. */
static int add_env(struct cli_args *a, const char *s)
{
    if (s == NULL)
        return usage_error(a, "missing --env value");
    const char *eq = strchr(s, '=');
    if (eq == NULL)
        return usage_error(a, "invalid --env '%s': expected NAME=VALUE", s);
    char *copy = strdup(s);
    size_t count = a->run.env_count;
    char **texts = realloc(a->env_text, (count + 1) * sizeof(*texts));
    if (texts != NULL)
        a->env_text = texts;
    struct bsh_env_var *env = realloc(a->env, (count + 1) * sizeof(*env));
    if (env != NULL)
        a->env = env;
    if (copy == NULL || texts == NULL || env == NULL) {
        free(copy);
        return usage_error(a, "out of memory");
    }
    copy[eq - s] = '\0';
    a->env_text[count] = copy;
    a->env[count].name = copy;
    a->env[count].value = copy + (eq - s) + 1;
    a->run.env = a->env;
    a->run.env_count = count + 1;
    return 0;
}

/* -l NAME=VALUE: memory, fsize and output in bytes (K, M and G are
 * 1024-based), pids a count, cpu seconds. */
static int add_limit(struct cli_args *a, const char *s)
{
    static const struct {
        const char *name;
        size_t offset;
        bool bytes;
    } names[] = {
        {"memory", offsetof(struct bsh_limits, memory_bytes), true},
        {"pids", offsetof(struct bsh_limits, pids), false},
        {"cpu", offsetof(struct bsh_limits, cpu_seconds), false},
        {"fsize", offsetof(struct bsh_limits, fsize_bytes), true},
        {"output", offsetof(struct bsh_limits, output_bytes), true},
    };
    if (s == NULL)
        return usage_error(a, "missing --limit value");
    const char *eq = strchr(s, '=');
    size_t k = 0, n = sizeof(names) / sizeof(names[0]);
    while (eq != NULL && k < n &&
           (strncmp(s, names[k].name, (size_t)(eq - s)) != 0 ||
            names[k].name[eq - s] != '\0'))
        k++;
    if (eq == NULL || k == n)
        return usage_error(a,
                           "invalid limit '%s': expected NAME=VALUE with NAME "
                           "memory, pids, cpu, fsize or output",
                           s);
    int64_t *field =
        (int64_t *)(void *)((char *)&a->run.limits + names[k].offset);
    if (strcmp(eq + 1, "none") == 0 && k <= 1) { /* memory, pids */
        *field = BSH_NO_LIMIT; /* not even the sandbox's default */
        return 0;
    }
    char *end;
    errno = 0;
    long long v = strtoll(eq + 1, &end, 10);
    int shift = !names[k].bytes ? 0
                : *end == 'K'   ? 10
                : *end == 'M'   ? 20
                : *end == 'G'   ? 30
                                : 0;
    if (shift > 0)
        end++;
    if (eq[1] < '0' || eq[1] > '9' || *end != '\0' || errno != 0 || v < 1 ||
        v > (INT64_MAX >> shift))
        return usage_error(a, "invalid limit '%s': expected %s from 1", s,
                           names[k].bytes
                               ? "a whole number of bytes, with an optional "
                                 "K, M or G,"
                           : k == 1 ? "a whole number of processes"
                                    : "a whole number of seconds");
    *field = (int64_t)v << shift;
    return 0;
}

static int set_containment(struct cli_args *a, const char *s)
{
    static const char *const names[] = {"auto", "cgroup", "subreaper"};
    for (int i = 0; s != NULL && i < 3; i++)
        if (strcmp(s, names[i]) == 0) {
            a->containment = (enum cli_containment)i;
            return 0;
        }
    return usage_error(a,
                       "invalid containment '%s': expected auto, cgroup or "
                       "subreaper",
                       s != NULL ? s : "");
}

/* --sandbox (strict) or --sandbox=strict|best-effort. */
static int set_sandbox(struct cli_args *a, const char *s)
{
    if (s == NULL || strcmp(s, "strict") == 0)
        a->run.sandbox.mode = BSH_SANDBOX_STRICT;
    else if (strcmp(s, "best-effort") == 0)
        a->run.sandbox.mode = BSH_SANDBOX_BEST_EFFORT;
    else
        return usage_error(a,
                           "invalid sandbox '%s': expected strict or "
                           "best-effort",
                           s);
    return 0;
}

/* Appends `path` to a repeatable option's list (`--NAME` needs a WHAT). */
static int add_path(struct cli_args *a, const char *name, const char *what,
                    const char *path, const char ***list, size_t *count)
{
    if (path == NULL || path[0] == '\0')
        return usage_error(a, "--%s needs %s", name, what);
    const char **grown = realloc(*list, (*count + 1) * sizeof(*grown));
    if (grown == NULL)
        return usage_error(a, "out of memory");
    *list = grown;
    (*list)[(*count)++] = path;
    return 0;
}

/* An option whose value is one non-empty string. */
static int set_text(struct cli_args *a, const char *name, const char *what,
                    const char *value, const char **out)
{
    if (value == NULL || value[0] == '\0')
        return usage_error(a, "--%s needs %s", name, what);
    *out = value;
    return 0;
}

/* --instance NAME: 1 to 63 of A-Z a-z 0-9 . _ - (it goes into ids). */
static int set_instance(struct cli_args *a, const char *value)
{
    size_t n = value != NULL ? strlen(value) : 0;
    if (n == 0 || n > 63 ||
        strspn(value, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                      "0123456789._-") != n)
        return usage_error(a,
                           "invalid --instance '%s': expected 1 to 63 "
                           "letters, digits, '.', '_' or '-'",
                           value != NULL ? value : "");
    a->instance = value;
    return 0;
}

/* A size in bytes from 1 (K, M and G are 1024-based), up to 1 GiB. */
static int parse_bytes(struct cli_args *a, const char *what, const char *s,
                       int64_t *out)
{
    char *end = NULL;
    errno = 0;
    long long v = s != NULL ? strtoll(s, &end, 10) : 0;
    int shift = end == NULL      ? -1
                : *end == '\0'   ? 0
                : end[1] != '\0' ? -1
                : *end == 'K'    ? 10
                : *end == 'M'    ? 20
                : *end == 'G'    ? 30
                                 : -1;
    if (s == NULL || s[0] < '0' || s[0] > '9' || errno != 0 || shift < 0 ||
        v < 1 || v > (1LL << 30) >> shift)
        return usage_error(a,
                           "invalid %s '%s': expected bytes from 1 to 1G (K, "
                           "M and G suffixes allowed)",
                           what, s != NULL ? s : "");
    *out = (int64_t)(v << shift);
    return 0;
}

enum opt {
    OPT_CWD,
    OPT_ENV,
    OPT_TIMEOUT,
    OPT_PTY,
    OPT_JSON,
    OPT_KEEP_LOGS,
    OPT_IDLE,
    OPT_GRACE,
    OPT_LIMIT,
    OPT_REPORT,
    OPT_CONTAINMENT,
    OPT_STDIN,
    OPT_AGENT_ENV,
    OPT_NO_AGENT_ENV,
    OPT_YIELD,
    OPT_MAX_RUNS,
    OPT_SANDBOX,
    OPT_SANDBOX_WRITE,
    OPT_SANDBOX_SOCKET,
    OPT_SANDBOX_NET,
    OPT_SESSION,
    OPT_NO_SESSIONS,
    OPT_MAX_SESSIONS,
    OPT_RAW_OUTPUT,
    OPT_LISTEN,
    OPT_TOKEN_FILE,
    OPT_ALLOW_ORIGIN,
    OPT_INSTANCE,
    OPT_MAX_BODY,
    OPT_MAX_HEADER_BYTES,
    OPT_MAX_CONNECTIONS,
    OPT_CLIENT_TIMEOUT,
    OPT_DRAIN_TIMEOUT,
    OPT_POLICY,
    OPT_POLICY_DEFAULT,
    OPT_NO_POLICY,
    OPT_PROJECT_POLICY,
    OPT_TRUST_PROJECT_POLICY,
    OPT_ASK,
    OPT_FILE,
    OPT_EACH_LINE,
    OPT_ASK_TIMEOUT,
    OPT_SANDBOX_READONLY,
    OPT_NONE
};

/* How an option takes its value. */
enum opt_value {
    VALUE_NONE,
    VALUE_REQUIRED, /* -C DIR, --cwd DIR, --cwd=DIR */
    VALUE_OPTIONAL, /* --sandbox or --sandbox=MODE only */
};

#define RUN          (1u << CLI_RUN)
#define MCP          (1u << CLI_MCP)
#define CHECK        (1u << CLI_CHECK)
#define DOCTOR       (1u << CLI_DOCTOR)
#define EXPLAIN      (1u << CLI_POLICY_EXPLAIN)
#define POLICY_USERS (RUN | CHECK | MCP | EXPLAIN)

/* Every option, once: its names, the subcommands that take it, and its
 * line of --help (continuation lines after '\n'), in --help's order. */
struct opt_spec {
    const char *long_name;
    char short_name;
    enum opt opt;
    enum opt_value value;
    unsigned commands; /* a bit per enum cli_command */
    const char *metavar;
    const char *help;
};

static const struct opt_spec opt_specs[] = {
    {"cwd", 'C', OPT_CWD, VALUE_REQUIRED, RUN | MCP, "DIR",
     "working directory (default: inherit)"},
    {"env", 'e', OPT_ENV, VALUE_REQUIRED, RUN | MCP, "NAME=VALUE",
     "add a variable to the inherited environment\n(repeatable)"},
    {"timeout", 't', OPT_TIMEOUT, VALUE_REQUIRED, RUN | MCP, "MS",
     "kill the command's whole process group after MS ms"},
    {"pty", 'p', OPT_PTY, VALUE_NONE, RUN | MCP, NULL,
     "run in a 24x80 pseudo-terminal"},
    {"idle-timeout", 0, OPT_IDLE, VALUE_REQUIRED, RUN | MCP, "MS",
     "end the run when it prints nothing for MS ms"},
    {"grace", 0, OPT_GRACE, VALUE_REQUIRED, RUN | MCP, "MS",
     "on a timeout or signal, SIGTERM first and\nSIGKILL after MS ms "
     "(default: SIGKILL at once)"},
    {"limit", 'l', OPT_LIMIT, VALUE_REQUIRED, RUN | MCP, "NAME=VALUE",
     "limit memory, pids, cpu (s), fsize or output\n(bytes take K, M, G); "
     "repeatable; memory=none\nand pids=none drop a sandbox's defaults"},
    {"containment", 0, OPT_CONTAINMENT, VALUE_REQUIRED, RUN | MCP, "HOW",
     "auto (default), cgroup or subreaper"},
    {"sandbox", 0, OPT_SANDBOX, VALUE_OPTIONAL, RUN | MCP, "[=MODE]",
     "confine the run: write only in its directory,\n/tmp and $TMPDIR, no "
     "network, no privileges;\nMODE strict (default) or best-effort"},
    {"sandbox-write", 0, OPT_SANDBOX_WRITE, VALUE_REQUIRED, RUN | MCP, "DIR",
     "also writable (repeatable)"},
    {"sandbox-socket", 0, OPT_SANDBOX_SOCKET, VALUE_REQUIRED, RUN | MCP, "PATH",
     "a Unix socket from outside the run that it\nmay connect to "
     "(repeatable)"},
    {"sandbox-net", 0, OPT_SANDBOX_NET, VALUE_NONE, RUN | MCP, NULL,
     "keep the network in the sandbox"},
    {"sandbox-readonly", 0, OPT_SANDBOX_READONLY, VALUE_NONE, RUN | MCP, NULL,
     "the read-only sandbox, strict: nothing\nwritable but the run's own "
     "TMPDIR, no network"},
    {"report", 0, OPT_REPORT, VALUE_NONE, RUN, NULL,
     "the end report after the status"},
    {"stdin", 'i', OPT_STDIN, VALUE_NONE, RUN, NULL,
     "bsh's stdin is the command's; with -p on\na terminal: raw mode, size "
     "followed"},
    {"agent-env", 0, OPT_AGENT_ENV, VALUE_NONE, RUN, NULL,
     "add the non-interactive profile (pagers,\neditors, prompts that never "
     "wait)"},
    {"no-agent-env", 0, OPT_NO_AGENT_ENV, VALUE_NONE, MCP, NULL,
     "leave it out (it is on by default)"},
    {"yield", 0, OPT_YIELD, VALUE_REQUIRED, MCP, "MS",
     "a call returns a run still going after\nMS ms (default 30000)"},
    {"max-runs", 0, OPT_MAX_RUNS, VALUE_REQUIRED, MCP, "N",
     "runs held at once (default 64)"},
    {"session", 0, OPT_SESSION, VALUE_REQUIRED, RUN | CHECK | EXPLAIN, "FILE",
     "keep the shell's state (directory, variables,\nfunctions, aliases, "
     "options) in FILE, from\none run to the next"},
    {"no-sessions", 0, OPT_NO_SESSIONS, VALUE_NONE, MCP, NULL,
     "a fresh shell for every call (no state kept)"},
    {"max-sessions", 0, OPT_MAX_SESSIONS, VALUE_REQUIRED, MCP, "N",
     "shell sessions held at once (default 64)"},
    {"raw-output", 0, OPT_RAW_OUTPUT, VALUE_NONE, MCP, NULL,
     "replies show the output as it came (no\nprogress frames, escapes or "
     "folds reduced)"},

    {"listen", 0, OPT_LISTEN, VALUE_REQUIRED, MCP, "ADDR",
     "serve over HTTP on ADDR (HOST:PORT,\n[IPV6]:PORT or unix:PATH), "
     "endpoint /mcp"},
    {"token-file", 0, OPT_TOKEN_FILE, VALUE_REQUIRED, MCP, "FILE",
     "bearer tokens, one per line (needed\nunless ADDR is loopback or "
     "unix:)"},
    {"allow-origin", 0, OPT_ALLOW_ORIGIN, VALUE_REQUIRED, MCP, "ORIGIN",
     "a browser Origin allowed besides\nloopback ones (repeatable)"},
    {"instance", 0, OPT_INSTANCE, VALUE_REQUIRED, MCP, "NAME",
     "this server's name, put into every run\nand task id (fleets)"},
    {"max-body", 0, OPT_MAX_BODY, VALUE_REQUIRED, MCP, "BYTES",
     "largest request body (default 4M)"},
    {"max-header-bytes", 0, OPT_MAX_HEADER_BYTES, VALUE_REQUIRED, MCP, "BYTES",
     "largest request head (default 32K)"},
    {"max-connections", 0, OPT_MAX_CONNECTIONS, VALUE_REQUIRED, MCP, "N",
     "HTTP connections at once (default 1024)"},
    {"client-timeout", 0, OPT_CLIENT_TIMEOUT, VALUE_REQUIRED, MCP, "MS",
     "drop a client that takes longer to send\na request or to read "
     "(default 30000)"},
    {"drain-timeout", 0, OPT_DRAIN_TIMEOUT, VALUE_REQUIRED, MCP, "MS",
     "after SIGTERM, exit within MS\n(default 10000)"},

    {"policy", 0, OPT_POLICY, VALUE_REQUIRED, POLICY_USERS, "FILE",
     "decide every command against the rules in\nFILE (repeatable; no "
     "other policy is read)"},
    {"policy-default", 0, OPT_POLICY_DEFAULT, VALUE_REQUIRED, POLICY_USERS, "D",
     "allow, ask (default) or deny, for a command\nno rule matches"},
    {"no-policy", 0, OPT_NO_POLICY, VALUE_NONE, POLICY_USERS, NULL,
     "no policy, whatever the environment says"},
    {"project-policy", 0, OPT_PROJECT_POLICY, VALUE_NONE, POLICY_USERS, NULL,
     "also read .bsh/policy.rules of the project\n(its allow rules are "
     "ignored)"},
    {"trust-project-policy", 0, OPT_TRUST_PROJECT_POLICY, VALUE_NONE,
     POLICY_USERS, NULL, "read it with its allow rules"},
    {"ask", 0, OPT_ASK, VALUE_REQUIRED, RUN | MCP, "HOW",
     "a command the policy says to ask about:\nrun: tty (default: ask on the "
     "terminal),\nrefuse, allow or sandbox (run it read-only);\nmcp: elicit "
     "(default: ask the client's\nuser), sandbox or elicit,sandbox"},
    {"ask-timeout", 0, OPT_ASK_TIMEOUT, VALUE_REQUIRED, MCP, "MS",
     "an approval not given within MS is a\nrefusal (default 300000)"},
    {"file", 0, OPT_FILE, VALUE_REQUIRED, EXPLAIN, "FILE",
     "read the command from FILE (- for stdin)"},
    {"each-line", 0, OPT_EACH_LINE, VALUE_NONE, EXPLAIN, NULL,
     "with --file: each line is a command"},

    {"json", 0, OPT_JSON, VALUE_NONE, RUN | CHECK | DOCTOR | EXPLAIN, NULL,
     "one JSON object per line\non stdout"},
    {"keep-logs", 0, OPT_KEEP_LOGS, VALUE_NONE, MCP, NULL,
     "keep the logs of cut replies at exit"},
};

#define OPT_COUNT (sizeof(opt_specs) / sizeof(opt_specs[0]))

/* Where an option's help starts. */
#define HELP_COLUMN 25

/* "(run) ", "(mcp) " or "(run, check, doctor) " for an option that not
 * both run and mcp take; "" for one they both take. */
static void which_commands(unsigned commands, char *buf, size_t size)
{
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {{RUN, "run"},
                 {CHECK, "check"},
                 {MCP, "mcp"},
                 {DOCTOR, "doctor"},
                 {EXPLAIN, "policy explain"}};
    buf[0] = '\0';
    if (commands == (RUN | MCP))
        return;
    size_t n = 0;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && n < size; i++)
        if (commands & names[i].bit)
            n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "(",
                                  names[i].name);
    if (n < size)
        snprintf(buf + n, size - n, ") ");
}

/* Appends to `buf` (of `size`, `*n` used) what `fmt` makes, cut at the
 * end; `*n` counts what was wanted. */
static void append(char *buf, size_t size, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void append(char *buf, size_t size, size_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(buf + (*n < size ? *n : size),
                        *n < size ? size - *n : 0, fmt, ap);
    va_end(ap);
    if (len > 0)
        *n += (size_t)len;
}

size_t cli_options_help(char *buf, size_t size)
{
    size_t n = 0;
    for (size_t i = 0; i < OPT_COUNT; i++) {
        const struct opt_spec *o = &opt_specs[i];
        char names[64], only[48];
        int len = snprintf(
            names, sizeof(names), "  %s%c%s--%s%s%s", o->short_name ? "-" : " ",
            o->short_name ? o->short_name : ' ', o->short_name ? ", " : "  ",
            o->long_name, o->value == VALUE_REQUIRED ? " " : "",
            o->metavar != NULL ? o->metavar : "");
        which_commands(o->commands, only, sizeof(only));
        int pad = len < HELP_COLUMN ? HELP_COLUMN - len : 2;
        append(buf, size, &n, "%s%*s%s", names, pad, "", only);
        for (const char *h = o->help; *h != '\0'; h++)
            if (*h == '\n')
                append(buf, size, &n, "\n%*s", HELP_COLUMN, "");
            else
                append(buf, size, &n, "%c", *h);
        append(buf, size, &n, "\n");
    }
    return n;
}

/* Finds the option named by `arg` ("-C", "--cwd" or "--cwd=DIR"); sets
 * `*inline_value` for the --name=value form. */
static const struct opt_spec *find_opt(const char *arg,
                                       const char **inline_value)
{
    *inline_value = NULL;
    for (size_t i = 0; i < OPT_COUNT; i++) {
        const struct opt_spec *o = &opt_specs[i];
        if (arg[1] != '-') {
            if (o->short_name != 0 && arg[1] == o->short_name && arg[2] == '\0')
                return o;
            continue;
        }
        size_t n = strlen(o->long_name);
        if (strncmp(arg + 2, o->long_name, n) != 0)
            continue;
        if (arg[2 + n] == '\0')
            return o;
        if (arg[2 + n] == '=' && o->value != VALUE_NONE) {
            *inline_value = arg + 3 + n;
            return o;
        }
    }
    return NULL;
}

static const char *command_name(enum cli_command c)
{
    static const char *const names[] = {
        "",       "run",     "check",          "patterns",    "mcp",
        "doctor", "session", "policy explain", "policy check"};
    return c <= CLI_POLICY_CHECK ? names[c] : "";
}

static int apply_opt(struct cli_args *a, enum opt opt, const char *value)
{
    switch (opt) {
    case OPT_CWD:
        a->run.cwd = value;
        return 0;
    case OPT_ENV:
        return add_env(a, value);
    case OPT_TIMEOUT:
        a->timeout_given = true;
        return parse_ms(a, "timeout", value, &a->run.timeout_ms);
    case OPT_IDLE: /* as MCP's idle_timeout_ms: at least 1 */
        if (parse_ms(a, "idle timeout", value, &a->run.idle_timeout_ms) < 0)
            return -1;
        if (a->run.idle_timeout_ms == 0)
            return usage_error(a,
                               "invalid idle timeout '0': at least 1 ms (leave "
                               "the option out for no idle timeout)");
        return 0;
    case OPT_GRACE:
        return parse_ms(a, "grace", value, &a->run.grace_ms);
    case OPT_LIMIT:
        return add_limit(a, value);
    case OPT_CONTAINMENT:
        return set_containment(a, value);
    case OPT_REPORT:
        a->report = true;
        return 0;
    case OPT_PTY:
        a->run.pty = true;
        return 0;
    case OPT_JSON:
        a->json = true;
        return 0;
    case OPT_KEEP_LOGS:
        a->keep_logs = true;
        return 0;
    case OPT_STDIN:
        a->stdin_given = true;
        return 0;
    case OPT_AGENT_ENV:
        a->agent_env = true;
        return 0;
    case OPT_NO_AGENT_ENV:
        a->agent_env = false;
        return 0;
    case OPT_YIELD:
        a->yield_given = true;
        return parse_ms(a, "yield", value, &a->yield_ms);
    case OPT_MAX_RUNS:
        return parse_count(a, "max-runs", value, &a->max_runs);
    case OPT_SANDBOX:
        return set_sandbox(a, value);
    case OPT_SANDBOX_WRITE:
        return add_path(a, "sandbox-write", "a directory", value,
                        &a->sandbox_write, &a->run.sandbox.write_count);
    case OPT_SANDBOX_SOCKET:
        return add_path(a, "sandbox-socket", "a socket's path", value,
                        &a->sandbox_socket, &a->run.sandbox.socket_count);
    case OPT_SANDBOX_NET:
        a->run.sandbox.allow_net = true;
        return 0;
    case OPT_SANDBOX_READONLY:
        a->run.sandbox.mode = BSH_SANDBOX_STRICT;
        a->run.sandbox.readonly = true;
        return 0;
    case OPT_SESSION:
        if (value == NULL || value[0] == '\0')
            return usage_error(a, "%s: --session needs a file name",
                               command_name(a->command));
        a->session_file = value;
        return 0;
    case OPT_NO_SESSIONS:
        a->no_sessions = true;
        return 0;
    case OPT_MAX_SESSIONS:
        return parse_count(a, "max-sessions", value, &a->max_sessions);
    case OPT_RAW_OUTPUT:
        a->raw_output = true;
        return 0;
    case OPT_LISTEN:
        return set_text(a, "listen", "an address", value, &a->listen);
    case OPT_TOKEN_FILE:
        return set_text(a, "token-file", "a file", value, &a->token_file);
    case OPT_ALLOW_ORIGIN:
        return add_path(a, "allow-origin", "an origin", value, &a->allow_origin,
                        &a->allow_origin_count);
    case OPT_INSTANCE:
        return set_instance(a, value);
    case OPT_MAX_BODY:
        return parse_bytes(a, "max-body", value, &a->max_body);
    case OPT_MAX_HEADER_BYTES:
        return parse_bytes(a, "max-header-bytes", value, &a->max_header_bytes);
    case OPT_MAX_CONNECTIONS:
        return parse_count(a, "max-connections", value, &a->max_connections);
    case OPT_CLIENT_TIMEOUT:
        a->client_timeout_given = true;
        return parse_ms(a, "client timeout", value, &a->client_timeout_ms);
    case OPT_DRAIN_TIMEOUT:
        a->drain_timeout_given = true;
        return parse_ms(a, "drain timeout", value, &a->drain_timeout_ms);
    case OPT_POLICY:
        if (value == NULL || value[0] == '\0')
            return usage_error(a, "--policy needs a file");
        return add_path(a, "policy", "a file", value, &a->policy_files,
                        &a->policy_count);
    case OPT_POLICY_DEFAULT:
        if (value == NULL ||
            (strcmp(value, "allow") != 0 && strcmp(value, "ask") != 0 &&
             strcmp(value, "deny") != 0))
            return usage_error(a,
                               "invalid policy default '%s': expected allow, "
                               "ask or deny",
                               value != NULL ? value : "");
        a->policy_default = value;
        return 0;
    case OPT_NO_POLICY:
        a->no_policy = true;
        return 0;
    case OPT_PROJECT_POLICY:
        a->project_policy = true;
        return 0;
    case OPT_TRUST_PROJECT_POLICY:
        a->project_policy = a->trust_project_policy = true;
        return 0;
    case OPT_ASK:
        if (value == NULL ||
            (a->command == CLI_RUN && strcmp(value, "tty") != 0 &&
             strcmp(value, "refuse") != 0 && strcmp(value, "allow") != 0 &&
             strcmp(value, "sandbox") != 0) ||
            (a->command == CLI_MCP && strcmp(value, "elicit") != 0 &&
             strcmp(value, "sandbox") != 0 &&
             strcmp(value, "elicit,sandbox") != 0))
            return usage_error(a, "invalid --ask '%s': expected %s",
                               value != NULL ? value : "",
                               a->command == CLI_RUN
                                   ? "tty, refuse, allow or sandbox"
                                   : "elicit, sandbox or elicit,sandbox");
        a->ask = value;
        return 0;
    case OPT_ASK_TIMEOUT:
        a->ask_timeout_given = true;
        if (parse_ms(a, "ask timeout", value, &a->ask_timeout_ms) < 0)
            return -1;
        if (a->ask_timeout_ms == 0)
            return usage_error(a, "invalid ask timeout '0': at least 1 ms");
        return 0;
    case OPT_FILE:
        return set_text(a, "file", "a file (or -)", value, &a->input_file);
    case OPT_EACH_LINE:
        a->each_line = true;
        return 0;
    case OPT_NONE:
        break;
    }
    return -1;
}

/* Applies the option at argv[*i] (advancing past its value, if any).
 * `after_operand`: an unknown option there is most likely the rest of an
 * unquoted command line, and the message says so. */
static int take_option(struct cli_args *a, int argc, char **argv, int *i,
                       bool after_operand)
{
    const char *arg = argv[*i], *value;
    const struct opt_spec *o = find_opt(arg, &value);
    if (o == NULL || !(o->commands & (1u << a->command)))
        return usage_error(a, "%s: unknown option '%s'%s",
                           command_name(a->command), arg,
                           after_operand ? "; quote the whole command line "
                                           "as one argument"
                                         : "");
    if (o->value == VALUE_REQUIRED && value == NULL) {
        if (*i + 1 >= argc)
            return usage_error(a, "%s: option '%s' needs a value",
                               command_name(a->command), arg);
        value = argv[++*i];
    }
    return apply_opt(a, o->opt, value);
}

/* Parses the options and operands after the subcommand word. As with
 * getopt's default, options may also follow the COMMAND; after "--"
 * everything is an operand, so a COMMAND that starts with '-' goes there. */
static int parse_rest(struct cli_args *a, int argc, char **argv)
{
    int operands = 0;
    const char *operand = NULL;
    bool options_done = false;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (!options_done && strcmp(arg, "--") == 0) {
            options_done = true;
        } else if (!options_done && arg[0] == '-' && arg[1] != '\0') {
            if (take_option(a, argc, argv, &i, operands > 0) < 0)
                return -1;
        } else if (operands++ == 0) {
            operand = arg;
        }
    }
    const struct bsh_sandbox *sb = &a->run.sandbox;
    if (sb->readonly &&
        (sb->write_count > 0 || sb->socket_count > 0 || sb->allow_net))
        return usage_error(a,
                           "%s: --sandbox-readonly makes nothing writable and "
                           "has no network: it does not go with "
                           "--sandbox-write, --sandbox-socket or --sandbox-net",
                           command_name(a->command));
    if (sb->mode == BSH_SANDBOX_OFF &&
        (sb->write_count > 0 || sb->socket_count > 0 || sb->allow_net))
        return usage_error(a,
                           "%s: --sandbox-write, --sandbox-socket and "
                           "--sandbox-net go with --sandbox",
                           command_name(a->command));
    if (a->listen == NULL &&
        (a->token_file != NULL || a->allow_origin_count > 0 ||
         a->max_body != 0 || a->max_header_bytes != 0 ||
         a->max_connections != 0 || a->client_timeout_given ||
         a->drain_timeout_given))
        return usage_error(a, "mcp: --token-file, --allow-origin, --max-body, "
                              "--max-header-bytes, --max-connections, "
                              "--client-timeout and --drain-timeout go with "
                              "--listen");
    if (a->each_line && a->input_file == NULL)
        return usage_error(a, "policy explain: --each-line goes with --file");
    bool wants_command =
        a->command == CLI_RUN || a->command == CLI_CHECK ||
        (a->command == CLI_POLICY_EXPLAIN && a->input_file == NULL);
    if (wants_command && operands == 0)
        return usage_error(a, "%s: missing COMMAND", command_name(a->command));
    if (operands > (wants_command ? 1 : 0))
        return usage_error(a,
                           wants_command
                               ? "%s: expected one COMMAND; quote the whole "
                                 "command line as one argument"
                               : "%s: unexpected argument",
                           command_name(a->command));
    a->text = operand;
    a->run.sandbox.write_dirs = a->sandbox_write;
    a->run.sandbox.sockets = a->sandbox_socket;
    /* The subreaper is the CLI's (and the server's): the engine keeps to
     * the session then. */
    a->run.containment =
        a->containment == CLI_CONTAIN_CGROUP ? BSH_CONTAIN_CGROUP
        : a->containment == CLI_CONTAIN_AUTO ? BSH_CONTAIN_AUTO
                                             : BSH_CONTAIN_SESSION;
    return 0;
}

/* `bsh policy explain [OPTIONS] COMMAND`, `bsh policy check FILE...`. */
static int parse_policy(struct cli_args *a, int argc, char **argv)
{
    if (argc >= 1 && strcmp(argv[0], "explain") == 0) {
        a->command = CLI_POLICY_EXPLAIN;
        return parse_rest(a, argc - 1, argv + 1);
    }
    if (argc >= 1 && strcmp(argv[0], "check") == 0) {
        a->command = CLI_POLICY_CHECK;
        if (argc < 2)
            return usage_error(a, "policy check: expected FILE...");
        a->check_files = argv + 1;
        a->check_count = argc - 1;
        return 0;
    }
    return usage_error(a, "policy: expected 'explain COMMAND' or 'check "
                          "FILE...'");
}

/* `bsh session show|reset FILE`. */
static int parse_session(struct cli_args *a, int argc, char **argv)
{
    a->command = CLI_SESSION;
    if (argc < 1 ||
        (strcmp(argv[0], "show") != 0 && strcmp(argv[0], "reset") != 0))
        return usage_error(a, "session: expected 'show FILE' or 'reset FILE'");
    if (argc != 2 || argv[1][0] == '\0')
        return usage_error(a, "session %s: expected one FILE", argv[0]);
    a->session_action = argv[0];
    a->session_file = argv[1];
    return 0;
}

int cli_parse(int argc, char **argv, struct cli_args *a)
{
    memset(a, 0, sizeof(*a));
    a->run = (struct bsh_run_opts)BSH_RUN_OPTS_INIT;
    a->run.timeout_ms = BSH_NO_TIMEOUT;
    if (argc < 2)
        return usage_error(a, "missing command; try 'bsh --help'");
    static const struct {
        const char *word;
        enum cli_command command;
    } words[] = {
        {"run", CLI_RUN},           {"check", CLI_CHECK},
        {"patterns", CLI_PATTERNS}, {"mcp", CLI_MCP},
        {"doctor", CLI_DOCTOR},     {"--version", CLI_VERSION},
        {"--help", CLI_HELP},       {"-h", CLI_HELP},
        {"help", CLI_HELP},
    };
    if (strcmp(argv[1], "session") == 0)
        return parse_session(a, argc - 2, argv + 2);
    if (strcmp(argv[1], "policy") == 0)
        return parse_policy(a, argc - 2, argv + 2);
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        if (strcmp(argv[1], words[i].word) == 0) {
            a->command = words[i].command;
            a->agent_env = a->command == CLI_MCP; /* its default */
            if (a->command >= CLI_VERSION)
                return argc == 2
                           ? 0
                           : usage_error(a, "%s takes no arguments", argv[1]);
            return parse_rest(a, argc - 2, argv + 2);
        }
    }
    return usage_error(a, "unknown command '%s'; try 'bsh --help'", argv[1]);
}

void cli_args_release(struct cli_args *a)
{
    for (size_t i = 0; i < a->run.env_count; i++)
        free(a->env_text[i]);
    free(a->env_text);
    free(a->env);
    free(a->sandbox_write);
    free(a->sandbox_socket);
    free(a->allow_origin);
    a->allow_origin = NULL;
    free(a->policy_files);
    a->policy_files = NULL;
    a->sandbox_write = a->sandbox_socket = NULL;
    a->env_text = NULL;
    a->env = NULL;
    a->run = (struct bsh_run_opts)BSH_RUN_OPTS_INIT;
}
