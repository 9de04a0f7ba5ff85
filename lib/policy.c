/* SPDX-License-Identifier: MIT */
/*
 * The pre-spawn guards: the absolute-path check and the critical patterns
 * (SPEC 1.2). Every pattern compiles with PCRE2 exactly as written, which
 * proves the text; matching goes through linre's DFA, whose time is linear
 * in the command's length where PCRE2's backtracking is not. A pattern that
 * linre cannot take is matched by PCRE2 instead.
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

struct compiled {
    pcre2_code *pcre;
    struct linre *dfa;
};

static struct compiled compiled[BSH_PATTERN_COUNT];
static pthread_once_t compiled_once = PTHREAD_ONCE_INIT;

static void compile_patterns(void)
{
    for (size_t i = 0; i < BSH_PATTERN_COUNT; i++) {
        int code;
        PCRE2_SIZE offset;
        compiled[i].pcre =
            pcre2_compile((PCRE2_SPTR)patterns[i].regex, PCRE2_ZERO_TERMINATED,
                          0, &code, &offset, NULL);
        if (bsh__linre_compile(patterns[i].regex, &compiled[i].dfa) < 0)
            compiled[i].dfa = NULL;
    }
}

/* The compiled table lives for the life of the process; release it at exit
 * so that leak checkers see a clean heap. */
__attribute__((destructor)) static void release_patterns(void)
{
    for (size_t i = 0; i < BSH_PATTERN_COUNT; i++) {
        pcre2_code_free(compiled[i].pcre);
        bsh__linre_free(compiled[i].dfa);
        compiled[i].pcre = NULL;
        compiled[i].dfa = NULL;
    }
}

static const struct compiled *compiled_at(size_t index)
{
    pthread_once(&compiled_once, compile_patterns);
    return &compiled[index];
}

int bsh__pattern_match_dfa(size_t index, const char *s, size_t len)
{
    const struct compiled *c = compiled_at(index);
    if (c->dfa == NULL)
        return -1;
    return bsh__linre_match(c->dfa, (const unsigned char *)s, len);
}

int bsh__pattern_match_pcre(size_t index, const char *s, size_t len)
{
    const struct compiled *c = compiled_at(index);
    if (c->pcre == NULL)
        return -1;
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(c->pcre, NULL);
    if (md == NULL)
        return -1;
    int rc = pcre2_match(c->pcre, (PCRE2_SPTR)s, len, 0, 0, md, NULL);
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
