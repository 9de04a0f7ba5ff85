/* SPDX-License-Identifier: MIT */
/*
 * How `bsh` writes: whole buffers to an fd, and the JSON lines of
 * `--json` mode (SPEC 3).
 */
#ifndef BSH_CLI_OUTPUT_H
#define BSH_CLI_OUTPUT_H

#include "bsh/bsh.h"

#include <stddef.h>

/* Writes all of `buf` to `fd`, retrying short writes and EINTR; 0 or -1
 * with errno (EPIPE when the reader went away). */
int write_all(int fd, const void *buf, size_t len);

/* Prints "bsh: MESSAGE" on stderr. */
void cli_error(const char *message);

/* Writes one item as its five-key JSON line to stdout. */
int json_write_item(const struct bsh_item *item);

/* Writes {"error":"MESSAGE","stage":"STAGE"} to stdout. */
int json_write_error(const char *message, const char *stage);

/* Writes the `bsh check --json` verdict to stdout. */
int json_write_check(const char *error);

/* Encodes `len` bytes as standard base64 with padding into `out` (room
 * for 4 * ceil(len / 3) + 1 bytes); returns the length written. */
size_t base64_encode(const unsigned char *in, size_t len, char *out);

/* Appends `s` as a JSON string literal (quotes included) to `out`, which
 * has room for 6 * strlen(s) + 3 bytes. Invalid UTF-8 becomes U+FFFD. */
size_t json_quote(const char *s, char *out);

#endif
