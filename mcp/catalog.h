/* SPDX-License-Identifier: MIT */
/*
 * The tools the MCP server offers (catalog.c): their names, descriptions
 * and input schemas, as tools/list returns them.
 */
#ifndef BSH_MCP_CATALOG_H
#define BSH_MCP_CATALOG_H

#include <jansson.h>

/* The array of tool descriptions (a new reference). */
json_t *catalog_tools(void);

#endif
