/* SPDX-License-Identifier: MIT */
/*
 * What the CLI does to its own process, which it owns (the library never
 * touches process-wide state): signal dispositions, the signals that
 * would end it, and its fd limit (process.c).
 */
#ifndef BSH_CLI_PROCESS_H
#define BSH_CLI_PROCESS_H

#include <sys/types.h>

/* At start: fds 0-2 opened on /dev/null where they were closed (their
 * mask is returned: bit N for fd N), SIGCHLD back to its default (an
 * inherited SIG_IGN would let the kernel reap the command before bsh could
 * read its status), and SIGPIPE ignored (a reader that goes away shows up
 * as EPIPE, and bsh still kills the command before it exits). */
unsigned process_take_over(void);

/* Blocks every signal whose default action would end bsh (all but
 * SIGKILL and SIGSTOP, the ones that stop it and the ones ignored by
 * default) and returns a non-blocking signalfd that reads them, so that
 * bsh ends its runs first and then exits 128+N (signal_read() takes
 * them). -1 with errno. */
int process_stop_signals(void);

/* Raises the soft RLIMIT_NOFILE to the hard one; returns the soft limit
 * now in force. */
long process_raise_fd_limit(void);

#endif
