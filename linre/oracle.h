/* SPDX-License-Identifier: MIT */
/*
 * The reference the DFAs are checked against (oracle.c): each critical
 * pattern compiled by PCRE2 exactly as written. For tests, fuzzers and
 * benchmarks only; the library never links PCRE2.
 */
#ifndef LINRE_ORACLE_H
#define LINRE_ORACLE_H

#include <stddef.h>

/* Whether pattern `index` (0-based, list order) matches `s` by PCRE2:
 * 1 or 0, or -1 when PCRE2 fails (no memory, match limit). */
int linre_oracle_match(size_t index, const char *s, size_t len);

#endif
