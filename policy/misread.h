/* SPDX-License-Identifier: MIT */
/* Where tree-sitter-bash and bash read a command apart (misread.c). */
#ifndef BSH_POLICY_MISREAD_H
#define BSH_POLICY_MISREAD_H

#include "node_kind.h"
#include <stdbool.h>
#include <stddef.h>

#include <tree_sitter/api.h>

/* Raw-text checks: true when the text cannot be read alike. */
bool pol_misread_text(const char *text, size_t len);

/* Whether text [s, s+len) holds a quote or a backslash and a subscript
 * with `$` or a backtick in it: arithmetic that bash evaluates from a
 * string (`(( 'a[$(id)]' ))`, an integer variable's value) runs it. */
bool pol_quoted_subscript(const char *s, size_t len);

/* A node of kind `k` read apart: the reason, or NULL. */
const char *pol_misread_node(const char *text, TSNode n, enum pol_kind k);

#endif
