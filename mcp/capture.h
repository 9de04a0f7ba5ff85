/* SPDX-License-Identifier: MIT */
/*
 * Bounded capture of one call's output for the MCP reply: per stream the
 * head and a ring of the tail, and, once the output outgrows the budget,
 * the whole output (stdout and stderr in arrival order) spilled to a log
 * file. Memory per call stays about twice the budget whatever the command
 * prints; nothing is lost.
 */
#ifndef BSH_MCP_CAPTURE_H
#define BSH_MCP_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stream_capture {
    unsigned char *head, *ring;
    size_t head_len, head_cap;
    size_t ring_pos, ring_cap; /* ring_pos: next write position */
    uint64_t total;
};

struct capture {
    size_t budget; /* bytes of output text the reply may carry */
    struct stream_capture out, err;
    unsigned char *pending; /* arrival-order output until it spills */
    size_t pending_len;
    int spill_fd;
    char spill_path[256];
    bool spill_failed;
};

/* 0, or -1 when out of memory. */
int capture_init(struct capture *c, size_t budget);
void capture_release(struct capture *c);

/* Adds a chunk of stdout (is_err false) or stderr. */
void capture_add(struct capture *c, bool is_err, const unsigned char *data,
                 size_t len);

/* One stream's share of the reply: its bytes, or head + marker + tail when
 * it was cut. `text` is malloc'd, not NUL-terminated (may hold NULs). */
struct capture_part {
    char *text;
    size_t len;
    uint64_t omitted; /* bytes of this stream left out */
};

/* Cuts both streams to fit the budget (stdout first, stderr after) and
 * returns them; 0 or -1 when out of memory. */
int capture_parts(const struct capture *c, struct capture_part *out,
                  struct capture_part *err);

/* Replaces invalid UTF-8 in `in` with U+FFFD; malloc'd result. */
char *utf8_sanitize(const char *in, size_t len, size_t *out_len);

/* Removes ANSI escape sequences and turns \r\n into \n, in place; returns
 * the new length. For PTY output. */
size_t terminal_clean(char *s, size_t len);

#endif
