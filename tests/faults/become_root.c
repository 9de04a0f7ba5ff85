/* SPDX-License-Identifier: MIT */
/* A setuid-root helper for the tests, as sudo would be: it takes every uid
 * and gid to 0, so that its caller may no longer signal it, then runs its
 * arguments. */
#define _GNU_SOURCE
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2 || setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0) {
        perror("become_root");
        return 111;
    }
    execvp(argv[1], argv + 1);
    perror("become_root: exec");
    return 112;
}
