/* SPDX-License-Identifier: MIT */
/*
 * The words of a rule's example string, split like one plain shell
 * command: blanks separate words, quotes and backslashes are removed, and
 * anything that would expand or join commands ($, `, ;, &, |, <, >, (, ))
 * makes it not a plain command. As codex splits its examples (shlex),
 * glob characters and `#` are plain bytes.
 */
#include "policy.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void pol_words_free(struct pol_str *words, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(words[i].s);
    free(words);
}

struct splitter {
    struct pol_str *words;
    size_t n, cap;
    struct pol_str cur;
    size_t cur_cap;
    bool in_word;
};

static int push_byte(struct splitter *sp, char c)
{
    if (sp->cur.len + 2 > sp->cur_cap) {
        size_t cap = sp->cur_cap ? sp->cur_cap * 2 : 16;
        char *p = realloc(sp->cur.s, cap);
        if (p == NULL)
            return -1;
        sp->cur.s = p;
        sp->cur_cap = cap;
    }
    sp->cur.s[sp->cur.len++] = c;
    sp->cur.s[sp->cur.len] = '\0';
    sp->in_word = true;
    return 0;
}

static int end_word(struct splitter *sp)
{
    if (!sp->in_word)
        return 0;
    if (sp->cur.s == NULL && push_byte(sp, 'x') == 0) {
        sp->cur.len = 0;
        sp->cur.s[0] = '\0';
    }
    if (sp->cur.s == NULL)
        return -1;
    if (sp->n == sp->cap) {
        size_t cap = sp->cap ? sp->cap * 2 : 8;
        struct pol_str *p = realloc(sp->words, cap * sizeof(*p));
        if (p == NULL)
            return -1;
        sp->words = p;
        sp->cap = cap;
    }
    sp->words[sp->n++] = sp->cur;
    memset(&sp->cur, 0, sizeof(sp->cur));
    sp->cur_cap = 0;
    sp->in_word = false;
    return 0;
}

/* 0 done, 1 not a plain command, -1 out of memory */
static int split(struct splitter *sp, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == ' ' || c == '\t' || c == '\n') {
            if (end_word(sp) != 0)
                return -1;
        } else if (strchr("$`;&|<>()", c) != NULL || c == '\0') {
            return 1;
        } else if (c == '\\') {
            if (++i >= len)
                return 1;
            if (s[i] != '\n' && push_byte(sp, s[i]) != 0)
                return -1;
        } else if (c == '\'') {
            sp->in_word = true;
            while (++i < len && s[i] != '\'')
                if (push_byte(sp, s[i]) != 0)
                    return -1;
            if (i >= len)
                return 1;
        } else if (c == '"') {
            sp->in_word = true;
            while (++i < len && s[i] != '"') {
                if (s[i] == '$' || s[i] == '`')
                    return 1;
                if (s[i] == '\\' && i + 1 < len &&
                    strchr("\"\\$`\n", s[i + 1]) != NULL)
                    i++;
                if (s[i] != '\n' || s[i - 1] != '\\')
                    if (push_byte(sp, s[i]) != 0)
                        return -1;
            }
            if (i >= len)
                return 1;
        } else if (push_byte(sp, c) != 0) {
            return -1;
        }
    }
    return end_word(sp) == 0 ? 0 : -1;
}

int pol_example_words(const char *s, size_t len, struct pol_str **words,
                      size_t *n)
{
    struct splitter sp;
    memset(&sp, 0, sizeof(sp));
    int rc = split(&sp, s, len);
    free(sp.cur.s);
    if (rc != 0) {
        pol_words_free(sp.words, sp.n);
        *words = NULL;
        *n = rc < 0 ? SIZE_MAX : 0;
        return -1;
    }
    *words = sp.words;
    *n = sp.n;
    return 0;
}
