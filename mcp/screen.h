/* SPDX-License-Identifier: MIT */
/*
 * The screen of a PTY run (screen.c, SPEC 10): a terminal emulator
 * (libvterm, the one Neovim uses) fed every byte the run writes, so that
 * bash_output can show what a person at that terminal would see: the
 * rows as text, the cursor, and whether a full-screen program switched to
 * the alternate screen. Answers the emulator would send back (to a
 * program asking for the cursor's position, say) are dropped: the model
 * types into the run, not the emulator.
 */
#ifndef BSH_MCP_SCREEN_H
#define BSH_MCP_SCREEN_H

#include <jansson.h>
#include <stddef.h>

#define SCREEN_ROWS_MIN 2
#define SCREEN_ROWS_MAX 200
#define SCREEN_COLS_MIN 10
#define SCREEN_COLS_MAX 500

struct screen;

/* A blank screen of `rows` by `cols`; NULL when out of memory. */
struct screen *screen_new(int rows, int cols);
void screen_free(struct screen *s);

void screen_feed(struct screen *s, const unsigned char *p, size_t n);

/* {"lines": [...], "cursor": {"row", "col"}, "alternate", "rows", "cols"}
 * (rows' trailing blanks trimmed, cursor 1-based), with the lines joined
 * in `*text` (malloc'd; trailing empty lines dropped). NULL when out of
 * memory. */
json_t *screen_json(const struct screen *s, char **text);

#endif
