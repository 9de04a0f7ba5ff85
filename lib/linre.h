/* SPDX-License-Identifier: MIT */
/*
 * A linear-time matcher for the regular subset of PCRE syntax that the
 * tripwire patterns use. PCRE2 backtracks, and patterns such as
 * `\bcurl\b[^|]*\|` cost O(n^2) on a crafted command; this matcher turns the
 * pattern into a DFA once, then answers "does it match anywhere?" in one
 * pass over the bytes. Semantics follow the reference (Rust regex) on
 * ASCII: \s \w \b are ASCII, `.` is any byte but \n, `$` is end of text.
 */
#ifndef BSH_LINRE_H
#define BSH_LINRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A compiled DFA: built at run time (owned), or static tables generated at
 * build time by gen_rules_dfa (see bsh__linre_emit). */
struct linre {
    const uint8_t *byte_class; /* byte -> column, 256 entries */
    int nclasses, nstates;
    const int32_t *trans;      /* nstates * nclasses; -1 ends in a match */
    const bool *accept_at_end; /* per state: a match at the end of text */
    bool owned;                /* bsh__linre_free frees the tables */
};

/**
 * Compile `pattern` into a DFA. Returns 0 and a new matcher in `*out`, or
 * -1 when the pattern uses syntax outside the supported regular subset
 * (backreferences, lookaround, inline flags other than a leading (?i)) or
 * its DFA would be too large; the caller then falls back to PCRE2.
 */
int bsh__linre_compile(const char *pattern, struct linre **out);

/** True when the pattern matches anywhere in `subject`. Thread-safe. */
bool bsh__linre_match(const struct linre *re, const unsigned char *subject,
                      size_t len);

/** The number of DFA states, for tests and benchmarks. */
size_t bsh__linre_states(const struct linre *re);

/* rules_dfa.c, generated at build time from rules.def: the DFA of each
 * critical pattern in list order; nstates 0 for a pattern without one. */
extern const struct linre bsh__rule_dfas[];

/* Frees a DFA from bsh__linre_compile; static tables are left alone. */
void bsh__linre_free(struct linre *re);

/* Writes the DFA's tables as C definitions named NAME_classes,
 * NAME_trans and NAME_accept (for the build-time generator). */
void bsh__linre_emit(const struct linre *re, const char *name, FILE *out);

#endif
