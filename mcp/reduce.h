/* SPDX-License-Identifier: MIT */
/*
 * The reducer (reduce.c): a command's raw output turned into what a person
 * would read on a terminal, for a model that pays for every character.
 * Bytes go in, in chunks of any size; text comes out, valid UTF-8, with
 * counts of what was left out. A chunk boundary anywhere (inside a
 * character, an escape sequence, a CR LF) changes nothing, and memory
 * stays bounded whatever the bytes: a line longer than REDUCE_LINE_MAX
 * characters is let out in pieces of that size.
 *
 * Within the current line the cursor moves as a terminal's does: CR to
 * column 1, BS one left, CSI n G / C / D to a column, right, left; CSI K
 * erases (0: to the end, 1: up to the cursor, 2: the line); characters
 * overwrite what is under the cursor. Every other escape sequence (CSI,
 * OSC ended by BEL or ST, DCS, SOS/PM/APC, two-byte ESC sequences, their
 * C1 forms in UTF-8) is removed, as are C0 and C1 controls but LF and
 * TAB; invalid UTF-8 becomes U+FFFD. Then three or more identical lines
 * become the line once and "[... repeated N more times]".
 */
#ifndef BSH_MCP_REDUCE_H
#define BSH_MCP_REDUCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REDUCE_LINE_MAX 16384
/* A cursor moved past the end of a line leaves at most this many blanks
 * before the next character: a terminal's width is far less, and an
 * escape of a few bytes cannot make the text thousands of times longer. */
#define REDUCE_PAD_MAX 512

/* What was left out, by kind (SPEC 10.1's names). */
struct reduce_counts {
    uint64_t progress_frames;    /* returns to column 1, written over */
    uint64_t escape_sequences;   /* removed or acted on */
    uint64_t repeated_lines;     /* folded away */
    uint64_t control_characters; /* other C0/C1 controls removed */
    uint64_t invalid_utf8;       /* bytes replaced by U+FFFD */
};

/* The text let out so far; grows as needed. */
struct reduce_text {
    char *buf; /* NUL-terminated when not NULL */
    size_t len, cap;
    size_t chars; /* code points in buf */
    bool failed;  /* out of memory: the text is incomplete */
};

struct reducer {
    int state;
    /* A UTF-8 sequence in progress. */
    unsigned char pend[4];
    unsigned pend_len, pend_need;
    /* The CSI in progress: its first parameter and what else it holds. */
    unsigned param;
    bool private_csi, more_params, intermediates;
    /* The current line, as code points, and the cursor's column. */
    uint32_t *line;
    size_t len, col;
    bool returned; /* went back to column 1 over written text */
    /* The last line let out, and how many times it came again since. */
    uint32_t *prev;
    size_t prev_len;
    bool have_prev;
    uint64_t repeats;
    struct reduce_counts counts;
    uint64_t padding; /* blanks a move past the end of a line put there */
    /* Raw bytes: fed so far, where the byte being read and the character
     * being read start, and how many lie behind the text let out so far
     * (the rest is a line or a fold still held). */
    uint64_t fed, at, char_start, emitted;
};

/* 0, or -1 when out of memory. */
int reducer_init(struct reducer *r);
void reducer_release(struct reducer *r);

/* Reduces `n` bytes, appending what they complete to `out`. */
void reducer_feed(struct reducer *r, const unsigned char *p, size_t n,
                  struct reduce_text *out);

/* The output ended: lets out the last line and what was held back. The
 * reducer can be fed again afterwards, as if a new output began. */
void reducer_finish(struct reducer *r, struct reduce_text *out);

/* Whether the reducer is inside a string (OSC, DCS, SOS, PM, APC) that
 * has not ended yet; and a reducer put inside one, for bytes known to
 * continue such a string (a tail that starts where no line ended). */
bool reducer_in_string(const struct reducer *r);
void reducer_enter_string(struct reducer *r);

/* Whether the reducer is between sequences and characters: no escape
 * sequence or UTF-8 character is partly read. */
bool reducer_at_rest(const struct reducer *r);

/* Whether anything was reduced. */
bool reduce_counts_any(const struct reduce_counts *c);

void reduce_text_free(struct reduce_text *t);

/* The byte offset after the first `chars` characters of `t`. */
size_t reduce_text_prefix(const struct reduce_text *t, size_t chars);

#endif
