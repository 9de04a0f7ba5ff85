/* SPDX-License-Identifier: MIT */
/*
 * Commands that can neither read nor change the shell state a session
 * carries, beyond what bash is given before it parses them: the working
 * directory, the umask, the options, the exported variables and the ones
 * bash consults on its own (PATH, the locale, GLOBIGNORE...). For such a
 * command a session run restores only those and saves nothing (the state
 * it would save is the one it started from), which makes it cost about
 * what a run outside a session costs (session_script.c's lean script).
 *
 * The test is a small lexer that says no to anything it does not fully
 * understand. It accepts lists of simple commands (`;`, `&&`, `||`, `|`,
 * `&`, newlines) whose words are plain characters or quoted text without
 * expansions, with redirections to plain words, where each command name
 * is neither an alias nor a function of the session, nor a keyword, nor
 * a builtin other than `true`, `false`, `:` and `echo`. That rules out
 * every way bash has to reach a variable it was not given (`$`, `` ` ``,
 * arithmetic, `[[`, `declare`, `test -v`, `read`...), to run a function
 * or alias, or to change the directory, an option, the umask, a
 * variable, a function or an alias.
 */
#include "session.h"

#include <string.h>

/* Longer commands are not looked at: the full restore costs little
 * beside what they take to parse. */
#define STATELESS_MAX 4096

static const char *const reserved_or_builtin[] = {
    /* keywords */
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select",
    "while", "until", "do", "done", "in", "function", "time", "{", "}", "!",
    "[[", "]]", "coproc",
    /* builtins, but true, false, : and echo */
    ".", "[", "alias", "bg", "bind", "break", "builtin", "caller", "cd",
    "command", "compgen", "complete", "compopt", "continue", "declare", "dirs",
    "disown", "enable", "eval", "exec", "exit", "export", "fc", "fg", "getopts",
    "hash", "help", "history", "jobs", "kill", "let", "local", "logout",
    "mapfile", "popd", "printf", "pushd", "pwd", "read", "readarray",
    "readonly", "return", "set", "shift", "shopt", "source", "suspend", "test",
    "times", "trap", "type", "typeset", "ulimit", "umask", "unalias", "unset",
    "wait", NULL};

struct lexer {
    const char *p;
    const struct bsh__state *st;
    char word[256]; /* the word without its quotes; longer: not a name */
    size_t len;
    bool too_long;
    bool pattern_or_equals; /* an unquoted glob character or `=` */
};

static bool plain_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c >= 0x80 ||
           (c != '\0' && strchr("_./:,+%@-", c) != NULL);
}

static void add(struct lexer *lx, char c)
{
    if (lx->len + 1 >= sizeof(lx->word)) {
        lx->too_long = true;
        return;
    }
    lx->word[lx->len++] = c;
}

/* One word, its quotes removed into lx->word; false when it holds
 * anything but plain characters, globs, `=` and quotes without
 * expansions in them. */
static bool read_word(struct lexer *lx)
{
    lx->len = 0;
    lx->too_long = lx->pattern_or_equals = false;
    for (;;) {
        unsigned char c = (unsigned char)*lx->p;
        if (c == '\'' || c == '"') {
            const char *end = strchr(lx->p + 1, c);
            if (end == NULL)
                return false;
            for (const char *q = lx->p + 1; q < end; q++) {
                if (c == '"' && strchr("$`\\!", *q) != NULL)
                    return false;
                add(lx, *q);
            }
            lx->p = end + 1;
        } else if (plain_char(c) || (c != '\0' && strchr("*?[]=", c))) {
            lx->pattern_or_equals |= !plain_char(c);
            add(lx, (char)c);
            lx->p++;
        } else {
            break;
        }
    }
    lx->word[lx->len] = '\0';
    return true;
}

/* Whether the session has an alias or function of this name. */
static bool session_name(const struct bsh__state *st, const char *name)
{
    return bsh__state_find(st, REC_FUNC, name) != NULL ||
           bsh__state_find(st, REC_ALIAS, name) != NULL;
}

static bool harmless_command_name(const struct lexer *lx)
{
    /* __bsh_ functions are the session's too, though it lists none. */
    if (lx->len == 0 || lx->too_long || lx->pattern_or_equals ||
        strncmp(lx->word, "__bsh_", 6) == 0)
        return false;
    for (const char *const *w = reserved_or_builtin; *w != NULL; w++)
        if (strcmp(*w, lx->word) == 0)
            return false;
    return !session_name(lx->st, lx->word);
}

/* Where a word ends without another word glued to it. */
static bool word_boundary(char c)
{
    return c == '\0' || strchr(" \t\n;&|<>", c) != NULL;
}

/* A redirection's operator at lx->p (after its fd digits): `<`, `>`,
 * `>>`, `>|`, `<>`, and `>&N`, `<&N`, `>&N-`, `>&-`, which take no word
 * (bash reads `>&1x` as a file name and `>&1-` as a move: anything glued
 * to them is refused). Sets *needs_word; false for here-documents,
 * here-strings and the rest. */
static bool read_redirection(struct lexer *lx, bool *needs_word)
{
    const char *p = lx->p;
    char c = *p++;
    if (c == '<' && *p == '<')
        return false;
    if ((c == '>' && (*p == '>' || *p == '|')) || (c == '<' && *p == '>'))
        p++;
    *needs_word = true;
    if (*p == '&') {
        p++;
        if (*p >= '0' && *p <= '9')
            while (*p >= '0' && *p <= '9')
                p++;
        else if (*p != '-')
            return false;
        if (*p == '-')
            p++;
        if (!word_boundary(*p))
            return false;
        *needs_word = false;
    }
    if (*p == '(')
        return false;
    lx->p = p;
    return true;
}

static const char *skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* At a word's start: the fd digits of a redirection, if they are. bash
 * takes them as an fd only when they fit an int: ten digits or more are
 * left to the caller to refuse. */
static bool redirection_ahead(const char *p, bool *too_long)
{
    const char *digits = p;
    while (*p >= '0' && *p <= '9')
        p++;
    *too_long = p - digits > 9;
    return *p == '<' || *p == '>';
}

static bool option_on(const struct bsh__state *st, const char *name)
{
    const struct bsh__rec *r = bsh__state_find(st, REC_OPTION, name);
    return r != NULL && strncmp(r->text, "set -o", 6) == 0;
}

/* The attribute letters of a record's `declare -...` line (`*n` of
 * them, "-" for none), or NULL. */
static const char *attributes(const struct bsh__rec *r, size_t *n)
{
    if (strncmp(r->text, "declare -", 9) != 0)
        return NULL;
    *n = strcspn(r->text + 9, " ");
    return r->text + 9;
}

static bool has_attribute(const struct bsh__rec *r, char attribute)
{
    size_t n;
    const char *a = attributes(r, &n);
    return a != NULL && memchr(a, attribute, n) != NULL;
}

/* An exported function (children see it, so it must be defined), or a
 * nameref (the variable it names may be one the lean script leaves
 * out). */
static bool exports_a_function_or_has_a_nameref(const struct bsh__state *st)
{
    for (size_t i = 0; i < st->count; i++) {
        const struct bsh__rec *r = &st->recs[i];
        if ((r->kind == REC_FUNC && has_attribute(r, 'x')) ||
            (r->kind == REC_VAR && has_attribute(r, 'n')))
            return true;
    }
    return false;
}

/* Environment entries that make bash define code or set options before
 * the script runs (passed through as never carried, as in a plain run):
 * a function from BASH_ENV or an imported one would not be the session's
 * to check. */
static bool env_defines_code(char *const *env)
{
    static const char *const prefixes[] = {
        "BASH_ENV=", "ENV=", "BASH_FUNC_", "SHELLOPTS=", "BASHOPTS=", NULL};
    for (; env != NULL && *env != NULL; env++)
        for (const char *const *p = prefixes; *p != NULL; p++)
            if (strncmp(*env, *p, strlen(*p)) == 0)
                return true;
    return false;
}

bool bsh__session_call_env_plain(const struct bsh__state *st,
                                 const struct bsh_env_var *env, size_t count)
{
    for (size_t i = 0; i <= count; i++) {
        /* The sandbox's private TMPDIR is one of them too. */
        const char *name = i < count ? env[i].name : "TMPDIR";
        const struct bsh__rec *r = bsh__state_find(st, REC_VAR, name);
        size_t n;
        const char *a = r != NULL ? attributes(r, &n) : NULL;
        if (a != NULL && strspn(a, "x-") < n)
            return false;
    }
    return true;
}

bool bsh__session_stateless(const char *command, const struct bsh__state *st,
                            char *const *env)
{
    /* keyword: `a=b` anywhere is an assignment; histexpand: histchars
     * may name any character. */
    if (strlen(command) > STATELESS_MAX || option_on(st, "keyword") ||
        option_on(st, "histexpand") ||
        bsh__state_find(st, REC_FUNC, "command_not_found_handle") != NULL ||
        exports_a_function_or_has_a_nameref(st) || env_defines_code(env))
        return false;
    struct lexer lx = {.p = command, .st = st};
    bool at_start = true;
    for (;;) {
        lx.p = skip_blanks(lx.p);
        char c = *lx.p;
        if (c == '\0')
            return true;
        if (c == '\n' || c == ';' || c == '&' || c == '|') {
            if ((c == '&' || c == '|') && lx.p[1] == c)
                lx.p++;
            else if ((c == '&' && lx.p[1] == '>') ||
                     (c == '|' && lx.p[1] == '&') ||
                     (c == ';' && lx.p[1] == ';'))
                return false;
            lx.p++;
            at_start = true;
            continue;
        }
        bool too_long;
        if (redirection_ahead(lx.p, &too_long)) {
            bool needs_word;
            if (too_long)
                return false;
            while (*lx.p >= '0' && *lx.p <= '9')
                lx.p++;
            if (!read_redirection(&lx, &needs_word))
                return false;
            lx.p = skip_blanks(lx.p);
            if (needs_word && (!read_word(&lx) || lx.len == 0))
                return false;
            continue;
        }
        const char *word = lx.p;
        if (!read_word(&lx) || lx.p == word)
            return false; /* a character the words do not take */
        if (at_start && !harmless_command_name(&lx))
            return false;
        at_start = false;
    }
}
