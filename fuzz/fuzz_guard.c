/* SPDX-License-Identifier: MIT */
/*
 * Fuzz the guards: bsh_check() must never crash, and for every pattern
 * the linear DFA must agree with PCRE2 on the same bytes.
 */
#include "internal.h"
#include "oracle.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    struct bsh_error err;
    int rc = bsh_check(s, size, &err);
    if (rc != BSH_OK && rc != BSH_EGUARD)
        abort();
    for (size_t i = 0; i < bsh_pattern_count(); i++) {
        int d = bsh__pattern_matches(i, s, size);
        int p = linre_oracle_match(i, s, size);
        if (p >= 0 && d != p)
            abort(); /* the DFA and PCRE2 disagree */
    }
    return 0;
}
