/* SPDX-License-Identifier: MIT */
#include "display.h"
#include "utf8.h"

#include <stdlib.h>
#include <string.h>

/* Length of the escape sequence at s[0] == ESC (n bytes left). */
static size_t escape_length(const unsigned char *s, size_t n)
{
    if (n < 2)
        return n;
    size_t i = 2;
    if (s[1] == '[') { /* CSI: parameters, intermediates, final byte */
        while (i < n && s[i] >= 0x20 && s[i] <= 0x3f)
            i++;
        return i < n ? i + 1 : n;
    }
    if (s[1] == ']' || s[1] == 'P' || s[1] == '_' || s[1] == '^' ||
        s[1] == 'X') { /* strings, ended by BEL or ESC \ */
        for (; i < n; i++) {
            if (s[i] == 0x07)
                return i + 1;
            if (s[i] == 0x1b && i + 1 < n && s[i + 1] == '\\')
                return i + 2;
        }
        /* Never ended: a stray introducer, not a string that swallows
         * the rest of the output. Only the introducer goes. */
        return 2;
    }
    i = 1; /* ESC, intermediates, final byte */
    while (i < n && s[i] >= 0x20 && s[i] <= 0x2f)
        i++;
    return i < n ? i + 1 : n;
}

int display_make(const unsigned char *p, size_t n, bool terminal,
                 struct display *d)
{
    memset(d, 0, sizeof(*d));
    d->text = malloc(n * 3 + 1); /* each bad byte grows to 3 */
    d->raw = malloc((n * 3 + 1) * sizeof(*d->raw));
    if (d->text == NULL || d->raw == NULL) {
        display_free(d);
        return -1;
    }
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        if (terminal && p[i] == 0x1b) {
            i += escape_length(p + i, n - i);
            continue;
        }
        if (terminal && p[i] == '\r' && i + 1 < n && p[i + 1] == '\n') {
            i++;
            continue;
        }
        const char *src;
        size_t len;
        size_t k = utf8_repair(p + i, n - i, &src, &len);
        memcpy(d->text + o, src, len);
        for (size_t j = 0; j < len; j++)
            d->raw[o + j] = i;
        o += len;
        i += k;
        d->chars++;
    }
    d->text[o] = '\0';
    d->raw[o] = n;
    d->len = o;
    return 0;
}

void display_free(struct display *d)
{
    free(d->text);
    free(d->raw);
    memset(d, 0, sizeof(*d));
}

static bool continuation(char c)
{
    return ((unsigned char)c & 0xc0) == 0x80;
}

size_t display_head_end(const struct display *d, size_t chars)
{
    size_t o = 0;
    for (size_t c = 0; c < chars && o < d->len; c++)
        for (o++; o < d->len && continuation(d->text[o]); o++)
            ;
    return o;
}

size_t display_tail_start(const struct display *d, size_t chars)
{
    size_t o = d->len;
    for (size_t c = 0; c < chars && o > 0; c++)
        for (o--; o > 0 && continuation(d->text[o]); o--)
            ;
    return o;
}

size_t utf8_chars(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += !continuation(s[i]);
    return n;
}
