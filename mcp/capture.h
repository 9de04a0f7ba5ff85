/* SPDX-License-Identifier: MIT */
/*
 * Bounded capture of one call's output for the MCP reply (capture.c): per
 * stream its head and a ring of its tail, and, once the output outgrows
 * the budget, the whole output (stdout and stderr in arrival order)
 * spilled to a log in the server's spill directory. Memory per call stays
 * a few times the budget whatever the command prints; the log keeps the
 * rest, up to its size limit.
 *
 * The budget counts characters of reply text, markers included: the head
 * and ring each hold up to twice the budget in bytes, so that any output
 * of at most `budget` characters (4 bytes each at most) comes back whole.
 */
#ifndef BSH_MCP_CAPTURE_H
#define BSH_MCP_CAPTURE_H

#include "display.h"
#include "reduce.h"
#include "shown.h"
#include "spill.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stream_capture {
    unsigned char *head, *ring; /* allocated as they fill */
    size_t head_len, head_alloc, head_max;
    size_t ring_pos, ring_cap; /* ring_pos: next write position */
    uint64_t ring_written;     /* bytes that went past the head */
    /* Reducing (SPEC 10): the head is reduced as it arrives, in place of
     * `head`, until it holds the budget or HEAD_RAW_FACTOR times it in
     * raw bytes; the ring keeps the bytes after it for the tail. */
    struct shown *shown;
    bool head_stopped;
    bool head_in_string; /* it stopped inside an OSC, DCS... string */
};

struct capture {
    size_t budget;         /* characters of reply text */
    struct spill_dir *dir; /* where the log goes; NULL: nowhere */
    struct stream_capture out, err;
    unsigned char *pending; /* arrival-order output until it spills */
    size_t pending_len;
    int spill_fd;
    char spill_path[PATH_MAX];
    bool spill_failed; /* a write to the log failed (spill_errno says why) */
    int spill_errno;
    uint64_t spilled; /* bytes in the log */
    bool spill_cut;   /* the log reached its size limit */
    bool reduce;      /* the reply shows reduced text (SPEC 10) */
};

/* 0, or -1 when out of memory. The reply shows the raw output (only
 * made valid UTF-8, and a terminal's escapes removed) unless
 * capture_reduce() is called before any output. */
int capture_init(struct capture *c, size_t budget, struct spill_dir *dir);

/* The reply shows the output reduced (reduce.h). 0, or -1. */
int capture_reduce(struct capture *c);
void capture_release(struct capture *c);

/* Adds a chunk of stdout (is_err false) or stderr. */
void capture_add(struct capture *c, bool is_err, const unsigned char *data,
                 size_t len);

/* Starts the next part of a run's output (what the next reply shows):
 * the head and tail start empty, and the log, opened now if it was not
 * yet, goes on holding the whole output. */
void capture_next_segment(struct capture *c);

/* One stream's share of the reply as valid UTF-8: all of it, or its head,
 * a marker that says what was left out and where it is, and its tail. */
struct capture_part {
    char *text; /* malloc'd, NUL-terminated (may hold NULs) */
    size_t len;
    uint64_t omitted; /* raw bytes of this stream left out */
};

/* What the reduction left out of a reply: the counts, and the line that
 * says so and names the log ("" when nothing was). */
struct capture_reduced {
    struct reduce_counts counts;
    struct capture_part line;
};

/* Both streams as reply text of at most `chars` characters together
 * (markers and the reduction's line included, unless `chars` is smaller
 * than a marker); stdout is terminal output when `terminal` (raw only).
 * `reduced` may be NULL when not reducing. 0, or -1 when out of memory. */
int capture_parts(struct capture *c, bool terminal, size_t chars,
                  struct capture_part *out, struct capture_part *err,
                  struct capture_reduced *reduced);

void capture_part_free(struct capture_part *p);

/* ---- shared by capture.c and capture_reduced.c ---- */

/* The reply's text from the reduced heads and tails (capture_reduced.c). */
int capture_parts_reduced(struct capture *c, size_t chars,
                          struct capture_part *out, struct capture_part *err,
                          struct capture_reduced *reduced);
/* The line that says what the reduction left out (`compact`: not by
 * kind) and what the log holds. */
int capture_reduced_line(const struct capture *c, const struct reduce_counts *k,
                         bool compact, struct display *d);
/* The ring's contents in order, the last `n` bytes. */
void capture_ring_copy(const struct stream_capture *s, size_t n,
                       unsigned char *dst);
/* How many UTF-8 continuation bytes (at most 3) start `p`. */
size_t capture_continuation_prefix(const unsigned char *p, size_t n);
/* The marker between head and tail within `room` characters, as valid
 * UTF-8 (the log's path may not be): the full form that says where the
 * log is, a short one, or "" when neither fits; `omitted` UINT64_MAX
 * gives the longest it can be. */
int capture_marker(const struct capture *c, uint64_t omitted, size_t room,
                   struct display *m);
/* `p` made of the three pieces, one after the other. */
int capture_part_from(struct capture_part *p, const char *a, size_t la,
                      const char *b, size_t lb, const char *x, size_t lx);
/* Splits `chars` between the streams: one that needs less than half keeps
 * all it needs, the other gets the rest. */
void capture_shares(size_t chars, size_t out_need, size_t err_need,
                    size_t *out_share, size_t *err_share);
/* Opens the log, if it is not yet, and writes what came so far. */
void capture_start_log(struct capture *c);

#endif
