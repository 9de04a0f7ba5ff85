/* SPDX-License-Identifier: MIT */
/*
 * What an HTTP request's headers must say (http_checks.c): the media
 * types of Content-Type and Accept, and the headers that the 2026-07-28
 * transport mirrors from the body (MCP-Protocol-Version, Mcp-Method,
 * Mcp-Name, Mcp-Param-Run-Id), which must be there and agree with it.
 */
#ifndef BSH_MCP_HTTP_CHECKS_H
#define BSH_MCP_HTTP_CHECKS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Whether a Content-Type header says application/json (parameters such
 * as charset allowed). */
bool media_is_json(const char *content_type);

/* Whether an Accept header (NULL: none, which admits all) admits `type`
 * ("application/json" or "text/event-stream"). */
bool accept_admits(const char *accept, const char *type);

/* The header lookup of one request: the value of `name`, or NULL. */
typedef const char *(*header_fn)(void *ctx, const char *name);

/* Checks a modern request's headers against its body: NULL when they
 * agree, else what is wrong, in `buf`. */
const char *modern_headers_mismatch(json_t *msg, header_fn header, void *ctx,
                                    char *buf, size_t size);

#endif
