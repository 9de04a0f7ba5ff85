/* SPDX-License-Identifier: MIT */
/*
 * One stretch of a stream's output reduced for the reply (shown.c): the
 * reducer's text, and marks that tie it back to the raw bytes. A mark is
 * put wherever the text grew, after a line (or a chunk) was fed, and says
 * how many raw bytes lie behind the text up to it; so a cut made at a
 * mark says exactly how many raw bytes it left out.
 */
#ifndef BSH_MCP_SHOWN_H
#define BSH_MCP_SHOWN_H

#include "reduce.h"

#include <stdint.h>

struct shown_mark {
    size_t len, chars; /* of the text up to the mark */
    uint64_t raw;      /* raw bytes behind it */
};

struct shown {
    struct reducer red;
    struct reduce_text text;
    struct shown_mark *marks; /* marks[0] is {0, 0, 0} */
    size_t count, cap;
    uint64_t fed; /* raw bytes fed */
    bool finished;
    /* The last feed ended inside a piece (a line, or 4 KiB counted from
     * the start): feeding stops only at a piece's end, so where the
     * chunks of output end never moves where a stretch stops. */
    bool in_piece;
};

/* 0, or -1 when out of memory. */
int shown_init(struct shown *s);
void shown_release(struct shown *s);

/* Feeds bytes a line (or 4 KiB of a long line) at a time until the text
 * holds `chars` characters or `raw` bytes were fed; the bytes it took (all
 * of them unless it stopped). A mark's raw count is where the reducer let
 * out its text, so the bytes of a line it still holds belong to the next
 * mark. */
size_t shown_feed(struct shown *s, const unsigned char *p, size_t n,
                  size_t chars, uint64_t raw);

/* The stretch ended: lets out what the reducer held back (once). */
void shown_finish(struct shown *s);

/* The last mark whose text has at most `chars` characters. */
const struct shown_mark *shown_head_mark(const struct shown *s, size_t chars);

/* The first mark after which at most `chars` characters of text follow. */
const struct shown_mark *shown_tail_mark(const struct shown *s, size_t chars);

/* Drops the text before the first mark after which at most `chars`
 * characters follow (the marks keep their raw offsets): a tail reduced
 * from its window keeps no more than it can show. */
void shown_drop_front(struct shown *s, size_t chars);

/* The last mark. */
const struct shown_mark *shown_end(const struct shown *s);

#endif
