/* SPDX-License-Identifier: MIT */
/*
 * The pre-spawn guards: the absolute-path check and the critical patterns
 * (SPEC 1.2). At build time gen_rules_dfa checks that every pattern
 * compiles with PCRE2 exactly as written and turns each into a DFA table
 * (rules_dfa.c); matching is one table lookup per byte, linear in the
 * command's length where PCRE2's backtracking is not. A pattern that linre
 * cannot take would be matched by PCRE2 instead.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "internal.h"
#include "linre.h"

#include <pcre2.h>
#include <pthread.h>
#include <string.h>

static const struct bsh_pattern patterns[BSH_PATTERN_COUNT] = {
#define BSH_RULE(number, category, regex) {number, category, regex},
#include "rules.def"
#undef BSH_RULE
};

/* PCRE2's compiled patterns: the fallback for a pattern without a DFA
 * (none of the default ones) and the reference the tests compare with.
 * Compiled on first use only. */
static pcre2_code *pcre[BSH_PATTERN_COUNT];
static pthread_once_t pcre_once = PTHREAD_ONCE_INIT;

static void compile_pcre(void)
{
    for (size_t i = 0; i < BSH_PATTERN_COUNT; i++) {
        int code;
        PCRE2_SIZE offset;
        pcre[i] = pcre2_compile((PCRE2_SPTR)patterns[i].regex,
                                PCRE2_ZERO_TERMINATED, 0, &code, &offset, NULL);
    }
}

/* Released at exit so that leak checkers see a clean heap. */
__attribute__((destructor)) static void release_pcre(void)
{
    for (size_t i = 0; i < BSH_PATTERN_COUNT; i++) {
        pcre2_code_free(pcre[i]);
        pcre[i] = NULL;
    }
}

int bsh__pattern_match_dfa(size_t index, const char *s, size_t len)
{
    const struct linre *dfa = &bsh__rule_dfas[index];
    if (dfa->nstates == 0)
        return -1;
    return bsh__linre_match(dfa, (const unsigned char *)s, len);
}

int bsh__pattern_match_pcre(size_t index, const char *s, size_t len)
{
    pthread_once(&pcre_once, compile_pcre);
    if (pcre[index] == NULL)
        return -1;
    pcre2_match_data *md =
        pcre2_match_data_create_from_pattern(pcre[index], NULL);
    if (md == NULL)
        return -1;
    int rc = pcre2_match(pcre[index], (PCRE2_SPTR)s, len, 0, 0, md, NULL);
    pcre2_match_data_free(md);
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    return rc >= 0 ? 1 : -1;
}

/* Whether pattern `index` matches. An engine failure counts as a match:
 * a tripwire that cannot decide fails closed. */
static bool pattern_matches(size_t index, const char *s, size_t len)
{
    int m = bsh__pattern_match_dfa(index, s, len);
    if (m < 0)
        m = bsh__pattern_match_pcre(index, s, len);
    return m != 0;
}

const struct bsh_pattern *bsh_pattern_at(size_t index)
{
    return index < BSH_PATTERN_COUNT ? &patterns[index] : NULL;
}

static int reject(struct bsh_error *err, int pattern, const char *text)
{
    if (err != NULL) {
        memset(err, 0, sizeof(*err));
        err->pattern = pattern;
        bsh__format(err->text_err, sizeof(err->text_err), "%s", text);
    }
    return BSH_EGUARD;
}

int bsh_check(const char *command, size_t len, struct bsh_error *err)
{
    if (command == NULL)
        return BSH_EINVAL;
    if (len > 0 && command[0] == '/')
        return reject(err, 0,
                      "absolute command not allowed, use relative path");
    for (size_t i = 0; i < BSH_PATTERN_COUNT; i++) {
        if (pattern_matches(i, command, len)) {
            char text[BSH_ERROR_MAX];
            bsh__format(text, sizeof(text), "Pattern match found: %s",
                        patterns[i].regex);
            return reject(err, patterns[i].number, text);
        }
    }
    if (err != NULL)
        memset(err, 0, sizeof(*err));
    return BSH_OK;
}
