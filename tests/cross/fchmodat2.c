/* SPDX-License-Identifier: MIT */
/*
 * fchmodat2 PATH MODE: makes the fchmodat2 system call (Linux 6.6), which
 * C libraries do not wrap yet, so that tests/cross/ can show the sandbox
 * refusing it. Prints "done" or the error; exits 0, 1, or 2 for bad use.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_fchmodat2
#    define SYS_fchmodat2 452 /* the same on x86_64 and aarch64 */
#endif

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: fchmodat2 PATH OCTAL-MODE\n");
        return 2;
    }
    unsigned long mode = strtoul(argv[2], NULL, 8);
    if (syscall(SYS_fchmodat2, AT_FDCWD, argv[1], (unsigned)mode, 0) == 0) {
        puts("done");
        return 0;
    }
    printf("%s\n", strerror(errno));
    return 1;
}
