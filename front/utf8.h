/* SPDX-License-Identifier: MIT */
/*
 * UTF-8 validation and repair, written once for the CLI's JSON output and
 * the MCP server's replies (the engine passes bytes through untouched).
 */
#ifndef BSH_FRONT_UTF8_H
#define BSH_FRONT_UTF8_H

#include <stddef.h>

/* The length of the valid UTF-8 sequence at `s` (`n` bytes available,
 * n >= 1), or 0 if none starts there: overlong forms, surrogates and
 * code points past U+10FFFF are invalid. */
size_t utf8_length(const unsigned char *s, size_t n);

/* Repairs the character at `s` (`n` >= 1 bytes available): points
 * `*out` at the bytes that stand for it, the valid sequence itself or
 * U+FFFD for an invalid byte, with their count in `*out_len`, and returns
 * how many input bytes it covers. */
size_t utf8_repair(const unsigned char *s, size_t n, const char **out,
                   size_t *out_len);

#endif
