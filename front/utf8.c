/* SPDX-License-Identifier: MIT */
#include "utf8.h"

size_t utf8_length(const unsigned char *s, size_t n)
{
    unsigned c = s[0], need, min;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        need = 2;
        min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        need = 3;
        min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        need = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if (n < need)
        return 0;
    unsigned cp = c & (0x3fu >> (need - 1));
    for (unsigned i = 1; i < need; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3fu);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return need;
}

size_t utf8_repair(const unsigned char *s, size_t n, const char **out,
                   size_t *out_len)
{
    size_t k = utf8_length(s, n);
    if (k == 0) {
        *out = "\xef\xbf\xbd"; /* U+FFFD */
        *out_len = 3;
        return 1;
    }
    *out = (const char *)s;
    *out_len = k;
    return k;
}
