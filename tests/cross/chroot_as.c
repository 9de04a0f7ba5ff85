/* SPDX-License-Identifier: MIT */
/*
 * chroot_as [--userspec=UID:GID] ROOT COMMAND [ARG...]: GNU chroot's
 * interface, for the arm64 VM of tests/cross/, whose busybox chroot cannot
 * drop to another user. Enters ROOT, drops every supplementary group and
 * becomes UID:GID (numbers), then executes COMMAND; exits 125 when it
 * cannot, 127 when COMMAND cannot be executed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fail(const char *what)
{
    fprintf(stderr, "chroot_as: %s: %s\n", what, strerror(errno));
    return 125;
}

int main(int argc, char **argv)
{
    int i = 1;
    unsigned long uid = 0, gid = 0;
    int drop = 0;
    if (i < argc && strncmp(argv[i], "--userspec=", 11) == 0) {
        char *end;
        uid = strtoul(argv[i] + 11, &end, 10);
        gid = *end == ':' ? strtoul(end + 1, NULL, 10) : uid;
        drop = 1;
        i++;
    }
    if (argc - i < 2) {
        fprintf(
            stderr,
            "usage: chroot_as [--userspec=UID:GID] ROOT COMMAND [ARG...]\n");
        return 125;
    }
    if (chroot(argv[i]) != 0 || chdir("/") != 0)
        return fail(argv[i]);
    if (drop && (setgroups(0, NULL) != 0 || setgid((gid_t)gid) != 0 ||
                 setuid((uid_t)uid) != 0))
        return fail("--userspec");
    execvp(argv[i + 1], argv + i + 1);
    fprintf(stderr, "chroot_as: %s: %s\n", argv[i + 1], strerror(errno));
    return 127;
}
