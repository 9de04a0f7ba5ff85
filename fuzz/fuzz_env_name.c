/* SPDX-License-Identifier: MIT */
/*
 * Fuzz the env-name rule against a POSIX regex of the same text,
 * ^[A-Za-z_][A-Za-z0-9_]*$ over the whole (NUL-free) string.
 */
#include <bsh/bsh.h>
#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static regex_t re;
    static int compiled;
    if (!compiled) {
        if (regcomp(&re, "^[A-Za-z_][A-Za-z0-9_]*$", REG_EXTENDED | REG_NOSUB))
            abort();
        compiled = 1;
    }
    char *name = malloc(size + 1);
    memcpy(name, data, size);
    name[size] = '\0';
    if (strlen(name) == size) { /* the regex sees only up to a NUL */
        int want = regexec(&re, name, 0, NULL, 0) == 0;
        /* The C locale's classes are ASCII: a byte >= 0x80 never matches. */
        if (bsh_env_name_valid(name) != want)
            abort();
    }
    free(name);
    return 0;
}
