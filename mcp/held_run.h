/* SPDX-License-Identifier: MIT */
/*
 * A run the MCP server holds (held_run.c): its stream, the output since it was
 * last read (with the whole output in its log), input not yet taken, and
 * how it ended. A run outlives the call that started it when it goes on
 * past the call's yield; it is dropped once its end has been read, or ten
 * minutes after it ended.
 */
#ifndef BSH_MCP_HELD_RUN_H
#define BSH_MCP_HELD_RUN_H

#include "capture.h"
#include "mcp.h"
#include "screen.h"

struct mcp_session;

#include <stdint.h>

/* How often a quiet PTY run's terminal is looked at for an input wait. */
#define RUN_LOOK_MS 50.0

/* How long an ended run whose end nobody read is kept. */
#define RUN_KEEP_ENDED_MS (10.0 * 60 * 1000)

/* Input that a run does not read waits in the server up to this much; a
 * write that would add to it past this is refused whole. One write alone
 * (at most a message long) is always taken. */
#define RUN_UNSENT_MAX (4u << 20)

enum run_phase {
    RUN_RUNNING,
    RUN_AWAITING_INPUT, /* PTY: the terminal's reader is blocked on it */
    RUN_EXITED,
};

/* What a bash_run call asks for. */
struct run_request {
    const char *command;
    int64_t timeout_ms, idle_ms;
    const char *input; /* NULL: none; written, then stdin closed */
    size_t input_len;
    bool keep_stdin;               /* pipe mode: a stdin for bash_write */
    struct mcp_session *session;   /* NULL: a fresh shell (--no-sessions) */
    const char *cwd;               /* this run's alone; NULL: the session's */
    const struct bsh_env_var *env; /* this run's alone */
    size_t env_count;
    size_t max_output; /* the call's; 0: the server's budget */
    int rows, cols;    /* a PTY run's size; 0: 24x80 */
    /* Run read-only instead of asking (--ask sandbox): the note that
     * starts its first reply, and structuredContent.policy (taken). */
    const char *readonly_note;
    json_t *readonly_policy;
};

struct mcp_run {
    struct mcp_run *next;
    char id[RUN_ID_MAX];
    char *command;
    /* The read-only note and verdict of its first reply (SPEC 13.15). */
    char *policy_note;
    json_t *policy;
    struct bsh_stream *stream;
    struct capture cap;    /* output since the last read */
    struct screen *screen; /* a PTY run's terminal, fed all its output */
    size_t budget;         /* a reply's characters unless its call says */
    bool pty;
    bool subreaper; /* the server ends orphans: the report says so */
    bool has_stdin; /* bash_write can write */
    bool discard;   /* drop it once ended (its call was cancelled) */
    bool waited_on; /* a call waits for it */
    int64_t timeout_ms, idle_ms;
    double started_ms, ended_ms, last_write_ms, last_look_ms;
    double boot_started_ms; /* CLOCK_BOOTTIME, before bash was started */
    enum bsh_input_wait input_wait; /* as last looked at */
    uint64_t bytes;                 /* all output */
    uint64_t unread;                /* output bytes since the last reply */
    bool ended;
    struct bsh_item status; /* once ended without an error */
    char *error;            /* once ended with one */
    unsigned char *unsent;  /* input the stream had no room for yet: at
                               most RUN_UNSENT_MAX, or one whole write */
    size_t unsent_off, unsent_len;
    bool close_after_unsent;
    int poll_first, poll_count;  /* its fds in the server's poll array */
    struct mcp_session *session; /* the session it runs in, or NULL */
    bool detach_said;            /* a reply said it left its session */
    int killed_with;             /* the signal bash_kill sent, or 0 */
};

/* Starts a run. NULL with the reason in `why` (a guard's message, or
 * what failed). */
struct mcp_run *run_start(const struct mcp_config *cfg, struct spill_dir *dir,
                          const struct run_request *rq, unsigned number,
                          char *why, size_t why_size);

/* Takes what the stream has ready (output, the end) and hands it input
 * that waited; never blocks. */
void run_pump(struct mcp_run *r);

/* Where the run stands; for a PTY run that is quiet, looks at its
 * terminal at most every `look_ms`. */
enum run_phase run_phase(struct mcp_run *r, double look_ms);

/* Writes `len` bytes to its stdin, then closes it when asked. 0, or -1
 * with the reason in `why` (also when earlier input still waits and this
 * would pass RUN_UNSENT_MAX: then nothing is written). */
int run_write(struct mcp_run *r, const char *data, size_t len, bool close,
              char *why, size_t why_size);

/* The phase's name: "running", "awaiting_input", "exited". */
const char *run_phase_name(enum run_phase p);

void run_free(struct mcp_run *r);

#endif
