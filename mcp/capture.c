/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "capture.h"
#include "display.h"
#include "sink.h"
#include "utf8.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The tail's window holds this many times the budget in raw bytes: at
 * least four times the tail's share (SPEC 10.1). */
#define TAIL_WINDOW_FACTOR 4
/* A head that takes this many times the budget in raw bytes stops, even
 * if its reduced text is short (progress frames, `yes`): the cost of a
 * reply does not grow with the output. */
#define HEAD_RAW_FACTOR 64

int capture_init(struct capture *c, size_t budget, struct spill_dir *dir)
{
    memset(c, 0, sizeof(*c));
    c->budget = budget < 64 ? 64 : budget;
    c->dir = dir;
    c->spill_fd = -1;
    c->out.head_max = c->err.head_max = 2 * c->budget;
    c->out.ring_cap = c->err.ring_cap = 2 * c->budget;
    c->pending = malloc(c->budget);
    return c->pending != NULL ? 0 : -1;
}

static void stream_release(struct stream_capture *s)
{
    free(s->head);
    free(s->ring);
    if (s->shown != NULL)
        shown_release(s->shown);
    free(s->shown);
}

static int stream_reduce(struct stream_capture *s, size_t budget)
{
    s->head_max = 0;
    s->ring_cap = TAIL_WINDOW_FACTOR * budget;
    s->shown = malloc(sizeof(*s->shown));
    if (s->shown == NULL || shown_init(s->shown) < 0) {
        free(s->shown);
        s->shown = NULL;
        return -1;
    }
    return 0;
}

int capture_reduce(struct capture *c)
{
    c->reduce = true;
    return stream_reduce(&c->out, c->budget) < 0 ||
                   stream_reduce(&c->err, c->budget) < 0
               ? -1
               : 0;
}

void capture_release(struct capture *c)
{
    stream_release(&c->out);
    stream_release(&c->err);
    free(c->pending);
    if (c->spill_fd >= 0)
        close(c->spill_fd);
    memset(c, 0, sizeof(*c));
    c->spill_fd = -1;
}

/* Grows the head towards head_max; the bytes that fit. */
static size_t head_room(struct stream_capture *s, size_t n)
{
    size_t want = s->head_len + n < s->head_max ? s->head_len + n : s->head_max;
    if (want > s->head_alloc) {
        size_t alloc = s->head_alloc ? s->head_alloc : 4096;
        while (alloc < want)
            alloc *= 2;
        if (alloc > s->head_max)
            alloc = s->head_max;
        unsigned char *h = realloc(s->head, alloc);
        if (h == NULL)
            return 0;
        s->head = h;
        s->head_alloc = alloc;
    }
    return want - s->head_len;
}

static void ring_add(struct stream_capture *s, const unsigned char *d, size_t n)
{
    if (s->ring == NULL && (s->ring = malloc(s->ring_cap)) == NULL)
        return;
    s->ring_written += n;
    if (n >= s->ring_cap) { /* only the last ring_cap bytes matter */
        d += n - s->ring_cap;
        n = s->ring_cap;
    }
    size_t first =
        s->ring_cap - s->ring_pos < n ? s->ring_cap - s->ring_pos : n;
    memcpy(s->ring + s->ring_pos, d, first);
    memcpy(s->ring, d + first, n - first);
    s->ring_pos = (s->ring_pos + n) % s->ring_cap;
}

/* Reducing: the head takes what it can, the ring the rest. */
static void stream_add_reduced(struct stream_capture *s, size_t budget,
                               const unsigned char *d, size_t n)
{
    size_t h = 0;
    if (!s->head_stopped) {
        struct shown *w = s->shown;
        uint64_t raw_max = (uint64_t)HEAD_RAW_FACTOR * budget;
        h = shown_feed(w, d, n, budget, raw_max);
        /* It stops between sequences and characters, so that the tail's
         * fresh reducer starts where a terminal would be at rest; a
         * string that never ends stops it at twice the raw bound. */
        bool full =
            !w->in_piece && (w->text.chars >= budget || w->fed >= raw_max);
        bool rest = reducer_at_rest(&w->red) || w->fed >= 2 * raw_max;
        if (full && !rest && h < n) { /* a few bytes more, to rest */
            size_t k = 0;
            while (h + k < n && !reducer_at_rest(&w->red) &&
                   w->fed < 2 * raw_max) {
                reducer_feed(&w->red, d + h + k, 1, &w->text);
                w->fed++;
                k++;
            }
            h += k;
            rest = true;
        }
        if ((full && rest) || w->text.failed) {
            s->head_stopped = true;
            s->head_in_string = reducer_in_string(&w->red);
            shown_finish(w);
        }
    }
    if (n > h)
        ring_add(s, d + h, n - h);
}

static void stream_add(struct stream_capture *s, const unsigned char *d,
                       size_t n)
{
    size_t h = s->head_len < s->head_max ? head_room(s, n) : 0;
    if (h > 0) {
        memcpy(s->head + s->head_len, d, h);
        s->head_len += h;
    }
    if (n > h)
        ring_add(s, d + h, n - h);
}

static void write_spill(struct capture *c, const unsigned char *d, size_t n)
{
    if (c->spill_failed)
        return; /* takes no more of the logs' shared room */
    size_t take = c->dir != NULL ? spill_dir_take(c->dir, c->spilled, n) : 0;
    c->spill_cut |= take < n;
    if (take == 0)
        return;
    size_t done = 0;
    while (done < take) {
        ssize_t w = write(c->spill_fd, d + done, take - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) { /* a full disk, a quota, a file size limit */
            c->spill_failed = true;
            c->spill_errno = w < 0 ? errno : ENOSPC;
            break;
        }
        done += (size_t)w;
    }
    c->spilled += done;
}

void capture_start_log(struct capture *c)
{
    if (c->spill_fd >= 0 || c->spill_failed)
        return;
    c->spill_fd = c->dir != NULL ? spill_dir_open(c->dir, c->spill_path,
                                                  sizeof(c->spill_path))
                                 : -1;
    if (c->spill_fd < 0) {
        c->spill_failed = true;
        return;
    }
    write_spill(c, c->pending, c->pending_len);
}

void capture_add(struct capture *c, bool is_err, const unsigned char *data,
                 size_t len)
{
    struct stream_capture *s = is_err ? &c->err : &c->out;
    if (s->shown != NULL)
        stream_add_reduced(s, c->budget, data, len);
    else
        stream_add(s, data, len);
    if (c->spill_fd >= 0) {
        write_spill(c, data, len);
        return;
    }
    if (c->spill_failed)
        return;
    if (c->pending_len + len <= c->budget) {
        memcpy(c->pending + c->pending_len, data, len);
        c->pending_len += len;
        return;
    }
    capture_start_log(c);
    if (c->spill_fd >= 0)
        write_spill(c, data, len);
}

void capture_next_segment(struct capture *c)
{
    capture_start_log(c); /* the log goes on with everything that follows */
    struct stream_capture *streams[2] = {&c->out, &c->err};
    for (int i = 0; i < 2; i++) {
        struct stream_capture *s = streams[i];
        s->head_len = 0;
        s->ring_pos = 0;
        s->ring_written = 0;
        s->head_stopped = s->head_in_string = false;
        if (s->shown != NULL) {
            shown_release(s->shown);
            if (shown_init(s->shown) < 0) { /* out of memory: raw from here */
                free(s->shown);
                s->shown = NULL;
                s->head_max = s->ring_cap;
            }
        }
    }
    c->pending_len = 0;
}

/* ---- the reply's text ------------------------------------------------ */

/* One stream as text: whole when head and ring hold all of it, else its
 * head and its tail apart. */
struct view {
    bool whole;
    struct display head, tail; /* whole: both in `head` */
    uint64_t total;            /* raw bytes of the stream */
    size_t tail_raw;           /* raw bytes behind `tail` */
    size_t chars;              /* whole: its characters; else SIZE_MAX */
};

void capture_ring_copy(const struct stream_capture *s, size_t n,
                       unsigned char *dst)
{
    size_t start = (s->ring_pos + s->ring_cap - n) % s->ring_cap;
    size_t first = s->ring_cap - start < n ? s->ring_cap - start : n;
    memcpy(dst, s->ring + start, first);
    memcpy(dst + first, s->ring, n - first);
}

/* Leaves out a UTF-8 sequence cut short at the end of a head. */
static size_t complete_prefix(const unsigned char *p, size_t n)
{
    for (size_t back = 1; back <= 3 && back <= n; back++) {
        unsigned char c = p[n - back];
        if ((c & 0xc0) == 0x80)
            continue;
        size_t need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
        return need > back && c >= 0xc2 ? n - back : n;
    }
    return n;
}

size_t capture_continuation_prefix(const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i < n && i < 3 && (p[i] & 0xc0) == 0x80)
        i++;
    return i;
}

static int view_make(const struct stream_capture *s, bool terminal,
                     struct view *v)
{
    memset(v, 0, sizeof(*v));
    v->total = s->head_len + s->ring_written;
    v->whole = s->ring_written <= s->ring_cap;
    size_t ring_len =
        s->ring_written < s->ring_cap ? (size_t)s->ring_written : s->ring_cap;
    unsigned char *buf = malloc(s->head_len + ring_len + 1);
    if (buf == NULL)
        return -1;
    int rc;
    if (v->whole) {
        if (s->head_len > 0)
            memcpy(buf, s->head, s->head_len);
        if (ring_len > 0)
            capture_ring_copy(s, ring_len, buf + s->head_len);
        rc = display_make(buf, s->head_len + ring_len, terminal, &v->head);
        v->chars = v->head.chars;
    } else {
        rc = display_make(s->head, complete_prefix(s->head, s->head_len),
                          terminal, &v->head);
        capture_ring_copy(s, ring_len, buf);
        size_t skip = capture_continuation_prefix(buf, ring_len);
        v->tail_raw = ring_len - skip;
        if (rc == 0)
            rc = display_make(buf + skip, v->tail_raw, terminal, &v->tail);
        v->chars = SIZE_MAX;
    }
    free(buf);
    return rc;
}

static void view_free(struct view *v)
{
    display_free(&v->head);
    display_free(&v->tail);
}

/* The marker's text in its full form (where the log is) or short. */
static void marker_text(const struct capture *c, uint64_t omitted, bool full,
                        char *text, size_t size)
{
    unsigned long long n = (unsigned long long)omitted;
    if (!full)
        snprintf(text, size, "\n[... %llu bytes omitted ...]\n", n);
    else if (c->spill_fd < 0)
        snprintf(text, size,
                 "\n[... %llu bytes omitted; no log file could be written "
                 "...]\n",
                 n);
    else if (c->spill_failed)
        snprintf(text, size,
                 "\n[... %llu bytes omitted; the first %llu bytes of the "
                 "output are in %s (writing the log failed: %s) ...]\n",
                 n, (unsigned long long)c->spilled, c->spill_path,
                 strerror(c->spill_errno));
    else if (c->spill_cut)
        snprintf(text, size,
                 "\n[... %llu bytes omitted; the first %llu bytes of the "
                 "output are in %s (the log was cut at its size limit) ...]\n",
                 n, (unsigned long long)c->spilled, c->spill_path);
    else
        snprintf(text, size,
                 "\n[... %llu bytes omitted; the whole output is in %s ...]\n",
                 n, c->spill_path);
}

int capture_marker(const struct capture *c, uint64_t omitted, size_t room,
                   struct display *m)
{
    char text[PATH_MAX + 200];
    /* The form is chosen with the longest count, so that the marker never
     * takes more than was kept for it: the full form, the short one (the
     * reduction's line names the log), or none at all. */
    bool forms[2] = {true, false};
    for (int f = 0; f < 2; f++) {
        marker_text(c, UINT64_MAX, forms[f], text, sizeof(text));
        if (display_make((const unsigned char *)text, strlen(text), false, m) <
            0)
            return -1;
        size_t longest = m->chars;
        display_free(m);
        if (longest <= room) {
            marker_text(c, omitted, forms[f], text, sizeof(text));
            return display_make((const unsigned char *)text, strlen(text),
                                false, m);
        }
    }
    return display_make((const unsigned char *)"", 0, false, m);
}

int capture_part_from(struct capture_part *p, const char *a, size_t la,
                      const char *b, size_t lb, const char *x, size_t lx)
{
    p->text = malloc(la + lb + lx + 1);
    if (p->text == NULL)
        return -1;
    memcpy(p->text, a, la);
    memcpy(p->text + la, b, lb);
    memcpy(p->text + la + lb, x, lx);
    p->len = la + lb + lx;
    p->text[p->len] = '\0';
    return 0;
}

/* The stream within `share` characters. */
static int cut(const struct capture *c, const struct view *v, size_t share,
               struct capture_part *p)
{
    memset(p, 0, sizeof(*p));
    if (v->chars <= share)
        return capture_part_from(p, v->head.text, v->head.len, "", 0, "", 0);
    struct display m;
    if (capture_marker(c, UINT64_MAX, share, &m) < 0) /* the longest */
        return -1;
    size_t keep = share > m.chars ? share - m.chars : 0;
    display_free(&m);
    const struct display *h = &v->head, *t = v->whole ? &v->head : &v->tail;
    size_t he = display_head_end(h, keep / 2);
    size_t ts = display_tail_start(t, keep - keep / 2);
    if (v->whole && ts < he)
        ts = he;
    uint64_t tail_from =
        v->whole ? t->raw[ts] : v->total - v->tail_raw + t->raw[ts];
    p->omitted = tail_from - h->raw[he];
    if (capture_marker(c, p->omitted, share, &m) < 0)
        return -1;
    int rc = capture_part_from(p, h->text, he, m.text, m.len, t->text + ts,
                               t->len - ts);
    display_free(&m);
    return rc;
}

void capture_shares(size_t chars, size_t out_need, size_t err_need,
                    size_t *out_share, size_t *err_share)
{
    size_t half = chars / 2;
    if ((out_need <= chars && err_need <= chars - out_need) || out_need <= half)
        *out_share = out_need;
    else if (err_need <= half)
        *out_share = chars - err_need;
    else
        *out_share = chars - half;
    *err_share = chars - *out_share;
}

int capture_parts(struct capture *c, bool terminal, size_t chars,
                  struct capture_part *out, struct capture_part *err,
                  struct capture_reduced *reduced)
{
    if (reduced != NULL)
        memset(reduced, 0, sizeof(*reduced));
    if (c->out.shown != NULL && c->err.shown != NULL)
        return capture_parts_reduced(c, chars, out, err, reduced);
    struct view vo, ve;
    int rc = view_make(&c->out, terminal, &vo);
    if (rc == 0)
        rc = view_make(&c->err, false, &ve);
    else
        memset(&ve, 0, sizeof(ve));
    memset(out, 0, sizeof(*out));
    memset(err, 0, sizeof(*err));
    if (rc == 0) {
        size_t so, se;
        capture_shares(chars, vo.chars, ve.chars, &so, &se);
        if (vo.chars > so || ve.chars > se)
            capture_start_log(c); /* a cut must say where the rest is */
        rc = cut(c, &vo, so, out);
        if (rc == 0)
            rc = cut(c, &ve, se, err);
    }
    view_free(&vo);
    view_free(&ve);
    if (rc < 0) {
        capture_part_free(out);
        capture_part_free(err);
    }
    return rc;
}

void capture_part_free(struct capture_part *p)
{
    free(p->text);
    p->text = NULL;
    p->len = 0;
}
