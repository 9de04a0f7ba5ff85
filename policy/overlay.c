/* SPDX-License-Identifier: MIT */
/*
 * Commands a person approved and asked to be remembered (bsh mcp's
 * elicitation): each an allow rule for exactly those words, no more and
 * no fewer, kept in memory for one MCP session and never written to a
 * file. It turns an `ask` into `allow`; never a `deny`, and never an
 * opaque decision.
 */
#include "decide.h"

#include <stdlib.h>
#include <string.h>

struct bsh_policy_overlay {
    char ***words; /* each a NULL-terminated copy */
    size_t *counts;
    size_t n, cap;
    struct bsh_policy_rule rule; /* what a verdict names */
};

struct bsh_policy_overlay *bsh_policy_overlay_new(void)
{
    struct bsh_policy_overlay *o = calloc(1, sizeof(*o));
    if (o != NULL) {
        o->rule.file = "(approved in this session)";
        o->rule.decision = "allow";
    }
    return o;
}

void bsh_policy_overlay_free(struct bsh_policy_overlay *o)
{
    if (o == NULL)
        return;
    for (size_t i = 0; i < o->n; i++) {
        for (size_t k = 0; k < o->counts[i]; k++)
            free(o->words[i][k]);
        free(o->words[i]);
    }
    free(o->words);
    free(o->counts);
    free(o);
}

bool pol_overlay_allows(const struct bsh_policy_overlay *o,
                        const struct pol_word *w, size_t n,
                        const struct bsh_policy_rule **rule)
{
    if (o == NULL || n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (w[i].dynamic || strlen(w[i].value) != w[i].len)
            return false;
    for (size_t i = 0; i < o->n; i++) {
        if (o->counts[i] != n)
            continue;
        size_t k = 0;
        while (k < n && strcmp(o->words[i][k], w[k].value) == 0)
            k++;
        if (k == n) {
            *rule = &o->rule;
            return true;
        }
    }
    return false;
}

int bsh_policy_overlay_add(struct bsh_policy_overlay *o,
                           const char *const *words, size_t n)
{
    if (o == NULL || words == NULL || n == 0)
        return BSH_EINVAL;
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 8;
        char ***w = realloc(o->words, cap * sizeof(*w));
        if (w == NULL)
            return BSH_ENOMEM;
        o->words = w;
        size_t *c = realloc(o->counts, cap * sizeof(*c));
        if (c == NULL)
            return BSH_ENOMEM;
        o->counts = c;
        o->cap = cap;
    }
    char **copy = calloc(n + 1, sizeof(*copy));
    if (copy == NULL)
        return BSH_ENOMEM;
    for (size_t k = 0; k < n; k++) {
        copy[k] = strdup(words[k]);
        if (copy[k] == NULL) {
            for (size_t j = 0; j < k; j++)
                free(copy[j]);
            free(copy);
            return BSH_ENOMEM;
        }
    }
    o->words[o->n] = copy;
    o->counts[o->n] = n;
    o->n++;
    return BSH_OK;
}
