/* SPDX-License-Identifier: MIT */
/*
 * A small TAP producer: plan-less `ok` lines, typed comparisons that print
 * both sides on failure, and a summary that sets the exit status. One
 * process per test program, run by CTest; no fork, no extra fds, no
 * signal handlers, so the tests see the process exactly as a caller would.
 */
#ifndef BSH_TAP_H
#define BSH_TAP_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_run, tap_failed;

static inline bool tap_ok(bool cond, const char *file, int line,
                          const char *what)
{
    tap_run++;
    if (!cond)
        tap_failed++;
    printf("%sok %d - ", cond ? "" : "not ", tap_run);
    for (const char *p = what; *p != '\0'; p++) /* one line per test */
        fputs(*p == '\n' ? "\\n" : (char[2]){*p, '\0'}, stdout);
    printf("\n");
    if (!cond)
        printf("#   failed at %s:%d\n", file, line);
    fflush(stdout);
    return cond;
}

#define ok(cond, what) tap_ok((cond), __FILE__, __LINE__, (what))

#define is_int(got, want, what)                                  \
    do {                                                         \
        long long g_ = (long long)(got), w_ = (long long)(want); \
        if (!ok(g_ == w_, what))                                 \
            printf("#   got %lld, want %lld\n", g_, w_);         \
    } while (0)

#define is_str(got, want, what)                                         \
    do {                                                                \
        const char *g_ = (got), *w_ = (want);                           \
        if (!ok(g_ != NULL && w_ != NULL && strcmp(g_, w_) == 0, what)) \
            printf("#   got '%s'\n#  want '%s'\n", g_ ? g_ : "(null)",  \
                   w_ ? w_ : "(null)");                                 \
    } while (0)

/* A passing line marked as skipped, with the reason. */
#define skip(what, reason)                                           \
    do {                                                             \
        tap_run++;                                                   \
        printf("ok %d - %s # SKIP %s\n", tap_run, (what), (reason)); \
    } while (0)

/* valgrind turns the vfork spawn into a fork, so a child-side failure
 * (a bad chdir) can no longer reach the parent's memory. */
#define UNDER_VALGRIND (getenv("BSH_UNDER_VALGRIND") != NULL)

#define diag(...)            \
    do {                     \
        printf("# ");        \
        printf(__VA_ARGS__); \
        printf("\n");        \
    } while (0)

static inline int tap_done(void)
{
    printf("1..%d\n", tap_run);
    if (tap_failed)
        printf("# failed %d of %d\n", tap_failed, tap_run);
    return tap_failed == 0 && tap_run > 0 ? 0 : 1;
}

#endif
