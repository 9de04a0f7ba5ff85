/* SPDX-License-Identifier: MIT */
#include "era.h"

#include <bsh/bsh.h>
#include <string.h>

/* Newest first: the newest answers a legacy client that asks for a
 * version not in the list. */
static const char *const legacy_versions[] = {"2025-11-25", "2025-06-18",
                                              "2025-03-26", "2024-11-05"};
#define LEGACY_COUNT (sizeof(legacy_versions) / sizeof(legacy_versions[0]))

const char *era_requested_version(json_t *params)
{
    json_t *v = json_object_get(json_object_get(params, "_meta"),
                                META_PROTOCOL_VERSION);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

bool era_modern_supported(const char *version)
{
    return strcmp(version, ERA_MODERN_VERSION) == 0;
}

/* The entry of legacy_versions that is `version`, or NULL. */
static const char *legacy_entry(const char *version)
{
    for (size_t i = 0; i < LEGACY_COUNT && version != NULL; i++)
        if (strcmp(version, legacy_versions[i]) == 0)
            return legacy_versions[i];
    return NULL;
}

bool era_legacy_supported(const char *version)
{
    return legacy_entry(version) != NULL;
}

const char *era_legacy_version(json_t *asked)
{
    const char *known = legacy_entry(json_string_value(asked));
    return known != NULL ? known : legacy_versions[0];
}

json_t *era_supported_versions(void)
{
    json_t *list = json_pack("[s]", ERA_MODERN_VERSION);
    for (size_t i = 0; i < LEGACY_COUNT; i++)
        json_array_append_new(list, json_string(legacy_versions[i]));
    return list;
}

bool era_client_has_extension(json_t *params, const char *name)
{
    json_t *caps =
        json_object_get(json_object_get(params, "_meta"), META_CLIENT_CAPS);
    return json_object_get(json_object_get(caps, "extensions"), name) != NULL;
}

void era_mark_result(json_t *result)
{
    if (!json_is_object(result))
        return;
    if (json_object_get(result, "resultType") == NULL)
        json_object_set_new(result, "resultType", json_string("complete"));
    json_t *meta = json_object_get(result, "_meta");
    if (meta == NULL) {
        meta = json_object();
        json_object_set_new(result, "_meta", meta);
    }
    json_object_set_new(
        meta, META_SERVER_INFO,
        json_pack("{s:s, s:s}", "name", "bsh", "version", bsh_version()));
}

void era_mark_cacheable(json_t *result)
{
    json_object_set_new(result, "ttlMs", json_integer(ERA_LIST_TTL_MS));
    json_object_set_new(result, "cacheScope", json_string("public"));
}
