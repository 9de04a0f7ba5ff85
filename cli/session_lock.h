/* SPDX-License-Identifier: MIT */
/*
 * A session file held for one `bsh run --session FILE` or `bsh session`:
 * opened (made, mode 0600, when missing), locked with flock so that a
 * second bsh gets "busy", checked and loaded; written back atomically
 * and unlocked at the end.
 */
#ifndef BSH_CLI_SESSION_LOCK_H
#define BSH_CLI_SESSION_LOCK_H

#include "bsh/bsh.h"

#include <stdbool.h>

struct cli_session {
    const char *path;
    int fd; /* the locked file */
    struct bsh_session *session;
};

/* Opens and locks `path` (`create`: make it when missing) and loads it
 * into a session whose base directory is `base_dir` (NULL: the current
 * one) for a new or empty file. 0, or -1 with the message in `why`. */
int cli_session_open(struct cli_session *cs, const char *path,
                     const char *base_dir, bool create, char *why,
                     size_t why_len);

/* Writes the session back (unless `save` is false) and unlocks it. 0, or
 * -1 with the message in `why`. */
int cli_session_close(struct cli_session *cs, bool save, char *why,
                      size_t why_len);

#endif
