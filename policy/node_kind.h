/* SPDX-License-Identifier: MIT */
/*
 * The kinds of tree-sitter-bash's nodes that the walk tells apart, found
 * by the node's symbol in a table made once from the grammar's names, so
 * that the walk compares small numbers, not strings.
 */
#ifndef BSH_POLICY_NODE_KIND_H
#define BSH_POLICY_NODE_KIND_H

#include <stdbool.h>
#include <tree_sitter/api.h>

enum pol_kind {
    PK_OTHER = 0,
    PK_COMMAND,
    PK_DECLARATION,
    PK_UNSET,
    PK_ASSIGNMENTS,
    PK_ASSIGNMENT,
    PK_FOR,
    PK_REDIRECTED,
    PK_FILE_REDIRECT,
    PK_HEREDOC_REDIRECT,
    PK_HERESTRING_REDIRECT,
    PK_FUNCTION,
    PK_COMMAND_SUBST,
    PK_PROCESS_SUBST,
    PK_COMMENT,
    PK_WORD,
    PK_NUMBER,
    PK_REGEX,
    PK_EXTGLOB,
    PK_VARIABLE_NAME,
    PK_SPECIAL_VARIABLE,
    PK_TEST_OPERATOR,
    PK_STRING,
    PK_STRING_CONTENT,
    PK_RAW_STRING,
    PK_ANSI_C,
    PK_TRANSLATED,
    PK_CONCATENATION,
    PK_EXPANSION,
    PK_SIMPLE_EXPANSION,
    PK_ARITHMETIC,
    PK_BRACE,
    PK_SUBSCRIPT,
    PK_HEREDOC_BODY,
    PK_HEREDOC_START,
    PK_HEREDOC_CONTENT,
    PK_SUBSHELL,
    PK_COMPOUND,
    PK_DO_GROUP,
    PK_IF,
    PK_CASE,
    PK_TEST_COMMAND,
    PK_ARRAY,
    PK_CSTYLE_FOR,
    PK_COUNT
};

/* The kind of a named node (an unnamed one is PK_OTHER). */
enum pol_kind pol_kind_of(TSNode n);

/* Kinds that open a level of nesting. */
bool pol_kind_nests(enum pol_kind k);

/* Kinds of a word's parts that expand (a word holding one is dynamic). */
bool pol_kind_expands(enum pol_kind k);

#endif
