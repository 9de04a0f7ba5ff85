/* SPDX-License-Identifier: MIT */
#include "node_kind.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

const TSLanguage *tree_sitter_bash(void);

static const struct {
    const char *name;
    enum pol_kind kind;
} names[] = {
    {"command", PK_COMMAND},
    {"declaration_command", PK_DECLARATION},
    {"unset_command", PK_UNSET},
    {"variable_assignments", PK_ASSIGNMENTS},
    {"variable_assignment", PK_ASSIGNMENT},
    {"for_statement", PK_FOR},
    {"redirected_statement", PK_REDIRECTED},
    {"file_redirect", PK_FILE_REDIRECT},
    {"heredoc_redirect", PK_HEREDOC_REDIRECT},
    {"herestring_redirect", PK_HERESTRING_REDIRECT},
    {"function_definition", PK_FUNCTION},
    {"command_substitution", PK_COMMAND_SUBST},
    {"process_substitution", PK_PROCESS_SUBST},
    {"comment", PK_COMMENT},
    {"word", PK_WORD},
    {"number", PK_NUMBER},
    {"regex", PK_REGEX},
    {"extglob_pattern", PK_EXTGLOB},
    {"variable_name", PK_VARIABLE_NAME},
    {"special_variable_name", PK_SPECIAL_VARIABLE},
    {"test_operator", PK_TEST_OPERATOR},
    {"string", PK_STRING},
    {"string_content", PK_STRING_CONTENT},
    {"raw_string", PK_RAW_STRING},
    {"ansi_c_string", PK_ANSI_C},
    {"translated_string", PK_TRANSLATED},
    {"concatenation", PK_CONCATENATION},
    {"expansion", PK_EXPANSION},
    {"simple_expansion", PK_SIMPLE_EXPANSION},
    {"arithmetic_expansion", PK_ARITHMETIC},
    {"brace_expression", PK_BRACE},
    {"subscript", PK_SUBSCRIPT},
    {"heredoc_body", PK_HEREDOC_BODY},
    {"heredoc_start", PK_HEREDOC_START},
    {"heredoc_content", PK_HEREDOC_CONTENT},
    {"subshell", PK_SUBSHELL},
    {"compound_statement", PK_COMPOUND},
    {"do_group", PK_DO_GROUP},
    {"if_statement", PK_IF},
    {"case_statement", PK_CASE},
    {"test_command", PK_TEST_COMMAND},
    {"array", PK_ARRAY},
    {"c_style_for_statement", PK_CSTYLE_FOR},
};

/* Symbol -> kind, made once: the grammar is a constant of the program
 * (about 300 symbols; a larger grammar would leave the rest PK_OTHER). */
#define MAX_SYMBOLS 4096
static uint8_t kinds[MAX_SYMBOLS];
static uint32_t nsymbols;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void make_table(void)
{
    const TSLanguage *lang = tree_sitter_bash();
    uint32_t n = ts_language_symbol_count(lang);
    if (n > MAX_SYMBOLS)
        n = MAX_SYMBOLS;
    for (uint32_t s = 0; s < n; s++) {
        if (ts_language_symbol_type(lang, (TSSymbol)s) != TSSymbolTypeRegular)
            continue;
        const char *name = ts_language_symbol_name(lang, (TSSymbol)s);
        for (size_t i = 0; name != NULL && i < sizeof(names) / sizeof(names[0]);
             i++)
            if (strcmp(name, names[i].name) == 0)
                kinds[s] = (uint8_t)names[i].kind;
    }
    nsymbols = n;
}

enum pol_kind pol_kind_of(TSNode n)
{
    pthread_once(&once, make_table);
    if (!ts_node_is_named(n))
        return PK_OTHER;
    TSSymbol s = ts_node_symbol(n);
    return s < nsymbols ? (enum pol_kind)kinds[s] : PK_OTHER;
}

bool pol_kind_nests(enum pol_kind k)
{
    switch (k) {
    case PK_COMMAND_SUBST:
    case PK_PROCESS_SUBST:
    case PK_SUBSHELL:
    case PK_COMPOUND:
    case PK_DO_GROUP:
    case PK_IF:
    case PK_CASE:
    case PK_ARITHMETIC:
    case PK_EXPANSION:
    case PK_STRING:
    case PK_FUNCTION:
    case PK_HEREDOC_REDIRECT:
    case PK_TEST_COMMAND:
    case PK_ARRAY:
        return true;
    default:
        return false;
    }
}

bool pol_kind_expands(enum pol_kind k)
{
    return k == PK_SIMPLE_EXPANSION || k == PK_EXPANSION ||
           k == PK_COMMAND_SUBST || k == PK_PROCESS_SUBST ||
           k == PK_ARITHMETIC || k == PK_BRACE;
}
