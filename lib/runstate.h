/* SPDX-License-Identifier: MIT */
/*
 * What a running command is doing, read from its terminal and /proc
 * (runstate.c, which also holds the public bsh_stream_state() and
 * bsh_input_wait_name()): whether it waits for input, and the TCP ports
 * it listens on. Only bsh_stream_state() asks, so nothing here costs a
 * run that is not looked at.
 */
#ifndef BSH_RUNSTATE_H
#define BSH_RUNSTATE_H

#include "bsh/bsh.h"

/* The kind of input that the terminal's foreground process group waits
 * for: one of `pids` (the run's processes) in that group is blocked in a
 * read (or poll) of the terminal behind `master`; the terminal's modes
 * say which kind. BSH_INPUT_NONE otherwise. */
enum bsh_input_wait bsh__input_wait(int master, const int *pids, int n);

/* The TCP ports (IPv4 and IPv6) on which any of `pids` listens, sorted
 * and without repeats, at most `max`; how many. */
size_t bsh__listening_ports(const int *pids, int n, int *ports, size_t max);

#endif
