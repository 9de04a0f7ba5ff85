/* SPDX-License-Identifier: MIT */
/*
 * Build-time generator: checks that every pattern of patterns.def
 * compiles with PCRE2 exactly as written and that linre takes it (the
 * build fails otherwise), and writes each pattern's DFA as static C
 * tables: the library needs no regex engine and compiles nothing when a
 * process starts.
 * Usage: gen_pattern_dfas OUTPUT.c
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "linre.h"

#include <pcre2.h>
#include <stdio.h>

static const struct {
    int number;
    const char *regex;
} rules[] = {
#define BSH_PATTERN(number, category, regex) {number, regex},
#include "patterns.def"
#undef BSH_PATTERN
};

#define NRULES (sizeof(rules) / sizeof(rules[0]))

static int check_pcre2(size_t i)
{
    int code;
    PCRE2_SIZE offset;
    pcre2_code *re =
        pcre2_compile((PCRE2_SPTR)rules[i].regex, PCRE2_ZERO_TERMINATED, 0,
                      &code, &offset, NULL);
    if (re != NULL) {
        pcre2_code_free(re);
        return 0;
    }
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(code, msg, sizeof(msg));
    fprintf(stderr,
            "patterns.def: pattern %d does not compile with PCRE2 at "
            "offset %zu: %s\n",
            rules[i].number, (size_t)offset, (const char *)msg);
    return -1;
}

int main(int argc, char **argv)
{
    FILE *out = argc == 2 ? fopen(argv[1], "we") : NULL;
    if (out == NULL) {
        fprintf(stderr, "usage: gen_pattern_dfas OUTPUT.c\n");
        return 2;
    }
    fprintf(out, "/* Generated from patterns.def by gen_pattern_dfas. */\n"
                 "#include \"dfa.h\"\n\n");
    struct linre *dfa[NRULES];
    for (size_t i = 0; i < NRULES; i++) {
        if (check_pcre2(i) < 0)
            return 1;
        if (linre_compile(rules[i].regex, &dfa[i]) < 0) {
            fprintf(stderr,
                    "patterns.def: pattern %d is outside linre's subset; "
                    "the library has no other engine\n",
                    rules[i].number);
            return 1;
        }
        char name[32];
        snprintf(name, sizeof(name), "pattern%zu", i + 1);
        linre_emit(dfa[i], name, out);
    }
    fprintf(out, "\nconst struct bsh__dfa bsh__pattern_dfas[%zu] = {\n",
            NRULES);
    for (size_t i = 0; i < NRULES; i++) {
        fprintf(out,
                "    {pattern%zu_classes, %d, %d, pattern%zu_trans, "
                "pattern%zu_accept},\n",
                i + 1, dfa[i]->dfa.nclasses, dfa[i]->dfa.nstates, i + 1, i + 1);
        linre_free(dfa[i]);
    }
    fprintf(out, "};\n");
    return fclose(out) == 0 ? 0 : 1;
}
