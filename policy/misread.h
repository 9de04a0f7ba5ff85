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

/* The end of a lone `-` word that the tree drops after a command's last
 * word when a here-document follows (`python3 - <<EOF`, `cat -<<EOF`):
 * text [at, end) is blanks, `-`, maybe blanks, then `<<` but not `<<<`. 0 when
 * there is none. The walk adds the word; the check for dropped bytes allows it.
 */
size_t pol_dropped_dash(const char *text, size_t at, size_t end);

/* A node of kind `k` read apart: the reason, or NULL. */
const char *pol_misread_node(const char *text, TSNode n, enum pol_kind k);

#endif
