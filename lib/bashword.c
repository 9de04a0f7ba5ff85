/* SPDX-License-Identifier: MIT */
/*
 * A strict reader of the statements bash prints about its state. It
 * decodes nothing into memory: it finds where a statement ends (bash 5.2
 * puts a value with a newline in $'...', older versions in "..." over
 * several lines), the name it defines, and counts the bytes its values
 * hold, which is what the session's bound counts.
 */
#include "bashword.h"

#include <string.h>

/* A cursor over the text of one statement. */
struct cursor {
    const char *p, *end;
    size_t raw; /* bytes of values counted so far */
};

static bool at(const struct cursor *c, char ch)
{
    return c->p < c->end && *c->p == ch;
}

static bool take(struct cursor *c, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0)
        return false;
    c->p += n;
    return true;
}

static bool is_name_char(char ch, bool first)
{
    return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || ch == '_' ||
           (!first && ch >= '0' && ch <= '9');
}

/* "..." as bash prints it: \ escapes only $ ` " \ and newline; an
 * unescaped $ or ` would expand, so it is refused. */
static int double_quoted(struct cursor *c)
{
    c->p++;
    while (c->p < c->end && *c->p != '"') {
        if (*c->p == '$' || *c->p == '`')
            return -1;
        if (*c->p == '\\' && c->p + 1 < c->end &&
            strchr("$`\"\\\n", c->p[1]) != NULL)
            c->p++;
        c->p++;
        c->raw++;
    }
    if (!at(c, '"'))
        return -1;
    c->p++;
    return 0;
}

/* How many of up to `max` digits of `base` follow at `p`. */
static size_t digits(const char *p, const char *end, size_t max, int base)
{
    size_t n = 0;
    for (; n < max && p + n < end; n++) {
        char ch = p[n];
        bool ok = base == 8
                      ? (ch >= '0' && ch <= '7')
                      : (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') ||
                            (ch >= 'A' && ch <= 'F');
        if (!ok)
            break;
    }
    return n;
}

/* The bytes one backslash escape of $'...' stands for (at c->p, after
 * the backslash); moves past it. */
static size_t ansi_escape(struct cursor *c)
{
    char ch = *c->p;
    size_t n;
    if (ch >= '0' && ch <= '7') {
        c->p += digits(c->p, c->end, 3, 8);
        return 1;
    }
    if (ch == 'x' && (n = digits(c->p + 1, c->end, 2, 16)) > 0) {
        c->p += 1 + n;
        return 1;
    }
    if ((ch == 'u' || ch == 'U') &&
        (n = digits(c->p + 1, c->end, ch == 'u' ? 4 : 8, 16)) > 0) {
        c->p += 1 + n;
        return 4; /* at most, as UTF-8 */
    }
    if (ch == 'c' && c->p + 1 < c->end) {
        c->p += 2;
        return 1;
    }
    c->p++;
    return ch == 'x' || ch == 'u' || ch == 'U' ? 2 : 1;
}

/* $'...': ANSI-C quoting, nothing expands. */
static int ansi_quoted(struct cursor *c)
{
    c->p += 2;
    while (c->p < c->end && *c->p != '\'') {
        if (*c->p == '\\' && c->p + 1 < c->end) {
            c->p++;
            c->raw += ansi_escape(c);
            continue;
        }
        c->p++;
        c->raw++;
    }
    if (!at(c, '\''))
        return -1;
    c->p++;
    return 0;
}

/* '...': literal up to the next quote. */
static int single_quoted(struct cursor *c)
{
    const char *q = memchr(c->p + 1, '\'', (size_t)(c->end - c->p - 1));
    if (q == NULL)
        return -1;
    c->raw += (size_t)(q - c->p - 1);
    c->p = q + 1;
    return 0;
}

/* One quoted segment, or an escaped quote (\') between single-quoted
 * ones as `alias -p` prints them. */
static int segment(struct cursor *c)
{
    if (at(c, '"'))
        return double_quoted(c);
    if (c->p + 1 < c->end && c->p[0] == '$' && c->p[1] == '\'')
        return ansi_quoted(c);
    if (at(c, '\''))
        return single_quoted(c);
    if (c->p + 1 < c->end && c->p[0] == '\\' && c->p[1] == '\'') {
        c->p += 2;
        c->raw++;
        return 0;
    }
    return -1;
}

/* A word made only of quoted segments (at least one). */
static int quoted_word(struct cursor *c)
{
    do
        if (segment(c) < 0)
            return -1;
    while (c->p < c->end && strchr("\"'$\\", *c->p) != NULL);
    return 0;
}

/* Whether `ch` may stand in a bare key of an associative array as bash
 * prints it: nothing that quotes, expands or ends a word. */
static bool bare_key_char(char ch)
{
    return strchr(" \t\n]\"'$`\\;|&()<>", ch) == NULL;
}

/* An array subscript: digits for an indexed array (a bare word there
 * would be arithmetic, which can run code), a bare or quoted word for an
 * associative one. */
static int subscript(struct cursor *c, bool assoc)
{
    if (!take(c, "["))
        return -1;
    if (assoc && (at(c, '"') || at(c, '$') || at(c, '\''))) {
        if (quoted_word(c) < 0)
            return -1;
    } else {
        const char *s = c->p;
        while (c->p < c->end &&
               (assoc ? bare_key_char(*c->p) : (*c->p >= '0' && *c->p <= '9')))
            c->p++;
        if (c->p == s)
            return -1;
        c->raw += (size_t)(c->p - s);
    }
    return take(c, "]=") ? 0 : -1;
}

/* (...) of `[key]=value` pairs. */
static int array_value(struct cursor *c, bool assoc)
{
    c->p++;
    for (;;) {
        while (at(c, ' '))
            c->p++;
        if (at(c, ')')) {
            c->p++;
            return 0;
        }
        if (subscript(c, assoc) < 0 || quoted_word(c) < 0)
            return -1;
    }
}

/* The name at the cursor; false when there is none. */
static bool name(struct cursor *c, struct bsh__statement *st)
{
    st->name = c->p;
    while (c->p < c->end && is_name_char(*c->p, c->p == st->name))
        c->p++;
    st->name_len = (size_t)(c->p - st->name);
    c->raw += st->name_len;
    return st->name_len > 0;
}

/* The statement ends at a newline or the end of the text. */
static int finish(struct cursor *c, const char *start,
                  struct bsh__statement *st)
{
    if (c->p < c->end && *c->p != '\n')
        return -1;
    st->len = (size_t)(c->p - start);
    st->raw = c->raw;
    return 0;
}

static int declare_flags(struct cursor *c, struct bsh__statement *st)
{
    size_t n = 0;
    if (!take(c, "declare -"))
        return -1;
    while (c->p < c->end && *c->p != ' ') {
        if (strchr("-aAilnrtux", *c->p) == NULL || n + 1 >= sizeof(st->flags))
            return -1;
        if (*c->p != '-')
            st->flags[n++] = *c->p;
        c->p++;
    }
    st->flags[n] = '\0';
    return take(c, " ") ? 0 : -1;
}

int bsh__declare_scan(const char *p, size_t len, struct bsh__statement *st)
{
    struct cursor c = {p, p + len, 0};
    memset(st, 0, sizeof(*st));
    if (declare_flags(&c, st) < 0 || !name(&c, st))
        return -1;
    if (take(&c, "=")) {
        st->has_value = true;
        bool assoc = strchr(st->flags, 'A') != NULL;
        int rc = at(&c, '(') ? array_value(&c, assoc) : quoted_word(&c);
        if (rc < 0)
            return -1;
    }
    return finish(&c, p, st);
}

int bsh__alias_scan(const char *p, size_t len, struct bsh__statement *st)
{
    struct cursor c = {p, p + len, 0};
    memset(st, 0, sizeof(*st));
    if (!take(&c, "alias "))
        return -1;
    (void)take(&c, "-- "); /* before a name that starts with '-' */
    st->name = c.p;
    /* bash refuses / $ ` = and quotes in alias names, and blanks. */
    while (c.p < c.end && strchr("/$`='\"\\ \t\n;|&()<>", *c.p) == NULL)
        c.p++;
    st->name_len = (size_t)(c.p - st->name);
    c.raw = st->name_len;
    if (st->name_len == 0 || !take(&c, "=") || quoted_word(&c) < 0)
        return -1;
    st->has_value = true;
    return finish(&c, p, st);
}

int bsh__option_scan(const char *p, size_t len, struct bsh__statement *st)
{
    struct cursor c = {p, p + len, 0};
    memset(st, 0, sizeof(*st));
    if (!take(&c, "set -o ") && !take(&c, "set +o ") &&
        !take(&c, "shopt -s ") && !take(&c, "shopt -u "))
        return -1;
    st->name = c.p;
    while (c.p < c.end && (is_name_char(*c.p, false) || *c.p == '-'))
        c.p++;
    st->name_len = (size_t)(c.p - st->name);
    if (st->name_len == 0)
        return -1;
    return finish(&c, p, st);
}

/* One "..." segment at `*p` decoded into `out`; the bytes written, or -1
 * for what a plain value never holds (a newline, which bash 5.2 prints
 * in $'...', and \-newline, which bash would drop). */
static long decode_double(const char **p, const char *end, char *out)
{
    long n = 0;
    const char *s = *p + 1;
    for (; s < end && *s != '"'; s++) {
        if (*s == '\n')
            return -1;
        if (*s == '\\' && s + 1 < end) {
            if (s[1] == '\n')
                return -1;
            if (strchr("$`\"\\", s[1]) != NULL)
                s++;
        }
        out[n++] = *s;
    }
    *p = s + 1;
    return n;
}

long bsh__declare_plain_value(const char *p, size_t len,
                              struct bsh__statement *st, bool *exported,
                              char *out)
{
    if (bsh__declare_scan(p, len, st) < 0 || !st->has_value ||
        (st->flags[0] != '\0' && strcmp(st->flags, "x") != 0))
        return -1;
    *exported = st->flags[0] == 'x';
    const char *s = st->name + st->name_len + 1, *end = p + st->len;
    long n = 0;
    if (s < end && *s == '(')
        return -1;
    while (s < end) {
        if (*s == '"') {
            long k = decode_double(&s, end, out + n);
            if (k < 0)
                return -1;
            n += k;
        } else if (*s == '\'') {
            const char *q = memchr(s + 1, '\'', (size_t)(end - s - 1));
            if (q == NULL || memchr(s + 1, '\n', (size_t)(q - s - 1)) != NULL)
                return -1;
            memcpy(out + n, s + 1, (size_t)(q - s - 1));
            n += q - s - 1;
            s = q + 1;
        } else if (*s == '\\' && s + 1 < end && s[1] == '\'') {
            out[n++] = '\'';
            s += 2;
        } else {
            return -1; /* $'...' */
        }
    }
    out[n] = '\0';
    return n;
}

size_t bsh__single_quote(const char *value, size_t len, char *out)
{
    size_t n = 0;
    out[n++] = '\'';
    for (size_t i = 0; i < len; i++) {
        if (value[i] == '\'') { /* close, an escaped quote, reopen */
            out[n++] = '\'';
            out[n++] = '\\';
            out[n++] = '\'';
            out[n++] = '\'';
        } else {
            out[n++] = value[i];
        }
    }
    out[n++] = '\'';
    return n;
}
