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

#include "spill.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stream_capture {
    unsigned char *head, *ring; /* allocated as they fill */
    size_t head_len, head_alloc, head_max;
    size_t ring_pos, ring_cap; /* ring_pos: next write position */
    uint64_t ring_written;     /* bytes that went past the head */
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
};

/* 0, or -1 when out of memory. */
int capture_init(struct capture *c, size_t budget, struct spill_dir *dir);
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

/* Both streams as reply text of at most `chars` characters together
 * (markers included, unless `chars` is smaller than a marker); stdout is
 * terminal output when `terminal`. 0, or -1 when out of memory. */
int capture_parts(struct capture *c, bool terminal, size_t chars,
                  struct capture_part *out, struct capture_part *err);

void capture_part_free(struct capture_part *p);

#endif
