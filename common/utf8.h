/* SPDX-License-Identifier: MIT */
/*
 * UTF-8 validation shared by the CLI's JSON output and the MCP server's
 * replies (the engine itself passes bytes through untouched).
 */
#ifndef BSH_COMMON_UTF8_H
#define BSH_COMMON_UTF8_H

#include <stddef.h>

/* The length of the valid UTF-8 sequence at `s` (`n` bytes available,
 * n >= 1), or 0 if none starts there: overlong forms, surrogates and
 * code points past U+10FFFF are invalid. */
size_t utf8_length(const unsigned char *s, size_t n);

#endif
