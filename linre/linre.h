/* SPDX-License-Identifier: MIT */
/*
 * linre: a compiler from the regular subset of PCRE syntax that the
 * critical patterns use to a DFA, for the build (gen_pattern_dfas writes
 * the library's static tables) and for tests. It is not part of libbsh,
 * which only walks the tables (lib/dfa.h).
 *
 * PCRE2 backtracks, and patterns such as `\bcurl\b[^|]*\|` cost O(n^2) on
 * a crafted command; the DFA answers "does it match anywhere?" in one pass.
 * Semantics follow the reference (Rust regex) on ASCII: \s \w \b are ASCII,
 * `.` is any byte but \n, `$` is end of text.
 */
#ifndef LINRE_H
#define LINRE_H

#include "dfa.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A compiled DFA whose tables it owns. */
struct linre {
    struct bsh__dfa dfa;
};

/**
 * Compile `pattern` into a DFA. Returns 0 and a new matcher in `*out`, or
 * -1 (and NULL) when the pattern uses syntax outside the supported regular
 * subset (backreferences, lookaround, inline flags other than a leading
 * (?i)) or its DFA would be too large.
 */
int linre_compile(const char *pattern, struct linre **out);

/** True when the pattern matches anywhere in `subject`. Thread-safe. */
static inline bool linre_match(const struct linre *re,
                               const unsigned char *subject, size_t len)
{
    return bsh__dfa_match(&re->dfa, subject, len);
}

/** The number of DFA states, for tests and benchmarks. */
size_t linre_states(const struct linre *re);

void linre_free(struct linre *re);

/* Writes the DFA's tables as C definitions named NAME_classes,
 * NAME_trans and NAME_accept (for the build-time generator). */
void linre_emit(const struct linre *re, const char *name, FILE *out);

#endif
