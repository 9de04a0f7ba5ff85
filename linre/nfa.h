/* SPDX-License-Identifier: MIT */
/*
 * The Thompson NFA between linre's parser and its DFA builder.
 */
#ifndef LINRE_NFA_H
#define LINRE_NFA_H

#include <stdbool.h>
#include <stdint.h>

/* A set of bytes, one bit per byte value. */
struct byteset {
    uint64_t bits[4];
};

static inline bool linre_byteset_has(const struct byteset *s, unsigned c)
{
    return (s->bits[c >> 6] >> (c & 63)) & 1;
}

enum node_type {
    NODE_SET,    /* consume one byte in `set`, go to `out` */
    NODE_SPLIT,  /* go to `out` and `out1` */
    NODE_ASSERT, /* go to `out` if `assert_kind` holds here */
    NODE_MATCH,
};

/* The order matches the escape letters "bBAz" in the parser. */
enum assert_kind {
    ASSERT_WORD = 1, /* \b */
    ASSERT_NOT_WORD, /* \B */
    ASSERT_BEGIN,    /* ^ or \A: start of text */
    ASSERT_END,      /* $ or \z: end of text */
};

struct nfa_node {
    enum node_type type;
    int out, out1;
    int assert_kind;
    struct byteset set;
};

#define NFA_MAX_NODES 2048

struct nfa {
    struct nfa_node nodes[NFA_MAX_NODES];
    int count;
    int start;
};

/* Parses `pattern` into `nfa` (empty: count 0); 0 or -1 when the
 * pattern is outside the supported subset. */
int linre_nfa_parse(const char *pattern, struct nfa *nfa);

#endif
