/* SPDX-License-Identifier: MIT */
/*
 * `bsh run -p -i` on a terminal (terminal.c): bsh's terminal in raw mode
 * for the run, so every key reaches the command's own terminal, which
 * does the line editing and signals (Ctrl-C included); its size followed
 * through SIGWINCH; and the modes restored on every way out.
 */
#ifndef BSH_CLI_TERMINAL_H
#define BSH_CLI_TERMINAL_H

#include <stdbool.h>
#include <termios.h>

struct terminal {
    int fd;   /* bsh's terminal (its stdin), or -1 */
    bool raw; /* raw mode is on: restore `saved` */
    struct termios saved;
    int winch_fd;   /* a signalfd of SIGWINCH, or -1 */
    int rows, cols; /* its size at the start; 0 when unknown */
};

/* Takes over `fd` when it is a terminal: raw mode and SIGWINCH. False
 * (and nothing changed) when it is not one. */
bool terminal_take(struct terminal *t, int fd);

/* SIGWINCH came: the new size in rows and cols; false when unknown. */
bool terminal_resized(struct terminal *t, int *rows, int *cols);

/* Restores the modes; safe to call more than once. */
void terminal_restore(struct terminal *t);

#endif
