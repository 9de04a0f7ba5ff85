/* SPDX-License-Identifier: MIT */
/*
 * linre: subset construction of the parser's NFA into a complete DFA, built
 * once when the pattern is compiled. Afterwards a match is one table lookup
 * per byte, with no allocation and no shared mutable state.
 *
 * Assertions (\b, ^, $) depend on the bytes on both sides of a position. A
 * DFA state therefore holds the NFA states reached so far plus what it knows
 * of the previous byte (start of text, word byte); the epsilon closure is
 * taken when the next byte (or the end) is known, so every assertion can be
 * decided. The unanchored search re-enters the NFA start at every position.
 */
#include "linre.h"
#include "nfa.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STATES  4096
#define HASH_SLOTS  (MAX_STATES * 2)
#define STATE_MATCH BSH__DFA_MATCH

enum { FLAG_AT_START = 1, FLAG_PREV_WORD = 2 };

struct dstate {
    unsigned flags;
    int n;
    int *set; /* sorted NFA node indexes */
};

struct builder {
    struct nfa *nfa;
    struct linre *re;
    /* The tables being filled; handed to `re` when complete. */
    uint8_t *byte_class;
    int32_t *trans; /* nstates * nclasses; STATE_MATCH ends the search */
    bool *accept_at_end;
    uint8_t class_byte[256]; /* a representative byte of each class */
    struct dstate *states;
    int hash[HASH_SLOTS]; /* state index + 1; 0 = empty */
    int *stack, *mark, stamp;
    int *closure, nclosure; /* SET nodes of the last closure */
    int *saved;             /* a copy of one closure while stepping */
    int *next;              /* scratch for the next state's set */
};

static bool is_word_byte(unsigned c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
           (c >= 'A' && c <= 'Z') || c == '_';
}

static bool assertion_holds(int kind, unsigned flags, bool next_word,
                            bool at_end)
{
    bool prev_word = (flags & FLAG_PREV_WORD) != 0;
    switch (kind) {
    case ASSERT_WORD:
        return prev_word != (next_word && !at_end);
    case ASSERT_NOT_WORD:
        return prev_word == (next_word && !at_end);
    case ASSERT_BEGIN:
        return (flags & FLAG_AT_START) != 0;
    case ASSERT_END:
        return at_end;
    default:
        return false;
    }
}

/* Two bytes share a class when every SET node and the word test treat them
 * alike; the DFA then needs one column per class, not per byte. Built by
 * refining a partition once per SET node: O(nodes * 256). */
static void build_byte_classes(struct builder *b)
{
    struct linre *re = b->re;
    const struct nfa *nfa = b->nfa;
    int cls[256], next_cls[256], map[256][2], n = 2;
    for (unsigned c = 0; c < 256; c++)
        cls[c] = is_word_byte(c);
    for (int i = -1; i < nfa->count; i++) {
        const struct nfa_node *node = i < 0 ? NULL : &nfa->nodes[i];
        if (node != NULL && node->type != NODE_SET)
            continue;
        memset(map, -1, (size_t)n * sizeof(map[0])); /* classes in use */
        n = 0;
        for (unsigned c = 0; c < 256; c++) {
            int in = node != NULL && linre_byteset_has(&node->set, c);
            if (map[cls[c]][in] < 0)
                map[cls[c]][in] = n++;
            next_cls[c] = map[cls[c]][in];
        }
        memcpy(cls, next_cls, sizeof(cls));
    }
    re->dfa.nclasses = n;
    for (int c = 255; c >= 0; c--) {
        b->byte_class[c] = (uint8_t)cls[c];
        b->class_byte[cls[c]] = (uint8_t)c;
    }
}

/* Follows epsilon edges from the start node and `set` under the given
 * context; collects the SET nodes in b->closure. True if MATCH is reached. */
static bool take_closure(struct builder *b, const struct dstate *st,
                         bool next_word, bool at_end)
{
    const struct nfa *nfa = b->nfa;
    int top = 0;
    bool matched = false;
    b->stamp++;
    b->nclosure = 0;
    b->stack[top++] = nfa->start;
    for (int i = 0; i < st->n; i++)
        b->stack[top++] = st->set[i];
    while (top > 0) {
        int i = b->stack[--top];
        if (i < 0 || b->mark[i] == b->stamp)
            continue;
        b->mark[i] = b->stamp;
        const struct nfa_node *n = &nfa->nodes[i];
        switch (n->type) {
        case NODE_SET:
            b->closure[b->nclosure++] = i;
            break;
        case NODE_SPLIT:
            b->stack[top++] = n->out1;
            b->stack[top++] = n->out;
            break;
        case NODE_ASSERT:
            if (assertion_holds(n->assert_kind, st->flags, next_word, at_end))
                b->stack[top++] = n->out;
            break;
        case NODE_MATCH:
            matched = true;
            break;
        }
    }
    return matched;
}

/* The sets are small: insertion sort beats qsort's call overhead. */
static void sort_ints(int *v, int n)
{
    for (int i = 1; i < n; i++) {
        int x = v[i], j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

static unsigned hash_state(unsigned flags, const int *set, int n)
{
    uint32_t h = 2166136261u ^ flags;
    for (int i = 0; i < n; i++)
        h = (h ^ (uint32_t)set[i]) * 16777619u;
    return h;
}

/* The index of the state (flags, set), added if new; -1 when the DFA
 * would grow past MAX_STATES. */
static int intern_state(struct builder *b, unsigned flags, const int *set,
                        int n)
{
    unsigned slot = hash_state(flags, set, n) % HASH_SLOTS;
    for (;; slot = (slot + 1) % HASH_SLOTS) {
        int id = b->hash[slot] - 1;
        if (id < 0)
            break;
        const struct dstate *s = &b->states[id];
        if (s->flags == flags && s->n == n &&
            memcmp(s->set, set, (size_t)n * sizeof(*set)) == 0)
            return id;
    }
    if (b->re->dfa.nstates >= MAX_STATES)
        return -1;
    int id = b->re->dfa.nstates;
    struct dstate *s = &b->states[id];
    s->set = malloc((size_t)(n > 0 ? n : 1) * sizeof(*set));
    if (s->set == NULL)
        return -1;
    memcpy(s->set, set, (size_t)n * sizeof(*set));
    s->flags = flags;
    s->n = n;
    b->hash[slot] = id + 1;
    b->re->dfa.nstates++;
    return id;
}

/* The successor of `st` on byte `c`, given its closure in b->closure. */
static int step(struct builder *b, unsigned c)
{
    int n = 0;
    for (int i = 0; i < b->nclosure; i++) {
        const struct nfa_node *node = &b->nfa->nodes[b->closure[i]];
        if (linre_byteset_has(&node->set, c))
            b->next[n++] = node->out;
    }
    sort_ints(b->next, n);
    int u = 0;
    for (int i = 0; i < n; i++)
        if (u == 0 || b->next[u - 1] != b->next[i])
            b->next[u++] = b->next[i];
    return intern_state(b, is_word_byte(c) ? FLAG_PREV_WORD : 0, b->next, u);
}

/* Fills the transitions of state `id` for every byte class. The closure
 * depends on the next byte only through whether it is a word byte, so two
 * closures serve all classes. */
static int expand_state(struct builder *b, int id)
{
    struct linre *re = b->re;
    /* b->states does not move (fixed capacity); copy the key anyway so
     * that interning new states cannot disturb it. */
    struct dstate st = b->states[id];
    for (int word = 0; word < 2; word++) {
        bool matched = take_closure(b, &st, word == 1, false);
        int n = b->nclosure;
        memcpy(b->saved, b->closure, (size_t)n * sizeof(*b->closure));
        for (int k = 0; k < re->dfa.nclasses; k++) {
            unsigned c = b->class_byte[k];
            if (is_word_byte(c) != (word == 1))
                continue;
            int to = STATE_MATCH;
            if (!matched) {
                memcpy(b->closure, b->saved, (size_t)n * sizeof(*b->closure));
                b->nclosure = n;
                to = step(b, c);
                if (to < 0)
                    return -1;
            }
            b->trans[(size_t)id * (size_t)re->dfa.nclasses + (size_t)k] = to;
        }
    }
    b->accept_at_end[id] = take_closure(b, &st, false, true);
    return 0;
}

static int determinize(struct builder *b)
{
    struct linre *re = b->re;
    b->trans = malloc((size_t)MAX_STATES * (size_t)re->dfa.nclasses *
                      sizeof(*b->trans));
    b->accept_at_end = calloc(MAX_STATES, sizeof(*b->accept_at_end));
    if (b->trans == NULL || b->accept_at_end == NULL)
        return -1;
    static const int no_nodes[1] = {0}; /* memcmp/memcpy want non-NULL */
    if (intern_state(b, FLAG_AT_START, no_nodes, 0) != 0)
        return -1;
    for (int id = 0; id < re->dfa.nstates; id++)
        if (expand_state(b, id) < 0)
            return -1;
    return 0;
}

static int builder_init(struct builder *b, struct linre *re, struct nfa *nfa)
{
    memset(b->hash, 0, sizeof(b->hash));
    b->re = re;
    b->nfa = nfa;
    b->stamp = 0;
    size_t n = (size_t)nfa->count + 1;
    b->states = malloc(MAX_STATES * sizeof(*b->states));
    b->stack = malloc((3 * n + 2) * sizeof(int));
    b->mark = calloc(n, sizeof(int));
    b->closure = malloc(n * sizeof(int));
    b->byte_class = malloc(256);
    b->saved = malloc(n * sizeof(int));
    b->next = malloc(n * sizeof(int));
    return b->states && b->stack && b->mark && b->closure && b->next ? 0 : -1;
}

static void builder_release(struct builder *b)
{
    if (b->states != NULL)
        for (int i = 0; i < b->re->dfa.nstates; i++)
            free(b->states[i].set);
    free(b->states);
    free(b->stack);
    free(b->mark);
    free(b->closure);
    free(b->saved);
    free(b->byte_class);
    free(b->trans);
    free(b->accept_at_end);
    free(b->next);
}

/* Hands the finished tables to `re`, trimming the transition table to the
 * states that exist. */
static void take_tables(struct builder *b, struct linre *re)
{
    size_t size = (size_t)re->dfa.nstates * (size_t)re->dfa.nclasses;
    int32_t *t = realloc(b->trans, size * sizeof(*t));
    if (t != NULL)
        b->trans = t;
    re->dfa.byte_class = b->byte_class;
    re->dfa.trans = b->trans;
    re->dfa.accept_at_end = b->accept_at_end;
    b->byte_class = NULL;
    b->trans = NULL;
    b->accept_at_end = NULL;
}

int linre_compile(const char *pattern, struct linre **out)
{
    *out = NULL;
    struct nfa *nfa = malloc(sizeof(*nfa)); /* nodes are set as added */
    struct linre *re = calloc(1, sizeof(*re));
    struct builder *b = calloc(1, sizeof(*b));
    int rc = -1;
    if (nfa != NULL)
        nfa->count = nfa->start = 0;
    if (nfa == NULL || re == NULL || b == NULL ||
        linre_nfa_parse(pattern, nfa) < 0 || builder_init(b, re, nfa) < 0)
        goto done;
    build_byte_classes(b);
    rc = determinize(b);
    if (rc == 0)
        take_tables(b, re);
done:
    if (b != NULL && b->re != NULL)
        builder_release(b);
    free(b);
    free(nfa);
    if (rc == 0)
        *out = re;
    else
        free(re); /* its tables were never handed over: the builder's */
    return rc;
}

size_t linre_states(const struct linre *re)
{
    return (size_t)re->dfa.nstates;
}

void linre_free(struct linre *re)
{
    if (re == NULL)
        return;
    free((void *)re->dfa.byte_class);
    free((void *)re->dfa.trans);
    free((void *)re->dfa.accept_at_end);
    free(re);
}

static void emit_ints(FILE *out, const char *type, const char *name, size_t n,
                      long (*at)(const struct linre *, size_t),
                      const struct linre *re)
{
    fprintf(out, "static const %s %s[%zu] = {", type, name, n);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s%ld,", i % 16 == 0 ? "\n    " : " ", at(re, i));
    fprintf(out, "\n};\n");
}

static long class_at(const struct linre *re, size_t i)
{
    return re->dfa.byte_class[i];
}

static long trans_at(const struct linre *re, size_t i)
{
    return re->dfa.trans[i];
}

static long accept_at(const struct linre *re, size_t i)
{
    return re->dfa.accept_at_end[i];
}

void linre_emit(const struct linre *re, const char *name, FILE *out)
{
    char id[64];
    snprintf(id, sizeof(id), "%s_classes", name);
    emit_ints(out, "uint8_t", id, 256, class_at, re);
    snprintf(id, sizeof(id), "%s_trans", name);
    emit_ints(out, "int32_t", id,
              (size_t)re->dfa.nstates * (size_t)re->dfa.nclasses, trans_at, re);
    snprintf(id, sizeof(id), "%s_accept", name);
    emit_ints(out, "bool", id, (size_t)re->dfa.nstates, accept_at, re);
}
