/* SPDX-License-Identifier: MIT */
/*
 * The two eras of MCP on one connection (era.c). The legacy era opens
 * with `initialize` (2025-11-25 and the three versions before it); the
 * modern era (2026-07-28) has no handshake: each request carries its
 * version and the client's capabilities in `_meta`, and every result
 * carries a `resultType`.
 */
#ifndef BSH_MCP_ERA_H
#define BSH_MCP_ERA_H

#include <jansson.h>
#include <stdbool.h>

#define ERA_MODERN_VERSION "2026-07-28"

/* The reserved `_meta` keys of the modern era. */
#define META_PROTOCOL_VERSION "io.modelcontextprotocol/protocolVersion"
#define META_CLIENT_CAPS      "io.modelcontextprotocol/clientCapabilities"
#define META_SERVER_INFO      "io.modelcontextprotocol/serverInfo"
#define META_RELATED_TASK     "io.modelcontextprotocol/related-task"
#define TASKS_EXTENSION       "io.modelcontextprotocol/tasks"

/* How long a client may keep a list or discover result (ms). The tools
 * never change while the server runs. */
#define ERA_LIST_TTL_MS 3600000

/* The modern version a request asks for in params._meta, or NULL for a
 * legacy request. */
const char *era_requested_version(json_t *params);

/* Whether the server speaks `version` in the modern era. */
bool era_modern_supported(const char *version);

/* Whether `version` is one of the legacy versions the server speaks. */
bool era_legacy_supported(const char *version);

/* The legacy version that answers a client asking for `asked`: the
 * same when known, else the newest. */
const char *era_legacy_version(json_t *asked);

/* Every version the server speaks, newest first (a new reference). */
json_t *era_supported_versions(void);

/* Whether a modern request's client declared the extension `name`. */
bool era_client_has_extension(json_t *params, const char *name);

/* Marks a modern result: `resultType` "complete" unless it has one,
 * and the server's identity in `_meta`. */
void era_mark_result(json_t *result);

/* Adds the caching hints a list or discover result must carry. */
void era_mark_cacheable(json_t *result);

#endif
