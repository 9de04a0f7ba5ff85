/* SPDX-License-Identifier: MIT */
/*
 * Reading a signalfd, for the CLI and the MCP server, which take the
 * signals that would end them through one (header-only).
 */
#ifndef BSH_BASE_SIGNAL_READ_H
#define BSH_BASE_SIGNAL_READ_H

#include <sys/signalfd.h>
#include <unistd.h>

/* The next signal pending on signalfd `fd`, or 0 when none is. */
static inline int signal_read(int fd)
{
    struct signalfd_siginfo si;
    if (read(fd, &si, sizeof(si)) != (ssize_t)sizeof(si))
        return 0;
    return (int)si.ssi_signo;
}

#endif
