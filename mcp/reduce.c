/* SPDX-License-Identifier: MIT */
/*
 * The reducer: an ECMA-48 parser in the manner of DEC's terminals (C0
 * controls act inside a sequence; CAN and SUB cancel it; ESC starts a new
 * one), an incremental UTF-8 decoder, one line of cells with a cursor, and
 * the fold of repeated lines. Everything it holds between chunks is in
 * struct reducer, so where a chunk ends never matters.
 */
#include "reduce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    GROUND,
    ESCAPE,        /* after ESC */
    ESCAPE_INTER,  /* ESC and intermediates */
    CSI_PARAMS,    /* CSI, up to its final byte */
    STRING,        /* OSC, DCS, SOS, PM, APC: up to BEL or ST */
    STRING_ESCAPE, /* ESC inside a string: ST if '\' follows */
    STRING_C2,     /* 0xC2 inside a string: ST if 0x9C follows */
    AFTER_STRING,  /* ESC that ended a string: a '\' after it is ST */
};

#define ESC 0x1b
#define CAN 0x18
#define SUB 0x1a
#define BEL 0x07

/* ---- text out ------------------------------------------------------------ */

static bool text_room(struct reduce_text *t, size_t n)
{
    if (t->failed)
        return false;
    if (t->len + n + 1 <= t->cap)
        return true;
    size_t cap = t->cap > 0 ? t->cap : 4096;
    while (cap < t->len + n + 1)
        cap *= 2;
    char *b = realloc(t->buf, cap);
    if (b == NULL) {
        t->failed = true;
        return false;
    }
    t->buf = b;
    t->cap = cap;
    return true;
}

static void text_put(struct reduce_text *t, const char *s, size_t n,
                     size_t chars)
{
    if (!text_room(t, n))
        return;
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    t->buf[t->len] = '\0';
    t->chars += chars;
}

/* Cells as UTF-8 (every cell holds a valid code point). */
static void text_cells(struct reduce_text *t, const uint32_t *c, size_t n)
{
    if (!text_room(t, 4 * n))
        return;
    char *o = t->buf + t->len;
    for (size_t i = 0; i < n; i++) {
        uint32_t u = c[i];
        if (u < 0x80) {
            *o++ = (char)u;
        } else if (u < 0x800) {
            *o++ = (char)(0xc0 | (u >> 6));
            *o++ = (char)(0x80 | (u & 0x3f));
        } else if (u < 0x10000) {
            *o++ = (char)(0xe0 | (u >> 12));
            *o++ = (char)(0x80 | ((u >> 6) & 0x3f));
            *o++ = (char)(0x80 | (u & 0x3f));
        } else {
            *o++ = (char)(0xf0 | (u >> 18));
            *o++ = (char)(0x80 | ((u >> 12) & 0x3f));
            *o++ = (char)(0x80 | ((u >> 6) & 0x3f));
            *o++ = (char)(0x80 | (u & 0x3f));
        }
    }
    t->len = (size_t)(o - t->buf);
    t->buf[t->len] = '\0';
    t->chars += n;
}

void reduce_text_free(struct reduce_text *t)
{
    free(t->buf);
    memset(t, 0, sizeof(*t));
}

size_t reduce_text_prefix(const struct reduce_text *t, size_t chars)
{
    size_t o = 0;
    for (size_t c = 0; c < chars && o < t->len; c++)
        for (o++; o < t->len && ((unsigned char)t->buf[o] & 0xc0) == 0x80; o++)
            ;
    return o;
}

bool reduce_counts_any(const struct reduce_counts *c)
{
    return c->progress_frames + c->escape_sequences + c->repeated_lines +
               c->control_characters + c->invalid_utf8 >
           0;
}

/* ---- lines and the fold -------------------------------------------------- */

int reducer_init(struct reducer *r)
{
    memset(r, 0, sizeof(*r));
    r->line = malloc(REDUCE_LINE_MAX * sizeof(uint32_t));
    r->prev = malloc(REDUCE_LINE_MAX * sizeof(uint32_t));
    if (r->line == NULL || r->prev == NULL) {
        reducer_release(r);
        return -1;
    }
    return 0;
}

void reducer_release(struct reducer *r)
{
    free(r->line);
    free(r->prev);
    memset(r, 0, sizeof(*r));
}

/* What the fold held back: the second of two lines, or the marker for
 * more; `newline` after it unless it ends the output. */
static void let_out_fold(struct reducer *r, struct reduce_text *out,
                         bool newline)
{
    if (r->repeats == 1) {
        text_cells(out, r->prev, r->prev_len);
    } else if (r->repeats > 1) {
        char m[64];
        int n = snprintf(m, sizeof(m), "[... repeated %llu more times]",
                         (unsigned long long)r->repeats);
        text_put(out, m, (size_t)n, (size_t)n);
        r->counts.repeated_lines += r->repeats;
    }
    if (r->repeats > 0 && newline)
        text_put(out, "\n", 1, 1);
    r->repeats = 0;
}

static void clear_line(struct reducer *r)
{
    r->len = r->col = 0;
    r->returned = false;
}

/* The current line is complete (`newline`: a LF ended it). */
static void end_line(struct reducer *r, struct reduce_text *out, bool newline)
{
    if (r->have_prev && r->prev_len == r->len &&
        memcmp(r->prev, r->line, r->len * sizeof(uint32_t)) == 0) {
        r->repeats++;
        clear_line(r);
        return;
    }
    let_out_fold(r, out, true);
    text_cells(out, r->line, r->len);
    if (newline)
        text_put(out, "\n", 1, 1);
    r->emitted = r->at + 1; /* the LF read now ends what was let out */
    memcpy(r->prev, r->line, r->len * sizeof(uint32_t));
    r->prev_len = r->len;
    r->have_prev = true;
    clear_line(r);
}

/* A line too long to hold: what it has so far goes out as it is, and
 * takes no part in the fold. */
static void break_line(struct reducer *r, struct reduce_text *out)
{
    let_out_fold(r, out, true);
    text_cells(out, r->line, r->len);
    r->emitted = r->char_start; /* the character read now is not in it */
    r->have_prev = false;
    clear_line(r);
}

/* A character under the cursor. */
static void put_cell(struct reducer *r, uint32_t u, struct reduce_text *out)
{
    if (r->col > r->len + REDUCE_PAD_MAX)
        r->col = r->len + REDUCE_PAD_MAX;
    if (r->col >= REDUCE_LINE_MAX)
        break_line(r, out);
    if (r->returned) {
        r->counts.progress_frames++;
        r->returned = false;
    }
    r->padding += r->col - (r->col > r->len ? r->len : r->col);
    while (r->len < r->col)
        r->line[r->len++] = ' ';
    r->line[r->col++] = u;
    if (r->col > r->len)
        r->len = r->col;
}

static void carriage_return(struct reducer *r)
{
    if (r->len > 0)
        r->returned = true;
    r->col = 0;
}

/* ---- controls and sequences ---------------------------------------------- */

/* A C0 control (also inside a sequence, where terminals act on it too). */
static void control(struct reducer *r, unsigned char b, struct reduce_text *out)
{
    switch (b) {
    case '\n':
        end_line(r, out, true);
        break;
    case '\r':
        carriage_return(r);
        break;
    case '\b':
        if (r->col > 0 && --r->col == 0 && r->len > 0)
            r->returned = true; /* back at column 1, as CR */
        break;
    case '\t':
        put_cell(r, '\t', out);
        break;
    default:
        r->counts.control_characters++;
    }
}

static unsigned csi_count(const struct reducer *r)
{
    return r->param > 0 ? r->param : 1;
}

/* A CSI's final byte: the moves and erasures within the line act. */
static void csi_final(struct reducer *r, unsigned char f)
{
    r->counts.escape_sequences++;
    if (r->private_csi || r->intermediates)
        return;
    size_t n = csi_count(r);
    switch (f) {
    case 'G':
        if (n == 1 && r->len > 0) /* back to column 1: as CR */
            r->returned = true;
        r->col = n - 1 < REDUCE_LINE_MAX ? n - 1 : REDUCE_LINE_MAX;
        break;
    case 'C':
        r->col = r->col + n < REDUCE_LINE_MAX ? r->col + n : REDUCE_LINE_MAX;
        break;
    case 'D':
        r->col = r->col > n ? r->col - n : 0;
        if (r->col == 0 && r->len > 0)
            r->returned = true;
        break;
    case 'K':
        if (r->more_params)
            break;
        if (r->param == 0 && r->col < r->len) {
            r->len = r->col;
        } else if (r->param == 1) {
            for (size_t i = 0; i <= r->col && i < r->len; i++)
                r->line[i] = ' ';
            if (r->col + 1 >= r->len)
                r->len = 0;
        } else if (r->param == 2) {
            r->len = 0;
        }
        break;
    default:
        break;
    }
}

static void start_csi(struct reducer *r)
{
    r->state = CSI_PARAMS;
    r->param = 0;
    r->private_csi = r->more_params = r->intermediates = false;
}

/* A sequence cut short (by ESC, CAN, SUB, a byte that cannot be in it,
 * or the end of the output) is removed all the same. */
static void abandon(struct reducer *r)
{
    r->counts.escape_sequences++;
    r->state = GROUND;
}

/* A C1 control, written as UTF-8. */
static void c1_control(struct reducer *r, uint32_t u)
{
    switch (u) {
    case 0x9b:
        start_csi(r);
        break;
    case 0x90: /* DCS */
    case 0x98: /* SOS */
    case 0x9d: /* OSC */
    case 0x9e: /* PM */
    case 0x9f: /* APC */
        r->state = STRING;
        break;
    default:
        r->counts.control_characters++;
    }
}

/* ---- UTF-8 --------------------------------------------------------------- */

/* How many bytes a sequence led by `b` has, 0 for a byte that leads none. */
static unsigned utf8_need(unsigned char b)
{
    return b >= 0xc2 && b <= 0xdf   ? 2
           : b >= 0xe0 && b <= 0xef ? 3
           : b >= 0xf0 && b <= 0xf4 ? 4
                                    : 0;
}

/* Whether `b` may be byte `i` (1-based past the lead) of the sequence
 * led by `lead`: no overlong forms, surrogates or code points past
 * U+10FFFF. */
static bool utf8_fits(unsigned char lead, unsigned i, unsigned char b)
{
    if (i == 1) {
        if (lead == 0xe0)
            return b >= 0xa0 && b <= 0xbf;
        if (lead == 0xed)
            return b >= 0x80 && b <= 0x9f;
        if (lead == 0xf0)
            return b >= 0x90 && b <= 0xbf;
        if (lead == 0xf4)
            return b >= 0x80 && b <= 0x8f;
    }
    return b >= 0x80 && b <= 0xbf;
}

static uint32_t utf8_decode(const unsigned char *s, unsigned n)
{
    uint32_t u = n == 2 ? s[0] & 0x1fu : n == 3 ? s[0] & 0x0fu : s[0] & 0x07u;
    for (unsigned i = 1; i < n; i++)
        u = (u << 6) | (s[i] & 0x3fu);
    return u;
}

/* The bytes held so far are not a character: one U+FFFD for them. */
static void invalid(struct reducer *r, unsigned bytes, struct reduce_text *out)
{
    r->counts.invalid_utf8 += bytes;
    r->pend_len = 0;
    put_cell(r, 0xfffd, out);
}

/* A byte of 0x80 or more in the ground state; false when it must be
 * looked at again (it ended an invalid sequence without being part of
 * it). */
static bool utf8_byte(struct reducer *r, unsigned char b,
                      struct reduce_text *out)
{
    if (r->pend_len == 0) {
        r->pend_need = utf8_need(b);
        if (r->pend_need == 0) {
            invalid(r, 1, out);
            return true;
        }
        r->pend[r->pend_len++] = b;
        return true;
    }
    if (!utf8_fits(r->pend[0], r->pend_len, b)) {
        invalid(r, r->pend_len, out);
        return false;
    }
    r->pend[r->pend_len++] = b;
    if (r->pend_len < r->pend_need)
        return true;
    uint32_t u = utf8_decode(r->pend, r->pend_len);
    r->pend_len = 0;
    if (u < 0xa0)
        c1_control(r, u);
    else
        put_cell(r, u, out);
    return true;
}

/* ---- the parser ---------------------------------------------------------- */

/* One byte of the ground state that is not plain printable ASCII. */
static void ground(struct reducer *r, unsigned char b, struct reduce_text *out)
{
    for (;;) {
        if (r->pend_len > 0 && (b < 0x80 || b > 0xbf)) {
            invalid(r, r->pend_len, out); /* cut short by a non-continuation */
        }
        if (r->pend_len == 0)
            r->char_start = r->at;
        if (b >= 0x80) {
            if (utf8_byte(r, b, out))
                return;
            continue;
        }
        if (b == ESC)
            r->state = ESCAPE;
        else if (b == 0x7f)
            r->counts.control_characters++;
        else if (b < 0x20)
            control(r, b, out);
        else
            put_cell(r, b, out);
        return;
    }
}

/* Bytes that act the same inside any sequence but a string; true when
 * `b` was one of them. */
static bool in_sequence(struct reducer *r, unsigned char b,
                        struct reduce_text *out)
{
    if (b == ESC) {
        r->counts.escape_sequences++;
        r->state = ESCAPE;
    } else if (b == CAN || b == SUB) {
        abandon(r);
    } else if (b < 0x20) {
        control(r, b, out);
    } else if (b != 0x7f) {
        return false;
    }
    return true;
}

/* One byte in a state other than the ground; false when the byte must be
 * looked at again in the state it left the parser in. */
static bool sequence_byte(struct reducer *r, unsigned char b,
                          struct reduce_text *out)
{
    switch (r->state) {
    case AFTER_STRING: /* '\': ST, the string counted; else a new ESC */
        r->state = b == '\\' ? GROUND : ESCAPE;
        return b == '\\';
    case ESCAPE:
    case ESCAPE_INTER:
        if (in_sequence(r, b, out))
            return true;
        if (b >= 0x80) {
            abandon(r);
            return false;
        }
        if (r->state == ESCAPE && b == '[') {
            start_csi(r);
        } else if (r->state == ESCAPE && strchr("]PX^_", b) != NULL) {
            r->state = STRING;
        } else if (b >= 0x20 && b <= 0x2f) {
            r->state = ESCAPE_INTER;
        } else {
            r->counts.escape_sequences++;
            r->state = GROUND;
        }
        return true;
    case CSI_PARAMS:
        if (in_sequence(r, b, out))
            return true;
        if (b >= 0x80) {
            abandon(r);
            return false;
        }
        if (b >= '0' && b <= '9') {
            if (!r->more_params && r->param < 100000)
                r->param = r->param * 10 + (unsigned)(b - '0');
        } else if (b == ';' || b == ':') {
            r->more_params = true;
        } else if (b >= 0x3c && b <= 0x3f) {
            r->private_csi = true;
        } else if (b >= 0x20 && b <= 0x2f) {
            r->intermediates = true;
        } else {
            csi_final(r, b);
            r->state = GROUND;
        }
        return true;
    case STRING:
        if (b == BEL) {
            r->counts.escape_sequences++;
            r->state = GROUND;
        } else if (b == ESC) {
            r->state = STRING_ESCAPE;
        } else if (b == CAN || b == SUB) {
            abandon(r);
        } else if (b == 0xc2) {
            r->state = STRING_C2;
        }
        return true;
    case STRING_ESCAPE:
        r->counts.escape_sequences++;
        r->state = AFTER_STRING;
        return false;
    case STRING_C2:
        if (b == 0x9c) {
            r->counts.escape_sequences++;
            r->state = GROUND;
            return true;
        }
        r->state = STRING;
        return false;
    default:
        r->state = GROUND;
        return false;
    }
}

/* Plain printable ASCII appended at the end of the line: most bytes of
 * most output take this way. The bytes it took. */
static size_t ascii_run(struct reducer *r, const unsigned char *p, size_t n)
{
    if (r->returned || r->col != r->len || r->pend_len > 0)
        return 0;
    size_t room = REDUCE_LINE_MAX - r->len, i = 0;
    size_t max = n < room ? n : room;
    uint32_t *cell = r->line + r->len;
    while (i < max && p[i] >= 0x20 && p[i] < 0x7f) {
        cell[i] = p[i];
        i++;
    }
    r->len += i;
    r->col = r->len;
    return i;
}

void reducer_feed(struct reducer *r, const unsigned char *p, size_t n,
                  struct reduce_text *out)
{
    size_t i = 0;
    while (i < n) {
        if (r->state == GROUND) {
            size_t k = ascii_run(r, p + i, n - i);
            i += k;
            if (i == n)
                break;
            if (k == 0 || p[i] < 0x20 || p[i] >= 0x7f) {
                r->at = r->fed + i;
                ground(r, p[i], out);
                i++;
            }
            continue;
        }
        r->at = r->fed + i;
        if (sequence_byte(r, p[i], out))
            i++;
    }
    r->fed += n;
}

bool reducer_at_rest(const struct reducer *r)
{
    return r->state == GROUND && r->pend_len == 0;
}

bool reducer_in_string(const struct reducer *r)
{
    return r->state == STRING || r->state == STRING_ESCAPE ||
           r->state == STRING_C2;
}

void reducer_enter_string(struct reducer *r)
{
    r->state = STRING;
}

void reducer_finish(struct reducer *r, struct reduce_text *out)
{
    if (r->pend_len > 0)
        invalid(r, r->pend_len, out);
    if (r->state == STRING_ESCAPE)
        r->counts.escape_sequences++; /* the string, ended by its ESC */
    if (r->state != GROUND && r->state != AFTER_STRING)
        r->counts.escape_sequences++;
    r->state = GROUND;
    /* A last line without its LF ends the text without one too. */
    bool partial = r->len > 0;
    if (partial) {
        bool again = r->have_prev && r->prev_len == r->len &&
                     memcmp(r->prev, r->line, r->len * sizeof(uint32_t)) == 0;
        if (again) {
            r->repeats++;
        } else {
            let_out_fold(r, out, true);
            text_cells(out, r->line, r->len);
        }
    }
    let_out_fold(r, out, !partial);
    r->emitted = r->fed;
    r->have_prev = false;
    clear_line(r);
}
