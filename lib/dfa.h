/* SPDX-License-Identifier: MIT */
/*
 * A pattern's DFA as static tables, and the match over them (dfa.c). The
 * tables are made at build time by linre (linre/), the DFA compiler, which
 * is not part of the library: at run time a check is one table lookup per
 * byte, linear in the command's length.
 */
#ifndef BSH_DFA_H
#define BSH_DFA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A transition to this state ends the search with a match. */
#define BSH__DFA_MATCH (-1)

struct bsh__dfa {
    const uint8_t *byte_class; /* byte -> column, 256 entries */
    int nclasses, nstates;
    const int32_t *trans;      /* nstates * nclasses; BSH__DFA_MATCH ends */
    const bool *accept_at_end; /* per state: a match at the end of text */
};

/* True when the DFA matches anywhere in `subject`. Thread-safe. */
bool bsh__dfa_match(const struct bsh__dfa *dfa, const unsigned char *subject,
                    size_t len);

/* pattern_dfas.c, generated at build time from patterns.def: the DFA of
 * each critical pattern, in list order. */
extern const struct bsh__dfa bsh__pattern_dfas[];

#endif
