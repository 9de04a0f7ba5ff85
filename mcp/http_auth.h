/* SPDX-License-Identifier: MIT */
/*
 * Who may talk to the HTTP server (http_auth.c): the bearer tokens of
 * --token-file, compared in constant time, and the Origin check that
 * keeps a browser page of another site out (DNS rebinding).
 */
#ifndef BSH_MCP_HTTP_AUTH_H
#define BSH_MCP_HTTP_AUTH_H

#include <stdbool.h>
#include <stddef.h>

struct tokens {
    char **list;
    size_t count;
};

/* Reads `path`: one token per line, blank lines skipped, whitespace
 * around a token stripped. False with the reason (naming the file) in `why`
 * when it is missing or unreadable, holds no token, or its group or
 * others can read it. */
bool tokens_load(struct tokens *t, const char *path, char *why,
                 size_t why_size);

void tokens_free(struct tokens *t);

/* Which token an `Authorization` header's value carries ("Bearer
 * TOKEN"), or -1. Every token is compared, each in time that depends
 * only on its length. */
int tokens_match(const struct tokens *t, const char *authorization);

/* Whether a request with this `Origin` header (NULL: none) may go on:
 * none, a loopback origin (http or https, localhost, 127.0.0.1 or [::1],
 * any port), or one named exactly in `allowed`. */
bool origin_allowed(const char *origin, const char *const *allowed,
                    size_t allowed_count);

#endif
