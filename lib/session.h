/* SPDX-License-Identifier: MIT */
/*
 * Sessions (SPEC 9): the state a run's shell leaves, kept as records of
 * bash code that bash printed itself, and the link of one run to its
 * session. session.c owns the object, session_capture.c reads what a
 * run's bash saved, session_script.c writes the bash that restores and
 * saves it, session_file.c stores it, session_run.c ties it to a run.
 */
#ifndef BSH_SESSION_H
#define BSH_SESSION_H

#include "internal.h"

#include <stdbool.h>
#include <stddef.h>

/* One piece of state, as bash code that restores it. */
enum bsh__rec_kind {
    REC_UMASK = 'u',     /* name "", text "0022" */
    REC_OPTION = 'o',    /* name the option, text "shopt -s NAME" etc. */
    REC_VAR = 'v',       /* name, text the `declare -p` line */
    REC_FUNC = 'F',      /* name, text the `declare -F` line */
    REC_FUNCTIONS = 'f', /* name "", text `declare -f` of them all */
    REC_ALIAS = 'a',     /* name, text the `alias -p` statement */
};

struct bsh__rec {
    char kind;
    char *name;
    char *text;
    size_t len; /* of text */
    size_t raw; /* bytes the bound counts */
};

/* A session script's parts that depend on the state alone
 * (session_script.c). */
struct bsh__script_parts {
    char *head, *tail, *elements;
    size_t head_len, tail_len, elements_len;
};

/* What every run of one state starts from, built at its first run (a
 * state never changes once it is a session's: a save makes a new one). */
struct bsh__launch_base {
    char **envp; /* bsh__session_env's block, `envp_bytes` long */
    size_t envp_bytes;
    struct bsh__script_parts parts[2]; /* [lean] */
};

struct bsh__state {
    struct bsh__rec *recs;
    size_t count, cap;
    size_t raw;                    /* sum of the records' */
    struct bsh__launch_base *base; /* NULL until a run needs it */
};

struct bsh_session {
    char *base_dir;
    char *cwd;
    char **env;               /* its environment, "NAME=VALUE" */
    struct bsh__state *state; /* never NULL */
    bool pristine;            /* no run saved yet: the env made `state` */
    struct bsh_stream *attached;
};

/* Never carried: bash's own variables, the deny list and ours. */
bool bsh__never_carried(const char *name, size_t len);
/* Names bash reads when it starts (locale, IFS, ...) or imports from its
 * environment other than it assigns them: restored by the script, never
 * through execve's environment (session_env.c). */
bool bsh__imported_apart(const char *name, size_t len);
/* Options not carried (noexec, errexit, ...; the read-only shopts). */
bool bsh__option_not_carried(const char *name, size_t len);

void bsh__state_free(struct bsh__state *st);
/* Appends a record (copies name and text); 0 or -ENOMEM. */
int bsh__state_add(struct bsh__state *st, char kind, const char *name,
                   size_t name_len, const char *text, size_t len, size_t raw);
/* The record of `kind` named `name`, or NULL. */
const struct bsh__rec *bsh__state_find(const struct bsh__state *st, char kind,
                                       const char *name);
/* The state a session without a saved one starts from: its env. */
struct bsh__state *bsh__state_from_env(char *const *env);

/* session_capture.c: what the trap wrote (`data`, `len`) as a state, in
 * `*out`. 0; -EAGAIN when it is incomplete (bash did not finish saving);
 * -EINVAL when it cannot be read; -ENOMEM. `keep` gets the names the
 * trap says kept their value from the start (a NULL-separated list
 * inside `data`'s copy, freed with the state). */
struct bsh__capture {
    struct bsh__state *state;
    char *cwd;  /* the physical directory bash ended in, or NULL */
    char *keep; /* space-separated names, or NULL */
};
int bsh__capture_read(const char *data, size_t len, struct bsh__capture *out);
void bsh__capture_release(struct bsh__capture *c);

/* session_script.c: the line put before the command, and the script
 * that restores a state and arms the save, in the parts that depend on
 * the state alone (built once per state: `head` before the call's
 * variables, `tail` after them, then the NUL-separated `elements` that
 * the script evals) and the whole that a run writes. A `lean` script is
 * a stateless command's: it restores only what bash or its children may
 * read (options, umask, exported variables and the ones bash consults)
 * and saves nothing. */
extern const char bsh__session_prelude[];
/* The parts for `st` but the variables marked in `in_env`; 0 or
 * -ENOMEM (`out` then holds nothing). */
int bsh__session_script_parts(const struct bsh__state *st, const bool *in_env,
                              bool lean, struct bsh__script_parts *out);
void bsh__script_parts_free(struct bsh__script_parts *p);
/* The script (malloc'd, `*len`): `parts` with `env` applied between head
 * and tail (`count` variables; NULL values are not allowed). */
char *bsh__session_script(const struct bsh__script_parts *parts,
                          const struct bsh_env_var *env, size_t count,
                          bool lean, size_t *len);

/* session_stateless.c: whether `command` can neither read nor change
 * more of `st` than a lean script gives it, bash starting with the
 * session's environment `env` (a conservative test: false for anything
 * it does not fully read). */
bool bsh__session_stateless(const char *command, const struct bsh__state *st,
                            char *const *env);
/* And whether the call's variables (`count` of `env`, and TMPDIR) name
 * none that the state gives an attribute other than export (-u, -i, -r,
 * an array...), which the lean script would not restore to apply. */
bool bsh__session_call_env_plain(const struct bsh__state *st,
                                 const struct bsh_env_var *env, size_t count);

/* session_env.c: the environment of execve for a run in `s` (one
 * malloc'd block, `*bytes` long): what the session never carries from
 * its environment, and the state's exported variables that bash can
 * import as they are, marked in `in_env` (one per record), which the
 * script then leaves out. NULL when out of memory. */
char **bsh__session_env(const struct bsh_session *s, bool *in_env,
                        size_t *bytes);
/* A copy of such a block. NULL when out of memory. */
char **bsh__session_env_copy(char **envp, size_t bytes);
void bsh__launch_base_free(struct bsh__launch_base *b);

/* session_run.c: one run's link to its session. */
struct bsh__session_run {
    struct bsh_session *session; /* NULL: outside one, or detached */
    enum bsh_session_state state;
    enum bsh_unsaved unsaved;
    int fds[2];      /* the memfds: the script in, the state out */
    int start_fd;    /* a stateless run's start directory (O_PATH), -1 */
    char *start_dir; /* where bash started (physical) */
    char *missing;   /* the session's directory, when it was gone */
    char *end_cwd;   /* the session's directory after the run */
    char note[96];   /* the reason in words */
    char comm[16];   /* bash's name when it ended, "" unknown */
    size_t too_big;  /* the bytes, for BSH_UNSAVED_TOO_BIG */
    bool used;       /* the run is (was) in a session */
    bool readonly;   /* a read-only run: its end saves nothing */
    bool stateless;  /* its command cannot change the state: no save */
};

/* Attaches the run (`stream`) to `o->session` and prepares it: the two
 * memfds and where bash starts (`*cwd`: the call's directory, the
 * session's, or its base directory when that one is gone). 0 or -errno. */
int bsh__session_run_prepare(struct bsh__session_run *r,
                             const struct bsh_run_opts *o,
                             struct bsh_stream *stream, const char **cwd);

/* What the spawn of a session run takes instead of the plain one's: the
 * environment of execve and the command line, both malloc'd. */
struct bsh__session_launch {
    char **envp;
    char *command;
};
/* Writes the script (the state, the call's variables and TMPDIR) into
 * the in memfd and fills `out`. 0 or -errno. */
int bsh__session_run_launch(struct bsh__session_run *r,
                            const struct bsh_run_opts *o, const char *tmpdir,
                            struct bsh__session_launch *out);
/* Notes bash's name before it is reaped, unless it saved (exec). */
void bsh__session_run_peek(struct bsh__session_run *r, pid_t pid);
/* The run is over: its wait status (BSH__NOT_STARTED: it never started;
 * BSH__STATUS_UNKNOWN: it was given up or timed out before it was
 * reaped), why it ended and the limit that ended it. */
#define BSH__NOT_STARTED    (-1)
#define BSH__STATUS_UNKNOWN (-2)
void bsh__session_run_end(struct bsh__session_run *r, int status,
                          enum bsh_end_reason reason, enum bsh_limit limit);
void bsh__session_run_detach(struct bsh__session_run *r);
void bsh__session_run_release(struct bsh__session_run *r);

#endif
