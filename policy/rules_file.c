/* SPDX-License-Identifier: MIT */
/*
 * Reading a rule file: a sequence of calls with keyword arguments, in the
 * call syntax of codex's `.rules` files (a subset of Starlark's), never
 * evaluated. `prefix_rule` and `host_executable` become rules of the
 * policy; codex's `network_rule` is read for syntax and ignored. The first
 * error rejects the file, with the line and column (bytes, from 1) of the
 * token or value it is about.
 */
#include "policy.h"

#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum tok_kind {
    T_EOF,
    T_NAME,
    T_STRING,
    T_LPAREN,
    T_RPAREN,
    T_LBRACK,
    T_RBRACK,
    T_COMMA,
    T_EQ,
    T_SEMI
};

struct token {
    enum tok_kind kind;
    size_t at, len;     /* bytes of the token as written */
    struct pol_str str; /* a string's value (T_STRING) */
};

/* A value: a string or a list of values, with where it was written. */
struct value {
    bool is_list;
    size_t at, len;
    struct pol_str str;
    struct value *items;
    size_t nitems;
};

struct reader {
    const char *text;
    size_t len, pos;
    const char *name;
    struct pol_error *err;
    struct token tok; /* the current token */
    bool failed;
    /* where position() last counted to: its line, and that line's start */
    size_t mark, mark_line_start;
    unsigned mark_line;
};

/* The line and column (from 1; the column in bytes) of byte `at`,
 * counted on from the last position asked for (rules come in order). */
static void position(struct reader *r, size_t at, unsigned *line, unsigned *col)
{
    if (at < r->mark) {
        r->mark = 0;
        r->mark_line = 1;
        r->mark_line_start = 0;
    }
    for (size_t i = r->mark; i < at && i < r->len; i++) {
        if (r->text[i] == '\n') {
            r->mark_line++;
            r->mark_line_start = i + 1;
        }
    }
    r->mark = at;
    *line = r->mark_line;
    *col = (unsigned)(at - r->mark_line_start + 1);
}

static void fail_at(struct reader *r, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fail_at(struct reader *r, size_t at, const char *fmt, ...)
{
    if (r->failed)
        return;
    r->failed = true;
    unsigned line, col;
    position(r, at, &line, &col);
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(r->err->text, sizeof(r->err->text), "policy: %.300s:%u:%u: %s",
             r->name, line, col, msg);
}

/* ---- Lexing ---- */

static bool is_name_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_name_char(unsigned char c)
{
    return is_name_start(c) || (c >= '0' && c <= '9');
}

static void skip_blanks(struct reader *r)
{
    while (r->pos < r->len) {
        char c = r->text[r->pos];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            r->pos++;
        } else if (c == '#') {
            while (r->pos < r->len && r->text[r->pos] != '\n')
                r->pos++;
        } else {
            break;
        }
    }
}

static int str_push(struct pol_str *s, size_t *cap, char c)
{
    if (s->len + 2 > *cap) {
        size_t ncap = *cap ? *cap * 2 : 32;
        char *p = realloc(s->s, ncap);
        if (p == NULL)
            return -1;
        s->s = p;
        *cap = ncap;
    }
    s->s[s->len++] = c;
    s->s[s->len] = '\0';
    return 0;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* One escape after the backslash at `r->pos`; appends its byte. */
static int read_escape(struct reader *r, struct pol_str *s, size_t *cap)
{
    size_t at = r->pos;
    if (at + 1 >= r->len)
        return 1; /* end of file: the caller reports the string unterminated */
    char c = r->text[at + 1];
    int byte = -1;
    size_t used = 2;
    switch (c) {
    case '\\':
        byte = '\\';
        break;
    case '"':
        byte = '"';
        break;
    case '\'':
        byte = '\'';
        break;
    case 'n':
        byte = '\n';
        break;
    case 't':
        byte = '\t';
        break;
    case 'r':
        byte = '\r';
        break;
    case 'x':
        if (at + 3 < r->len && hex_value(r->text[at + 2]) >= 0 &&
            hex_value(r->text[at + 3]) >= 0) {
            byte = hex_value(r->text[at + 2]) * 16 + hex_value(r->text[at + 3]);
            used = 4;
        }
        break;
    default:
        if (c >= '0' && c <= '7') {
            byte = 0;
            used = 1;
            while (used < 4 && at + used < r->len &&
                   r->text[at + used] >= '0' && r->text[at + used] <= '7') {
                byte = byte * 8 + (r->text[at + used] - '0');
                used++;
            }
            if (byte > 255)
                byte = -1;
        }
        break;
    }
    if (byte == 0) /* a NUL would end the word where bash's does not */
        byte = -1;
    if (byte < 0) {
        unsigned char uc = (unsigned char)c;
        if (uc < 0x20 || uc == 0x7f)
            fail_at(r, at, "invalid escape '\\\\x%02x' in string", uc);
        else
            fail_at(r, at, "invalid escape '\\%c' in string", c);
        return -1;
    }
    r->pos += used;
    return str_push(s, cap, (char)byte) == 0 ? 0 : -2;
}

/* A string at `r->pos` (its quote). 0, or -1 on an error already set. */
static int read_string(struct reader *r, struct token *t)
{
    char q = r->text[r->pos];
    bool triple = r->pos + 2 < r->len && r->text[r->pos + 1] == q &&
                  r->text[r->pos + 2] == q;
    size_t cap = 0;
    t->str.s = NULL;
    t->str.len = 0;
    if (str_push(&t->str, &cap, 'x') != 0)
        goto nomem;
    t->str.len = 0;
    t->str.s[0] = '\0';
    r->pos += triple ? 3 : 1;
    for (;;) {
        if (r->pos >= r->len || (!triple && r->text[r->pos] == '\n')) {
            fail_at(r, t->at, "unterminated string");
            return -1;
        }
        char c = r->text[r->pos];
        if (c == q &&
            (!triple || (r->pos + 2 < r->len && r->text[r->pos + 1] == q &&
                         r->text[r->pos + 2] == q))) {
            r->pos += triple ? 3 : 1;
            break;
        }
        if (c == '\\') {
            int rc = read_escape(r, &t->str, &cap);
            if (rc == 1) {
                fail_at(r, t->at, "unterminated string");
                return -1;
            }
            if (rc == -2)
                goto nomem;
            if (rc < 0)
                return -1;
            continue;
        }
        if (str_push(&t->str, &cap, c) != 0)
            goto nomem;
        r->pos++;
    }
    t->len = r->pos - t->at;
    return 0;
nomem:
    fail_at(r, t->at, "out of memory");
    return -1;
}

static void unexpected_char(struct reader *r)
{
    unsigned char c = (unsigned char)r->text[r->pos];
    if (c < 0x20 || c == 0x7f) {
        fail_at(r, r->pos, "unexpected character '\\x%02x'", c);
        return;
    }
    /* a whole UTF-8 character (the file was checked to be valid) */
    size_t n = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
    if (r->pos + n > r->len)
        n = r->len - r->pos;
    fail_at(r, r->pos, "unexpected character '%.*s'", (int)n, r->text + r->pos);
}

/* Reads the next token into r->tok. -1 on an error. */
static int next_token(struct reader *r)
{
    free(r->tok.str.s);
    memset(&r->tok, 0, sizeof(r->tok));
    skip_blanks(r);
    struct token *t = &r->tok;
    t->at = r->pos;
    if (r->pos >= r->len) {
        t->kind = T_EOF;
        return 0;
    }
    unsigned char c = (unsigned char)r->text[r->pos];
    static const char punct[] = "()[],=;";
    static const enum tok_kind kinds[] = {
        T_LPAREN, T_RPAREN, T_LBRACK, T_RBRACK, T_COMMA, T_EQ, T_SEMI};
    const char *p = c ? strchr(punct, c) : NULL;
    if (p != NULL) {
        t->kind = kinds[p - punct];
        t->len = 1;
        r->pos++;
        return 0;
    }
    if (is_name_start(c)) {
        while (r->pos < r->len && is_name_char((unsigned char)r->text[r->pos]))
            r->pos++;
        t->kind = T_NAME;
        t->len = r->pos - t->at;
        return 0;
    }
    if (c == '"' || c == '\'') {
        t->kind = T_STRING;
        return read_string(r, t);
    }
    unexpected_char(r);
    return -1;
}

/* ---- Parsing ---- */

/* "expected 'X', found 'Y'" for the current token (or the end of file
 * inside a call or list: `closer` is ')' or ']', 0 outside both). */
static void expected(struct reader *r, const char *what, char closer)
{
    const struct token *t = &r->tok;
    if (t->kind == T_EOF) {
        if (closer)
            fail_at(r, r->len, "unexpected end of file, expected '%c'", closer);
        else
            fail_at(r, r->len, "expected %s, found end of file", what);
        return;
    }
    size_t n = t->len > 20 ? 20 : t->len;
    fail_at(r, t->at, "expected %s, found '%.*s'", what, (int)n,
            r->text + t->at);
}

static void value_free(struct value *v)
{
    free(v->str.s);
    for (size_t i = 0; i < v->nitems; i++)
        value_free(&v->items[i]);
    free(v->items);
    memset(v, 0, sizeof(*v));
}

/* A value at the current token. Lists nest at most this deep. */
enum { MAX_LIST_DEPTH = 8 };

static int parse_value(struct reader *r, struct value *v, int depth)
{
    memset(v, 0, sizeof(*v));
    v->at = r->tok.at;
    if (r->tok.kind == T_STRING) {
        v->str = r->tok.str;
        r->tok.str.s = NULL;
        v->len = r->tok.len;
        return next_token(r);
    }
    if (r->tok.kind != T_LBRACK) {
        expected(r, "a value", depth > 0 ? ']' : ')');
        return -1;
    }
    if (depth >= MAX_LIST_DEPTH) {
        fail_at(r, r->tok.at, "lists nested too deep");
        return -1;
    }
    v->is_list = true;
    if (next_token(r) != 0)
        return -1;
    size_t cap = 0;
    while (r->tok.kind != T_RBRACK) {
        if (r->tok.kind == T_EOF) {
            expected(r, "']'", ']');
            return -1;
        }
        if (v->nitems == cap) {
            cap = cap ? cap * 2 : 4;
            struct value *p = realloc(v->items, cap * sizeof(*p));
            if (p == NULL) {
                fail_at(r, r->tok.at, "out of memory");
                return -1;
            }
            v->items = p;
        }
        int rc = parse_value(r, &v->items[v->nitems], depth + 1);
        v->nitems++;
        if (rc != 0)
            return -1;
        if (r->tok.kind == T_COMMA) {
            if (next_token(r) != 0)
                return -1;
        } else if (r->tok.kind != T_RBRACK) {
            expected(r, "','", ']');
            return -1;
        }
    }
    v->len = r->tok.at + 1 - v->at;
    return next_token(r);
}

/* ---- Calls ---- */

enum { MAX_ARGS = 8 };

struct call {
    size_t name_at;
    char name[32];
    struct {
        char name[32];
        size_t at;
        struct value v;
    } args[MAX_ARGS];
    size_t nargs;
};

static const char *const prefix_rule_args[] = {
    "pattern", "decision", "justification", "match", "not_match", NULL};
static const char *const host_executable_args[] = {"name", "paths", NULL};

static bool in_list(const char *const *list, const char *name)
{
    for (; *list; list++)
        if (strcmp(*list, name) == 0)
            return true;
    return false;
}

static struct value *call_arg(struct call *c, const char *name)
{
    for (size_t i = 0; i < c->nargs; i++)
        if (strcmp(c->args[i].name, name) == 0)
            return &c->args[i].v;
    return NULL;
}

static void call_free(struct call *c)
{
    for (size_t i = 0; i < c->nargs; i++)
        value_free(&c->args[i].v);
    c->nargs = 0;
}

/* The keyword arguments of a call whose '(' is the current token. */
static int parse_args(struct reader *r, struct call *c,
                      const char *const *known)
{
    if (next_token(r) != 0)
        return -1;
    while (r->tok.kind != T_RPAREN) {
        if (r->tok.kind == T_STRING || r->tok.kind == T_LBRACK) {
            fail_at(r, r->tok.at, "positional argument: write NAME = VALUE");
            return -1;
        }
        if (r->tok.kind != T_NAME) {
            expected(r, "')'", ')');
            return -1;
        }
        size_t at = r->tok.at, nlen = r->tok.len;
        char name[32];
        snprintf(name, sizeof(name), "%.*s", (int)(nlen < 31 ? nlen : 31),
                 r->text + at);
        if (known != NULL && (nlen > 31 || !in_list(known, name))) {
            fail_at(r, at, "unknown argument %.*s of %s", (int)nlen,
                    r->text + at, c->name);
            return -1;
        }
        for (size_t i = 0; i < c->nargs; i++) {
            if (strcmp(c->args[i].name, name) == 0) {
                fail_at(r, at, "duplicate argument %s", name);
                return -1;
            }
        }
        if (next_token(r) != 0)
            return -1;
        if (r->tok.kind != T_EQ) {
            if (r->tok.kind == T_STRING || r->tok.kind == T_LBRACK ||
                r->tok.kind == T_COMMA || r->tok.kind == T_RPAREN) {
                if (r->tok.kind == T_COMMA || r->tok.kind == T_RPAREN) {
                    fail_at(r, at, "positional argument: write NAME = VALUE");
                    return -1;
                }
            }
            expected(r, "'='", ')');
            return -1;
        }
        if (next_token(r) != 0)
            return -1;
        struct value v;
        int rc = parse_value(r, &v, 0);
        if (c->nargs < MAX_ARGS) {
            snprintf(c->args[c->nargs].name, sizeof(c->args[0].name), "%s",
                     name);
            c->args[c->nargs].at = at;
            c->args[c->nargs].v = v;
            c->nargs++;
        } else {
            value_free(&v);
            if (rc == 0)
                fail_at(r, at, "too many arguments");
            return -1;
        }
        if (rc != 0)
            return -1;
        if (r->tok.kind == T_COMMA) {
            if (next_token(r) != 0)
                return -1;
        } else if (r->tok.kind != T_RPAREN) {
            expected(r, "','", ')');
            return -1;
        }
    }
    return next_token(r);
}

/* ---- Meaning ---- */

static const char *value_text(const struct reader *r, const struct value *v,
                              int *len)
{
    *len = (int)v->len;
    return r->text + v->at;
}

static int add_rule(struct bsh_policy *p, struct pol_rule *rule)
{
    if (p->nrules == p->cap_rules) {
        size_t cap = p->cap_rules ? p->cap_rules * 2 : 16;
        struct pol_rule **v =
            realloc(p->rules, cap * sizeof(struct pol_rule *));
        if (v == NULL)
            return -1;
        p->rules = v;
        p->cap_rules = cap;
    }
    p->rules[p->nrules++] = rule;
    return 0;
}

void pol_rule_free(struct pol_rule *rule);

void pol_rule_free(struct pol_rule *rule)
{
    if (rule == NULL)
        return;
    for (size_t i = 0; i < rule->npattern; i++) {
        for (size_t j = 0; j < rule->pattern[i].n; j++)
            free(rule->pattern[i].v[j].s);
        free(rule->pattern[i].v);
        free(rule->pattern[i].c);
    }
    free(rule->pattern);
    free((void *)rule->pub.alternatives);
    free((void *)rule->pub.pattern);
    free((void *)rule->pub.justification);
    free(rule);
}

static int take_string(struct pol_str *dst, struct value *v)
{
    *dst = v->str;
    v->str.s = NULL;
    if (dst->s == NULL) {
        dst->s = strdup("");
        dst->len = 0;
    }
    return dst->s == NULL ? -1 : 0;
}

/* The pattern value into rule->pattern; -1 with the error set. */
static int build_pattern(struct reader *r, struct pol_rule *rule,
                         struct value *pv)
{
    if (!pv->is_list || pv->nitems == 0) {
        fail_at(r, pv->at, "pattern must be a non-empty list");
        return -1;
    }
    for (size_t i = 0; i < pv->nitems; i++) {
        struct value *e = &pv->items[i];
        bool ok = !e->is_list || e->nitems > 0;
        for (size_t j = 0; ok && e->is_list && j < e->nitems; j++)
            ok = !e->items[j].is_list;
        if (!ok) {
            fail_at(r, e->at,
                    "pattern element must be a string or a non-empty list of "
                    "strings");
            return -1;
        }
    }
    rule->pattern = calloc(pv->nitems, sizeof(*rule->pattern));
    size_t *counts = calloc(pv->nitems, sizeof(*counts));
    const char *const **pat = calloc(pv->nitems, sizeof(*pat));
    rule->pub.alternatives = counts;
    rule->pub.pattern = pat;
    if (rule->pattern == NULL || counts == NULL || pat == NULL)
        return -2;
    rule->npattern = pv->nitems;
    rule->pub.pattern_len = pv->nitems;
    for (size_t i = 0; i < pv->nitems; i++) {
        struct value *e = &pv->items[i];
        size_t n = e->is_list ? e->nitems : 1;
        struct pol_alts *a = &rule->pattern[i];
        a->v = calloc(n, sizeof(*a->v));
        a->c = calloc(n, sizeof(*a->c));
        if (a->v == NULL || a->c == NULL)
            return -2;
        for (size_t j = 0; j < n; j++) {
            if (take_string(&a->v[j], e->is_list ? &e->items[j] : e) != 0)
                return -2;
            a->c[j] = a->v[j].s;
            a->n++;
        }
        counts[i] = n;
        pat[i] = a->c;
    }
    return 0;
}

bool pol_pattern_matches_exactly(const struct pol_rule *rule,
                                 const struct pol_str *words, size_t n)
{
    if (n < rule->npattern)
        return false;
    for (size_t i = 0; i < rule->npattern; i++) {
        bool any = false;
        for (size_t j = 0; j < rule->pattern[i].n && !any; j++) {
            const struct pol_str *a = &rule->pattern[i].v[j];
            any =
                a->len == words[i].len && memcmp(a->s, words[i].s, a->len) == 0;
        }
        if (!any)
            return false;
    }
    return true;
}

/* Checks each example of `list` (match or not_match) against the rule. */
static int check_examples(struct reader *r, struct pol_rule *rule,
                          struct value *list, bool should_match,
                          struct pol_load_info *info)
{
    if (list == NULL)
        return 0;
    if (!list->is_list) {
        fail_at(r, list->at, "%s must be a list of examples",
                should_match ? "match" : "not_match");
        return -1;
    }
    for (size_t i = 0; i < list->nitems; i++) {
        struct value *e = &list->items[i];
        int tlen;
        const char *text = value_text(r, e, &tlen);
        if (!e->is_list &&
            e->str.s != NULL) { /* a string: shown as its value */
            text = e->str.s;
            tlen = (int)e->str.len;
        }
        struct pol_str *words = NULL;
        size_t n = 0;
        bool owned = false;
        if (e->is_list) {
            for (size_t j = 0; j < e->nitems; j++) {
                if (e->items[j].is_list) {
                    fail_at(r, e->at, "example is not a plain command: %.*s",
                            tlen, text);
                    return -1;
                }
            }
            words = calloc(e->nitems ? e->nitems : 1, sizeof(*words));
            if (words == NULL)
                return -2;
            for (size_t j = 0; j < e->nitems; j++)
                words[j] = e->items[j].str;
            n = e->nitems;
        } else {
            if (pol_example_words(e->str.s ? e->str.s : "", e->str.len, &words,
                                  &n) != 0) {
                if (n == SIZE_MAX)
                    return -2;
                fail_at(r, e->at, "example is not a plain command: %.*s", tlen,
                        text);
                return -1;
            }
            owned = true;
        }
        bool matches = pol_pattern_matches_exactly(rule, words, n);
        if (owned)
            pol_words_free(words, n);
        else
            free(words);
        if (matches != should_match) {
            fail_at(r, e->at,
                    should_match ? "example does not match this rule: %.*s"
                                 : "not_match example matches this rule: %.*s",
                    tlen, text);
            return -1;
        }
        info->examples++;
    }
    return 0;
}

static void warn_at(const struct reader *r, struct pol_load_info *info,
                    size_t at, const char *what)
{
    if (info->warn == NULL)
        return;
    struct pol_error e;
    struct reader tmp = *r;
    tmp.failed = false;
    tmp.err = &e;
    fail_at(&tmp, at, "%s", what);
    /* "policy: NAME:L:C: what" */
    info->warn(info->warn_data, e.text);
}

static int finish_prefix_rule(struct reader *r, struct bsh_policy *p,
                              struct call *c, struct pol_load_info *info)
{
    struct value *pattern = call_arg(c, "pattern");
    if (pattern == NULL) {
        fail_at(r, c->name_at, "prefix_rule needs pattern");
        return -1;
    }
    struct pol_rule *rule = calloc(1, sizeof(*rule));
    if (rule == NULL)
        return -2;
    int rc = build_pattern(r, rule, pattern);
    const char *decision = "allow";
    struct value *dv = call_arg(c, "decision");
    if (rc == 0 && dv != NULL) {
        const char *d = dv->is_list ? NULL : dv->str.s;
        if (d != NULL && (strcmp(d, "allow") == 0 || strcmp(d, "prompt") == 0 ||
                          strcmp(d, "forbidden") == 0)) {
            decision = strcmp(d, "allow") == 0    ? "allow"
                       : strcmp(d, "prompt") == 0 ? "prompt"
                                                  : "forbidden";
        } else {
            int tlen;
            const char *text = value_text(r, dv, &tlen);
            if (!dv->is_list && d != NULL) {
                text = d;
                tlen = (int)strlen(d);
            }
            fail_at(r, dv->at,
                    "decision must be \"allow\", \"prompt\" or \"forbidden\", "
                    "not \"%.*s\"",
                    tlen, text);
            rc = -1;
        }
    }
    struct value *jv = call_arg(c, "justification");
    if (rc == 0 && jv != NULL) {
        if (jv->is_list) {
            fail_at(r, jv->at, "justification must be a string");
            rc = -1;
        } else {
            struct pol_str j;
            if (take_string(&j, jv) != 0)
                rc = -2;
            else
                rule->pub.justification = j.s;
        }
    }
    if (rc == 0)
        rc = check_examples(r, rule, call_arg(c, "match"), true, info);
    if (rc == 0)
        rc = check_examples(r, rule, call_arg(c, "not_match"), false, info);
    if (rc != 0) {
        pol_rule_free(rule);
        return rc;
    }
    info->rules++;
    if (dv == NULL)
        warn_at(r, info, c->name_at,
                "warning: prefix_rule without decision: it allows (codex's "
                "default); write decision = \"allow\"");
    rule->pub.decision = decision;
    rule->pub.file = p->files[p->nfiles - 1];
    position(r, c->name_at, &rule->pub.line, &rule->pub.column);
    if (info->untrusted && strcmp(decision, "allow") == 0) {
        warn_at(r, info, c->name_at,
                "allow rule ignored in an untrusted project file");
        pol_rule_free(rule);
        return 0;
    }
    if (add_rule(p, rule) != 0) {
        pol_rule_free(rule);
        return -2;
    }
    return 0;
}

/* `~/x` → $HOME/x (the loading user's home). */
static char *expand_home(const char *path)
{
    if (strncmp(path, "~/", 2) != 0)
        return strdup(path);
    const char *home = getenv("HOME");
    struct passwd pwd, *pw = NULL;
    char pwbuf[4096]; // cppcheck-suppress variableScope ; home points in
    if (home == NULL || *home != '/') { /* getpwuid_r: loads may be threads */
        if (getpwuid_r(getuid(), &pwd, pwbuf, sizeof(pwbuf), &pw) != 0)
            pw = NULL;
        home = pw != NULL ? pw->pw_dir : "/";
    }
    size_t n = strlen(home) + strlen(path);
    char *out = malloc(n);
    if (out != NULL)
        snprintf(out, n, "%s%s", home, path + 1);
    return out;
}

static int finish_host_executable(struct reader *r, struct bsh_policy *p,
                                  struct call *c)
{
    struct value *name = call_arg(c, "name");
    struct value *paths = call_arg(c, "paths");
    if (name == NULL) {
        fail_at(r, c->name_at, "host_executable needs name");
        return -1;
    }
    if (paths == NULL) {
        fail_at(r, c->name_at, "host_executable needs paths");
        return -1;
    }
    if (name->is_list || name->str.len == 0 ||
        strchr(name->str.s, '/') != NULL) {
        fail_at(r, name->at, "host_executable name must be a command name");
        return -1;
    }
    if (!paths->is_list) {
        fail_at(r, paths->at,
                "host_executable paths must be a list of strings");
        return -1;
    }
    for (size_t i = 0; i < paths->nitems; i++) {
        struct value *e = &paths->items[i];
        if (e->is_list) {
            fail_at(r, e->at,
                    "host_executable paths must be a list of strings");
            return -1;
        }
        if (e->str.s == NULL ||
            (e->str.s[0] != '/' && strncmp(e->str.s, "~/", 2) != 0)) {
            fail_at(
                r, e->at,
                "host_executable path must be absolute or start with ~/: %s",
                e->str.s ? e->str.s : "");
            return -1;
        }
    }
    if (p->nhosts == p->cap_hosts) {
        size_t cap = p->cap_hosts ? p->cap_hosts * 2 : 4;
        struct pol_host *v = realloc(p->hosts, cap * sizeof(*v));
        if (v == NULL)
            return -2;
        p->hosts = v;
        p->cap_hosts = cap;
    }
    struct pol_host *h = &p->hosts[p->nhosts];
    memset(h, 0, sizeof(*h));
    h->name = strdup(name->str.s);
    h->paths = calloc(paths->nitems ? paths->nitems : 1, sizeof(char *));
    if (h->name == NULL || h->paths == NULL) {
        free(h->name);
        free(h->paths);
        return -2;
    }
    p->nhosts++;
    for (size_t i = 0; i < paths->nitems; i++) {
        h->paths[i] = expand_home(paths->items[i].str.s);
        if (h->paths[i] == NULL)
            return -2;
        h->npaths++;
    }
    return 0;
}

/* One call, its name the current token. */
static int parse_call(struct reader *r, struct bsh_policy *p,
                      struct pol_load_info *info)
{
    struct call c;
    memset(&c, 0, sizeof(c));
    c.name_at = r->tok.at;
    size_t nlen = r->tok.len;
    snprintf(c.name, sizeof(c.name), "%.*s", (int)(nlen < 31 ? nlen : 31),
             r->text + r->tok.at);
    const char *const *known;
    if (nlen < 31 && strcmp(c.name, "prefix_rule") == 0) {
        known = prefix_rule_args;
    } else if (nlen < 31 && strcmp(c.name, "host_executable") == 0) {
        known = host_executable_args;
    } else if (nlen < 31 && strcmp(c.name, "network_rule") == 0) {
        known = NULL;
    } else {
        fail_at(r, c.name_at, "unknown function %.*s", (int)nlen,
                r->text + c.name_at);
        return -1;
    }
    if (next_token(r) != 0)
        return -1;
    if (r->tok.kind != T_LPAREN) {
        expected(r, "'('", 0);
        return -1;
    }
    int rc = parse_args(r, &c, known);
    if (rc == 0) {
        if (known == prefix_rule_args) {
            rc = finish_prefix_rule(r, p, &c, info);
        } else if (known == host_executable_args && info->untrusted) {
            /* it widens allow rules: an untrusted file only tightens */
            warn_at(r, info, c.name_at,
                    "host_executable ignored in an untrusted project file");
        } else if (known == host_executable_args) {
            rc = finish_host_executable(r, p, &c);
        } else {
            warn_at(r, info, c.name_at,
                    "warning: network_rule ignored: bsh does not apply network "
                    "rules");
        }
        if (rc == -2)
            fail_at(r, c.name_at, "out of memory");
    }
    call_free(&c);
    return rc == 0 ? 0 : -1;
}

/* The byte offset of the first invalid UTF-8 sequence, or SIZE_MAX. */
static size_t utf8_invalid_at(const unsigned char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        unsigned c = s[i];
        size_t n;
        uint32_t cp;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xc2 && c <= 0xdf) {
            n = 1;
            cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            n = 2;
            cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            n = 3;
            cp = c & 0x07;
        } else {
            return i;
        }
        for (size_t k = 1; k <= n; k++) {
            if (i + k >= len || (s[i + k] & 0xc0) != 0x80)
                return i;
            cp = (cp << 6) | (s[i + k] & 0x3f);
        }
        if ((n == 2 && cp < 0x800) ||
            (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return i;
        i += n + 1;
    }
    return SIZE_MAX;
}

static int add_file_name(struct bsh_policy *p, const char *name)
{
    char **v = realloc(p->files, (p->nfiles + 1) * sizeof(*v));
    if (v == NULL)
        return -1;
    p->files = v;
    v[p->nfiles] = strdup(name);
    if (v[p->nfiles] == NULL)
        return -1;
    p->nfiles++;
    return 0;
}

int pol_rules_parse(struct bsh_policy *p, const char *text, size_t len,
                    const char *name, struct pol_load_info *info,
                    struct pol_error *err)
{
    size_t bad = utf8_invalid_at((const unsigned char *)text, len);
    if (bad != SIZE_MAX) {
        snprintf(err->text, sizeof(err->text),
                 "policy: %s: not valid UTF-8 at byte %zu", name, bad);
        return -1;
    }
    if (add_file_name(p, name) != 0) {
        snprintf(err->text, sizeof(err->text), "policy: %s: out of memory",
                 name);
        return -1;
    }
    struct reader r = {
        .text = text, .len = len, .name = name, .err = err, .mark_line = 1};
    int rc = next_token(&r);
    while (rc == 0 && r.tok.kind != T_EOF) {
        if (r.tok.kind == T_SEMI) {
            rc = next_token(&r);
        } else if (r.tok.kind == T_NAME) {
            rc = parse_call(&r, p, info);
        } else {
            expected(&r, "a function call", 0);
            rc = -1;
        }
    }
    free(r.tok.str.s);
    return rc == 0 && !r.failed ? 0 : -1;
}
