/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "capture.h"
#include "utf8.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int stream_init(struct stream_capture *s, size_t half)
{
    memset(s, 0, sizeof(*s));
    s->head_cap = half;
    s->ring_cap = half + 1;
    s->head = malloc(s->head_cap);
    s->ring = malloc(s->ring_cap);
    return s->head != NULL && s->ring != NULL ? 0 : -1;
}

int capture_init(struct capture *c, size_t budget)
{
    memset(c, 0, sizeof(*c));
    c->budget = budget < 64 ? 64 : budget;
    c->spill_fd = -1;
    c->pending = malloc(c->budget);
    int a = stream_init(&c->out, c->budget / 2);
    int b = stream_init(&c->err, c->budget / 2);
    return c->pending != NULL && a == 0 && b == 0 ? 0 : -1;
}

void capture_release(struct capture *c)
{
    free(c->out.head);
    free(c->out.ring);
    free(c->err.head);
    free(c->err.ring);
    free(c->pending);
    if (c->spill_fd >= 0)
        close(c->spill_fd);
    memset(c, 0, sizeof(*c));
    c->spill_fd = -1;
}

static void stream_add(struct stream_capture *s, const unsigned char *d,
                       size_t n)
{
    size_t h = n < s->head_cap - s->head_len ? n : s->head_cap - s->head_len;
    memcpy(s->head + s->head_len, d, h);
    s->head_len += h;
    s->total += n;
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

static void write_spill(struct capture *c, const unsigned char *d, size_t n)
{
    while (n > 0 && !c->spill_failed) {
        ssize_t w = write(c->spill_fd, d, n);
        if (w < 0) {
            c->spill_failed = true;
            break;
        }
        d += w;
        n -= (size_t)w;
    }
}

/* The output outgrew the budget: open the log file and write what came so
 * far, in arrival order. */
static void start_spill(struct capture *c)
{
    const char *dir = getenv("TMPDIR");
    snprintf(c->spill_path, sizeof(c->spill_path), "%s/bsh-mcp-XXXXXX.log",
             dir != NULL && dir[0] != '\0' ? dir : "/tmp");
    c->spill_fd = mkostemps(c->spill_path, 4, O_CLOEXEC);
    if (c->spill_fd < 0) {
        c->spill_failed = true;
        return;
    }
    write_spill(c, c->pending, c->pending_len);
}

void capture_add(struct capture *c, bool is_err, const unsigned char *data,
                 size_t len)
{
    stream_add(is_err ? &c->err : &c->out, data, len);
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
    start_spill(c);
    write_spill(c, data, len);
}

/* Copies the last `n` bytes seen (n <= ring_cap, n <= total). */
static void ring_tail(const struct stream_capture *s, size_t n, char *dst)
{
    size_t start = (s->ring_pos + s->ring_cap - n) % s->ring_cap;
    size_t first = s->ring_cap - start < n ? s->ring_cap - start : n;
    memcpy(dst, s->ring + start, first);
    memcpy(dst + first, s->ring, n - first);
}

/* The stream cut to `share` bytes: all of it, or head + marker + tail. */
static int cut(const struct stream_capture *s, size_t share,
               const char *spill_path, struct capture_part *p)
{
    memset(p, 0, sizeof(*p));
    if (s->total <= share) {
        /* head and ring together hold everything up to the budget */
        size_t n = (size_t)s->total, h = s->head_len;
        p->text = malloc(n + 1);
        if (p->text == NULL)
            return -1;
        memcpy(p->text, s->head, h);
        ring_tail(s, n - h, p->text + h);
        p->len = n;
        return 0;
    }
    size_t head = share / 2, tail = share - head;
    p->omitted = s->total - share;
    char marker[400];
    int m = snprintf(marker, sizeof(marker),
                     "\n[... %llu bytes omitted; the whole output is in %s "
                     "...]\n",
                     (unsigned long long)p->omitted,
                     spill_path[0] != '\0' ? spill_path
                                           : "(no log file could be written)");
    size_t ml = m > 0 ? (size_t)m : 0;
    p->text = malloc(head + ml + tail + 1);
    if (p->text == NULL)
        return -1;
    memcpy(p->text, s->head, head);
    memcpy(p->text + head, marker, ml);
    ring_tail(s, tail, p->text + head + ml);
    p->len = head + ml + tail;
    return 0;
}

int capture_parts(const struct capture *c, struct capture_part *out,
                  struct capture_part *err)
{
    size_t b = c->budget, half = b / 2;
    size_t out_share = b, err_share = b;
    if (c->out.total + c->err.total > b) {
        /* A stream under half the budget keeps all of it; the other gets
         * the rest. */
        if (c->out.total <= half)
            out_share = (size_t)c->out.total;
        else if (c->err.total <= half)
            out_share = b - (size_t)c->err.total;
        else
            out_share = half;
        err_share = b - out_share;
    }
    const char *path =
        c->spill_fd >= 0 && !c->spill_failed ? c->spill_path : "";
    if (cut(&c->out, out_share, path, out) < 0)
        return -1;
    if (cut(&c->err, err_share, path, err) < 0) {
        free(out->text);
        return -1;
    }
    return 0;
}

char *utf8_sanitize(const char *in, size_t len, size_t *out_len)
{
    char *out = malloc(len * 3 + 1); /* each bad byte grows to 3 */
    if (out == NULL)
        return NULL;
    const unsigned char *p = (const unsigned char *)in;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        size_t n = utf8_length(p + i, len - i);
        if (n == 0) {
            memcpy(out + o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
        } else {
            memcpy(out + o, p + i, n);
            o += n;
            i += n;
        }
    }
    out[o] = '\0';
    *out_len = o;
    return out;
}

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
        return n;
    }
    i = 1; /* ESC, intermediates, final byte */
    while (i < n && s[i] >= 0x20 && s[i] <= 0x2f)
        i++;
    return i < n ? i + 1 : n;
}

size_t terminal_clean(char *s, size_t len)
{
    unsigned char *p = (unsigned char *)s;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        if (p[i] == 0x1b) {
            i += escape_length(p + i, len - i);
        } else if (p[i] == '\r' && i + 1 < len && p[i + 1] == '\n') {
            i++;
        } else {
            p[o++] = p[i++];
        }
    }
    return o;
}
