/* SPDX-License-Identifier: MIT */
#include "dfa.h"

bool bsh__dfa_match(const struct bsh__dfa *dfa, const unsigned char *subject,
                    size_t len)
{
    const int32_t *trans = dfa->trans;
    const size_t ncls = (size_t)dfa->nclasses;
    int32_t s = 0;
    for (size_t i = 0; i < len; i++) {
        s = trans[(size_t)s * ncls + dfa->byte_class[subject[i]]];
        if (s == BSH__DFA_MATCH)
            return true;
    }
    return dfa->accept_at_end[s];
}
