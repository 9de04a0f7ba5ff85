/* SPDX-License-Identifier: MIT */
/*
 * Build-time generator: checks that every pattern of rules.def compiles
 * with PCRE2 exactly as written (the build fails otherwise) and writes
 * each pattern's DFA as static C tables, so that the library spends no
 * time compiling patterns when a process starts.
 * Usage: gen_rules_dfa OUTPUT.c
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "linre.h"

#include <pcre2.h>
#include <stdio.h>

static const struct {
    int number;
    const char *regex;
} rules[] = {
#define BSH_RULE(number, category, regex) {number, regex},
#include "rules.def"
#undef BSH_RULE
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
            "rules.def: pattern %d does not compile with PCRE2 at "
            "offset %zu: %s\n",
            rules[i].number, (size_t)offset, (const char *)msg);
    return -1;
}

int main(int argc, char **argv)
{
    FILE *out = argc == 2 ? fopen(argv[1], "we") : NULL;
    if (out == NULL) {
        fprintf(stderr, "usage: gen_rules_dfa OUTPUT.c\n");
        return 2;
    }
    fprintf(out, "/* Generated from rules.def by gen_rules_dfa. */\n"
                 "#include \"linre.h\"\n\n");
    struct linre *dfa[NRULES];
    for (size_t i = 0; i < NRULES; i++) {
        if (check_pcre2(i) < 0)
            return 1;
        char name[32];
        snprintf(name, sizeof(name), "rule%zu", i + 1);
        if (bsh__linre_compile(rules[i].regex, &dfa[i]) == 0)
            bsh__linre_emit(dfa[i], name, out);
        else /* outside linre's subset: matched by PCRE2 at run time */
            dfa[i] = NULL;
    }
    fprintf(out, "\nconst struct linre bsh__rule_dfas[%zu] = {\n", NRULES);
    for (size_t i = 0; i < NRULES; i++) {
        if (dfa[i] == NULL) {
            fprintf(out, "    {NULL, 0, 0, NULL, NULL, false},\n");
            continue;
        }
        fprintf(out,
                "    {rule%zu_classes, %d, %d, rule%zu_trans, "
                "rule%zu_accept, false},\n",
                i + 1, dfa[i]->nclasses, dfa[i]->nstates, i + 1, i + 1);
        bsh__linre_free(dfa[i]);
    }
    fprintf(out, "};\n");
    return fclose(out) == 0 ? 0 : 1;
}
