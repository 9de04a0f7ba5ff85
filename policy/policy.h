/* SPDX-License-Identifier: MIT */
/*
 * The command policy inside the engine: rules loaded from codex-style
 * `.rules` files, and the parts that decide a command against them. The
 * public face is bsh_policy_* in <bsh/bsh.h>; this header joins the files
 * of policy/ (rule files, example words, the bash tree walk, wrappers,
 * deciding).
 */
#ifndef BSH_POLICY_H
#define BSH_POLICY_H

#include <bsh/bsh.h>

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A byte string that may hold NUL (a rule token written with \0 never
 * matches a word bash passes, which cannot hold one). */
struct pol_str {
    char *s; /* NUL-terminated as well */
    size_t len;
};

/* One position of a pattern: its alternatives. */
struct pol_alts {
    size_t n;
    struct pol_str *v;
    const char **c; /* the same strings, for the public rule view */
};

struct pol_rule {
    struct bsh_policy_rule pub; /* what a verdict shows */
    struct pol_alts *pattern;
    size_t npattern;
};

struct pol_host {
    char *name;
    char **paths; /* absolute, `~/` expanded */
    size_t npaths;
};

struct pol_key {
    const char *s;
    size_t len;
    uint32_t rule;
};

struct bsh_policy {
    struct pol_rule **rules;
    size_t nrules, cap_rules;
    struct pol_host *hosts;
    size_t nhosts, cap_hosts;
    char **files; /* the names rules point to */
    size_t nfiles;
    enum bsh_decision default_decision;
    /* Every first-position token of every rule, with its rule's index,
     * sorted: the rules a command word may match, found by search. */
    struct pol_key *keys;
    size_t nkeys;
    /* A parser kept from one decision for the next (decisions on other
     * threads at once make their own). */
    _Atomic(void *) spare_parser;
};

/* Sorts the first tokens of the rules for pol_rules_for(); 0 or -1. */
int pol_index_rules(struct bsh_policy *policy);

/* The indices (ascending, once each) of the rules whose first token may
 * match command word `w` (as written, by its basename, `.` and `source`
 * alike), into `out`; false when there are more than `max`. */
bool pol_rules_for(const struct bsh_policy *policy, const char *w, size_t len,
                   uint32_t *out, size_t max, size_t *n);

/* A parser for a decision with `policy`: its spare one, or a new one. */
struct TSParser *pol_policy_parser_take(const struct bsh_policy *policy);
/* Gives it back: kept as the spare, or freed. */
void pol_policy_parser_give(const struct bsh_policy *policy,
                            struct TSParser *parser);

/* A position and message of the first error in a rule file. */
struct pol_error {
    char text[1024]; /* cut to BSH_ERROR_MAX on the way out */
};

/* Counts for `bsh policy check`, and warnings as they come. */
struct pol_load_info {
    size_t rules, examples;
    bool untrusted; /* a project file: its allow rules are dropped */
    void (*warn)(void *data, const char *message);
    void *warn_data;
};

/* Parses one rule file's text into `policy`. 0, or -1 with `err` set to
 * "policy: NAME:LINE:COL: MESSAGE" (or "policy: NAME: ..." for the
 * file as a whole). */
int pol_rules_parse(struct bsh_policy *policy, const char *text, size_t len,
                    const char *name, struct pol_load_info *info,
                    struct pol_error *err);

/* Splits an example string into the words of one plain shell command.
 * 0 with `*words`/`*n` (free with pol_words_free), or -1 when it holds an
 * expansion or an operator (or memory ran out: *n is then SIZE_MAX). */
int pol_example_words(const char *s, size_t len, struct pol_str **words,
                      size_t *n);
void pol_words_free(struct pol_str *words, size_t n);

/* Whether `words` match `rule`'s pattern token by token (no basename or
 * other rule of a command word). */
bool pol_pattern_matches_exactly(const struct pol_rule *rule,
                                 const struct pol_str *words, size_t n);

void pol_policy_clear(struct bsh_policy *policy);

#endif
