/* SPDX-License-Identifier: MIT */
/*
 * Raw output turned into reply text (display.c): valid UTF-8 with every
 * invalid byte as U+FFFD, and for terminal output its escape sequences
 * removed and CRLF turned into LF. Each text byte remembers the raw
 * offset it came from, so that a cut made in characters can say how many
 * raw bytes it left out.
 */
#ifndef BSH_MCP_DISPLAY_H
#define BSH_MCP_DISPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct display {
    char *text;   /* NUL-terminated; may hold NULs from the output */
    size_t len;   /* bytes of text */
    size_t chars; /* characters (code points) of text */
    size_t *raw;  /* raw[i]: raw offset of text byte i; raw[len]: raw end */
};

/* 0, or -1 when out of memory. */
int display_make(const unsigned char *raw, size_t n, bool terminal,
                 struct display *d);
void display_free(struct display *d);

/* The byte offset in d->text after its first `chars` characters. */
size_t display_head_end(const struct display *d, size_t chars);

/* The byte offset in d->text where its last `chars` characters start. */
size_t display_tail_start(const struct display *d, size_t chars);

/* The number of characters in valid UTF-8 `s`. */
size_t utf8_chars(const char *s, size_t len);

#endif
