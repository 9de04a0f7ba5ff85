/* SPDX-License-Identifier: MIT */
/*
 * The pre-spawn guards: the absolute-path check and the critical patterns.
 * At build time every pattern is checked to compile with PCRE2 exactly as
 * written and turned into a DFA (linre/gen_pattern_dfas.c; the build fails
 * for a pattern outside linre's subset), so a check here is one table
 * walk per pattern, linear in the command's length where PCRE2's
 * backtracking is not, with no regex engine in the library at all.
 */
#include "dfa.h"
#include "internal.h"

#include <string.h>

static const struct bsh_pattern patterns[] = {
#define BSH_PATTERN(number, category, regex) {number, category, regex},
#include "patterns.def"
#undef BSH_PATTERN
};

#define NPATTERNS (sizeof(patterns) / sizeof(patterns[0]))

bool bsh__pattern_matches(size_t index, const char *s, size_t len)
{
    return bsh__dfa_match(&bsh__pattern_dfas[index], (const unsigned char *)s,
                          len);
}

size_t bsh_pattern_count(void)
{
    return NPATTERNS;
}

const struct bsh_pattern *bsh_pattern_at(size_t index)
{
    return index < NPATTERNS ? &patterns[index] : NULL;
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
    for (size_t i = 0; i < NPATTERNS; i++) {
        if (bsh__pattern_matches(i, command, len)) {
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
