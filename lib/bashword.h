/* SPDX-License-Identifier: MIT */
/*
 * Reading what bash itself prints about its state (`declare -p`, `alias
 * -p`, `set +o`, `shopt -p`): where one statement ends, the name it
 * defines, and how many raw bytes its values hold. Only the literal forms
 * bash prints are accepted ("...", $'...', '...', arrays of them), so
 * text that would expand anything when bash reads it back is refused.
 */
#ifndef BSH_BASHWORD_H
#define BSH_BASHWORD_H

#include <stdbool.h>
#include <stddef.h>

/* One statement found at the start of a text. */
struct bsh__statement {
    size_t len;       /* its bytes, without the newline that ends it */
    const char *name; /* the name it defines (points into the text) */
    size_t name_len;
    char flags[16]; /* declare's attributes without the '-' ("x", "ar") */
    size_t raw;     /* bytes of its name and values, quoting left out */
    bool has_value;
};

/* A `declare -FLAGS NAME[=VALUE]` line at `p`: 0 with `st` filled, or -1
 * when it is not one that bash prints. */
int bsh__declare_scan(const char *p, size_t len, struct bsh__statement *st);

/* An `alias NAME='VALUE'` statement at `p`: 0 or -1, as above. */
int bsh__alias_scan(const char *p, size_t len, struct bsh__statement *st);

/* Whether `line` is "set -o NAME", "set +o NAME", "shopt -s NAME" or
 * "shopt -u NAME" with a plain option name; its name in `st`. */
int bsh__option_scan(const char *p, size_t len, struct bsh__statement *st);

/* The value of a `declare -- NAME=...` or `declare -x NAME=...` line, one
 * bash reads back as exactly these bytes: "..." and '...' segments (and
 * \' between them), no attribute but export, no newline. Decoded into
 * `out` (room for `len` + 1 bytes, NUL-terminated); its length, with
 * `*exported` and the name in `st`, or -1 for any other line. */
long bsh__declare_plain_value(const char *p, size_t len,
                              struct bsh__statement *st, bool *exported,
                              char *out);

/* `value` quoted for bash in single quotes ('it'\''s'), into `out` (at
 * least 4 * len + 3 bytes); the quoted length. */
size_t bsh__single_quote(const char *value, size_t len, char *out);

#endif
