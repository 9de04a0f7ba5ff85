/* SPDX-License-Identifier: MIT */
/*
 * Where the MCP server keeps the whole output of calls whose reply had to
 * be cut: one private directory per server (spill.c).
 *
 * The directory is made on first use under $TMPDIR (or /tmp), mode 0700,
 * and each log in it is a file of mode 0600. A log stops growing at
 * `file_max` bytes and all logs together at `total_max`; the reply says
 * when a log was cut. At exit the directory and its logs are removed,
 * unless the server was told to keep them.
 */
#ifndef BSH_MCP_SPILL_H
#define BSH_MCP_SPILL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPILL_FILE_MAX  ((uint64_t)64 << 20)
#define SPILL_TOTAL_MAX ((uint64_t)1 << 30)

struct spill_dir {
    char path[PATH_MAX]; /* "" until made */
    bool keep;           /* leave the logs at exit */
    uint64_t file_max, total_max;
    uint64_t used; /* bytes in all logs */
    unsigned next_id;
};

void spill_dir_init(struct spill_dir *d, bool keep, uint64_t file_max,
                    uint64_t total_max);

/* Creates a new log file in the directory; its fd (close-on-exec, opened
 * for reading and writing: bash_output pages through it) with its path in
 * `path`, or -1 with errno. */
int spill_dir_open(struct spill_dir *d, char *path, size_t path_size);

/* How many of `n` bytes a log that holds `have` bytes may still take;
 * what it returns is counted as used. */
size_t spill_dir_take(struct spill_dir *d, uint64_t have, size_t n);

/* Removes the logs and the directory, unless they are to be kept. */
void spill_dir_finish(struct spill_dir *d);

#endif
