/* SPDX-License-Identifier: MIT */
#include "shown.h"

#include <stdlib.h>
#include <string.h>

/* Bytes fed at a time at most (a line, or this much of a long one), so
 * that feeding stops soon after the text holds what was asked. */
#define SHOWN_PIECE 4096

static void mark(struct shown *s)
{
    /* Bytes that made no text yet (a line held for the fold, a partial
     * line) belong to the next mark, whose text shows them. */
    if (s->text.len == s->marks[s->count - 1].len)
        return;
    if (s->count == s->cap) {
        size_t cap = s->cap * 2;
        struct shown_mark *m = realloc(s->marks, cap * sizeof(*m));
        if (m == NULL) {
            s->text.failed = true;
            return;
        }
        s->marks = m;
        s->cap = cap;
    }
    s->marks[s->count++] =
        (struct shown_mark){s->text.len, s->text.chars, s->red.emitted};
}

int shown_init(struct shown *s)
{
    memset(s, 0, sizeof(*s));
    s->cap = 64;
    s->marks = calloc(s->cap, sizeof(*s->marks));
    s->count = 1;
    if (s->marks == NULL || reducer_init(&s->red) < 0) {
        shown_release(s);
        return -1;
    }
    return 0;
}

void shown_release(struct shown *s)
{
    reducer_release(&s->red);
    reduce_text_free(&s->text);
    free(s->marks);
    memset(s, 0, sizeof(*s));
}

size_t shown_feed(struct shown *s, const unsigned char *p, size_t n,
                  size_t chars, uint64_t raw)
{
    size_t i = 0;
    while (i < n && !s->text.failed &&
           (s->in_piece || (s->text.chars < chars && s->fed < raw))) {
        uint64_t to_end = SHOWN_PIECE - s->fed % SHOWN_PIECE;
        if (raw > s->fed && raw - s->fed < to_end)
            to_end = raw - s->fed;
        size_t piece = n - i < to_end ? n - i : (size_t)to_end;
        const unsigned char *nl = memchr(p + i, '\n', piece);
        size_t k = nl != NULL ? (size_t)(nl - (p + i)) + 1 : piece;
        reducer_feed(&s->red, p + i, k, &s->text);
        s->fed += k;
        i += k;
        s->in_piece = nl == NULL && k < to_end;
        mark(s);
    }
    return i;
}

void shown_finish(struct shown *s)
{
    if (s->finished)
        return;
    s->finished = true;
    reducer_finish(&s->red, &s->text);
    mark(s);
}

const struct shown_mark *shown_head_mark(const struct shown *s, size_t chars)
{
    size_t lo = 0, hi = s->count - 1; /* marks grow: a binary search */
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (s->marks[mid].chars <= chars)
            lo = mid;
        else
            hi = mid - 1;
    }
    return &s->marks[lo];
}

const struct shown_mark *shown_tail_mark(const struct shown *s, size_t chars)
{
    size_t total = s->text.chars, lo = 0, hi = s->count - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (total - s->marks[mid].chars <= chars)
            hi = mid;
        else
            lo = mid + 1;
    }
    return &s->marks[lo];
}

void shown_drop_front(struct shown *s, size_t chars)
{
    size_t k = (size_t)(shown_tail_mark(s, chars) - s->marks);
    if (k == 0)
        return;
    struct shown_mark from = s->marks[k];
    memmove(s->text.buf, s->text.buf + from.len, s->text.len - from.len + 1);
    s->text.len -= from.len;
    s->text.chars -= from.chars;
    memmove(s->marks, s->marks + k, (s->count - k) * sizeof(*s->marks));
    s->count -= k;
    for (size_t i = 0; i < s->count; i++) {
        s->marks[i].len -= from.len;
        s->marks[i].chars -= from.chars;
    }
}

const struct shown_mark *shown_end(const struct shown *s)
{
    return &s->marks[s->count - 1];
}
