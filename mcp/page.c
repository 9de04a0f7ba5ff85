/* SPDX-License-Identifier: MIT */
/*
 * A slice starts at a character: the continuation bytes at `offset`
 * belong to the slice before it. It ends at a character too: one cut by
 * the requested end is finished. Its reduced text is kept within the
 * budget by ending the slice earlier, at the last line that fits (or, in
 * a line longer than the budget, at a character), so the next slice, at
 * offset + length, goes on exactly where this one stopped.
 */
#define _GNU_SOURCE
#include "page.h"
#include "reply.h"
#include "shown.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A slice reads at most this many times its budget in raw bytes: enough
 * for text that reduction shrinks a lot, never the whole of a huge log. */
#define PAGE_RAW_FACTOR 64

static bool continuation(unsigned char c)
{
    return (c & 0xc0) == 0x80;
}

/* `end`, moved past the rest of a character it cuts when the bytes are
 * there (`avail`): over continuation bytes only, as many as its lead
 * byte calls for. */
static size_t finish_character(const unsigned char *p, size_t end, size_t avail)
{
    size_t lead = end;
    while (lead > 0 && end - lead < 3 && continuation(p[lead - 1]))
        lead--;
    if (lead == 0)
        return end;
    lead--;
    unsigned char b = p[lead];
    size_t need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    while (end < avail && end < lead + need && continuation(p[end]))
        end++;
    return end;
}

/* How many continuation bytes at p[back] belong to a character that a
 * lead byte before it (in p[0..back)) starts: those the slice before
 * showed. A stray one belongs to no character and is shown here. */
static size_t claimed(const unsigned char *p, size_t back, size_t n)
{
    size_t j = back;
    while (j > 0 && continuation(p[j - 1]))
        j--;
    if (j == 0)
        return 0;
    unsigned char b = p[j - 1];
    size_t need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    size_t k = 0;
    while (back + k < n && j - 1 + need > back + k && continuation(p[back + k]))
        k++;
    return k;
}

static int reduce_all(const unsigned char *p, size_t n, size_t chars,
                      struct shown *s)
{
    if (shown_init(s) < 0)
        return -1;
    shown_feed(s, p, n, chars, UINT64_MAX);
    shown_finish(s);
    return s->text.failed ? -1 : 0;
}

/* The slice's bytes reduced within `chars`: all of them, or up to the
 * last mark that fits, or (one line longer than that) the longest run of
 * whole characters whose text fits; `*used` says how many bytes. */
static int reduce_slice(const unsigned char *p, size_t n, size_t chars,
                        struct shown *s, size_t *used)
{
    if (reduce_all(p, n, chars + 1, s) < 0)
        return -1;
    *used = n;
    if (s->text.chars <= chars && s->fed == n)
        return 0;
    const struct shown_mark *m = shown_head_mark(s, chars);
    if (m->len > 0) {
        *used = (size_t)m->raw;
        s->text.len = m->len;
        s->text.chars = m->chars;
        s->text.buf[m->len] = '\0';
        return 0;
    }
    /* A binary search over whole characters: the text of a prefix never
     * shrinks as the prefix grows. */
    size_t lo = 0, hi = s->fed < n ? (size_t)s->fed : n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        while (mid > lo && mid < n && continuation(p[mid]))
            mid--;
        if (mid == lo) {
            break;
        }
        shown_release(s);
        if (reduce_all(p, mid, SIZE_MAX, s) < 0)
            return -1;
        if (s->text.chars <= chars)
            lo = mid;
        else
            hi = mid - 1;
    }
    if (lo == 0 && n > 0) { /* not even one character: it goes all the
                                same, its blanks cut, so paging moves on */
        lo = 1;
        while (lo < n && continuation(p[lo]))
            lo++;
    }
    shown_release(s);
    *used = lo;
    if (reduce_all(p, lo, SIZE_MAX, s) < 0)
        return -1;
    if (s->text.chars > chars) {
        size_t o = reduce_text_prefix(&s->text, chars);
        s->text.len = o;
        s->text.chars = chars;
        s->text.buf[o] = '\0';
    }
    return 0;
}

/* The characters the reduction's line may take, and whether it must be
 * the compact one; 0 when a budget that small keeps no line (the counts
 * are in structuredContent). */
static size_t line_room(const struct capture *c, size_t budget, bool *compact)
{
    struct reduce_counts most = {UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX,
                                 UINT64_MAX};
    struct display d;
    size_t full = 0, small = 0;
    if (capture_reduced_line(c, &most, false, &d) == 0)
        full = d.chars;
    display_free(&d);
    if (capture_reduced_line(c, &most, true, &d) == 0)
        small = d.chars;
    display_free(&d);
    *compact = full + 1 + 100 > budget;
    size_t room = (*compact ? small : full) + 1;
    return room + 50 > budget ? 0 : room; /* 0: no line, the slice first */
}

/* The bytes from `from`: at most `n`, and up to 3 more to finish a
 * character. NULL when they cannot be read. */
static unsigned char *read_slice(int fd, uint64_t from, size_t n, uint64_t size,
                                 size_t *avail)
{
    size_t want = n + 3 < size - from ? n + 3 : (size_t)(size - from);
    unsigned char *buf = malloc(want + 1);
    ssize_t got = buf != NULL ? pread(fd, buf, want, (off_t)from) : -1;
    if (got < 0) {
        free(buf);
        return NULL;
    }
    *avail = (size_t)got;
    return buf;
}

/* A slice of the log `c` holds (its fd, path, size and state): the
 * reduced text in `s`, its counts and line in `rd`, the offset taken and
 * the bytes used in `page`. 0, or -1 with the reason in `why`. */
struct page {
    struct shown s;
    struct capture_reduced rd;
    struct display line;
    uint64_t size, from, length;
    int64_t asked; /* the offset as given: past the end, the log's size */
};

static int page_make(const struct capture *c, int64_t offset, int64_t length,
                     size_t budget, struct page *pg, const char **why)
{
    memset(pg, 0, sizeof(*pg));
    pg->size = c->spilled;
    pg->asked = offset;
    pg->from = (uint64_t)offset < pg->size ? (uint64_t)offset : pg->size;
    uint64_t want = length < 0 || (uint64_t)length > pg->size - pg->from
                        ? pg->size - pg->from
                        : (uint64_t)length;
    uint64_t most = (uint64_t)PAGE_RAW_FACTOR * budget;
    size_t back = pg->from < 3 ? (size_t)pg->from : 3;
    size_t n = (size_t)(want < most ? want : most), avail = 0;
    unsigned char *all =
        read_slice(c->spill_fd, pg->from - back, n + back, pg->size, &avail);
    if (all == NULL) {
        *why = "bash_output: the log could not be read";
        return -1;
    }
    avail = avail > back ? avail - back : 0;
    unsigned char *buf = all + back; /* the slice; 3 bytes before it */
    n = n < avail ? n : avail;
    size_t skip = claimed(all, back, back + n);
    size_t end = n > skip ? finish_character(buf, n, avail) : skip;
    bool compact;
    size_t room = line_room(c, budget, &compact), used = 0;
    int rc = reduce_slice(buf + skip, end - skip,
                          budget > room ? budget - room : 0, &pg->s, &used);
    free(all);
    pg->length = skip + used;
    pg->rd.counts = pg->s.red.counts;
    if (rc == 0 && room > 0 && reduce_counts_any(&pg->rd.counts)) {
        rc = capture_reduced_line(c, &pg->rd.counts, compact, &pg->line);
        pg->rd.line.text = pg->line.text;
        pg->rd.line.len = pg->line.len;
    }
    *why = "out of memory";
    return rc;
}

static void page_free(struct page *pg)
{
    display_free(&pg->line);
    shown_release(&pg->s);
}

static json_t *page_fields(const struct page *pg)
{
    return json_pack("{s:I, s:I, s:I}", "log_bytes", (json_int_t)pg->size,
                     "offset", (json_int_t)pg->asked, "length",
                     (json_int_t)pg->length);
}

json_t *reply_for_page(struct mcp_run *r, enum run_phase phase, int64_t offset,
                       int64_t length, size_t max_output)
{
    struct capture *c = &r->cap;
    capture_start_log(c); /* a run whose output all fit has none yet */
    if (c->spill_fd < 0)
        return reply_tool_error("bash_output: this run has no log to page "
                                "through (it could not be written)");
    struct page pg;
    const char *why;
    json_t *res;
    if (page_make(c, offset, length, max_output > 0 ? max_output : r->budget,
                  &pg, &why) < 0) {
        res = reply_tool_error(why);
    } else {
        char nothing[1] = "";
        struct capture_part slice = {
            pg.s.text.buf != NULL ? pg.s.text.buf : nothing, pg.s.text.len, 0};
        res = reply_for_slice(r, phase, &slice, &pg.rd, page_fields(&pg));
    }
    page_free(&pg);
    return res;
}

json_t *reply_for_kept_page(const struct kept_log *k, int64_t offset,
                            int64_t length, size_t budget)
{
    struct capture c;
    memset(&c, 0, sizeof(c));
    c.spill_fd = open(k->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (c.spill_fd < 0)
        return reply_tool_error("bash_output: the run's log is gone");
    snprintf(c.spill_path, sizeof(c.spill_path), "%s", k->path);
    c.spilled = k->size;
    c.spill_cut = k->cut;
    struct page pg;
    const char *why;
    json_t *res = NULL;
    if (page_make(&c, offset, length, budget, &pg, &why) < 0) {
        res = reply_tool_error(why);
    } else {
        /* The reduced text holds no NUL (a control it removes). */
        const char *body = pg.s.text.buf != NULL ? pg.s.text.buf : "";
        bool sep = pg.rd.line.len > 0 && pg.s.text.len > 0 &&
                   body[pg.s.text.len - 1] != '\n';
        json_t *text = json_sprintf("%s%s%s", body, sep ? "\n" : "",
                                    pg.rd.line.len > 0 ? pg.rd.line.text : "");
        json_t *sc = json_pack("{s:n, s:n, s:b, s:s%, s:s, s:i, s:s, s:s}",
                               "exit_code", "signal", "timed_out", 0, "stdout",
                               pg.s.text.buf != NULL ? pg.s.text.buf : "",
                               pg.s.text.len, "stderr", "", "truncated_bytes",
                               0, "state", "exited", "run_id", k->id);
        json_t *fields = page_fields(&pg);
        json_object_update(sc, fields);
        json_decref(fields);
        res = json_pack("{s:[{s:s, s:o}], s:b, s:o}", "content", "type", "text",
                        "text", text, "isError", 0, "structuredContent", sc);
    }
    page_free(&pg);
    close(c.spill_fd);
    return res;
}
