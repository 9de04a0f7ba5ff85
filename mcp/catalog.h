/* SPDX-License-Identifier: MIT */
/*
 * The tools the MCP server offers (catalog.c): their names, descriptions
 * and input schemas, as tools/list returns them.
 */
#ifndef BSH_MCP_CATALOG_H
#define BSH_MCP_CATALOG_H

#include <jansson.h>

#include <stdbool.h>

/* The array of tool descriptions (a new reference); with `legacy_tasks`
 * bash_run says it may run as a task of the 2025-11-25 kind. */
json_t *catalog_tools(bool legacy_tasks);

#endif
