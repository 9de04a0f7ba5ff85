/* SPDX-License-Identifier: MIT */
/*
 * How `bsh` writes: whole buffers to an fd, and the JSON lines of
 * `--json` mode (SPEC 3).
 */
#ifndef BSH_CLI_OUTPUT_H
#define BSH_CLI_OUTPUT_H

#include "bsh/bsh.h"
#include "report_format.h" /* quote_json */
#include "sink.h"          /* write_all */

#include <stddef.h>

/* Prints "bsh: MESSAGE" on stderr. */
void cli_error(const char *message);

/* The longest JSON line of one item, with its newline and NUL. */
#define JSON_ITEM_MAX (BSH_CHUNK_MAX / 3 * 4 + 256)

/* Formats one item as its five-key JSON line (newline included) into
 * `line`, which has room for JSON_ITEM_MAX bytes; returns its length. */
size_t format_json_item(const struct bsh_item *item, char *line);

/* {"error":"MESSAGE","stage":"STAGE"} and its newline; malloc'd, NULL
 * when out of memory. */
char *format_json_error(const char *message, const char *stage);
/* `bsh run --json`'s policy refusal: error, stage "policy", decision. */
char *format_json_refusal(const char *message, const char *decision);
/* `bsh check --json` with a policy: allowed, decision, error, stage
 * (`message` NULL: allowed). With its newline. */
char *format_json_verdict(const char *message, const char *decision,
                          const char *stage);

/* "bsh: MESSAGE" and its newline; malloc'd, NULL when out of memory. */
char *cli_format_error(const char *message);

void free_line(char *line);

/* Writes a malloc'd line to stdout and frees it; 0 or -1 with errno. */
int write_line(char *line);

/* Writes the `bsh check --json` verdict to stdout. */
int write_json_check(const char *error);

/* Says on stderr that writing to `what` failed with `err`. */
void cli_output_error(const char *what, int err);

/* The exit status after a failed write to `what`: 141 for EPIPE (the
 * reader went away: as a pipeline member killed by SIGPIPE, silently),
 * otherwise 125 with a message. */
int cli_output_status(const char *what, int err);

/* Flushes stdio's stdout; 0, or the exit status of a failed write (see
 * cli_output_status). */
int cli_stdout_status(void);

/* Encodes `len` bytes as standard base64 with padding into `out` (room
 * for 4 * ceil(len / 3) + 1 bytes); returns the length written. */
size_t base64_encode(const unsigned char *in, size_t len, char *out);

#endif
