/* SPDX-License-Identifier: MIT */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "oracle.h"

#include <pcre2.h>
#include <pthread.h>
#include <stdbool.h>

static const char *const regexes[] = {
#define BSH_PATTERN(number, category, regex) regex,
#include "patterns.def"
#undef BSH_PATTERN
};

#define NPATTERNS (sizeof(regexes) / sizeof(regexes[0]))

static pcre2_code *compiled[NPATTERNS];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void compile_all(void)
{
    for (size_t i = 0; i < NPATTERNS; i++) {
        int code;
        PCRE2_SIZE offset;
        compiled[i] =
            pcre2_compile((PCRE2_SPTR)regexes[i], PCRE2_ZERO_TERMINATED, 0,
                          &code, &offset, NULL);
    }
}

/* Released at exit so that leak checkers see a clean heap. */
__attribute__((destructor)) static void release_all(void)
{
    for (size_t i = 0; i < NPATTERNS; i++) {
        pcre2_code_free(compiled[i]);
        compiled[i] = NULL;
    }
}

int linre_oracle_match(size_t index, const char *s, size_t len)
{
    pthread_once(&once, compile_all);
    if (index >= NPATTERNS || compiled[index] == NULL)
        return -1;
    pcre2_match_data *md =
        pcre2_match_data_create_from_pattern(compiled[index], NULL);
    if (md == NULL)
        return -1;
    int rc = pcre2_match(compiled[index], (PCRE2_SPTR)s, len, 0, 0, md, NULL);
    pcre2_match_data_free(md);
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    return rc >= 0 ? 1 : -1;
}
