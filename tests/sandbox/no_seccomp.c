/* SPDX-License-Identifier: MIT */
/*
 * Runs a program where seccomp() is refused, as some container runtimes'
 * filters refuse it: bsh --sandbox must then fail clearly (strict) or run
 * and report the layer missing (best-effort).
 * Usage: no_seccomp PROGRAM [ARG...]
 */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs("usage: no_seccomp PROGRAM [ARG...]\n", stderr);
        return 2;
    }
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (ctx == NULL ||
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(seccomp), 0) <
            0 ||
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EINVAL), SCMP_SYS(prctl), 1,
                         SCMP_A0(SCMP_CMP_EQ, PR_SET_SECCOMP, 0)) < 0 ||
        seccomp_load(ctx) < 0) {
        perror("no_seccomp: seccomp");
        return 2;
    }
    seccomp_release(ctx);
    execvp(argv[1], argv + 1);
    perror("no_seccomp: exec");
    return 127;
}
