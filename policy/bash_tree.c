/* SPDX-License-Identifier: MIT */
/* The walk: see bash_tree.h. */
#include "bash_tree.h"
#include "command_effects.h"
#include "misread.h"
#include "node_kind.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_bash(void);

/* ---- A growing byte string ---- */

struct buf {
    char *s;
    size_t len, cap;
    bool failed;
};

static void buf_add(struct buf *b, const char *p, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 32;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (s == NULL) {
            b->failed = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static char *dup_bytes(const char *p, size_t n)
{
    char *s = malloc(n + 1);
    if (s != NULL) {
        memcpy(s, p, n);
        s[n] = '\0';
    }
    return s;
}

/* ---- $'...' ---- */

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static size_t put_utf8(char *out, uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

size_t pol_ansi_c_decode(const char *s, size_t len, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '\\' || i + 1 >= len) {
            out[o++] = s[i];
            continue;
        }
        char c = s[++i];
        const char *simple = "abeEfnrtv\\'\"?";
        const char *vals = "\a\b\x1b\x1b\f\n\r\t\v\\'\"?";
        const char *p = strchr(simple, c);
        if (p != NULL && c != '\0') {
            out[o++] = vals[p - simple];
        } else if (c >= '0' && c <= '7') {
            unsigned v = 0;
            size_t k = 0;
            while (k < 3 && i < len && s[i] >= '0' && s[i] <= '7') {
                v = v * 8 + (unsigned)(s[i] - '0');
                i++;
                k++;
            }
            i--;
            out[o++] = (char)(v & 0xff);
        } else if (c == 'x' || c == 'u' || c == 'U') {
            size_t max = c == 'x' ? 2 : c == 'u' ? 4 : 8;
            uint32_t v = 0;
            size_t k = 0;
            while (k < max && i + 1 < len && hexval(s[i + 1]) >= 0) {
                v = v * 16 + (uint32_t)hexval(s[++i]);
                k++;
            }
            if (k == 0) {
                out[o++] = '\\';
                out[o++] = c;
            } else if (c == 'x') {
                out[o++] = (char)v;
            } else {
                /* at most as long as what it came from (\uHHHH: 6 bytes) */
                o += put_utf8(out + o, v > 0x10ffff ? 0xfffd : v);
            }
        } else if (c == 'c' && i + 1 < len) {
            out[o++] = (char)(s[++i] & 0x1f);
        } else {
            out[o++] = '\\';
            out[o++] = c;
        }
    }
    out[o] = '\0';
    return strlen(out) < o ? strlen(out) : o; /* up to a NUL, as bash */
}

/* ---- Words ---- */

struct word_builder {
    const char *text;
    struct buf value;
    struct buf unquoted; /* the unquoted bytes, for brace and glob checks */
    bool dynamic, quoted;
};

static bool type_is(TSNode n, const char *type)
{
    return strcmp(ts_node_type(n), type) == 0;
}

/* Unquoted text: a backslash keeps the next byte (and with a newline,
 * drops both). */
static void add_unquoted(struct word_builder *w, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\\') {
            w->quoted = true;
            if (i + 1 < n) {
                i++;
                if (p[i] != '\n')
                    buf_add(&w->value, p + i, 1);
                buf_add(&w->unquoted, "_", 1); /* escaped: not special */
            }
            continue;
        }
        if (p[i] == '$')
            w->dynamic = true; /* a `$` of its own: $"..." read apart */
        buf_add(&w->value, p + i, 1);
        buf_add(&w->unquoted, p + i, 1);
    }
}

/* Text inside double quotes: \ before $ ` " \ or a newline is removed. */
static void add_double_quoted(struct word_builder *w, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\\' && i + 1 < n && strchr("$`\"\\\n", p[i + 1]) != NULL) {
            i++;
            if (p[i] != '\n')
                buf_add(&w->value, p + i, 1);
            continue;
        }
        buf_add(&w->value, p + i, 1);
    }
}

static void add_node(struct word_builder *w, TSNode n, int depth);

/* The children of a string or concatenation, with the bytes between them
 * (a string's literal text) added as `gap` says. */
static void add_parts(struct word_builder *w, TSNode n, size_t from, size_t to,
                      bool in_string, int depth)
{
    TSTreeCursor c = ts_tree_cursor_new(n);
    size_t at = from;
    if (ts_tree_cursor_goto_first_child(&c)) {
        do {
            TSNode k = ts_tree_cursor_current_node(&c);
            size_t ks = ts_node_start_byte(k), ke = ts_node_end_byte(k);
            if (ks < from || ke > to || !ts_node_is_named(k))
                continue;
            enum pol_kind kk = pol_kind_of(k);
            if (in_string && kk == PK_STRING_CONTENT)
                continue; /* literal: added with the gaps */
            if (ks > at) {
                if (in_string)
                    add_double_quoted(w, w->text + at, ks - at);
                else
                    add_unquoted(w, w->text + at, ks - at);
            }
            if (in_string && !pol_kind_expands(kk))
                w->dynamic = true; /* nothing else belongs in a string */
            else
                add_node(w, k, depth + 1);
            at = ke;
        } while (ts_tree_cursor_goto_next_sibling(&c));
    }
    ts_tree_cursor_delete(&c);
    if (to > at) {
        if (in_string)
            add_double_quoted(w, w->text + at, to - at);
        else
            add_unquoted(w, w->text + at, to - at);
    }
}

static void add_node(struct word_builder *w, TSNode n, int depth)
{
    enum pol_kind k = pol_kind_of(n);
    size_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
    switch (depth > 4 ? PK_OTHER : k) {
    case PK_WORD:
    case PK_NUMBER:
    case PK_EXTGLOB:
    case PK_VARIABLE_NAME:
    case PK_SPECIAL_VARIABLE:
    case PK_TEST_OPERATOR:
    case PK_REGEX:
        add_unquoted(w, w->text + s, e - s);
        if (k == PK_EXTGLOB)
            buf_add(&w->unquoted, "*", 1);
        break;
    case PK_RAW_STRING:
        w->quoted = true;
        if (e - s >= 2)
            buf_add(&w->value, w->text + s + 1, e - s - 2);
        break;
    case PK_STRING:
    case PK_TRANSLATED: {
        w->quoted = true;
        size_t open = k == PK_STRING ? 1 : 2;
        if (e - s >= open + 1)
            add_parts(w, n, s + open, e - 1, true, depth);
        break;
    }
    case PK_ANSI_C:
        w->quoted = true;
        if (e - s >= 3) {
            char *out = malloc(e - s);
            if (out == NULL) {
                w->value.failed = true;
                return;
            }
            size_t len = pol_ansi_c_decode(w->text + s + 2, e - s - 3, out);
            buf_add(&w->value, out, len);
            free(out);
        }
        break;
    case PK_CONCATENATION:
        add_parts(w, n, s, e, false, depth);
        break;
    default: /* an expansion, or anything else: not known statically */
        w->dynamic = true;
        break;
    }
}

/* Unquoted brace expansion: `{` then `,` or `..` then `}`. */
static bool has_brace_expansion(const char *u, size_t n)
{
    const char *open = memchr(u, '{', n);
    if (open == NULL)
        return false;
    const char *close = memchr(open, '}', n - (size_t)(open - u));
    if (close == NULL)
        return false;
    for (const char *p = open; p < close; p++)
        if (*p == ',' || (*p == '.' && p + 1 < close && p[1] == '.'))
            return true;
    return false;
}

static bool has_glob(const char *u, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (u[i] == '*' || u[i] == '?' || u[i] == '[')
            return true;
    return false;
}

/* The word of node `n`; 0, or -1 when memory ran out. */
static int make_word(const char *text, TSNode n, bool command_position,
                     struct pol_word *out)
{
    struct word_builder w = {.text = text};
    buf_add(&w.value, "", 0);
    buf_add(&w.unquoted, "", 0);
    add_node(&w, n, 0);
    if (has_brace_expansion(w.unquoted.s ? w.unquoted.s : "", w.unquoted.len))
        w.dynamic = true;
    out->glob = has_glob(w.unquoted.s ? w.unquoted.s : "", w.unquoted.len);
    if (command_position && out->glob)
        w.dynamic = true;
    bool failed = w.value.failed || w.unquoted.failed;
    free(w.unquoted.s);
    if (failed) {
        free(w.value.s);
        return -1;
    }
    out->dynamic = w.dynamic;
    out->quoted = w.quoted;
    if (w.dynamic) {
        free(w.value.s);
        size_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
        out->value = dup_bytes(text + s, e - s);
        out->len = e - s;
        return out->value == NULL ? -1 : 0;
    }
    out->value = w.value.s;
    out->len = w.value.len;
    return 0;
}

/* ---- Simple commands ---- */

struct walk {
    const char *text;
    size_t len;
    struct pol_script *out;
    bool nomem;
    /* the command a redirected statement's here-document feeds */
    TSNode stdin_body;
    enum pol_stdin stdin_kind;
    char *stdin_text;
    size_t stdin_len;
    bool integer; /* a declaration gives a variable the integer attribute */
};

static struct pol_simple *new_simple(struct walk *wk, TSNode n)
{
    struct pol_script *s = wk->out;
    if (s->ncmds == s->cap_cmds) {
        size_t cap = s->cap_cmds ? s->cap_cmds * 2 : 8;
        struct pol_simple *v = realloc(s->cmds, cap * sizeof(*v));
        if (v == NULL) {
            wk->nomem = true;
            return NULL;
        }
        s->cmds = v;
        s->cap_cmds = cap;
    }
    struct pol_simple *c = &s->cmds[s->ncmds++];
    memset(c, 0, sizeof(*c));
    c->start = ts_node_start_byte(n);
    c->end = ts_node_end_byte(n);
    return c;
}

static void add_word(struct walk *wk, struct pol_simple *c,
                     const struct pol_word *w)
{
    /* room doubles: many words, few reallocations (cap: a power of 2) */
    size_t n = c->nwords;
    if (n == 0 || (n >= 4 && (n & (n - 1)) == 0)) {
        size_t cap = n == 0 ? 4 : n * 2;
        struct pol_word *v = realloc(c->words, cap * sizeof(*v));
        if (v == NULL) {
            free(w->value);
            wk->nomem = true;
            return;
        }
        c->words = v;
    }
    c->words[c->nwords++] = *w;
}

static void add_node_word(struct walk *wk, struct pol_simple *c, TSNode n,
                          bool command_position)
{
    struct pol_word w;
    if (make_word(wk->text, n, command_position, &w) != 0) {
        wk->nomem = true;
        return;
    }
    add_word(wk, c, &w);
}

static void hidden_assignments(struct walk *wk, TSNode n, bool arithmetic,
                               struct pol_simple *into);
static bool ident_char(char c, bool first);

/* Whether assigning `value` (a node, maybe null: empty) to listed `name`
 * is harmless all the same (pol_listed_assignment()): only a value with
 * no expansion is known. */
static bool plain_value(const struct walk *wk, TSNode value, const char *name)
{
    char text[64];
    size_t o = 0;
    if (!ts_node_is_null(value)) {
        size_t s = ts_node_start_byte(value), e = ts_node_end_byte(value);
        for (size_t i = s; i < e; i++) {
            char ch = wk->text[i];
            if (ch == '$' || ch == '`' || ch == '\\' || o + 1 >= sizeof(text))
                return false;
            if (ch != '\'' && ch != '"')
                text[o++] = ch;
        }
    }
    text[o] = '\0';
    return !pol_listed_assignment(name, text);
}

static void add_assign_name(struct walk *wk, struct pol_simple *c,
                            TSNode assignment)
{
    TSNode name = ts_node_child_by_field_name(assignment, "name", 4);
    if (ts_node_is_null(name))
        return;
    if (type_is(name, "subscript")) {
        size_t ss = ts_node_start_byte(name);
        /* a['$(id)']=1: the subscript is arithmetic, its string run */
        if (pol_quoted_subscript(wk->text + ss, ts_node_end_byte(name) - ss))
            wk->out->error = "eval of a dynamic string";
        TSNode inner = ts_node_child_by_field_name(name, "name", 4);
        if (!ts_node_is_null(inner))
            name = inner;
    }
    size_t s = ts_node_start_byte(name), e = ts_node_end_byte(name);
    TSNode value = ts_node_child_by_field_name(assignment, "value", 5);
    if (!ts_node_is_null(value)) {
        hidden_assignments(wk, value, true, c);
        size_t vs = ts_node_start_byte(value);
        /* x='a[$(id)]': evaluated if x has the integer attribute */
        if (pol_quoted_subscript(wk->text + vs, ts_node_end_byte(value) - vs))
            wk->out->error = "eval of a dynamic string";
    }
    char *d = dup_bytes(wk->text + s, e - s);
    if (d != NULL && pol_listed_name(d) && plain_value(wk, value, d)) {
        free(d); /* LANG=C.UTF-8: not a listed assignment */
        return;
    }
    char **v = realloc(c->assigns, (c->nassigns + 1) * sizeof(*v));
    if (v == NULL || d == NULL) {
        if (v != NULL)
            c->assigns = v;
        free(d);
        wk->nomem = true;
        return;
    }
    c->assigns = v;
    v[c->nassigns++] = d;
}

/* `NAME=VALUE` of a declaration as one word: NAME, `=` or `+=`, VALUE. */
static void add_assignment_word(struct walk *wk, struct pol_simple *c, TSNode a)
{
    TSNode value = ts_node_child_by_field_name(a, "value", 5);
    size_t s = ts_node_start_byte(a), e = ts_node_end_byte(a);
    if (ts_node_is_null(value)) {
        struct pol_word w = {.value = dup_bytes(wk->text + s, e - s),
                             .len = e - s};
        if (w.value == NULL)
            wk->nomem = true;
        else
            add_word(wk, c, &w);
        return;
    }
    struct pol_word v;
    if (make_word(wk->text, value, false, &v) != 0) {
        wk->nomem = true;
        return;
    }
    size_t head = ts_node_start_byte(value) - s;
    struct buf b = {0};
    buf_add(&b, wk->text + s, head);
    if (v.dynamic)
        buf_add(&b, wk->text + s + head, e - s - head);
    else
        buf_add(&b, v.value, v.len);
    free(v.value);
    if (b.failed) {
        free(b.s);
        wk->nomem = true;
        return;
    }
    struct pol_word w = {
        .value = b.s, .len = b.len, .dynamic = v.dynamic, .quoted = v.quoted};
    add_word(wk, c, &w);
}

static void attach_stdin(struct walk *wk, struct pol_simple *c, TSNode n)
{
    if (ts_node_is_null(wk->stdin_body) || !ts_node_eq(wk->stdin_body, n))
        return;
    c->stdin_kind = wk->stdin_kind;
    c->stdin_text = wk->stdin_text;
    c->stdin_len = wk->stdin_len;
    wk->stdin_text = NULL;
    wk->stdin_body = (TSNode){0};
}

/* A here-string's word: a script when static. */
static void herestring_stdin(struct walk *wk, TSNode redirect,
                             enum pol_stdin *kind, char **text, size_t *len)
{
    TSNode value = ts_node_named_child(redirect, 0);
    *kind = POL_STDIN_OTHER;
    if (ts_node_is_null(value))
        return;
    struct pol_word w;
    if (make_word(wk->text, value, false, &w) != 0) {
        wk->nomem = true;
        return;
    }
    if (w.dynamic) {
        free(w.value);
        return;
    }
    *kind = POL_STDIN_SCRIPT;
    *text = w.value;
    *len = w.len;
}

/* A here-document: a script when its delimiter is quoted or its body has
 * no expansion. */
static void heredoc_stdin(struct walk *wk, TSNode redirect,
                          enum pol_stdin *kind, char **text, size_t *len)
{
    *kind = POL_STDIN_OTHER;
    TSNode body = {0}, start = {0};
    TSTreeCursor cur = ts_tree_cursor_new(redirect);
    if (ts_tree_cursor_goto_first_child(&cur)) {
        do {
            TSNode k = ts_tree_cursor_current_node(&cur);
            if (type_is(k, "heredoc_body"))
                body = k;
            else if (type_is(k, "heredoc_start"))
                start = k;
        } while (ts_tree_cursor_goto_next_sibling(&cur));
    }
    ts_tree_cursor_delete(&cur);
    if (ts_node_is_null(start))
        return;
    if (ts_node_is_null(body)) {
        *kind = POL_STDIN_SCRIPT; /* an empty document */
        *text = dup_bytes("", 0);
        *len = 0;
        if (*text == NULL)
            wk->nomem = true;
        return;
    }
    size_t s = ts_node_start_byte(body), e = ts_node_end_byte(body);
    size_t ss = ts_node_start_byte(start), se = ts_node_end_byte(start);
    bool quoted = memchr(wk->text + ss, '\'', se - ss) ||
                  memchr(wk->text + ss, '"', se - ss) ||
                  memchr(wk->text + ss, '\\', se - ss);
    bool expands = false;
    TSTreeCursor bc = ts_tree_cursor_new(body);
    if (!quoted && ts_tree_cursor_goto_first_child(&bc)) {
        do {
            TSNode k = ts_tree_cursor_current_node(&bc);
            expands = ts_node_is_named(k) && !type_is(k, "heredoc_content");
        } while (!expands && ts_tree_cursor_goto_next_sibling(&bc));
    }
    ts_tree_cursor_delete(&bc);
    if (!quoted && (expands || memchr(wk->text + s, '\\', e - s) != NULL))
        return;
    *kind = POL_STDIN_SCRIPT;
    *text = dup_bytes(wk->text + s, e - s);
    *len = e - s;
    if (*text == NULL)
        wk->nomem = true;
}

/* A file redirection that feeds fd 0 (`<`, `<&`, `<>`, with no fd or 0). */
static bool reads_stdin(const struct walk *wk, TSNode k)
{
    TSNode fd = ts_node_child_by_field_name(k, "descriptor", 10);
    bool fd0 = ts_node_is_null(fd) ||
               (ts_node_end_byte(fd) - ts_node_start_byte(fd) == 1 &&
                wk->text[ts_node_start_byte(fd)] == '0');
    TSNode op = ts_node_child(k, ts_node_is_null(fd) ? 0 : 1);
    return fd0 && !ts_node_is_null(op) &&
           (type_is(op, "<") || type_is(op, "<&") || type_is(op, "<>"));
}

/* A redirected statement: remember what feeds its body's stdin. */
static void note_redirects(struct walk *wk, TSNode n)
{
    TSNode body = ts_node_child_by_field_name(n, "body", 4);
    if (ts_node_is_null(body))
        return;
    enum pol_stdin kind = POL_STDIN_INHERITED;
    char *text = NULL;
    size_t len = 0;
    int inputs = 0;
    TSTreeCursor cur = ts_tree_cursor_new(n);
    if (ts_tree_cursor_goto_first_child(&cur)) {
        do {
            TSNode k = ts_tree_cursor_current_node(&cur);
            const char *t = ts_node_type(k);
            TSNode hfd = ts_node_child_by_field_name(k, "descriptor", 10);
            bool other_fd =
                !ts_node_is_null(hfd) &&
                !(ts_node_end_byte(hfd) - ts_node_start_byte(hfd) == 1 &&
                  wk->text[ts_node_start_byte(hfd)] == '0');
            if ((strcmp(t, "heredoc_redirect") == 0 ||
                 strcmp(t, "herestring_redirect") == 0) &&
                other_fd) {
                /* a document for fd 3: not the command's stdin */
            } else if (strcmp(t, "heredoc_redirect") == 0 ||
                       strcmp(t, "herestring_redirect") == 0) {
                inputs++;
                free(text);
                text = NULL;
                if (t[4] == 'd')
                    heredoc_stdin(wk, k, &kind, &text, &len);
                else
                    herestring_stdin(wk, k, &kind, &text, &len);
            } else if (strcmp(t, "file_redirect") == 0 && reads_stdin(wk, k)) {
                inputs++;
                free(text);
                text = NULL;
                kind = POL_STDIN_OTHER;
            }
        } while (ts_tree_cursor_goto_next_sibling(&cur));
    }
    ts_tree_cursor_delete(&cur);
    if (inputs > 1) { /* the last one wins in bash: not known here */
        free(text);
        text = NULL;
        kind = POL_STDIN_OTHER;
    }
    free(wk->stdin_text);
    wk->stdin_body = body;
    wk->stdin_kind = kind;
    wk->stdin_text = text;
    wk->stdin_len = len;
}

/* Whether [s, e) is a word bash reads as part of a redirection that
 * follows it: a number (2>x) or {NAME} ({fd}>x). */
static bool fd_number_before(const char *t, size_t s, size_t e)
{
    bool digits = e > s;
    for (size_t i = s; i < e; i++)
        digits &= t[i] >= '0' && t[i] <= '9';
    return digits || (e - s >= 3 && t[s] == '{' && t[e - 1] == '}');
}

/* `{NAME}>FILE`: bash reads a word {NAME} right before a redirection
 * operator as "open FILE and assign its fd number to NAME"; the tree
 * reads a word. NAME is assigned (so {PATH}>x is caught), no word. */
static bool varname_redirect(struct walk *wk, struct pol_simple *c, TSNode k)
{
    size_t s = ts_node_start_byte(k), e = ts_node_end_byte(k);
    const char *t = wk->text;
    if (e - s < 3 || e >= wk->len || t[s] != '{' || t[e - 1] != '}' ||
        (t[e] != '<' && t[e] != '>') || !ident_char(t[s + 1], true))
        return false;
    for (size_t i = s + 2; i < e - 1; i++)
        if (!ident_char(t[i], false))
            return false;
    char **v = realloc(c->assigns, (c->nassigns + 1) * sizeof(*v));
    char *d = dup_bytes(t + s + 1, e - s - 2);
    if (v != NULL)
        c->assigns = v;
    if (v == NULL || d == NULL) {
        free(d);
        wk->nomem = true;
        return true;
    }
    v[c->nassigns++] = d;
    return true;
}

static void visit_command(struct walk *wk, TSNode n)
{
    struct pol_simple *c = new_simple(wk, n);
    if (c == NULL)
        return;
    int inputs = 0;
    TSTreeCursor cur = ts_tree_cursor_new(n);
    if (ts_tree_cursor_goto_first_child(&cur)) {
        do {
            TSNode k = ts_tree_cursor_current_node(&cur);
            const char *field = ts_tree_cursor_current_field_name(&cur);
            const char *t = ts_node_type(k);
            if (strcmp(t, "variable_assignment") == 0) {
                add_assign_name(wk, c, k);
            } else if (field != NULL && strcmp(field, "name") == 0) {
                TSNode w = ts_node_named_child(k, 0);
                size_t e = ts_node_end_byte(k);
                /* `0<<<x rm`: bash reads 0<<< as a redirection, the tree
                 * reads 0 as the command's name (`ls>x` is read alike) */
                if (e < wk->len && (wk->text[e] == '<' || wk->text[e] == '>') &&
                    fd_number_before(wk->text, ts_node_start_byte(k), e))
                    wk->out->error = "parse error";
                add_node_word(wk, c, ts_node_is_null(w) ? k : w, true);
            } else if (field != NULL && strcmp(field, "argument") == 0) {
                if (!varname_redirect(wk, c, k))
                    add_node_word(wk, c, k, false);
            } else if (strcmp(t, "herestring_redirect") == 0) {
                inputs++;
                free(c->stdin_text);
                c->stdin_text = NULL;
                herestring_stdin(wk, k, &c->stdin_kind, &c->stdin_text,
                                 &c->stdin_len);
            } else if (strcmp(t, "file_redirect") == 0 && reads_stdin(wk, k)) {
                inputs++; /* `<file` among the words: not a script here */
                free(c->stdin_text);
                c->stdin_text = NULL;
                c->stdin_kind = POL_STDIN_OTHER;
            }
        } while (ts_tree_cursor_goto_next_sibling(&cur));
    }
    ts_tree_cursor_delete(&cur);
    size_t dash = pol_dropped_dash(wk->text, ts_node_end_byte(n), wk->len);
    if (dash != 0) { /* `python3 - <<EOF`: the tree drops the `-` */
        struct pol_word w = {.value = dup_bytes("-", 1), .len = 1};
        if (w.value == NULL)
            wk->nomem = true;
        else
            add_word(wk, c, &w);
        c->end = dash;
    }
    bool outer = !ts_node_is_null(wk->stdin_body) &&
                 ts_node_eq(wk->stdin_body, n) &&
                 wk->stdin_kind != POL_STDIN_INHERITED;
    if (inputs > 1 || (inputs > 0 && outer)) { /* which one wins? */
        free(c->stdin_text);
        c->stdin_text = NULL;
        c->stdin_kind = POL_STDIN_OTHER;
    } else if (c->stdin_kind == POL_STDIN_INHERITED) {
        attach_stdin(wk, c, n);
    }
}

/* export/declare/local/readonly/typeset and unset/unsetenv. */
static void visit_declaration(struct walk *wk, TSNode n)
{
    struct pol_simple *c = new_simple(wk, n);
    if (c == NULL)
        return;
    c->declaration = true;
    TSTreeCursor cur = ts_tree_cursor_new(n);
    if (ts_tree_cursor_goto_first_child(&cur)) {
        do {
            TSNode k = ts_tree_cursor_current_node(&cur);
            const char *t = ts_node_type(k);
            size_t ks = ts_node_start_byte(k), ke = ts_node_end_byte(k);
            if (ke - ks >= 2 && wk->text[ks] == '-' &&
                memchr(wk->text + ks, 'i', ke - ks) != NULL)
                wk->integer = true; /* declare -i, local -ai, ... */
            if (!ts_node_is_named(k)) {
                size_t s = ts_node_start_byte(k), e = ts_node_end_byte(k);
                struct pol_word w = {.value = dup_bytes(wk->text + s, e - s),
                                     .len = e - s};

                if (w.value == NULL)
                    wk->nomem = true;
                else
                    add_word(wk, c, &w);
            } else if (strcmp(t, "variable_assignment") == 0) {
                add_assign_name(wk, c, k);
                add_assignment_word(wk, c, k);
            } else if (strcmp(t, "comment") != 0) {
                add_node_word(wk, c, k, false);
            }
        } while (ts_tree_cursor_goto_next_sibling(&cur));
    }
    ts_tree_cursor_delete(&cur);
}

/* Assignments alone: a simple command with no words. */
static void visit_assignments(struct walk *wk, TSNode n, bool single)
{
    struct pol_simple *c = new_simple(wk, n);
    if (c == NULL)
        return;
    if (single) {
        add_assign_name(wk, c, n);
        return;
    }
    TSTreeCursor cur = ts_tree_cursor_new(n);
    if (ts_tree_cursor_goto_first_child(&cur)) {
        do {
            TSNode k = ts_tree_cursor_current_node(&cur);
            if (type_is(k, "variable_assignment"))
                add_assign_name(wk, c, k);
        } while (ts_tree_cursor_goto_next_sibling(&cur));
    }
    ts_tree_cursor_delete(&cur);
}

static bool harmless_target(const struct pol_word *w)
{
    return !w->dynamic && (strcmp(w->value, "/dev/null") == 0 ||
                           strcmp(w->value, "/dev/stdout") == 0 ||
                           strcmp(w->value, "/dev/stderr") == 0);
}

/* Whether a read redirection from `w` may open a connection: bash opens
 * /dev/tcp/HOST/PORT and /dev/udp/HOST/PORT itself, whatever the
 * operator, and the socket can be written through the fd (`exec
 * 3</dev/tcp/h/p; cat secret >&3`). A dynamic target may be one unless
 * its written start fixes another path (`./$f`, `src/$f`). */
static bool network_target(const struct pol_word *w)
{
    static const char *const paths[] = {"/dev/tcp/", "/dev/udp/"};
    const char *v = w->value;
    size_t fixed = w->dynamic ? strcspn(v, "$`\"'\\*?[") : strlen(v);
    for (size_t i = 0; i < 2; i++) {
        size_t n = fixed < 9 ? fixed : 9;
        if (strncmp(v, paths[i], n) == 0 && (w->dynamic || fixed >= 9))
            return true;
    }
    return false;
}

/* A file redirection that writes (or reads from the network) adds `>`
 * TARGET. */
static void visit_file_redirect(struct walk *wk, TSNode n)
{
    const char *op = NULL;
    TSNode dest = ts_node_child_by_field_name(n, "destination", 11);
    TSTreeCursor cur = ts_tree_cursor_new(n);
    if (ts_tree_cursor_goto_first_child(&cur)) {
        do {
            TSNode k = ts_tree_cursor_current_node(&cur);
            if (!ts_node_is_named(k) && op == NULL)
                op = ts_node_type(k);
        } while (ts_tree_cursor_goto_next_sibling(&cur));
    }
    ts_tree_cursor_delete(&cur);
    if (op == NULL || ts_node_is_null(dest))
        return;
    bool writes = strcmp(op, ">") == 0 || strcmp(op, ">>") == 0 ||
                  strcmp(op, ">|") == 0 || strcmp(op, "&>") == 0 ||
                  strcmp(op, "&>>") == 0 || strcmp(op, "<>") == 0;
    struct pol_word target;
    /* a glob in a target is expanded too (one match, or an error) */
    if (make_word(wk->text, dest, true, &target) != 0) {
        wk->nomem = true;
        return;
    }
    if (strcmp(op, ">&") == 0) {
        /* `>&N`, `>&N-` and `>&-` duplicate or move; `>&FILE` writes
         * FILE (as `&>`) */
        size_t len = target.len;
        if (len > 1 && target.value[len - 1] == '-')
            len--;
        bool digits = len > 0;
        for (size_t i = 0; i < len; i++)
            digits = digits && target.value[i] >= '0' && target.value[i] <= '9';
        writes = target.dynamic || !(digits || strcmp(target.value, "-") == 0);
    }
    writes = writes || network_target(&target);
    if (!writes || harmless_target(&target)) {
        free(target.value);
        return;
    }
    struct pol_simple *c = new_simple(wk, n);
    if (c == NULL) {
        free(target.value);
        return;
    }
    c->redirect_target = true;
    struct pol_word gt = {.value = dup_bytes(">", 1), .len = 1};
    if (gt.value == NULL) {
        free(target.value);
        wk->nomem = true;
        return;
    }
    add_word(wk, c, &gt);
    add_word(wk, c, &target);
}

static bool ident_char(char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           (!first && c >= '0' && c <= '9');
}

/* An assignment operator at `p` (=, +=, <<=, ..., not ==): its length. */
static size_t assign_op(const char *p, const char *end)
{
    static const char *const ops[] = {"<<=", ">>=", "+=", "-=", "*=", "/=",
                                      "%=",  "&=",  "^=", "|=", "=",  NULL};
    for (const char *const *o = ops; *o; o++) {
        size_t n = strlen(*o);
        if ((size_t)(end - p) >= n && memcmp(p, *o, n) == 0 &&
            !(n == 1 && p + 1 < end && p[1] == '='))
            return n;
    }
    return 0;
}

static bool listed_range(const char *p, size_t n)
{
    char name[64];
    if (n >= sizeof(name))
        return false;
    memcpy(name, p, n);
    name[n] = '\0';
    return pol_listed_name(name);
}

/* Names that arithmetic (or ${NAME=...}) may assign in text [s, e):
 * NAME followed by an assignment operator, or next to ++ or --. Each
 * becomes an assignment alone, so that a listed one (PATH) is caught.
 * With `into`, only listed names, added to that command: an assignment's
 * value, which bash evaluates as arithmetic when the variable has the
 * integer attribute (x=PATH=1 after declare -i x, maybe in a session). */
static void hidden_assignments(struct walk *wk, TSNode n, bool arithmetic,
                               struct pol_simple *into)
{
    const char *t = wk->text;
    size_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
    struct pol_simple *c = into;
    for (size_t i = s; i < e; i++) {
        if (!ident_char(t[i], true) || (i > s && ident_char(t[i - 1], false)))
            continue;
        size_t j = i;
        while (j < e && ident_char(t[j], false))
            j++;
        size_t k = j;
        while (k < e && (t[k] == ' ' || t[k] == '\t'))
            k++;
        bool assigned;
        if (arithmetic) {
            bool before = i >= s + 2 && ((t[i - 1] == '+' && t[i - 2] == '+') ||
                                         (t[i - 1] == '-' && t[i - 2] == '-'));
            bool after = k + 1 < e && ((t[k] == '+' && t[k + 1] == '+') ||
                                       (t[k] == '-' && t[k + 1] == '-'));
            bool op = assign_op(t + k, t + e) > 0 &&
                      !(k > 0 && (t[k - 1] == '!' || t[k - 1] == '<' ||
                                  t[k - 1] == '>'));
            assigned = before || after || op;
        } else { /* ${NAME=...}, ${NAME:=...}, ${NAME[0]=...} */
            if (k < e && t[k] == '[') {
                const char *close = memchr(t + k, ']', e - k);
                k = close != NULL ? (size_t)(close - t) + 1 : e;
            }
            assigned = i >= s + 2 && t[i - 1] == '{' && t[i - 2] == '$' &&
                       ((k < e && t[k] == '=') ||
                        (k + 1 < e && t[k] == ':' && t[k + 1] == '='));
        }
        if (!assigned || (into != NULL && !listed_range(t + i, j - i))) {
            i = j;
            continue;
        }
        if (c == NULL && (c = new_simple(wk, n)) == NULL)
            return;
        char **v = realloc(c->assigns, (c->nassigns + 1) * sizeof(*v));
        char *d = dup_bytes(t + i, j - i);
        if (v == NULL || d == NULL) {
            if (v != NULL)
                c->assigns = v;
            free(d);
            wk->nomem = true;
            return;
        }
        c->assigns = v;
        v[c->nassigns++] = d;
        i = j;
    }
}

/* for/select NAME in ...: NAME is assigned (an assignment alone). */
static void visit_loop_variable(struct walk *wk, TSNode n)
{
    TSNode var = ts_node_child_by_field_name(n, "variable", 8);
    if (ts_node_is_null(var))
        return;
    struct pol_simple *c = new_simple(wk, var);
    if (c == NULL)
        return;
    size_t s = ts_node_start_byte(var), e = ts_node_end_byte(var);
    char **v = malloc(sizeof(*v));
    char *d = dup_bytes(wk->text + s, e - s);
    if (v == NULL || d == NULL) {
        free(v);
        free(d);
        wk->nomem = true;
        return;
    }
    v[0] = d;
    c->assigns = v;
    c->nassigns = 1;
}

static void visit_function(struct walk *wk, TSNode n, bool top_level)
{
    TSNode name = ts_node_child_by_field_name(n, "name", 4);
    TSNode body = ts_node_child_by_field_name(n, "body", 4);
    if (ts_node_is_null(name) || ts_node_is_null(body))
        return;
    struct pol_script *s = wk->out;
    if (s->nfuncs == s->cap_funcs) {
        size_t cap = s->cap_funcs ? s->cap_funcs * 2 : 4;
        struct pol_funcdef *v = realloc(s->funcs, cap * sizeof(*v));
        if (v == NULL) {
            wk->nomem = true;
            return;
        }
        s->funcs = v;
        s->cap_funcs = cap;
    }
    struct pol_funcdef *f = &s->funcs[s->nfuncs];
    size_t ns = ts_node_start_byte(name), ne = ts_node_end_byte(name);
    f->name = dup_bytes(wk->text + ns, ne - ns);
    if (f->name == NULL) {
        wk->nomem = true;
        return;
    }
    f->body_start = ts_node_start_byte(body);
    f->body_end = ts_node_end_byte(body);
    f->defined_at = ts_node_start_byte(n);
    /* `f() { ...; } &` defines it in a subshell of its own */
    TSNode next = ts_node_next_sibling(n);
    f->top_level = top_level && !(!ts_node_is_null(next) &&
                                  strcmp(ts_node_type(next), "&") == 0);
    s->nfuncs++;
}

/* A backtick substitution holding \` (nested backticks), which
 * tree-sitter-bash reads differently from bash. */
static bool nested_backticks(const char *text, TSNode n)
{
    size_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
    if (e - s < 2 || text[s] != '`')
        return false;
    for (size_t i = s + 1; i + 1 < e; i++) {
        if (text[i] == '\\') {
            if (text[i + 1] == '`')
                return true;
            i++;
        }
    }
    return false;
}

/* A loop's body: what it holds may run many times (a cd in it, too). */
static void add_loop(struct walk *wk, TSNode n)
{
    struct pol_script *s = wk->out;
    if (s->nloops == s->cap_loops) {
        size_t cap = s->cap_loops ? s->cap_loops * 2 : 4;
        struct pol_range *v = realloc(s->loops, cap * sizeof(*v));
        if (v == NULL) {
            wk->nomem = true;
            return;
        }
        s->loops = v;
        s->cap_loops = cap;
    }
    s->loops[s->nloops++] =
        (struct pol_range){ts_node_start_byte(n), ts_node_end_byte(n)};
}

/* Visits node `n` on the way down; returns false to skip its subtree. */
static bool visit(struct walk *wk, TSNode n, enum pol_kind k,
                  enum pol_kind parent, bool top_level)
{
    const char *misread = pol_misread_node(wk->text, n, k);
    if (misread != NULL) {
        wk->out->error = misread;
        return false;
    }
    switch (k) {
    case PK_COMMAND:
        visit_command(wk, n);
        break;
    case PK_DO_GROUP:
        add_loop(wk, n);
        break;
    case PK_DECLARATION:
    case PK_UNSET:
        visit_declaration(wk, n);
        break;
    case PK_ASSIGNMENTS:
        visit_assignments(wk, n, false);
        break;
    case PK_ASSIGNMENT:
        if (parent != PK_COMMAND && parent != PK_DECLARATION &&
            parent != PK_ASSIGNMENTS)
            visit_assignments(wk, n, true);
        break;
    case PK_FOR:
        visit_loop_variable(wk, n);
        break;
    case PK_ARITHMETIC:
    case PK_SUBSCRIPT:
    case PK_TEST_COMMAND:
    case PK_CSTYLE_FOR:
        hidden_assignments(wk, n, true, NULL);
        break;
    case PK_EXPANSION:
        hidden_assignments(wk, n, false, NULL);
        break;
    case PK_REDIRECTED:
        note_redirects(wk, n);
        break;
    case PK_FILE_REDIRECT:
        visit_file_redirect(wk, n);
        break;
    case PK_FUNCTION:
        visit_function(wk, n, top_level);
        break;
    case PK_COMMAND_SUBST:
        if (nested_backticks(wk->text, n))
            wk->out->error = "parse error";
        break;
    case PK_COMMENT:
        return false;
    default:
        break;
    }
    return true;
}

static void walk_tree(struct walk *wk, TSNode root)
{
    TSTreeCursor cur = ts_tree_cursor_new(root);
    /* the kinds of the nodes above; how many of them nest */
    size_t cap = 64, depth = 0, nesting = 0;
    unsigned char *kinds = malloc(cap);
    if (kinds == NULL) {
        wk->nomem = true;
        goto out;
    }
    for (;;) {
        TSNode n = ts_tree_cursor_current_node(&cur);
        enum pol_kind k = pol_kind_of(n);
        enum pol_kind parent =
            depth > 0 ? (enum pol_kind)kinds[depth - 1] : PK_OTHER;
        bool down = ts_node_is_named(n) && visit(wk, n, k, parent, depth == 1);
        if (wk->nomem || wk->out->error != NULL)
            break;
        if (down && ts_tree_cursor_goto_first_child(&cur)) {
            if (depth + 1 >= cap) {
                unsigned char *grown = realloc(kinds, cap * 2);
                if (grown == NULL) {
                    wk->nomem = true;
                    break;
                }
                kinds = grown;
                cap *= 2;
            }
            kinds[depth++] = (unsigned char)k;
            nesting += pol_kind_nests(k);
            if (nesting > POL_MAX_NESTING) {
                wk->out->error = "nesting too deep";
                break;
            }
            continue;
        }
        while (!ts_tree_cursor_goto_next_sibling(&cur)) {
            if (depth == 0 || !ts_tree_cursor_goto_parent(&cur))
                goto out;
            depth--;
            nesting -= pol_kind_nests((enum pol_kind)kinds[depth]);
        }
    }
out:
    free(kinds);
    ts_tree_cursor_delete(&cur);
}

void pol_script_free(struct pol_script *s)
{
    for (size_t i = 0; i < s->ncmds; i++) {
        struct pol_simple *c = &s->cmds[i];
        for (size_t k = 0; k < c->nwords; k++)
            free(c->words[k].value);
        free(c->words);
        for (size_t k = 0; k < c->nassigns; k++)
            free(c->assigns[k]);
        free(c->assigns);
        free(c->stdin_text);
    }
    free(s->cmds);
    for (size_t i = 0; i < s->nfuncs; i++)
        free(s->funcs[i].name);
    free(s->funcs);
    free(s->loops);
    memset(s, 0, sizeof(*s));
}

/* Brackets open at once, quotes not looked at: an upper bound of the
 * nesting, found in one pass before anything is parsed. */
static bool nests_past(const char *text, size_t len, size_t limit)
{
    size_t depth = 0, deepest = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '(' || c == '{' || c == '[')
            deepest = ++depth > deepest ? depth : deepest;
        else if ((c == ')' || c == '}' || c == ']') && depth > 0)
            depth--;
    }
    return deepest > limit;
}

/* About how many tokens tree-sitter makes of `text`: word starts,
 * operators and quotes (a string costs about two tokens' room). Its tree
 * takes some 200 to 250 bytes a token so counted. */
static size_t tokens_about(const char *text, size_t len)
{
    size_t tokens = 0, quotes = 0;
    bool in_word = false;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n') {
            in_word = false;
        } else if (strchr(";|&<>()`{}$", c) != NULL) {
            tokens++;
            in_word = false;
        } else if (c == '"' || c == '\'') {
            quotes++;
            in_word = true;
        } else if (!in_word) {
            tokens++;
            in_word = true;
        }
    }
    return tokens + quotes;
}

TSParser *pol_parser_new(void)
{
    TSParser *parser = ts_parser_new();
    if (parser != NULL && !ts_parser_set_language(parser, tree_sitter_bash())) {
        ts_parser_delete(parser);
        parser = NULL;
    }
    return parser;
}

void pol_parser_free(TSParser *parser)
{
    if (parser != NULL)
        ts_parser_delete(parser);
}

int pol_bash_parse(TSParser *given, const char *text, size_t len,
                   struct pol_script *out)
{
    memset(out, 0, sizeof(*out));
    if (len > POL_MAX_COMMAND || memchr(text, '\0', len) != NULL) {
        out->error = "parse error";
        return 0;
    }
    /* Counted brackets past the bound are only a bound: parsed, the
     * nesting may still be less (brackets in quotes). */
    if (nests_past(text, len, (size_t)POL_MAX_NESTING * 4)) {
        out->error = "nesting too deep";
        return 0;
    }
    /* Too many tokens to parse within the memory bound: as a command over
     * the byte bound, unparsed. */
    if (tokens_about(text, len) > POL_MAX_TOKENS) {
        out->error = "parse error";
        return 0;
    }
    TSParser *parser = given != NULL ? given : pol_parser_new();
    if (parser == NULL)
        return -1;
    TSTree *tree = ts_parser_parse_string(parser, NULL, text, (uint32_t)len);
    if (given == NULL)
        ts_parser_delete(parser);
    if (tree == NULL)
        return -1;
    TSNode root = ts_tree_root_node(tree);
    struct walk wk = {.text = text, .len = len, .out = out};
    if (ts_node_has_error(root) || pol_misread_text(text, len))
        out->error = "parse error";
    else
        walk_tree(&wk, root);
    /* an integer variable evaluates what it is given as arithmetic, from
     * wherever it comes (printf -v, for, ${x:=...}): a quoted subscript
     * anywhere may be run */
    if (out->error == NULL && wk.integer && pol_quoted_subscript(text, len))
        out->error = "eval of a dynamic string";
    free(wk.stdin_text);
    ts_tree_delete(tree);
    if (out->error != NULL) {
        const char *e = out->error;
        pol_script_free(out);
        out->error = e;
    }
    if (wk.nomem) {
        pol_script_free(out);
        return -1;
    }
    return 0;
}
