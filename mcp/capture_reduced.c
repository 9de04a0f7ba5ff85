/* SPDX-License-Identifier: MIT */
/*
 * The reply's text when the output is reduced (SPEC 10.1): per stream its
 * head, reduced as the output came, and, when the head stopped before the
 * end, its tail, reduced now from the ring's window (which starts at a
 * line boundary when it does not join the head). Both are cut at marks,
 * so the marker between them counts the raw bytes left out exactly; the
 * bytes between head and tail are not reduced at all. A line after both
 * streams says what the reduction left out and names the log.
 */
#include "capture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A tail's window is reduced a piece at a time, and what it cannot show
 * is dropped as it goes: memory stays a few times the budget. */
#define TAIL_PIECE 4096

struct rview {
    struct shown *head;
    struct shown tail;
    bool has_tail;
    uint64_t total; /* raw bytes of the stream in this stretch */
    size_t need;    /* characters of the whole text; SIZE_MAX with a tail */
};

/* Whether the first `n` bytes hold what ends a string: BEL, ESC (of ST)
 * or ST as UTF-8. */
static bool ends_string(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] == 0x07 || p[i] == 0x1b ||
            (p[i] == 0xc2 && i + 1 < n && p[i + 1] == 0x9c))
            return true;
    return false;
}

static int reduce_tail(const struct stream_capture *s, size_t budget,
                       struct rview *v)
{
    size_t len =
        s->ring_written < s->ring_cap ? (size_t)s->ring_written : s->ring_cap;
    unsigned char *buf = malloc(len > 0 ? len : 1);
    if (buf == NULL || shown_init(&v->tail) < 0) {
        free(buf);
        return -1;
    }
    v->has_tail = true;
    capture_ring_copy(s, len, buf);
    size_t skip = 0;
    const unsigned char *nl = memchr(buf, '\n', len);
    /* A head that stopped inside a string (a title, a sixel image...),
     * and a window whose first line holds the string's end, or that is one
     * line: the window goes on with that string, which a terminal would
     * not show either. */
    bool in_string = s->head_in_string &&
                     (nl == NULL || ends_string(buf, (size_t)(nl - buf)));
    if (in_string)
        reducer_enter_string(&v->tail.red);
    if (s->ring_written > s->ring_cap) /* a window apart from the head */
        skip = nl != NULL && !in_string ? (size_t)(nl - buf) + 1
                                        : capture_continuation_prefix(buf, len);
    for (size_t off = skip; off < len; off += TAIL_PIECE) {
        size_t k = len - off < TAIL_PIECE ? len - off : TAIL_PIECE;
        shown_feed(&v->tail, buf + off, k, SIZE_MAX, UINT64_MAX);
        if (v->tail.text.chars > 2 * budget)
            shown_drop_front(&v->tail, budget);
    }
    shown_finish(&v->tail);
    free(buf);
    return v->tail.text.failed ? -1 : 0;
}

static int rview_make(struct stream_capture *s, size_t budget, struct rview *v)
{
    memset(v, 0, sizeof(*v));
    v->head = s->shown;
    shown_finish(v->head);
    v->total = v->head->fed + s->ring_written;
    v->need = v->head->text.chars;
    if (s->ring_written == 0)
        return v->head->text.failed ? -1 : 0;
    v->need = SIZE_MAX;
    return reduce_tail(s, budget, v);
}

static void rview_free(struct rview *v)
{
    if (v->has_tail)
        shown_release(&v->tail);
}

static bool continuation(char c)
{
    return ((unsigned char)c & 0xc0) == 0x80;
}

/* The byte offset where the last `chars` characters of `t` start. */
static size_t last_chars(const struct reduce_text *t, size_t chars)
{
    size_t o = t->len;
    for (size_t c = 0; c < chars && o > 0; c++)
        for (o--; o > 0 && continuation(t->buf[o]); o--)
            ;
    return o;
}

/* Where the head's shown text ends, and the raw bytes behind it: at a
 * mark, or, when not even the first line fits, at `chars` characters
 * (whose raw bytes then count as left out). */
static size_t head_end(const struct shown *h, size_t chars, uint64_t *raw)
{
    const struct shown_mark *m = shown_head_mark(h, chars);
    *raw = m->raw;
    if (m->len == 0 && chars > 0 && h->text.len > 0)
        return reduce_text_prefix(&h->text, chars);
    return m->len;
}

/* Where the tail's shown text starts, and the raw offset from which its
 * bytes are shown; as head_end() for a last line longer than `chars`. */
static size_t tail_start(const struct shown *t, size_t chars, uint64_t *raw)
{
    const struct shown_mark *m = shown_tail_mark(t, chars);
    *raw = m->raw;
    if (m == shown_end(t) && chars > 0 && t->text.len > 0)
        return last_chars(&t->text, chars);
    return m->len;
}

static const char *text_of(const struct shown *s)
{
    return s->text.buf != NULL ? s->text.buf : "";
}

/* The stream within `share` characters. */
static int rcut(const struct capture *c, const struct rview *v, size_t share,
                struct capture_part *p)
{
    const struct shown *h = v->head, *t = v->has_tail ? &v->tail : v->head;
    memset(p, 0, sizeof(*p));
    if (!v->has_tail && h->text.chars <= share)
        return capture_part_from(p, text_of(h), h->text.len, "", 0, "", 0);
    struct display m;
    if (capture_marker(c, UINT64_MAX, share, &m) < 0) /* the longest */
        return -1;
    size_t keep = share > m.chars ? share - m.chars : 0;
    display_free(&m);
    size_t hk = keep / 2, tk = keep - hk;
    if (v->has_tail && h->text.chars < hk) {
        tk += hk - h->text.chars;
        hk = h->text.chars;
    } else if (v->has_tail && t->text.chars < tk) {
        hk += tk - t->text.chars;
        tk = t->text.chars;
    }
    uint64_t head_raw, tail_raw;
    size_t he = head_end(h, hk, &head_raw);
    size_t ts = tail_start(t, tk, &tail_raw);
    if (!v->has_tail && ts < he)
        ts = he;
    p->omitted = v->has_tail ? v->total - head_raw - (t->fed - tail_raw)
                 : tail_raw > head_raw ? tail_raw - head_raw
                                       : 0;
    if (p->omitted == 0) /* a tail that joins the head: no marker */
        return capture_part_from(p, text_of(h), he, "", 0, text_of(t) + ts,
                                 t->text.len - ts);
    if (capture_marker(c, p->omitted, share, &m) < 0)
        return -1;
    /* The marker is a line of its own: after a head cut at a line's end,
     * without the newline it starts with. */
    size_t skip = m.len > 0 && he > 0 && text_of(h)[he - 1] == '\n' ? 1 : 0;
    int rc = capture_part_from(p, text_of(h), he, m.text + skip, m.len - skip,
                               text_of(t) + ts, t->text.len - ts);
    display_free(&m);
    return rc;
}

static void add_counts(struct reduce_counts *sum, const struct rview *v)
{
    const struct reduce_counts *parts[2] = {
        &v->head->red.counts, v->has_tail ? &v->tail.red.counts : NULL};
    for (int i = 0; i < 2; i++) {
        if (parts[i] == NULL)
            continue;
        sum->progress_frames += parts[i]->progress_frames;
        sum->escape_sequences += parts[i]->escape_sequences;
        sum->repeated_lines += parts[i]->repeated_lines;
        sum->control_characters += parts[i]->control_characters;
        sum->invalid_utf8 += parts[i]->invalid_utf8;
    }
}

/* "3 progress frames, 1 escape sequence and 2 repeated lines". */
static size_t list_counts(const struct reduce_counts *k, char *buf, size_t size)
{
    const struct {
        uint64_t n;
        const char *one, *many;
    } items[] = {
        {k->progress_frames, "progress frame", "progress frames"},
        {k->escape_sequences, "escape sequence", "escape sequences"},
        {k->repeated_lines, "repeated line", "repeated lines"},
        {k->control_characters, "control character", "control characters"},
        {k->invalid_utf8, "invalid UTF-8 byte", "invalid UTF-8 bytes"},
    };
    size_t total = 0, done = 0, len = 0;
    for (size_t i = 0; i < 5; i++)
        total += items[i].n > 0;
    buf[0] = '\0';
    for (size_t i = 0; i < 5 && len < size; i++) {
        if (items[i].n == 0)
            continue;
        done++;
        const char *sep = done == 1 ? "" : done == total ? " and " : ", ";
        int n = snprintf(buf + len, size - len, "%s%llu %s", sep,
                         (unsigned long long)items[i].n,
                         items[i].n == 1 ? items[i].one : items[i].many);
        len += n > 0 ? (size_t)n : 0;
    }
    return len < size ? len : size - 1;
}

int capture_reduced_line(const struct capture *c, const struct reduce_counts *k,
                         bool compact, struct display *d)
{
    char what[400], text[PATH_MAX + 700];
    if (compact) /* the counts are in structuredContent.reduced */
        snprintf(what, sizeof(what), "parts of the output");
    else
        list_counts(k, what, sizeof(what));
    if (c->spill_fd < 0)
        snprintf(text, sizeof(text),
                 "[bsh: %s left out; no log could be written]", what);
    else if (c->spill_failed)
        snprintf(text, sizeof(text),
                 "[bsh: %s left out; the log %s has the first %llu bytes "
                 "(writing it failed: %s)]",
                 what, c->spill_path, (unsigned long long)c->spilled,
                 strerror(c->spill_errno));
    else if (c->spill_cut)
        snprintf(text, sizeof(text),
                 "[bsh: %s left out; the log %s has the first %llu bytes]",
                 what, c->spill_path, (unsigned long long)c->spilled);
    else
        snprintf(text, sizeof(text),
                 "[bsh: %s left out; the log %s has every byte]", what,
                 c->spill_path);
    return display_make((const unsigned char *)text, strlen(text), false, d);
}

int capture_parts_reduced(struct capture *c, size_t chars,
                          struct capture_part *out, struct capture_part *err,
                          struct capture_reduced *reduced)
{
    struct rview vo, ve;
    memset(out, 0, sizeof(*out));
    memset(err, 0, sizeof(*err));
    memset(&ve, 0, sizeof(ve));
    int rc = rview_make(&c->out, c->budget, &vo);
    if (rc == 0)
        rc = rview_make(&c->err, c->budget, &ve);
    struct reduce_counts k = {0};
    if (rc == 0) {
        add_counts(&k, &vo);
        add_counts(&k, &ve);
    }
    size_t reserve = 0;
    if (rc == 0 && reduce_counts_any(&k)) {
        capture_start_log(c); /* what was left out is there */
        struct display line;
        rc = capture_reduced_line(c, &k, false, &line);
        if (rc == 0 && line.chars + 1 > chars) { /* a budget that small */
            display_free(&line);
            rc = capture_reduced_line(c, &k, true, &line);
        }
        if (rc == 0 && line.chars + 1 > chars) { /* not even that: the */
            display_free(&line); /* counts stay in structuredContent */
            rc = display_make((const unsigned char *)"", 0, false, &line);
        }
        if (rc == 0 && reduced != NULL) {
            reduced->counts = k;
            rc = capture_part_from(&reduced->line, line.text, line.len, "", 0,
                                   "", 0);
            reserve = line.chars > 0 ? line.chars + 1 : 0;
        }
        display_free(&line);
    }
    if (rc == 0) {
        size_t left = chars > reserve ? chars - reserve : 0, so, se;
        capture_shares(left, vo.need, ve.need, &so, &se);
        if (vo.need > so || ve.need > se)
            capture_start_log(c); /* a cut must say where the rest is */
        rc = rcut(c, &vo, so, out);
        if (rc == 0)
            rc = rcut(c, &ve, se, err);
    }
    rview_free(&vo);
    rview_free(&ve);
    if (rc < 0) {
        capture_part_free(out);
        capture_part_free(err);
        if (reduced != NULL)
            capture_part_free(&reduced->line);
    }
    return rc;
}
