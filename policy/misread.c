/* SPDX-License-Identifier: MIT */
/*
 * Where tree-sitter-bash reads a command differently from bash. Its
 * grammar is close to bash, not equal: a backslash-newline inside a word,
 * a `#` after an escaped blank, CR/VT/FF as blanks, `$'\\'`, heredoc
 * delimiters with quotes inside, command substitutions inside a `${...}`
 * operand, a `[[ =~ ]]` pattern or an unquoted here-document body that it
 * keeps as plain text. Each such input is a parse error, so never allowed:
 * what bash would run there cannot be known from this tree.
 */
#include "misread.h"

#include <ctype.h>
#include <string.h>

static bool blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

/* Whether the byte at `i` is escaped by an odd run of backslashes. */
static bool escaped(const char *text, size_t i)
{
    size_t n = 0;
    while (i > n && text[i - n - 1] == '\\')
        n++;
    return n % 2 == 1;
}

bool pol_misread_text(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '\r' || c == '\v' || c == '\f')
            return true; /* blanks to tree-sitter, word bytes to bash */
        if (c == '\\' && i + 1 < len &&
            (text[i + 1] == ' ' || text[i + 1] == '\t') && !escaped(text, i) &&
            (i == 0 || strchr(" \t\n<>=|&;(", text[i - 1]))) {
            /* an escaped blank that starts a word: a blank to tree-sitter */
            return true;
        }
        if (c == '$' && i + 1 < len && blank(text[i + 1]) && !escaped(text, i))
            return true; /* `$ x`: tree-sitter reads $x */
        if (c == '\\' && i + 1 < len && text[i + 1] == '\n' &&
            !escaped(text, i)) {
            /* a line joined inside a word: one word to bash, two here */
            bool before = i > 0 && !blank(text[i - 1]);
            bool after = i + 2 < len && !blank(text[i + 2]);
            if (before && after)
                return true;
        }
    }
    return false;
}

/* An unescaped substitution opener in raw text that the tree kept as
 * plain: "`", "$(", and with `process` "<(" and ">(". */
static bool opener(const char *s, size_t len, bool process)
{
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\\') {
            i++;
            continue;
        }
        if (s[i] == '`')
            return true;
        if (i + 1 < len && s[i + 1] == '(' &&
            (s[i] == '$' || (process && (s[i] == '<' || s[i] == '>'))))
            return true;
    }
    return false;
}

/* A `#` that bash does not take for a comment's start. */
static bool false_comment(const char *text, size_t at)
{
    if (at == 0)
        return false;
    char prev = text[at - 1];
    if (blank(prev))
        return escaped(text, at - 1);
    return strchr(";&|()<>", prev) == NULL;
}

/* The end of $'...' as bash reads it (a backslash escapes any byte). */
static size_t ansi_c_end(const char *text, size_t start, size_t limit)
{
    for (size_t i = start + 2; i < limit; i++) {
        if (text[i] == '\\')
            i++;
        else if (text[i] == '\'')
            return i + 1;
    }
    return limit + 1;
}

/* A here-document delimiter bash and tree-sitter read alike: a plain
 * word, or one wholly in '...' or "...", or \WORD. */
static bool plain_delimiter(const char *s, size_t n)
{
    size_t i = 0;
    if (n >= 2 && (s[0] == '\'' || s[0] == '"') && s[n - 1] == s[0]) {
        for (i = 1; i + 1 < n; i++)
            if (s[i] == s[0] || s[i] == '\\' || s[i] == '$' || s[i] == '`')
                return false;
        return true;
    }
    if (n >= 2 && s[0] == '\\')
        i = 1;
    if (i >= n)
        return false;
    for (; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-' ||
              c == '+'))
            return false;
    }
    return true;
}

/* An unquoted here-document body: its text outside the substitutions
 * the tree found must hold no other. */
static bool unfound_in_body(const char *text, TSNode body)
{
    size_t at = ts_node_start_byte(body), end = ts_node_end_byte(body);
    TSTreeCursor c = ts_tree_cursor_new(body);
    bool bad = false;
    if (ts_tree_cursor_goto_first_child(&c)) {
        do {
            TSNode k = ts_tree_cursor_current_node(&c);
            size_t ks = ts_node_start_byte(k);
            if (strcmp(ts_node_type(k), "heredoc_content") == 0)
                continue;
            bad = ks > at && opener(text + at, ks - at, false);
            at = ts_node_end_byte(k);
        } while (!bad && ts_tree_cursor_goto_next_sibling(&c));
    }
    ts_tree_cursor_delete(&c);
    return bad || (end > at && opener(text + at, end - at, false));
}

/* How many children of `n` are in field `field`. */
static unsigned field_count(TSNode n, const char *field)
{
    unsigned count = 0;
    TSTreeCursor c = ts_tree_cursor_new(n);
    if (ts_tree_cursor_goto_first_child(&c)) {
        do {
            const char *f = ts_tree_cursor_current_field_name(&c);
            count += f != NULL && strcmp(f, field) == 0;
        } while (ts_tree_cursor_goto_next_sibling(&c));
    }
    ts_tree_cursor_delete(&c);
    return count;
}

static bool misread_heredoc(const char *text, TSNode redirect)
{
    TSNode start = {0}, body = {0};
    TSTreeCursor c = ts_tree_cursor_new(redirect);
    if (ts_tree_cursor_goto_first_child(&c)) {
        do {
            TSNode k = ts_tree_cursor_current_node(&c);
            if (strcmp(ts_node_type(k), "heredoc_start") == 0)
                start = k;
            else if (strcmp(ts_node_type(k), "heredoc_body") == 0)
                body = k;
        } while (ts_tree_cursor_goto_next_sibling(&c));
    }
    ts_tree_cursor_delete(&c);
    if (ts_node_is_null(start))
        return false;
    size_t s = ts_node_start_byte(start), e = ts_node_end_byte(start);
    if (!plain_delimiter(text + s, e - s))
        return true;
    bool quoted = memchr(text + s, '\'', e - s) ||
                  memchr(text + s, '"', e - s) || memchr(text + s, '\\', e - s);
    return !quoted && !ts_node_is_null(body) && unfound_in_body(text, body);
}

/* ${!NAME...}: the value of NAME names the variable, and a subscript in
 * it is evaluated (x='a[$(id)]'; ${!x} runs id). Not ${!NAME*},
 * ${!NAME@} (names) nor ${!NAME[@]}, ${!NAME[*]} (keys). */
static bool indirect(const char *s, size_t len)
{
    if (len < 4 || memcmp(s, "${!", 3) != 0)
        return false;
    size_t i = 3;
    while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '_'))
        i++;
    if (i == 3)
        return false; /* ${!} and the like: the last background pid */
    const char *rest = s + i;
    size_t left = len - i;
    static const char *const listing[] = {"*}", "@}", "[@]}", "[*]}"};
    for (size_t k = 0; k < sizeof(listing) / sizeof(listing[0]); k++)
        if (left == strlen(listing[k]) && memcmp(rest, listing[k], left) == 0)
            return false;
    return true;
}

bool pol_quoted_subscript(const char *s, size_t len)
{
    if (memchr(s, '\'', len) == NULL && memchr(s, '\\', len) == NULL)
        return false;
    const char *open = memchr(s, '[', len);
    if (open == NULL)
        return false;
    size_t rest = len - (size_t)(open - s);
    return memchr(open, '$', rest) != NULL || memchr(open, '`', rest) != NULL;
}

/* [[ ... ]] and [ ... ]: -v NAME evaluates NAME's subscript (a dynamic
 * NAME may hold one), and in [[ ]] the operands of -eq, -ne, -lt, -le,
 * -gt, -ge are arithmetic. */
static bool test_evaluates(const char *text, size_t s, size_t e)
{
    bool arithmetic = false;
    static const char *const ops[] = {"-eq", "-ne", "-lt", "-le", "-gt", "-ge"};
    for (size_t i = s; i + 3 < e; i++) {
        if (text[i] != '-' ||
            (i > s && text[i - 1] != ' ' && text[i - 1] != '\t'))
            continue;
        if (text[i + 1] == 'v' && (text[i + 2] == ' ' || text[i + 2] == '\t')) {
            size_t k = i + 2;
            while (k < e && (text[k] == ' ' || text[k] == '\t'))
                k++;
            if (k < e && text[k] == '"')
                k++;
            if (k < e && (text[k] == '$' || text[k] == '`'))
                return true; /* -v $x */
            const char *open = memchr(text + i, '[', e - i);
            if (open != NULL &&
                (memchr(open, '$', (size_t)(text + e - open)) != NULL ||
                 memchr(open, '`', (size_t)(text + e - open)) != NULL))
                return true;
        }
        for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++)
            arithmetic |= memcmp(text + i, ops[o], 3) == 0;
    }
    return arithmetic && e - s >= 2 && text[s] == '[' && text[s + 1] == '[' &&
           pol_quoted_subscript(text + s, e - s);
}

/* Whether the '...' at `n` is inside double quotes, an unquoted
 * here-document body or arithmetic as bash reads them (up to the nearest
 * substitution, which quotes anew): there single quotes are plain
 * characters to bash (`"${x:-'$(id)'}"`, `(( '$(id)' ))`), while the
 * tree reads them as quotes and finds nothing inside. */
static bool quotes_are_plain_at(const char *text, TSNode n)
{
    for (TSNode p = ts_node_parent(n); !ts_node_is_null(p);
         p = ts_node_parent(p)) {
        const char *type = ts_node_type(p);
        size_t s = ts_node_start_byte(p);
        if (strcmp(type, "command_substitution") == 0 ||
            strcmp(type, "process_substitution") == 0)
            return false;
        if (strcmp(type, "string") == 0 || strcmp(type, "heredoc_body") == 0 ||
            strcmp(type, "arithmetic_expansion") == 0 ||
            strcmp(type, "c_style_for_statement") == 0 ||
            (strcmp(type, "test_command") == 0 &&
             ts_node_end_byte(p) - s >= 2 && text[s] == '(' &&
             text[s + 1] == '('))
            return true;
    }
    return false;
}

size_t pol_dropped_dash(const char *text, size_t at, size_t end)
{
    size_t i = at;
    while (i < end && (text[i] == ' ' || text[i] == '\t'))
        i++;
    if (i == at || i >= end || text[i] != '-')
        return 0;
    size_t dash_end = i + 1;
    i = dash_end;
    while (i < end && (text[i] == ' ' || text[i] == '\t'))
        i++;
    if (i + 2 > end || text[i] != '<' || text[i + 1] != '<' ||
        (i + 2 < end && text[i + 2] == '<'))
        return 0;
    return dash_end;
}

/* Whether bytes of `n` lie in none of its children other than blanks and
 * line joins: the tree dropped them (`cat - <<EOF` loses the `-`, which
 * the walk adds back). */
static bool dropped_bytes(const char *text, TSNode n)
{
    size_t at = ts_node_start_byte(n), end = ts_node_end_byte(n);
    bool dropped = false;
    TSTreeCursor c = ts_tree_cursor_new(n);
    bool more = ts_tree_cursor_goto_first_child(&c);
    while (!dropped) {
        size_t upto = end;
        if (more)
            upto = ts_node_start_byte(ts_tree_cursor_current_node(&c));
        size_t dash = pol_dropped_dash(text, at, end);
        if (dash != 0 && dash <= upto)
            at = dash;
        for (size_t i = at; i < upto && !dropped; i++) {
            if (text[i] == '\\' && i + 1 < upto && text[i + 1] == '\n')
                i++;
            else
                dropped = !blank(text[i]);
        }
        if (!more)
            break;
        size_t child_end = ts_node_end_byte(ts_tree_cursor_current_node(&c));
        at = child_end > at ? child_end : at;
        more = ts_tree_cursor_goto_next_sibling(&c);
    }
    ts_tree_cursor_delete(&c);
    return dropped;
}

const char *pol_misread_node(const char *text, TSNode n, enum pol_kind k)
{
    size_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
    /* (( 'a[$(id)]' )), whatever node the tree makes of it */
    if (e - s >= 2 && text[s] == '(' && text[s + 1] == '(' &&
        pol_quoted_subscript(text + s, e - s))
        return "eval of a dynamic string";
    switch (k) {
    case PK_COMMENT:
        return false_comment(text, s) ? "parse error" : NULL;
    case PK_WORD:
    case PK_REGEX:
    case PK_EXTGLOB:
        return opener(text + s, e - s, true) ? "parse error" : NULL;
    case PK_STRING_CONTENT:
        return opener(text + s, e - s, false) ? "parse error" : NULL;
    case PK_ANSI_C:
        return ansi_c_end(text, s, e) != e ? "parse error" : NULL;
    case PK_RAW_STRING:
        return (memchr(text + s, '$', e - s) != NULL ||
                memchr(text + s, '`', e - s) != NULL) &&
                       quotes_are_plain_at(text, n)
                   ? "parse error"
                   : NULL;
    case PK_HEREDOC_REDIRECT:
        return misread_heredoc(text, n) || field_count(n, "argument") > 0
                   ? "parse error"
                   : NULL;
    case PK_COMMAND:
    case PK_REDIRECTED:
        return dropped_bytes(text, n) ? "parse error" : NULL;
    case PK_FILE_REDIRECT: /* the words after a target are the command's */
        return field_count(n, "destination") > 1 ? "parse error" : NULL;
    case PK_TEST_COMMAND: /* [ -v 'a[$(id)]' ]: the subscript runs */
        return test_evaluates(text, s, e) ? "eval of a dynamic string" : NULL;
    case PK_ARITHMETIC: /* (( 'a[$(id)]' )) */
        return pol_quoted_subscript(text + s, e - s)
                   ? "eval of a dynamic string"
                   : NULL;
    case PK_EXPANSION: /* ${x@P}: prompt expansion runs what $(...) the */
        for (size_t i = s; i + 1 < e; i++) /* value holds */
            if (text[i] == '@' && text[i + 1] == 'P')
                return "eval of a dynamic string";
        /* ${a['$(id)']}: a quoted subscript is evaluated too */
        return indirect(text + s, e - s) ||
                       pol_quoted_subscript(text + s, e - s)
                   ? "eval of a dynamic string"
                   : NULL;
    default:
        return NULL;
    }
}
