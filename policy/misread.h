/* SPDX-License-Identifier: MIT */
/* Where tree-sitter-bash and bash read a command apart (misread.c). */
#ifndef BSH_POLICY_MISREAD_H
#define BSH_POLICY_MISREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <tree_sitter/api.h>

/* Raw-text checks: true when the text cannot be read alike. */
bool pol_misread_text(const char *text, size_t len);

/* A node of type `type` read apart: the reason, or NULL. */
const char *pol_misread_node(const char *text, TSNode n, const char *type);

#endif
