/* SPDX-License-Identifier: MIT */
/*
 * Finding every simple command of a bash script with tree-sitter-bash:
 * the words bash would pass (after quote removal, or marked dynamic), the
 * assignments before them, what feeds their standard input (a static
 * here-document or here-string is a script for a shell), write
 * redirections as the pseudo-command `>` TARGET, and the functions the
 * script defines. The tree is walked with a cursor, never recursion.
 */
#ifndef BSH_POLICY_BASH_TREE_H
#define BSH_POLICY_BASH_TREE_H

#include <stdbool.h>
#include <stddef.h>

struct pol_word {
    char *value; /* after quote removal; as written when dynamic */
    size_t len;
    bool dynamic; /* holds an expansion (or, as a command word, a glob) */
    bool quoted;  /* any quote or backslash: an alias is not looked up */
    bool glob;    /* an unquoted glob: what it names depends on the files */
};

enum pol_stdin {
    POL_STDIN_INHERITED = 0, /* a pipe, the caller's stdin, ... */
    POL_STDIN_SCRIPT,        /* a static here-document or here-string */
    POL_STDIN_OTHER,         /* a file, or a here-document that expands */
};

struct pol_simple {
    size_t start, end; /* bytes of the script */
    struct pol_word *words;
    size_t nwords;
    char **assigns; /* names assigned before the words (or by them) */
    size_t nassigns;
    bool declaration;     /* export, declare, local, readonly, typeset, unset */
    bool redirect_target; /* the pseudo-command `>` TARGET */
    enum pol_stdin stdin_kind;
    char *stdin_text; /* POL_STDIN_SCRIPT: the script text */
    size_t stdin_len;
};

struct pol_funcdef {
    char *name;
    size_t body_start, body_end;
    size_t defined_at; /* byte offset of the definition */
    bool top_level;    /* a statement of the script itself, not inside a
                        * subshell, a body, a condition or a list */
};

/* A byte range of the script. */
struct pol_range {
    size_t start, end;
};

struct pol_script {
    struct pol_simple *cmds;
    size_t ncmds, cap_cmds;
    struct pol_funcdef *funcs;
    size_t nfuncs, cap_funcs;
    struct pol_range *loops; /* the bodies of for, while, until, select */
    size_t nloops, cap_loops;
    const char *error; /* "parse error", "nesting too deep", or NULL */
};

/* Most bytes a command may have to be parsed; longer is a parse error. */
#define POL_MAX_COMMAND ((size_t)1024 * 1024)
/* Most tokens a command may have to be parsed (tree-sitter's tree takes
 * some 200 to 250 bytes a token: this keeps a decision within 64 MiB);
 * more is a parse error, unparsed. */
#define POL_MAX_TOKENS 150000
/* Deepest nesting of constructs (substitutions, groups, bodies). */
#define POL_MAX_NESTING 256

struct TSParser;

/* A parser for bash, to use for many parses (one thread at a time). */
struct TSParser *pol_parser_new(void);
void pol_parser_free(struct TSParser *parser);

/* Parses `text` into `out` (zeroed first) with `parser` (NULL: one made
 * for it). 0, or -1 when memory ran out. A parse failure is not an
 * error: out->error says it, with no command. */
int pol_bash_parse(struct TSParser *parser, const char *text, size_t len,
                   struct pol_script *out);
void pol_script_free(struct pol_script *script);

/* Decodes the escapes of $'...' (without the `$'` and `'`). Into `out`
 * (at least `len` + 1 bytes); returns the decoded length. */
size_t pol_ansi_c_decode(const char *s, size_t len, char *out);

#endif
