/* SPDX-License-Identifier: MIT */
/*
 * libbsh: run `bash -c COMMAND` for another program, stream what it writes
 * as it writes it, and end every run with exactly one status.
 *
 * The library never prints, never exits, starts no thread, installs no
 * signal handler and never reaps a child that is not its own.
 *
 * One rule for the caller's process: SIGCHLD must not be ignored (SIG_IGN
 * makes the kernel reap children before bsh can read their status; the
 * stream then ends with an error that says so). A caller that reaps every
 * child with waitpid(-1) takes bsh's children too, with the same result.
 */
#ifndef BSH_BSH_H
#define BSH_BSH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#    define BSH_API __attribute__((visibility("default")))
#else
#    define BSH_API
#endif

/* BSH_VERSION_MAJOR, _MINOR, _PATCH and _STRING ("0.1.0"), written by
 * the build from the project's one version. */
#include <bsh/version.h>
/** The version as one number, MAJOR * 10000 + MINOR * 100 + PATCH, for
 *  `#if BSH_VERSION_NUMBER >= 100` tests. */
#define BSH_VERSION_NUMBER \
    (BSH_VERSION_MAJOR * 10000 + BSH_VERSION_MINOR * 100 + BSH_VERSION_PATCH)

/** The version of the library linked at run time, e.g. "0.1.0". */
BSH_API const char *bsh_version(void);

/* ------------------------------------------------------------------ */
/* Errors                                                              */

/** Return codes. Zero or positive means success. */
enum bsh_status {
    BSH_OK = 0,
    BSH_EINVAL = -1,  /* caller misuse (NULL where not allowed, ...) */
    BSH_EGUARD = -2,  /* a pre-spawn guard rejected the command */
    BSH_ESTREAM = -3, /* the stream ended with an error: bsh_stream_error() */
    BSH_EAGAIN = -4,  /* bsh_stream_try_next(): nothing ready yet */
    BSH_ENOMEM = -5,  /* out of memory */
    BSH_ECLOSED = -6, /* the run's stdin is closed (by the caller, by the
                         command, or because the run is over) */
    BSH_EBUSY = -7,   /* the session has a run attached (bsh_session) */
    BSH_EPOLICY = -8, /* the policy refused the run (denied, or an `ask`
                         that was not approved); nothing was started */
    BSH_EPOLICYFILE = -9, /* a policy file is bad: `err->text_err` says
                             where and why; no rule of it applies */
};

/**
 * What ended a stream with an error (bsh_stream_error_kind()), for callers
 * that act on it; bsh_stream_error() has the text. New kinds may be added:
 * treat an unknown one like BSH_ERR_SPAWN.
 */
enum bsh_error_kind {
    BSH_ERR_NONE = 0,  /* no error */
    BSH_ERR_ENV_NAME,  /* an environment variable name is not valid */
    BSH_ERR_CWD,       /* the working directory cannot be used */
    BSH_ERR_SPAWN,     /* bash could not be started (exec, argument size) */
    BSH_ERR_PTY,       /* the pseudo-terminal could not be set up */
    BSH_ERR_READ,      /* reading the output failed */
    BSH_ERR_WAIT,      /* waiting for the child failed (SIGCHLD ignored?) */
    BSH_ERR_KILL,      /* the run could not be killed; it was left running */
    BSH_ERR_RESOURCES, /* out of file descriptors, processes or memory */
    BSH_ERR_CONTAIN,   /* the containment or a limit asked for cannot be had */
    BSH_ERR_SANDBOX,   /* a sandbox layer asked for cannot be applied */
};

/** The longest message a bsh_error holds, with its NUL. */
#define BSH_ERROR_MAX 512

/**
 * The reference's BashError: `text_err` is the guard message. `exec_err`
 * mirrors the reference's optional execution detail; run() never sets it.
 */
struct bsh_error {
    char text_err[BSH_ERROR_MAX];
    int pattern;       /* 1-based number of the matching pattern, 0: none */
    bool has_exec_err; /* always false from the guards */
    struct {
        const char *stderr_text;
        int signal;
    } exec_err;
};

/* ------------------------------------------------------------------ */
/* Guards                                                              */

/** One critical pattern: its number (1-based, list order), category and
 *  exact source text. The strings are static. */
struct bsh_pattern {
    int number;
    const char *category;
    const char *regex;
};

/** The number of critical patterns (20 in this version; it may grow). */
BSH_API size_t bsh_pattern_count(void);

/** The pattern at `index` (0-based), or NULL past the end. */
BSH_API const struct bsh_pattern *bsh_pattern_at(size_t index);

/**
 * Run only the pre-spawn guards on `command`, in order: the absolute-path
 * check, then the critical patterns in list order. Returns BSH_OK when the
 * command is allowed, BSH_EGUARD when it is rejected (the message goes to
 * `err->text_err` when `err` is not NULL). Thread-safe; time linear in the
 * command's length.
 */
BSH_API int bsh_check(const char *command, size_t len, struct bsh_error *err);

/** True when `name` matches ^[A-Za-z_][A-Za-z0-9_]*$ (the whole string). */
BSH_API bool bsh_env_name_valid(const char *name);

/* ------------------------------------------------------------------ */
/* Runs and their streams                                              */

/** No deadline: the run lasts as long as the command. */
#define BSH_NO_TIMEOUT (-1)

/** Longer timeouts are cut to this, about 100 years (no overflow). */
#define BSH_TIMEOUT_MAX_MS ((int64_t)100 * 365 * 24 * 3600 * 1000)

/** Chunks are at most this long; a chunk of exactly this length has
 *  `truncated` set ("more may follow"). */
#define BSH_CHUNK_MAX 4096

/** Terminal size of the PTY path. */
#define BSH_PTY_ROWS 24
#define BSH_PTY_COLS 80

/** One environment variable, added on top of the inherited environment. */
struct bsh_env_var {
    const char *name;
    const char *value;
};

/** Where a run's processes are kept. */
enum bsh_containment {
    /* A cgroup of its own where one can be made, else its session. */
    BSH_CONTAIN_AUTO = 0,
    /* A cgroup of its own (see cgroup_parent), or the run fails with
     * BSH_ERR_CONTAIN: nothing it starts can leave it, and its end kills
     * everything in it (cgroup.kill). */
    BSH_CONTAIN_CGROUP,
    /* Its session and process group only. A process that starts a
     * session of its own is out of reach of the library; a caller that is
     * a child subreaper (PR_SET_CHILD_SUBREAPER) gets such orphans and
     * can end them. */
    BSH_CONTAIN_SESSION,
};

/** Limits of one run; 0 means none. memory and pids go through the run's
 * cgroup v2 where it has the controller, else through a cgroup v1 of the
 * run's own in that controller's v1 hierarchy (any containment); where
 * neither can be had the run fails with BSH_ERR_CONTAIN. */
struct bsh_limits {
    /* A sandboxed run that sets neither gets BSH_SANDBOX_PIDS and
     * BSH_SANDBOX_MEMORY_PERCENT of the machine's memory, each where the
     * machine can give it (else the run goes without); BSH_NO_LIMIT
     * asks for none even then. */
    int64_t memory_bytes; /* the whole run (memory.max; v1 limit_in_bytes) */
    int64_t pids;         /* processes and threads at once (pids.max) */
    int64_t cpu_seconds;  /* CPU time of each process (RLIMIT_CPU) */
    int64_t fsize_bytes;  /* the largest file written (RLIMIT_FSIZE) */
    int64_t output_bytes; /* stdout plus stderr: past it the run ends, with
                             every byte up to the limit delivered */
};

/** memory_bytes or pids: no limit, not even a sandbox's default. */
#define BSH_NO_LIMIT (-1)
/** A sandboxed run's default limits (see bsh_limits). */
#define BSH_SANDBOX_PIDS           4096
#define BSH_SANDBOX_MEMORY_PERCENT 50

/** How a run is confined (see the README, "The sandbox"). */
enum bsh_sandbox_mode {
    BSH_SANDBOX_OFF = 0,
    /* Every layer, or the run fails before anything starts
     * (BSH_ERR_SANDBOX, naming the layer). */
    BSH_SANDBOX_STRICT,
    /* What this kernel offers; the report lists each layer as applied,
     * missing or off. */
    BSH_SANDBOX_BEST_EFFORT,
};

/** The layers of the sandbox, as bits of bsh_sandbox_report. */
enum bsh_sandbox_layer {
    /* PR_SET_NO_NEW_PRIVS: setuid and file capabilities give nothing. */
    BSH_LAYER_NO_NEW_PRIVS = 1u << 0,
    /* Landlock on files (ABI 3: writing, making, removing, renaming,
     * linking, truncating): write only in the writable places. */
    BSH_LAYER_LANDLOCK_FS = 1u << 1,
    /* Landlock on TCP (ABI 4): no bind, no connect. */
    BSH_LAYER_LANDLOCK_NET = 1u << 2,
    /* Landlock scopes (ABI 6): no signal, no abstract Unix socket to
     * anything outside the run. */
    BSH_LAYER_LANDLOCK_SCOPE = 1u << 3,
    /* A seccomp filter: no IPv4/IPv6/packet sockets, mounts, namespaces,
     * kernel modules, BPF, TIOCSTI, chown, setuid modes; mode and time
     * changes and connecting to a Unix socket by path carried out by the
     * stream, in the writable places only (it answers them while it is
     * driven). */
    BSH_LAYER_SECCOMP = 1u << 4,
    /* Capabilities: of root's (or any held), only CHOWN, DAC_OVERRIDE,
     * DAC_READ_SEARCH, FOWNER, FSETID, KILL, SETGID, SETUID, SETPCAP and
     * NET_BIND_SERVICE are kept; every other one is dropped from the
     * bounding, effective, permitted and inheritable (so ambient) sets
     * before bash runs. A run without capabilities has nothing to drop
     * (and no new privileges keeps it so): applied. */
    BSH_LAYER_CAPABILITIES = 1u << 5,
};
#define BSH_SANDBOX_LAYERS 6

/** What a sandbox confines (see the README, "The sandbox"). */
struct bsh_sandbox {
    enum bsh_sandbox_mode mode;
    /* Writable besides the working directory, /tmp and $TMPDIR. Each run
     * also gets a private TMPDIR of its own, removed with all it holds by
     * the call after the one that handed out its status, or by
     * bsh_stream_free(). */
    const char *const *write_dirs;
    size_t write_count;
    bool allow_net; /* TCP and IPv4/IPv6 sockets as without a sandbox */
    /* Unix sockets from outside the run that it may connect to (each must
     * exist and be a socket); else only the sockets the run bound. */
    const char *const *sockets;
    size_t socket_count;
    /* The read-only profile: no writable place but the run's own private
     * TMPDIR and /dev/null, /dev/zero and /dev/full; no network, and
     * write_dirs, sockets and allow_net are not used. A write elsewhere
     * fails (EACCES or EROFS). */
    bool readonly;
};

/** What a run's sandbox is made of: a bit per bsh_sandbox_layer. */
struct bsh_sandbox_report {
    enum bsh_sandbox_mode mode; /* BSH_SANDBOX_OFF: the run had none */
    int landlock_abi;           /* the kernel's, 0 without Landlock */
    unsigned applied;           /* in force in the run's processes */
    unsigned missing;           /* asked for, not to be had here */
    unsigned off;               /* not asked for (allow_net) */
    bool readonly;              /* the read-only profile */
};

/** The name of one layer ("no_new_privs", "landlock_fs", ...). */
BSH_API const char *bsh_sandbox_layer_name(unsigned layer);

/** The Landlock ABI version this kernel offers, 0 when none. */
BSH_API int bsh_landlock_abi(void);

/** The limits a sandboxed run gets when its caller sets none: pids and
 * memory_bytes (see bsh_limits); the other fields 0. */
BSH_API void bsh_sandbox_default_limits(struct bsh_limits *out);

/** Whether this kernel tells bsh where a Unix socket is bound (its
 * unix_diag socket diagnostics): without it a sandboxed run reaches no
 * socket it bound itself, only those it was given by path. */
BSH_API bool bsh_sandbox_own_sockets(void);

/** What `sandbox` would be made of on this kernel: `applied` holds the
 *  layers a run would get, `missing` those it cannot have (strict mode
 *  then fails every run), `off` those not asked for. */
BSH_API void bsh_sandbox_probe(const struct bsh_sandbox *sandbox,
                               struct bsh_sandbox_report *out);

struct bsh_policy;
struct bsh_policy_verdict;

/** What an approval callback answers about an `ask` decision. */
enum bsh_approval {
    BSH_APPROVAL_REFUSE = 0, /* run nothing ("not approved") */
    BSH_APPROVAL_RUN = 1,    /* run the command as asked */
    /* run it without asking, under the read-only sandbox (strict; see
     * bsh_sandbox.readonly) instead of the run's own */
    BSH_APPROVAL_READONLY = 2,
};

/**
 * What to run. Everything is borrowed and only needs to persist until
 * bsh_run() returns. Start from bsh_run_opts_init() (or BSH_RUN_OPTS_INIT)
 * and set what you need: fields added in later versions then keep their
 * defaults. Note that a zero `timeout_ms` means "time out at once".
 */
struct bsh_run_opts {
    const char *command;           /* run as: bash -c -- <command> */
    const char *cwd;               /* NULL or "": inherit */
    const struct bsh_env_var *env; /* NULL: inherit unchanged; no NULL values */
    size_t env_count;              /* later duplicates win */
    int64_t timeout_ms;            /* BSH_NO_TIMEOUT, 0, or > 0 */
    bool pty;                      /* 24x80 pseudo-terminal instead of pipes */
    /* The run ends (the timeout item) once no output byte has come for
     * this long; 0: never. */
    int64_t idle_timeout_ms;
    /* How a timeout, an idle timeout or a cancel ends the run: 0 sends
     * SIGKILL to the whole run at once; G > 0 sends SIGTERM, goes on
     * yielding output, and sends SIGKILL to what is left after G ms (or at
     * once when the child has exited, or on a second cancel). */
    int64_t grace_ms;
    /* Where the run's processes are kept, so that none outlives it. */
    enum bsh_containment containment;
    /* The cgroup v2 directory in which a run's cgroup is made; NULL: the
     * cgroup this process is in. */
    const char *cgroup_parent;
    struct bsh_limits limits;
    /* Gather what costs time at the end of a run: the diagnosis of a run
     * that is ended (timeout, idle timeout, cancel, limit) and, without a
     * cgroup, the count of processes killed and left. See bsh_report. */
    bool report;
    /* A writable stdin (bsh_stream_write()): in pipe mode a pipe instead
     * of /dev/null; in PTY mode the terminal's input (without it, what is
     * typed cannot be sent). */
    bool stdin_pipe;
    /* The PTY's size; 0: BSH_PTY_ROWS x BSH_PTY_COLS. */
    int pty_rows, pty_cols;
    /* Confinement of the run's processes; mode BSH_SANDBOX_OFF: none. */
    struct bsh_sandbox sandbox;
    /* The shell state the run starts from and saves into (see "Sessions"
     * below); NULL: a fresh `bash -c`. Not borrowed: the run stays
     * attached to it until it ends or is detached. */
    struct bsh_session *session;
    /* The command policy (see "Command policy" below); NULL: none. It is
     * decided after the guards, with the session's aliases and functions:
     * `deny`, and an `ask` that `approve` does not approve, return
     * BSH_EPOLICY with the message in `err->text_err`, and nothing starts
     * (no process, cgroup or log; the session is unchanged). */
    const struct bsh_policy *policy;
    /* Asked about an `ask` decision; NULL: refused. */
    enum bsh_approval (*approve)(const struct bsh_policy_verdict *verdict,
                                 void *data);
    void *approve_data;
};

/** The defaults, as a C initialiser (designated, so it names no field
 *  that may move). */
#define BSH_RUN_OPTS_INIT            \
    {                                \
        .timeout_ms = BSH_NO_TIMEOUT \
    }

/** Sets every field of `opts` to its default: no command, inherit the
 *  working directory and environment, no timeout, pipes. */
BSH_API void bsh_run_opts_init(struct bsh_run_opts *opts);

enum bsh_item_kind {
    BSH_ITEM_STDOUT = 1, /* 1..BSH_CHUNK_MAX bytes of stdout */
    BSH_ITEM_STDERR,     /* 1..BSH_CHUNK_MAX bytes of stderr */
    BSH_ITEM_STATUS,     /* the run is over; comes last and exactly once */
};

/**
 * One item of a stream: the reference's SpawnOutput. For a chunk `data`
 * points into the stream's own buffer and stays valid until the next call
 * on the stream. A status has `len` 0 and exactly one of `has_exit_code`
 * and `has_signal`; a timeout is `signal` -1.
 */
struct bsh_item {
    enum bsh_item_kind kind;
    const unsigned char *data;
    size_t len;
    bool truncated; /* len == BSH_CHUNK_MAX */
    bool has_exit_code;
    int exit_code;
    bool has_signal;
    int signal; /* the killing signal, or -1 for a timeout */
};

/** True when `item` is the timeout item (a status with signal -1). */
static inline bool bsh_item_timed_out(const struct bsh_item *item)
{
    return item->kind == BSH_ITEM_STATUS && item->has_signal &&
           item->signal == -1;
}

struct bsh_stream;

/**
 * The raw engine run (the reference's run()). Checks the guards first; on
 * rejection returns BSH_EGUARD, fills `err` and starts nothing. Otherwise
 * stores a new stream in `*out` and returns BSH_OK. Errors found later (bad
 * environment name, spawn failure, bad working directory, read or wait
 * failure, a run that cannot be killed) are errors of the stream:
 * bsh_stream_next() reports them.
 *
 * COMMAND runs as `bash -c -- COMMAND`, so one that starts with '-' is a
 * command, not an option of bash.
 *
 * The end of a run (its normal end, the deadline, a cancel or a free)
 * sends SIGKILL to its process group and reaps the child, waiting at most
 * one second for it to die. A child that cannot be killed (it became
 * another user, e.g. through sudo) or does not die in that time is left
 * running: the stream ends with an error naming its pid, and a later
 * bsh_run() or bsh_stream_free() reaps it once it exits, without
 * blocking. No call ever waits without a bound.
 *
 * Returns BSH_OK; BSH_EGUARD (rejected, `err` says why; nothing started);
 * BSH_EINVAL (NULL `opts`, `command` or `out`, env_count without env, a
 * NULL env value, timeout_ms below BSH_NO_TIMEOUT, a negative
 * idle_timeout_ms or grace_ms, a PTY size outside 0..65535); BSH_ENOMEM.
 */
BSH_API int bsh_run(const struct bsh_run_opts *opts, struct bsh_stream **out,
                    struct bsh_error *err);

/**
 * Pull the next item, blocking until one is ready. Returns 1 with `*item`
 * filled, 0 when the stream has ended, or BSH_ESTREAM when it ended with an
 * error (bsh_stream_error() and bsh_stream_error_kind() say which: a bad
 * env name or cwd, a spawn, PTY, read or wait failure, a run that could
 * not be killed, out of fds or memory); every later call returns 0.
 * BSH_EINVAL for a NULL argument.
 */
BSH_API int bsh_stream_next(struct bsh_stream *stream, struct bsh_item *item);

/** As bsh_stream_next(), but returns BSH_EAGAIN instead of blocking: poll
 *  bsh_stream_fd() before calling again. */
BSH_API int bsh_stream_try_next(struct bsh_stream *stream,
                                struct bsh_item *item);

/**
 * One file descriptor that polls readable (POLLIN) whenever the stream can
 * make progress: output, the child's exit, the deadline or a cancel. Add it
 * to your poll/epoll/libuv loop and call bsh_stream_try_next() until it
 * returns BSH_EAGAIN. Made on the first call (an epoll set, plus a timerfd
 * for the deadline), so callers of bsh_stream_next() alone never pay for
 * it; -1 with errno if it cannot be made (the blocking calls still work).
 * Owned by the stream; do not close it.
 */
BSH_API int bsh_stream_fd(struct bsh_stream *stream);

struct pollfd; /* <poll.h> */

/** The most fds bsh_stream_pollfds() ever fills in. */
#define BSH_POLLFDS_MAX 6

/**
 * The stream's own fds, for an event loop that polls many runs: instead
 * of bsh_stream_fd()'s one fd per run (an epoll set, its timer and its
 * eventfd: system calls per run), the loop puts these straight into its
 * poll(2) array, and its poll tells which of them is ready, so the stream
 * never polls again. Before each poll: fills `fds[0..n)` (fd, events,
 * revents 0) and returns n (0..BSH_POLLFDS_MAX; `max` must be at least
 * that, else BSH_EINVAL), and sets `*timeout_ms` to the longest the loop
 * may sleep before calling bsh_stream_try_next() even with nothing ready
 * (-1: no bound; 0: an item is ready now). The set changes as the run goes
 * on (the exit watch, stdin), so ask again before every poll. After the
 * poll: bsh_stream_polled() with the same entries, then
 * bsh_stream_try_next() until BSH_EAGAIN. The fds are the stream's; do not
 * close them. A bsh_stream_cancel() from another thread is seen at the
 * next bsh_stream_try_next(): such a caller wakes its own poll.
 */
BSH_API int bsh_stream_pollfds(struct bsh_stream *stream, struct pollfd *fds,
                               int max, int *timeout_ms);

/**
 * Hands the stream what the caller's poll found on the entries
 * bsh_stream_pollfds() filled in (their revents); the next
 * bsh_stream_try_next() acts on them without polling. BSH_OK, BSH_EINVAL.
 */
BSH_API int bsh_stream_polled(struct bsh_stream *stream,
                              const struct pollfd *fds, int n);

/**
 * Ask the stream to stop: the next call kills the whole run with SIGKILL
 * (or, with grace_ms, sends SIGTERM and SIGKILL after the grace period; a
 * second cancel kills at once), reaps the child and yields its status.
 * Safe from any thread and from a signal handler (one atomic add and one
 * write(2)). A bsh_stream_next() blocked in another thread wakes at once;
 * only during the first 10 ms of a run, for which no eventfd is made (most
 * runs end sooner), it wakes when those 10 ms are over.
 */
BSH_API void bsh_stream_cancel(struct bsh_stream *stream);

/* ---- Interactive runs: stdin, signals, size, state ----------------- */

/** Bytes of stdin a stream keeps when the command does not read them as
 *  fast as they are written. */
#define BSH_STDIN_BUFFER_MAX ((size_t)256 * 1024)

/**
 * Writes to the run's stdin (opts.stdin_pipe). Never blocks: what the
 * command's end cannot take now is kept, in order, in a buffer of at most
 * BSH_STDIN_BUFFER_MAX bytes that the stream's own loop flushes
 * (bsh_stream_next(), bsh_stream_try_next(); the pollable fd then also
 * wakes when the command's end is writable). In PTY mode the bytes are
 * typed: the terminal echoes them and acts on control characters.
 *
 * Returns the number of bytes taken (all of `len` unless the buffer is
 * full: write the rest later), BSH_ECLOSED when stdin is closed (the
 * command closed its end or exited, stdin_close was called, or the run is
 * over; the stream itself goes on), BSH_EINVAL (NULL, or no stdin_pipe).
 */
BSH_API int64_t bsh_stream_write(struct bsh_stream *stream, const void *data,
                                 size_t len);

/**
 * Closes the run's stdin once what is buffered has been written: in pipe
 * mode the command reads EOF; in PTY mode the terminal's EOF character is
 * typed (twice after an unfinished line, as at a keyboard). BSH_OK,
 * BSH_ECLOSED when it already was, BSH_EINVAL.
 */
BSH_API int bsh_stream_close_stdin(struct bsh_stream *stream);

/**
 * Sends signal `sig` to every process of the run (its cgroup, or its
 * process group and session). BSH_OK; BSH_ECLOSED when the run is over;
 * BSH_EINVAL for a NULL stream or a bad signal number.
 */
BSH_API int bsh_stream_signal(struct bsh_stream *stream, int sig);

/**
 * Sets the PTY's size; the kernel tells the foreground process group
 * (SIGWINCH). BSH_OK, BSH_ECLOSED when the run is over, BSH_EINVAL
 * outside PTY mode or for a size of 0.
 */
BSH_API int bsh_stream_resize(struct bsh_stream *stream, int rows, int cols);

/** What a PTY run waits for, read from its terminal. */
enum bsh_input_wait {
    BSH_INPUT_NONE = 0, /* not waiting for input (or pipe mode) */
    BSH_INPUT_PASSWORD, /* canonical mode with echo off: a secret */
    BSH_INPUT_LINE,     /* canonical mode: a line */
    BSH_INPUT_RAW,      /* raw mode: keys (an editor, a pager, a REPL) */
};

/** "password", "line", "raw"; "" for none. */
BSH_API const char *bsh_input_wait_name(enum bsh_input_wait kind);

/** How long a PTY run must be silent before it can count as waiting for
 *  input. */
#define BSH_INPUT_WAIT_MIN_MS 300

/** TCP ports reported by bsh_stream_state() at most. */
#define BSH_PORTS_MAX 16

/** A run's state while it goes on (bsh_stream_state()). */
struct bsh_run_state {
    bool running;       /* its status item has not come yet */
    int64_t elapsed_ms; /* since bsh_run() */
    int64_t idle_ms;    /* since the last output byte (or the start) */
    /* PTY mode: after BSH_INPUT_WAIT_MIN_MS without output, the terminal's
     * foreground process group blocked reading the terminal, and how the
     * terminal is set up. */
    enum bsh_input_wait input_wait;
    bool stdin_open;       /* bsh_stream_write() can still take bytes */
    size_t stdin_buffered; /* taken but not yet written */
    /* With `ports`: the TCP ports the run's processes listen on, sorted,
     * at most BSH_PORTS_MAX. */
    int ports[BSH_PORTS_MAX];
    size_t port_count;
};

/**
 * Fills `state` without consuming items. `ports` asks for the listening
 * TCP ports too, which reads /proc for every process of the run. BSH_OK or
 * BSH_EINVAL.
 */
BSH_API int bsh_stream_state(const struct bsh_stream *stream,
                             struct bsh_run_state *state, bool ports);

/** The message of the error that ended the stream, or NULL. */
BSH_API const char *bsh_stream_error(const struct bsh_stream *stream);

/** Why a run ended, once its status item has come. */
enum bsh_end_reason {
    BSH_END_NONE = 0, /* not ended yet, or ended with an error */
    BSH_END_EXIT,     /* the command exited */
    BSH_END_SIGNAL,   /* the command died of a signal */
    BSH_END_TIMEOUT,  /* the deadline passed */
    BSH_END_IDLE,     /* no output for idle_timeout_ms */
    BSH_END_CANCEL,   /* bsh_stream_cancel() */
    BSH_END_LIMIT,    /* a limit: see bsh_report.limit */
};

/** "exit", "signal", "timeout", "idle", "cancel", "limit"; "" for none. */
BSH_API const char *bsh_end_reason_name(enum bsh_end_reason reason);

/** Which limit ended a run. */
enum bsh_limit {
    BSH_LIMIT_NONE = 0,
    BSH_LIMIT_MEMORY, /* the kernel's out-of-memory killer, in the cgroup */
    BSH_LIMIT_PIDS,   /* a fork failed at the cgroup's pids.max */
    BSH_LIMIT_CPU,    /* SIGXCPU or SIGKILL at RLIMIT_CPU */
    BSH_LIMIT_FSIZE,  /* SIGXFSZ at RLIMIT_FSIZE */
    BSH_LIMIT_OUTPUT, /* limits.output_bytes: bsh ended the run */
};

/** "memory", "pids", "cpu", "fsize", "output"; NULL for none. */
BSH_API const char *bsh_limit_name(enum bsh_limit limit);

/** A process of a run, as it was just before bsh ended the run. */
struct bsh_proc_info {
    int pid, ppid;
    char comm[32];    /* the process name (/proc/PID/comm) */
    char state;       /* R, S, D, T, Z... (/proc/PID/stat) */
    char wchan[64];   /* the kernel function it sleeps in, "" when running */
    char fds[3][128]; /* what fds 0, 1 and 2 point to; "" when closed */
};

/**
 * What happened to a run, available once its status item has come (or
 * its stream ended with an error after it started). Counts that cost
 * time to gather (diagnosis; killed and escaped without a cgroup) are
 * only filled when the run was started with opts.report; -1 or 0 else.
 */
struct bsh_report {
    enum bsh_end_reason reason;
    enum bsh_limit limit;
    bool has_exit_code;
    int exit_code;
    bool has_signal;
    int signal;          /* -1 for a timeout, as in the status item */
    int64_t wall_ms;     /* from bsh_run() to the status */
    int64_t cpu_user_ms; /* of every process of the run */
    int64_t cpu_sys_ms;  /* (without a cgroup: bash and what it waited for) */
    int64_t memory_peak_bytes; /* the cgroup's peak, or the largest RSS; -1 */
    uint64_t stdout_bytes;     /* bytes delivered (PTY: all on stdout) */
    uint64_t stderr_bytes;
    enum bsh_containment containment; /* CGROUP or SESSION: what was used */
    int killed;  /* processes alive at the end and killed by bsh; -1 unknown */
    int escaped; /* processes known to be alive after the end; -1 unknown */
    const struct bsh_proc_info *diagnosis; /* at an ended run, else none */
    size_t diagnosis_count;
    struct bsh_sandbox_report sandbox;
};

/** The run's report, or NULL before its status item. Owned by the stream. */
BSH_API const struct bsh_report *
bsh_stream_report(const struct bsh_stream *stream);

BSH_API enum bsh_end_reason
bsh_stream_end_reason(const struct bsh_stream *stream);

/** The kind of that error, BSH_ERR_NONE when there is none. */
BSH_API enum bsh_error_kind
bsh_stream_error_kind(const struct bsh_stream *stream);

/** The child's process id (also its session and process group id), or -1
 *  when none runs. */
BSH_API int bsh_stream_pid(const struct bsh_stream *stream);

/**
 * Free the stream. If it has not ended, kills the whole process group with
 * SIGKILL and reaps the child first (waiting at most one second, see
 * bsh_run()). NULL is a no-op.
 */
BSH_API void bsh_stream_free(struct bsh_stream *stream);

/* ------------------------------------------------------------------ */
/* Sessions: the shell's state, carried from one run to the next       */

/*
 * A session keeps what a run did to its shell: the working
 * directory and OLDPWD, shell variables with their attributes (exported or
 * not, integer, case, indexed and associative arrays; byte for byte),
 * functions, aliases (alias expansion is on in a session), the `set -o`
 * and `shopt` options, and the umask. Each run stays a fresh, contained
 * `bash -c`: it starts from the session's state and, when bash ends by
 * itself or by a signal it can catch (a normal end, `exit N`, a `set -e`
 * failure, SIGTERM, SIGINT, SIGHUP), saves the state it left. A run that
 * ends without bash saving (SIGKILL at a timeout or a cancel, the memory
 * limit, `exec` replacing bash) leaves the earlier state.
 *
 * Never carried: bash's own dynamic and special variables (BASH, BASH_*,
 * BASHOPTS, BASHPID, COLUMNS, LINES, COMP_*, DIRSTACK, EPOCHREALTIME,
 * EPOCHSECONDS, EUID, FUNCNAME, GROUPS, HISTCMD, HOSTNAME, HOSTTYPE,
 * LINENO, MACHTYPE, OPTARG, OPTIND, OSTYPE, PIPESTATUS, PPID, PWD, RANDOM,
 * SECONDS, SHELLOPTS, SHLVL, SRANDOM, UID, _), the deny list (ENV,
 * LD_PRELOAD, LD_AUDIT, PROMPT_COMMAND, PS4 and the BASH_ENV,
 * BASH_XTRACEFD of the first list), names that start with __bsh_ (the
 * session's own), the options noexec, onecmd, errexit, nounset, pipefail,
 * xtrace and verbose, and the read-only shopt options. Not carried at
 * all: background jobs, traps, open fds, resource limits, positional
 * parameters and the directory stack.
 *
 * The state travels on two fds that only the engine and bash's own code
 * use, BSH_STATE_FD_IN and BSH_STATE_FD_OUT, never in the output: a
 * command that closes or writes them loses its state change, nothing
 * else. Exported variables are restored inside bash, so a value too large
 * for execve (over 128 KiB) round-trips; programs the run executes then
 * fail with E2BIG, as in any bash. A run that exits from inside a
 * function saves that function's local variables as globals (bash shows
 * only them then).
 *
 * A session is not thread-safe: use it from one thread at a time.
 */
struct bsh_session;

/** The state's bound: raw bytes of variable names and values (every
 *  element of an array), function bodies as `declare -f` prints them, and
 *  alias values. A run that leaves more keeps the earlier state. */
#define BSH_SESSION_BOUND ((size_t)4 << 20)

/** The fds a session run's bash holds for its state (in, out). */
#define BSH_STATE_FD_IN  240
#define BSH_STATE_FD_OUT 241

/** What became of a run's state (bsh_stream_session_state()). */
enum bsh_session_state {
    BSH_SESSION_NONE = 0,  /* the run is outside a session */
    BSH_SESSION_PENDING,   /* attached and still going */
    BSH_SESSION_SAVED,     /* its end saved the state it left */
    BSH_SESSION_UNCHANGED, /* nothing saved: bsh_stream_session_note() */
    BSH_SESSION_DETACHED,  /* detached: its end saves nothing */
};

/** "pending", "saved", "unchanged", "detached"; NULL for none. */
BSH_API const char *bsh_session_state_name(enum bsh_session_state state);

/** Why a run saved nothing. */
enum bsh_unsaved {
    BSH_UNSAVED_NONE = 0,
    BSH_UNSAVED_TIMEOUT,     /* SIGKILL at the timeout or idle timeout */
    BSH_UNSAVED_CANCEL,      /* SIGKILL at a cancel */
    BSH_UNSAVED_MEMORY,      /* the memory limit */
    BSH_UNSAVED_OUTPUT,      /* SIGKILL at the output limit */
    BSH_UNSAVED_EXEC,        /* exec replaced bash */
    BSH_UNSAVED_TOO_BIG,     /* over BSH_SESSION_BOUND */
    BSH_UNSAVED_NOT_SAVED,   /* bash ended without saving */
    BSH_UNSAVED_NOT_READ,    /* what bash saved could not be read */
    BSH_UNSAVED_NOT_STARTED, /* the run failed before bash started */
    BSH_UNSAVED_READONLY     /* a read-only run (sandbox.readonly) */
};

/** Which names bsh_session_name() lists. */
enum bsh_session_kind {
    BSH_SESSION_VARIABLES,
    BSH_SESSION_FUNCTIONS,
    BSH_SESSION_ALIASES,
};

/**
 * A new session whose runs start in `base_dir` (NULL: the current
 * directory; made absolute) with the variables of `envp` ("NAME=VALUE",
 * NULL-terminated; NULL: this process's environment), exported. BSH_OK,
 * BSH_EINVAL (a NULL `out`, a `base_dir` that is not a directory: errno
 * says why), BSH_ENOMEM.
 */
BSH_API int bsh_session_new(const char *base_dir, char *const *envp,
                            struct bsh_session **out);

/** Frees the session; a run still attached is detached. NULL: no-op. */
BSH_API void bsh_session_free(struct bsh_session *session);

/** Back to the state it was made with: its base directory, its
 *  environment, nothing else. BSH_OK, BSH_EINVAL, BSH_EBUSY (a run is
 *  attached). */
BSH_API int bsh_session_reset(struct bsh_session *session);

/** Its base directory and its working directory (physical paths). */
BSH_API const char *bsh_session_base_dir(const struct bsh_session *session);
BSH_API const char *bsh_session_cwd(const struct bsh_session *session);

/** How many variables, functions or aliases it holds, and the name at
 *  `index` (sorted as bash prints them; NULL past the end). */
BSH_API size_t bsh_session_count(const struct bsh_session *session,
                                 enum bsh_session_kind kind);
BSH_API const char *bsh_session_name(const struct bsh_session *session,
                                     enum bsh_session_kind kind, size_t index);

/** The bytes it holds, as BSH_SESSION_BOUND counts them. */
BSH_API size_t bsh_session_bytes(const struct bsh_session *session);

/** Whether a run is attached (a new run would get BSH_EBUSY). */
BSH_API bool bsh_session_busy(const struct bsh_session *session);

/**
 * Writes the session to `path` atomically (a new file, mode 0600, renamed
 * over it). BSH_OK, or BSH_EINVAL with `why` (`why_len` bytes) saying
 * what failed.
 */
BSH_API int bsh_session_save(const struct bsh_session *session,
                             const char *path, char *why, size_t why_len);

/**
 * Replaces the session's state with what the open file `fd` holds, read
 * from its start. A session file holds code that bash will run, so it is
 * refused unless it is a regular file owned by this user that neither
 * group nor others can write, and holds a bsh session; an empty file (0
 * bytes) leaves the session as it is (a new session). BSH_OK, BSH_EINVAL
 * with `why`, BSH_EBUSY; the session is unchanged on error.
 */
BSH_API int bsh_session_load_fd(struct bsh_session *session, int fd, char *why,
                                size_t why_len);

/** As bsh_session_load_fd(), opening `path` (not through a symlink). */
BSH_API int bsh_session_load(struct bsh_session *session, const char *path,
                             char *why, size_t why_len);

/** What became of the run's state; BSH_SESSION_NONE outside a session. */
BSH_API enum bsh_session_state
bsh_stream_session_state(const struct bsh_stream *stream);

/** Why nothing was saved (BSH_SESSION_UNCHANGED), else BSH_UNSAVED_NONE. */
BSH_API enum bsh_unsaved
bsh_stream_session_unsaved(const struct bsh_stream *stream);

/** The reason in words ("killed by SIGKILL at the timeout", "the state is
 *  N bytes, over the 4 MiB bound", ...), "" when there is none. */
BSH_API const char *bsh_stream_session_note(const struct bsh_stream *stream);

/** The session's directory when it no longer existed and the run started
 *  in the base directory instead; NULL otherwise. */
BSH_API const char *
bsh_stream_session_missing_dir(const struct bsh_stream *stream);

/** The session's working directory once the run ended (else NULL). */
BSH_API const char *bsh_stream_session_cwd(const struct bsh_stream *stream);

/**
 * Detaches a running run from its session: the session is free for the
 * next run, and this run's end saves nothing (BSH_SESSION_DETACHED).
 * BSH_OK (also when it was not attached), BSH_EINVAL.
 */
BSH_API int bsh_stream_detach_session(struct bsh_stream *stream);

/* ------------------------------------------------------------------ */
/* The wrapper (the reference's Bash)                                  */

struct bsh_bash;

/**
 * A new execution context: working directory, environment, timeout and PTY
 * flag copied from `opts` (its `command` is ignored; NULL `opts` means
 * the defaults). Returns NULL when out of memory or when an environment
 * variable has a NULL name or value.
 */
BSH_API struct bsh_bash *bsh_bash_new(const struct bsh_run_opts *opts);

/**
 * Run `command` in the context. Fails only on the guards (BSH_EGUARD with
 * `err` filled). The stream drops the raw stream's errors: they surface as
 * an empty or shortened stream, as in the reference.
 */
BSH_API int bsh_bash_run(const struct bsh_bash *bash, const char *command,
                         struct bsh_stream **out, struct bsh_error *err);

/** The MCP tool description of `bash_run`, as a static JSON string. */
BSH_API const char *bsh_bash_tool_json(void);

BSH_API void bsh_bash_free(struct bsh_bash *bash);

/* ------------------------------------------------------------------ */
/* Command policy                                                      */
/*
 * Rules say which commands run, which need a person's approval and which
 * are refused. They are written in the call syntax of codex's `.rules`
 * files (prefix_rule, host_executable); nothing in them is executed. A
 * command is parsed as bash parses it (tree-sitter-bash), every simple
 * command in it is decided, and the strictest decision wins. What cannot
 * be known statically ("opaque") is never allowed.
 */

enum bsh_decision {
    BSH_ALLOW = 0,
    BSH_ASK = 1,
    BSH_DENY = 2,
};

/** "allow", "ask" or "deny". */
BSH_API const char *bsh_decision_name(enum bsh_decision decision);

/** One rule as it was written. Owned by its policy. */
struct bsh_policy_rule {
    const char *file; /* as named when loaded */
    unsigned line, column;
    /* pattern[i] holds the alternatives of position i */
    size_t pattern_len;
    const size_t *alternatives; /* pattern_len counts */
    const char *const *const *pattern;
    const char *decision;      /* as written: "allow", "prompt", "forbidden" */
    const char *justification; /* NULL when there is none */
};

/** One simple command of a decided command string. */
struct bsh_policy_command {
    size_t nwords;
    char **words;      /* a static word's value; a dynamic one as written */
    bool *dynamic;     /* per word */
    size_t start, end; /* byte range in the string parsed at its level */
    size_t nvia;
    char **via; /* the nesting that led to it, outermost first */
    enum bsh_decision decision;
    const struct bsh_policy_rule *rule; /* the rule that decided, or NULL */
    const char *reason;                 /* opaque: why; NULL otherwise */
};

struct bsh_policy_verdict {
    enum bsh_decision decision;
    size_t ncommands;
    struct bsh_policy_command *commands; /* in source order */
    /* The command that decided: the first whose decision is `decision`;
     * SIZE_MAX when there is none (an empty command string). */
    size_t decider;
    void *priv; /* the library's */
};

struct bsh_policy;

/** How a file enters a policy. */
enum bsh_policy_file_kind {
    BSH_POLICY_FILE_GIVEN = 0, /* named by the caller: read as it is */
    /* the user's own configuration: refused unless owned by this user and
     * not writable by group or others */
    BSH_POLICY_FILE_USER,
    /* a project's file, which the agent may have written: its `allow`
     * rules are dropped (each with a warning) */
    BSH_POLICY_FILE_UNTRUSTED,
};

struct bsh_policy_file {
    const char *path;
    enum bsh_policy_file_kind kind;
};

struct bsh_policy_load_opts {
    const struct bsh_policy_file *files;
    size_t nfiles;
    enum bsh_decision default_decision; /* for a command no rule matches */
    /* Warnings ("FILE:LINE:COL: warning: ..."), one call each; NULL:
     * dropped. */
    void (*warn)(void *data, const char *message);
    void *warn_data;
    /* Filled when not NULL: `prefix_rule` calls and examples read. */
    size_t *rules_count, *examples_count;
};

/**
 * Loads rule files into one immutable policy (`*out`, free with
 * bsh_policy_free()). A file with any error rejects the whole policy:
 * BSH_EPOLICYFILE with "policy: FILE:LINE:COL: MESSAGE" (or "policy:
 * FILE: MESSAGE") in `err->text_err`. BSH_EINVAL, BSH_ENOMEM. Files are
 * read here and never again. Thread-safe.
 */
BSH_API int bsh_policy_load(const struct bsh_policy_load_opts *opts,
                            struct bsh_policy **out, struct bsh_error *err);

/** As bsh_policy_load(), from one buffer named `name` in messages. */
BSH_API int bsh_policy_parse(const char *text, size_t len, const char *name,
                             enum bsh_decision default_decision,
                             struct bsh_policy **out, struct bsh_error *err);

BSH_API void bsh_policy_free(struct bsh_policy *policy);

/** The policy's default decision. */
BSH_API enum bsh_decision bsh_policy_default(const struct bsh_policy *policy);

/**
 * Decides `command` (`len` bytes): parses it, decides every simple command
 * and returns the strictest decision (or BSH_ENOMEM, BSH_EINVAL), with
 * the details in `*verdict` when it is not NULL (free with
 * bsh_policy_verdict_free()). `session` (or NULL) lends its aliases and
 * functions. Runs no process and reads no file; the guards are not part
 * of it (bsh_check()). Thread-safe on a shared policy.
 */
BSH_API int bsh_policy_decide(const struct bsh_policy *policy,
                              const char *command, size_t len,
                              const struct bsh_session *session,
                              struct bsh_policy_verdict *verdict);

BSH_API void bsh_policy_verdict_free(struct bsh_policy_verdict *verdict);

/**
 * Commands a person approved "for this session": each an allow rule for
 * exactly its words (no more, no fewer), in memory only. It turns an
 * `ask` of the rules or of the default into `allow`, never a `deny` and
 * never an opaque decision. Not thread-safe while it is being added to.
 */
struct bsh_policy_overlay;

BSH_API struct bsh_policy_overlay *bsh_policy_overlay_new(void);
/** Adds the words of one simple command. BSH_OK, BSH_EINVAL, BSH_ENOMEM. */
BSH_API int bsh_policy_overlay_add(struct bsh_policy_overlay *overlay,
                                   const char *const *words, size_t n);
BSH_API void bsh_policy_overlay_free(struct bsh_policy_overlay *overlay);

/** As bsh_policy_decide(), with an overlay of approved commands (or
 *  NULL). */
BSH_API int bsh_policy_decide_with(const struct bsh_policy *policy,
                                   const struct bsh_policy_overlay *overlay,
                                   const char *command, size_t len,
                                   const struct bsh_session *session,
                                   struct bsh_policy_verdict *verdict);

/**
 * As bsh_policy_decide_with(), for a run that starts in directory `cwd`
 * and sets `env` (env_count entries, as in bsh_run_opts) on top of its
 * environment. `cwd` (absolute; NULL: the session's, else not known)
 * is where relative redirection targets are taken from, so that a rule
 * on `> /abs/path` also sees `> path` written there. A name in `env`
 * that the policy lists (PATH, LD_*, BASH_ENV, GIT_*, ...; see the
 * documentation) makes the run opaque, as the same assignment in the
 * command would: unless the command is denied, the verdict is then that
 * of `export NAME`. bsh_run() decides a run with a policy this way.
 */
BSH_API int bsh_policy_decide_run(
    const struct bsh_policy *policy, const struct bsh_policy_overlay *overlay,
    const char *command, size_t len, const struct bsh_session *session,
    const char *cwd, const struct bsh_env_var *env, size_t env_count,
    struct bsh_policy_verdict *verdict);

/**
 * The words of command `c` of a verdict as bsh shows them: joined by
 * single blanks, a static word that holds a byte outside
 * `A-Za-z0-9_@%+=:,./-` single-quoted, a dynamic word as written. Into
 * `buf` (cut to `size`, always terminated); returns the full length.
 */
BSH_API size_t bsh_policy_command_text(const struct bsh_policy_command *c,
                                       char *buf, size_t size);

/**
 * Why command `c` got its decision: "FILE:LINE: JUSTIFICATION",
 * "FILE:LINE", "default" or "opaque: REASON". As above.
 */
/**
 * The message of a refusal, as bsh words it: "policy: denied: CMD (WHY)",
 * "policy: approval needed: CMD (WHY)" for an `ask` no one was asked
 * about, or "policy: not approved: CMD (WHY)" when `asked` (a person said
 * no). CMD and WHY are those of the deciding command. "" for `allow`.
 * Into `buf`, as above.
 */
BSH_API size_t bsh_policy_message(const struct bsh_policy_verdict *verdict,
                                  bool asked, char *buf, size_t size);

BSH_API size_t bsh_policy_command_why(const struct bsh_policy_command *c,
                                      char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* BSH_BSH_H */
